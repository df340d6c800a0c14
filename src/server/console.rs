//! The arbiter's console over HTTP (`docs/console.md`): the page, the
//! alert queue and the one ruling request, served alike by a board daemon
//! and by the HTTP relay. What they do is the console's
//! ([`crate::console`]); these handlers read the request and write the
//! answer.
//!
//! | path | who | what |
//! |---|---|---|
//! | `GET /console`, `/console.js`, `/console.css` | anyone | the page (it logs in itself) |
//! | `POST /console/login` | anyone | `{"name", "secret"}` → session cookie (`HttpOnly`, `SameSite=Strict`, `Secure` over TLS or with `secure_cookie`) |
//! | `POST /console/logout` | session | ends it |
//! | `GET /console/me` | any role | `{"name", "role", "board": bool}` |
//! | `GET /console/alerts` | any role | the alert queue, newest first ([`crate::console::alerts`]) |
//! | `POST /console/ack` | arbiter | `{"id": n}`: acknowledges an alert (logged) |
//! | `GET /console/report`, `.csv`, `/console/results.csv` | any role | the round's paperwork ([`super::paperwork`]) |
//! | `POST /arbiter/command` | arbiter, relay | one ruling (below) |
//!
//! A ruling is one JSON object, the same over HTTP and over the boards'
//! signed MQTT command topic (`crate::mqtt::command`): `{"board": "1.2", "action": "restore", "body": {…},
//! "arbiter": "IA Hansen", "id": "unique command id"}`. `action` and `body`
//! are those of `POST /arbiter/{action}`. A board applies a command id once:
//! the same id again gets the first reply (with `"repeated": true`) and
//! changes nothing; ids are kept in the board's one store of ruling ids
//! ([`CommandIds`](crate::console::command_ids::CommandIds): `JOURNAL.rulings` with a journal, across a restart;
//! shared with the signed MQTT rulings, so an id taken one way is a
//! duplicate the other way too). On a board the author is the session's (or token's)
//! account; a relay's token names the arbiter in `arbiter`, which the board
//! journals (and logs the relay). The relay forwards a ruling to the board
//! that plays `board` ([`Forwarder`](crate::console::forward::Forwarder)) and returns the board's reply.

use super::auth::{authorize, authorize_ruling, session_cookie};
use super::state::AppState;
use crate::console::refusal::{refuse, Refusal};
use crate::console::ruling;
use crate::console::state::Console;
use crate::console::wall_clock::unix_ms;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, Extensions, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

const HTML: &str = include_str!("assets/console.html");
/// The page's script, one file as served: the clock readouts as a clock
/// shows them (`clock-text.js`, shared with the live page), the clock
/// entries (`console-time.js`), the rulings (`console-rule.js`), a board's
/// card (`console-board.js`), the page (`console.js`).
const JS: &str = concat!(
    include_str!("assets/clock-text.js"),
    include_str!("assets/console-time.js"),
    include_str!("assets/console-rule.js"),
    include_str!("assets/console-board.js"),
    include_str!("assets/console.js")
);
const CSS: &str = include_str!("assets/console.css");

fn console_of(s: &AppState) -> Result<&Console, Refusal> {
    s.console
        .as_deref()
        .ok_or_else(|| refuse(404, "no console here"))
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
        Ok(who) => {
            let mut v = json!({
                "name": who.name,
                "role": who.role.as_str(),
                "relay": s.arbiter.is_none(),
            });
            // The event's zone (issue 40 §9): the page writes every time in it.
            if let (Some(c), Some(o)) = (s.console.as_deref(), v.as_object_mut()) {
                if let Value::Object(z) = c.zone_json(unix_ms()) {
                    o.extend(z);
                }
            }
            Json(v).into_response()
        }
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
        let b: AckBody = serde_json::from_slice(&bytes)
            .map_err(|e| refuse(422, &format!("body: {e} (expected {{\"id\": n}})")))?;
        let a = console_of(&s)?
            .alerts
            .ack(b.id, &who.name, unix_ms())
            .map_err(|e| refuse(404, &e))?;
        Ok(Json(a).into_response())
    };
    run().unwrap_or_else(IntoResponse::into_response)
}

/// `POST /arbiter/command`: one ruling, applied once per command id.
pub async fn command(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
    bytes: Bytes,
) -> Response {
    let run = async {
        let who = authorize_ruling(&s, &headers, &ext, "command")?;
        let console = s
            .console
            .as_ref()
            .ok_or_else(|| refuse(404, "no console here"))?;
        ruling::command(console, s.arbiter.as_ref(), &who, &bytes).await
    };
    match run.await {
        Ok((status, v)) => (
            StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY),
            Json(v),
        )
            .into_response(),
        Err(r) => r.into_response(),
    }
}
