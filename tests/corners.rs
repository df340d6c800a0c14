//! The Laws' remaining corners (issue 13 §4), as scenario traces in every
//! profile: §4.2 adjustments by the player not on move, a draw offer lapsed
//! by a touch (§9.1b(1)), the replacement of an illegal move bound by §4.3
//! and §4.6 (§7.4a), the claim window of rapid and blitz closing when the
//! claimant's own move is made (2009 A4c / B3c, 2001 C3), an illegal move
//! that leaves the mover's own king in check, and the appendix letters of
//! each edition. The article texts relied on are quoted in
//! `docs/profiles.md` ("The Laws' remaining corners").

use crate::common;

use common::{
    assert_whites_illegal_move_ruled, fen_header as hdr, of, replay_steps, sans, ALL_RULES as ALL,
    CLAIM_ONLY,
};
use serde_json::{json, Value};

fn timed(fen: &str, mode: &str, tc: &str) -> Value {
    json!({"trace": 1, "start_fen": fen, "mode": mode, "time_control": tc, "supervision": "inadequate"})
}

// ---------------------------------------------------------------- §4.2

/// 1.e4 d5: White is on move; Black declares j'adoube and lifts his d5
/// pawn. Were that lift White's touch, 4.3b would oblige exd5.
const ADJUST_BY_OTHER: &str = "
    1000 mv e2e4 w
    2000 mv d7d5 b
    3000 adjust b
    3100 lift d5
    3300 place d5
    4000 mv g1f3 w";

