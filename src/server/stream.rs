//! The event streams: server-sent events and WebSocket. A new client gets
//! the state of every game first (`{"type": "state", …}`), then the
//! messages as they are published. `?game=R.B` follows one game and
//! `?round=R` one round ([`GameFilter`]): a spectator of one board gets
//! only that board's messages (and the alerts about no one game), so a
//! relay's output grows with what its clients follow, not with the event. A client that falls behind the channel's
//! capacity is dropped (it reconnects and gets a fresh state); nothing a
//! client does can hold up the board loop.

use super::admission::StreamTicket;
use super::auth::authorize;
use super::sse::{closed, sse, sse_ticket, stream_ticket};
use super::state::AppState;
use super::subscription::{FilterQuery, Subscription};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use std::time::Duration;

/// How long a reconnecting client's `Last-Event-ID` not yet published is
/// waited for ([`Subscription::resume_waiting`]).
pub const RESUME_WAIT: Duration = Duration::from_secs(2);

/// How long a WebSocket send may wait on a slow client before it is dropped.
pub const WS_SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// The `Last-Event-ID` a reconnecting SSE client sends (WHATWG HTML §9.2).
fn last_event_id(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
}

/// The 400 that names the bad filter parameter.
fn bad_filter(e: String) -> Response {
    (StatusCode::BAD_REQUEST, e).into_response()
}

/// `GET /events[?game=R.B|?round=R]`: the public stream.
/// A `Last-Event-ID` resumes after that message ([`Subscription::resume`]).
/// Past the stream caps: 503 ([`stream_ticket`]).
pub async fn sse_public(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: axum::http::Extensions,
    Query(q): Query<FilterQuery>,
) -> Response {
    let f = match q.filter() {
        Ok(f) => f,
        Err(e) => return bad_filter(e),
    };
    let admitted = match sse_ticket(&ext, last_event_id(&headers)) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let sub = Subscription::resume_waiting(&s.public, f, admitted.last, RESUME_WAIT).await;
    let mut r = sse(sub, true, admitted.ticket);
    if let Some(v) = admitted
        .note
        .and_then(|n| axum::http::HeaderValue::from_str(&n).ok())
    {
        r.headers_mut().insert(super::sse::LEASE_HEADER, v);
    }
    r
}

/// `GET /arbiter/events[?game=R.B|?round=R]`: every event, undelayed
/// (token); a `Last-Event-ID` resumes as on `/events`.
pub async fn sse_arbiter(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    ext: axum::http::Extensions,
    Query(q): Query<FilterQuery>,
) -> Response {
    let f = match q.filter() {
        Ok(f) => f,
        Err(e) => return bad_filter(e),
    };
    match authorize(&s, &headers, &ext) {
        Ok(_) => match s.arbiter_channel() {
            Some(ch) => sse(
                Subscription::resume_waiting(ch, f, last_event_id(&headers), RESUME_WAIT).await,
                false,
                None, // the arbiter's connection is in the reserve, not under the public cap
            ),
            None => (StatusCode::NOT_FOUND, "no arbiter channel here").into_response(),
        },
        Err(r) => r.into_response(),
    }
}

/// `GET /ws[?game=R.B|?round=R]`: the public stream over WebSocket (text
/// frames, one JSON each). Past the stream caps: 503 ([`stream_ticket`]).
/// The client must answer a ping within the listener's
/// [`stream_deadline`](super::Limits::stream_deadline) (browsers do so by
/// themselves), or it is closed: a client that stopped reading is found
/// even when everything sent to it fits the socket buffers.
pub async fn ws_public(
    State(s): State<Arc<AppState>>,
    ext: axum::http::Extensions,
    Query(q): Query<FilterQuery>,
    ws: WebSocketUpgrade,
) -> Response {
    let sub = match q.filter() {
        Ok(f) => Subscription::new(&s.public, f),
        Err(e) => return bad_filter(e),
    };
    let ticket = match stream_ticket(&ext, false) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let deadline = ticket
        .as_ref()
        .map_or(WS_PING_DEADLINE, |t| t.slot().limits().stream_deadline);
    ws.max_message_size(4096)
        .on_upgrade(move |socket| ws_session(socket, sub, ticket, deadline))
}

/// The ping deadline of a WebSocket served without the listener.
pub const WS_PING_DEADLINE: Duration = Duration::from_secs(10);

/// One WebSocket client: its messages, a ping every `deadline`, closed when
/// the previous ping is unanswered by the next (or a send waits
/// [`WS_SEND_TIMEOUT`]). A ping carries 8 random bytes and only a pong
/// echoing them answers it (RFC 6455 §5.5.3): a client that writes pongs
/// without reading is closed too. `ticket` holds its stream place and its
/// connection's slot until it ends; the first echoed ping proves the
/// client reads ([`StreamTicket::prove`]); until then the stream may be
/// closed to admit another when the stream cap is full.
async fn ws_session(
    mut socket: WebSocket,
    mut sub: Subscription,
    ticket: Option<StreamTicket>,
    deadline: Duration,
) {
    let start = tokio::time::Instant::now() + deadline;
    let mut ping = tokio::time::interval_at(start, deadline);
    // The payload of the ping not yet answered: a fresh random one each
    // time, so only a client that read the ping can echo it (a pong sent
    // unasked, RFC 6455 §5.5.3, answers nothing).
    let mut unanswered: Option<[u8; 8]> = None;
    loop {
        tokio::select! {
            m = sub.next() => {
                let Some(m) = m else { break };
                let send = socket.send(Message::text(m.as_ref()));
                match tokio::time::timeout(WS_SEND_TIMEOUT, send).await {
                    Ok(Ok(())) => {}
                    _ => break,
                }
            }
            r = socket.recv() => match r {
                // A pong that echoes no ping of ours falls to `_`: ignored.
                Some(Ok(Message::Pong(p))) if unanswered.is_some_and(|n| p.as_ref() == n) => {
                    unanswered = None;
                    if let Some(t) = &ticket {
                        t.prove();
                    }
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                _ => {}
            },
            () = closed(&ticket) => {
                tracing::debug!("unproven WebSocket stream closed to admit another");
                break;
            }
            _ = ping.tick() => {
                if unanswered.is_some() {
                    tracing::info!(deadline_ms = deadline.as_millis() as u64, "WebSocket client answered no ping: closed (it reads nothing)");
                    break;
                }
                let nonce: [u8; 8] = rand::random();
                unanswered = Some(nonce);
                let send = socket.send(Message::Ping(axum::body::Bytes::copy_from_slice(&nonce)));
                match tokio::time::timeout(WS_SEND_TIMEOUT, send).await {
                    Ok(Ok(())) => {}
                    _ => break,
                }
            }
        }
    }
}
