//! The trace contract driven through the `eboard` binary, as an external
//! acceptance test would: hand-written traces in, events / PGN / errors out.

use crate::common;

use common::{eboard_with_input, of, TraceBuilder};
use serde_json::Value;

/// `eboard replay - --json EXTRA…` of `trace`: the event stream.
fn events(trace: &str, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["replay", "-", "--json"];
    args.extend_from_slice(extra);
    let out = eboard_with_input(&args, trace);
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
        let out = eboard_with_input(&["replay", "-", "--json"], trace);
        assert!(!out.status.success(), "{trace}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "one-line error: {err}");
        assert!(err.contains(needle), "{needle} in {err}");
    }
    let out = eboard_with_input(&["replay", "/nonexistent/trace.jsonl"], "");
    assert!(!out.status.success());
    let out = eboard_with_input(&["replay", "-", "--rules", "fide-1999"], "");
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
    assert_eq!(of(&ev, "illegal_move")[0]["article"], "7.4a");
    let ev = events(trace, &["--rules", "fide-2023"]);
    assert_eq!(of(&ev, "illegal_move")[0]["article"], "7.5.1");
}

#[test]
fn illegal_move_then_reinstated_and_replaced() {
    let trace = TraceBuilder::new()
        .header("time_control", "5400+30")
        .header("rules", "fide-2009")
        .lift(1000, "e2")
        .place(1400, "e5")
        .press(1900, "w")
        .lift(5000, "e5")
        .place(5200, "e2")
        .lift(6000, "e2")
        .place(6400, "e4")
        .press(6900, "w")
        .text();
    let ev = events(&trace, &[]);
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 1);
    assert_eq!(ill[0]["by"], "w");
    assert_eq!(ill[0]["count"], 1);
    assert_eq!(ill[0]["penalty"], "+2 min to black");
    assert_eq!(ill[0]["squares"], serde_json::json!(["e2", "e5"]));
    assert_eq!(of(&ev, "position_restored").len(), 1);
    let mv = of(&ev, "move");
    assert_eq!(mv.len(), 1);
    assert_eq!(mv[0]["san"], "e4");
    let clocks = of(&ev, "clock");
    // +2 min to Black at the illegal move; White's clock ran on until 6.9 s.
    // Both clocks started at 1:30:30 (over the board: base + increment).
    assert_eq!(clocks[0]["black_ms"], 5_430_000 + 120_000);
    assert_eq!(clocks[1]["white_ms"], 5_430_000 - 6_900 + 30_000);
}

#[test]
fn checkmate_ends_the_game_without_a_press() {
    // Fool's mate; the last move is made and never pressed.
    let trace = TraceBuilder::new()
        .lift(1000, "f2")
        .place(1200, "f3")
        .press(1500, "w")
        .lift(2000, "e7")
        .place(2200, "e5")
        .press(2500, "b")
        .lift(3000, "g2")
        .place(3200, "g4")
        .press(3500, "w")
        .lift(4000, "d8")
        .place(4100, "g5")
        .lift(4150, "g5")
        .place(4300, "h4")
        .text();
    let ev = events(&trace, &[]);
    let mv = of(&ev, "move");
    assert_eq!(mv.len(), 4);
    assert_eq!(mv[3]["san"], "Qh4#");
    let end = of(&ev, "game_end");
    assert_eq!(end.len(), 1);
    assert_eq!(end[0]["result"], "0-1");
    assert_eq!(end[0]["reason"], "checkmate");
    assert_eq!(end[0]["article"], "5.1.1");
}

#[test]
fn pgn_has_the_seven_tag_roster_and_clocks() {
    let trace = TraceBuilder::new()
        .header("time_control", "40/5400+30:1800+30")
        .header("white", "Larsen, Bent")
        .header("black", "Hansen, Curt")
        .header("event", "DM 2026")
        .header("round", "3.1")
        .lift(1000, "e2")
        .place(1400, "e4")
        .press(1900, "w")
        .lift(61900, "c7")
        .place(62400, "c5")
        .press(62900, "b")
        .resign(63000, "w")
        .text();
    let out = eboard_with_input(&["replay", "-", "--pgn", "-"], &trace);
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
    // (1:30:58.1, shown as the clock shows it: the whole seconds left,
    // truncated), Black 61 s used + 30 s.
    assert!(
        pgn.contains("1. e4 {[%clk 1:30:58]} c5 {[%clk 1:29:59]} 0-1"),
        "{pgn}"
    );
    // Online style: the clocks start at 1:30:00; the tag stays PGN's.
    let online = trace.replace("40/5400+30:1800+30", "40/5400+30:1800+30@base");
    let out = eboard_with_input(&["replay", "-", "--pgn", "-"], &online);
    assert!(out.status.success());
    let pgn = String::from_utf8(out.stdout).unwrap();
    assert!(
        pgn.contains("[TimeControl \"40/5400+30:1800+30\"]"),
        "{pgn}"
    );
    assert!(
        pgn.contains("1. e4 {[%clk 1:30:28]} c5 {[%clk 1:29:29]} 0-1"),
        "{pgn}"
    );
}
