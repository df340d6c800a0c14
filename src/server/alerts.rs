//! The console's alert queue: one queue across every board the console
//! shows, newest first, each alert kept until acknowledged (and after, marked
//! with who acknowledged it and when). It lives on the server that serves
//! the console (a board, or the relay), so every arbiter logged in there sees
//! the same queue; acknowledgements are logged (`tracing`, info).
//!
//! An alert is an arbiter-channel message of a kind the arbiter must see
//! ([`ALERT_TYPES`]): illegal moves, touch-move breaches, irregularities
//! (boards that differ, Appendix E, among them), claims, flags, ambiguous
//! readings, a game's end (its result to confirm), and the relay's
//! `board_offline` / `board_resumed`, the journal's and the uplinks' own
//! alerts (`journal_alert`, `uplink_alert`). The same message twice (a board's
//! backlog sent again when the relay reconnects) is one alert.

use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Mutex;

/// The message types that become alerts.
pub const ALERT_TYPES: [&str; 11] = [
    "illegal_move",
    "touch_move",
    "irregularity",
    "claim",
    "flag",
    "ambiguous_move",
    "game_end",
    "board_offline",
    "board_resumed",
    "journal_alert",
    "uplink_alert",
];
/// The most alerts kept (the oldest acknowledged ones go first).
pub const MAX_ALERTS: usize = 1000;

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
    /// Its number on this server, from 1.
    pub id: u64,
    /// The game, `round.board`, when the message names one.
    pub game: Option<String>,
    /// The message's `type`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The message as the board sent it.
    pub event: Value,
    /// When it arrived here, Unix ms.
    pub unix_ms: u64,
    /// The acknowledgement, once given.
    pub ack: Option<Ack>,
}

#[derive(Debug, Default)]
struct Inner {
    alerts: VecDeque<Alert>,
    next: u64,
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
    /// `unix_ms`; returns the alert it made, if it is one.
    pub fn take(&self, json: &str, unix_ms: u64) -> Option<Alert> {
        let v: Value = serde_json::from_str(json).ok()?;
        let kind = v.get("type")?.as_str()?.to_owned();
        if !ALERT_TYPES.contains(&kind.as_str()) {
            return None;
        }
        let mut q = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // A board's backlog is sent again on every reconnection: the same
        // message is one alert.
        if q.alerts.iter().any(|a| a.event == v) {
            return None;
        }
        q.next += 1;
        let alert = Alert {
            id: q.next,
            game: v.get("game").and_then(Value::as_str).map(str::to_owned),
            kind,
            event: v,
            unix_ms,
            ack: None,
        };
        q.alerts.push_back(alert.clone());
        while q.alerts.len() > MAX_ALERTS {
            let drop = q.alerts.iter().position(|a| a.ack.is_some()).unwrap_or(0);
            q.alerts.remove(drop);
        }
        Some(alert)
    }

    /// Every alert kept, newest first.
    pub fn list(&self) -> Vec<Alert> {
        let q = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        q.alerts.iter().rev().cloned().collect()
    }

    /// Acknowledges alert `id` by `by` at `unix_ms`; the first
    /// acknowledgement stands. Errors: no such alert.
    pub fn ack(&self, id: u64, by: &str, unix_ms: u64) -> Result<Alert, String> {
        let mut q = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let a = q.alerts.iter_mut().find(|a| a.id == id).ok_or_else(|| {
            format!("no alert {id} (it may have been dropped: at most {MAX_ALERTS} are kept)")
        })?;
        if a.ack.is_none() {
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
}
