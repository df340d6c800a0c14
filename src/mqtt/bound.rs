//! What the MQTT relay ([`super::relay`]) takes from a table's topics
//! (issue 41 §2): a message only about the game its topic names, only of
//! the rounds and boards the relay follows ([`Scope`]), no larger than
//! [`MAX_MESSAGE`], of no game started in the future and no sequence
//! number far ahead. Whatever else arrives is dropped and said: a warn line
//! and an `uplink_alert` on the console naming the topic and what did not
//! match ([`Refusals`], rate-limited so that a flood does not flood the
//! arbiter's alert queue).
//!
//! Why: the broker's ACL decides who may write a table's topics, not what
//! the messages say. With board 1's login a message on board 1's own topic
//! can name game `1.2` (`"game": "1.2"`, a snapshot whose `info` says board
//! 2): taken as it came, it put a forged illegal move and a flag into board
//! 2's alerts, the console and the round report. A board's messages are
//! bound to its topic here; the ACL (`docs/mqtt.md`) binds the topic to the
//! board's login.

use super::Wire;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The largest message taken from a table's topics, bytes (256 KiB).
/// Measured: a retained snapshot of the Opera Game (33 moves) is 3.2 KB,
/// an events message 1.7 KB on average (measured, `docs/mqtt.md`);
/// estimated, not measured: a snapshot grows by about 150 bytes a ply (the
/// PGN's SAN and `[%clk]`, the state's and the LiveChess game's move
/// lists), so a 300-move game, longer than the longest rated one
/// (Nikolić–Arsović, Belgrade 1989, 269 moves), is about 95 KB. 256 KiB is over twice that; a board's retained alert
/// list is bounded at 64 KiB ([`super::alert_list::MAX_BYTES`]).
pub const MAX_MESSAGE: usize = 256 * 1024;

/// How far in the future a game's `epoch` (the Unix ms its game started,
/// by the board's clock) may be by the relay's clock: 5 minutes. Boards and
/// relay keep NTP time (`eboard doctor` checks it); a Pi without network
/// time runs behind (`fake-hwclock` restores the last shutdown's time),
/// never ahead. An epoch further ahead would shut out the board's real
/// game, whose epoch is older, until that time ([`super::stream`]).
pub const EPOCH_AHEAD_MS: u64 = 5 * 60 * 1000;

/// The largest `seq` taken: 100,000 messages. The public stream of a game
/// is about one message a ply (the Opera Game: 68 for 66 plies, measured);
/// the arbiter channel carries more; estimated: the longest rated game (269
/// moves) is some thousands. A sequence number beyond every later honest
/// one would shut out the board's next messages ([`super::stream`]).
pub const MAX_SEQ: u64 = 100_000;

/// How far past the last message taken of a game a message's `seq` may be:
/// 10,000 (a relay away for a whole long game is behind by less).
pub const SEQ_AHEAD: u64 = 10_000;

/// The most games (public streams) and tables (arbiter channels) a relay
/// keeps: 1,000, over three times the largest opens' boards (300 and more
/// at the biggest Swiss events); lichess takes at most 100 games a round.
pub const MAX_GAMES: usize = 1_000;

/// The alerts about refused messages: at most one per topic per
/// [`REFUSAL_EVERY`], and at most [`REFUSAL_BURST`] in all per
/// [`REFUSAL_EVERY`]; the others are counted into the next one.
pub const REFUSAL_EVERY: Duration = Duration::from_secs(600);
/// See [`REFUSAL_EVERY`].
pub const REFUSAL_BURST: u32 = 20;

/// The rounds and boards a relay follows (`eboard relay --round R
/// --boards N`); empty: every round (the latest one per table) and every
/// table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// The rounds followed (empty: every round, the latest per table).
    pub rounds: Vec<u32>,
    /// Tables 1..=N (`None`: every table).
    pub boards: Option<u32>,
}

impl Scope {
    /// Whether the table `board` is followed.
    pub fn has_board(&self, board: u32) -> bool {
        board >= 1 && self.boards.is_none_or(|n| board <= n)
    }

    /// Whether round `round` is followed.
    pub fn has_round(&self, round: u32) -> bool {
        self.rounds.is_empty() || self.rounds.contains(&round)
    }

    /// The topic filters of the public topics (`events`, `snapshot`) under
    /// `base` (`{prefix}/{event}`): one per round and board when both are
    /// given (the broker then sends nothing else, at most 512 filters),
    /// one per round when the rounds are, else `base/+/+/…`.
    pub fn public_filters(&self, base: &str) -> Vec<String> {
        let kinds = ["events", "snapshot"];
        match (&self.rounds[..], self.boards) {
            (rs, Some(n)) if !rs.is_empty() && rs.len() as u64 * u64::from(n) <= 256 => rs
                .iter()
                .flat_map(|r| {
                    (1..=n).flat_map(move |b| kinds.map(|k| format!("{base}/{r}/{b}/{k}")))
                })
                .collect(),
            ([], _) => kinds.map(|k| format!("{base}/+/+/{k}")).to_vec(),
            (rs, _) => rs
                .iter()
                .flat_map(|r| kinds.map(|k| format!("{base}/{r}/+/{k}")))
                .collect(),
        }
    }
}

