//! The MQTT relay's console shows the alerts published while it was away
//! (issue 15: "every alert seen"): each board's retained list of its
//! game's alerts (`{prefix}/{event}/board/{N}/arbiter/alerts`,
//! `docs/mqtt.md`), with a real mosquitto behind a password file and the
//! ACL of `docs/mqtt.md` (no persistence: a restart loses every retained
//! message, and the board publishes its list again).
//!
//! Board 2 (`[mqtt] arbiter_channel = true`, broadcast delay 900 s) makes
//! an illegal move at 4.4 s. Then, each case an alert the relay was not
//! subscribed for:
//! 1. a relay started after the illegal move shows it in `/console/alerts`;
//! 2. that relay, its alert acknowledged, killed and restarted with the same
//!    `--state-dir`, shows it again, acknowledged by the same arbiter;
//! 3. with the relay down, board 2 is killed and restarted (its downtime:
//!    an out-of-band alert); the relay, started again, shows the downtime
//!    and still the illegal move (the list rebuilt from the journal);
//! 4. mosquitto killed; board 2 killed and restarted while it is down (a
//!    second downtime); mosquitto started again with the relay's login
//!    refused, so the board is back first and publishes everything to no
//!    relay; the list is checked on the broker (a `witness` login), then
//!    the relay's login is let in again (SIGHUP): the second downtime is
//!    in its console;
//! 5. mosquitto restarted again, board 2 not: the board publishes its list
//!    again on reconnecting, and a relay started then has the alerts.

use crate::common;

use common::console::*;
use common::mosquitto::{board_mqtt, docs_broker, mosquitto_passwd};
use common::round::*;
use common::*;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The broadcast delay of the board, seconds (15 minutes).
const DELAY_S: &str = "900";
/// Board 2's retained alert list.
const LIST: &str = "eboard/dm-2026/board/2/arbiter/alerts";

