//! The set-up before the first move (issue 13 §2; §7.1a / 2023 7.2.1): the
//! main board compared with the start position, guidance (`setup` events)
//! while it differs, a first reading with a piece in hand taken as a lift,
//! and `wrong_initial_position` only when a move is completed from a set-up
//! that was never right, in every profile.

use crate::common;

use common::{of, replay_steps, sans, ALL_RULES as ALL};
use serde_json::{json, Value};

fn article(rules: &str) -> &'static str {
    if rules == "fide-2023" {
        "7.2.1"
    } else {
        "7.1a"
    }
}

fn guidance(ev: &[Value]) -> Vec<(Value, Value, Value)> {
    of(ev, "setup")
        .iter()
        .map(|e| {
            (
                e["missing"].clone(),
                e["extra"].clone(),
                e["misplaced"].clone(),
            )
        })
        .collect()
}

fn alarms(ev: &[Value]) -> Vec<&Value> {
    ev.iter()
        .filter(|e| e["type"] == "irregularity" || e["type"] == "illegal_move")
        .collect()
}

/// The start position as a frame, with the squares of `empty` lifted and
/// those of `full` occupied.
fn frame(empty: &[u32], full: &[u32]) -> String {
    let mut bits: u64 = 0xffff_0000_0000_ffff;
    for sq in empty {
        bits &= !(1u64 << sq);
    }
    for sq in full {
        bits |= 1u64 << sq;
    }
    format!("{bits:016x}")
}

// Squares (a1 = 0).
const E2: u32 = 12;
const E4: u32 = 28;
const G1: u32 = 6;
const F3: u32 = 21;
const H2: u32 = 15;
const A7: u32 = 48;
const E7: u32 = 52;
const E5: u32 = 36;

#[test]
fn first_scan_with_the_first_piece_in_hand_is_a_lift() {
    let cases = [
        // The e-pawn in hand at the first scan.
        format!(
            "0 frame {}\n300 frame {}\n600 press w\n2000 frame {}\n2300 frame {}\n2600 press b",
            frame(&[E2], &[]),
            frame(&[E2], &[E4]),
            frame(&[E2, E7], &[E4]),
            frame(&[E2, E7], &[E4, E5])
        ),
        // The knight in hand.
        format!(
            "0 frame {}\n300 frame {}\n600 press w",
            frame(&[G1], &[]),
            frame(&[G1], &[F3])
        ),
        // The first move already on the board at the first scan.
        format!("0 frame {}\n600 press w", frame(&[E2], &[E4])),
        // The pawn set down on the way (e3) at the first scan.
        format!(
            "0 frame {}\n200 frame {}\n300 frame {}\n600 press w",
            frame(&[E2], &[20]),
            frame(&[E2], &[]),
            frame(&[E2], &[E4])
        ),
    ];
    let want: [&[&str]; 4] = [&["e4", "e5"], &["Nf3"], &["e4"], &["e4"]];
    for rules in ALL {
        for (steps, want) in cases.iter().zip(want) {
            let ev = replay_steps(json!({"trace": 1}), steps, rules);
            assert_eq!(sans(&ev), want, "{rules}: {ev:#?}");
            assert!(alarms(&ev).is_empty(), "{rules}: {ev:#?}");
            assert!(of(&ev, "setup").is_empty(), "{rules}: {ev:#?}");
        }
    }
    // A piece in hand at the first scan then moved illegally: an illegal
    // move, not a wrong set-up.
    let illegal = format!(
        "0 frame {}\n300 frame {}\n600 press w",
        frame(&[G1], &[]),
        frame(&[G1], &[22])
    );
    for rules in ALL {
        let ev = replay_steps(json!({"trace": 1}), &illegal, rules);
        assert_eq!(of(&ev, "illegal_move").len(), 1, "{rules}: {ev:#?}");
        assert!(of(&ev, "irregularity").is_empty(), "{rules}: {ev:#?}");
    }
    // The lift in the first scan is the touch of the piece moved.
    let ev = replay_steps(json!({"trace": 1}), &cases[1], "fide-2023");
    let touches = of(&ev, "touch");
    assert_eq!(touches.len(), 1, "{ev:#?}");
    assert_eq!(touches[0]["square"], "g1");
}

