//! A claim the board rejected, upheld on the arbiter's overruling (ia14):
//! the claim was correct, so the cost the board gave for an incorrect
//! draw claim (2009 §9.5b: +3 min to the opponent; 2001 §9.5b: also the
//! claimant's time cut; 2023 9.5.3: +2 min to the opponent) is taken back
//! as the game is drawn, and the question and the ruling's effect say so.
//! Before, the opponent kept the minutes on his clock (in the PGN's last
//! clock, the board's state) while nothing said so. Undone, the overrule's
//! own clock change is reversed (`rulings.rs`): the cost stands again with
//! the board's rejection.

use super::announce::Decisions;
use super::confirm::Confirmation;
use super::matter::side;
use super::refusal::{hms, impossible, Refusal};
use super::rulings::Facts;
use super::{Arbiter, DecidedClaim, Outcome};
use crate::clock::Clock;
use crate::model::{EndReason, KnownOutcome, Score};
use crate::rules::RulingArticles;
use crate::trace::ClaimKind;
use shakmaty::Color;

/// What the board's decision of a claim at `t` did to the clocks (White,
/// Black), ms: the clocks after it (`after`) less the clocks before it.
pub(super) fn given(before: &Facts, after: Option<&Clock>, t: u64) -> [i64; 2] {
    match (before.clocks_at(t), after.map(|c| c.remaining_at(t))) {
        (Some((wb, bb)), Some((wa, ba))) => [wa as i64 - wb as i64, ba as i64 - bb as i64],
        _ => [0, 0],
    }
}

/// "+0:02:00" / "-0:01:30" for a clock change of `ms`.
fn signed(ms: i64) -> String {
    let sign = if ms < 0 { '-' } else { '+' };
    format!("{sign}{}", hms(ms.unsigned_abs()))
}

impl Arbiter {
    /// A draw claim the board rejected, the game ended after it (the
    /// claimant's flag fell while the arbiter came to read the scoresheet):
    /// the claim is no longer open to an overrule, but if it was correct
    /// the game was drawn when it was made (2023 9.5.2, 2009 §9.5b: "the
    /// game is drawn" on a correct claim), before that end; what the
    /// arbiter does then, in words after a `;` (ia16: the refusal said only
    /// "the claim is no longer open: the game is over (0-1, time)"). Empty
    /// for any other alert.
    pub(super) fn correct_claim_after_end_words(&self, t: u64) -> String {
        let Some(dc) = self.decided_claim.as_ref().filter(|d| d.t == t) else {
            return String::new();
        };
        let draw = matches!(dc.kind, ClaimKind::Threefold | ClaimKind::FiftyMoves);
        match (
            dc.upheld,
            draw,
            self.ended_after(dc.t),
            self.uphold_words(dc),
        ) {
            (false, true, Some(o), Some(words)) => format!(
                "; if the claim was correct, the game was drawn when it was made, before it ended \
                 {} ({words}): rule \"The claim was correct\" on the result's alert (it draws the \
                 game and takes the claim's cost back); if it was not, confirm the result",
                o.result.as_str()
            ),
            (_, _, Some(_), _) => "; confirm or correct the result instead".to_owned(),
            _ => String::new(),
        }
    }

    /// The game ended (`o`) after a draw claim the board rejected, `dc`:
    /// what overruling it from the result's alert does, in words, or
    /// `None` when that is not open (`dc` upheld, not a draw claim, already
    /// overruled).
    pub(super) fn claim_correct_after_end_words(
        &self,
        dc: &DecidedClaim,
        o: Outcome,
    ) -> Option<String> {
        if dc.upheld
            || dc.overruled
            || !matches!(dc.kind, ClaimKind::Threefold | ClaimKind::FiftyMoves)
        {
            return None;
        }
        let words = self.uphold_words(dc)?;
        Some(format!(
            "the board rejected {}'s claim; found correct, the game was drawn when it was made \
             ({words}), before it ended {} ({}): {} → 1/2-1/2, corrected and confirmed{}",
            side(dc.by),
            o.result.as_str(),
            o.reason,
            o.result.as_str(),
            self.cost_back_words(dc)
        ))
    }

