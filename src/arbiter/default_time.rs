//! The default time of a no-show's forfeit (2023 6.7.1; 2009 §6.6a with
//! the DSU regulations 004 §11; 2001 §6.7): a player who arrives at the
//! board after it loses; before it he plays. The board knows when the
//! session started on it (White's clock first ran: 2023 6.6, 2009 §6.5, at
//! round time 0, at the arbiter's start or at the first press) and the
//! event's default time (`event.default_time_min`, else the profile's:
//! [`DefaultTime::of`]), so it refuses a forfeit entered before the default
//! time has passed, saying when it passes. The arbiter may still decide a
//! forfeit before it (the absent player withdrew or sent word he will not
//! come: the default time is the regulations' and "the arbiter decides
//! otherwise", 6.7.1): an explicit ruling
//! ([`ArbiterAction::ForfeitBeforeDefaultTime`](crate::trace::ArbiterAction))
//! with its reason, journaled and shown as such, never a silent bypass.
//! `docs/console.md`, "Forfeits and the default time".

use super::refusal::{impossible, stale, Refusal};
use super::Arbiter;
use crate::clock::fmt_hms;
use crate::rules::{DefaultTime, RulingArticles};
use serde::Serialize;

/// The default time as the arbiter's state shows it (`default_time` in
/// `GET /arbiter/state`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DefaultTimeState {
    /// The default time, ms after the start of the session.
    pub ms: u64,
    /// Where it comes from (`"DSU 004 §11"`, `"the event's regulations"`).
    pub source: &'static str,
    /// The article a forfeit cites (`6.7.1`, `6.6a`, `6.7`).
    pub article: &'static str,
    /// When the session started on this board, round ms (negative: a
    /// scheduled start before round time 0); `None`: not yet (White's
    /// clock has not run, and no start is scheduled).
    pub started_t: Option<i64>,
    /// Whether `started_t` is the round's scheduled start (`[event]
    /// session_start`, header `session_start_ms`) rather than when White's
    /// clock first ran on this board.
    pub scheduled: bool,
    /// From when a forfeit is possible, round ms (`started_t` + `ms`);
    /// `None` while the session has not started and the default time is
    /// not zero.
    pub passes_t: Option<u64>,
}

impl Arbiter {
    /// The event's default time: the config's (header `default_time_ms`),
    /// else the profile's.
    pub fn default_time(&self) -> DefaultTime {
        match self.cfg.header.default_time_ms {
            Some(ms) => DefaultTime::of_event(ms),
            None => DefaultTime::of(self.cfg.profile.edition),
        }
    }

    /// When the session started on this board, round ms: the round's
    /// scheduled start when the event gives one (header `session_start_ms`:
    /// 2023 6.6 "at the scheduled start", DSU 004 §11 "the round's
    /// announced start"; negative when before round time 0), else when
    /// White's clock first ran (2023 6.6, 2009 §6.5); with no clock, round
    /// time 0. `None`: the clocks wait for their start.
    pub fn session_start(&self) -> Option<i64> {
        if let Some(s) = self.cfg.header.session_start_ms {
            return Some(s);
        }
        if self.clock.is_none() {
            return Some(0);
        }
        self.session_started.map(|t| t as i64)
    }

    /// The default time for the arbiter's state.
    pub fn default_time_state(&self) -> DefaultTimeState {
        self.default_time_state_of(&self.default_time())
    }

    /// The arbiter's state of the default time `d` ([`Self::default_time`]).
    fn default_time_state_of(&self, d: &DefaultTime) -> DefaultTimeState {
        let started_t = self.session_start();
        DefaultTimeState {
            ms: d.ms,
            source: d.source,
            article: RulingArticles::of(self.cfg.profile.edition).forfeit,
            started_t,
            scheduled: self.cfg.header.session_start_ms.is_some(),
            passes_t: match started_t {
                Some(s) => Some(s.saturating_add(d.ms as i64).max(0) as u64),
                None if d.ms == 0 => Some(0),
                None => None,
            },
        }
    }

    /// Whether a forfeit entered at `t` respects the default time. `early`:
    /// the arbiter decides it before the default time (his `reason`
    /// required). `Ok(Some(words))` for an early forfeit (said in the
    /// ruling's effect), `Ok(None)` when the default time has passed (or
    /// is zero); refused 409 before it with the time it passes, 422 for an
    /// early forfeit without a reason.
    pub(super) fn check_default_time(
        &self,
        early: bool,
        reason: Option<&str>,
        t: u64,
    ) -> Result<Option<String>, Refusal> {
        let d = self.default_time();
        let st = self.default_time_state_of(&d);
        let article = st.article;
        let due = match st.passes_t {
            Some(p) if t >= p => return Ok(None),
            p => p,
        };
        let what = format!("the default time of {} ({})", d.words(), d.source);
        if !early {
            return Err(stale(match (due, st.started_t) {
                (Some(p), Some(s)) => format!(
                    "too early for a forfeit: {what} passes at round time {} ({} after the session \
                     started on this board, {}), in {}; a player who arrives before it plays; \
                     {article}",
                    fmt_hms(p),
                    d.words(),
                    started_words(s, st.scheduled),
                    fmt_hms(p - t)
                ),
                _ => format!(
                    "too early for a forfeit: the session has not started on this board (White's \
                     clock has not run), and {what} runs from its start; start the clocks, or \
                     decide the forfeit before the default time with its reason; {article}"
                ),
            }));
        }
        let reason = reason.map(str::trim).filter(|r| !r.is_empty());
        if reason.is_none() {
            return Err(impossible(format!(
                "a forfeit before the default time is the arbiter's decision: give its reason \
                 (the player withdrew, or sent word he will not come); {what} has not passed; {article}"
            )));
        }
        Ok(Some(match due {
            Some(p) => format!(
                "decided by the arbiter before {what} passed (at round time {})",
                fmt_hms(p)
            ),
            None => {
                format!("decided by the arbiter before the session started on this board ({what})")
            }
        }))
    }
}

/// How the session started, in words: "the round's scheduled start at
/// round time 0:00:00" / "White's clock first running at 0:00:00".
fn started_words(s: i64, scheduled: bool) -> String {
    let at = if s < 0 {
        format!("{} before round time 0", fmt_hms(s.unsigned_abs()))
    } else {
        format!("at {}", fmt_hms(s as u64))
    };
    if scheduled {
        format!("the round's scheduled start ({at}; [event] session_start)")
    } else {
        format!("White's clock first running {at}")
    }
}
