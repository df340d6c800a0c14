//! The admission limits of one listener (config `[server]`,
//! `docs/server.md`, "Connection limits"): how many connections, from one
//! source, in the reserve, as streams, and for how long. Read by the
//! admission ([`super::admission`]) and the listener
//! ([`super::listener`], which also fits them to the process's descriptor
//! limit).

use std::time::Duration;

/// The admission limits of one listener (config `[server]`, `docs/server.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once (`max_connections`); lowered at start to
    /// what the process's file-descriptor limit allows, less [`FD_MARGIN`].
    pub max_connections: usize,
    /// Connections from one address at once (`max_connections_per_address`;
    /// an IPv4 address or an IPv6 /128; 0: no per-address limit, nor per
    /// /64, for a server behind a reverse proxy on the same host, where
    /// every client comes from loopback).
    pub per_address: usize,
    /// Of `max_connections`, the last slots kept for connections that
    /// showed the arbiter's credentials (`reserved_connections`).
    pub reserved: usize,
    /// Public streams (`/events`, `/ws`) open at once (`max_streams`);
    /// lowered at start to a quarter of `max_connections`.
    pub max_streams: usize,
    /// Public streams from one address at once (`max_streams_per_address`;
    /// 0, or `per_address` 0: no per-address limit).
    pub streams_per_address: usize,
    /// The longest a WebSocket client may take to answer a ping
    /// (`stream_deadline_s`); a ping is sent every such interval.
    pub stream_deadline: Duration,
    /// The longest a client may take to send a request head, also between
    /// requests on a kept-alive connection, and to finish a TLS handshake
    /// (`idle_timeout_s`).
    pub idle_timeout: Duration,
    /// The longest a client may leave the server's bytes unread before it
    /// is closed (`write_timeout_s`).
    pub write_timeout: Duration,
    /// How long a public SSE stream runs before it ends with its lease's
    /// proof (`stream_lease_s`; [`super::lease`]); each stream's lease is
    /// this less up to a tenth at random, so streams opened together do
    /// not reconnect together.
    pub stream_lease: Duration,
    /// Connections from one IPv6 /64 at once, its hosts together (a venue's
    /// Wi-Fi is one /64; issue 41 §1): [`DEFAULT_PER_PREFIX`], lowered at
    /// start to a quarter of `max_connections` (never below `per_address`).
    /// The bound on what one attacker holding a whole /64 can take.
    pub per_prefix: usize,
}

/// The default of [`Limits::per_prefix`]: 32 hosts of a venue's /64 at
/// `per_address` each, or some hundreds of spectators' phones at a few.
pub const DEFAULT_PER_PREFIX: usize = 1024;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 4096,
            per_address: 32,
            reserved: 64,
            max_streams: 1024,
            streams_per_address: 4,
            stream_deadline: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(30),
            stream_lease: Duration::from_secs(60),
            per_prefix: DEFAULT_PER_PREFIX,
        }
    }
}
