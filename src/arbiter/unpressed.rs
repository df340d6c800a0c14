//! A move made and not pressed, then the opponent's move (issue 25): the
//! board is read as the moves made since the last completed move.
//!
//! A player has the move as soon as his opponent's move is *made* (2009
//! §1.1: "at være i trækket" når hans modstanders træk er udført, seed
//! 002; 2023 1.3), so he may reply to a move not pressed. The
//! real clock then still runs for the first player ("Tiden mellem udførelsen af trækket … betragtes som en del af
//! spillerens tildelte betænkningstid", 2009 §6.7a), and the second
//! player's press does nothing on it. So:
//!
//! - a press by the player not on move, with the board showing a move of
//!   his opponent and then one of his own, records both: the first as made
//!   without a press (`Completion::Unpressed`: the clock untouched, the move
//!   counted at the player's next press, or in 2023 at his next move made,
//!   6.2.1.2), the second as completed by a press that changed nothing on
//!   the clock (`Completion::IdlePress`);
//! - a press by the player on move whose board shows three moves (his, his
//!   opponent's, his) records the first two as made without a press and
//!   completes the third with the press;
//! - a press by the player on move whose board shows his move and his
//!   opponent's reply completes his move (he must be allowed to press
//!   "even after the opponent has made his/her next move", 2023 6.2.2) and
//!   leaves the reply made, waiting for its press (`Completion::PressedBehind`);
//! - nothing is ruled (no Law makes either move illegal, and 2009 §13.6 /
//!   2023 12.7 forbid telling a player that he has not pressed his clock);
//! - when the board fits more than one series of moves, nothing is applied
//!   and the arbiter is told (`unpressed_moves_unclear`).
//!
//! In an Appendix E game (two boards, `copying.rs`) the series is read on
//! the presser's own board, where he copied his opponent's moves and made
//! his own (E2.1), and must agree with the other board (it shows one of the
//! series' positions); otherwise the press is held and the arbiter told.

use super::announce::Decisions;
use super::hand::Turn;
use super::touch::Touch;
use super::{Arbiter, CompletedMove, Completion};
use crate::model::IrregularityKind;
use crate::recognize::{effect, recognize, Recognition};
use crate::trace::{Event, EventKind};
use shakmaty::{Bitboard, Chess, Color, Move, Position};

/// The most readings looked at: a board that fits more is unclear anyway.
const MAX_READINGS: usize = 8;

/// One reading of the board: the moves made since the last completed move,
/// in order (the last is the presser's).
#[derive(Debug, Clone)]
pub(super) struct Reading {
    pub(super) moves: Vec<Move>,
    /// The last move is a promotion whose piece was assumed a queen.
    pub(super) promotion_assumed: bool,
    /// The first move is an illegal one, played without the legality check
    /// from the hand's one piece move (or castling): its own king left in
    /// check, a castling through check, a pawn left unpromoted on the last
    /// rank (`illegal_series`).
    pub(super) illegal_first: bool,
}

impl Arbiter {
    /// `side` pressed and the board may show more than one move made since
    /// the last completed move: `true` when the press was taken here (the
    /// moves completed, or held with an `unpressed_moves_unclear` alert),
    /// `false` when the board shows no such series (the caller goes on).
    pub(super) fn press_after_unpressed(
        &mut self,
        side: Color,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        if self.phase.is_restoring() || self.forced.is_some() {
            return false;
        }
        // The presser's own board: the series ends with his move, and he
        // made it there after copying his opponent's (Appendix E, E2.1: the
        // moves "udføres på hans skakbræt"); with one board, the board.
        let bi = self.board_of(side);
        if self.reading(bi).matches(self.pos.board()) {
            return false;
        }
        // The presser's move last: two moves when his opponent is on move,
        // three when he is. Or, when he is, his own move and his opponent's
        // reply made before his press (6.2.2).
        let on_move = side == self.pos.turn();
        let mut readings = self.readings(bi, if on_move { 3 } else { 2 });
        let mut behind = false;
        if on_move && readings.is_empty() {
            // Only where the reply began after his move stood on the board:
            // a piece of the opponent's moved while his own move was being
            // made is read as before (a displaced piece, §7.3 / 7.4). On two
            // boards each hand is on its own board.
            readings = self.readings(bi, 2);
            readings.retain(|r| self.boards.len() > 1 || self.reply_after_move(r));
            behind = true;
        }
        match readings.as_slice() {
            [] => false,
            [one] if !self.other_board_agrees(bi, one) => {
                // E2.7: the two boards tell different games: nothing is
                // guessed, the arbiter is told.
                self.alert_unclear(bi, 1, t, out);
                true
            }
            [one] if one.illegal_first => self.illegal_series(one.clone(), side, behind, t, out),
            [one] if behind => {
                self.complete_behind(one.clone(), t, out);
                true
            }
            [one] => {
                self.complete_series(one.clone(), side, t, out);
                true
            }
            several => {
                self.alert_unclear(bi, several.len(), t, out);
                true
            }
        }
    }

