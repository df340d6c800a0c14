//! The 2023 profile's differences (issue 25, point 5), written from
//! `../shared/rules/fide-2023.md` §3 (F17: 5.2.3) against 2009 §5.2c and
//! 2001 §5.2c (seeds 002, 000), which have no such condition.

use crate::common;

use common::trace::{PAWN7, PAWN_LEFT_ON_B8};
use common::{of, replay_steps, sans};
use serde_json::{json, Value};

const OLD: [&str; 3] = ["fide-2001", "fide-2009", "fide-2009-no"];

fn hdr() -> Value {
    json!({"trace": 1})
}

/// 2023 5.2.3: "The game is drawn upon agreement between the two players
/// during the game, provided both players have made at least one move."
#[test]
fn f17_no_draw_agreement_before_both_players_have_made_a_move() {
    let after_e4 = "4000 mv e7e5 b\n5000 mv g1f3 w\n6000 offer w\n6100 accept b";
    for (steps, then) in [
        // Before any move.
        (
            "500 offer w\n600 accept b",
            "4000 mv e2e4 w\n5000 mv e7e5 b\n6000 offer w\n6100 accept b",
        ),
        // Only White has moved.
        ("1000 mv e2e4 w\n2000 offer b\n2100 accept w", after_e4),
        ("1000 mv e2e4 w\n2000 offer w\n2100 accept b", after_e4),
    ] {
        let ev = replay_steps(hdr(), steps, "fide-2023");
        assert!(of(&ev, "game_end").is_empty(), "{steps}: {ev:#?}");
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{steps}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "agreement_before_a_move_each");
        assert_eq!(irr[0]["article"], "5.2.3");
        // The offer stands: accepted once both have moved, it is a draw.
        let later = format!("{steps}\n{then}");
        let ev = replay_steps(hdr(), &later, "fide-2023");
        let end = of(&ev, "game_end");
        assert_eq!(end.len(), 1, "{later}: {ev:#?}");
        assert_eq!(end[0]["reason"], "agreement");
    }
}

#[test]
fn f17_after_a_move_each_the_agreement_ends_the_game_in_2023() {
    let ev = replay_steps(
        hdr(),
        "1000 mv e2e4 w\n2000 mv e7e5 b\n3000 offer w\n3100 accept b",
        "fide-2023",
    );
    let end = of(&ev, "game_end");
    assert_eq!(end.len(), 1, "{ev:#?}");
    assert_eq!(end[0]["result"], "1/2-1/2");
    assert_eq!(end[0]["article"], "5.2.3");
    assert!(of(&ev, "irregularity").is_empty());
}

#[test]
fn f17_a_game_from_a_position_with_black_to_move_needs_whites_move_too() {
    let h = json!({"trace": 1, "start_fen": "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"});
    let ev = replay_steps(
        h.clone(),
        "1000 mv e8d8 b\n2000 offer b\n2100 accept w",
        "fide-2023",
    );
    assert!(of(&ev, "game_end").is_empty(), "{ev:#?}");
    let ev = replay_steps(
        h,
        "1000 mv e8d8 b\n2000 mv e1d1 w\n3000 offer b\n3100 accept w",
        "fide-2023",
    );
    assert_eq!(of(&ev, "game_end").len(), 1, "{ev:#?}");
}

