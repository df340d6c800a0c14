//! A board's presence on MQTT (issue 15: the console's alert queue has "a
//! board offline or resumed after downtime"): the availability pattern of
//! MQTT 3.1.1, a retained status per table and the connection's Last Will.
//!
//! | topic | QoS | retained | payload |
//! |---|---|---|---|
//! | `{prefix}/{event}/board/{N}/status` | 1 | yes | `{"status": "online", "game": "4.2"}` or `{"status": "offline", "game": "4.2", "reason": "connection lost" \| "stopped"}` |
//!
//! - The board's public uplink ([`super::publish`], always there with
//!   `[mqtt]`) connects with a will: offline, reason "connection lost"
//!   ([`Presence::will`]). MQTT 3.1.1 §3.1.2.5: the broker publishes the
//!   will when the network connection closes without a DISCONNECT,
//!   among others when it "fails to communicate within the Keep Alive
//!   time" (§3.1.2.10: one and a half times the keep-alive,
//!   [`super::publish::KEEP_ALIVE`] = 5 s, so at most 7.5 s after the
//!   board's last packet; a killed process's socket is closed by its kernel,
//!   and the will goes out at once). §3.1.2.7: with Will Retain the will is
//!   published retained.
//! - On every CONNACK the uplink publishes online, retained (a reconnection
//!   after an outage replaces the will's offline).
//! - On a clean stop ([`PresenceStop::stop`]: SIGTERM) it publishes
//!   offline, reason "stopped", retained, then sends DISCONNECT, which
//!   makes the broker discard the will (§3.14.4).
//!
//! The relay with a console follows `{prefix}/{event}/board/+/status`
//! ([`filter`]) and turns an offline into a `board_offline` alert and the
//! next online into a `board_resumed` ([`Tracker`]); a retained offline
//! found at its start is alerted too (the board is off now).

use super::slug;
use super::BrokerAddr;
use rumqttc::{AsyncClient, ConnectionError, Event, LastWill, Outgoing, Packet, QoS};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// The reason of the will: the broker lost the connection.
pub const REASON_LOST: &str = "connection lost";
/// The reason of a clean stop (SIGTERM, Ctrl-C).
pub const REASON_STOPPED: &str = "stopped";

/// Table `board`'s status topic in `event` (a name, slugged):
/// `{prefix}/{event}/board/{N}/status`.
pub fn topic(prefix: &str, event: Option<&str>, board: u32) -> String {
    format!("{prefix}/{}/board/{board}/status", slug(event))
}

/// The subscription to every table's status of `event` (every event:
/// `None`): `{prefix}/{event|+}/board/+/status`.
pub fn filter(prefix: &str, event: Option<&str>) -> String {
    let e = event.map_or_else(|| "+".to_owned(), |e| slug(Some(e)));
    format!("{prefix}/{e}/board/+/status")
}

/// Splits `{prefix}/{event}/board/{N}/status` into (event level, table).
pub fn table_of(prefix: &str, topic: &str) -> Option<(String, u32)> {
    let rest = topic.strip_prefix(prefix)?.strip_prefix('/')?;
    let mut p = rest.split('/');
    let (event, board, n, status) = (p.next()?, p.next()?, p.next()?, p.next()?);
    if board != "board" || status != "status" || p.next().is_some() {
        return None;
    }
    Some((event.to_owned(), n.parse().ok()?))
}

/// What one board publishes about itself: its status topic and payloads
/// (JSON text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Presence {
    /// `{prefix}/{event}/board/{N}/status`.
    pub topic: String,
    /// `{"status": "online", "game"}`.
    pub online: String,
    /// The will: `{"status": "offline", "game", "reason": "connection lost"}`.
    pub lost: String,
    /// `{"status": "offline", "game", "reason": "stopped"}`.
    pub stopped: String,
}

impl Presence {
    /// Board `board` of `event` playing game `game` (`round.board`).
    pub fn new(prefix: &str, event: Option<&str>, board: u32, game: &str) -> Presence {
        let offline = |why: &str| json!({"status": "offline", "game": game, "reason": why});
        Presence {
            topic: topic(prefix, event, board),
            online: json!({"status": "online", "game": game}).to_string(),
            lost: offline(REASON_LOST).to_string(),
            stopped: offline(REASON_STOPPED).to_string(),
        }
    }

    /// The connection's Last Will: [`Presence::lost`], QoS 1, retained.
    pub fn will(&self) -> LastWill {
        LastWill::new(&self.topic, self.lost.clone(), QoS::AtLeastOnce, true)
    }
}

