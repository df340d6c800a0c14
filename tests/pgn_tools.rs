//! Our PGN output must parse with independent readers: python-chess and
//! pgn-extract (`.ci/run` installs both). Games: the built-in demo game and
//! real games from `../shared/data` when present, simulated and replayed
//! through the `eboard` binary.
//!
//! Without the tools the test skips with a printed reason, except under CI.

use crate::common;

use common::{eboard_ok, skip_or_fail_under_ci, tempdir};
use std::path::{Path, PathBuf};
use std::process::Command;

fn tool(name: &str, candidates: &[&str]) -> Option<PathBuf> {
    for c in candidates {
        let p = PathBuf::from(c);
        let ok = Command::new(&p)
            .arg(if name == "python3" { "-c" } else { "-h" })
            .args(if name == "python3" {
                vec!["import chess.pgn"]
            } else {
                vec![]
            })
            .output()
            .map(|o| name != "python3" || o.status.success())
            .unwrap_or(false);
        if ok {
            return Some(p);
        }
    }
    skip_or_fail_under_ci(&format!("{name} not installed (.ci/run installs it)"));
    None
}

/// Simulates and replays games; returns (PGN file, expected (plies, clocks)).
fn make_pgns(dir: &Path) -> Vec<(PathBuf, usize, bool)> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![(manifest.join("src/data/opera-game.pgn"), 1usize)];
    let data = manifest.join("../shared/data/pgn");
    if data.is_dir() {
        // A lichess game with clocks and promotions, an OTB game, a Chess
        // position-free engine game.
        for n in [1usize, 2, 3, 50, 200] {
            sources.push((data.join("lichess_db_2025-05_438games.pgn"), n));
        }
        for n in [1usize, 389, 660] {
            sources.push((data.join("twic1599_1110games.pgn"), n));
        }
    }
    let mut out = Vec::new();
    for (i, (src, n)) in sources.iter().enumerate() {
        let trace = dir.join(format!("g{i}.jsonl"));
        let pgn = dir.join(format!("g{i}.pgn"));
        eboard_ok(&[
            "simulate",
            src.to_str().unwrap(),
            "--game-number",
            &n.to_string(),
            "--seed",
            &i.to_string(),
            "-o",
            trace.to_str().unwrap(),
        ]);
        let events = eboard_ok(&[
            "replay",
            trace.to_str().unwrap(),
            "--json",
            "--pgn",
            pgn.to_str().unwrap(),
        ]);
        let plies = events
            .lines()
            .filter(|l| l.contains("\"type\":\"move\""))
            .count();
        let text = std::fs::read_to_string(&pgn).unwrap();
        out.push((pgn, plies, text.contains("[%clk")));
    }
    out
}

#[test]
fn python_chess_and_pgn_extract_read_our_pgn() {
    let py = tool("python3", &["python3"]);
    let pe = tool("pgn-extract", &["pgn-extract", "/usr/games/pgn-extract"]);
    if py.is_none() && pe.is_none() {
        return;
    }
    let dir = tempdir("pgn-tools");
    let pgns = make_pgns(&dir);
    assert!(
        pgns.iter().any(|(_, _, clk)| *clk),
        "some game carries [%clk]"
    );
    for (pgn, plies, has_clk) in &pgns {
        if let Some(py) = &py {
            let script = r#"
import sys, chess.pgn
g = chess.pgn.read_game(open(sys.argv[1], encoding="utf-8"))
assert g is not None, "no game"
assert not g.errors, g.errors
for tag in ["Event", "Site", "Date", "Round", "White", "Black", "Result"]:
    assert tag in g.headers, tag
n = 0; clocks = 0
for node in g.mainline():
    n += 1
    if node.clock() is not None:
        clocks += 1
print(n, clocks)
"#;
            let out = Command::new(py)
                .arg("-c")
                .arg(script)
                .arg(pgn)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "python-chess on {}: {}",
                pgn.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8(out.stdout).unwrap();
            let nums: Vec<usize> = text
                .split_whitespace()
                .map(|s| s.parse().unwrap())
                .collect();
            assert_eq!(
                nums[0],
                *plies,
                "plies read by python-chess in {}",
                pgn.display()
            );
            if *has_clk {
                assert_eq!(
                    nums[1],
                    *plies,
                    "every move has a clock in {}",
                    pgn.display()
                );
            }
        }
        if let Some(pe) = &pe {
            let out = Command::new(pe)
                .args(["-s", "--quiet"])
                .arg(pgn)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success(),
                "pgn-extract on {}: {stderr}",
                pgn.display()
            );
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                stdout.contains("[Result"),
                "pgn-extract re-emitted the game: {stdout}"
            );
            assert!(
                !stderr.to_lowercase().contains("illegal") && !stderr.contains("ailed"),
                "pgn-extract complained on {}: {stderr}",
                pgn.display()
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
