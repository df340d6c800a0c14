//! Article 7 on the board: displaced pieces beside a legal move (§7.3 /
//! §7.5), and the position restored on the board after a take-back, a
//! set-up or an illegal move ([`Phase::Restoring`](super::Phase::Restoring)
//! until the board shows it again, `position_restored`). Split from
//! `illegal.rs` (the illegal moves themselves).

use super::announce::Decisions;
use super::hand::Turn;
use super::{square_list, Arbiter, CompletedMove, Completion};
use crate::board::Change;
use crate::model::IrregularityKind;
use crate::trace::{Event, EventKind};
use shakmaty::fen::Fen;
use shakmaty::{Color, EnPassantMode, Position, Role};

impl Arbiter {
    /// §7.3 / §7.5: the board shows a legal move and, away from it, one or
    /// two pieces knocked over or displaced. The move is completed; the
    /// arbiter and the players are told which squares to put right, and the
    /// board is guided back to the position.
    pub(super) fn try_displaced(
        &mut self,
        side: Color,
        bi: usize,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        let Some((mv, extra)) = crate::recognize::nearest_with_displaced(
            &self.pos,
            &self.boards[bi].sensed,
            self.turn.promote,
            2,
        ) else {
            return false;
        };
        let _ = side;
        // A piece the mover carried himself from one of those squares to
        // another is part of his move, not a displaced piece (§7.3 speaks of
        // pieces displaced, §4 of pieces moved): his king (a castling through
        // or out of check, `Ke1-g1 Rh1-f1`) or the piece he touched first.
        let first = self.turn.touches.first().map(|t| t.square);
        // His king carried from or to one of those squares went elsewhere
        // than the legal move read says: Ke1-g1 Rh1-f1 out of check read as
        // Kf1 with g1 and h1 "displaced", Ke1-c1 Ra1-d1 through check as Rc1
        // with d1 and e1 (§3.8b(2): an illegal move, §7.4a / 7.5.1, never
        // §7.3).
        let carried = self.turn.placed.iter().any(|(from, to, _)| {
            let king = self.pos.board().role_at(*from) == Some(Role::King);
            (king && (extra.contains(*from) || extra.contains(*to)))
                || (extra.contains(*from) && extra.contains(*to) && first == Some(*from))
        });
        if carried {
            return false;
        }
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::Displaced,
                article: self.cfg.profile.articles.displaced,
                squares: square_list(extra),
            },
        });
        let completed = CompletedMove {
            mv,
            how: Completion::Pressed,
            promotion_assumed: false,
        };
        self.complete(completed, t, out);
        if !self.ended() {
            // The board still shows the displaced pieces: follow the sensors.
            let pos = self.pos.clone();
            let b = &mut self.boards[bi].sensed;
            for sq in extra {
                if pos.board().piece_at(sq).is_some() {
                    b.apply(Change::Lift(sq), t);
                } else {
                    b.apply(Change::Place(sq, None, None), t);
                }
            }
            b.clear_history();
            self.set_restoring(true);
        }
        true
    }

    /// After the position changed under the players (take-back, set-up):
    /// the turn starts afresh, the clock runs for the player on move and the
    /// board is guided back to the position.
    pub(super) fn take_back_state(&mut self, t: u64) {
        self.cancel_pending_end();
        self.turn = Turn::default();
        let turn = self.pos.turn();
        if let Some(c) = self.clock.as_mut() {
            if c.running().is_some() {
                c.stop(t);
                c.start(turn, t);
            }
        }
        let pos = self.pos.clone();
        let bi = self.mi();
        let b = &mut self.boards[bi];
        b.sensed.clear_history();
        b.synced = true;
        b.copying = None;
        let restore = !b.sensed.matches(pos.board());
        if !restore {
            b.sensed.reset_to(pos.board());
        }
        self.set_restoring(restore);
    }

    /// `Restoring → Playing` once the mover's board `bi` shows the position
    /// again (`position_restored`).
    pub(super) fn check_restored(&mut self, bi: usize, t: u64, out: &mut Decisions) {
        if self.boards[bi].sensed.matches(self.pos.board()) {
            self.set_restoring(false);
            let pos = self.pos.clone();
            self.boards[bi].sensed.reset_to(pos.board());
            out.push(Event {
                t,
                kind: EventKind::PositionRestored {
                    fen: Fen::from_position(&self.pos, EnPassantMode::Legal).to_string(),
                },
            });
        }
    }
}
