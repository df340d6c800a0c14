//! The board's retained list of its game's alerts (issue 15: "every alert
//! seen"), on `{prefix}/{event}/board/{N}/arbiter/alerts` (QoS 1,
//! retained), beside the arbiter channel ([`super::arbiter`]).
//!
//! The arbiter channel's events topic is not retained: a console's relay
//! that was not subscribed when an alert went out (started late, restarted,
//! or subscribed again after a broker restart that the board reconnected
//! to first) never gets it from there. This list is what the broker hands
//! every new subscriber: the alert-type messages ([`BOARD_ALERT_TYPES`]) of
//! the board's current game so far, oldest first, at most [`KEPT`] and at
//! most [`MAX_BYTES`] of them; the relay feeds each into its console's
//! alert queue, which takes the same message (by content) once.
//!
//! Payload ([`payload`], read back with [`AlertList`]'s `Deserialize`):
//! `{"epoch": E, "kept": 64, "cut": N, "alerts": [msg, …]}`: `epoch` the
//! board's stream (Unix ms its game started), `kept` the bound, `cut` how
//! many older alerts of this game were dropped from the list (never
//! silently: the relay alerts it, [`cut_alert`]), `alerts` the messages as
//! the arbiter channel carried them (the same JSON).
//!
//! A new game (a new epoch: the daemon starts its uplink afresh) publishes
//! an empty list, which replaces the last game's. A restarted board
//! rebuilds the list from its journal's replay (which regenerates every
//! journaled message, so the list is what it was); the out-of-band alerts
//! of an earlier run (a downtime, the journal's own alerts) are not
//! replayed and are not in it again (`docs/mqtt.md`, Limits). The uplink
//! publishes the latest list again on every reconnection, so a broker that
//! restarted without persistence has it again.

use serde::Deserialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::mpsc;

/// The message types a board raises that are alerts (one list with the
/// console's queue).
pub use crate::trace::alert_types::BOARD as BOARD_ALERT_TYPES;

/// The most alerts the list keeps (the newest): a game of several hours
/// rarely raises more than a handful; a faulty board may raise hundreds.
pub const KEPT: usize = 64;

/// The most bytes of messages the list keeps (the newest), far below the
/// uplink's packet limit ([`super::MAX_PACKET`], 1 MiB) and mosquitto's
/// `message_size_limit` (`man mosquitto.conf`: default 0, MQTT's own
/// 268,435,455 bytes). An alert is a few hundred bytes.
pub const MAX_BYTES: usize = 64 * 1024;

/// The topic of table `board`'s list in `event` (a name, slugged).
pub fn topic(prefix: &str, event: Option<&str>, board: u32) -> String {
    format!(
        "{prefix}/{}/board/{board}/arbiter/alerts",
        super::slug(event)
    )
}

/// One game's alerts so far, as published (and as a relay reads them).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct AlertList {
    /// The board's stream: the Unix time in ms its game started.
    pub epoch: u64,
    /// How many older alerts of this game are not in the list.
    #[serde(default)]
    pub cut: u64,
    /// The bound the board applied ([`KEPT`] when it published).
    #[serde(default)]
    pub kept: usize,
    /// The alerts, oldest first, as the arbiter channel carried them.
    #[serde(default)]
    pub alerts: Vec<Value>,
}

/// The board's side: the list of game `epoch` being built.
#[derive(Debug)]
pub struct Builder {
    epoch: u64,
    cut: u64,
    /// The messages (JSON text), oldest first, and their total length.
    alerts: VecDeque<Arc<str>>,
    bytes: usize,
}

