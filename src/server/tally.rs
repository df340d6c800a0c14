//! The admission's bookkeeping under its one lock ([`super::admission`]):
//! which connections and streams are counted where, per host, per IPv6
//! /64 and per source, and which unproven stream is closed for a newcomer.
//! Kept apart from the admission's rules so that neither file passes 600
//! lines; it uses nothing of the admission.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

/// At the stream cap, an unproven newcomer from a source already holding
/// unproven streams closes another source's only when that source holds at
/// least this many more (a hysteresis): without it, 140 attacking sources
/// holding 7 or 8 streams each closed each other's 2,500–3,000 times a
/// second (docs/server.md, "SSE streams end after a lease").
pub const CLOSE_MARGIN: usize = 2;

/// Where a connection's slot is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// A public slot; closed when idle and the house is full.
    Public,
    /// The arbiter's reserve: credentials were shown on it.
    Reserve,
    /// Closed to admit another: no longer counted.
    Evicted,
    /// Over its host's (its /64's, the house's) limit, let in on the
    /// arbiter's reserve's free places only to show credentials on its
    /// first request: it then enters the reserve, else it is answered and
    /// closed ([`super::admission::Admission::admit_probation`]).
    Probation,
}

/// The counts, under one lock.
#[derive(Debug, Default)]
pub(super) struct Counts {
    pub(super) public: usize,
    pub(super) reserve: usize,
    pub(super) streams: usize,
    /// Connections on probation (counted per host and /64 too).
    pub(super) probation: usize,
    /// Connections on probation by age, oldest first.
    pub(super) probation_order: BTreeMap<u64, Arc<Shared>>,
    /// Connections per host ([`crate::console::backoff::host_key`]).
    pub(super) per_address: HashMap<IpAddr, usize>,
    /// Connections per IPv6 /64.
    pub(super) per_prefix: HashMap<IpAddr, usize>,
    /// Streams per host.
    pub(super) streams_per_address: HashMap<IpAddr, usize>,
    /// Public connections by age (admission order), oldest first.
    pub(super) order: BTreeMap<u64, Arc<Shared>>,
    pub(super) next_id: u64,
    /// Unproven streams by age, oldest first.
    pub(super) unproven: BTreeMap<u64, Arc<StreamShared>>,
    /// Unproven streams per source (IPv4 address, IPv6 /64).
    pub(super) unproven_per_address: HashMap<IpAddr, usize>,
    pub(super) next_stream: u64,
}

impl Counts {
    /// Takes a stream's place back (it closed, or was closed for another).
    pub(super) fn uncount_stream(&mut self, key: IpAddr) {
        self.streams -= 1;
        if let Some(n) = self.streams_per_address.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                self.streams_per_address.remove(&key);
            }
        }
    }

    /// Removes stream `id` of source `key` from the unproven ones.
    pub(super) fn unlist(&mut self, id: u64, key: IpAddr) {
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
    pub(super) fn close_unproven(&mut self, newcomer: Option<IpAddr>) -> bool {
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
            .find(|s| self.unproven_per_address.get(&s.source) == Some(&most))
            .cloned();
        let Some(victim) = victim else {
            return false;
        };
        self.unlist(victim.id, victim.source);
        self.uncount_stream(victim.key);
        victim.set_standing(Standing::Closed);
        // A stored permit: the stream ends even if it is not waiting yet.
        victim.closed.notify_one();
        true
    }

    pub(super) fn uncount(&mut self, key: IpAddr, prefix: Option<IpAddr>) {
        for (map, k) in [
            (&mut self.per_address, Some(key)),
            (&mut self.per_prefix, prefix),
        ] {
            let Some(k) = k else { continue };
            if let Some(n) = map.get_mut(&k) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&k);
                }
            }
        }
    }

    /// The connections source `source` (an IPv4 address, an IPv6 /64) holds.
    pub(super) fn held(&self, source: IpAddr) -> usize {
        let map = match source {
            IpAddr::V4(_) => &self.per_address,
            IpAddr::V6(_) => &self.per_prefix,
        };
        map.get(&source).copied().unwrap_or(0)
    }

    /// The most connections one source holds.
    pub(super) fn most_held(&self) -> usize {
        let v4 = self.per_address.iter().filter(|(k, _)| k.is_ipv4());
        self.per_prefix
            .iter()
            .chain(v4)
            .map(|(_, n)| *n)
            .max()
            .unwrap_or(0)
    }
}

/// What the admission reads of a slot (kept apart from
/// [`super::admission::Slot`], whose drop takes the admission's lock).
#[derive(Debug)]
pub(super) struct Shared {
    /// The host ([`crate::console::backoff::host_key`]).
    pub(super) key: IpAddr,
    /// The IPv6 /64 it is counted in (None: IPv4).
    pub(super) prefix: Option<IpAddr>,
    /// The source: the IPv4 address or the IPv6 /64.
    pub(super) source: IpAddr,
    /// Requests being answered (until their response body is dropped) and
    /// streams running on this connection.
    pub(super) busy: AtomicUsize,
    /// Changed under the admission's lock.
    pub(super) class: Mutex<Class>,
    /// Notified when the slot is taken to admit another connection.
    pub(super) evicted: tokio::sync::Notify,
}

impl Shared {
    pub(super) fn class(&self) -> Class {
        *self.class.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn set_class(&self, class: Class) {
        *self.class.lock().unwrap_or_else(|p| p.into_inner()) = class;
    }
}

/// Whether a stream's client has shown that it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Standing {
    /// Nothing shown yet: closed first when a newcomer needs the place.
    Unproven,
    /// A lease's proof came back, or a ping was echoed.
    Proven,
    /// Closed to admit another: no longer counted.
    Closed,
}

/// What the admission reads of a stream.
#[derive(Debug)]
pub(super) struct StreamShared {
    pub(super) id: u64,
    /// The host (streams per address are counted per host).
    pub(super) key: IpAddr,
    /// The source (IPv4 address, IPv6 /64): unproven streams are counted
    /// per source, for the choice of the one to close.
    pub(super) source: IpAddr,
    /// Changed under the admission's lock.
    pub(super) standing: Mutex<Standing>,
    /// Notified when the stream is closed to admit another.
    pub(super) closed: tokio::sync::Notify,
}

impl StreamShared {
    pub(super) fn standing(&self) -> Standing {
        *self.standing.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn set_standing(&self, s: Standing) {
        *self.standing.lock().unwrap_or_else(|p| p.into_inner()) = s;
    }
}
