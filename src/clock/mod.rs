//! Time controls and the chess clock engine (§6), on injected time.
//!
//! The time-control grammar (periods, increments, delays) is in
//! `time_control`; the engine it drives is here; the tests in `tests`.
//!
//! Times are milliseconds. The engine never reads a clock: every call takes
//! `t`, the trace time (replay) or monotonic time since the round started
//! (daemon). White's clock starts at the start of the trace (§6.5).
//!
//! Depends on `model` only, the module below it in
//! docs/dev/architecture.md's map. It must not depend on `trace`, `rules`
//! or `arbiter` (which drive the engine), on `config` (each device takes
//! its own settings type) or on anything above them.

pub mod builtin;
pub mod device;
pub mod dgt;
pub mod dgtpi;
pub mod open;
pub mod simulated;
mod time_control;

#[cfg(test)]
mod tests;

pub use time_control::*;

use shakmaty::Color;

fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The clock engine: both players' remaining time, the running side, move
/// counts per player for the periods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clock {
    tc: TimeControl,
    /// Remaining time at `since` for each player (white, black), ms; may go
    /// negative only transiently inside [`Clock::remaining_at`].
    remaining: [i64; 2],
    moves_done: [u32; 2],
    running: Option<Color>,
    since: u64,
    flagged: [bool; 2],
    /// The move in progress, across stops (an arbiter's pause): how long
    /// its clock ran before `since`, ms, and how much of that was charged
    /// (US delay: the part beyond the delay). The delay is the move's, once
    /// (2023 6.3.2, the glossary's "delay"): a pause neither grants a second
    /// delay nor loses the Bronstein time given back at the press.
    move_ran: u64,
    move_charged: u64,
    /// Whose move a [`Clock::stop`] interrupted: a [`Clock::start`] of the
    /// same side goes on with that move.
    stopped_move: Option<Color>,
    /// How long the move in progress had run when the arbiter last set the
    /// times during it, ms ([`Clock::set`]): the Bronstein time given back
    /// at the press is the part of the move's delay run after that setting
    /// (what ran before is in the times he set).
    set_ran: u64,
}

impl Clock {
    /// A clock set to the time control's first period, stopped: the base,
    /// plus the first increment over the board ([`ClockStart`]; `900+10`
    /// shows 0:15:10 before move 1, `900+10@base` 0:15:00).
    pub fn new(tc: TimeControl) -> Clock {
        let base = (tc.periods[0].time_ms + tc.start_credit_ms()) as i64;
        Clock {
            tc,
            remaining: [base, base],
            moves_done: [0, 0],
            running: None,
            since: 0,
            flagged: [false, false],
            move_ran: 0,
            move_charged: 0,
            stopped_move: None,
            set_ran: 0,
        }
    }

    /// The time control.
    pub fn time_control(&self) -> &TimeControl {
        &self.tc
    }

    /// Starts `side`'s clock at `t` (§6.5: White's at the start of the round).
    pub fn start(&mut self, side: Color, t: u64) {
        if self.stopped_move.take() != Some(side) {
            // Another player's move (or the first): nothing ran of it yet.
            self.move_ran = 0;
            self.move_charged = 0;
            self.set_ran = 0;
        }
        self.running = Some(side);
        self.since = t;
    }

    /// Stops both clocks at `t` (game over, arbiter pause); the running
    /// side is charged the time used.
    pub fn stop(&mut self, t: u64) {
        if let Some(side) = self.running {
            let used = self.charge(side, t);
            self.remaining[idx(side)] -= used as i64;
            self.move_ran += t.saturating_sub(self.since);
            self.move_charged += used;
            self.stopped_move = Some(side);
        }
        self.running = None;
        self.since = t;
    }

    /// The side whose clock runs.
    pub fn running(&self) -> Option<Color> {
        self.running
    }

    fn delay_of(&self, side: Color) -> Bonus {
        self.tc.period_for(self.moves_done[idx(side)]).1.bonus
    }

    /// Time charged to the running `side` for the span `since..t`: the
    /// move's whole run so far less its delay (US delay), less what its
    /// earlier spans were charged.
    fn charge(&self, side: Color, t: u64) -> u64 {
        let ran = self.move_ran + t.saturating_sub(self.since);
        let due = match self.delay_of(side) {
            Bonus::UsDelay(d) => ran.saturating_sub(d),
            _ => ran,
        };
        due.saturating_sub(self.move_charged)
    }

    /// Remaining time of (white, black) at `t`, ms, floored at 0.
    pub fn remaining_at(&self, t: u64) -> (u64, u64) {
        let mut r = self.remaining;
        if let Some(side) = self.running {
            r[idx(side)] -= self.charge(side, t) as i64;
        }
        (r[0].max(0) as u64, r[1].max(0) as u64)
    }

