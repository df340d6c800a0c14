//! Time controls and the chess clock engine (§6), on injected time.
//!
//! Times are milliseconds. The engine never reads a clock: every call takes
//! `t`, the trace time (replay) or monotonic time since the round started
//! (daemon). White's clock starts at the start of the trace (§6.5).

pub mod builtin;
pub mod device;
pub mod dgt;
pub mod open;
pub mod simulated;

use shakmaty::Color;
use std::fmt;

/// How time is added per move in a period (§6.2b "time delay mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bonus {
    /// No addition.
    None,
    /// Fischer increment, added after every move from move 1 (ms).
    Increment(u64),
    /// US (simple) delay: the clock starts counting down only after the delay (ms).
    UsDelay(u64),
    /// Bronstein delay: the time used, up to the delay, is given back after the move (ms).
    Bronstein(u64),
}

/// One period of a time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    /// Moves to make in this period; `None` for sudden death (the last period).
    pub moves: Option<u32>,
    /// Time for the period, ms.
    pub time_ms: u64,
    /// Increment or delay per move.
    pub bonus: Bonus,
}

/// A time control: one or more periods (the contract's `time_control`,
/// e.g. `40/5400+30:1800+30`, or the Danish championship control
/// `40/6000+30:20/3000+30:900+30`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControl {
    /// The periods in order; the last one repeats when it has a move count.
    pub periods: Vec<Period>,
}

/// A malformed time control: what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("time_control \"{text}\": {message}")]
pub struct TimeControlError {
    /// The text given.
    pub text: String,
    /// What is wrong.
    pub message: String,
}

impl TimeControl {
    /// Parses `[moves/]seconds[+inc|dN|bN]` periods joined by `:`.
    /// Seconds may carry a fraction (`0.5`); the result is exact in ms.
    pub fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        let bad = |message: String| TimeControlError {
            text: text.to_owned(),
            message,
        };
        let secs = |s: &str, what: &str| -> Result<u64, TimeControlError> {
            let ms = parse_seconds_ms(s)
                .ok_or_else(|| bad(format!("{what} \"{s}\" is not a number of seconds")))?;
            Ok(ms)
        };
        let mut periods = Vec::new();
        let parts: Vec<&str> = text.trim().split(':').collect();
        for (i, part) in parts.iter().enumerate() {
            let part = part.trim();
            let (moves, rest) = match part.split_once('/') {
                Some((m, r)) => {
                    let n: u32 = m.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                        bad(format!(
                            "period {}: move count \"{m}\" is not a positive integer",
                            i + 1
                        ))
                    })?;
                    (Some(n), r)
                }
                None => (None, part),
            };
            let (base, bonus) = if let Some((b, inc)) = rest.split_once('+') {
                (b, Bonus::Increment(secs(inc, "increment")?))
            } else if let Some(pos) = rest.find(['d', 'b']) {
                let (b, d) = rest.split_at(pos);
                let ms = secs(&d[1..], "delay")?;
                if d.starts_with('d') {
                    (b, Bonus::UsDelay(ms))
                } else {
                    (b, Bonus::Bronstein(ms))
                }
            } else {
                (rest, Bonus::None)
            };
            let time_ms = secs(base, "base time")?;
            if moves.is_none() && i + 1 < parts.len() {
                return Err(bad(format!(
                    "period {} has no move count but is not the last period",
                    i + 1
                )));
            }
            periods.push(Period {
                moves,
                time_ms,
                bonus,
            });
        }
        if periods.is_empty() || periods[0].time_ms == 0 && periods.len() == 1 {
            return Err(bad("no time given".into()));
        }
        Ok(TimeControl { periods })
    }

    /// The period in force for a player who has completed `moves_done` moves.
    pub fn period_for(&self, moves_done: u32) -> (usize, &Period) {
        let mut start = 0u32;
        for (i, p) in self.periods.iter().enumerate() {
            match p.moves {
                Some(n) if moves_done >= start + n && i + 1 < self.periods.len() => start += n,
                _ => return (i, p),
            }
        }
        let last = self.periods.len() - 1;
        (last, &self.periods[last])
    }

    /// Base plus 60 × the first period's increment in ms (2009 A1/B1 classification).
    pub fn classification_ms(&self) -> u64 {
        let p = &self.periods[0];
        let inc = match p.bonus {
            Bonus::Increment(i) | Bonus::UsDelay(i) | Bonus::Bronstein(i) => i,
            Bonus::None => 0,
        };
        p.time_ms + 60 * inc
    }
}

