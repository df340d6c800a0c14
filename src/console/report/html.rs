//! The round report as a print-ready HTML page, the document the chief
//! arbiter attaches to the norm file ([`super::norm`]).

use super::format::{esc, round_time};
use super::norm::{player_name, termination_words, EventHead};
use super::Row;
use crate::config::zone::EventZone;
use crate::event::results::GameResult;
use crate::model::Player;

const STYLE: &str = "body{font:11pt/1.35 system-ui,sans-serif;margin:1.5em;color:#000;background:#fff}\
     h1{font-size:15pt;margin:0 0 .2em}h2{font-size:12pt;margin:1.2em 0 .4em}h3{font-size:11pt;margin:1em 0 .3em}\
     table{border-collapse:collapse;width:100%}th,td{border:1px solid #888;padding:.2em .35em;text-align:left;vertical-align:top}\
     th{background:#eee}tr{break-inside:avoid}td.refused{font-weight:bold}\
     dl.head{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:.4em 0}dl.head dt{font-weight:bold}dl.head dd{margin:0}\
     .meta{color:#333;margin:0}.sign{margin-top:2.5em}\
     @media print{body{margin:0;font-size:9pt}a{color:#000;text-decoration:none}.noprint{display:none}}\
     @page{size:A4 landscape;margin:12mm}";

/// The wall-time zones the report's times are in, said once: the zone's
/// name and each offset in force over the rows (both across a change of
/// summer time: `CEST (UTC+02:00), then CET (UTC+01:00)`).
fn zone_words(rows: &[Row], zone: &EventZone, now_ms: u64) -> String {
    let mut offsets: Vec<String> = Vec::new();
    let mut times: Vec<u64> = rows.iter().map(|r| r.unix_ms).collect();
    if times.is_empty() {
        times.push(now_ms);
    }
    for t in times {
        let o = zone.offset_name(t);
        if offsets.last() != Some(&o) && !offsets.contains(&o) {
            offsets.push(o);
        }
    }
    let name = zone.name();
    let offsets = offsets.join(", then ");
    if offsets == name {
        name.to_owned()
    } else {
        format!("{name}: {offsets}")
    }
}

fn player_cells(p: &Player) -> String {
    format!(
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
        esc(&player_name(p)),
        p.rating.map(|r| r.to_string()).unwrap_or_default(),
        esc(p.federation.as_deref().unwrap_or("")),
        p.fide_id.map(|r| r.to_string()).unwrap_or_default(),
    )
}

/// The report as a print-ready HTML page (A4, no script, no external
/// asset): the event's head, the games with their players (title, rating,
/// federation, FIDE id), result and termination, then per board every
/// decision with its article, wall times in `zone` (each with the
/// abbreviation in force), `now_ms` when it was made. `head.date`: the
/// round's date (see [`EventHead::date_of`]).
pub fn to_html(
    rows: &[Row],
    results: &[GameResult],
    head: &EventHead,
    zone: &EventZone,
    now_ms: u64,
) -> String {
    let mut h = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Round report</title><style>{STYLE}</style></head><body>\n"
    );
    let event = head
        .name
        .clone()
        .or_else(|| results.iter().find_map(|r| r.event.clone()))
        .unwrap_or_default();
    let rounds: Vec<String> = {
        let mut v: Vec<String> = results.iter().map(|r| r.round.to_string()).collect();
        v.dedup();
        v
    };
    h.push_str(&format!(
        "<h1>Round report{}{}</h1>\n",
        if event.is_empty() {
            String::new()
        } else {
            format!(": {}", esc(&event))
        },
        if rounds.is_empty() {
            String::new()
        } else {
            format!(", round {}", esc(&rounds.join(", ")))
        },
    ));
    h.push_str("<dl class=\"head\">");
    let fields = [
        ("Event", Some(event.clone()).filter(|e| !e.is_empty())),
        ("Round", Some(rounds.join(", ")).filter(|r| !r.is_empty())),
        ("Date", head.date.clone()),
        ("Place", head.site.clone()),
        ("Rate of play", head.time_control.clone()),
        ("Rules", head.rules.clone()),
        ("Chief arbiter", head.chief_arbiter.clone()),
        ("Times", Some(zone_words(rows, zone, now_ms))),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            h.push_str(&format!("<dt>{k}</dt><dd>{}</dd>", esc(&v)));
        }
    }
    h.push_str("</dl>\n");
    h.push_str(&format!(
        "<p class=\"meta\">Made {}. Wall times in {}, 24-hour; round time = the game's time since its round started.</p>\n\
         <p class=\"noprint\"><a href=\"report.csv\">CSV</a> · <a href=\"results.csv\">results (CSV)</a> · <a href=\"results.trf\">results (TRF-16)</a></p>\n",
        esc(&zone.stamp(now_ms)),
        esc(zone.name()),
    ));
    h.push_str(
        "<h2>Results</h2>\n<table><thead><tr><th>Board</th>\
         <th>White</th><th>Rating</th><th>Fed.</th><th>FIDE id</th>\
         <th>Black</th><th>Rating</th><th>Fed.</th><th>FIDE id</th>\
         <th>Result</th><th>Status</th><th>Termination</th></tr></thead><tbody>\n",
    );
    for r in results {
        h.push_str(&format!(
            "<tr><td>{}</td>{}{}<td>{}</td><td>{}</td><td>{}</td></tr>\n",
            esc(&r.game()),
            player_cells(&r.white),
            player_cells(&r.black),
            esc(&r.result),
            esc(r.status.as_deref().unwrap_or("playing")),
            esc(&r
                .reason
                .as_deref()
                .map(termination_words)
                .unwrap_or_default()),
        ));
    }
    h.push_str("</tbody></table>\n<h2>Decisions by board</h2>\n");
    // The boards in the results' order, then any other game of the rows,
    // then the relay's own alerts (no game).
    let mut games: Vec<String> = results.iter().map(GameResult::game).collect();
    for r in rows {
        if !games.contains(&r.game) && !r.game.is_empty() {
            games.push(r.game.clone());
        }
    }
    if rows.iter().any(|r| r.game.is_empty()) {
        games.push(String::new());
    }
    for g in &games {
        let title = match results.iter().find(|r| &r.game() == g) {
            Some(r) => format!(
                "Board {}: {} – {}",
                g,
                player_name(&r.white),
                player_name(&r.black)
            ),
            None if g.is_empty() => "Not of a board (the relay's own)".to_owned(),
            None => format!("Board {g}"),
        };
        h.push_str(&format!("<h3>{}</h3>\n", esc(&title)));
        let mine: Vec<&Row> = rows.iter().filter(|r| &r.game == g).collect();
        if mine.is_empty() {
            h.push_str("<p>No alert and no ruling.</p>\n");
            continue;
        }
        h.push_str("<table><thead><tr><th>Wall time</th><th>Round time</th><th>Kind</th><th>What</th><th>Who</th><th>Article</th><th>Detail</th><th>Outcome</th></tr></thead><tbody>\n");
        for r in mine {
            h.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>\n",
                esc(&zone.stamp(r.unix_ms)),
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
        h.push_str("</tbody></table>\n");
    }
    if games.is_empty() {
        h.push_str("<p>No alert and no ruling.</p>\n");
    }
    h.push_str(
        "<p class=\"sign\">Chief arbiter: ______________________________ \
         Signature: ______________________________</p>\n</body></html>\n",
    );
    h
}
