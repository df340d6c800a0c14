//! What the arbiter's console keeps across a restart (issue 15: "everything
//! an arbiter does in the journals", commands "replay-protected and
//! idempotent"), with real processes killed with SIGKILL and started again:
//!
//! - a relay (`eboard relay --state-dir`) and a board (`eboard run
//!   --journal-dir`): an alert acknowledged before the restart shows
//!   acknowledged (by whom, when) after it, at the relay and at the board's
//!   own console; a session cookie still works, a logged-out one does not;
//!   a ruling retried with the same command id through the restarted relay
//!   and the restarted board is applied once (one record in the journal);
//!   the state files hold what they should, with the right mode;
//! - one store of ruling ids for both ways in: an id taken over HTTP is a
//!   duplicate over the signed MQTT topic, and the reverse, also after the
//!   board restarts (mosquitto);
//! - a damaged state file: the relay starts, names file:line, sets the
//!   file aside whole and alerts the arbiter; a board's damaged ruling ids
//!   likewise, the good ids still holding (one applied, one pending when
//!   the board stopped: neither applied again).

use crate::common;

use common::console::*;
use common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Logs in as IA Hansen; the cookie's `name=value`.
fn login_hansen(addr: &str) -> String {
    login(addr, "IA Hansen", SECRET)
}

/// The alerts of a console, newest first.
fn alerts(addr: &str, cookie: &str) -> Vec<Value> {
    let (s, v) = get_json(addr, "/console/alerts", ("Cookie", cookie));
    assert_eq!(s, 200, "{v}");
    v.as_array().unwrap().clone()
}

/// Waits for the console's alert of `kind` on game `game`.
fn alert_of(addr: &str, cookie: &str, kind: &str, game: &str) -> Value {
    poll(30, &format!("the {kind} alert of {game} at {addr}"), || {
        alerts(addr, cookie)
            .into_iter()
            .find(|a| a["type"] == kind && a["game"] == game)
    })
}

/// The journal's `arbiter` records of `action` by `author` (a restarted
/// board pauses the clocks itself, authored "eboard (downtime)").
fn count(journal: &Path, action: &str, author: &str) -> usize {
    journal_records(journal)
        .iter()
        .filter(|r| r["arbiter"] == action && r["author"] == author)
        .count()
}

