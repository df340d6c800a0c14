//! What one stream client follows and receives, whatever carries it (SSE
//! or WebSocket): its [`GameFilter`] (`?game=R.B`, `?round=R`) and its
//! [`Subscription`] to a channel: the state of every game it follows
//! first, then the messages as they are published, resumed after a
//! `Last-Event-ID` where the channel still holds it. A client that falls
//! behind the channel's capacity is dropped.

use crate::broadcast::delay::parse_game_id;
use crate::broadcast::delay::{sse_event, Channel, Msg};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};

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
        /// `id` and `json` as one server-sent event ([`sse_event`]): a
        /// published message's is framed once and shared by every client
        /// ([`Msg::sse`]).
        sse: Arc<str>,
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
    /// The id of the last message given out (before any: where the client
    /// stands, the id it resumed after or that of the states): a lease's
    /// proof names it ([`super::lease`]).
    last_id: Arc<str>,
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
        let last_id = match (&start.view, last_event_id) {
            (None, Some(resumed)) => Arc::from(resumed),
            _ => start.event_id.clone(),
        };
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
                    .map(|g| {
                        let json = g.state.shared();
                        Item::Message {
                            id: start.event_id.clone(),
                            sse: sse_event(&start.event_id, &json),
                            json,
                        }
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
                    sse: m.sse,
                }),
        );
        Subscription {
            initial,
            rx,
            filter,
            sent_id: start.sent_id,
            last_id,
        }
    }

    /// The id of the last message given out, or where the client stood
    /// before any: resuming after it loses nothing and repeats nothing.
    pub fn last_id(&self) -> &Arc<str> {
        &self.last_id
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
    /// Cancel-safe: a message is consumed only when it is returned (or
    /// skipped as not the client's).
    pub async fn next_item(&mut self) -> Option<Item> {
        if let Some(m) = self.initial.pop_front() {
            if let Item::Message { id, .. } = &m {
                self.last_id = id.clone();
            }
            return Some(m);
        }
        loop {
            match self.rx.recv().await {
                Ok(m) if m.id <= self.sent_id => continue,
                Ok(m) if !self.filter.passes(m.game) => continue,
                Ok(m) => {
                    // The fan-out's end for this client, for the broadcast
                    // bench (issue 28 §5; off unless asked for).
                    tracing::trace!(target: "eboard::stage", stage = 5u64, id = m.id);
                    self.last_id = m.event_id.clone();
                    return Some(Item::Message {
                        id: m.event_id,
                        json: m.json,
                        sse: m.sse,
                    });
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

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "stream_resume_tests.rs"]
mod resume_tests;
