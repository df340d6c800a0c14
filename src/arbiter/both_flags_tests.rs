//! Both flags fallen where only a claim counts (2009 A4d3, 2001 B8): the
//! game goes on, and the matter offered to the arbiter is the draw, never
//! a win on the second flag (`both_flags.rs`).

use super::*;
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
