//! Issue 24 §5 (undo and correction): "Restore position" withdrawn (the
//! matter open again while the board shows another position) and a result
//! corrected to 0-0 (only with its reason; refused as a double forfeit of
//! a game a player moved in; undone). A claim's overrule undone is in
//! `overrule_tests.rs`, a referred claim's rejection undone in
//! `referred_tests.rs`.

use super::*;

#[test]
fn undoing_restore_position_reopens_the_matter_while_the_board_shows_otherwise() {
    let mut a = game(Some("5400+30"));
    // 1. e2-e5, illegal: the board adds the penalty and waits for e2.
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E5));
    assert_eq!(a.phase(), &Phase::Restoring);
    let illegal = ("illegal_move", 1_002);
    // The arbiter says the position is reinstated (it is not: the pawn
    // still stands on e5), then withdraws it.
    let d = feed(
        &mut a,
        &[ruled(2_000, ArbiterAction::Restore, seen(0, Some(illegal)))],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.phase(), &Phase::Playing);
    assert!(a.open().is_empty());
    let d = feed(
        &mut a,
        &[ruled(3_000, ArbiterAction::Undo(1), seen(0, None))],
    );
    let (_, effect) = applied(&d).expect("applied");
    assert!(
        effect.contains("to be reinstated again") && effect.contains("e2 e5"),
        "{effect}"
    );
    // The board waits for the position again: the illegal move is the
    // open matter, with "Restore position" live.
    assert_eq!(a.phase(), &Phase::Restoring);
    assert_eq!(a.stage(), Stage::Restoring);
    let open = a.open();
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!((open[0].kind, open[0].t), illegal);
    assert_eq!(open[0].rulings[0].action, "restore");
    // Restored on the board by hand: play goes on from 1. e2.
    let d = feed(&mut a, &[lift(4_000, Square::E5), place(4_100, Square::E2)]);
    assert_eq!(events(&d), ["position_restored"], "{d:?}");
    assert!(a.open().is_empty());
    // Withdrawn after the pieces were put right: play goes on, said so.
    let mut b = game(Some("5400+30"));
    feed(&mut b, &play(1_000, Color::White, Square::E2, Square::E5));
    feed(
        &mut b,
        &[ruled(2_000, ArbiterAction::Restore, seen(0, Some(illegal)))],
    );
    feed(&mut b, &[lift(2_500, Square::E5), place(2_600, Square::E2)]);
    let d = feed(
        &mut b,
        &[ruled(3_000, ArbiterAction::Undo(1), seen(0, None))],
    );
    let (_, effect) = applied(&d).expect("applied");
    assert!(effect.contains("show the position reinstated"), "{effect}");
    assert!(events(&d).contains(&"position_restored"), "{d:?}");
    assert_eq!(b.phase(), &Phase::Playing);
    assert!(b.open().is_empty());
}

#[test]
fn a_result_is_corrected_to_0_0_only_with_its_reason_and_undone() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(2_000, Color::Black, Square::E7, Square::E5));
    feed(&mut a, &[rec(3_000, RecordKind::Resign(Color::Black))]);
    let both = Some(Score::BothLost);
    // Without a reason: refused, saying what it needs.
    let d = feed(
        &mut a,
        &[ruled(4_000, ArbiterAction::Confirm(both), seen(2, None))],
    );
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 422);
    assert!(
        reason.contains("only with its reason") && reason.contains("11.8"),
        "{reason}"
    );
    // With one: 0-0, confirmed and corrected; one ruling, undoable.
    let with_reason = rec(
        5_000,
        RecordKind::Arbiter {
            action: ArbiterAction::Confirm(both),
            author: Some("IA Hansen".into()),
            expect: seen(2, None),
            reason: Some("both players refused to comply (11.7)".into()),
        },
    );
    let d = feed(&mut a, &[with_reason]);
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "DSU 004 §15");
    assert!(
        effect.contains("corrected to 0-0") && effect.contains("lost by both (11.8)"),
        "{effect}"
    );
    assert_eq!(a.outcome().map(|o| o.result), Some(Score::BothLost));
    let c = a.confirmation().expect("confirmed");
    assert!(c.corrected && !c.forfeit, "{c:?}");
    assert!(
        !events(&d).contains(&"game_end"),
        "no second result to confirm: {d:?}"
    );
    let d = feed(
        &mut a,
        &[ruled(6_000, ArbiterAction::Undo(1), seen(2, None))],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(
        a.outcome().map(|o| o.result),
        Some(Score::Game(KnownOutcome::Decisive {
            winner: Color::White
        }))
    );
    assert!(a.confirmation().is_none());
    // A forfeit won after the present player's move is no double forfeit.
    let mut b = game(Some("5400+30"));
    feed(&mut b, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(
        &mut b,
        &[ruled(
            2_000,
            ArbiterAction::Forfeit(Forfeit::Won(KnownOutcome::Decisive {
                winner: Color::White,
            })),
            seen(1, None),
        )],
    );
    let wrong = rec(
        3_000,
        RecordKind::Arbiter {
            action: ArbiterAction::Confirm(both),
            author: Some("IA Hansen".into()),
            expect: seen(1, None),
            reason: Some("double forfeit".into()),
        },
    );
    let d = feed(&mut b, &[wrong]);
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 422);
    assert!(reason.contains("White has moved"), "{reason}");
}

