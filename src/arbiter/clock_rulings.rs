//! The clock rulings of issue 40: `time_control`, the right control
//! installed in the middle of a game (2023 6.10.2: "If the arbiter finds
//! the clock setting wrong … the arbiter shall install the correct setting
//! and adjust the times and move-counter, if necessary"; 2009 §6.10b
//! "Hvis uret er indstillet forkert", 2001 §6.14), and `downtime`, whom
//! the time the board was down is charged to (2023 7.1, 2009 §6.13 "skal
//! dommeren stille tiden på uret efter sit bedste skøn", seed 002; 2023
//! 6.11.1 / 2009 §6.12: the arbiter stops the clocks and decides when the
//! game restarts). Both are clock rulings: undone by amounts, the control
//! before it back for `time_control` (`undo.rs`).

use super::announce::{Announcement, Decisions};
use super::matter::side;
use super::refusal::{hms, impossible, stale, Applied, Refusal};
use super::rulings::RulingEntry;
use super::Arbiter;
use crate::clock::{Bonus, ClockStart, TimeControl};
use crate::rules::RulingArticles;
use crate::trace::DowntimeCharge;
use shakmaty::{Color, Position};

/// One downtime as the rulings left it: the daemon's record (`seq` its
/// ruling) and each arbiter's `downtime` ruling after it.
#[derive(Debug, Clone, Copy)]
pub(super) struct DowntimeMark {
    seq: u32,
    /// The player whose clock ran when the board went down.
    side: Color,
    /// The downtime, ms.
    ms: u64,
    /// Whether it is charged to him now.
    charged: bool,
    /// Whether the clock device ran through it (the daemon's record
    /// charged it to the mover): a DGT clock on its batteries does, the
    /// board's own clock does not.
    device_ran: bool,
    /// The round time of the `downtime` alert (the outage's end), ms.
    alert_t: u64,
}

/// The last downtime and whom it is charged to (the state's `downtime`,
/// for the console: what waits for the arbiter's resume).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DowntimeStanding {
    /// The player whose clock ran when the board went down: `w` or `b`.
    pub by: &'static str,
    /// How long the board was down, ms.
    pub ms: u64,
    /// Whom it is charged to now: `mover` or `nobody`.
    pub charge: &'static str,
    /// Whether the clocks stand, waiting for the arbiter's `resume`.
    pub clocks_stopped: bool,
    /// The ruling that decided the charge last.
    pub ruling: u32,
    /// The article (2023 7.1, 2009 §6.13, 2001 §6.14).
    pub article: &'static str,
    /// Whether the clock device kept running while the board was down.
    pub clock_ran: bool,
    /// The round time of the `downtime` alert, ms.
    pub t: u64,
}

/// The increment a press of a player's move number `k` (0-based: the
/// moves he had completed before it) credits under `tc`, ms: over the
/// board the one of his next move, online the one of the move pressed
/// ([`crate::clock::Clock::press`]).
fn press_credit(tc: &TimeControl, k: u32) -> i64 {
    let at = match tc.start {
        ClockStart::BasePlusIncrement => k.saturating_add(1),
        ClockStart::Base => k,
    };
    match tc.period_for(at).1.bonus {
        Bonus::Increment(i) => i as i64,
        _ => 0,
    }
}

/// What the presses of move numbers `from..to` (0-based) credit under
/// `new` more than under `old`, ms.
fn credit_between(new: &TimeControl, old: &TimeControl, from: u32, to: u32) -> i64 {
    (from..to)
        .map(|k| press_credit(new, k) - press_credit(old, k))
        .sum()
}

fn adjusted(ms: u64, delta: i64) -> u64 {
    (ms as i64 + delta).max(0) as u64
}