#[test]
fn s4_2_adjustment_by_the_player_not_on_move_is_logged_and_no_touch() {
    for rules in ALL {
        let ev = replay_steps(hdr(""), ADJUST_BY_OTHER, rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "adjust_by_player_not_on_move");
        let want = if rules == "fide-2023" { "4.2.1" } else { "4.2" };
        assert_eq!(irr[0]["article"], want, "{rules}");
        assert!(
            of(&ev, "touch").iter().all(|t| t["square"] != "d5"),
            "{rules}: Black's adjustment is no touch by White: {ev:#?}"
        );
        assert!(of(&ev, "touch_move").is_empty(), "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["e4", "d5", "Nf3"], "{rules}");
        // White claims nothing: the lift was not his (no breach open).
        let steps = format!("{ADJUST_BY_OTHER}\n5000 claim touch_move b");
        let ev = replay_steps(hdr(""), &steps, rules);
        assert_eq!(of(&ev, "claim")[0]["upheld"], false, "{rules}");
    }
}

#[test]
fn s4_2_control_without_the_declaration_the_lift_is_the_movers_touch() {
    // The same lift with no j'adoube: a touch of Black's pawn by White, who
    // then must capture it (4.3b / 4.3.2).
    let steps = ADJUST_BY_OTHER.replace("3000 adjust b\n", "");
    for rules in ALL {
        let ev = replay_steps(hdr(""), &steps, rules);
        let tm = of(&ev, "touch_move");
        assert_eq!(tm.len(), 1, "{rules}: {ev:#?}");
        let want = if rules == "fide-2023" {
            "4.3.2"
        } else {
            "4.3b"
        };
        assert_eq!(tm[0]["article"], want);
        assert_eq!(tm[0]["touched"], "d5");
    }
}

#[test]
fn s4_2_the_movers_own_touch_after_the_others_adjustment_still_counts() {
    // Black adjusts d5; then White lifts his bishop f1 and plays Nf3: 4.3a.
    let steps = "
        1000 mv e2e4 w
        2000 mv d7d5 b
        3000 adjust b
        3100 lift d5
        3300 place d5
        3600 lift f1
        3800 place f1
        4000 mv g1f3 w";
    for rules in ALL {
        let ev = replay_steps(hdr(""), steps, rules);
        let tm = of(&ev, "touch_move");
        assert_eq!(tm.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(tm[0]["touched"], "f1", "{rules}");
    }
}

// ---------------------------------------------------------------- §9.1

const OFFER: &str = "
    1000 lift e2
    1200 place e4
    1300 offer w
    1600 press w";

#[test]
fn s9_1_an_offer_lapses_when_the_opponent_touches_a_piece() {
    for rules in ALL {
        // Black lifts his knight (a touch, §4.3) and puts it back; then
        // accepts: no agreement.
        let steps = format!("{OFFER}\n3000 lift g8\n3300 place g8\n5000 accept b");
        let ev = replay_steps(hdr(""), &steps, rules);
        assert_eq!(of(&ev, "draw_offer").len(), 1, "{rules}");
        let touch: Vec<&Value> = of(&ev, "touch")
            .into_iter()
            .filter(|t| t["by"] == "b")
            .collect();
        assert_eq!(touch.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(touch[0]["square"], "g8");
        assert!(of(&ev, "game_end").is_empty(), "{rules}: {ev:#?}");
        // The last event is the touch: the late acceptance shows nothing.
        assert_eq!(ev.last().unwrap()["type"], "touch", "{rules}: {ev:#?}");
        // Black's move after that still plays on.
        let steps = format!("{OFFER}\n3000 lift g8\n3300 place f6\n3600 press b\n5000 accept b");
        let ev = replay_steps(hdr(""), &steps, rules);
        assert!(of(&ev, "game_end").is_empty(), "{rules}");
        assert_eq!(sans(&ev), ["e4", "Nf6"]);
    }
}

#[test]
fn s9_1_control_an_adjustment_or_no_touch_keeps_the_offer() {
    for rules in ALL {
        // j'adoube (§4.2) is no touch with the intention of moving.
        let steps = format!("{OFFER}\n2900 adjust b\n3000 lift g8\n3300 place g8\n5000 accept b");
        let ev = replay_steps(hdr(""), &steps, rules);
        assert!(
            of(&ev, "touch").iter().all(|t| t["by"] == "w"),
            "{rules}: {ev:#?}"
        );
        if rules == "fide-2023" {
            // The offer stood, but 2023 5.2.3 needs a move by each player
            // before an agreement (Black has made none): `tests/fide2023.rs`.
            assert!(of(&ev, "game_end").is_empty(), "{rules}: {ev:#?}");
            let irr = of(&ev, "irregularity");
            assert_eq!(irr[0]["kind"], "agreement_before_a_move_each");
            continue;
        }
        assert_eq!(of(&ev, "game_end")[0]["reason"], "agreement", "{rules}");
        assert_eq!(of(&ev, "game_end")[0]["article"], "5.2c", "{rules}");
    }
}

// ---------------------------------------------------------------- §7.4a

/// White lifts his king and releases it on g1, leaves the rook on h1 and
/// presses: a completed illegal move (castling not completed).
const KR: &str = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1";
const KING_ON_G1: &str = "
    1000 lift e1
    1200 place g1
    1500 press w
    3000 lift g1
    3200 place e1";

fn released_article(rules: &str) -> &'static str {
    match rules {
        "fide-2001" | "fide-2023" => "4.7",
        _ => "4.6",
    }
}

#[test]
fn s7_4a_king_released_on_g1_still_commits_to_castling() {
    for rules in ALL {
        // The replacement Kf1 breaks the release on g1 (2009 §4.6, 2023 4.7);
        // 2001 §7.4a binds the replacement by 4.3 only, and Kf1 moves the
        // touched king.
        let steps = format!("{KING_ON_G1}\n5000 lift e1\n5200 place f1\n5500 press w");
        let ev = replay_steps(hdr(KR), &steps, rules);
        assert_eq!(of(&ev, "illegal_move").len(), 1, "{rules}: {ev:#?}");
        assert_eq!(of(&ev, "position_restored").len(), 1, "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["Kf1"], "{rules}");
        let tm = of(&ev, "touch_move");
        if rules == "fide-2001" {
            assert!(tm.is_empty(), "{rules}: {ev:#?}");
        } else {
            assert_eq!(tm.len(), 1, "{rules}: {ev:#?}");
            assert_eq!(tm[0]["article"], released_article(rules), "{rules}");
            assert_eq!(tm[0]["touched"], "e1");
            assert_eq!(tm[0]["played"], "e1f1");
        }
        // Castling, as released, keeps every obligation.
        let steps = format!(
            "{KING_ON_G1}\n5000 lift e1\n5200 place g1\n5400 lift h1\n5600 place f1\n6000 press w"
        );
        let ev = replay_steps(hdr(KR), &steps, rules);
        assert_eq!(sans(&ev), ["O-O"], "{rules}: {ev:#?}");
        assert!(of(&ev, "touch_move").is_empty(), "{rules}: {ev:#?}");
    }
}

/// White's b7 pawn can go to b8, a8 or c8; it is released on b8 and not
/// replaced (identity sensing shows the pawn), and the clock is pressed.
const PAWN7: &str = "n1n1k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
const PAWN_ON_B8: &str = "
    1000 lift b7
    1200 place b8 P
    1500 press w
    3000 lift b8
    3200 place b7 P";

#[test]
fn s7_4a_pawn_released_on_the_last_rank_still_commits_to_that_square() {
    let h = json!({"trace": 1, "start_fen": PAWN7, "sensing": "identity"});
    for rules in ALL {
        if rules == "fide-2023" {
            // 2023 7.5.2: the pawn left on b8 is replaced by a queen and the
            // move stands (F34, `tests/fide2023.rs`): nothing to replace.
            let steps = "1000 lift b7\n1200 place b8 P\n1500 press w";
            let ev = replay_steps(h.clone(), steps, rules);
            assert_eq!(of(&ev, "illegal_move")[0]["article"], "7.5.2");
            assert_eq!(sans(&ev), ["b8=Q"], "{rules}: {ev:#?}");
            continue;
        }
        // Replacement bxa8=Q: the pawn was released on b8 (2009 §4.6); 2001
        // binds by 4.3 only (the pawn moves: kept).
        let steps =
            format!("{PAWN_ON_B8}\n5000 lift a8\n5100 lift b7\n5300 place a8 Q\n5600 press w");
        let ev = replay_steps(h.clone(), &steps, rules);
        assert_eq!(of(&ev, "illegal_move").len(), 1, "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["bxa8=Q"], "{rules}: {ev:#?}");
        let tm = of(&ev, "touch_move");
        if rules == "fide-2001" {
            assert!(tm.is_empty(), "{rules}: {ev:#?}");
        } else {
            assert_eq!(tm.len(), 1, "{rules}: {ev:#?}");
            assert_eq!(tm[0]["article"], released_article(rules), "{rules}");
            assert_eq!(tm[0]["touched"], "b7");
        }
        // Promoting on b8 keeps it.
        let steps = format!("{PAWN_ON_B8}\n5000 lift b7\n5300 place b8 Q\n5600 press w");
        let ev = replay_steps(h.clone(), &steps, rules);
        assert_eq!(sans(&ev), ["b8=Q"], "{rules}: {ev:#?}");
        assert!(of(&ev, "touch_move").is_empty(), "{rules}: {ev:#?}");
    }
}

// ------------------------------------------- A4c / B3c / C3: the claim window

const KRP: &str = "r3k3/4p3/8/8/8/8/8/R3K3 w - - 0 1";
/// Ra1-b3 is illegal.
const RB3: &str = "1000 lift a1\n1200 place b3\n1500 press w";

#[test]
fn a4c_b3c_c3_a_claim_counts_while_the_claimant_holds_his_piece() {
    for (rules, mode, tc, article) in CLAIM_ONLY {
        // Black has lifted his pawn (touched, not yet moved): claim valid.
        let steps = format!("{RB3}\n3000 lift e7\n3100 claim illegal_move b");
        let ev = replay_steps(timed(KRP, mode, tc), &steps, rules);
        let claim = of(&ev, "claim");
        assert_eq!(claim[0]["upheld"], true, "{rules} {mode}: {ev:#?}");
        assert_eq!(claim[0]["article"], article, "{rules} {mode}");
        assert_eq!(of(&ev, "illegal_move")[0]["article"], article);
    }
}

#[test]
fn a4c_b3c_c3_the_window_closes_when_the_claimants_move_is_made_not_pressed() {
    for (rules, mode, tc, _) in CLAIM_ONLY {
        // Black's e7-e6 released at 3200 and left standing (made); his
        // claim at 6000, before pressing, comes too late.
        let steps = format!("{RB3}\n3000 lift e7\n3200 place e6\n6000 claim illegal_move b");
        let ev = replay_steps(timed(KRP, mode, tc), &steps, rules);
        assert_eq!(
            of(&ev, "claim")[0]["upheld"],
            false,
            "{rules} {mode}: {ev:#?}"
        );
        assert!(of(&ev, "illegal_move").is_empty(), "{rules} {mode}");
        assert!(of(&ev, "game_end").is_empty(), "{rules} {mode}");
        // Set down and claimed at once (not yet released): still valid.
        let steps = format!("{RB3}\n3000 lift e7\n3200 place e6\n3400 claim illegal_move b");
        let ev = replay_steps(timed(KRP, mode, tc), &steps, rules);
        assert_eq!(
            of(&ev, "claim")[0]["upheld"],
            true,
            "{rules} {mode}: {ev:#?}"
        );
    }
}

#[test]
fn a5_2_and_2001_rapid_the_arbiter_rules_at_the_press() {
    // 2023 A.5.2 with the event's `board_observes_illegal_moves` (the
    // board is the arbiter's eye) and 2001 rapid (§7.4 through B2): no
    // claim window; the ruling comes at the press.
    for (rules, mode, tc) in [
        ("fide-2023", "rapid", "1500+10"),
        ("fide-2023", "blitz", "180+2"),
        ("fide-2001", "rapid", "1500"),
    ] {
        let mut h = timed(KRP, mode, tc);
        h["board_observes_illegal_moves"] = json!(true);
        let ev = replay_steps(h, RB3, rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{rules} {mode}: {ev:#?}");
        assert_eq!(ill[0]["t"], 1500);
    }
    // 2023 A.5.2 without it (the Laws' default): alerted, not ruled
    // (issue 40; tests/a52_illegal.rs).
    for (mode, tc) in [("rapid", "1500+10"), ("blitz", "180+2")] {
        let ev = replay_steps(timed(KRP, mode, tc), RB3, "fide-2023");
        assert!(of(&ev, "illegal_move").is_empty(), "{mode}: {ev:#?}");
        let irr = of(&ev, "irregularity");
        assert_eq!(irr[0]["kind"], "illegal_move_unclaimed", "{mode}");
        assert_eq!(irr[0]["t"], 1500);
    }
}

#[test]
fn a4c_a_claimed_illegal_move_reinstates_the_position_before_it() {
    for rules in ["fide-2009", "fide-2009-no"] {
        // Black claims; the rook goes back to a1; the position before the
        // illegal move is the game's again, White to move, and the touched
        // rook binds the replacement (§7.4a: 4.3).
        let steps = format!(
            "{RB3}\n3000 claim illegal_move b\n4000 lift b3\n4200 place a1\n5000 lift e1\n5200 place d1\n5500 press w"
        );
        let ev = replay_steps(timed(KRP, "rapid", "1500+10"), &steps, rules);
        assert_eq!(of(&ev, "illegal_move")[0]["penalty"], "+2 min to black");
        let restored = of(&ev, "position_restored");
        assert_eq!(restored.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(restored[0]["fen"], KRP, "{rules}");
        let moves = of(&ev, "move");
        assert_eq!(moves.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(moves[0]["ply"], 1);
        assert_eq!(moves[0]["by"], "w");
        assert_eq!(moves[0]["san"], "Kd1");
        let tm = of(&ev, "touch_move");
        assert_eq!(tm.len(), 1, "{rules}: the touched rook binds: {ev:#?}");
        assert_eq!(tm[0]["article"], "4.3a");
        assert_eq!(tm[0]["touched"], "a1");
    }
}

// ------------------------------- own king left in check; both kings in check

/// White's bishop e2 is pinned by the rook e7: Be2-d3 leaves the king on e1
/// in check (no legal position to play on from).
const PINNED: &str = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";
const BD3: &str = "1000 lift e2\n1200 place d3\n1500 press w";

#[test]
fn own_king_left_in_check_waits_for_the_claim_and_the_claim_wins_in_blitz() {
    for (rules, mode, tc, article) in CLAIM_ONLY {
        let ev = replay_steps(timed(PINNED, mode, tc), BD3, rules);
        assert!(
            of(&ev, "illegal_move").is_empty(),
            "{rules} {mode}: no unasked ruling: {ev:#?}"
        );
        assert!(of(&ev, "game_end").is_empty(), "{rules} {mode}");
        let steps = format!("{BD3}\n3000 claim illegal_move b");
        let ev = replay_steps(timed(PINNED, mode, tc), &steps, rules);
        // Black has K+R and can mate: in blitz the claim wins.
        assert_whites_illegal_move_ruled(&ev, rules, mode, article);
        if mode != "blitz" {
            // A4c: §7.4 applies; the position before it is reinstated.
            let steps = format!("{BD3}\n3000 claim illegal_move b\n4000 lift d3\n4200 place e2");
            let ev = replay_steps(timed(PINNED, mode, tc), &steps, rules);
            let restored = of(&ev, "position_restored");
            assert_eq!(restored.len(), 1, "{rules}: {ev:#?}");
            assert_eq!(restored[0]["fen"], PINNED);
        }
    }
}

#[test]
fn own_king_left_in_check_is_ruled_at_once_where_the_arbiter_supervises() {
    for rules in ALL {
        let ev = replay_steps(timed(PINNED, "standard", "5400+30"), BD3, rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(ill[0]["t"], 1500);
    }
}

/// White's knight e4, pinned by the bishop a8 against the king h1, gives
/// check from d6: both kings stand in check.
const BOTH: &str = "b3k3/8/8/8/4N3/8/8/7K w - - 0 1";
const ND6: &str = "1000 lift e4\n1200 place d6\n1500 press w";

#[test]
fn a4c_both_kings_in_check_is_ruled_unasked_in_rapid_only() {
    for rules in ["fide-2001", "fide-2009", "fide-2009-no"] {
        // 2009 A4c: the arbiter intervenes unasked (rapid); 2001 rapid
        // rules every illegal move at the press anyway.
        let ev = replay_steps(timed(BOTH, "rapid", "1500+10"), ND6, rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(ill[0]["t"], 1500, "{rules}");
    }
    for rules in ["fide-2001", "fide-2009", "fide-2009-no"] {
        // Blitz: 2009 B3b ("A4c gælder ikke"), 2001 C: only a claim counts.
        let ev = replay_steps(timed(BOTH, "blitz", "180+2"), ND6, rules);
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}: {ev:#?}");
    }
    // 2023 A.5.2 has no such clause (A.5.4 waits for the next move
    // instead): the arbiter is alerted, nothing is ruled unasked.
    let ev = replay_steps(timed(BOTH, "rapid", "1500+10"), ND6, "fide-2023");
    assert!(of(&ev, "illegal_move").is_empty(), "{ev:#?}");
    assert_eq!(of(&ev, "irregularity")[0]["kind"], "illegal_move_unclaimed");
}

#[test]
fn a4c_incomplete_promotion_is_ruled_unasked_in_rapid_not_in_blitz() {
    let h = |mode: &str, tc: &str| json!({"trace": 1, "start_fen": PAWN7, "sensing": "identity", "mode": mode, "time_control": tc, "supervision": "inadequate"});
    let steps = "1000 lift b7\n1200 place b8 P\n1500 press w";
    for rules in ["fide-2009", "fide-2009-no"] {
        let ev = replay_steps(h("rapid", "1500+10"), steps, rules);
        assert_eq!(of(&ev, "illegal_move").len(), 1, "{rules}: {ev:#?}");
        let ev = replay_steps(h("blitz", "180+2"), steps, rules);
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}: B3b: {ev:#?}");
        let ev = replay_steps(
            h("blitz", "180+2"),
            &format!("{steps}\n3000 claim illegal_move b"),
            rules,
        );
        assert_eq!(of(&ev, "claim")[0]["upheld"], true, "{rules}: {ev:#?}");
    }
}

// ------------------------------------------------------ appendix letters

#[test]
fn appendix_articles_carry_the_editions_letter() {
    use eboard::rules::{Edition, Mode, Profile, Supervision};
    for (edition, vi_clock, vi_boards) in [
        (Edition::Fide2001, "F2.3", "F2.7"),
        (Edition::Fide2009, "E2.3", "E2.7"),
        (Edition::Fide2009No, "E2.3", "E2.7"),
        (Edition::Fide2023, "D.2.4", "D.2.9"),
    ] {
        for mode in [Mode::Standard, Mode::Rapid, Mode::Blitz] {
            let p = Profile::with_supervision(edition, mode, Supervision::Inadequate);
            let a = p.articles;
            assert_eq!(a.vi_clock_after_announcement, vi_clock);
            assert_eq!(a.vi_boards_differ, vi_boards);
            // Rapid and blitz appendix letters: 2001 B/C, 2009 A/B, 2023 A/B
            // (2023 blitz B.3 imports A.5).
            let rapid_blitz = [a.illegal_claim, a.flag_claim, a.both_flags];
            for art in rapid_blitz {
                let first = art.chars().next().unwrap();
                if !first.is_ascii_uppercase() {
                    continue;
                }
                // (Standard carries the rapid articles, unused there.)
                let allowed: &[char] = match (edition, mode) {
                    (Edition::Fide2001, Mode::Blitz) => &['B', 'C'],
                    (Edition::Fide2001, _) => &['B'],
                    (Edition::Fide2023, _) => &['A', 'B', 'I'],
                    (_, Mode::Blitz) => &['A', 'B'],
                    (_, _) => &['A'],
                };
                assert!(
                    allowed.contains(&first),
                    "{edition:?} {mode:?}: {art} has the wrong appendix letter"
                );
            }
        }
    }
}

#[test]
fn vi_events_cite_the_editions_appendix() {
    // E2.3 (2001 F2.3, 2023 D.2.4): the VI player starts the clock before
    // his move was announced.
    let h = json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "w"});
    let steps = "1000 tactile lift e2\n1100 tactile place e4\n1200 press w";
    for (rules, want) in [
        ("fide-2001", "F2.3"),
        ("fide-2009", "E2.3"),
        ("fide-2009-no", "E2.3"),
        ("fide-2023", "D.2.4"),
    ] {
        let ev = replay_steps(h.clone(), steps, rules);
        let irr = of(&ev, "irregularity");
        let early: Vec<&Value> = irr
            .into_iter()
            .filter(|e| e["kind"] == "clock_started_before_announcement")
            .collect();
        assert_eq!(early.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(early[0]["article"], want, "{rules}");
    }
}

/// 2009 §9.1b(1) (seed 002): the offer stands until the opponent "afslår
/// det ved at røre en brik i den hensigt at flytte eller slå den" (2001
/// §9.1a, 2023 9.1.2.1 the same). White offers with his move made and
/// before his press (§9.1b); Black, who has the move, touches his pawn:
/// the offer lapsed, so his `accept` after it is no agreement.
#[test]
fn a_draw_offer_lapses_when_the_opponent_touches_before_the_press() {
    let steps = "
        1000 lift e2
        1300 place e4
        1500 offer w
        3100 lift e7
        3300 place e5
        3400 accept b
        3600 press b";
    for rules in ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"] {
        let ev = replay_steps(json!({"trace": 1, "time_control": "5400+30"}), steps, rules);
        assert!(of(&ev, "game_end").is_empty(), "{rules}: {ev:#?}");
        let t = of(&ev, "touch");
        assert_eq!(
            (&t[1]["square"], &t[1]["by"]),
            (&json!("e7"), &json!("b")),
            "{rules}"
        );
    }
}

/// A touch names the piece actually on the square: White's knight set down
/// on e5 capturing the pawn there (the pawn's lift too short to count, a
/// quick capture), not pressed; Black lifts the knight to take it. The
/// touch is Black's and names the white knight (`N`), not the pawn of the
/// last completed position.
#[test]
fn a_touch_on_the_square_just_moved_to_names_the_piece_there() {
    let steps = "
        1000 lift g4
        1200 lift e5
        1230 place e5 N
        4000 lift e5
        4300 lift d6
        4500 place e5 p
        5000 press b";
    let ev = replay_steps(
        json!({"trace": 1, "start_fen": "4k3/8/3p4/4p3/6N1/8/8/4K3 w - - 0 1", "time_control": "5400+30", "sensing": "identity"}),
        steps,
        "fide-2023",
    );
    let t: Vec<(Value, Value, Value)> = of(&ev, "touch")
        .iter()
        .map(|x| (x["t"].clone(), x["by"].clone(), x["piece"].clone()))
        .collect();
    assert!(
        t.contains(&(json!(4000), json!("b"), json!("N"))),
        "{t:?}: {ev:#?}"
    );
    assert_eq!(sans(&ev), ["Nxe5", "dxe5"], "{ev:#?}");
    assert!(of(&ev, "touch_move").is_empty(), "{ev:#?}");
}
