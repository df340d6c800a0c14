//! Who holds the listener's connection slots (issue 18 §1, issue 26 §3;
//! `docs/server.md`, "Connection limits").
//!
//! - Every new connection is admitted as a **public** one. At most
//!   [`Limits::max_connections`] − [`Limits::reserved`] public connections
//!   are open at once, and at most [`Limits::per_address`] from one source
//!   (IPv4 address or IPv6 /64, [`crate::console::backoff::source_key`], the
//!   back-off's key).
//! - When the public slots are full, the **oldest idle** public connection
//!   (no request being answered, no stream: a keep-alive connection
//!   between requests, a client still sending its head or its TLS
//!   handshake) is closed to admit the new one. Only when every public
//!   connection is busy is the new one refused.
//! - A connection enters the **arbiter's reserve** (the last
//!   [`Limits::reserved`] slots) only once one of its requests has shown
//!   an arbiter or console route with valid credentials (a session cookie
//!   or a bearer token, [`Slot::credentials_shown`], called by
//!   [`super::arbiter::authorize_caller`] and a successful login). A
//!   connection in the reserve is never closed to admit another.
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
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often refused connections are reported (one warn line with counts).
pub const REFUSAL_REPORT: Duration = Duration::from_secs(10);

/// At the stream cap, an unproven newcomer from a source already holding
/// unproven streams closes another source's only when that source holds at
/// least this many more (a hysteresis): without it, 140 attacking sources
/// holding 7 or 8 streams each closed each other's 2,500–3,000 times a
/// second (docs/server.md, "SSE streams end after a lease").
pub const CLOSE_MARGIN: usize = 2;

/// Where a connection's slot is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A public slot; closed when idle and the house is full.
    Public,
    /// The arbiter's reserve: credentials were shown on it.
    Reserve,
    /// Closed to admit another: no longer counted.
    Evicted,
}

/// The counts, under one lock.
#[derive(Debug, Default)]
struct Counts {
    public: usize,
    reserve: usize,
    streams: usize,
    per_address: HashMap<IpAddr, usize>,
    streams_per_address: HashMap<IpAddr, usize>,
    /// Public connections by age (admission order), oldest first.
    order: BTreeMap<u64, Arc<Shared>>,
    next_id: u64,
    /// Unproven streams by age, oldest first.
    unproven: BTreeMap<u64, Arc<StreamShared>>,
    /// Unproven streams per source.
    unproven_per_address: HashMap<IpAddr, usize>,
    next_stream: u64,
}

impl Counts {
    /// Takes a stream's place back (it closed, or was closed for another).
    fn uncount_stream(&mut self, key: IpAddr) {
        self.streams -= 1;
        if let Some(n) = self.streams_per_address.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                self.streams_per_address.remove(&key);
            }
        }
    }

    /// Removes stream `id` of `key` from the unproven ones.
    fn unlist(&mut self, id: u64, key: IpAddr) {
        if self.unproven.remove(&id).is_some() {
            if let Some(n) = self.unproven_per_address.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    self.unproven_per_address.remove(&key);
                }
            }
        }
    }

    /// Closes the oldest unproven stream of the source holding the most
    /// unproven streams, for a newcomer from `newcomer` (`None`: a proven
    /// newcomer, always let in); whether one was closed. An unproven
    /// newcomer whose source holds `k` unproven streams closes one only
    /// when the victim's source holds at least `k` + [`CLOSE_MARGIN`], or
    /// when `k` is 0 (a fresh source always gets in while any stream is
    /// unproven): sources holding about as many never close each other's.
    fn close_unproven(&mut self, newcomer: Option<IpAddr>) -> bool {
        let Some(most) = self.unproven_per_address.values().copied().max() else {
            return false;
        };
        if let Some(key) = newcomer {
            let mine = self.unproven_per_address.get(&key).copied().unwrap_or(0);
            if mine > 0 && most < mine + CLOSE_MARGIN {
                return false;
            }
        }
        let victim = self
            .unproven
            .values()
            .find(|s| self.unproven_per_address.get(&s.key) == Some(&most))
            .cloned();
        let Some(victim) = victim else {
            return false;
        };
        self.unlist(victim.id, victim.key);
        self.uncount_stream(victim.key);
        victim.set_standing(Standing::Closed);
        // A stored permit: the stream ends even if it is not waiting yet.
        victim.closed.notify_one();
        true
    }

    fn uncount(&mut self, key: IpAddr) {
        if let Some(n) = self.per_address.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                self.per_address.remove(&key);
            }
        }
    }
}

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
    key: IpAddr,
    shared: Arc<Shared>,
}

