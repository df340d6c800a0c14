//! Session 13's held-out cases for points 3 (a pause holds) and 4 (every
//! time control at its flag). Clocks start at base + increment (the trace
//! contract's FIDE-event convention) and White's runs from t = 0 (2009
//! §6.5 "På det tidspunkt der er fastsat for partiets begyndelse, sættes
//! uret tilhørende den spiller som har de hvide brikker i gang").

use crate::common::heldout::{case, hdr, run};
use serde_json::json;

/// Rh8 mates (Black's king a8, White's king b6).
const MATE_IN_ONE: &str = "k7/8/1K6/8/8/8/8/7R w - - 0 1";
/// Qc7 stalemates (Black's king a8, White's king b6).
const STALEMATE_IN_ONE: &str = "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1";
const E4: &str = "1000 lift e2\n1200 place e4\n1500 press w\n";

/// Point 3: the pause holds until the arbiter resumes it.
#[test]
fn s13_point_3_pauses_with_presses_in_them() {
    let std = || hdr("5400+30", json!({}));
    run(vec![
        // 2009 §6.12a/c: "Dommeren bestemmer hvornår partiet genoptages":
        // presses by both players during the pause complete nothing; Black
        // is charged 0.5 s before it and 2 s after it (+30 s).
        case(
            "13-3a 2009 6.12c presses by both in the pause",
            "fide-2009",
            std(),
            format!(
                "{E4}2000 arbiter pause\n3000 press b\n4000 press w\n5000 press b\n\
                 10000 arbiter resume\n11000 lift e7\n11200 place e5\n12000 press b"
            ),
            &[
                "irregularity.kind=press_during_pause",
                "irregularity.article=6.12c",
                "move.t=12000",
                "clock.black_ms=5457500",
            ],
            &["move.t=3000", "move.t=4000", "move.t=5000", "illegal_move"],
        ),
        // 2023 6.11.3: Black's move made and pressed in the pause is
        // completed only by his press after the resume (5 s charged).
        case(
            "13-3b 2023 6.11.3 a move made and pressed in the pause",
            "fide-2023",
            std(),
            format!(
                "{E4}2000 arbiter pause\n3000 lift e7\n3200 place e5\n3500 press b\n\
                 10000 arbiter resume\n15000 press b"
            ),
            &[
                "irregularity.kind=press_during_pause",
                "irregularity.article=6.11.3",
                "move.t=15000",
                "clock.black_ms=5454500",
            ],
            &["move.t=3500", "illegal_move"],
        ),
        // 2009-NO §6.12: the clocks stopped, no flag falls in the pause:
        // White's 299 s left run out 299 s after the resume.
        case(
            "13-3c 2009-NO no flag in the pause",
            "fide-2009-no",
            hdr("300", json!({"mode": "standard"})),
            "1000 arbiter pause\n400000 arbiter resume\n750000 claim time b",
            &["flag.t=699000", "game_end.result=0-1"],
            &["flag.t=300000"],
        ),
        // 2001 §6.13a/c before the first move: White's clock stopped from
        // 1 s to 60 s; his e4 at 61.5 s costs 2.5 s (+30 s).
        case(
            "13-3d 2001 6.13 a pause before the first move",
            "fide-2001",
            std(),
            "1000 arbiter pause\n60000 arbiter resume\n61000 lift e2\n61200 place e4\n61500 press w",
            &["move.t=61500", "clock.white_ms=5457500"],
            &["irregularity"],
        ),
        // 2001 §5.2c: an agreement "under partiet" ends it, paused or not.
        case(
            "13-3e 2001 5.2c an agreement in the pause",
            "fide-2001",
            std(),
            format!("{E4}2000 lift e7\n2200 place e5\n2500 press b\n3000 arbiter pause\n4000 offer w\n4500 accept b"),
            &["game_end.reason=agreement", "game_end.result=1/2-1/2"],
            &[],
        ),
        // 2023 6.11.3 and 7.5.3: a press without a move during a pause in
        // supervised rapid is not an illegal move (the clocks are the
        // arbiter's); the resume gives Black his clock.
        case(
            "13-3f 2023 rapid press without a move in the pause",
            "fide-2023",
            hdr("1500+10", json!({"mode": "rapid", "supervision": "adequate"})),
            format!("{E4}2000 arbiter pause\n3000 press b\n8000 arbiter resume\n9000 lift e7\n9200 place e5\n9500 press b"),
            &["irregularity.kind=press_during_pause", "move.t=9500"],
            &["illegal_move"],
        ),
    ]);
}

