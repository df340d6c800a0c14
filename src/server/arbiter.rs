//! The arbiter API: every action becomes an `arbiter` record fed to the
//! controller and journaled (`crate::trace::ArbiterAction`), authored by
//! the account's name. Requests need `Authorization: Bearer TOKEN` (the
//! `[arbiter] token`, or an account's token; compared in constant time) or
//! the console's session cookie ([`super::access`]). A deputy's rulings are
//! refused (403, logged); a relay rules only on behalf of a named arbiter
//! (`POST /arbiter/command`, [`super::console`]).
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
//! | `confirm` | – or `{"result": "0-1"}` (a correction) | `{"arbiter": "confirm", …}` (DSU 004 §15) |
//! | `forfeit` | `{"result": "1-0"}` (a no-show: before any move, or after the present player's first; `0-0`: neither came, before any move) | `{"arbiter": "forfeit", …}` |
//! | `undo` | `{"ruling": SEQ}` (reverses ruling SEQ of the history) | `{"arbiter": "undo", …}` |
//! | `rewind` | `{"ply": N}` (Appendix E2.8: back to ply N, the clocks as they stood then) | `{"arbiter": "rewind", …}` |
//! | `increment` | `{"by": "b"}`, optionally `"mode": "delay"`, `"offer": "accepted"` (2023 Guidelines III.4: five seconds per move for both, two extra minutes to the opponent; or the draw offer it is accepted) | `{"arbiter": "increment", …}` |
//! | `uphold`, `reject` | – or `{"move": "g1f3"}` (the move written on the scoresheet, UCI or SAN) | a draw claim the board held (`claim_held`, §9.2a / 9.2.1): drawn without the move, or the wrong claim's cost and the written move to be made |
//!
//! Every body may carry `expect` (`{"ply", "event"?, "result"?}`: what the
//! ruling was made from, issue 24.1); here it is optional (checked against
//! the current state only), at `POST /arbiter/command` required (428).
//!
//! The reply: `{"t": round ms, "action": …, "author": …, "events": [the
//! decisions]}`; 409 or 422 with `"error"` (the reason in words) and
//! `"refused"` (the `ruling_refused` event) when the board refused it.

use super::access::Role;
use super::ArbiterCommand;
use super::{AppState, ArbiterAccess};
use crate::trace::{parse_record_kind, Event, EventKind, RecordKind};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::Extensions;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

mod auth;
pub use auth::*;

