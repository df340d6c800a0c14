//! Who may call the arbiter API, and how a refusal is answered: the
//! bearer token or the console's session cookie ([`crate::server::access`]),
//! compared in constant time; the caller's role (a deputy rules nothing, a
//! relay rules on behalf of a named arbiter); the client's address and the
//! lockout's `429` with `Retry-After`. Re-exported by [`super`].

use crate::server::access::{Role, COOKIE};
use crate::server::{AppState, PlayerDevice};
use axum::extract::ConnectInfo;
use axum::http::Extensions;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;
use subtle::ConstantTimeEq;

/// A refused request: the status and why.
#[derive(Debug)]
pub struct Refusal(pub StatusCode, pub String);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let Refusal(status, message) = self;
        let retry = (status == StatusCode::TOO_MANY_REQUESTS)
            .then(|| {
                message
                    .split("retry in ")
                    .nth(1)
                    .and_then(|x| x.split(' ').next())
                    .map(str::to_owned)
            })
            .flatten();
        let mut r = (status, Json(json!({ "error": message }))).into_response();
        if let Some(v) = retry.and_then(|s| header::HeaderValue::from_str(&s).ok()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
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

/// A refusal with `status` and `message`.
pub fn refuse(status: StatusCode, message: &str) -> Refusal {
    Refusal(status, message.to_owned())
}

/// Who called: an arbiter's account (or the `[arbiter] token`), or the
/// visually impaired player's own device.
#[derive(Debug, Clone)]
pub enum Caller<'a> {
    /// An arbiter's account: his name and role (a relay acts on behalf of
    /// the arbiter its request names).
    Arbiter(Who),
    /// The player's device token: queries for his side only (E2.9d).
    Player(&'a PlayerDevice),
}

/// An authenticated account: the name journaled as the author, and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Who {
    /// The account's name.
    pub name: String,
    /// Its role.
    pub role: Role,
}

/// The arbiter's side of a request that may read it (any role); the
/// player's device token is refused here (403: not the arbiter).
pub fn authorize(s: &AppState, headers: &HeaderMap, ext: &Extensions) -> Result<Who, Refusal> {
    match authorize_caller(s, headers, ext)? {
        Caller::Arbiter(who) => Ok(who),
        Caller::Player(_) => Err(refuse(
            StatusCode::FORBIDDEN,
            "the player's device may only ask (POST /arbiter/query), never act as the arbiter",
        )),
    }
}

/// The arbiter's side of a request that rules: only the `arbiter` role
/// (and a relay, on behalf of an arbiter); a deputy gets 403 (logged).
pub fn authorize_ruling(
    s: &AppState,
    headers: &HeaderMap,
    ext: &Extensions,
    what: &str,
) -> Result<Who, Refusal> {
    let who = authorize(s, headers, ext)?;
    if who.role == Role::Deputy {
        tracing::warn!(name = %who.name, what, "a deputy tried to rule: refused");
        return Err(refuse(
            StatusCode::FORBIDDEN,
            &format!(
                "{} is a deputy: a deputy sees everything and rules nothing",
                who.name
            ),
        ));
    }
    Ok(who)
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

/// The session cookie's value, empty when none.
pub fn session_cookie(headers: &HeaderMap) -> &str {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
        .next()
        .unwrap_or("")
}

/// The client's address (the connection's peer, as the listener records
/// it; unspecified when the request did not come through
/// [`crate::server::listener::serve`]).
pub fn client_ip(ext: &Extensions) -> IpAddr {
    ext.get::<crate::server::listener::Connection>()
        .map(|c| c.peer.ip())
        .or_else(|| ext.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()))
        .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))
}

/// Whether the request came over TLS (the session cookie is then `Secure`).
pub fn over_tls(ext: &Extensions) -> bool {
    ext.get::<crate::server::listener::Connection>()
        .is_some_and(|c| c.tls)
}

/// 429 with `Retry-After` (whole seconds, rounded up).
pub fn too_many(wait: Duration) -> Refusal {
    Refusal(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many failed authentications from this address: retry in {} s",
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
        ),
    )
}

