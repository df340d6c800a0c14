//! One board's stream as the MQTT relay rebuilds it ([`super::relay`]):
//! the messages in sequence order, duplicates dropped, early ones held
//! until the gap before them fills or [`GAP_WAIT`] passes, the board's
//! snapshot shown as it comes. After messages were skipped (published
//! while the relay was not subscribed, or dropped by the broker), the
//! stream gets the board's `state` once a snapshot of the message last
//! forwarded is shown (the one an update's last message carries, or the
//! retained one): a state older than the messages already forwarded would
//! take the clients' view back.

use super::Wire;
use crate::broadcast::delay::Channel;
use crate::broadcast::public::Snapshot;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// How long a message waits for an earlier one missing before the gap is skipped.
pub const GAP_WAIT: Duration = Duration::from_secs(2);

/// Where [`BoardStream`] forwards what is in order.
pub(super) trait Sink {
    /// Shows `snapshot` (when given), then sends `messages`.
    fn send(&self, snapshot: Option<Arc<Snapshot>>, messages: &[Arc<str>]);
}

impl Sink for Channel {
    fn send(&self, snapshot: Option<Arc<Snapshot>>, messages: &[Arc<str>]) {
        self.publish(0, snapshot, messages);
    }
}

/// A public stream: to the public channel, and to the console's while the
/// game's arbiter channel is not received.
pub(super) struct Public<'a> {
    pub public: &'a Channel,
    pub console: Option<&'a Channel>,
}

impl Sink for Public<'_> {
    fn send(&self, snapshot: Option<Arc<Snapshot>>, messages: &[Arc<str>]) {
        if let Some(c) = self.console {
            c.publish(0, snapshot.clone(), messages);
        }
        self.public.publish(0, snapshot, messages);
    }
}

/// One board's stream as rebuilt so far.
#[derive(Debug, Default)]
pub(super) struct BoardStream {
    epoch: u64,
    /// Every message up to this one was forwarded (or covered by a snapshot).
    done: u64,
    /// The sequence number of the snapshot shown.
    shown: u64,
    /// The snapshot shown.
    pub snapshot: Option<Arc<Snapshot>>,
    /// Messages after a gap, with their arrival time.
    early: BTreeMap<u64, (Instant, Wire)>,
    /// Messages were skipped and the clients have not had the state since.
    behind: bool,
}

impl BoardStream {
    /// Takes in `w` (from the events topic, or the snapshot topic when
    /// `retained_snapshot`), forwarding what is in order to `out`; whether
    /// a gap was skipped (messages lost: [`BoardStream::drain`]).
    pub fn take(
        &mut self,
        w: Wire,
        retained_snapshot: bool,
        out: &impl Sink,
        now: Instant,
    ) -> bool {
        if w.epoch != self.epoch {
            if w.epoch < self.epoch {
                return false; // an older game's message
            }
            *self = BoardStream {
                epoch: w.epoch,
                ..Default::default()
            };
        }
        if retained_snapshot {
            if let Some(s) = w.snapshot {
                if w.seq > self.shown {
                    self.shown = w.seq;
                    let s = Arc::new(s);
                    self.snapshot = Some(s.clone());
                    out.send(Some(s), &[]);
                }
                // Stream messages before it are in the snapshot already.
                if w.seq > self.done {
                    self.done = w.seq;
                    self.early = self.early.split_off(&(w.seq + 1));
                    self.behind = true;
                }
                self.catch_up(out);
            }
        } else if w.seq > self.done {
            self.early.entry(w.seq).or_insert((now, w));
        }
        self.drain(out, now)
    }

    /// The game (its `epoch`) the stream follows (0: none yet).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Why `w` must not be taken (issue 41: one message must not shut out
    /// the board's next ones): a `seq` more than
    /// [`super::bound::SEQ_AHEAD`] past the last message taken of the same
    /// game (once one was), which would skip every honest message below it.
    pub fn too_far(&self, w: &Wire) -> Option<String> {
        let ahead = super::bound::SEQ_AHEAD;
        (w.epoch == self.epoch && self.done > 0 && w.seq > self.done.saturating_add(ahead)).then(
            || {
                format!(
                    "its sequence number {} is more than {ahead} past the last one taken ({})",
                    w.seq, self.done
                )
            },
        )
    }

