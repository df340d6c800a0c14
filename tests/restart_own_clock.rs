//! Issue 40.4: a power cut on a board whose clock is the daemon itself
//! (`[clock] runs_while_down = false`, the default of the built-in clock
//! and of the clock engine alone, `simulated`): the
//! clock died with the board, so nobody's time ran. On return the clocks
//! stand where they stood when the board went down, nobody is charged,
//! and the `downtime` alert names how long, whose clock ran and that the
//! clock stopped with it; the arbiter's `downtime` ruling then charges it
//! to the player on move (2023 7.1), and an undo gives it back. Through
//! the real binary killed with SIGKILL, the downtime lengthened on the
//! journal's boot clock as in `restart_moments.rs`.

mod common;

use common::*;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

fn events(journal: &Path) -> Vec<Value> {
    std::fs::read_to_string(eboard::journal::events_path(journal))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn of(journal: &Path, ty: &str) -> Vec<Value> {
    events(journal)
        .into_iter()
        .filter(|e| e["type"] == ty)
        .collect()
}

/// The journal's heartbeats moved `ms` back on the boot clock: the
/// restart on the same boot measures a downtime `ms` longer.
fn down_longer(journal: &Path, ms: u64) {
    let ev = eboard::journal::events_path(journal);
    let text: String = std::fs::read_to_string(&ev)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["type"] == "heartbeat" {
                if let Some(b) = v["boottime_ms"].as_u64() {
                    v["boottime_ms"] = Value::from(b.saturating_sub(ms));
                }
            }
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&ev, text).unwrap();
}

fn post(addr: &str, action: &str, body: &str) -> Value {
    let (status, reply) = request(
        addr,
        "POST",
        &format!("/arbiter/{action}"),
        &[ARBITER_AUTH],
        body,
    );
    assert_eq!(status, 200, "{action} {body}: {reply}");
    serde_json::from_str(&reply).unwrap()
}

/// The board's undelayed state (`/arbiter/state`).
fn board_state(addr: &str) -> Value {
    let (s, b) = request(addr, "GET", "/arbiter/state", &[ARBITER_AUTH], "");
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    v.as_array().and_then(|a| a.first()).map_or(v.clone(), |x| {
        x.get("state").cloned().unwrap_or_else(|| x.clone())
    })
}

#[test]
fn a_power_cut_on_the_boards_own_clock_charges_nobody_until_the_arbiter_does() {
    let dir = tempdir("ownclock");
    // No `[clock]` section: the clock engine in the daemon (the default
    // `simulated` device, as on a board without a clock device) is the
    // board's own clock, `runs_while_down = false` by default.
    let cfg = config(&dir, 1, 3, "");
    let journal = dir.join("j.jsonl");
    let args = ["--journal", journal.to_str().unwrap(), "--delay", "0"];
    let (mut run, mut stdin) = run_stdin(&dir, &cfg, &args);
    for l in [
        r#"{"trace": 1}"#,
        r#"{"t": 0, "lift": "e2"}"#,
        r#"{"t": 0, "place": "e4"}"#,
        r#"{"t": 0, "press": "w"}"#,
    ] {
        writeln!(stdin, "{l}").unwrap();
    }
    stdin.flush().unwrap();
    // e4 completed and a heartbeat with the boot clock 2 s into Black's think.
    let t_w = poll(20, "e4", || {
        of(&journal, "move").first().and_then(|m| m["t"].as_u64())
    });
    poll(30, "a heartbeat after e4", || {
        of(&journal, "heartbeat")
            .iter()
            .any(|h| h["t"].as_u64() >= Some(t_w + 2_000) && h["boottime_ms"].is_u64())
            .then_some(())
    });
    run.kill();
    drop(stdin);
    // The power was off three minutes.
    down_longer(&journal, 180_000);
    let (run, mut stdin) = run_stdin(&dir, &cfg, &args);
    writeln!(stdin, r#"{{"trace": 1}}"#).unwrap();
    stdin.flush().unwrap();
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    let d = arbiter
        .until(20, |v| v["kind"] == "downtime")
        .last()
        .unwrap()
        .1
        .clone();
    // The alert: how long, whose clock ran, the clock stopped with the board.
    let (since, until) = (
        d["since_t"].as_u64().unwrap(),
        d["until_t"].as_u64().unwrap(),
    );
    assert!(until - since >= 180_000, "{d}");
    assert_eq!(d["downtime_ms"], until - since, "{d}");
    assert_eq!(d["running"], "b", "{d}");
    assert_eq!(d["clock_ran"], false, "{d}");
    assert_eq!(d["clocks_stopped"], true, "{d}");
    assert_eq!(d["charged"], Value::Null, "nobody charged: {d}");
    // The clocks stand where they stood when the board went down.
    let st = board_state(&run.addr);
    let clock = &st["clock"];
    assert_eq!(clock["running"], Value::Null, "{st}");
    let black = clock["black_ms"].as_u64().unwrap();
    assert_eq!(black, 5_430_000 - (since - t_w), "{st}");
    // The console's matter: what waits for Resume.
    assert_eq!(st["downtime"]["charge"], "nobody", "{st}");
    assert_eq!(st["downtime"]["clocks_stopped"], true, "{st}");
    let open = st["open"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["t"] == until)
        .unwrap_or_else(|| panic!("the downtime is open: {st}"))
        .clone();
    assert!(
        open["summary"].as_str().unwrap().contains("down 0:03:"),
        "{open}"
    );
    // The arbiter charges it to the player on move.
    let r = post(&run.addr, "downtime", r#"{"charge": "mover"}"#);
    let seq = poll(10, "the downtime ruling", || {
        board_state(&run.addr)["rulings"].as_array().and_then(|rs| {
            rs.iter()
                .rfind(|r| r["action"] == "downtime" && r["author"] != "eboard (downtime)")
                .cloned()
        })
    });
    let charged = board_state(&run.addr)["clock"]["black_ms"]
        .as_u64()
        .unwrap();
    assert_eq!(charged, black - (until - since), "{r} {seq}");
    // An undo gives it back.
    post(
        &run.addr,
        "undo",
        &format!(r#"{{"ruling": {}}}"#, seq["seq"]),
    );
    let back = poll(10, "the undo", || {
        let b = board_state(&run.addr)["clock"]["black_ms"].as_u64()?;
        (b != charged).then_some(b)
    });
    assert_eq!(back, black);
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}
