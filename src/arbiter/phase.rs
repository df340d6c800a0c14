//! The game's phase: where the game stands between its set-up and its end,
//! in one place ([`Phase`], read with [`Arbiter::phase`]), and the summary the
//! arbiter's console shows ([`Stage`], read with [`Arbiter::stage`]).
//!
//! The transitions (each made by one method here, so the whole machine can
//! be read at once):
//! - `Playing → Settling`: a move that ends the game (checkmate, stalemate,
//!   a dead position) stands on the board; it counts as made once the board
//!   stays unchanged for the settle time (the exception to §6.7a), or when a
//!   flag would fall after it was made.
//! - `Settling → Playing`: the mover changed the board again (the piece was
//!   only set down on the way), or the position changed under the players.
//! - `Playing → Restoring`: the board must be brought back to the position
//!   (an illegal move ruled on, §7.4 / 7.5; displaced pieces, §7.3; a claim
//!   upheld; the arbiter's set-up). The hand is not followed meanwhile.
//! - `Restoring → Playing`: the board shows the position again
//!   (`position_restored`).
//! - `* → Ended`: §5, §6.9, §7.4b, §9, resignation, the arbiter's result.
//! - `Ended → Playing`: only the arbiter's set-up of an earlier position
//!   (a take-back) reopens the game.
//!
//! Facts that hold beside the phase stay fields of the arbiter: the open
//! claims (a touch-move breach, a standing illegal move), a draw offer, the
//! set-up window before the first move (its log of the main board's changes,
//! §7.1b / 7.2.2), and the clock's state (paused by the arbiter).

use super::Arbiter;
use crate::model::{EndReason, Score};
use shakmaty::Move;

/// Where the game stands. Exactly one holds at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// The player on move is making his move (or is about to).
    Playing,
    /// A move that ends the game stands on the board and is settling: it
    /// counts as made, without a clock press, once the board has stayed
    /// unchanged for [`GameConfig::settle_ms`](super::GameConfig::settle_ms).
    Settling(PendingEnd),
    /// The board must be brought back to [`Arbiter::position`] before play
    /// goes on (after an illegal move, displaced pieces, a claim upheld or an
    /// arbiter's set-up); lifts meanwhile are not touches.
    Restoring,
    /// The game is over.
    Ended(Outcome),
}

/// A move that ends the game, made on the board and not yet settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingEnd {
    /// The move the board shows.
    pub mv: Move,
    /// When the board first showed it, ms.
    pub t: u64,
    /// A pawn on the last rank with no piece chosen: a queen is assumed.
    pub promotion_assumed: bool,
}

/// How the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// `1-0`, `0-1`, `1/2-1/2`, or `0-0` (a double forfeit).
    pub result: Score,
    /// The contract's reason (`checkmate`, `resignation`, ...).
    pub reason: EndReason,
    /// The article.
    pub article: &'static str,
    /// Trace time, ms.
    pub t: u64,
}

/// What the arbiter's console shows of the game's state: the [`Phase`], with
/// the set-up window and the clock's pause folded in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// No move completed yet: the board may still be found set up wrongly
    /// or turned (§7.1 / 7.2).
    SetUp,
    /// Play goes on.
    Playing,
    /// The arbiter stopped the clock (`pause`); moves are still followed.
    Paused,
    /// A game-ending move is settling on the board.
    Settling,
    /// The board must be brought back to the position.
    Restoring,
    /// The game is over.
    Ended,
}

impl Phase {
    /// How the game ended, when it has.
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            Phase::Ended(o) => Some(*o),
            _ => None,
        }
    }

    /// Whether the game is over.
    pub fn is_ended(&self) -> bool {
        matches!(self, Phase::Ended(_))
    }

    /// Whether the board must be brought back to the position.
    pub fn is_restoring(&self) -> bool {
        matches!(self, Phase::Restoring)
    }

    /// The game-ending move settling on the board, if any.
    pub fn pending_end(&self) -> Option<&PendingEnd> {
        match self {
            Phase::Settling(p) => Some(p),
            _ => None,
        }
    }
}

impl Arbiter {
    /// The game's phase.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The game's state as the arbiter's console shows it.
    pub fn stage(&self) -> Stage {
        match self.phase {
            Phase::Ended(_) => Stage::Ended,
            Phase::Restoring => Stage::Restoring,
            Phase::Settling(_) => Stage::Settling,
            Phase::Playing => {
                if !self.clock_started && self.moves.is_empty() {
                    Stage::SetUp
                } else if self.clock.as_ref().is_some_and(|c| c.running().is_none()) {
                    Stage::Paused
                } else if self.setup_log.is_some() {
                    Stage::SetUp
                } else {
                    Stage::Playing
                }
            }
        }
    }

    /// Whether the game is over (the guard of every input after the end).
    pub(super) fn ended(&self) -> bool {
        self.phase.is_ended()
    }

    /// `Playing → Settling`: the board shows a move that ends the game.
    /// Only from `Playing` (a board being restored, or a game over, has no
    /// move to settle).
    pub(super) fn settle(&mut self, pending: PendingEnd) {
        if self.phase == Phase::Playing {
            self.phase = Phase::Settling(pending);
        }
    }

    /// `Settling → Playing`: the game-ending move is no longer on the board
    /// (or the position changed under it). Other phases are kept.
    pub(super) fn cancel_pending_end(&mut self) {
        if matches!(self.phase, Phase::Settling(_)) {
            self.phase = Phase::Playing;
        }
    }

    /// `Playing | Settling → Restoring` when `needed`; `Restoring → Playing`
    /// when not. A game over stays over.
    pub(super) fn set_restoring(&mut self, needed: bool) {
        match (&self.phase, needed) {
            (Phase::Ended(_), _) => {}
            (_, true) => self.phase = Phase::Restoring,
            (Phase::Restoring, false) => self.phase = Phase::Playing,
            (_, false) => {}
        }
    }

    /// `* → Playing` after a move was completed or the position was set
    /// anew (a pending end and a pending restore are over).
    pub(super) fn resume_play(&mut self) {
        self.phase = Phase::Playing;
    }

    /// `Ended → Ended` with the arbiter's corrected result (`confirm` with
    /// another result). Only a game over.
    pub(super) fn correct_outcome(&mut self, outcome: Outcome) {
        if self.ended() {
            self.phase = Phase::Ended(outcome);
        }
    }

    /// `* → Ended`; `false` when the game had already ended (the first end
    /// stands).
    pub(super) fn enter_ended(&mut self, outcome: Outcome) -> bool {
        if self.ended() {
            return false;
        }
        self.phase = Phase::Ended(outcome);
        true
    }
}
