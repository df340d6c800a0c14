//! A board offline, and back, on the MQTT relay's console (issue 15 item
//! 1: "a board offline or resumed after downtime"), with a real mosquitto
//! set up as `docs/mqtt.md` says (no anonymous clients, a password file,
//! the ACL with the tables' status topics) and real `eboard run` boards:
//!
//! - board 3 stopped (SIGTERM) before the relay starts: its retained
//!   offline ("stopped") is alerted when the relay starts;
//! - board 1 killed (SIGKILL): the broker publishes its will, the relay's
//!   console has `board_offline` ("connection lost");
//! - board 1 restarted from its journal: `board_resumed`, which closes
//!   its `board_offline` (`resolved`, no alert of its own);
//! - board 1 frozen (SIGSTOP): the broker gives up on it after 1.5 × the
//!   keep-alive (5 s) and publishes the will: `board_offline` within
//!   [`KEEP_ALIVE_BOUND_MS`]; thawed (SIGCONT), it reconnects: `board_resumed`;
//! - board 2 stopped (SIGTERM) while the relay runs: `board_offline`
//!   ("stopped") at once;
//! - none of this on the relay's public feed (as on the HTTP relay).

use crate::common;

use common::console::*;
use common::mosquitto::{board_mqtt, docs_broker};
use common::round::*;
use common::*;
use serde_json::Value;

/// How late the will of a frozen board may come: 1.5 × the keep-alive
/// (5 s, `mqtt::publish::KEEP_ALIVE`, MQTT 3.1.1 §3.1.2.10), plus the
/// broker's keep-alive check and the relay's reading (ms).
const KEEP_ALIVE_BOUND_MS: u64 = 15_000;

/// Sends `signal` (`TERM`, `STOP`, `CONT`) to `board`.
fn signal(board: &Running, signal: &str) {
    let ok = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &board.child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{signal}");
}

/// The console's alerts of `kind` on `game`, oldest first.
fn alerts(relay: &str, cookie: &str, kind: &str, game: &str) -> Vec<Value> {
    let mut found = console_alerts(relay, ("Cookie", cookie), kind, Some(game));
    found.reverse();
    found
}

/// The `n`th (from 1) alert of `kind` on `game`, once it is there.
/// The `board_offline` alert of outage `outage` of `game`, once a
/// `board_resumed` has closed it (`resolved`: back online).
fn closed_offline(relay: &str, cookie: &str, game: &str, outage: u64, secs: u64) -> Value {
    poll(secs, &format!("{game}'s offline #{outage} closed"), || {
        alerts(relay, cookie, "board_offline", game)
            .into_iter()
            .find(|a| a["event"]["outage"] == outage && a["resolved"].is_object())
    })
}

fn nth_alert(relay: &str, cookie: &str, kind: &str, game: &str, n: usize, secs: u64) -> Value {
    poll(secs, &format!("{kind} #{n} of {game}"), || {
        alerts(relay, cookie, kind, game).get(n - 1).cloned()
    })
}

/// Table `t`'s daemon playing the Opera Game, with its journal.
fn board(t: &Table) -> Running {
    t.run(Some(&opera_trace(&t.dir, u64::from(t.n))), "10", true)
}

