//! Appendix E: a visually impaired player on a tactile board beside the
//! main board. His move is made when the tactile board shows it and is
//! announced before he may start the clock (E2.3); each player copies the
//! opponent's move on his own board, and boards that settle differing are
//! reported (E2.7).

use super::announce::{Announcement, Decisions};
use super::{square_list, Arbiter};
use crate::model::IrregularityKind;
use crate::recognize::{recognize, Recognition};
use crate::trace::{Event, EventKind};
use shakmaty::{Color, Move, Position};

/// How long the tactile board must show the visually impaired player's
/// move before it is announced as made (E2.3), ms.
pub const ANNOUNCE_SETTLE_MS: u64 = 300;

/// The visually impaired player's move, made on the tactile board and
/// announced (E2.3).
#[derive(Debug, Clone)]
pub(super) struct Announced {
    pub(super) mv: Move,
    pub(super) t: u64,
    pub(super) done: bool,
}

impl Arbiter {
    /// Whether `side` is the visually impaired player of a two-board game.
    fn plays_tactile(&self, side: Color) -> bool {
        self.cfg.header.vi_player == Some(side) && self.boards.len() > 1
    }

    /// Appendix E2.3: the visually impaired player's move is made when the
    /// tactile board shows it; it is then announced, and only then may the
    /// clock be started.
    pub(super) fn watch_vi_move(&mut self, t: u64) {
        if !self.plays_tactile(self.pos.turn()) {
            return;
        }
        let bi = self.mi();
        match recognize(&self.pos, &self.boards[bi].sensed, self.turn.promote) {
            Recognition::Move { mv, missing: 0, .. } => {
                if self.turn.announced.as_ref().is_none_or(|a| a.mv != mv) {
                    self.turn.announced = Some(Announced { mv, t, done: false });
                }
            }
            _ => self.turn.announced = None,
        }
    }

    /// E2.3: the move shown on the tactile board for [`ANNOUNCE_SETTLE_MS`]
    /// before `t` is announced (once).
    pub(super) fn announce_settled_vi_move(&mut self, t: u64, out: &mut Decisions) {
        let Some(a) = self.turn.announced.clone().filter(|a| !a.done) else {
            return;
        };
        let at = a.t + ANNOUNCE_SETTLE_MS;
        if t > at {
            let before = self.pos.clone();
            self.announce(Announcement::Move { before, mv: a.mv }, at, out);
            if let Some(x) = self.turn.announced.as_mut() {
                x.done = true;
            }
        }
    }

    /// Whether `mv` was already announced as made on the tactile board.
    pub(super) fn announced_before_press(&self, mv: &Move) -> bool {
        self.turn
            .announced
            .as_ref()
            .is_some_and(|a| a.done && a.mv == *mv)
    }

    /// E2.3: the visually impaired player started the clock before his
    /// move `mv` was announced.
    pub(super) fn check_press_after_announcement(
        &self,
        side: Color,
        mv: &Move,
        t: u64,
        out: &mut Decisions,
    ) {
        if self.plays_tactile(side) && !self.announced_before_press(mv) {
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::ClockStartedBeforeAnnouncement,
                    article: self.cfg.profile.articles.vi_clock_after_announcement,
                    squares: vec![mv.to().to_string()],
                },
            });
        }
    }

    /// E2.7: as soon as a board that should show the position settles
    /// showing something else, the arbiter and both players are told which
    /// squares differ, so the board can be put right.
    pub(super) fn check_divergence(&mut self, t: u64, out: &mut Decisions) {
        for bi in 0..self.boards.len() {
            let Some(since) = self.boards[bi].unchecked_since else {
                continue;
            };
            if t < since + self.cfg.settle_ms {
                continue;
            }
            self.boards[bi].unchecked_since = None;
            let b = &self.boards[bi].sensed;
            if b.matches(self.pos.board()) {
                continue;
            }
            // Not yet copied: it still shows the position before the last move.
            let previous =
                self.history.len() >= 2 && b.matches(self.history[self.history.len() - 2].board());
            if previous && !self.boards[bi].synced {
                continue;
            }
            // The owner on move is making his move.
            if bi == self.mi()
                && matches!(
                    recognize(&self.pos, b, self.turn.promote),
                    Recognition::Move { .. }
                )
            {
                continue;
            }
            let diff = b.differences(self.pos.board());
            out.push(Event {
                t: since + self.cfg.settle_ms,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::BoardsDiffer,
                    article: self.cfg.profile.articles.vi_boards_differ,
                    squares: square_list(diff),
                },
            });
            self.announce(
                Announcement::BoardsDiffer { squares: diff },
                since + self.cfg.settle_ms,
                out,
            );
        }
    }
}
