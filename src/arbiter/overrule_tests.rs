//! Draw claims the board decided, put before the arbiter (issue 24;
//! ia14, ia16, ia17, ia18): a rejected claim offers only "Overrule", which
//! upholds it; an overrule is refused once the claim was decided moves ago
//! or something later ended the game (and then says how to draw a game
//! the correct claim drew); upheld on overruling, the time the board gave
//! for the incorrect claim is taken back (2023 9.5.3, 2001 §9.5b), and
//! given again when the overrule is undone.

use super::*;

#[test]
fn a_rejected_claim_offers_only_overrule_which_upholds_it() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::G1, Square::F3));
    // Black claims a repetition that is not there: the board rejects it.
    feed(&mut a, &[claim(2_000, ClaimKind::Threefold, Color::Black)]);
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "claim")
        .expect("the claim is open");
    assert!(m.summary.contains("the board rejected it"), "{m:?}");
    assert_eq!(m.rulings.len(), 1, "{m:?}");
    assert_eq!(m.rulings[0].action, "overrule");
    assert!(
        m.rulings[0]
            .effect
            .starts_with("the board rejected the claim; overruling upholds it: the game is drawn"),
        "{m:?}"
    );
    // Overruling upholds it: a draw by repetition, not "nothing".
    let d = feed(
        &mut a,
        &[ruled(
            3_000,
            ArbiterAction::Overrule,
            seen(1, Some(("claim", 2_000))),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let o = a.outcome().expect("the claim upheld ends the game");
    assert_eq!(
        (o.result, o.reason),
        (Score::Game(KnownOutcome::Draw), EndReason::Threefold)
    );
    assert!(a.open().iter().all(|m| m.kind != "claim"));
}

#[test]
fn a_ruling_on_a_claim_decided_moves_ago_is_refused_and_so_on_replay() {
    let mut recs = Vec::new();
    recs.extend(play(1_000, Color::White, Square::G1, Square::F3));
    recs.push(claim(2_000, ClaimKind::Threefold, Color::Black));
    recs.extend(play(3_000, Color::Black, Square::G8, Square::F6));
    recs.extend(play(4_000, Color::White, Square::F3, Square::G1));
    recs.extend(play(5_000, Color::Black, Square::F6, Square::G8));
    recs.push(ruled(
        6_000,
        ArbiterAction::Overrule,
        seen(1, Some(("claim", 2_000))),
    ));
    let mut a = game(Some("5400+30"));
    let d = feed(&mut a, &recs);
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(reason, "the claim was decided three moves ago");
    assert_eq!(status, 409);
    assert!(a.outcome().is_none());
    assert!(
        a.rulings().is_empty(),
        "journaled as refused, never as given"
    );
    // The journal replayed: the same decision.
    let mut b = game(Some("5400+30"));
    assert_eq!(refused(&feed(&mut b, &recs)), Some((reason, status)));
}

/// Found in the 4-board walk-through as an IA: a claim the board decided,
/// then the game ended by something later (two illegal moves there, a
/// resignation here) at the same ply. Overruling the claim would have
/// erased that result; the claim is no longer open, and overruling it is
/// refused as stale, with or without the alert named.
#[test]
fn a_claim_is_no_longer_open_once_something_later_ended_the_game() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::G1, Square::F3));
    feed(&mut a, &[claim(2_000, ClaimKind::Threefold, Color::Black)]);
    assert!(a.open().iter().any(|m| m.kind == "claim"));
    feed(&mut a, &[rec(5_000, RecordKind::Resign(Color::Black))]);
    assert_eq!(
        a.outcome().map(|o| o.result),
        Some(crate::model::Score::from(crate::model::win_for(
            Color::White
        )))
    );
    assert!(
        !a.open().iter().any(|m| m.kind == "claim"),
        "{:?}",
        a.open()
    );
    for expect in [seen(1, Some(("claim", 2_000))), None] {
        let d = feed(&mut a, &[ruled(6_000, ArbiterAction::Overrule, expect)]);
        let (reason, status) = refused(&d).expect("refused");
        assert_eq!(status, 409, "{reason}");
        assert!(applied(&d).is_none());
        assert_eq!(
            a.outcome().map(|o| o.result),
            Some(crate::model::Score::from(crate::model::win_for(
                Color::White
            )))
        );
    }
}

