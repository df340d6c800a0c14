//! Issue 24 §5 (undo and correction): "Restore position" withdrawn (the
//! matter open again while the board shows another position) and a result
//! corrected to 0-0 (only with its reason; refused as a double forfeit of
//! a game a player moved in; undone).

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

#[test]
fn a_rejected_fifty_move_claim_upheld_on_overruling_takes_its_two_minutes_back() {
    // ia14: White claims fifty moves that are not there (2023 9.5.3: +2 min
    // to Black); the arbiter finds the claim correct and overrules. Black
    // kept the two minutes on his clock while the game was drawn, and
    // nothing said so; undone, the rejection and its cost stand again.
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::G1, Square::F3));
    let (white, black) = a.clock().unwrap().remaining_at(1_500);
    feed(&mut a, &[claim(1_500, ClaimKind::FiftyMoves, Color::Black)]);
    assert_eq!(
        a.clock().unwrap().remaining_at(1_500),
        (white + 120_000, black)
    );
    let open = a.open();
    let m = open.iter().find(|m| m.kind == "claim").expect("open");
    assert!(
        m.rulings[0].effect.ends_with(
            "; the time the board gave for the incorrect claim is taken back (White -0:02:00)"
        ),
        "{m:?}"
    );
    let d = feed(
        &mut a,
        &[ruled(
            2_000,
            ArbiterAction::Overrule,
            seen(1, Some(("claim", 1_500))),
        )],
    );
    let (_, effect) = applied(&d).expect("applied");
    assert!(effect.contains("taken back (White -0:02:00)"), "{effect}");
    assert_eq!(a.outcome().unwrap().reason, EndReason::FiftyMoves);
    let (w, b) = a.clock().unwrap().remaining_at(9_000);
    assert_eq!((w, b), (white, black - 500), "the claim cost nothing");
    // Undone: the game goes on, the board's rejection and its +2 min again.
    let d = feed(
        &mut a,
        &[ruled(3_000, ArbiterAction::Undo(1), seen(1, None))],
    );
    assert!(applied(&d).is_some(), "{d:?}");
    assert!(a.outcome().is_none());
    let (w, _) = a.clock().unwrap().remaining_at(3_000);
    assert_eq!(w, white + 120_000);
}

/// 2009 §10.2 (2023 III.5), 15 min without increment: White, on move with
/// less than two minutes, claims that Black cannot win by normal means.
fn quickplay_claim(edition: crate::model::Edition) -> Arbiter {
    let header = crate::trace::Header {
        boards: vec![BoardId::Main],
        rules: Some(edition),
        time_control: Some("900".into()),
        ..crate::trace::Header::default()
    };
    let mut a = Arbiter::new(GameConfig::from_header(&header, None, None).unwrap());
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(2_000, Color::Black, Square::E7, Square::E5));
    feed(
        &mut a,
        &[claim(
            790_000,
            ClaimKind::InsufficientLosingChances,
            Color::White,
        )],
    );
    a
}

