//! The arbiter API: every action becomes an `arbiter` record fed to the
//! controller and journaled (`crate::trace::ArbiterAction`), authored by
//! the token holder. Requests need `Authorization: Bearer TOKEN`; the token
//! is compared in constant time.
//!
//! | `POST /arbiter/…` | body | record |
//! |---|---|---|
//! | `accept` | – | `{"arbiter": "accept"}` |
//! | `overrule` | – | `{"arbiter": "overrule"}` |
//! | `restore` | – | `{"arbiter": "restore"}` |
//! | `result` | `{"result": "1-0"}` (`1-0`, `0-1`, `1/2-1/2`) | `{"arbiter": "result", …}` |
//! | `clock` | `{"white_ms": …, "black_ms": …}` | `{"arbiter": "clock", …}` |
//! | `position` | `{"fen": "…"}` | `{"arbiter": "position", …}` |
//! | `pause`, `resume` | – | `{"arbiter": "pause"}` / `"resume"` |
//!
//! The reply: `{"t": round ms, "action": …, "author": …, "events": [the decisions]}`.

use super::ArbiterCommand;
use super::{AppState, ArbiterAccess, PlayerDevice};
use crate::trace::{parse_record_kind, RecordKind};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;
use subtle::ConstantTimeEq;

/// A refused request: the status and why.
#[derive(Debug)]
pub struct Refusal(StatusCode, String);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let Refusal(status, message) = self;
        let mut r = (status, Json(json!({ "error": message }))).into_response();
        if status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer realm=\"eboard arbiter\""),
            );
        }
        r
    }
}

fn refuse(status: StatusCode, message: &str) -> Refusal {
    Refusal(status, message.to_owned())
}

/// Who called: the arbiter, or the visually impaired player's own device.
#[derive(Debug, Clone, Copy)]
pub enum Caller<'a> {
    /// The arbiter's token: every action.
    Arbiter,
    /// The player's device token: queries for his side only (E2.9d).
    Player(&'a PlayerDevice),
}

/// The arbiter's access when the request carries the arbiter's bearer token;
/// the player's device token is refused here (403: not the arbiter).
pub fn authorize<'a>(s: &'a AppState, headers: &HeaderMap) -> Result<&'a ArbiterAccess, Refusal> {
    match authorize_caller(s, headers)? {
        (access, Caller::Arbiter) => Ok(access),
        (_, Caller::Player(_)) => Err(refuse(
            StatusCode::FORBIDDEN,
            "the player's device may only ask (POST /arbiter/query), never act as the arbiter",
        )),
    }
}

/// The bearer token of the request, empty when none.
fn bearer(headers: &HeaderMap) -> &str {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .unwrap_or("")
}

/// Who calls: the arbiter's token or the player device's token (each
/// compared in constant time). 404 without an arbiter API, 403 when no
/// arbiter token is configured, 401 for any other token.
pub fn authorize_caller<'a>(
    s: &'a AppState,
    headers: &HeaderMap,
) -> Result<(&'a ArbiterAccess, Caller<'a>), Refusal> {
    let Some(access) = s.arbiter.as_ref() else {
        return Err(refuse(StatusCode::NOT_FOUND, "no arbiter API here"));
    };
    let Some(token) = access.token.as_deref() else {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            "the arbiter API is off: no token configured ([arbiter] token or EBOARD_ARBITER_TOKEN)",
        ));
    };
    let given = bearer(headers);
    if bool::from(given.as_bytes().ct_eq(token.as_bytes())) {
        return Ok((access, Caller::Arbiter));
    }
    if let Some(p) = access.player.as_ref() {
        if bool::from(given.as_bytes().ct_eq(p.token.as_bytes())) {
            return Ok((access, Caller::Player(p)));
        }
    }
    Err(refuse(
        StatusCode::UNAUTHORIZED,
        "a valid bearer token is needed",
    ))
}

/// The body keys each action takes (besides the record's own key).
fn body_keys(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "accept" | "overrule" | "restore" | "pause" | "resume" => &[],
        "result" => &["result"],
        "clock" => &["white_ms", "black_ms"],
        "position" => &["fen"],
        "query" => &["what", "by", "piece"],
        "choose" => &["uci"],
        _ => return None,
    })
}

