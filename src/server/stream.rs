//! The event streams: server-sent events and WebSocket. A new client gets
//! the state of every game first (`{"type": "state", …}`), then the
//! messages as they are published. A client that falls behind the channel's
//! capacity is dropped (it reconnects and gets a fresh state); nothing a
//! client does can hold up the board loop.

use super::arbiter::authorize;
use super::AppState;
use crate::broadcast::delay::{Channel, Msg};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};

/// How long a WebSocket send may wait on a slow client before it is dropped.
pub const WS_SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// One client's subscription: the states to send first (and the channel's
/// backlog), then the channel.
pub struct Subscription {
    initial: VecDeque<Arc<str>>,
    rx: broadcast::Receiver<Msg>,
    /// Messages of updates up to this one are already in the states.
    seen: u64,
    /// Messages up to this id were sent from the backlog.
    sent_id: u64,
}

impl Subscription {
    /// Subscribes to `channel` (before reading its view, so nothing falls between).
    pub fn new(channel: &Channel) -> Subscription {
        let rx = channel.events.subscribe();
        let view = channel.view.borrow().clone();
        let seen = view.games.iter().map(|g| g.seq).max().unwrap_or(0);
        let mut initial: VecDeque<Arc<str>> = view
            .games
            .iter()
            .map(|g| Arc::from(g.state.to_string()))
            .collect();
        let backlog = channel.backlog();
        let sent_id = backlog.last().map_or(0, |m| m.id);
        initial.extend(backlog.into_iter().map(|m| m.json));
        Subscription {
            initial,
            rx,
            seen,
            sent_id,
        }
    }

    /// The next message; `None` when the client lagged or the feed closed.
    pub async fn next(&mut self) -> Option<Arc<str>> {
        if let Some(m) = self.initial.pop_front() {
            return Some(m);
        }
        loop {
            match self.rx.recv().await {
                Ok(m) if m.id <= self.sent_id => continue,
                Ok(m) if m.seq != 0 && m.seq <= self.seen && self.sent_id == 0 => continue,
                Ok(m) => return Some(m.json),
                Err(RecvError::Lagged(n)) => {
                    tracing::info!(missed = n, "slow stream client dropped");
                    return None;
                }
                Err(RecvError::Closed) => return None,
            }
        }
    }
}

fn sse(sub: Subscription) -> Response {
    let stream = futures_util::stream::unfold(sub, |mut sub| async move {
        let m = sub.next().await?;
        Some((Ok::<_, Infallible>(Event::default().data(m.as_ref())), sub))
    });
    let mut r = Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response();
    r.headers_mut().insert(
        axum::http::header::ACCESS_CONTROL_ALLOW_ORIGIN,
        axum::http::HeaderValue::from_static("*"),
    );
    r
}

/// `GET /events`: the public stream.
pub async fn sse_public(State(s): State<Arc<AppState>>) -> Response {
    sse(Subscription::new(&s.public))
}

/// `GET /arbiter/events`: every event, undelayed (token).
pub async fn sse_arbiter(State(s): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    match authorize(&s, &headers) {
        Ok(access) => sse(Subscription::new(&access.channel)),
        Err(r) => r.into_response(),
    }
}

/// `GET /ws`: the public stream over WebSocket (text frames, one JSON each).
pub async fn ws_public(State(s): State<Arc<AppState>>, ws: WebSocketUpgrade) -> Response {
    let sub = Subscription::new(&s.public);
    ws.max_message_size(4096)
        .on_upgrade(move |socket| ws_session(socket, sub))
}

async fn ws_session(mut socket: WebSocket, mut sub: Subscription) {
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
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                _ => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadcast::delay::CHANNEL_CAPACITY;

    #[tokio::test]
    async fn a_reader_that_falls_behind_is_dropped_and_the_sender_never_waits() {
        let ch = Channel::new();
        let mut slow = Subscription::new(&ch);
        let mut fast = Subscription::new(&ch);
        for i in 0..(CHANNEL_CAPACITY + 10) {
            ch.publish(i as u64 + 1, None, &[Arc::from(format!("{{\"n\":{i}}}"))]);
            if i < 5 {
                assert!(fast.next().await.is_some());
            }
        }
        assert!(slow.next().await.is_none(), "dropped");
    }

    #[tokio::test]
    async fn the_backlog_reaches_a_late_reader_once() {
        let ch = Channel::with_backlog();
        ch.publish(0, None, &[Arc::from("{\"kind\":\"downtime\"}")]);
        let mut late = Subscription::new(&ch);
        ch.publish(1, None, &[Arc::from("{\"n\":1}")]);
        assert_eq!(
            late.next().await.as_deref(),
            Some("{\"kind\":\"downtime\"}")
        );
        assert_eq!(late.next().await.as_deref(), Some("{\"n\":1}"));
    }
}
