//! The board's arbiter channel over MQTT (`[mqtt] arbiter_channel = true`,
//! issue 15): the undelayed messages `/arbiter/events` serves, published on
//! the table's own topics for the console's relay, beside the public ones.
//!
//! | topic | QoS | retained | payload |
//! |---|---|---|---|
//! | `{prefix}/{event}/board/{N}/arbiter/events` | 1 | no | [`super::Wire`]: `{"seq", "epoch", "t", "msg", "snapshot"}`, or out-of-band `{"seq": 0, "oob", "boot", "epoch", "t", "msg"}` |
//! | `{prefix}/{event}/board/{N}/arbiter/snapshot` | 1 | yes | `{"seq", "epoch", "t", "snapshot"}` (the undelayed snapshot) |
//! | `{prefix}/{event}/board/{N}/arbiter/alerts` | 1 | yes | `{"epoch", "kept", "cut", "alerts": [msg, …]}`: the game's alerts so far ([`super::alert_list`]) |
//!
//! The wire format and the store-and-forward queue are the public uplink's
//! ([`super::publish`]): the journaled messages of the arbiter's channel
//! are numbered like the public ones (the journal's replay regenerates
//! them in the same order, so a restart skips what was queued), queued in
//! `JOURNAL.mqtt-arbiter` and sent QoS 1. What a replay does not regenerate
//! (a downtime, the journal's and the uplinks' own alerts: published
//! out-of-band, [`Channel::publish`]) cannot take a sequence number: it
//! is kept in memory until the broker acknowledges it, numbered per run
//! (`oob`, `boot`) so the relay drops a resend; a daemon stopped while the
//! broker is away loses those (its journal's events file has them).
//!
//! Undelayed moves are what the broadcast delay hides: the board refuses to
//! send them where the network could read them or the broker could not
//! tell who reads them ([`check_broker`]).

use super::alert_list;
use super::publish::{self, Extra, Uplink, UplinkStatus};
use super::{slug, BoardTopics, BrokerAddr};
use crate::broadcast::delay::{Channel, Published};
use crate::broadcast::public::Update;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

/// Table `board`'s arbiter topics in `event` (a name, slugged).
pub fn topics(prefix: &str, event: Option<&str>, board: u32) -> BoardTopics {
    let base = format!("{prefix}/{}/board/{board}/arbiter", slug(event));
    BoardTopics {
        events: format!("{base}/events"),
        snapshot: format!("{base}/snapshot"),
    }
}

/// The subscription to every table's arbiter topics of `event` (every
/// event: `None`): `{prefix}/{event|+}/board/+/arbiter/#`.
pub fn filter(prefix: &str, event: Option<&str>) -> String {
    let e = event.map_or_else(|| "+".to_owned(), |e| slug(Some(e)));
    format!("{prefix}/{e}/board/+/arbiter/#")
}

/// Splits an arbiter topic, `{prefix}/{event}/board/{N}/arbiter/{kind}`,
/// into (event level, table) and the kind (`events`, `snapshot`).
pub fn table_of<'a>(prefix: &str, topic: &'a str) -> Option<((String, u32), &'a str)> {
    let rest = topic.strip_prefix(prefix)?.strip_prefix('/')?;
    let mut p = rest.split('/');
    let (event, board, n, arbiter, kind) = (p.next()?, p.next()?, p.next()?, p.next()?, p.next()?);
    if board != "board" || arbiter != "arbiter" || p.next().is_some() {
        return None;
    }
    Some(((event.to_owned(), n.parse().ok()?), kind))
}

/// Whether the arbiter's undelayed moves may go to (or come from) `broker`:
/// over TLS (`mqtts://`) or to a broker on this host, and with a login.
///
/// Why both: the broadcast delay exists so that nobody outside the hall
/// learns a move before it is minutes old (the ECU's anti-cheating rules,
/// Tournament Regulations Q.2.4: "Delay of 15 minutes of internet
/// transmission"). Plain MQTT crosses the
/// venue's network in clear: anyone on its Wi-Fi reads every undelayed move
/// with a packet capture, whatever the broker's ACL says, so plain TCP is
/// refused even without a password (the password rule alone,
/// [`BrokerAddr::from_settings`], would allow an anonymous plain link). And
/// the broker's ACL tells readers and writers apart only by their login:
/// anonymous clients share one set of rights, so the board's undelayed
/// topics would be as readable as the public ones (or writable by any
/// spectator, to forge alerts), hence a username is required.
///
/// Errors: what is missing and what to give.
pub fn check_broker(broker: &BrokerAddr) -> Result<(), String> {
    if !broker.tls && !broker.is_local() {
        return Err(format!(
            "the arbiter channel carries the moves before the broadcast delay: not over plain \
             mqtt:// to {broker}, where the venue's network reads them in clear; use \
             mqtts://{}:8883 (TLS, docs/mqtt.md) or a broker on this host",
            broker.host
        ));
    }
    if broker.login.is_none() {
        return Err(
            "the arbiter channel needs a broker login ([mqtt] username and password): the \
             broker's ACL tells the console's relay from the spectators only by their login \
             (docs/mqtt.md, \"The arbiter channel\")"
                .to_owned(),
        );
    }
    Ok(())
}

