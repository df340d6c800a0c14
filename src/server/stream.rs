//! The event streams: server-sent events and WebSocket. A new client gets
//! the state of every game first (`{"type": "state", …}`), then the
//! messages as they are published. `?game=R.B` follows one game and
//! `?round=R` one round ([`GameFilter`]): a spectator of one board gets
//! only that board's messages (and the alerts about no one game), so a
//! relay's output grows with what its clients follow, not with the event. A client that falls behind the channel's
//! capacity is dropped (it reconnects and gets a fresh state); nothing a
//! client does can hold up the board loop.

use super::admission::{Slot, StreamTicket};
use super::arbiter::authorize;
use super::AppState;
use crate::broadcast::delay::parse_game_id;
use crate::broadcast::delay::{Channel, Msg};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};

/// How long a reconnecting client's `Last-Event-ID` not yet published is
/// waited for ([`Subscription::resume_waiting`]).
pub const RESUME_WAIT: Duration = Duration::from_secs(2);

/// How long a WebSocket send may wait on a slow client before it is dropped.
pub const WS_SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// Which games a stream client follows, from the query string:
/// `game=R.B` (round R, board B), `round=R`, or neither (every game).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// Only this round.
    pub round: Option<u32>,
    /// Only this board (with `round`).
    pub board: Option<u32>,
}

/// The query string of a stream or the live page (`?game=1.5`, `?round=1`).
#[derive(Debug, Default, serde::Deserialize)]
pub struct FilterQuery {
    game: Option<String>,
    round: Option<String>,
}

impl FilterQuery {
    /// The filter; the error names the parameter and what it must be.
    pub fn filter(&self) -> Result<GameFilter, String> {
        if let Some(g) = &self.game {
            let (round, board) = parse_game_id(g)
                .ok_or_else(|| format!("game={g}: give the game as round.board, e.g. game=1.5"))?;
            return Ok(GameFilter {
                round: Some(round),
                board: Some(board),
            });
        }
        if let Some(r) = &self.round {
            let round = r
                .parse()
                .map_err(|_| format!("round={r}: give the round number, e.g. round=1"))?;
            return Ok(GameFilter {
                round: Some(round),
                board: None,
            });
        }
        Ok(GameFilter::default())
    }
}

impl GameFilter {
    /// Whether the game `(round, board)` is followed.
    pub fn follows(&self, round: u32, board: u32) -> bool {
        self.round.is_none_or(|r| r == round) && self.board.is_none_or(|b| b == board)
    }

    /// Whether a message about `game` is sent (one about no game always is).
    fn passes(&self, game: Option<(u32, u32)>) -> bool {
        game.is_none_or(|(r, b)| self.follows(r, b))
    }
}

/// What a stream client is sent next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// An SSE comment line (not shown to an `EventSource`'s listeners):
    /// why the `Last-Event-ID` was not resumed from.
    Comment(String),
    /// One JSON message and its SSE id.
    Message {
        /// The `id:` ([`crate::broadcast::event_id`]).
        id: Arc<str>,
        /// One JSON object.
        json: Arc<str>,
    },
}

/// One client's subscription: the states to send first (and the channel's
/// backlog), or, for a client that reconnects with `Last-Event-ID`, the
/// messages it missed; then the channel.
pub struct Subscription {
    initial: VecDeque<Item>,
    rx: broadcast::Receiver<Msg>,
    filter: GameFilter,
    /// Messages up to this id are in the states or sent from the backlog.
    sent_id: u64,
}

impl Subscription {
    /// Subscribes a new client to the games of `channel` that `filter`
    /// follows (before reading its view, so nothing falls between).
    pub fn new(channel: &Channel, filter: GameFilter) -> Subscription {
        Subscription::resume(channel, filter, None)
    }

    /// [`Subscription::new`] for a client that had the message
    /// `last_event_id`: it gets the messages published after it (those of
    /// its games), none twice and none missing. An id the channel cannot
    /// resume from (another stream, not yet published, older than the
    /// [`crate::broadcast::delay::RESUME_WINDOW`], not an id) gets a comment
    /// saying so, then the states as a new client.
    pub fn resume(
        channel: &Channel,
        filter: GameFilter,
        last_event_id: Option<&str>,
    ) -> Subscription {
        // A follower of one game reads that game's channel: the other
        // games' messages never wake it.
        let rx = match (filter.round, filter.board) {
            (Some(r), Some(b)) => channel.subscribe_game((r, b)),
            _ => None,
        }
        .unwrap_or_else(|| channel.events.subscribe());
        let start = channel.start(last_event_id);
        let mut initial = VecDeque::new();
        if let Some(why) = start.not_resumed {
            initial.push_back(Item::Comment(format!(
                "Last-Event-ID not resumed: {why}; the state of every game follows"
            )));
        }
        if let Some(view) = &start.view {
            initial.extend(
                view.games
                    .iter()
                    .filter(|g| filter.follows(g.info.round, g.info.board))
                    .map(|g| Item::Message {
                        id: start.event_id.clone(),
                        json: g.state.shared(),
                    }),
            );
        }
        initial.extend(
            start
                .messages
                .into_iter()
                .filter(|m| filter.passes(m.game))
                .map(|m| Item::Message {
                    id: m.event_id,
                    json: m.json,
                }),
        );
        Subscription {
            initial,
            rx,
            filter,
            sent_id: start.sent_id,
        }
    }

