//! MQTT: a board daemon publishes its public (delayed) feed to a broker
//! ([`publish`]), through a store-and-forward queue on disk ([`outbox`]);
//! `eboard relay --mqtt` rebuilds every board's game from the broker and
//! serves the merged feeds ([`relay`]).
//!
//! Layout: the topics and the wire format here; the broker's address, login
//! and TLS options in `broker`; the uplink, the relay, the queue and the
//! signed rulings are submodules.
//!
//! Topics, one tree per event, round and board:
//!
//! - `{prefix}/{event}/{round}/{board}/events` (QoS 1): one message per
//!   public message of the board's stream, as [`Wire`] JSON: `seq` is the
//!   message's index in the board's public stream (from 1), the key a
//!   consumer dedupes and orders by; the last message of each decision
//!   carries the board's [`Snapshot`] after it;
//! - `{prefix}/{event}/{round}/{board}/snapshot` (QoS 1, retained): the
//!   latest snapshot (PGN in `snapshot.pgn`, the live page's JSON state in
//!   `snapshot.state`), so a late subscriber has the game at once.
//!
//! Per table (`docs/event.md`): `{prefix}/{event}/board/{board}/config`
//! (retained: the board's game from `eboard event`), `…/command` and
//! `…/reply` (signed rulings and their answers: [`command`]), and with
//! `[mqtt] arbiter_channel` the board's undelayed arbiter channel on
//! `…/arbiter/events`, `…/arbiter/snapshot` and the retained list of the
//! game's alerts `…/arbiter/alerts` ([`alert_list`]) ([`arbiter`]: for the
//! console's relay only, behind the broker's ACL).
//!
//! `{event}` is the event's name made topic-safe by [`slug`]. On the
//! public topics only what the public feeds show is published: the
//! messages are taken after the transmission delay.
//!
//! Depends on `broadcast` (the public stream it carries), `trace`, `disk`
//! (the queue), `retry` and `tls`, the modules below it in
//! docs/dev/architecture.md's map. It must not depend on `server`, `config`
//! (its settings are its own types: `mqtt::Security`, the broker's address)
//! or `app`, nor on `controller` or `journal`.

pub mod alert_list;
pub mod arbiter;
pub mod bound;
pub mod command;
pub mod outbox;
pub mod publish;
pub mod refresh;
pub mod relay;
pub mod status;
mod stream;

use crate::broadcast::public::Snapshot;
use serde::Deserialize;
use serde_json::Value;

/// The default first topic level.
pub const DEFAULT_PREFIX: &str = "eboard";

/// The largest MQTT packet sent or accepted, bytes (a snapshot is a few KiB).
pub const MAX_PACKET: usize = 1 << 20;

/// The default port of `mqtt://` (plain TCP).
pub const DEFAULT_PORT: u16 = 1883;
/// The default port of `mqtts://` (TLS).
pub const DEFAULT_TLS_PORT: u16 = 8883;
/// The environment variable whose password wins over `[mqtt] password`
/// (when set and not empty).
pub const PASSWORD_ENV: &str = "EBOARD_MQTT_PASSWORD";

/// Checks a topic prefix: not empty, no wildcards (`+`, `#`), no empty level.
pub fn check_prefix(p: &str) -> Result<(), String> {
    if p.is_empty() || p.contains(['+', '#', '\0']) || p.split('/').any(str::is_empty) {
        return Err(format!(
            "\"{p}\": a topic prefix is one or more non-empty levels without + or #, e.g. \"eboard\""
        ));
    }
    Ok(())
}

/// An event name as one topic level: ASCII letters and digits lower-cased,
/// anything else `-` (`DM 2026` → `dm-2026`); no name: `event`.
pub fn slug(name: Option<&str>) -> String {
    match name {
        Some(n) if !n.trim().is_empty() => n
            .trim()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect(),
        _ => "event".to_owned(),
    }
}

/// One board's topics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardTopics {
    /// The sequence-numbered public messages.
    pub events: String,
    /// The retained latest snapshot.
    pub snapshot: String,
}

impl BoardTopics {
    /// The topics of board `board` of round `round` of `event` (a name, slugged).
    pub fn new(prefix: &str, event: Option<&str>, round: u32, board: u32) -> BoardTopics {
        let base = format!("{prefix}/{}/{round}/{board}", slug(event));
        BoardTopics {
            events: format!("{base}/events"),
            snapshot: format!("{base}/snapshot"),
        }
    }
}

/// A message on a board's topics (public, or its arbiter channel's).
#[derive(Debug, Clone, Deserialize)]
pub struct Wire {
    /// Index of the message in the board's stream, from 1 (0: an
    /// out-of-band message, [`Wire::oob`]).
    pub seq: u64,
    /// The board's stream: the Unix time in ms its game started (a new game
    /// on the same topics starts a new stream).
    pub epoch: u64,
    /// Round time of the decision, ms.
    pub t: u64,
    /// The public message (absent on the snapshot topic).
    #[serde(default)]
    pub msg: Option<Value>,
    /// The board's snapshot after the decision (on the last message of a decision).
    #[serde(default)]
    pub snapshot: Option<Snapshot>,
    /// On the public snapshot topic: the board also publishes its arbiter
    /// channel ([`arbiter`]; absent: false).
    #[serde(default)]
    pub arbiter_channel: bool,
    /// On the arbiter channel: an out-of-band message's number in its
    /// board's run [`Wire::boot`], from 1 (an alert that a replay of the
    /// journal does not regenerate: not in the sequence).
    #[serde(default)]
    pub oob: Option<u64>,
    /// With [`Wire::oob`]: the board's run (random), so numbers of two runs
    /// are told apart.
    #[serde(default)]
    pub boot: Option<u64>,
}

/// The JSON of an events message (`msg` and `snapshot` are JSON text already).
pub fn wire_json(
    seq: u64,
    epoch: u64,
    t: u64,
    msg: Option<&str>,
    snapshot: Option<&str>,
) -> String {
    format!(
        "{{\"seq\":{seq},\"epoch\":{epoch},\"t\":{t},\"msg\":{},\"snapshot\":{}}}",
        msg.unwrap_or("null"),
        snapshot.unwrap_or("null")
    )
}

mod broker;
pub use broker::*;

#[cfg(test)]
mod tests;
