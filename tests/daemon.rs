//! `eboard run` as a process on loopback: a simulated game through every
//! public feed, the delay, the arbiter API, the illegal move as played, and
//! a kill -9 followed by a restart from the journal.

use crate::common;

use common::*;
use serde_json::Value;
use std::path::Path;

const PUBLIC_TYPES: [&str; 7] = [
    "state",
    "move",
    "clock",
    "flag",
    "game_end",
    "illegal_move",
    "position_restored",
];

fn movetext(pgn: &str) -> &str {
    pgn.split_once("\n\n").map_or("", |(_, m)| m)
}

#[test]
fn a_simulated_game_through_every_feed() {
    let dir = tempdir("feeds");
    let trace = opera_trace(&dir, 1);
    let cfg = config(&dir, 3, 2, "");
    let journal = dir.join("j.jsonl");
    let run = run_board(
        &dir,
        &cfg,
        Some(&trace),
        &["--journal", journal.to_str().unwrap(), "--speed", "100"],
    );
    let public = SseReader::open(&run.addr, "/events", &[]);
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    let pgn = final_pgn(&run.addr);

    // The public stream: the state first, then public events only.
    let msgs = public.until(30, |v| v["type"] == "game_end");
    assert_eq!(msgs[0].1["type"], "state");
    let moves: Vec<&Value> = msgs
        .iter()
        .map(|(_, v)| v)
        .filter(|v| v["type"] == "move")
        .collect();
    for (_, v) in &msgs {
        let ty = v["type"].as_str().unwrap();
        assert!(PUBLIC_TYPES.contains(&ty), "not public: {v}");
        assert_eq!(v["game"], "3.2");
    }
    // Moves seen live continue the state's list without a gap.
    let first_ply = moves.first().map_or(0, |m| m["ply"].as_u64().unwrap());
    let in_state = msgs[0].1["moves"].as_array().unwrap().len() as u64;
    assert!(first_ply <= in_state + 1);
    assert_eq!(moves.last().unwrap()["san"], "Rd8#");
    // The same stream over WebSocket.
    let ws: Value = serde_json::from_str(&ws_messages(&run.addr, 1)[0]).unwrap();
    assert_eq!(ws["type"], "state");
    assert_eq!(ws["moves"].as_array().unwrap().len(), 33);
    // The arbiter's channel has everything, touches too.
    let all = arbiter.until(30, |v| v["type"] == "game_end");
    assert!(all.iter().any(|(_, v)| v["type"] == "touch"));

    // PGN as lichess reads it: round.board, players, clocks on every move.
    assert!(pgn.contains("[Round \"3.2\"]"), "{pgn}");
    if python_chess().is_some() {
        let games = parse_pgn_with_python(&pgn);
        let g = &games[0];
        assert_eq!(g["moves"].as_array().unwrap().len(), 33);
        assert_eq!(g["moves"][32], "Rd8#");
        assert!(g["clocks"].as_array().unwrap().iter().all(Value::is_number));
        let h = &g["headers"];
        assert_eq!(h["Round"], "3.2");
        assert_eq!(h["WhiteFideId"], "9000001");
        assert_eq!(h["WhiteTitle"], "GM");
        assert_eq!(h["BlackFideId"], "9000002");
        assert_eq!(h["Result"], "1-0");
        assert!(h["WhiteClock"].is_string() && h["BlackClock"].is_string());
    } else {
        skip_or_fail_under_ci("the python-chess check: python-chess is not installed");
    }

    // The LiveChess tree.
    let t: Value = serde_json::from_str(&get(&run.addr, "/tournament.json")).unwrap();
    assert_eq!(t["name"], "DM 2026");
    assert_eq!(t["rounds"].as_array().unwrap().len(), 3);
    assert_eq!(t["rounds"][2]["count"], 2);
    let idx: Value = serde_json::from_str(&get(&run.addr, "/round-3/index.json?poll")).unwrap();
    assert_eq!(idx["date"], "2026-04-03");
    let pairings = idx["pairings"].as_array().unwrap();
    assert_eq!(pairings.len(), 2);
    assert!(pairings[0]["white"].is_null());
    assert_eq!(pairings[1]["white"]["lname"], "Morphy");
    assert_eq!(pairings[1]["white"]["fname"], "Paul");
    assert_eq!(pairings[1]["white"]["fideid"], 9000001);
    assert_eq!(pairings[1]["result"], "1-0");
    let g: Value = serde_json::from_str(&get(&run.addr, "/round-3/game-2.json?poll")).unwrap();
    assert_eq!(g["result"], "1-0");
    assert_eq!(g["live"], false);
    assert_eq!(g["chess960"], 518);
    assert!(g["clock"]["white"].is_u64() && g["clock"]["time"].is_u64());
    let lcc_moves = g["moves"].as_array().unwrap();
    assert_eq!(lcc_moves.len(), 33);
    for m in lcc_moves {
        let (san, secs) = m.as_str().unwrap().split_once(' ').expect("SAN seconds");
        assert!(!san.is_empty() && secs.parse::<u64>().is_ok(), "{m}");
    }
    assert_eq!(
        request(&run.addr, "GET", "/round-3/game-1.json", &[], "").0,
        404
    );

    // The journal is a trace: replaying it gives the same moves.
    let replayed = eboard_ok(&["replay", journal.to_str().unwrap(), "--pgn", "-"]);
    assert_eq!(movetext(&replayed), movetext(&pgn));
    let events = std::fs::read_to_string(eboard::journal::events_path(&journal)).unwrap();
    assert!(events.lines().any(|l| l.contains("\"game_end\"")));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_arbiter_api_needs_the_token() {
    let dir = tempdir("arbiter");
    let cfg = config(&dir, 1, 1, "");
    let journal = dir.join("j.jsonl");
    let run = run_board(&dir, &cfg, None, &["--journal", journal.to_str().unwrap()]);
    let a = &run.addr;
    let body = r#"{"result": "1/2-1/2"}"#;
    assert_eq!(request(a, "POST", "/arbiter/result", &[], body).0, 401);
    let wrong = [("Authorization", "Bearer wrong-token")];
    assert_eq!(request(a, "POST", "/arbiter/result", &wrong, body).0, 401);
    assert_eq!(request(a, "GET", "/arbiter/events", &wrong, "").0, 401);
    assert_eq!(request(a, "GET", "/arbiter/state", &[], "").0, 401);
    let right = [ARBITER_AUTH];
    let (s, b) = request(a, "POST", "/arbiter/result", &right, r#"{"result": "2-0"}"#);
    assert_eq!(s, 422, "{b}");
    let big = format!("{{\"fen\": \"{}\"}}", "x".repeat(40_000));
    assert_eq!(request(a, "POST", "/arbiter/position", &right, &big).0, 413);
    // A clock value past any clock (2^63 ms once wrapped the clocks to 0/0
    // and ended the game on time): refused, naming the key; nothing changes.
    let huge = r#"{"white_ms": 9223372036854775808, "black_ms": 60000}"#;
    let (s, b) = request(a, "POST", "/arbiter/clock", &right, huge);
    assert_eq!(s, 422, "{b}");
    assert!(b.contains("white_ms"), "{b}");
    let (s, b) = request(a, "POST", "/arbiter/result", &right, body);
    assert_eq!(s, 200, "{b}");
    let reply: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(reply["author"], "Chief Arbiter");
    assert!(reply["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["type"] == "game_end" && e["result"] == "1/2-1/2"));
    assert_eq!(result_of(&final_pgn(a)).as_deref(), Some("1/2-1/2"));
    let j = std::fs::read_to_string(&journal).unwrap();
    let rec: Value = serde_json::from_str(j.lines().last().unwrap()).unwrap();
    assert_eq!(rec["arbiter"], "result");
    assert_eq!(rec["result"], "1/2-1/2");
    assert_eq!(rec["author"], "Chief Arbiter");
    drop(run);

    // The environment's token wins over the config's.
    let run = spawn(
        &["run", "--config", cfg.to_str().unwrap()],
        &[("EBOARD_ARBITER_TOKEN", "0a1b2c3d4e5f60718293a4b5c6d7e8f9")],
        &dir,
    );
    assert_eq!(
        request(&run.addr, "POST", "/arbiter/pause", &right, "").0,
        401
    );
    let env = [("Authorization", "Bearer 0a1b2c3d4e5f60718293a4b5c6d7e8f9")];
    assert_eq!(
        request(&run.addr, "POST", "/arbiter/pause", &env, "").0,
        200
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Round time (ms) at Unix time `unix` for a feed's state.
fn round_at(state: &Value, unix: u64) -> f64 {
    let start = state["started_at_unix_ms"].as_u64().unwrap();
    (unix.saturating_sub(start)) as f64 * state["speed"].as_f64().unwrap()
}

#[test]
fn the_delay_holds_for_every_public_feed() {
    let dir = tempdir("delay");
    let trace = opera_trace(&dir, 2);
    let cfg = config(&dir, 1, 1, "");
    let (speed, delay_s) = (50.0, 100u64);
    let run = run_board(
        &dir,
        &cfg,
        Some(&trace),
        &["--speed", "50", "--delay", "100"],
    );
    let public = SseReader::open(&run.addr, "/events", &[]);
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    // Sample the polled feeds while the game runs: (unix after, PGN moves, JSON moves).
    let mut samples = Vec::new();
    let pgn = poll(60, "the delayed result", || {
        let pgn = get(&run.addr, "/games.pgn");
        let g: Value = serde_json::from_str(&get(&run.addr, "/round-1/game-1.json")).unwrap();
        let after = unix_ms();
        let n_pgn = pgn.matches("[%clk").count();
        let n_json = g["moves"].as_array().unwrap().len();
        samples.push((after, n_pgn, n_json));
        result_of(&pgn).map(|_| pgn)
    });
    assert!(pgn.contains("Rd8#"));
    let live = arbiter.until(30, |v| v["type"] == "game_end");
    let state = live[0].1.clone();
    assert_eq!(state["delay_ms"], delay_s * 1000);
    let move_t: Vec<u64> = live
        .iter()
        .filter(|(_, v)| v["type"] == "move")
        .map(|(_, v)| v["t"].as_u64().unwrap())
        .collect();
    assert_eq!(move_t.len(), 33);
    let delay_ms = (delay_s * 1000) as f64;
    // Slack for the test's own clock reading: 5 wall ms.
    let slack = 5.0 * speed;
    for (after, n_pgn, n_json) in samples {
        for n in [n_pgn, n_json] {
            if n > 0 {
                let t = move_t[n - 1] as f64;
                assert!(
                    t + delay_ms <= round_at(&state, after) + slack,
                    "move {n} (t {t}) was public at round {} before its delay",
                    round_at(&state, after)
                );
            }
        }
    }
    let pub_moves = public.until(30, |v| v["type"] == "game_end");
    let mut arrivals = 0;
    for (at, v) in &pub_moves {
        if v["type"] == "move" {
            let t = v["t"].as_u64().unwrap() as f64;
            assert!(t + delay_ms <= round_at(&state, *at) + slack, "{v} early");
            arrivals += 1;
        }
    }
    assert!(arrivals > 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_illegal_move_is_published_as_played_and_corrected() {
    let dir = tempdir("illegal");
    let trace = dir.join("t.jsonl");
    let text = TraceBuilder::new()
        .header("time_control", "5400+30")
        .lift(100, "e2")
        .place(300, "e5")
        .press(500, "w")
        .lift(2500, "e5")
        .place(2700, "e2")
        .lift(4500, "e2")
        .place(4700, "e4")
        .press(4900, "w")
        .text();
    std::fs::write(&trace, text).unwrap();
    let cfg = config(&dir, 1, 1, "");
    let run = run_board(&dir, &cfg, Some(&trace), &[]);
    let public = SseReader::open(&run.addr, "/events", &[]);
    let marked = poll(20, "the illegal move in the PGN", || {
        let p = get(&run.addr, "/games.pgn");
        p.contains("Illegal move by White").then_some(p)
    });
    assert!(marked.contains("e2-e5 played"), "{marked}");
    let corrected = poll(20, "the correction", || {
        let p = get(&run.addr, "/games.pgn");
        p.contains("taken back").then_some(p)
    });
    let msgs = public.until(20, |v| v["type"] == "move");
    let illegal = msgs
        .iter()
        .find(|(_, v)| v["type"] == "illegal_move")
        .expect("the illegal move is public");
    assert_eq!(illegal.1["played"], "e2-e5");
    assert!(msgs.iter().any(|(_, v)| v["type"] == "position_restored"));
    let g: Value = serde_json::from_str(&get(&run.addr, "/round-1/game-1.json")).unwrap();
    assert!(g["comment"].as_str().unwrap().contains("Illegal move"));
    if python_chess().is_some() {
        for p in [&marked, &corrected] {
            let games = parse_pgn_with_python(p);
            assert!(games[0]["first_comment"]
                .as_str()
                .unwrap()
                .contains("Illegal move by White"));
        }
    }
    let after = poll(20, "the move after the correction", || {
        let p = get(&run.addr, "/games.pgn");
        p.contains("1. e4").then_some(p)
    });
    assert!(after.contains("taken back"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn kill_9_then_restart_gives_the_same_game() {
    let dir = tempdir("kill");
    let trace = opera_trace(&dir, 3);
    // The wall clock is trusted as kept (`rtc`): the downtime is charged
    // and the game goes on by itself. (With the default `ntp`, a host whose
    // kernel says "not synchronised" stops the clocks for the arbiter.)
    let cfg = config(&dir, 1, 4, "\n[clock]\nwall_clock = \"rtc\"\n");
    let extra = |journal: &Path| journal_args(journal, 30);

    // The reference: the same trace, uninterrupted.
    let ja = dir.join("a.jsonl");
    let run = run_board(&dir, &cfg, Some(&trace), &refs(&extra(&ja)));
    let reference = final_pgn(&run.addr);
    drop(run);

    // Killed at a random record of the game (once the journal has it), a
    // torn line added, restarted.
    let records = std::fs::read_to_string(&ja).unwrap().lines().count() as u64;
    let kill_after = 2 + (unix_ms() * 7919) % (records - 2);
    let jb = dir.join("b.jsonl");
    let mut run = run_board(&dir, &cfg, Some(&trace), &refs(&extra(&jb)));
    poll(30, "the record to kill at", || {
        let n = std::fs::read_to_string(&jb).ok()?.lines().count() as u64;
        (n >= kill_after).then_some(())
    });
    run.kill();
    drop(run);
    let mut f = std::fs::OpenOptions::new().append(true).open(&jb).unwrap();
    std::io::Write::write_all(&mut f, b"{\"t\": 99").unwrap();
    drop(f);
    let run = run_board(&dir, &cfg, Some(&trace), &refs(&extra(&jb)));
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    // Right after the restart the delay still holds.
    let restarted_pgn = get(&run.addr, "/games.pgn");
    let seen = unix_ms();
    let msgs = arbiter.until(20, |v| v["kind"] == "downtime");
    let downtime = &msgs.last().unwrap().1;
    assert_eq!(downtime["type"], "irregularity");
    assert!(downtime["downtime_ms"].as_u64().unwrap() > 0);
    assert!(downtime["torn_line"].as_u64().is_some(), "{downtime}");
    let state = &msgs[0].1;
    let events_a = std::fs::read_to_string(eboard::journal::events_path(&ja)).unwrap();
    let move_t: Vec<f64> = events_a
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "move")
        .map(|v| v["t"].as_f64().unwrap())
        .collect();
    let n = restarted_pgn.matches("[%clk").count();
    if n > 0 {
        assert!(move_t[n - 1] + 30_000.0 <= round_at(state, seen) + 500.0);
    }
    let resumed = final_pgn(&run.addr);
    assert_eq!(resumed, reference, "killed after record {kill_after}");
    let err = std::fs::read_to_string(&run.stderr).unwrap();
    assert!(err.contains("torn last line"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn config_errors_name_the_file_line_and_key() {
    let dir = tempdir("config");
    let p = dir.join("bad.toml");
    std::fs::write(
        &p,
        "[event]\nname = \"x\"\n\n[clock]\ndevise = \"dgt3000\"\n",
    )
    .unwrap();
    let out = eboard(&["run", "--config", p.to_str().unwrap()]);
    // EX_CONFIG: the unit does not restart it (RestartPreventExitStatus=78).
    assert_eq!(out.status.code(), Some(78));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:5: key 'clock.devise'"), "{err}");
    assert!(err.contains("device"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A recording whose header contradicts the config (`event.time_control`
/// 5400+30, the trace's `time_control` 300+0): the config's used to win
/// silently while the trace's `start_fen` was used. Refused at the start
/// (exit 78) naming both values, the config's file, line and key and the
/// trace's file and header key; without the config's key the game runs
/// under the trace's 300+0.
#[test]
fn a_trace_header_that_contradicts_the_config_is_refused_naming_both() {
    let dir = tempdir("trace-header-conflict");
    let cfg = config(&dir, 1, 1, "");
    let trace = steps_trace(&dir, "blitz", "300+0", "1000 mv e2e4 w\n");
    let out = eboard_run(&cfg, &["--trace", trace.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(78), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    for want in [
        "board1.toml:",
        "event.time_control = \"5400+30\"",
        "blitz.jsonl",
        "'time_control' = \"300+0\"",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    // The config's key removed: the trace's time control is the game's.
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("time_control = \"5400+30\"\n", "");
    std::fs::write(&cfg, text).unwrap();
    let run = run_board(&dir, &cfg, Some(&trace), &[]);
    let a = run.addr.clone();
    let st = poll(20, "the game's state", || {
        let (s, _, b) = http(&a, "GET", "/arbiter/state", &[ARBITER_AUTH], "");
        let v: Value = serde_json::from_str(&b).ok()?;
        (s == 200 && v[0]["state"]["clock"]["white_ms"].is_u64()).then(|| v[0]["state"].clone())
    });
    assert!(
        st["clock"]["white_ms"].as_u64().unwrap() <= 300_000,
        "the trace's 300+0: {st}"
    );
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stuck_clients_do_not_hold_up_the_board() {
    use std::io::Write;
    let dir = tempdir("stuck");
    let trace = opera_trace(&dir, 4);
    // All 200 from one address held (no per-address limit, as behind a
    // local proxy): the board loop must not depend on the listener's limits.
    let cfg = config(&dir, 1, 1, "\n[server]\nmax_connections_per_address = 0\n");
    let run = run_board(&dir, &cfg, Some(&trace), &["--speed", "100"]);
    let started = std::time::Instant::now();
    // Clients that subscribe and never read, and clients that never finish
    // their request.
    let mut stuck = Vec::new();
    for i in 0..200 {
        let mut s = std::net::TcpStream::connect(&run.addr).unwrap();
        let req = if i % 4 == 0 {
            "GET /events HTTP/1.1\r\nHost: x\r\nX-Slow: ".to_owned()
        } else {
            format!(
                "GET /{} HTTP/1.1\r\nHost: x\r\n\r\n",
                if i % 2 == 0 { "events" } else { "ws" }
            )
        };
        s.write_all(req.as_bytes()).unwrap();
        stuck.push(s);
    }
    let reader = SseReader::open(&run.addr, "/events", &[]);
    let msgs = reader.until(30, |v| v["type"] == "game_end");
    // The game (276 s of round time at ×100) ends on time.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert!(msgs.iter().any(|(_, v)| v["type"] == "move"));
    assert!(result_of(&get(&run.addr, "/games.pgn")).is_some());
    drop(stuck);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn standard_input_is_a_source() {
    let dir = tempdir("stdin");
    let trace = std::fs::read_to_string(opera_trace(&dir, 5)).unwrap();
    let cfg = config(&dir, 1, 1, "");
    // The server is up before the first line arrives.
    let run = spawn_with_input(
        &["run", "--config", cfg.to_str().unwrap(), "--speed", "100"],
        &[],
        &dir,
        Some(trace),
    );
    let pgn = final_pgn(&run.addr);
    assert!(pgn.contains("Rd8#"), "{pgn}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A Pi has no real-time clock: after a reboot its wall clock may have
/// jumped (here the journal's start moved an hour back, which is what a
/// jump forward looks like, and the heartbeats' boot is another one). The
/// round goes on from the journal's last time: the 900 s delay still holds
/// back every move, and no clock is charged an hour (10 min each: a flag).
/// The source is a recording, whose records carry their own times: nothing
/// was lost, so the clocks need no pause (`tests/restart_pause.rs` has a
/// live source's).
#[test]
fn a_wall_clock_jump_on_restart_releases_nothing_early_and_forfeits_no_one() {
    let dir = tempdir("clockjump");
    let trace = opera_trace(&dir, 5);
    let cfg = config(&dir, 1, 5, "");
    common::round::event_keys(&cfg, "600+0", "");
    let journal = dir.join("j.jsonl");
    let args = journal_speed_delay(&journal, "50", "900");
    let mut run = run_board(&dir, &cfg, Some(&trace), &refs(&args));
    let events = eboard::journal::events_path(&journal);
    poll(60, "the game's moves journaled", || {
        let text = std::fs::read_to_string(&events).unwrap_or_default();
        (text.matches("\"type\":\"move\"").count() >= 10).then_some(())
    });
    run.kill();
    drop(run);
    // The wall clock jumped: the journal's start now lies an hour further back.
    shift_journal_start(&journal, 3_600_000);
    // Another boot wrote the heartbeats.
    let beats: String = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if let Some(id) = v["boot_id"].as_str() {
                v["boot_id"] = Value::from(format!("another-boot-{id}"));
            }
            sealed_event_line(&v)
        })
        .collect();
    std::fs::write(&events, beats).unwrap();

    let run = run_board(&dir, &cfg, Some(&trace), &refs(&args));
    let public = get(&run.addr, "/games.pgn");
    assert!(!public.contains("1. e4"), "released early: {public}");
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    let msgs = arbiter.until(20, |v| v["kind"] == "downtime");
    let downtime = &msgs.last().unwrap().1;
    assert_eq!(downtime["measured_by"], "none", "{downtime}");
    assert_eq!(downtime["clocks_stopped"], false, "{downtime}");
    assert!(
        downtime["wall_gap_ms"].as_i64().unwrap() >= 3_500_000,
        "{downtime}"
    );
    assert!(
        downtime["downtime_ms"].as_u64().unwrap() < 60_000,
        "no hour of round time: {downtime}"
    );
    let journaled = std::fs::read_to_string(&events).unwrap();
    assert!(
        !journaled.contains("\"type\":\"flag\""),
        "no flag: {journaled}"
    );
    // The recording goes on: more moves after the restart.
    poll(60, "the game goes on after the restart", || {
        let text = std::fs::read_to_string(&events).unwrap_or_default();
        (text.matches("\"type\":\"move\"").count() >= 14).then_some(())
    });
    std::fs::remove_dir_all(&dir).ok();
}
