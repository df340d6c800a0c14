//! The polled feeds: `/games.pgn`, the LiveChess tree and `/boards.json`.

use super::AppState;
use crate::broadcast::livechess;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::Arc;

fn no_store(body: impl IntoResponse, content_type: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        body,
    )
        .into_response()
}

fn json(v: serde_json::Value) -> Response {
    no_store(Json(v), "application/json")
}

/// Every game of the feed, in (round, board) order.
pub async fn games_pgn(State(s): State<Arc<AppState>>) -> Response {
    let view = s.public.view.borrow().clone();
    let text: String = view.games.iter().map(|g| g.pgn.as_str()).collect();
    no_store(text, "application/x-chess-pgn; charset=utf-8")
}

/// `tournament.json`.
pub async fn tournament(State(s): State<Arc<AppState>>) -> Response {
    let view = s.public.view.borrow().clone();
    json(livechess::tournament_json(&view.refs()))
}

/// The snapshots, for a relay.
pub async fn boards(State(s): State<Arc<AppState>>) -> Response {
    let view = s.public.view.borrow().clone();
    let list: Vec<&crate::broadcast::public::Snapshot> = view.refs();
    json(serde_json::to_value(list).unwrap_or_default())
}

fn number(seg: &str, prefix: &str, suffix: &str) -> Option<u32> {
    seg.strip_prefix(prefix)?.strip_suffix(suffix)?.parse().ok()
}

/// `round-{r}/index.json` and `round-{r}/game-{b}.json`.
pub async fn round_file(
    State(s): State<Arc<AppState>>,
    Path((round, file)): Path<(String, String)>,
) -> Response {
    let Some(r) = number(&round, "round-", "") else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let view = s.public.view.borrow().clone();
    if file == "index.json" {
        return match livechess::round_index_json(&view.refs(), r) {
            Some(v) => json(v),
            None => StatusCode::NOT_FOUND.into_response(),
        };
    }
    let Some(b) = number(&file, "game-", ".json") else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match view
        .games
        .iter()
        .find(|g| g.info.round == r && g.info.board == b)
    {
        Some(g) => json(g.game.clone()),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