/// The body keys each action takes (besides the record's own key); every
/// ruling also takes `expect` (what it was made from, issue 24.1).
fn body_keys(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "accept" | "overrule" | "restore" | "pause" | "resume" => &["expect"],
        "result" | "confirm" => &["result", "reason", "expect"],
        "forfeit" => &["result", "reason", "before_default_time", "expect"],
        "clock" => &["white_ms", "black_ms", "moves", "expect"],
        "position" => &["fen", "expect"],
        "undo" => &["ruling", "expect"],
        "rewind" => &["ply", "expect"],
        "increment" => &["by", "mode", "offer", "expect"],
        "query" => &["what", "by", "piece"],
        "choose" => &["uci", "expect"],
        "uphold" | "reject" => &["move", "expect"],
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
            "actions: accept, overrule, restore, result, confirm, forfeit, clock, position, pause, resume, undo, rewind, increment, query, choose, uphold, reject",
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

/// `POST /arbiter/{action}`: an arbiter's account rules (authored with its
/// name), the player's device asks. A relay's token is refused here: it
/// rules only on behalf of a named arbiter (`POST /arbiter/command`).
pub async fn act(
    State(s): State<Arc<AppState>>,
    Path(action): Path<String>,
    headers: HeaderMap,
    ext: Extensions,
    bytes: Bytes,
) -> Response {
    let Some(access) = s.arbiter.as_ref() else {
        return refuse(
            StatusCode::NOT_FOUND,
            "no arbiter API here: a relay takes rulings at POST /arbiter/command",
        )
        .into_response();
    };
    let caller = match authorize_caller(&s, &headers, &ext) {
        Ok(c) => c,
        Err(r) => return r.into_response(),
    };
    let author = match &caller {
        Caller::Arbiter(who) if who.role == Role::Deputy && action != "query" => {
            tracing::warn!(name = %who.name, action, "a deputy tried to rule: refused");
            return refuse(
                StatusCode::FORBIDDEN,
                &format!(
                    "{} is a deputy: a deputy sees everything and rules nothing",
                    who.name
                ),
            )
            .into_response();
        }
        Caller::Arbiter(who) if who.role == Role::Relay => {
            return refuse(
                StatusCode::FORBIDDEN,
                "a relay rules only on behalf of a named arbiter: POST /arbiter/command with 'arbiter'",
            )
            .into_response();
        }
        Caller::Arbiter(who) => who.name.clone(),
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
        Ok(RecordKind::Arbiter {
            action,
            expect,
            reason,
            ..
        }) => {
            let name = action.as_str();
            (
                RecordKind::Arbiter {
                    action,
                    author: Some(author.clone()),
                    expect,
                    reason,
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
    match apply(access, kind, name, &author).await {
        Ok((status, v)) => (
            StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
            Json(v),
        )
            .into_response(),
        Err(r) => r.into_response(),
    }
}

/// Feeds `kind` (an action named `name`, authored by `author`) to the board
/// loop and waits for its decisions: 200 with `{"t", "action", "author",
/// "events"}` when applied; the board's refusal's status (409 or 422) with
/// `{"error": reason, "refused": the ruling_refused event, …}` when the
/// board refused it (issue 24.1).
pub async fn apply(
    access: &ArbiterAccess,
    kind: RecordKind,
    name: &str,
    author: &str,
) -> Result<(u16, Value), Refusal> {
    let (reply, rx) = tokio::sync::oneshot::channel();
    let cmd = ArbiterCommand { kind, reply };
    if access.commands.send(cmd).await.is_err() {
        return Err(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "the board loop has stopped",
        ));
    }
    match tokio::time::timeout(Duration::from_secs(5), rx).await {
        Ok(Ok(r)) => Ok(reply_of(r.t, name, author, &r.events)),
        _ => Err(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "the board loop did not answer",
        )),
    }
}

/// The reply to a ruling the board answered (`events`: its decisions at
/// round time `t`): `(200, {"t", "action", "author", "events"})` when
/// applied, `(409 | 422, {…, "error": reason, "refused": event})` when the
/// board refused it.
pub fn reply_of(t: u64, name: &str, author: &str, events: &[Event]) -> (u16, Value) {
    let mut v = json!({
        "t": t,
        "action": name,
        "author": author,
        "events": events.iter().map(|e| serde_json::to_value(e).unwrap_or(Value::Null)).collect::<Vec<_>>(),
    });
    let refused = events.iter().find_map(|e| match &e.kind {
        EventKind::RulingRefused { reason, status, .. } => Some((e, reason, *status)),
        _ => None,
    });
    match refused {
        Some((e, reason, status)) => {
            v["error"] = Value::from(reason.as_str());
            v["refused"] = serde_json::to_value(e).unwrap_or(Value::Null);
            (status, v)
        }
        None => (200, v),
    }
}

/// The `arbiter` record of action `action` with its JSON `body` (the keys
/// [`body_keys`] allows, `expect` among them), authored by `author`: 404
/// for an unknown action, 422 naming the key; queries are not rulings
/// (422). `expect_required`: a request without `expect` is refused 428
/// with an example (the console, the relay, MQTT, `eboard rule`).
pub fn ruling_record(
    action: &str,
    body: &[u8],
    author: &str,
    expect_required: bool,
) -> Result<RecordKind, Refusal> {
    if action == "query" {
        return Err(refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "action 'query' is not a ruling: POST /arbiter/query",
        ));
    }
    match parse_request(action, body)? {
        RecordKind::Arbiter { expect: None, .. } if expect_required => {
            Err(refuse(StatusCode::PRECONDITION_REQUIRED, &expect_missing()))
        }
        RecordKind::Arbiter {
            action,
            expect,
            reason,
            ..
        } => Ok(RecordKind::Arbiter {
            action,
            author: Some(author.to_owned()),
            expect,
            reason,
        }),
        _ => Err(refuse(StatusCode::UNPROCESSABLE_ENTITY, "not a ruling")),
    }
}

/// Why a ruling without `expect` is refused (428), with an example.
pub fn expect_missing() -> String {
    format!(
        "key 'expect': a ruling names the state it was made from (the state's 'ply', and the alert it answers), e.g. \"expect\": {}",
        crate::trace::EXPECT_EXAMPLE
    )
}

/// `body` (an object or null) with `expect` added (the console's request
/// carries it beside the body; the record and MQTT carry it in the body).
pub fn body_with_expect(body: Option<&Value>, expect: Option<&Value>) -> Value {
    let mut b = match body {
        Some(Value::Object(m)) => Value::Object(m.clone()),
        Some(Value::Null) | None => Value::Object(Map::new()),
        Some(other) => other.clone(),
    };
    if let (Value::Object(m), Some(e)) = (&mut b, expect) {
        m.insert("expect".into(), e.clone());
    }
    b
}

/// `GET /arbiter/state`: the undelayed snapshots (a board's, or the
/// relay's merged ones).
pub async fn state(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
) -> Response {
    match authorize(&s, &headers, &ext) {
        Ok(_) => match s.arbiter_channel() {
            Some(ch) => {
                let view = ch.view.borrow().clone();
                Json(serde_json::to_value(view.refs()).unwrap_or_default()).into_response()
            }
            None => refuse(StatusCode::NOT_FOUND, "no arbiter channel here").into_response(),
        },
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
