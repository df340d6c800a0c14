//! Held-out Laws cases, session 12 (issue 25, "Judged by"): situations
//! written from the seed texts (000 = 2001-DK, 002 = 2009-DK, 003 =
//! 2009-NO) and `../shared/rules/fide-2023.md`, not from the arbiter's
//! code, in every profile where the text differs, each run through the
//! real binary (`eboard replay - --json --rules P`). Every case names the
//! text that decides it; the readings chosen where a text is open are in
//! docs/dev/profiles-notes.md ("Held-out cases, session 12"). The runs go in
//! parallel, one process each: about 2 s in all.
//! The harness and the case language: `tests/common/heldout.rs`. Point 7
//! (the articles) is in `tests/articles.rs`.

#[path = "heldout/cases13.rs"]
mod cases13;
#[path = "heldout/cases14.rs"]
mod cases14;
#[path = "heldout/cases16.rs"]
mod cases16;
#[path = "heldout/cases17.rs"]
mod cases17;
#[path = "heldout/cases18.rs"]
mod cases18;
use crate::common;

use common::heldout::{case, hdr, run};
use serde_json::{json, Value};

/// White's bishop e2 is pinned by the rook e7: Be2-d3 leaves the king in check.
const PINNED: &str = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";
const BD3: &str = "1000 lift e2\n1200 place d3 B\n1500 press w\n";

fn unsupervised(fen: &str, mode: &str, tc: &str) -> Value {
    hdr(
        tc,
        // The board as the arbiter's eye under 2023 A.5.2 / B.3 (issue 40).
        json!({"start_fen": fen, "mode": mode, "supervision": "inadequate", "sensing": "identity",
               "board_observes_illegal_moves": true}),
    )
}

/// Point 1: unsupervised illegal moves, claims in and out of time.
#[test]
fn point_1_unsupervised_illegal_moves_and_their_claims() {
    // White's king steps into the rook's file (d1 attacked from d2).
    let into_check = "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1";
    let kd1 = "1000 lift e1\n1200 place d1 K\n1500 press w\n";
    // White's rook moves diagonally; Black has only his king.
    let lone = "4k3/8/8/8/8/8/8/4K2R w - - 0 1";
    let rg2 = "1000 lift h1\n1200 place g2 R\n1500 press w\n";
    run(vec![
        // 2009 B3c: "Modstanderen har ret til at kræve gevinst før han har
        // udført sit eget træk" (Black can mate: he has a rook).
        case(
            "1a B3c claim in time wins",
            "fide-2009",
            unsupervised(into_check, "blitz", "180+2"),
            format!("{kd1}2000 claim illegal_move b"),
            &["claim.upheld=true", "illegal_move.article=B3c", "game_end.result=0-1"],
            &[],
        ),
        // B3c: "Så snart modstanderen har udført sit eget træk, kan et
        // ulovligt træk ikke rettes".
        case(
            "1b B3c claim after the reply stands",
            "fide-2009-no",
            unsupervised(into_check, "blitz", "180+2"),
            format!("{kd1}3000 lift e8\n3200 place e7 k\n3500 press b\n4000 claim illegal_move b"),
            &["claim.upheld=false", "move.san=Ke7+"],
            &["illegal_move", "game_end"],
        ),
        // 2001 C3: "Hvis modstanderen ikke kan sætte spilleren skakmat …
        // kan modstanderen dog kun kræve remis."
        case(
            "1c C3 lone king claims a draw",
            "fide-2001",
            unsupervised(lone, "blitz", "180"),
            format!("{rg2}2000 claim illegal_move b"),
            &["game_end.result=1/2-1/2", "game_end.article=C3"],
            &["game_end.result=0-1"],
        ),
        // 2009 A4c: "før kravstilleren selv udfører sit træk": holding his
        // own king (touched, nothing made) he is still in time; §7.4: +2 min.
        case(
            "1d A4c claim while holding a piece",
            "fide-2009",
            unsupervised(PINNED, "rapid", "1500+10"),
            format!("{BD3}2000 lift e8\n2300 claim illegal_move b"),
            &[
                "claim.upheld=true",
                "illegal_move.article=A4c",
                "illegal_move.penalty=+2 min to black",
            ],
            &["game_end"],
        ),
        // A4c, "udført" = made (§4.6): his move released 2 s and more
        // before the claim closes the window.
        case(
            "1e A4c claim after his own move made",
            "fide-2009",
            unsupervised(PINNED, "rapid", "1500+10"),
            format!("{BD3}3000 lift e8\n3200 place d8 k\n6000 claim illegal_move b"),
            &["claim.upheld=false"],
            &["illegal_move"],
        ),
        // 2023 B.3 → A.5.2: the arbiter who observes it acts (7.5.5, A.3: 1 min).
        case(
            "1f 2023 B.3 ruled at the press",
            "fide-2023",
            unsupervised(PINNED, "blitz", "180+2"),
            BD3,
            &["illegal_move.penalty=+1 min to black", "illegal_move.article=7.5.1"],
            &["move"],
        ),
        // 2001 C3: nobody claims, Black replies: the move stands, the game
        // goes on from the board.
        case(
            "1g C3 unclaimed king into check stands",
            "fide-2001",
            unsupervised(into_check, "blitz", "180"),
            format!("{kd1}3000 lift e8\n3200 place f7 k\n3500 press b\n5000 lift d1\n5200 place c1 K\n5500 press w"),
            &["move.san=Kf7+", "move.ply=3"],
            &["illegal_move", "game_end"],
        ),
        // 2001 §9.5b: "det meddelte træk skal udføres"; 2009 §9.5b "i
        // henhold til § 4" (the knight may go elsewhere).
        case(
            "1h 2001 9.5b the announced move itself",
            "fide-2001",
            hdr("5400+30", json!({})),
            format!("{SHUFFLE}9000 claim threefold b f6h5\n10000 mv f6g4 b"),
            &["touch_move.article=9.5b", "touch_move.touched=f6"],
            &[],
        ),
        case(
            "1i 2009 9.5b the piece only",
            "fide-2009",
            hdr("5400+30", json!({})),
            format!("{SHUFFLE}9000 claim threefold b f6h5\n10000 mv f6g4 b"),
            &["move.san=Ng4"],
            &["touch_move"],
        ),
    ]);
}