/// An out-of-band message on the arbiter events topic: `seq` 0, its
/// number `oob` in the run `boot`, the board's stream `epoch`, the round
/// time `t` (ms) and the message (JSON text).
pub fn out_of_band_json(epoch: u64, boot: u64, oob: u64, t: u64, msg: &str) -> String {
    format!(
        "{{\"seq\":0,\"oob\":{oob},\"boot\":{boot},\"epoch\":{epoch},\"t\":{t},\"msg\":{msg},\"snapshot\":null}}"
    )
}

/// The round time a message carries (`"t"`, ms; 0 without).
fn t_of(msg: &str) -> u64 {
    serde_json::from_str::<serde_json::Value>(msg)
        .ok()
        .and_then(|v| v.get("t")?.as_u64())
        .unwrap_or(0)
}

/// Starts publishing the arbiter's `channel` (the board's undelayed
/// channel) as `uplink` says (its topics: [`topics`]), queued in `queue`
/// (`None`: in memory), on `rt`: taps the channel ([`Channel::set_tap`]),
/// so call it before the game's first publication. Errors: the queue
/// cannot be opened, or the TLS set-up.
pub fn start(
    rt: &tokio::runtime::Handle,
    uplink: Uplink,
    queue: Option<&Path>,
    channel: &Channel,
) -> Result<watch::Receiver<UplinkStatus>, String> {
    let epoch = uplink.epoch;
    // The retained alert list beside the events topic (`…/arbiter/alerts`).
    let alerts_topic = match uplink.topics.events.strip_suffix("/events") {
        Some(base) => format!("{base}/alerts"),
        None => {
            return Err(format!(
                "{}: not an arbiter events topic",
                uplink.topics.events
            ))
        }
    };
    let (oob_tx, oob_rx) = mpsc::unbounded_channel();
    // A new game's list is empty: it replaces the last game's at once.
    let mut list = alert_list::Builder::new(epoch);
    let retained = move |list: &alert_list::Builder| Extra::Retained {
        topic: alerts_topic.clone(),
        payload: list.payload(),
    };
    let _ = oob_tx.send(retained(&list));
    let (tx, status) = publish::start_with_out_of_band(rt, uplink, queue, oob_rx)?;
    let (tap, mut tapped) = mpsc::unbounded_channel::<Published>();
    channel.set_tap(tap);
    let boot = u64::from(rand::random::<u32>());
    rt.spawn(async move {
        let mut oob = 0u64;
        while let Some(p) = tapped.recv().await {
            let mut changed = false;
            for m in &p.messages {
                changed |= list.take(m);
            }
            if changed && oob_tx.send(retained(&list)).is_err() {
                return;
            }
            if p.journaled {
                // Numbered as the public uplink numbers the public messages.
                let t = p
                    .snapshot
                    .as_ref()
                    .map(|s| s.t)
                    .or_else(|| p.messages.iter().map(|m| t_of(m)).max())
                    .unwrap_or(0);
                let u = Update {
                    seq: p.seq,
                    t,
                    snapshot: p.snapshot,
                    public: p.messages,
                    arbiter: Vec::new(),
                    arbiter_snapshot: None,
                };
                if tx.send(u).is_err() {
                    return;
                }
            } else {
                for m in &p.messages {
                    oob += 1;
                    if oob_tx
                        .send(Extra::Message(out_of_band_json(
                            epoch,
                            boot,
                            oob,
                            t_of(m),
                            m,
                        )))
                        .is_err()
                    {
                        return;
                    }
                }
            }
        }
    });
    Ok(status)
}

/// What `eboard relay --mqtt` knows of one table's arbiter channel, to tell
/// "not published" from "kept away by the broker" ([`Follow::overdue`]).
#[derive(Debug, Default)]
pub struct Follow {
    /// The public snapshot announced the channel: its stream's epoch and
    /// when the announcement came.
    pub announced: Option<(u64, tokio::time::Instant)>,
    /// The newest epoch received on the arbiter topics.
    pub received: Option<u64>,
    /// Reported missing (logged and alerted once, until it comes).
    pub reported: bool,
}

impl Follow {
    /// Whether the announced channel is overdue at `now`: announced more
    /// than `grace` ago and nothing of that game (its epoch or a later one)
    /// received, not yet reported.
    pub fn overdue(&self, now: tokio::time::Instant, grace: std::time::Duration) -> bool {
        match self.announced {
            Some((epoch, at)) => {
                !self.reported
                    && now.duration_since(at) >= grace
                    && self.received.is_none_or(|r| r < epoch)
            }
            None => false,
        }
    }
}