impl Arbiter {
    /// `time_control` or `downtime` at `t` (ms).
    pub(super) fn clock_ruling(
        &mut self,
        action: &crate::trace::ArbiterAction,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        use crate::trace::ArbiterAction::{Downtime, TimeControl};
        match action {
            TimeControl {
                control,
                from_move,
                times,
            } => self.install_time_control(control, *from_move, *times, t, out),
            Downtime { charge, ms } => self.rule_downtime(*charge, *ms, t, out),
            _ => Err(impossible("not a clock ruling")),
        }
    }

    /// `time_control`: the right control `text` installed at `t` (ms),
    /// counting from move `from_move` (`None`: the next press), the times
    /// set to `times` when given.
    fn install_time_control(
        &mut self,
        text: &str,
        from_move: Option<u32>,
        times: Option<(u64, u64)>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let article = RulingArticles::of(self.cfg.profile.edition).clock;
        if let Some(o) = self.outcome() {
            return Err(stale(format!(
                "the game is over ({}, {}): its clocks no longer count ({article})",
                o.result.as_str(),
                o.reason
            )));
        }
        let tc = TimeControl::parse(text)
            .map_err(|e| impossible(format!("\"{text}\" is no time control: {}", e.message)))?;
        let now_move = self.pos.fullmoves().get();
        if let Some(m) = from_move.filter(|m| *m > now_move) {
            return Err(impossible(format!(
                "move {m} is still to come (move {now_move} now): install the control from now \
                 or from a move played ({article})"
            )));
        }
        let Some(c) = self.clock.as_mut() else {
            return Err(impossible(format!(
                "no clock runs on this board ({article})"
            )));
        };
        let old = c.time_control().clone();
        if old == tc && times.is_none() {
            return Err(impossible(format!(
                "the clock is already set to {old} ({article})"
            )));
        }
        let (w, b) = c.remaining_at(t);
        let done = [c.moves_done(Color::White), c.moves_done(Color::Black)];
        // From a move played: each player credited the increments the new
        // control would have given his moves since (and, over the board,
        // the one already due for his next move).
        let credit = |i: usize| match from_move {
            None => 0,
            Some(m) => {
                let mut d = credit_between(&tc, &old, m - 1, done[i]);
                if m == 1 {
                    d += tc.start_credit_ms() as i64 - old.start_credit_ms() as i64;
                }
                d
            }
        };
        let (nw, nb) = times.unwrap_or((adjusted(w, credit(0)), adjusted(b, credit(1))));
        c.change_time_control(tc.clone(), t);
        c.set(nw, nb, t);
        let next = |s: Color| match c.moves_to_control(s) {
            Some(n) => format!("{} {n} moves to the next control", side(s)),
            None => format!("{} in the last period", side(s)),
        };
        let counters = format!("{}, {}", next(Color::White), next(Color::Black));
        tracing::info!(before = %old, after = %tc, t, article, "time control installed");
        self.push_clock(t, out);
        let from = match from_move {
            None => "from the next press on".to_owned(),
            Some(m) => format!("counting from move {m}"),
        };
        Ok(Applied {
            article,
            effect: format!(
                "time control {old} → {tc} ({from}; the moves played keep their clock times): \
                 White {} → {}, Black {} → {}; {counters}",
                hms(w),
                hms(nw),
                hms(b),
                hms(nb)
            ),
        })
    }

    /// The undo of `time_control` ruling `r` at `t` (ms), in words: the
    /// control before it back, the times by the amounts it changed and
    /// what the presses since credited more under it.
    pub(super) fn undo_time_control(
        &mut self,
        r: &RulingEntry,
        t: u64,
        out: &mut Decisions,
    ) -> Result<String, Refusal> {
        let old = r.before.clock.as_ref().map(|c| c.time_control().clone());
        let (Some(old), Some(c)) = (old, self.clock.as_mut()) else {
            return Err(impossible("no clock on this board"));
        };
        let new = c.time_control().clone();
        let ((wb, bb), (wa, ba)) = r.clocks.unwrap_or(((0, 0), (0, 0)));
        let after = r.counters.map_or([0, 0], |(_, a)| a);
        let now = [c.moves_done(Color::White), c.moves_done(Color::Black)];
        let since = |i: usize| credit_between(&new, &old, after[i], now[i]);
        let (w, b) = c.remaining_at(t);
        let nw = adjusted(w, wb as i64 - wa as i64 - since(0));
        let nb = adjusted(b, bb as i64 - ba as i64 - since(1));
        c.change_time_control(old.clone(), t);
        c.set(nw, nb, t);
        self.push_clock(t, out);
        Ok(format!(
            "ruling #{} undone: time control back to {old}; White {} → {}, Black {} → {} \
             (what it set and the increments credited since taken back)",
            r.seq,
            hms(w),
            hms(nw),
            hms(b),
            hms(nb)
        ))
    }