#[test]
fn f17_2009_and_2001_have_no_such_condition() {
    for rules in OLD {
        let ev = replay_steps(hdr(), "500 offer w\n600 accept b", rules);
        let end = of(&ev, "game_end");
        assert_eq!(end.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(end[0]["article"], "5.2c", "{rules}");
        assert!(of(&ev, "irregularity").is_empty(), "{rules}");
    }
}

/// White's a7 pawn set down on a8 and the clock pressed with the pawn still
/// there (identity sensing: the pawn is seen).
const UNREPLACED: &str = "1000 lift a7\n1200 place a8 P\n2200 press w";
const PROMO: &str = "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1";

fn promo_hdr() -> Value {
    json!({"trace": 1, "start_fen": PROMO, "sensing": "identity", "time_control": "5400+30"})
}

/// F34, 2023 7.5.2: "If the player has moved a pawn to the furthest
/// distant rank, pressed the clock, but not replaced the pawn with a new
/// piece, the move is illegal. The pawn shall be replaced by a queen of the
/// same colour as the pawn." The move stands as a8=Q, with 7.5.5's penalty
/// (two minutes to the opponent), and Black is on move.
#[test]
fn f34_an_unreplaced_pawn_becomes_a_queen_in_2023() {
    let ev = replay_steps(promo_hdr(), UNREPLACED, "fide-2023");
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 1, "{ev:#?}");
    assert_eq!(ill[0]["article"], "7.5.2");
    assert!(
        of(&ev, "game_end").is_empty(),
        "a first illegal move: {ev:#?}"
    );
    let moves = of(&ev, "move");
    assert_eq!(moves.len(), 1, "{ev:#?}");
    assert_eq!(moves[0]["san"], "a8=Q");
    assert!(moves[0]["fen"].as_str().unwrap().starts_with("Qn2k3/8/"));
    // Black has the move and plays on from it.
    let go_on = format!("{UNREPLACED}\n5000 mv e8d7 b");
    let ev = replay_steps(promo_hdr(), &go_on, "fide-2023");
    let sans: Vec<_> = of(&ev, "move").iter().map(|m| m["san"].clone()).collect();
    assert_eq!(sans, ["a8=Q", "Kd7"], "{ev:#?}");
    // Black's clock got the 2 minutes: 90 min + 30 s + 2 min.
    let last = of(&ev, "clock").last().cloned().unwrap();
    assert!(last["black_ms"].as_u64().unwrap() > 5_400_000 + 120_000 - 5_000);
}

