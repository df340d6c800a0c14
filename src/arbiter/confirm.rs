//! Result confirmation (DSU regulations 004 §15: the winner, or White after
//! a draw, reports the result to the arbiter at once): a game's result is
//! provisional until the arbiter confirms it (`confirm`), possibly
//! correcting it; a game not played is entered as a forfeit (`forfeit`),
//! confirmed at once. A take-back that reopens the game makes it
//! unconfirmed again.

use super::announce::Decisions;
use super::{Arbiter, Outcome};
use crate::model::{EndReason, IrregularityKind, KnownOutcome};
use crate::trace::{Event, EventKind};

/// The arbiter's confirmation of the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    /// The result that stands.
    pub result: KnownOutcome,
    /// The board's result was replaced by the arbiter's.
    pub corrected: bool,
    /// The game was not played (a no-show).
    pub forfeit: bool,
}

impl Arbiter {
    /// The arbiter's confirmation of the result, once given.
    pub fn confirmation(&self) -> Option<&Confirmation> {
        self.confirmation.as_ref()
    }

    /// `confirm`: the result stands (or `correct` replaces it). Before the
    /// end, a result given ends the game with it (the arbiter's decision);
    /// without one nothing is confirmed and an irregularity says so.
    pub(super) fn confirm_result(
        &mut self,
        correct: Option<KnownOutcome>,
        t: u64,
        out: &mut Decisions,
    ) {
        let article = self.cfg.profile.articles.arbiter;
        let (result, corrected) = match (self.outcome(), correct) {
            (Some(o), None) => (o.result, false),
            (Some(o), Some(r)) if r == o.result => (r, false),
            (Some(_), Some(r)) => {
                self.correct_outcome(Outcome {
                    result: r,
                    reason: EndReason::ArbiterDecision,
                    article,
                    t,
                });
                out.push(Event {
                    t,
                    kind: EventKind::GameEnd {
                        result: r,
                        reason: EndReason::ArbiterDecision,
                        article,
                    },
                });
                (r, true)
            }
            (None, Some(r)) => {
                self.end(r, EndReason::ArbiterDecision, article, t, out);
                (r, false)
            }
            (None, None) => {
                out.push(Event {
                    t,
                    kind: EventKind::Irregularity {
                        kind: IrregularityKind::ArbiterPositionRejected,
                        article,
                        squares: Vec::new(),
                    },
                });
                return;
            }
        };
        self.confirmation = Some(Confirmation {
            result,
            corrected,
            forfeit: false,
        });
        out.push(Event {
            t,
            kind: EventKind::ResultConfirmed {
                result,
                corrected,
                forfeit: false,
                article,
            },
        });
    }

    /// `forfeit`: a game not played. Only before the first move; refused
    /// (an irregularity) once a move was made.
    pub(super) fn enter_forfeit(&mut self, result: KnownOutcome, t: u64, out: &mut Decisions) {
        let article = self.cfg.profile.articles.arbiter;
        if !self.moves.is_empty() || self.ended() {
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::ArbiterPositionRejected,
                    article,
                    squares: Vec::new(),
                },
            });
            return;
        }
        self.end(result, EndReason::Forfeit, article, t, out);
        self.confirmation = Some(Confirmation {
            result,
            corrected: false,
            forfeit: true,
        });
        out.push(Event {
            t,
            kind: EventKind::ResultConfirmed {
                result,
                corrected: false,
                forfeit: true,
                article,
            },
        });
    }
}