#[test]
fn swapped_pieces_with_colour_sensing_get_guidance_then_the_irregularity() {
    // The board, sensing colour, reads its squares when switched on: the
    // a-pawns are swapped. White plays e4 before they are put right.
    let steps = "0 place a2 b\n0 place a7 w\n\
                 1000 lift e2\n1300 place e4 w\n1600 press w\n\
                 2000 lift a2\n2100 lift a7\n2200 place a2 w\n2300 place a7 b\n\
                 3000 lift e7\n3300 place e5 b\n3600 press b";
    for rules in ALL {
        let ev = replay_steps(json!({"trace": 1, "sensing": "colour"}), steps, rules);
        let g = guidance(&ev);
        assert_eq!(
            g[..2],
            [
                (json!([]), json!([]), json!(["a2"])),
                (json!([]), json!([]), json!(["a2", "a7"]))
            ],
            "{rules}: {ev:#?}"
        );
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "wrong_initial_position");
        assert_eq!(irr[0]["article"], article(rules));
        assert_eq!(irr[0]["squares"], json!(["a2", "a7"]));
        assert_eq!(irr[0]["t"], 1600);
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}: {ev:#?}");
        assert!(of(&ev, "touch_move").is_empty(), "{rules}: {ev:#?}");
        // The board is put right, then play goes on.
        assert_eq!(of(&ev, "touch").len(), 1, "{rules}: Black's e-pawn only");
        assert_eq!(of(&ev, "position_restored").len(), 1, "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["e4", "e5"], "{rules}: {ev:#?}");
    }
}

#[test]
fn a_missing_pawn_with_occupancy_gets_guidance_then_the_irregularity() {
    // Black's a-pawn is missing when the board is switched on; White plays
    // e4 before it is put back.
    let steps = format!(
        "0 frame {}\n1000 frame {}\n1300 frame {}\n1600 press w\n2000 frame {}\n3000 frame {}\n3300 frame {}\n3600 press b",
        frame(&[A7], &[]),
        frame(&[A7, E2], &[]),
        frame(&[A7, E2], &[E4]),
        frame(&[E2], &[E4]),
        frame(&[E2, E7], &[E4]),
        frame(&[E2, E7], &[E4, E5]),
    );
    for rules in ALL {
        let ev = replay_steps(json!({"trace": 1}), &steps, rules);
        let g = guidance(&ev);
        assert_eq!(
            g[0],
            (json!(["a7"]), json!([]), json!([])),
            "{rules}: {ev:#?}"
        );
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "wrong_initial_position");
        assert_eq!(irr[0]["article"], article(rules));
        assert_eq!(irr[0]["squares"], json!(["a7"]));
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}: {ev:#?}");
        assert_eq!(of(&ev, "position_restored").len(), 1, "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["e4", "e5"], "{rules}: {ev:#?}");
    }
    // A missing pawn of White's reads like a pawn in hand: no guidance, but
    // a move completed with it still missing was made from a wrong set-up.
    let steps = format!(
        "0 frame {}\n1000 frame {}\n1300 frame {}\n1600 press w",
        frame(&[H2], &[]),
        frame(&[H2, E2], &[]),
        frame(&[H2, E2], &[E4]),
    );
    for rules in ALL {
        let ev = replay_steps(json!({"trace": 1}), &steps, rules);
        assert!(of(&ev, "setup").is_empty(), "{rules}: {ev:#?}");
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "wrong_initial_position");
        assert_eq!(irr[0]["article"], article(rules));
        assert_eq!(irr[0]["squares"], json!(["h2"]));
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["e4"], "{rules}: {ev:#?}");
    }
}

#[test]
fn a_pawn_on_the_wrong_square_reads_as_a_hand_until_a_move_is_completed() {
    // White's d-pawn stands on d3 at the first scan (by occupancy, a pawn
    // set down on the way); White then plays e4 with it still there.
    let steps = format!(
        "0 frame {}\n1000 frame {}\n1300 frame {}\n1600 press w",
        frame(&[11], &[19]),
        frame(&[11, E2], &[19]),
        frame(&[11, E2], &[19, E4]),
    );
    for rules in ALL {
        let ev = replay_steps(json!({"trace": 1}), &steps, rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "wrong_initial_position");
        assert_eq!(irr[0]["article"], article(rules));
        assert_eq!(irr[0]["squares"], json!(["d2", "d3"]));
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["e4"], "{rules}: {ev:#?}");
    }
}

