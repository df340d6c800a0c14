//! Time controls (§6.2, PGN `TimeControl` and the prose the seeds use):
//! periods, move counts, increments and delays, parsed and displayed. Times
//! are milliseconds.

use crate::model::MAX_CLOCK_MS;
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

impl Bonus {
    /// The bonus as it acts: an increment or delay of 0 (`+0`, `d0`, `b0`)
    /// adds nothing, so it is [`Bonus::None`]. 2023 Guidelines III.2.2
    /// ("games without increment") and III.4 ask whether time is added
    /// per move (the Glossary: the increment is time "added … before each
    /// move"), not how the control was written.
    pub fn in_effect(self) -> Bonus {
        match self {
            Bonus::Increment(0) | Bonus::UsDelay(0) | Bonus::Bronstein(0) => Bonus::None,
            b => b,
        }
    }
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
    /// The same control with the last period's bonus replaced by `bonus`
    /// (2023 Guidelines III.4: "an increment extra five seconds" introduced
    /// into the final period); the other periods unchanged.
    pub fn with_last_bonus(&self, bonus: Bonus) -> TimeControl {
        let mut tc = self.clone();
        if let Some(p) = tc.periods.last_mut() {
            p.bonus = bonus;
        }
        tc
    }

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

/// `H:MM:SS` of `ms` milliseconds as a chess clock shows them: the whole
/// seconds that remain, truncated (`4_638_900` → `1:17:18`, `59_999` →
/// `0:00:59`, `900` → `0:00:00`: a clock shows 0:00:00 for the last second
/// and its flag falls when 0:00:00.0 is reached). Hours are neither padded
/// nor capped. The one formatter of clock readouts for people and feeds:
/// PGN's `[%clk]` and `WhiteClock` / `BlackClock` ("the time displayed on
/// the player's clock", PGN supplement §4.2), the built-in clock's LCD,
/// the arbiter's rulings, the terminal view; the console's and the live
/// page's `clockFull` / `clockText` (`server/assets/clock-text.js`) agree
/// (docs/clock.md, "What a clock shows").
pub fn fmt_hms(ms: u64) -> String {
    let (h, m, s) = split_hms(ms / 1000);
    format!("{h}:{m:02}:{s:02}")
}
