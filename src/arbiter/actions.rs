//! The arbiter's actions (the `arbiter` records and the arbiter API):
//! rulings on proposals, results, clock settings, set-ups and take-backs,
//! pausing and resuming the clock.

use super::announce::{Announcement, Decisions};
use super::{ambiguous, key, Arbiter};
use crate::model::{EndReason, IrregularityKind};
use crate::trace::{ArbiterAction, Event, EventKind};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

impl Arbiter {
    /// The arbiter's actions (the `arbiter` records and the arbiter API).
    pub(super) fn arbiter_action(
        &mut self,
        action: &ArbiterAction,
        author: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) {
        tracing::info!(action = action.as_str(), author, t, "arbiter action");
        let a = self.cfg.profile.articles;
        let mut article = a.arbiter;
        match action {
            ArbiterAction::Restore | ArbiterAction::Accept => {
                // The board is to be brought back after an illegal move (§7).
                if self.phase().is_restoring() {
                    article = a.illegal_move;
                }
                // The proposal in force: a pending illegal move is ruled on.
                if let Some(pi) = self.pending_illegal.take() {
                    article = a.illegal_move;
                    self.rule_illegal(pi, None, t, out);
                }
            }
            ArbiterAction::Confirm(r) => self.confirm_result(*r, t, out),
            ArbiterAction::Forfeit(r) => self.enter_forfeit(*r, t, out),
            ArbiterAction::Overrule => {
                self.pending_illegal = None;
                self.pending_breach = None;
            }
            ArbiterAction::SetResult(result) => {
                self.end(*result, EndReason::ArbiterDecision, a.arbiter, t, out);
            }
            ArbiterAction::SetClock { white_ms, black_ms } => {
                if let Some(c) = self.clock.as_mut() {
                    c.set(*white_ms, *black_ms, t);
                    self.push_clock(t, out);
                }
            }
            ArbiterAction::SetPosition(fen) => self.set_position(fen, t, out),
            ArbiterAction::Choose(u) => ambiguous::choose_without_hold(u, t),
            ArbiterAction::Pause => {
                if let Some(c) = self.clock.as_mut() {
                    c.stop(t);
                    self.push_clock(t, out);
                    self.announce(Announcement::ClockPaused, t, out);
                }
            }
            ArbiterAction::Resume => {
                if !self.ended() {
                    // Also the start of the game (§6.5) when the clocks wait for it.
                    self.clock_started = true;
                    let side = self.pos.turn();
                    if let Some(c) = self.clock.as_mut() {
                        if c.running().is_none() {
                            c.start(side, t);
                            self.announce(Announcement::ClockResumed, t, out);
                        }
                    }
                }
            }
        }
        // The ruling as applied, with the name of the arbiter who gave it.
        if let Some(author) = author {
            out.push(Event {
                t,
                kind: EventKind::Ruling {
                    action: action.as_str(),
                    author: author.to_owned(),
                    article,
                },
            });
        }
    }

    /// Sets up `fen`: an earlier position of this game takes the moves after
    /// it back; before the first move it becomes the start position. Anything
    /// else is refused with an irregularity naming the reason.
    fn set_position(&mut self, fen: &str, t: u64, out: &mut Decisions) {
        let parsed = fen
            .parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok());
        let same = |a: &Chess, b: &Chess| a.board() == b.board() && a.turn() == b.turn();
        let ply = parsed
            .as_ref()
            .and_then(|target| self.history.iter().rposition(|p| same(p, target)));
        match (parsed, ply) {
            (Some(_), Some(ply)) => {
                self.history.truncate(ply + 1);
                self.keys.truncate(ply + 1);
                self.moves.truncate(ply);
                self.pos = self.history[ply].clone();
            }
            (Some(target), None) if self.moves.is_empty() => {
                self.cfg.start = target.clone();
                self.history = vec![target.clone()];
                self.keys = vec![key(&target)];
                self.pos = target;
            }
            _ => {
                out.push(Event {
                    t,
                    kind: EventKind::Irregularity {
                        kind: IrregularityKind::ArbiterPositionRejected,
                        article: self.cfg.profile.articles.arbiter,
                        squares: Vec::new(),
                    },
                });
                return;
            }
        }
        // The arbiter has set the position: the set-up guidance is over.
        self.setup = super::SetUp::Done;
        // A take-back reopens a game that had ended (its result unconfirmed).
        self.resume_play();
        self.confirmation = None;
        self.pending_illegal = None;
        self.pending_breach = None;
        self.take_back_state(t);
    }
}
