//! The arbiter API's handlers: `POST /arbiter/{action}` (a ruling or the
//! player device's query, [`crate::console::ruling::act`] decides) and
//! `GET /arbiter/state` (the undelayed snapshots). Requests need
//! `Authorization: Bearer TOKEN` (the `[arbiter] token`, or an account's
//! token) or the console's session cookie ([`super::auth`]). The actions,
//! their bodies and their records: [`crate::console::ruling`].

use super::auth::{authorize, authorize_caller};
use super::state::AppState;
use crate::console::refusal::refuse;
use crate::console::ruling;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::Extensions;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::Arc;

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
            404,
            "no arbiter API here: a relay takes rulings at POST /arbiter/command",
        )
        .into_response();
    };
    let caller = match authorize_caller(&s, &headers, &ext) {
        Ok(c) => c,
        Err(r) => return r.into_response(),
    };
    match ruling::act(access, &caller, &action, &bytes).await {
        Ok((status, v)) => (
            StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
            Json(v),
        )
            .into_response(),
        Err(r) => r.into_response(),
    }
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
            None => refuse(404, "no arbiter channel here").into_response(),
        },
        Err(r) => r.into_response(),
    }
}
