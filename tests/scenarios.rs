//! The acceptance scenarios of `../shared/rules/digest.md` §8 that a board
//! can express, as traces, each named by its S-number and run under every
//! profile it names. The ones a board cannot express are listed with the
//! reason in `docs/dev/scenarios.md`.
//!
//! Traces are written in the step language of `tests/common/trace.rs`
//! (`TraceBuilder::steps`), one step a line: `T lift SQ`, `T mv UCI C`, ….
//!
//! One file: the digest's acceptance scenarios as one table, one test per
//! scenario in the digest's S-number order, so a reader finds every
//! S-number in one place.

use crate::common;

use common::{fen_header as hdr, of, replay_steps, sans, ALL_RULES as ALL};
use serde_json::{json, Value};

fn touch_article(rules: &str, a2009: &str) -> String {
    if rules != "fide-2023" {
        return a2009.to_owned();
    }
    match a2009 {
        "4.3a" => "4.3.1",
        "4.3b" => "4.3.2",
        "4.3c" => "4.3.3",
        "4.4a" => "4.4.1",
        "4.4b" => "4.4.2",
        "4.4c" => "4.4.3",
        "4.4d" => "4.4.4",
        other => other,
    }
    .to_owned()
}

fn assert_breach(ev: &[Value], article: &str, touched: &str, played: &str) {
    let tm = of(ev, "touch_move");
    assert_eq!(tm.len(), 1, "one touch_move in {ev:#?}");
    assert_eq!(tm[0]["article"], article);
    assert_eq!(tm[0]["touched"], touched);
    assert_eq!(tm[0]["played"], played);
}

const S01: &str = "
    1000 lift g1
    1300 place g1
    2000 mv e2e4 w";

#[test]
fn s01_touched_knight_must_move_claim_upheld() {
    for rules in ALL {
        let steps = format!(
            "{S01}
            3000 claim touch_move b
            3500 lift e4
            3700 place e2
            4000 mv g1f3 w"
        );
        let ev = replay_steps(hdr(""), &steps, rules);
        assert_breach(
            &ev[..ev.iter().position(|e| e["type"] == "claim").unwrap()],
            &touch_article(rules, "4.3a"),
            "g1",
            "e2e4",
        );
        let claim = of(&ev, "claim");
        assert_eq!(claim[0]["upheld"], true, "{rules}");
        assert_eq!(of(&ev, "position_restored").len(), 1, "{rules}");
        assert_eq!(
            sans(&ev),
            ["e4", "Nf3"],
            "{rules}: e4 taken back, the knight moved"
        );
        assert_eq!(
            of(&ev, "touch_move").len(),
            1,
            "{rules}: the replacement keeps the obligation"
        );
    }
}

#[test]
fn s02_claim_lost_once_the_claimant_touches_a_piece() {
    for rules in ALL {
        let steps = format!(
            "{S01}
            3000 lift e7
            3500 claim touch_move b"
        );
        let ev = replay_steps(hdr(""), &steps, rules);
        assert_eq!(of(&ev, "claim")[0]["upheld"], false, "{rules}");
        assert_eq!(sans(&ev), ["e4"], "{rules}");
    }
}

#[test]
fn s03_obligation_passes_to_the_first_piece_that_can_move() {
    for rules in ALL {
        let ev = replay_steps(
            hdr(""),
            "1000 lift c1\n1300 place c1\n2000 mv g1f3 w",
            rules,
        );
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
        assert_eq!(sans(&ev), ["Nf3"]);
    }
}

#[test]
fn s05_s06_touched_opponent_piece() {
    let fen = "rnbqkb1r/pppp1ppp/5n2/4P1B1/8/8/PPPP1PPP/RN1QKBNR w KQkq - 0 4";
    for rules in ALL {
        let ev = replay_steps(
            hdr(fen),
            "1000 lift f6\n1300 place f6\n2000 mv h2h3 w",
            rules,
        );
        assert_breach(&ev, &touch_article(rules, "4.3b"), "f6", "h2h3");
        let ev = replay_steps(
            hdr(fen),
            "1000 lift f6\n1300 place f6\n2000 cap g5f6 w",
            rules,
        );
        assert!(
            of(&ev, "touch_move").is_empty(),
            "{rules}: either capture is fine"
        );
        let ev = replay_steps(
            hdr(fen),
            "1000 lift d8\n1300 place d8\n2000 mv h2h3 w",
            rules,
        );
        assert!(
            of(&ev, "touch_move").is_empty(),
            "{rules}: S06, nothing can take Qd8"
        );
    }
}

#[test]
fn s07_s10_own_and_opponent_piece() {
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 0 3";
    for rules in ALL {
        let s07 = "1000 lift f3\n1300 place f3\n1600 lift e5\n1800 place e5\n";
        let ev = replay_steps(hdr(fen), &format!("{s07}3000 cap d4e5 w"), rules);
        assert_breach(&ev, &touch_article(rules, "4.3c"), "e5", "d4e5");
        let ev = replay_steps(hdr(fen), &format!("{s07}3000 cap f3e5 w"), rules);
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
        // S10: inside the simultaneity window the own piece counts first.
        let s10 = "1000 lift e5\n1050 lift f3\n1300 place f3\n1400 place e5\n3000 cap d4e5 w";
        let ev = replay_steps(hdr(fen), s10, rules);
        assert_breach(&ev, &touch_article(rules, "4.3c"), "e5", "d4e5");
    }
}

