//! The event's time zone (`[event] time_zone`, issue 40 §9): one zone for
//! every wall time the arbiter reads — the console's alerts, acknowledgements
//! and rulings, and the round report. An IANA name of the tz database
//! (`Europe/Copenhagen`), its rules (CET/CEST and the change between them)
//! from the system's tz database (`/usr/share/zoneinfo`, the Debian package
//! `tzdata`, which the .deb depends on) through the `jiff` crate. Absent:
//! the machine's local zone (`TZ`, else `/etc/localtime`), and UTC when
//! there is none.

use jiff::tz::{Offset, TimeZone};
use jiff::Timestamp;

/// The zone wall times are written in, with the name the arbiter reads.
#[derive(Debug, Clone, PartialEq)]
pub struct EventZone {
    tz: TimeZone,
    /// The IANA name (`Europe/Copenhagen`), `UTC`, or a fixed offset
    /// (`UTC+01:00`).
    name: String,
    /// The name a browser's `Intl.DateTimeFormat` takes as `timeZone`
    /// (an IANA name, `UTC`, or an offset `+01:00`); `None` for a system
    /// zone without an IANA name (a TZif file, a POSIX `TZ` rule).
    iana: Option<String>,
}

impl Default for EventZone {
    fn default() -> Self {
        EventZone::utc()
    }
}

impl EventZone {
    /// UTC.
    pub fn utc() -> EventZone {
        EventZone {
            tz: TimeZone::UTC,
            name: "UTC".into(),
            iana: Some("UTC".into()),
        }
    }

    /// The zone of IANA name `name` (`Europe/Copenhagen`), from the
    /// system's tz database; the error says what is wrong with `name`.
    pub fn named(name: &str) -> Result<EventZone, String> {
        let n = name.trim();
        if n.is_empty() {
            return Err("an IANA time zone name such as \"Europe/Copenhagen\"".into());
        }
        let tz = TimeZone::get(n).map_err(|e| {
            format!(
                "\"{name}\" is not a time zone of the tz database (/usr/share/zoneinfo, \
                 package tzdata): write an IANA name such as \"Europe/Copenhagen\" ({e})"
            )
        })?;
        let canonical = tz.iana_name().unwrap_or(n).to_owned();
        Ok(EventZone {
            tz,
            name: canonical.clone(),
            iana: Some(canonical),
        })
    }

    /// The machine's local zone (`TZ`, else `/etc/localtime`); UTC when
    /// there is none.
    pub fn system() -> EventZone {
        match TimeZone::try_system() {
            Ok(tz) => {
                let iana = tz.iana_name().map(str::to_owned);
                let name = iana.clone().unwrap_or_else(|| "local time".into());
                EventZone { tz, name, iana }
            }
            Err(e) => {
                tracing::warn!("no local time zone ({e}): times are shown in UTC");
                EventZone::utc()
            }
        }
    }

    /// A fixed offset, `offset_min` minutes east of UTC (the report's
    /// `?tz=+01:00`); 0 is UTC.
    pub fn fixed(offset_min: i32) -> EventZone {
        if offset_min == 0 {
            return EventZone::utc();
        }
        let off = Offset::from_seconds(offset_min * 60).unwrap_or(Offset::UTC);
        EventZone {
            tz: TimeZone::fixed(off),
            name: format!("UTC{}", offset_text(offset_min)),
            iana: Some(offset_text(offset_min)),
        }
    }

    /// The zone's name: `Europe/Copenhagen`, `UTC`, `UTC+01:00`, or
    /// `local time` (a system zone without an IANA name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name a browser's `Intl.DateTimeFormat` takes (`timeZone`), if any.
    pub fn browser_name(&self) -> Option<&str> {
        self.iana.as_deref()
    }

    fn at(&self, unix_ms: u64) -> jiff::civil::DateTime {
        let ts = Timestamp::from_millisecond(unix_ms.min(i64::MAX as u64) as i64)
            .unwrap_or(Timestamp::MAX);
        self.tz.to_offset(ts).to_datetime(ts)
    }

    /// Minutes east of UTC at Unix ms `unix_ms` (+60 in CET, +120 in CEST).
    pub fn offset_min(&self, unix_ms: u64) -> i32 {
        let ts = Timestamp::from_millisecond(unix_ms.min(i64::MAX as u64) as i64)
            .unwrap_or(Timestamp::MAX);
        self.tz.to_offset(ts).seconds() / 60
    }

    /// Unix ms as the wall time, `YYYY-MM-DD HH:MM:SS` (24-hour).
    pub fn wall(&self, unix_ms: u64) -> String {
        self.at(unix_ms).strftime("%Y-%m-%d %H:%M:%S").to_string()
    }

