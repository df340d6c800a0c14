//! Appendix E2.7 / E2.8 (2001 F2.7 / F2.8, 2023 D.2.9 / D.2.10): each
//! player copies the opponent's move on his own board, and a copy can go
//! wrong (a piece put on the wrong square) or be forgotten. The boards then
//! differ; the position is corrected from the game record (the arbiter's
//! scoresheet: the moves recognised so far), not ruled as an illegal move.
//!
//! How a board that does not show the position is read: from the moment the
//! opponent's move is completed, every change on the board is logged. The
//! owner first copies (or not), then makes his own move. The owner's move
//! is the shortest tail of the log that, played on the recorded position,
//! shows a legal move exactly; the board as it stood before that tail is
//! his copy, and where it differs from the record are the squares to put
//! right. So the owner's next move is recognised whether or not he paused
//! after copying. When his own changes are not the last ones (he made his
//! move first and copied after it, or put the copied piece down while
//! making his move), his move is the legal move whose own squares' changes,
//! taken alone from the log, show it exactly; the rest of the log is the
//! copy. Either way the squares named are only those where the copy of
//! the record differs (Appendix E2.7: "forskellige stillinger på de to
//! skakbrætter"), never his own move's.
//!
//! A difference is reported once the board has been still for the settle
//! time (no report while pieces are moving, issue 29.3), or at the press
//! that completes a move read from the record; "the boards agree" is said
//! as soon as the board agrees again, whoever put it right.

use super::announce::{Announcement, Decisions};
use super::{square_list, Arbiter};
use crate::board::{Change, SensedBoard};
use crate::model::IrregularityKind;
use crate::recognize::{recognize, Recognition};
use crate::trace::{BoardId, Event, EventKind};
use shakmaty::{Bitboard, Board, Color, Position};
use std::borrow::Cow;

/// One sensed board and what the arbiter knows of it.
#[derive(Debug, Clone)]
pub(super) struct Slot {
    pub(super) id: BoardId,
    pub(super) sensed: SensedBoard,
    /// The occupancy the sensors last reported, in the game's squares: the
    /// arbiter's rulings that take the board as showing the position
    /// (`restore`) never change it, so an undo of such a ruling finds what
    /// the board really shows (`rulings.rs`).
    pub(super) seen: Bitboard,
    /// The board has shown the position since the last completed move (its
    /// owner has copied the opponent's move, E2.7); lifts before that are
    /// copying, not touches.
    pub(super) synced: bool,
    /// Time of the last change not yet checked for divergence, ms.
    pub(super) unchecked_since: Option<u64>,
    /// While the board does not show the position: how it stood when it
    /// stopped showing it and every change since.
    pub(super) copying: Option<Box<Copying>>,
    /// The squares last reported as differing from the record (E2.7), so a
    /// difference is reported once, and its end said once.
    pub(super) differ_reported: Bitboard,
    /// The last ply (completed half-moves) whose position this board
    /// showed: both boards' last common ply is where the two records last
    /// agree (E2.8, `rewind.rs`).
    pub(super) shown_ply: u32,
}

/// A board waiting to be brought to the position by its owner: what
/// changed on it since.
#[derive(Debug, Clone)]
pub(super) struct Copying {
    /// Every change since the position changed under it (the opponent's
    /// move completed, or the owner's move completed on a board still
    /// wrong), with its time (ms).
    log: Vec<(u64, Change)>,
}

/// The owner's move read off a board whose copy of the record is wrong.
#[derive(Debug, Clone)]
pub(super) struct CopyReading {
    /// The recorded position with only the owner's own changes played on it.
    pub(super) board: SensedBoard,
    /// Where the physical board will still differ from the record once the
    /// owner's move is made: the squares to put right (E2.7).
    pub(super) wrong: Bitboard,
}

impl Slot {
    /// A board showing `board` (the start of the game).
    pub(super) fn new(id: BoardId, sensed: SensedBoard) -> Slot {
        Slot {
            id,
            seen: sensed.occupied(),
            sensed,
            synced: true,
            unchecked_since: None,
            copying: None,
            differ_reported: Bitboard::EMPTY,
            shown_ply: 0,
        }
    }

    /// The position changed to `board` (a move completed): the board shows
    /// it, or its owner has to bring it there; from now on its changes are
    /// logged until it does.
    pub(super) fn position_changed(&mut self, board: &Board) {
        self.sensed.clear_history();
        self.synced = self.sensed.matches(board);
        self.copying = (!self.synced).then(|| Box::new(Copying { log: Vec::new() }));
    }

