//! The transmission delay, enforced at the source: a feed's updates wait in
//! a queue until `delay` has passed since the decision (round time), then
//! go to the public [`Channel`]. The arbiter's channel gets them at once.
//!
//! The decision times are round times (ms since the start of the round,
//! kept across restarts by the journal), so the delay holds across a
//! restart too: replaying the journal re-queues every update at its
//! original time.

use super::event_id::{EventId, IdText, StreamPos};
use super::public::Snapshot;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, mpsc, watch};

/// One message of a feed's event stream: JSON text and its publication order.
#[derive(Debug, Clone)]
pub struct Msg {
    /// The channel's numbering of its messages in this run, from 1.
    pub id: u64,
    /// Its SSE id ([`super::event_id`]): the same for the same journaled
    /// message after a restart.
    pub event_id: Arc<str>,
    /// Its place in the channel's stream.
    pub pos: StreamPos,
    /// Publication order of the update that carried it (0: none).
    pub seq: u64,
    /// One JSON object.
    pub json: Arc<str>,
    /// The game it is about, (round, board), from its `"game": "r.b"`
    /// (`None`: about no one game, e.g. a downtime alert).
    pub game: Option<(u32, u32)>,
    /// The message as one server-sent event ([`sse_event`] of `event_id`
    /// and `json`), framed once when it is published and shared by every
    /// stream client: a relay's fan-out to a thousand spectators writes
    /// the same bytes a thousand times, it does not frame them a thousand
    /// times (issue 42 §7).
    pub sse: Arc<str>,
}

/// `json` as one server-sent event with the id `id` (WHATWG HTML
/// §9.2.6, "Interpreting an event stream"): `id: ID`, one `data: ` line per
/// line of the text, then the empty line that dispatches it. The feeds'
/// messages are compact JSON, one line; a text of several lines (a relay
/// forwarding what a board sent) keeps its lines.
pub fn sse_event(id: &str, json: &str) -> Arc<str> {
    let mut s = String::with_capacity(id.len() + json.len() + 16);
    s.push_str("id: ");
    s.push_str(id);
    s.push('\n');
    for line in json.lines() {
        s.push_str("data: ");
        s.push_str(line);
        s.push('\n');
    }
    s.push('\n');
    Arc::from(s)
}

/// The game a message names in its top-level `"game": "round.board"`, read
/// once when it is published so stream clients can filter without parsing.
pub fn game_of(json: &str) -> Option<(u32, u32)> {
    #[derive(serde::Deserialize)]
    struct GameOf<'a> {
        #[serde(borrow, default)]
        game: Option<&'a str>,
    }
    let g = serde_json::from_str::<GameOf>(json).ok()?.game?;
    parse_game_id(g)
}

/// Parses a game id `round.board` (`"1.5"` → `(1, 5)`), as DGT and lichess
/// write the PGN `Round` tag; `None` when it is not two numbers.
pub fn parse_game_id(id: &str) -> Option<(u32, u32)> {
    let (r, b) = id.split_once('.')?;
    Some((r.parse().ok()?, b.parse().ok()?))
}

/// The games a channel shows, in (round, board) order.
#[derive(Debug, Clone, Default)]
pub struct View {
    /// One snapshot per game.
    pub games: Vec<Arc<Snapshot>>,
}

impl View {
    /// The view with `snap` in place of the same game's older snapshot.
    pub fn with(&self, snap: Arc<Snapshot>) -> View {
        let key = (snap.info.round, snap.info.board);
        let mut games = self.games.clone();
        match games.binary_search_by_key(&key, |s| (s.info.round, s.info.board)) {
            Ok(i) => games[i] = snap,
            Err(i) => games.insert(i, snap),
        }
        View { games }
    }

    /// The snapshots as references, for the LiveChess builders.
    pub fn refs(&self) -> Vec<&Snapshot> {
        self.games.iter().map(|s| s.as_ref()).collect()
    }
}