/// 2009 / 2001 §7.4a: an illegal move like any other; the position before
/// it is reinstated and the pawn moved again.
#[test]
fn f34_before_2023_the_position_before_is_reinstated() {
    for rules in OLD {
        let ev = replay_steps(promo_hdr(), UNREPLACED, rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(ill[0]["article"], "7.4a", "{rules}");
        assert!(of(&ev, "move").is_empty(), "{rules}: {ev:#?}");
    }
}

/// White plays Ra1-b3 (illegal) `n` times in blitz, putting it back each time.
fn illegal_rook_moves(n: usize) -> String {
    common::illegal_and_back(n, "a1", "b3")
}

/// F59 / F60, 2023 B.3 → A.5.2 and A.3 ("one minute instead of two"), and
/// B.2 (⚠ U4: read as the same minute, `illegal_move_bonus_ms`): in blitz an
/// illegal move costs a minute and the second loses (7.5.5), whatever the
/// supervision; 2009 B3c: without adequate supervision the opponent's claim
/// wins at once, with it §7.4's two minutes.
#[test]
fn f59_f60_a_blitz_illegal_move_costs_a_minute_and_the_second_loses_in_2023() {
    let kr = "r3k3/4p3/8/8/8/8/8/R3K3 w - - 0 1";
    // Inadequate supervision: with the board as the arbiter's eye (the
    // event's `board_observes_illegal_moves`, B.3 → A.5.2; issue 40).
    let h = |sup: &str| {
        json!({"trace": 1, "start_fen": kr, "mode": "blitz", "time_control": "180+2", "supervision": sup,
                               "board_observes_illegal_moves": true})
    };
    for sup in ["adequate", "inadequate"] {
        let ev = replay_steps(h(sup), &illegal_rook_moves(1), "fide-2023");
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{sup}: {ev:#?}");
        assert_eq!(ill[0]["penalty"], "+1 min to black", "{sup}");
        assert_eq!(ill[0]["article"], "7.5.1", "{sup}");
        let ev = replay_steps(h(sup), &illegal_rook_moves(2), "fide-2023");
        assert_eq!(of(&ev, "illegal_move")[1]["penalty"], "game lost", "{sup}");
        assert_eq!(of(&ev, "game_end")[0]["result"], "0-1", "{sup}");
    }
    // 2009 blitz with adequate supervision (B2): §7.4, two minutes.
    let ev = replay_steps(h("adequate"), &illegal_rook_moves(1), "fide-2009");
    assert_eq!(of(&ev, "illegal_move")[0]["penalty"], "+2 min to black");
}

/// F56 / F57, 2023 A.1 / B.1: 10 minutes is blitz in 2023 (B.1 "10 minutes
/// or less"), rapid in 2009 (A1: from 15 minutes; 10 + 60 × 0 is blitz
/// there too) — and 12 minutes is rapid in 2023, blitz in 2009 (under 15).
#[test]
fn f56_f57_the_2023_thresholds_classify_a_time_control() {
    use eboard::clock::TimeControl;
    use eboard::rules::{Edition, Mode, Profile};
    let tc = |s: &str| TimeControl::parse(s).unwrap();
    assert_eq!(
        Profile::classify(Edition::Fide2023, &tc("600")),
        Mode::Blitz
    );
    assert_eq!(
        Profile::classify(Edition::Fide2023, &tc("720")),
        Mode::Rapid
    );
    assert_eq!(
        Profile::classify(Edition::Fide2009, &tc("720")),
        Mode::Blitz
    );
    assert_eq!(
        Profile::classify(Edition::Fide2023, &tc("3540")),
        Mode::Rapid
    );
    assert_eq!(
        Profile::classify(Edition::Fide2023, &tc("3600")),
        Mode::Standard
    );
}

/// 2023 5.2.3: "The game is drawn upon agreement between the two players
/// during the game, provided both players have made at least one move".
/// *Made* (2023 1.3 / 4.7), not completed: Black's first move stands made,
/// he offers a draw before pressing (9.1.2.1 "after having made a move on
/// the chessboard and before pausing his/her own clock"), White accepts:
/// both have made a move, the game is drawn. 2009 §5.2c and 2001 §5.2c
/// have no such condition: drawn too.
#[test]
fn f17_a_move_made_and_not_yet_pressed_counts_for_an_agreement() {
    let steps = "
        1000 mv e2e4 w
        2000 lift e7
        2300 place e5
        2500 offer b
        3000 accept w";
    for (rules, article) in [
        ("fide-2001", "5.2c"),
        ("fide-2009", "5.2c"),
        ("fide-2009-no", "5.2c"),
        ("fide-2023", "5.2.3"),
    ] {
        let ev = replay_steps(json!({"trace": 1, "time_control": "5400+30"}), steps, rules);
        let end = of(&ev, "game_end");
        assert_eq!(end.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(end[0]["result"], "1/2-1/2", "{rules}");
        assert_eq!(end[0]["article"], article, "{rules}");
        assert!(of(&ev, "irregularity").is_empty(), "{rules}: {ev:#?}");
    }
    // Before Black made a move the 2023 condition is not met.
    let early = "1000 mv e2e4 w\n2500 offer w\n3000 accept b";
    let ev = replay_steps(
        json!({"trace": 1, "time_control": "5400+30"}),
        early,
        "fide-2023",
    );
    assert!(of(&ev, "game_end").is_empty(), "{ev:#?}");
}

// ---- Held-out cases (issue 25, point 5): rows of the diff table in
// `../shared/rules/fide-2023.md` §3, each against 2009 (seed 002) and 2001
// (seed 000). --------------------------------------------------------------

/// 2023 A.3 sits outside A.4 / A.5, so a rapid game with adequate
/// supervision (A.4) also gives "one minute instead of two" for an illegal
/// move, and the second loses (7.5.5). 2009 A3 (adequate supervision):
/// §7.4 as in standard play, two minutes, the third loses.
#[test]
fn a3_a_rapid_illegal_move_costs_a_minute_under_a4_too_in_2023() {
    let kr = "r3k3/4p3/8/8/8/8/8/R3K3 w - - 0 1";
    let h = json!({"trace": 1, "start_fen": kr, "mode": "rapid", "time_control": "1500+10", "supervision": "adequate"});
    let ev = replay_steps(h.clone(), &illegal_rook_moves(2), "fide-2023");
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 2, "{ev:#?}");
    assert_eq!(ill[0]["penalty"], "+1 min to black");
    assert_eq!(ill[1]["penalty"], "game lost");
    for rules in OLD {
        let ev = replay_steps(h.clone(), &illegal_rook_moves(2), rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 2, "{rules}: {ev:#?}");
        assert_eq!(ill[0]["penalty"], "+2 min to black", "{rules}");
        assert_eq!(ill[1]["penalty"], "+2 min to black", "{rules}");
        assert!(of(&ev, "game_end").is_empty(), "{rules}");
    }
}

/// 2023 7.5.3: "If the player presses the clock without making a move, it
/// shall be considered and penalised as if an illegal move." 2009 / 2001
/// have no such article: a press without a move is no illegal move there.
#[test]
fn f_7_5_3_a_press_without_a_move_is_an_illegal_move_only_in_2023() {
    let h = json!({"trace": 1, "time_control": "5400+30"});
    let steps = "1000 mv e2e4 w\n2000 mv e7e5 b\n4000 press w";
    let ev = replay_steps(h.clone(), steps, "fide-2023");
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 1, "{ev:#?}");
    assert_eq!(ill[0]["article"], "7.5.3");
    assert_eq!(ill[0]["by"], "w");
    assert_eq!(ill[0]["penalty"], "+2 min to black");
    for rules in OLD {
        let ev = replay_steps(h.clone(), steps, rules);
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}: {ev:#?}");
        assert!(of(&ev, "game_end").is_empty(), "{rules}");
    }
}

/// 2023 A.5.5: without adequate supervision "the arbiter shall also call
/// a flag fall if he/she observes it": the game ends at the flag. 2009
/// A4d1 (seed 002): the flag counts only on a valid claim ("Dommeren skal
/// afholde sig fra at påpege et fald"), so nothing ends until the claim.
#[test]
fn a5_5_the_flag_is_called_in_2023_and_only_claimed_in_2009() {
    let h =
        json!({"trace": 1, "mode": "rapid", "time_control": "900", "supervision": "inadequate"});
    let steps = "1000 mv e2e4 w\n2000 mv e7e5 b\n910000 lift g1";
    let ev = replay_steps(h.clone(), steps, "fide-2023");
    let end = of(&ev, "game_end");
    assert_eq!(end.len(), 1, "{ev:#?}");
    assert_eq!(end[0]["result"], "0-1");
    // White's clock: 900 s - 1.6 s, running again from 2.6 s.
    assert_eq!(end[0]["t"], 901_000);
    for rules in ["fide-2009", "fide-2009-no"] {
        let ev = replay_steps(h.clone(), steps, rules);
        assert_eq!(of(&ev, "flag").len(), 1, "{rules}: {ev:#?}");
        assert!(of(&ev, "game_end").is_empty(), "{rules}: {ev:#?}");
        let claimed = format!("{steps}\n911000 claim time b");
        let ev = replay_steps(h.clone(), &claimed, rules);
        assert_eq!(of(&ev, "game_end")[0]["result"], "0-1", "{rules}: {ev:#?}");
    }
}

/// 9.5.3 (2023): a wrong claim gives the opponent two minutes in standard
/// play and, through A.3, one minute in rapid; 2009 §9.5b three minutes in
/// both. The claim is Black's, wrong (no repetition): White gets the time.
#[test]
fn f33_a_wrong_claim_costs_a_minute_in_2023_rapid_three_in_2009() {
    for (rules, mode, tc, start, bonus) in [
        ("fide-2023", "rapid", "1500+10", 1_510_000, 60_000),
        ("fide-2023", "standard", "5400+30", 5_430_000, 120_000),
        ("fide-2009", "rapid", "1500+10", 1_510_000, 180_000),
        ("fide-2009-no", "rapid", "1500+10", 1_510_000, 180_000),
    ] {
        let h = json!({"trace": 1, "mode": mode, "time_control": tc, "supervision": "adequate"});
        let ev = replay_steps(h, "1000 mv e2e4 w\n2000 claim threefold b", rules);
        assert_eq!(of(&ev, "claim")[0]["upheld"], false, "{rules} {mode}");
        let inc = if mode == "rapid" { 10_000 } else { 30_000 };
        let white = of(&ev, "clock").last().unwrap()["white_ms"]
            .as_u64()
            .unwrap();
        assert_eq!(
            white,
            start - 1_600 + inc + bonus,
            "{rules} {mode}: {ev:#?}"
        );
    }
}

/// 2023 5.2.3 and 9.1.2.3: a draw claim is a draw offer; accepted after
/// both players have made a move it is an agreement (the wrong claim's
/// two minutes given, 9.5.3, and the offer accepted).
#[test]
fn f17_a_claim_accepted_after_a_move_each_is_an_agreement() {
    let h = json!({"trace": 1, "time_control": "5400+30"});
    let ev = replay_steps(
        h,
        "1000 mv e2e4 w\n2000 mv e7e5 b\n3000 claim threefold w\n3500 accept b",
        "fide-2023",
    );
    let end = of(&ev, "game_end");
    assert_eq!(end.len(), 1, "{ev:#?}");
    assert_eq!(end[0]["reason"], "agreement");
    assert_eq!(end[0]["article"], "5.2.3");
}

// ---- 2023 7.5.2 and A.5.4 after a move made and not pressed (issue 25,
// point 1; docs/profiles.md, "An illegal move made and not pressed"). -----

/// A timed game from `fen` in `mode` with `supervision`, identity sensing.
fn sup(fen: &str, mode: &str, tc: &str, supervision: &str) -> Value {
    // The board as the arbiter's eye under 2023 A.5.2 / B.3 (issue 40: an
    // event setting; the Laws' default, alert and wait, is tests/a52_illegal.rs).
    json!({"trace": 1, "start_fen": fen, "mode": mode, "time_control": tc,
           "supervision": supervision, "sensing": "identity", "board_observes_illegal_moves": true})
}

fn supervised(fen: &str, mode: &str, tc: &str) -> Value {
    sup(fen, mode, tc, "adequate")
}

fn timed(fen: &str, mode: &str, tc: &str) -> Value {
    sup(fen, mode, tc, "inadequate")
}

/// 2023 7.5.2, where the board rules (standard; rapid A.4): "If during a
/// game it is found that a pawn has been moved to the furthest distant
/// rank, the player has pressed the clock, but the pawn has not been
/// replaced with a new piece, the move is illegal. The pawn shall be
/// replaced by a queen of the same colour as the pawn." Made, not pressed,
/// replied to, then pressed (6.2.2): the pawn becomes a queen, 7.5.5's
/// penalty, nothing reinstated; the reply stays made and is completed by
/// its own press.
#[test]
fn an_unpressed_pawn_pressed_after_the_reply_becomes_a_queen_in_2023() {
    for (mode, tc, bonus) in [
        ("standard", "5400+30", "+2 min to black"),
        ("rapid", "1500+10", "+1 min to black"),
    ] {
        let ev = replay_steps(supervised(PAWN7, mode, tc), PAWN_LEFT_ON_B8, "fide-2023");
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{mode}: {ev:#?}");
        assert_eq!(ill[0]["t"], 5000, "{mode}");
        assert_eq!(ill[0]["article"], "7.5.2", "{mode}");
        assert_eq!(ill[0]["penalty"], bonus, "{mode}");
        assert_eq!(ill[0]["squares"], json!(["b7", "b8"]), "{mode}");
        assert!(of(&ev, "game_end").is_empty(), "{mode}: {ev:#?}");
        assert_eq!(sans(&ev), ["b8=Q", "Kd7"], "{mode}: {ev:#?}");
        let m = of(&ev, "move");
        assert_eq!(m[0]["t"], 5000, "{mode}");
        assert_eq!(m[1]["t"], 7000, "{mode}");
        assert_eq!(m[1]["fen"], "nQn5/3k4/8/8/8/8/8/4K3 w - - 1 2", "{mode}");
    }
    // 2009 §7.4a has no queen: the position before is reinstated.
    let ev = replay_steps(
        supervised(PAWN7, "standard", "5400+30"),
        PAWN_LEFT_ON_B8,
        "fide-2009",
    );
    assert_eq!(of(&ev, "illegal_move")[0]["article"], "7.4a", "{ev:#?}");
    assert!(of(&ev, "move").is_empty(), "{ev:#?}");
}

/// The same with White's next move made before his press: 6.2.1.2 ("the
/// player has made his/her next move, when his/her previous move was not
/// completed") completes the pawn move; 7.5.2 makes it a queen, and the
/// three moves stand (the reply and White's move are legal after it).
#[test]
fn an_unpressed_pawn_then_the_reply_and_the_offenders_move_in_2023() {
    let steps = "
        1000 lift b7
        1200 place b8 P
        3000 lift e8
        3200 place d7 k
        5000 lift e1
        5200 place e2 K
        5500 press w";
    let ev = replay_steps(supervised(PAWN7, "standard", "5400+30"), steps, "fide-2023");
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 1, "{ev:#?}");
    assert_eq!(ill[0]["article"], "7.5.2");
    assert_eq!(sans(&ev), ["b8=Q", "Kd7", "Ke2"], "{ev:#?}");
    assert!(of(&ev, "game_end").is_empty());
    // Black's clock: 90 min + 30 s + the two minutes.
    let last = *of(&ev, "clock").last().unwrap();
    assert_eq!(last["black_ms"], 5_430_000 + 120_000, "{last}");
}

/// A reply that is no legal move once the pawn is a queen (Black's king is
/// then in check along the eighth rank): with White's press behind it, the
/// reply is only made; Black's own press completes it, and it is Black's
/// illegal move (7.5.1), ruled at that press.
#[test]
fn a_reply_made_illegal_by_the_queen_is_judged_at_its_own_press_in_2023() {
    let steps = "
        1000 lift b7
        1200 place b8 P
        3000 lift h7
        3200 place h6 p
        5000 press w
        7000 press b";
    let ev = replay_steps(
        supervised("4k3/1P5p/8/8/8/8/8/4K3 w - - 0 1", "standard", "5400+30"),
        steps,
        "fide-2023",
    );
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 2, "{ev:#?}");
    assert_eq!(
        (ill[0]["by"].clone(), ill[0]["article"].clone()),
        (json!("w"), json!("7.5.2"))
    );
    assert_eq!(
        (ill[1]["by"].clone(), ill[1]["t"].clone()),
        (json!("b"), json!(7000))
    );
    assert_eq!(sans(&ev), ["b8=Q+"], "{ev:#?}");
}

/// 2023 A.5.4 under A.5 / B.3: the pawn left on b8 (made, not pressed),
/// Black's reply made, then White's press (6.2.2): the illegal move stands
/// (A.5.2: the opponent made his move). "He/she waits until the next move
/// is completed. If an illegal position is still on the board, he/she
/// declares a draw": Black's press completes the reply with the pawn still
/// on b8: drawn at that press.
#[test]
fn a_5_4_the_draw_comes_at_the_reply_completed_after_the_offenders_late_press() {
    for (mode, tc) in [("rapid", "1500+10"), ("blitz", "180+2")] {
        let ev = replay_steps(timed(PAWN7, mode, tc), PAWN_LEFT_ON_B8, "fide-2023");
        assert!(of(&ev, "illegal_move").is_empty(), "{mode}: {ev:#?}");
        let end = of(&ev, "game_end");
        assert_eq!(end.len(), 1, "{mode}: {ev:#?}");
        assert_eq!(end[0]["article"], "A.5.4", "{mode}");
        assert_eq!(end[0]["result"], "1/2-1/2", "{mode}");
        assert_eq!(end[0]["t"], 7000, "{mode}");
    }
}
