//! A quickplay-finish claim referred to the arbiter (2009 §10.2, 2023
//! III.5; ia14): the clocks stop, he upholds it (a draw) or rejects it with
//! two minutes to the opponent (undone: the claim open again); postponed,
//! the flag that falls later offers the draw beside the flag.

use super::*;

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
