//! A restart measured from the moment the daemon stopped (issue 25, point
//! 8), through the real binary in real time: the daemon is killed 42 s into
//! Black's think and restarted at once. The journal's events file holds a
//! `heartbeat` line every 2 s of a running game (`docs/journal.md`), so the
//! restart measures its downtime from the last of them, not from the last
//! move 42 s earlier: the gap is trusted, the clocks run on (Black is
//! charged his whole think, the downtime included), and the moves already
//! public stay public on every feed — the PGN, the LiveChess JSON,
//! `/boards.json`, the SSE `/events` (a new client and one resumed from
//! its last id across the kill) and the WebSocket `/ws` (main before
//! issue 25: an untrusted
//! 42 s gap, round time rewound to the last move, the five public moves
//! withdrawn from the feed, the clocks stopped for the arbiter).

use crate::common;

use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// 1. e4 e5 2. Nf3 Nc6 3. Bc4 by 5.6 s; Black thinks until 60.6 s: Bc5.
const TRACE: &str = r#"{"trace": 1}
{"t": 1000, "lift": "e2"}
{"t": 1300, "place": "e4"}
{"t": 1600, "press": "w"}
{"t": 2000, "lift": "e7"}
{"t": 2300, "place": "e5"}
{"t": 2600, "press": "b"}
{"t": 3000, "lift": "g1"}
{"t": 3300, "place": "f3"}
{"t": 3600, "press": "w"}
{"t": 4000, "lift": "b8"}
{"t": 4300, "place": "c6"}
{"t": 4600, "press": "b"}
{"t": 5000, "lift": "f1"}
{"t": 5300, "place": "c4"}
{"t": 5600, "press": "w"}
{"t": 60000, "lift": "f8"}
{"t": 60300, "place": "c5"}
{"t": 60600, "press": "b"}
"#;

