//! Who holds the listener's connection slots (issue 18 §1, issue 26 §3;
//! `docs/server.md`, "Connection limits").
//!
//! - Every new connection is admitted as a **public** one. At most
//!   [`Limits::max_connections`] − [`Limits::reserved`] public connections
//!   are open at once, at most [`Limits::per_address`] from one host
//!   (IPv4 address or IPv6 /128, [`crate::console::backoff::host_key`]) and
//!   at most [`Limits::per_prefix`] from one IPv6 /64 (a venue's Wi-Fi is
//!   one /64: one host there must not lock out the others, issue 41 §1).
//!   A newcomer from a host (a /64) at its limit closes that host's (that
//!   /64's) oldest idle connection; only when all of them are busy is it
//!   refused. So an arbiter behind the address of someone holding its
//!   limit in idle connections still gets in, and then into the reserve.
//! - When the public slots are full, an **idle** public connection (no
//!   request being answered, no stream: a keep-alive connection between
//!   requests, a client still sending its head or its TLS handshake) is
//!   closed to admit the new one: the oldest of the source (IPv4 address,
//!   IPv6 /64, [`crate::console::backoff::source_key`]) holding the most
//!   connections, else the oldest of all. A client from a source holding
//!   few that takes seconds to send its request is then not closed by a
//!   reconnect flood from sources holding many (issue 41 §2). Only when
//!   every public connection is busy is the new one refused.
//! - A connection enters the **arbiter's reserve** (the last
//!   [`Limits::reserved`] slots) only once one of its requests has shown
//!   an arbiter or console route with valid credentials (a session cookie
//!   or a bearer token, [`Slot::credentials_shown`], called by
//!   [`super::arbiter::authorize_caller`] and a successful login). A
//!   connection in the reserve is never closed to admit another.
//! - A connection over a limit (its host's, its /64's, the house's, with
//!   none of theirs idle to close) is not refused while the reserve has
//!   free places: it is let in **on probation** ([`Admission::admit_probation`])
//!   for one request. An arbiter's or console route with valid credentials
//!   moves it into the reserve, whatever his address holds (issue 41 §4:
//!   spectators behind the arbiter's NAT, a flood from his /64); any other
//!   request is answered 503 (a public route) or as the route answers (a
//!   login form, a 401), and the connection closed. At most the reserve's
//!   free places are on probation; a newcomer closes the oldest idle one.
//! - **Streams** (`/events`, `/ws`) hold a [`StreamTicket`]: at most
//!   [`Limits::max_streams`] at once (well below the connection limit) and
//!   [`Limits::streams_per_address`] per source; over the per-source cap,
//!   503 with `Retry-After`. A stream is busy: never closed as idle.
//! - A stream is **unproven** until its client has shown that it reads: an
//!   SSE client by reconnecting with its last lease's proof
//!   ([`super::lease`]), a WebSocket client by echoing a ping. When
//!   [`Limits::max_streams`] are open, a new stream is let in by closing
//!   an unproven one: the oldest of the source that holds the most
//!   unproven streams ([`StreamTicket::closed`]) — for an unproven
//!   newcomer only when that source holds at least [`CLOSE_MARGIN`] more
//!   than the newcomer's, or the newcomer's holds none; else the newcomer
//!   is refused (503). A proven stream is never closed for a newcomer; when
//!   every stream is proven, the newcomer is refused.

use super::lease::Leases;
pub use super::limits::Limits;
pub use super::tally::CLOSE_MARGIN;
use super::tally::{Class, Counts, Shared, Standing, StreamShared};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often refused connections are reported (one warn line with counts).
pub const REFUSAL_REPORT: Duration = Duration::from_secs(10);

/// The connections open now: public, reserved and streams, in total and
/// per source.
#[derive(Debug)]
pub struct Admission {
    limits: Limits,
    counts: Mutex<Counts>,
    refused_total: AtomicU64,
    refused_address: AtomicU64,
    evicted: AtomicU64,
    /// When refusals were last reported (None: never).
    report: Mutex<Option<Instant>>,
    /// The proofs of the public SSE streams' leases.
    leases: Leases,
    /// Unproven streams closed to admit another, since the last report.
    streams_closed: AtomicU64,
    /// Streams refused at the stream cap (503), since the last report.
    streams_refused: AtomicU64,
}

/// One admitted connection; dropping the last handle frees its slot. The
/// listener's task holds one, every request carries one (an extension),
/// and a WebSocket session holds one for as long as it runs.
#[derive(Debug)]
pub struct Slot {
    admission: Arc<Admission>,
    id: u64,
    /// The host ([`crate::console::backoff::host_key`]).
    key: IpAddr,
    shared: Arc<Shared>,
}