/// The console alert (`uplink_alert`, `docs/trace-extensions.md`) for a
/// table whose arbiter channel does not reach the relay: `game` (`r.b`,
/// when known), the topic, the relay's broker user.
pub fn missing_alert(game: Option<&str>, topic: &str, user: Option<&str>, why: &str) -> Arc<str> {
    let mut v = serde_json::json!({
        "type": "uplink_alert",
        "uplink": "mqtt",
        "topic": topic,
        "error": why,
        "action": "this board's alerts reach the console from its public feed, after the broadcast delay",
    });
    if let Some(g) = game {
        v["game"] = serde_json::Value::from(g);
    }
    if let Some(u) = user {
        v["user"] = serde_json::Value::from(u);
    }
    Arc::from(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_channels_tap_gets_every_publication_in_order() {
        let ch = Channel::with_backlog();
        ch.publish(0, None, &[Arc::from("{\"n\":0}")]); // before the tap: not sent
        let (tx, mut rx) = mpsc::unbounded_channel::<Published>();
        ch.set_tap(tx);
        ch.publish_journaled(1, None, &[Arc::from("{\"n\":1}"), Arc::from("{\"n\":2}")]);
        ch.publish(0, None, &[Arc::from("{\"type\":\"journal_alert\"}")]);
        ch.publish_journaled(2, None, &[]);
        let got: Vec<_> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
        let got: Vec<_> = got
            .iter()
            .map(|p| (p.journaled, p.seq, p.messages.len()))
            .collect();
        assert_eq!(got, [(true, 1, 2), (false, 0, 1), (true, 2, 0)]);
    }

    #[test]
    fn topics_and_filter() {
        let t = topics("eboard", Some("DM 2026"), 7);
        assert_eq!(t.events, "eboard/dm-2026/board/7/arbiter/events");
        assert_eq!(t.snapshot, "eboard/dm-2026/board/7/arbiter/snapshot");
        assert_eq!(
            filter("eboard", Some("DM 2026")),
            "eboard/dm-2026/board/+/arbiter/#"
        );
        assert_eq!(filter("a/b", None), "a/b/+/board/+/arbiter/#");
        assert_eq!(
            table_of("eboard", &t.events),
            Some((("dm-2026".into(), 7), "events"))
        );
        assert_eq!(table_of("eboard", "eboard/dm-2026/1/7/events"), None);
        assert_eq!(table_of("eboard", "eboard/dm-2026/board/7/command"), None);
        assert_eq!(table_of("eboard", "eboard/dm/board/x/arbiter/events"), None);
        // The public subscriptions never match an arbiter topic, nor the reverse.
        for public in ["eboard/+/+/+/events", "eboard/+/+/+/snapshot"] {
            assert!(!rumqttc::matches(&t.events, public), "{public}");
            assert!(!rumqttc::matches(&t.snapshot, public), "{public}");
        }
        assert!(rumqttc::matches(&t.events, &filter("eboard", None)));
        assert!(!rumqttc::matches(
            "eboard/dm-2026/1/7/events",
            &filter("eboard", None)
        ));
    }

    #[test]
    fn only_over_tls_or_on_this_host_and_with_a_login() {
        let with_login = |url: &str| {
            let mut b = BrokerAddr::parse(url).unwrap();
            b.login = Some(super::super::Login {
                username: "board1".into(),
                password: String::new(),
            });
            b
        };
        let e = check_broker(&with_login("mqtt://hall.example")).unwrap_err();
        assert!(
            e.contains("in clear") && e.contains("mqtts://hall.example:8883"),
            "{e}"
        );
        assert!(check_broker(&with_login("mqtts://hall.example")).is_ok());
        assert!(check_broker(&with_login("mqtt://127.0.0.1:1883")).is_ok());
        assert!(check_broker(&with_login("mqtt://[::1]:1883")).is_ok());
        let e = check_broker(&BrokerAddr::parse("mqtts://hall.example").unwrap()).unwrap_err();
        assert!(e.contains("username"), "{e}");
    }

    #[test]
    fn out_of_band_messages_parse_as_wire() {
        let w: super::super::Wire = serde_json::from_str(&out_of_band_json(
            5,
            77,
            2,
            900,
            "{\"type\":\"irregularity\",\"t\":900}",
        ))
        .unwrap();
        assert_eq!(
            (w.seq, w.epoch, w.t, w.oob, w.boot),
            (0, 5, 900, Some(2), Some(77))
        );
        assert_eq!(w.msg.unwrap()["type"], "irregularity");
        assert_eq!(t_of("{\"t\":12}"), 12);
        assert_eq!(t_of("nonsense"), 0);
    }

    #[test]
    fn an_announced_channel_is_overdue_only_after_the_grace() {
        let t0 = tokio::time::Instant::now();
        let g = std::time::Duration::from_secs(10);
        let mut f = Follow {
            announced: Some((100, t0)),
            ..Default::default()
        };
        assert!(!f.overdue(t0 + g / 2, g));
        assert!(f.overdue(t0 + g, g));
        f.received = Some(99); // an older game's
        assert!(f.overdue(t0 + g, g));
        f.received = Some(100);
        assert!(!f.overdue(t0 + g, g));
        f.received = None;
        f.reported = true;
        assert!(!f.overdue(t0 + g, g));
        assert!(!Follow::default().overdue(t0 + g, g));
    }
}
