//! Stream leases: how a public SSE client proves that it reads (issue 26
//! §3; `docs/server.md`, "SSE streams end after a lease").
//!
//! A whole game fits a socket buffer, and TCP does not tell a client that
//! never reads from one that reads slowly (the measurement is in
//! docs/server.md). So reading is made provable: each public SSE stream
//! ends after [`super::Limits::stream_lease`] with a last event whose `id:`
//! is a **proof** — the id of the last message the client was sent, a
//! random per-stream nonce, and an HMAC-SHA256 (per-process key) over both:
//! `LAST.NNNNNNNNNNNNNNNNTTTT…` (16 hex digits of nonce, 32 of tag; a
//! message id never holds a `.`, `crate::broadcast::event_id`).
//! `EventSource` reconnects by itself and sends that id back as
//! `Last-Event-ID` (WHATWG HTML §9.2): only a client that read its stream
//! to the end has it. The reconnect resumes after `LAST` as any
//! `Last-Event-ID` does, and its stream is a **proven reader**'s.
//!
//! A proof is good once, and within [`PROOF_VALID`] of its lease's end:
//! else one reader's proof would admit any number of never-readers. At
//! most [`Leases::capacity`] proofs are outstanding; past that the oldest
//! is forgotten (its client reconnects unproven, and resumes all the same).

use ring::hmac;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long after its lease's end a proof is taken: `EventSource`
/// reconnects within its `retry:` time ([`LEASE_RETRY`]), a relay within
/// half a second.
pub const PROOF_VALID: Duration = Duration::from_secs(60);

/// The reconnection time the lease's last event sets (SSE `retry:`, ms):
/// a spectator's browser is back this soon, not after its default 3 s.
pub const LEASE_RETRY: Duration = Duration::from_millis(250);

pub use crate::broadcast::event_id::LEASE_EVENT;

/// Hex digits of the nonce and of the tag in a proof.
const NONCE_HEX: usize = 16;
const TAG_HEX: usize = 32;

/// What a `Last-Event-ID` says about its sender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof<'a> {
    /// A plain id, or none: nothing proved.
    None,
    /// A proof this process issued, not used yet, in time: the client read
    /// its last stream to the end. `last` is the id to resume after.
    Valid {
        /// The id of the last message of the stream the proof ended.
        last: &'a str,
        /// The stream's nonce (taken with [`Leases::take`]).
        nonce: u64,
    },
    /// Shaped as a proof but not good: forged, another process's, used,
    /// forgotten or late. `last` is still resumed after (unproven).
    Refused {
        /// The id before the proof.
        last: &'a str,
        /// Why, for the stream's opening comment.
        why: &'static str,
    },
}

impl<'a> Proof<'a> {
    /// The id to resume after, proof or not.
    pub fn last(&self, whole: Option<&'a str>) -> Option<&'a str> {
        match self {
            Proof::Valid { last, .. } | Proof::Refused { last, .. } => Some(last),
            Proof::None => whole,
        }
    }
}

/// Splits `LAST.PROOF`; `None` when `text` holds no `.` (a plain id).
pub fn split(text: &str) -> Option<(&str, &str)> {
    text.split_once('.')
}

/// The proofs of one process: its HMAC key and the proofs outstanding.
#[derive(Debug)]
pub struct Leases {
    key: hmac::Key,
    capacity: usize,
    outstanding: Mutex<Outstanding>,
}

/// Nonces issued and not yet used, with when; oldest first in `order`.
#[derive(Debug, Default)]
struct Outstanding {
    issued: HashMap<u64, Instant>,
    order: VecDeque<(u64, Instant)>,
}

impl Leases {
    /// A fresh random key; at most `capacity` proofs outstanding (at
    /// least 1).
    pub fn new(capacity: usize) -> Leases {
        let secret: [u8; 32] = rand::random();
        Leases {
            key: hmac::Key::new(hmac::HMAC_SHA256, &secret),
            capacity: capacity.max(1),
            outstanding: Mutex::new(Outstanding::default()),
        }
    }

    /// How many proofs may be outstanding at once.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Outstanding> {
        self.outstanding.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn tag(&self, nonce: u64, last: &str) -> hmac::Tag {
        let mut ctx = hmac::Context::with_key(&self.key);
        ctx.update(&nonce.to_be_bytes());
        ctx.update(last.as_bytes());
        ctx.sign()
    }

    /// The proof ending a stream whose last message was `last`, issued at
    /// `now`: the `id:` of the lease's last event.
    pub fn issue(&self, last: &str, now: Instant) -> String {
        let nonce: u64 = rand::random();
        let tag = self.tag(nonce, last);
        let mut text = format!("{last}.{nonce:0w$x}", w = NONCE_HEX);
        for b in &tag.as_ref()[..TAG_HEX / 2] {
            text.push_str(&format!("{b:02x}"));
        }
        let mut o = self.lock();
        o.issued.insert(nonce, now);
        o.order.push_back((nonce, now));
        // Forget from the front: used (stale) entries, late proofs, and the
        // oldest past the capacity; `order` is bounded too.
        while let Some(&(old, at)) = o.order.front() {
            let live = o.issued.get(&old) == Some(&at);
            let late = now.saturating_duration_since(at) > PROOF_VALID;
            let over = o.issued.len() > self.capacity || o.order.len() > 4 * self.capacity;
            if live && !late && !over {
                break;
            }
            o.order.pop_front();
            if live {
                o.issued.remove(&old);
            }
        }
        text
    }

