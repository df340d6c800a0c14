//! The arbiter's console (`docs/console.md`): the page, the login, the alert
//! queue and the one ruling request, served alike by a board daemon and by
//! the HTTP relay.
//!
//! | path | who | what |
//! |---|---|---|
//! | `GET /console`, `/console.js`, `/console.css` | anyone | the page (it logs in itself) |
//! | `POST /console/login` | anyone | `{"name", "secret"}` → session cookie (`HttpOnly`, `SameSite=Strict`, `Secure` over TLS or with `secure_cookie`) |
//! | `POST /console/logout` | session | ends it |
//! | `GET /console/me` | any role | `{"name", "role", "board": bool}` |
//! | `GET /console/alerts` | any role | the alert queue, newest first ([`super::alerts`]) |
//! | `POST /console/ack` | arbiter | `{"id": n}`: acknowledges an alert (logged) |
//! | `GET /console/report`, `.csv`, `/console/results.csv` | any role | the round's paperwork ([`super::report`]) |
//! | `POST /arbiter/command` | arbiter, relay | one ruling (below) |
//!
//! A ruling is one JSON object, the same over HTTP and over the boards'
//! signed MQTT command topic (`crate::mqtt::command`): `{"board": "1.2", "action": "restore", "body": {…},
//! "arbiter": "IA Hansen", "id": "unique command id"}`. `action` and `body`
//! are those of `POST /arbiter/{action}`. A board applies a command id once:
//! the same id again gets the first reply (with `"repeated": true`) and
//! changes nothing; ids are kept in the board's one store of ruling ids
//! ([`CommandIds`]: `JOURNAL.rulings` with a journal, across a restart;
//! shared with the signed MQTT rulings, so an id taken one way is a
//! duplicate the other way too). On a board the author is the session's (or token's)
//! account; a relay's token names the arbiter in `arbiter`, which the board
//! journals (and logs the relay). The relay forwards a ruling to the board
//! that plays `board` ([`Forwarder`]) and returns the board's reply.

use super::access::{Accounts, Role};
use super::alerts::AlertQueue;
use super::arbiter::{authorize, authorize_ruling, refuse, ruling_record, session_cookie, Refusal};
use super::command_ids::{repeated, Claim, CommandIds};
use super::AppState;
use crate::broadcast::delay::Channel;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, Extensions, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

const HTML: &str = include_str!("assets/console.html");
/// The page's script, one file as served: the clock times
/// (`console-time.js`), the rulings (`console-rule.js`), the page
/// (`console.js`).
const JS: &str = concat!(
    include_str!("assets/console-time.js"),
    include_str!("assets/console-rule.js"),
    include_str!("assets/console.js")
);
const CSS: &str = include_str!("assets/console.css");

/// The longest command id, characters.
pub const MAX_ID: usize = 100;
/// The longest a forwarded ruling may take at the board.
pub const FORWARD_TIMEOUT: Duration = Duration::from_secs(8);

/// The console's side of a server.
#[derive(Debug)]
pub struct Console {
    /// The accounts and their sessions.
    pub accounts: Accounts,
    /// The alert queue.
    pub alerts: AlertQueue,
    /// The undelayed channel shown (the board's arbiter channel, or the
    /// relay's merge of every board's).
    pub channel: Arc<Channel>,
    /// On a relay: where rulings go.
    pub forward: Option<Arc<Forwarder>>,
    /// The rulings the channel carried, applied and refused (the round
    /// report's, [`super::report`]).
    pub rulings: super::report::RulingLog,
    /// The round's pairings as the pairing program wrote them (TRF-16,
    /// `[arbiter] pairings`): `GET /console/results.trf` writes the
    /// results into it ([`super::results_trf`]).
    pub pairings: Option<std::path::PathBuf>,
    ids: Arc<CommandIds>,
}

impl Console {
    /// A console over `channel` for `accounts`; `forward`: a relay's.
    pub fn new(
        accounts: Accounts,
        channel: Arc<Channel>,
        forward: Option<Arc<Forwarder>>,
    ) -> Console {
        Console {
            accounts,
            alerts: AlertQueue::new(),
            rulings: Default::default(),
            channel,
            forward,
            pairings: None,
            ids: Arc::new(CommandIds::in_memory()),
        }
    }

    /// The console with the round's pairings file (TRF-16).
    pub fn with_pairings(mut self, trf: Option<std::path::PathBuf>) -> Console {
        self.pairings = trf;
        self
    }

    /// The console with the board's store of ruling ids (shared with its
    /// MQTT command channel; in memory by default).
    pub fn with_command_ids(mut self, ids: Arc<CommandIds>) -> Console {
        self.ids = ids;
        self
    }

