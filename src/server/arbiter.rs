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

use super::{AppState, ArbiterAccess};
use crate::daemon::ArbiterCommand;
use crate::trace::{ArbiterAction, QueryKind, RecordKind};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
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

/// The arbiter's access when the request carries the right bearer token.
pub fn authorize<'a>(s: &'a AppState, headers: &HeaderMap) -> Result<&'a ArbiterAccess, Refusal> {
    let Some(access) = s.arbiter.as_ref() else {
        return Err(refuse(StatusCode::NOT_FOUND, "no arbiter API here"));
    };
    let Some(token) = access.token.as_deref() else {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            "the arbiter API is off: no token configured ([arbiter] token or EBOARD_ARBITER_TOKEN)",
        ));
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .unwrap_or("");
    if bool::from(given.as_bytes().ct_eq(token.as_bytes())) {
        Ok(access)
    } else {
        Err(refuse(
            StatusCode::UNAUTHORIZED,
            "a valid bearer token is needed",
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultBody {
    result: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockBody {
    white_ms: u64,
    black_ms: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PositionBody {
    fen: String,
}

fn body<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, Refusal> {
    serde_json::from_slice(bytes)
        .map_err(|e| refuse(StatusCode::UNPROCESSABLE_ENTITY, &format!("body: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QueryBody {
    what: String,
    by: String,
    piece: Option<String>,
}

/// `POST /arbiter/query` `{"what": "time" | "last_move" | "piece", "by": "w" | "b", "piece": "N"}`:
/// Appendix E2.9d, information on demand for the visually impaired player
/// (his device holds a token); the answer is an `announce` event.
fn parse_query(bytes: &[u8]) -> Result<RecordKind, Refusal> {
    let b: QueryBody = body(bytes)?;
    let bad = |m: &str| refuse(StatusCode::UNPROCESSABLE_ENTITY, m);
    let what = match b.what.as_str() {
        "time" => QueryKind::Time,
        "last_move" => QueryKind::LastMove,
        "piece" => QueryKind::Piece,
        _ => return Err(bad("what: allowed are time, last_move, piece")),
    };
    let by = match b.by.as_str() {
        "w" => shakmaty::Color::White,
        "b" => shakmaty::Color::Black,
        _ => return Err(bad("by: allowed are w, b")),
    };
    let piece = match b.piece.as_deref() {
        Some(p) => Some(
            p.chars()
                .next()
                .filter(|_| p.chars().count() == 1)
                .and_then(shakmaty::Piece::from_char)
                .ok_or_else(|| bad("piece: a FEN piece letter"))?,
        ),
        None if what == QueryKind::Piece => {
            return Err(bad("piece: a piece query names the piece"))
        }
        None => None,
    };
    Ok(RecordKind::Query { what, by, piece })
}

fn parse_action(action: &str, bytes: &[u8]) -> Result<ArbiterAction, Refusal> {
    Ok(match action {
        "accept" => ArbiterAction::Accept,
        "overrule" => ArbiterAction::Overrule,
        "restore" => ArbiterAction::Restore,
        "pause" => ArbiterAction::Pause,
        "resume" => ArbiterAction::Resume,
        "result" => {
            let b: ResultBody = body(bytes)?;
            let r = ["1-0", "0-1", "1/2-1/2"]
                .into_iter()
                .find(|r| *r == b.result)
                .ok_or_else(|| {
                    refuse(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "result: allowed are 1-0, 0-1, 1/2-1/2",
                    )
                })?;
            ArbiterAction::SetResult(r)
        }
        "clock" => {
            let b: ClockBody = body(bytes)?;
            ArbiterAction::SetClock {
                white_ms: b.white_ms,
                black_ms: b.black_ms,
            }
        }
        "position" => {
            let b: PositionBody = body(bytes)?;
            if b.fen.parse::<shakmaty::fen::Fen>().is_err() {
                return Err(refuse(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    &format!("fen: \"{}\" is not a FEN", b.fen),
                ));
            }
            ArbiterAction::SetPosition(b.fen)
        }
        _ => {
            return Err(refuse(
                StatusCode::NOT_FOUND,
                "actions: accept, overrule, restore, result, clock, position, pause, resume, query",
            ))
        }
    })
}

/// `POST /arbiter/{action}`.
pub async fn act(
    State(s): State<Arc<AppState>>,
    Path(action): Path<String>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    let access = match authorize(&s, &headers) {
        Ok(a) => a,
        Err(r) => return r.into_response(),
    };
    let (kind, name) = if action == "query" {
        match parse_query(&bytes) {
            Ok(k) => (k, "query"),
            Err(r) => return r.into_response(),
        }
    } else {
        match parse_action(&action, &bytes) {
            Ok(a) => {
                let name = a.as_str();
                (
                    RecordKind::Arbiter {
                        action: a,
                        author: Some(access.name.clone()),
                    },
                    name,
                )
            }
            Err(r) => return r.into_response(),
        }
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
            "author": access.name,
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