    /// What `last_event_id` proves at `now` (nothing is used up: see
    /// [`Leases::take`]).
    pub fn read<'a>(&self, last_event_id: &'a str, now: Instant) -> Proof<'a> {
        let Some((last, proof)) = split(last_event_id) else {
            return Proof::None;
        };
        let refused = |why| Proof::Refused { last, why };
        if proof.len() != NONCE_HEX + TAG_HEX || !proof.bytes().all(|b| b.is_ascii_hexdigit()) {
            return refused("not a proof of this server");
        }
        let (n, t) = proof.split_at(NONCE_HEX);
        let Ok(nonce) = u64::from_str_radix(n, 16) else {
            return refused("not a proof of this server");
        };
        let tag: Vec<u8> = (0..TAG_HEX / 2)
            .filter_map(|i| u8::from_str_radix(&t[2 * i..2 * i + 2], 16).ok())
            .collect();
        let want = self.tag(nonce, last);
        // Constant time: the tag is the secret part.
        if !bool::from(subtle::ConstantTimeEq::ct_eq(
            &want.as_ref()[..TAG_HEX / 2],
            tag.as_slice(),
        )) {
            return refused("the proof does not match (another server, or altered)");
        }
        match self.lock().issued.get(&nonce) {
            None => refused("the proof was used already, or forgotten"),
            Some(&at) if now.saturating_duration_since(at) > PROOF_VALID => {
                refused("the proof is older than 60 s")
            }
            Some(_) => Proof::Valid { last, nonce },
        }
    }

    /// Uses up the proof of `nonce`: `Some(when it was issued)` when it
    /// was outstanding, `None` when another reconnect took it first.
    pub fn take(&self, nonce: u64) -> Option<Instant> {
        self.lock().issued.remove(&nonce)
    }

    /// Puts back a proof taken for a stream that was then refused (503):
    /// the client may still use it.
    pub fn restore(&self, nonce: u64, issued: Instant) {
        let mut o = self.lock();
        o.issued.insert(nonce, issued);
        o.order.push_back((nonce, issued));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_is_good_once_in_time_and_for_its_own_id_only() {
        let l = Leases::new(8);
        let t0 = Instant::now();
        let p = l.issue("1700-5", t0);
        assert!(p.starts_with("1700-5."), "{p}");
        let Proof::Valid { last, nonce } = l.read(&p, t0) else {
            panic!("{:?}", l.read(&p, t0));
        };
        assert_eq!(last, "1700-5");
        assert!(l.take(nonce).is_some());
        assert!(l.take(nonce).is_none(), "once");
        assert!(matches!(
            l.read(&p, t0),
            Proof::Refused { last: "1700-5", .. }
        ));

        // Another id with the same proof, another process's proof, junk.
        let q = l.issue("1700-5", t0);
        let moved = q.replacen("1700-5", "1700-4", 1);
        assert!(matches!(
            l.read(&moved, t0),
            Proof::Refused { last: "1700-4", .. }
        ));
        let other = Leases::new(8).issue("1700-5", t0);
        assert!(matches!(l.read(&other, t0), Proof::Refused { .. }));
        assert!(matches!(l.read("1700-5.zz", t0), Proof::Refused { .. }));
        assert_eq!(l.read("1700-5", t0), Proof::None);
        assert_eq!(Proof::None.last(Some("1700-5")), Some("1700-5"));

        // Late.
        let late = t0 + PROOF_VALID + Duration::from_millis(1);
        assert!(matches!(l.read(&q, late), Proof::Refused { .. }));
        assert!(matches!(l.read(&q, t0 + PROOF_VALID), Proof::Valid { .. }));
    }

    #[test]
    fn the_oldest_outstanding_proof_is_forgotten_past_the_capacity() {
        let l = Leases::new(2);
        let t0 = Instant::now();
        let a = l.issue("s-1", t0);
        let b = l.issue("s-2", t0);
        let c = l.issue("s-3", t0);
        assert!(matches!(l.read(&a, t0), Proof::Refused { .. }));
        assert!(matches!(l.read(&b, t0), Proof::Valid { .. }));
        assert!(matches!(l.read(&c, t0), Proof::Valid { .. }));
        // Taken and put back: good again.
        let Proof::Valid { nonce, .. } = l.read(&b, t0) else {
            unreachable!()
        };
        let at = l.take(nonce).unwrap();
        l.restore(nonce, at);
        assert!(matches!(l.read(&b, t0), Proof::Valid { .. }));
        for i in 0..100 {
            l.issue(&format!("s-{i}"), t0);
        }
        let o = l.lock();
        assert!(o.issued.len() <= 2 && o.order.len() <= 8, "bounded");
    }
}
