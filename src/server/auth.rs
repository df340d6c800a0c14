//! The credentials a request shows and how a refusal is written out: the
//! bearer token, the console's session cookie and the client's address,
//! read from the request and handed to the console's
//! [`identify`](crate::console::identify::identify); a [`Refusal`] as the
//! JSON answer with its status, `Retry-After` and `WWW-Authenticate`.
//! Valid credentials move the connection into the arbiter's reserve
//! ([`super::admission`]).

use super::listener::Connection;
use super::state::AppState;
use crate::console::access::COOKIE;
use crate::console::identify::{identify, may_rule, Caller};
use crate::console::refusal::Refusal;
use crate::console::role::Who;
use axum::extract::ConnectInfo;
use axum::http::Extensions;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut r = (status, Json(json!({ "error": self.message }))).into_response();
        if let Some(s) = self.retry_after_s {
            r.headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from(s));
        }
        if status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer realm=\"eboard arbiter\""),
            );
        }
        r
    }
}

/// The arbiter's side of a request that may read it (any role); the
/// player's device token is refused here (403: not the arbiter).
pub fn authorize(s: &AppState, headers: &HeaderMap, ext: &Extensions) -> Result<Who, Refusal> {
    authorize_caller(s, headers, ext)?.arbiter()
}

/// The arbiter's side of a request that rules (`what`: the request, for
/// the log): only the `arbiter` role (and a relay, on behalf of an
/// arbiter); a deputy gets 403 (logged).
pub fn authorize_ruling(
    s: &AppState,
    headers: &HeaderMap,
    ext: &Extensions,
    what: &str,
) -> Result<Who, Refusal> {
    may_rule(authorize(s, headers, ext)?, what)
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

/// The value of cookie `name`, empty when none.
pub fn cookie_value<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().strip_prefix(name)?.strip_prefix('='))
        .next()
        .unwrap_or("")
}

/// The session cookie's value, empty when none.
pub fn session_cookie(headers: &HeaderMap) -> &str {
    cookie_value(headers, COOKIE)
}

/// The client's address (the connection's peer, as the listener records
/// it; unspecified when the request did not come through
/// [`super::listener::serve`]).
pub fn client_ip(ext: &Extensions) -> IpAddr {
    ext.get::<Connection>()
        .map(|c| c.peer.ip())
        .or_else(|| ext.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()))
        .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))
}

/// Whether the request came over TLS (the session cookie is then `Secure`).
pub fn over_tls(ext: &Extensions) -> bool {
    ext.get::<Connection>().is_some_and(|c| c.tls)
}

/// Who calls ([`identify`]: a session cookie of the console, a bearer
/// token of an account or of `[arbiter] token`, or the player device's
/// token); valid credentials move the connection into the reserve.
pub fn authorize_caller<'a>(
    s: &'a AppState,
    headers: &HeaderMap,
    ext: &Extensions,
) -> Result<Caller<'a>, Refusal> {
    let caller = identify(
        s.console.as_deref(),
        s.arbiter.as_ref(),
        bearer(headers),
        session_cookie(headers),
        client_ip(ext),
        Instant::now(),
    )?;
    credentials_shown(ext);
    Ok(caller)
}

/// The request's connection showed valid credentials on an arbiter or
/// console route: it enters the arbiter's reserve
/// ([`super::admission::Slot::credentials_shown`]).
pub fn credentials_shown(ext: &Extensions) {
    if let Some(slot) = ext.get::<Arc<super::admission::Slot>>() {
        slot.credentials_shown();
    }
}
