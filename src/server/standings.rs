//! `GET /standings.json`: the event's standings as they stand
//! ([`crate::event::standings`]), from the TRF-16 the event was set up
//! from (`[arbiter] pairings`, the console's [`pairings`]) and the results
//! the public (delayed) feed shows final: the standings never run ahead of
//! the transmission delay. `docs/broadcast.md`, "Standings", has the JSON.
//!
//! The file is read at each request (a pairing program exporting a new
//! round is seen at once) and parsed again only when its bytes changed.
//! Each warning (a board whose players are not the pairing's, a tie-break
//! eboard does not compute) is logged once. 404 without a pairings file,
//! 500 when it cannot be read, 422 when it does not read as TRF-16: the
//! text names the file, the line and the field.
//!
//! [`pairings`]: crate::console::state::Console::pairings

use super::state::AppState;
use crate::event::standings::Event;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The file last read: its path, its bytes and the event read from them.
type Kept = Option<(PathBuf, Vec<u8>, Arc<Event>)>;

static KEPT: Mutex<Kept> = Mutex::new(None);
/// The warnings logged so far (each once; forgotten past [`SAID_MAX`]).
static SAID: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
const SAID_MAX: usize = 512;

/// Logs `text` at warn the first time it is seen.
fn warn_once(text: &str) {
    let Ok(mut said) = SAID.lock() else { return };
    if said.contains(text) {
        return;
    }
    if said.len() >= SAID_MAX {
        said.clear();
    }
    said.insert(text.to_owned());
    tracing::warn!("standings: {text}");
}

/// The event of the pairings file at `path`, read again when its bytes
/// changed; an error is (status, text naming the file).
fn event(path: &Path) -> Result<Arc<Event>, (StatusCode, String)> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("reading the pairings {name}: {e}"),
        )
    })?;
    if let Ok(kept) = KEPT.lock() {
        if let Some((p, b, ev)) = kept.as_ref() {
            if p == path && *b == bytes {
                return Ok(ev.clone());
            }
        }
    }
    // TRF files of older programs are Latin-1.
    let (text, _) = crate::event::results::decode_trf(bytes.clone());
    let ev = Arc::new(
        Event::read(&text, &name, None)
            .map_err(|e| (StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?,
    );
    tracing::info!(
        "standings: {name}: round {}, {} players, {} boards",
        ev.round,
        ev.players.len(),
        ev.boards.len()
    );
    if let Ok(mut kept) = KEPT.lock() {
        *kept = Some((path.to_owned(), bytes, ev.clone()));
    }
    Ok(ev)
}

/// The standings as they stand now, or the refusal (404 without a
/// pairings file, 500 / 422 naming the file).
fn current(s: &AppState) -> Result<crate::event::standings::Standings, (StatusCode, String)> {
    let Some(path) = s.console.as_ref().and_then(|c| c.pairings.clone()) else {
        return Err((
            StatusCode::NOT_FOUND,
            "no standings: this server knows no pairings file; set [arbiter] pairings = \
             \"round.trf\" (the TRF-16 the event was set up from) in its config (docs/event.md, \
             \"Standings\")"
                .to_owned(),
        ));
    };
    let ev = event(&path).inspect_err(|(_, text)| warn_once(text))?;
    let view = s.public.view.borrow().clone();
    let states: Vec<serde_json::Value> =
        view.games.iter().map(|g| g.state.value().clone()).collect();
    let games = crate::event::results::from_states(&states);
    let (standings, warnings) = ev.standings(&games);
    for w in &warnings {
        warn_once(w);
    }
    Ok(standings)
}

/// `GET /standings.json`.
pub async fn json(State(s): State<Arc<AppState>>) -> Response {
    let standings = match current(&s) {
        Ok(x) => x,
        Err(refusal) => return refusal.into_response(),
    };
    let body = serde_json::to_string(&standings).unwrap_or_else(|_| "{}".into());
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        body,
    )
        .into_response()
}

/// `GET /standings.csv`: the same standings as a spreadsheet reads them
/// (RFC 4180, CRLF; a cell a spreadsheet would take for a formula is
/// guarded, [`crate::event::results::csv_field`]): `rank` (`3=` a shared
/// place), start rank, name, title, federation, rating, FIDE id, points,
/// then one column per tie-break by its code; a last line says
/// `provisional` and the games waiting, when so.
pub async fn csv(State(s): State<Arc<AppState>>) -> Response {
    let st = match current(&s) {
        Ok(x) => x,
        Err(refusal) => return refusal.into_response(),
    };
    let field = crate::event::results::csv_field;
    let mut head = vec![
        "rank", "start", "name", "title", "fed", "rating", "fide_id", "points",
    ];
    head.extend(st.tiebreaks.iter().map(|t| t.code));
    let mut out = head.join(",") + "\r\n";
    let opt = |v: Option<String>| v.unwrap_or_default();
    for r in &st.rows {
        let mut cells = vec![
            format!("{}{}", r.rank, if r.tied { "=" } else { "" }),
            r.start.to_string(),
            r.name.clone(),
            opt(r.title.clone()),
            opt(r.fed.clone()),
            opt(r.rating.map(|x| x.to_string())),
            opt(r.fide_id.map(|x| x.to_string())),
            r.points.to_string(),
        ];
        cells.extend(r.tiebreaks.iter().map(f64::to_string));
        let line: Vec<String> = cells.iter().map(|c| field(c)).collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    if st.provisional {
        let waiting = format!("provisional: waiting for {}", st.unconfirmed.join(" "));
        out.push_str(&field(&waiting));
        out.push_str("\r\n");
    }
    let name = format!("attachment; filename=\"standings-round-{}.csv\"", st.round);
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CACHE_CONTROL, "no-cache".to_owned()),
            (header::CONTENT_DISPOSITION, name),
        ],
        out,
    )
        .into_response()
}
