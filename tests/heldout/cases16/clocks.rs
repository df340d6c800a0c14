//! Session 16's held-out cases for points 3 and 4: a flag in a
//! multi-period control at the move that brings the next period, and two
//! pauses.

use crate::common::heldout::{case, hdr, run};
use serde_json::json;

/// Points 3 and 4: a flag in `3/20:60` at the move that brings the next
/// period, and two pauses.
#[test]
fn s16_points_3_4_period_flags_and_two_pauses() {
    let tc = |tc: &str| hdr(tc, json!({"mode": "standard"}));
    // White 1.5 s and 1 s on his first two moves: 17.5 s left from 4.5 s,
    // zero at 22 s. 2009 §6.3 "Umiddelbart efter at en vinge er faldet,
    // skal det kontrolleres om kravene i medfør af §6.2a er overholdt":
    // three moves were due in 20 s; the next period's 60 s arrive only
    // with the third (§6.2b "Opsparet tid fra én tidsperiode tillægges den
    // næste").
    let two = "1000 lift e2\n1200 place e4\n1500 press w\n2000 lift e7\n2200 place e5\n2500 press b\n\
               3000 lift g1\n3200 place f3\n3500 press w\n4000 lift b8\n4200 place c6\n4500 press b\n";
    let third = |press: u64| {
        format!("{two}21000 lift f1\n21300 place c4\n{press} press w\n25000 claim time b")
    };
    run(vec![
        // 2009 §6.9 "hvis en spiller ikke har fuldført det foreskrevne
        // antal træk inden for den tildelte tid, er partiet tabt".
        case(
            "16-4a 2009-NO 6.9 the flag at the third move of 3/20",
            "fide-2009-no",
            tc("3/20:60"),
            third(22_500),
            &["flag.t=22000", "flag.by=w", "game_end.result=0-1"],
            &["move.san=Bc4"],
        ),
        case(
            "16-4b 2001 6.10 the flag at the third move of 3/20",
            "fide-2001",
            tc("3/20:60"),
            third(22_500),
            &["flag.t=22000", "flag.by=w", "game_end.result=0-1"],
            &["move.san=Bc4"],
        ),
        // 1 ms before: the third move completes and the 60 s arrive.
        case(
            "16-4c 2023 6.3.1 the third move 1 ms before zero",
            "fide-2023",
            tc("3/20:60"),
            third(21_999),
            &["move.san=Bc4", "clock.t=21999&white_ms=60001"],
            &["flag", "game_end.result=0-1"],
        ),
        // 2009 §6.12a "skal dommeren standse urene", §6.12c "Dommeren
        // bestemmer hvornår partiet genoptages": two pauses; Black's move
        // made and pressed in the second completes only at his press after
        // the resume. Black's clock ran 1.5–2 s, 4–6 s and 9–9.5 s: 3 s.
        case(
            "16-3a 2009 6.12 a press in the second of two pauses",
            "fide-2009",
            hdr("5400+30", json!({})),
            "1000 lift e2\n1200 place e4\n1500 press w\n2000 arbiter pause\n4000 arbiter resume\n\
             6000 arbiter pause\n6200 lift e7\n6400 place e5\n6500 press b\n9000 arbiter resume\n9500 press b",
            &[
                "irregularity.kind=press_during_pause",
                "irregularity.article=6.12c",
                "move.t=9500",
                "clock.t=9500&black_ms=5457000",
            ],
            &["move.t=6500", "illegal_move"],
        ),
    ]);
}
