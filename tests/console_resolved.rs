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

use crate::common;

use common::console::*;
use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

#[test]
fn a_result_corrected_and_undone_within_the_delay_never_reaches_the_public() {
    let dir = tempdir("resolved-delay");
    let cfg = config(&dir, 1, 1, "");
    let trace = steps_trace(
        &dir,
        "draw",
        TIME_CONTROL,
        "1000 mv e2e4 w\n3000 mv e7e5 b\n4000 offer w\n4500 accept b\n",
    );
    let board = run_board(&dir, &cfg, Some(&trace), &["--speed", "1", "--delay", "6"]);
    let public = SseReader::open(&board.addr, "/events", &[]);
    // Undelayed: the draw by agreement, then the arbiter's mistake and its undo.
    poll(30, "the draw on the arbiter's state", || {
        (board_state(&board.addr)["result"] == "1/2-1/2").then_some(())
    });
    let (s, b) = request(
        &board.addr,
        "POST",
        "/arbiter/confirm",
        &[ARBITER_AUTH],
        &json!({"result": "1-0", "reason": "pressed the wrong result"}).to_string(),
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(board_state(&board.addr)["result"], "1-0");
    let (s, b) = request(
        &board.addr,
        "POST",
        "/arbiter/undo",
        &[ARBITER_AUTH],
        &json!({"ruling": 1}).to_string(),
    );
    assert_eq!(s, 200, "{b}");
    let undone_at = Instant::now();
    assert_eq!(board_state(&board.addr)["result"], "1/2-1/2");
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
    let trace = steps_trace(
        &dir,
        "two",
        TIME_CONTROL,
        "1000 mv e2e4 w\n3000 mv e7e5 b\n",
    );
    let board = run_board(&dir, &cfg, Some(&trace), &["--speed", "1", "--delay", "6"]);
    let public = SseReader::open(&board.addr, "/events", &[]);
    poll(30, "Black's move on the arbiter's state", || {
        (board_state(&board.addr)["ply"] == 2).then_some(())
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
    let st = board_state(&board.addr);
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

/// The console's alert of `kind` at `addr`, once it is there.
fn alert_of(addr: &str, cookie: &str, kind: &str) -> Value {
    poll(30, &format!("the {kind} alert at {addr}"), || {
        console_alerts(addr, ("Cookie", cookie), kind, None)
            .into_iter()
            .next()
    })
}

#[test]
fn a_boards_own_alert_keeps_its_time_at_a_relay_started_later_and_restarted() {
    let dir = tempdir("resolved-alert-time");
    let extra = accounts(false);
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
    let relay_spec = HttpRelay::new(&dir, &extra, &board_urls(&[&board]));
    let relay_started = unix_ms();
    let mut relay = relay_spec.start();
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
    let relay = relay_spec.start();
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
        let st = board_state(&run.addr);
        (st["ply"] == 2 && st["open"].to_string().contains("touch_move")).then_some(())
    });
    // The claim (t = 7000 ms) decides it; nothing else happens after it.
    let st = poll(20, "the claim in the state", || {
        let st = board_state(&run.addr);
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

/// Issue 24 §1, rulings 2–5 moves late: a claim the board decided, then
/// two and three moves; an illegal move, the position put back by the
/// players, then five moves. The arbiter's ruling made from the alert (its
/// `expect`: the ply and the event he saw) is refused 409, the reason
/// naming how long ago it was decided; journaled (the `arbiter` record
/// with its `expect`), never given (no ruling in the board's history), and
/// the alert is no longer open.
#[test]
fn rulings_two_three_and_five_moves_late_are_refused_in_words() {
    let dir = tempdir("resolved-late");
    let claim = "1000 mv g1f3 w\n2000 claim threefold b\n3000 mv g8f6 b\n4000 mv f3g1 w\n";
    let cases = [
        // (steps, plies at the end, action, what the arbiter saw, the reason)
        (
            claim.to_owned(),
            3,
            "overrule",
            json!({"ply": 1, "event": {"type": "claim", "t": 2000}}),
            "the claim was decided two moves ago",
        ),
        (
            format!("{claim}5000 mv f6g8 b\n"),
            4,
            "overrule",
            json!({"ply": 1, "event": {"type": "claim", "t": 2000}}),
            "the claim was decided three moves ago",
        ),
        (
            "1000 lift e2\n1200 place e5\n1400 press w\n2000 lift e5\n2200 place e2\n\
             3000 mv e2e4 w\n4000 mv e7e5 b\n5000 mv g1f3 w\n6000 mv b8c6 b\n7000 mv f1c4 w\n"
                .to_owned(),
            5,
            "restore",
            json!({"ply": 0, "event": {"type": "illegal_move", "t": 1400}}),
            "the illegal move was decided five moves ago",
        ),
    ];
    let round = Round::start(&dir, "", cases.len(), |t| {
        let trace = steps_trace(&t.dir, "late", TIME_CONTROL, &cases[t.n as usize - 1].0);
        t.run(Some(&trace), "1", true)
    });
    let boards: Vec<_> = round
        .boards
        .iter()
        .zip(round.tables.iter().map(|t| &t.journal))
        .collect();
    for ((board, journal), (_, plies, action, expect, reason)) in boards.iter().zip(&cases) {
        let st = poll(30, &format!("{plies} plies on the board"), || {
            let st = board_state(&board.addr);
            (st["ply"] == *plies).then_some(st)
        });
        assert!(
            !st["open"]
                .to_string()
                .contains(&format!("\"t\":{}", expect["event"]["t"])),
            "the alert is no longer open: {st}"
        );
        let (s, b) = request(
            &board.addr,
            "POST",
            &format!("/arbiter/{action}"),
            &[ARBITER_AUTH],
            &json!({ "expect": expect }).to_string(),
        );
        assert_eq!(s, 409, "{b}");
        let v: Value = serde_json::from_str(&b).unwrap();
        assert_eq!(v["error"], *reason, "{v}");
        assert_eq!(v["refused"]["type"], "ruling_refused", "{v}");
        assert_eq!(v["refused"]["status"], 409, "{v}");
        assert_eq!(v["refused"]["reason"], *reason, "{v}");
        let st = board_state(&board.addr);
        assert_eq!(st["rulings"], json!([]), "never given: {st}");
        assert_eq!(st["ply"], *plies, "{st}");
        let recs = journal_records(journal);
        let rec = recs
            .iter()
            .find(|r| r["arbiter"] == *action)
            .unwrap_or_else(|| panic!("journaled: {recs:?}"));
        assert_eq!(rec["expect"], *expect, "{rec}");
    }
    drop(round);
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 24 §8 (the relay's own alerts): a board restarted is one
/// `board_offline` alert, closed (`resolved`) when the board is back
/// online, with no other alert of its own; the relay restarted shows it
/// again, closed, at its own time.
#[test]
fn a_board_restart_is_one_offline_alert_closed_when_back_and_kept_by_a_relay_restart() {
    let dir = tempdir("resolved-offline");
    let extra = accounts(false);
    let table = Table::new(&dir, 1, &extra);
    let d = &table.dir;
    let t = table.trace(TIME_CONTROL, "1000 mv e2e4 w\n3000 mv e7e5 b\n");
    let addr = free_loopback_addr();
    let board_args = run_args(&table.cfg, Some(&t), Some(&table.journal), &[]);
    let board_args = refs(&board_args);
    let mut board = spawn_at(&board_args, &addr, d);
    let relay_spec = HttpRelay::new(&dir, &extra, &[format!("http://{addr}")]);
    let mut relay = relay_spec.start();
    let cookie = login(&relay.addr, "IA Hansen", SECRET);
    let game_alerts = |relay: &str, cookie: &str| -> Vec<Value> {
        let (s, v) = get_json(relay, "/console/alerts", ("Cookie", cookie));
        assert_eq!(s, 200, "{v}");
        let all = v.as_array().unwrap().iter();
        all.filter(|a| a["game"] == "1.1").cloned().collect()
    };
    poll(30, "both moves at the relay", || {
        let (s, _, b) = http(
            &relay.addr,
            "GET",
            "/arbiter/state",
            &[("Cookie", &cookie)],
            "",
        );
        (s == 200 && b.contains("e7e5")).then_some(())
    });
    board.kill();
    let offline = poll(30, "the offline alert", || {
        game_alerts(&relay.addr, &cookie)
            .into_iter()
            .find(|a| a["type"] == "board_offline")
    });
    assert!(offline["resolved"].is_null(), "{offline}");
    let when = offline["unix_ms"].as_u64().unwrap();
    // Back from its journal (the game as it stood; no trace played again).
    let resumed_args = [&board_args[..3], &board_args[5..]].concat();
    let board = spawn_at(&resumed_args, &addr, d);
    let closed = poll(30, "the offline alert closed", || {
        game_alerts(&relay.addr, &cookie)
            .into_iter()
            .find(|a| a["type"] == "board_offline" && a["resolved"].is_object())
    });
    assert!(
        closed["resolved"]["how"]
            .as_str()
            .unwrap()
            .starts_with("back online after"),
        "{closed}"
    );
    // The board's state again at the relay (its journal resumed): the
    // restart left one alert, closed, and nothing else to look at.
    poll(30, "the board followed again", || {
        let (s, _, b) = http(
            &relay.addr,
            "GET",
            "/arbiter/state",
            &[("Cookie", &cookie)],
            "",
        );
        (s == 200 && b.contains("e7e5")).then_some(())
    });
    // The relay's view of the restart: one alert, closed (the board's own
    // alert of its downtime, an irregularity, is the board's word).
    let only_offline = |all: Vec<Value>| {
        let offline: Vec<&Value> = all
            .iter()
            .filter(|a| a["type"] == "board_offline")
            .collect();
        assert_eq!(offline.len(), 1, "one alert for the restart: {all:#?}");
        let others: Vec<&Value> = all
            .iter()
            .filter(|a| a["type"] != "board_offline")
            .filter(|a| !(a["type"] == "irregularity" && a["event"]["kind"] == "downtime"))
            .collect();
        assert!(others.is_empty(), "{all:#?}");
    };
    only_offline(game_alerts(&relay.addr, &cookie));
    let open_offline = |relay: &str, cookie: &str| -> Vec<Value> {
        let (_, _, b) = http(relay, "GET", "/console/alerts", &[("Cookie", cookie)], "");
        serde_json::from_str::<Value>(&b)
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["type"] == "board_offline" && a["resolved"].is_null())
            .cloned()
            .collect()
    };
    // Also one seen before the relay knew the board's game (the relay
    // started first): closed by the board's return.
    let open = open_offline(&relay.addr, &cookie);
    assert!(open.is_empty(), "{open:#?}");
    // The relay restarted: the same alert, closed, at its own time.
    relay.kill();
    let relay = relay_spec.start();
    let cookie = login(&relay.addr, "IA Hansen", SECRET);
    let again = poll(30, "the offline alert after the relay's restart", || {
        game_alerts(&relay.addr, &cookie)
            .into_iter()
            .find(|a| a["type"] == "board_offline")
    });
    assert_eq!(again["unix_ms"].as_u64(), Some(when), "{again}");
    assert_eq!(again["resolved"], closed["resolved"], "{again}");
    assert_eq!(again["key"], closed["key"], "{again}");
    only_offline(game_alerts(&relay.addr, &cookie));
    let open = open_offline(&relay.addr, &cookie);
    assert!(open.is_empty(), "{open:#?}");
    drop((board, relay));
    std::fs::remove_dir_all(&dir).ok();
}
