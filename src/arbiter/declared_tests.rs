//! Results the arbiter declares himself (issue 40.6, `declared.rs`): under
//! the article he names, from the profile's list, with his reason, and
//! confirmed by that act.

use super::*;

fn declared(t: u64, result: KnownOutcome, article: &str, reason: Option<&str>) -> Record {
    rec(
        t,
        RecordKind::Arbiter {
            action: ArbiterAction::DeclareResult {
                result,
                article: article.to_owned(),
            },
            author: Some("IA Hansen".into()),
            expect: None,
            reason: reason.map(str::to_owned),
        },
    )
}

fn black_wins() -> KnownOutcome {
    KnownOutcome::Decisive {
        winner: Color::Black,
    }
}

#[test]
fn a_phone_under_11_3_2_2_loses_the_game_cited_and_confirmed_at_once() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(2_000, Color::Black, Square::E7, Square::E5));
    let d = feed(
        &mut a,
        &[declared(
            3_000,
            black_wins(),
            "11.3.2.2",
            Some("White's phone rang in the playing venue"),
        )],
    );
    assert_eq!(
        events(&d),
        ["game_end", "result_confirmed", "ruling"],
        "{d:?}"
    );
    let kinds: Vec<&EventKind> = d
        .iter()
        .filter_map(|d| match d {
            Decision::Event(e) => Some(&e.kind),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds[0],
        &EventKind::GameEnd {
            result: Score::Game(black_wins()),
            reason: EndReason::RulesInfraction,
            article: "11.3.2.2",
            declared: true,
        }
    );
    assert!(
        matches!(
            kinds[1],
            EventKind::ResultConfirmed {
                article: "11.3.2.2",
                corrected: false,
                forfeit: false,
                ..
            }
        ),
        "{:?}",
        kinds[1]
    );
    let EventKind::Ruling {
        action,
        article,
        effect,
        ..
    } = kinds[2]
    else {
        panic!("{d:?}")
    };
    assert_eq!((*action, *article), ("result", "11.3.2.2"));
    assert!(
        effect.contains("0-1 (rules_infraction), confirmed"),
        "{effect}"
    );
    assert!(effect.contains("electronic device"), "{effect}");
    // Confirmed: no result waits for the arbiter, nothing is open.
    assert_eq!(
        a.confirmation().map(|c| (c.result, c.reason.as_deref())),
        Some((
            Score::Game(black_wins()),
            Some("White's phone rang in the playing venue")
        ))
    );
    assert!(
        a.open().iter().all(|m| m.kind != "game_end"),
        "{:?}",
        a.open()
    );
    // The game_end of a declared result is no alert for the console.
    let Decision::Event(end) = &d[0] else {
        panic!("{d:?}")
    };
    let v: serde_json::Value = serde_json::from_str(&end.to_json()).unwrap();
    assert_eq!(v["declared"], true, "{v}");
    assert!(!crate::trace::alert_types::is_alert_message(&v), "{v}");
}

#[test]
fn an_article_not_in_the_profiles_list_is_refused_naming_the_list() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    // 2009's phone article under the 2023 Laws: refused (422), the list named.
    let d = feed(
        &mut a,
        &[declared(2_000, black_wins(), "12.3b", Some("phone"))],
    );
    let (reason, status) = rulings_tests::refusal(&d)
        .map(|(r, s, _)| (r, s))
        .expect("refused");
    assert_eq!(status, 422, "{reason}");
    assert!(reason.contains("\"12.3b\" is no article"), "{reason}");
    assert!(
        reason.contains("11.3.2.2 (an electronic device"),
        "{reason}"
    );
    assert!(a.outcome().is_none());
    // Without a reason: refused too.
    let d = feed(&mut a, &[declared(3_000, black_wins(), "11.3.2.2", None)]);
    let (reason, status, article) = rulings_tests::refusal(&d).expect("refused");
    assert_eq!((status, article), (422, Some("11.3.2.2")), "{reason}");
    // A draw under a draw's article, a win under it refused.
    let d = feed(
        &mut a,
        &[declared(4_000, black_wins(), "5.2.3", Some("agreed"))],
    );
    assert!(rulings_tests::refusal(&d).is_some_and(|(r, _, _)| r.contains("is a draw")));
    let d = feed(
        &mut a,
        &[declared(
            5_000,
            KnownOutcome::Draw,
            "5.2.3",
            Some("players agreed, the board missed it"),
        )],
    );
    assert!(events(&d).contains(&"game_end"), "{d:?}");
    assert_eq!(a.outcome().unwrap().reason, EndReason::Agreement);
    assert!(a.confirmation().is_some());
}

#[test]
fn the_arbiters_decision_under_12_1_is_confirmed_a_bare_result_stays_provisional() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    let d = feed(
        &mut a,
        &[declared(
            2_000,
            KnownOutcome::Draw,
            "12.1",
            Some("both players agreed to stop"),
        )],
    );
    assert!(events(&d).contains(&"result_confirmed"), "{d:?}");
    let o = a.outcome().unwrap();
    assert_eq!((o.reason, o.article), (EndReason::ArbiterDecision, "12.1"));
    assert!(a.confirmation().is_some());
    // The record of journals written before articles: provisional, as it
    // was (its `confirm` and `undo` numbers replay alike).
    let mut p = game(Some("5400+30"));
    feed(&mut p, &play(1_000, Color::White, Square::E2, Square::E4));
    let d = feed(
        &mut p,
        &[arbiter(
            2_000,
            ArbiterAction::SetResult(KnownOutcome::Draw),
            Some("IA Hansen"),
        )],
    );
    assert_eq!(events(&d), ["game_end", "ruling"], "{d:?}");
    assert!(p.confirmation().is_none());
    // 2009: the same phone under §12.3b is the 2009 article.
    let header = Header {
        boards: vec![BoardId::Main],
        rules: Some(crate::model::Edition::Fide2009),
        ..Header::default()
    };
    let mut b = Arbiter::new(GameConfig::from_header(&header, None, None).unwrap());
    feed(&mut b, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(
        &mut b,
        &[declared(
            2_000,
            black_wins(),
            "§12.3b",
            Some("White's phone rang"),
        )],
    );
    let o = b.outcome().unwrap();
    assert_eq!((o.reason, o.article), (EndReason::RulesInfraction, "12.3b"));
}
