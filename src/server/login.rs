//! `POST /console/login` over HTTP (`docs/console.md`, "Security model";
//! issue 26 §1–§2): the console logs in ([`crate::console::login`]); this
//! handler reads the client's address and its device cookie and writes the
//! session cookie (`HttpOnly`, `SameSite=Strict`, `Secure` over TLS or with
//! `secure_cookie`) and the device cookie (sent to the login only) that
//! lets the arbiter in while his account is blocked.

use super::auth::{client_ip, cookie_value, credentials_shown, over_tls};
use super::state::AppState;
use crate::console::access::{COOKIE, DEVICE_COOKIE};
use crate::console::login::log_in;
use crate::console::refusal::refuse;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, Extensions, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::sync::Arc;

/// How long the browser keeps the device cookie, s (a season).
const DEVICE_TTL_S: u64 = 180 * 24 * 3600;

/// `POST /console/login` `{"name", "secret"}`: the session cookie, or the
/// refusal (401, 422, 429 or 503 with `Retry-After`).
pub async fn login(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: Extensions,
    bytes: Bytes,
) -> Response {
    let Some(console) = s.console.clone() else {
        return refuse(404, "no console here").into_response();
    };
    let device = cookie_value(&headers, DEVICE_COOKIE);
    let l = match log_in(&console, client_ip(&ext), device, &bytes).await {
        Ok(l) => l,
        Err(r) => return r.into_response(),
    };
    credentials_shown(&ext);
    let secure = if console.accounts.secure_cookie || over_tls(&ext) {
        "; Secure"
    } else {
        ""
    };
    let (id, ttl) = (&l.session, l.ttl_s);
    let cookie = format!("{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={ttl}{secure}");
    let device_cookie = format!(
        "{DEVICE_COOKIE}={}; Path=/console/login; HttpOnly; SameSite=Strict; Max-Age={DEVICE_TTL_S}{secure}",
        l.device
    );
    let mut body = json!({
        "name": l.account.name,
        "role": l.account.role.as_str(),
        "expires_in_s": ttl,
    });
    // The event's zone (issue 40 §9), as `GET /console/me` gives it.
    if let (serde_json::Value::Object(z), Some(o)) = (
        console.zone_json(crate::console::wall_clock::unix_ms()),
        body.as_object_mut(),
    ) {
        o.extend(z);
    }
    let mut r = Json(body).into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&device_cookie) {
        r.headers_mut().append(header::SET_COOKIE, v);
    }
    r
}