/// What one audience sees: the current view and the stream of messages.
/// Slow readers of the stream lag and are dropped by the servers; the
/// sender never waits.
#[derive(Debug)]
pub struct Channel {
    /// The current view.
    pub view: watch::Sender<Arc<View>>,
    /// The messages, bounded.
    pub events: broadcast::Sender<Msg>,
    /// The same messages per game, (round, board), for the clients that
    /// follow one game: a message wakes only its game's readers. Made on a
    /// reader's first subscription; a message about no game goes to all.
    per_game: Mutex<HashMap<(u32, u32), broadcast::Sender<Msg>>>,
    /// A new reader gets the last [`BACKLOG`] messages after the states
    /// (the arbiter's channel: an alert raised while nobody listened, such
    /// as a downtime, still reaches the arbiter).
    backlog: bool,
    /// The numbering and the last [`RESUME_WINDOW`] messages, for a reader
    /// who reconnects with `Last-Event-ID`. Held while the view changes
    /// and the messages are numbered, so a reader sees both alike.
    recent: Mutex<Recent>,
    /// Where everything published also goes, in order ([`Channel::set_tap`]).
    tap: Mutex<Option<mpsc::UnboundedSender<Published>>>,
}

/// One publication, as a channel's tap gets it ([`Channel::set_tap`]: an
/// uplink that must lose nothing, `crate::mqtt::arbiter`).
#[derive(Debug, Clone)]
pub struct Published {
    /// [`Channel::publish_journaled`] (else out-of-band, [`Channel::publish`]).
    pub journaled: bool,
    /// Publication order of the update that carried it (0: none).
    pub seq: u64,
    /// The view's new snapshot, when it changed.
    pub snapshot: Option<Arc<Snapshot>>,
    /// The messages (JSON text), possibly none.
    pub messages: Vec<Arc<str>>,
}

/// A channel's numbering and its last messages.
#[derive(Debug)]
struct Recent {
    /// Messages published in this run.
    next_id: u64,
    /// The stream's name ([`super::event_id`]).
    stream: String,
    /// This run's number (random).
    boot: u64,
    /// The position of the last message.
    pos: StreamPos,
    /// The last messages, oldest first.
    ring: VecDeque<Msg>,
    /// The position of the last message dropped from `ring`: a reader who
    /// had it (or later) can resume.
    floor: StreamPos,
}

/// How a reader starts on a channel ([`Channel::start`]).
#[derive(Debug)]
pub struct Start {
    /// The states to send first (`None`: resumed, no states).
    pub view: Option<Arc<View>>,
    /// The messages to send after them.
    pub messages: Vec<Msg>,
    /// Messages up to this [`Msg::id`] are in the view or in `messages`.
    pub sent_id: u64,
    /// The id of where the reader stands after the states.
    pub event_id: Arc<str>,
    /// Why a `Last-Event-ID` could not be resumed from (`None`: resumed,
    /// or none given).
    pub not_resumed: Option<String>,
}

/// How many messages a channel keeps for readers who reconnect with
/// `Last-Event-ID`; one who missed more gets the states again.
pub const RESUME_WINDOW: usize = 1024;

/// How many messages the arbiter's channel keeps for late readers.
pub const BACKLOG: usize = 256;

/// How many games may have their own message channel at once (each holds
/// [`CHANNEL_CAPACITY`] slots); a reader asking for one more game reads the
/// whole channel, filtered.
pub const MAX_GAME_CHANNELS: usize = 256;

/// How many messages a stream reader may fall behind before it is dropped.
pub const CHANNEL_CAPACITY: usize = 1024;

impl Default for Channel {
    fn default() -> Self {
        Channel::new()
    }
}

