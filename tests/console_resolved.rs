//! Issue 24's last open points, through the real daemon and relay:
//!
//! - §5, "the PGN and feeds carry the final result": a draw by agreement
//!   corrected to 1-0 by mistake and undone within the transmission delay
//!   never reaches the public (neither its event stream nor its PGN); the
//!   public gets the draw, with its termination kept;
//! - §5 with moves: a result declared and then a position set back one
//!   move (a take-back), both within the delay: neither the result nor the
//!   move taken back ever reaches the public;
//! - §8, "each alert's time is when it happened, also after a relay
//!   restart": a board's own out-of-band alert (its damaged ruling-id
//!   store, found at its start) keeps the board's time at a relay started
//!   later and at the same relay restarted;
//! - §2, "a decided alert has no live buttons": a claim the board decided
//!   (a touch-move claim upheld, which takes the move back) is in the
//!   board's undelayed state at once (`ply`, `open`), not only at the next
//!   move: a console that read the state before still offered "Uphold the
//!   claim" on the breach the board had already settled (found in the
//!   4-board walk-through as an IA).

mod common;

use common::console::*;
use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn arbiter_state(addr: &str) -> Value {
    let (s, b) = request(addr, "GET", "/arbiter/state", &[ARBITER_AUTH], "");
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    v.as_array().and_then(|a| a.first()).map_or(v.clone(), |x| {
        x.get("state").cloned().unwrap_or_else(|| x.clone())
    })
}

