//! Draw claims on a move written on the scoresheet and not made (2009 /
//! 2001 §9.2a, §9.3a; 2023 9.2.1, 9.3.1): named in the claim, checked
//! against the position after it; not named, held for the arbiter when a
//! move could make the claim correct, never penalised before he rules.

use super::*;

/// The moves 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1: Black to move; the
/// position after 4... Ng8 would stand for the third time (plies 0, 4, 8).
fn shuffle(a: &mut Arbiter) {
    let mut recs = Vec::new();
    let (w, b) = (Color::White, Color::Black);
    for (i, (side, from, to)) in [
        (w, Square::G1, Square::F3),
        (b, Square::G8, Square::F6),
        (w, Square::F3, Square::G1),
        (b, Square::F6, Square::G8),
        (w, Square::G1, Square::F3),
        (b, Square::G8, Square::F6),
        (w, Square::F3, Square::G1),
    ]
    .into_iter()
    .enumerate()
    {
        recs.extend(play(1_000 * (i as u64 + 1), side, from, to));
    }
    feed(a, &recs);
    assert_eq!(a.ply(), 7);
}

fn written_claim(t: u64, by: Color, mv: Option<&str>) -> Record {
    rec(
        t,
        RecordKind::Claim {
            kind: ClaimKind::Threefold,
            by,
            intended: mv.map(str::to_owned),
        },
    )
}

fn clocks(a: &Arbiter, t: u64) -> (u64, u64) {
    a.clock().expect("a clock").remaining_at(t)
}

#[test]
fn a_claim_naming_its_written_move_is_checked_after_that_move_not_made() {
    let mut a = game(Some("5400+30"));
    shuffle(&mut a);
    let d = feed(&mut a, &[written_claim(9_000, Color::Black, Some("Ng8"))]);
    let o = a.outcome().expect("drawn on the written move");
    assert_eq!(
        (o.result, o.reason, o.article),
        (
            Score::Game(KnownOutcome::Draw),
            EndReason::Threefold,
            "9.2.1"
        )
    );
    assert_eq!(a.ply(), 7, "the written move is not made");
    assert!(events(&d).contains(&"claim"), "{d:?}");

    // A written move that does not repeat: the wrong claim's cost, and
    // the move must be made (the knight counts as touched).
    let mut a = game(Some("5400+30"));
    shuffle(&mut a);
    let (w0, _) = clocks(&a, 9_000);
    let d = feed(&mut a, &[written_claim(9_000, Color::Black, Some("f6h5"))]);
    assert!(a.outcome().is_none());
    let (w1, _) = clocks(&a, 9_000);
    assert_eq!(w1, w0 + 120_000, "2023 9.5.3: +2 min to White");
    let text = format!("{d:?}");
    assert!(
        text.contains("Nh5 was written") && text.contains("Articles 3 and 4"),
        "{text}"
    );
    // Another piece moved: a breach of the obligation (Article 4).
    let d = feed(&mut a, &play(10_000, Color::Black, Square::E7, Square::E5));
    assert!(events(&d).contains(&"touch_move"), "{d:?}");
}

#[test]
fn a_claim_a_written_move_could_make_correct_is_held_without_penalty() {
    let mut a = game(Some("5400+30"));
    shuffle(&mut a);
    let before = clocks(&a, 9_000);
    let d = feed(&mut a, &[written_claim(9_000, Color::Black, None)]);
    let ev = events(&d);
    assert!(ev.contains(&"claim_held"), "{d:?}");
    assert!(
        !ev.contains(&"claim"),
        "nothing decided or announced: {d:?}"
    );
    assert!(
        !d.iter().any(|x| matches!(x, Decision::Announce { .. })),
        "{d:?}"
    );
    assert_eq!(clocks(&a, 9_000), before, "no penalty");
    assert_eq!(clocks(&a, 60_000), before, "the clocks are stopped (9.5.1)");
    let m = a
        .open()
        .into_iter()
        .find(|m| m.kind == "claim_held")
        .expect("held for the arbiter");
    assert!(m.summary.contains("Ng8"), "{m:?}");
    let labels: Vec<&str> = m.rulings.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "Uphold: Ng8 written (draw, 9.2.1)",
            "Reject (+2 min to White, 9.5.3)"
        ]
    );
    // The clocks stay stopped until he rules.
    let d = feed(
        &mut a,
        &[ruled(10_000, ArbiterAction::Resume, seen(7, None))],
    );
    let (why, status) = refused(&d).expect("resume refused");
    assert!(why.contains("held for your ruling"), "{why}");
    assert_eq!(status, 422);
    // Upholding it with another move than the candidates is refused.
    let held = Some(("claim_held", 9_000));
    let d = feed(
        &mut a,
        &[ruled(
            11_000,
            ArbiterAction::Uphold(Some("f6h5".into())),
            seen(7, held),
        )],
    );
    assert!(
        refused(&d).expect("refused").0.contains("not correct"),
        "{d:?}"
    );
    // Upheld: a draw without the move.
    let d = feed(
        &mut a,
        &[ruled(12_000, ArbiterAction::Uphold(None), seen(7, held))],
    );
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "9.2.1");
    assert!(effect.contains("Ng8, written and not made"), "{effect}");
    assert_eq!(a.outcome().expect("drawn").reason, EndReason::Threefold);
    assert_eq!(a.ply(), 7);
}

