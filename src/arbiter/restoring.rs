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
use shakmaty::{Bitboard, Color, EnPassantMode, Move, Position, Role};

impl Arbiter {
    /// The readings of the mover's board `bi` as a legal move beside
    /// displaced pieces (2009 §7.3, 2023 7.4.1: knocked over or displaced,
    /// whatever their number), those with the fewest displaced squares
    /// once the readings the mover's own hand rules out are dropped
    /// ([`Self::carried_through`]). Several: the board does not tell them
    /// apart (the press is held, `ambiguous.rs`); none: no legal move
    /// explains the rest of the board.
    pub(super) fn displaced_readings(&self, bi: usize) -> Vec<(Move, Bitboard)> {
        let all = crate::recognize::readings_with_displaced(
            &self.pos,
            &self.boards[bi].sensed,
            self.turn.promote,
        );
        let mut kept = all
            .into_iter()
            .filter(|(_, extra)| !self.carried_through(*extra))
            .peekable();
        let fewest = kept.peek().map(|(_, extra)| extra.count());
        kept.take_while(|(_, extra)| Some(extra.count()) == fewest)
            .collect()
    }

    /// Whether the mover carried a piece himself from or to the squares
    /// `extra` a reading takes as displaced: then they are part of his
    /// move, not displaced pieces (§7.3 speaks of pieces displaced, §4 of
    /// pieces moved): his king (Ke1-g1 Rh1-f1 out of check read as Kf1
    /// with g1 and h1 "displaced", Ke1-c1 Ra1-d1 through check as Rc1 with
    /// d1 and e1: §3.8b(2), an illegal move, §7.4a / 7.5.1, never §7.3),
    /// or the piece he touched first carried from one of them to another.
    fn carried_through(&self, extra: Bitboard) -> bool {
        let first = self.turn.touches.first().map(|t| t.square);
        self.turn.placed.iter().any(|(from, to, _)| {
            let king = self.pos.board().role_at(*from) == Some(Role::King);
            (king && (extra.contains(*from) || extra.contains(*to)))
                || (extra.contains(*from) && extra.contains(*to) && first == Some(*from))
        })
    }

    /// §7.3 / 2023 7.4.1: the board shows a legal move and, away from it,
    /// pieces knocked over or displaced (any number of them). The move is
    /// completed; the arbiter and the players are told which squares to
    /// put right, and the board is guided back to the position. Where
    /// several readings fit equally, the press was held (`ambiguous.rs`)
    /// and this copy of the game takes its own reading (`forced`).
    pub(super) fn try_displaced(
        &mut self,
        side: Color,
        bi: usize,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        // Appendix E2.7 (2023 D.2.9, 2001 F2.7): on the visually impaired
        // player's own tactile board the pieces beside his legal move are
        // his copy of the record gone wrong (a capture copied with the
        // captured piece left, a piece set down beside its square), not
        // pieces knocked over: the boards differ, and he is told where.
        let own_copy =
            self.boards[bi].id != crate::trace::BoardId::Main && self.plays_tactile(side);
        let mut readings = self.displaced_readings(bi);
        let forced = self.forced.filter(|f| readings.iter().any(|(m, _)| m == f));
        let (mv, extra) = match forced {
            Some(f) => {
                self.forced = None;
                readings.retain(|(m, _)| *m == f);
                readings[0]
            }
            None => match readings.first() {
                None => return false,
                Some(first) => {
                    if readings.len() > 1 {
                        // Not held (the hold looks at presses only before
                        // anything else): still no penalty on a guess.
                        tracing::warn!(
                            readings = readings.len(),
                            "displaced pieces read several ways; the first taken"
                        );
                    }
                    *first
                }
            },
        };
        if !own_copy {
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::Displaced,
                    article: self.cfg.profile.articles.displaced,
                    squares: square_list(extra),
                },
            });
        }
        let completed = CompletedMove {
            mv,
            how: Completion::Pressed,
            promotion_assumed: false,
        };
        self.complete(completed, t, out);
        if own_copy {
            // The move first, then the squares (as a copy error read from
            // the record is said, `clock.rs`).
            self.report_boards_differ(bi, extra, t, out);
        }
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

impl Arbiter {
    /// The arbiter has reinstated the game's position on the board himself
    /// (§7.4a / 2023 7.5.1, §7.5 / 7.6): the mover's board is taken as
    /// showing it, play goes on (`position_restored`).
    pub(super) fn reinstated_by_arbiter(&mut self, t: u64, out: &mut Decisions) {
        let bi = self.mi();
        let pos = self.pos.clone();
        self.boards[bi].sensed.reset_to(pos.board());
        self.boards[bi].synced = true;
        self.set_restoring(false);
        out.push(Event {
            t,
            kind: EventKind::PositionRestored {
                fen: Fen::from_position(&self.pos, EnPassantMode::Legal).to_string(),
            },
        });
    }
}
