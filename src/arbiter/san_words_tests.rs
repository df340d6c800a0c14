//! The arbiter's words name moves in SAN, from the position where they were
//! made (what the console, the round report and the spoken texts show), not
//! in UCI: the touch-move breach's event, open matter and rulings.

use super::*;

#[test]
fn a_touch_move_breach_names_the_move_in_san() {
    // 1. e4 e5, then White touches his knight g1 and plays 2. Nc3 (the
    // knight b1): a breach of 4.3a; "Nc3", never "b1c3".
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(2_000, Color::Black, Square::E7, Square::E5));
    let d = feed(
        &mut a,
        &[
            lift(3_000, Square::G1),
            place(3_300, Square::G1),
            lift(4_000, Square::B1),
            place(4_100, Square::C3),
            press(4_200, Color::White),
        ],
    );
    let breach = d
        .iter()
        .find_map(|d| match d {
            Decision::Event(Event {
                kind: EventKind::TouchMove { played, san, .. },
                ..
            }) => Some((played.clone(), san.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a touch_move in {d:?}"));
    assert_eq!(breach, ("b1c3".to_owned(), "Nc3".to_owned()));
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "touch_move")
        .expect("the breach open");
    let words = format!(
        "{} {}",
        m.summary,
        m.rulings
            .iter()
            .map(|r| format!("{} {}", r.label, r.effect))
            .collect::<String>()
    );
    assert!(words.contains("Nc3 played"), "{words}");
    assert!(
        !words.contains("b1c3"),
        "UCI in the arbiter's words: {words}"
    );
    // Overruled: the effect names it in SAN too.
    let d = feed(
        &mut a,
        &[ruled(
            5_000,
            ArbiterAction::Overrule,
            seen(3, Some(("touch_move", 4_200))),
        )],
    );
    let (_, effect) = applied(&d).unwrap_or_else(|| panic!("{d:?}"));
    assert!(
        effect.contains("Nc3") && !effect.contains("b1c3"),
        "{effect}"
    );
}
