//! `eboard relay --mqtt`: every board of an event rebuilt from the broker
//! into one [`Channel`], which serves the same merged feeds as the HTTP
//! relay (`/games.pgn`, the LiveChess tree, `/events`), boards in
//! (round, board) order.
//!
//! Per board, the messages are taken in sequence order: duplicates (a
//! board's resend after an outage or a restart) are dropped, early ones
//! wait for the gap to fill, at most [`GAP_WAIT`] (a message published
//! while this relay was away never comes: the board's snapshot covers it).
//! The retained snapshot gives a relay that starts late the game at once.
//! When messages are skipped (published while this relay was not
//! subscribed, e.g. a broker restart that the board reconnected to first),
//! the stream gets the board's `state` message after the gap, so the
//! relay's clients resynchronise as after a reconnection.
//! Relays share nothing: several can serve the same event side by side.

use super::{BrokerAddr, Wire};
use crate::broadcast::delay::Channel;
use crate::broadcast::public::Snapshot;
use crate::retry::{Backoff, Outage};
use rumqttc::{AsyncClient, Event, Packet, QoS};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// How long a message waits for an earlier one missing before the gap is skipped.
pub const GAP_WAIT: Duration = Duration::from_secs(2);
/// The first wait before reconnecting to the broker.
pub const RETRY_MIN: Duration = Duration::from_millis(500);
/// The longest wait before reconnecting to the broker.
pub const RETRY_MAX: Duration = Duration::from_secs(5);

/// One board's stream as rebuilt so far.
#[derive(Debug, Default)]
struct BoardStream {
    epoch: u64,
    /// Every message up to this one was forwarded (or covered by a snapshot).
    done: u64,
    /// The sequence number of the snapshot shown.
    shown: u64,
    /// The snapshot shown.
    snapshot: Option<Arc<Snapshot>>,
    /// Messages after a gap, with their arrival time.
    early: BTreeMap<u64, (Instant, Wire)>,
}

impl BoardStream {
    /// Takes in `w` (from the events topic, or the snapshot topic when
    /// `retained_snapshot`), forwarding what is in order to `out`.
    fn take(&mut self, w: Wire, retained_snapshot: bool, out: &Channel, now: Instant) {
        if w.epoch != self.epoch {
            if w.epoch < self.epoch {
                return; // an older game's message
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
                    out.publish(0, Some(s), &[]);
                }
                // Stream messages before it are in the snapshot already.
                if w.seq > self.done {
                    self.done = w.seq;
                    self.early = self.early.split_off(&(w.seq + 1));
                    self.resync(out);
                }
            }
        } else if w.seq > self.done {
            self.early.entry(w.seq).or_insert((now, w));
        }
        self.drain(out, now);
    }

    /// Forwards the messages in order; skips a gap older than [`GAP_WAIT`].
    fn drain(&mut self, out: &Channel, now: Instant) {
        loop {
            let Some((&seq, (since, _))) = self.early.iter().next() else {
                return;
            };
            if seq != self.done + 1 && now.duration_since(*since) < GAP_WAIT {
                return;
            }
            let (_, w) = self.early.remove(&seq).expect("present");
            let skipped = seq != self.done + 1;
            self.done = seq;
            let msg: Vec<Arc<str>> = w.msg.iter().map(|m| Arc::from(m.to_string())).collect();
            let snap = w.snapshot.filter(|_| seq > self.shown).map(|s| {
                self.shown = seq;
                let s = Arc::new(s);
                self.snapshot = Some(s.clone());
                s
            });
            out.publish(0, snap, &msg);
            if skipped {
                self.resync(out);
            }
        }
    }

    /// Sends the board's state (of the snapshot shown) on the stream.
    fn resync(&self, out: &Channel) {
        if let Some(s) = &self.snapshot {
            out.publish(0, None, &[Arc::from(s.state.to_string())]);
        }
    }
}

