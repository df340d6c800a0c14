//! 2023 A.5.2 (rapid without adequate supervision; blitz through B.3),
//! issue 40 point 1: "If the arbiter observes an action taken under Article
//! 7.5.1, 7.5.2, 7.5.3 or 7.5.4, he/she shall act according to Article
//! 7.5.5, provided the opponent has not made his/her next move. If the
//! arbiter does not intervene, the opponent shall be entitled to claim …
//! provided the opponent has not made his/her next move"; with neither the
//! illegal move stands (`../shared/rules/fide-2023.md` §2.9). The board is
//! not the arbiter unless the event says so (`board_observes_illegal_moves`):
//! it alerts him at once and waits.

use crate::common;

use common::trace::{PAWN7, PAWN_LEFT_ON_B8};
use common::{of, replay_steps, sans};
use serde_json::{json, Value};

/// 2023 rapid and blitz, inadequate supervision.
const A52: [(&str, &str); 2] = [("rapid", "1500+10"), ("blitz", "180+2")];

fn header(mode: &str, tc: &str, observes: Option<bool>) -> Value {
    let mut h = json!({"trace": 1, "mode": mode, "time_control": tc,
           "supervision": "inadequate", "sensing": "identity"});
    if let Some(b) = observes {
        h["board_observes_illegal_moves"] = json!(b);
    }
    h
}

/// White's knight g1 goes to g3 (no knight move), Black replies e7-e5,
/// White's knight g3 goes to g5 (none either), Black replies d7-d6.
const TWO_ILLEGAL: &str = "
    1000 lift g1
    1200 place g3 N
    1500 press w
    3000 lift e7
    3200 place e5 p
    3500 press b
    5000 lift g3
    5200 place g5 N
    5500 press w
    7000 lift d7
    7200 place d6 p
    7500 press b";

fn unclaimed(ev: &[Value]) -> Vec<&Value> {
    of(ev, "irregularity")
        .into_iter()
        .filter(|e| e["kind"] == "illegal_move_unclaimed")
        .collect()
}

#[test]
fn an_unclaimed_illegal_move_stands_after_the_reply_and_two_do_not_lose() {
    // Main before issue 40: the board ruled both at the press (+1 min to
    // Black, then the game lost for White) with nobody claiming.
    for (mode, tc) in A52 {
        let ev = replay_steps(header(mode, tc, None), TWO_ILLEGAL, "fide-2023");
        assert!(of(&ev, "illegal_move").is_empty(), "{mode}: {ev:#?}");
        assert!(of(&ev, "game_end").is_empty(), "{mode}: {ev:#?}");
        // Alerted at once, for the arbiter, with A.5.2.
        let alerts = unclaimed(&ev);
        assert_eq!(alerts.len(), 2, "{mode}: {ev:#?}");
        assert_eq!(alerts[0]["t"], 1500, "{mode}");
        assert_eq!(alerts[0]["article"], "A.5.2", "{mode}");
        assert_eq!(alerts[1]["t"], 5500, "{mode}");
        // The replies are read from the position on the board.
        assert_eq!(sans(&ev), ["e5", "d6"], "{mode}: {ev:#?}");
        assert_eq!(
            of(&ev, "move")[1]["fen"],
            "rnbqkbnr/ppp2ppp/3p4/4p1N1/8/8/PPPPPPPP/RNBQKB1R w KQkq - 0 3",
            "{mode}"
        );
        // No minute to Black: his clock has only his increments.
        let last = of(&ev, "clock").last().cloned().cloned().unwrap();
        let base: u64 = if mode == "rapid" { 1_500_000 } else { 180_000 };
        assert!(
            last["black_ms"].as_u64().unwrap() < base + 30_000,
            "{mode}: {last}"
        );
    }
}

