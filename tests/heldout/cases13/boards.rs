//! Session 13's held-out cases for points 2 (a board turned or set right
//! mid-game) and 6 (Appendix E copies, the visually impaired player Black).

use crate::common::heldout::{case, hdr, play_on, run, sensor, set_down_on, Lie};
use serde_json::{json, Value};
use shakmaty::{Chess, Position, Square};

/// Steps of a game: `before` played on the board lying `from` (its set-up
/// read in one frame at t = 0 when it is not right), at 20 s every piece
/// lifted and set down again on the board lying `to`, then `after` played
/// there. Captures lift the taken piece first. `colour`: the board senses
/// colours.
fn transfer(before: &[&str], from: Lie, to: Lie, after: &[&str], colour: bool) -> String {
    let mut pos = Chess::default();
    let mut s = String::new();
    if !matches!(from, Lie::Right) {
        let mut bits = 0u64;
        for sq in pos.board().occupied() {
            let seen: Square = sensor(from, sq).parse().unwrap();
            bits |= 1 << u32::from(seen);
        }
        s += &format!("0 frame {bits:016x}\n");
    }
    let mut t = 1000;
    let play = |s: &mut String, pos: &mut Chess, t: &mut u64, uci: &str, lie: Lie| {
        play_on(s, pos, t, uci, lie, colour)
    };
    for uci in before {
        play(&mut s, &mut pos, &mut t, uci, from);
    }
    let mut t2 = 20_000;
    let occupied: Vec<Square> = pos.board().occupied().into_iter().collect();
    for sq in occupied.iter().rev() {
        s += &format!("{t2} lift {}\n", sensor(from, *sq));
        t2 += 10;
    }
    for sq in &occupied {
        set_down_on(&mut s, &pos, t2, *sq, to, colour);
        t2 += 10;
    }
    let mut t = 30_000;
    for uci in after {
        play(&mut s, &mut pos, &mut t, uci, to);
    }
    s
}

const FIVE: [&str; 5] = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"];
const THEN: [&str; 3] = ["g8f6", "d2d3", "f8c5"];
/// With two captures before the transfer: 1. e4 d5 2. exd5 Qxd5 3. Nc3.
const TAKES: [&str; 5] = ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3"];
const TAKES_THEN: [&str; 3] = ["d5a5", "d2d4", "g8f6"];

/// Point 2: a board turned or set right at ply 0, 1 and 5.
#[test]
fn s13_point_2_a_board_turned_or_set_right_at_any_ply() {
    let occ = || hdr("5400+30", json!({}));
    let col = || hdr("5400+30", json!({"sensing": "colour"}));
    let quiet = [
        "illegal_move",
        "touch_move",
        "irregularity.kind=displaced",
        "game_end",
    ];
    let turned_quiet = [
        "illegal_move",
        "touch_move",
        "game_end",
        "irregularity.kind=colours_reversed",
        "irregularity.kind=board_orientation",
        "irregularity.article=7.3",
    ];
    let five_then = transfer(&FIVE, Lie::Right, Lie::Quarter, &THEN, false);
    let half = transfer(&FIVE, Lie::Right, Lie::Half, &THEN, false);
    run(vec![
        // 2009 §7.1b: "skal partiet fortsætte, men stillingen skal
        // overføres til et rigtigt vendt bræt" — transferred at ply 5,
        // Black on move.
        case(
            "13-2a 2009 7.1b at ply 5",
            "fide-2009",
            occ(),
            five_then.clone(),
            &[
                "irregularity.kind=board_orientation",
                "irregularity.article=7.1b",
                "move.san=Nf6",
                "move.san=d3",
                "move.san=Bc5",
            ],
            &quiet,
        ),
        // 2023 7.2.2 "the game shall continue but the position reached
        // must be transferred to a correctly placed chessboard".
        case(
            "13-2b 2023 7.2.2 at ply 5",
            "fide-2023",
            occ(),
            five_then,
            &["irregularity.article=7.2.2", "move.san=Bc5"],
            &quiet,
        ),
        // 2001 §7.1b: set up a quarter turned, played so for five plies,
        // then set right.
        case(
            "13-2c 2001 7.1b set right at ply 5",
            "fide-2001",
            occ(),
            transfer(&FIVE, Lie::ThreeQuarters, Lie::Right, &THEN, false),
            &[
                "irregularity.article=7.1b",
                "move.san=Bc4",
                "move.san=Nf6",
                "move.san=Bc5",
            ],
            &quiet,
        ),
        // 2009-NO §7.1b at ply 1 (after 1. e4).
        case(
            "13-2d 2009-NO 7.1b at ply 1",
            "fide-2009-no",
            occ(),
            transfer(
                &["e2e4"],
                Lie::Right,
                Lie::Quarter,
                &["e7e5", "g1f3", "b8c6"],
                false,
            ),
            &["irregularity.article=7.1b", "move.san=e5", "move.san=Nc6"],
            &quiet,
        ),
        // 2009 §7.1b after two captures (30 pieces left).
        case(
            "13-2e 2009 7.1b after captures",
            "fide-2009",
            occ(),
            transfer(&TAKES, Lie::Right, Lie::ThreeQuarters, &TAKES_THEN, false),
            &[
                "irregularity.kind=board_orientation",
                "move.san=Qa5",
                "move.san=d4",
                "move.san=Nf6",
            ],
            &quiet,
        ),
        // A half turn breaks no rule of placement (2001 §2.1: "det hjørne-
        // felt der er nærmest ved hver spillers højre hånd er hvidt"); the
        // colours are not reversed by it (7.2 is about the game begun so).
        case(
            "13-2f 2001 half turn at ply 5",
            "fide-2001",
            occ(),
            half.clone(),
            &["irregularity.kind=board_turned", "move.san=Bc5"],
            &turned_quiet,
        ),
        // 2023: never 7.3's "shall be discontinued" for a board turned
        // (the players' colours did not change).
        case(
            "13-2g 2023 half turn at ply 5, colours sensed",
            "fide-2023",
            col(),
            transfer(&FIVE, Lie::Right, Lie::Half, &THEN, true),
            &[
                "irregularity.kind=board_turned",
                "irregularity.article=2.1",
                "move.san=Bc5",
            ],
            &turned_quiet,
        ),
        case(
            "13-2h 2009 half turn at ply 5",
            "fide-2009",
            occ(),
            half,
            &[
                "irregularity.kind=board_turned",
                "irregularity.article=2.1",
                "move.san=Nf6",
            ],
            &turned_quiet,
        ),
    ]);
}

