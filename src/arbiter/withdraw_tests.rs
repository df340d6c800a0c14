//! Issue 40 §2: the board's penalty for an illegal move reversed by the
//! arbiter, on the same real game (Mottola – Cardoso Cardoso, 2025) at
//! 18.Nd5: the knight lands on d5 and, at the press, the b2 pawn is
//! knocked over onto c3, the square the knight left. No legal move
//! explains that board beside displaced pieces (a piece stands on the
//! move's own square), so the board still rules an illegal move (7.5.1):
//! +2 min to Black, White's count 1. The arbiter withdraws the penalty,
//! or re-classifies the press as displaced pieces (7.4.1) keeping Nd5,
//! or sets the position after Nd5; each undone by `undo`.

use super::super::rulings_tests::applied;
use super::*;
use crate::trace::{EventRef, Expect, PenaltyRef};

const T: u64 = 40_000;

fn ruled(t: u64, action: ArbiterAction, ply: u32, event: Option<(&str, u64)>) -> Record {
    rec(
        t,
        RecordKind::Arbiter {
            action,
            author: Some("IA Hansen".into()),
            expect: Some(Expect {
                ply,
                event: event.map(|(k, t)| EventRef {
                    kind: k.to_owned(),
                    t,
                }),
                result: None,
            }),
            reason: Some("the pieces were knocked over at the press".into()),
        },
    )
}

fn refused(d: &[Decision]) -> Option<String> {
    d.iter().find_map(|d| match d {
        Decision::Event(Event {
            kind: EventKind::RulingRefused { reason, .. },
            ..
        }) => Some(reason.clone()),
        _ => None,
    })
}

/// The game to 18.Nd5 with the pawn knocked onto c3: ruled illegal.
/// Returns the game, both clocks just before the press and the
/// `illegal_move` event's time.
fn knocked_onto_the_knights_square() -> (Arbiter, (u64, u64), u64) {
    let mut a = the_game();
    let before = a.clock().expect("clock").remaining_at(T + 700);
    let recs = vec![
        lift(T, Square::C3),
        place(T + 300, Square::D5),
        lift(T + 600, Square::B2),
        place(T + 650, Square::C3),
        press(T + 700, Color::White),
    ];
    let d = feed(&mut a, &recs);
    let t = d
        .iter()
        .find_map(|d| match d {
            Decision::Event(Event {
                t,
                kind: EventKind::IllegalMove { .. },
            }) => Some(*t),
            _ => None,
        })
        .unwrap_or_else(|| panic!("ruled illegal: {:?}", events(&d)));
    assert_eq!(a.illegal_counts(), (1, 0));
    let (_, b) = a.clock().expect("clock").remaining_at(T + 700);
    assert_eq!(b, before.1 + 120_000, "7.5.5: two minutes to Black");
    (a, before, t)
}

