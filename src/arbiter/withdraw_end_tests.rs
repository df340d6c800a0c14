//! Issue 40 §2: every game end the board declares alone can be cancelled
//! by the arbiter (`withdraw` from the `game_end` alert), with its undo:
//! a false mate (a misread piece), a false flag (a defective clock, 2023
//! 6.10.1), a fivefold repetition (2023 9.6.1); a resignation is refused
//! (the player's, not the board's).

use super::rulings_tests::applied;
use super::*;
use crate::trace::{EventRef, Expect, PenaltyRef};

fn withdraw_end(t: u64, a: &Arbiter, times: Option<(u64, u64)>) -> Record {
    let end_t = a.outcome().map_or(0, |o| o.t);
    rec(
        t,
        RecordKind::Arbiter {
            action: ArbiterAction::Withdraw(match times {
                None => PenaltyRef::Answered,
                Some(_) => PenaltyRef::End {
                    t: Some(end_t),
                    times,
                },
            }),
            author: Some("IA Hansen".into()),
            expect: Some(Expect {
                ply: a.ply(),
                event: Some(EventRef {
                    kind: "game_end".into(),
                    t: end_t,
                }),
                result: None,
            }),
            reason: Some("the board misread it".into()),
        },
    )
}

/// Feeds the `withdraw` of the game end at `t`.
fn cancel(a: &mut Arbiter, t: u64, times: Option<(u64, u64)>) -> Vec<Decision> {
    let r = withdraw_end(t, a, times);
    feed(a, &[r])
}

fn refused(d: &[Decision]) -> Option<(String, u16)> {
    d.iter().find_map(|d| match d {
        Decision::Event(Event {
            kind: EventKind::RulingRefused { reason, status, .. },
            ..
        }) => Some((reason.clone(), *status)),
        _ => None,
    })
}

/// The open `game_end` matter's "Cancel the board's …" ruling: its label.
fn cancel_offered(a: &Arbiter) -> Option<String> {
    a.open()
        .into_iter()
        .find(|m| m.kind == "game_end")?
        .rulings
        .into_iter()
        .find(|r| r.action == "withdraw")
        .map(|r| r.label)
}

#[test]
fn a_false_mate_is_cancelled_the_move_taken_back_and_the_undo_ends_it_again() {
    let mut a = game(Some("300+2"));
    fools_mate_pressed(&mut a);
    let o = a.outcome().expect("mate");
    assert_eq!(o.reason, EndReason::Checkmate);
    assert_eq!(
        cancel_offered(&a).as_deref(),
        Some("Cancel the board's checkmate")
    );
    let d = cancel(&mut a, 6_000, None);
    assert_eq!(refused(&d), None, "{d:?}");
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "7.6", "a take-back: the position set");
    assert!(
        effect.contains(
            "the board's 0-1 (checkmate) withdrawn: Qh4# as the board read it taken back"
        ),
        "{effect}"
    );
    assert!(effect.contains("the board misread it"), "{effect}");
    assert!(a.outcome().is_none());
    assert_eq!(a.ply(), 3);
    assert_eq!(a.position().turn(), Color::Black);
    assert_eq!(a.clock().and_then(|c| c.running()), Some(Color::Black));
    // The board still shows Qh4: it is to be put right (or the position
    // after the move really made set).
    assert_eq!(a.phase(), &Phase::Restoring);
    assert!(a.open().iter().all(|m| m.kind != "game_end"));
    // Undone: the board's mate stands again.
    let d = feed(
        &mut a,
        &[arbiter(7_000, ArbiterAction::Undo(1), Some("IA Hansen"))],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.outcome().map(|o| o.reason), Some(EndReason::Checkmate));
    assert_eq!(a.ply(), 4);
}

#[test]
fn a_false_flag_is_cancelled_only_with_clocks_that_show_no_flag() {
    let mut a = game(Some("60+0"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    advance(&mut a, 70_000);
    let o = a.outcome().expect("Black's flag");
    assert_eq!(o.reason, EndReason::Time);
    assert_eq!(
        cancel_offered(&a).as_deref(),
        Some("Cancel the board's time")
    );
    // Without the clocks: Black's still shows the flag (409).
    let d = cancel(&mut a, 72_000, None);
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 409);
    assert!(
        reason.contains("Black's clock would still show the flag"),
        "{reason}"
    );
    assert!(a.outcome().is_some());
    let d = cancel(&mut a, 72_000, Some((59_000, 0)));
    assert!(refused(&d).is_some_and(|(r, _)| r.contains("Black's clock")));
    // With the clocks the arbiter judges right: the game goes on.
    let d = cancel(&mut a, 72_000, Some((59_000, 45_000)));
    assert_eq!(refused(&d), None, "{d:?}");
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "6.10.2");
    assert!(
        effect.contains("the board's 1-0 (time) withdrawn: clocks White 0:00:58 → 0:00:59, Black 0:00:00 → 0:00:45"),
        "{effect}"
    );
    assert!(a.outcome().is_none());
    assert_eq!(a.clock().and_then(|c| c.running()), Some(Color::Black));
    assert_eq!(a.clock().map(|c| c.remaining_at(80_000).1), Some(37_000));
    // Black plays on.
    let d = feed(&mut a, &play(80_000, Color::Black, Square::E7, Square::E5));
    assert!(events(&d).contains(&"move"), "{d:?}");
    assert_eq!(a.ply(), 2);
}