    /// The trace time at which the running side's flag falls, if a clock runs
    /// and that flag has not been reported yet.
    pub fn flag_time(&self) -> Option<(Color, u64)> {
        let side = self.running?;
        if self.flagged[idx(side)] {
            return None;
        }
        let rem = self.remaining[idx(side)].max(0) as u64;
        // What is left of the move's delay (a pause may have used some).
        let delay = match self.delay_of(side) {
            Bonus::UsDelay(d) => d.saturating_sub(self.move_ran),
            _ => 0,
        };
        Some((side, self.since + rem + delay))
    }

    /// Marks `side`'s flag as fallen (reported once).
    pub fn set_flagged(&mut self, side: Color) {
        self.flagged[idx(side)] = true;
    }

    /// Whether `side`'s flag has been reported fallen.
    pub fn is_flagged(&self, side: Color) -> bool {
        self.flagged[idx(side)]
    }

    /// `side` completes a move at `t` (§6.7a): charge the time used, add the
    /// increment or give back the Bronstein delay, add the next period's time
    /// when this move completes a period, and start the opponent's clock.
    /// A press at or after the moment `side`'s clock showed zero (his flag
    /// fell, [`Clock::flag_time`]) credits nothing: his time stays at zero
    /// and his flag stays fallen.
    ///
    /// The increment credited: over the board ([`ClockStart::BasePlusIncrement`])
    /// the one for the player's *next* move (the first was credited at the
    /// start), so a period whose increment begins later ("+30 s from move
    /// 61") credits it together with its time at the press of move 60;
    /// online ([`ClockStart::Base`]) the one of the move just completed.
    pub fn press(&mut self, side: Color, t: u64) {
        let i = idx(side);
        let used = if self.running == Some(side) {
            self.charge(side, t)
        } else {
            0
        };
        let elapsed = if self.running == Some(side) {
            self.move_ran + t.saturating_sub(self.since)
        } else {
            0
        };
        let set_ran = if self.running == Some(side) {
            self.set_ran
        } else {
            0
        };
        if self.running != Some(!side) {
            // The opponent's move starts now, afresh (a press while his
            // clock already runs changes nothing of his move).
            self.set_ran = 0;
            self.move_ran = 0;
            self.move_charged = 0;
            self.stopped_move = None;
        }
        let (pi, period) = self.tc.period_for(self.moves_done[i]);
        let bonus = period.bonus;
        self.remaining[i] -= used as i64;
        if (self.remaining[i] <= 0 && self.running == Some(side)) || self.flagged[i] {
            // The flag fell before this press (the clock showed zero): the
            // time stays at zero; no increment, no delay given back, no
            // next period's time (§6.8: the flag has fallen, and 2009 A4d /
            // 2001 B6 leave it to a claim). A DGT clock freezes at 0:00.
            self.remaining[i] = 0;
            self.flagged[i] = true;
            self.moves_done[i] += 1;
            self.running = Some(!side);
            self.since = t;
            return;
        }
        match bonus {
            Bonus::Increment(inc) if self.tc.start == ClockStart::Base => {
                self.remaining[i] += inc as i64
            }
            Bonus::Bronstein(d) => {
                self.remaining[i] += elapsed.min(d).saturating_sub(set_ran.min(d)) as i64
            }
            Bonus::Increment(_) | Bonus::UsDelay(_) | Bonus::None => {}
        }
        self.moves_done[i] += 1;
        let (next, next_period) = self.tc.period_for(self.moves_done[i]);
        if let (ClockStart::BasePlusIncrement, Bonus::Increment(inc)) =
            (self.tc.start, next_period.bonus)
        {
            self.remaining[i] += inc as i64;
        }
        if next != pi
            || (period.moves.is_some()
                && next == self.tc.periods.len() - 1
                && self.completes_repeat(i))
        {
            self.remaining[i] += next_period.time_ms as i64;
        }
        self.running = Some(!side);
        self.since = t;
    }

    /// Counts a move `side` completed without a press that changed this
    /// clock: the moves counter goes on, and the next period's time is added
    /// when this move reaches a time control (§6.3 / 2023 6.3.1 count
    /// completed moves), with no increment and no delay (those come with a
    /// press). Used for a move completed by the player's next move (2023
    /// 6.2.1.2; the reading taken for 2009 / 2001 §6.7a / §6.8a, see
    /// docs/profiles.md) and for a press on a clock that was not running.
    pub fn count_move(&mut self, side: Color) {
        let i = idx(side);
        let (pi, period) = self.tc.period_for(self.moves_done[i]);
        let counted = period.moves.is_some();
        self.moves_done[i] += 1;
        let (next, next_period) = self.tc.period_for(self.moves_done[i]);
        if next != pi || (counted && next == self.tc.periods.len() - 1 && self.completes_repeat(i))
        {
            self.remaining[i] += next_period.time_ms as i64;
            if self.remaining[i] > 0 {
                self.flagged[i] = false;
            }
        }
    }