    /// Logs a change applied to the sensed board while it is being copied.
    pub(super) fn log(&mut self, t: u64, ch: Change) {
        if let Some(c) = self.copying.as_mut() {
            c.log.push((t, ch));
        }
    }

    /// The board shows the position (copied, restored, or set by the
    /// arbiter): nothing to copy any more.
    pub(super) fn in_step(&mut self, board: &Board) {
        self.synced = true;
        self.copying = None;
        self.sensed.reset_to(board);
    }

    /// Reads the owner's move off a board whose copy is wrong or missing
    /// (see the module's doc); `None` when no tail of the log shows a legal
    /// move exactly, or the board is not being copied.
    pub(super) fn copy_reading(
        &self,
        pos: &shakmaty::Chess,
        promote: Option<shakmaty::Role>,
    ) -> Option<CopyReading> {
        let c = self.copying.as_ref()?;
        let all: Vec<&(u64, Change)> = c.log.iter().collect();
        if let Some(r) = self.own_tail(pos, promote, &all, None) {
            return Some(r);
        }
        // His move is not the last of the changes: his own squares' changes
        // alone, for each legal move whose origin he lifted.
        let lifted: Bitboard = c
            .log
            .iter()
            .filter_map(|(_, ch)| match ch {
                Change::Lift(sq) => Some(*sq),
                Change::Place(..) => None,
            })
            .collect();
        let mut best: Option<CopyReading> = None;
        for mv in pos.legal_moves() {
            let own = move_squares(&mv, pos.turn());
            if !mv.from().is_some_and(|f| lifted.contains(f)) {
                continue;
            }
            let mine: Vec<&(u64, Change)> = c
                .log
                .iter()
                .filter(|(_, ch)| own.contains(change_square(*ch)))
                .collect();
            if let Some(r) = self.own_tail(pos, promote, &mine, Some(&mv)) {
                if best
                    .as_ref()
                    .is_none_or(|b| r.wrong.count() < b.wrong.count())
                {
                    best = Some(r);
                }
            }
        }
        best
    }

    /// The shortest tail of `changes` that, played on the recorded
    /// position `pos`, shows a legal move exactly (`want`: that move,
    /// compared by its squares); `None` when none does or the board shows
    /// that move with nothing to put right.
    fn own_tail(
        &self,
        pos: &shakmaty::Chess,
        promote: Option<shakmaty::Role>,
        changes: &[&(u64, Change)],
        want: Option<&shakmaty::Move>,
    ) -> Option<CopyReading> {
        for k in (0..changes.len()).rev() {
            let mut own = SensedBoard::new(pos.board());
            own.bounce_ms = self.sensed.bounce_ms;
            for (t, ch) in &changes[k..] {
                own.apply(*ch, *t);
            }
            if let Recognition::Move { mv, missing: 0, .. } = recognize(pos, &own, promote) {
                if want.is_some_and(|w| w.from() != mv.from() || w.to() != mv.to()) {
                    continue;
                }
                let mut after = pos.clone();
                after.play_unchecked(mv);
                let wrong = self.sensed.differences(after.board());
                if wrong.is_empty() {
                    return None;
                }
                return Some(CopyReading { board: own, wrong });
            }
        }
        None
    }
}

/// The square a change concerns.
fn change_square(ch: Change) -> shakmaty::Square {
    match ch {
        Change::Lift(sq) | Change::Place(sq, ..) => sq,
    }
}

/// The squares a move changes on the board: origin and destination, the
/// pawn taken en passant, the rook's squares when castling.
pub(super) fn move_squares(mv: &shakmaty::Move, side: shakmaty::Color) -> Bitboard {
    let mut b = Bitboard::from(mv.to());
    if let Some(f) = mv.from() {
        b.add(f);
    }
    match *mv {
        shakmaty::Move::EnPassant { from, to } => {
            b.add(shakmaty::Square::from_coords(to.file(), from.rank()));
        }
        shakmaty::Move::Castle { king, rook } => {
            let castle = if rook.file() > king.file() {
                shakmaty::CastlingSide::KingSide
            } else {
                shakmaty::CastlingSide::QueenSide
            };
            b.add(king);
            b.add(rook);
            b.add(castle.king_to(side));
            b.add(castle.rook_to(side));
        }
        _ => {}
    }
    b
}