/// `POST /arbiter/{action}` with its JSON body, read by the trace codec's
/// one parser of record kinds ([`crate::trace::parse_record_kind`]): the
/// action becomes `{"arbiter": action, …body}`, a query `{"query": what,
/// "by": …, "piece": …}` (Appendix E2.9d, information on demand for the
/// visually impaired player; the answer is an `announce` event). Unknown
/// actions are 404, bad bodies 422 naming the key.
fn parse_request(action: &str, bytes: &[u8]) -> Result<RecordKind, Refusal> {
    let unprocessable = |m: &str| refuse(StatusCode::UNPROCESSABLE_ENTITY, m);
    let Some(keys) = body_keys(action) else {
        return Err(refuse(
            StatusCode::NOT_FOUND,
            "actions: accept, overrule, restore, result, clock, position, pause, resume, query, choose",
        ));
    };
    let mut obj = if bytes.iter().all(u8::is_ascii_whitespace) {
        Map::new()
    } else {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                return Err(unprocessable(&format!(
                    "body: expected an object, found {other}"
                )))
            }
            Err(e) => return Err(unprocessable(&format!("body: {e}"))),
        }
    };
    if let Some(k) = obj.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(unprocessable(&format!(
            "body: unknown key '{k}'; {action} takes {}",
            if keys.is_empty() {
                "no body".to_owned()
            } else {
                keys.join(", ")
            }
        )));
    }
    if action == "query" {
        let what = obj.remove("what").unwrap_or(Value::Null);
        obj.insert("query".into(), what);
    } else {
        obj.insert("arbiter".into(), Value::from(action));
    }
    let (_, kind) = parse_record_kind(&obj)
        .map_err(|e| unprocessable(&e.replacen("key 'query'", "key 'what'", 1)))?;
    Ok(kind)
}

/// `POST /arbiter/{action}`.
pub async fn act(
    State(s): State<Arc<AppState>>,
    Path(action): Path<String>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    let (access, caller) = match authorize_caller(&s, &headers) {
        Ok(a) => a,
        Err(r) => return r.into_response(),
    };
    let author = match caller {
        Caller::Arbiter => access.name.clone(),
        Caller::Player(p) => p.name.clone(),
    };
    if matches!(caller, Caller::Player(_)) && action != "query" {
        return refuse(
            StatusCode::FORBIDDEN,
            "the player's device may only ask (POST /arbiter/query), never act as the arbiter",
        )
        .into_response();
    }
    let (kind, name) = match parse_request(&action, &bytes) {
        Ok(RecordKind::Arbiter { action, .. }) => {
            let name = action.as_str();
            (
                RecordKind::Arbiter {
                    action,
                    author: Some(author.clone()),
                },
                name,
            )
        }
        Ok(RecordKind::Query {
            what, by, piece, ..
        }) => {
            if let Caller::Player(p) = caller {
                if by != p.side {
                    return refuse(
                        StatusCode::FORBIDDEN,
                        "the player's device asks for its own side only (body key 'by')",
                    )
                    .into_response();
                }
            }
            let author = Some(author.clone());
            let query = RecordKind::Query {
                what,
                by,
                piece,
                author,
            };
            (query, "query")
        }
        Ok(other) => (other, "query"),
        Err(r) => return r.into_response(),
    };
    let (reply, rx) = tokio::sync::oneshot::channel();
    let cmd = ArbiterCommand { kind, reply };
    if access.commands.send(cmd).await.is_err() {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "the board loop has stopped",
        )
        .into_response();
    }
    match tokio::time::timeout(Duration::from_secs(5), rx).await {
        Ok(Ok(r)) => Json(json!({
            "t": r.t,
            "action": name,
            "author": author,
            "events": r.events.iter().map(|e| serde_json::to_value(e).unwrap_or(Value::Null)).collect::<Vec<_>>(),
        }))
        .into_response(),
        _ => refuse(StatusCode::SERVICE_UNAVAILABLE, "the board loop did not answer").into_response(),
    }
}

/// `GET /arbiter/state`: the undelayed snapshots.
pub async fn state(State(s): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    match authorize(&s, &headers) {
        Ok(access) => {
            let view = access.channel.view.borrow().clone();
            Json(serde_json::to_value(view.refs()).unwrap_or_default()).into_response()
        }
        Err(r) => r.into_response(),
    }
}

/// A ruling's action and JSON body (`body`: an object, or null for none)
/// as the `arbiter` record of the same `POST /arbiter/{action}`, by the one
/// parser of this API ([`parse_request`]); the MQTT command channel's path
/// in (`docs/event.md`, "Rulings over MQTT"). `query` is not a ruling.
/// Errors say what is wrong with the action or the body.
pub fn parse_ruling(action: &str, body: &Value) -> Result<RecordKind, String> {
    if action == "query" {
        return Err("query is the player's device's, not a ruling".into());
    }
    let bytes = match body {
        Value::Null => Vec::new(),
        b => serde_json::to_vec(b).map_err(|e| e.to_string())?,
    };
    parse_request(action, &bytes).map_err(|Refusal(_, m)| m)
}