#[test]
fn a_board_switched_on_while_being_set_up_starts_when_it_matches() {
    // Empty at first; White's pieces, then Black's, then a repeated scan.
    let steps = "0 frame 0000000000000000\n\
                 500 frame 00000000000000ff\n\
                 900 frame 000000000000ffff\n\
                 1200 frame 000000000000ffff\n\
                 1500 frame ff0000000000ffff\n\
                 1900 frame ffff00000000ffff\n";
    let play = format!(
        "3000 frame {}\n3300 frame {}\n3600 press w\n5000 frame {}\n5300 frame {}\n5600 press b",
        frame(&[E2], &[]),
        frame(&[E2], &[E4]),
        frame(&[E2, E7], &[E4]),
        frame(&[E2, E7], &[E4, E5]),
    );
    for rules in ALL {
        let ev = replay_steps(json!({"trace": 1}), &format!("{steps}{play}"), rules);
        assert!(alarms(&ev).is_empty(), "{rules}: {ev:#?}");
        assert!(of(&ev, "touch_move").is_empty(), "{rules}: {ev:#?}");
        let g = of(&ev, "setup");
        // One guidance a change (the repeated scan gives none), the last
        // empty: the board shows the start position.
        assert_eq!(g.len(), 5, "{rules}: {ev:#?}");
        assert_eq!(g[0]["missing"].as_array().unwrap().len(), 32);
        assert_eq!(g[2]["missing"].as_array().unwrap().len(), 16);
        assert_eq!(
            (&g[4]["missing"], &g[4]["extra"], &g[4]["misplaced"]),
            (&json!([]), &json!([]), &json!([]))
        );
        assert_eq!(g[4]["t"], 1900);
        // The set-up placements are no touches; the game's are.
        let touches: Vec<&Value> = of(&ev, "touch");
        assert_eq!(touches.len(), 2, "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["e4", "e5"], "{rules}: {ev:#?}");
    }
}

#[test]
fn an_extra_piece_is_named_and_the_first_move_is_read_when_it_is_removed() {
    // A spare queen stands on d4; it is taken away, then White plays e4.
    let steps = format!(
        "0 frame {}\n500 frame {}\n1000 frame {}\n1300 frame {}\n1600 press w",
        frame(&[], &[27]),
        frame(&[], &[]),
        frame(&[E2], &[]),
        frame(&[E2], &[E4]),
    );
    for rules in ALL {
        let ev = replay_steps(json!({"trace": 1}), &steps, rules);
        let g = guidance(&ev);
        assert_eq!(
            g,
            [
                (json!([]), json!(["d4"]), json!([])),
                (json!([]), json!([]), json!([]))
            ],
            "{rules}: {ev:#?}"
        );
        assert!(alarms(&ev).is_empty(), "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["e4"], "{rules}: {ev:#?}");
    }
}

#[test]
fn set_up_guidance_is_spoken_in_each_language() {
    let steps = format!(
        "0 frame {}\n500 frame {}\n900 frame {}",
        frame(&[A7], &[27]),
        frame(&[A7], &[]),
        frame(&[], &[]),
    );
    let mut spoken = Vec::new();
    for lang in ["da", "nb", "de", "en"] {
        let ev = replay_steps(json!({"trace": 1, "language": lang}), &steps, "fide-2023");
        let texts: Vec<String> = of(&ev, "announce")
            .iter()
            .map(|e| {
                assert_eq!(e["lang"], lang);
                e["text"].as_str().unwrap().to_owned()
            })
            .collect();
        assert_eq!(texts.len(), 3, "{lang}: {ev:#?}");
        spoken.push(texts);
    }
    // The squares as the 2023 vocabulary spells them in each language.
    let want: [[&str; 3]; 4] = [
        [
            "Mangler på Anna syv, overtallig på Dora fire",
            "Mangler på Anna syv",
            "Brættet er stillet op",
        ],
        [
            "Mangler på Anna sieben, til overs på David vier",
            "Mangler på Anna sieben",
            "Brettet er satt opp",
        ],
        [
            "Fehlt auf Anna sieben, zu viel auf David vier",
            "Fehlt auf Anna sieben",
            "Das Brett ist aufgebaut",
        ],
        [
            "Missing on Anna sieben, extra on David vier",
            "Missing on Anna sieben",
            "The board is set up",
        ],
    ];
    assert_eq!(spoken, want);
}
