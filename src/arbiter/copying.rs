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
//! after copying, and the guidance names the squares as soon as his move
//! shows, in the order the changes came.

use super::announce::{Announcement, Decisions};
use super::{square_list, Arbiter};
use crate::board::{Change, SensedBoard};
use crate::model::IrregularityKind;
use crate::recognize::{recognize, Recognition};
use crate::trace::{BoardId, Event, EventKind};
use shakmaty::{Bitboard, Board, Position};
use std::borrow::Cow;

/// One sensed board and what the arbiter knows of it.
#[derive(Debug, Clone)]
pub(super) struct Slot {
    pub(super) id: BoardId,
    pub(super) sensed: SensedBoard,
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
            sensed,
            synced: true,
            unchecked_since: None,
            copying: None,
            differ_reported: Bitboard::EMPTY,
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
        for k in (0..c.log.len()).rev() {
            let mut own = SensedBoard::new(pos.board());
            own.bounce_ms = self.sensed.bounce_ms;
            for (t, ch) in &c.log[k..] {
                own.apply(*ch, *t);
            }
            if let Recognition::Move { mv, missing: 0, .. } = recognize(pos, &own, promote) {
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

    /// E2.7: the owner of board `bi` (on move) is making his move on a board
    /// whose copy is wrong or missing: as soon as the move shows, the
    /// arbiter and the players are told which squares to put right (once
    /// per set of squares). Returns whether the board is read from the
    /// record.
    pub(super) fn watch_copy_error(&mut self, bi: usize, t: u64, out: &mut Decisions) -> bool {
        let Some(r) = self.boards[bi].copy_reading(&self.pos, self.turn.promote) else {
            return false;
        };
        self.report_boards_differ(bi, r.wrong, t, out);
        true
    }

    /// Reports that board `bi` differs from the record on `squares` at `t`
    /// (an `irregularity` for the arbiter and an announcement naming the
    /// squares), unless exactly these squares were reported last.
    pub(super) fn report_boards_differ(
        &mut self,
        bi: usize,
        squares: Bitboard,
        t: u64,
        out: &mut Decisions,
    ) {
        if self.boards[bi].differ_reported == squares {
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
        self.announce(Announcement::BoardsDiffer { squares }, t, out);
    }

    /// Board `bi` shows the position again after a reported difference:
    /// the players are told the boards agree.
    pub(super) fn boards_agree_again(&mut self, bi: usize, t: u64, out: &mut Decisions) {
        if self.boards[bi].differ_reported.is_empty() {
            return;
        }
        self.boards[bi].differ_reported = Bitboard::EMPTY;
        self.announce(
            Announcement::BoardsDiffer {
                squares: Bitboard::EMPTY,
            },
            t,
            out,
        );
    }
}
