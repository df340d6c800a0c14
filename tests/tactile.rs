//! Two-board games (Appendix E): a sighted player on the instrumented board,
//! a visually impaired player on the tactile peg board, one game record.
//! Scenarios S109–S117 of `../shared/rules/digest.md` §8 K.

mod common;

use common::{of, replay_steps};
use serde_json::{json, Value};

// Steps in the step language of `tests/common/trace.rs`:
// `T [tactile] lift|place SQ`, `T press C`, `T query KIND C [P]`.

/// A two-board game's header: Black plays on the tactile board.
fn hdr(lang: &str) -> Value {
    json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "b", "language": lang, "time_control": "5400+30"})
}

/// White plays e4 on the main board; Black copies it on the tactile board
/// and answers e5 there, waits until the announcement has been spoken
/// (E2.3c; about 2.5 s of speech, estimated from the words), presses.
const OPENING: &str = "
    1000 lift e2
    1300 place e4
    1600 press w
    3000 tactile lift e2
    3200 tactile place e4
    4000 tactile lift e7
    4300 tactile place e5
    8000 press b";

#[test]
fn s111_moves_made_on_both_boards_are_announced_to_both() {
    for (lang, rules, white_move, black_move) in [
        ("da", "fide-2009", "Erik fire", "Erik fem"),
        ("nb", "fide-2009-no", "Eva vier", "Eva fünf"),
    ] {
        let ev = replay_steps(hdr(lang), OPENING, rules);
        let moves: Vec<&str> = of(&ev, "move")
            .iter()
            .map(|m| m["san"].as_str().unwrap())
            .collect();
        assert_eq!(moves, ["e4", "e5"], "{lang}");
        let ann = of(&ev, "announce");
        assert_eq!(ann.len(), 2, "{lang}: {ann:#?}");
        assert!(
            ann[0]["text"].as_str().unwrap().contains(white_move),
            "{lang}: {}",
            ann[0]["text"]
        );
        assert!(
            ann[1]["text"].as_str().unwrap().contains(black_move),
            "{lang}: {}",
            ann[1]["text"]
        );
        assert_eq!(ann[1]["lang"], lang);
        // The VI move was announced when made (300 ms after the peg went
        // in), before the press that completed it.
        assert_eq!(ann[1]["t"], 4600);
        assert!(of(&ev, "irregularity").is_empty(), "{ev:#?}");
        // Copying the opponent's move is not touching: no touch of e2 by Black.
        assert!(
            of(&ev, "touch")
                .iter()
                .all(|t| t["by"] != "b" || t["square"] == "e7"),
            "{ev:#?}"
        );
        let vi_touch = of(&ev, "touch")
            .into_iter()
            .find(|t| t["by"] == "b")
            .unwrap();
        assert_eq!(vi_touch["board"], "tactile");
    }
}

#[test]
fn e2_3_clock_started_before_the_announcement_is_flagged() {
    let steps = OPENING.replace("8000 press b", "4350 press b");
    let ev = replay_steps(hdr("da"), &steps, "fide-2009");
    let irr = of(&ev, "irregularity");
    assert_eq!(irr.len(), 1, "{ev:#?}");
    assert_eq!(irr[0]["kind"], "clock_started_before_announcement");
    assert_eq!(irr[0]["article"], "E2.3");
    assert_eq!(of(&ev, "move").len(), 2, "the move is still recorded");
}

#[test]
fn s113_s114_boards_differ_as_soon_as_a_copy_settles_wrong() {
    // White copies Black's e5 onto the main board as e6.
    let steps = format!("{OPENING}\n9000 lift e7\n9300 place e6");
    let ev = replay_steps(hdr("da"), &format!("{steps}\n12000 lift g1"), "fide-2009");
    let irr = of(&ev, "irregularity");
    assert_eq!(irr.len(), 1, "{ev:#?}");
    assert_eq!(irr[0]["kind"], "boards_differ");
    assert_eq!(irr[0]["article"], "E2.7");
    assert_eq!(irr[0]["squares"], json!(["e5", "e6"]));
    let last = of(&ev, "announce").pop().unwrap();
    assert!(last["text"].as_str().unwrap().contains("Erik"), "{last}");
    // Copied correctly: nothing to report.
    let ok = format!("{OPENING}\n9000 lift e7\n9300 place e5\n12000 lift g1");
    assert!(of(&replay_steps(hdr("da"), &ok, "fide-2009"), "irregularity").is_empty());
}

#[test]
fn s109_peg_pulled_is_a_touch() {
    // Black pulls the peg of g8 after copying e4, puts it back, plays e5.
    let steps = "
        1000 lift e2
        1300 place e4
        1600 press w
        3000 tactile lift e2
        3200 tactile place e4
        3500 tactile lift g8
        3700 tactile place g8
        4000 tactile lift e7
        4300 tactile place e5
        5000 press b";
    let ev = replay_steps(hdr("da"), steps, "fide-2009");
    let tm = of(&ev, "touch_move");
    assert_eq!(tm.len(), 1, "{ev:#?}");
    assert_eq!(tm[0]["touched"], "g8");
    assert_eq!(tm[0]["article"], "4.3a");
}

#[test]
fn s117_time_is_told_only_on_request() {
    let ev = replay_steps(
        hdr("da"),
        &format!("{OPENING}\n9000 query time b"),
        "fide-2009",
    );
    let ann = of(&ev, "announce");
    assert_eq!(ann.len(), 3, "two moves, then the answer");
    assert_eq!(ann[2]["t"], 9000);
    let ev = replay_steps(
        hdr("en"),
        &format!("{OPENING}\n9000 query piece b N\n9100 query last_move b"),
        "fide-2023",
    );
    let ann = of(&ev, "announce");
    assert_eq!(ann.len(), 4);
    assert!(
        ann[2]["text"].as_str().unwrap().contains("Bella"),
        "{}",
        ann[2]["text"]
    );
}
