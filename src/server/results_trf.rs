//! `GET /console/results.trf[?round=N]`: the round's final results
//! (confirmed, corrected, forfeits) written into the round's column of the
//! pairings' TRF-16 (`[arbiter] pairings`), as `eboard results` writes them
//! from `/console/results.csv` (issue 24.9; `docs/console.md`, "The round's
//! paperwork"), for Swiss-Manager or Vega. Any role of the console. The
//! games left blank (not final) are named in the header
//! `X-Eboard-Left-Blank`; the games neither of whose players is in the file
//! (a side game, another group's) are left out and named in
//! `X-Eboard-Not-In-File` (the page shows both).

use super::arbiter::refuse;
use super::report::respond;
use super::AppState;
use crate::event::results::{from_states, the_round, write_trf};
use axum::extract::{Query, State};
use axum::http::{header, Extensions, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::sync::Arc;

/// The query: `round` (default: the round of the boards' games).
#[derive(Debug, Deserialize)]
pub struct Params {
    #[serde(default)]
    round: Option<u32>,
}

/// The handler.
pub async fn results_trf(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
    Query(p): Query<Params>,
) -> Response {
    respond(&s, &headers, &ext, |src| {
        let console = s
            .console
            .as_deref()
            .ok_or_else(|| refuse(StatusCode::NOT_FOUND, "no console here"))?;
        let Some(path) = console.pairings.as_ref() else {
            return Err(refuse(
                StatusCode::NOT_FOUND,
                "this console knows no pairings file: set [arbiter] pairings = \"round.trf\" \
                 (the TRF-16 the pairing program wrote) in its config, or download results.csv \
                 and run `eboard results PAIRINGS.trf --results results.csv`",
            ));
        };
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| {
            refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("reading the pairings {name}: {e}"),
            )
        })?;
        // TRF files of older programs are Latin-1: read and written back as such.
        let (trf, latin1) = match String::from_utf8(bytes) {
            Ok(t) => (t, false),
            Err(e) => (e.into_bytes().iter().map(|&b| b as char).collect(), true),
        };
        let games = from_states(&src.states);
        let round = match p.round.map_or_else(|| the_round(&games), Ok) {
            Ok(r) => r,
            Err(rounds) if rounds.is_empty() => {
                return Err(refuse(StatusCode::NOT_FOUND, "no game on this console yet"))
            }
            Err(rounds) => {
                return Err(refuse(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    &format!("games of rounds {rounds:?}: say which, ?round=N"),
                ))
            }
        };
        let w = write_trf(&trf, &name, round, &games)
            .map_err(|e| refuse(StatusCode::UNPROCESSABLE_ENTITY, &e.to_string()))?;
        let named = |v: &[(String, String)]| {
            v.iter()
                .map(|(g, why)| format!("{g} ({why})"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let (blank, outside) = (named(&w.skipped), named(&w.outside));
        let body: Vec<u8> = if latin1 {
            w.text
                .chars()
                .map(|c| u8::try_from(c).unwrap_or(b'?'))
                .collect()
        } else {
            w.text.into_bytes()
        };
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
        tracing::info!(round, written = w.written.len(), blank = %blank, outside = %outside, "results.trf served");
        Ok(r)
    })
}