impl Channel {
    /// An empty channel.
    pub fn new() -> Channel {
        Channel {
            view: watch::channel(Arc::new(View::default())).0,
            events: broadcast::channel(CHANNEL_CAPACITY).0,
            per_game: Mutex::new(HashMap::new()),
            backlog: false,
            recent: Mutex::new(Recent {
                next_id: 0,
                // Not a journaled game's stream until [`Channel::set_stream`]:
                // named after this moment, so no id of another run matches.
                stream: format!(
                    "{}",
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis())
                ),
                boot: u64::from(rand::random::<u32>()),
                pos: StreamPos::default(),
                ring: VecDeque::new(),
                floor: StreamPos::default(),
            }),
            tap: Mutex::new(None),
        }
    }

    /// An empty channel whose new readers also get its last [`BACKLOG`] messages.
    pub fn with_backlog() -> Channel {
        Channel {
            backlog: true,
            ..Channel::new()
        }
    }

    /// Names the channel's stream (before anything is published): `stream`
    /// is ASCII letters and digits, e.g. the game's epoch in Unix ms.
    pub fn set_stream(&self, stream: &str) {
        let mut r = self.lock_recent();
        r.stream = stream.to_owned();
    }

    /// Sends every later publication to `tap` too, in order, without
    /// waiting (where a reader of [`Channel::events`] may lag and be
    /// dropped); a second call replaces the first tap.
    pub fn set_tap(&self, tap: mpsc::UnboundedSender<Published>) {
        *self.tap.lock().unwrap_or_else(|e| e.into_inner()) = Some(tap);
    }

    /// Drops game `game` (round, board) from the view, when it is there:
    /// an MQTT relay that follows the latest round per table drops the
    /// table's earlier game (`crate::mqtt::relay`, issue 41). Its stream
    /// messages stay in the resume window.
    pub fn forget(&self, game: (u32, u32)) {
        let _numbering = self.lock_recent();
        self.view.send_if_modified(|v| {
            let at = |s: &Arc<Snapshot>| (s.info.round, s.info.board) == game;
            if !v.games.iter().any(at) {
                return false;
            }
            let games = v.games.iter().filter(|s| !at(s)).cloned().collect();
            *v = Arc::new(View { games });
            true
        });
    }

    fn lock_recent(&self) -> std::sync::MutexGuard<'_, Recent> {
        self.recent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Where a reader starts: after `last_event_id` when the channel can
    /// resume from it (same stream, not ahead of what was published, not
    /// older than the [`RESUME_WINDOW`]), else with the view (and the
    /// [`BACKLOG`] when kept) as a new reader. Subscribe before calling:
    /// what is published after is for the receiver (`Msg::id > sent_id`).
    pub fn start(&self, last_event_id: Option<&str>) -> Start {
        let r = self.lock_recent();
        let sent_id = r.next_id;
        let here: Arc<str> = Arc::from(
            IdText {
                stream: &r.stream,
                boot: r.boot,
                pos: r.pos,
            }
            .to_string(),
        );
        let mut not_resumed = None;
        if let Some(text) = last_event_id {
            match r.resume_from(text) {
                Ok(pos) => {
                    return Start {
                        view: None,
                        messages: r.ring.iter().filter(|m| m.pos > pos).cloned().collect(),
                        sent_id,
                        event_id: here,
                        not_resumed: None,
                    }
                }
                Err(why) => not_resumed = Some(why),
            }
        }
        let view = self.view.borrow().clone();
        let messages = if self.backlog {
            let skip = r.ring.len().saturating_sub(BACKLOG);
            r.ring.iter().skip(skip).cloned().collect()
        } else {
            Vec::new()
        };
        Start {
            view: Some(view),
            messages,
            sent_id,
            event_id: here,
            not_resumed,
        }
    }

    /// A receiver of the messages about game `(round, board)` (and those
    /// about no game), from now on; `None` when [`MAX_GAME_CHANNELS`] games
    /// have readers already (the caller reads [`Channel::events`] and filters).
    pub fn subscribe_game(&self, game: (u32, u32)) -> Option<broadcast::Receiver<Msg>> {
        let mut per_game = self.per_game.lock().unwrap_or_else(|e| e.into_inner());
        if !per_game.contains_key(&game) && per_game.len() >= MAX_GAME_CHANNELS {
            per_game.retain(|_, tx| tx.receiver_count() > 0);
            if per_game.len() >= MAX_GAME_CHANNELS {
                return None;
            }
        }
        Some(
            per_game
                .entry(game)
                .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
                .subscribe(),
        )
    }

    /// Whether `last_event_id` names a message of this channel's stream not
    /// published yet (e.g. one a restarted daemon's delay line has still to
    /// release again).
    pub fn is_ahead(&self, last_event_id: &str) -> bool {
        let r = self.lock_recent();
        EventId::parse(last_event_id).is_some_and(|id| {
            id.stream == r.stream
                && StreamPos {
                    n: id.n,
                    k: match id.extra {
                        Some((boot, k)) if boot == r.boot => k,
                        _ => 0,
                    },
                } > r.pos
        })
    }

    /// The last [`BACKLOG`] messages (oldest first) of a channel made
    /// [`Channel::with_backlog`]; empty for others.
    pub fn backlog(&self) -> Vec<Msg> {
        if !self.backlog {
            return Vec::new();
        }
        let r = self.lock_recent();
        let skip = r.ring.len().saturating_sub(BACKLOG);
        r.ring.iter().skip(skip).cloned().collect()
    }

    /// Shows `snapshot` (when given), then sends `messages`: out-of-band
    /// messages, which a restart's replay of the journal does not
    /// regenerate (ids `STREAM-N-BOOT-K`, [`super::event_id`]).
    /// On the arbiter's channel ([`Channel::with_backlog`]) an alert
    /// without its wall time gets it now (`unix_ms`, when it happened: a
    /// relay that receives it later, from the backlog after its restart,
    /// dates it so, issue 24 §8).
    pub fn publish(&self, seq: u64, snapshot: Option<Arc<Snapshot>>, messages: &[Arc<str>]) {
        if self.backlog && messages.iter().any(|m| needs_stamp(m)) {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            let stamped: Vec<Arc<str>> = messages.iter().map(|m| stamp(m, now)).collect();
            self.publish_as(seq, snapshot, &stamped, false);
            return;
        }
        self.publish_as(seq, snapshot, messages, false);
    }

    /// [`Channel::publish`] for the messages of an update of the game,
    /// regenerated in the same order by a replay of the journal (ids
    /// `STREAM-N`, the same after a restart).
    pub fn publish_journaled(
        &self,
        seq: u64,
        snapshot: Option<Arc<Snapshot>>,
        messages: &[Arc<str>],
    ) {
        self.publish_as(seq, snapshot, messages, true);
    }

    fn publish_as(
        &self,
        seq: u64,
        snapshot: Option<Arc<Snapshot>>,
        messages: &[Arc<str>],
        journaled: bool,
    ) {
        let games: Vec<_> = messages.iter().map(|m| game_of(m)).collect();
        let mut recent = self.lock_recent();
        // Under the numbering's lock: in the readers' order. A closed tap
        // (its uplink gone) is not the publisher's concern.
        if let Some(tap) = self.tap.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            let _ = tap.send(Published {
                journaled,
                seq,
                snapshot: snapshot.clone(),
                messages: messages.to_vec(),
            });
        }
        if let Some(s) = snapshot {
            self.view.send_modify(|v| *v = Arc::new(v.with(s)));
        }
        if messages.is_empty() {
            return;
        }
        let per_game = self.per_game.lock().unwrap_or_else(|e| e.into_inner());
        for (m, game) in messages.iter().zip(games) {
            let r = &mut *recent;
            r.next_id += 1;
            r.pos = if journaled {
                StreamPos {
                    n: r.pos.n + 1,
                    k: 0,
                }
            } else {
                StreamPos {
                    n: r.pos.n,
                    k: r.pos.k + 1,
                }
            };
            let event_id: Arc<str> = Arc::from(
                IdText {
                    stream: &r.stream,
                    boot: r.boot,
                    pos: r.pos,
                }
                .to_string(),
            );
            let msg = Msg {
                id: r.next_id,
                sse: sse_event(&event_id, m),
                event_id,
                pos: r.pos,
                seq,
                json: m.clone(),
                game,
            };
            if r.ring.len() == RESUME_WINDOW {
                if let Some(old) = r.ring.pop_front() {
                    r.floor = old.pos;
                }
            }
            r.ring.push_back(msg.clone());
            // No receiver is not an error: nobody listens yet.
            match msg.game {
                Some(g) => {
                    if let Some(tx) = per_game.get(&g) {
                        let _ = tx.send(msg.clone());
                    }
                }
                None => {
                    for tx in per_game.values() {
                        let _ = tx.send(msg.clone());
                    }
                }
            }
            let _ = self.events.send(msg);
        }
    }
}

mod recent;
use recent::*;
mod feed;
pub use feed::*;

#[cfg(test)]
mod tests;