#[test]
fn the_arbiter_withdraws_the_boards_penalty_and_a_next_illegal_move_is_the_first() {
    let (mut a, before, ti) = knocked_onto_the_knights_square();
    let m = a
        .open()
        .into_iter()
        .find(|m| m.kind == "illegal_move")
        .expect("the illegal move is open");
    let actions: Vec<&str> = m.rulings.iter().map(|r| r.action).collect();
    assert_eq!(actions, ["restore", "withdraw", "displaced"], "{m:?}");
    assert_eq!(m.rulings[2].label, "It was displaced pieces: keep Nd5");
    let d = feed(
        &mut a,
        &[ruled(
            T + 5_000,
            ArbiterAction::Withdraw(PenaltyRef::Answered),
            34,
            Some(("illegal_move", ti)),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "7.5.5");
    assert!(effect.contains("White's illegal moves 1 → 0"), "{effect}");
    assert_eq!(a.illegal_counts(), (0, 0));
    let (_, b) = a.clock().expect("clock").remaining_at(T + 5_000);
    assert_eq!(b, before.1, "Black's two minutes taken back");
    assert!(a.penalty_withdrawn(ti));
    // Withdrawn twice: refused, saying so.
    let d = feed(
        &mut a,
        &[ruled(
            T + 5_500,
            ArbiterAction::Withdraw(PenaltyRef::Event(ti)),
            34,
            None,
        )],
    );
    assert!(
        refused(&d).is_some_and(|r| r.contains("already withdrawn")),
        "{d:?}"
    );
    // Undone: the penalty stands again (minutes and count).
    let d = feed(
        &mut a,
        &[ruled(T + 6_000, ArbiterAction::Undo(1), 34, None)],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.illegal_counts(), (1, 0));
    let (_, b) = a.clock().expect("clock").remaining_at(T + 6_000);
    assert_eq!(b, before.1 + 120_000);
    assert!(!a.penalty_withdrawn(ti));
    // Withdrawn again, from the alert once the position is reinstated.
    let d = feed(
        &mut a,
        &[
            lift(T + 7_000, Square::C3),
            place(T + 7_100, Square::B2),
            lift(T + 7_200, Square::D5),
            place(T + 7_300, Square::C3),
        ],
    );
    assert!(events(&d).contains(&"position_restored"), "{d:?}");
    let d = feed(
        &mut a,
        &[ruled(
            T + 8_000,
            ArbiterAction::Withdraw(PenaltyRef::Answered),
            34,
            Some(("illegal_move", ti)),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.illegal_counts(), (0, 0));
    // A next illegal move (Nc3-c5) is counted as the first: two minutes,
    // not the game (2023 7.5.5: the second loses).
    let d = feed(
        &mut a,
        &[
            lift(T + 9_000, Square::C3),
            place(T + 9_100, Square::C5),
            press(T + 9_200, Color::White),
        ],
    );
    let count = d.iter().find_map(|d| match d {
        Decision::Event(Event {
            kind: EventKind::IllegalMove { count, .. },
            ..
        }) => Some(*count),
        _ => None,
    });
    assert_eq!(count, Some(1), "{d:?}");
    assert!(a.outcome().is_none());
}

#[test]
fn re_classified_as_displaced_pieces_the_legal_move_stands() {
    let (mut a, before, ti) = knocked_onto_the_knights_square();
    let d = feed(
        &mut a,
        &[ruled(
            T + 5_000,
            ArbiterAction::Displaced {
                penalty: PenaltyRef::Answered,
                uci: None,
            },
            34,
            Some(("illegal_move", ti)),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "7.4.1");
    assert!(effect.contains("White's Nd5 stands"), "{effect}");
    assert_eq!(a.ply(), 35);
    assert_eq!(a.moves().last().map(|m| m.san.as_str()), Some("Nd5"));
    assert_eq!(a.illegal_counts(), (0, 0));
    assert!(a.penalty_withdrawn(ti));
    let c = a.clock().expect("clock");
    assert_eq!(c.running(), Some(Color::Black));
    let (w, b) = c.remaining_at(T + 5_000);
    assert_eq!(w, before.0 + 30_000, "White's clock as at his press, +30 s");
    assert_eq!(b, before.1, "Black's two minutes taken back");
    // The pawn still on c3, b2 empty: named, to be put right.
    assert_eq!(
        irregularity_squares(&d),
        Some(vec!["b2".into(), "c3".into()])
    );
    let d = feed(
        &mut a,
        &[lift(T + 6_000, Square::C3), place(T + 6_100, Square::B2)],
    );
    assert!(events(&d).contains(&"position_restored"), "{d:?}");
    // Black replies from the position after Nd5 (18...Bxd5).
    let reply = by_hand(a.position(), "c6d5", T + 7_000);
    let d = feed(&mut a, &reply);
    assert!(events(&d).contains(&"move"), "{d:?}");
    // Undone before that reply, the board's ruling stands again.
    let (mut a, before, ti) = knocked_onto_the_knights_square();
    feed(
        &mut a,
        &[ruled(
            T + 5_000,
            ArbiterAction::Displaced {
                penalty: PenaltyRef::Event(ti),
                uci: Some("c3d5".into()),
            },
            34,
            None,
        )],
    );
    assert_eq!(a.ply(), 35);
    let d = feed(
        &mut a,
        &[ruled(T + 6_000, ArbiterAction::Undo(1), 35, None)],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.ply(), 34);
    assert_eq!(a.illegal_counts(), (1, 0));
    // The two minutes given again; the second Black's clock ran after
    // the re-classification stays run (an undo changes the clocks by the
    // amounts its ruling did, `undo.rs`).
    let (_, b) = a.clock().expect("clock").remaining_at(T + 6_000);
    assert_eq!(b, before.1 + 120_000 - 1_000);
    assert_eq!(a.clock().and_then(|c| c.running()), Some(Color::White));
}

#[test]
fn the_position_after_the_last_legal_move_can_be_set() {
    let (mut a, _, _) = knocked_onto_the_knights_square();
    let after = "2r1k2r/2q1bp2/p1bp1p1p/3NpP2/1p2P3/3Q2N1/PPP3PP/1K1R3R b k - 1 18";
    let d = feed(
        &mut a,
        &[ruled(
            T + 5_000,
            ArbiterAction::SetPosition(after.into()),
            34,
            None,
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let (_, effect) = applied(&d).expect("applied");
    assert!(effect.contains("the penalty"), "{effect}");
    assert_eq!(a.ply(), 35);
    assert_eq!(a.moves().last().map(|m| m.san.as_str()), Some("Nd5"));
    // The penalty stands until withdrawn.
    assert_eq!(a.illegal_counts(), (1, 0));
}

#[test]
fn a_game_lost_by_illegal_moves_is_withdrawn_and_goes_on() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E5));
    feed(&mut a, &[lift(2_000, Square::E5), place(2_100, Square::E2)]);
    let d = feed(&mut a, &play(3_000, Color::White, Square::E2, Square::E6));
    assert!(events(&d).contains(&"game_end"), "{d:?}");
    let o = a.outcome().expect("lost");
    let m = a
        .open()
        .into_iter()
        .find(|m| m.kind == "game_end")
        .expect("open");
    assert!(m.rulings.iter().any(|r| r.action == "withdraw"), "{m:?}");
    let d = feed(
        &mut a,
        &[ruled(
            4_000,
            ArbiterAction::Withdraw(PenaltyRef::Answered),
            0,
            Some(("game_end", o.t)),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert!(a.outcome().is_none(), "the game goes on");
    assert_eq!(a.illegal_counts(), (1, 0));
    assert_eq!(a.clock().and_then(|c| c.running()), Some(Color::White));
    // The board waits for e2 again; then White moves.
    feed(&mut a, &[lift(5_000, Square::E6), place(5_100, Square::E2)]);
    let d = feed(&mut a, &play(6_000, Color::White, Square::E2, Square::E4));
    assert!(events(&d).contains(&"move"), "{d:?}");
    // Undone at once instead: lost again.
    let mut b = game(Some("5400+30"));
    feed(&mut b, &play(1_000, Color::White, Square::E2, Square::E5));
    feed(&mut b, &[lift(2_000, Square::E5), place(2_100, Square::E2)]);
    feed(&mut b, &play(3_000, Color::White, Square::E2, Square::E6));
    feed(
        &mut b,
        &[ruled(
            4_000,
            ArbiterAction::Withdraw(PenaltyRef::Answered),
            0,
            None,
        )],
    );
    assert!(b.outcome().is_none());
    let d = feed(&mut b, &[ruled(4_500, ArbiterAction::Undo(1), 0, None)]);
    assert_eq!(refused(&d), None, "{d:?}");
    assert!(b.outcome().is_some());
    assert_eq!(b.illegal_counts(), (2, 0));
}
