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

include!("../data/standings-open-2026-by-hand.rs");
