//! Players' claims and the controller's ruling proposals: touch-move (§4.7 /
//! 2001 §4.6 / 2023 4.8), illegal moves in rapid and blitz (2009 A4c, B3c;
//! 2001 C3), draws by repetition and fifty moves (§9.2–§9.5), flags (§6.8,
//! A4d, B6), quickplay finish (§10.2).

use super::announce::Decisions;
use super::touch::{Breach, Touch};
use super::Arbiter;
use crate::model::{side_name, EndReason, KnownOutcome};
use crate::rules::WrongClaim;
use crate::trace::{By, ClaimKind, Event, EventKind};
use shakmaty::{Chess, Color};

/// A §4 breach the opponent may claim until he touches a piece
/// (2009 §4.7, 2001 §4.6, 2023 4.8).
#[derive(Debug, Clone)]
pub(super) struct PendingBreach {
    /// Who broke the rule.
    pub(super) by: Color,
    /// The obligation broken.
    pub(super) breach: Breach,
    /// The move played instead, in SAN from the position where it was made
    /// (the words the arbiter reads: the open matter, the ruling's effect).
    pub(super) played: String,
    /// The position before it, reinstated when the claim is upheld.
    pub(super) before: Chess,
    /// The touches that created the obligation, which stands again.
    pub(super) touches: Vec<Touch>,
}

