//! The console's alert queue: one queue across every board the console
//! shows, newest first, each alert kept until acknowledged (and after, marked
//! with who acknowledged it and when). It lives on the server that serves
//! the console (a board, or the relay), so every arbiter logged in there sees
//! the same queue; acknowledgements are logged (`tracing`, info) and, with
//! an [`AckLog`] ([`AlertQueue::keep_acks`]: the relay's state directory,
//! a board's journal), kept: an alert is named by its content
//! ([`alert_key`]), so the same message sent again after a restart (a
//! board's backlog, a board's journal replayed) shows acknowledged, by whom
//! and when, as before.
//!
//! An alert is an arbiter-channel message of a kind the arbiter must see
//! ([`crate::trace::alert_types`]): illegal moves, touch-move breaches, irregularities
//! (boards that differ, Appendix E, among them), claims, flags, ambiguous
//! readings, a game's end (its result to confirm), and the relay's
//! `board_offline` / `board_resumed`, the journal's and the uplinks' own
//! alerts (`journal_alert`, `uplink_alert`). The same message twice (a board's
//! backlog sent again when the relay reconnects) is one alert.

use super::kept::{AckLog, KeptAck, OwnAlertLog};
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// The most alerts kept (the oldest acknowledged ones go first).
pub const MAX_ALERTS: usize = 1000;

/// The relay's own alerts: made by the relay (never sent by a board); each
/// names its outage by when it started (`since`, Unix ms), so an alert of
/// an earlier run keeps its own acknowledgement and no other. Kept in the
/// relay's [`OwnAlertLog`].
pub use crate::trace::alert_types::RELAY as OWN_TYPES;

/// An alert's name by its content: the SHA-256 (hex) of its message's
/// canonical JSON (serde_json's: keys sorted, no spaces). The same message
/// (a board's backlog sent again, its journal replayed after a restart,
/// which regenerates each event with its round time `t`) has the same key.
pub fn alert_key(event: &Value) -> String {
    ring::digest::digest(&ring::digest::SHA256, content(event).to_string().as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A message without its wall time (`unix_ms`, stamped by the board from
/// the round time): the same event keeps its name when a restart's clock
/// places round time 0 a little elsewhere.
fn content(event: &Value) -> Value {
    let mut v = event.clone();
    if let Value::Object(m) = &mut v {
        m.remove("unix_ms");
    }
    v
}

/// Who acknowledged an alert, and when.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ack {
    /// The arbiter's name.
    pub by: String,
    /// Unix time, ms.
    pub unix_ms: u64,
}

/// One alert.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alert {
    /// Its number on this server, from 1 (in this run).
    pub id: u64,
    /// Its name by content ([`alert_key`]), the same across restarts.
    pub key: String,
    /// The game, `round.board`, when the message names one.
    pub game: Option<String>,
    /// The message's `type`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The message as the board sent it.
    pub event: Value,
    /// When it happened, Unix ms: the board's stamp (`unix_ms` of the
    /// message, its wall time of the event), else when it arrived here
    /// (the relay's own alerts, an older board).
    pub unix_ms: u64,
    /// The acknowledgement, once given.
    pub ack: Option<Ack>,
    /// What closed it without a ruling, if anything: a relay's
    /// `board_offline` is closed by the board's `board_resumed` (back
    /// online), or by the relay's restart (it follows the board afresh).
    pub resolved: Option<Resolved>,
}

/// How an alert was closed without a ruling.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resolved {
    /// When, Unix ms.
    pub unix_ms: u64,
    /// What closed it, in words ("back online after 42 s").
    pub how: String,
}

#[derive(Debug, Default)]
struct Inner {
    alerts: VecDeque<Alert>,
    next: u64,
    /// Where acknowledgements are kept, if anywhere.
    log: Option<AckLog>,
    /// Acknowledgements kept by an earlier run: alert key → ack.
    kept: HashMap<String, Ack>,
    /// Where the relay's own alerts are kept, if anywhere.
    own: Option<OwnAlertLog>,
}

