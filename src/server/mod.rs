//! The HTTP side: public feeds (PGN, LiveChess JSON tree, server-sent
//! events and WebSocket, the live page) and the arbiter API, on axum.
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
//! | `POST /arbiter/command` | one ruling as `{board, action, body, arbiter, id}`, applied once per id ([`console`]) |
//! | `GET /console`, `/console/*` | the arbiter's console: login, alert queue, acknowledgements ([`console`]) |
//! | `GET /console/report`, `/console/report.csv`, `/console/results.csv`, `/console/results.trf` | the round's paperwork: every alert and ruling, the results ([`report`], [`results_trf`]) |
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

pub mod access;
pub mod admission;
pub mod alerts;
pub mod arbiter;
pub mod backoff;
pub mod certificate;
pub mod command_ids;
mod command_task;
pub mod console;
pub mod cross_site;
mod feeds;
pub mod kept;
pub mod lease;
pub mod listener;
pub mod login;
mod page;
pub mod report;
pub mod results_trf;
mod sse;
mod stream;

pub use arbiter::parse_ruling;

use crate::broadcast::delay::Channel;
use crate::trace::{Event, RecordKind};
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tower_http::timeout::TimeoutLayer;

/// The largest request body, bytes.
pub const BODY_LIMIT: usize = 16 * 1024;
/// The longest a plain (not streaming) request may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// An arbiter action from the API, with the reply channel: what the
/// server hands to the board loop ([`crate::app::daemon`]).
#[derive(Debug)]
pub struct ArbiterCommand {
    /// What the arbiter does: an `arbiter` record, or a query (E2.9d) from
    /// the visually impaired player's device.
    pub kind: RecordKind,
    /// The decisions it led to.
    pub reply: oneshot::Sender<ActionReply>,
}

/// What an arbiter action led to.
#[derive(Debug, Clone)]
pub struct ActionReply {
    /// Round time of the action, ms.
    pub t: u64,
    /// The events it produced.
    pub events: Vec<Event>,
}

/// The arbiter's access to a board.
#[derive(Debug, Clone)]
pub struct ArbiterAccess {
    /// The undelayed channel.
    pub channel: Arc<Channel>,
    /// The bearer token; `None`: the API refuses everything.
    pub token: Option<String>,
    /// Who holds the token (journaled as the author).
    pub name: String,
    /// The board loop.
    pub commands: mpsc::Sender<ArbiterCommand>,
    /// The visually impaired player's own device, when configured: its
    /// token may only ask (E2.9d) and repeat his announcements.
    pub player: Option<PlayerDevice>,
}

/// The visually impaired player's own device (Appendix E2.9d): a token with
/// rights limited to queries for his side; never the arbiter's actions.
#[derive(Debug, Clone)]
pub struct PlayerDevice {
    /// The device's bearer token (not empty).
    pub token: String,
    /// The player's name (journaled as the author of his queries).
    pub name: String,
    /// His colour (the game's `vi_player`).
    pub side: shakmaty::Color,
}

/// What the handlers share.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The public (delayed) channel.
    pub public: Arc<Channel>,
    /// The arbiter's side (a relay has none).
    pub arbiter: Option<ArbiterAccess>,
    /// The arbiter's console: accounts, sessions, the alert queue (a relay's
    /// also forwards rulings to the boards).
    pub console: Option<Arc<console::Console>>,
}

impl AppState {
    /// The undelayed channel the arbiter reads: the board's, or the relay's
    /// merge of every board's.
    pub fn arbiter_channel(&self) -> Option<&Channel> {
        self.arbiter
            .as_ref()
            .map(|a| a.channel.as_ref())
            .or_else(|| self.console.as_ref().map(|c| c.channel.as_ref()))
    }
}

/// The arbiter token: `EBOARD_ARBITER_TOKEN` when set and not empty, else the config's.
pub fn arbiter_token(configured: Option<&str>) -> Option<String> {
    std::env::var("EBOARD_ARBITER_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
        .or_else(|| configured.filter(|t| !t.is_empty()).map(str::to_owned))
}

/// The player device's token: `EBOARD_PLAYER_TOKEN` when set and not empty, else the config's.
pub fn player_token(configured: Option<&str>) -> Option<String> {
    std::env::var("EBOARD_PLAYER_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
        .or_else(|| configured.filter(|t| !t.is_empty()).map(str::to_owned))
}

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
        .route("/console/report", get(report::report))
        .route("/console/report.csv", get(report::report_csv))
        .route("/console/results.csv", get(report::results_csv))
        .route("/console/results.trf", get(results_trf::results_trf))
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
        .with_state(Arc::new(state))
}

pub use listener::{serve, Connection, Limits, Listening, Tls};