/// ia11's round, board 3.2: White touched g1, played e2-e3 and pressed;
/// Black's touch-move claim upheld (e3 taken back), the arbiter overruled
/// it, then undid the overrule. The move taken back is no move of the
/// game: the clock's counter goes back (or the next period's time comes a
/// move early, §6.3 / 2023 6.3.1). Undone, the overrule leaves the
/// board's decision standing and open to overruling at its own ply (not
/// nothing open while the board waits, then a live "Overrule" after the
/// next move refused as "already overruled").
#[test]
fn an_upheld_touch_move_claim_overruled_and_undone_keeps_counter_and_matter() {
    let mut a = game(Some("40/5400+30:1800+30"));
    let counters = |a: &Arbiter| {
        let c = a.clock().expect("a clock");
        (c.moves_done(Color::White), c.moves_done(Color::Black))
    };
    feed(&mut a, &play(1_000, Color::White, Square::D2, Square::D4));
    feed(&mut a, &play(2_000, Color::Black, Square::G8, Square::F6));
    // White touches g1 (knight), puts it back, plays e2-e3 and presses.
    feed(&mut a, &[lift(3_000, Square::G1), place(3_200, Square::G1)]);
    let d = feed(&mut a, &play(4_000, Color::White, Square::E2, Square::E3));
    assert!(events(&d).contains(&"touch_move"), "{d:?}");
    assert_eq!(counters(&a), (2, 1));
    // Black claims: upheld, e2-e3 taken back; White's counter with it.
    let d = feed(&mut a, &[claim(5_000, ClaimKind::TouchMove, Color::Black)]);
    assert!(events(&d).contains(&"claim"), "{d:?}");
    assert_eq!(a.ply(), 2);
    assert_eq!(counters(&a), (1, 1), "the move taken back still counted");
    let claim_at = a.open().iter().find(|m| m.kind == "claim").map(|m| m.t);
    let claim_at = claim_at.expect("the upheld claim open");
    // Overruled: e2-e3 stands again, counted again.
    let d = feed(
        &mut a,
        &[ruled(
            6_000,
            ArbiterAction::Overrule,
            seen(2, Some(("claim", claim_at))),
        )],
    );
    let (_, effect) = applied(&d).expect("applied");
    assert!(
        effect.contains("(e3 stands again; Black to move)"),
        "{effect}"
    );
    assert_eq!((a.ply(), counters(&a)), (3, (2, 1)));
    // Undone: the board's decision stands again and is open, at ply 2.
    let d = feed(
        &mut a,
        &[ruled(7_000, ArbiterAction::Undo(1), seen(3, None))],
    );
    let (_, effect) = applied(&d).expect("applied");
    assert!(
        effect.contains("the board's decision stands again"),
        "{effect}"
    );
    assert_eq!((a.ply(), counters(&a)), (2, (1, 1)));
    let open = a.open();
    let m = open.iter().find(|m| m.kind == "claim");
    assert_eq!(
        m.map(|m| (m.t, m.rulings[0].action)),
        Some((claim_at, "overrule")),
        "the claim open again with its Overrule: {open:?}"
    );
    // The pawn back on e2, White keeps the obligation: Ng1-f3. Nothing
    // of the claim is open after the move; the counter is right.
    feed(&mut a, &[lift(8_000, Square::E3), place(8_100, Square::E2)]);
    feed(&mut a, &play(9_000, Color::White, Square::G1, Square::F3));
    assert_eq!((a.ply(), counters(&a)), (3, (2, 1)));
    assert!(
        !a.open().iter().any(|m| m.kind == "claim"),
        "{:?}",
        a.open()
    );
}