/// ia16: White claims fifty moves the board cannot count (2023: rejected,
/// time to Black, 9.5.3) and his clock runs on while the arbiter comes to
/// read the scoresheet; his flag falls. The claim is no longer open to an
/// overrule from its own alert (the game is over), but if it was correct
/// the game was drawn when it was made (9.5.2): the refusal says so and
/// how to give it. ia18: the result's alert offers "The claim was
/// correct", which draws the game with the claim's reason and article,
/// confirms it, and takes the claim's cost (the time the board added to
/// Black's clock) back (a correction to 1/2-1/2 left it to him); undone,
/// the flag's 0-1 and the cost stand again.
#[test]
fn a_rejected_claim_overruled_after_the_claimants_flag_says_how_to_draw_the_game() {
    let mut a = game(Some("60"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(2_000, Color::Black, Square::E7, Square::E5));
    let black_before = a.clock().map(|c| c.remaining_at(2_500).1);
    feed(&mut a, &[claim(2_500, ClaimKind::FiftyMoves, Color::White)]);
    let black_rejected = a.clock().map(|c| c.remaining_at(2_500).1);
    assert!(black_rejected > black_before, "the claim's cost to Black");
    advance(&mut a, 62_000);
    let end = a.outcome().expect("White's flag");
    assert_eq!(end.reason, EndReason::Time);
    for expect in [seen(2, Some(("claim", 2_500))), None] {
        let d = feed(&mut a, &[ruled(63_000, ArbiterAction::Overrule, expect)]);
        let (reason, status) = refused(&d).expect("refused");
        assert_eq!(status, 409, "{reason}");
        assert!(
            reason.contains("if the claim was correct, the game was drawn when it was made")
                && reason.contains("rule \"The claim was correct\" on the result's alert")
                && reason.contains("(9.3.2)")
                && !reason.contains("  "),
            "{reason}"
        );
    }
    // The result's alert offers it, worded by its effect.
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "game_end")
        .expect("the result to confirm");
    let r = m
        .rulings
        .iter()
        .find(|r| r.action == "overrule")
        .expect("The claim was correct");
    assert_eq!(r.label, "The claim was correct: 1/2-1/2");
    assert!(
        r.effect
            .contains("found correct, the game was drawn when it was made")
            && r.effect.contains("0-1 → 1/2-1/2, corrected and confirmed")
            && r.effect.contains("taken back (Black -0:0"),
        "{}",
        r.effect
    );
    let from_end = seen(2, Some(("game_end", m.t)));
    let d = feed(
        &mut a,
        &[ruled(64_000, ArbiterAction::Overrule, from_end.clone())],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "9.3.2");
    assert_eq!(effect, r.effect);
    let o = a.outcome().expect("drawn");
    assert_eq!(
        (o.result, o.reason),
        (Score::Game(KnownOutcome::Draw), EndReason::FiftyMoves)
    );
    let c = a.confirmation().expect("confirmed");
    assert!(c.corrected, "{c:?}");
    assert!(events(&d).contains(&"result_confirmed"), "{:?}", events(&d));
    assert_eq!(a.clock().map(|c| c.remaining_at(64_000).1), black_before);
    // Asked again: refused, the game confirmed.
    let d = feed(&mut a, &[ruled(65_000, ArbiterAction::Overrule, from_end)]);
    assert!(refused(&d).is_some(), "{d:?}");
    // Undone: the flag's 0-1 and the claim's cost stand again.
    let seq = a.rulings().last().map(|r| r.seq).expect("the ruling");
    let d = feed(&mut a, &[ruled(66_000, ArbiterAction::Undo(seq), None)]);
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(
        a.outcome().map(|o| (o.result, o.reason)),
        Some((end.result, end.reason))
    );
    assert!(a.confirmation().is_none());
    assert_eq!(a.clock().map(|c| c.remaining_at(66_000).1), black_rejected);
}

/// ia17 1.3: White's threefold claim rejected (2023 9.5.3: +2 min to
/// Black), then White's illegal Ng1-g4 raised (7.5.1: the position to be
/// restored), then the arbiter's "Overrule" asked from the claim's alert
/// before the illegal move. A correct claim drew the game when it was made
/// (9.5.2), before the illegal move: the game is drawn by repetition as of
/// the claim, the claim's cost taken back, and the illegal move's alert
/// closed with it (no live "Restore" on a finished game, no more 7.5.5
/// time to Black asked of the arbiter); the position recorded is the claim's. The
/// expect names the claim, so the overrule is the claim's, not a
/// let-stand of the illegal move. The clocks: exactly what the question
/// said, the claim's two minutes taken back from Black; the illegal
/// move's 7.5.5 two minutes, given when it was made, stay on the record
/// (the ruling says nothing of them, so it does not touch them).
#[test]
fn a_claim_upheld_after_an_illegal_move_was_raised_closes_the_illegal_moves_alert() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(3_000, Color::Black, Square::E7, Square::E5));
    feed(&mut a, &[claim(4_000, ClaimKind::Threefold, Color::White)]);
    let black_after_claim = a.clock().map(|c| c.remaining_at(4_000).1);
    let d = feed(&mut a, &play(45_000, Color::White, Square::G1, Square::G4));
    assert!(events(&d).contains(&"illegal_move"), "{:?}", events(&d));
    let black_after_illegal = a.clock().map(|c| c.remaining_at(45_010).1);
    assert!(a.open().iter().any(|m| m.kind == "illegal_move"));
    let fen_before = a.pos.board().clone();
    let d = feed(
        &mut a,
        &[ruled(
            50_000,
            ArbiterAction::Overrule,
            seen(2, Some(("claim", 4_000))),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let (_, effect) = applied(&d).expect("applied");
    assert!(effect.contains("upheld"), "{effect}");
    let o = a.outcome().expect("drawn");
    assert_eq!(
        (o.result, o.reason),
        (Score::Game(KnownOutcome::Draw), EndReason::Threefold)
    );
    assert!(
        a.open()
            .iter()
            .all(|m| m.kind != "illegal_move" && m.kind != "claim"),
        "{:?}",
        a.open()
    );
    assert!(!a.restore_pending(), "nothing to restore on a drawn game");
    assert_eq!(
        a.pos.board(),
        &fen_before,
        "the position recorded is the claim's"
    );
    assert_eq!(a.moves().len(), 2);
    assert!(effect.contains("(Black -0:02:00)"), "{effect}");
    let now = a.clock().map(|c| c.remaining_at(50_000).1);
    assert_eq!(
        now,
        black_after_illegal.map(|b| b - 120_000),
        "the claim's +2:00 taken back from Black, nothing else"
    );
    assert_eq!(
        now, black_after_claim,
        "7.5.5's +2:00 in place of the claim's"
    );
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
