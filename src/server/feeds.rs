//! The polled feeds: `/games.pgn`, the LiveChess tree and `/boards.json`.
//!
//! Polling etiquette ([`conditional`]): every answer carries a strong
//! `ETag` (a hash of the exact bytes, so one per content version) and
//! `Last-Modified` (the newest snapshot's time); `If-None-Match` with that
//! tag (or `*`), or failing that an `If-Modified-Since` not before it, is
//! answered `304 Not Modified` without a body (RFC 9110 §13.1.1, §13.1.3,
//! §13.2.2: `If-None-Match` wins). CORS: `Access-Control-Allow-Origin: *`
//! (public feeds only), and `OPTIONS` preflights are answered
//! ([`preflight`]).

use super::state::AppState;
use super::subscription::FilterQuery;
use crate::broadcast::delay::View;
use crate::broadcast::livechess;
use crate::config::instant::{civil_from_days, days_from_civil};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::Arc;
use tower_http::compression::CompressionLayer;

/// The polled feeds' routes (`/games.pgn`, `/tournament.json`,
/// `/boards.json`, `/round-{r}/…`), each answering `OPTIONS` preflights,
/// compressed with gzip when the request accepts it (tower-http
/// `CompressionLayer`; small bodies are sent as they are).
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/games.pgn", get(games_pgn).options(preflight))
        .route("/tournament.json", get(tournament).options(preflight))
        .route("/boards.json", get(boards).options(preflight))
        .route("/{round}/{file}", get(round_file).options(preflight))
        .layer(CompressionLayer::new().gzip(true))
}