    /// [`Subscription::resume`], after waiting up to `wait` for a
    /// `last_event_id` of the channel's stream that is not published yet (a
    /// restarted daemon regenerates its messages from the journal, the
    /// public ones as the delay line releases them again): the client
    /// resumes once it is, or gets the states when it is not by then.
    /// Nothing is ever sent before the channel publishes it.
    pub async fn resume_waiting(
        channel: &Channel,
        filter: GameFilter,
        last_event_id: Option<&str>,
        wait: Duration,
    ) -> Subscription {
        if let Some(id) = last_event_id {
            let mut rx = channel.events.subscribe();
            let until = tokio::time::Instant::now() + wait;
            while channel.is_ahead(id) {
                match tokio::time::timeout_at(until, rx.recv()).await {
                    Ok(Ok(_)) | Ok(Err(RecvError::Lagged(_))) => {}
                    Ok(Err(RecvError::Closed)) | Err(_) => break,
                }
            }
        }
        Subscription::resume(channel, filter, last_event_id)
    }

    /// The next message; `None` when the client lagged or the feed closed.
    pub async fn next(&mut self) -> Option<Arc<str>> {
        loop {
            match self.next_item().await? {
                Item::Message { json, .. } => return Some(json),
                Item::Comment(_) => continue,
            }
        }
    }

    /// The next item; `None` when the client lagged or the feed closed.
    pub async fn next_item(&mut self) -> Option<Item> {
        if let Some(m) = self.initial.pop_front() {
            return Some(m);
        }
        loop {
            match self.rx.recv().await {
                Ok(m) if m.id <= self.sent_id => continue,
                Ok(m) if !self.filter.passes(m.game) => continue,
                Ok(m) => {
                    return Some(Item::Message {
                        id: m.event_id,
                        json: m.json,
                    })
                }
                Err(RecvError::Lagged(n)) => {
                    tracing::info!(missed = n, "slow stream client dropped");
                    return None;
                }
                Err(RecvError::Closed) => return None,
            }
        }
    }
}

/// The `Last-Event-ID` a reconnecting SSE client sends (WHATWG HTML §9.2).
fn last_event_id(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
}

/// An SSE response; `public`: readable by a page of any origin (CORS `*`).
/// The arbiter's channel is not: its page is served by the board itself, and
/// no other site's script may read it with a token it holds. Each message
/// carries its `id:`.
/// `ticket`: the stream's place under the listener's stream cap, held as
/// long as the stream runs.
fn sse(sub: Subscription, public: bool, ticket: Option<StreamTicket>) -> Response {
    let stream = futures_util::stream::unfold((sub, ticket), |(mut sub, ticket)| async move {
        let event = match sub.next_item().await? {
            Item::Comment(c) => Event::default().comment(c),
            Item::Message { id, json } => Event::default().id(id.as_ref()).data(json.as_ref()),
        };
        Some((Ok::<_, Infallible>(event), (sub, ticket)))
    });
    let mut r = Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response();
    if public {
        r.headers_mut().insert(
            axum::http::header::ACCESS_CONTROL_ALLOW_ORIGIN,
            axum::http::HeaderValue::from_static("*"),
        );
    }
    r
}

