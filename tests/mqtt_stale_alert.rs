//! A board's journal lost (its SD card replaced) while mosquitto still holds
//! the old game's retained `…/arbiter/alerts` (ia17's "Not tried";
//! `docs/mqtt.md`, "Alerts for a relay that was away"), with a real broker
//! behind a password file and the ACL of `docs/mqtt.md`:
//!
//! 1. board 2 plays an illegal e2-e5 at 4.4 s (game A); the relay's console
//!    has it;
//! 2. the relay and the board stop; the board's journal is deleted; the
//!    relay starts again while the board is down and takes game A's
//!    alert from the broker's retained list;
//! 3. the board starts afresh (game B, a new journal: 1. e4 only).
//!
//! Game A's alert is still in the console. A ruling made from it (`expect`
//! naming its event) is refused by the board with a reason (409; its
//! journal keeps the request with its `expect`, so a replay refuses it too); the console page shows the alert as from an
//! earlier game, with no live button (Chromium, 390×844), and does not
//! count it as waiting.

mod common;

use common::console::illegal_trace;
use common::mosquitto::{broker_with_acl, docs_acl};
use common::*;
use serde_json::{json, Value};

const ARBITER: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";

fn alerts(addr: &str, kind: &str) -> Vec<Value> {
    let bearer = format!("Bearer {ARBITER}");
    let (s, b) = request(
        addr,
        "GET",
        "/console/alerts",
        &[("Authorization", bearer.as_str())],
        "",
    );
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .filter(|a| a["type"] == kind && a["game"] == "1.2")
        .cloned()
        .collect()
}

/// Board 1.2's state at the relay `addr` (its console's view), if known.
fn state(addr: &str) -> Option<Value> {
    let bearer = format!("Bearer {ARBITER}");
    let (s, b) = request(
        addr,
        "GET",
        "/arbiter/state",
        &[("Authorization", bearer.as_str())],
        "",
    );
    if s != 200 {
        return None;
    }
    let v: Value = serde_json::from_str(&b).ok()?;
    v.as_array()?
        .iter()
        .find(|s| s["state"]["game"] == "1.2")
        .map(|s| s["state"].clone())
}

const STEPS: &str = r##"
name, secret = sys.argv[4:6]
with steps() as res:
    page(390, 844, True)
    log_in(name, secret)
    wait("boards.get('1.2') && plyOf(boards.get('1.2')) === 1 && alerts.some((a) => a.type === 'illegal_move')", "game B and game A's alert")
    js("refresh()"); time.sleep(0.5)
    li = "Array.from(document.querySelectorAll('#alerts li, #acked-list li')).find((l) => l.dataset.type === 'illegal_move')"
    res["open"] = js(li + ".dataset.open")
    res["buttons"] = js("Array.from(" + li + ".querySelectorAll('button')).map((b) => b.textContent)")
    res["outcome"] = js("(() => { const p = " + li + ".querySelector('p.outcome'); return p ? p.textContent : ''; })()")
    res["title"] = js("document.title")
"##;