/// A request or a stream in progress on a connection: it is not idle.
#[derive(Debug)]
pub struct Busy(Arc<Slot>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.shared.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A stream's place under [`Limits::max_streams`]; dropping it frees it.
#[derive(Debug)]
pub struct StreamTicket {
    busy: Busy,
    shared: Arc<StreamShared>,
}

impl StreamTicket {
    /// The connection the stream runs on.
    pub fn slot(&self) -> &Arc<Slot> {
        &self.busy.0
    }

    /// Whether the client has shown that it reads ([`StreamTicket::prove`]).
    pub fn proven(&self) -> bool {
        self.shared.standing() == Standing::Proven
    }

    /// The client has shown that it reads (a WebSocket client echoed a
    /// ping): the stream is no longer closed for a newcomer. Idempotent.
    pub fn prove(&self) {
        let mut c = self.busy.0.admission.lock();
        if self.shared.standing() == Standing::Unproven {
            c.unlist(self.shared.id, self.shared.source);
            self.shared.set_standing(Standing::Proven);
        }
    }

    /// Resolves when the stream was closed to admit another (it was
    /// unproven and the stream cap full): its task then ends it.
    pub async fn closed(&self) {
        self.shared.closed.notified().await
    }
}

impl Drop for StreamTicket {
    fn drop(&mut self) {
        let mut c = self.busy.0.admission.lock();
        match self.shared.standing() {
            Standing::Closed => {}
            Standing::Unproven => {
                c.unlist(self.shared.id, self.shared.source);
                c.uncount_stream(self.shared.key);
            }
            Standing::Proven => c.uncount_stream(self.shared.key),
        }
    }
}

/// Why a stream was refused (503 with `Retry-After`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamRefusal {
    /// [`Limits::max_streams`] streams are open.
    Full(usize),
    /// [`Limits::streams_per_address`] streams are open from this source.
    PerAddress(usize),
}

impl std::fmt::Display for StreamRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamRefusal::Full(n) => write!(
                f,
                "the server streams to {n} clients, its limit: poll /games.pgn or /boards.json, or retry shortly"
            ),
            StreamRefusal::PerAddress(n) => write!(
                f,
                "{n} streams are open from this address, its limit: close one, or poll /games.pgn or /boards.json"
            ),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // Lock order everywhere: the admission's counts, then the class.
        let mut c = self.admission.lock();
        match self.shared.class() {
            Class::Public => {
                c.public -= 1;
                c.order.remove(&self.id);
                c.uncount(self.key, self.shared.prefix);
            }
            Class::Reserve => {
                c.reserve -= 1;
                c.uncount(self.key, self.shared.prefix);
            }
            Class::Probation => {
                c.probation -= 1;
                c.probation_order.remove(&self.id);
                c.uncount(self.key, self.shared.prefix);
            }
            Class::Evicted => {}
        }
    }
}

impl Slot {
    /// Marks a request (or stream) in progress until the guard is dropped.
    pub fn busy(self: &Arc<Self>) -> Busy {
        self.shared.busy.fetch_add(1, Ordering::AcqRel);
        Busy(self.clone())
    }

    /// Resolves when this connection was closed to admit another.
    pub async fn evicted(&self) {
        self.shared.evicted.notified().await
    }

    /// Whether the connection is in the arbiter's reserve.
    pub fn in_reserve(&self) -> bool {
        self.shared.class() == Class::Reserve
    }

    /// Whether the connection is on probation: let in over its limits for
    /// one request that shows the arbiter's credentials
    /// ([`Admission::admit_probation`]).
    pub fn on_probation(&self) -> bool {
        self.shared.class() == Class::Probation
    }

    /// The limits it was admitted under.
    pub fn limits(&self) -> &Limits {
        &self.admission.limits
    }

    /// The listener's lease proofs ([`super::lease`]).
    pub fn leases(&self) -> &Leases {
        &self.admission.leases
    }

    /// A request on this connection showed an arbiter or console route with
    /// valid credentials: the connection moves into the arbiter's reserve
    /// when there is room (else it stays public). Idempotent.
    pub fn credentials_shown(&self) {
        let mut c = self.admission.lock();
        let reserved = self.admission.limits.reserved;
        if self.shared.class() == Class::Public
            && c.reserve < reserved
            && c.reserve + c.probation >= reserved
        {
            // A place on probation, idle, gives way to the arbiter.
            evict_idle_probation(&mut c);
        }
        match self.shared.class() {
            Class::Public if c.reserve + c.probation < reserved => {
                self.shared.set_class(Class::Reserve);
                c.public -= 1;
                c.reserve += 1;
                c.order.remove(&self.id);
            }
            // Its place was one of the reserve's free ones.
            Class::Probation => {
                self.shared.set_class(Class::Reserve);
                c.probation -= 1;
                c.reserve += 1;
                c.probation_order.remove(&self.id);
            }
            _ => {}
        }
    }