/// A place for a public stream on the request's connection
/// ([`super::admission::Slot::begin_stream`]); `Ok(None)` for a request
/// not served by the listener; 503 with `Retry-After` past the stream caps.
#[allow(clippy::result_large_err)] // the refusal is the response itself
fn stream_ticket(ext: &axum::http::Extensions) -> Result<Option<StreamTicket>, Response> {
    let Some(slot) = ext.get::<Arc<Slot>>() else {
        return Ok(None);
    };
    slot.begin_stream().map(Some).map_err(|why| {
        tracing::debug!(%why, "stream refused");
        (
            StatusCode::SERVICE_UNAVAILABLE,
            [(axum::http::header::RETRY_AFTER, "10")],
            format!("{why}\n"),
        )
            .into_response()
    })
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
    let ticket = match stream_ticket(&ext) {
        Ok(t) => t,
        Err(r) => return r,
    };
    sse(
        Subscription::resume_waiting(&s.public, f, last_event_id(&headers), RESUME_WAIT).await,
        true,
        ticket,
    )
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
    let ticket = match stream_ticket(&ext) {
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
/// without reading is closed too. `_ticket` holds its stream place and its
/// connection's slot until it ends.
async fn ws_session(
    mut socket: WebSocket,
    mut sub: Subscription,
    _ticket: Option<StreamTicket>,
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
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                _ => {}
            },
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadcast::delay::CHANNEL_CAPACITY;

    #[tokio::test]
    async fn a_reader_that_falls_behind_is_dropped_and_the_sender_never_waits() {
        let ch = Channel::new();
        let mut slow = Subscription::new(&ch, GameFilter::default());
        let mut fast = Subscription::new(&ch, GameFilter::default());
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
        let mut late = Subscription::new(&ch, GameFilter::default());
        ch.publish(1, None, &[Arc::from("{\"n\":1}")]);
        assert_eq!(
            late.next().await.as_deref(),
            Some("{\"kind\":\"downtime\"}")
        );
        assert_eq!(late.next().await.as_deref(), Some("{\"n\":1}"));
    }

    #[tokio::test]
    async fn a_client_of_one_game_gets_that_game_and_the_alerts_about_no_game() {
        let ch = Channel::new();
        let q = FilterQuery {
            game: Some("1.2".into()),
            round: None,
        };
        let mut one = Subscription::new(&ch, q.filter().unwrap());
        let round2 = FilterQuery {
            game: None,
            round: Some("2".into()),
        };
        let mut r2 = Subscription::new(&ch, round2.filter().unwrap());
        for m in [
            r#"{"type":"move","game":"1.1","ply":1}"#,
            r#"{"type":"move","game":"1.2","ply":1}"#,
            r#"{"type":"move","game":"2.1","ply":1}"#,
            r#"{"kind":"downtime"}"#,
            r#"{"type":"clock","game":"1.12","white_ms":1}"#,
            r#"{"type":"clock","game":"1.2","white_ms":2}"#,
        ] {
            ch.publish(0, None, &[Arc::from(m)]);
        }
        drop(ch);
        let mut got = Vec::new();
        while let Some(m) = one.next().await {
            got.push(m.to_string());
        }
        assert_eq!(
            got,
            [
                r#"{"type":"move","game":"1.2","ply":1}"#,
                r#"{"kind":"downtime"}"#,
                r#"{"type":"clock","game":"1.2","white_ms":2}"#,
            ]
        );
        assert_eq!(
            r2.next().await.as_deref(),
            Some(r#"{"type":"move","game":"2.1","ply":1}"#)
        );
        assert_eq!(r2.next().await.as_deref(), Some(r#"{"kind":"downtime"}"#));
        assert_eq!(r2.next().await, None);
    }

    #[tokio::test]
    async fn past_the_game_channel_cap_a_follower_reads_the_whole_channel_filtered() {
        use crate::broadcast::delay::MAX_GAME_CHANNELS;
        let ch = Channel::new();
        let held: Vec<_> = (0..MAX_GAME_CHANNELS as u32)
            .map(|b| ch.subscribe_game((9, b)).expect("under the cap"))
            .collect();
        assert!(ch.subscribe_game((1, 1)).is_none(), "the cap holds");
        let one = GameFilter {
            round: Some(1),
            board: Some(1),
        };
        let mut sub = Subscription::new(&ch, one);
        ch.publish(0, None, &[Arc::from(r#"{"type":"move","game":"1.2"}"#)]);
        ch.publish(0, None, &[Arc::from(r#"{"type":"move","game":"1.1"}"#)]);
        assert_eq!(
            sub.next().await.as_deref(),
            Some(r#"{"type":"move","game":"1.1"}"#)
        );
        // Readers gone: their channels are pruned for a new game.
        drop(held);
        assert!(ch.subscribe_game((1, 1)).is_some());
    }

    #[test]
    fn bad_filters_name_the_parameter() {
        for (game, round, says) in [
            (Some("1-2"), None, "game=1-2: give the game as round.board"),
            (Some("x.1"), None, "game=x.1"),
            (None, Some("one"), "round=one: give the round number"),
        ] {
            let q = FilterQuery {
                game: game.map(Into::into),
                round: round.map(Into::into),
            };
            let e = q.filter().unwrap_err();
            assert!(e.contains(says), "{e}");
        }
        assert_eq!(
            FilterQuery::default().filter().unwrap(),
            GameFilter::default()
        );
    }
}

#[cfg(test)]
#[path = "stream_resume_tests.rs"]
mod resume_tests;
