//! The arbiter's routes refuse what a browser sends on another site's
//! behalf, and what a proxy forwards in clear (issue 26 §5–§6;
//! `docs/server.md`, "Cross-site requests" and "Behind a proxy").
//!
//! - **Cross-site requests.** A request that changes state (any method but
//!   `GET`, `HEAD`, `OPTIONS`) on `/arbiter/…` or `/console…` and carries
//!   no `Authorization` header (so a cookie is its only credential, or
//!   none: the login) is refused with 403 when
//!   - its `Sec-Fetch-Site` is present and neither `same-origin` nor
//!     `none` (Fetch Metadata, W3C), or
//!   - its `Origin` is present and is not this server's own origin
//!     (`http[s]://` + the `Host` header; RFC 6454 §7, which browsers send
//!     on every `POST`), or
//!   - it has a body that is not `application/json` (a form or a
//!     `text/plain` body is what a cross-site page can send without a CORS
//!     preflight, which this server never grants).
//!
//!   `SameSite=Strict` stops the cookie on a cross-*site* request; these
//!   checks also stop a same-site page on another port or a sibling
//!   subdomain. A bearer token is no ambient credential (a page cannot add
//!   the header to a cross-origin request without a preflight), so a
//!   request with `Authorization` is left to the token check.
//! - **Forwarded in clear.** A plain-HTTP request from loopback that
//!   carries `Forwarded`, `X-Forwarded-For`, `X-Forwarded-Proto`,
//!   `X-Real-IP`, `Via` (which RFC 9110 §7.6.3 has every HTTP proxy add)
//!   or another of [`FORWARDING_HEADERS`] came through a proxy on this
//!   host, so from wherever the
//!   proxy's client is: the arbiter's routes refuse it (403, logged), as
//!   they refuse plain HTTP from another host
//!   ([`super::listener::guard`]). A proxy must pass TLS through
//!   (`docs/server.md`, "Behind a proxy").
//! - **Never framed, never kept.** Every answer on the arbiter's routes
//!   ([`protect`]) carries `X-Frame-Options: DENY` (RFC 7034) and a
//!   `Content-Security-Policy` with `frame-ancestors 'none'` (CSP Level 2,
//!   W3C), so another page cannot frame the logged-in console and trick
//!   the arbiter into clicking a ruling (clickjacking), and `Cache-Control:
//!   no-store` (RFC 9111 §5.2.2.5), so no browser or proxy keeps the
//!   arbiter's JSON, the console or the report. The public live page and
//!   feeds stay embeddable and cacheable (broadcasters frame them).

use super::listener::{is_arbiter_path, Connection};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// Headers a proxy adds to a request it forwards: RFC 7239's `Forwarded`,
/// the de facto `X-` ones (nginx, HAProxy, Apache's mod_proxy), RFC 9110
/// §7.6.3's `Via` (every HTTP proxy must add it), and the client-address
/// headers of CDNs and load balancers.
pub const FORWARDING_HEADERS: [&str; 11] = [
    "forwarded",
    "x-forwarded-for",
    "x-forwarded-proto",
    "x-real-ip",
    "via",
    "x-forwarded-host",
    "x-forwarded-port",
    "x-forwarded-server",
    "x-client-ip",
    "true-client-ip",
    "cf-connecting-ip",
];

/// The console's policy (CSP Level 3): its own scripts, styles (and the
/// round report's inline `<style>`), requests and images only; no plugin,
/// no `<base>`, forms to itself; never inside a frame.
pub const CONSOLE_CSP: &str =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
frame-ancestors 'none'";

/// The middleware (outermost, so refusals get them too): on the arbiter's
/// routes, the headers that keep the answer out of frames and caches (see
/// the module's doc); other routes pass unchanged.
pub async fn protect(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    if !is_arbiter_path(req.uri().path()) {
        return next.run(req).await;
    }
    let mut r = next.run(req).await;
    let h = r.headers_mut();
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONSOLE_CSP),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The middleware: the checks above on the arbiter's routes; other routes pass.
pub async fn check(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    if !is_arbiter_path(req.uri().path()) {
        return next.run(req).await;
    }
    let conn = req.extensions().get::<Connection>().copied();
    if let Some(why) = forwarded_in_clear(conn, req.headers()) {
        tracing::warn!(path = req.uri().path(), "{why}: refused");
        return refused(&why);
    }
    let tls = conn.is_some_and(|c| c.tls);
    if let Some(why) = cross_site(req.method(), req.headers(), tls) {
        tracing::warn!(
            peer = ?conn.map(|c| c.peer),
            path = req.uri().path(),
            "cross-site request refused: {why}"
        );
        return refused(&format!(
            "cross-site request refused: {why} (docs/server.md)"
        ));
    }
    next.run(req).await
}

fn refused(why: &str) -> Response {
    (StatusCode::FORBIDDEN, Json(json!({ "error": why }))).into_response()
}

