//! The five seconds introduced on request (2023 Guidelines III.4; issue 25):
//! "If the player having the move has less than two minutes left on his/her
//! clock, he/she may request that an increment extra five seconds be
//! introduced for both players. This constitutes the offer of a draw. If
//! the offer refused, and the arbiter agrees to the request, the clocks
//! shall then be set with the extra time; the opponent shall be awarded two
//! extra minutes and the game shall continue." (S1 of
//! `../shared/rules/fide-2023.md`, the FIDE handbook's E012023 as
//! transcribed in `richelbilderbeek/conquer_chess docs/rulebook/README.md`;
//! the brief of issue 25 quotes "a time control introducing an extra five
//! seconds … if possible": the same rule.)
//!
//! The arbiter's ruling `increment` ([`IncrementRequest`]): the request
//! applies only where Guidelines III do (the 2023 Laws, standard or rapid,
//! never blitz, III.2.2; the final period, III.2.1 / III.1; no increment
//! yet, III.2.2), with the requester on move, his flag up and less than two
//! minutes on his clock (as for III.5, `quickplay.rs`); otherwise it is
//! refused with the condition it misses. The draw offer it is: accepted
//! (`"offer": "accepted"`), the game is drawn; refused and agreed, the
//! final period gets 5 s per move for both (cumulative by default; the
//! text names no mode, U7, so the arbiter may choose a 5 s delay) and the
//! opponent two extra minutes. Undone, the control before it is back and
//! the two minutes and the increments it credited since are taken back.

use super::announce::Decisions;
use super::matter::side;
use super::refusal::{hms, impossible, stale, Applied, Refusal};
use super::rulings::RulingEntry;
use super::Arbiter;
use crate::clock::Bonus;
use crate::model::{Edition, EndReason, KnownOutcome};
use crate::trace::IncrementRequest;
use shakmaty::{Color, Position};

/// The extra time per move III.4 introduces, ms (five seconds).
pub const III4_EXTRA_MS: u64 = 5_000;
/// What the opponent is awarded when the request is agreed, ms (two minutes).
pub const III4_OPPONENT_MS: u64 = 120_000;
/// Less than this on the requester's clock, ms (two minutes).
const III4_UNDER_MS: u64 = 120_000;

/// A time control changed in the middle of the game by a standing III.4
/// or 6.10.2 (`time_control`) ruling ([`Arbiter::time_control_change`]):
/// what the game record says where it happened (after III.4 the PGN's
/// `TimeControl` tag keeps the control the game started with; after a
/// 6.10.2 correction it shows the control installed, docs/broadcast.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlChange {
    /// The completed plies when it was ruled (the record's comment follows
    /// that many moves).
    pub ply: u32,
    /// The control before it and now, as eboard writes controls (`660`,
    /// `660+5`).
    pub before: String,
    /// The control now.
    pub after: String,
    /// The article (`III.4`).
    pub article: &'static str,
    /// The time awarded to each player (white, black), ms: two minutes to
    /// the requester's opponent.
    pub awarded_ms: (u64, u64),
}

impl ControlChange {
    /// The record's comment, short enough to share an 80-column line with
    /// the move's `[%clk]`: `arbiter (III.4): time control 660 → 660+5,
    /// White +0:02:00`.
    pub fn comment(&self) -> String {
        let mut s = format!(
            "arbiter ({}): time control {} → {}",
            self.article, self.before, self.after
        );
        for (who, ms) in [("White", self.awarded_ms.0), ("Black", self.awarded_ms.1)] {
            if ms > 0 {
                s.push_str(&format!(", {who} +{}", hms(ms)));
            }
        }
        s
    }
}

/// Where a III.4 request could be ruled on but for the time (the state's
/// `increment_request`, for the console's preview): Guidelines III apply,
/// the final period has no increment, nothing was introduced yet; the
/// console shows it while the player having the move has less than
/// `under_ms` on his clock (the board checks it again at the ruling).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IncrementStanding {
    /// The player having the move, who may request it: `w` or `b` (the
    /// contract's `by`).
    pub by: &'static str,
    /// The article (`III.4`).
    pub article: &'static str,
    /// Less than this on his clock, ms (two minutes).
    pub under_ms: u64,
    /// The extra time per move, ms (five seconds).
    pub extra_ms: u64,
    /// What the opponent is awarded, ms (two minutes).
    pub opponent_ms: u64,
    /// The time control now and after the ruling (cumulative increment).
    pub time_control: (String, String),
    /// The time control after the ruling with a delay instead.
    pub delay_time_control: String,
}