    /// Feeds the alert queue from the channel, on `rt`, until the channel closes.
    pub fn spawn_feed(self: &Arc<Self>, rt: &tokio::runtime::Handle) {
        let me = self.clone();
        let mut rx = me.channel.events.subscribe();
        // Alerts raised before anyone listened (a downtime at start).
        for m in me.channel.backlog() {
            me.alerts.take(&m.json, unix_ms());
            me.rulings.take(&m.json, unix_ms());
        }
        rt.spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match rx.recv().await {
                    Ok(m) => {
                        me.alerts.take(&m.json, unix_ms());
                        me.rulings.take(&m.json, unix_ms());
                    }
                    Err(RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "console: alert feed fell behind");
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        });
    }

    /// Claims command `id`: `Err` with the first reply when it was seen
    /// (by either way in, [`repeated`]), or 503 when it cannot be kept.
    fn claim(&self, id: &str) -> Result<(), (u16, Value)> {
        match self.ids.claim(id) {
            Ok(Claim::New) => Ok(()),
            Ok(Claim::Seen(outcome)) => Err(repeated(id, &outcome)),
            Err(e) => {
                tracing::error!(id, "ruling: cannot keep its id: {e}");
                Err((
                    503,
                    json!({"error": format!("cannot keep command id {id} ({e}): not applied")}),
                ))
            }
        }
    }

    /// Stores the reply of command `id` (a refusal forgets the id: it may be sent again).
    pub(super) fn done(&self, id: &str, reply: Option<(u16, Value)>) {
        let outcome = match reply {
            Some((status, v)) => {
                json!({"status": "applied", "via": "http", "http": status, "reply": v})
            }
            None => Value::Null,
        };
        if let Err(e) = self.ids.record(id, outcome) {
            tracing::error!(id, "ruling: cannot keep what came of it: {e}");
        }
    }
}

/// Another way for a relay's rulings to reach the boards (over MQTT:
/// `crate::app::relay`, signed): given the game (`round.board`) and the
/// command (`{board, action, body, arbiter, id}`), the board's answer as
/// the HTTP way gives it (status, body), or why it could not be sent.
pub type SendRuling = Arc<
    dyn Fn(
            String,
            Value,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<(u16, Value), String>> + Send>,
        > + Send
        + Sync,
>;

/// The relay's way to the boards: the board daemon that plays each game, and
/// the relay's own token for them (an account of role `relay` on each board);
/// or a [`SendRuling`] (the MQTT relay's signed command topic).
pub struct Forwarder {
    client: reqwest::Client,
    token: String,
    boards: RwLock<HashMap<String, String>>,
    other: Option<SendRuling>,
}

impl std::fmt::Debug for Forwarder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Forwarder")
            .field("boards", &self.boards)
            .field("other", &self.other.is_some())
            .finish_non_exhaustive()
    }
}

impl Forwarder {
    /// A forwarder with the relay's `token`, reaching the boards with
    /// `client` (their pinned certificates accepted:
    /// `crate::broadcast::relay::board_client`).
    pub fn new(token: String, client: reqwest::Client) -> Result<Forwarder, String> {
        Ok(Forwarder {
            client,
            token,
            boards: RwLock::new(HashMap::new()),
            other: None,
        })
    }

    /// A forwarder that hands every ruling to `send`.
    pub fn with(send: SendRuling) -> Forwarder {
        Forwarder {
            client: reqwest::Client::new(),
            token: String::new(),
            boards: RwLock::new(HashMap::new()),
            other: Some(send),
        }
    }

    /// The relay's token for the boards.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Records that `base` plays the game `game` (`round.board`).
    pub fn set_board(&self, game: &str, base: &str) {
        let mut b = self.boards.write().unwrap_or_else(|e| e.into_inner());
        if b.get(game).map(String::as_str) != Some(base) {
            b.insert(game.to_owned(), base.to_owned());
        }
    }

    fn base(&self, game: &str) -> Option<String> {
        let b = self.boards.read().unwrap_or_else(|e| e.into_inner());
        b.get(game).cloned()
    }

