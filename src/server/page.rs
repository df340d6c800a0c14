//! The live page: plain HTML, CSS and JavaScript built into the binary (no
//! external assets). It draws every game of the feed (board, clocks, moves,
//! the illegal-move marking) from `/boards.json` and `/events`, and, once
//! the arbiter gives the token, the alerts of `/arbiter/events`.

use axum::http::header;
use axum::response::IntoResponse;

const HTML: &str = include_str!("assets/live.html");
const JS: &str = include_str!("assets/live.js");
const CSS: &str = include_str!("assets/live.css");

/// `GET /`.
pub async fn index() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], HTML)
}

/// `GET /live.js`.
pub async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        JS,
    )
}

/// `GET /live.css`.
pub async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], CSS)
}