#[test]
fn a_quickplay_claim_referred_to_the_arbiter_is_upheld_or_rejected_with_two_minutes() {
    // ia14: the alert said "the board rejected it: referred to the arbiter"
    // and offered one "Overrule" (the draw): no way to reject the claim with
    // the two minutes §10.2c gives the opponent.
    use crate::model::Edition;
    let mut a = quickplay_claim(Edition::Fide2009);
    let open = a.open();
    let m = open.iter().find(|m| m.kind == "claim").expect("open");
    assert!(
        m.summary.contains("the board does not judge it")
            && m.summary.contains("whose decision is final (10.2)")
            && !m.summary.contains("rejected"),
        "{m:?}"
    );
    let offered: Vec<(&str, &str)> = m
        .rulings
        .iter()
        .map(|r| (r.action, r.label.as_str()))
        .collect();
    assert_eq!(
        offered,
        [
            ("uphold", "Uphold: draw (10.2)"),
            ("reject", "Reject: +2 min to Black (10.2)")
        ]
    );
    // Referred, the clocks stop: the claimant's flag does not fall while
    // the arbiter comes.
    assert_eq!(a.clock().unwrap().running(), None);
    let (white, black) = a.clock().unwrap().remaining_at(791_000);
    assert!(white > 100_000 && white < 120_000, "{white}");
    let claim_ev = Some(("claim", 790_000));
    let d = feed(
        &mut a,
        &[ruled(
            791_000,
            ArbiterAction::Reject(None),
            seen(2, claim_ev),
        )],
    );
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "10.2");
    assert_eq!(
        effect,
        "the claim is rejected: +2 min to Black (10.2); play continues (White's clock runs again)"
    );
    assert_eq!(
        a.clock().unwrap().remaining_at(791_000),
        (white, black + 120_000)
    );
    assert_eq!(a.clock().unwrap().running(), Some(Color::White));
    assert!(a.outcome().is_none());
    assert!(a.open().iter().all(|m| m.kind != "claim"), "decided");
    let d = feed(
        &mut a,
        &[ruled(
            792_000,
            ArbiterAction::Reject(None),
            seen(2, claim_ev),
        )],
    );
    assert!(refused(&d).is_some(), "not twice: {d:?}");
    // Undone: the two minutes go back, the claim is open again; upheld.
    let d = feed(
        &mut a,
        &[ruled(793_000, ArbiterAction::Undo(1), seen(2, None))],
    );
    assert!(applied(&d).is_some(), "{d:?}");
    assert_eq!(a.clock().unwrap().remaining_at(793_000).1, black);
    assert_eq!(
        a.clock().unwrap().running(),
        None,
        "stopped again, as before"
    );
    assert!(a.open().iter().any(|m| m.kind == "claim"));
    let d = feed(
        &mut a,
        &[ruled(
            794_000,
            ArbiterAction::Uphold(None),
            seen(2, claim_ev),
        )],
    );
    assert_eq!(applied(&d).expect("applied").0, "10.2");
    let o = a.outcome().expect("drawn");
    assert_eq!(
        (o.result, o.reason),
        (Score::Game(KnownOutcome::Draw), EndReason::ArbiterDecision)
    );
    // 2023 III.5: referred, with no "final" (an appeal is possible, 11.10).
    let b = quickplay_claim(Edition::Fide2023);
    let open = b.open();
    let m = open.iter().find(|m| m.kind == "claim").expect("open");
    assert!(
        m.summary.contains("referred to the arbiter (III.5)") && !m.summary.contains("final"),
        "{m:?}"
    );
    assert_eq!(m.rulings[1].label, "Reject: +2 min to Black (III.5)");
}

#[test]
fn a_flag_after_a_postponed_quickplay_claim_offers_the_draw_beside_the_flag() {
    // ia14: the arbiter postponed White's §10.2 claim (resumed without a
    // ruling); at White's flag the alert offered "Declare the flag" only,
    // while §10.2c / III.5.2 make that the moment to declare the final
    // result: a draw if Black could not win by normal means.
    use crate::model::Edition;
    // 2009 rapid: the flag is the arbiter's to declare (the game goes on).
    {
        let (edition, q) = (Edition::Fide2009, "10.2");
        let mut a = quickplay_claim(edition);
        let (white, _) = a.clock().unwrap().remaining_at(791_000);
        let d = feed(
            &mut a,
            &[ruled(791_000, ArbiterAction::Resume, seen(2, None))],
        );
        assert!(applied(&d).is_some(), "{edition:?}: {d:?}");
        assert_eq!(a.clock().unwrap().running(), Some(Color::White));
        let mut out = Decisions::new();
        a.advance(791_000 + white + 1, &mut out);
        let open = a.open();
        let flag = open
            .iter()
            .find(|m| m.kind == "flag")
            .unwrap_or_else(|| panic!("{edition:?}: the flag's alert: {open:?}"));
        assert!(
            flag.summary
                .contains(&format!("White's draw claim at move 2 ({q}) was postponed")),
            "{edition:?}: {flag:?}"
        );
        let offered: Vec<(&str, &str)> = flag
            .rulings
            .iter()
            .map(|r| (r.action, r.label.as_str()))
            .collect();
        let draw_label = format!("Declare the draw ({q})");
        assert_eq!(
            offered,
            [
                ("result", "Declare the flag"),
                ("result", draw_label.as_str())
            ],
            "{edition:?}"
        );
        let (t, flag_t) = (791_000 + white + 5_000, flag.t);
        let d = feed(
            &mut a,
            &[ruled(
                t,
                ArbiterAction::SetResult(KnownOutcome::Draw),
                seen(2, Some(("flag", flag_t))),
            )],
        );
        let (article, _) = applied(&d).unwrap_or_else(|| panic!("{edition:?}: {d:?}"));
        assert_eq!(article, q, "{edition:?}: the draw of §10.2c / III.5.2");
        let o = a.outcome().expect("drawn");
        assert_eq!(o.result, Score::Game(KnownOutcome::Draw));
    }
    // 2023: the board ends the game on the flag; the result to confirm
    // names the postponed claim and its correction to a draw.
    let mut a = quickplay_claim(Edition::Fide2023);
    let (white, _) = a.clock().unwrap().remaining_at(791_000);
    feed(
        &mut a,
        &[ruled(791_000, ArbiterAction::Resume, seen(2, None))],
    );
    let mut out = Decisions::new();
    a.advance(791_000 + white + 1, &mut out);
    let open = a.open();
    let end = open
        .iter()
        .find(|m| m.kind == "game_end")
        .expect("ended on time");
    assert!(
        end.summary.contains("White's draw claim at move 2 (III.5) was postponed: correct to 1/2-1/2 if Black could not win by normal means"),
        "{end:?}"
    );
    let draw = end
        .rulings
        .iter()
        .find(|r| r.label == "Correct to 1/2-1/2")
        .expect("offered");
    assert!(
        draw.effect.contains("on the postponed claim, III.5"),
        "{draw:?}"
    );
    // Black's flag after White's postponed claim: White wins on time; no
    // draw offered (the claim was White's).
    let mut a = quickplay_claim(Edition::Fide2009);
    feed(
        &mut a,
        &[ruled(791_000, ArbiterAction::Resume, seen(2, None))],
    );
    feed(&mut a, &play(792_000, Color::White, Square::G1, Square::F3));
    let (_, black) = a.clock().unwrap().remaining_at(792_000);
    let mut out = Decisions::new();
    a.advance(792_000 + black + 10, &mut out);
    let open = a.open();
    let flag = open
        .iter()
        .find(|m| m.kind == "flag")
        .unwrap_or_else(|| panic!("Black's flag: {open:?} {:?}", a.clock()));
    assert_eq!(flag.rulings.len(), 1, "{flag:?}");
    assert!(!flag.summary.contains("postponed"), "{flag:?}");
}