#[test]
fn a_board_offline_and_back_reaches_the_mqtt_relays_console() {
    let dir = tempdir("mqtt-offline");
    // The ACL of `docs/mqtt.md` for tables 1..=3 of `dm-2026` and the console's relay.
    let Some(broker) = docs_broker(&dir, &[1, 2, 3], &[], "") else {
        return;
    };
    let url = broker.url();
    let tables: Vec<Table> = (1..=3)
        .map(|n| Table::new(&dir, n, &board_mqtt(&url, n, "")))
        .collect();

    // Board 3 comes and goes (SIGTERM) before the relay starts.
    let mut b3 = board(&tables[2]);
    b3.wait_log(20, "ready");
    signal(&b3, "TERM");
    assert!(b3.child.wait().unwrap().success());
    let said = std::fs::read_to_string(&b3.stderr).unwrap();
    assert!(
        said.contains("board status offline (stopped) published"),
        "{said}"
    );

    // The console's relay: board 3 is off now.
    let relay = MqttRelay::new(
        &dir,
        "relay",
        &url,
        "console",
        &named_account("IA Hansen", SECRET),
    )
    .start();
    let r = relay.addr.as_str();
    let public = SseReader::open(r, "/events", &[]);
    let arbiter = login(r, "IA Hansen", SECRET);
    let off3 = nth_alert(r, &arbiter, "board_offline", "1.3", 1, 20);
    assert_eq!(off3["event"]["reason"], "stopped", "{off3}");
    assert!(off3["ack"].is_null(), "{off3}");

    // Boards 1 and 2 play; the relay shows them.
    let mut b1 = board(&tables[0]);
    let b2 = board(&tables[1]);
    poll(30, "boards 1.1 and 1.2 at the console", || {
        let (s, _, b) = http(r, "GET", "/arbiter/state", &[("Cookie", &arbiter)], "");
        let v: Value = serde_json::from_str(&b).ok()?;
        let games: Vec<&str> = v
            .as_array()?
            .iter()
            .filter_map(|g| g["state"]["game"].as_str())
            .collect();
        (s == 200 && games.contains(&"1.1") && games.contains(&"1.2")).then_some(())
    });
    let early = alerts(r, &arbiter, "board_offline", "1.1");
    assert!(early.is_empty(), "{early:?}");

    // Board 1 killed (once its journal has records, to resume from): the will.
    let j1 = &tables[0].journal;
    poll(30, "board 1's journal", || {
        // The header, then records.
        (journal_records(j1).len() >= 3).then_some(())
    });
    let killed_at = unix_ms();
    b1.kill();
    let off1 = nth_alert(r, &arbiter, "board_offline", "1.1", 1, 20);
    let kill_to_alert = off1["unix_ms"].as_u64().unwrap() - killed_at;
    eprintln!("SIGKILL to board_offline: {kill_to_alert} ms");
    assert_eq!(off1["event"]["reason"], "connection lost", "{off1}");
    assert!(kill_to_alert < KEEP_ALIVE_BOUND_MS, "{kill_to_alert} ms");
    assert!(off1["resolved"].is_null(), "{off1}");

    // Restarted from its journal: back.
    let b1 = board(&tables[0]);
    let back = closed_offline(r, &arbiter, "1.1", 1, 20);
    assert!(
        back["resolved"]["how"]
            .as_str()
            .unwrap()
            .starts_with("back online after"),
        "{back}"
    );
    assert!(alerts(r, &arbiter, "board_resumed", "1.1").is_empty());
    let said = std::fs::read_to_string(&b1.stderr).unwrap();
    assert!(
        said.contains("resumed"),
        "restarted from its journal: {said}"
    );

    // Frozen: the broker gives up after 1.5 × the keep-alive.
    signal(&b1, "STOP");
    let frozen_at = unix_ms();
    let off = nth_alert(r, &arbiter, "board_offline", "1.1", 2, 30);
    let freeze_to_alert = off["unix_ms"].as_u64().unwrap() - frozen_at;
    eprintln!("SIGSTOP to board_offline: {freeze_to_alert} ms");
    assert_eq!(off["event"]["reason"], "connection lost", "{off}");
    assert!(
        (5_000..KEEP_ALIVE_BOUND_MS).contains(&freeze_to_alert),
        "{freeze_to_alert} ms"
    );
    signal(&b1, "CONT");
    closed_offline(r, &arbiter, "1.1", 2, 30);

    // Board 2 stopped cleanly while the relay runs: at once.
    let mut b2 = b2;
    let stopped_at = unix_ms();
    signal(&b2, "TERM");
    assert!(b2.child.wait().unwrap().success());
    let off2 = nth_alert(r, &arbiter, "board_offline", "1.2", 1, 10);
    let stop_to_alert = off2["unix_ms"].as_u64().unwrap() - stopped_at;
    eprintln!("SIGTERM to board_offline: {stop_to_alert} ms");
    assert_eq!(off2["event"]["reason"], "stopped", "{off2}");
    assert!(stop_to_alert < 3_000, "{stop_to_alert} ms");

    // Nothing of it on the public feed.
    let public_status: Vec<Value> = public
        .rx
        .try_iter()
        .map(|(_, v)| v)
        .filter(|v| v["type"] == "board_offline" || v["type"] == "board_resumed")
        .collect();
    assert!(public_status.is_empty(), "{public_status:?}");
    drop((b1, b2, b3, relay));
    std::fs::remove_dir_all(&dir).ok();
}