    /// The time control a standing `time_control` ruling installed (the
    /// game record's `TimeControl` follows it: the control the game is
    /// played at, 6.10.2); `None` when the game keeps the one it started
    /// with.
    pub fn installed_time_control(&self) -> Option<&TimeControl> {
        self.rulings
            .iter()
            .any(|r| r.action == "time_control" && r.undone_by.is_none())
            .then(|| self.clock.as_ref().map(|c| c.time_control()))
            .flatten()
    }

    /// The downtime mark in force: the last one whose ruling stands.
    fn downtime_mark(&self) -> Option<DowntimeMark> {
        let stands = |seq: u32| {
            self.rulings
                .iter()
                .find(|r| r.seq == seq)
                .is_none_or(|r| r.undone_by.is_none())
        };
        self.downtimes.iter().rev().find(|m| stands(m.seq)).copied()
    }

    /// The last downtime and whom it is charged to, while the game goes on.
    pub fn downtime_standing(&self) -> Option<DowntimeStanding> {
        if self.outcome().is_some() {
            return None;
        }
        let m = self.downtime_mark()?;
        Some(DowntimeStanding {
            by: crate::trace::color_str(m.side),
            ms: m.ms,
            charge: if m.charged { "mover" } else { "nobody" },
            clocks_stopped: self.paused(),
            ruling: m.seq,
            article: self.cfg.profile.article_downtime(),
            clock_ran: m.device_ran,
            t: m.alert_t,
        })
    }

    /// The downtime as an open matter while the clocks wait for the
    /// arbiter's resume (the state's `open`, on the `downtime` alert):
    /// how long, whose clock ran, whether the clock device kept running,
    /// whom it is charged to; the rulings: the other charge, and resume.
    pub(super) fn downtime_matter(&self) -> Option<super::OpenMatter> {
        use super::matter::ruling;
        use serde_json::json;
        let d = self.downtime_standing()?;
        if !d.clocks_stopped {
            return None;
        }
        let m = self.downtime_mark()?;
        let (w, b) = self.clock.as_ref()?.remaining_at(m.alert_t);
        let who = side(m.side);
        let ran = if m.device_ran {
            "the clock device kept running"
        } else {
            "the clock was the board's own and stopped with it"
        };
        let charged = if m.charged {
            format!("charged to {who}")
        } else {
            "charged to nobody".to_owned()
        };
        let mine = if m.side == Color::White { w } else { b };
        let other = if m.charged {
            ruling(
                "downtime",
                json!({"charge": "nobody"}),
                "Charge nobody",
                format!(
                    "gives the {} back to {who}: {who} {} → {} ({})",
                    hms(m.ms),
                    hms(mine),
                    hms(mine + m.ms),
                    d.article
                ),
            )
        } else {
            ruling(
                "downtime",
                json!({"charge": "mover"}),
                &format!("Charge to {who}"),
                format!(
                    "takes the {} off {who}'s clock, as if it had run: {who} {} → {} ({})",
                    hms(m.ms),
                    hms(mine),
                    hms(mine.saturating_sub(m.ms)),
                    d.article
                ),
            )
        };
        let on_move = side(self.pos.turn());
        Some(super::OpenMatter {
            kind: "irregularity",
            t: m.alert_t,
            by: Some(d.by),
            summary: format!(
                "the board was down {} while {who}'s clock ran; {ran}: {charged}; the clocks \
                 wait for Resume at White {} · Black {} (or set the clocks)",
                if m.ms > 0 {
                    hms(m.ms)
                } else {
                    "for a time not measured".to_owned()
                },
                hms(w),
                hms(b)
            ),
            rulings: (m.ms > 0)
                .then_some(other)
                .into_iter()
                .chain([ruling(
                    "resume",
                    serde_json::Value::Null,
                    "Resume",
                    format!("{on_move}'s clock runs again; the charge stays as it is now"),
                )])
                .collect(),
        })
    }