#[test]
fn a_held_claim_rejected_costs_the_penalty_once_and_undone_is_held_again() {
    let mut a = game(Some("5400+30"));
    shuffle(&mut a);
    feed(&mut a, &[written_claim(9_000, Color::Black, None)]);
    let (w0, b0) = clocks(&a, 9_000);
    let held = Some(("claim_held", 9_000));
    // The candidate as the written move: the claim is correct, no reject.
    let d = feed(
        &mut a,
        &[ruled(
            10_000,
            ArbiterAction::Reject(Some("Ng8".into())),
            seen(7, held),
        )],
    );
    assert!(
        refused(&d).expect("refused").0.contains("uphold it"),
        "{d:?}"
    );
    let d = feed(
        &mut a,
        &[ruled(11_000, ArbiterAction::Reject(None), seen(7, held))],
    );
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "9.5.3");
    assert!(effect.contains("+2 min to white"), "{effect}");
    assert!(events(&d).contains(&"claim"), "announced once, now: {d:?}");
    assert_eq!(clocks(&a, 11_000), (w0 + 120_000, b0));
    assert_eq!(a.clock().unwrap().running(), Some(Color::Black));
    assert!(a.open().iter().all(|m| m.kind != "claim_held"));
    // Undone: the penalty given back, the claim held again, clocks stopped.
    let d = feed(
        &mut a,
        &[ruled(12_000, ArbiterAction::Undo(1), seen(7, None))],
    );
    assert!(applied(&d).is_some(), "{d:?}");
    let (w, b) = clocks(&a, 12_000);
    assert_eq!(w, w0, "the +2 min given back");
    assert_eq!(b, b0 - 1_000, "Black's second ran while play went on");
    assert!(a.open().iter().any(|m| m.kind == "claim_held"));
    assert_eq!(a.clock().unwrap().running(), None);
}

#[test]
fn a_claim_no_move_can_make_correct_is_rejected_at_once() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::G1, Square::F3));
    let d = feed(&mut a, &[written_claim(2_000, Color::Black, None)]);
    assert!(!events(&d).contains(&"claim_held"), "{d:?}");
    assert!(format!("{d:?}").contains("upheld: false"), "{d:?}");
    // Fifty moves: 98 plies without a pawn move or capture is two short.
    let fifty = |hm: &str| {
        let h = crate::trace::Header {
            boards: vec![BoardId::Main],
            time_control: Some("5400+30".into()),
            start_fen: Some(format!("4k3/8/8/8/8/8/8/R3K3 w - - {hm} 80")),
            ..crate::trace::Header::default()
        };
        Arbiter::new(GameConfig::from_header(&h, None, None).unwrap())
    };
    let claim = |t| {
        rec(
            t,
            RecordKind::Claim {
                kind: ClaimKind::FiftyMoves,
                by: Color::White,
                intended: None,
            },
        )
    };
    let d = feed(&mut fifty("98"), &[claim(1_000)]);
    assert!(!events(&d).contains(&"claim_held"), "{d:?}");
    // 99: any quiet move completes the fifty: held.
    let mut a = fifty("99");
    let d = feed(&mut a, &[claim(1_000)]);
    assert!(events(&d).contains(&"claim_held"), "{d:?}");
    let m = a
        .open()
        .into_iter()
        .find(|m| m.kind == "claim_held")
        .unwrap();
    assert!(m.rulings[0].label.ends_with("(draw, 9.3.1)"), "{m:?}");
}