/// The latest payload of `topic` a client logged in as `witness` gets.
fn witness(port: u16) -> Arc<Mutex<Option<Value>>> {
    use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
    let mut o = MqttOptions::new("witness", "127.0.0.1", port);
    o.set_credentials("witness", "witness-pw");
    let (client, mut conn) = Client::new(o, 64);
    let latest = Arc::new(Mutex::new(None));
    let seen = latest.clone();
    std::thread::spawn(move || {
        for ev in conn.iter() {
            match ev {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    let _ = client.subscribe(LIST, QoS::AtLeastOnce);
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    *seen.lock().unwrap() = serde_json::from_slice(&p.payload).ok();
                }
                Ok(_) => {}
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    });
    latest
}

/// The console's alerts of `kind` about game 1.2.
fn alerts(addr: &str, kind: &str) -> Vec<Value> {
    let bearer = console_bearer();
    console_alerts(addr, ("Authorization", &bearer), kind, Some("1.2"))
}

/// Board 2's downtime alerts at the relay `addr`.
fn downtimes(addr: &str) -> Vec<Value> {
    alerts(addr, "irregularity")
        .into_iter()
        .filter(|a| a["event"]["kind"] == "downtime")
        .collect()
}

fn log_of(r: &Running) -> String {
    std::fs::read_to_string(&r.stderr).unwrap_or_default()
}

#[test]
fn a_relay_away_when_an_alert_went_out_shows_it() {
    if common::mosquitto::mosquitto_or_skip().is_none() {
        return;
    }
    let dir = tempdir("mqtt-missed");
    let passwd = dir.join("passwd");
    // The ACL of `docs/mqtt.md` for table 2 of `dm-2026`, and a `witness`
    // that reads the arbiter topics (the test's own look at the broker).
    let witness_acl = "user witness\ntopic read eboard/dm-2026/board/+/arbiter/#\n";
    let Some(mut broker) = docs_broker(&dir, &[2], &["witness"], witness_acl) else {
        return;
    };
    let url = broker.url();

    // Board 2 plays an illegal e2-e5 at 4.4 s; no relay is listening.
    let table = Table::new(&dir, 2, &board_mqtt(&url, 2, "arbiter_channel = true\n"));
    let trace = illegal_trace(&table.dir, 4_000);
    let board_args = table.journaled("1", &["--delay", DELAY_S]);
    let start_board = || table.start(Some(&trace), &refs(&board_args));
    let mut board = start_board();
    let board_bearer = format!("Bearer {ARBITER_TOKEN}");
    SseReader::open(
        &board.addr,
        "/arbiter/events",
        &[("Authorization", board_bearer.as_str())],
    )
    .until(30, |m| m["type"] == "illegal_move");
    let on_broker = witness(broker.port);
    poll(20, "the illegal move in board 2's retained list", || {
        on_broker
            .lock()
            .unwrap()
            .as_ref()
            .filter(|l| l["alerts"].to_string().contains("illegal_move"))
            .cloned()
    });

    // 1. The relay starts after the illegal move.
    let relay_spec = MqttRelay::new(&dir, "relay", &url, "console", &token_account()).with_state();
    let start_relay = || relay_spec.start();
    let relay_started = std::time::Instant::now();
    let mut relay = start_relay();
    let alert = poll(20, "the illegal move at a relay started after it", || {
        alerts(&relay.addr, "illegal_move").pop()
    });
    println!(
        "a relay started after the illegal move shows it {} ms after it was started",
        relay_started.elapsed().as_millis()
    );
    assert!(alert["ack"].is_null(), "{alert}");
    assert_eq!(alert["event"]["game"], "1.2", "{alert}");
    let bearer = console_bearer();
    let (s, b) = request(
        &relay.addr,
        "POST",
        "/console/ack",
        &[("Authorization", bearer.as_str())],
        &json!({"id": alert["id"]}).to_string(),
    );
    assert_eq!(s, 200, "{b}");

    // 2. The relay killed and restarted: the alert again, acknowledged.
    relay.kill();
    relay = start_relay();
    let again = poll(20, "the illegal move at the restarted relay", || {
        alerts(&relay.addr, "illegal_move").pop()
    });
    assert_eq!(again["key"], alert["key"], "{again}");
    assert_eq!(again["ack"]["by"], "IA Hansen", "{again}");
    assert_eq!(alerts(&relay.addr, "illegal_move").len(), 1);

    // 3. The relay down; board 2 restarted (its downtime, out-of-band);
    // the relay back: the downtime, and the illegal move still.
    relay.kill();
    board.kill();
    board = start_board();
    poll(20, "the downtime in board 2's retained list", || {
        on_broker
            .lock()
            .unwrap()
            .as_ref()
            .filter(|l| l["alerts"].to_string().contains("downtime"))
            .cloned()
    });
    relay = start_relay();
    let first = poll(
        20,
        "the downtime published while the relay was down",
        || downtimes(&relay.addr).pop(),
    );
    assert_eq!(alerts(&relay.addr, "illegal_move").len(), 1);

    // 4. mosquitto restarted (no persistence) while board 2 restarts; the
    // board back first, the relay's login refused until then.
    broker.kill();
    board.kill();
    *on_broker.lock().unwrap() = None;
    board = start_board();
    mosquitto_passwd(&passwd, "console", "not-yet", false);
    broker.start();
    // The list rebuilt from the journal (the illegal move) and this run's
    // downtime (the earlier run's, out-of-band, is not replayed).
    let list = poll(
        30,
        "board 2's list published again to the new broker",
        || {
            on_broker
                .lock()
                .unwrap()
                .as_ref()
                .filter(|l| {
                    l["alerts"].as_array().is_some_and(|a| {
                        a.iter()
                            .any(|m| m["kind"] == "downtime" && *m != first["event"])
                    })
                })
                .cloned()
        },
    );
    assert!(
        list["alerts"].to_string().contains("illegal_move"),
        "{list}"
    );
    assert_eq!(list["cut"], 0, "{list}");
    assert!(
        downtimes(&relay.addr).len() == 1,
        "the relay is kept out: {}",
        log_of(&relay)
    );
    mosquitto_passwd(&passwd, "console", "console-pw", false);
    broker.reload();
    let let_in = std::time::Instant::now();
    let both = poll(30, "the second downtime after the broker's restart", || {
        let d = downtimes(&relay.addr);
        (d.len() >= 2).then_some(d)
    });
    println!(
        "the downtime published while the relay was kept out is in its console {} ms after \
         its login was let in (list payload {} bytes, {} alerts)",
        let_in.elapsed().as_millis(),
        list.to_string().len(),
        list["alerts"].as_array().map_or(0, Vec::len)
    );
    assert_eq!(both.len(), 2, "{both:?}");
    assert!(both.iter().any(|a| a["key"] == first["key"]), "{both:?}");
    assert_eq!(alerts(&relay.addr, "illegal_move").len(), 1);

    // 5. mosquitto restarted again, the board not: it publishes its list
    // again on reconnecting (a broker without persistence lost it), so a
    // relay started now has every alert.
    broker.kill();
    relay.kill();
    *on_broker.lock().unwrap() = None;
    broker.start();
    poll(30, "board 2's list again on the restarted broker", || {
        on_broker
            .lock()
            .unwrap()
            .as_ref()
            .filter(|l| l["alerts"].to_string().contains("illegal_move"))
            .cloned()
    });
    relay = start_relay();
    poll(
        20,
        "the alerts at a relay started after the broker's restart",
        || (downtimes(&relay.addr).len() == 1).then_some(()),
    );
    let illegal = alerts(&relay.addr, "illegal_move");
    assert_eq!(illegal.len(), 1, "{illegal:?}");
    assert_eq!(illegal[0]["ack"]["by"], "IA Hansen", "{illegal:?}");
    drop(board);
    std::fs::remove_dir_all(&dir).ok();
}
