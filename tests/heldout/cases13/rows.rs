//! Session 13's held-out cases for point 5: the 2023 rows of
//! `fide-2023.md` §3 against the 2009 and 2001 texts.

use crate::common::heldout::{case, hdr, run};
use serde_json::json;

const E4: &str = "1000 lift e2\n1200 place e4\n1500 press w\n";

/// Point 5: the 2023 rows against 2009 and 2001, other situations than
/// session 12's.
#[test]
fn s13_point_5_the_2023_rows() {
    let std = |fen: &str| hdr("5400+30", json!({"start_fen": fen}));
    let start = || hdr("5400+30", json!({}));
    let accept = format!("{E4}2000 offer w\n2500 accept b");
    // 149 half-moves without a pawn move or a capture.
    let seventy = "4k3/8/8/8/8/8/8/R3K3 w - - 149 100";
    let ra2 = "1000 lift a1\n1200 place a2\n1500 press w";
    let mate75 = "k7/8/1K6/8/8/8/8/7R w - - 149 100";
    let rh8 = "1000 lift h1\n1200 place h8\n1500 press w";
    let queen = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1";
    let blitz = |tc: &str| hdr(tc, json!({"mode": "blitz", "supervision": "inadequate"}));
    // 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8: the start position a
    // third time, White on move; he lifts his knight, then claims.
    let threefold = "1000 mv g1f3 w\n2000 mv g8f6 b\n3000 mv f3g1 w\n4000 mv f6g8 b\n\
                     5000 mv g1f3 w\n6000 mv g8f6 b\n7000 mv f3g1 w\n8000 mv f6g8 b\n\
                     9000 lift g1\n9200 claim threefold w"
        .to_string();
    run(vec![
        // F17, 5.2.3 "provided both players have made at least one move":
        // after White's first move only, Black has made none.
        case(
            "13-5a 2023 5.2.3 agreement after one move",
            "fide-2023",
            start(),
            accept.clone(),
            &["irregularity.article=5.2.3"],
            &["game_end"],
        ),
        // 2009 §5.2c: no such condition.
        case(
            "13-5b 2009-NO 5.2c agreement after one move",
            "fide-2009-no",
            start(),
            accept.clone(),
            &["game_end.reason=agreement", "game_end.article=5.2c"],
            &[],
        ),
        case(
            "13-5c 2001 5.2c agreement after one move",
            "fide-2001",
            start(),
            accept,
            &["game_end.reason=agreement", "game_end.article=5.2c"],
            &[],
        ),
        // F49, 9.6.2: 75 moves each without a pawn move or capture end
        // the game.
        case(
            "13-5d 2023 9.6.2 seventy-five moves",
            "fide-2023",
            std(seventy),
            ra2,
            &[
                "game_end.reason=seventy_five_moves",
                "game_end.article=9.6.2",
                "game_end.result=1/2-1/2",
            ],
            &[],
        ),
        // 2009 §9.3: only a claim (the player having the move may claim).
        case(
            "13-5e 2009 9.3 seventy-five moves claimable only",
            "fide-2009",
            std(seventy),
            ra2,
            &["draw_claimable.kind=fifty_moves"],
            &["game_end"],
        ),
        case(
            "13-5f 2001 9.3 seventy-five moves claimable only",
            "fide-2001",
            std(seventy),
            ra2,
            &["draw_claimable.kind=fifty_moves"],
            &["game_end"],
        ),
        // 9.6.2: "If the last move resulted in checkmate, that shall take
        // precedence."
        case(
            "13-5g 2023 9.6.2 mate on the 75th move",
            "fide-2023",
            std(mate75),
            rh8,
            &[
                "game_end.reason=checkmate",
                "game_end.result=1-0",
                "game_end.article=5.1.1",
            ],
            &["game_end.reason=seventy_five_moves"],
        ),
        // F45 / D31: 2009 §9.4 "Hvis en spiller rører en brik som beskrevet
        // i § 4.3 uden at have gjort krav på remis, mister han retten" (2023
        // 9.4 the same); 2001 §9.4 "Hvis en spiller udfører et træk …":
        // only a move made loses it. White holds his knight, the start
        // position stands for the third time.
        case(
            "13-5o 2009 9.4 a threefold claim after a touch",
            "fide-2009",
            start(),
            threefold.clone(),
            &["claim.upheld=false"],
            &["game_end"],
        ),
        case(
            "13-5p 2023 9.4 a threefold claim after a touch",
            "fide-2023",
            start(),
            threefold.clone(),
            &["claim.upheld=false"],
            &["game_end"],
        ),
        case(
            "13-5q 2001 9.4 a threefold claim after a touch",
            "fide-2001",
            start(),
            threefold,
            &[
                "claim.upheld=true",
                "game_end.reason=threefold",
                "game_end.result=1/2-1/2",
            ],
            &[],
        ),
        // B.3 → A.3: a wrong claim in blitz costs one minute (9.5.3 "two
        // minutes", A.3 "one minute instead of two"); 182 s + 60 s.
        case(
            "13-5h 2023 B.3 wrong claim in blitz",
            "fide-2023",
            blitz("180+2"),
            "1000 claim threefold w",
            &["claim.upheld=false", "clock.black_ms=242000"],
            &[],
        ),
        // 2009 §9.5b "tillægge 3 minutter": no blitz rule changes it.
        case(
            "13-5i 2009 9.5b wrong claim in blitz",
            "fide-2009",
            blitz("180+2"),
            "1000 claim threefold w",
            &["claim.upheld=false", "clock.black_ms=362000"],
            &[],
        ),
        // 9.5.3 in standard: two minutes; 2009-NO §9.5b "tre minutters".
        case(
            "13-5j 2023 9.5.3 wrong claim standard",
            "fide-2023",
            start(),
            "1000 claim fifty_moves w",
            &[
                "claim.upheld=false",
                "clock.black_ms=5550000",
                "claim.article=9.5.3",
            ],
            &[],
        ),
        case(
            "13-5k 2009-NO 9.5b wrong claim standard",
            "fide-2009-no",
            start(),
            "1000 claim fifty_moves w",
            &[
                "claim.upheld=false",
                "clock.black_ms=5610000",
                "claim.article=9.5b",
            ],
            &[],
        ),
        // F16: 2009-NO / 2001 §5.1b: a resignation loses, whatever the
        // opponent holds (2023 5.1.2 makes it a draw).
        case(
            "13-5l 2009-NO 5.1b resigning against a lone king",
            "fide-2009-no",
            std(queen),
            "1000 resign w",
            &["game_end.result=0-1", "game_end.article=5.1b"],
            &[],
        ),
        case(
            "13-5m 2001 5.1b resigning against a lone king",
            "fide-2001",
            std(queen),
            "1000 resign w",
            &["game_end.result=0-1", "game_end.article=5.1b"],
            &[],
        ),
        // 2023 5.1.2 with the lone king resigning: the opponent (White,
        // with a queen) can mate: a loss.
        case(
            "13-5n 2023 5.1.2 the lone king resigns",
            "fide-2023",
            hdr(
                "5400+30",
                json!({"start_fen": "4k3/8/8/8/8/8/8/3QK3 b - - 0 1"}),
            ),
            "1000 resign b",
            &["game_end.result=1-0"],
            &["game_end.result=1/2-1/2"],
        ),
    ]);
}
