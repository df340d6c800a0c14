//! Both flags fallen where only a claim counts (2009 A4d3, 2001 B8): the
//! game goes on, and the matter offered to the arbiter is the draw, never
//! a win on the second flag (`both_flags.rs`).

use super::*;
use crate::model::win_for;
use crate::model::{Edition, Mode, Supervision};
use serde_json::json;

fn rapid(edition: Edition) -> Arbiter {
    let header = Header {
        boards: vec![BoardId::Main],
        time_control: Some("900".into()),
        rules: Some(edition),
        mode: Some(Mode::Rapid),
        supervision: Some(Supervision::Inadequate),
        ..Header::default()
    };
    Arbiter::new(GameConfig::from_header(&header, None, None).expect("valid header"))
}

#[test]
fn both_flags_down_offer_the_arbiter_the_draw_and_end_nothing() {
    for (edition, article) in [
        (Edition::Fide2009, "A4d3"),
        (Edition::Fide2009No, "A4d3"),
        (Edition::Fide2001, "B8"),
    ] {
        let mut a = rapid(edition);
        feed(&mut a, &play(1_000, Color::White, Square::F2, Square::F3));
        // Black's flag falls before his reply; the game goes on.
        feed(&mut a, &play(902_000, Color::Black, Square::E7, Square::E5));
        let open = a.open();
        let flag = open
            .iter()
            .find(|m| m.kind == "flag")
            .expect("Black's flag");
        assert_eq!(flag.rulings[0].body["result"], "1-0", "{edition:?}");
        // White's falls too: nothing ends, the arbiter is offered the draw.
        let d = advance(&mut a, 1_900_000);
        assert!(events(&d).contains(&"flag"), "{edition:?}: {d:?}");
        assert!(!events(&d).contains(&"game_end"), "{edition:?}: {d:?}");
        assert!(a.outcome().is_none(), "{edition:?}");
        let open = a.open();
        let flags: Vec<_> = open.iter().filter(|m| m.kind == "flag").collect();
        assert_eq!(flags.len(), 1, "{edition:?}: {open:?}");
        assert_eq!(flags[0].by, None);
        assert!(flags[0].summary.contains(article), "{}", flags[0].summary);
        let r = &flags[0].rulings;
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].action, &r[0].body["result"]),
            ("result", &json!("1/2-1/2"))
        );
        // Declared: A4d3's (B8's) draw, not an arbiter's decision under 13.1.
        let draw = ArbiterAction::SetResult(KnownOutcome::Draw);
        let d = feed(&mut a, &[arbiter(1_910_000, draw, Some("IA Hansen"))]);
        let end = d.iter().find_map(|d| match d {
            Decision::Event(Event {
                kind: EventKind::GameEnd {
                    reason, article, ..
                },
                ..
            }) => Some((*reason, *article)),
            _ => None,
        });
        assert_eq!(
            end,
            Some((EndReason::BothFlags, article)),
            "{edition:?}: {d:?}"
        );
    }
}

/// Both flags down (2009 A4d3 "skal dommeren erklære partiet remis", 2001
/// B8 "er partiet remis"): the arbiter's win is no win on time. Without
/// his ground it is refused (422, the both-flags article); with one it is
/// his penalty, the game declared lost (§13.4d), never 6.9 / 6.10.
#[test]
fn a_win_declared_while_both_flags_are_down_is_refused_without_a_ground() {
    for (edition, article) in [
        (Edition::Fide2009, "A4d3"),
        (Edition::Fide2009No, "A4d3"),
        (Edition::Fide2001, "B8"),
    ] {
        let mut a = rapid(edition);
        feed(&mut a, &play(1_000, Color::White, Square::F2, Square::F3));
        feed(&mut a, &play(902_000, Color::Black, Square::E7, Square::E5));
        advance(&mut a, 1_900_000);
        assert!(a.both_flags_down(), "{edition:?}");
        for won in [win_for(Color::White), win_for(Color::Black)] {
            let d = feed(
                &mut a,
                &[arbiter(
                    1_910_000,
                    ArbiterAction::SetResult(won),
                    Some("IA Hansen"),
                )],
            );
            let refused = d.iter().find_map(|d| match d {
                Decision::Event(Event {
                    kind:
                        EventKind::RulingRefused {
                            reason,
                            status,
                            article,
                            ..
                        },
                    ..
                }) => Some((reason.clone(), *status, *article)),
                _ => None,
            });
            let (reason, status, cited) = refused.expect("refused");
            assert_eq!((status, cited), (422, Some(article)), "{edition:?} {won:?}");
            assert!(reason.contains("both flags have fallen"), "{reason}");
            assert!(reason.contains(article), "{reason}");
            assert!(a.outcome().is_none(), "{edition:?}: the game goes on");
        }
        // With the arbiter's ground: his penalty (13.4d), not a loss on time.
        let with_ground = rec(
            1_920_000,
            RecordKind::Arbiter {
                action: ArbiterAction::SetResult(win_for(Color::White)),
                author: Some("IA Hansen".into()),
                expect: None,
                reason: Some("Black refused to stop using his phone".into()),
            },
        );
        feed(&mut a, &[with_ground]);
        let o = a.outcome().expect("ended");
        assert_eq!(
            (o.reason, o.article),
            (EndReason::ArbiterDecision, "13.4"),
            "{edition:?}"
        );
    }
}