    /// The press is held: the board (or the two boards) fit more than one
    /// series of moves, or none the two agree on. Nothing is applied; the
    /// arbiter is told (`unpressed_moves_unclear`, the completion article).
    fn alert_unclear(&mut self, bi: usize, readings: usize, t: u64, out: &mut Decisions) {
        tracing::info!(
            t,
            readings,
            "press held: the board does not tell one series of moves after a move not pressed"
        );
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::UnpressedMovesUnclear,
                article: self.cfg.profile.article_completion(),
                squares: super::square_list(self.reading(bi).differences(self.pos.board())),
            },
        });
    }

    /// Appendix E: the series read on board `bi` is the game the other
    /// board shows too: it stands at one of the series' positions (its
    /// owner made his moves there and copied his opponent's, or not yet the
    /// last). Always with one board.
    fn other_board_agrees(&self, bi: usize, r: &Reading) -> bool {
        if self.boards.len() < 2 {
            return true;
        }
        let mut p = self.pos.clone();
        let mut shown = false;
        for m in &r.moves {
            p.play_unchecked(*m);
            shown |= (0..self.boards.len())
                .filter(|&o| o != bi)
                .all(|o| self.boards[o].sensed.matches(p.board()));
        }
        shown
    }

    /// Whether, in a reading of his move and his opponent's reply, the
    /// opponent touched his first piece after the player's own pieces were
    /// all set down (times of the lifts and placements, ms).
    fn reply_after_move(&self, r: &Reading) -> bool {
        let Some(mv) = r.moves.first() else {
            return false;
        };
        let mover = self.pos.turn();
        let (_, rest) = split_first(&self.turn, &self.pos, mv);
        let set_down = self
            .turn
            .placed
            .iter()
            .filter(|(from, _, _)| self.pos.board().color_at(*from) == Some(mover))
            .map(|(_, _, t)| *t)
            .max();
        match (rest.first(), set_down) {
            (Some(first), Some(down)) => first.t > down,
            _ => false,
        }
    }

    /// The series of `plies` moves from the last completed position whose
    /// end the board shows exactly (at most [`MAX_READINGS`] + 1): legal
    /// moves, or an illegal first move followed by legal ones (an illegal
    /// move made and not pressed, then replied to).
    fn readings(&self, bi: usize, plies: usize) -> Vec<Reading> {
        let start = vec![(self.pos.clone(), Vec::new())];
        let mut found = self.readings_from(bi, start, plies, false);
        if found.len() <= MAX_READINGS && plies > 1 {
            let starts = self.illegal_starts();
            if !starts.is_empty() {
                found.extend(self.readings_from(bi, starts, plies - 1, true));
            }
        }
        found
    }

    /// The series of `plies` legal moves after each of `starts` whose end
    /// the board shows exactly, every move handled as the sensors saw it.
    pub(super) fn readings_from(
        &self,
        bi: usize,
        starts: Vec<(Chess, Vec<Move>)>,
        plies: usize,
        illegal_first: bool,
    ) -> Vec<Reading> {
        let sensed = self.reading(bi).into_owned();
        let mut prefixes = starts;
        for _ in 1..plies {
            let mut next = Vec::new();
            for (p, ms) in &prefixes {
                for m in p.legal_moves() {
                    // A king is never taken (an illegal move that stood can
                    // leave one in check): no position without it is read.
                    if m.capture() == Some(shakmaty::Role::King) {
                        continue;
                    }
                    let mut q = p.clone();
                    q.play_unchecked(m);
                    let mut v = ms.clone();
                    v.push(m);
                    next.push((q, v));
                }
            }
            prefixes = next;
        }
        let mut found = Vec::new();
        for (p, ms) in prefixes {
            let Recognition::Move {
                mv,
                promotion_assumed,
                tied,
                ..
            } = recognize(&p, &sensed, self.turn.promote)
            else {
                continue;
            };
            for m in std::iter::once(mv).chain(tied) {
                if m.capture() == Some(shakmaty::Role::King) {
                    continue;
                }
                let mut q = p.clone();
                q.play_unchecked(m);
                let mut moves = ms.clone();
                moves.push(m);
                if sensed.matches(q.board())
                    && handled(&sensed, &self.pos, &ms)
                    && in_time_order(&self.turn.touches, &moves)
                {
                    found.push(Reading {
                        moves,
                        promotion_assumed: promotion_assumed && m.is_promotion(),
                        illegal_first,
                    });
                }
            }
            if found.len() > MAX_READINGS {
                break;
            }
        }
        found
    }

    /// Completes the series read: every move but the last as made without
    /// a press, the last with `side`'s press.
    pub(super) fn complete_series(&mut self, r: Reading, side: Color, t: u64, out: &mut Decisions) {
        let start = self.pos.clone();
        let turn = std::mem::take(&mut self.turn);
        let mut touches = turn.touches.clone();
        let n = r.moves.len();
        for (k, mv) in r.moves.into_iter().enumerate() {
            let mover = self.pos.turn();
            // The first move's touches end where the sensors saw the reply
            // begin (`Turn::reply_at`), else at the first touch of a piece
            // of the opponent's away from the move.
            let (mine, rest) = if k == 0 {
                split_first(&turn, &self.pos, &mv)
            } else {
                split_touches(&touches, &self.pos, &mv)
            };
            touches = rest;
            // Each move is judged under §4 by its own player's touches and
            // releases.
            let mut own = if k + 1 == n {
                turn.clone()
            } else {
                Turn::default()
            };
            own.touches = mine;
            // The visually impaired player's move announced when it stood
            // on the tactile board (E2.3c) is not announced again.
            if k + 1 < n && turn.announced.as_ref().is_some_and(|a| a.mv == mv) {
                own.announced = turn.announced.clone();
            }
            own.releases = turn
                .releases
                .iter()
                .filter(|r| start.board().color_at(r.from) == Some(mover))
                .copied()
                .collect();
            self.turn = own;
            let how = if k + 1 < n {
                Completion::Unpressed
            } else if side == start.turn() {
                Completion::Pressed
            } else {
                Completion::IdlePress
            };
            if k == 0 && r.illegal_first {
                // Made and not pressed, then replied to: it stands.
                self.stand_illegal(mv, false, t, out);
                continue;
            }
            let completed = CompletedMove {
                mv,
                how,
                promotion_assumed: k + 1 == n && r.promotion_assumed,
            };
            self.complete(completed, t, out);
            if self.ended() {
                return;
            }
        }
    }

    /// The player on move presses after his opponent made his reply on the
    /// board (2023 6.2.2, 2009 §6.7a "must always be allowed to stop his
    /// clock"): his move is completed by the press and the clock switches;
    /// the reply stands made and waits for its own press (its touches stay
    /// its player's).
    pub(super) fn complete_behind(&mut self, r: Reading, t: u64, out: &mut Decisions) {
        let [mv, _reply] = r.moves[..] else {
            return;
        };
        let turn = std::mem::take(&mut self.turn);
        let (mine, rest) = split_first(&turn, &self.pos, &mv);
        self.turn = Turn {
            touches: mine,
            ..turn
        };
        if r.illegal_first {
            // His press completes it after the reply was made: it stands.
            self.stand_illegal(mv, true, t, out);
        } else {
            let completed = CompletedMove {
                mv,
                how: Completion::PressedBehind,
                promotion_assumed: false,
            };
            self.complete(completed, t, out);
        }
        if !self.ended() {
            self.turn.touches = rest;
        }
    }

    /// 2023 6.2.1.2: `side`'s flag is about to fall, and a move of his
    /// stands on the board made after one not pressed: that move completes
    /// the earlier one, which counts toward the time control now. `true`
    /// when the clock counted something (its flag time may have moved).
    pub(super) fn complete_by_next_move_made(&mut self, side: Color) -> bool {
        let i = super::ci(side);
        if !self.cfg.profile.next_move_completes_previous()
            || self.unpressed[i] == 0
            || side != self.pos.turn()
            || self.boards.len() > 1
        {
            return false;
        }
        let made = matches!(
            recognize(&self.pos, &self.reading(0), self.turn.promote),
            Recognition::Move { .. }
        );
        if !made {
            return false;
        }
        let n = std::mem::take(&mut self.unpressed[i]);
        if let Some(c) = self.clock.as_mut() {
            for _ in 0..n {
                c.count_move(side);
            }
        }
        true
    }
}