#[test]
fn a_kill_during_a_42_s_think_and_a_quick_restart_is_trusted_and_charged() {
    let dir = tempdir("think");
    let trace = dir.join("think.jsonl");
    std::fs::write(&trace, TRACE).unwrap();
    // 600+0; the wall clock kept (`rtc`), as on a board with a real-time
    // clock: the 30 s bound alone decides.
    let cfg = config(&dir, 1, 6, "\n[clock]\nwall_clock = \"rtc\"\n");
    common::round::event_keys(&cfg, "600+0", "");
    let journal = dir.join("j.jsonl");
    let args = journal_speed_delay(&journal, "1", "10");
    let mut run = run_board(&dir, &cfg, Some(&trace), &refs(&args));
    // 42 s into Black's think (it began at 5.6 s): the last heartbeat
    // journaled at 47.6 s of round time or later.
    let events = eboard::journal::events_path(&journal);
    poll(80, "a heartbeat 42 s into the think", || {
        let text = std::fs::read_to_string(&events).ok()?;
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .any(|v| v["type"] == "heartbeat" && v["t"].as_u64() >= Some(47_600))
            .then_some(())
    });
    let public_before = get(&run.addr, "/games.pgn");
    assert!(public_before.contains("3. Bc4"), "{public_before}");
    assert_eq!(public_moves(&run.addr), (5, true), "public before the kill");
    // A spectator's SSE stream before the kill: its state holds the five
    // moves; the id it read last is resumed from after the restart.
    let before = sse(&run.addr, None);
    let (last_id, state) = before
        .recv_timeout(Duration::from_secs(10))
        .expect("a state");
    assert_eq!(state_moves(&state), Some(5), "{state}");
    let mut last_id = last_id.expect("an SSE id");
    while let Ok((id, _)) = before.try_recv() {
        last_id = id.unwrap_or(last_id);
    }
    run.kill();
    drop(run);

    let run = run_board(&dir, &cfg, Some(&trace), &refs(&args));
    // Every public stream opened at once (a new SSE client, one resumed
    // from its last id, a WebSocket) must never withdraw a move published
    // (issue 25.8: "moves already public are never withdrawn from any feed").
    let streams = [
        ("/events", sse(&run.addr, None)),
        ("/events resumed", sse(&run.addr, Some(&last_id))),
        ("/ws", ws(&run.addr)),
    ];
    // Public at once: the five moves are never withdrawn.
    let public = get(&run.addr, "/games.pgn");
    assert!(
        public.contains("3. Bc4"),
        "withdrawn after the restart: {public}"
    );
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    let msgs = arbiter.until(20, |v| v["kind"] == "downtime");
    let downtime = &msgs.last().unwrap().1;
    assert_eq!(downtime["clocks_stopped"], false, "trusted: {downtime}");
    assert!(
        downtime["downtime_ms"].as_u64().unwrap() < 5_000,
        "measured from the last heartbeat: {downtime}"
    );
    // Black's move completes on the running clock: 1 + 1 + 55 s used.
    // Every feed keeps the five moves until Bc5 joins them: the PGN, the
    // LiveChess game, the relay's snapshots (`/boards.json`).
    let pgn = poll(40, "Bc5 in the PGN", || {
        let (n, boards) = public_moves(&run.addr);
        assert!(
            n >= 5 && boards,
            "withdrawn after the restart: {n} moves, boards {boards}"
        );
        let p = get(&run.addr, "/games.pgn");
        assert!(p.contains("3. Bc4"), "withdrawn after the restart: {p}");
        p.contains("Bc5").then_some(p)
    });
    let fresh = get(&run.addr, "/games.pgn");
    assert!(fresh.contains("3. Bc4"), "{fresh}");
    // Bc5 is public: each stream has it by now (bounded waits), and no
    // message before it withdrew a move: every state holds the five moves
    // (1. e4 … 3. Bc4 in order) and every `move` continues after them.
    for (name, rx) in streams {
        let mut seen = 5u64;
        let mut resumed_state = false;
        let end = Instant::now() + Duration::from_secs(15);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let (_, v) = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("{name}: Bc5 never came"));
            match v["type"].as_str() {
                Some("state") => {
                    let n = state_moves(&v).unwrap_or(0);
                    assert!(n >= seen, "{name} withdrew moves ({seen} → {n}): {v}");
                    assert_eq!(v["moves"][4]["san"], "Bc4", "{name}: {v}");
                    resumed_state |= name.ends_with("resumed");
                    seen = n;
                }
                Some("move") => {
                    let ply = v["ply"].as_u64().unwrap_or(0);
                    assert!(ply > seen, "{name}: ply {ply} again after {seen}: {v}");
                    seen = ply;
                    if v["san"] == "Bc5" {
                        break;
                    }
                }
                _ => {}
            }
        }
        // The id read before the kill is resumed from: no states again.
        assert!(!resumed_state, "{name}: not resumed, the states sent again");
        assert_eq!(seen, 6, "{name}");
    }
    assert!(
        pgn.contains("Bc5 {[%clk 0:09:03]}"),
        "Black charged his whole think: {pgn}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The moves public on the LiveChess game (`/round-1/game-6.json`), and
/// whether the relay's snapshots (`/boards.json`) hold 3. Bc4.
fn public_moves(addr: &str) -> (usize, bool) {
    let g: Value = serde_json::from_str(&get(addr, "/round-1/game-6.json")).unwrap_or_default();
    let n = g["moves"].as_array().map_or(0, Vec::len);
    (n, get(addr, "/boards.json").contains("Bc4"))
}

/// The number of moves in a `state` message of game 1.6.
fn state_moves(v: &Value) -> Option<u64> {
    (v["type"] == "state" && v["game"] == "1.6")
        .then(|| v["moves"].as_array().map_or(0, |m| m.len() as u64))
}

/// The public SSE stream (`/events`), from `last_id` when given
/// (`Last-Event-ID`): each message with its `id:`, read on a thread.
fn sse(addr: &str, last_id: Option<&str>) -> Receiver<(Option<String>, Value)> {
    let mut s = TcpStream::connect(addr).expect("connect");
    let resume = last_id.map_or(String::new(), |id| format!("Last-Event-ID: {id}\r\n"));
    let req = format!(
        "GET /events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n{resume}\r\n"
    );
    s.write_all(req.as_bytes()).unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(s);
        let (mut line, mut id) = (String::new(), None);
        while r.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
            let l = line.trim_end();
            if let Some(i) = l.strip_prefix("id: ") {
                id = Some(i.to_owned());
            } else if let Some(d) = l.strip_prefix("data: ") {
                if let Ok(v) = serde_json::from_str(d) {
                    if tx.send((id.take(), v)).is_err() {
                        break;
                    }
                }
            }
            line.clear();
        }
    });
    rx
}

/// The WebSocket (`/ws`): each text frame's JSON, read on a thread that
/// answers the server's pings (RFC 6455 §5.5.2; client frames masked).
fn ws(addr: &str) -> Receiver<(Option<String>, Value)> {
    let mut s = TcpStream::connect(addr).expect("connect");
    let req = format!(
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut out = s.try_clone().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(s);
        let mut line = String::new();
        while r.read_line(&mut line).map(|n| n > 2).unwrap_or(false) {
            line.clear();
        }
        while let Some((opcode, payload)) = ws_frame(&mut r) {
            match opcode {
                1 => {
                    let v = serde_json::from_slice(&payload).unwrap_or_default();
                    if tx.send((None, v)).is_err() {
                        return;
                    }
                }
                9 => {
                    // A pong with the ping's payload, masked with key 0.
                    let mut f = vec![0x8a, 0x80 | payload.len() as u8, 0, 0, 0, 0];
                    f.extend_from_slice(&payload);
                    let _ = out.write_all(&f);
                }
                8 => return,
                _ => {}
            }
        }
    });
    rx
}
