//! Session 18's held-out cases for point 5: the flags of
//! `40/5400:1800+30`, Black's flag and delayed second periods.

use crate::common::heldout::{case, hdr, run};
use serde_json::json;

/// The white rook's tour (files d–h, ranks 1–6: never a check, never a
/// repeated position), the white king's a1-a2 at move 30; Black's king
/// goes a8-b8-a8 … beside his rook b7 (he can mate: the flag loses).
const TOUR_FEN: &str = "k7/1r6/8/8/8/8/8/K6R w - - 0 1";

const TOUR: [&str; 42] = [
    "h1g1", "g1f1", "f1e1", "e1d1", "d1d2", "d2e2", "e2f2", "f2g2", "g2h2", "h2h3", "h3g3", "g3f3",
    "f3e3", "e3d3", "d3d4", "d4e4", "e4f4", "f4g4", "g4h4", "h4h5", "h5g5", "g5f5", "f5e5", "e5d5",
    "d5d6", "d6e6", "e6f6", "f6g6", "g6h6", "a1a2", "h6g6", "g6f6", "f6e6", "e6d6", "d6d5", "d5e5",
    "e5f5", "f5g5", "g5h5", "h5h4", "h4g4", "g4f4",
];

/// Moves 1 to `n` of both sides, each pair 2 s (White's `mv` at 2000·(k−1),
/// Black's 1 s later): after move 39 Black's press is at 77.6 s, White has
/// used 0.6 + 38 × 1 = 38.6 s, Black 39 s.
fn tour(n: usize) -> String {
    let mut s = String::new();
    for (k, w) in TOUR.iter().take(n).enumerate() {
        let t = 2000 * k as u64;
        let b = if k % 2 == 0 { "a8b8" } else { "b8a8" };
        s.push_str(&format!("{t} mv {w} w\n{} mv {b} b\n", t + 1000));
    }
    s
}

/// Point 5: `40/5400:1800+30` (docs/clock.md: 40 moves in 90 min, then
/// 30 min with 30 s per move from move 41, the increment for move 41
/// credited with the period at the press of move 40). 2009 §6.2a / 2023
/// 6.3.1 "a player must complete a minimum number of moves or all moves
/// in an allotted period of time and/or may be allocated an additional
/// amount of time after each move"; §6.9 (2023 6.9) "hvis en spiller ikke
/// har fuldført det foreskrevne antal træk inden for den tildelte tid, er
/// partiet tabt" (2001 §6.10). After move 39 White has 5 400 − 38.6 s =
/// 5 361.4 s: his flag falls at 77.6 + 5 361.4 = 5 439 s.
#[test]
fn s18_point_5_the_flags_of_40_5400_1800_30() {
    let tc = || {
        hdr(
            "40/5400:1800+30",
            json!({"start_fen": TOUR_FEN, "mode": "standard"}),
        )
    };
    let late = format!(
        "{}5439500 lift h5\n5439700 place h4\n5440000 press w\n5441000 claim time b\n",
        tour(39)
    );
    // Move 40 pressed with 0.4 s left: + 1 800 s + 30 s = 1 830.4 s; Black
    // replies in 1 s (Black: 5 400 − 39 s − 1 s +1 830 s).
    let in_time = format!(
        "{}5438100 lift h5\n5438300 place h4\n5438600 press w\n5439100 lift b8\n5439300 place a8\n5439600 press b\n",
        tour(39)
    );
    // Move 41: White's flag falls at 5 439.6 + 1 830.4 = 7 270 s.
    let second_flag = format!(
        "{in_time}7270500 lift h4\n7270700 place g4\n7271000 press w\n7272000 claim time b\n"
    );
    let second_in_time = format!(
        "{in_time}7268500 lift h4\n7268700 place g4\n7269000 press w\n7269500 lift a8\n7269700 place b8\n7270000 press b\n"
    );
    let mut cases = Vec::new();
    for rules in ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"] {
        cases.push(case(
            "18-5a the flag before the 40th move",
            rules,
            tc(),
            late.clone(),
            &["flag.t=5439000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=79"],
        ));
        cases.push(case(
            "18-5b the 40th move in time brings the second period",
            rules,
            tc(),
            in_time.clone(),
            &[
                "move.ply=79",
                "clock.t=5438600&white_ms=1830400",
                "clock.t=5439600&black_ms=7190000",
            ],
            &["flag", "game_end"],
        ));
        cases.push(case(
            "18-5c the flag in the second period",
            rules,
            tc(),
            second_flag.clone(),
            &["flag.t=7270000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=81"],
        ));
        cases.push(case(
            "18-5d move 41 in time: its 30 s",
            rules,
            tc(),
            second_in_time.clone(),
            &["move.ply=81", "clock.t=7269000&white_ms=31000"],
            &["flag", "game_end"],
        ));
    }
    run(cases);
}