/// The game a message names in its `"game": "r.b"` (`None`: none).
fn named_game(msg: &Value) -> Option<&str> {
    msg.get("game").and_then(Value::as_str)
}

/// Whether game id `game` (`r.b`) is round `round` (any, when `None`) at
/// table `board`; else what did not match.
pub fn check_game(game: &str, round: Option<u32>, board: u32) -> Result<(), String> {
    let Some((r, b)) = crate::broadcast::delay::parse_game_id(game) else {
        return Err(format!("game \"{game}\" is not a game id (round.board)"));
    };
    if b != board {
        return Err(format!(
            "it names game {game} (board {b}), not board {board}'s"
        ));
    }
    match round {
        Some(want) if r != want => Err(format!(
            "it names game {game} (round {r}), not round {want}'s game at board {board}"
        )),
        _ => Ok(()),
    }
}

/// Whether `w`, on a topic of table `board` (and of round `round`, when
/// the topic or the table's game says it), is about that game only: its
/// message's `game` and its snapshot's `info` (round, board); else what
/// did not match.
pub fn check_wire(w: &Wire, round: Option<u32>, board: u32) -> Result<(), String> {
    if let Some(s) = &w.snapshot {
        let (r, b) = (s.info.round, s.info.board);
        if b != board || round.is_some_and(|want| r != want) {
            return Err(format!(
                "its snapshot is of game {r}.{b}, not of {}",
                round.map_or(format!("board {board}"), |want| format!(
                    "game {want}.{board}"
                ))
            ));
        }
    }
    if let Some(game) = w.msg.as_ref().and_then(named_game) {
        let round = round.or(w.snapshot.as_ref().map(|s| s.info.round));
        check_game(game, round, board)?;
    }
    Ok(())
}

/// Whether `w`'s `epoch` and `seq` can be a real game's at `now_unix_ms`
/// (the relay's clock): not started more than [`EPOCH_AHEAD_MS`] in the
/// future, `seq` at most [`MAX_SEQ`]; else why not.
pub fn check_numbers(w: &Wire, now_unix_ms: u64) -> Result<(), String> {
    if w.epoch > now_unix_ms.saturating_add(EPOCH_AHEAD_MS) {
        return Err(format!(
            "its game started at {} Unix ms, {} s after this relay's clock ({now_unix_ms}): \
             more than {} s in the future (is the board's clock wrong?)",
            w.epoch,
            (w.epoch - now_unix_ms) / 1000,
            EPOCH_AHEAD_MS / 1000
        ));
    }
    if w.seq > MAX_SEQ {
        return Err(format!(
            "its sequence number {} is beyond any real game's ({MAX_SEQ})",
            w.seq
        ));
    }
    Ok(())
}

/// The relay's refusals: each logged, and alerted on the console at most
/// once per topic and [`REFUSAL_BURST`] times in all per [`REFUSAL_EVERY`].
#[derive(Debug, Default)]
pub struct Refusals {
    /// Per topic: when it was last alerted, and the refusals since.
    topics: HashMap<String, (Option<Instant>, u64)>,
    /// The alerts of the current window, and when it began.
    window: Option<(Instant, u32)>,
    /// Refusals not alerted because of the burst limit.
    held: u64,
}

impl Refusals {
    /// Refuses a message of `topic` for `why`: the console alert to raise
    /// now (an `uplink_alert` naming the topic, the reason and how many
    /// messages were refused since the last one), or `None` while the limit
    /// holds (logged at debug then).
    pub fn refuse(&mut self, topic: &str, why: &str, now: Instant) -> Option<Arc<str>> {
        if self.topics.len() >= 4 * MAX_GAMES {
            // Bounded: the topics alerted in this window stay.
            self.topics
                .retain(|_, (at, _)| at.is_some_and(|a| now.duration_since(a) < REFUSAL_EVERY));
        }
        let (at, since) = self.topics.entry(topic.to_owned()).or_insert((None, 0));
        *since += 1;
        let fresh = at.is_none_or(|a| now.duration_since(a) >= REFUSAL_EVERY);
        let window = match self.window {
            Some((start, n)) if now.duration_since(start) < REFUSAL_EVERY => (start, n),
            _ => (now, 0),
        };
        if !fresh || window.1 >= REFUSAL_BURST {
            self.window = Some(window);
            if fresh {
                self.held += 1;
            }
            tracing::debug!(topic, why, "relay: message refused");
            return None;
        }
        let refused = std::mem::take(since);
        *at = Some(now);
        self.window = Some((window.0, window.1 + 1));
        let held = std::mem::take(&mut self.held);
        tracing::warn!(topic, refused, "relay: a message refused: {why}");
        let mut v = serde_json::json!({
            "type": "uplink_alert",
            "uplink": "mqtt",
            "topic": topic,
            "error": format!("a message on {topic} refused: {why}"),
            "action": "dropped: not on this relay's feeds, console or report; the table's own messages are still taken",
            "refused": refused,
        });
        if held > 0 {
            v["held"] = Value::from(held);
        }
        Some(Arc::from(v.to_string()))
    }
}

#[cfg(test)]
mod tests;