#[test]
fn the_event_setting_makes_the_board_the_arbiters_eye_as_before() {
    // Ng1-g3 ruled at the press, the knight set back, Ng1-g3 again: the
    // second illegal move loses (7.5.5, A.3).
    let twice = "1000 lift g1\n1200 place g3 N\n1500 press w\n2000 lift g3\n2200 place g1 N\n\
                 3000 lift g1\n3200 place g3 N\n3500 press w";
    for (mode, tc) in A52 {
        let ev = replay_steps(header(mode, tc, Some(true)), twice, "fide-2023");
        assert!(unclaimed(&ev).is_empty(), "{mode}: {ev:#?}");
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 2, "{mode}: {ev:#?}");
        assert_eq!(ill[0]["t"], 1500, "{mode}");
        assert_eq!(ill[0]["article"], "7.5.1", "{mode}");
        assert_eq!(ill[0]["penalty"], "+1 min to black", "{mode}");
        assert_eq!(ill[1]["penalty"], "game lost", "{mode}");
        assert_eq!(of(&ev, "game_end")[0]["result"], "0-1", "{mode}");
        assert!(sans(&ev).is_empty(), "{mode}: the knight is set back");
    }
    // Off, written out: the Laws' default.
    let ev = replay_steps(
        header("rapid", "1500+10", Some(false)),
        TWO_ILLEGAL,
        "fide-2023",
    );
    assert!(of(&ev, "illegal_move").is_empty(), "{ev:#?}");
}

#[test]
fn a_claim_before_the_reply_is_ruled_with_7_5_5s_minute() {
    for (mode, tc) in A52 {
        let steps = "1000 lift g1\n1200 place g3 N\n1500 press w\n3000 claim illegal_move b";
        let ev = replay_steps(header(mode, tc, None), steps, "fide-2023");
        let claim = of(&ev, "claim");
        assert_eq!(claim[0]["upheld"], true, "{mode}: {ev:#?}");
        assert_eq!(claim[0]["article"], "A.5.2", "{mode}");
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{mode}");
        assert_eq!(ill[0]["penalty"], "+1 min to black", "{mode}");
        assert_eq!(ill[0]["penalty_article"], "7.5.5", "{mode}");
        assert_eq!(ill[0]["count"], 1, "{mode}");
    }
}

#[test]
fn the_arbiter_observing_it_applies_7_5_5_before_the_reply() {
    let steps = "1000 lift g1\n1200 place g3 N\n1500 press w\n2000 arbiter accept";
    let ev = replay_steps(header("rapid", "1500+10", None), steps, "fide-2023");
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 1, "{ev:#?}");
    assert_eq!(ill[0]["penalty"], "+1 min to black");
    assert_eq!(ill[0]["penalty_article"], "7.5.5");
    // After the reply it is too late: the move stands.
    let late = "1000 lift g1\n1200 place g3 N\n1500 press w\n3000 lift e7\n3200 place e5 p\n\
                3500 press b\n6000 arbiter accept";
    let ev = replay_steps(header("rapid", "1500+10", None), late, "fide-2023");
    assert!(of(&ev, "illegal_move").is_empty(), "{ev:#?}");
    assert_eq!(sans(&ev), ["e5"]);
}

/// After 1. e4 e5 White presses his clock without a move (2023 7.5.3: "If
/// the player presses the clock without making a move, it shall be
/// considered and penalized as if an illegal move"), which A.5.2 / B.3
/// leave to the arbiter and the opponent's claim as any illegal move.
const PRESS_WITHOUT_MOVE: &str = "
    1000 lift e2
    1200 place e4 P
    1500 press w
    3000 lift e7
    3200 place e5 p
    3500 press b
    5000 press w";

