//! What the MQTT relay ([`super::relay`]) takes from a table's topics
//! (issue 41 §2): a message only about the game its topic names, only of
//! the rounds and boards the relay follows ([`Scope`]), no larger than
//! [`MAX_MESSAGE`], of no game started in the future and no sequence
//! number far ahead. Whatever else arrives is dropped and said: a warn line
//! and an `uplink_alert` on the console naming the topic and what did not
//! match ([`Refusals`], rate-limited so that a flood does not flood the
//! arbiter's alert queue). The transport-free part (the scope, the game
//! and the pairing's players, the caps, the refusals) is
//! `crate::broadcast::bound`, which the HTTP relay uses too.
//!
//! Why: the broker's ACL decides who may write a table's topics, not what
//! the messages say. With board 1's login a message on board 1's own topic
//! can name game `1.2` (`"game": "1.2"`, a snapshot whose `info` says board
//! 2): taken as it came, it put a forged illegal move and a flag into board
//! 2's alerts, the console and the round report. A board's messages are
//! bound to its topic here; the ACL (`docs/mqtt.md`) binds the topic to the
//! board's login.

use super::Wire;
pub use crate::broadcast::bound::{
    check_game, check_players, Paired, Pairings, Refusals, Scope, MAX_GAMES, MAX_MESSAGE,
    REFUSAL_BURST, REFUSAL_EVERY,
};
use serde_json::Value;
use std::collections::HashSet;
use std::hash::Hash;

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

/// The topic filters of the public topics (`events`, `snapshot`) under
/// `base` (`{prefix}/{event}`) for `scope`: one per round and board when
/// both are given (the broker then sends nothing else, at most 512
/// filters), one per round when the rounds are, else `base/+/+/…`.
pub fn public_filters(scope: &Scope, base: &str) -> Vec<String> {
    let kinds = ["events", "snapshot"];
    match (&scope.rounds[..], scope.boards) {
        (rs, Some(n)) if !rs.is_empty() && rs.len() as u64 * u64::from(n) <= 256 => rs
            .iter()
            .flat_map(|r| (1..=n).flat_map(move |b| kinds.map(|k| format!("{base}/{r}/{b}/{k}"))))
            .collect(),
        ([], _) => kinds.map(|k| format!("{base}/+/+/{k}")).to_vec(),
        (rs, _) => rs
            .iter()
            .flat_map(|r| kinds.map(|k| format!("{base}/{r}/+/{k}")))
            .collect(),
    }
}

/// The game a message names in its `"game": "r.b"` (`None`: none).
fn named_game(msg: &Value) -> Option<&str> {
    msg.get("game").and_then(Value::as_str)
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

/// The pairing's players of a table's games (issue 41 §2): a snapshot
/// must name them ([`check_players`]); after one that did not, the
/// messages of its game (of its table, `K`) are refused until a snapshot
/// that does. Without pairings, everything passes.
#[derive(Debug)]
pub struct Players<K> {
    pairings: Option<Pairings>,
    mismatched: HashSet<K>,
}

impl<K: Hash + Eq + Clone> Players<K> {
    /// The checks against `pairings` (`None`: none).
    pub fn new(pairings: Option<Pairings>) -> Self {
        Players {
            pairings,
            mismatched: HashSet::new(),
        }
    }

    /// Whether `w`, of game or table `key`, may be taken; else why not.
    pub fn check(&mut self, key: &K, w: &Wire) -> Result<(), String> {
        let Some(p) = &self.pairings else {
            return Ok(());
        };
        let Some(s) = &w.snapshot else {
            if self.mismatched.contains(key) {
                return Err(
                    "its game's last snapshot named other players than the pairing's".to_owned(),
                );
            }
            return Ok(());
        };
        let game = (s.info.round, s.info.board);
        let checked = check_players(&p.of(game.0, game.1), game, &s.info.white, &s.info.black);
        if checked.is_err() {
            if self.mismatched.len() < 4 * MAX_GAMES {
                self.mismatched.insert(key.clone());
            }
        } else {
            self.mismatched.remove(key);
        }
        checked
    }
}

#[cfg(test)]
mod tests;