    /// Forwards the messages in order; skips a gap older than [`GAP_WAIT`].
    /// Whether it skipped one (messages lost: the relay was not subscribed,
    /// or the broker dropped them).
    pub fn drain(&mut self, out: &impl Sink, now: Instant) -> bool {
        let mut skipped = false;
        loop {
            let Some((&seq, (since, _))) = self.early.iter().next() else {
                return skipped;
            };
            if seq != self.done + 1 && now.duration_since(*since) < GAP_WAIT {
                return skipped;
            }
            let (_, w) = self.early.remove(&seq).expect("present");
            if seq != self.done + 1 {
                skipped = true;
                self.behind = true;
            }
            self.done = seq;
            let msg: Vec<Arc<str>> = w.msg.iter().map(|m| Arc::from(m.to_string())).collect();
            let snap = w.snapshot.filter(|_| seq > self.shown).map(|s| {
                self.shown = seq;
                let s = Arc::new(s);
                self.snapshot = Some(s.clone());
                s
            });
            out.send(snap, &msg);
            self.catch_up(out);
        }
    }

    /// After messages were skipped: the board's state on the stream, once
    /// the snapshot shown is of the message last forwarded.
    fn catch_up(&mut self, out: &impl Sink) {
        if !self.behind || self.shown != self.done {
            return;
        }
        self.behind = false;
        if let Some(s) = &self.snapshot {
            out.send(None, &[Arc::from(s.state.to_string())]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadcast::public::GameInfo;
    use serde_json::json;
    use std::sync::Mutex;

    fn wire(seq: u64, epoch: u64) -> Wire {
        serde_json::from_str(&super::super::wire_json(
            seq,
            epoch,
            seq,
            Some(&format!("{{\"n\":{seq}}}")),
            None,
        ))
        .unwrap()
    }

    /// `wire(seq, 9)` carrying the board's snapshot after it, whose state
    /// says `seq`.
    fn with_snapshot(seq: u64) -> Wire {
        let info = GameInfo::bare(1, 1);
        Wire {
            snapshot: Some(Snapshot {
                seq,
                t: seq,
                info,
                pgn: Default::default(),
                game: json!({}).into(),
                pairing: json!({}),
                state: json!({"at": seq}).into(),
                outline: None,
            }),
            ..wire(seq, 9)
        }
    }

    /// A sink that keeps what it is sent: the snapshots' `at` and the messages.
    #[derive(Default)]
    struct Kept(Mutex<Vec<String>>);

    impl Sink for Kept {
        fn send(&self, snapshot: Option<Arc<Snapshot>>, messages: &[Arc<str>]) {
            let mut k = self.0.lock().unwrap();
            if let Some(s) = snapshot {
                k.push(format!("shown {}", s.state["at"]));
            }
            k.extend(messages.iter().map(|m| m.to_string()));
        }
    }

    #[tokio::test]
    async fn dedupes_orders_and_skips_old_gaps() {
        let out = Channel::new();
        let mut rx = out.events.subscribe();
        let mut b = BoardStream::default();
        let t0 = Instant::now();
        for s in [1, 3, 2, 2, 1, 4] {
            assert!(!b.take(wire(s, 9), false, &out, t0));
        }
        assert!(!b.take(wire(6, 9), false, &out, t0));
        assert!(b.drain(&out, t0 + GAP_WAIT), "5 skipped");
        let got: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok())
            .map(|m| m.json.to_string())
            .collect();
        assert_eq!(
            got,
            [
                "{\"n\":1}",
                "{\"n\":2}",
                "{\"n\":3}",
                "{\"n\":4}",
                "{\"n\":6}"
            ]
        );
        // A new game on the same topics starts again from 1.
        b.take(wire(1, 10), false, &out, t0);
        assert_eq!(rx.try_recv().unwrap().json.as_ref(), "{\"n\":1}");
        b.take(wire(7, 9), false, &out, t0);
        assert!(rx.try_recv().is_err());
    }

    #[tokio::test]
    async fn after_a_gap_the_state_comes_with_the_snapshot_of_the_last_message() {
        let out = Kept::default();
        let mut b = BoardStream::default();
        let t0 = Instant::now();
        b.take(with_snapshot(1), false, &out, t0);
        // 2 and 3 lost; 4 (a move) and 5 (its clock, with the snapshot)
        // are one update.
        b.take(wire(4, 9), false, &out, t0);
        assert!(b.drain(&out, t0 + GAP_WAIT));
        b.take(with_snapshot(5), false, &out, t0 + GAP_WAIT);
        let k = out.0.lock().unwrap().clone();
        assert_eq!(
            k,
            [
                "shown 1",
                "{\"n\":1}",
                "{\"n\":4}",
                "shown 5",
                "{\"n\":5}",
                "{\"at\":5}"
            ],
            "the state of 5, not of 1 (older than 4)"
        );
        // The retained snapshot, again or newer: shown, a state after what
        // it covers, nothing for what was had already.
        let out = Kept::default();
        b.take(with_snapshot(5), true, &out, t0);
        assert!(out.0.lock().unwrap().is_empty());
        let mut r = with_snapshot(8);
        r.msg = None;
        b.take(r, true, &out, t0);
        assert_eq!(*out.0.lock().unwrap(), ["shown 8", "{\"at\":8}"]);
    }
}