/// A strong entity tag of `body`: FNV-1a (64 bits) and the length, quoted.
pub fn etag(body: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in body {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("\"{:x}-{h:016x}\"", body.len())
}

const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Unix seconds as an HTTP date (IMF-fixdate, RFC 9110 §5.6.7).
pub fn http_date(unix_s: u64) -> String {
    let days = (unix_s / 86_400) as i64;
    let secs = unix_s % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{}, {d:02} {} {y:04} {:02}:{:02}:{:02} GMT",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(m - 1) as usize],
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) as Unix seconds;
/// `None` for anything else (the header is then ignored, RFC 9110 §13.1.3).
pub fn parse_http_date(s: &str) -> Option<u64> {
    let p: Vec<&str> = s.split_whitespace().collect();
    if p.len() != 6 || p[5] != "GMT" {
        return None;
    }
    let d: i64 = p[1].parse().ok()?;
    let m = MONTHS.iter().position(|x| *x == p[2])? as i64 + 1;
    let y: i64 = p[3].parse().ok()?;
    let t: Vec<u64> = p[4]
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    if t.len() != 3 || !(1..=31).contains(&d) || t[0] > 23 || t[1] > 59 || t[2] > 60 {
        return None;
    }
    let days = u64::try_from(days_from_civil(y, m, d)).ok()?;
    Some(days * 86_400 + t[0] * 3600 + t[1] * 60 + t[2])
}

/// The newest snapshot's Unix time, whole seconds.
fn modified_s(view: &View) -> u64 {
    view.games
        .iter()
        .map(|g| g.info.unix_ms(g.t) / 1000)
        .max()
        .unwrap_or(0)
}

/// `body` with its validators, or `304` when the request's validators
/// match (see the module docs).
pub fn conditional(
    req: &HeaderMap,
    body: Vec<u8>,
    content_type: &'static str,
    modified_s: u64,
) -> Response {
    // A strong tag names one representation: the gzip one differs
    // (RFC 9110 §8.8.3.3), so a client asking for gzip gets its own.
    let gzip = req
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|c| c.trim().starts_with("gzip")));
    let mut tag = etag(&body);
    if gzip {
        tag.insert_str(tag.len() - 1, "-gz");
    }
    let last_modified = http_date(modified_s);
    let not_modified = match req.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) {
        Some(inm) => inm.split(',').map(str::trim).any(|t| t == "*" || t == tag),
        None => req
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_http_date)
            .is_some_and(|since| modified_s <= since),
    };
    let mut headers = HeaderMap::new();
    let mut put = |k, v: &str| {
        if let Ok(v) = HeaderValue::from_str(v) {
            headers.insert(k, v);
        }
    };
    put(header::ETAG, &tag);
    put(header::LAST_MODIFIED, &last_modified);
    put(header::CACHE_CONTROL, "no-cache");
    put(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    put(header::ACCESS_CONTROL_EXPOSE_HEADERS, "ETag, Last-Modified");
    put(header::VARY, "Accept-Encoding");
    if not_modified {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    put(header::CONTENT_TYPE, content_type);
    (headers, body).into_response()
}

/// Answers a CORS preflight (`OPTIONS`) for the public feeds: any origin,
/// `GET` and `HEAD`, the conditional request headers; cached a day.
pub async fn preflight() -> Response {
    (
        StatusCode::NO_CONTENT,
        [
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD, OPTIONS"),
            (
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                "If-None-Match, If-Modified-Since, Last-Event-ID, Cache-Control",
            ),
            (header::ACCESS_CONTROL_MAX_AGE, "86400"),
        ],
    )
        .into_response()
}

fn json_of(req: &HeaderMap, v: &serde_json::Value, modified: u64) -> Response {
    let body = serde_json::to_vec(v).unwrap_or_default();
    conditional(req, body, "application/json", modified)
}

/// Every game of the feed, in (round, board) order; `?game=R.B` only that
/// game, `?round=R` only that round's (the live page's downloads: the
/// game's PGN, the round's, as lichess's broadcast page offers both); 400
/// naming the parameter when it is malformed. The filter's game or round
/// not in the feed (yet) is an empty body, as an empty feed is.
pub async fn games_pgn(
    State(s): State<Arc<AppState>>,
    Query(q): Query<FilterQuery>,
    req: HeaderMap,
) -> Response {
    let filter = match q.filter() {
        Ok(f) => f,
        Err(e) => return (StatusCode::BAD_REQUEST, e).into_response(),
    };
    let view = s.public.view.borrow().clone();
    let text: String = view
        .games
        .iter()
        .filter(|g| filter.follows(g.info.round, g.info.board))
        .map(|g| g.pgn.as_str())
        .collect();
    conditional(
        &req,
        text.into_bytes(),
        "application/x-chess-pgn; charset=utf-8",
        modified_s(&view),
    )
}

/// `tournament.json`.
pub async fn tournament(State(s): State<Arc<AppState>>, req: HeaderMap) -> Response {
    let view = s.public.view.borrow().clone();
    json_of(
        &req,
        &livechess::tournament_json(&view.refs()),
        modified_s(&view),
    )
}

/// The snapshots, for a relay.
pub async fn boards(State(s): State<Arc<AppState>>, req: HeaderMap) -> Response {
    let view = s.public.view.borrow().clone();
    let list: Vec<&crate::broadcast::public::Snapshot> = view.refs();
    let v = serde_json::to_value(list).unwrap_or_default();
    json_of(&req, &v, modified_s(&view))
}

fn number(seg: &str, prefix: &str, suffix: &str) -> Option<u32> {
    seg.strip_prefix(prefix)?.strip_suffix(suffix)?.parse().ok()
}

/// `round-{r}/index.json` and `round-{r}/game-{b}.json`.
pub async fn round_file(
    State(s): State<Arc<AppState>>,
    Path((round, file)): Path<(String, String)>,
    req: HeaderMap,
) -> Response {
    let Some(r) = number(&round, "round-", "") else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let view = s.public.view.borrow().clone();
    if file == "index.json" {
        return match livechess::round_index_json(&view.refs(), r) {
            Some(v) => json_of(&req, &v, modified_s(&view)),
            None => StatusCode::NOT_FOUND.into_response(),
        };
    }
    let Some(b) = number(&file, "game-", ".json") else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match view
        .games
        .iter()
        .find(|g| g.info.round == r && g.info.board == b)
    {
        Some(g) => json_of(&req, &g.game, g.info.unix_ms(g.t) / 1000),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_round_trip() {
        // RFC 9110's example.
        assert_eq!(http_date(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        for t in [0, 951_782_400, 1_795_392_000, 4_102_444_799] {
            assert_eq!(parse_http_date(&http_date(t)), Some(t), "{}", http_date(t));
        }
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), None);
        assert_eq!(parse_http_date("garbage"), None);
    }

    fn status(req: &[(&str, &str)], body: &[u8], modified: u64) -> StatusCode {
        let mut h = HeaderMap::new();
        for (k, v) in req {
            h.insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        conditional(&h, body.to_vec(), "text/plain", modified).status()
    }

    #[test]
    fn validators_give_304_only_for_the_same_content() {
        let tag = etag(b"1. e4");
        assert_ne!(tag, etag(b"1. d4"), "one tag per content");
        assert!(tag.starts_with('"') && !tag.starts_with("W/"), "strong");
        assert_eq!(status(&[], b"1. e4", 100), StatusCode::OK);
        assert_eq!(
            status(&[("if-none-match", &tag)], b"1. e4", 100),
            StatusCode::NOT_MODIFIED
        );
        assert_eq!(
            status(&[("if-none-match", &tag)], b"1. d4", 100),
            StatusCode::OK
        );
        let list = format!("\"x\", {tag}");
        assert_eq!(
            status(&[("if-none-match", &list)], b"1. e4", 100),
            StatusCode::NOT_MODIFIED
        );
        let since = http_date(100);
        assert_eq!(
            status(&[("if-modified-since", &since)], b"x", 100),
            StatusCode::NOT_MODIFIED
        );
        assert_eq!(
            status(&[("if-modified-since", &since)], b"x", 101),
            StatusCode::OK
        );
        // If-None-Match wins over If-Modified-Since.
        assert_eq!(
            status(
                &[
                    ("if-none-match", "\"other\""),
                    ("if-modified-since", &since)
                ],
                b"x",
                100
            ),
            StatusCode::OK
        );
    }
}
