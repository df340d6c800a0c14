//! The round report written out: wall and round times, the zone asked
//! for, and the CSV (the print-ready page: `html`).

use super::*;
use crate::event::results::csv_field;

/// Unix ms as `YYYY-MM-DD hh:mm:ss` at `offset_min` minutes east of UTC
/// (proleptic Gregorian; H. Hinnant's civil-from-days).
pub fn wall(unix_ms: u64, offset_min: i32) -> String {
    let s = (unix_ms / 1000) as i64 + i64::from(offset_min) * 60;
    let (days, secs) = (s.div_euclid(86_400), s.rem_euclid(86_400));
    let (y, m, d) = crate::config::instant::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Round time, ms, as `h:mm:ss`.
pub fn round_time(t: u64) -> String {
    let s = t / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60)
}

/// `+01:00`, `-05:30`, `Z`, `UTC` → minutes east of UTC. A leading space
/// is a `+`: typed in an address bar, `?tz=+01:00` reaches the server as
/// `" 01:00"` (a query's `+` decodes to a space).
pub fn parse_offset(tz: &str) -> Result<i32, String> {
    let bad = || format!("tz \"{tz}\": an offset from UTC such as +01:00, -05:30 or Z");
    let plus;
    let tz = match tz.strip_prefix(' ') {
        Some(rest) if !rest.trim().is_empty() => {
            plus = format!("+{}", rest.trim());
            plus.as_str()
        }
        _ => tz.trim(),
    };
    if tz.is_empty() || tz == "Z" || tz.eq_ignore_ascii_case("utc") {
        return Ok(0);
    }
    let (sign, rest) = match tz.as_bytes()[0] {
        b'+' => (1, &tz[1..]),
        b'-' => (-1, &tz[1..]),
        _ => return Err(bad()),
    };
    let (h, m) = rest.split_once(':').unwrap_or((rest, "0"));
    let h: i32 = h.parse().map_err(|_| bad())?;
    let m: i32 = m.parse().map_err(|_| bad())?;
    if h > 14 || m > 59 {
        return Err(bad());
    }
    Ok(sign * (h * 60 + m))
}

/// The report's `?tz=`: empty → `None` (the event's zone); an offset
/// (`+01:00`, `Z`: [`parse_offset`]) → that fixed offset; else an IANA
/// name (`Europe/Oslo`).
pub fn zone_param(tz: &str) -> Result<Option<EventZone>, String> {
    if tz.trim().is_empty() {
        return Ok(None);
    }
    match parse_offset(tz) {
        Ok(min) => Ok(Some(EventZone::fixed(min))),
        Err(_) if tz.trim().contains('/') => EventZone::named(tz.trim())
            .map(Some)
            .map_err(|n| format!("tz: {n}")),
        Err(e) => Err(format!(
            "{e}, or an IANA time zone name such as Europe/Copenhagen"
        )),
    }
}

/// The report's CSV header.
pub const CSV_HEADER: &str =
    "game,kind,what,who,wall_time,unix_ms,round_time,round_ms,article,detail,outcome";

/// The rows as CSV (RFC 4180: CRLF, quoted where needed; cells that a
/// spreadsheet would take as a formula are prefixed with `'`); wall times
/// in `zone` with the abbreviation in force (`2026-10-25 02:30:00 CET`).
pub fn to_csv(rows: &[Row], zone: &EventZone) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push_str("\r\n");
    for r in rows {
        let cells = [
            r.game.clone(),
            r.kind.to_owned(),
            r.what.clone(),
            r.who.clone(),
            zone.stamp(r.unix_ms),
            r.unix_ms.to_string(),
            r.t.map(round_time).unwrap_or_default(),
            r.t.map(|t| t.to_string()).unwrap_or_default(),
            r.article.clone(),
            r.detail.clone(),
            r.outcome.clone(),
        ];
        let line: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
        s.push_str(&line.join(","));
        s.push_str("\r\n");
    }
    s
}

pub(super) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}