    /// Sends `command` to the board that plays its `board`; the board's
    /// status and reply.
    async fn send(&self, game: &str, command: &Value) -> Result<(u16, Value), Refusal> {
        if let Some(send) = &self.other {
            return send(game.to_owned(), command.clone())
                .await
                .map_err(|e| refuse(StatusCode::BAD_GATEWAY, &format!("board {game}: {e}")));
        }
        let Some(base) = self.base(game) else {
            return Err(refuse(
                StatusCode::NOT_FOUND,
                &format!("board {game}: no board daemon of this relay plays it"),
            ));
        };
        let resp = self
            .client
            .post(format!("{base}/arbiter/command"))
            .bearer_auth(&self.token)
            .header(header::CONTENT_TYPE, "application/json")
            .body(serde_json::to_vec(command).unwrap_or_default())
            .timeout(FORWARD_TIMEOUT)
            .send()
            .await
            .map_err(|e| {
                refuse(
                    StatusCode::BAD_GATEWAY,
                    &format!("board {game} ({base}): {}", crate::tls::error_chain(&e)),
                )
            })?;
        let status = resp.status().as_u16();
        let body = resp.bytes().await.map_err(|e| {
            refuse(
                StatusCode::BAD_GATEWAY,
                &format!("board {game} ({base}): {e}"),
            )
        })?;
        let v = serde_json::from_slice(&body)
            .unwrap_or_else(|_| json!({"error": String::from_utf8_lossy(&body)}));
        Ok((status, v))
    }
}

/// The wall clock, Unix ms (alert and session times).
pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn console_of(s: &AppState) -> Result<&Console, Refusal> {
    s.console
        .as_deref()
        .ok_or_else(|| refuse(StatusCode::NOT_FOUND, "no console here"))
}

/// `GET /console`.
pub async fn page() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        HTML,
    )
}

/// `GET /console.js`.
pub async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        JS,
    )
}

/// `GET /console.css`.
pub async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], CSS)
}

/// `POST /console/logout`: ends the session, clears the cookie.
pub async fn logout(State(s): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if let Some(c) = s.console.as_deref() {
        c.accounts.close_session(session_cookie(&headers));
    }
    let mut r = Json(json!({"ok": true})).into_response();
    r.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static("eboard_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
    );
    r
}

/// `GET /console/me`: who the session is.
pub async fn me(State(s): State<Arc<AppState>>, headers: HeaderMap, ext: Extensions) -> Response {
    match authorize(&s, &headers, &ext) {
        Ok(who) => Json(json!({
            "name": who.name,
            "role": who.role.as_str(),
            "relay": s.arbiter.is_none(),
        }))
        .into_response(),
        Err(r) => r.into_response(),
    }
}

/// `GET /console/alerts`: the queue, newest first.
pub async fn alerts(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
) -> Response {
    let run = || -> Result<Response, Refusal> {
        authorize(&s, &headers, &ext)?;
        Ok(Json(console_of(&s)?.alerts.list()).into_response())
    };
    run().unwrap_or_else(IntoResponse::into_response)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AckBody {
    id: u64,
}

/// `POST /console/ack` `{"id": n}`: acknowledged by the session's arbiter.
pub async fn ack(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
    bytes: Bytes,
) -> Response {
    let run = || -> Result<Response, Refusal> {
        let who = authorize_ruling(&s, &headers, &ext, "ack")?;
        let b: AckBody = serde_json::from_slice(&bytes).map_err(|e| {
            refuse(
                StatusCode::UNPROCESSABLE_ENTITY,
                &format!("body: {e} (expected {{\"id\": n}})"),
            )
        })?;
        let a = console_of(&s)?
            .alerts
            .ack(b.id, &who.name, unix_ms())
            .map_err(|e| refuse(StatusCode::NOT_FOUND, &e))?;
        Ok(Json(a).into_response())
    };
    run().unwrap_or_else(IntoResponse::into_response)
}

/// One ruling request: `{"board", "action", "body", "arbiter", "id",
/// "expect"}` (`docs/console.md`, "The ruling request").
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Command {
    /// The game, `round.board` (required at a relay; checked at a board).
    #[serde(default)]
    pub board: Option<String>,
    /// The action (`restore`, `confirm`, …; as `POST /arbiter/{action}`).
    pub action: String,
    /// Its body (as `POST /arbiter/{action}`); absent: none.
    #[serde(default)]
    pub body: Option<Value>,
    /// The arbiter ruling (required from a relay; else the session's).
    #[serde(default)]
    pub arbiter: Option<String>,
    /// A unique command id (idempotency).
    pub id: String,
    /// What the ruling was made from: `{"ply", "event"?, "result"?}`
    /// (issue 24.1); required (428 without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Value>,
}

/// `POST /arbiter/command`: one ruling, applied once per command id.
pub async fn command(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
    bytes: Bytes,
) -> Response {
    match command_inner(&s, &headers, &ext, &bytes).await {
        Ok((status, v)) => (
            StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY),
            Json(v),
        )
            .into_response(),
        Err(r) => r.into_response(),
    }
}

