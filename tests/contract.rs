//! The trace contract driven through the `eboard` binary, as an external
//! acceptance test would: hand-written traces in, events / PGN / errors out.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn eboard(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eboard"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run eboard");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn events(trace: &str, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["replay", "-", "--json"];
    args.extend_from_slice(extra);
    let out = eboard(&args, trace);
    assert!(
        out.status.success(),
        "replay failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

fn of_type<'a>(ev: &'a [Value], ty: &str) -> Vec<&'a Value> {
    ev.iter().filter(|e| e["type"] == ty).collect()
}

/// The spec's example. Its clock numbers (5428100 / 5400000) are the online
/// style, a clock started at the base: they hold with `@base`. Over the
/// board, the default, the clock started at base + increment (1:30:30, as
/// FIDE events' DGT clocks do; docs/clock.md), so each side has 30 s more.
#[test]
fn contract_example_gives_the_expected_events() {
    let moves = r#"{"t": 1000, "lift": "e2"}
{"t": 1400, "place": "e4"}
{"t": 1405, "lift": "e4"}
{"t": 1410, "place": "e4"}
{"t": 1900, "press": "w"}
"#;
    for (tc, clock) in [
        (
            "5400+30@base",
            r#"{"t": 1900, "type": "clock", "white_ms": 5428100, "black_ms": 5400000}"#,
        ),
        (
            "5400+30",
            r#"{"t": 1900, "type": "clock", "white_ms": 5458100, "black_ms": 5430000}"#,
        ),
    ] {
        let trace = format!("{{\"trace\": 1, \"time_control\": \"{tc}\"}}\n{moves}");
        let ev = events(&trace, &[]);
        let expected: Vec<Value> = [
            r#"{"t": 1000, "type": "touch", "by": "w", "square": "e2", "piece": "P"}"#,
            r#"{"t": 1900, "type": "move", "ply": 1, "by": "w", "san": "e4", "uci": "e2e4", "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"}"#,
            clock,
        ]
        .iter()
        .map(|s| serde_json::from_str(s).unwrap())
        .collect();
        assert_eq!(ev.len(), 3, "{tc}: {ev:?}");
        for (got, want) in ev.iter().zip(&expected) {
            for (k, v) in want.as_object().unwrap() {
                assert_eq!(&got[k], v, "{tc}: key {k} of {got}");
            }
        }
    }
}