/// Point 4: each mode at its flag, to the millisecond (2009 §6.1
/// "Vingefald betyder udløbet af den tildelte betænkningstid"; 2023 6.1).
/// The 2023 profile's flag is called (A.5.5, 6.8), so the events end there.
#[test]
fn s13_point_4_every_mode_at_its_flag() {
    let tc = |tc: &str| hdr(tc, json!({"mode": "standard"}));
    let late_e4 = |place: u64, press: u64| {
        format!("{} lift e2\n{place} place e4\n{press} press w", place - 300)
    };
    // 2/60:60, White's second move pressed at `press`.
    let two = |press: u64| {
        format!(
            "{E4}2000 lift e7\n2200 place e5\n2500 press b\n{} lift g1\n{} place f3\n{press} press w",
            press - 1000,
            press - 700
        )
    };
    let queen = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1";
    let rook = "4k3/8/8/8/8/8/r7/3QK3 w - - 0 1";
    let mut cases = vec![
        // Fischer 60+1: 61 s at the start; 1 ms left at the press, +1 s.
        case(
            "13-4a Fischer press 1 ms before zero",
            "fide-2023",
            tc("60+1"),
            late_e4(60500, 60999),
            &["move.san=e4", "clock.white_ms=1001"],
            &["flag"],
        ),
        // ... and 1 ms after zero: the flag at zero, no move after it.
        case(
            "13-4b Fischer press 1 ms after zero",
            "fide-2023",
            tc("60+1"),
            late_e4(60500, 61001),
            &["flag.t=61000", "flag.by=w"],
            &["move"],
        ),
        // 2009 §6.2b time delay: "Forudsat spilleren standser sit ur før
        // den faste ekstra tid er gået, ændres grundbetænkningstiden ikke".
        case(
            "13-4c US delay press inside the delay",
            "fide-2009",
            tc("60d2"),
            E4,
            &["clock.white_ms=60000"],
            &["flag"],
        ),
        // "Der bruges først af grundbetænkningstiden når den faste ekstra
        // tid er gået": the first move's delay too ("for hvert træk").
        case(
            "13-4d US delay press 1 ms before zero",
            "fide-2009",
            tc("60d2"),
            late_e4(61500, 61999),
            &["move.san=e4", "clock.white_ms=1"],
            &["flag"],
        ),
        case(
            "13-4e US delay flag at delay + time",
            "fide-2023",
            tc("60d2"),
            late_e4(61500, 62001),
            &["flag.t=62000"],
            &["move"],
        ),
        // Black's 8 s move: 2 s delay, 6 s of main time.
        case(
            "13-4f US delay Black's second-move charge",
            "fide-2009-no",
            tc("60d2"),
            format!("{E4}2000 lift e7\n2200 place e5\n9500 press b"),
            &["clock.black_ms=54000"],
            &[],
        ),
        // Bronstein: the time used, up to the delay, given back at the
        // press; inside the delay the main time is unchanged (§6.2b).
        case(
            "13-4g Bronstein press inside the delay",
            "fide-2001",
            tc("60b2"),
            E4,
            &["clock.white_ms=60000"],
            &[],
        ),
        // Reading (DGT Bronstein): the display runs from the main time and
        // the flag falls when it shows zero.
        case(
            "13-4h Bronstein press 1 ms before zero",
            "fide-2009",
            tc("60b2"),
            late_e4(59500, 59999),
            &["move.san=e4", "clock.white_ms=2001"],
            &["flag"],
        ),
        case(
            "13-4i Bronstein press 1 ms after zero",
            "fide-2023",
            tc("60b2"),
            late_e4(59500, 60001),
            &["flag.t=60000"],
            &["move"],
        ),
        // 2009 §6.2a: the next period's time arrives with White's second
        // move (60 − 1.5 − 1 + 60 s); Black's counter is his own.
        case(
            "13-4j 2/60:60 the second period at move 2",
            "fide-2009",
            tc("2/60:60"),
            two(3500),
            &["clock.white_ms=117500", "clock.black_ms=59000"],
            &["flag"],
        ),
        // §6.3: "Umiddelbart efter at en vinge er faldet, skal det
        // kontrolleres om kravene … er overholdt": White's flag falls at
        // 61 s with move 2 not completed; his press after it completes
        // nothing.
        case(
            "13-4k 2/60:60 the flag before move 2",
            "fide-2023",
            tc("2/60:60"),
            two(61500),
            &["flag.t=61000", "flag.by=w"],
            &["move.ply=3"],
        ),
        // §6.2b: Black's clock from White's press at 1.5 s: 2 s of delay,
        // then his 60 s: the flag at 63.5 s.
        case(
            "13-4s US delay Black's flag",
            "fide-2009",
            tc("60d2"),
            format!("{E4}70000 claim time w"),
            &["flag.t=63500", "flag.by=b", "game_end.result=1-0"],
            &[],
        ),
        // A delay's mate made inside the main time, pressed after zero:
        // §6.7a "med mindre trækket afslutter partiet".
        case(
            "13-4t US delay mate made before the flag",
            "fide-2023",
            hdr(
                "60d2",
                json!({"mode": "standard", "start_fen": MATE_IN_ONE}),
            ),
            "61000 lift h1\n61500 place h8\n62500 press w",
            &["game_end.reason=checkmate", "game_end.result=1-0"],
            &["flag"],
        ),
    ];
    // §6.7a / 2023 6.2.1.1: a move that ends the game is completed when
    // made; White's mate (5.1a) or stalemate (5.2a) is on the board before
    // his flag, his press after it.
    for rules in ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"] {
        cases.push(case(
            "13-4u mate made before the flag, pressed after",
            rules,
            hdr("60", json!({"mode": "standard", "start_fen": MATE_IN_ONE})),
            "59000 lift h1\n59500 place h8\n60500 press w",
            &["game_end.reason=checkmate", "game_end.result=1-0"],
            &[
                "flag",
                "game_end.reason=time",
                "game_end.reason=time_vs_insufficient_material",
            ],
        ));
        cases.push(case(
            "13-4v stalemate made before the flag, pressed after",
            rules,
            hdr(
                "60",
                json!({"mode": "standard", "start_fen": STALEMATE_IN_ONE}),
            ),
            "59000 lift c1\n59500 place c7\n60500 press w",
            &["game_end.reason=stalemate", "game_end.result=1/2-1/2"],
            &["flag"],
        ));
    }
    // 2009 §6.9 / 2001 §6.10 / 2023 6.9    ];
    // 2009 §6.9 / 2001 §6.10 / 2023 6.9: "Partiet er dog remis hvis …
    // modstanderen ikke kan sætte spillerens konge skakmat"; with a rook,
    // Black can.
    for (rules, art) in [
        ("fide-2001", "6.10"),
        ("fide-2009", "6.9"),
        ("fide-2009-no", "6.9"),
        ("fide-2023", "6.9"),
    ] {
        cases.push(case(
            "13-4l flag against a lone king",
            rules,
            hdr("60", json!({"mode": "standard", "start_fen": queen})),
            "70000 claim time b",
            &[
                "flag.t=60000",
                "game_end.result=1/2-1/2",
                "game_end.reason=time_vs_insufficient_material",
                if art == "6.10" {
                    "game_end.article=6.10"
                } else {
                    "game_end.article=6.9"
                },
            ],
            &["game_end.result=0-1"],
        ));
        cases.push(case(
            "13-4m flag against a rook",
            rules,
            hdr("60", json!({"mode": "standard", "start_fen": rook})),
            "70000 claim time b",
            &["game_end.result=0-1", "game_end.reason=time"],
            &["game_end.result=1/2-1/2"],
        ));
    }
    // Both flags: White's falls at 901 s unclaimed, his move after it
    // starts Black's, whose flag falls at 1801.5 s; White claims.
    let both =
        "1000 lift e2\n1200 place e4\n1500 press w\n2000 lift e7\n2200 place e5\n2500 press b\n\
                902000 lift g1\n902200 place f3\n902500 press w\n1850000 claim time w";
    let rapid = || hdr("900", json!({"mode": "rapid", "supervision": "inadequate"}));
    cases.extend([
        // 2001 B8: "Hvis begge faldvinger er faldet, er partiet remis."
        case(
            "13-4n 2001 B8 both flags",
            "fide-2001",
            rapid(),
            both,
            &["flag.t=901000", "flag.t=1801500", "game_end.result=1/2-1/2"],
            &["game_end.result=1-0", "game_end.result=0-1"],
        ),
        // 2009 A4d3: "Hvis begge vinger er faldet som beskrevet i 1 og 2,
        // skal dommeren erklære partiet remis" (2009-NO commentary: "uavhengig
        // av hvilken klaff som falt først").
        case(
            "13-4o 2009 A4d3 both flags",
            "fide-2009",
            rapid(),
            both,
            &["game_end.result=1/2-1/2"],
            &["game_end.result=1-0", "game_end.result=0-1"],
        ),
        case(
            "13-4p 2009-NO A4d3 both flags",
            "fide-2009-no",
            rapid(),
            both,
            &["game_end.result=1/2-1/2"],
            &["game_end.result=1-0", "game_end.result=0-1"],
        ),
        // 2023 A.5.5: the arbiter calls the first flag; no both-flags rule.
        case(
            "13-4q 2023 A.5.5 the first flag called",
            "fide-2023",
            rapid(),
            both,
            &["game_end.t=901000", "game_end.result=0-1"],
            &["game_end.result=1/2-1/2", "move.san=Nf3"],
        ),
        // 2009 A4d2: Black claims with his own flag up and White's down.
        case(
            "13-4r 2009 A4d2 a claim with the own flag up",
            "fide-2009",
            rapid(),
            "1000 lift e2\n1200 place e4\n1500 press w\n2000 lift e7\n2200 place e5\n2500 press b\n\
             901500 claim time b",
            &["game_end.t=901500", "game_end.result=0-1"],
            &[],
        ),
    ]);
    run(cases);
}
