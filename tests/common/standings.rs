//! Round 3 of the 13-player Swiss `tests/data/standings-open-2026.trf` on
//! six real boards, each configured by `eboard event --out --base` (the
//! board order and players the standings map back: FIDE Swiss order, 2-6,
//! 4-9, 1-8, 5-3, 13-7, 10-12), and an HTTP relay over them that knows the
//! pairings (`[arbiter] pairings`): for `/standings.json` and `/hall`.
//! `docs/event.md`, "Standings", has the hand-computed table after round 3.

use super::console::{board_urls, HttpRelay};
use super::{config, eboard_ok, run_board, Running};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The event's TRF-16 (round 3 paired, rounds 1-2 played).
pub const TRF: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/standings-open-2026.trf"
);
/// Its boards.
pub const BOARDS: u32 = 6;

/// The relay's `[arbiter]` key naming the pairings.
pub fn pairings_key() -> String {
    format!("pairings = \"{TRF}\"\n")
}

/// The six boards of round 3, each in `DIR/bN` with the config `eboard
/// event TRF --round 3 --out DIR/cfg --base …` wrote for it, started with
/// the trace `trace(N, DIR/bN)` (none: nobody moves) and `args`.
pub fn start_boards(
    dir: &Path,
    trace: impl Fn(u32, &Path) -> Option<PathBuf>,
    args: impl Fn(u32) -> Vec<String>,
) -> Vec<Running> {
    let base = config(dir, 1, 1, "");
    let out = dir.join("cfg");
    let said = eboard_ok(&[
        "event",
        TRF,
        "--round",
        "3",
        "--out",
        out.to_str().unwrap(),
        "--base",
        base.to_str().unwrap(),
    ]);
    assert!(said.contains("wrote 6 board files"), "{said}");
    (1..=BOARDS)
        .map(|n| {
            let d = dir.join(format!("b{n}"));
            std::fs::create_dir_all(&d).unwrap();
            let t = trace(n, &d);
            let a = args(n);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            run_board(&d, &out.join(format!("board-{n}.toml")), t.as_deref(), &a)
        })
        .collect()
}

/// An HTTP relay over `boards` knowing the pairings (started by the test,
/// [`HttpRelay::start`] or `start_at`).
pub fn relay(dir: &Path, boards: &[Running]) -> HttpRelay {
    let running: Vec<&Running> = boards.iter().collect();
    HttpRelay::new(dir, &pairings_key(), &board_urls(&running))
}

/// `GET /standings.json` at `addr`: (status, the JSON or the text as a string).
pub fn standings(addr: &str) -> (u16, Value) {
    let (status, body) = super::request(addr, "GET", "/standings.json", &[], "");
    let v = serde_json::from_str(&body).unwrap_or(Value::String(body));
    (status, v)
}

/// The rows as (rank, tied, start, points, BH, SB).
pub fn rows(s: &Value) -> Vec<(u64, bool, u64, f64, f64, f64)> {
    s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["rank"].as_u64().unwrap(),
                r["tied"].as_bool().unwrap(),
                r["start"].as_u64().unwrap(),
                r["points"].as_f64().unwrap(),
                r["tiebreaks"][0].as_f64().unwrap(),
                r["tiebreaks"][1].as_f64().unwrap(),
            )
        })
        .collect()
}

/// The standings after round 3 with every result final (boards 1-6: ½-½,
/// 1-0, 1-0, 0-1, 1-0 by forfeit, 1-0), computed by hand (FIDE C.07 2026,
/// art. 8.1, 9.1, 16): (rank, tied, start, points, BH, SB).
#[rustfmt::skip]
pub const BY_HAND: [(u64, bool, u64, f64, f64, f64); 13] = [
    (1, false, 4, 2.5, 5.5, 4.25),
    (2, false, 2, 2.5, 4.5, 3.25),
    (3, true, 1, 2.5, 4.0, 2.75),
    (3, true, 6, 2.5, 4.0, 2.75),
    (5, false, 9, 1.5, 5.5, 2.25),
    (6, false, 3, 1.5, 5.0, 1.75),
    (7, false, 13, 1.5, 3.5, 1.25),
    (8, false, 10, 1.5, 3.0, 0.25),
    (9, false, 8, 1.0, 6.0, 1.0),
    (10, false, 5, 1.0, 5.0, 1.0),
    (11, false, 11, 1.0, 3.0, 1.0),
    (12, false, 7, 0.5, 4.5, 0.75),
    (13, false, 12, 0.0, 1.5, 0.0),
];
