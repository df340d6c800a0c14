//! Time controls and the chess clock engine (§6), on injected time.
//!
//! Length: the time-control grammar and the engine it drives are read
//! together (periods, increments, delays); a third of the file is tests.
//!
//! Times are milliseconds. The engine never reads a clock: every call takes
//! `t`, the trace time (replay) or monotonic time since the round started
//! (daemon). White's clock starts at the start of the trace (§6.5).

pub mod builtin;
pub mod device;
pub mod dgt;
pub mod dgtpi;
pub mod open;
pub mod simulated;

use crate::model::MAX_CLOCK_MS;
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

/// When a Fischer increment is credited: the two conventions in use.
///
/// Sources and measurements: `docs/clock.md`. Delays (`dN`, `bN`) are the
/// same under both: no delay is credited before move 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClockStart {
    /// Over the board, as FIDE events run their clocks (DGT 2010/3000 in
    /// Fischer mode; the FIDE Laws' glossary: the increment is added "from
    /// the start" before each move): the clock shows base + increment
    /// before move 1, and each press credits the increment for the
    /// player's next move. `900+10` shows 0:15:10 at the start and 0:15:18
    /// after a 2-second first move. The default.
    #[default]
    BasePlusIncrement,
    /// Online servers (lichess): the clock starts at the base and each press
    /// credits the increment of the move just completed. `900+10` shows
    /// 0:15:00 at the start and 0:15:08 after a 2-second first move.
    /// Written `@base` after the periods (`180+2@base`).
    Base,
}

impl ClockStart {
    /// The suffix word after `@` (`base`, `base+inc`).
    pub fn as_str(self) -> &'static str {
        match self {
            ClockStart::BasePlusIncrement => "base+inc",
            ClockStart::Base => "base",
        }
    }
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
/// `40/6000+30:20/3000+30:900+30`), and when the increment is credited
/// (an optional `@base` / `@base+inc` suffix, [`ClockStart`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeControl {
    /// The periods in order; the last one repeats when it has a move count.
    pub periods: Vec<Period>,
    /// When the increment is credited; over-the-board (base + increment at
    /// the start) unless the text ends in `@base`.
    pub start: ClockStart,
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

/// The most moves a period may count (`40/5400`): far above any control
/// of the Laws, low enough that period arithmetic cannot overflow.
pub const MAX_PERIOD_MOVES: u32 = 1000;