    /// A place for a stream on this connection, or why not; `proven`: its
    /// client has shown that it reads (a lease's proof). When the cap is
    /// full, an unproven stream is closed to make room (the oldest of the
    /// source with the most); when every stream is proven, refused.
    pub fn begin_stream(self: &Arc<Self>, proven: bool) -> Result<StreamTicket, StreamRefusal> {
        let limits = &self.admission.limits;
        let mut c = self.admission.lock();
        let per = limits.streams_per_address;
        let mine = c.streams_per_address.get(&self.key).copied().unwrap_or(0);
        if per > 0 && limits.per_address > 0 && mine >= per {
            return Err(StreamRefusal::PerAddress(per));
        }
        let full = c.streams >= limits.max_streams;
        let source = self.shared.source;
        if full && !c.close_unproven((!proven).then_some(source)) {
            drop(c);
            self.admission.refused(&self.admission.streams_refused);
            return Err(StreamRefusal::Full(limits.max_streams));
        }
        c.streams += 1;
        *c.streams_per_address.entry(self.key).or_insert(0) += 1;
        let id = c.next_stream;
        c.next_stream += 1;
        let shared = Arc::new(StreamShared {
            id,
            key: self.key,
            source,
            standing: Mutex::new(if proven {
                Standing::Proven
            } else {
                Standing::Unproven
            }),
            closed: tokio::sync::Notify::new(),
        });
        if !proven {
            c.unproven.insert(id, shared.clone());
            *c.unproven_per_address.entry(source).or_insert(0) += 1;
        }
        drop(c);
        if full {
            self.admission
                .streams_closed
                .fetch_add(1, Ordering::Relaxed);
            self.admission.report();
        }
        Ok(StreamTicket {
            busy: self.busy(),
            shared,
        })
    }
}