impl Arbiter {
    /// Rules on `by`'s claim of `kind` at `t`; `intended`: the move written
    /// on the scoresheet and not made (§9.2a / §9.3a; draw claims only).
    pub(super) fn claim(
        &mut self,
        kind: ClaimKind,
        by: Color,
        intended: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) {
        if self.ended() {
            return;
        }
        let p = self.cfg.profile;
        let a = p.articles;
        let (upheld, consequence, article): (bool, String, &'static str) = match kind {
            ClaimKind::TouchMove => match self.pending_breach.take() {
                Some(pb) if pb.by != by => {
                    // Take the move back; the obligation stands.
                    self.moves.pop();
                    self.history.pop();
                    self.keys.pop();
                    self.pos = pb.before.clone();
                    self.uncount_taken_back(pb.by);
                    self.take_back_state(t);
                    self.turn.touches = pb.touches.clone();
                    let text = format!(
                        "{} taken back; {} must keep the obligation on {} ({})",
                        pb.played,
                        side_name(pb.by),
                        pb.breach.touched,
                        pb.breach.article
                    );
                    (true, text, pb.breach.article)
                }
                other => {
                    self.pending_breach = other;
                    (
                        false,
                        "no breach of Article 4 open to this claim".into(),
                        p.touch.claim_lost,
                    )
                }
            },
            ClaimKind::IllegalMove => match self.pending_illegal.take() {
                Some(pi) if pi.by != by => {
                    let article = a.illegal_claim;
                    self.claim_event(
                        by,
                        kind,
                        true,
                        "ruled under the illegal-move rule".into(),
                        article,
                        t,
                        out,
                    );
                    self.rule_illegal(pi, Some(by), t, out);
                    return;
                }
                other => {
                    self.pending_illegal = other;
                    (
                        false,
                        "no completed illegal move open to this claim".into(),
                        a.illegal_claim,
                    )
                }
            },
            ClaimKind::Threefold | ClaimKind::FiftyMoves => {
                return self.draw_claim(kind, by, intended, t, out);
            }
            ClaimKind::Time => {
                let fallen = |s: Color| {
                    self.clock.as_ref().is_some_and(|c| {
                        let (w, b) = c.remaining_at(t);
                        c.is_flagged(s) || if s == Color::White { w == 0 } else { b == 0 }
                    })
                };
                if p.both_flags_draw && fallen(!by) && fallen(by) {
                    self.claim_event(
                        by,
                        kind,
                        false,
                        "both flags have fallen: draw".into(),
                        a.both_flags,
                        t,
                        out,
                    );
                    self.end(
                        KnownOutcome::Draw,
                        EndReason::BothFlags,
                        a.both_flags,
                        t,
                        out,
                    );
                    return;
                } else if fallen(!by) {
                    self.claim_event(
                        by,
                        kind,
                        true,
                        "loss on time unless the claimant cannot mate".into(),
                        a.flag_claim,
                        t,
                        out,
                    );
                    self.time_forfeit(!by, a.time, t, out);
                    return;
                } else {
                    (false, "the opponent's flag has not fallen".into(), a.flag)
                }
            }
            // §10.2 / III.5: only an admissible claim is referred
            // (`quickplay.rs`).
            ClaimKind::InsufficientLosingChances => match self.quickplay_refusal(by, t) {
                Some(why) => (false, why, a.quickplay),
                None => (false, self.refer(t, out), a.quickplay),
            },
        };
        self.claim_event(by, kind, upheld, consequence, article, t, out);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn claim_event(
        &self,
        by: Color,
        kind: ClaimKind,
        upheld: bool,
        consequence: String,
        article: &'static str,
        t: u64,
        out: &mut Decisions,
    ) {
        out.push(Event {
            t,
            kind: EventKind::Claim {
                by: By(by),
                kind,
                upheld,
                consequence,
                article,
            },
        });
    }

    /// What an incorrect draw claim of `kind` by `by` costs (2009 §9.5b,
    /// 2001 §9.5b, 2023 9.5.3), in words after a `;` (empty when it costs
    /// nothing: no clock, or not a draw claim).
    pub(super) fn wrong_claim_words(&self, by: Color, kind: ClaimKind) -> String {
        if self.clock.is_none() || !matches!(kind, ClaimKind::Threefold | ClaimKind::FiftyMoves) {
            return String::new();
        }
        let opp = side_name(!by);
        match self.cfg.profile.wrong_claim {
            WrongClaim::OpponentBonus(ms) => {
                format!(
                    "; the claim was incorrect: +{} min to {opp} ({})",
                    ms / 60_000,
                    self.cfg.profile.articles.wrong_claim
                )
            }
            WrongClaim::BonusAndCut => format!(
                "; the claim was incorrect: +3 min to {opp}, the claimant's time reduced ({})",
                self.cfg.profile.articles.wrong_claim
            ),
        }
    }

    /// Applies the consequence of an incorrect draw claim and describes it.
    pub(super) fn wrong_claim(&mut self, by: Color, t: u64) -> String {
        let Some(c) = self.clock.as_mut() else {
            return "incorrect claim; play continues".into();
        };
        let opp = side_name(!by);
        match self.cfg.profile.wrong_claim {
            WrongClaim::OpponentBonus(ms) => {
                c.adjust(!by, ms as i64);
                format!("incorrect claim: +{} min to {opp}", ms / 60_000)
            }
            WrongClaim::BonusAndCut => {
                c.adjust(!by, 180_000);
                let (w, b) = c.remaining_at(t);
                let left = if by == Color::White { w } else { b } as i64;
                let cut = if left > 120_000 {
                    (left / 2).min(180_000)
                } else if left >= 60_000 {
                    left - 60_000
                } else {
                    0
                };
                c.adjust(by, -cut);
                format!(
                    "incorrect claim: +3 min to {opp}, claimant's time reduced by {} s",
                    cut / 1000
                )
            }
        }
    }
}

impl Arbiter {
    /// A completed move taken back (a touch-move claim upheld, 4.3 / 2023
    /// 4.3.1): the clock counted it when it was pressed, so its move
    /// counter goes back by one for `by`, and the next period's time that
    /// move gave, when it reached a time control, is taken away again: the
    /// control comes at the move it was due (2009 §6.3 / 2023 6.3.1 count
    /// completed moves; the move taken back is no move of the game). The
    /// increment stays (the time the player spent on it was charged).
    pub(super) fn uncount_taken_back(&mut self, by: Color) {
        let Some(c) = self.clock.as_mut() else {
            return;
        };
        let [w, b] = [c.moves_done(Color::White), c.moves_done(Color::Black)];
        let done = if by == Color::White { w } else { b };
        if done == 0 {
            return;
        }
        if c.controls_between(done - 1, done) > 0 {
            let tc = c.time_control();
            let next = tc.period_for(done).0;
            let time = tc.periods.get(next).map_or(0, |p| p.time_ms);
            c.adjust(by, -(i64::try_from(time).unwrap_or(i64::MAX)));
        }
        if by == Color::White {
            c.set_moves_done(w - 1, b);
        } else {
            c.set_moves_done(w, b - 1);
        }
    }
}
