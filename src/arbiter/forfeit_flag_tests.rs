//! A no-show whose flag fell before the arbiter entered the forfeit (issue
//! 24.6, ia13's walk-through): the forfeit replaces the flag's result (the
//! papers carry a game not played, TRF `-`/`-` or `+`/`-`), one ruling, no
//! second game end; undone, the flag's result stands again; a flag of a
//! game played, or a confirmed one, is still refused.

use super::*;
use crate::model::{EndReason, KnownOutcome, Score};
use crate::trace::Forfeit;
use shakmaty::Square;

#[test]
fn a_forfeit_replaces_the_flag_of_a_game_never_played() {
    // 90 min + 30 s; the clocks start at the round's start; nobody comes:
    // White's flag falls (at 1:30:30, the first increment given at the
    // start) with no move made.
    let mut a = game(Some("5400+30"));
    let d = advance(&mut a, 5_450_000);
    let o = a
        .outcome()
        .unwrap_or_else(|| panic!("no flag: {:?}", events(&d)));
    assert_eq!(o.reason, EndReason::Time);
    let d = feed(
        &mut a,
        &[ruled(
            5_500_000,
            ArbiterAction::Forfeit(Forfeit::Double),
            seen(0, None),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(
        events(&d),
        ["result_confirmed", "ruling"],
        "no second game end"
    );
    let o = a.outcome().unwrap();
    assert_eq!((o.result, o.reason), (Score::BothLost, EndReason::Forfeit));
    assert!(a.confirmation().is_some_and(|c| c.forfeit));
    let (_, effect) = applied(&d).unwrap();
    assert_eq!(
        effect,
        "0-1 (time) → the game is entered as a forfeit, 0-0, both players lost, confirmed"
    );
    assert!(a.open().is_empty(), "nothing left to confirm");
    // Undone: the flag's result stands again, to be confirmed.
    let d = feed(
        &mut a,
        &[ruled(5_600_000, ArbiterAction::Undo(1), seen(0, None))],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let o = a.outcome().unwrap();
    assert_eq!((o.result.as_str(), o.reason), ("0-1", EndReason::Time));
    assert!(a.confirmation().is_none());
}

#[test]
fn the_absent_players_flag_after_the_first_move_becomes_the_forfeit() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(60_000, Color::White, Square::E2, Square::E4));
    advance(&mut a, 5_500_000);
    assert_eq!(a.outcome().map(|o| o.reason), Some(EndReason::Time));
    let white_won = Forfeit::Won(KnownOutcome::Decisive {
        winner: Color::White,
    });
    let d = feed(
        &mut a,
        &[ruled(
            5_600_000,
            ArbiterAction::Forfeit(white_won),
            seen(1, None),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let o = a.outcome().unwrap();
    assert_eq!((o.result.as_str(), o.reason), ("1-0", EndReason::Forfeit));
    // Confirmed, it is no longer replaced: undo the confirmation first.
    let mut b = game(Some("5400+30"));
    feed(&mut b, &play(60_000, Color::White, Square::E2, Square::E4));
    advance(&mut b, 5_500_000);
    feed(
        &mut b,
        &[ruled(
            5_550_000,
            ArbiterAction::Confirm(None),
            seen(1, None),
        )],
    );
    let d = feed(
        &mut b,
        &[ruled(
            5_600_000,
            ArbiterAction::Forfeit(white_won),
            seen(1, None),
        )],
    );
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 409);
    assert!(reason.contains("undo the confirmation first"), "{reason}");
}

#[test]
fn a_flag_in_a_game_played_is_no_forfeit() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(60_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(120_000, Color::Black, Square::E7, Square::E5));
    advance(&mut a, 5_600_000);
    assert_eq!(a.outcome().map(|o| o.reason), Some(EndReason::Time));
    let d = feed(
        &mut a,
        &[ruled(
            5_700_000,
            ArbiterAction::Forfeit(Forfeit::Double),
            seen(2, None),
        )],
    );
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(
        (reason.as_str(), status),
        ("the game is already over (0-1, time)", 409)
    );
}