/// 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1, Black to move.
const SHUFFLE: &str = "1000 mv g1f3 w\n2000 mv g8f6 b\n3000 mv f3g1 w\n4000 mv f6g8 b\n\
                       5000 mv g1f3 w\n6000 mv g8f6 b\n7000 mv f3g1 w\n";

/// Point 3: a pause holds.
#[test]
fn point_3_a_pause_holds_whatever_is_pressed() {
    let e4e5 = "1000 lift e2\n1200 place e4\n1500 press w\n";
    run(vec![
        // 2001 §6.13c: "Turneringslederen bestemmer hvornår partiet
        // genoptages": Black's move pressed during the pause completes
        // nothing; his press after the resume does; 0.5 s + 2 s charged.
        case(
            "3a 2001 6.13c press during the pause",
            "fide-2001",
            hdr("5400+30", json!({})),
            format!("{e4e5}2000 arbiter pause\n3000 lift e7\n3200 place e5\n3500 press b\n10000 arbiter resume\n12000 press b"),
            &[
                "irregularity.kind=press_during_pause",
                "irregularity.article=6.13c",
                "move.t=12000",
                "clock.black_ms=5457500",
            ],
            &["move.t=3500"],
        ),
        // 2009 §6.12c: White's move made before the pause, pressed during
        // it: not completed; his press after the resume completes it, 1.3 s
        // + 1 s charged (+30 s).
        case(
            "3c 2009 6.12c a made move pressed in the pause",
            "fide-2009-no",
            hdr("5400+30", json!({})),
            "1000 lift e2\n1200 place e4\n1300 arbiter pause\n1500 press w\n5000 arbiter resume\n6000 press w",
            &["irregularity.kind=press_during_pause", "move.t=6000", "clock.white_ms=5457700"],
            &["move.t=1500"],
        ),
        // 2023 6.11.3 and 7.5.3: a press without a move during the pause is
        // no illegal move.
        case(
            "3b 2023 press without a move in the pause",
            "fide-2023",
            hdr("5400+30", json!({})),
            format!("{e4e5}2000 arbiter pause\n3000 press b\n3500 press b\n9000 arbiter resume"),
            &["irregularity.article=6.11.3"],
            &["illegal_move"],
        ),
    ]);
}