async fn command_inner(
    s: &AppState,
    headers: &HeaderMap,
    ext: &Extensions,
    bytes: &[u8],
) -> Result<(u16, Value), Refusal> {
    let who = authorize_ruling(s, headers, ext, "command")?;
    let console = console_of(s)?;
    let mut cmd: Command = serde_json::from_slice(bytes).map_err(|e| {
        refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            &format!(
                "body: {e} (expected {{\"board\", \"action\", \"body\", \"arbiter\", \"id\", \"expect\"}})"
            ),
        )
    })?;
    if cmd.id.is_empty() || cmd.id.chars().count() > MAX_ID {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            &format!("key 'id': give a unique command id of 1 to {MAX_ID} characters"),
        ));
    }
    let author = match who.role {
        Role::Relay => {
            let name = cmd
                .arbiter
                .clone()
                .filter(|n| !n.trim().is_empty())
                .ok_or_else(|| {
                    refuse(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "key 'arbiter': a relay rules on behalf of a named arbiter",
                    )
                })?;
            if console
                .accounts
                .by_name(&name)
                .is_some_and(|a| a.role == Role::Deputy)
            {
                tracing::warn!(relay = %who.name, name, "a relay forwarded a deputy's ruling: refused");
                return Err(refuse(
                    StatusCode::FORBIDDEN,
                    &format!("{name} is a deputy: a deputy rules nothing"),
                ));
            }
            name
        }
        _ => who.name.clone(),
    };
    cmd.arbiter = Some(author.clone());
    let body = serde_json::to_vec(&super::arbiter::body_with_expect(
        cmd.body.as_ref(),
        cmd.expect.as_ref(),
    ))
    .unwrap_or_default();
    match (&s.arbiter, &console.forward) {
        (Some(access), _) => {
            let view = console.channel.view.borrow().clone();
            if let Some(b) = &cmd.board {
                if !view.games.iter().any(|g| g.info.id() == *b) {
                    let here: Vec<String> = view.games.iter().map(|g| g.info.id()).collect();
                    return Err(refuse(
                        StatusCode::CONFLICT,
                        &format!("key 'board': this board plays {}, not {b}", here.join(", ")),
                    ));
                }
            }
            let kind = ruling_record(&cmd.action, &body, &author, true)?;
            if let Err(first) = console.claim(&cmd.id) {
                tracing::info!(id = %cmd.id, "ruling: command id seen before: not applied again");
                return Ok(first);
            }
            if who.role == Role::Relay {
                tracing::info!(relay = %who.name, arbiter = %author, action = %cmd.action, id = %cmd.id, "ruling forwarded by a relay");
            }
            // Its own task: a client gone cannot leave the id pending.
            let ruling = super::command_task::Ruling {
                kind,
                action: cmd.action,
                author,
                id: cmd.id,
                board: cmd.board,
            };
            let shared = s
                .console
                .clone()
                .ok_or_else(|| refuse(StatusCode::NOT_FOUND, "no console here"))?;
            super::command_task::apply_once(access, shared, ruling).await
        }
        (None, Some(fwd)) => {
            if who.role != Role::Arbiter {
                return Err(refuse(
                    StatusCode::FORBIDDEN,
                    "only an arbiter's account rules through the relay",
                ));
            }
            let game = cmd.board.clone().ok_or_else(|| {
                refuse(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "key 'board': give the game as round.board",
                )
            })?;
            // A game this relay does not follow is no board's to rule: the
            // arbiter saw it elsewhere (another relay, an old page), or the
            // table has moved on to another round's game (issue 24.1).
            {
                let view = console.channel.view.borrow();
                if !view.games.iter().any(|g| g.info.id() == game) {
                    let mut here: Vec<String> = view.games.iter().map(|g| g.info.id()).collect();
                    here.sort();
                    return Err(refuse(
                        StatusCode::NOT_FOUND,
                        &format!(
                            "key 'board': this relay follows no game {game} (it follows {}): not forwarded",
                            if here.is_empty() { "none yet".to_owned() } else { here.join(", ") }
                        ),
                    ));
                }
            }
            // Checked here too, so a bad request never leaves the relay.
            ruling_record(&cmd.action, &body, &author, true)?;
            tracing::info!(arbiter = %author, board = %game, action = %cmd.action, id = %cmd.id, "relay: forwarding a ruling");
            let v = serde_json::to_value(&cmd).unwrap_or_default();
            fwd.send(&game, &v).await
        }
        (None, None) => Err(refuse(StatusCode::NOT_FOUND, "no board to rule here")),
    }
}
