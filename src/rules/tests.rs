use super::*;

#[test]
fn profiles_differ_where_the_laws_do() {
    let p01 = Profile::parse("fide-2001", "standard").unwrap();
    let p09 = Profile::parse("fide-2009", "standard").unwrap();
    let p23 = Profile::parse("fide-2023", "standard").unwrap();
    let p23r = Profile::parse("fide-2023", "rapid").unwrap();
    assert_eq!(p01.illegal_moves_to_lose, 3);
    assert!(!p01.illegal_loss_draw_exception);
    assert!(p09.illegal_loss_draw_exception);
    assert_eq!(p23.illegal_moves_to_lose, 2);
    assert_eq!(p23r.illegal_move_bonus_ms, 60_000);
    assert_eq!(p23.articles.illegal_move, "7.5.1");
    assert_eq!(p09.articles.illegal_move, "7.4a");
    assert!(Profile::parse("fide-1999", "standard")
        .unwrap_err()
        .contains("fide-2023"));
    assert!(Profile::parse("fide-2009", "bullet")
        .unwrap_err()
        .contains("mode"));
}

/// Issue 40 point 1: who decides, per article; the event's choice only
/// where 2023 A.5 / B.3 leaves one.
#[test]
fn the_table_says_who_decides_and_where_the_event_chooses() {
    let find = |p: &Profile, what: &str| {
        p.decisions()
            .into_iter()
            .find(|d| d.decision == what)
            .unwrap_or_else(|| panic!("{what}"))
    };
    for mode in [Mode::Rapid, Mode::Blitz] {
        let p = Profile::new(Edition::Fide2023, mode);
        assert_eq!(p.illegal_rule, IllegalMoveRule::ClaimPenalty);
        let d = find(&p, "illegal_move");
        assert_eq!((d.by, d.article), (Decider::Claim, "A.5.2"));
        let s = d.setting.expect("the event chooses");
        assert!(!s.on && s.laws_default);
        let on = p.with_board_observing(true);
        assert_eq!(on.illegal_rule, IllegalMoveRule::Arbiter);
        let d = find(&on, "illegal_move");
        assert_eq!((d.by, d.article), (Decider::Arbiter, "7.5.5"));
        assert!(d.setting.is_some_and(|s| s.on && !s.laws_default));
        assert_eq!(find(&p, "checkmate").by, Decider::Automatic);
        assert_eq!(find(&p, "fivefold").by, Decider::Automatic);
        assert_eq!(find(&p, "threefold").by, Decider::Claim);
        assert_eq!(find(&p, "displaced").by, Decider::Arbiter);
    }
    // No choice elsewhere: standard play, adequate supervision, 2009.
    for p in [
        Profile::new(Edition::Fide2023, Mode::Standard),
        Profile::with_supervision(Edition::Fide2023, Mode::Rapid, Supervision::Adequate),
        Profile::new(Edition::Fide2009, Mode::Rapid),
    ] {
        assert_eq!(p.with_board_observing(true), p);
        assert!(find(&p, "illegal_move").setting.is_none());
    }
    let p09 = Profile::new(Edition::Fide2009, Mode::Rapid);
    assert_eq!(find(&p09, "illegal_move").article, "A4c");
    assert_eq!(find(&p09, "flag").by, Decider::Claim);
    assert!(p09.decisions().iter().all(|d| d.decision != "fivefold"));
}