/// What the admission reads of a slot (kept apart from [`Slot`], whose
/// drop takes the admission's lock).
#[derive(Debug)]
struct Shared {
    key: IpAddr,
    /// Requests being answered (until their response body is dropped) and
    /// streams running on this connection.
    busy: AtomicUsize,
    /// Changed under the admission's lock.
    class: Mutex<Class>,
    /// Notified when the slot is taken to admit another connection.
    evicted: tokio::sync::Notify,
}

impl Shared {
    fn class(&self) -> Class {
        *self.class.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set_class(&self, class: Class) {
        *self.class.lock().unwrap_or_else(|p| p.into_inner()) = class;
    }
}

/// A request or a stream in progress on a connection: it is not idle.
#[derive(Debug)]
pub struct Busy(Arc<Slot>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.shared.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Whether a stream's client has shown that it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// Nothing shown yet: closed first when a newcomer needs the place.
    Unproven,
    /// A lease's proof came back, or a ping was echoed.
    Proven,
    /// Closed to admit another: no longer counted.
    Closed,
}

/// What the admission reads of a stream.
#[derive(Debug)]
struct StreamShared {
    id: u64,
    key: IpAddr,
    /// Changed under the admission's lock.
    standing: Mutex<Standing>,
    /// Notified when the stream is closed to admit another.
    closed: tokio::sync::Notify,
}

impl StreamShared {
    fn standing(&self) -> Standing {
        *self.standing.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set_standing(&self, s: Standing) {
        *self.standing.lock().unwrap_or_else(|p| p.into_inner()) = s;
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
            c.unlist(self.shared.id, self.shared.key);
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
                c.unlist(self.shared.id, self.shared.key);
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
                c.uncount(self.key);
            }
            Class::Reserve => {
                c.reserve -= 1;
                c.uncount(self.key);
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
        if self.shared.class() == Class::Public && c.reserve < self.admission.limits.reserved {
            self.shared.set_class(Class::Reserve);
            c.public -= 1;
            c.reserve += 1;
            c.order.remove(&self.id);
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
        if full && !c.close_unproven((!proven).then_some(self.key)) {
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
            standing: Mutex::new(if proven {
                Standing::Proven
            } else {
                Standing::Unproven
            }),
            closed: tokio::sync::Notify::new(),
        });
        if !proven {
            c.unproven.insert(id, shared.clone());
            *c.unproven_per_address.entry(self.key).or_insert(0) += 1;
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

    /// A slot for a connection from `ip`: a public one, after closing the
    /// oldest idle public connection when they are all taken. `None` when
    /// the source is at its limit or every public connection is busy.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Arc<Slot>> {
        let key = crate::console::backoff::source_key(ip);
        let mut c = self.lock();
        let mine = c.per_address.get(&key).copied().unwrap_or(0);
        let per = self.limits.per_address;
        if per > 0 && mine >= per {
            drop(c);
            self.refused(&self.refused_address);
            return None;
        }
        let public_slots = self
            .limits
            .max_connections
            .saturating_sub(self.limits.reserved);
        let full = c.public >= public_slots;
        if full && !self.evict_oldest_idle(&mut c) {
            drop(c);
            self.refused(&self.refused_total);
            return None;
        }
        let id = c.next_id;
        c.next_id += 1;
        c.public += 1;
        *c.per_address.entry(key).or_insert(0) += 1;
        let shared = Arc::new(Shared {
            key,
            busy: AtomicUsize::new(0),
            class: Mutex::new(Class::Public),
            evicted: tokio::sync::Notify::new(),
        });
        c.order.insert(id, shared.clone());
        drop(c);
        if full {
            self.report();
        }
        Some(Arc::new(Slot {
            admission: self.clone(),
            id,
            key,
            shared,
        }))
    }

    /// Closes the oldest public connection that is idle; whether one was.
    fn evict_oldest_idle(&self, c: &mut Counts) -> bool {
        let found = c
            .order
            .iter()
            .find(|(_, s)| s.busy.load(Ordering::Acquire) == 0)
            .map(|(&id, s)| (id, s.clone()));
        let Some((id, slot)) = found else {
            return false;
        };
        slot.set_class(Class::Evicted);
        c.order.remove(&id);
        c.public -= 1;
        c.uncount(slot.key);
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

#[cfg(test)]
#[path = "admission_tests.rs"]
mod tests;
