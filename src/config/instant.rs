//! A date and time as the config writes it: RFC 3339 with its offset
//! (`2026-11-26T15:00:00+01:00`, `2026-11-26T14:00:00Z`), read into Unix
//! ms. Used by `[event] session_start` (the round's scheduled start, from
//! which the default time of 2023 6.7.1 / 2009 §6.6a / DSU 004 §11
//! counts) and by a board's assignment (`session_start`, `docs/event.md`).
//!
//! The offset is required: a board's wall clock runs in UTC and a time
//! without its offset would be read in whatever zone the board was set up
//! with. Leap seconds (`:60`) are refused; fractions of a second are read
//! to the ms.

/// Unix ms of `s`, an RFC 3339 date and time with its offset (`T`, `t` or
/// one space between date and time; `Z` or `±hh:mm`), years 1970 to 9999.
/// Errors say what is wrong and give an example.
pub fn parse_rfc3339(s: &str) -> Result<i64, String> {
    const EXAMPLE: &str = "e.g. \"2026-11-26T15:00:00+01:00\" (RFC 3339, with the offset)";
    let bad = |why: &str| Err(format!("\"{s}\": {why}; {EXAMPLE}"));
    let b = s.trim().as_bytes();
    if b.len() < 19 || !b.is_ascii() {
        return bad("not a date and time with its offset");
    }
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(part).ok()?.parse().ok())?
    };
    let (Some(year), Some(month), Some(day), Some(hour), Some(min), Some(sec)) = (
        num(0, 4),
        num(5, 2),
        num(8, 2),
        num(11, 2),
        num(14, 2),
        num(17, 2),
    ) else {
        return bad("write it as YYYY-MM-DDThh:mm:ss and the offset");
    };
    if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return bad("write the date as YYYY-MM-DD, then T, then the time");
    }
    if b[13] != b':' || b[16] != b':' {
        return bad("write the time as hh:mm:ss");
    }
    if !(1970..=9999).contains(&year) {
        return bad("the year must be 1970 to 9999");
    }
    if !(1..=12).contains(&month) {
        return bad("the month must be 01 to 12");
    }
    if day < 1 || day > days_in_month(year, month) {
        return bad("no such day in that month");
    }
    if hour > 23 || min > 59 || sec > 59 {
        return bad("the time must be 00:00:00 to 23:59:59 (no leap second)");
    }
    // Fractions of a second, read to the ms.
    let mut at = 19;
    let mut frac_ms = 0i64;
    if b.get(at) == Some(&b'.') {
        at += 1;
        let digits = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return bad("a '.' after the seconds needs digits");
        }
        for (i, d) in b[at..at + digits].iter().take(3).enumerate() {
            frac_ms += i64::from(d - b'0') * [100, 10, 1][i];
        }
        at += digits;
    }
    let offset_min = match &b[at..] {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), ..] if b.len() == at + 6 && b[at + 3] == b':' => {
            let (Some(h), Some(m)) = (num(at + 1, 2), num(at + 4, 2)) else {
                return bad("write the offset as +hh:mm, -hh:mm or Z");
            };
            if h > 23 || m > 59 {
                return bad("the offset must be -23:59 to +23:59");
            }
            let o = h * 60 + m;
            if *sign == b'-' {
                -o
            } else {
                o
            }
        }
        [] => return bad("the offset is missing (Z or +hh:mm): the board's clock runs in UTC"),
        _ => return bad("write the offset as +hh:mm, -hh:mm or Z"),
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + min * 60 + sec - offset_min * 60;
    Ok(secs * 1000 + frac_ms)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date of the proleptic Gregorian calendar
/// (H. Hinnant's `days_from_civil`, the inverse of [`civil_from_days`]);
/// also the HTTP dates of `server::feeds`.
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month 1–12, day 1–31, proleptic Gregorian) of a
/// day counted from 1970-01-01 (H. Hinnant's `civil_from_days`); the
/// inverse of [`days_from_civil`]. Also the HTTP dates and the round
/// report's wall times.
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::parse_rfc3339;

    #[test]
    fn a_scheduled_start_is_read_with_its_offset() {
        // 2026-11-26 14:00 UTC = 1795701600 s (date -u -d @1795701600).
        let utc = 1_795_701_600_000;
        assert_eq!(parse_rfc3339("2026-11-26T15:00:00+01:00"), Ok(utc));
        assert_eq!(parse_rfc3339("2026-11-26T14:00:00Z"), Ok(utc));
        assert_eq!(parse_rfc3339("2026-11-26 09:00:00-05:00"), Ok(utc));
        assert_eq!(parse_rfc3339("2026-11-26T14:00:00.250Z"), Ok(utc + 250));
        assert_eq!(parse_rfc3339("2024-02-29T00:00:00Z"), Ok(1_709_164_800_000));
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Ok(0));
    }

    #[test]
    fn a_bad_time_is_refused_with_what_is_wrong() {
        for (s, why) in [
            ("2026-11-26T15:00:00", "the offset is missing"),
            ("2026-11-26", "not a date and time"),
            ("26.11.2026 15:00:00+01:00", "YYYY-MM-DD"),
            ("2026-13-01T15:00:00+01:00", "month"),
            ("2025-02-29T15:00:00+01:00", "no such day"),
            ("2026-11-26T24:00:00+01:00", "23:59:59"),
            ("2026-11-26T15:00:60Z", "leap second"),
            ("2026-11-26T15:00:00+0100", "+hh:mm"),
            ("2026-11-26T15:00:00+25:00", "-23:59"),
            ("2026-11-26T15:00:00.Z", "needs digits"),
            ("2026-11-26T15:00:00+01:00x", "+hh:mm"),
            ("2026-11-26T15:ØØ:00+01:00", "not a date"),
        ] {
            let e = parse_rfc3339(s).unwrap_err();
            assert!(
                e.contains(why) && e.contains("2026-11-26T15:00:00+01:00"),
                "{s}: {e}"
            );
        }
    }
}
