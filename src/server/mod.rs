//! The HTTP transport, on axum: public feeds (PGN, LiveChess JSON tree,
//! server-sent events and WebSocket, the live page), the arbiter API and
//! the console's routes.
//!
//! It owns the listener and who is let in (admission, leases, the
//! certificate, the cross-site check), the streams and the feeds, and the
//! handlers that read a request and write its answer. What the arbiter's
//! side *does* (accounts, sessions, the alert queue, rulings and their ids,
//! the round's paperwork) is the console's: [`crate::console`], which this
//! module routes to and which must never depend on it. It depends on the
//! console, the channels (`crate::broadcast`), the event stream's types
//! (`crate::trace`) and the disk; it must not depend on `crate::app` or
//! `crate::mqtt`. Inside, the handler files (`arbiter`, `console`, `login`,
//! `paperwork`) use `auth` and `state`; `mod.rs` only routes.
//!
//! | path | what |
//! |---|---|
//! | `GET /` | the live page (board, clocks, moves, arbiter alerts) |
//! | `GET /games.pgn` | every game of the feed, PGN, as lichess broadcasts poll it |
//! | `GET /tournament.json`, `/round-{r}/index.json`, `/round-{r}/game-{b}.json` | the LiveChess Cloud tree |
//! | `GET /boards.json` | the feed's snapshots (what a relay reads) |
//! | `GET /events`, `GET /ws` | the public event stream (SSE / WebSocket) |
//! | `GET /arbiter/events`, `GET /arbiter/state` | the arbiter's channel, undelayed (token) |
//! | `POST /arbiter/{accept,overrule,restore,result,clock,position,pause,resume,choose,confirm,forfeit,undo,rewind,uphold,reject}` | arbiter actions (token) |
//! | `POST /arbiter/query` | E2.9d information on demand (the arbiter's token, or the VI player's device token for his side only) |
//! | `POST /arbiter/{confirm,forfeit}` | the result confirmed or corrected (DSU 004 §15), a forfeit |
//! | `POST /arbiter/command` | one ruling as `{board, action, body, arbiter, id}`, applied once per id ([`crate::console::ruling`]) |
//! | `GET /console`, `/console/*` | the arbiter's console: login, alert queue, acknowledgements ([`crate::console`]) |
//! | `GET /console/report`, `/console/report.csv`, `/console/results.csv`, `/console/results.trf` | the round's paperwork: every alert and ruling, the results ([`crate::console::report`], [`crate::console::results`]) |
//! | `GET /standings.json`, `/standings.csv` | the event's standings from the pairings' TRF-16 and the results the public feed shows final ([`standings`]) |
//! | `GET /hall` | the hall display for the venue's screen: the round's boards and the standings ([`hall`]) |
//!
//! Nothing under `/arbiter/` or `/console/` sends CORS headers: only the
//! pages this server serves may read them; a state-changing request there
//! from another origin, or with a body that is not JSON, is refused
//! ([`cross_site`]).
//!
//! Connections are admitted, timed and (with a certificate) served over
//! TLS by [`listener`]; the arbiter's routes answer only over TLS or from
//! loopback ([`listener::guard`]).
//!
//! Everything public is delayed at the source ([`crate::broadcast::delay`]).
//! Stream clients that fall [`CHANNEL_CAPACITY`](crate::broadcast::delay::CHANNEL_CAPACITY)
//! messages behind are dropped; request bodies are limited to
//! [`BODY_LIMIT`] bytes and plain requests to [`REQUEST_TIMEOUT`].

pub mod admission;
mod arbiter;
pub mod auth;
pub mod certificate;
mod console;
pub mod cross_site;
mod feeds;
mod hall;
pub mod lease;
pub mod limits;
pub mod listener;
mod login;
mod page;
mod paperwork;
mod sse;
mod standings;
pub mod state;
mod stream;
pub mod subscription;
mod tally;

pub use state::AppState;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use std::sync::Arc;
use std::time::Duration;
use tower_http::timeout::TimeoutLayer;

/// The largest request body, bytes.
pub const BODY_LIMIT: usize = 16 * 1024;
/// The longest a plain (not streaming) request may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The router for a board daemon or a relay.
pub fn router(state: AppState) -> Router {
    let plain = Router::new()
        .route("/", get(page::index))
        .route("/live.js", get(page::script))
        .route("/live.css", get(page::style))
        // The polled feeds: conditional GET, gzip, CORS preflight.
        .merge(feeds::routes())
        .route("/arbiter/state", get(arbiter::state))
        .route("/arbiter/command", post(console::command))
        .route("/arbiter/{action}", post(arbiter::act))
        .route("/console", get(console::page))
        .route("/console.js", get(console::script))
        .route("/console.css", get(console::style))
        .route("/console/login", post(login::login))
        .route("/console/logout", post(console::logout))
        .route("/console/me", get(console::me))
        .route("/console/alerts", get(console::alerts))
        .route("/console/ack", post(console::ack))
        .route("/console/report", get(paperwork::report))
        .route("/console/report.csv", get(paperwork::report_csv))
        .route("/console/results.csv", get(paperwork::results_csv))
        .route("/console/results.trf", get(paperwork::results_trf))
        .route("/standings.json", get(standings::json))
        .route("/hall", get(hall::page))
        .route("/hall.js", get(hall::script))
        .route("/hall.css", get(hall::style))
        .route("/standings.csv", get(standings::csv))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ));
    let streams = Router::new()
        .route("/events", get(stream::sse_public).options(feeds::preflight))
        .route("/ws", get(stream::ws_public))
        .route("/arbiter/events", get(stream::sse_arbiter));
    plain
        .merge(streams)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(cross_site::check))
        .layer(axum::middleware::from_fn(listener::guard))
        .layer(axum::middleware::from_fn(cross_site::protect))
        .with_state(Arc::new(state))
}

pub use listener::{serve, Connection, Limits, Listening, Tls};
