//! Real games replayed with their real timing (`[%clk]` of the lichess
//! games): every `clock` event must equal an independent model of the time
//! control to the millisecond, and the PGN's own clock readings.

use crate::common;

use common::{simulate_occupancy, skip_or_fail_under_ci};
use eboard::controller::replay;
use eboard::pgn::read_games;
use eboard::trace::{EventKind, RecordKind};
use std::path::PathBuf;

#[test]
fn lichess_clocks_to_the_millisecond() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/pgn/lichess_db_2025-05_438games.pgn");
    let Ok(text) = std::fs::read_to_string(&path) else {
        skip_or_fail_under_ci(&format!("{} absent", path.display()));
        return;
    };
    let games = read_games(&text).unwrap();
    let (mut events_checked, mut pgn_checked, mut games_checked) = (0, 0, 0);
    for (i, g) in games.iter().enumerate() {
        let Some(tc) = g.tag("TimeControl") else {
            continue;
        };
        let Some((base, inc)) = tc.split_once('+') else {
            continue;
        };
        let (Ok(base), Ok(inc)) = (base.parse::<i64>(), inc.parse::<i64>()) else {
            continue;
        };
        if g.moves.iter().any(|m| m.clk_ms.is_none()) {
            continue;
        }
        let trace = simulate_occupancy(g, i as u64);
        let presses: Vec<(u64, bool)> = trace
            .records
            .iter()
            .filter_map(|r| match r.kind {
                RecordKind::Press(c) => Some((r.t, c.is_white())),
                _ => None,
            })
            .collect();
        // Lichess (online style): both sides start at the base.
        let want = common::clock::fischer(base * 1000, inc * 1000, &presses);
        let (arbiter, events) = replay(&trace, None, None).unwrap();
        let clocks: Vec<(i64, i64)> = events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Clock { white_ms, black_ms } => Some((white_ms as i64, black_ms as i64)),
                _ => None,
            })
            .collect();
        // One clock event per completed move (a mating move made without a
        // press stops the clocks instead: its event is not a press).
        for (k, (got, want)) in clocks.iter().zip(&want).enumerate() {
            assert_eq!(got, want, "game {} ply {}", i + 1, k + 1);
            events_checked += 1;
        }
        // Where the simulator could keep every move inside the time left, the
        // replayed clock shows the PGN's [%clk] after each move.
        for (k, m) in arbiter.moves().iter().enumerate() {
            let clk = g.moves[k].clk_ms.unwrap() as i64;
            // The time before this move on the replayed clock (lichess can
            // add time to a clock, "+15 s", which no press explains).
            let prev = if k >= 2 {
                arbiter.moves()[k - 2].clock_ms.unwrap() as i64
            } else {
                base * 1000
            };
            if prev - clk + inc * 1000 >= 0 && clk - inc * 1000 >= 1 && k < presses.len() {
                assert_eq!(
                    m.clock_ms.unwrap() as i64,
                    clk,
                    "game {} ply {}: [%clk]",
                    i + 1,
                    k + 1
                );
                pgn_checked += 1;
            }
        }
        games_checked += 1;
    }
    println!(
        "{games_checked} games, {events_checked} clock events, {pgn_checked} [%clk] readings equal"
    );
    assert!(games_checked > 400 && events_checked > 25_000 && pgn_checked > 20_000);
}