#[test]
fn s09_opponent_piece_first_then_own_that_cannot_take_it() {
    let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 2";
    for rules in ALL {
        let pre = "1000 lift d5\n1200 place d5\n1600 lift f3\n1800 place f3\n";
        let ev = replay_steps(hdr(fen), &format!("{pre}3000 mv f3g5 w"), rules);
        assert_breach(&ev, &touch_article(rules, "4.3c"), "d5", "f3g5");
        let ev = replay_steps(hdr(fen), &format!("{pre}3000 cap e4d5 w"), rules);
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
    }
}

#[test]
fn s11_jadoube_exempts_the_next_lift() {
    for rules in ALL {
        let ev = replay_steps(
            hdr(""),
            "500 adjust w\n1000 lift g1\n1300 place g1\n2000 mv e2e4 w",
            rules,
        );
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
        assert!(
            of(&ev, "touch").is_empty() || of(&ev, "touch").iter().all(|t| t["square"] != "g1")
        );
        // An adjustment announced by the player not on move is logged.
        let ev = replay_steps(hdr(""), "500 adjust b\n2000 mv e2e4 w", rules);
        assert_eq!(
            of(&ev, "irregularity")[0]["kind"],
            "adjust_by_player_not_on_move"
        );
    }
}

#[test]
fn s14_norwegian_wording_same_result() {
    let ev = replay_steps(hdr(""), S01, "fide-2009-no");
    assert_breach(&ev, "4.3a", "g1", "e2e4");
}

const CASTLE: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

#[test]
fn s15_king_then_rook_must_castle() {
    for rules in ALL {
        let pre = "1000 lift e1\n1200 place e1\n1500 lift h1\n1700 place h1\n";
        let ev = replay_steps(hdr(CASTLE), &format!("{pre}3000 mv e1f1 w"), rules);
        assert_breach(&ev, &touch_article(rules, "4.4a"), "e1", "e1f1");
        let ev = replay_steps(
            hdr(CASTLE),
            &format!("{pre}3000 lift e1\n3200 place g1\n3400 lift h1\n3600 place f1\n4000 press w"),
            rules,
        );
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
        assert_eq!(sans(&ev), ["O-O"]);
        // Rook first, then king: no castling on that side (4.4b); recognised as castling all the same.
        let ev = replay_steps(
            hdr(CASTLE),
            "1000 lift h1\n1200 place f1\n1500 lift e1\n1700 place g1\n2500 press w",
            rules,
        );
        assert_eq!(sans(&ev), ["O-O"]);
        assert_breach(&ev, &touch_article(rules, "4.4b"), "h1", "e1g1");
    }
}

#[test]
fn s17_castling_intended_but_illegal_another_king_move() {
    // f1 attacked by the bishop on c4: O-O is illegal; O-O-O is legal.
    let fen = "r3k2r/pppppppp/8/8/2b5/8/PPP3PP/R3K2R w KQkq - 0 1";
    for rules in ALL {
        let pre = "1000 lift e1\n1200 place e1\n1500 lift h1\n1700 place h1\n";
        let ev = replay_steps(
            hdr(fen),
            &format!("{pre}3000 lift e1\n3200 place c1\n3400 lift a1\n3600 place d1\n4000 press w"),
            rules,
        );
        assert!(
            of(&ev, "touch_move").is_empty(),
            "{rules}: O-O-O is another king move"
        );
        let ev = replay_steps(hdr(fen), &format!("{pre}3000 mv a2a3 w"), rules);
        assert_breach(&ev, &touch_article(rules, "4.4c"), "e1", "a2a3");
    }
}

#[test]
fn s18_s19_s21_king_released_on_g1_only_castling() {
    for rules in ALL {
        // King released on g1 (held 3 s), then moved to f1 instead of castling.
        let steps = "1000 lift e1\n1200 place g1\n4500 lift g1\n4700 place f1\n5000 press w";
        let ev = replay_steps(hdr(CASTLE), steps, rules);
        let article = if rules == "fide-2009" || rules == "fide-2009-no" {
            "4.6"
        } else {
            "4.7"
        };
        assert_breach(&ev, article, "e1", "e1f1");
        // S19: the rook released on f1 makes the move; the press completes it.
        let ev = replay_steps(
            hdr(CASTLE),
            "1000 lift e1\n1200 place g1\n4500 lift h1\n4700 place f1\n5000 press w",
            rules,
        );
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
        assert_eq!(
            of(&ev, "move")[0]["fen"],
            "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1"
        );
    }
}