/// Why a request that came over plain HTTP through a proxy is refused.
fn forwarded_in_clear(conn: Option<Connection>, headers: &HeaderMap) -> Option<String> {
    let conn = conn?;
    if conn.tls {
        return None;
    }
    let h = FORWARDING_HEADERS
        .iter()
        .find(|h| headers.contains_key(**h))?;
    Some(format!(
        "the arbiter's routes answer only over HTTPS end to end: this request came through a proxy in clear ({h}); pass TLS through the proxy (docs/server.md, \"Behind a proxy\")"
    ))
}

/// Why a state-changing request with no bearer token is cross-site, if it is.
/// `tls`: whether it came over TLS (this origin's scheme).
pub fn cross_site(method: &Method, headers: &HeaderMap, tls: bool) -> Option<String> {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
        || headers.contains_key(header::AUTHORIZATION)
    {
        return None;
    }
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(site) = text("sec-fetch-site") {
        if !matches!(site, "same-origin" | "none") {
            return Some(format!("Sec-Fetch-Site is {site}"));
        }
    }
    if let Some(origin) = text("origin") {
        let host = text("host").unwrap_or("");
        let ours = format!("{}://{host}", if tls { "https" } else { "http" });
        if !origin.eq_ignore_ascii_case(&ours) {
            return Some(format!("Origin {origin} is not {ours}"));
        }
    }
    let has_body = headers.contains_key(header::TRANSFER_ENCODING)
        || text("content-length").is_some_and(|n| n.trim() != "0");
    if has_body {
        let json = text("content-type").is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        });
        if !json {
            return Some(format!(
                "the body must be Content-Type: application/json (was {})",
                text("content-type").unwrap_or("none")
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn a_page_of_another_origin_is_refused_the_console_itself_is_not() {
        let post = Method::POST;
        let own = [
            ("host", "board7.local:8080"),
            ("origin", "https://board7.local:8080"),
            ("sec-fetch-site", "same-origin"),
            ("content-type", "application/json"),
            ("content-length", "12"),
        ];
        assert_eq!(cross_site(&post, &headers(&own), true), None);
        // The same over plain HTTP is another origin (the scheme).
        assert!(cross_site(&post, &headers(&own), false).is_some());
        // A page on another port of the same host (same site).
        let port = [
            ("host", "board7.local:8080"),
            ("origin", "https://board7.local:9000"),
            ("content-type", "application/json"),
        ];
        assert!(cross_site(&post, &headers(&port), true)
            .unwrap()
            .contains("Origin"));
        let site = [("host", "h:1"), ("sec-fetch-site", "same-site")];
        assert!(cross_site(&post, &headers(&site), true).is_some());
        // A form or text/plain body, even without Origin (an old browser).
        for ct in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
        ] {
            let mut h = headers(&[("host", "h:1"), ("content-length", "5")]);
            h.insert("content-type", HeaderValue::from_static(ct));
            assert!(cross_site(&post, &h, false).unwrap().contains(ct), "{ct}");
        }
        let none = headers(&[("host", "h:1"), ("content-length", "5")]);
        assert!(cross_site(&post, &none, false).is_some(), "no type");
        // Bodiless from a non-browser client; JSON with parameters.
        assert_eq!(cross_site(&post, &headers(&[("host", "h:1")]), false), None);
        let utf8 = headers(&[
            ("content-length", "5"),
            ("content-type", "application/json; charset=utf-8"),
        ]);
        assert_eq!(cross_site(&post, &utf8, false), None);
        // Reads and bearer tokens are not cross-site matters.
        let foreign = headers(&[("origin", "http://evil:1"), ("content-type", "text/plain")]);
        assert_eq!(cross_site(&Method::GET, &foreign, false), None);
        let mut bearer = foreign.clone();
        bearer.insert("authorization", HeaderValue::from_static("Bearer x"));
        assert_eq!(cross_site(&post, &bearer, false), None);
    }

    #[test]
    fn a_request_forwarded_in_clear_is_refused_over_tls_it_passes() {
        let conn = |tls| {
            Some(Connection {
                peer: "127.0.0.1:5000".parse().unwrap(),
                tls,
            })
        };
        for h in FORWARDING_HEADERS {
            let mut m = HeaderMap::new();
            m.insert(h, HeaderValue::from_static("192.0.2.9"));
            assert!(forwarded_in_clear(conn(false), &m).is_some(), "{h}");
            assert_eq!(forwarded_in_clear(conn(true), &m), None, "{h}");
        }
        assert_eq!(forwarded_in_clear(conn(false), &HeaderMap::new()), None);
        // Via alone (issue 41 §4): what every HTTP proxy adds.
        let mut via = HeaderMap::new();
        via.insert("via", HeaderValue::from_static("1.1 nginx"));
        let why = forwarded_in_clear(conn(false), &via).expect("Via is a proxy's");
        assert!(why.contains("(via)"), "{why}");
    }
}