fn parse_seconds_ms(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 3 || whole.is_empty() && frac.is_empty() {
        return None;
    }
    let w: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let f: u64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<3}").parse().ok()?
    };
    w.checked_mul(1000)?.checked_add(f)
}

fn fmt_secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{}.{:03}", ms / 1000, ms % 1000)
            .trim_end_matches('0')
            .to_owned()
    }
}

impl fmt::Display for TimeControl {
    /// The PGN TimeControl tag as FIDE events write it (`40/5400+30:1800+30`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.periods.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            if let Some(n) = p.moves {
                write!(f, "{n}/")?;
            }
            f.write_str(&fmt_secs(p.time_ms))?;
            match p.bonus {
                Bonus::None => {}
                Bonus::Increment(i) => write!(f, "+{}", fmt_secs(i))?,
                Bonus::UsDelay(d) => write!(f, "d{}", fmt_secs(d))?,
                Bonus::Bronstein(d) => write!(f, "b{}", fmt_secs(d))?,
            }
        }
        Ok(())
    }
}

/// The most a clock's display shows, seconds: 9:59:59 (the DGT 3000 and
/// the built-in clock's LCD).
pub const MAX_DISPLAY_S: u64 = 9 * 3600 + 59 * 60 + 59;

/// Hours, minutes (0–59) and seconds (0–59) of `secs` seconds.
pub fn split_hms(secs: u64) -> (u64, u64, u64) {
    (secs / 3600, secs / 60 % 60, secs % 60)
}

/// `H:MM:SS` of `ms` milliseconds, truncated to whole seconds as a clock
/// shows them and PGN's `[%clk]` writes them: `5_428_100` → `1:30:28`,
/// `59_999` → `0:00:59`. Hours are neither padded nor capped. The one
/// formatter of clock times (PGN, the clock devices, the terminal view).
pub fn fmt_hms(ms: u64) -> String {
    let (h, m, s) = split_hms(ms / 1000);
    format!("{h}:{m:02}:{s:02}")
}

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
}

impl Clock {
    /// A clock set to the time control's first period, stopped.
    pub fn new(tc: TimeControl) -> Clock {
        let base = tc.periods[0].time_ms as i64;
        Clock {
            tc,
            remaining: [base, base],
            moves_done: [0, 0],
            running: None,
            since: 0,
            flagged: [false, false],
        }
    }

    /// The time control.
    pub fn time_control(&self) -> &TimeControl {
        &self.tc
    }

    /// Starts `side`'s clock at `t` (§6.5: White's at the start of the round).
    pub fn start(&mut self, side: Color, t: u64) {
        self.running = Some(side);
        self.since = t;
    }