impl Builder {
    /// An empty list for game `epoch`.
    pub fn new(epoch: u64) -> Builder {
        Builder {
            epoch,
            cut: 0,
            alerts: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Takes in one message of the arbiter channel (JSON text): true when
    /// it is an alert ([`BOARD_ALERT_TYPES`]) and the list changed. The
    /// oldest go beyond [`KEPT`] or [`MAX_BYTES`] (counted in `cut`).
    pub fn take(&mut self, msg: &Arc<str>) -> bool {
        let Ok(v) = serde_json::from_str::<Value>(msg) else {
            return false;
        };
        if !v
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| BOARD_ALERT_TYPES.contains(&t))
        {
            return false;
        }
        self.alerts.push_back(msg.clone());
        self.bytes += msg.len();
        while self.alerts.len() > KEPT || (self.bytes > MAX_BYTES && self.alerts.len() > 1) {
            if let Some(old) = self.alerts.pop_front() {
                self.bytes -= old.len();
                self.cut += 1;
            }
        }
        true
    }

    /// The retained payload (module doc).
    pub fn payload(&self) -> String {
        let mut s = format!(
            "{{\"epoch\":{},\"kept\":{KEPT},\"cut\":{},\"alerts\":[",
            self.epoch, self.cut
        );
        for (i, m) in self.alerts.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(m);
        }
        s.push_str("]}");
        s
    }
}

/// The console alert (`uplink_alert`, `docs/trace-extensions.md`) a relay
/// raises for a list that was cut: board `board`'s game `game` (`r.b`,
/// when known) of stream `epoch` has older alerts than the list holds,
/// which this relay saw only if it was subscribed when they went out. The
/// text names no count, so the same game's list read again is one alert.
pub fn cut_alert(game: Option<&str>, board: u32, epoch: u64, kept: usize, topic: &str) -> String {
    let mut v = serde_json::json!({
        "type": "uplink_alert",
        "uplink": "mqtt",
        "topic": topic,
        "epoch": epoch,
        "error": format!(
            "board {board}'s retained list holds only its game's last {kept} alerts: older alerts of \
             this game are not shown here unless this relay was subscribed when they were published"
        ),
        "action": format!("read the older ones on board {board}'s own /arbiter/events or its journal's events file"),
    });
    if let Some(g) = game {
        v["game"] = Value::from(g);
    }
    v.to_string()
}

