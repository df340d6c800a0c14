//! Unsupervised rapid and blitz (issue 25, point 1): an illegal move that
//! nobody claims before the opponent makes his own move stands, and the
//! board follows the game from the position actually on the board: the
//! opponent's reply and every later move are recognised from it, the clocks
//! run, and nothing is ruled unasked. A claim in time is ruled as before.
//! The texts (2009 A4c / B3c, 2001 C3, 2023 A.5.2) are quoted in
//! `docs/profiles.md`, "Unsupervised play: an illegal move that stands".

use crate::common;

use common::trace::PAWN7;
use common::{assert_whites_illegal_move_ruled, of, replay_steps, sans, CLAIM_ONLY};
use serde_json::{json, Value};

/// Where the arbiter (the board) rules at the press: every standard game,
/// 2001 rapid (§7.4 through B2), 2023 rapid and blitz (A.5.2: "If the
/// arbiter observes an action taken under Article 7.5.1 … he/she shall act
/// according to Article 7.5.5").
const RULED_AT_PRESS: [(&str, &str, &str); 7] = [
    ("fide-2001", "standard", "5400+30"),
    ("fide-2009", "standard", "5400+30"),
    ("fide-2009-no", "standard", "5400+30"),
    ("fide-2023", "standard", "5400+30"),
    ("fide-2001", "rapid", "1500"),
    ("fide-2023", "rapid", "1500+10"),
    ("fide-2023", "blitz", "180+2"),
];

fn timed(fen: &str, mode: &str, tc: &str) -> Value {
    // The board as the arbiter's eye under 2023 A.5.2 / B.3 (issue 40: an
    // event setting; the Laws' default, alert and wait, is tests/a52_illegal.rs).
    json!({"trace": 1, "start_fen": fen, "mode": mode, "time_control": tc,
           "supervision": "inadequate", "sensing": "identity", "board_observes_illegal_moves": true})
}

/// White's bishop e2 is pinned by the rook e7: Be2-d3 leaves the white
/// king in check. Black replies Ke8-d8 (made and pressed), White then
/// plays Ke1-f1 out of check.
/// The illegal move stood: nothing ruled unasked (no `illegal_move`) and
/// the moves after it read from the board, as SAN (`ctx` names the run).
fn stood(ev: &[Value], expected: &[&str], ctx: &str) {
    assert!(of(ev, "illegal_move").is_empty(), "{ctx}: {ev:#?}");
    assert_eq!(sans(ev), expected, "{ctx}: {ev:#?}");
}

const PINNED: &str = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";
const BD3: &str = "1000 lift e2\n1200 place d3 B\n1500 press w";
const BD3_ON: &str = "
    1000 lift e2
    1200 place d3 B
    1500 press w
    3000 lift e8
    3200 place d8 k
    3500 press b
    5000 lift e1
    5200 place f1 K
    5500 press w";

#[test]
fn own_king_left_in_check_stands_unclaimed_and_the_game_goes_on_from_it() {
    for (rules, mode, tc, _) in CLAIM_ONLY {
        let ev = replay_steps(timed(PINNED, mode, tc), BD3_ON, rules);
        assert!(
            of(&ev, "illegal_move").is_empty(),
            "{rules} {mode}: nothing ruled unasked: {ev:#?}"
        );
        assert!(of(&ev, "game_end").is_empty(), "{rules} {mode}");
        // The reply and White's next move, recognised from the position on
        // the board (the white king in check from e7).
        assert_eq!(sans(&ev), ["Kd8+", "Kf1"], "{rules} {mode}: {ev:#?}");
        let moves = of(&ev, "move");
        assert_eq!(moves[0]["ply"], 2, "{rules} {mode}");
        assert_eq!(
            moves[0]["fen"], "3k4/4r3/8/8/8/3B4/8/4K3 w - - 2 2",
            "{rules} {mode}"
        );
        assert_eq!(moves[1]["ply"], 3);
        // The clocks run: one report at the illegal press, one a move.
        let clocks = of(&ev, "clock");
        assert_eq!(clocks.len(), 3, "{rules} {mode}: {ev:#?}");
        assert_eq!(clocks[0]["t"], 1500);
    }
}

