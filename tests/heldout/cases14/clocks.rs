//! Session 14's held-out cases for points 3 (a pause holds) and 4 (every
//! time control at its flag). Clocks start at base + increment (the trace
//! contract's FIDE-event convention; `@base` the online one) and White's
//! runs from t = 0 (2009 §6.5). A `clock.t=T&FIELD=V` spec asks both of
//! the one `clock` event at T.

use crate::common::heldout::{case, hdr, run};
use serde_json::json;

const E4: &str = "1000 lift e2\n1200 place e4\n1500 press w\n";

/// Point 3: pauses at other moments than session 13's.
#[test]
fn s14_point_3_pauses_that_hold() {
    let std = || hdr("5400+30", json!({}));
    let tc = |tc: &str| hdr(tc, json!({"mode": "standard"}));
    run(vec![
        // 2009 §6.12a "skal dommeren standse urene": a stopped clock counts
        // nothing, its delay neither (§6.2b "Der bruges først af
        // grundbetænkningstiden når den faste ekstra tid er gået"): 1 s
        // before the pause, 0.9 s after it, inside the 2 s delay.
        case(
            "14-3a 2009 6.12a a pause inside a US delay",
            "fide-2009",
            tc("60d2"),
            "1000 arbiter pause\n10000 arbiter resume\n10300 lift e2\n10500 place e4\n10900 press w",
            &["clock.t=10900&white_ms=60000", "move.t=10900"],
            &["flag", "irregularity"],
        ),
        // 2023 6.11.1 / 6.11.3: White's 60 s would run out at 60 s; paused
        // from 30 s to 100 s, his flag falls at 130 s (6.9: Black can mate).
        case(
            "14-3b 2023 6.11 a flag that would fall in the pause",
            "fide-2023",
            tc("60"),
            "30000 arbiter pause\n100000 arbiter resume\n140000 claim time b",
            &["flag.t=130000", "flag.by=w", "game_end.result=0-1", "game_end.article=6.9"],
            &["flag.t=60000"],
        ),
        // 2001 §6.13a and 6.10: Black's Bronstein clock from 1.5 s, stopped
        // from 30 s to 100 s: his 60 s run out at 131.5 s.
        case(
            "14-3c 2001 6.13 a Bronstein flag after the pause",
            "fide-2001",
            tc("60b2"),
            format!("{E4}30000 arbiter pause\n100000 arbiter resume\n140000 claim time w"),
            &["flag.t=131500", "flag.by=b", "game_end.result=1-0", "game_end.article=6.10"],
            &["flag.t=61500"],
        ),
        // 2009-NO §6.12c: a press by the player not on move in the pause
        // starts nothing; Black is charged 0.5 s before it and 2 s after.
        case(
            "14-3d 2009-NO 6.12c the other player's press in the pause",
            "fide-2009-no",
            std(),
            format!("{E4}2000 arbiter pause\n3000 press w\n10000 arbiter resume\n11000 lift e7\n11200 place e5\n12000 press b"),
            &[
                "irregularity.kind=press_during_pause",
                "irregularity.article=6.12c",
                "clock.t=12000&black_ms=5457500",
            ],
            &["illegal_move"],
        ),
        // 2023 6.11.3 "The arbiter shall decide when the game is to be
        // restarted": a draw offer declined in the pause restarts nothing;
        // Black's move pressed in it is completed by his press after the
        // resume (0.5 s + 1 s charged).
        case(
            "14-3e 2023 6.11.3 an offer declined in the pause",
            "fide-2023",
            std(),
            format!(
                "{E4}2000 arbiter pause\n3000 offer b\n3500 decline w\n4000 lift e7\n4200 place e5\n4500 press b\n\
                 9000 arbiter resume\n10000 press b"
            ),
            &[
                "irregularity.kind=press_during_pause&t=4500",
                "irregularity.article=6.11.3",
                "move.t=10000",
                "clock.t=10000&black_ms=5458500",
            ],
            &["move.t=4500", "game_end"],
        ),
        // 2009 B3a (blitz follows A, A4 the Laws): §6.12c in unsupervised
        // blitz; the increment once, at the press after the resume.
        case(
            "14-3f 2009 6.12c a pause in unsupervised blitz",
            "fide-2009",
            hdr("180+2", json!({"mode": "blitz", "supervision": "inadequate"})),
            format!("{E4}2000 arbiter pause\n3000 lift e7\n3200 place e5\n3500 press b\n10000 arbiter resume\n11000 press b"),
            &[
                "irregularity.kind=press_during_pause",
                "irregularity.article=6.12c",
                "move.t=11000",
                "clock.t=11000&black_ms=182500",
            ],
            &["move.t=3500"],
        ),
        // 2001 §6.13c: three presses in the pause, one increment (§6.2a
        // "et tidstillæg for hvert træk": one move, one increment).
        case(
            "14-3g 2001 6.13c three presses, one increment",
            "fide-2001",
            std(),
            format!(
                "{E4}2000 arbiter pause\n2500 lift e7\n2700 place e5\n3000 press b\n3500 press b\n4000 press b\n\
                 10000 arbiter resume\n11000 press b"
            ),
            &[
                "irregularity.article=6.13c",
                "move.t=11000",
                "clock.t=11000&black_ms=5458500",
            ],
            &["illegal_move", "move.t=3000"],
        ),
        // 2023 A.5.5 "the arbiter shall also call a flag fall": rapid
        // without supervision, White's 900 s stopped from 100 s to 500 s:
        // called at 1300 s (6.9, Black can mate).
        case(
            "14-3h 2023 A.5.5 the flag called after a pause",
            "fide-2023",
            hdr("900", json!({"mode": "rapid", "supervision": "inadequate"})),
            "100000 arbiter pause\n500000 arbiter resume\n1400000 claim time b",
            &[
                "flag.t=1300000",
                "game_end.t=1300000",
                "game_end.reason=time",
                "game_end.article=6.9",
            ],
            &["flag.t=900000"],
        ),
    ]);
}