#[test]
fn s22_released_piece_cannot_go_elsewhere() {
    let fen = "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2";
    for rules in ALL {
        let steps = "1000 lift b1\n1200 place d2\n4000 lift d2\n4200 place c3\n4600 press w";
        let ev = replay_steps(hdr(fen), steps, rules);
        let article = if rules.starts_with("fide-2009") {
            "4.6"
        } else {
            "4.7"
        };
        assert_breach(&ev, article, "b1", "b1c3");
        // A piece merely slid over d2 (a brief placement) is not released there.
        let ev = replay_steps(
            hdr(fen),
            "1000 lift b1\n1200 place d2\n1300 lift d2\n1500 place c3\n2000 press w",
            rules,
        );
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
    }
}

#[test]
fn s23_released_on_an_impossible_square() {
    for rules in ALL {
        let ev = replay_steps(
            hdr(""),
            "1000 lift g1\n1200 place g3\n4000 lift g3\n4200 place f3\n4600 press w",
            rules,
        );
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
        assert!(
            of(&ev, "illegal_move").is_empty(),
            "{rules}: nothing completed"
        );
        let ev = replay_steps(
            hdr(""),
            "1000 lift g1\n1200 place g3\n4000 lift g3\n4200 place g1\n5000 mv e2e4 w",
            rules,
        );
        assert_breach(&ev, &touch_article(rules, "4.3a"), "g1", "e2e4");
    }
}

#[test]
fn s26_s27_en_passant_made_and_incomplete() {
    let fen = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
    for rules in ALL {
        let ev = replay_steps(
            hdr(fen),
            "1000 lift e5\n1200 place d6\n1500 lift d5\n2000 press w",
            rules,
        );
        assert_eq!(sans(&ev), ["exd6"], "{rules}");
        let ev = replay_steps(hdr(fen), "1000 lift e5\n1200 place d6\n2000 press w", rules);
        assert!(sans(&ev).is_empty(), "{rules}");
        let ill = of(&ev, "illegal_move");
        assert_eq!(
            ill.len(),
            1,
            "{rules}: incomplete capture is a completed illegal move"
        );
        assert_eq!(
            ill[0]["squares"],
            json!(["e5", "d6"]),
            "the squares to reinstate"
        );
    }
}

const PROMO: &str = "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1";

#[test]
fn s29_s30_s31_promotion_piece_final_at_first_contact() {
    let identity = |fen: &str| json!({"trace": 1, "start_fen": fen, "sensing": "identity"});
    let swap = "1000 lift a7\n1200 place a8 Q\n1500 lift a8\n1700 place a8 N\n2200 press w";
    for rules in ["fide-2009", "fide-2009-no", "fide-2023"] {
        let ev = replay_steps(identity(PROMO), swap, rules);
        assert_breach(&ev, &touch_article(rules, "4.4d"), "a8", "a7a8n");
    }
    let ev = replay_steps(identity(PROMO), swap, "fide-2001");
    assert!(
        of(&ev, "touch_move").is_empty(),
        "S30: 2001 fixes the piece only at release"
    );
    // S31: the pawn removed and the queen released on the square.
    let ev = replay_steps(
        identity(PROMO),
        "1000 lift a7\n1200 place a8 P\n1500 lift a8\n1700 place a8 Q\n2200 press w",
        "fide-2009",
    );
    assert_eq!(sans(&ev), ["a8=Q"]);
}

#[test]
fn s33_incomplete_promotion_ruled_unasked_in_rapid() {
    let h = json!({"trace": 1, "start_fen": PROMO, "sensing": "identity", "mode": "rapid", "time_control": "1500+10"});
    let ev = replay_steps(
        h,
        "1000 lift a7\n1200 place a8 P\n2200 press w",
        "fide-2009",
    );
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 1, "{ev:#?}");
    assert_eq!(ill[0]["by"], "w");
}

#[test]
fn s35_first_promotion_choice_is_final() {
    let steps = "1000 lift a7\n1200 place a8\n1300 promote q\n1400 promote n\n2200 press w";
    assert_eq!(
        sans(&replay_steps(hdr(PROMO), steps, "fide-2009")),
        ["a8=Q"]
    );
    assert_eq!(
        sans(&replay_steps(hdr(PROMO), steps, "fide-2001")),
        ["a8=N"]
    );
    let ev = replay_steps(
        hdr(PROMO),
        "1000 lift a7\n1200 place a8\n2200 press w",
        "fide-2009",
    );
    assert_eq!(of(&ev, "promotion_assumed").len(), 1);
}

/// White plays Ke1-e3 (illegal) `n` times, restoring each time.
fn illegal_king_moves(n: usize) -> String {
    common::illegal_and_back(n, "e1", "e3")
}