impl Inner {
    /// Adds message `v` (an alert, [`crate::trace::alert_types::is_alert_message`])
    /// dated `unix_ms`; the alert made, if any.
    fn add(&mut self, v: Value, unix_ms: u64) -> Option<Alert> {
        let kind = v.get("type")?.as_str()?.to_owned();
        if kind == "board_resumed" {
            self.resolve_offline(&v, unix_ms);
            return None;
        }
        // A board's backlog is sent again on every reconnection: the same
        // message is one alert.
        let bare = content(&v);
        if self.alerts.iter().any(|a| content(&a.event) == bare) {
            return None;
        }
        self.next += 1;
        let key = alert_key(&v);
        let ack = self.kept.get(&key).cloned();
        let alert = Alert {
            id: self.next,
            key,
            game: v.get("game").and_then(Value::as_str).map(str::to_owned),
            kind,
            event: v,
            unix_ms,
            ack,
            resolved: None,
        };
        self.alerts.push_back(alert.clone());
        self.trim();
        Some(alert)
    }

    /// Closes the open `board_offline` of the game and board (`base` or
    /// `topic`) that `resumed` names: the board is back online.
    fn resolve_offline(&mut self, resumed: &Value, unix_ms: u64) {
        let same = |a: &Alert, key: &str| a.event.get(key) == resumed.get(key);
        for a in self.alerts.iter_mut() {
            // An offline seen before the relay knew the board's game
            // (at its start) has none: the board's return closes it too.
            let game = same(a, "game") || a.game.is_none();
            if a.kind == "board_offline"
                && a.resolved.is_none()
                && game
                && same(a, "base")
                && same(a, "topic")
            {
                let down = unix_ms.saturating_sub(a.unix_ms) / 1000;
                let how = if resumed.get("relay_restart") == Some(&Value::Bool(true)) {
                    "the relay restarted: it follows the board afresh (a new alert if the board \
                     is still offline)"
                        .to_owned()
                } else {
                    format!("back online after {}", down_words(down))
                };
                a.resolved = Some(Resolved { unix_ms, how });
            }
        }
    }

    /// At most [`MAX_ALERTS`]: the oldest acknowledged (else the oldest) go.
    fn trim(&mut self) {
        while self.alerts.len() > MAX_ALERTS {
            let drop = self
                .alerts
                .iter()
                .position(|a| a.ack.is_some() || a.resolved.is_some())
                .unwrap_or(0);
            self.alerts.remove(drop);
        }
    }
}