    /// `downtime`: with `ms`, the daemon's record of a downtime (the clocks
    /// stopped at `t`, charged to `charge`); without, the arbiter's ruling
    /// on the last one.
    fn rule_downtime(
        &mut self,
        charge: DowntimeCharge,
        ms: Option<u64>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let article = self.cfg.profile.article_downtime();
        if let Some(o) = self.outcome() {
            return Err(stale(format!(
                "the game is over ({}, {}): its clocks no longer count ({article})",
                o.result.as_str(),
                o.reason
            )));
        }
        let seq = self.rulings.len() as u32 + 1;
        let charged = charge == DowntimeCharge::Mover;
        let mark = self.downtime_mark();
        let Some(c) = self.clock.as_mut() else {
            return Err(impossible(format!(
                "no clock runs on this board ({article})"
            )));
        };
        if let Some(ms) = ms {
            // The daemon's record: the clocks stop (6.11.1 / §6.12a) until
            // the arbiter's resume.
            let Some(by) = c.running() else {
                return Err(impossible(format!(
                    "no clock ran when the board went down: nobody to charge ({article})"
                )));
            };
            c.stop(t);
            let (w, b) = c.remaining_at(t);
            self.downtimes.push(DowntimeMark {
                seq,
                side: by,
                ms,
                charged,
                device_ran: charged,
                // The board's own clock stopped at the outage's start (the
                // record's time); the alert is at its end.
                alert_t: if charged { t } else { t.saturating_add(ms) },
            });
            self.push_clock(t, out);
            self.announce(Announcement::ClockPaused, t, out);
            let whom = if charged {
                format!("charged to {} (his clock ran through it)", side(by))
            } else {
                "charged to nobody (the clock stopped with the board)".to_owned()
            };
            return Ok(Applied {
                article,
                effect: format!(
                    "the board was down {} while {}'s clock ran: {whom}; both clocks stopped at \
                     White {} · Black {}, waiting for the arbiter's resume",
                    hms(ms),
                    side(by),
                    hms(w),
                    hms(b)
                ),
            });
        }
        let Some(m) = mark else {
            return Err(impossible(format!(
                "no downtime is recorded on this board: set the clocks instead ({article})"
            )));
        };
        if m.ms == 0 {
            return Err(impossible(format!(
                "the downtime was not measured (another boot, a wall clock not trusted): \
                 nothing to charge; set the clocks by your best judgement instead ({article})"
            )));
        }
        if m.charged == charged {
            return Err(impossible(format!(
                "the downtime of {} is already charged to {} ({article})",
                hms(m.ms),
                if charged { side(m.side) } else { "nobody" }
            )));
        }
        let (w, b) = c.remaining_at(t);
        let delta = if charged { -(m.ms as i64) } else { m.ms as i64 };
        c.adjust(m.side, delta);
        let (nw, nb) = c.remaining_at(t);
        self.downtimes.push(DowntimeMark { seq, charged, ..m });
        self.push_clock(t, out);
        let what = if charged {
            format!("charged to {}", side(m.side))
        } else {
            format!("given back to {}: charged to nobody", side(m.side))
        };
        Ok(Applied {
            article,
            effect: format!(
                "the downtime of {} {what}: White {} → {}, Black {} → {}",
                hms(m.ms),
                hms(w),
                hms(nw),
                hms(b),
                hms(nb)
            ),
        })
    }
}