/// Point 5: the 2023 rows of the diff table (`fide-2023.md` §3), against
/// the 2009 / 2001 texts.
#[test]
fn point_5_the_2023_rows_against_2009_and_2001() {
    let std = || hdr("5400+30", json!({}));
    let e4 = "1000 lift e2\n1200 place e4\n1500 press w\n";
    let twice = "1000 lift e2\n1200 place e5\n1500 press w\n2000 lift e5\n2200 place e2\n\
                 3000 lift e2\n3200 place e5\n3500 press w\n";
    let queen = || {
        hdr(
            "5400+30",
            json!({"start_fen": "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"}),
        )
    };
    let shuffle2 = format!(
        "{SHUFFLE}8000 mv f6g8 b\n9000 mv g1f3 w\n10000 mv g8f6 b\n11000 mv f3g1 w\n12000 mv f6g8 b\n\
         13000 mv g1f3 w\n14000 mv g8f6 b\n15000 mv f3g1 w\n16000 mv f6g8 b\n"
    );
    let flag =
        "1000 lift e2\n1200 place e4\n1500 press w\n2000 lift e7\n2200 place e5\n2500 press b\n\
                950000 claim time b\n";
    // 2023 A.5.2 with the board as the arbiter's eye (issue 40).
    let rapid = |tc: &str| {
        hdr(
            tc,
            json!({"mode": "rapid", "supervision": "inadequate", "board_observes_illegal_moves": true}),
        )
    };
    run(vec![
        // F17, 5.2.3: "provided both players have made at least one move";
        // 2009 §5.2c: no such condition.
        case(
            "5a F17 2023",
            "fide-2023",
            std(),
            "500 offer w\n800 accept b",
            &["irregularity.article=5.2.3"],
            &["game_end"],
        ),
        case(
            "5a F17 2009",
            "fide-2009",
            std(),
            "500 offer w\n800 accept b",
            &["game_end.article=5.2c"],
            &[],
        ),
        case(
            "5a F17 2001",
            "fide-2001",
            std(),
            "500 offer w\n800 accept b",
            &["game_end.article=5.2c"],
            &[],
        ),
        // F16, 5.1.2: resigning against a lone king is a draw; 2009 §5.1b a loss.
        case(
            "5b F16 2023",
            "fide-2023",
            queen(),
            "1000 resign w",
            &["game_end.result=1/2-1/2", "game_end.article=5.1.2"],
            &[],
        ),
        case(
            "5b F16 2009",
            "fide-2009",
            queen(),
            "1000 resign w",
            &["game_end.result=0-1", "game_end.article=5.1b"],
            &[],
        ),
        // F21 / F35, 7.5.3: a press without a move is an illegal move.
        case(
            "5c F21 2023",
            "fide-2023",
            std(),
            format!("{e4}2500 press b"),
            &[
                "illegal_move.article=7.5.3",
                "illegal_move.penalty=+2 min to white",
            ],
            &[],
        ),
        case(
            "5c F21 2009-NO",
            "fide-2009-no",
            std(),
            format!("{e4}2500 press b"),
            &["irregularity.kind=clock_pressed_without_move"],
            &["illegal_move"],
        ),
        // F36, 7.5.5: the second illegal move loses; 2009 §7.4b the third.
        case(
            "5d F36 2023",
            "fide-2023",
            std(),
            twice,
            &["game_end.result=0-1", "game_end.reason=illegal_moves"],
            &[],
        ),
        case(
            "5d F36 2009",
            "fide-2009",
            std(),
            twice,
            &["illegal_move.count=2"],
            &["game_end"],
        ),
        // F47 / F59, 9.5.3 with A.3: +1 min in rapid; 2009 §9.5b +3 min;
        // 2001 §9.5b +3 min and the claimant's time cut.
        case(
            "5e F47 2023 rapid",
            "fide-2023",
            rapid("1500+10"),
            "1000 claim threefold w",
            &["claim.upheld=false", "clock.black_ms=1570000"],
            &[],
        ),
        case(
            "5e F47 2009 rapid",
            "fide-2009",
            rapid("1500+10"),
            "1000 claim threefold w",
            &["claim.upheld=false", "clock.black_ms=1690000"],
            &[],
        ),
        case(
            "5e F47 2001 rapid",
            "fide-2001",
            rapid("1500+10"),
            "1000 claim threefold w",
            &["clock.black_ms=1690000", "claim.consequence~reduced"],
            &[],
        ),
        // F48, 9.6.1: the fifth occurrence draws; 2009: claim only.
        case(
            "5f F48 2023",
            "fide-2023",
            std(),
            shuffle2.clone(),
            &["game_end.reason=fivefold", "game_end.article=9.6.1"],
            &[],
        ),
        case(
            "5f F48 2009",
            "fide-2009",
            std(),
            shuffle2,
            &["draw_claimable"],
            &["game_end"],
        ),
        // F56 / F57: 11 minutes is rapid in 2023 (A.1: over 10), blitz in
        // 2009 (B1: under 15), so an illegal move is ruled at the press
        // (+1 min) in 2023 and only on a claim in 2009 (B3c).
        case(
            "5g F57 2023",
            "fide-2023",
            // The board as the arbiter's eye (A.5.2; issue 40).
            hdr("660", json!({"board_observes_illegal_moves": true})),
            "1000 lift e2\n1200 place e5\n1500 press w",
            &["illegal_move.penalty=+1 min to black"],
            &[],
        ),
        case(
            "5g F57 2009",
            "fide-2009",
            hdr("660", json!({})),
            "1000 lift e2\n1200 place e5\n1500 press w",
            &[],
            &["illegal_move"],
        ),
        // F65, A.5.5: the arbiter calls the flag; 2009 A4d1 and 2001 B6:
        // only a player's claim does.
        case(
            "5h F65 2023",
            "fide-2023",
            rapid("900"),
            flag,
            &["game_end.t=901000", "game_end.reason=time"],
            &[],
        ),
        case(
            "5h F65 2009",
            "fide-2009",
            rapid("900"),
            flag,
            &["game_end.t=950000", "game_end.result=0-1"],
            &["game_end.t=901000"],
        ),
        case(
            "5h F65 2001",
            "fide-2001",
            rapid("900"),
            flag,
            &["game_end.t=950000", "game_end.result=0-1"],
            &["game_end.t=901000"],
        ),
        // 2009 A4d1 / 2001 B6: "Dommeren skal afholde sig fra at gøre
        // opmærksom på vingefald": the flag is not said to the players;
        // 2023 A.5.5: the arbiter calls it (said).
        case(
            "5h A4d1 the flag unsaid",
            "fide-2009",
            hdr(
                "900",
                json!({"mode": "rapid", "supervision": "inadequate", "language": "da"}),
            ),
            flag,
            &["flag.t=901000", "announce.t=950000"],
            &["announce.t=901000"],
        ),
        case(
            "5h B6 the flag unsaid",
            "fide-2001",
            hdr("900", json!({"mode": "rapid", "language": "da"})),
            flag,
            &["announce.t=950000"],
            &["announce.t=901000"],
        ),
        case(
            "5h A.5.5 the flag called",
            "fide-2023",
            hdr(
                "900",
                json!({"mode": "rapid", "supervision": "inadequate", "language": "da"}),
            ),
            flag,
            &["announce.t=901000"],
            &[],
        ),
        // F60: blitz under B.3: +1 min, the second illegal move loses.
        case(
            "5i F60 2023",
            "fide-2023",
            hdr(
                "180+2",
                json!({"mode": "blitz", "supervision": "inadequate", "board_observes_illegal_moves": true}),
            ),
            twice,
            &[
                "illegal_move.penalty=+1 min to black",
                "game_end.result=0-1",
            ],
            &[],
        ),
    ]);
}