#[test]
fn an_illegal_moves_alert_says_whose_clock_runs_while_it_is_set_back() {
    // ia14: in 2023 blitz the offender's clock runs while the position is
    // set back, and nothing said so; the arbiter who judges otherwise
    // (7.1) pauses.
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E5));
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "illegal_move")
        .expect("open");
    assert!(
        m.summary.ends_with(
            "the board waits for the position before it to be set up again, White's clock running"
        ),
        "{m:?}"
    );
}

/// A game under the 2001 Laws (seed 000) with control `tc`.
fn game_2001(tc: &str) -> Arbiter {
    let header = crate::trace::Header {
        boards: vec![BoardId::Main],
        rules: Some(crate::model::Edition::Fide2001),
        time_control: Some(tc.into()),
        ..crate::trace::Header::default()
    };
    Arbiter::new(GameConfig::from_header(&header, None, None).unwrap())
}

#[test]
fn a_2001_wrong_claim_overruled_and_the_overrule_undone_gives_the_clocks_back_exactly() {
    // ia16: 2001 §9.5b: an incorrect claim gives the opponent three minutes
    // and cuts the claimant's time (half, at most three minutes, over two
    // minutes left; to one minute between one and two). Overruled (the
    // claim was correct), both changes are taken back; the overrule undone,
    // both stand again, to the millisecond.
    for tc in ["5400+30", "100"] {
        let mut a = game_2001(tc);
        feed(&mut a, &play(1_000, Color::White, Square::G1, Square::F3));
        let (white, black) = a.clock().unwrap().remaining_at(1_500);
        // 1:29:59.5 left: three minutes cut; 1:39.5: to one minute.
        let cut = if black > 120_000 {
            180_000
        } else {
            black - 60_000
        };
        feed(&mut a, &[claim(1_500, ClaimKind::FiftyMoves, Color::Black)]);
        let rejected = (white + 180_000, black - cut);
        assert_eq!(a.clock().unwrap().remaining_at(1_500), rejected, "{tc}");
        let d = feed(
            &mut a,
            &[ruled(
                2_000,
                ArbiterAction::Overrule,
                seen(1, Some(("claim", 1_500))),
            )],
        );
        let (_, effect) = applied(&d).expect("applied");
        let back = format!(
            "taken back (White -0:03:00, Black +{})",
            crate::arbiter::refusal::hms(cut)
        );
        assert!(effect.contains(&back), "{tc}: {effect}");
        assert_eq!(a.outcome().unwrap().reason, EndReason::FiftyMoves);
        // Black's clock ran from the claim to the overrule (the claimant on
        // move): 500 ms, and nothing else.
        assert_eq!(
            a.clock().unwrap().remaining_at(9_000),
            (white, black - 500),
            "{tc}"
        );
        let d = feed(
            &mut a,
            &[ruled(3_000, ArbiterAction::Undo(1), seen(1, None))],
        );
        assert!(applied(&d).is_some(), "{d:?}");
        assert!(a.outcome().is_none());
        assert_eq!(
            a.clock().unwrap().remaining_at(3_000),
            (white + 180_000, black - cut - 500),
            "{tc}: the rejection's clocks again, less the 500 ms Black's clock ran before the game ended"
        );
    }
}