#[test]
fn a_claim_after_the_reply_is_too_late_and_changes_nothing() {
    for (rules, mode, tc, article) in CLAIM_ONLY {
        let steps = format!("{BD3_ON}\n6000 claim illegal_move b");
        let ev = replay_steps(timed(PINNED, mode, tc), &steps, rules);
        let claim = of(&ev, "claim");
        assert_eq!(claim.len(), 1, "{rules} {mode}: {ev:#?}");
        assert_eq!(claim[0]["upheld"], false, "{rules} {mode}");
        assert_eq!(claim[0]["article"], article, "{rules} {mode}");
        assert!(of(&ev, "illegal_move").is_empty(), "{rules} {mode}");
        assert_eq!(sans(&ev), ["Kd8+", "Kf1"], "{rules} {mode}");
    }
}

#[test]
fn the_offenders_next_press_is_no_illegal_move_after_the_window() {
    // Main before issue 25: at White's next press the board ruled the
    // first illegal move unasked ("+2 min"), after the claim window closed.
    for (rules, mode, tc, _) in CLAIM_ONLY {
        let ev = replay_steps(timed(PINNED, mode, tc), BD3_ON, rules);
        let last_clock = of(&ev, "clock").last().cloned().cloned().unwrap();
        assert_eq!(last_clock["t"], 5500, "{rules} {mode}: {ev:#?}");
        assert!(
            of(&ev, "illegal_move").is_empty(),
            "{rules} {mode}: {ev:#?}"
        );
    }
}

/// White castles through the attacked f1 (the rook f2 covers it).
const CASTLE_THROUGH: &str = "4k3/8/8/8/8/8/5r2/4K2R w K - 0 1";
const OOO: &str = "
    1000 lift e1
    1200 place g1 K
    1400 lift h1
    1600 place f1 R
    2000 press w";

#[test]
fn castling_through_check_stands_unclaimed_and_is_never_a_displaced_piece() {
    for (rules, mode, tc, _) in CLAIM_ONLY {
        let steps = format!("{OOO}\n3000 lift e8\n3200 place d8 k\n3500 press b\n5000 lift g1\n5200 place h1 K\n5500 press w");
        let ev = replay_steps(timed(CASTLE_THROUGH, mode, tc), &steps, rules);
        assert!(
            of(&ev, "irregularity").is_empty(),
            "{rules} {mode}: no displaced pieces: {ev:#?}"
        );
        stood(&ev, &["Kd8", "Kh1"], &format!("{rules} {mode}"));
        assert_eq!(
            of(&ev, "move")[0]["fen"],
            "3k4/8/8/8/8/8/5r2/5RK1 w - - 2 2",
            "{rules} {mode}: §9.3 counts on after a castling that stood (no pawn move, no capture)"
        );
    }
}

