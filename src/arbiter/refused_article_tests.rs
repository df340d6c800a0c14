//! A refused ruling carries its article (issue 24.9: the round report
//! gives every ruling its article): the ruling asked for's, per profile,
//! or the matter's it is about (the claim decided moves ago).

use super::*;

/// The `ruling_refused` of `d`: (status, article).
fn refused_article(d: &[Decision]) -> Option<(u16, Option<&'static str>)> {
    refusal(d).map(|(_, status, article)| (status, article))
}

#[test]
fn every_refused_ruling_cites_its_article_per_profile() {
    use crate::model::Edition;
    for edition in [
        Edition::Fide2001,
        Edition::Fide2009,
        Edition::Fide2009No,
        Edition::Fide2023,
    ] {
        let ra = RulingArticles::of(edition);
        let header = crate::trace::Header {
            boards: vec![BoardId::Main],
            time_control: Some("5400+30".into()),
            rules: Some(edition),
            // Fide-2009's 15 min and the others' 60 min: the forfeit at
            // 2 s is refused for the default time (2023's 0 as 1 min).
            default_time_ms: (edition == Edition::Fide2023).then_some(60_000),
            ..crate::trace::Header::default()
        };
        let mut a = Arbiter::new(GameConfig::from_header(&header, None, None).unwrap());
        feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
        let win = Forfeit::Won(KnownOutcome::Decisive {
            winner: Color::White,
        });
        let mut refuse = |t: u64, action: ArbiterAction| {
            let d = feed(&mut a, &[ruled(t, action.clone(), None)]);
            refused_article(&d).unwrap_or_else(|| panic!("{edition:?} {action:?}: {d:?}"))
        };
        let table = [
            (
                "forfeit",
                refuse(2_000, ArbiterAction::Forfeit(win)),
                Some(ra.forfeit),
            ),
            // Nothing paused: no effect (422).
            (
                "resume",
                refuse(3_000, ArbiterAction::Resume),
                Some(ra.resume),
            ),
            // The game goes on: no result to confirm.
            (
                "confirm",
                refuse(4_000, ArbiterAction::Confirm(None)),
                Some(ra.confirm),
            ),
            (
                "position",
                refuse(
                    5_000,
                    ArbiterAction::SetPosition("8/8/8/8/8/8/8/8 w - - 0 1".into()),
                ),
                Some(ra.position),
            ),
            // A ruling never given: no matter, no article.
            ("undo", refuse(6_000, ArbiterAction::Undo(9)), None),
        ];
        for (kind, (status, got), want) in table {
            assert!(matches!(status, 409 | 422), "{edition:?} {kind}: {status}");
            assert_eq!(got, want, "{edition:?}: {kind}");
        }
    }
}

#[test]
fn a_ruling_on_a_claim_decided_moves_ago_cites_the_claims_article() {
    let mut recs = Vec::new();
    recs.extend(play(1_000, Color::White, Square::G1, Square::F3));
    recs.push(claim(2_000, ClaimKind::Threefold, Color::Black));
    recs.extend(play(3_000, Color::Black, Square::G8, Square::F6));
    recs.extend(play(4_000, Color::White, Square::F3, Square::G1));
    recs.extend(play(5_000, Color::Black, Square::F6, Square::G8));
    let mut a = game(Some("5400+30"));
    let d = feed(&mut a, &recs);
    // The board's decision on the claim and the article it cited.
    let cited = d
        .iter()
        .find_map(|d| match d {
            Decision::Event(Event {
                kind: EventKind::Claim { article, .. },
                ..
            }) => Some(*article),
            _ => None,
        })
        .expect("the claim decided");
    let d = feed(
        &mut a,
        &[ruled(
            6_000,
            ArbiterAction::Overrule,
            seen(1, Some(("claim", 2_000))),
        )],
    );
    assert_eq!(refused_article(&d), Some((409, Some(cited))), "{d:?}");
}

#[test]
fn the_refused_rulings_article_is_in_its_event() {
    let e = Event {
        t: 5,
        kind: EventKind::RulingRefused {
            action: "resume",
            author: Some("IA Hansen".into()),
            reason: "the clocks run".into(),
            status: 422,
            article: Some("6.12c"),
        },
    };
    let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
    assert_eq!(v["article"], "6.12c", "{v}");
}
