//! `POST /console/login` (`docs/console.md`, "Security model"; issue 26
//! §1–§2): a name and a secret give a session cookie, under the back-off
//! ([`super::backoff`]): charged before the check, one login in flight per
//! source, at most [`super::access::MAX_CHECKS`] argon2id checks at once
//! process-wide (503 with `Retry-After` when they are all taken), and a
//! device cookie that lets the arbiter in while his account is blocked.

use super::access::{NotNow, Role, COOKIE, DEVICE_COOKIE};
use super::arbiter::{client_ip, over_tls, refuse, too_many};
use super::console::unix_ms;
use super::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, Extensions, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a login waits for a free password check before 503.
const CHECK_WAIT: Duration = Duration::from_secs(2);

/// 429: another login from this source is being checked.
fn login_in_flight() -> Response {
    let mut r = refuse(
        StatusCode::TOO_MANY_REQUESTS,
        "another login from this address is being checked: retry in 1 s",
    )
    .into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// 503: every password check is taken (issue 26 §1).
fn busy() -> Response {
    let mut r = refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "the server is busy checking other logins: retry in 2 s",
    )
    .into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
    r
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Login {
    name: String,
    secret: String,
}

/// `POST /console/login` `{"name", "secret"}`: a session cookie, or 401
/// (counted per address; 429 with `Retry-After` once blocked).
pub async fn login(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
    bytes: Bytes,
) -> Response {
    let Some(console) = s.console.clone() else {
        return refuse(StatusCode::NOT_FOUND, "no console here").into_response();
    };
    let ip = client_ip(&ext);
    let now = Instant::now();
    let l: Login = match serde_json::from_slice(&bytes) {
        Ok(l) => l,
        Err(e) => {
            if let Some(wait) = console.accounts.blocked(ip, now) {
                return too_many(wait).into_response();
            }
            return refuse(
                StatusCode::UNPROCESSABLE_ENTITY,
                &format!("body: {e} (expected {{\"name\": …, \"secret\": …}})"),
            )
            .into_response();
        }
    };
    // Charged as a failure before the check (refunded on success), one
    // login in flight per source; an account's login waits for that
    // account's block only: someone failing behind the same address
    // cannot keep its arbiter out (issue 26 §1–§2).
    let device = cookie_value(&headers, DEVICE_COOKIE).to_owned();
    let attempt = match console.accounts.begin_login(ip, &l.name, &device, now) {
        Ok(a) => a,
        Err(NotNow::Blocked(wait)) => return too_many(wait).into_response(),
        Err(NotNow::InFlight) => return login_in_flight().into_response(),
    };
    // The slow check (argon2id) takes one of the few permits; the permit
    // goes with the check, so a client that leaves cannot free it early.
    let permit = if console.accounts.check_is_slow(&l.name) {
        match console.accounts.check_permit(CHECK_WAIT).await {
            Some(p) => Some(p),
            None => {
                console.accounts.login_not_checked(attempt);
                tracing::warn!(client = %ip, "console: login refused: the password checks are busy");
                return busy().into_response();
            }
        }
    } else {
        None
    };
    let c = console.clone();
    let name = l.name.clone();
    let found = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        c.accounts
            .verify(&l.name, &l.secret)
            .filter(|a| a.role != Role::Relay)
            .cloned()
    })
    .await
    .ok()
    .flatten();
    let Some(account) = found else {
        tracing::warn!(client = %ip, name, "console: login failed");
        if let Some(wait) = attempt.block {
            tracing::warn!(client = %ip, name, block_s = wait.as_secs(), "console: failed logins: blocked (an account's logins from every address; a name of no account, this address)");
            return too_many(wait).into_response();
        }
        return refuse(StatusCode::UNAUTHORIZED, "wrong name or secret").into_response();
    };
    console.accounts.login_succeeded(attempt);
    super::arbiter::credentials_shown(&ext);
    let id = console.accounts.open_session(&account, unix_ms());
    let ttl = console.accounts.session_ttl.as_secs();
    let secure = if console.accounts.secure_cookie || over_tls(&ext) {
        "; Secure"
    } else {
        ""
    };
    let cookie = format!("{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={ttl}{secure}");
    // The device he logged in from: a later login from it is not held back
    // by his account's block (issue 26 §2).
    let device = if console.accounts.is_known_device(&device, &account.name) {
        device
    } else {
        console.accounts.new_device(&account.name, Instant::now())
    };
    let device_cookie = format!(
        "{DEVICE_COOKIE}={device}; Path=/console/login; HttpOnly; SameSite=Strict; Max-Age={DEVICE_TTL_S}{secure}"
    );
    tracing::info!(client = %ip, name = %account.name, role = account.role.as_str(), "console: logged in");
    let mut r = Json(json!({
        "name": account.name,
        "role": account.role.as_str(),
        "expires_in_s": ttl,
    }))
    .into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&device_cookie) {
        r.headers_mut().append(header::SET_COOKIE, v);
    }
    r
}

/// How long the browser keeps the device cookie, s (a season).
const DEVICE_TTL_S: u64 = 180 * 24 * 3600;

/// The value of cookie `name` in the request, empty when none.
fn cookie_value<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().strip_prefix(name)?.strip_prefix('='))
        .next()
        .unwrap_or("")
}