#[test]
fn castling_through_check_is_an_illegal_move_where_the_board_rules() {
    for (rules, mode, tc) in RULED_AT_PRESS {
        let ev = replay_steps(timed(CASTLE_THROUGH, mode, tc), OOO, rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{rules} {mode}: {ev:#?}");
        assert_eq!(ill[0]["t"], 2000, "{rules} {mode}");
        assert!(
            of(&ev, "irregularity").is_empty(),
            "{rules} {mode}: not §7.3: {ev:#?}"
        );
        assert!(of(&ev, "move").is_empty(), "{rules} {mode}: no Rf1");
    }
}

#[test]
fn castling_through_check_claimed_in_time_is_ruled() {
    for (rules, mode, tc, article) in CLAIM_ONLY {
        let steps = format!("{OOO}\n3000 lift e8\n3100 claim illegal_move b");
        let ev = replay_steps(timed(CASTLE_THROUGH, mode, tc), &steps, rules);
        // Black has a rook, he can mate: in blitz the claim wins.
        assert_whites_illegal_move_ruled(&ev, rules, mode, article);
        if mode != "blitz" {
            // A4c: §7.4a, the position before the castling reinstated.
            assert!(of(&ev, "game_end").is_empty());
        }
    }
}

/// White's pawn b7 goes to b8 and stays a pawn (identity sensing).
const B8_ON: &str = "
    1000 lift b7
    1200 place b8 P
    1500 press w
    3000 lift e8
    3200 place d7 k
    3500 press b
    5000 lift e1
    5200 place e2 K
    5500 press w
    6000 lift c8
    6200 place b6 n
    6500 press b";

#[test]
fn a_pawn_that_does_not_promote_stands_unclaimed_in_blitz() {
    // 2009 B3b: "§10.2 og A4c gælder ikke" (no unasked ruling of an
    // incomplete promotion in blitz); 2001 C3 has no such clause at all.
    for (rules, mode, tc, _) in CLAIM_ONLY.into_iter().filter(|c| c.1 == "blitz") {
        let ev = replay_steps(timed(PAWN7, mode, tc), B8_ON, rules);
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["Kd7", "Ke2", "Ncb6"], "{rules}: {ev:#?}");
        // The pawn stands on b8 as a pawn.
        assert_eq!(
            of(&ev, "move")[0]["fen"],
            "nPn5/3k4/8/8/8/8/8/4K3 w - - 1 2",
            "{rules}"
        );
    }
}

#[test]
fn a_pawn_that_does_not_promote_is_ruled_unasked_in_2009_rapid() {
    // 2009 A4c: "Dog skal dommeren om muligt gribe ind, dersom begge konger
    // står i skak eller en bondeforvandling ikke er fuldført".
    for rules in ["fide-2009", "fide-2009-no"] {
        let ev = replay_steps(timed(PAWN7, "rapid", "1500+10"), B8_ON, rules);
        let ill = of(&ev, "illegal_move");
        assert!(!ill.is_empty(), "{rules}: {ev:#?}");
        assert_eq!(ill[0]["t"], 1500, "{rules}");
    }
}

#[test]
fn a_pawn_that_does_not_promote_claimed_in_time_wins_in_blitz() {
    for (rules, mode, tc, article) in CLAIM_ONLY.into_iter().filter(|c| c.1 == "blitz") {
        let steps = "1000 lift b7\n1200 place b8 P\n1500 press w\n2500 claim illegal_move b";
        let ev = replay_steps(timed(PAWN7, mode, tc), steps, rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(ill[0]["article"], article);
        // B3c / C3: Black's two knights cannot force mate, but a mate is
        // possible by some series of legal moves: the claim wins.
        assert_eq!(of(&ev, "game_end")[0]["result"], "0-1", "{rules}");
    }
}

#[test]
fn the_king_is_never_captured_from_a_position_left_in_check() {
    // Black "captures" the white king left in check: no move (2023 1.4.1,
    // 2009 §3.9); Black's press is his own illegal move, ruled where
    // the board rules and waiting for White's claim where only a claim
    // counts.
    for (rules, mode, tc, _) in CLAIM_ONLY {
        let steps = format!("{BD3}\n3000 lift e1\n3100 lift e7\n3300 place e1 r\n3500 press b");
        let ev = replay_steps(timed(PINNED, mode, tc), &steps, rules);
        assert!(
            of(&ev, "move").is_empty(),
            "{rules} {mode}: Rxe1 is no move: {ev:#?}"
        );
    }
}

// ---- An illegal move made and not pressed, then replied to --------------
//
// The opponent, who has the move once it is made (2009 §1.1, 2023 1.3),
// replies before the offender presses. Where only a claim before the
// opponent's own move counts (2009 A4c / B3c, 2001 C3, 2023 A.5.2 under
// inadequate supervision), no claim can come any more: the move stands and
// the board follows the game from the position on it. Where the arbiter
// rules (§7.4a / 7.5.1) it is ruled when found: made (2001 "gjort") or
// completed by the offender's own press (2009 "fuldført", 2023 7.5.1).
// Texts: `docs/profiles.md`, "An illegal move made and not pressed".

/// Where an unpressed illegal move stands once replied to: CLAIM_ONLY, and
/// 2023 rapid and blitz under A.5 / B.3 (inadequate supervision).
const STANDS_AFTER_REPLY: [(&str, &str, &str); 7] = [
    ("fide-2009", "rapid", "1500+10"),
    ("fide-2009-no", "rapid", "1500+10"),
    ("fide-2009", "blitz", "180+2"),
    ("fide-2009-no", "blitz", "180+2"),
    ("fide-2001", "blitz", "180"),
    ("fide-2023", "rapid", "1500+10"),
    ("fide-2023", "blitz", "180+2"),
];

/// Where the arbiter rules, and at which press the unpressed illegal move
/// is ruled: Black's (the first press that shows it, 2001 §7.4a "gjort")
/// or White's own (2009 §7.4a "fuldført", 2023 7.5.1).
const RULED_WHEN_FOUND: [(&str, &str, &str, &str, u64); 7] = [
    ("fide-2001", "standard", "5400+30", "7.4a", 3500),
    ("fide-2001", "rapid", "1500", "7.4a", 3500),
    ("fide-2009", "standard", "5400+30", "7.4a", 5500),
    ("fide-2009-no", "standard", "5400+30", "7.4a", 5500),
    ("fide-2023", "standard", "5400+30", "7.5.1", 5500),
    ("fide-2009", "rapid", "1500+10", "7.4a", 5500),
    ("fide-2023", "rapid", "1500+10", "7.5.1", 5500),
];

/// Be2-d3 (the white king left in check) made and not pressed; Black's
/// Kd8 made and pressed; White's Kf1 made and pressed.
const BD3_UNPRESSED: &str = "
    1000 lift e2
    1200 place d3 B
    3000 lift e8
    3200 place d8 k
    3500 press b
    5000 lift e1
    5200 place f1 K
    5500 press w";

fn supervised(fen: &str, mode: &str, tc: &str) -> Value {
    let mut h = timed(fen, mode, tc);
    h["supervision"] = json!("adequate");
    h
}

#[test]
fn an_unpressed_illegal_move_replied_to_stands_and_the_game_goes_on() {
    for (rules, mode, tc) in STANDS_AFTER_REPLY {
        let ev = replay_steps(timed(PINNED, mode, tc), BD3_UNPRESSED, rules);
        assert!(
            of(&ev, "illegal_move").is_empty(),
            "{rules} {mode}: {ev:#?}"
        );
        assert!(
            of(&ev, "irregularity").is_empty(),
            "{rules} {mode}: {ev:#?}"
        );
        assert!(of(&ev, "game_end").is_empty(), "{rules} {mode}");
        assert_eq!(sans(&ev), ["Kd8+", "Kf1"], "{rules} {mode}: {ev:#?}");
        let moves = of(&ev, "move");
        // Black's reply is taken at his press, after the illegal move (ply 1).
        assert_eq!(moves[0]["t"], 3500, "{rules} {mode}");
        assert_eq!(moves[0]["ply"], 2, "{rules} {mode}");
        assert_eq!(moves[0]["fen"], "3k4/4r3/8/8/8/3B4/8/4K3 w - - 2 2");
        // The clocks as the real clock ran: White's from 0 to his press at
        // 5.5 s (Black's press at 3.5 s on a clock not running did nothing).
        let c = of(&ev, "clock");
        let last = c.last().unwrap();
        assert_eq!(last["t"], 5500, "{rules} {mode}");
        let base = if mode == "rapid" { 1_500_000 } else { 180_000 };
        let inc = match tc {
            "1500+10" => 10_000,
            "180+2" => 2_000,
            _ => 0,
        };
        assert_eq!(
            last["white_ms"],
            base + inc - 5_500 + inc,
            "{rules} {mode}: {c:?}"
        );
        assert_eq!(last["black_ms"], base + inc, "{rules} {mode}: {c:?}");
        // No claim can come any more: the opponent made his own move.
        let steps = format!("{BD3_UNPRESSED}\n6000 claim illegal_move b");
        let ev = replay_steps(timed(PINNED, mode, tc), &steps, rules);
        assert_eq!(of(&ev, "claim")[0]["upheld"], false, "{rules} {mode}");
        assert!(of(&ev, "illegal_move").is_empty(), "{rules} {mode}");
    }
}

#[test]
fn an_unpressed_castling_through_check_replied_to_stands() {
    let steps = "
        1000 lift e1
        1200 place g1 K
        1400 lift h1
        1600 place f1 R
        3000 lift e8
        3200 place d8 k
        3500 press b
        5000 lift g1
        5200 place h1 K
        5500 press w";
    for (rules, mode, tc) in STANDS_AFTER_REPLY {
        let ev = replay_steps(timed(CASTLE_THROUGH, mode, tc), steps, rules);
        assert!(
            of(&ev, "irregularity").is_empty(),
            "{rules} {mode}: {ev:#?}"
        );
        stood(&ev, &["Kd8", "Kh1"], &format!("{rules} {mode}"));
        // The castling was no capture and no pawn move: the §9.3 count
        // goes on (2 half moves).
        assert_eq!(
            of(&ev, "move")[0]["fen"],
            "3k4/8/8/8/8/8/5r2/5RK1 w - - 2 2",
            "{rules} {mode}"
        );
    }
}

#[test]
fn an_unpressed_illegal_move_is_ruled_when_found_where_the_board_rules() {
    for (rules, mode, tc, article, at) in RULED_WHEN_FOUND {
        // Played up to the ruling (a press while the position is being
        // restored is another matter).
        let played = if at == 3500 {
            BD3_UNPRESSED.lines().take(6).collect::<Vec<_>>().join("\n")
        } else {
            BD3_UNPRESSED.to_owned()
        };
        let ev = replay_steps(supervised(PINNED, mode, tc), &played, rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{rules} {mode}: {ev:#?}");
        assert_eq!(ill[0]["t"], at, "{rules} {mode}");
        assert_eq!(ill[0]["by"], "w", "{rules} {mode}");
        assert_eq!(ill[0]["article"], article, "{rules} {mode}");
        assert_eq!(ill[0]["squares"], json!(["e2", "d3"]), "{rules} {mode}");
        let bonus = if rules == "fide-2023" && mode != "standard" {
            "+1 min to black"
        } else {
            "+2 min to black"
        };
        assert_eq!(ill[0]["penalty"], bonus, "{rules} {mode}");
        // The position immediately before the illegal move is reinstated:
        // the reply goes with it, nothing of it is recorded.
        assert!(of(&ev, "move").is_empty(), "{rules} {mode}: {ev:#?}");
        // The board guided back to that position, White's replacement is
        // read from it, and Black's touches of the reply bind nobody.
        let restore = if at == 3500 {
            "8000 lift d3\n8200 place e2 B\n8400 lift d8\n8600 place e8 k"
        } else {
            "8000 lift d3\n8200 place e2 B\n8400 lift d8\n8600 place e8 k\n8800 lift f1\n8900 place e1 K"
        };
        let steps = format!("{played}\n{restore}\n9000 lift e1\n9200 place f1 K\n9500 press w");
        let ev = replay_steps(supervised(PINNED, mode, tc), &steps, rules);
        assert_eq!(
            of(&ev, "position_restored").len(),
            1,
            "{rules} {mode}: {ev:#?}"
        );
        assert_eq!(sans(&ev), ["Kf1"], "{rules} {mode}: {ev:#?}");
        assert!(of(&ev, "touch_move").is_empty(), "{rules} {mode}: {ev:#?}");
        assert_eq!(of(&ev, "illegal_move").len(), 1, "{rules} {mode}");
    }
}

#[test]
fn an_unpressed_illegal_move_is_not_ruled_before_it_is_completed() {
    // 2009 §7.4a ("fuldført") and 2023 7.5.1 ("completed once the player
    // has pressed his/her clock"): Black's press does not complete White's
    // move; White's clock runs on and his flag may fall first.
    let steps = "
        1000 lift e2
        1200 place d3 B
        3000 lift e8
        3200 place d8 k
        3500 press b";
    for (rules, mode, tc, _, at) in RULED_WHEN_FOUND.into_iter().filter(|r| r.4 == 5500) {
        let ev = replay_steps(supervised(PINNED, mode, tc), steps, rules);
        assert!(
            of(&ev, "illegal_move").is_empty(),
            "{rules} {mode}: {ev:#?}"
        );
        assert!(of(&ev, "move").is_empty(), "{rules} {mode}");
        assert_eq!(at, 5500);
    }
}

#[test]
fn an_unpressed_pawn_left_on_the_last_rank_replied_to() {
    let steps = "
        1000 lift b7
        1200 place b8 P
        3000 lift e8
        3200 place d7 k
        3500 press b
        5000 lift e1
        5200 place e2 K
        5500 press w";
    for (rules, mode, tc) in STANDS_AFTER_REPLY {
        let ruled = matches!(rules, "fide-2009" | "fide-2009-no") && mode == "rapid";
        // Where it is ruled, up to the ruling (Black's press).
        let steps = if ruled {
            steps.lines().take(6).collect::<Vec<_>>().join("\n")
        } else {
            steps.to_owned()
        };
        let ev = replay_steps(timed(PAWN7, mode, tc), &steps, rules);
        let ill = of(&ev, "illegal_move");
        let end = of(&ev, "game_end");
        match (rules, mode) {
            // 2009 A4c: "Dog skal dommeren om muligt gribe ind, dersom …
            // en bondeforvandling ikke er fuldført": ruled unasked when seen.
            ("fide-2009" | "fide-2009-no", "rapid") => {
                assert_eq!(ill.len(), 1, "{rules} {mode}: {ev:#?}");
                assert_eq!(ill[0]["t"], 3500, "{rules} {mode}");
                assert!(of(&ev, "move").is_empty(), "{rules} {mode}");
            }
            // 2023 A.5.4: the next move completed with the pawn still on the
            // furthest rank: a draw.
            ("fide-2023", _) => {
                assert!(ill.is_empty(), "{rules} {mode}: {ev:#?}");
                assert_eq!(end.len(), 1, "{rules} {mode}: {ev:#?}");
                assert_eq!(end[0]["result"], "1/2-1/2", "{rules} {mode}");
                assert_eq!(end[0]["article"], "A.5.4", "{rules} {mode}");
                assert_eq!(end[0]["t"], 3500, "{rules} {mode}");
            }
            // 2009 B3 ("§10.2 og A4c gælder ikke"), 2001 C3: it stands.
            _ => {
                assert!(ill.is_empty(), "{rules} {mode}: {ev:#?}");
                assert!(end.is_empty(), "{rules} {mode}");
                assert_eq!(sans(&ev), ["Kd7", "Ke2"], "{rules} {mode}: {ev:#?}");
            }
        }
    }
}

#[test]
fn an_unpressed_illegal_move_pressed_after_the_reply_stands() {
    // 2023 6.2.2 / 2009 §6.7a: White may press after Black's reply was
    // made; the illegal move is completed then, after the opponent's own
    // move: it stands, and Black's reply waits for Black's press.
    let steps = "
        1000 lift e2
        1200 place d3 B
        3000 lift e8
        3200 place d8 k
        3500 press w
        5500 press b
        7000 lift e1
        7200 place f1 K
        7500 press w";
    for (rules, mode, tc) in STANDS_AFTER_REPLY {
        let ev = replay_steps(timed(PINNED, mode, tc), steps, rules);
        stood(&ev, &["Kd8+", "Kf1"], &format!("{rules} {mode}"));
        assert_eq!(of(&ev, "move")[0]["t"], 5500, "{rules} {mode}");
    }
}

#[test]
fn an_unpressed_illegal_move_replied_to_and_the_offenders_next_move() {
    // Neither presses until White's next move: three moves on the board.
    // Where only a claim counts it stands and all three are read; where
    // the board rules, White's press completes the illegal move and it is
    // ruled: the position before it is reinstated (§7.4a / 7.5.1).
    let steps = "
        1000 lift e2
        1200 place d3 B
        3000 lift e8
        3200 place d8 k
        5000 lift e1
        5200 place f1 K
        5500 press w";
    for (rules, mode, tc) in STANDS_AFTER_REPLY {
        let ev = replay_steps(timed(PINNED, mode, tc), steps, rules);
        stood(&ev, &["Kd8+", "Kf1"], &format!("{rules} {mode}"));
    }
    for (rules, mode, tc, article, _) in RULED_WHEN_FOUND {
        let ev = replay_steps(supervised(PINNED, mode, tc), steps, rules);
        let ill = of(&ev, "illegal_move");
        assert_eq!(ill.len(), 1, "{rules} {mode}: {ev:#?}");
        assert_eq!(ill[0]["t"], 5500, "{rules} {mode}");
        assert_eq!(ill[0]["article"], article, "{rules} {mode}");
        assert!(of(&ev, "move").is_empty(), "{rules} {mode}");
    }
}

/// The §9.3 count (9.3.2 in 2023) after an illegal castling: "the last 50
/// moves … without the movement of any pawn and without any capture". A
/// castling through check that stands is neither, pressed or not, so both
/// paths count it (`… 2 2` after Black's reply); one that is ruled
/// reinstates the position before it, count and all (§7.4a / 7.5.1), and
/// the replacement counts from there.
#[test]
fn the_fifty_move_count_after_an_illegal_castling_stands_or_is_reinstated() {
    let pressed = format!("{OOO}\n3000 lift e8\n3200 place d8 k\n3500 press b");
    let unpressed = "
        1000 lift e1
        1200 place g1 K
        1400 lift h1
        1600 place f1 R
        3000 lift e8
        3200 place d8 k
        3500 press b";
    let start = "4k3/8/8/8/8/8/5r2/4K2R w K - 7 30";
    for (rules, mode, tc, _) in CLAIM_ONLY {
        for steps in [pressed.as_str(), unpressed] {
            let ev = replay_steps(timed(start, mode, tc), steps, rules);
            let m = of(&ev, "move");
            assert_eq!(m.len(), 1, "{rules} {mode}: {ev:#?}");
            assert_eq!(
                m[0]["fen"], "3k4/8/8/8/8/8/5r2/5RK1 w - - 9 31",
                "{rules} {mode}: {steps}"
            );
        }
    }
    // Ruled (a claim in time, A4c): the position before, half-move clock 7,
    // and the replacement Ke1-d1 counts on from it.
    for rules in ["fide-2009", "fide-2009-no"] {
        let steps = format!(
            "{OOO}\n3000 lift e8\n3100 claim illegal_move b\n\
             4000 lift g1\n4100 place e1 K\n4200 lift f1\n4300 place h1 R\n\
             5000 lift e1\n5200 place d1 K\n5500 press w"
        );
        let ev = replay_steps(timed(start, "rapid", "1500+10"), &steps, rules);
        assert_eq!(of(&ev, "illegal_move").len(), 1, "{rules}: {ev:#?}");
        let m = of(&ev, "move");
        assert_eq!(m.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(m[0]["san"], "Kd1", "{rules}");
        assert_eq!(m[0]["fen"], "4k3/8/8/8/8/8/5r2/3K3R b - - 8 30", "{rules}");
    }
}
