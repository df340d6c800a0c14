//! The round's paperwork (issue 24.9, `docs/console.md`, "The round's
//! paperwork"): what the arbiter's report of a norm event needs, served by
//! the console's server (a board daemon, `eboard relay`) behind its login
//! (the handlers: `crate::server`).
//!
//! | path | what |
//! |---|---|
//! | `GET /console/report` | the round report, a print-ready HTML page: every alert and every ruling (applied or refused, with its reason), in order of time |
//! | `GET /console/report.csv` | the same rows as CSV (RFC 4180) |
//! | `GET /console/results.csv` | each game's result and its status ([`crate::event::results`]) |
//!
//! Wall times are in the event's time zone (`[event] time_zone`, issue 40
//! §9; [`crate::config::zone`]), each with the abbreviation in force
//! (`CEST`, `CET`: a round across the autumn change has the hour 02:00 twice);
//! `?tz=+01:00` (a fixed offset) or `?tz=Europe/Oslo` overrides it. Every
//! row also carries the round time (the game's clock time since the round
//! started, `t`, ms; shown h:mm:ss) and, in the CSV, Unix ms.
//!
//! As a norm-file document ([`norm`]): the event's head (name, place,
//! date, round, rate of play, chief arbiter), per board the players with
//! title, rating, federation and FIDE id, the result and its termination in
//! words, and per game every decision with its article: the claims upheld,
//! rejected or referred with their penalty, the illegal moves with theirs,
//! the board's own decisions (a game's end) and every ruling with who gave
//! it and when.
//!
//! Where the rows come from:
//! - alerts: the console's queue ([`super::alerts`]) with their
//!   acknowledgements (who, when; kept across a restart);
//! - rulings: the boards' `ruling` and `ruling_refused` events as the
//!   console's channel carried them ([`RulingLog`]), and each board's
//!   `rulings` history in its state (`docs/trace-extensions.md`), which
//!   holds the applied ones also when the console was away when they were
//!   given. A refused ruling is known only from its event.
//!
//! Wall time: the event's own `unix_ms` (stamped by the board) when it has
//! one, else the round time on the game's wall clock (`started_at_unix_ms`
//! + `t` / `speed`), else when the event arrived here.

use super::alerts::Alert;
use crate::config::zone::EventZone;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Mutex;

/// The most ruling events kept (the oldest go first).
pub const MAX_RULINGS: usize = 5000;

/// The `ruling` and `ruling_refused` events the console's channel carried,
/// each with when it arrived (Unix ms); the same message twice (a board's
/// backlog sent again) is kept once.
#[derive(Debug, Default)]
pub struct RulingLog {
    inner: Mutex<Vec<(u64, Value)>>,
    /// A relay's file of them ([`super::kept::RELAY_RULINGS_FILE`]): each
    /// new one is appended, so a restarted relay's report still has the
    /// refused rulings (the boards' state holds the applied ones only).
    file: Mutex<Option<super::kept::OwnAlertLog>>,
}

impl RulingLog {
    /// Takes one arbiter-channel message (JSON text) arrived at `unix_ms`:
    /// kept when it is a `ruling` or a `ruling_refused`.
    pub fn take(&self, json: &str, unix_ms: u64) {
        if !json.contains("\"ruling") {
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(json) else {
            return;
        };
        if !matches!(
            v.get("type").and_then(Value::as_str),
            Some("ruling" | "ruling_refused")
        ) {
            return;
        }
        let mut l = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if l.iter().any(|(_, x)| *x == v) {
            return;
        }
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = file.as_mut() {
            if let Err(e) = f.append(&v, unix_ms) {
                tracing::error!("console: a ruling is not kept for the round report: {e}");
            }
        }
        l.push((unix_ms, v));
        if l.len() > MAX_RULINGS {
            l.remove(0);
        }
    }

    /// Keeps the log in `file` from now on, taking the rulings it holds
    /// (`kept`: each message with when it arrived, Unix ms, oldest first).
    pub fn keep(&self, file: super::kept::OwnAlertLog, kept: Vec<(Value, u64)>) {
        let mut l = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        for (v, unix_ms) in kept {
            if !l.iter().any(|(_, x)| *x == v) {
                l.push((unix_ms, v));
            }
        }
        let excess = l.len().saturating_sub(MAX_RULINGS);
        l.drain(..excess);
        *self.file.lock().unwrap_or_else(|e| e.into_inner()) = Some(file);
    }

    /// Every event kept, oldest first.
    pub fn list(&self) -> Vec<(u64, Value)> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The game, `round.board` (empty for the relay's own alerts without one).
    pub game: String,
    /// `alert`, `ruling` or `refused`.
    pub kind: &'static str,
    /// The alert's type (`illegal_move`) or the ruling's action (`restore`).
    pub what: String,
    /// Who: the player an alert is about ("White (Dahl,Ingrid)"), or the
    /// arbiter who ruled.
    pub who: String,
    /// Wall time, Unix ms (see the module's doc for where it comes from).
    pub unix_ms: u64,
    /// Round time, ms, when the event has one.
    pub t: Option<u64>,
    /// The article (FIDE Laws, or the regulation: "DSU 004 §15").
    pub article: String,
    /// For an alert: what it said; for a ruling: its effect.
    pub detail: String,
    /// For an alert: acknowledged by whom and when, resolved, open (awaiting
    /// a ruling: still among the board's open matters) or not acknowledged
    /// (decided, nobody acknowledged it); for a ruling:
    /// applied (`#seq`, undone by `#n`), or refused with its status and reason.
    pub outcome: String,
}

fn text(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(x) => x.to_string(),
    }
}

/// The game's state (by `round.board`) among `states`.
fn state_of<'a>(states: &'a [Value], game: &str) -> Option<&'a Value> {
    states.iter().find(|s| s["game"] == game)
}