/// An outage's length in words: "42 s", "3 min 5 s", "1 h 2 min".
fn down_words(s: u64) -> String {
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// The queue.
#[derive(Debug, Default)]
pub struct AlertQueue {
    inner: Mutex<Inner>,
}

impl AlertQueue {
    /// An empty queue.
    pub fn new() -> AlertQueue {
        AlertQueue::default()
    }

    /// Takes in one arbiter-channel message (JSON text) arrived at
    /// `unix_ms`; returns the alert it made, if it is one. Its time is the
    /// message's own `unix_ms` when the board stamped it (so a relay
    /// restarted later still shows when it happened), else `unix_ms`.
    ///
    /// A relay's `board_resumed` is no alert of its own: it closes
    /// ([`Alert::resolved`]) the `board_offline` of the same game and board
    /// still open. The relay's own messages (`board_offline`,
    /// `board_resumed`) are kept, with their time, in its
    /// [`OwnAlertLog`] when it has one ([`AlertQueue::keep_own`]).
    pub fn take(&self, json: &str, unix_ms: u64) -> Option<Alert> {
        let v: Value = serde_json::from_str(json).ok()?;
        if !crate::trace::alert_types::is_alert_message(&v) {
            return None;
        }
        let unix_ms = v.get("unix_ms").and_then(Value::as_u64).unwrap_or(unix_ms);
        let mut q = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
        if OWN_TYPES.contains(&kind) {
            if let Some(log) = q.own.as_mut() {
                if let Err(e) = log.append(&v, unix_ms) {
                    tracing::error!("console: the relay's alert is not kept: {e}");
                }
            }
        }
        q.add(v, unix_ms)
    }

    /// Keeps the relay's own alerts in `log` from now on, and shows those
    /// of an earlier run (`kept`: each message and its time, oldest first)
    /// before this run's, at their own time. An outage an earlier run saw
    /// start and not end is closed by this restart: this run follows the
    /// board afresh (and alerts anew while it is still offline).
    pub fn keep_own(&self, mut log: OwnAlertLog, kept: Vec<(Value, u64)>, now_ms: u64) {
        let mut earlier = Inner::default();
        for (v, unix_ms) in kept {
            earlier.add(v, unix_ms);
        }
        // Closed by this restart, and kept so (a later restart shows the
        // same): a `board_resumed` marked `relay_restart`.
        for a in earlier.alerts.clone() {
            if a.kind == "board_offline" && a.resolved.is_none() {
                let mut closed =
                    serde_json::json!({"type": "board_resumed", "relay_restart": true});
                for k in ["game", "base", "topic", "outage", "since"] {
                    if let Some(x) = a.event.get(k) {
                        closed[k] = x.clone();
                    }
                }
                if let Err(e) = log.append(&closed, now_ms) {
                    tracing::error!("console: the relay's alert is not kept: {e}");
                }
                earlier.add(closed, now_ms);
            }
        }
        let mut q = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // This run's own alerts taken before the log was open.
        for a in q
            .alerts
            .iter()
            .filter(|a| OWN_TYPES.contains(&a.kind.as_str()))
        {
            if let Err(e) = log.append(&a.event, a.unix_ms) {
                tracing::error!("console: the relay's alert is not kept: {e}");
            }
        }
        for mut a in earlier.alerts.into_iter().rev() {
            q.next += 1;
            a.id = q.next;
            if a.ack.is_none() {
                a.ack = q.kept.get(&a.key).cloned();
            }
            q.alerts.push_front(a);
        }
        q.trim();
        q.own = Some(log);
    }

    /// Keeps every acknowledgement in `log` from now on, and shows those of
    /// an earlier run (`kept`, read from it) on their alerts again.
    pub fn keep_acks(&self, log: AckLog, kept: Vec<KeptAck>) {
        let mut q = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        for k in kept {
            q.kept.entry(k.alert).or_insert(Ack {
                by: k.by,
                unix_ms: k.unix_ms,
            });
        }
        let Inner { alerts, kept, .. } = &mut *q;
        for a in alerts.iter_mut() {
            if a.ack.is_none() {
                a.ack = kept.get(&a.key).cloned();
            }
        }
        q.log = Some(log);
    }

    /// Every alert kept, newest first.
    pub fn list(&self) -> Vec<Alert> {
        let q = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        q.alerts.iter().rev().cloned().collect()
    }

    /// Acknowledges alert `id` by `by` at `unix_ms`; the first
    /// acknowledgement stands. With an [`AckLog`] it is kept there (synced)
    /// first; a disk that refuses it is logged at error (the
    /// acknowledgement holds in memory, the line waits and is written
    /// before the next one). Errors: no such alert.
    pub fn ack(&self, id: u64, by: &str, unix_ms: u64) -> Result<Alert, String> {
        let mut q = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let Inner { alerts, log, .. } = &mut *q;
        let a = alerts.iter_mut().find(|a| a.id == id).ok_or_else(|| {
            format!("no alert {id} (it may have been dropped: at most {MAX_ALERTS} are kept)")
        })?;
        if a.ack.is_none() {
            if let Some(log) = log {
                if let Err(e) = log.append(&a.key, &a.event, by, unix_ms) {
                    tracing::error!(alert = id, "console: the acknowledgement is not kept: {e}");
                }
            }
            a.ack = Some(Ack {
                by: by.to_owned(),
                unix_ms,
            });
            tracing::info!(alert = id, kind = %a.kind, game = ?a.game, by, "console: alert acknowledged");
        }
        Ok(a.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alert_is_dated_when_it_happened_on_the_board() {
        let q = AlertQueue::new();
        let stamped = r#"{"type":"flag","game":"1.3","t":500,"by":"w","unix_ms":1700000000500}"#;
        let a = q.take(stamped, 1_800_000_000_000).unwrap();
        assert_eq!(
            a.unix_ms, 1_700_000_000_500,
            "the board's time, not the arrival"
        );
        // The same event stamped a little elsewhere (a restart's clock) is
        // the same alert, with the same name.
        let again = r#"{"type":"flag","game":"1.3","t":500,"by":"w","unix_ms":1700000000900}"#;
        assert!(q.take(again, 1_800_000_000_001).is_none());
        let bare = r#"{"type":"flag","game":"1.3","t":500,"by":"w"}"#;
        assert_eq!(
            a.key,
            alert_key(&serde_json::from_str(bare).unwrap()),
            "named without its wall time"
        );
        // Unstamped (the relay's own alerts): when it arrived.
        let o = q
            .take(r#"{"type":"board_offline","game":"1.1"}"#, 42)
            .unwrap();
        assert_eq!(o.unix_ms, 42);
    }

    #[test]
    fn back_online_closes_the_offline_alert_and_a_forfeit_is_no_result_to_confirm() {
        let q = AlertQueue::new();
        let off = r#"{"type":"board_offline","game":"1.1","base":"http://b1","outage":1,"since":1000,"unix_ms":1000}"#;
        let a = q.take(off, 5).unwrap();
        assert_eq!(a.unix_ms, 1000);
        let back = r#"{"type":"board_resumed","game":"1.1","base":"http://b1","outage":1,"since":1000,"unix_ms":43000}"#;
        assert!(q.take(back, 6).is_none(), "no alert of its own");
        let l = q.list();
        assert_eq!(l.len(), 1);
        let r = l[0].resolved.as_ref().expect("closed");
        assert_eq!(
            (r.unix_ms, r.how.as_str()),
            (43000, "back online after 42 s")
        );
        let forfeit = r#"{"type":"game_end","game":"1.4","t":9,"result":"1-0","reason":"forfeit"}"#;
        assert!(q.take(forfeit, 7).is_none());
        let mate = r#"{"type":"game_end","game":"1.4","t":9,"result":"1-0","reason":"checkmate"}"#;
        assert!(q.take(mate, 8).is_some());
    }

    #[test]
    fn alerts_newest_first_acknowledged_once() {
        let q = AlertQueue::new();
        assert!(q.take(r#"{"type":"move","game":"1.1"}"#, 1).is_none());
        assert!(q.take("not json", 1).is_none());
        let a = q
            .take(
                r#"{"type":"illegal_move","game":"1.2","article":"7.5.1"}"#,
                5,
            )
            .unwrap();
        q.take(r#"{"type":"flag","game":"1.3","by":"w"}"#, 6)
            .unwrap();
        let l = q.list();
        assert_eq!(l.iter().map(|a| a.id).collect::<Vec<_>>(), [2, 1]);
        assert_eq!(l[1].game.as_deref(), Some("1.2"));
        let acked = q.ack(a.id, "IA Hansen", 9).unwrap();
        assert_eq!(acked.ack.as_ref().unwrap().by, "IA Hansen");
        // The first acknowledgement stands.
        assert_eq!(
            q.ack(a.id, "Other", 10).unwrap().ack.unwrap().by,
            "IA Hansen"
        );
        assert!(q.ack(99, "x", 1).unwrap_err().contains("no alert 99"));
    }

    #[test]
    fn acknowledgements_are_kept_by_content_across_a_restart() {
        let dir = std::env::temp_dir().join(format!("eboard-acks-{}", rand::random::<u32>()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("acks.jsonl");
        let illegal = r#"{"type":"illegal_move","game":"1.2","t":12400,"by":"w"}"#;
        let offline = r#"{"type":"board_offline","game":"1.1","base":"http://b1","reason":"x"}"#;
        let q = AlertQueue::new();
        let (log, kept, _) = AckLog::open(&p).unwrap();
        q.keep_acks(log, kept);
        let a = q.take(illegal, 5).unwrap();
        let o = q.take(offline, 6).unwrap();
        q.ack(a.id, "IA Hansen", 9).unwrap();
        q.ack(o.id, "IA Hansen", 10).unwrap();
        // The restart: numbers start again, the message comes again in
        // another key order (as a board may send it).
        let again = AlertQueue::new();
        again
            .take(r#"{"type":"flag","game":"1.3","t":1}"#, 20)
            .unwrap();
        let b = again
            .take(
                r#"{"by":"w","t":12400,"game":"1.2","type":"illegal_move"}"#,
                21,
            )
            .unwrap();
        assert!(b.ack.is_none());
        let (log, kept, _) = AckLog::open(&p).unwrap();
        again.keep_acks(log, kept);
        let l = again.list();
        let shown = l.iter().find(|x| x.id == b.id).unwrap();
        assert_eq!(shown.key, a.key);
        assert_eq!(
            shown.ack,
            Some(Ack {
                by: "IA Hansen".into(),
                unix_ms: 9
            })
        );
        // The relay's own alerts name their outage by its start: another
        // outage's alert is not acknowledged by this one's.
        let other =
            r#"{"type":"board_offline","game":"1.1","base":"http://b1","reason":"x","since":77}"#;
        assert!(again.take(other, 22).unwrap().ack.is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
