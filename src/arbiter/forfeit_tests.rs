//! Forfeits as rulings (DSU 004 §15, issue 24.6): a no-show forfeited
//! after the present player's first move; a double forfeit that ends the
//! game lost by both, and its undo. Split from `rulings_tests.rs`.

use super::*;
use crate::model::{KnownOutcome, Score};
use crate::trace::Forfeit;
use shakmaty::Square;

#[test]
fn a_no_show_is_forfeited_after_the_present_players_first_move() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    let black_lost = Forfeit::Won(KnownOutcome::Decisive {
        winner: Color::Black,
    });
    // The wrong winner: White was there.
    let d = feed(
        &mut a,
        &[ruled(
            2_000,
            ArbiterAction::Forfeit(black_lost),
            seen(1, None),
        )],
    );
    assert_eq!(refused(&d).map(|r| r.1), Some(422));
    let white_won = Forfeit::Won(KnownOutcome::Decisive {
        winner: Color::White,
    });
    let d = feed(
        &mut a,
        &[ruled(
            3_000,
            ArbiterAction::Forfeit(white_won),
            seen(1, None),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(events(&d), ["game_end", "result_confirmed", "ruling"]);
    assert!(
        a.open().is_empty(),
        "no position to restore, nothing to confirm"
    );
    assert_eq!(a.outcome().unwrap().reason, EndReason::Forfeit);
    // A double forfeit once White has moved: he was present.
    let mut b = game(None);
    feed(&mut b, &play(1_000, Color::White, Square::E2, Square::E4));
    let d = feed(
        &mut b,
        &[ruled(2_000, ArbiterAction::Forfeit(Forfeit::Double), None)],
    );
    let (reason, status) = refused(&d).expect("refused");
    assert!(reason.starts_with("White has moved"), "{reason}");
    assert_eq!(status, 422);
}

#[test]
fn a_double_forfeit_ends_the_game_lost_by_both_and_is_undone() {
    let mut a = game(Some("5400+30"));
    let d = feed(
        &mut a,
        &[ruled(
            1_000,
            ArbiterAction::Forfeit(Forfeit::Double),
            seen(0, None),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(events(&d), ["game_end", "result_confirmed", "ruling"]);
    let o = a.outcome().expect("ended");
    assert_eq!((o.result, o.reason), (Score::BothLost, EndReason::Forfeit));
    assert_eq!(o.result.as_str(), "0-0");
    let c = a.confirmation().expect("confirmed at once");
    assert!(c.forfeit && c.result == Score::BothLost);
    let (article, effect) = applied(&d).unwrap();
    assert_eq!(
        article,
        RulingArticles::of(a.config().profile.edition).forfeit
    );
    assert!(effect.contains("0-0, both players lost"), "{effect}");
    assert!(
        a.open().is_empty(),
        "nothing to confirm, nothing to restore"
    );
    assert_eq!(
        a.clock().and_then(|c| c.running()),
        None,
        "the clock stopped"
    );
    // Its event as the contract writes it.
    let end = d
        .iter()
        .find_map(|d| match d {
            Decision::Event(
                e @ Event {
                    kind: EventKind::GameEnd { .. },
                    ..
                },
            ) => Some(serde_json::to_value(&e.kind).unwrap()),
            _ => None,
        })
        .unwrap();
    assert_eq!(end["result"], "0-0");
    assert_eq!(end["reason"], "forfeit");
    // A second forfeit is stale; a resume refused.
    let d = feed(
        &mut a,
        &[ruled(2_000, ArbiterAction::Resume, seen(0, None))],
    );
    assert_eq!(refused(&d).map(|r| r.1), Some(409), "{d:?}");
    // Undone: the game as before it, playable.
    let d = feed(
        &mut a,
        &[ruled(3_000, ArbiterAction::Undo(1), seen(0, None))],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.outcome(), None);
    assert!(a.confirmation().is_none());
    let (_, effect) = applied(&d).unwrap();
    assert!(
        effect.contains("0-0 (forfeit), forfeit → the game in progress; clocks White ")
            && effect.contains("charged to nobody"),
        "{effect}"
    );
    let d = feed(&mut a, &play(4_000, Color::White, Square::E2, Square::E4));
    assert!(events(&d).contains(&"move"), "{:?}", events(&d));
}