impl Admission {
    /// The counts for `limits`, all zero.
    pub fn new(limits: Limits) -> Arc<Self> {
        // Proofs outstanding: a few per stream place (each is used within
        // the client's retry time, or forgotten after 60 s).
        let leases = Leases::new(4 * limits.max_streams);
        Arc::new(Admission {
            limits,
            counts: Mutex::new(Counts::default()),
            refused_total: AtomicU64::new(0),
            refused_address: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            report: Mutex::new(None),
            leases,
            streams_closed: AtomicU64::new(0),
            streams_refused: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A slot for a connection from `ip`: a public one, after closing an
    /// idle one when its host (its IPv6 /64) is at its limit — that host's
    /// (that /64's) oldest — or when every public slot is taken — the
    /// oldest of the source holding the most, else the oldest of all.
    /// `None` when the connections that would have to close are all busy.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Arc<Slot>> {
        use crate::console::backoff::{host_key, prefix_key};
        let (key, prefix) = (host_key(ip), prefix_key(ip));
        let mut c = self.lock();
        let per = self.limits.per_address;
        let count = |m: &HashMap<IpAddr, usize>, k: &IpAddr| m.get(k).copied().unwrap_or(0);
        let mut closed = false;
        if per > 0 && count(&c.per_address, &key) >= per {
            if !self.evict_oldest_idle(&mut c, |_, s| s.key == key) {
                drop(c);
                self.refused(&self.refused_address);
                return None;
            }
            closed = true;
        }
        if let Some(p) = prefix.filter(|_| per > 0) {
            if count(&c.per_prefix, &p) >= self.limits.per_prefix {
                if !self.evict_oldest_idle(&mut c, |_, s| s.prefix == Some(p)) {
                    drop(c);
                    self.refused(&self.refused_address);
                    return None;
                }
                closed = true;
            }
        }
        let public_slots = self
            .limits
            .max_connections
            .saturating_sub(self.limits.reserved);
        let full = c.public >= public_slots;
        if full {
            let most = c.most_held();
            let evicted = self.evict_oldest_idle(&mut c, |c, s| c.held(s.source) == most)
                || self.evict_oldest_idle(&mut c, |_, _| true);
            if !evicted {
                drop(c);
                self.refused(&self.refused_total);
                return None;
            }
            closed = true;
        }
        let slot = self.book(&mut c, Class::Public, ip);
        drop(c);
        if closed {
            self.report();
        }
        Some(slot)
    }

    /// A slot on probation for a connection from `ip` that [`Admission::admit`]
    /// refused: on one of the reserve's free places (the reserve's
    /// connections and those on probation together at most
    /// [`Limits::reserved`]), after closing the oldest idle connection on
    /// probation when they are all taken; `None` when every one is busy,
    /// or there is no reserve. Counted per host and /64 like any other.
    pub fn admit_probation(self: &Arc<Self>, ip: IpAddr) -> Option<Arc<Slot>> {
        let mut c = self.lock();
        if c.reserve >= self.limits.reserved {
            return None;
        }
        if c.reserve + c.probation >= self.limits.reserved && !evict_idle_probation(&mut c) {
            return None;
        }
        Some(self.book(&mut c, Class::Probation, ip))
    }

    /// Books a connection from `ip` as `class` (a public one or one on
    /// probation; the caller has checked the limits): its id, its kind's
    /// count, its host's and its /64's counts, its place in its kind's
    /// order (oldest first, for eviction).
    fn book(self: &Arc<Self>, c: &mut Counts, class: Class, ip: IpAddr) -> Arc<Slot> {
        use crate::console::backoff::{host_key, prefix_key, source_key};
        let (key, prefix, source) = (host_key(ip), prefix_key(ip), source_key(ip));
        let id = c.next_id;
        c.next_id += 1;
        *c.per_address.entry(key).or_insert(0) += 1;
        if let Some(p) = prefix {
            *c.per_prefix.entry(p).or_insert(0) += 1;
        }
        let shared = Arc::new(Shared {
            key,
            prefix,
            source,
            busy: AtomicUsize::new(0),
            class: Mutex::new(class),
            evicted: tokio::sync::Notify::new(),
        });
        match class {
            Class::Probation => {
                c.probation += 1;
                c.probation_order.insert(id, shared.clone());
            }
            _ => {
                c.public += 1;
                c.order.insert(id, shared.clone());
            }
        }
        Arc::new(Slot {
            admission: self.clone(),
            id,
            key,
            shared,
        })
    }

    /// Closes the oldest idle public connection that `which` picks;
    /// whether one was.
    fn evict_oldest_idle(&self, c: &mut Counts, which: impl Fn(&Counts, &Shared) -> bool) -> bool {
        let found = c
            .order
            .iter()
            .find(|(_, s)| s.busy.load(Ordering::Acquire) == 0 && which(c, s))
            .map(|(&id, s)| (id, s.clone()));
        let Some((id, slot)) = found else {
            return false;
        };
        slot.set_class(Class::Evicted);
        c.order.remove(&id);
        c.public -= 1;
        c.uncount(slot.key, slot.prefix);
        // A stored permit: the connection's task closes it even if it is
        // not waiting yet.
        slot.evicted.notify_one();
        self.evicted.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Counts a refusal; one warn line per [`REFUSAL_REPORT`].
    fn refused(&self, counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
        self.report();
    }

    /// The warn line with the refusals and closures counted since the last
    /// one, at most one per [`REFUSAL_REPORT`].
    fn report(&self) {
        let mut last = self.report.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_none_or(|at| at.elapsed() >= REFUSAL_REPORT) {
            *last = Some(Instant::now());
            drop(last);
            let (public, reserve, streams) = {
                let c = self.lock();
                (c.public, c.reserve, c.streams)
            };
            tracing::warn!(
                over_address_limit = self.refused_address.swap(0, Ordering::Relaxed),
                over_total_limit = self.refused_total.swap(0, Ordering::Relaxed),
                idle_closed = self.evicted.swap(0, Ordering::Relaxed),
                unproven_streams_closed = self.streams_closed.swap(0, Ordering::Relaxed),
                streams_refused_at_cap = self.streams_refused.swap(0, Ordering::Relaxed),
                public,
                reserve,
                streams,
                max_connections = self.limits.max_connections,
                max_per_address = self.limits.per_address,
                "connections refused or closed idle (server limits, docs/server.md)"
            );
        }
    }

    /// (public, reserve, streams) open now.
    #[cfg(test)]
    fn open(&self) -> (usize, usize, usize) {
        let c = self.lock();
        (c.public, c.reserve, c.streams)
    }
}

/// Closes the oldest idle connection on probation; whether one was.
fn evict_idle_probation(c: &mut Counts) -> bool {
    let idle = c
        .probation_order
        .iter()
        .find(|(_, s)| s.busy.load(Ordering::Acquire) == 0)
        .map(|(&id, s)| (id, s.clone()));
    let Some((id, slot)) = idle else {
        return false;
    };
    slot.set_class(Class::Evicted);
    c.probation_order.remove(&id);
    c.probation -= 1;
    c.uncount(slot.key, slot.prefix);
    // A stored permit, as for a public one.
    slot.evicted.notify_one();
    true
}

#[cfg(test)]
#[path = "admission_tests.rs"]
mod tests;