/// Whether every move of `moves` (played from `pos`) was handled on the
/// board as the sensors saw it: the squares it empties lifted, the squares
/// it fills placed on (since the last completed move). So a pawn set down
/// once on e4 is never read as e3 and then e4.
fn handled(sensed: &crate::board::SensedBoard, pos: &Chess, moves: &[Move]) -> bool {
    let mut p = pos.clone();
    for m in moves {
        let e = effect(m, p.turn());
        let filled = e
            .filled
            .into_iter()
            .flatten()
            .fold(Bitboard::EMPTY, |b, (sq, _)| b | Bitboard::from_square(sq));
        if !e.vacated.without(sensed.lifted()).is_empty()
            || !filled.without(sensed.placed()).is_empty()
        {
            return false;
        }
        p.play_unchecked(*m);
    }
    true
}

/// Whether the moves of a series began in their order: the first lift of
/// each move's piece (its origin square, when touched) after the previous
/// move's. So 1. e4 and 2. Nf3 made in that order are never read as 1. Nf3
/// and 2. e4.
fn in_time_order(touches: &[Touch], moves: &[Move]) -> bool {
    let mut last = None;
    for m in moves {
        let Some(from) = m.from() else { continue };
        let Some(t) = touches.iter().find(|x| x.square == from).map(|x| x.t) else {
            continue;
        };
        if last.is_some_and(|l| t <= l) {
            return false;
        }
        last = Some(t);
    }
    true
}