#[test]
fn s37_s38_s39_nth_illegal_move() {
    let kr = "4k2r/8/8/8/8/8/8/4K3 w - - 0 1"; // Black has K+R
    let bare = "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1"; // Black has a bare king
    let tc = |fen: &str| json!({"trace": 1, "start_fen": fen, "time_control": "5400+30"});
    for rules in ["fide-2001", "fide-2009", "fide-2009-no"] {
        let ev = replay_steps(tc(kr), &illegal_king_moves(2), rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 2, "{rules}");
        assert_eq!(ill[1]["count"], 2);
        assert_eq!(ill[1]["penalty"], "+2 min to black", "S37 {rules}");
        // The move and its reinstatement §7.4a; the penalty §7.4b ("Efter
        // brugen af § 7.4 a. skal dommeren give modstanderen to ekstra
        // minutter").
        assert_eq!(ill[1]["article"], "7.4a", "{rules}");
        assert_eq!(ill[1]["penalty_article"], "7.4b", "{rules}");
        // Black's clock started at 1:30:30 (over the board: base + increment).
        assert_eq!(
            of(&ev, "clock").last().unwrap()["black_ms"],
            5_430_000 + 240_000
        );
        let ev = replay_steps(tc(kr), &illegal_king_moves(3), rules);
        assert_eq!(
            of(&ev, "illegal_move")[2]["penalty"],
            "game lost",
            "S38 {rules}"
        );
        assert_eq!(of(&ev, "game_end")[0]["result"], "0-1");
        // "Hvis samme spiller udfører et tredje ulovligt træk, skal dommeren
        // erklære partiet tabt for ham" (§7.4b).
        assert_eq!(of(&ev, "game_end")[0]["article"], "7.4b", "{rules}");
        let ev = replay_steps(tc(bare), &illegal_king_moves(3), rules);
        let want = if rules == "fide-2001" {
            "0-1"
        } else {
            "1/2-1/2"
        };
        assert_eq!(of(&ev, "game_end")[0]["result"], want, "S39 {rules}");
    }
    // 2023 7.5.5: the second illegal move loses.
    let ev = replay_steps(tc(kr), &illegal_king_moves(2), "fide-2023");
    assert_eq!(of(&ev, "illegal_move")[1]["penalty"], "game lost");
    assert_eq!(of(&ev, "illegal_move")[1]["article"], "7.5.1");
    assert_eq!(of(&ev, "illegal_move")[1]["penalty_article"], "7.5.5");
    assert_eq!(of(&ev, "game_end")[0]["article"], "7.5.5");
}

#[test]
fn s41_s42_s54_illegal_move_not_pressed_is_no_illegal_move() {
    for rules in ALL {
        let steps = "1000 lift g1\n1200 place g3\n4000 lift g3\n4200 place f3\n4600 press w";
        let ev = replay_steps(
            json!({"trace": 1, "time_control": "180+2", "mode": "blitz"}),
            steps,
            rules,
        );
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}");
        assert_eq!(sans(&ev), ["Nf3"]);
    }
}

#[test]
fn s43_arbiter_reinstates_an_earlier_position() {
    let steps = "1000 mv e2e4 w\n3000 mv e7e5 b\n5000 mv g1f3 w\n7000 arbiter position rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n7500 lift f3\n7700 place g1\n9000 mv f1c4 w";
    let ev = replay_steps(hdr(""), steps, "fide-2009");
    assert_eq!(sans(&ev), ["e4", "e5", "Nf3", "Bc4"]);
    assert_eq!(of(&ev, "position_restored").len(), 1);
    let ev = replay_steps(
        hdr(""),
        "1000 mv e2e4 w\n2000 arbiter position 8/8/8/8/8/8/8/K6k w - - 0 1",
        "fide-2009",
    );
    // Refused with the reason (422), never journaled as given.
    let refused = &of(&ev, "ruling_refused")[0];
    assert_eq!(refused["status"], 422, "{refused}");
    assert!(of(&ev, "irregularity").is_empty());
}

#[test]
fn s45_nothing_after_the_game_ended() {
    let ev = replay_steps(
        hdr(""),
        "1000 mv e2e4 w\n2000 resign b\n3000 lift e4\n3200 place e6\n3500 press w",
        "fide-2009",
    );
    assert_eq!(of(&ev, "game_end")[0]["reason"], "resignation");
    assert!(of(&ev, "illegal_move").is_empty());
}

fn rapid(fen: &str, mode: &str) -> Value {
    // The board as the arbiter's eye under 2023 A.5.2 / B.3 (issue 40).
    json!({"trace": 1, "start_fen": fen, "mode": mode, "time_control": "1500+10", "supervision": "inadequate",
           "board_observes_illegal_moves": true})
}

const KRP: &str = "r3k3/4p3/8/8/8/8/8/R3K3 w - - 0 1";

#[test]
fn s46_s47_rapid_illegal_move_claim_before_reply() {
    // White's Ra1-b3 is illegal; Black claims before moving: +2 min.
    let illegal = "1000 lift a1\n1200 place b3\n1500 press w\n";
    let ev = replay_steps(
        rapid(KRP, "rapid"),
        &format!("{illegal}3000 claim illegal_move b"),
        "fide-2009",
    );
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 1, "{ev:#?}");
    assert_eq!(ill[0]["penalty"], "+2 min to black");
    assert_eq!(of(&ev, "claim")[0]["upheld"], true);
    // S47: Black replies without claiming: the illegal move stands, a later claim fails.
    let ev = replay_steps(
        rapid(KRP, "rapid"),
        &format!("{illegal}3000 mv e7e6 b\n5000 claim illegal_move b"),
        "fide-2009",
    );
    assert!(of(&ev, "illegal_move").is_empty(), "{ev:#?}");
    assert_eq!(sans(&ev), ["e6"]);
    assert_eq!(of(&ev, "claim")[0]["upheld"], false);
}