#[test]
fn a_press_without_a_move_is_alerted_and_ruled_only_on_a_claim() {
    // Main before: the board ruled it at the press (+1 min to Black),
    // nobody claiming.
    for (mode, tc) in A52 {
        let ev = replay_steps(header(mode, tc, None), PRESS_WITHOUT_MOVE, "fide-2023");
        assert!(of(&ev, "illegal_move").is_empty(), "{mode}: {ev:#?}");
        let alerts = unclaimed(&ev);
        assert_eq!(alerts.len(), 1, "{mode}: {ev:#?}");
        assert_eq!(alerts[0]["t"], 5000, "{mode}");
        assert_eq!(alerts[0]["article"], "A.5.2", "{mode}");
        // Claimed before Black's next move: 7.5.5's minute, White on move.
        let claimed = format!("{PRESS_WITHOUT_MOVE}\n6000 claim illegal_move b");
        let ev = replay_steps(header(mode, tc, None), &claimed, "fide-2023");
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{mode}: {ev:#?}");
        assert_eq!(ill[0]["t"], 6000, "{mode}");
        assert_eq!(ill[0]["penalty"], "+1 min to black", "{mode}");
        assert_eq!(ill[0]["penalty_article"], "7.5.5", "{mode}");
        // The arbiter observing it rules it: the same.
        let ruled = format!("{PRESS_WITHOUT_MOVE}\n6000 arbiter accept");
        let ev = replay_steps(header(mode, tc, None), &ruled, "fide-2023");
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{mode}: {ev:#?}");
        assert_eq!(ill[0]["penalty"], "+1 min to black", "{mode}");
        assert_eq!(ill[0]["article"], "7.5.3", "{mode}");
        // Not claimed: White makes his move, Black replies; it stood.
        let stood = format!(
            "{PRESS_WITHOUT_MOVE}\n7000 lift g1\n7200 place f3 N\n7500 press w\n\
             9000 lift b8\n9200 place c6 n\n9500 press b\n10000 claim illegal_move b"
        );
        let ev = replay_steps(header(mode, tc, None), &stood, "fide-2023");
        assert_eq!(sans(&ev), ["e4", "e5", "Nf3", "Nc6"], "{mode}: {ev:#?}");
        assert!(of(&ev, "illegal_move").is_empty(), "{mode}: {ev:#?}");
        assert_eq!(of(&ev, "claim")[0]["upheld"], false, "{mode}");
    }
    // The event setting: the board rules it at the press, as before.
    let ev = replay_steps(
        header("rapid", "1500+10", Some(true)),
        PRESS_WITHOUT_MOVE,
        "fide-2023",
    );
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 1, "{ev:#?}");
    assert_eq!(ill[0]["t"], 5000);
    assert_eq!(ill[0]["article"], "7.5.3");
}

/// 2023 A.5.4: "if the arbiter sees both kings in check, or a pawn
/// standing on the furthest rank, he/she waits until the next move is
/// completed. If an illegal position is still on the board, he/she
/// declares a draw." The draw is the arbiter's: by the Laws' default the
/// board alerts him once the reply is completed with the pawn still on
/// b8 (the square named) and declares nothing; his `result` under A.5.4
/// draws the game, and is refused while the position is legal.
#[test]
fn a_5_4_the_board_alerts_the_illegal_position_and_the_arbiter_declares_the_draw() {
    for (mode, tc) in A52 {
        let mut h = header(mode, tc, None);
        h["start_fen"] = json!(PAWN7);
        let ev = replay_steps(h.clone(), PAWN_LEFT_ON_B8, "fide-2023");
        assert!(of(&ev, "game_end").is_empty(), "{mode}: {ev:#?}");
        let alerts: Vec<&Value> = of(&ev, "irregularity")
            .into_iter()
            .filter(|e| e["kind"] == "illegal_position")
            .collect();
        assert_eq!(alerts.len(), 1, "{mode}: {ev:#?}");
        assert_eq!(
            (
                &alerts[0]["article"],
                &alerts[0]["squares"],
                &alerts[0]["t"]
            ),
            (&json!("A.5.4"), &json!(["b8"]), &json!(7000)),
            "{mode}"
        );
        let declared = format!(
            "{PAWN_LEFT_ON_B8}\n    8000 arbiter result result=1/2-1/2 article=A.5.4 reason=pawn_on_b8"
        );
        let ev = replay_steps(h, &declared, "fide-2023");
        let end = of(&ev, "game_end");
        assert_eq!(end.len(), 1, "{mode}: {ev:#?}");
        assert_eq!(
            (&end[0]["result"], &end[0]["article"], &end[0]["t"]),
            (&json!("1/2-1/2"), &json!("A.5.4"), &json!(8000)),
            "{mode}"
        );
    }
    // A.5.4 on a legal position: refused, the game goes on.
    let ev = replay_steps(
        header("rapid", "1500+10", None),
        "1000 lift e2\n1200 place e4 P\n1500 press w\n2000 arbiter result result=1/2-1/2 article=A.5.4 reason=none",
        "fide-2023",
    );
    assert!(of(&ev, "game_end").is_empty(), "{ev:#?}");
}