impl Arbiter {
    /// The board the owner of board `bi` is read from: the sensed board, or,
    /// when his copy of the record is wrong or missing, the record with his
    /// own changes played on it (E2.7: corrected from the record).
    pub(super) fn reading(&self, bi: usize) -> Cow<'_, SensedBoard> {
        let slot = &self.boards[bi];
        if slot.copying.is_some() && bi == self.mi() {
            if let Some(r) = slot.copy_reading(&self.pos, self.turn.promote) {
                return Cow::Owned(r.board);
            }
        }
        Cow::Borrowed(&slot.sensed)
    }

    /// The player who plays on board `bi`.
    pub(super) fn owner_of(&self, bi: usize) -> Color {
        if self.board_of(Color::White) == bi {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Where board `bi`, as its owner's copy of the record, differs from
    /// the record now (E2.7): empty when it agrees (the owner's own move
    /// on it not counted); `None` when it cannot be told yet: the
    /// opponent's move not yet copied, the owner in the middle of his own
    /// move, or a position being reinstated after a ruling that named the
    /// squares itself.
    pub(super) fn copy_difference(&self, bi: usize) -> Option<Bitboard> {
        let slot = &self.boards[bi];
        let b = &slot.sensed;
        if b.matches(self.pos.board()) {
            return Some(Bitboard::EMPTY);
        }
        let n = self.history.len();
        if !slot.synced && n >= 2 && b.matches(self.history[n - 2].board()) {
            return None;
        }
        let diff = b.differences(self.pos.board());
        if bi != self.mi() {
            // The mover's move stands made on his board and is not yet
            // completed: this board's owner may already copy it (and reply,
            // his having the move, §1.1 / 2023 1.3); the press reads both
            // boards (`unpressed.rs`), so nothing is said before it.
            let mi = self.mi();
            if !self.phase.is_restoring()
                && matches!(
                    recognize(&self.pos, &self.reading(mi), self.turn.promote),
                    Recognition::Move { missing: 0, .. }
                )
            {
                return None;
            }
            return Some(diff);
        }
        if self.phase.is_restoring() {
            return None;
        }
        match recognize(&self.pos, b, self.turn.promote) {
            Recognition::Move { missing: 0, .. } => return Some(Bitboard::EMPTY),
            Recognition::Move { .. } => return None,
            _ => {}
        }
        if let Some(r) = slot.copy_reading(&self.pos, self.turn.promote) {
            return Some(r.wrong);
        }
        // No move of his shows: while none of his own pieces is off its
        // square the difference is the copy's; otherwise his hand is on
        // his move.
        let own = self.pos.board().by_color(self.pos.turn());
        (diff & own).is_empty().then_some(diff)
    }

    /// After a change on board `bi` (or a completed move): the ply it
    /// shows is noted (E2.8), and a reported difference that is gone is
    /// said to be gone at once, whoever put it right.
    pub(super) fn note_board(&mut self, bi: usize, t: u64, out: &mut Decisions) {
        if self.boards[bi].sensed.matches(self.pos.board()) {
            self.boards[bi].shown_ply = self.ply();
        }
        if !self.boards[bi].differ_reported.is_empty()
            && self.copy_difference(bi) == Some(Bitboard::EMPTY)
        {
            self.boards_agree_again(bi, t, out);
        }
    }

    /// Reports that board `bi` differs from the record on `squares` at `t`
    /// (an `irregularity` for the arbiter and an announcement naming the
    /// board's owner and the squares), unless these squares were all named
    /// in the last report: a difference that only shrinks is its owner
    /// putting it right (issue 29.3: nothing repeated while he corrects).
    pub(super) fn report_boards_differ(
        &mut self,
        bi: usize,
        squares: Bitboard,
        t: u64,
        out: &mut Decisions,
    ) {
        let reported = self.boards[bi].differ_reported;
        if squares.is_empty() || (squares & !reported).is_empty() {
            return;
        }
        self.boards[bi].differ_reported = squares;
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::BoardsDiffer,
                article: self.cfg.profile.articles.vi_boards_differ,
                squares: square_list(squares),
            },
        });
        let owner = self.owner_of(bi);
        self.announce(Announcement::BoardsDiffer { owner, squares }, t, out);
    }

    /// Board `bi` agrees with the record again after a reported
    /// difference: the players are told the boards agree.
    pub(super) fn boards_agree_again(&mut self, bi: usize, t: u64, out: &mut Decisions) {
        if self.boards[bi].differ_reported.is_empty() {
            return;
        }
        self.boards[bi].differ_reported = Bitboard::EMPTY;
        let owner = self.owner_of(bi);
        self.announce(
            Announcement::BoardsDiffer {
                owner,
                squares: Bitboard::EMPTY,
            },
            t,
            out,
        );
    }
}