/// §10.2 (2001, 2009) and Guidelines III.5 (2023): who may claim, when.
#[test]
fn quickplay_claims_only_as_the_texts_allow_them() {
    // White on move from 2.5 s; at 200 s he has 101 s of 300 s left.
    let e4e5 =
        "1000 lift e2\n1200 place e4\n1500 press w\n2000 lift e7\n2200 place e5\n2500 press b\n";
    let at = |t: u64, by: &str| format!("{e4e5}{t} claim insufficient_losing_chances {by}");
    let std = |tc: &str| hdr(tc, json!({"mode": "standard"}));
    run(vec![
        // 10.2: "Hvis spilleren som er i trækket har mindre end to minutter".
        case(
            "Q1 10.2 two minutes or more",
            "fide-2009",
            std("5400"),
            at(10_000, "w"),
            &["claim.consequence~two minutes or more"],
            &["claim.consequence~referred"],
        ),
        case(
            "Q2 10.2 less than two minutes",
            "fide-2009",
            std("300"),
            at(200_000, "w"),
            &["claim.consequence~referred"],
            &[],
        ),
        case(
            "Q3 10.2 not on move",
            "fide-2001",
            std("300"),
            at(200_000, "b"),
            &["claim.consequence~having the move"],
            &["claim.consequence~referred"],
        ),
        // III.2.2: only games without increment.
        case(
            "Q4 III.2.2 increment",
            "fide-2023",
            std("300+2"),
            at(202_000, "w"),
            &["claim.consequence~III.2.2"],
            &["claim.consequence~referred"],
        ),
        case(
            "Q5 III.5 no increment",
            "fide-2023",
            std("300"),
            at(200_000, "w"),
            &["claim.consequence~referred", "claim.article=III.5"],
            &[],
        ),
        // 10.1: not while moves remain before the next time control.
        case(
            "Q6 10.1 moves remain",
            "fide-2009",
            std("40/300:300"),
            at(200_000, "w"),
            &["claim.consequence~moves remain"],
            &["claim.consequence~referred"],
        ),
        // 2009 B2: adequately supervised blitz follows the Laws, §10.2
        // included; B3b excludes it without; 2001 C4 always.
        case(
            "Q7 B2 blitz supervised",
            "fide-2009",
            hdr("180", json!({"mode": "blitz", "supervision": "adequate"})),
            at(80_000, "w"),
            &["claim.consequence~referred"],
            &[],
        ),
        case(
            "Q8 B3b blitz unsupervised",
            "fide-2009",
            hdr("180", json!({"mode": "blitz", "supervision": "inadequate"})),
            at(80_000, "w"),
            &["claim.consequence~B3b"],
            &["claim.consequence~referred"],
        ),
        case(
            "Q9 C4 blitz",
            "fide-2001",
            hdr("180", json!({"mode": "blitz"})),
            at(80_000, "w"),
            &["claim.consequence~C4"],
            &["claim.consequence~referred"],
        ),
    ]);
}