/// Point 4: each mode at its flag for Black, `@base`, and periods with
/// their own mode (2009 §6.2a "et mindste antal træk … indenfor en tildelt
/// tidsperiode og/eller … et tidstillæg for hvert træk"; 2023 6.3.1).
#[test]
fn s14_point_4_flags_for_black_and_periods_with_their_mode() {
    let tc = |tc: &str| hdr(tc, json!({"mode": "standard"}));
    let black_at = |press: u64| {
        format!(
            "{E4}{} lift e7\n{} place e5\n{press} press b",
            press - 800,
            press - 500
        )
    };
    // 2/60:60: Black's second move pressed at `press`.
    let black_two = |press: u64| {
        format!(
            "{E4}2000 lift e7\n2200 place e5\n2500 press b\n3000 lift g1\n3200 place f3\n3500 press w\n\
             {} lift b8\n{} place c6\n{press} press b",
            press - 800,
            press - 500
        )
    };
    // Two moves each, Black's second pressed at 12 s.
    let four = "1000 lift e2\n1200 place e4\n1500 press w\n2000 lift e7\n2200 place e5\n2500 press b\n\
                5000 lift g1\n5200 place f3\n6000 press w\n10000 lift b8\n10200 place c6\n12000 press b\n";
    run(vec![
        // Fischer 60+1: Black's 61 s from 1.5 s reach zero at 62.5 s.
        case(
            "14-4a Fischer Black 1 ms before zero",
            "fide-2009",
            tc("60+1"),
            black_at(62499),
            &["clock.t=62499&black_ms=1001", "move.san=e5"],
            &["flag"],
        ),
        case(
            "14-4b Fischer Black 1 ms after zero",
            "fide-2023",
            tc("60+1"),
            black_at(62501),
            &["flag.t=62500", "flag.by=b"],
            &["move.san=e5"],
        ),
        // Bronstein: Black's main 60 s from 1.5 s; at the press the time
        // used, up to 2 s, comes back.
        case(
            "14-4c Bronstein Black 1 ms before zero",
            "fide-2009-no",
            tc("60b2"),
            black_at(61499),
            &["clock.t=61499&black_ms=2001", "move.san=e5"],
            &["flag"],
        ),
        case(
            "14-4d Bronstein Black 1 ms after zero",
            "fide-2001",
            tc("60b2"),
            black_at(61501),
            &["flag.t=61500", "flag.by=b"],
            &["move.san=e5"],
        ),
        // 2009 §6.2b: Black's 2 s delay, then 60 s: zero at 63.5 s.
        case(
            "14-4e US delay Black 1 ms before zero",
            "fide-2001",
            tc("60d2"),
            black_at(63499),
            &["clock.t=63499&black_ms=1", "move.san=e5"],
            &["flag"],
        ),
        case(
            "14-4f US delay Black 1 ms after zero",
            "fide-2009-no",
            tc("60d2"),
            black_at(63501),
            &["flag.t=63500", "flag.by=b"],
            &["move.san=e5"],
        ),
        // 2/60:60: Black's two moves take 1 s + 58.999 s; the second
        // period's 60 s arrive with his second move (§6.3).
        case(
            "14-4g 2/60:60 Black's second move 1 ms before zero",
            "fide-2009",
            tc("2/60:60"),
            black_two(62499),
            &["clock.t=62499&black_ms=60001", "move.san=Nc6"],
            &["flag"],
        ),
        case(
            "14-4h 2/60:60 Black's flag 1 ms before his second move",
            "fide-2023",
            tc("2/60:60"),
            black_two(62501),
            &["flag.t=62500", "flag.by=b"],
            &["move.san=Nc6"],
        ),
        // 1/30:30d5: the first move in 30 s, then 30 s more with a 5 s US
        // delay a move: White's 2. Nf3 inside its delay leaves 58.5 s;
        // Black's 2… Nc6 in 6 s costs 1 s.
        case(
            "14-4i 1/30:30d5 the second period's own delay",
            "fide-2009",
            tc("1/30:30d5"),
            four,
            &[
                "clock.t=1500&white_ms=58500",
                "clock.t=2500&black_ms=59000",
                "clock.t=6000&white_ms=58500",
                "clock.t=12000&black_ms=58000",
            ],
            &["flag"],
        ),
        // ... and White's flag in it: 5 s delay, then 58.5 s from 12 s.
        case(
            "14-4j 1/30:30d5 a flag in the delayed period",
            "fide-2023",
            tc("1/30:30d5"),
            format!("{four}80000 claim time b"),
            &["flag.t=75500", "flag.by=w"],
            &["flag.t=74500"],
        ),
        // 1/30:30b3: Bronstein in the second period: 3.5 s used, 3 s back.
        case(
            "14-4k 1/30:30b3 the second period's own Bronstein",
            "fide-2001",
            tc("1/30:30b3"),
            four,
            &[
                "clock.t=1500&white_ms=58500",
                "clock.t=6000&white_ms=58000",
                "clock.t=12000&black_ms=56000",
            ],
            &["flag"],
        ),
        // `@base`: the clocks start at 60 s; White's zero at 60 s.
        case(
            "14-4l Fischer @base 1 ms before zero",
            "fide-2023",
            tc("60+1@base"),
            "59500 lift e2\n59700 place e4\n59999 press w",
            &["clock.t=59999&white_ms=1001", "move.san=e4"],
            &["flag"],
        ),
        case(
            "14-4m Fischer @base 1 ms after zero",
            "fide-2009",
            tc("60+1@base"),
            "59500 lift e2\n59700 place e4\n60001 press w",
            &["flag.t=60000", "flag.by=w"],
            &["move"],
        ),
    ]);
}