impl Arbiter {
    /// Why a III.4 request by `by` at `t` (ms) cannot be ruled on now, in
    /// words with the article; `None` when it can.
    pub(super) fn increment_refusal(&self, by: Color, t: u64) -> Option<Refusal> {
        if let Some(r) = self.increment_standing(by) {
            return Some(r);
        }
        let article = self.cfg.profile.articles.increment_request;
        let (w, b) = self.clock.as_ref()?.remaining_at(t);
        let left = if by == Color::White { w } else { b };
        if left == 0 {
            return Some(impossible(format!(
                "{}'s flag has fallen ({article}: before it falls)",
                side(by)
            )));
        }
        if left >= III4_UNDER_MS {
            return Some(impossible(format!(
                "{} has two minutes or more on his clock ({}; {article}: less than two minutes)",
                side(by),
                hms(left)
            )));
        }
        None
    }

    /// Why a III.4 request by `by` cannot be ruled on whatever the clocks
    /// show; `None` when only his time decides.
    fn increment_standing(&self, by: Color) -> Option<Refusal> {
        let p = self.cfg.profile;
        let article = p.articles.increment_request;
        if !p.increment_request {
            let why = if p.edition == Edition::Fide2023 {
                "Guidelines III do not apply to blitz (III.2.2): no five seconds on request \
                 (III.4)"
                    .to_owned()
            } else {
                format!(
                    "these Laws have no five seconds on request (2023 Guidelines III.4); a \
                     player with less than two minutes may claim under {article}"
                )
            };
            return Some(impossible(why));
        }
        if let Some(o) = self.outcome() {
            return Some(stale(format!(
                "the game is over ({}, {}): nothing to introduce ({article})",
                o.result.as_str(),
                o.reason
            )));
        }
        let Some(c) = self.clock.as_ref() else {
            return Some(impossible(format!(
                "no clock runs on this board ({article})"
            )));
        };
        if by != self.pos.turn() {
            return Some(impossible(format!(
                "only the player having the move may request it ({article}): {} has the move",
                side(self.pos.turn())
            )));
        }
        if let Some(n) = c.moves_to_control(by) {
            return Some(impossible(format!(
                "not the final period: {n} moves remain before the next time control (III.2.1, III.1)"
            )));
        }
        if let Some(r) = self
            .rulings
            .iter()
            .rev()
            .find(|r| r.action == "increment" && r.undone_by.is_none())
        {
            return Some(impossible(format!(
                "the extra five seconds were already introduced by ruling #{} ({article})",
                r.seq
            )));
        }
        // `+0` adds nothing: no increment (issue 40).
        match c
            .time_control()
            .period_for(c.moves_done(by))
            .1
            .bonus
            .in_effect()
        {
            Bonus::None => {}
            Bonus::Increment(_) => {
                return Some(impossible(
                    "the period has an increment: Guidelines III apply only to games without \
                     increment (III.2.2)",
                ))
            }
            Bonus::UsDelay(d) | Bonus::Bronstein(d) => {
                return Some(impossible(format!(
                    "the period has a delay of {} ms, an increment in delay mode (Glossary): \
                     Guidelines III apply only to games without increment (III.2.2; {article})",
                    d
                )))
            }
        }
        if c.is_flagged(by) {
            return Some(impossible(format!(
                "{}'s flag has fallen ({article}: before it falls)",
                side(by)
            )));
        }
        None
    }

    /// Where a III.4 request by the player having the move could be ruled
    /// on but for his time (the state's `increment_request`); `None`
    /// otherwise.
    pub fn increment_request_standing(&self) -> Option<IncrementStanding> {
        let by = self.pos.turn();
        if self.confirmation.is_some() || self.increment_standing(by).is_some() {
            return None;
        }
        let tc = self.clock.as_ref()?.time_control();
        let with = |b: Bonus| tc.with_last_bonus(b).to_string();
        Some(IncrementStanding {
            by: if by == Color::White { "w" } else { "b" },
            article: self.cfg.profile.articles.increment_request,
            under_ms: III4_UNDER_MS,
            extra_ms: III4_EXTRA_MS,
            opponent_ms: III4_OPPONENT_MS,
            time_control: (tc.to_string(), with(Bonus::Increment(III4_EXTRA_MS))),
            delay_time_control: with(Bonus::UsDelay(III4_EXTRA_MS)),
        })
    }

    /// The time control changed by a III.4 or 6.10.2 ruling not undone, if any (an
    /// accepted offer changes none).
    pub fn time_control_change(&self) -> Option<ControlChange> {
        let r =
            self.rulings.iter().rev().find(|r| {
                matches!(r.action, "increment" | "time_control") && r.undone_by.is_none()
            })?;
        let before = r.before.clock.as_ref()?.time_control().to_string();
        let after = self.clock.as_ref()?.time_control().to_string();
        if before == after {
            return None;
        }
        let gained = |(w0, b0): (u64, u64), (w1, b1): (u64, u64)| {
            (w1.saturating_sub(w0), b1.saturating_sub(b0))
        };
        Some(ControlChange {
            ply: r.ply,
            before,
            after,
            article: r.article,
            awarded_ms: r.clocks.map_or((0, 0), |(b, a)| gained(b, a)),
        })
    }

