//! Issue 40.4 / 40.5: the clock corrected by the arbiter. A time control
//! set wrong (without its increment) and installed right in the middle
//! of the game (2023 6.10.2, `time_control`): every later press credits
//! the increment, the PGN's `TimeControl` follows, the clocks of the moves
//! played before stay as they were; an undo gives the old control back.

mod common;

use common::trace::TraceBuilder;
use eboard::broadcast::write_pgn;
use eboard::controller::replay;
use serde_json::json;

/// The `[%clk …]` comments of a PGN, in order.
fn clks(pgn: &str) -> Vec<String> {
    pgn.split("[%clk ")
        .skip(1)
        .map(|s| s.split(']').next().unwrap_or("").to_owned())
        .collect()
}

fn secs(clk: &str) -> i64 {
    let p: Vec<f64> = clk.split(':').map(|x| x.parse().unwrap()).collect();
    (p[0] * 3600.0 + p[1] * 60.0 + p[2]).round() as i64
}

/// The moves e4 e5 Nf3 Nc6 at `5400` (no increment, each move 10 s),
/// then `extra` (the ruling, at 41 s), then Bb5 a6 Ba4 Nf6, each 10 s.
fn game(extra: &[serde_json::Value]) -> TraceBuilder {
    game_with(extra, &[])
}

/// [`game`] with `late` after 4. Ba4.
fn game_with(extra: &[serde_json::Value], late: &[serde_json::Value]) -> TraceBuilder {
    let mut b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "5400"}))
        .mv(0, "e2e4", "w")
        .mv(10_000, "e7e5", "b")
        .mv(20_000, "g1f3", "w")
        .mv(30_000, "b8c6", "b");
    for r in extra {
        b = b.record(r.clone());
    }
    b = b
        .mv(50_000, "f1b5", "w")
        .mv(60_000, "a7a6", "b")
        .mv(70_000, "b5a4", "w");
    for r in late {
        b = b.record(r.clone());
    }
    b.mv(80_000, "g8f6", "b")
}

fn install(t: u64) -> serde_json::Value {
    json!({"t": t, "arbiter": "time_control", "control": "5400+30", "author": "IA Hansen"})
}

#[test]
fn an_increment_installed_after_move_2_credits_every_later_move_and_the_pgn_follows() {
    let (plain, _) = replay(&game(&[]).trace(), None, None).expect("config");
    let before = clks(&write_pgn(&plain));
    let (a, events) = replay(&game(&[install(41_000)]).trace(), None, None).expect("config");
    let applied: Vec<_> = events
        .iter()
        .map(|e| e.to_json())
        .filter(|j| j.contains("\"ruling\"") && j.contains("time_control"))
        .collect();
    assert_eq!(applied.len(), 1, "the ruling is applied: {events:?}");
    assert!(applied[0].contains("5400 → 5400+30"), "{}", applied[0]);
    let pgn = write_pgn(&a);
    assert!(pgn.contains("[TimeControl \"5400+30\"]"), "{pgn}");
    let after = clks(&pgn);
    assert_eq!(after.len(), 8, "{pgn}");
    // The moves played before the ruling keep their clocks.
    assert_eq!(after[..4], before[..4], "{pgn}");
    // Every later move is credited 30 s more than without the ruling.
    for i in 4..8 {
        let gained = secs(&after[i]) - secs(&before[i]);
        let presses = (i - 4) / 2 + 1;
        assert_eq!(
            gained,
            30 * presses as i64,
            "move {i}: {after:?} vs {before:?}"
        );
    }
}

#[test]
fn the_installed_control_undone_gives_the_old_one_back() {
    let undo = json!({"t": 75_000, "arbiter": "undo", "ruling": 1, "author": "IA Hansen"});
    let (plain, _) = replay(&game(&[]).trace(), None, None).expect("config");
    // The undo after 4. Ba4, before 4... Nf6.
    let t = game_with(&[install(41_000)], &[undo]).trace();
    let (a, events) = replay(&t, None, None).expect("config");
    let undone = events
        .iter()
        .map(|e| e.to_json())
        .find(|j| j.contains("undone: time control back to 5400"));
    assert!(undone.is_some(), "{events:?}");
    let pgn = write_pgn(&a);
    assert!(pgn.contains("[TimeControl \"5400\"]"), "{pgn}");
    // After the undo the clocks are as if the control had never changed.
    let (w, b) = a.clock().unwrap().remaining_at(90_000);
    let (pw, pb) = plain.clock().unwrap().remaining_at(90_000);
    assert_eq!((w / 1000, b / 1000), (pw / 1000, pb / 1000));
}