    /// `overrule` from the result's alert of a game that ended (`o`) after
    /// a draw claim the board rejected (`dc`): the claim found correct,
    /// the game was drawn when it was made (2023 9.5.2 "the game is
    /// immediately drawn"; 2009 §9.5b), before that end: the result is
    /// corrected to 1/2-1/2 with the claim's reason and article (9.2.2 /
    /// 9.3.2), confirmed (one ruling, `result_confirmed` corrected), and
    /// the cost the board gave for an incorrect claim (9.5.3 / §9.5b)
    /// taken back, as an overrule before the end does (ia16: a correction
    /// to 1/2-1/2 left the opponent the two minutes). Undone, the board's
    /// rejection, its cost and the end stand again. `None` when that is
    /// not open ([`Self::claim_correct_after_end_words`]).
    pub(super) fn claim_correct_after_end(
        &mut self,
        dc: &DecidedClaim,
        o: Outcome,
        t: u64,
        out: &mut Decisions,
    ) -> Option<String> {
        let effect = self.claim_correct_after_end_words(dc, o)?;
        self.take_cost_back(dc, t, out);
        let a = self.cfg.profile.articles;
        let (reason, article) = match dc.kind {
            ClaimKind::Threefold => (EndReason::Threefold, a.threefold),
            _ => (EndReason::FiftyMoves, a.fifty_moves),
        };
        let draw = Score::Game(KnownOutcome::Draw);
        self.original_outcome.get_or_insert(o);
        self.correct_outcome(Outcome {
            result: draw,
            reason,
            article,
            t: dc.t,
        });
        let confirm = RulingArticles::of(self.cfg.profile.edition).confirm;
        self.record_confirmation(
            Confirmation {
                result: draw,
                corrected: true,
                forfeit: false,
                reason: Some(format!(
                    "{}'s {} claim found correct ({article})",
                    side(dc.by),
                    dc.kind.as_str().replace('_', " ")
                )),
            },
            confirm,
            t,
            out,
        );
        Some(effect)
    }

    /// Takes back what the board's decision of `dc` did to the clocks (a
    /// rejected draw claim's cost) and announces the clocks; nothing when
    /// it did nothing.
    fn take_cost_back(&mut self, dc: &DecidedClaim, t: u64, out: &mut Decisions) {
        let Some(c) = self.clock.as_mut().filter(|_| dc.cost != [0, 0]) else {
            return;
        };
        for (s, ms) in [Color::White, Color::Black].into_iter().zip(dc.cost) {
            c.adjust(s, -ms);
        }
        self.push_clock(t, out);
    }

    /// The words of taking `dc`'s cost back, after a `;` (empty when the
    /// board's decision gave none: no clock, a claim refused for its form).
    pub(super) fn cost_back_words(&self, dc: &DecidedClaim) -> String {
        let parts: Vec<String> = [Color::White, Color::Black]
            .into_iter()
            .zip(dc.cost)
            .filter(|(_, ms)| *ms != 0)
            .map(|(c, ms)| format!("{} {}", side(c), signed(-ms)))
            .collect();
        if parts.is_empty() {
            return String::new();
        }
        format!(
            "; the time the board gave for the incorrect claim is taken back ({})",
            parts.join(", ")
        )
    }

    /// `overrule` of a claim the board rejected: upheld, its cost taken
    /// back (before the game ends, so the last clocks carry it); the
    /// ruling's effect in words.
    pub(super) fn uphold_on_overrule(
        &mut self,
        dc: &DecidedClaim,
        t: u64,
        out: &mut Decisions,
    ) -> Result<String, Refusal> {
        let Some(words) = self.uphold_words(dc) else {
            return Err(impossible(
                "the board cannot carry out this claim itself: set the position instead",
            ));
        };
        let back = self.cost_back_words(dc);
        self.take_cost_back(dc, t, out);
        let a = self.cfg.profile.articles;
        match dc.kind {
            ClaimKind::Threefold => self.end(
                KnownOutcome::Draw,
                EndReason::Threefold,
                a.threefold,
                t,
                out,
            ),
            ClaimKind::FiftyMoves => self.end(
                KnownOutcome::Draw,
                EndReason::FiftyMoves,
                a.fifty_moves,
                t,
                out,
            ),
            ClaimKind::InsufficientLosingChances => self.end(
                KnownOutcome::Draw,
                EndReason::ArbiterDecision,
                a.quickplay,
                t,
                out,
            ),
            ClaimKind::Time => self.time_forfeit(!dc.by, a.time, t, out),
            ClaimKind::TouchMove | ClaimKind::IllegalMove => {}
        }
        Ok(format!(
            "the board rejected the claim; overruled, it is upheld: {words}{back}"
        ))
    }
}