/// Who calls: a session cookie of the console, a bearer token of an account
/// or of `[arbiter] token`, or the player device's token (each compared in
/// constant time). 404 without an arbiter API, 403 when no account is
/// configured, 401 for any other token (counted per address: 429 once
/// blocked, [`super::access`]).
pub fn authorize_caller<'a>(
    s: &'a AppState,
    headers: &HeaderMap,
    ext: &Extensions,
) -> Result<Caller<'a>, Refusal> {
    let caller = check_caller(s, headers, ext)?;
    credentials_shown(ext);
    Ok(caller)
}

/// The request's connection showed valid credentials on an arbiter or
/// console route: it enters the arbiter's reserve
/// ([`crate::server::admission::Slot::credentials_shown`]).
pub fn credentials_shown(ext: &Extensions) {
    if let Some(slot) = ext.get::<Arc<crate::server::admission::Slot>>() {
        slot.credentials_shown();
    }
}

/// [`authorize_caller`] without moving the connection into the reserve.
fn check_caller<'a>(
    s: &'a AppState,
    headers: &HeaderMap,
    ext: &Extensions,
) -> Result<Caller<'a>, Refusal> {
    let console = s.console.as_deref();
    let access = s.arbiter.as_ref();
    if access.is_none() && console.is_none() {
        return Err(refuse(StatusCode::NOT_FOUND, "no arbiter API here"));
    }
    let accounts = console.map(|c| &c.accounts).filter(|a| !a.is_empty());
    let legacy = access.and_then(|a| a.token.as_deref());
    if accounts.is_none() && legacy.is_none() {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            "the arbiter API is off: no token configured ([arbiter] token, [[arbiter.accounts]] or EBOARD_ARBITER_TOKEN)",
        ));
    }
    let ip = client_ip(ext);
    let now = Instant::now();
    // A blocked address is refused only what it would guess at: an open
    // session and a right token (at least 128 random bits) are taken, so
    // that someone failing behind the arbiter's address (a venue's NAT)
    // cannot keep him out (docs/console.md, "Security model").
    let blocked = accounts.and_then(|a| a.blocked(ip, now));
    let given = bearer(headers);
    if !given.is_empty() {
        if let (Some(t), Some(a)) = (legacy, access) {
            if bool::from(given.as_bytes().ct_eq(t.as_bytes())) {
                return Ok(Caller::Arbiter(Who {
                    name: a.name.clone(),
                    role: Role::Arbiter,
                }));
            }
        }
        if let Some(acc) = accounts.and_then(|a| a.by_token(given)) {
            if let Some(a) = accounts {
                a.succeeded(ip);
            }
            return Ok(Caller::Arbiter(Who {
                name: acc.name.clone(),
                role: acc.role,
            }));
        }
        if let Some(p) = access.and_then(|a| a.player.as_ref()) {
            if bool::from(given.as_bytes().ct_eq(p.token.as_bytes())) {
                return Ok(Caller::Player(p));
            }
        }
        if let Some(wait) = blocked {
            return Err(too_many(wait));
        }
        tracing::warn!(client = %ip, "arbiter API: a wrong bearer token");
        if let Some(wait) = accounts.and_then(|a| a.failed(ip, now)) {
            tracing::warn!(client = %ip, block_s = wait.as_secs(), "arbiter API: failed authentications: address blocked");
            return Err(too_many(wait));
        }
    } else if let Some(a) = accounts {
        let id = session_cookie(headers);
        if !id.is_empty() {
            if let Some(session) = a.session(id, crate::server::console::unix_ms()) {
                return Ok(Caller::Arbiter(Who {
                    name: session.name,
                    role: session.role,
                }));
            }
        }
    }
    if let Some(wait) = blocked {
        return Err(too_many(wait));
    }
    Err(refuse(
        StatusCode::UNAUTHORIZED,
        "a valid bearer token or a console session is needed",
    ))
}