/// The first move's touches split from the reply's: where the sensors saw
/// the reply begin (`Turn::reply_at`, `hand.rs`), else as
/// [`split_touches`].
pub(super) fn split_first(turn: &Turn, pos: &Chess, mv: &Move) -> (Vec<Touch>, Vec<Touch>) {
    match turn.reply_at {
        Some(at) => {
            let i = turn
                .touches
                .iter()
                .position(|x| x.t >= at)
                .unwrap_or(turn.touches.len());
            (turn.touches[..i].to_vec(), turn.touches[i..].to_vec())
        }
        None => split_touches(&turn.touches, pos, mv),
    }
}

/// The touches of a series split at the first touch that is not the
/// mover's: a piece of his opponent's, away from the squares his move
/// changes (his opponent began his own move). `(the mover's, the rest)`.
fn split_touches(touches: &[Touch], pos: &Chess, mv: &Move) -> (Vec<Touch>, Vec<Touch>) {
    let mover = pos.turn();
    let e = effect(mv, mover);
    let mut squares = e.vacated | e.cleared;
    for (sq, _) in e.filled.into_iter().flatten() {
        squares |= Bitboard::from_square(sq);
    }
    let at = touches
        .iter()
        .position(|x| x.piece.color != mover && !squares.contains(x.square))
        .unwrap_or(touches.len());
    (touches[..at].to_vec(), touches[at..].to_vec())
}
