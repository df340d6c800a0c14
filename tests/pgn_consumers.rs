//! The PGN as its consumers read it (issue 17, item "formats"): every
//! `TimeControl` eboard writes is read by python-chess's
//! `chess.pgn.parse_time_control`; a delay is not written in a non-standard
//! form in the standard tag (eboard's own `EboardTimeControl` carries it);
//! after an illegal move that stood the record stays legal to the end for
//! python-chess and pgn-extract (lichess rejects a game whose moves stop
//! being legal: `RelayPush.validate`).
//!
//! python-chess and pgn-extract are installed by `.ci/run`; without them
//! the checks skip with a reason, under CI they fail.

use crate::common;

use common::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

fn pgn_of(trace: &TraceBuilder) -> String {
    let out = eboard_with_input(&["replay", "-", "--pgn", "-"], &trace.text());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn tag(pgn: &str, name: &str) -> Option<String> {
    let start = format!("[{name} \"");
    pgn.lines()
        .find_map(|l| l.strip_prefix(start.as_str()))
        .map(|r| r.trim_end_matches("\"]").to_owned())
}

/// python-chess's reading of a TimeControl tag: `[[moves, time, increment,
/// delay], …]`, or the error it raises.
fn python_time_control(tc: &str) -> Result<Value, String> {
    let script = r#"
import sys, json, chess.pgn
tc = chess.pgn.parse_time_control(sys.argv[1])
print(json.dumps([[p.moves, p.time, p.increment, p.delay] for p in tc.parts]))
"#;
    let out = Command::new("python3")
        .args(["-c", script, tc])
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(serde_json::from_slice(&out.stdout).unwrap())
}

fn pgn_extract() -> Option<PathBuf> {
    for c in ["pgn-extract", "/usr/games/pgn-extract"] {
        if Command::new(c).arg("-h").output().is_ok() {
            return Some(PathBuf::from(c));
        }
    }
    skip_or_fail_under_ci("pgn-extract not installed (.ci/run installs it)");
    None
}

fn two_moves(tc: &str, rules: &str) -> TraceBuilder {
    TraceBuilder::with_header(json!({"trace": 1, "time_control": tc, "rules": rules}))
        .mv(1000, "e2e4", "w")
        .mv(3000, "e7e5", "b")
}

#[test]
fn every_time_control_we_write_is_read_by_python_chess() {
    if python_chess().is_none() {
        skip_or_fail_under_ci("python-chess not installed (.ci/run installs it)");
        return;
    }
    // (the configured control, the standard tag, eboard's own tag)
    let cases = [
        ("5400+30", "5400+30", None),
        ("900+10@base", "900+10", Some("900+10@base")),
        ("40/5400+30:1800+30", "40/5400+30:1800+30", None),
        (
            "40/6000+30:20/3000+30:900+30",
            "40/6000+30:20/3000+30:900+30",
            None,
        ),
        ("5400d5", "5400", Some("5400d5")),
        ("40/7200:3600b10", "40/7200:3600", Some("40/7200:3600b10")),
        ("300", "300", None),
    ];
    for (tc, standard, own) in cases {
        let pgn = pgn_of(&two_moves(tc, "fide-2023"));
        let written = tag(&pgn, "TimeControl").expect("a TimeControl tag");
        assert_eq!(written, standard, "{tc}: {pgn}");
        assert_eq!(tag(&pgn, "EboardTimeControl").as_deref(), own, "{tc}");
        assert!(!written.contains('d') && !written.contains('b') && !written.contains('@'));
        let parts = python_time_control(&written)
            .unwrap_or_else(|e| panic!("python-chess refuses {written}: {e}"));
        let n_periods = written.split(':').count();
        assert_eq!(
            parts.as_array().unwrap().len(),
            n_periods,
            "{written}: {parts}"
        );
        let first = &parts[0];
        let base: u64 = written
            .split(':')
            .next()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .split('+')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(first[1], base, "{written}: {parts}");
        // The whole game reads without errors too.
        let games = parse_pgn_with_python(&pgn);
        assert_eq!(games[0]["moves"], json!(["e4", "e5"]), "{tc}");
    }
}

#[test]
fn after_an_illegal_move_that_stood_the_record_stays_legal() {
    // Rapid, fide-2009: White's Ra1-b3 is illegal; Black replies without a
    // claim, so it stands (A4c); the game goes on from the board.
    let trace = TraceBuilder::with_header(json!({
        "trace": 1, "start_fen": "r3k3/4p3/8/8/8/8/8/R3K3 w - - 0 1", "mode": "rapid",
        "time_control": "1500+10", "supervision": "inadequate", "rules": "fide-2009",
        "white": "Sørensen, Jens", "black": "Æbelø, Anne"
    }))
    .lift(1000, "a1")
    .place(1200, "b3")
    .press(1500, "w")
    .mv(3000, "e7e6", "b")
    .mv(5000, "e1d2", "w")
    .mv(7000, "e8f7", "b")
    .mv(9000, "b3b7", "w");
    let pgn = pgn_of(&trace);
    assert_eq!(tag(&pgn, "SetUp").as_deref(), Some("1"), "{pgn}");
    // The position after Ra1-b3, Black to move.
    let fen = tag(&pgn, "FEN").unwrap_or_default();
    assert!(
        fen.starts_with("r3k3/4p3/8/8/8/1R6/8/4K3 b - - "),
        "the position after Ra1-b3: {pgn}"
    );
    assert!(
        pgn.contains("illegal move"),
        "the ruling is in a comment: {pgn}"
    );
    assert!(pgn.contains("1... e6"), "{pgn}");
    assert!(
        pgn.contains("Moves before: none; illegal move Ra1-b3 by White"),
        "{pgn}"
    );
    if python_chess().is_none() {
        skip_or_fail_under_ci("python-chess not installed (.ci/run installs it)");
    } else {
        let games = parse_pgn_with_python(&pgn);
        let g = &games[0];
        assert_eq!(g["moves"], json!(["e6", "Kd2", "Kf7", "Rb7+"]), "{pgn}");
        assert!(g["clocks"].as_array().unwrap().iter().all(|c| !c.is_null()));
        let first = g["first_comment"].as_str().unwrap();
        assert!(
            first.contains("Ra1-b3") || first.contains("a1-b3"),
            "the ruling names the move: {first}"
        );
    }
    if let Some(pe) = pgn_extract() {
        let out = output_with_input(Command::new(pe).args(["-s", "--quiet"]), &pgn);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "pgn-extract: {stderr}");
        assert!(
            !stderr.to_lowercase().contains("illegal") && !stderr.contains("ailed"),
            "pgn-extract complained: {stderr}\n{pgn}"
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("Rb7+"));
    }
}