/// Issue 24 point 7, the rulings on a held claim in the table of every
/// ruling kind × profile: `uphold` cites the written-move claim's article
/// (2001 / 2009 9.2a, 2023 9.2.1), `reject` the wrong claim's (9.5b /
/// 9.5.3), never the penalties article (13.4 / 12.9); each is announced
/// once (one `claim` event) and raises no other alert.
#[test]
fn the_rulings_on_a_held_claim_cite_their_article_per_profile() {
    use crate::model::Edition;
    for (edition, uphold, reject) in [
        (Edition::Fide2001, "9.2a", "9.5b"),
        (Edition::Fide2009, "9.2a", "9.5b"),
        (Edition::Fide2009No, "9.2a", "9.5b"),
        (Edition::Fide2023, "9.2.1", "9.5.3"),
    ] {
        let header = crate::trace::Header {
            boards: vec![BoardId::Main],
            time_control: Some("5400+30".into()),
            rules: Some(edition),
            ..crate::trace::Header::default()
        };
        let held = Some(("claim_held", 9_000));
        for (action, want) in [
            (ArbiterAction::Uphold(Some("f6g8".into())), uphold),
            (ArbiterAction::Reject(None), reject),
        ] {
            let mut a = Arbiter::new(GameConfig::from_header(&header, None, None).unwrap());
            shuffle(&mut a);
            feed(&mut a, &[written_claim(9_000, Color::Black, None)]);
            let d = feed(&mut a, &[ruled(10_000, action, seen(7, held))]);
            let (article, _) = applied(&d).unwrap_or_else(|| panic!("{edition:?}: {d:?}"));
            assert_eq!(article, want, "{edition:?}");
            assert_ne!(article, a.config().profile.articles.arbiter, "{edition:?}");
            let alerts: Vec<&str> = events(&d)
                .into_iter()
                .filter(|e| crate::trace::alert_types::BOARD.contains(e))
                .collect();
            let expected: &[&str] = if want == uphold {
                &["claim", "game_end"]
            } else {
                &["claim"]
            };
            assert_eq!(alerts, expected, "{edition:?}: {d:?}");
        }
    }
}

/// Without a clock a move can be made while a claim is held: the claim is
/// not withdrawn by it, and it is ruled on its own position. The open
/// matter says it was overtaken and offers only what can be applied (the
/// position set back), never an Uphold that could only be refused; once
/// set back, Uphold and Reject are live again and apply.
#[test]
fn a_held_claim_overtaken_by_a_move_offers_only_the_position_set_back() {
    let mut a = game(None);
    shuffle(&mut a);
    feed(&mut a, &[written_claim(9_000, Color::Black, None)]);
    let held = Some(("claim_held", 9_000));
    // Black makes 4... Ng8 on the board while the claim is held.
    feed(&mut a, &play(10_000, Color::Black, Square::F6, Square::G8));
    assert_eq!(a.ply(), 8);
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "claim_held")
        .expect("the claim still listed");
    assert!(
        m.summary.contains("was overtaken") && m.summary.contains("(Ng8)"),
        "{}",
        m.summary
    );
    let actions: Vec<&str> = m.rulings.iter().map(|r| r.action).collect();
    assert_eq!(actions, ["position"], "{m:?}");
    // Every ruling offered applies.
    let fen = m.rulings[0].body["fen"].as_str().unwrap().to_owned();
    let d = feed(
        &mut a,
        &[ruled(
            11_000,
            ArbiterAction::SetPosition(fen),
            seen(8, held),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.ply(), 7);
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "claim_held")
        .expect("the claim open again");
    let actions: Vec<&str> = m.rulings.iter().map(|r| r.action).collect();
    assert_eq!(actions, ["uphold", "reject"], "{m:?}");
    let d = feed(
        &mut a,
        &[ruled(12_000, ArbiterAction::Uphold(None), seen(7, held))],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.outcome().unwrap().result, Score::Game(KnownOutcome::Draw));
}

// 2001 §9.5b: the announced move itself must be made (issue 25).
#[path = "announced_tests.rs"]
mod announced_tests;
