//! A quickplay-finish draw claim referred to the arbiter (2009 / 2001
//! §10.2, 2023 Guidelines III.5; `quickplay.rs`): the board does not judge
//! "normal means", so it decides nothing. The console offers what the
//! Laws give the arbiter (ia14): **uphold** (a draw, §10.2a / III.5.1) or
//! **reject** (two extra minutes to the opponent, §10.2c / III.5.3);
//! postponing is leaving it open, with "Set clocks" for the two minutes
//! the arbiter may give (§10.2b / III.5.2) and "Resume". The clocks stop
//! when the claim is referred. Before, the alert said "the board rejected
//! it" and offered one "Overrule", the draw, and no way to reject with
//! the minutes the Laws give; and the claimant's clock ran on, so his
//! flag fell while the arbiter came and the board offered "Declare the
//! flag".

use super::announce::Decisions;
use super::matter::side;
use super::refusal::{impossible, stale, Applied, Refusal};
use super::{Arbiter, DecidedClaim};
use crate::model::{Edition, EndReason, KnownOutcome};
use crate::trace::ClaimKind;
use shakmaty::{Color, Position};

/// The two minutes of §10.2c / III.5.3, ms.
const REJECTED_MS: i64 = 120_000;

/// The claim's consequence when it is referred to the arbiter, per
/// profile: the 2009 / 2001 decision is final (§10.2d); 2023 has no such
/// rule (an appeal is possible, 11.10).
pub(super) fn referred_words(article: &str, final_decision: bool) -> String {
    if final_decision {
        format!("referred to the arbiter, whose decision is final ({article})")
    } else {
        format!("referred to the arbiter ({article})")
    }
}

impl Arbiter {
    /// Refers an admissible claim at `t` to the arbiter: the clocks stop
    /// (the claimant may stop them, 2009 §10.2 / 2023 III.5; 2001 §10.2:
    /// shall), so that his flag does not fall while the arbiter comes;
    /// the arbiter's ruling (or his resume, to postpone) starts them
    /// again. The consequence's words, per profile.
    pub(super) fn refer(&mut self, t: u64, out: &mut Decisions) -> String {
        if let Some(c) = self.clock.as_mut().filter(|c| c.running().is_some()) {
            c.stop(t);
            self.push_clock(t, out);
        }
        let p = self.cfg.profile;
        referred_words(p.articles.quickplay, p.edition != Edition::Fide2023)
    }

    /// The claim the board referred to the arbiter, open now (at its ply,
    /// not ruled on, nothing after it ended the game).
    pub(super) fn referred_claim(&self) -> Option<&DecidedClaim> {
        self.decided_claim.as_ref().filter(|d| {
            d.kind == ClaimKind::InsufficientLosingChances
                && !d.upheld
                && d.consequence.starts_with("referred to the arbiter")
        })
    }

    /// The referred claim of `flagged` the arbiter postponed (2009 / 2001
    /// §10.2c, 2023 III.5.2): referred and not ruled on (the callers ask it
    /// once his flag has fallen). "The arbiter shall declare the final result … as soon
    /// as possible after the flag of either player has fallen. He shall
    /// declare the game drawn if he agrees that the final position cannot
    /// be won by normal means, or that the opponent was not making
    /// sufficient attempts to win by normal means" (2009 §10.2c): so the
    /// flag's alert offers that draw beside the flag (ia14: "Declare the
    /// flag" only).
    pub(super) fn postponed_claim_of(&self, flagged: Color) -> Option<&DecidedClaim> {
        self.referred_claim()
            .filter(|d| d.by == flagged && !d.overruled)
    }

    /// The words of the postponed claim `dc` for the flag's alert and the
    /// result's: "White's draw claim at move 41 (10.2) was postponed" (the
    /// move number counted from the game's start position, as the PGN's).
    pub(super) fn postponed_words(&self, dc: &DecidedClaim) -> String {
        let start = &self.cfg.start;
        let no = start.fullmoves().get() + (dc.ply + u32::from(start.turn() == Color::Black)) / 2;
        format!(
            "{}'s draw claim at move {no} ({}) was postponed",
            side(dc.by),
            self.cfg.profile.articles.quickplay
        )
    }

    /// The rulings open on the referred claim `dc`: (action, label, effect).
    pub(super) fn referred_rulings(
        &self,
        dc: &DecidedClaim,
    ) -> [(&'static str, String, String); 2] {
        let a = self.cfg.profile.articles.quickplay;
        let opp = side(!dc.by);
        [
            (
                "uphold",
                format!("Uphold: draw ({a})"),
                format!("the claim is upheld: the game is drawn ({a})"),
            ),
            (
                "reject",
                format!("Reject: +2 min to {opp} ({a})"),
                format!("the claim is rejected: +2 min to {opp} ({a}); play continues, {}'s clock running", side(self.pos.turn())),
            ),
        ]
    }

    /// `uphold` / `reject` without a held claim: the referred claim's ruling
    /// when one is open, else the held claim's (`written.rs`).
    pub(super) fn rule_claim(
        &mut self,
        uphold: bool,
        written: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let Some(dc) = self
            .referred_claim()
            .filter(|_| self.held_claim.is_none())
            .cloned()
        else {
            return self.rule_held(uphold, written, t, out);
        };
        self.rule_referred(&dc, uphold, t, out)
    }

    fn rule_referred(
        &mut self,
        dc: &DecidedClaim,
        uphold: bool,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let a = self.cfg.profile.articles.quickplay;
        if dc.overruled {
            return Err(stale("the claim was already ruled on"));
        }
        self.claim_still_open(dc.ply, "the claim is no longer open")?;
        let effect = if uphold {
            self.end(KnownOutcome::Draw, EndReason::ArbiterDecision, a, t, out);
            format!("the claim is upheld: the game is drawn ({a})")
        } else {
            let opp = !dc.by;
            let c = self
                .clock
                .as_mut()
                .ok_or_else(|| impossible("no clock on this board"))?;
            c.adjust(opp, REJECTED_MS);
            let on_move = self.pos.turn();
            let again = if c.running().is_none() {
                c.start(on_move, t);
                format!(" ({}'s clock runs again)", side(on_move))
            } else {
                String::new()
            };
            self.push_clock(t, out);
            format!(
                "the claim is rejected: +2 min to {} ({a}); play continues{again}",
                side(opp)
            )
        };
        if let Some(d) = self.decided_claim.as_mut() {
            d.overruled = true;
        }
        Ok(Applied { article: a, effect })
    }
}