/// Splits `{prefix}/{event}/{round}/{board}/{kind}` into the board's key and the kind.
fn board_of<'a>(prefix: &str, topic: &'a str) -> Option<((String, u32, u32), &'a str)> {
    let rest = topic.strip_prefix(prefix)?.strip_prefix('/')?;
    let mut parts = rest.split('/');
    let (event, round, board, kind) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    Some((
        (event.to_owned(), round.parse().ok()?, board.parse().ok()?),
        kind,
    ))
}

/// Starts following `{prefix}/{event}/#` (every event when `event` is
/// `None`; `event` is a name, made topic-safe) on `broker` (its address,
/// TLS and login: [`BrokerAddr::options`]) into `out`, on `rt`. Errors: a
/// bad prefix, or the TLS set-up. A broker that cannot be reached, refuses
/// the login or the certificate is reported in the log (again when the
/// reason changes: [`Outage`]) and retried after [`RETRY_MIN`] doubling up
/// to [`RETRY_MAX`] ([`Backoff`]).
pub fn start(
    rt: &tokio::runtime::Handle,
    broker: BrokerAddr,
    prefix: String,
    event: Option<String>,
    out: Arc<Channel>,
) -> Result<(), String> {
    super::check_prefix(&prefix)?;
    let filter = match &event {
        Some(e) => format!("{prefix}/{}/#", super::slug(Some(e))),
        None => format!("{prefix}/#"),
    };
    let client_id = format!(
        "eboard-relay-{}-{:x}",
        std::process::id(),
        rand::random::<u32>()
    );
    let o = broker.options(client_id)?;
    rt.spawn(async move {
        let (client, mut el) = AsyncClient::new(o, 16);
        let mut boards: HashMap<(String, u32, u32), BoardStream> = HashMap::new();
        let mut tick = tokio::time::interval(GAP_WAIT / 4);
        let mut outage = Outage::default();
        let mut backoff = Backoff::new(RETRY_MIN, RETRY_MAX);
        loop {
            tokio::select! {
                ev = el.poll() => match ev {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        backoff.reset();
                        if outage.recovered() {
                            tracing::info!("relay: connected to {broker}");
                        }
                        if let Err(e) = client.try_subscribe(filter.clone(), QoS::AtLeastOnce) {
                            tracing::error!("relay: cannot subscribe to {filter}: {e}");
                        }
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        let Some((key, kind)) = board_of(&prefix, &p.topic) else { continue };
                        let snapshot = match kind {
                            "events" => false,
                            "snapshot" => true,
                            _ => continue,
                        };
                        match serde_json::from_slice::<Wire>(&p.payload) {
                            Ok(w) => boards.entry(key).or_default().take(w, snapshot, &out, Instant::now()),
                            Err(e) => tracing::info!(topic = %p.topic, error = %e, "relay: message not understood"),
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        let why = broker.explain(&e);
                        if outage.failed(&why) {
                            tracing::warn!("relay: broker {broker}: {why}; retrying");
                        }
                        tokio::time::sleep(backoff.next_wait()).await;
                    }
                },
                _ = tick.tick() => {
                    let now = Instant::now();
                    for b in boards.values_mut() {
                        b.drain(&out, now);
                    }
                }
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[tokio::test]
    async fn dedupes_orders_and_skips_old_gaps() {
        let out = Channel::new();
        let mut rx = out.events.subscribe();
        let mut b = BoardStream::default();
        let t0 = Instant::now();
        for s in [1, 3, 2, 2, 1, 4] {
            b.take(wire(s, 9), false, &out, t0);
        }
        b.take(wire(6, 9), false, &out, t0);
        b.drain(&out, t0 + GAP_WAIT);
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

    #[test]
    fn topics_split() {
        assert_eq!(
            board_of("eboard", "eboard/dm-2026/3/12/events"),
            Some((("dm-2026".into(), 3, 12), "events"))
        );
        assert_eq!(board_of("eboard", "eboard/dm/x/1/events"), None);
        assert_eq!(board_of("eboard", "other/dm/1/1/events"), None);
    }
}