/// ia11's round, board 3.2: a clock ruling prepared in another tab before
/// the flag fell was refused "the game has moved on …; look again", and
/// looking again only brings another refusal. The reason says the game is
/// over too.
#[test]
fn a_stale_ruling_on_a_game_ended_since_says_the_game_is_over() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &[rec(2_000, RecordKind::Resign(Color::Black))]);
    let d = feed(
        &mut a,
        &[ruled(
            3_000,
            ArbiterAction::SetClock {
                white_ms: 5_400_000,
                black_ms: 5_520_000,
                moves: None,
            },
            seen(0, None),
        )],
    );
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 409);
    assert!(
        reason.contains("one move made since (ply 0 → 1), and the game is over (1-0, resignation)"),
        "{reason}"
    );
}

/// ia12: a position set on a game that had ended (a draw by agreement, not
/// yet confirmed) takes the moves back and reopens the game; its effect
/// used to say only "one move taken back (ply 2 → 1); the game goes on",
/// the draw withdrawn unsaid. It names the result it withdraws.
#[test]
fn a_position_that_reopens_a_finished_game_names_the_result_it_withdraws() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(2_000, Color::Black, Square::E7, Square::E5));
    feed(
        &mut a,
        &[
            rec(3_000, RecordKind::Offer(Color::White)),
            rec(3_500, RecordKind::Accept(Color::Black)),
        ],
    );
    assert!(a.ended());
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let d = feed(
        &mut a,
        &[ruled(
            4_000,
            ArbiterAction::SetPosition(after_e4.into()),
            seen(2, None),
        )],
    );
    let (_, effect) = applied(&d).expect("applied");
    assert_eq!(
        effect,
        "one move taken back (ply 2 → 1); the result 1/2-1/2 (agreement), provisional is \
         withdrawn: the game goes on"
    );
    assert!(!a.ended());
}

#[test]
fn an_undo_of_an_undo_names_the_ruling_to_give_again_and_its_amounts() {
    // ia14: "ruling #2 (undo) is not undone: rule again instead" named no
    // ruling; the arbiter had to find in the history what #2 had undone.
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    let (w, b) = a.clock().unwrap().remaining_at(2_000);
    let d = feed(
        &mut a,
        &[ruled(
            2_000,
            ArbiterAction::SetClock {
                white_ms: w,
                black_ms: b + 120_000,
                moves: None,
            },
            seen(1, None),
        )],
    );
    assert!(applied(&d).is_some(), "{d:?}");
    let d = feed(
        &mut a,
        &[ruled(3_000, ArbiterAction::Undo(1), seen(1, None))],
    );
    assert!(applied(&d).is_some(), "{d:?}");
    let d = feed(
        &mut a,
        &[ruled(4_000, ArbiterAction::Undo(2), seen(1, None))],
    );
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 422);
    assert!(
        reason.starts_with("ruling #2 (undo) is not undone: it undid ruling #1 (clock, ")
            && reason.contains("set the clocks again by the same amounts: Black +0:02:00")
            && !reason.contains("White +"),
        "{reason}"
    );
    // A pause keeps its own words.
    let d = feed(&mut a, &[ruled(5_000, ArbiterAction::Pause, seen(1, None))]);
    assert!(applied(&d).is_some(), "{d:?}");
    let d = feed(
        &mut a,
        &[ruled(6_000, ArbiterAction::Undo(3), seen(1, None))],
    );
    let (reason, _) = refused(&d).expect("refused");
    assert!(reason.ends_with("resume the clocks instead"), "{reason}");
}
