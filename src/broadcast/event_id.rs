//! The ids of a channel's messages, as server-sent events carry them in
//! `id:` and a reconnecting client sends them back in `Last-Event-ID`
//! (WHATWG HTML, "Server-sent events", §9.2: the browser keeps the last
//! `id:` it read and sends it on every reconnection).
//!
//! A channel numbers two kinds of message:
//! - **journaled** ones, regenerated in the same order when a restarted
//!   daemon replays its journal (every message of the public channel; the
//!   arbiter's copy of every update): `STREAM-N`, N counting from 1, so
//!   the same message has the same id after a restart;
//! - **out-of-band** ones, that a replay does not regenerate (an alert, the
//!   downtime report, the relay's forwarded messages): `STREAM-N-BOOT-K`,
//!   the K-th since journaled message N in this run of the process (BOOT:
//!   random per run, hex).
//!
//! STREAM names the stream: the game's epoch (the Unix ms its journal
//! started, as the MQTT uplink's `epoch`), with `a` appended for the
//! arbiter's channel, so an id of one channel means nothing on the other.

use std::fmt;

/// The SSE event type of the last event of a public stream's lease
/// (`event: lease`, `crate::server::lease`): its `id:` is the id of the
/// last message followed by a proof (`LAST.PROOF`; a message id never
/// holds a `.`). Not a `message`, so a page's `onmessage` never sees it,
/// and a relay knows the stream ended by design, not by an outage.
pub const LEASE_EVENT: &str = "lease";

/// Where a message stands in its channel: after journaled message `n`,
/// the `k`-th out-of-band message (0: journaled message `n` itself).
/// Ordered as published within one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct StreamPos {
    /// Journaled messages up to here.
    pub n: u64,
    /// Out-of-band messages since journaled message `n`, in this run.
    pub k: u64,
}

/// A parsed `Last-Event-ID`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventId {
    /// The stream (epoch, `a` for the arbiter's channel).
    pub stream: String,
    /// Journaled messages up to it.
    pub n: u64,
    /// For an out-of-band message: the run it was sent in and its `k`.
    pub extra: Option<(u64, u64)>,
}

impl EventId {
    /// Parses `STREAM-N` or `STREAM-N-BOOT-K` (BOOT in hex); `None` for
    /// anything else (the caller treats it as unknown).
    pub fn parse(text: &str) -> Option<EventId> {
        let mut parts = text.trim().split('-');
        let stream = parts.next().filter(|s| {
            !s.is_empty() && s.len() <= 32 && s.bytes().all(|b| b.is_ascii_alphanumeric())
        })?;
        let n = parts.next()?.parse().ok()?;
        let extra = match (parts.next(), parts.next()) {
            (None, _) => None,
            (Some(b), Some(k)) => Some((u64::from_str_radix(b, 16).ok()?, k.parse().ok()?)),
            (Some(_), None) => return None,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(EventId {
            stream: stream.to_owned(),
            n,
            extra,
        })
    }
}

/// Writes the id of the message at `pos` of `stream` in run `boot`.
pub struct IdText<'a> {
    /// The stream.
    pub stream: &'a str,
    /// The run.
    pub boot: u64,
    /// The position.
    pub pos: StreamPos,
}

impl fmt::Display for IdText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pos.k == 0 {
            write!(f, "{}-{}", self.stream, self.pos.n)
        } else {
            write!(
                f,
                "{}-{}-{:x}-{}",
                self.stream, self.pos.n, self.boot, self.pos.k
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_junk_is_unknown() {
        let t = |n, k| {
            IdText {
                stream: "1763900000000a",
                boot: 0xbeef,
                pos: StreamPos { n, k },
            }
            .to_string()
        };
        assert_eq!(t(5, 0), "1763900000000a-5");
        assert_eq!(t(5, 2), "1763900000000a-5-beef-2");
        assert_eq!(
            EventId::parse(&t(5, 2)),
            Some(EventId {
                stream: "1763900000000a".into(),
                n: 5,
                extra: Some((0xbeef, 2)),
            })
        );
        assert_eq!(EventId::parse(&t(7, 0)).unwrap().extra, None);
        for junk in [
            "",
            "x",
            "-1",
            "a-",
            "a-1-2",
            "a-1-zz-1",
            "a-1-2-3-4",
            "a b-1",
        ] {
            assert_eq!(EventId::parse(junk), None, "{junk}");
        }
    }

    #[test]
    fn positions_order_as_published() {
        let p = |n, k| StreamPos { n, k };
        assert!(p(1, 0) < p(1, 1));
        assert!(p(1, 9) < p(2, 0));
    }
}
