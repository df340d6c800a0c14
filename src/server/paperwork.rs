//! The round's paperwork over HTTP (`docs/console.md`, "The round's
//! paperwork"), behind the console's login (any role): the round report
//! (`GET /console/report[?tz=+01:00]`, print-ready HTML, and `.csv`, in
//! the event's time zone unless `tz` names another), the
//! results (`GET /console/results.csv`) and the results written into the
//! pairings' TRF-16 (`GET /console/results.trf[?round=N]`). What they hold
//! is the console's ([`crate::console::report`],
//! [`crate::console::results`]); these handlers gather the sources, check
//! the login and write the answer.

use super::auth::authorize;
use super::state::AppState;
use crate::config::zone::EventZone;
use crate::console::alerts::Alert;
use crate::console::refusal::{refuse, Refusal};
use crate::console::report;
use crate::console::results::{results_trf_for, TrfResults};
use crate::console::wall_clock::unix_ms;
use axum::extract::{Query, State};
use axum::http::{header, Extensions, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// The report's query: `tz`, an offset from UTC (`+01:00`) or an IANA
/// zone name; default: the event's zone (`[event] time_zone`).
#[derive(Debug, Deserialize)]
pub struct Params {
    #[serde(default)]
    tz: String,
}

/// What the report is made of: the boards' states, the alert queue, the
/// ruling events ([`RulingLog::list`]).
struct Sources {
    states: Vec<Value>,
    alerts: Vec<Alert>,
    rulings: Vec<(u64, Value)>,
}

/// What every handler of this module reads (any role of the console).
fn gather(s: &AppState, headers: &HeaderMap, ext: &Extensions) -> Result<Sources, Refusal> {
    authorize(s, headers, ext)?;
    let console = s
        .console
        .as_deref()
        .ok_or_else(|| refuse(404, "no console here"))?;
    let states: Vec<Value> = match s.arbiter_channel() {
        Some(ch) => ch
            .view
            .borrow()
            .refs()
            .iter()
            .map(|g| g.state.value().clone())
            .collect(),
        None => Vec::new(),
    };
    Ok(Sources {
        states,
        alerts: console.alerts.list(),
        rulings: console.rulings.list(),
    })
}

/// The zone the report is written in: `?tz=`, else the event's.
fn zone(s: &AppState, p: &Params) -> Result<EventZone, Refusal> {
    let event = s
        .console
        .as_deref()
        .map(|c| c.zone.clone())
        .unwrap_or_default();
    Ok(report::zone_param(p.tz.trim_end())
        .map_err(|e| refuse(422, &e))?
        .unwrap_or(event))
}

/// The paperwork's one shape: what the report is made of ([`gather`]: the
/// login checked first), rendered by `render` into the response, or the
/// refusal (401/403 without a login, 404 without a console, `render`'s
/// own: a bad `tz`, no pairings file) as the answer. Used by every handler
/// of the round's paperwork (`report`, `report_csv`, `results_csv`,
/// [`results_trf`]).
fn respond(
    s: &AppState,
    headers: &HeaderMap,
    ext: &Extensions,
    render: impl FnOnce(Sources) -> Result<Response, Refusal>,
) -> Response {
    gather(s, headers, ext)
        .and_then(render)
        .unwrap_or_else(IntoResponse::into_response)
}

fn csv_response(body: String, file: &str) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}\""),
            ),
            (header::CACHE_CONTROL, "no-store".to_owned()),
        ],
        body,
    )
        .into_response()
}

/// `GET /console/report[?tz=+01:00]`: the print-ready round report (any role).
pub async fn report(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
    Query(p): Query<Params>,
) -> Response {
    respond(&s, &headers, &ext, |src| {
        let zone = zone(&s, &p)?;
        let rows = report::rows(&src.states, &src.alerts, &src.rulings, &zone);
        let results = crate::event::results::from_states(&src.states);
        let mut head = s
            .console
            .as_deref()
            .map(|c| c.head.clone())
            .unwrap_or_default();
        head.date = head.date_of(&src.states, &zone);
        let html = report::to_html(&rows, &results, &head, &zone, unix_ms());
        Ok((
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            html,
        )
            .into_response())
    })
}

/// `GET /console/report.csv[?tz=…]`: the report's rows as CSV (any role).
pub async fn report_csv(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
    Query(p): Query<Params>,
) -> Response {
    respond(&s, &headers, &ext, |src| {
        let zone = zone(&s, &p)?;
        Ok(csv_response(
            report::to_csv(
                &report::rows(&src.states, &src.alerts, &src.rulings, &zone),
                &zone,
            ),
            "round-report.csv",
        ))
    })
}

/// `GET /console/results.csv`: each game's result with its status (any
/// role; `eboard results` writes them into the pairings' TRF).
pub async fn results_csv(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
) -> Response {
    respond(&s, &headers, &ext, |src| {
        let results = crate::event::results::from_states(&src.states);
        Ok(csv_response(
            crate::event::results::to_csv(&results),
            "results.csv",
        ))
    })
}

/// The query: `round` (default: the round of the boards' games).
#[derive(Debug, Deserialize)]
pub struct TrfParams {
    #[serde(default)]
    round: Option<u32>,
}

/// `GET /console/results.trf[?round=N]`: the round's results written into
/// the pairings' TRF-16, as a download; the games left blank (not final)
/// and those not in the file are named in `x-eboard-left-blank` and
/// `x-eboard-not-in-file`.
pub async fn results_trf(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
    Query(p): Query<TrfParams>,
) -> Response {
    respond(&s, &headers, &ext, |src| {
        let console = s
            .console
            .as_deref()
            .ok_or_else(|| refuse(404, "no console here"))?;
        let TrfResults {
            body,
            latin1,
            round,
            blank,
            outside,
            ..
        } = results_trf_for(console, &src.states, p.round)?;
        let mut r = (
            [
                (
                    header::CONTENT_TYPE,
                    if latin1 {
                        "text/plain; charset=iso-8859-1"
                    } else {
                        "text/plain; charset=utf-8"
                    }
                    .to_owned(),
                ),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"round{round}-results.trf\""),
                ),
                (header::CACHE_CONTROL, "no-store".to_owned()),
            ],
            body,
        )
            .into_response();
        for (name, text) in [
            ("x-eboard-left-blank", &blank),
            ("x-eboard-not-in-file", &outside),
        ] {
            if text.is_empty() && name == "x-eboard-not-in-file" {
                continue;
            }
            let ascii: String = text
                .chars()
                .map(|c| {
                    if c.is_ascii() && !c.is_control() {
                        c
                    } else {
                        '?'
                    }
                })
                .collect();
            if let Ok(v) = HeaderValue::from_str(&ascii) {
                r.headers_mut().insert(name, v);
            }
        }
        Ok(r)
    })
}