/// Point 5, a second set: Black's flag before his 40th move (White has
/// pressed his 40th in time at 5 438.6 s; Black, 39 s used, falls at
/// 5 438.6 + 5 361 = 10 799.6 s; White can mate with his rook); the
/// second period with its own US delay (`1800d30`) or Bronstein delay
/// (`1800b30`), docs/clock.md "Periods and delays": no increment at move
/// 40's press (White 0.4 + 1 800 s), the delay counted from move 41. US
/// delay (2023 6.3.2 / 2009 §6.2b): the flag at 5 439.6 + 30 + 1 800.4 =
/// 7 270 s; Bronstein: at 5 439.6 + 1 800.4 = 7 240 s, the time used up to
/// 30 s given back at the press.
#[test]
fn s18_point_5_black_flag_and_delayed_second_periods() {
    let tc = |tc: &str| hdr(tc, json!({"start_fen": TOUR_FEN, "mode": "standard"}));
    let white_40 = format!(
        "{}5438100 lift h5\n5438300 place h4\n5438600 press w\n",
        tour(39)
    );
    let black_late = format!(
        "{white_40}10800000 lift b8\n10800200 place a8\n10800500 press b\n10801000 claim time w\n"
    );
    let both_40 = format!("{white_40}5439100 lift b8\n5439300 place a8\n5439600 press b\n");
    // White's 41st move pressed at `press`; Black claims the flag if it fell.
    let w41 = |press: u64, claim: bool| {
        let claim = if claim {
            format!("{} claim time b\n", press + 1000)
        } else {
            String::new()
        };
        format!(
            "{both_40}{} lift h4\n{} place g4\n{press} press w\n{claim}",
            press - 500,
            press - 300
        )
    };
    let mut cases = Vec::new();
    for rules in ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"] {
        // 2009 §6.7a "Hans træk betragtes ikke som fuldført før dette er
        // gjort" (2023 6.2.1): the 40th move made before zero, pressed after.
        cases.push(case(
            "18-5j the 40th move made in time, pressed after the flag",
            rules,
            tc("40/5400:1800+30"),
            format!(
                "{}5438500 lift h5\n5438700 place h4\n5439500 press w\n5440500 claim time b\n",
                tour(39)
            ),
            &["flag.t=5439000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=79", "clock.white_ms=1830000"],
        ));
        cases.push(case(
            "18-5e Black's flag before his 40th move",
            rules,
            tc("40/5400:1800+30"),
            black_late.clone(),
            &["flag.t=10799600", "flag.by=b", "game_end.result=1-0"],
            &["move.ply=80"],
        ));
        cases.push(case(
            "18-5f a US delay in the second period: move 41 inside it",
            rules,
            tc("40/5400:1800d30"),
            w41(7_269_000, false),
            &[
                "clock.t=5438600&white_ms=1800400",
                "clock.t=7269000&white_ms=1000",
                "move.ply=81",
            ],
            &["flag"],
        ));
        cases.push(case(
            "18-5g a US delay in the second period: the flag after it",
            rules,
            tc("40/5400:1800d30"),
            w41(7_271_000, true),
            &["flag.t=7270000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=81"],
        ));
        cases.push(case(
            "18-5h a Bronstein delay in the second period: the time given back",
            rules,
            tc("40/5400:1800b30"),
            w41(7_239_000, false),
            &["clock.t=7239000&white_ms=31000", "move.ply=81"],
            &["flag"],
        ));
        cases.push(case(
            "18-5i a Bronstein delay in the second period: the flag",
            rules,
            tc("40/5400:1800b30"),
            w41(7_241_000, true),
            &["flag.t=7240000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=81"],
        ));
    }
    run(cases);
}