    /// `increment`: the III.4 request ruled at `t` (ms).
    pub(super) fn increment_request(
        &mut self,
        r: &IncrementRequest,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        if let Some(refusal) = self.increment_refusal(r.by, t) {
            return Err(refusal);
        }
        let article = self.cfg.profile.articles.increment_request;
        let (by, opp) = (r.by, !r.by);
        if r.accepted {
            // The request is a draw offer; accepted, the game is drawn.
            self.draw_offer = None;
            self.end(KnownOutcome::Draw, EndReason::Agreement, article, t, out);
            return Ok(Applied {
                article,
                effect: format!(
                    "{}'s request for five seconds per move is a draw offer; {} accepted it: \
                     the game is drawn 1/2-1/2",
                    side(by),
                    side(opp)
                ),
            });
        }
        let Some(c) = self.clock.as_mut() else {
            return Err(impossible("no clock runs on this board"));
        };
        let (bonus, mode) = if r.delay {
            (
                Bonus::UsDelay(III4_EXTRA_MS),
                "a delay: the clock counts down only after 5 s",
            )
        } else {
            (Bonus::Increment(III4_EXTRA_MS), "cumulative increment")
        };
        let (w, b) = c.remaining_at(t);
        let before = c.time_control().to_string();
        let tc = c.time_control().with_last_bonus(bonus);
        let after = tc.to_string();
        c.change_time_control(tc, t);
        c.adjust(opp, III4_OPPONENT_MS as i64);
        let (w2, b2) = c.remaining_at(t);
        self.draw_offer = None;
        tracing::info!(
            by = side(by),
            delay = r.delay,
            t,
            article,
            "five seconds introduced"
        );
        self.push_clock(t, out);
        self.announce(
            super::announce::Announcement::IncrementIntroduced {
                extra_ms: III4_EXTRA_MS,
                delay: r.delay,
                awarded: opp,
                awarded_ms: III4_OPPONENT_MS,
            },
            t,
            out,
        );
        Ok(Applied {
            article,
            effect: format!(
                "{}'s request agreed, his draw offer refused: from now on both clocks add 5 s per \
                 move ({mode}; time control {before} → {after}); {} gets two extra minutes: \
                 White {} → {}, Black {} → {}",
                side(by),
                side(opp),
                hms(w),
                hms(w2),
                hms(b),
                hms(b2)
            ),
        })
    }

    /// The undo of `increment` ruling `r` at `t` (ms), in words: an agreed
    /// request gives the control before it back and takes back the two
    /// minutes and the 5 s each press credited since; an accepted offer
    /// puts the game back in progress.
    pub(super) fn undo_increment(
        &mut self,
        r: &RulingEntry,
        t: u64,
        out: &mut Decisions,
    ) -> Result<String, Refusal> {
        let seq = r.seq;
        if self
            .outcome()
            .is_some_and(|o| o.t == r.t && o.reason == EndReason::Agreement)
        {
            self.restore_facts((*r.before).clone(), t);
            self.push_clock(t, out);
            return Ok(format!(
                "ruling #{seq} (increment) undone: the draw withdrawn, the game in progress"
            ));
        }
        let old = r.before.clock.as_ref().map(|c| c.time_control().clone());
        let (Some(old), Some(c)) = (old, self.clock.as_mut()) else {
            return Err(impossible("no clock on this board"));
        };
        let ((wb, bb), (wa, ba)) = r.clocks.unwrap_or(((0, 0), (0, 0)));
        let since = |i: usize, now: u32| r.counters.map_or(0, |(_, a)| now.saturating_sub(a[i]));
        let credit = |i: usize, now: u32| match c.time_control().periods.last().map(|p| p.bonus) {
            Some(Bonus::Increment(inc)) => i64::from(since(i, now)) * inc as i64,
            _ => 0,
        };
        let cw = credit(0, c.moves_done(Color::White));
        let cb = credit(1, c.moves_done(Color::Black));
        let (w, b) = c.remaining_at(t);
        let nw = (w as i64 + wb as i64 - wa as i64 - cw).max(0) as u64;
        let nb = (b as i64 + bb as i64 - ba as i64 - cb).max(0) as u64;
        let back = old.to_string();
        c.change_time_control(old, t);
        c.set(nw, nb, t);
        self.push_clock(t, out);
        Ok(format!(
            "ruling #{seq} undone: time control back to {back}; White {} → {}, Black {} → {} \
             (the two minutes and the 5 s credited since taken back)",
            hms(w),
            hms(nw),
            hms(b),
            hms(nb)
        ))
    }
}