fn lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn sha256(text: &str) -> String {
    ring::digest::digest(&ring::digest::SHA256, text.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn acks_sessions_and_command_ids_survive_a_killed_relay_and_board() {
    let dir = tempdir("console-restart");
    let extra = accounts(false);
    let bdir = dir.join("b1");
    let jdir = bdir.join("journal");
    std::fs::create_dir_all(&bdir).unwrap();
    let cfg = config(&bdir, 1, 1, &extra);
    let trace = illegal_trace(&bdir, 12_000);
    let board_addr = free_loopback_addr();
    let run_args = |trace: Option<&Path>| {
        let mut a = vec![
            "run".to_owned(),
            "--config".into(),
            cfg.display().to_string(),
            "--journal-dir".into(),
            jdir.display().to_string(),
        ];
        if let Some(t) = trace {
            a.extend([
                "--trace".into(),
                t.display().to_string(),
                "--speed".into(),
                "10".into(),
            ]);
        }
        a
    };
    let args = run_args(Some(&trace));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut board = serving_at(&args, &board_addr, &bdir);
    let relay_spec = HttpRelay::new(&dir, &extra, &[format!("http://{board_addr}")]);
    let state = dir.join("relay-state");
    let mut relay = relay_spec.start();
    let r = relay.addr.clone();

    // Two sessions at the relay (the second logs out), one at the board.
    let kept = login_hansen(&r);
    let leaving = login_hansen(&r);
    let at_board = login_hansen(&board.addr);

    // The illegal move arrives; acknowledged at the relay and at the board.
    let alert = alert_of(&r, &kept, "illegal_move", "1.1");
    let key = alert["key"].as_str().expect("the alert's key").to_owned();
    assert_eq!(key.len(), 64, "{alert}");
    let ack = json!({"id": alert["id"]}).to_string();
    let (s, _, b) = http(&r, "POST", "/console/ack", &[("Cookie", &kept)], &ack);
    assert_eq!(s, 200, "{b}");
    let acked: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(acked["ack"]["by"], "IA Hansen");
    let board_alert = alert_of(&board.addr, &at_board, "illegal_move", "1.1");
    assert_eq!(board_alert["key"], key, "the same message, the same key");
    let back = json!({"id": board_alert["id"]}).to_string();
    let (s, _, b) = http(
        &board.addr,
        "POST",
        "/console/ack",
        &[("Cookie", &at_board)],
        &back,
    );
    assert_eq!(s, 200, "{b}");
    let board_acked: Value = serde_json::from_str(&b).unwrap();

    // A ruling through the relay.
    let cmd = json!({"board": "1.1", "action": "pause", "expect": {"ply": 0}, "id": "restart-1"})
        .to_string();
    let (s, _, b) = http(&r, "POST", "/arbiter/command", &[("Cookie", &kept)], &cmd);
    assert_eq!(s, 200, "{b}");
    let first: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(first["author"], "IA Hansen", "{first}");
    let journal = jdir.join("board.jsonl");
    assert_eq!(count(&journal, "pause", "IA Hansen"), 1);
    let (s, _, _) = http(&r, "POST", "/console/logout", &[("Cookie", &leaving)], "");
    assert_eq!(s, 200);

    // The state files as the relay left them.
    let acks = lines(&state.join("console-acks.jsonl"));
    assert_eq!(acks.len(), 1, "{acks:?}");
    assert_eq!(acks[0]["alert"], key);
    assert_eq!(acks[0]["by"], "IA Hansen");
    assert_eq!(acks[0]["unix_ms"], acked["ack"]["unix_ms"]);
    assert_eq!(
        (acks[0]["type"].as_str(), acks[0]["game"].as_str()),
        (Some("illegal_move"), Some("1.1"))
    );
    assert_eq!(acks[0]["event"], alert["event"]);
    let sessions_file = state.join("console-sessions.jsonl");
    assert_eq!(mode(&sessions_file), 0o600);
    assert_eq!(mode(&state), 0o700);
    let text = std::fs::read_to_string(&sessions_file).unwrap();
    let kept_id = kept.split_once('=').unwrap().1;
    let leaving_id = leaving.split_once('=').unwrap().1;
    assert!(!text.contains(kept_id), "a session id in clear: {text}");
    assert!(text.contains(&sha256(kept_id)), "{text}");
    assert!(
        !text.contains(&sha256(leaving_id)),
        "logged out, still kept: {text}"
    );
    let sessions = lines(&sessions_file);
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0]["name"], "IA Hansen");
    assert!(sessions[0]["expires_unix_ms"].as_u64().unwrap() > unix_ms() + 11 * 3600 * 1000);
    // The board's: beside its journal.
    let board_acks = lines(&jdir.join("board.jsonl.acks"));
    assert_eq!(
        (board_acks.len(), board_acks[0]["alert"].as_str()),
        (1, Some(key.as_str()))
    );
    assert_eq!(mode(&jdir.join("board.jsonl.sessions")), 0o600);
    let ids = lines(&jdir.join("board.jsonl.rulings"));
    let last = ids.iter().rev().find(|l| l["id"] == "restart-1").unwrap();
    assert_eq!(last["outcome"]["status"], "applied", "{ids:?}");

    // kill -9 both, start both again (the board without its trace: the
    // journal is the game).
    relay.kill();
    board.kill();
    let args = run_args(None);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let again_dir = bdir.join("again");
    std::fs::create_dir_all(&again_dir).unwrap();
    let board = serving_at(&args, &board_addr, &again_dir);
    let relay = relay_spec.start();
    let r = relay.addr.clone();

    // The phone stays logged in; the logged-out cookie does not come back.
    let (s, _, b) = http(&r, "GET", "/console/me", &[("Cookie", &kept)], "");
    assert_eq!(s, 200, "{b}");
    assert!(b.contains("IA Hansen"), "{b}");
    assert_eq!(
        http(&r, "GET", "/console/me", &[("Cookie", &leaving)], "").0,
        401
    );
    assert_eq!(
        http(
            &board.addr,
            "GET",
            "/console/me",
            &[("Cookie", &at_board)],
            ""
        )
        .0,
        200
    );

    // The board's backlog comes again: the alert shows acknowledged, by
    // whom and when, at the relay and at the board.
    let again = alert_of(&r, &kept, "illegal_move", "1.1");
    assert_eq!(again["key"], key);
    assert_eq!(again["ack"], acked["ack"], "{again}");
    let again = alert_of(&board.addr, &at_board, "illegal_move", "1.1");
    assert_eq!(again["ack"], board_acked["ack"], "{again}");

    // The ruling retried with the same id through both restarted: the
    // first reply, not applied again.
    let (s, _, b) = http(&r, "POST", "/arbiter/command", &[("Cookie", &kept)], &cmd);
    assert_eq!(s, 200, "{b}");
    let repeated: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(repeated["repeated"], true, "{repeated}");
    assert_eq!(repeated["t"], first["t"]);
    assert_eq!(count(&journal, "pause", "IA Hansen"), 1);
    // A new id is applied.
    let next = json!({"board": "1.1", "action": "resume", "expect": {"ply": 0}, "id": "restart-2"})
        .to_string();
    let (s, _, b) = http(&r, "POST", "/arbiter/command", &[("Cookie", &kept)], &next);
    assert_eq!(s, 200, "{b}");
    assert_eq!(count(&journal, "resume", "IA Hansen"), 1);
    // The state files hold no more than before (nothing acknowledged again).
    assert_eq!(lines(&state.join("console-acks.jsonl")).len(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_command_id_is_taken_once_over_http_and_mqtt_alike() {
    let dir = tempdir("console-ids-both");
    let Some(sb) = signed_board(&dir, "") else {
        return;
    };
    let (url, key, cfg) = (sb.url.clone(), sb.key.clone(), sb.cfg.clone());
    let jdir = dir.join("journal");
    let journal = jdir.join("board.jsonl");
    let start = || {
        let b = run_board(&dir, &cfg, None, &["--journal-dir", jdir.to_str().unwrap()]);
        b.wait_log(20, "rulings: signed commands on");
        b
    };
    let mut board = start();
    let rule = |action: &str, id: &str| -> Value {
        let o = eboard(&refs(&rule_args(&key, &url, 2, action, "Hansen, IA", id)));
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).trim()).unwrap_or(Value::Null)
    };
    let auth = [ARBITER_AUTH];
    let over_http = |addr: &str, action: &str, id: &str| -> (u16, Value) {
        let cmd =
            json!({"board": "1.2", "action": action, "expect": {"ply": 0}, "id": id}).to_string();
        let (s, b) = request(addr, "POST", "/arbiter/command", &auth, &cmd);
        (s, serde_json::from_str(&b).unwrap_or(Value::Null))
    };

    // HTTP first, then the same id over MQTT: a duplicate.
    let (s, v) = over_http(&board.addr, "pause", "both-1");
    assert_eq!(s, 200, "{v}");
    let dup = rule("pause", "both-1");
    assert_eq!(dup["status"], "duplicate", "{dup}");
    assert_eq!(dup["outcome"]["status"], "applied", "{dup}");
    // MQTT first, then the same id over HTTP: the first outcome, repeated.
    let applied = rule("resume", "both-2");
    assert_eq!(applied["status"], "applied", "{applied}");
    let (s, v) = over_http(&board.addr, "resume", "both-2");
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (v["repeated"].as_bool(), v["via"].as_str()),
        (Some(true), Some("mqtt")),
        "{v}"
    );
    assert_eq!(v["t"], applied["t"]);
    assert_eq!(
        (
            count(&journal, "pause", "Chief Arbiter"),
            count(&journal, "resume", "Hansen, IA")
        ),
        (1, 1)
    );

    // After a restart, both ways still know both ids.
    board.kill();
    let board = start();
    assert_eq!(rule("resume", "both-2")["status"], "duplicate");
    assert_eq!(rule("pause", "both-1")["status"], "duplicate");
    let (s, v) = over_http(&board.addr, "pause", "both-1");
    assert_eq!((s, v["repeated"].as_bool()), (200, Some(true)), "{v}");
    assert_eq!(
        (
            count(&journal, "pause", "Chief Arbiter"),
            count(&journal, "resume", "Hansen, IA")
        ),
        (1, 1)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_damaged_state_file_is_set_aside_named_and_alerted() {
    let dir = tempdir("console-state-damaged");
    let extra = accounts(false);
    let state = dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    let good = json!({"alert": "ab".repeat(32), "game": "1.1", "type": "flag", "event": {}, "by": "IA Hansen", "unix_ms": 1}).to_string();
    let acks_text = format!("{good}\n{{\"lift\": \"e2\", \"t\": 5}}\n{good}\n");
    std::fs::write(state.join("console-acks.jsonl"), &acks_text).unwrap();
    std::fs::write(state.join("console-sessions.jsonl"), "\u{0}\u{0}\u{0}\n").unwrap();
    let relay_cfg = dir.join("relay.toml");
    std::fs::write(&relay_cfg, format!("[arbiter]\n{extra}")).unwrap();
    // No board answers there: the relay runs all the same.
    let nowhere = format!("http://{}", free_loopback_addr());
    let relay = spawn(
        &[
            "relay",
            "--config",
            relay_cfg.to_str().unwrap(),
            "--state-dir",
            state.to_str().unwrap(),
            &nowhere,
        ],
        &[],
        &dir,
    );
    let log = std::fs::read_to_string(&relay.stderr).unwrap();
    let acks = state.join("console-acks.jsonl");
    assert!(log.contains(&format!("{}:2:", acks.display())), "{log}");
    assert!(
        log.contains(&format!(
            "{}:1:",
            state.join("console-sessions.jsonl").display()
        )),
        "{log}"
    );
    assert!(log.contains("ERROR"), "{log}");
    // Nothing lost: the whole file set aside; the good lines kept.
    let aside: Vec<PathBuf> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("console-acks.jsonl.damaged-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read_to_string(&aside[0]).unwrap(), acks_text);
    assert_eq!(lines(&acks).len(), 2);
    // The arbiter is told, in the console.
    let cookie = login_hansen(&relay.addr);
    let told = poll(10, "the damage alert", || {
        alerts(&relay.addr, &cookie).into_iter().find(|a| {
            a["type"] == "journal_alert" && a["event"]["file"] == acks.display().to_string()
        })
    });
    assert_eq!(told["event"]["line"], 2);
    assert_eq!(told["event"]["problem"], "damaged");
    assert_eq!(told["event"]["set_aside"], aside[0].display().to_string());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_boards_damaged_ruling_ids_are_set_aside_and_the_good_ones_still_hold() {
    let dir = tempdir("console-ids-damaged");
    let extra = accounts(false);
    let cfg = config(&dir, 1, 1, &extra);
    let jdir = dir.join("journal");
    std::fs::create_dir_all(&jdir).unwrap();
    // An id applied before, a line of another file, an id being applied
    // when the board stopped.
    let ids_text = concat!(
        "{\"id\": \"old-1\", \"outcome\": {\"status\": \"applied\", \"via\": \"http\", \"http\": 200, \"reply\": {\"t\": 3}}}\n",
        "{\"t\": 5, \"lift\": \"e2\"}\n",
        "{\"id\": \"old-2\", \"outcome\": \"pending\"}\n",
    );
    let rulings = jdir.join("board.jsonl.rulings");
    std::fs::write(&rulings, ids_text).unwrap();
    let board = run_board(&dir, &cfg, None, &["--journal-dir", jdir.to_str().unwrap()]);
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(log.contains(&format!("{}:2:", rulings.display())), "{log}");
    let aside: Vec<PathBuf> = std::fs::read_dir(&jdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("board.jsonl.rulings.damaged-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read_to_string(&aside[0]).unwrap(), ids_text);
    // The arbiter is told on the board's console.
    let cookie = login_hansen(&board.addr);
    let told = poll(10, "the damage alert", || {
        alerts(&board.addr, &cookie).into_iter().find(|a| {
            a["type"] == "journal_alert" && a["event"]["file"] == rulings.display().to_string()
        })
    });
    assert_eq!(told["event"]["line"], 2);
    // The good ids still hold: neither is applied again.
    let journal = jdir.join("board.jsonl");
    for (id, status) in [("old-1", 200), ("old-2", 409)] {
        let cmd =
            json!({"board": "1.1", "action": "pause", "expect": {"ply": 0}, "id": id}).to_string();
        let (s, _, b) = http(
            &board.addr,
            "POST",
            "/arbiter/command",
            &[("Cookie", &cookie)],
            &cmd,
        );
        assert_eq!(s, status, "{id}: {b}");
        assert!(b.contains("\"repeated\":true"), "{id}: {b}");
    }
    assert_eq!(count(&journal, "pause", "IA Hansen"), 0);
    std::fs::remove_dir_all(&dir).ok();
}