/// Wall time of round time `t` in the game of `state`.
fn wall_of(state: Option<&Value>, t: u64) -> Option<u64> {
    let s = state?;
    let start = s["started_at_unix_ms"].as_u64()?;
    let speed = s["speed"].as_f64().filter(|x| *x > 0.0).unwrap_or(1.0);
    Some(start + (t as f64 / speed) as u64)
}

/// "White (Dahl,Ingrid)" for side `w` of the game of `state`.
fn side(state: Option<&Value>, by: &str) -> String {
    let (colour, key) = match by {
        "w" | "white" => ("White", "white"),
        "b" | "black" => ("Black", "black"),
        "" => return String::new(),
        other => return other.to_owned(),
    };
    match state.and_then(|s| s[key]["name"].as_str()) {
        Some(n) => format!("{colour} ({n})"),
        None => colour.to_owned(),
    }
}

/// Whether the board's state (`open`, the matters open for the arbiter)
/// still lists the alert's event (its `type` and round time `t`).
fn still_open(st: Option<&Value>, e: &Value) -> bool {
    st.and_then(|s| s["open"].as_array())
        .into_iter()
        .flatten()
        .any(|m| m["type"] == e["type"] && m["t"] == e["t"])
}

/// What an alert said, in a few words: the decision it carries first
/// ([`norm::decision`]: a claim's outcome, a penalty with its article).
fn alert_detail(e: &Value) -> String {
    let mut parts: Vec<String> = norm::decision(e).into_iter().collect();
    for key in [
        "touched", "san", "claim", "kind", "reason", "result", "problem", "penalty", "error",
    ] {
        // The penalty, the result and the claim's kind are in the
        // decision already (the penalty with its article).
        if matches!(key, "penalty" | "result" | "reason" | "kind") && !parts.is_empty() {
            continue;
        }
        let v = text(e, key);
        if !v.is_empty() {
            // The move in SAN (never UCI: the arbiter reads the report).
            let key = if key == "san" { "played" } else { key };
            parts.push(format!("{key}: {v}"));
        }
    }
    parts.join("; ")
}