    /// Stops both clocks at `t` (game over, arbiter pause); the running
    /// side is charged the time used.
    pub fn stop(&mut self, t: u64) {
        if let Some(side) = self.running {
            let used = self.charge(side, t);
            self.remaining[idx(side)] -= used as i64;
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

    /// Time charged to the running `side` for the span `since..t` (US delay subtracted).
    fn charge(&self, side: Color, t: u64) -> u64 {
        let elapsed = t.saturating_sub(self.since);
        match self.delay_of(side) {
            Bonus::UsDelay(d) => elapsed.saturating_sub(d),
            _ => elapsed,
        }
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
        let delay = match self.delay_of(side) {
            Bonus::UsDelay(d) => d,
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
    pub fn press(&mut self, side: Color, t: u64) {
        let i = idx(side);
        let used = if self.running == Some(side) {
            self.charge(side, t)
        } else {
            0
        };
        let elapsed = if self.running == Some(side) {
            t.saturating_sub(self.since)
        } else {
            0
        };
        let (pi, period) = self.tc.period_for(self.moves_done[i]);
        let bonus = period.bonus;
        self.remaining[i] -= used as i64;
        match bonus {
            Bonus::Increment(inc) => self.remaining[i] += inc as i64,
            Bonus::Bronstein(d) => self.remaining[i] += elapsed.min(d) as i64,
            Bonus::UsDelay(_) | Bonus::None => {}
        }
        self.moves_done[i] += 1;
        let (next, next_period) = self.tc.period_for(self.moves_done[i]);
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

    /// Sets both players' remaining times at `t` (the arbiter, §6.10b / §6.13), ms;
    /// the running side keeps running from `t`.
    pub fn set(&mut self, white_ms: u64, black_ms: u64, t: u64) {
        self.remaining = [white_ms as i64, black_ms as i64];
        self.since = t;
        self.flagged = [false, false];
    }

    /// Adds (or with a negative value removes) time for `side`, ms (§6.13, penalties).
    pub fn adjust(&mut self, side: Color, delta_ms: i64) {
        self.remaining[idx(side)] += delta_ms;
        if self.remaining[idx(side)] > 0 {
            self.flagged[idx(side)] = false;
        }
    }

    /// Moves completed by `side` as the clock counts them.
    pub fn moves_done(&self, side: Color) -> u32 {
        self.moves_done[idx(side)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hms_text() {
        assert_eq!(fmt_hms(5_428_100), "1:30:28");
        assert_eq!(fmt_hms(59_999), "0:00:59");
        assert_eq!(fmt_hms(0), "0:00:00");
        assert_eq!(fmt_hms(36_000_000 + 61_000), "10:01:01", "hours not capped");
        assert_eq!(split_hms(MAX_DISPLAY_S), (9, 59, 59));
        assert_eq!(split_hms(3_599), (0, 59, 59));
    }

    #[test]
    fn parses_and_prints_fide_controls() {
        for s in [
            "5400+30",
            "40/5400+30:1800+30",
            "40/6000+30:20/3000+30:900+30",
            "40/7200:20/3600:900+30",
            "300d5",
            "600b3",
            "180+0.5",
        ] {
            let tc = TimeControl::parse(s).unwrap();
            assert_eq!(tc.to_string(), s);
        }
        assert_eq!(
            TimeControl::parse("40/5400+30:1800+30").unwrap().periods[1],
            Period {
                moves: None,
                time_ms: 1_800_000,
                bonus: Bonus::Increment(30_000)
            }
        );
        for bad in ["", "abc", "0/300", "300:40/60", "5400+x", "40/"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn contract_example_increment_from_move_one() {
        let mut c = Clock::new(TimeControl::parse("5400+30").unwrap());
        c.start(Color::White, 0);
        c.press(Color::White, 1900);
        assert_eq!(c.remaining_at(1900), (5_428_100, 5_400_000));
        assert_eq!(c.running(), Some(Color::Black));
    }

    #[test]
    fn danish_championship_control_adds_periods_at_moves_40_and_60() {
        let mut c = Clock::new(TimeControl::parse("40/6000+30:20/3000+30:900+30").unwrap());
        c.start(Color::White, 0);
        let mut t = 0;
        for mv in 1..=61u64 {
            t += 10_000;
            c.press(Color::White, t);
            t += 10_000;
            c.press(Color::Black, t);
            let (w, b) = c.remaining_at(t);
            let mut expect = 6_000_000i64 + 20_000 * mv as i64;
            if mv >= 40 {
                expect += 3_000_000;
            }
            if mv >= 60 {
                expect += 900_000;
            }
            assert_eq!(w as i64, expect, "white after move {mv}");
            assert_eq!(b as i64, expect, "black after move {mv}");
        }
    }

    #[test]
    fn delays() {
        let mut us = Clock::new(TimeControl::parse("300d5").unwrap());
        us.start(Color::White, 0);
        assert_eq!(us.remaining_at(4_000).0, 300_000);
        us.press(Color::White, 8_000);
        assert_eq!(us.remaining_at(8_000).0, 297_000);
        let mut br = Clock::new(TimeControl::parse("300b5").unwrap());
        br.start(Color::White, 0);
        br.press(Color::White, 3_000);
        assert_eq!(br.remaining_at(3_000).0, 300_000);
        br.press(Color::Black, 11_000);
        assert_eq!(br.remaining_at(11_000).1, 297_000);
    }

    #[test]
    fn flag_time_is_exact() {
        let mut c = Clock::new(TimeControl::parse("60+1").unwrap());
        c.start(Color::White, 0);
        c.press(Color::White, 10_000);
        assert_eq!(c.flag_time(), Some((Color::Black, 70_000)));
        let mut d = Clock::new(TimeControl::parse("60d5").unwrap());
        d.start(Color::White, 1_000);
        assert_eq!(d.flag_time(), Some((Color::White, 66_000)));
    }
}