/// The uplink's side of a clean stop: told to stop, it publishes
/// [`Presence::stopped`] and disconnects; it drops `done` when it ends.
#[derive(Debug)]
pub struct PresenceRun {
    /// The payloads.
    pub presence: Presence,
    /// Fires on [`PresenceStop::stop`].
    pub stop: oneshot::Receiver<()>,
    /// Dropped when the uplink has ended (or its task was dropped).
    pub done: std::sync::mpsc::Sender<()>,
}

/// The daemon's side of a clean stop.
#[derive(Debug)]
pub struct PresenceStop {
    stop: oneshot::Sender<()>,
    done: std::sync::mpsc::Receiver<()>,
}

/// The two ends of a clean stop for `presence`.
pub fn presence(presence: Presence) -> (PresenceRun, PresenceStop) {
    let (stop_tx, stop) = oneshot::channel();
    let (done, done_rx) = std::sync::mpsc::channel();
    (
        PresenceRun {
            presence,
            stop,
            done,
        },
        PresenceStop {
            stop: stop_tx,
            done: done_rx,
        },
    )
}

impl PresenceStop {
    /// Tells the uplink to publish offline ("stopped") and disconnect, and
    /// waits (blocking: call it outside the runtime) until it has, or until
    /// `deadline`. Returns whether it did in time.
    pub fn stop(self, deadline: Instant) -> bool {
        let _ = self.stop.send(());
        let left = deadline.saturating_duration_since(Instant::now());
        matches!(
            self.done.recv_timeout(left),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected)
        )
    }
}

/// The relay's view of the tables' status: turns their changes into the
/// console's `board_offline` / `board_resumed` messages.
#[derive(Debug, Default)]
pub struct Tracker {
    /// Per table (event level, N): offline now, its outages so far, and
    /// when the last one started (Unix ms).
    tables: HashMap<(String, u32), (bool, u64, u64)>,
}

impl Tracker {
    /// Takes the status `payload` arrived on `topic`; the console message
    /// it makes, if any: `{"type": "board_offline", "game", "topic",
    /// "reason", "outage"}` when the table goes offline (or is offline at
    /// the relay's start: a retained offline), `{"type": "board_resumed",
    /// "game", "topic", "outage"}` when it is online again after that.
    /// `outage` counts this table's outages seen by this run, from 1 (the
    /// console's queue takes the same message twice as one alert). An
    /// online first seen, a repeated status, and a payload not understood
    /// (logged) make none.
    pub fn take(&mut self, table: (String, u32), topic: &str, payload: &[u8]) -> Option<Arc<str>> {
        let v: Value = match serde_json::from_slice(payload) {
            Ok(v) => v,
            Err(e) => {
                tracing::info!(%topic, error = %e, "relay: board status not understood");
                return None;
            }
        };
        let game = v.get("game").and_then(Value::as_str);
        let (offline, outages, since) = self.tables.entry(table).or_default();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        match v.get("status").and_then(Value::as_str) {
            Some("offline") if !*offline => {
                *offline = true;
                *outages += 1;
                *since = now;
                let reason = v.get("reason").and_then(Value::as_str);
                tracing::warn!(%topic, ?game, ?reason, "relay: board offline");
                Some(Arc::from(
                    json!({"type": "board_offline", "game": game, "topic": topic,
                           "reason": reason, "outage": *outages, "since": *since,
                           "unix_ms": now})
                    .to_string(),
                ))
            }
            Some("online") if *offline => {
                *offline = false;
                tracing::info!(%topic, ?game, "relay: board online again");
                Some(Arc::from(
                    json!({"type": "board_resumed", "game": game, "topic": topic,
                           "outage": *outages, "since": *since, "unix_ms": now})
                    .to_string(),
                ))
            }
            Some("offline" | "online") => None,
            other => {
                tracing::info!(%topic, status = ?other, "relay: board status not understood");
                None
            }
        }
    }
}

/// A connection's events, read by their own task (the uplink's
/// `connection`, [`super::publish`]); [`stop_cleanly`] reads the last of
/// them.
pub(super) type Events = mpsc::Receiver<Result<Event, ConnectionError>>;

/// How long a clean stop waits for the broker to take the offline status
/// and the DISCONNECT (the daemon's own deadline may be shorter).
pub const STOP_WAIT: Duration = Duration::from_millis(1000);