/// The report's rows, in order of wall time (then round time): every
/// alert of `alerts` (the console's queue), every ruling event of
/// `rulings` ([`RulingLog::list`]) and every applied ruling of the boards'
/// `states` (their `rulings` history) not among the events.
/// Times in the text (an acknowledgement's) are in `zone`, with its
/// abbreviation ([`EventZone::stamp`]).
pub fn rows(
    states: &[Value],
    alerts: &[Alert],
    rulings: &[(u64, Value)],
    zone: &EventZone,
) -> Vec<Row> {
    let mut out = Vec::new();
    for a in alerts {
        let e = &a.event;
        let game = a.game.clone().unwrap_or_default();
        let st = state_of(states, &game);
        let t = e["t"].as_u64();
        let unix_ms = e["unix_ms"]
            .as_u64()
            .or_else(|| t.and_then(|t| wall_of(st, t)))
            .unwrap_or(a.unix_ms);
        let mut outcome = match (&a.ack, &a.resolved) {
            (Some(k), _) => format!("acknowledged by {} at {}", k.by, zone.stamp(k.unix_ms)),
            (None, Some(_)) => "resolved".to_owned(),
            // Still among the board's open matters: awaiting a ruling;
            // otherwise decided (by the board or a ruling) but nobody
            // acknowledged the alert (ia10's walk-through: "open" read as
            // undecided in a norm report).
            (None, None) if still_open(st, e) => "open: awaiting a ruling".to_owned(),
            (None, None) => "not acknowledged".to_owned(),
        };
        if let Some(r) = &a.resolved {
            outcome.push_str(&format!("; {} (at {})", r.how, zone.stamp(r.unix_ms)));
        }
        // The rulings that answered it (`answers`: its type and round time).
        for r in st
            .and_then(|s| s["rulings"].as_array())
            .into_iter()
            .flatten()
        {
            if r["answers"]["type"] == e["type"] && t.is_some() && r["answers"]["t"].as_u64() == t {
                outcome.push_str(&format!(
                    "; answered by ruling #{} ({})",
                    text(r, "seq"),
                    text(r, "action")
                ));
            }
        }
        out.push(Row {
            game,
            kind: "alert",
            what: a.kind.clone(),
            who: side(st, &text(e, "by")),
            unix_ms,
            t,
            article: text(e, "article"),
            detail: alert_detail(e),
            outcome,
        });
    }
    // Applied rulings seen as events: (game, seq) or, without a seq,
    // (game, t, action).
    let mut seen: HashSet<(String, String)> = HashSet::new();
    for (arrived, e) in rulings {
        let game = text(e, "game");
        let st = state_of(states, &game);
        let t = e["t"].as_u64();
        let refused = e["type"] == "ruling_refused";
        let seq = e["seq"].as_u64();
        if !refused {
            seen.insert((game.clone(), ruling_key(seq, t, &text(e, "action"))));
        }
        let outcome = if refused {
            format!(
                "refused ({}): {}",
                text(e, "status"),
                text(e, "reason").trim()
            )
        } else {
            let undone = seq.and_then(|n| undone_by(st, n));
            let mut o = match seq {
                Some(n) => format!("applied (#{n})"),
                None => "applied".to_owned(),
            };
            if let Some(u) = undone {
                o.push_str(&format!(", undone by #{u}"));
            }
            o
        };
        out.push(Row {
            game,
            kind: if refused { "refused" } else { "ruling" },
            what: text(e, "action"),
            who: text(e, "author"),
            unix_ms: e["unix_ms"]
                .as_u64()
                .or_else(|| t.and_then(|t| wall_of(st, t)))
                .unwrap_or(*arrived),
            t,
            article: text(e, "article"),
            detail: with_answers(text(e, "effect"), &e["answers"]),
            outcome,
        });
    }
    for st in states {
        let game = text(st, "game");
        let Some(list) = st["rulings"].as_array() else {
            continue;
        };
        for r in list {
            let seq = r["seq"].as_u64();
            let t = r["t"].as_u64();
            let key = ruling_key(seq, t, &text(r, "action"));
            if seen.contains(&(game.clone(), key)) {
                continue;
            }
            let mut outcome = match seq {
                Some(n) => format!("applied (#{n})"),
                None => "applied".to_owned(),
            };
            if let Some(u) = r["undone_by"].as_u64() {
                outcome.push_str(&format!(", undone by #{u}"));
            }
            out.push(Row {
                game: game.clone(),
                kind: "ruling",
                what: text(r, "action"),
                who: text(r, "author"),
                unix_ms: r["unix_ms"]
                    .as_u64()
                    .or_else(|| t.and_then(|t| wall_of(Some(st), t)))
                    .unwrap_or(0),
                t,
                article: text(r, "article"),
                detail: with_answers(text(r, "effect"), &r["answers"]),
                outcome,
            });
        }
    }
    out.sort_by(|a, b| (a.unix_ms, a.t, &a.game).cmp(&(b.unix_ms, b.t, &b.game)));
    out
}

/// A ruling's effect with the alert it answered (`answers`), if any.
fn with_answers(effect: String, answers: &Value) -> String {
    match (answers["type"].as_str(), answers["t"].as_u64()) {
        (Some(kind), Some(t)) => format!("{effect} (answers the {kind} at {})", round_time(t)),
        _ => effect,
    }
}

fn ruling_key(seq: Option<u64>, t: Option<u64>, action: &str) -> String {
    match seq {
        Some(n) => format!("#{n}"),
        None => format!("{}:{action}", t.unwrap_or(0)),
    }
}

/// The ruling that undid ruling `seq` of the game of `state`, from its history.
fn undone_by(state: Option<&Value>, seq: u64) -> Option<u64> {
    state?["rulings"]
        .as_array()?
        .iter()
        .find(|r| r["seq"].as_u64() == Some(seq))?["undone_by"]
        .as_u64()
}

#[cfg(test)]
mod norm_tests;
#[cfg(test)]
mod tests;

mod format;
pub use format::*;
mod html;
pub use html::to_html;
pub mod norm;