    /// For a last period with a move count (repeating), whether the move just
    /// made completes one of its repetitions.
    fn completes_repeat(&self, i: usize) -> bool {
        let last = self.tc.periods.len() - 1;
        let before: u32 = self.tc.periods[..last].iter().filter_map(|p| p.moves).sum();
        match self.tc.periods[last].moves {
            Some(n) if self.moves_done[i] > before => {
                (self.moves_done[i] - before).is_multiple_of(n)
            }
            _ => false,
        }
    }

    /// The time controls a player reaches while his move counter goes from
    /// `from` to `to` moves completed (each one adds the next period's time
    /// at its press, §6.10b; the last period counted again when it has a
    /// move count); 0 when `to <= from`.
    pub fn controls_between(&self, from: u32, to: u32) -> u32 {
        let last = self.tc.periods.len() - 1;
        let before: u32 = self.tc.periods[..last].iter().filter_map(|p| p.moves).sum();
        let repeat = |m: u32| match self.tc.periods[last].moves {
            Some(n) if m > before => (m - before).is_multiple_of(n),
            _ => false,
        };
        (from.saturating_add(1)..=to)
            .filter(|&m| {
                let (pi, period) = self.tc.period_for(m - 1);
                let next = self.tc.period_for(m).0;
                next != pi || (period.moves.is_some() && next == last && repeat(m))
            })
            .count() as u32
    }

    /// Sets both players' remaining times at `t` (the arbiter, §6.10b / §6.13), ms;
    /// the running side keeps running from `t`.
    ///
    /// A setting in the middle of a move (the arbiter's `clock`, the undo
    /// of a ruling) is no new move: the delay already used stays used
    /// (2023 6.3.2 and the glossary give the delay per move). US delay:
    /// the main time counts down once the move's whole run passes the
    /// delay; Bronstein: the press gives back only the delay's part run
    /// after the setting, since the times set already count what ran
    /// before (docs/clock.md, "A setting in the middle of a move").
    pub fn set(&mut self, white_ms: u64, black_ms: u64, t: u64) {
        if let Some(side) = self.running {
            let used = self.charge(side, t);
            self.move_ran += t.saturating_sub(self.since);
            self.move_charged += used;
        }
        if self.running.is_some() || self.stopped_move.is_some() {
            self.set_ran = self.move_ran;
        }
        self.remaining = [white_ms as i64, black_ms as i64];
        self.since = t;
        self.flagged = [false, false];
    }

    /// Changes the time control at `t` in the middle of a game (2023
    /// Guidelines III.4: an increment introduced on request; the undo of
    /// that ruling): the times and move counters stay, the running side
    /// keeps running, and from `t` on the presses credit the new periods'
    /// bonus. The time the move in progress used before `t` is charged
    /// under the old control; a delay in the new control counts for the
    /// move in progress from `t`.
    pub fn change_time_control(&mut self, tc: TimeControl, t: u64) {
        if let Some(side) = self.running {
            let used = self.charge(side, t);
            self.remaining[idx(side)] -= used as i64;
            self.since = t;
        }
        // What the move in progress ran is charged: under the new control
        // it counts from `t` (its delay, if any, from here).
        self.move_ran = 0;
        self.move_charged = 0;
        self.set_ran = 0;
        self.tc = tc;
    }

    /// Adds (or with a negative value removes) time for `side`, ms (§6.13, penalties).
    pub fn adjust(&mut self, side: Color, delta_ms: i64) {
        self.remaining[idx(side)] += delta_ms;
        if self.remaining[idx(side)] > 0 {
            self.flagged[idx(side)] = false;
        }
    }

    /// Sets the move counter: the moves each player has completed (the
    /// arbiter, §6.10b / 2023 6.10.2: so the next period arrives at the
    /// right move).
    pub fn set_moves_done(&mut self, white: u32, black: u32) {
        self.moves_done = [white, black];
    }

    /// The moves `side` still has to complete before the next time
    /// control, when another period follows; `None` in the last period.
    pub fn moves_to_control(&self, side: Color) -> Option<u32> {
        let done = self.moves_done[idx(side)];
        let mut start = 0u32;
        for (i, p) in self.tc.periods.iter().enumerate() {
            let n = p.moves?;
            if i + 1 == self.tc.periods.len() {
                // A repeating last period: to the end of this repetition.
                let into = done.saturating_sub(start);
                return Some(n - into % n);
            }
            if done < start + n {
                return Some(start + n - done);
            }
            start += n;
        }
        None
    }

    /// Moves completed by `side` as the clock counts them.
    pub fn moves_done(&self, side: Color) -> u32 {
        self.moves_done[idx(side)]
    }
}
