//! The round report written out: wall and round times, the CSV and the print-ready page.

use super::*;
use crate::event::results::{csv_field, GameResult};

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

pub(super) fn offset_name(min: i32) -> String {
    if min == 0 {
        "UTC".into()
    } else {
        let a = min.abs();
        format!(
            "UTC{}{:02}:{:02}",
            if min < 0 { '-' } else { '+' },
            a / 60,
            a % 60
        )
    }
}

/// The report's CSV header.
pub const CSV_HEADER: &str =
    "game,kind,what,who,wall_time,unix_ms,round_time,round_ms,article,detail,outcome";

/// The rows as CSV (RFC 4180: CRLF, quoted where needed; cells that a
/// spreadsheet would take as a formula are prefixed with `'`).
pub fn to_csv(rows: &[Row], offset_min: i32) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push_str("\r\n");
    for r in rows {
        let cells = [
            r.game.clone(),
            r.kind.to_owned(),
            r.what.clone(),
            r.who.clone(),
            format!(
                "{} {}",
                wall(r.unix_ms, offset_min),
                offset_name(offset_min)
            ),
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

/// The report as a print-ready HTML page (A4, no script, no external
/// asset): the games with their results, then every row.
pub fn to_html(rows: &[Row], results: &[GameResult], offset_min: i32, now_ms: u64) -> String {
    let tz = offset_name(offset_min);
    let mut h = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Round report</title><style>\
         body{font:11pt/1.35 system-ui,sans-serif;margin:1.5em;color:#000;background:#fff}\
         h1{font-size:15pt;margin:0 0 .2em}h2{font-size:12pt;margin:1.2em 0 .4em}\
         table{border-collapse:collapse;width:100%}th,td{border:1px solid #888;padding:.2em .35em;text-align:left;vertical-align:top}\
         th{background:#eee}tr{break-inside:avoid}td.refused{font-weight:bold}\
         .meta{color:#333;margin:0}.sign{margin-top:2.5em}\
         @media print{body{margin:0;font-size:9pt}a{color:#000;text-decoration:none}.noprint{display:none}}\
         @page{size:A4 landscape;margin:12mm}\
         </style></head><body>\n",
    );
    let event = results
        .iter()
        .find_map(|r| r.event.clone())
        .unwrap_or_default();
    let rounds: Vec<String> = {
        let mut v: Vec<String> = results.iter().map(|r| r.round.to_string()).collect();
        v.dedup();
        v
    };
    h.push_str(&format!(
        "<h1>Round report{}{}</h1>\n<p class=\"meta\">Made {} {tz}. Wall times in {tz}; round time = the game's time since its round started.</p>\n\
         <p class=\"noprint\"><a href=\"report.csv\">CSV</a> · <a href=\"results.csv\">results (CSV)</a> · <a href=\"results.trf\">results (TRF-16)</a></p>\n",
        if event.is_empty() { String::new() } else { format!(": {}", esc(&event)) },
        if rounds.is_empty() { String::new() } else { format!(", round {}", esc(&rounds.join(", "))) },
        wall(now_ms, offset_min),
    ));
    h.push_str("<h2>Results</h2>\n<table><thead><tr><th>Board</th><th>White</th><th>Black</th><th>Result</th><th>Status</th><th>Termination</th></tr></thead><tbody>\n");
    for r in results {
        h.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            esc(&r.game()),
            esc(&r.white.name.clone().unwrap_or_default()),
            esc(&r.black.name.clone().unwrap_or_default()),
            esc(&r.result),
            esc(r.status.as_deref().unwrap_or("playing")),
            esc(r.reason.as_deref().unwrap_or("")),
        ));
    }
    h.push_str("</tbody></table>\n<h2>Alerts and rulings</h2>\n<table><thead><tr><th>Board</th><th>Wall time</th><th>Round time</th><th>Kind</th><th>What</th><th>Who</th><th>Article</th><th>Detail</th><th>Outcome</th></tr></thead><tbody>\n");
    for r in rows {
        h.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>\n",
            esc(&r.game),
            esc(&wall(r.unix_ms, offset_min)),
            r.t.map(round_time).unwrap_or_default(),
            r.kind,
            esc(&r.what.replace('_', " ")),
            esc(&r.who),
            esc(&r.article),
            esc(&r.detail),
            r.kind,
            esc(&r.outcome),
        ));
    }
    if rows.is_empty() {
        h.push_str("<tr><td colspan=\"9\">No alert and no ruling.</td></tr>\n");
    }
    h.push_str(
        "</tbody></table>\n<p class=\"sign\">Arbiter: ______________________________ \
         Signature: ______________________________</p>\n</body></html>\n",
    );
    h
}