/// The relay's side: takes table `board`'s list (`payload`, from `topic`)
/// and sends each alert to `alerts` (the console's queue, which drops
/// the ones it has), after an `uplink_alert` when the list was cut
/// ([`cut_alert`]; the game from the alerts, else `game_of` its epoch). An
/// alert that `bound` refuses (one about another table's game, issue 41:
/// [`super::bound`]) is not sent: the reasons are returned. A payload not
/// understood is logged at info.
pub fn feed(
    payload: &[u8],
    topic: &str,
    board: u32,
    game_of: impl Fn(u64) -> Option<String>,
    bound: impl Fn(&Value) -> Result<(), String>,
    alerts: &mpsc::UnboundedSender<Arc<str>>,
) -> Vec<String> {
    let mut list = match serde_json::from_slice::<AlertList>(payload) {
        Ok(l) => l,
        Err(e) => {
            tracing::info!(topic, error = %e, "relay: alert list not understood");
            return Vec::new();
        }
    };
    let mut refused = Vec::new();
    list.alerts.retain(|a| match bound(a) {
        Ok(()) => true,
        Err(why) => {
            refused.push(why);
            false
        }
    });
    if list.cut > 0 {
        let game = list
            .alerts
            .iter()
            .find_map(|a| a.get("game").and_then(Value::as_str))
            .map(str::to_owned)
            .or_else(|| game_of(list.epoch));
        let _ = alerts.send(Arc::from(cut_alert(
            game.as_deref(),
            board,
            list.epoch,
            list.kept,
            topic,
        )));
    }
    for a in &list.alerts {
        let _ = alerts.send(Arc::from(a.to_string()));
    }
    refused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alert_list_feeds_each_alert_and_says_when_it_was_cut() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let topic = "eboard/dm/board/2/arbiter/alerts";
        let list = r#"{"epoch":5,"kept":64,"cut":0,"alerts":[{"type":"illegal_move","game":"1.2","t":9}]}"#;
        feed(list.as_bytes(), topic, 2, |_| None, |_| Ok(()), &tx);
        let got: Vec<Arc<str>> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
        assert_eq!(
            got,
            [Arc::from(r#"{"game":"1.2","t":9,"type":"illegal_move"}"#)]
        );
        let cut = r#"{"epoch":5,"kept":64,"cut":3,"alerts":[{"type":"flag","game":"1.2","t":90}]}"#;
        feed(cut.as_bytes(), topic, 2, |_| None, |_| Ok(()), &tx);
        let got: Vec<serde_json::Value> = std::iter::from_fn(|| rx.try_recv().ok())
            .map(|m| serde_json::from_str(&m).unwrap())
            .collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0]["type"], "uplink_alert");
        assert_eq!(got[0]["game"], "1.2");
        assert_eq!(got[0]["topic"], topic);
        assert!(got[0]["error"].as_str().unwrap().contains("last 64 alerts"));
        assert_eq!(got[1]["type"], "flag");
        // Not understood: nothing, never a panic.
        feed(b"{\"alerts\":7}", topic, 2, |_| None, |_| Ok(()), &tx);
        assert!(rx.try_recv().is_err());
        // Another table's alert in board 2's list: refused, the rest fed.
        let forged = r#"{"epoch":5,"kept":64,"cut":0,"alerts":[{"type":"flag","game":"1.3","t":9},{"type":"flag","game":"1.2","t":10}]}"#;
        let bound = |a: &Value| match a.get("game").and_then(Value::as_str) {
            Some(g) => super::super::bound::check_game(g, None, 2),
            None => Ok(()),
        };
        let why = feed(forged.as_bytes(), topic, 2, |_| None, bound, &tx);
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(why[0].contains("1.3"), "{why:?}");
        let got: Vec<Arc<str>> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
        assert_eq!(got, [Arc::from(r#"{"game":"1.2","t":10,"type":"flag"}"#)]);
    }

    #[test]
    fn keeps_the_last_alerts_and_counts_the_cut() {
        let mut b = Builder::new(7);
        assert_eq!(
            serde_json::from_str::<AlertList>(&b.payload()).unwrap(),
            AlertList {
                epoch: 7,
                cut: 0,
                kept: KEPT,
                alerts: vec![]
            }
        );
        assert!(!b.take(&Arc::from(r#"{"type":"move","san":"e4"}"#)));
        assert!(!b.take(&Arc::from("not json")));
        assert!(!b.take(&Arc::from(r#"{"type":"board_offline"}"#)));
        for t in 0..KEPT + 3 {
            let m = format!(r#"{{"type":"illegal_move","game":"1.2","t":{t}}}"#);
            assert!(b.take(&Arc::from(m)));
        }
        let l: AlertList = serde_json::from_str(&b.payload()).unwrap();
        assert_eq!((l.epoch, l.cut, l.alerts.len()), (7, 3, KEPT));
        assert_eq!(l.alerts[0]["t"], 3);
        assert_eq!(l.alerts[KEPT - 1]["t"], KEPT + 2);
    }

    #[test]
    fn the_payload_stays_below_its_byte_bound() {
        let mut b = Builder::new(1);
        let pad = "x".repeat(10_000);
        for t in 0..20 {
            let m = format!(r#"{{"type":"journal_alert","t":{t},"error":"{pad}"}}"#);
            b.take(&Arc::from(m));
        }
        let p = b.payload();
        assert!(p.len() <= MAX_BYTES + 100, "{}", p.len());
        let l: AlertList = serde_json::from_str(&p).unwrap();
        assert_eq!(l.cut as usize + l.alerts.len(), 20);
        assert_eq!(l.alerts.last().unwrap()["t"], 19);
    }

    #[test]
    fn the_topic_is_in_the_arbiter_subtree() {
        let t = topic("eboard", Some("DM 2026"), 2);
        assert_eq!(t, "eboard/dm-2026/board/2/arbiter/alerts");
        assert!(rumqttc::matches(
            &t,
            &super::super::arbiter::filter("eboard", None)
        ));
        assert_eq!(
            super::super::arbiter::table_of("eboard", &t),
            Some((("dm-2026".into(), 2), "alerts"))
        );
        let a: Value = serde_json::from_str(&cut_alert(Some("1.2"), 2, 9, KEPT, &t)).unwrap();
        assert_eq!(
            (a["type"].as_str(), a["game"].as_str()),
            (Some("uplink_alert"), Some("1.2"))
        );
    }
}