/// Point 6: Appendix E (2001 F, 2009 E, 2023 D), the visually impaired
/// player White on the tactile board.
#[test]
fn point_6_appendix_e_with_the_vi_player_white() {
    let vi = || {
        json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "w", "language": "da",
               "time_control": "5400+30"})
    };
    // E2.3c: "Et træk er udført når … trækket er blevet meddelt": his e4
    // announced when it stood (1.3 s + 300 ms), long before his press.
    let e4e5 = "1000 tactile lift e2\n1300 tactile place e4\n5000 press w\n6000 main lift e2\n\
                6300 main place e4\n7000 main lift e7\n7300 main place e5\n8000 press b\n";
    // E2.7: his copy of e5 put on e6, then his own Nf3: the boards differ
    // on e5 and e6 only (never g1 / f3), never displaced pieces.
    let wrong = format!(
        "{e4e5}9000 tactile lift e7\n9300 tactile place e6\n10000 tactile lift g1\n10300 tactile place f3\n12500 press w"
    );
    let mut cases = Vec::new();
    for (rules, differ) in [
        ("fide-2001", "F2.7"),
        ("fide-2009-no", "E2.7"),
        ("fide-2023", "D.2.9"),
    ] {
        cases.push(case(
            "6a E2.3c announced as it stands",
            rules,
            vi(),
            e4e5,
            &["announce.t=1600", "move.t=5000"],
            &["irregularity"],
        ));
        cases.push(case(
            "6b E2.7 only the copy's squares",
            rules,
            vi(),
            wrong.clone(),
            &[
                "irregularity.kind=boards_differ",
                "irregularity.squares=[\"e5\",\"e6\"]",
                if differ == "F2.7" {
                    "irregularity.article=F2.7"
                } else if differ == "E2.7" {
                    "irregularity.article=E2.7"
                } else {
                    "irregularity.article=D.2.9"
                },
                "move.san=Nf3",
            ],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
    }
    run(cases);
}