#[test]
fn a_stale_retained_alert_of_a_lost_journal_is_refused_with_a_reason() {
    if common::mosquitto::mosquitto_or_skip().is_none() {
        return;
    }
    let dir = tempdir("mqtt-stale-alert");
    let users = [("console", "console-pw"), ("board2", "board2-pw")];
    let Some(broker) = broker_with_acl(&dir, &users, &docs_acl(&[2], "")) else {
        return;
    };
    let url = broker.url();
    let key = dir.join("console.key");
    let pk = eboard_ok(&["rule", "--keygen", key.to_str().unwrap()]);
    let relay_dir = dir.join("relay");
    std::fs::create_dir_all(&relay_dir).unwrap();
    let relay_cfg = relay_dir.join("relay.toml");
    std::fs::write(
        &relay_cfg,
        format!(
            "[arbiter]\nruling_key = \"{}\"\n\n[[arbiter.accounts]]\nname = \"IA Hansen\"\ntoken = \"{ARBITER}\"\n",
            key.display()
        ),
    )
    .unwrap();
    let relay_args = [
        "relay",
        "--mqtt",
        url.as_str(),
        "--mqtt-username",
        "console",
        "--event",
        "DM 2026",
        "--config",
        relay_cfg.to_str().unwrap(),
    ];
    let start_relay = || {
        spawn(
            &relay_args,
            &[("EBOARD_MQTT_PASSWORD", "console-pw")],
            &relay_dir,
        )
    };
    let mut relay = start_relay();

    // 1. Game A: an illegal move at 4.4 s.
    let d = dir.join("b2");
    std::fs::create_dir_all(&d).unwrap();
    let cfg = config(
        &d,
        1,
        2,
        &format!(
            "[mqtt]\nurl = \"{url}\"\nusername = \"board2\"\npassword = \"board2-pw\"\n\
             arbiter_channel = true\ncommand_keys = [\"{}\"]\n",
            pk.trim()
        ),
    );
    let journal = d.join("j.jsonl");
    let board_args = [
        "--journal",
        journal.to_str().unwrap(),
        "--speed",
        "1",
        "--delay",
        "900",
    ];
    let game_a = illegal_trace(&d, 4_000);
    let mut board = run_board(&d, &cfg, Some(&game_a), &board_args);
    let old = poll(30, "game A's illegal move at the relay", || {
        alerts(&relay.addr, "illegal_move").pop()
    });

    // 2. The relay and the board stop; the SD card replaced (the journal
    // and what lives beside it gone); the relay back while the board is
    // down: game A's alert from the broker's retained list.
    relay.kill();
    board.kill();
    for e in std::fs::read_dir(&d).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("j.jsonl") {
            let p = e.path();
            if p.is_dir() {
                std::fs::remove_dir_all(&p).unwrap();
            } else {
                std::fs::remove_file(&p).unwrap();
            }
        }
    }
    relay = start_relay();
    let stale = poll(20, "game A's alert from the retained list", || {
        alerts(&relay.addr, "illegal_move").pop()
    });
    assert_eq!(stale["key"], old["key"], "{stale}");

    // 3. Game B on the same board: 1. e4 only.
    let game_b = d.join("game-b.jsonl");
    std::fs::write(
        &game_b,
        TraceBuilder::new()
            .header("time_control", "5400+30")
            .mv(1_000, "e2e4", "w")
            .text(),
    )
    .unwrap();
    board = run_board(&d, &cfg, Some(&game_b), &board_args);
    let st = poll(30, "game B at the relay", || {
        state(&relay.addr)
            .filter(|s| s["ply"] == 1 && s["moves"].as_array().is_some_and(|m| m.len() == 1))
    });
    println!("game B: {st}");
    assert!(
        st["started_at_unix_ms"].as_u64().unwrap() > stale["unix_ms"].as_u64().unwrap(),
        "game B started after game A's alert: {st} / {stale}"
    );
    let still = alerts(&relay.addr, "illegal_move");
    assert_eq!(
        still.len(),
        1,
        "game A's alert still in the console: {still:?}"
    );

    // A ruling made from game A's alert: refused by the board with a reason.
    let bearer = format!("Bearer {ARBITER}");
    let cmd = json!({"board": "1.2", "action": "restore", "id": "stale-restore-1",
        "expect": {"ply": 1, "event": {"type": "illegal_move", "t": stale["event"]["t"]}}});
    let (s, body) = request(
        &relay.addr,
        "POST",
        "/arbiter/command",
        &[("Authorization", bearer.as_str())],
        &cmd.to_string(),
    );
    println!("the ruling from game A's alert: {s} {body}");
    assert_eq!(s, 409, "{body}");
    assert!(body.contains("no longer open"), "{body}");
    assert!(body.contains("this board raised no such alert"), "{body}");
    let j: Vec<Value> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &Value| v["arbiter"] == "restore")
        .collect();
    assert_eq!(j.len(), 1, "{j:?}");
    // Journaled as the request with its `expect`: a replay refuses it alike
    // (docs/console.md, "The ruling request"), never a ruling given.
    assert_eq!(j[0]["expect"]["event"]["t"], stale["event"]["t"], "{j:?}");
    assert!(!body.contains("\"status\":\"applied\""), "{body}");

    // The console page: game A's alert from an earlier game, no live button.
    if let Some(chrome) = chromium_and_python() {
        let r = console::run_console_steps(
            &chrome,
            &format!("http://{}/console", relay.addr),
            &dir,
            STEPS,
            &["IA Hansen", ARBITER],
            &relay.stderr,
        );
        println!("{r:#}");
        assert_eq!(r["open"], "false", "{r}");
        let buttons: Vec<String> = serde_json::from_value(r["buttons"].clone()).unwrap();
        assert!(
            buttons.iter().all(|b| b == "Acknowledge"),
            "no ruling from game A's alert: {r}"
        );
        assert!(
            r["outcome"]
                .as_str()
                .unwrap()
                .starts_with("From an earlier game on board 1.2"),
            "{r}"
        );
    }
    drop(board);
    drop(relay);
    drop(broker);
    std::fs::remove_dir_all(&dir).ok();
}