#[test]
fn malformed_lines_are_rejected_naming_the_line() {
    for (trace, needle) in [
        (
            "{\"trace\":1}\n{\"t\":5,\"lift\":\"e2\"}\n{\"t\":6,\"teleport\":\"e4\"}\n",
            "line 3",
        ),
        (
            "{\"t\":5,\"lift\":\"e2\"}\n{\"t\":6,\"place\":\"e4\"\n",
            "line 2",
        ),
        (
            "{\"t\":5,\"lift\":\"e2\"}\n{\"t\":4,\"place\":\"e4\"}\n",
            "line 2",
        ),
        (
            "{\"trace\":1,\"time_control\":\"forty moves\"}\n",
            "time_control",
        ),
        ("{\"trace\":1,\"rules\":\"fide-1999\"}\n", "rules"),
    ] {
        let out = eboard(&["replay", "-", "--json"], trace);
        assert!(!out.status.success(), "{trace}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "one-line error: {err}");
        assert!(err.contains(needle), "{needle} in {err}");
    }
    let out = eboard(&["replay", "/nonexistent/trace.jsonl"], "");
    assert!(!out.status.success());
    let out = eboard(&["replay", "-", "--rules", "fide-1999"], "");
    assert!(!out.status.success());
}

#[test]
fn unknown_fields_are_ignored_and_the_option_beats_the_header() {
    let trace = r#"{"trace": 1, "rules": "fide-2009", "firmware": "x"}
{"t": 1000, "lift": "e2", "sensor": 12}
{"t": 1400, "place": "e5"}
{"t": 1900, "press": "w"}
"#;
    let ev = events(trace, &[]);
    assert_eq!(of_type(&ev, "illegal_move")[0]["article"], "7.4a");
    let ev = events(trace, &["--rules", "fide-2023"]);
    assert_eq!(of_type(&ev, "illegal_move")[0]["article"], "7.5.1");
}

#[test]
fn illegal_move_then_reinstated_and_replaced() {
    let trace = r#"{"trace": 1, "time_control": "5400+30", "rules": "fide-2009"}
{"t": 1000, "lift": "e2"}
{"t": 1400, "place": "e5"}
{"t": 1900, "press": "w"}
{"t": 5000, "lift": "e5"}
{"t": 5200, "place": "e2"}
{"t": 6000, "lift": "e2"}
{"t": 6400, "place": "e4"}
{"t": 6900, "press": "w"}
"#;
    let ev = events(trace, &[]);
    let ill = of_type(&ev, "illegal_move");
    assert_eq!(ill.len(), 1);
    assert_eq!(ill[0]["by"], "w");
    assert_eq!(ill[0]["count"], 1);
    assert_eq!(ill[0]["penalty"], "+2 min to black");
    assert_eq!(ill[0]["squares"], serde_json::json!(["e2", "e5"]));
    assert_eq!(of_type(&ev, "position_restored").len(), 1);
    let mv = of_type(&ev, "move");
    assert_eq!(mv.len(), 1);
    assert_eq!(mv[0]["san"], "e4");
    let clocks = of_type(&ev, "clock");
    // +2 min to Black at the illegal move; White's clock ran on until 6.9 s.
    // Both clocks started at 1:30:30 (over the board: base + increment).
    assert_eq!(clocks[0]["black_ms"], 5_430_000 + 120_000);
    assert_eq!(clocks[1]["white_ms"], 5_430_000 - 6_900 + 30_000);
}

#[test]
fn checkmate_ends_the_game_without_a_press() {
    // Fool's mate; the last move is made and never pressed.
    let trace = r#"{"trace": 1}
{"t": 1000, "lift": "f2"}
{"t": 1200, "place": "f3"}
{"t": 1500, "press": "w"}
{"t": 2000, "lift": "e7"}
{"t": 2200, "place": "e5"}
{"t": 2500, "press": "b"}
{"t": 3000, "lift": "g2"}
{"t": 3200, "place": "g4"}
{"t": 3500, "press": "w"}
{"t": 4000, "lift": "d8"}
{"t": 4100, "place": "g5"}
{"t": 4150, "lift": "g5"}
{"t": 4300, "place": "h4"}
"#;
    let ev = events(trace, &[]);
    let mv = of_type(&ev, "move");
    assert_eq!(mv.len(), 4);
    assert_eq!(mv[3]["san"], "Qh4#");
    let end = of_type(&ev, "game_end");
    assert_eq!(end.len(), 1);
    assert_eq!(end[0]["result"], "0-1");
    assert_eq!(end[0]["reason"], "checkmate");
    assert_eq!(end[0]["article"], "5.1.1");
}

#[test]
fn pgn_has_the_seven_tag_roster_and_clocks() {
    let trace = r#"{"trace": 1, "time_control": "40/5400+30:1800+30", "white": "Larsen, Bent", "black": "Hansen, Curt", "event": "DM 2026", "round": "3.1"}
{"t": 1000, "lift": "e2"}
{"t": 1400, "place": "e4"}
{"t": 1900, "press": "w"}
{"t": 61900, "lift": "c7"}
{"t": 62400, "place": "c5"}
{"t": 62900, "press": "b"}
{"t": 63000, "resign": "w"}
"#;
    let out = eboard(&["replay", "-", "--pgn", "-"], trace);
    assert!(out.status.success());
    let pgn = String::from_utf8(out.stdout).unwrap();
    for tag in [
        "[Event \"DM 2026\"]",
        "[Site \"?\"]",
        "[Date \"????.??.??\"]",
        "[Round \"3.1\"]",
        "[White \"Larsen, Bent\"]",
        "[Black \"Hansen, Curt\"]",
        "[Result \"0-1\"]",
        "[TimeControl \"40/5400+30:1800+30\"]",
    ] {
        assert!(pgn.contains(tag), "{tag} in\n{pgn}");
    }
    // Over the board both clocks start at 1:30:30: White 1.9 s used + 30 s
    // (1:30:58.1, shown as the clock shows it, rounded up), Black 61 s used
    // + 30 s.
    assert!(
        pgn.contains("1. e4 {[%clk 1:30:59]} c5 {[%clk 1:29:59]} 0-1"),
        "{pgn}"
    );
    // Online style: the clocks start at 1:30:00; the tag stays PGN's.
    let online = trace.replace("40/5400+30:1800+30", "40/5400+30:1800+30@base");
    let out = eboard(&["replay", "-", "--pgn", "-"], &online);
    assert!(out.status.success());
    let pgn = String::from_utf8(out.stdout).unwrap();
    assert!(
        pgn.contains("[TimeControl \"40/5400+30:1800+30\"]"),
        "{pgn}"
    );
    assert!(
        pgn.contains("1. e4 {[%clk 1:30:29]} c5 {[%clk 1:29:29]} 0-1"),
        "{pgn}"
    );
}