#[test]
fn a_result_corrected_and_undone_within_the_delay_never_reaches_the_public() {
    let dir = tempdir("resolved-delay");
    let cfg = config(&dir, 1, 1, "");
    let trace = dir.join("draw.jsonl");
    std::fs::write(
        &trace,
        TraceBuilder::new()
            .header("time_control", "5400+30")
            .steps("1000 mv e2e4 w\n3000 mv e7e5 b\n4000 offer w\n4500 accept b\n")
            .text(),
    )
    .unwrap();
    let board = run_board(&dir, &cfg, Some(&trace), &["--speed", "1", "--delay", "6"]);
    let public = SseReader::open(&board.addr, "/events", &[]);
    // Undelayed: the draw by agreement, then the arbiter's mistake and its undo.
    poll(30, "the draw on the arbiter's state", || {
        (arbiter_state(&board.addr)["result"] == "1/2-1/2").then_some(())
    });
    let (s, b) = request(
        &board.addr,
        "POST",
        "/arbiter/confirm",
        &[ARBITER_AUTH],
        &json!({"result": "1-0", "reason": "pressed the wrong result"}).to_string(),
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(arbiter_state(&board.addr)["result"], "1-0");
    let (s, b) = request(
        &board.addr,
        "POST",
        "/arbiter/undo",
        &[ARBITER_AUTH],
        &json!({"ruling": 1}).to_string(),
    );
    assert_eq!(s, 200, "{b}");
    let undone_at = Instant::now();
    assert_eq!(arbiter_state(&board.addr)["result"], "1/2-1/2");
    // Everything the public gets until the undo's delay has passed (and 2 s more).
    let mut seen = Vec::new();
    while let Some(left) =
        (undone_at + Duration::from_secs(8)).checked_duration_since(Instant::now())
    {
        match public.rx.recv_timeout(left) {
            Ok((_, v)) => seen.push(v),
            Err(_) => break,
        }
    }
    let texts: Vec<String> = seen.iter().map(Value::to_string).collect();
    assert!(
        seen.iter()
            .any(|v| v["type"] == "state" && v["result"] == "1/2-1/2"),
        "the draw reached the public: {texts:#?}"
    );
    for v in &seen {
        assert_ne!(
            v["result"], "1-0",
            "an intermediate result went public: {v}"
        );
        let t = v.to_string();
        assert!(
            !t.contains("corrected"),
            "an intermediate correction went public: {t}"
        );
    }
    let pgn = get(&board.addr, "/games.pgn");
    assert!(pgn.contains("[Result \"1/2-1/2\"]"), "{pgn}");
    assert!(pgn.contains("[ResultStatus \"provisional\"]"), "{pgn}");
    assert!(!pgn.contains("1-0"), "{pgn}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_result_and_moves_taken_back_within_the_delay_never_reach_the_public() {
    let dir = tempdir("resolved-takeback");
    let cfg = config(&dir, 1, 1, "");
    let trace = dir.join("two.jsonl");
    std::fs::write(
        &trace,
        TraceBuilder::new()
            .header("time_control", "5400+30")
            .steps("1000 mv e2e4 w\n3000 mv e7e5 b\n")
            .text(),
    )
    .unwrap();
    let board = run_board(&dir, &cfg, Some(&trace), &["--speed", "1", "--delay", "6"]);
    let public = SseReader::open(&board.addr, "/events", &[]);
    poll(30, "Black's move on the arbiter's state", || {
        (arbiter_state(&board.addr)["ply"] == 2).then_some(())
    });
    // Undelayed: a result declared by mistake, then the game set back to
    // the position after 1.e4 (a take-back that reopens it).
    let (s, b) = request(
        &board.addr,
        "POST",
        "/arbiter/result",
        &[ARBITER_AUTH],
        &json!({"result": "1-0"}).to_string(),
    );
    assert_eq!(s, 200, "{b}");
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let (s, b) = request(
        &board.addr,
        "POST",
        "/arbiter/position",
        &[ARBITER_AUTH],
        &json!({"fen": after_e4}).to_string(),
    );
    assert_eq!(s, 200, "{b}");
    let taken_at = Instant::now();
    let st = arbiter_state(&board.addr);
    assert_eq!(
        (&st["ply"], &st["result"]),
        (&json!(1), &json!("*")),
        "{st}"
    );
    // Everything the public gets until the take-back's delay has passed
    // (and 2 s more): the take-back's own ruling is the last of it.
    let mut seen = Vec::new();
    while let Some(left) =
        (taken_at + Duration::from_secs(8)).checked_duration_since(Instant::now())
    {
        match public.rx.recv_timeout(left) {
            Ok((_, v)) => seen.push(v),
            Err(_) => break,
        }
    }
    let texts: Vec<String> = seen.iter().map(Value::to_string).collect();
    assert!(
        seen.iter()
            .any(|v| v["type"] == "ruling" && v["action"] == "position"),
        "the take-back reached the public: {texts:#?}"
    );
    for t in &texts {
        assert!(!t.contains("e7e5"), "a move taken back went public: {t}");
        assert!(
            !t.contains("\"1-0\"") && !t.contains("ends 1-0"),
            "an undone result went public: {t}"
        );
    }
    let pgn = get(&board.addr, "/games.pgn");
    assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
    assert!(pgn.contains("1. e4"), "{pgn}");
    assert!(!pgn.contains("e5") && !pgn.contains("1-0"), "{pgn}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The `[[arbiter.accounts]]` of the board and the relay.
fn accounts() -> String {
    format!(
        "[[arbiter.accounts]]\nname = \"IA Hansen\"\nsecret_hash = \"{}\"\n\n\
         [[arbiter.accounts]]\nname = \"Hall relay\"\nrole = \"relay\"\ntoken = \"{RELAY_TOKEN}\"\n",
        secret_hash(SECRET)
    )
}

/// The console's alert of `kind` at `addr`, once it is there.
fn alert_of(addr: &str, cookie: &str, kind: &str) -> Value {
    poll(30, &format!("the {kind} alert at {addr}"), || {
        let (s, _, b) = http(addr, "GET", "/console/alerts", &[("Cookie", cookie)], "");
        assert_eq!(s, 200, "{b}");
        serde_json::from_str::<Value>(&b)
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["type"] == kind)
            .cloned()
    })
}

#[test]
fn a_boards_own_alert_keeps_its_time_at_a_relay_started_later_and_restarted() {
    let dir = tempdir("resolved-alert-time");
    let extra = accounts();
    let cfg = config(&dir, 1, 1, &extra);
    let jdir = dir.join("journal");
    std::fs::create_dir_all(&jdir).unwrap();
    // A damaged ruling-id store: the board alerts its arbiter at its start.
    std::fs::write(
        jdir.join("board.jsonl.rulings"),
        "{\"id\": \"old-1\", \"outcome\": \"pending\"}\n{\"t\": 5, \"lift\": \"e2\"}\n",
    )
    .unwrap();
    let started = unix_ms();
    let board = run_board(&dir, &cfg, None, &["--journal-dir", jdir.to_str().unwrap()]);
    let serving = unix_ms();
    std::thread::sleep(Duration::from_millis(1500));
    let relay_cfg = relay_config(&dir, &extra);
    let state = dir.join("relay-state");
    let relay_args = [
        "relay",
        "--config",
        relay_cfg.to_str().unwrap(),
        "--state-dir",
        state.to_str().unwrap(),
    ];
    let url = format!("http://{}", board.addr);
    let mut args: Vec<&str> = relay_args.to_vec();
    args.push(&url);
    let relay_started = unix_ms();
    let mut relay = spawn(&args, &[], &dir);
    let cookie = login(&relay.addr, "IA Hansen", SECRET);
    let first = alert_of(&relay.addr, &cookie, "journal_alert");
    let when = first["unix_ms"].as_u64().unwrap();
    assert!(
        (started..=serving).contains(&when),
        "dated when the board raised it ({started}..{serving}), not when the relay got it ({relay_started}): {first}"
    );
    // The relay restarts later: the same alert, the same time.
    std::thread::sleep(Duration::from_millis(1500));
    relay.kill();
    let restarted = unix_ms();
    let relay = spawn(&args, &[], &dir);
    let cookie = login(&relay.addr, "IA Hansen", SECRET);
    let again = alert_of(&relay.addr, &cookie, "journal_alert");
    assert_eq!(
        again["unix_ms"].as_u64(),
        Some(when),
        "after the relay's restart at {restarted}: {again}"
    );
    drop(relay);
    drop(board);
    std::fs::remove_dir_all(&dir).ok();
}

/// The 4-board walk-through as an IA: Black touched his knight, played
/// e7-e5, White claimed. The claim upheld takes e7-e5 back; the board's
/// state must say so at once, with the claim as the open matter.
#[test]
fn a_claim_the_board_decided_is_in_its_undelayed_state_at_once() {
    let dir = tempdir("claim-state");
    let cfg = config(&dir, 1, 1, "");
    let trace = dir.join("touch.jsonl");
    let text = TraceBuilder::new()
        .header("time_control", "5400+30")
        .steps("1000 mv e2e4 w\n3000 lift g8\n3300 place g8\n5000 mv e7e5 b\n7000 claim touch_move w\n")
        .text();
    std::fs::write(&trace, text).unwrap();
    let run = run_board(&dir, &cfg, Some(&trace), &["--speed", "1"]);
    // The breach: e7-e5 stands (ply 2), the touch move open.
    poll(30, "the touch-move breach open", || {
        let st = arbiter_state(&run.addr);
        (st["ply"] == 2 && st["open"].to_string().contains("touch_move")).then_some(())
    });
    // The claim (t = 7000 ms) decides it; nothing else happens after it.
    let st = poll(20, "the claim in the state", || {
        let st = arbiter_state(&run.addr);
        st["open"].to_string().contains("\"claim\"").then_some(st)
    });
    assert_eq!(st["ply"], 1, "e7-e5 taken back: {st}");
    let open = st["open"].as_array().unwrap();
    assert_eq!(open.len(), 1, "{st}");
    assert_eq!(open[0]["type"], "claim", "{st}");
    assert_eq!(open[0]["t"], 7000, "{st}");
    assert!(
        open[0]["summary"].as_str().unwrap().contains("upheld"),
        "{st}"
    );
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}