/// Two boards, the visually impaired player Black on the tactile one.
fn vi(extra: Value) -> Value {
    let mut h = json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "b",
                       "language": "da", "time_control": "5400+30"});
    if let (Some(h), Some(e)) = (h.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            h.insert(k.clone(), v.clone());
        }
    }
    h
}

/// White's 1. e4 on the main board, pressed at 1.8 s.
const W_E4: &str = "1000 main lift e2\n1300 main place e4\n1800 press w\n";
/// Black's own 1… e5 on the tactile board, standing from 3.8 s.
const B_E5: &str = "3500 tactile lift e7\n3800 tactile place e5\n";

/// Point 6: Appendix E (2001 F, 2009 E, 2023 D) with the VI player Black.
#[test]
fn s13_point_6_copies_by_and_for_the_vi_player_black() {
    let good = format!("{W_E4}2500 tactile lift e2\n2800 tactile place e4\n{B_E5}6000 press b\n");
    // E2.7: Black's copy of e4 put on e3, then his own e5.
    let wrong = format!("{W_E4}2500 tactile lift e2\n2800 tactile place e3\n{B_E5}6000 press b\n");
    // E2.7 on the sighted player's board: his copy of e5 on e6, then Nf3.
    let sighted = format!(
        "{good}7000 main lift e7\n7300 main place e6\n8000 main lift g1\n8300 main place f3\n9000 press w"
    );
    // E2.3c then §4.6 / 2023 4.7: his e5 announced (made), then moved on.
    let changed = format!(
        "{W_E4}2500 tactile lift e2\n2800 tactile place e4\n{B_E5}5000 tactile lift e5\n5300 tactile place e6\n7000 press b"
    );
    let mut cases = Vec::new();
    for (rules, art) in [
        ("fide-2001", "F2.7"),
        ("fide-2009", "E2.7"),
        ("fide-2009-no", "E2.7"),
        ("fide-2023", "D.2.9"),
    ] {
        let article = match art {
            "F2.7" => "irregularity.article=F2.7",
            "E2.7" => "irregularity.article=E2.7",
            _ => "irregularity.article=D.2.9",
        };
        // E2.7 "forskellige stillinger på de to skakbrætter": only the
        // copy's squares, never those of his own move, never §7.3.
        cases.push(case(
            "13-6a E2.7 the VI player's wrong copy, then his move",
            rules,
            vi(json!({})),
            wrong.clone(),
            &[
                "irregularity.kind=boards_differ",
                "irregularity.squares=[\"e3\",\"e4\"]",
                article,
                "move.san=e5",
            ],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
        // E2.7 is either board's: the sighted player's copy.
        cases.push(case(
            "13-6b E2.7 the sighted player's wrong copy, then his move",
            rules,
            vi(json!({})),
            sighted.clone(),
            &[
                "irregularity.kind=boards_differ",
                "irregularity.squares=[\"e5\",\"e6\"]",
                article,
                "move.san=Nf3",
            ],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
    }
    // E2.7 at ply 3: Black's copy of 2. Nf3 put on h3, then his Nc6.
    let later = format!(
        "{good}7000 main lift e7\n7300 main place e5\n8000 main lift g1\n8300 main place f3\n9000 press w\n\
         10000 tactile lift g1\n10300 tactile place h3\n11000 tactile lift b8\n11300 tactile place c6\n13000 press b"
    );
    for rules in ["fide-2009-no", "fide-2023"] {
        cases.push(case(
            "13-6f E2.7 a wrong copy at ply 3",
            rules,
            vi(json!({})),
            later.clone(),
            &[
                "irregularity.kind=boards_differ",
                "irregularity.squares=[\"f3\",\"h3\"]",
                "move.san=Nc6",
            ],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
    }
    // E2.3 "a. i tilfælde af slag, når den slagne brik er fjernet fra
    // brættet hos den spiller som nu er i trækket b. … placeret i et andet
    // tilsvarende hul c. trækket er blevet meddelt" (2023 D.2.3.1–3): his
    // 2… dxe4 is announced once White's pawn is off and his own placed.
    let capture = "1000 main lift e2\n1300 main place e4\n1800 press w\n2500 tactile lift e2\n2800 tactile place e4\n\
                   3500 tactile lift d7\n3800 tactile place d5\n6000 press b\n7000 main lift d7\n7300 main place d5\n\
                   8000 main lift b1\n8300 main place c3\n9000 press w\n10000 tactile lift b1\n10300 tactile place c3\n\
                   11000 tactile lift e4\n11300 tactile lift d5\n11600 tactile place e4\n14000 press b";
    for rules in ["fide-2009", "fide-2023"] {
        cases.push(case(
            "13-6g E2.3a a capture announced once made",
            rules,
            vi(json!({})),
            capture,
            &["announce.t=11900", "move.san=dxe4", "move.t=14000"],
            &["irregularity"],
        ));
    }
    // E2.3c "Et træk er udført når … c. trækket er blevet meddelt":
    // Black's e5 announced as it stands (300 ms settled), long before his
    // press.
    // Black's pawn b2 to b1 on the tactile board, no piece named.
    let pawn = "4k3/8/8/8/8/8/1p6/4K3 b - - 0 1";
    let promo = "1000 tactile lift b2\n1300 tactile place b1\n";
    for (rules, made, named) in [
        ("fide-2001", "F2.3", "-"),
        ("fide-2009", "E2.3", "E2.1"),
        ("fide-2023", "D.2.3", "D.2.1"),
    ] {
        cases.push(case(
            "13-6c E2.3c Black's move announced as it stands",
            rules,
            vi(json!({})),
            good.clone(),
            &["announce.t=4100", "move.t=6000", "move.san=e5"],
            &["irregularity"],
        ));
        // Made once announced (E2.3c; 2023 D.2.3.3): moving the piece on
        // is a breach the arbiter is told of, under the article that makes
        // the move made (2023 D.2.3; D.2.4 is the clock's start).
        cases.push(case(
            "13-6d E2.3c an announced move moved on",
            rules,
            vi(json!({})),
            changed.clone(),
            &[
                "announce.t=4100",
                "irregularity.kind=moved_after_announcement",
                match made {
                    "F2.3" => "irregularity.article=F2.3",
                    "E2.3" => "irregularity.article=E2.3",
                    _ => "irregularity.article=D.2.3",
                },
            ],
            &[],
        ));
        // 2009 E2.1 "Ved bondeforvandling skal spilleren nævne hvilken brik
        // der er valgt" (2023 D.2.1 "the player must announce which piece
        // has been chosen"; 2001 F2.1 has only "Trækkene skal meddeles
        // tydeligt"): the piece unnamed is asked for, nothing completed.
        cases.push(case(
            "13-6e E2.1 a promotion without the piece named",
            rules,
            vi(json!({"start_fen": pawn})),
            promo,
            &[
                "irregularity.kind=promotion_piece_unnamed",
                match named {
                    "E2.1" => "irregularity.article=E2.1",
                    "D.2.1" => "irregularity.article=D.2.1",
                    // 2001: no sentence of its own (docs/dev/profiles-notes.md).
                    _ => "irregularity.kind=promotion_piece_unnamed",
                },
            ],
            &["move"],
        ));
    }
    run(cases);
}