#[test]
fn a_withdrawn_fivefold_is_not_declared_again_for_the_same_position() {
    let mut a = game(None);
    let cycle = [
        (Color::White, Square::G1, Square::F3),
        (Color::Black, Square::G8, Square::F6),
        (Color::White, Square::F3, Square::G1),
        (Color::Black, Square::F6, Square::G8),
    ];
    let mut t = 1_000;
    for _ in 0..4 {
        for (side, from, to) in cycle {
            feed(&mut a, &play(t, side, from, to));
            t += 1_000;
        }
    }
    let o = a.outcome().expect("fivefold");
    assert_eq!(o.reason, EndReason::Fivefold);
    assert_eq!(
        cancel_offered(&a).as_deref(),
        Some("Cancel the board's fivefold")
    );
    let d = cancel(&mut a, t, None);
    assert_eq!(refused(&d), None, "{d:?}");
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "9.6.1");
    assert!(effect.contains("does not declare it again"), "{effect}");
    assert!(a.outcome().is_none());
    assert_eq!(a.ply(), 16);
    // The same positions a sixth time and more: the board does not end it
    // again until one occurs five times after the withdrawal (the start
    // position at ply 16, 20, 24, 28, 32).
    for _ in 0..4 {
        for (side, from, to) in cycle {
            assert!(a.outcome().is_none(), "ply {}: {:?}", a.ply(), a.outcome());
            t += 1_000;
            feed(&mut a, &play(t, side, from, to));
        }
    }
    assert_eq!(a.ply(), 32);
    assert_eq!(a.outcome().map(|o| o.reason), Some(EndReason::Fivefold));
}

#[test]
fn a_resignation_is_no_decision_of_the_board_and_is_not_cancelled_so() {
    let mut a = game(None);
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &[rec(2_000, RecordKind::Resign(Color::Black))]);
    assert_eq!(a.outcome().map(|o| o.reason), Some(EndReason::Resignation));
    assert_eq!(cancel_offered(&a), None);
    let d = cancel(&mut a, 3_000, None);
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 422);
    assert!(reason.contains("not the board's decision"), "{reason}");
    assert!(a.outcome().is_some());
}

#[test]
fn withdrawn_seventy_five_moves_are_not_declared_again_until_a_capture_or_pawn_move() {
    let header = Header {
        boards: vec![BoardId::Main],
        ..Header::default()
    };
    let mut cfg = GameConfig::from_header(&header, None, None).expect("valid header");
    // 149 half-moves without a capture or pawn move: White's next one is
    // the 150th (2023 9.6.2).
    cfg.start = "4k3/4p3/8/8/8/8/8/R3K3 w - - 149 80"
        .parse::<shakmaty::fen::Fen>()
        .expect("fen")
        .into_position(shakmaty::CastlingMode::Standard)
        .expect("legal");
    let mut a = Arbiter::new(cfg);
    feed(&mut a, &play(1_000, Color::White, Square::A1, Square::A2));
    let o = a.outcome().expect("75 moves");
    assert_eq!(o.reason, EndReason::SeventyFiveMoves);
    let d = cancel(&mut a, 2_000, None);
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(applied(&d).map(|(a, _)| a), Some("9.6.2"));
    feed(&mut a, &play(3_000, Color::Black, Square::E8, Square::D8));
    feed(&mut a, &play(4_000, Color::White, Square::A2, Square::A3));
    assert_eq!(a.ply(), 3);
    assert!(a.outcome().is_none(), "{:?}", a.outcome());
    // A pawn move starts the count again: the end is the board's again at
    // its 150th half-move (not reached here), and the record goes on.
    feed(&mut a, &play(5_000, Color::Black, Square::E7, Square::E6));
    assert!(a.outcome().is_none());
    assert!(!a.end_withdrawn(EndReason::SeventyFiveMoves));
}