impl TimeControl {
    /// Parses `[moves/]seconds[+inc|dN|bN]` periods joined by `:`, then
    /// optionally `@base` (online style: the clock starts at the base) or
    /// `@base+inc` (over the board, the default: the clock starts at base +
    /// increment; [`ClockStart`]). Seconds may carry a fraction (`0.5`); the
    /// result is exact in ms.
    pub fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        let bad = |message: String| TimeControlError {
            text: text.to_owned(),
            message,
        };
        let (text_periods, start) = match text.trim().split_once('@') {
            None => (text.trim(), ClockStart::default()),
            Some((p, word)) => {
                let start = match word.trim() {
                    "base" => ClockStart::Base,
                    "base+inc" => ClockStart::BasePlusIncrement,
                    other => {
                        return Err(bad(format!(
                            "clock start \"@{other}\" is not \"@base\" (online style) or \"@base+inc\" (over the board)"
                        )))
                    }
                };
                (p.trim(), start)
            }
        };
        let secs = |s: &str, what: &str| -> Result<u64, TimeControlError> {
            let ms = parse_seconds_ms(s)
                .ok_or_else(|| bad(format!("{what} \"{s}\" is not a number of seconds")))?;
            if ms > MAX_CLOCK_MS {
                return Err(bad(format!(
                    "{what} \"{s}\" is more than a clock can give ({} s, 24 h)",
                    MAX_CLOCK_MS / 1000
                )));
            }
            Ok(ms)
        };
        let mut periods = Vec::new();
        let parts: Vec<&str> = text_periods.split(':').collect();
        for (i, part) in parts.iter().enumerate() {
            let part = part.trim();
            let (moves, rest) = match part.split_once('/') {
                Some((m, r)) => {
                    let n: u32 = m
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_PERIOD_MOVES).contains(n))
                        .ok_or_else(|| {
                            bad(format!(
                                "period {}: move count \"{m}\" is not a whole number from 1 to {MAX_PERIOD_MOVES}",
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
        Ok(TimeControl { periods, start })
    }

    /// Reads a PGN `TimeControl` tag: the standard form [`TimeControl::parse`]
    /// reads, or the prose FIDE broadcasts write for one period with an
    /// increment, e.g. `15 min. + 10 s. per move` or `15 minutes + 10 seconds
    /// increment per move, starting from move 1` (FIDE Women's World Rapid
    /// 2024), also `90 min + 30 sec`. Minutes or hours, then seconds; the
    /// increment must run from move 1. The result has the default
    /// [`ClockStart`]. Errors: the tag read neither way.
    pub fn from_pgn_tag(tag: &str) -> Result<TimeControl, TimeControlError> {
        let strict = match TimeControl::parse(tag) {
            Ok(tc) => return Ok(tc),
            Err(e) => e,
        };
        parse_prose(tag).ok_or(strict)
    }

    /// The time control with the other [`ClockStart`].
    pub fn with_start(mut self, start: ClockStart) -> TimeControl {
        self.start = start;
        self
    }

    /// The PGN `TimeControl` tag: the periods only, without the `@` suffix
    /// (`40/5400+30:1800+30`; lichess writes `180+2` for its online style).
    pub fn pgn_tag(&self) -> String {
        self.clone().with_start(ClockStart::default()).to_string()
    }

    /// The increment credited before move 1: the first period's Fischer
    /// increment over the board ([`ClockStart::BasePlusIncrement`]), else 0
    /// (online style, and delays under both conventions), ms.
    pub fn start_credit_ms(&self) -> u64 {
        match (self.start, self.periods[0].bonus) {
            (ClockStart::BasePlusIncrement, Bonus::Increment(i)) => i,
            _ => 0,
        }
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

/// `N min[utes|.] + M s[ec|econds|.] [increment] [per move][, starting] [from move 1]`
/// (also `h`/`hours` for the base): the base and increment in ms.
fn parse_prose(tag: &str) -> Option<TimeControl> {
    let text = tag.to_ascii_lowercase().replace(',', " ");
    let (base, rest) = text.split_once('+')?;
    let amount = |s: &str, units: &[(&str, u64)]| -> Option<u64> {
        let s = s.trim();
        let end = s
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(s.len());
        let (num, unit) = s.split_at(end);
        let unit = unit.trim().trim_end_matches('.');
        let scale = units.iter().find(|(u, _)| *u == unit)?.1;
        parse_seconds_ms(num)?.checked_mul(scale)
    };
    let base_ms = amount(
        base,
        &[
            ("min", 60),
            ("mins", 60),
            ("minute", 60),
            ("minutes", 60),
            ("h", 3600),
            ("hour", 3600),
            ("hours", 3600),
        ],
    )?;
    let mut words = rest.split_whitespace();
    let first = words.next()?;
    // "10 s" or "10s": the number, then its unit.
    let (num_unit, tail): (String, Vec<&str>) = if first.ends_with(|c: char| c.is_ascii_digit()) {
        let unit = words.next()?;
        (format!("{first}{unit}"), words.collect())
    } else {
        (first.to_owned(), words.collect())
    };
    let inc_ms = amount(
        &num_unit,
        &[
            ("s", 1),
            ("sec", 1),
            ("secs", 1),
            ("second", 1),
            ("seconds", 1),
        ],
    )?;
    // What may follow: "increment", "per move", "starting from move 1".
    let mut i = 0;
    while i < tail.len() {
        match tail[i] {
            "increment" | "per" | "move" | "starting" | "from" | "bonus" => {}
            "1" if i > 0 && tail[i - 1] == "move" => {}
            _ => return None,
        }
        i += 1;
    }
    if base_ms == 0 {
        return None;
    }
    Some(TimeControl {
        periods: vec![Period {
            moves: None,
            time_ms: base_ms,
            bonus: Bonus::Increment(inc_ms),
        }],
        start: ClockStart::default(),
    })
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
    /// The time control as [`TimeControl::parse`] reads it: the periods as
    /// FIDE events write them (`40/5400+30:1800+30`), then `@base` for the
    /// online style (nothing for the default). [`TimeControl::pgn_tag`] is
    /// the PGN tag.
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
        if self.start != ClockStart::default() {
            write!(f, "@{}", self.start.as_str())?;
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

/// `H:MM:SS` of `ms` milliseconds as a clock *shows* them after a press:
/// rounded up to whole seconds (a clock shows 0:00:00 only when the time is
/// up), as eboard's DGT 3000 driver and built-in LCD show them and as DGT
/// clocks do in FIDE broadcasts (docs/clock.md): `5_458_100` → `1:30:59`,
/// `0` → `0:00:00`. PGN's `[%clk]` is written with it.
pub fn fmt_shown(ms: u64) -> String {
    fmt_hms(ms.div_ceil(1000) * 1000)
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
            t.saturating_sub(self.since)
        } else {
            0
        };
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
            Bonus::Bronstein(d) => self.remaining[i] += elapsed.min(d) as i64,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_past_any_clock_are_errors_not_wrapping_arithmetic() {
        for (text, part) in [
            ("99999999999999999+0", "base time"),
            ("5400+86401", "increment"),
            ("4294967295/5400:1800", "move count"),
            ("0/5400:1800", "move count"),
        ] {
            let e = TimeControl::parse(text).unwrap_err();
            assert!(e.to_string().contains(part), "{text}: {e}");
        }
        assert!(TimeControl::parse("1000/86400+30:1800").is_ok());
    }

    #[test]
    fn hms_text() {
        assert_eq!(fmt_hms(5_428_100), "1:30:28");
        assert_eq!(fmt_hms(59_999), "0:00:59");
        assert_eq!(fmt_hms(0), "0:00:00");
        assert_eq!(fmt_hms(36_000_000 + 61_000), "10:01:01", "hours not capped");
        assert_eq!(split_hms(MAX_DISPLAY_S), (9, 59, 59));
        assert_eq!(split_hms(3_599), (0, 59, 59));
        assert_eq!(fmt_shown(5_458_100), "1:30:59");
        assert_eq!(fmt_shown(5_458_000), "1:30:58");
        assert_eq!(fmt_shown(1), "0:00:01");
        assert_eq!(fmt_shown(0), "0:00:00");
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
    fn reads_the_prose_of_fide_broadcast_tags() {
        for (tag, want) in [
            ("15 min. + 10 s. per move", "900+10"),
            (
                "15 minutes + 10 seconds increment per move, starting from move 1",
                "900+10",
            ),
            ("90 min + 30 sec", "5400+30"),
            ("1 h + 30 s per move from move 1", "3600+30"),
            ("180+2", "180+2"),
            ("40/7200:20/3600:900+30", "40/7200:20/3600:900+30"),
        ] {
            assert_eq!(
                TimeControl::from_pgn_tag(tag).unwrap().to_string(),
                want,
                "{tag}"
            );
        }
        for bad in [
            "15 min + 10 s from move 41",
            "15 minutes",
            "15 parsecs + 10 s",
            "-",
            "?",
        ] {
            assert!(TimeControl::from_pgn_tag(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn clock_start_suffix() {
        let otb = TimeControl::parse("900+10").unwrap();
        assert_eq!(otb.start, ClockStart::BasePlusIncrement);
        assert_eq!(TimeControl::parse("900+10@base+inc").unwrap(), otb);
        let online = TimeControl::parse("900+10@base").unwrap();
        assert_eq!(online.start, ClockStart::Base);
        assert_eq!(online.periods, otb.periods);
        for s in ["900+10@base", "40/5400+30:1800+30@base", "300d5@base"] {
            assert_eq!(TimeControl::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(
            TimeControl::parse("900+10@base+inc").unwrap().to_string(),
            "900+10"
        );
        assert_eq!(online.pgn_tag(), "900+10");
        for bad in ["900+10@", "900+10@online", "@base", "900+10@base@base"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
        let e = TimeControl::parse("900+10@fide").unwrap_err().to_string();
        assert!(e.contains("@fide") && e.contains("@base"), "{e}");
    }

    /// The example: "15 min + 10 s from move 1" shows 0:15:10 before
    /// the first move and 0:15:18 after a 2-second first move (FWWRC 2024
    /// broadcasts); online, 0:15:00 and 0:15:08.
    #[test]
    fn over_the_board_starts_with_the_increment() {
        let mut c = Clock::new(TimeControl::parse("900+10").unwrap());
        c.start(Color::White, 0);
        assert_eq!(c.remaining_at(0), (910_000, 910_000));
        c.press(Color::White, 2_000);
        assert_eq!(c.remaining_at(2_000), (918_000, 910_000));
        let mut o = Clock::new(TimeControl::parse("900+10@base").unwrap());
        o.start(Color::White, 0);
        assert_eq!(o.remaining_at(0), (900_000, 900_000));
        o.press(Color::White, 2_000);
        assert_eq!(o.remaining_at(2_000), (908_000, 900_000));
    }

    #[test]
    fn contract_example_increment_from_move_one() {
        // Online style: the contract's example numbers.
        let mut c = Clock::new(TimeControl::parse("5400+30@base").unwrap());
        c.start(Color::White, 0);
        c.press(Color::White, 1900);
        assert_eq!(c.remaining_at(1900), (5_428_100, 5_400_000));
        assert_eq!(c.running(), Some(Color::Black));
        // Over the board: one increment more on each side, all game.
        let mut c = Clock::new(TimeControl::parse("5400+30").unwrap());
        c.start(Color::White, 0);
        c.press(Color::White, 1900);
        assert_eq!(c.remaining_at(1900), (5_458_100, 5_430_000));
        assert_eq!(c.running(), Some(Color::Black));
    }

    #[test]
    fn danish_championship_control_adds_periods_at_moves_40_and_60() {
        for (text, first) in [
            ("40/6000+30:20/3000+30:900+30@base", 0),
            ("40/6000+30:20/3000+30:900+30", 30_000),
        ] {
            let mut c = Clock::new(TimeControl::parse(text).unwrap());
            c.start(Color::White, 0);
            let mut t = 0;
            for mv in 1..=61u64 {
                t += 10_000;
                c.press(Color::White, t);
                t += 10_000;
                c.press(Color::Black, t);
                let (w, b) = c.remaining_at(t);
                let mut expect = 6_000_000i64 + first + 20_000 * mv as i64;
                if mv >= 40 {
                    expect += 3_000_000;
                }
                if mv >= 60 {
                    expect += 900_000;
                }
                assert_eq!(w as i64, expect, "{text}: white after move {mv}");
                assert_eq!(b as i64, expect, "{text}: black after move {mv}");
            }
        }
    }

    /// "40/7200:20/3600:900+30" (World Championship 2023: +30 s from move
    /// 61): over the board the increment for move 61 comes with the third
    /// period's time at the press of move 60; online after move 61.
    #[test]
    fn increment_from_a_later_period() {
        for (text, at_start, after_60, after_61) in [
            (
                "40/7200:20/3600:900+30",
                7_200_000,
                900_000 + 30_000,
                30_000,
            ),
            ("40/7200:20/3600:900+30@base", 7_200_000, 900_000, 30_000),
        ] {
            let mut c = Clock::new(TimeControl::parse(text).unwrap());
            c.start(Color::White, 0);
            assert_eq!(c.remaining_at(0).0, at_start, "{text}");
            let mut t = 0;
            let mut w_before = 0;
            for mv in 1..=61u64 {
                w_before = c.remaining_at(t).0 as i64;
                t += 10_000;
                c.press(Color::White, t);
                let w = c.remaining_at(t).0 as i64;
                let gain = w - w_before + 10_000;
                match mv {
                    40 => assert_eq!(gain, 3_600_000, "{text}"),
                    60 => assert_eq!(gain, after_60, "{text}"),
                    61 => assert_eq!(gain, after_61, "{text}"),
                    _ => assert_eq!(gain, 0, "{text}: move {mv}"),
                }
                t += 10_000;
                c.press(Color::Black, t);
            }
            let _ = w_before;
        }
    }

    #[test]
    fn delays() {
        // No delay is credited before move 1 under either convention.
        for text in ["300d5", "300b5", "300d5@base", "300b5@base"] {
            let c = Clock::new(TimeControl::parse(text).unwrap());
            assert_eq!(c.remaining_at(0), (300_000, 300_000), "{text}");
        }
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
        let mut c = Clock::new(TimeControl::parse("60+1@base").unwrap());
        c.start(Color::White, 0);
        c.press(Color::White, 10_000);
        assert_eq!(c.flag_time(), Some((Color::Black, 70_000)));
        let mut c = Clock::new(TimeControl::parse("60+1").unwrap());
        c.start(Color::White, 0);
        assert_eq!(c.flag_time(), Some((Color::White, 61_000)));
        c.press(Color::White, 10_000);
        assert_eq!(c.flag_time(), Some((Color::Black, 71_000)));
        let mut d = Clock::new(TimeControl::parse("60d5").unwrap());
        d.start(Color::White, 1_000);
        assert_eq!(d.flag_time(), Some((Color::White, 66_000)));
    }
}
