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

use crate::common;

use common::console::*;
use common::mosquitto::{board_mqtt, docs_broker};
use common::round::*;
use common::*;
use serde_json::{json, Value};

/// IA Hansen's header at the relay's console.
fn auth(bearer: &str) -> (&str, &str) {
    ("Authorization", bearer)
}

const STEPS: &str = r##"
with steps() as res:
    console_page(390, 844, True)
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
    let Some(broker) = docs_broker(&dir, &[2], &[], "") else {
        return;
    };
    let url = broker.url();
    let (key, pk) = console_key(&dir, "console.key");
    let relay_toml = format!("{}{}", ruling_key(&key), token_account());
    let relay_spec = MqttRelay::new(&dir, "relay", &url, "console", &relay_toml);
    let mut relay = relay_spec.start();
    let bearer = console_bearer();
    let alerts = |addr: &str| console_alerts(addr, auth(&bearer), "illegal_move", Some("1.2"));

    // 1. Game A: an illegal move at 4.4 s.
    let table = Table::new(
        &dir,
        2,
        &board_mqtt(
            &url,
            2,
            &format!("arbiter_channel = true\ncommand_keys = [\"{pk}\"]\n"),
        ),
    );
    let d = &table.dir;
    let board_args = table.journaled("1", &["--delay", "900"]);
    let game_a = illegal_trace(d, 4_000);
    let mut board = table.start(Some(&game_a), &refs(&board_args));
    let old = poll(30, "game A's illegal move at the relay", || {
        alerts(&relay.addr).pop()
    });

    // 2. The relay and the board stop; the SD card replaced (the journal
    // and what lives beside it gone); the relay back while the board is
    // down: game A's alert from the broker's retained list.
    relay.kill();
    board.kill();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("j.jsonl") {
            let p = e.path();
            if p.is_dir() {
                std::fs::remove_dir_all(&p).unwrap();
            } else {
                std::fs::remove_file(&p).unwrap();
            }
        }
    }
    relay = relay_spec.start();
    let stale = poll(20, "game A's alert from the retained list", || {
        alerts(&relay.addr).pop()
    });
    assert_eq!(stale["key"], old["key"], "{stale}");

    // 3. Game B on the same board: 1. e4 only.
    let game_b = steps_trace(d, "game-b", TIME_CONTROL, "1000 mv e2e4 w");
    board = table.start(Some(&game_b), &refs(&board_args));
    let st = poll(30, "game B at the relay", || {
        console_state(&relay.addr, auth(&bearer), "1.2")
            .filter(|s| s["ply"] == 1 && s["moves"].as_array().is_some_and(|m| m.len() == 1))
    });
    println!("game B: {st}");
    assert!(
        st["started_at_unix_ms"].as_u64().unwrap() > stale["unix_ms"].as_u64().unwrap(),
        "game B started after game A's alert: {st} / {stale}"
    );
    let still = alerts(&relay.addr);
    assert_eq!(
        still.len(),
        1,
        "game A's alert still in the console: {still:?}"
    );

    // A ruling made from game A's alert: refused by the board with a reason.
    let cmd = json!({"board": "1.2", "action": "restore", "id": "stale-restore-1",
        "expect": {"ply": 1, "event": {"type": "illegal_move", "t": stale["event"]["t"]}}});
    let (s, body) = console_command(&relay.addr, ("Authorization", &bearer), &cmd);
    println!("the ruling from game A's alert: {s} {body}");
    assert_eq!(s, 409, "{body}");
    assert!(body.contains("no longer open"), "{body}");
    assert!(body.contains("this board raised no such alert"), "{body}");
    let j: Vec<Value> = table
        .records()
        .into_iter()
        .filter(|v| v["arbiter"] == "restore")
        .collect();
    assert_eq!(j.len(), 1, "{j:?}");
    // Journaled as the request with its `expect`: a replay refuses it alike
    // (docs/console.md, "The ruling request"), never a ruling given.
    assert_eq!(j[0]["expect"]["event"]["t"], stale["event"]["t"], "{j:?}");
    assert!(!body.contains("\"status\":\"applied\""), "{body}");

    // The console page: game A's alert from an earlier game, no live button.
    if let Some(chrome) = chromium_and_python() {
        let r = run_steps(
            &chrome,
            &format!("http://{}/console", relay.addr),
            &dir,
            STEPS,
            &["IA Hansen", CONSOLE_TOKEN],
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
