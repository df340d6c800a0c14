//! MQTT: a board daemon publishes its public (delayed) feed to a broker
//! ([`publish`]), through a store-and-forward queue on disk ([`outbox`]);
//! `eboard relay --mqtt` rebuilds every board's game from the broker and
//! serves the merged feeds ([`relay`]).
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
//! `{event}` is the event's name made topic-safe by [`slug`]. Only what the
//! public feeds show is published: the messages are taken after the
//! transmission delay.

pub mod outbox;
pub mod publish;
pub mod relay;

use crate::broadcast::public::Snapshot;
use serde::Deserialize;
use serde_json::Value;

/// The default first topic level.
pub const DEFAULT_PREFIX: &str = "eboard";

/// The largest MQTT packet sent or accepted, bytes (a snapshot is a few KiB).
pub const MAX_PACKET: usize = 1 << 20;

/// A broker's address from an `mqtt://host:port` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerAddr {
    /// Host name or IP address.
    pub host: String,
    /// TCP port (default 1883).
    pub port: u16,
}

impl BrokerAddr {
    /// Parses `mqtt://host[:port]` or `tcp://host[:port]` (no TLS, no credentials).
    pub fn parse(url: &str) -> Result<BrokerAddr, String> {
        let bad = |why: &str| {
            format!("\"{url}\": {why}; give mqtt://host:port, e.g. mqtt://127.0.0.1:1883")
        };
        let rest = url
            .strip_prefix("mqtt://")
            .or_else(|| url.strip_prefix("tcp://"))
            .ok_or_else(|| bad("only mqtt:// (plain TCP) is supported"))?;
        let rest = rest.trim_end_matches('/');
        if rest.contains('/') || rest.contains('@') || rest.contains('?') {
            return Err(bad("no path, credentials or options"));
        }
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) => (
                h,
                p.parse::<u16>()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| bad("the port is a number 1..=65535"))?,
            ),
            None => (rest, 1883),
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        Ok(BrokerAddr {
            host: host.to_owned(),
            port,
        })
    }
}

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

/// A message on a board's topics.
#[derive(Debug, Clone, Deserialize)]
pub struct Wire {
    /// Index of the message in the board's public stream, from 1.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls() {
        assert_eq!(
            BrokerAddr::parse("mqtt://127.0.0.1:1884").unwrap(),
            BrokerAddr {
                host: "127.0.0.1".into(),
                port: 1884
            }
        );
        assert_eq!(BrokerAddr::parse("tcp://broker/").unwrap().port, 1883);
        assert!(BrokerAddr::parse("mqtts://h:8883").is_err());
        assert!(BrokerAddr::parse("mqtt://h:0").is_err());
        assert!(BrokerAddr::parse("mqtt://:1883").is_err());
        assert!(BrokerAddr::parse("mqtt://u:p@h:1883").is_err());
    }

    #[test]
    fn topics_and_prefixes() {
        let t = BoardTopics::new("eboard", Some("DM 2026"), 3, 12);
        assert_eq!(t.events, "eboard/dm-2026/3/12/events");
        assert_eq!(t.snapshot, "eboard/dm-2026/3/12/snapshot");
        assert_eq!(slug(None), "event");
        assert!(check_prefix("club/eboard").is_ok());
        assert!(check_prefix("a/+").is_err());
        assert!(check_prefix("a//b").is_err());
        assert!(check_prefix("").is_err());
    }

    #[test]
    fn wire_round_trip() {
        let w: Wire =
            serde_json::from_str(&wire_json(7, 1, 2, Some("{\"type\":\"move\"}"), None)).unwrap();
        assert_eq!((w.seq, w.epoch, w.t), (7, 1, 2));
        assert_eq!(w.msg.unwrap()["type"], "move");
        assert!(w.snapshot.is_none());
    }
}
