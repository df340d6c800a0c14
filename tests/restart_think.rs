//! A restart measured from the moment the daemon stopped (issue 25, point
//! 8), through the real binary in real time: the daemon is killed 42 s into
//! Black's think and restarted at once. The journal's events file holds a
//! `heartbeat` line every 2 s of a running game (`docs/journal.md`), so the
//! restart measures its downtime from the last of them, not from the last
//! move 42 s earlier: the gap is trusted, the clocks run on (Black is
//! charged his whole think, the downtime included), and the moves already
//! public stay public on every feed (main before issue 25: an untrusted
//! 42 s gap, round time rewound to the last move, the five public moves
//! withdrawn from the feed, the clocks stopped for the arbiter).

mod common;

use common::*;
use serde_json::Value;

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
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, text.replace("5400+30", "600+0")).unwrap();
    let journal = dir.join("j.jsonl");
    let args = [
        "--journal",
        journal.to_str().unwrap(),
        "--speed",
        "1",
        "--delay",
        "10",
    ];
    let mut run = run_board(&dir, &cfg, Some(&trace), &args);
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
    run.kill();
    drop(run);

    let run = run_board(&dir, &cfg, Some(&trace), &args);
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