/// Publishes `p`'s offline ("stopped") status, retained, QoS 1, waits for
/// its PUBACK, then sends DISCONNECT (the broker discards the will: MQTT
/// 3.1.1 §3.14.4) and reads until the broker closes the connection, all
/// within [`STOP_WAIT`]. Closing the socket with the PUBACK unread would
/// send a TCP reset, with which the broker may lose the DISCONNECT and
/// publish the will after all. `queued`: publish requests handed to the
/// client and not yet written (the status is written after them).
pub(super) async fn stop_cleanly(
    client: &AsyncClient,
    el: &mut Events,
    p: &PresenceRun,
    broker: &BrokerAddr,
    queued: usize,
) {
    let t = &p.presence.topic;
    if let Err(e) = client.try_publish(t, QoS::AtLeastOnce, true, p.presence.stopped.clone()) {
        tracing::warn!("mqtt: broker {broker}: the offline status not sent: {e}");
        return;
    }
    let drive = async {
        let mut before = queued;
        let mut mine = None;
        let mut disconnected = false;
        loop {
            let Some(ev) = el.recv().await else {
                return Ok(());
            };
            match ev? {
                Event::Outgoing(Outgoing::Publish(pkid)) if mine.is_none() => {
                    if before == 0 {
                        mine = Some(pkid);
                    } else {
                        before -= 1;
                    }
                }
                Event::Incoming(Packet::PubAck(a)) if mine == Some(a.pkid) && !disconnected => {
                    tracing::info!("mqtt: board status offline (stopped) published on {t}");
                    disconnected = true;
                    if let Err(e) = client.try_disconnect() {
                        tracing::warn!("mqtt: broker {broker}: DISCONNECT not sent: {e}");
                    }
                }
                _ => {}
            }
        }
    };
    // The loop ends with the broker's close (an error), or the timeout.
    let r: Result<(), _> = tokio::time::timeout(STOP_WAIT, drive)
        .await
        .unwrap_or(Ok(()));
    if let Err(e) = r {
        tracing::debug!("mqtt: broker {broker}: closed: {}", broker.explain(&e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_and_filter_match_only_each_other() {
        let t = topic("eboard", Some("DM 2026"), 2);
        assert_eq!(t, "eboard/dm-2026/board/2/status");
        assert!(rumqttc::matches(&t, &filter("eboard", Some("DM 2026"))));
        assert!(rumqttc::matches(&t, &filter("eboard", None)));
        // Neither the public nor the arbiter filters take it, nor it theirs.
        for f in ["eboard/+/+/+/events", "eboard/+/+/+/snapshot"] {
            assert!(!rumqttc::matches(&t, f), "{f}");
        }
        assert!(!rumqttc::matches(
            &t,
            &super::super::arbiter::filter("eboard", None)
        ));
        let arb = &super::super::arbiter::topics("eboard", Some("DM 2026"), 2).events;
        assert!(!rumqttc::matches(arb, &filter("eboard", None)));
        assert_eq!(table_of("eboard", &t), Some(("dm-2026".into(), 2)));
        assert_eq!(table_of("eboard", "eboard/dm/board/2/arbiter/events"), None);
        assert_eq!(table_of("eboard", "eboard/dm/board/x/status"), None);
    }

    #[test]
    fn payloads_and_will() {
        let p = Presence::new("eboard", Some("DM"), 2, "4.2");
        let v: Value = serde_json::from_str(&p.lost).unwrap();
        assert_eq!(
            v,
            json!({"status": "offline", "game": "4.2", "reason": "connection lost"})
        );
        let w = p.will();
        assert_eq!(
            (w.topic.as_str(), w.retain, w.qos),
            (p.topic.as_str(), true, QoS::AtLeastOnce)
        );
        assert_eq!(&w.message[..], p.lost.as_bytes());
    }

    #[test]
    fn offline_then_online_alerts_once_each() {
        let p = Presence::new("eboard", Some("DM"), 2, "4.2");
        let mut t = Tracker::default();
        let key = || ("dm".to_owned(), 2);
        let mut take = |s: &str| t.take(key(), &p.topic, s.as_bytes()).map(|m| m.to_string());
        // Online first: nothing to say.
        assert_eq!(take(&p.online), None);
        let off = take(&p.lost).unwrap();
        let v: Value = serde_json::from_str(&off).unwrap();
        assert_eq!(v["type"], "board_offline");
        assert_eq!(v["game"], "4.2");
        assert_eq!(v["reason"], "connection lost");
        assert_eq!(v["outage"], 1);
        assert_eq!(take(&p.stopped), None, "already offline");
        let on: Value = serde_json::from_str(&take(&p.online).unwrap()).unwrap();
        assert_eq!(
            (on["type"].as_str(), on["outage"].as_u64()),
            (Some("board_resumed"), Some(1))
        );
        assert_eq!(take(&p.online), None);
        // A second outage is another alert (not the same message).
        let v: Value = serde_json::from_str(&take(&p.stopped).unwrap()).unwrap();
        assert_eq!(
            (v["reason"].as_str(), v["outage"].as_u64()),
            (Some("stopped"), Some(2))
        );
        assert_eq!(take("not json"), None);
        assert_eq!(take("{\"status\":\"asleep\"}"), None);
    }
}