#[test]
fn s50_s51_blitz_illegal_move_claim_wins_or_draws() {
    let illegal = "1000 lift a1\n1200 place b3\n1500 press w\n3000 claim illegal_move b";
    let h =
        |fen: &str| json!({"trace": 1, "start_fen": fen, "mode": "blitz", "time_control": "180+2"});
    let ev = replay_steps(h(KRP), illegal, "fide-2009");
    assert_eq!(of(&ev, "game_end")[0]["result"], "0-1", "S50: {ev:#?}");
    let ev = replay_steps(h("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), illegal, "fide-2009");
    assert_eq!(
        of(&ev, "game_end")[0]["result"],
        "1/2-1/2",
        "S51: a bare king can only claim a draw"
    );
}

#[test]
fn s58_touch_move_in_rapid_is_recorded() {
    let h = json!({"trace": 1, "mode": "rapid", "time_control": "1500+10"});
    let ev = replay_steps(h, S01, "fide-2009");
    assert_breach(&ev, "4.3a", "g1", "e2e4");
    assert!(of(&ev, "game_end").is_empty());
}

#[test]
fn s59_s62_s63_flag_before_the_press() {
    let tc =
        |fen: &str| json!({"trace": 1, "start_fen": fen, "time_control": "60", "mode": "standard"});
    // White thinks 61 s: the flag falls before the press.
    let ev = replay_steps(
        json!({"trace": 1, "time_control": "60", "mode": "standard"}),
        "60000 lift e2\n60500 place e4\n61000 press w",
        "fide-2009",
    );
    assert_eq!(of(&ev, "flag")[0]["by"], "w");
    assert_eq!(of(&ev, "flag")[0]["t"], 60_000);
    assert_eq!(of(&ev, "game_end")[0]["result"], "0-1");
    assert!(sans(&ev).is_empty(), "the move was not completed");
    for rules in ALL {
        let ev = replay_steps(
            tc("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"),
            "61000 press w",
            rules,
        );
        assert_eq!(of(&ev, "game_end")[0]["result"], "1/2-1/2", "S62 {rules}");
        let ev = replay_steps(
            tc("8/8/8/8/8/2k5/1nP5/K7 w - - 0 1"),
            "61000 press w",
            rules,
        );
        assert_eq!(
            of(&ev, "game_end")[0]["result"],
            "0-1",
            "S63 {rules}: a helpmate exists"
        );
    }
}

#[test]
fn s61_stalemate_made_before_the_flag() {
    let tc =
        json!({"trace": 1, "start_fen": "k7/8/1Q6/8/8/8/8/7K w - - 0 1", "time_control": "60"});
    let ev = replay_steps(
        tc,
        "59000 lift b6\n59500 place c7\n62000 press w",
        "fide-2009",
    );
    assert_eq!(of(&ev, "game_end")[0]["reason"], "stalemate", "{ev:#?}");
    assert!(of(&ev, "flag").is_empty());
}

#[test]
fn s65_dead_position_ends_the_game() {
    let fen = "k7/8/8/p1p1p1p1/P1P1P1P1/8/8/K7 w - - 0 1";
    for rules in ALL {
        let ev = replay_steps(hdr(fen), "1000 mv a1b1 w", rules);
        assert_eq!(of(&ev, "game_end")[0]["reason"], "dead_position", "{rules}");
    }
}

#[test]
fn s66_s67_flag_around_the_time_control() {
    // 2 moves in 10 s, then 60 s: White completes move 2 in time (S67) or not.
    let h = json!({"trace": 1, "time_control": "2/10:60", "mode": "standard"});
    let moves = "1000 mv g1f3 w\n2000 mv g8f6 b\n";
    let ev = replay_steps(
        h.clone(),
        &format!("{moves}9000 mv f3g1 w\n10000 mv f6g8 b"),
        "fide-2009",
    );
    assert!(of(&ev, "flag").is_empty(), "{ev:#?}");
    assert_eq!(
        of(&ev, "clock")[2]["white_ms"],
        10_000 - 1_600 - 7_000 + 60_000
    );
    let ev = replay_steps(h, &format!("{moves}11000 mv f3g1 w"), "fide-2009");
    assert_eq!(
        of(&ev, "game_end")[0]["reason"],
        "time",
        "S66: flag before the 2nd move completed"
    );
}

#[test]
fn s70_s73_both_flags_in_rapid_without_adequate_supervision() {
    let h = json!({"trace": 1, "time_control": "900", "mode": "rapid"});
    // White's flag falls at 900 s; nobody claims; Black's then falls too.
    // 2009 A4d3 "Hvis begge vinger er faldet som beskrevet i 1 og 2": a
    // flag counts when a player validly points it out (A4d1) by stopping
    // the clocks (A4d2), so the board draws nothing unclaimed (2001 B8
    // with B6 alike) and the game goes on.
    for rules in ["fide-2009", "fide-2009-no", "fide-2001"] {
        let ev = replay_steps(
            h.clone(),
            "1000 mv e2e4 w\n902000 mv e7e5 b\n1802000 lift d2",
            rules,
        );
        let flags = of(&ev, "flag");
        assert_eq!(flags.len(), 2, "{rules}: {ev:#?}");
        assert!(of(&ev, "game_end").is_empty(), "{rules}: {ev:#?}");
        // Either player's claim then draws it (A4d3 / B8).
        let ev = replay_steps(
            h.clone(),
            "1000 mv e2e4 w\n902000 mv e7e5 b\n1802000 claim time w",
            rules,
        );
        let end = &of(&ev, "game_end")[0];
        assert_eq!(end["result"], "1/2-1/2", "{rules}");
        assert_eq!(end["reason"], "both_flags", "{rules}");
        let want = if rules == "fide-2001" { "B8" } else { "A4d3" };
        assert_eq!(end["article"], want, "{rules}");
    }
    // A claim while only the opponent's flag is down wins.
    let ev = replay_steps(
        h.clone(),
        "1000 mv e2e4 w\n2000 mv e7e5 b\n902000 claim time b",
        "fide-2009",
    );
    assert_eq!(of(&ev, "game_end")[0]["result"], "0-1", "{ev:#?}");
    // 2023 A.5.5: the arbiter calls the flag without a claim.
    let ev = replay_steps(
        h,
        "1000 mv e2e4 w\n2000 mv e7e5 b\n902000 lift d2",
        "fide-2023",
    );
    assert_eq!(of(&ev, "game_end")[0]["reason"], "time");
}

/// Knights out and back twice: the start position occurs three times.
const SHUFFLE: &str = "1000 mv g1f3 w\n3000 mv g8f6 b\n5000 mv f3g1 w\n7000 mv f6g8 b\n9000 mv g1f3 w\n11000 mv g8f6 b\n13000 mv f3g1 w\n15000 mv f6g8 b\n";

#[test]
fn s97_s99_s102_s103_draw_claims() {
    let tc = json!({"trace": 1, "time_control": "5400+30"});
    for rules in ALL {
        let ev = replay_steps(
            tc.clone(),
            &format!("{SHUFFLE}17000 claim threefold w"),
            rules,
        );
        assert!(!of(&ev, "draw_claimable").is_empty(), "{rules}");
        assert_eq!(of(&ev, "game_end")[0]["reason"], "threefold", "{rules}");
        // S99: a wrong claim.
        let ev = replay_steps(tc.clone(), "1000 mv e2e4 w\n2000 claim threefold b", rules);
        let c = of(&ev, "claim");
        assert_eq!(c[0]["upheld"], false, "{rules}");
        // Both clocks started at 1:30:30 (over the board: base + increment).
        let black_before = 5_430_000;
        let white = of(&ev, "clock").last().unwrap()["white_ms"]
            .as_u64()
            .unwrap();
        let black = of(&ev, "clock").last().unwrap()["black_ms"]
            .as_u64()
            .unwrap();
        match rules {
            "fide-2023" => assert_eq!(white, 5_430_000 - 1_600 + 30_000 + 120_000),
            "fide-2001" => {
                assert_eq!(white, 5_430_000 - 1_600 + 30_000 + 180_000);
                assert!(
                    black < black_before - 170_000,
                    "2001 cuts the claimant's time"
                );
            }
            _ => assert_eq!(white, 5_430_000 - 1_600 + 30_000 + 180_000, "{rules}"),
        }
        // S103: the incorrect claim is a draw offer the opponent may accept.
        let ev = replay_steps(
            tc.clone(),
            "1000 mv e2e4 w\n2000 claim threefold b\n2500 accept w",
            rules,
        );
        if rules == "fide-2023" {
            // 2023 5.2.3: Black has made no move yet: no agreement.
            assert!(of(&ev, "game_end").is_empty(), "{rules}: {ev:#?}");
        } else {
            assert_eq!(of(&ev, "game_end")[0]["reason"], "agreement", "{rules}");
        }
    }
    // S102: fifty moves.
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 99 80";
    let ev = replay_steps(
        hdr(fen),
        "1000 mv a1a2 w\n2000 claim fifty_moves b",
        "fide-2009",
    );
    assert_eq!(of(&ev, "game_end")[0]["reason"], "fifty_moves");
}

#[test]
fn s97_en_passant_makes_a_different_position() {
    // After 1.e4 (no legal e.p.) ... the claimed repetition counts only legal e.p. rights.
    let fen = "4k3/8/8/8/3p4/8/4P3/4K2N w - - 0 1";
    let steps = "1000 mv e2e4 w\n2000 mv e8d8 b\n3000 mv h1g3 w\n4000 mv d8e8 b\n5000 mv g3h1 w\n6000 mv e8d8 b\n7000 mv h1g3 w\n8000 mv d8e8 b\n9000 mv g3h1 w\n10000 claim threefold b";
    let ev = replay_steps(hdr(fen), steps, "fide-2009");
    // e4 allowed d4xe3 e.p. at the first occurrence: only two identical
    // positions on the board. Not upheld, and not penalised either: Kd8
    // written (§9.2a) would give the third (held for the arbiter).
    assert!(of(&ev, "game_end").is_empty(), "{ev:#?}");
    assert!(of(&ev, "claim").is_empty(), "{ev:#?}");
    assert_eq!(
        of(&ev, "claim_held")[0]["candidates"],
        json!([{"uci": "e8d8", "san": "Kd8"}])
    );
    // Named with a move that repeats nothing: rejected.
    let ev = replay_steps(
        hdr(fen),
        &steps.replace("threefold b", "threefold b Ke7"),
        "fide-2009",
    );
    assert_eq!(of(&ev, "claim")[0]["upheld"], false, "{ev:#?}");
}

#[test]
fn s101_claim_after_touching_a_piece() {
    let claim = format!("{SHUFFLE}16800 lift g1\n16900 place g1\n17000 claim threefold w");
    let ev = replay_steps(hdr(""), &claim, "fide-2009");
    assert_eq!(
        of(&ev, "claim")[0]["upheld"],
        false,
        "2009: lost on touching"
    );
    let ev = replay_steps(hdr(""), &claim, "fide-2001");
    assert_eq!(
        of(&ev, "game_end")[0]["reason"],
        "threefold",
        "2001: lost only on moving"
    );
}

#[test]
fn s106_quickplay_claim_not_in_blitz() {
    let h = json!({"trace": 1, "time_control": "180", "mode": "blitz"});
    let ev = replay_steps(
        h,
        "1000 mv e2e4 w\n2000 claim insufficient_losing_chances b",
        "fide-2009",
    );
    assert_eq!(of(&ev, "claim")[0]["upheld"], false);
    assert!(of(&ev, "claim")[0]["consequence"]
        .as_str()
        .unwrap()
        .contains("blitz"));
}

#[test]
fn fivefold_and_75_moves_end_the_game_in_2023_only() {
    let steps = format!(
        "{SHUFFLE}{}",
        SHUFFLE
            .lines()
            .map(|l| {
                let mut w: Vec<String> = l.split_whitespace().map(str::to_owned).collect();
                w[0] = (w[0].parse::<u64>().unwrap() + 16_000).to_string();
                w.join(" ") + "\n"
            })
            .collect::<String>()
    );
    let ev = replay_steps(hdr(""), &steps, "fide-2023");
    assert_eq!(of(&ev, "game_end")[0]["reason"], "fivefold");
    assert_eq!(of(&ev, "game_end")[0]["article"], "9.6.1");
    let ev = replay_steps(hdr(""), &steps, "fide-2009");
    assert!(of(&ev, "game_end").is_empty());
    let ev = replay_steps(
        hdr("4k3/8/8/8/8/8/8/R3K3 w - - 149 80"),
        "1000 mv a1a2 w",
        "fide-2023",
    );
    assert_eq!(of(&ev, "game_end")[0]["reason"], "seventy_five_moves");
}

#[test]
fn resignation_against_a_lone_king_2023() {
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let ev = replay_steps(hdr(fen), "1000 resign w", "fide-2023");
    assert_eq!(
        of(&ev, "game_end")[0]["result"],
        "1/2-1/2",
        "5.1.2: Black cannot mate"
    );
    let ev = replay_steps(hdr(fen), "1000 resign w", "fide-2009");
    assert_eq!(of(&ev, "game_end")[0]["result"], "0-1");
}

#[test]
fn s49_s55_s57_illegal_move_ruled_unasked_where_the_arbiter_supervises() {
    let illegal = "1000 lift a1\n1200 place b3\n1500 press w";
    // 2023 A.5.2 with the board as the arbiter's eye (issue 40).
    let h = |mode: &str, sup: &str, tc: &str| {
        json!({"trace": 1, "start_fen": KRP, "mode": mode, "time_control": tc, "supervision": sup,
                                                     "board_observes_illegal_moves": true})
    };
    // S49: 2009 rapid, adequate supervision: §7.4 without a claim.
    let ev = replay_steps(h("rapid", "adequate", "1500+10"), illegal, "fide-2009");
    assert_eq!(of(&ev, "illegal_move")[0]["penalty"], "+2 min to black");
    // S55: 2009 blitz, adequate supervision: +2 min, no win claim needed.
    let ev = replay_steps(h("blitz", "adequate", "180+2"), illegal, "fide-2009");
    assert_eq!(of(&ev, "illegal_move")[0]["penalty"], "+2 min to black");
    // S57: 2001 rapid: §7.4 through B2.
    let ev = replay_steps(h("rapid", "inadequate", "1500"), illegal, "fide-2001");
    assert_eq!(of(&ev, "illegal_move")[0]["penalty"], "+2 min to black");
    // 2023 rapid (A.5.2 with the board as the arbiter's eye): +1 min.
    let ev = replay_steps(h("rapid", "inadequate", "1500+10"), illegal, "fide-2023");
    assert_eq!(of(&ev, "illegal_move")[0]["penalty"], "+1 min to black");
}

#[test]
fn s94_an_offer_stands_until_answered() {
    for rules in ALL {
        let ev = replay_steps(
            hdr(""),
            "1000 lift e2\n1200 place e4\n1300 offer w\n1600 press w\n5000 accept b",
            rules,
        );
        if rules == "fide-2023" {
            // 2023 5.2.3: no agreement before both players made a move.
            assert!(of(&ev, "game_end").is_empty(), "{rules}: {ev:#?}");
            assert_eq!(
                of(&ev, "irregularity")[0]["kind"],
                "agreement_before_a_move_each"
            );
        } else {
            assert_eq!(of(&ev, "game_end")[0]["reason"], "agreement", "{rules}");
        }
        // Black plays on instead: the offer lapses.
        let ev = replay_steps(hdr(""), "1000 lift e2\n1200 place e4\n1300 offer w\n1600 press w\n3000 mv e7e5 b\n5000 accept b", rules);
        assert!(of(&ev, "game_end").is_empty(), "{rules}");
    }
}

#[test]
fn s98_lost_castling_right_makes_a_different_position() {
    // The king goes e1-f1-e1 twice: the first position had castling rights.
    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    let steps = "1000 mv e1f1 w\n2000 mv e8d8 b\n3000 mv f1e1 w\n4000 mv d8e8 b\n5000 mv e1f1 w\n6000 mv e8d8 b\n7000 mv f1e1 w\n8000 mv d8e8 b\n9000 claim threefold w";
    let ev = replay_steps(hdr(fen), steps, "fide-2009");
    // Only two identical positions on the board (not upheld); Kf1 written
    // would give the third (§9.2a): held for the arbiter, no penalty.
    assert!(of(&ev, "game_end").is_empty(), "{ev:#?}");
    assert!(of(&ev, "claim").is_empty(), "{ev:#?}");
    assert_eq!(of(&ev, "claim_held")[0]["candidates"][0]["san"], "Kf1");
    // Kf1 written: the position after it stands for the third time.
    let ev = replay_steps(
        hdr(fen),
        &steps.replace("threefold w", "threefold w Kf1"),
        "fide-2009",
    );
    assert_eq!(of(&ev, "game_end")[0]["reason"], "threefold", "{ev:#?}");
    assert_eq!(of(&ev, "game_end")[0]["article"], "9.2a", "{ev:#?}");
}

#[test]
fn board_turned_by_180_degrees_is_reported_as_seen_and_remapped() {
    // White's e2 pawn stands on the sensor square d7 of a turned board. A
    // half turn breaks no rule of placement (§2.1): for the board, White
    // sits at the wired Black end, colours reversed (§7.2 / 2023 7.3).
    let lift_place =
        "1000 lift d7\n1300 place d5\n1600 press w\n3000 lift d2\n3300 place d4\n3600 press b";
    let frames = "0 frame ffff00000000ffff\n1000 frame fff700000000ffff\n1300 frame fff700080000ffff\n1600 press w";
    for rules in ALL {
        let ev = replay_steps(hdr(""), lift_place, rules);
        assert_eq!(sans(&ev), ["e4", "e5"], "{rules}: {ev:#?}");
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1);
        // What the board sees (§2.1 is kept), never 2023 7.3's "shall be
        // discontinued": whether colours were reversed the arbiter decides.
        assert_eq!(irr[0]["kind"], "board_turned");
        assert_eq!(irr[0]["article"], "2.1");
        assert!(of(&ev, "illegal_move").is_empty());
    }
    let ev = replay_steps(hdr(""), frames, "fide-2009");
    assert_eq!(sans(&ev), ["e4"], "{ev:#?}");
}

#[test]
fn s13_s86_s87_displaced_pieces_are_put_right() {
    for rules in ALL {
        // White plays e4 and knocks Black's rook off a8 while pressing.
        let steps = "1000 lift e2\n1300 place e4\n1500 lift a8\n1600 press w\n3000 place a8\n4000 mv e7e5 b";
        let ev = replay_steps(hdr(""), steps, rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "displaced");
        let want = if rules == "fide-2023" { "7.4.1" } else { "7.3" };
        assert_eq!(irr[0]["article"], want, "{rules}");
        assert_eq!(irr[0]["squares"], json!(["a8"]));
        assert_eq!(of(&ev, "position_restored").len(), 1, "{rules}");
        assert_eq!(sans(&ev), ["e4", "e5"], "{rules}");
        assert!(of(&ev, "illegal_move").is_empty());
    }
}