    /// Unix ms as the wall clock's time, `HH:MM:SS` (24-hour).
    pub fn time(&self, unix_ms: u64) -> String {
        self.at(unix_ms).strftime("%H:%M:%S").to_string()
    }

    /// Unix ms as the date there, `YYYY.MM.DD` (PGN, TRF-16's dates).
    pub fn date(&self, unix_ms: u64) -> String {
        self.at(unix_ms).strftime("%Y.%m.%d").to_string()
    }

    /// The zone's abbreviation at Unix ms `unix_ms` (`CEST`, `CET`), or
    /// its offset where it has none (`UTC+01:00`, `UTC`).
    pub fn abbreviation(&self, unix_ms: u64) -> String {
        let n = self.offset_name(unix_ms);
        match n.split_once(" (") {
            Some((abbr, _)) => abbr.to_owned(),
            None => n,
        }
    }

    /// Unix ms as the wall time with the abbreviation in force, which
    /// tells the hour repeated at the autumn change apart:
    /// `2026-10-25 02:30:00 CEST`, `2026-10-25 02:30:00 CET`.
    pub fn stamp(&self, unix_ms: u64) -> String {
        format!("{} {}", self.wall(unix_ms), self.abbreviation(unix_ms))
    }

    /// The offset in force at Unix ms `unix_ms`, named: `CET (UTC+01:00)`,
    /// `CEST (UTC+02:00)`, `UTC`; a fixed offset as `UTC+01:00`.
    pub fn offset_name(&self, unix_ms: u64) -> String {
        let ts = Timestamp::from_millisecond(unix_ms.min(i64::MAX as u64) as i64)
            .unwrap_or(Timestamp::MAX);
        let info = self.tz.to_offset_info(ts);
        let min = info.offset().seconds() / 60;
        let abbr = info.abbreviation();
        let utc = if min == 0 {
            "UTC".to_owned()
        } else {
            format!("UTC{}", offset_text(min))
        };
        // A fixed offset's "abbreviation" is the offset itself; tzdata
        // writes zones without a letter abbreviation as "+03".
        if abbr.is_empty()
            || abbr == "UTC"
            || abbr.starts_with('+')
            || abbr.starts_with('-')
            || abbr.starts_with("UTC")
        {
            utc
        } else {
            format!("{abbr} ({utc})")
        }
    }
}

/// `+01:00`, `-05:30`: `min` minutes east of UTC as an offset.
pub fn offset_text(min: i32) -> String {
    let a = min.abs();
    format!(
        "{}{:02}:{:02}",
        if min < 0 { '-' } else { '+' },
        a / 60,
        a % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-10-25 01:00 UTC is 03:00 CEST → 02:00 CET (the last Sunday of
    /// October): the wall times before and after in Copenhagen.
    #[test]
    fn copenhagen_across_the_october_change() {
        let z = EventZone::named("Europe/Copenhagen").unwrap();
        assert_eq!(z.name(), "Europe/Copenhagen");
        let change = 1_792_890_000_000u64; // 2026-10-25T01:00:00Z
        assert_eq!(z.wall(change - 1000), "2026-10-25 02:59:59");
        assert_eq!(z.offset_name(change - 1000), "CEST (UTC+02:00)");
        assert_eq!(z.wall(change), "2026-10-25 02:00:00");
        assert_eq!(z.offset_name(change), "CET (UTC+01:00)");
        assert_eq!(z.time(change + 3_600_000), "03:00:00");
        assert_eq!(z.date(change - 3 * 3_600_000 - 1), "2026.10.24");
        assert_eq!(z.date(change - 3 * 3_600_000), "2026.10.25");
        assert_eq!(z.offset_min(change), 60);
        // The hour 02:00-03:00 twice: the abbreviation tells them apart.
        assert_eq!(z.stamp(change - 1_800_000), "2026-10-25 02:30:00 CEST");
        assert_eq!(z.stamp(change + 1_800_000), "2026-10-25 02:30:00 CET");
    }

    #[test]
    fn a_bad_name_is_refused_with_an_example() {
        let e = EventZone::named("Europe/Kobenhavn").unwrap_err();
        assert!(e.contains("\"Europe/Kobenhavn\""), "{e}");
        assert!(e.contains("Europe/Copenhagen"), "{e}");
        assert!(EventZone::named("").is_err());
    }

    #[test]
    fn fixed_offsets_and_utc() {
        let z = EventZone::fixed(60);
        assert_eq!(z.name(), "UTC+01:00");
        assert_eq!(z.browser_name(), Some("+01:00"));
        assert_eq!(z.wall(0), "1970-01-01 01:00:00");
        assert_eq!(z.offset_name(0), "UTC+01:00");
        assert_eq!(EventZone::fixed(0).offset_name(0), "UTC");
        assert_eq!(EventZone::fixed(-330).name(), "UTC-05:30");
    }
}
