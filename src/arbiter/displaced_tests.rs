//! Issue 40 §3: pieces knocked over and set back, whatever their number,
//! beside a legal move (2023 7.4.1, 2009 §7.3): the move stands with a
//! `displaced` notice, never an illegal move (7.5.1); a board read two
//! ways with as many pieces displaced is held and put to the arbiter
//! with both readings named. On a real game: Mottola – Cardoso Cardoso,
//! 18th Philadelphia Int 2025, round 2.4 (TWIC 1599), up to 18.Nd5.

use super::*;
use shakmaty::uci::UciMove;

/// Mottola – Cardoso Cardoso, Philadelphia 2025: the first 34 plies, to
/// White's 18th move (18.Nd5 in the game).
const GAME: &str = "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 b8c6 c1g5 e7e6 \
                    f1b5 c8d7 d1d3 h7h6 g5h4 f8e7 e1c1 d8c7 f2f4 a7a6 b5c6 d7c6 \
                    f4f5 e6e5 h4f6 g7f6 d4e2 a8c8 c1b1 b7b5 e2g3 b5b4";

/// The records of one move by hand (a capture: the captured piece first)
/// and its press, from `t` on (ms, one apart).
pub(super) fn by_hand(pos: &Chess, uci: &str, t: u64) -> Vec<Record> {
    let mv = uci
        .parse::<UciMove>()
        .expect("uci")
        .to_move(pos)
        .expect("legal");
    let side = pos.turn();
    let mut changes: Vec<Record> = Vec::new();
    let mut n = t;
    let mut next = || {
        n += 1;
        n
    };
    match mv {
        Move::Normal {
            from, to, capture, ..
        } => {
            if capture.is_some() {
                changes.push(lift(next(), to));
            }
            changes.push(lift(next(), from));
            changes.push(place(next(), to));
        }
        Move::EnPassant { from, to } => {
            changes.push(lift(next(), Square::from_coords(to.file(), from.rank())));
            changes.push(lift(next(), from));
            changes.push(place(next(), to));
        }
        Move::Castle { king, rook } => {
            let cs = if rook.file() > king.file() {
                shakmaty::CastlingSide::KingSide
            } else {
                shakmaty::CastlingSide::QueenSide
            };
            changes.push(lift(next(), king));
            changes.push(place(
                next(),
                Square::from_coords(cs.king_to_file(), king.rank()),
            ));
            changes.push(lift(next(), rook));
            changes.push(place(
                next(),
                Square::from_coords(cs.rook_to_file(), king.rank()),
            ));
        }
        Move::Put { .. } => unreachable!("no drops in chess"),
    }
    changes.push(press(next(), side));
    changes
}

/// The game `GAME` played by hand under `5400+30`, one move a second.
pub(super) fn the_game() -> Arbiter {
    let mut a = game(Some("5400+30"));
    for (i, u) in GAME.split_whitespace().enumerate() {
        let recs = by_hand(a.position(), u, 1_000 * (i as u64 + 1));
        let d = feed(&mut a, &recs);
        assert!(
            events(&d).contains(&"move"),
            "ply {}: {u}: {:?}",
            i + 1,
            events(&d)
        );
    }
    assert_eq!(a.ply(), 34);
    a
}

fn irregularity_squares(d: &[Decision]) -> Option<Vec<String>> {
    d.iter().find_map(|d| match d {
        Decision::Event(Event {
            kind:
                EventKind::Irregularity {
                    kind: crate::model::IrregularityKind::Displaced,
                    squares,
                    article,
                },
            ..
        }) => {
            assert_eq!(*article, "7.4.1");
            Some(squares.clone())
        }
        _ => None,
    })
}

/// 18.Nd5 completed legally, `knocked` knocked off their squares at the
/// press and set back 8 s later: the move stands with a `displaced`
/// notice, no penalty, no count; Black's clock runs from the press.
fn knocked_over_at_the_press(knocked: &[Square]) {
    let mut a = the_game();
    let t = 40_000;
    let (w0, b0) = a.clock().expect("clock").remaining_at(t);
    let mut recs = vec![lift(t, Square::C3), place(t + 300, Square::D5)];
    for (i, sq) in knocked.iter().enumerate() {
        recs.push(lift(t + 600 + i as u64, *sq));
    }
    recs.push(press(t + 700, Color::White));
    let d = feed(&mut a, &recs);
    let ev = events(&d);
    assert!(!ev.contains(&"illegal_move"), "{ev:?}");
    assert!(ev.contains(&"move"), "{ev:?}");
    // Named a1 first, as every list of squares.
    let mut sorted = knocked.to_vec();
    sorted.sort();
    let want: Vec<String> = sorted.iter().map(|s| s.to_string()).collect();
    assert_eq!(irregularity_squares(&d), Some(want), "{d:?}");
    assert_eq!(a.moves().last().map(|m| m.san.as_str()), Some("Nd5"));
    assert_eq!(a.illegal_counts(), (0, 0));
    let c = a.clock().expect("clock");
    assert_eq!(c.running(), Some(Color::Black));
    // White: the time of his move used, his 30 s added; Black untouched.
    let (w, b) = c.remaining_at(t + 700);
    assert_eq!(w, w0 - 700 + 30_000);
    assert_eq!(b, b0);
    // Set back 8 s later: the position is restored, play goes on.
    let back: Vec<Record> = knocked
        .iter()
        .enumerate()
        .map(|(i, sq)| place(t + 8_700 + i as u64, *sq))
        .collect();
    let d = feed(&mut a, &back);
    assert!(events(&d).contains(&"position_restored"), "{d:?}");
    assert_eq!(a.phase(), &Phase::Playing);
    assert!(a.open().is_empty(), "{:?}", a.open());
    // Black's clock ran on normally meanwhile.
    let (_, b) = a.clock().expect("clock").remaining_at(t + 10_700);
    assert_eq!(b, b0 - 10_000);
    // And Black replies from the position after Nd5 (18...Bxd5 in the game).
    let recs = by_hand(a.position(), "c6d5", 50_000);
    let d = feed(&mut a, &recs);
    assert!(events(&d).contains(&"move"), "{d:?}");
    assert_eq!(a.ply(), 36);
}

#[test]
fn three_pieces_knocked_over_at_the_press_are_displaced_not_an_illegal_move() {
    knocked_over_at_the_press(&[Square::G3, Square::G2, Square::H2]);
}

#[test]
fn five_pieces_knocked_over_at_the_press_are_displaced_not_an_illegal_move() {
    knocked_over_at_the_press(&[Square::G3, Square::G2, Square::H2, Square::H1, Square::F7]);
}

#[test]
fn knocked_over_and_set_back_before_the_press_is_the_move() {
    let mut a = the_game();
    let t = 40_000;
    let mut recs = vec![lift(t, Square::C3), place(t + 300, Square::D5)];
    for (i, sq) in [Square::G3, Square::G2, Square::H2].iter().enumerate() {
        recs.push(lift(t + 600 + i as u64, *sq));
        recs.push(place(t + 2_600 + i as u64, *sq));
    }
    recs.push(press(t + 3_000, Color::White));
    let d = feed(&mut a, &recs);
    assert!(!events(&d).contains(&"illegal_move"), "{d:?}");
    assert_eq!(a.moves().last().map(|m| m.san.as_str()), Some("Nd5"));
    assert_eq!(a.illegal_counts(), (0, 0));
}

/// The queen on d3 knocked over with two more pieces as the knight lands
/// on d5: the board reads Nc3-d5 (d3 displaced) as well as Qd3-d5 (c3
/// displaced). Held, both readings put to the arbiter with their
/// squares; no penalty, no guess. His `choose` decides.
#[test]
fn a_board_read_two_ways_with_as_many_displaced_pieces_is_held_for_the_arbiter() {
    let mut a = the_game();
    let t = 40_000;
    let recs = vec![
        lift(t, Square::C3),
        place(t + 300, Square::D5),
        lift(t + 600, Square::D3),
        lift(t + 601, Square::G2),
        lift(t + 602, Square::H2),
        press(t + 700, Color::White),
    ];
    let d = feed(&mut a, &recs);
    let ev = events(&d);
    assert!(!ev.contains(&"illegal_move"), "{ev:?}");
    assert!(!ev.contains(&"move"), "no reading taken on a guess: {ev:?}");
    assert!(a.ambiguity_held());
    let cands = d
        .iter()
        .find_map(|d| match d {
            Decision::Event(Event {
                kind: EventKind::AmbiguousMove { candidates, .. },
                ..
            }) => Some(candidates.clone()),
            _ => None,
        })
        .expect("ambiguous_move alert at once");
    let named: Vec<(String, String, Vec<String>)> = cands
        .into_iter()
        .map(|c| (c.uci, c.san, c.displaced))
        .collect();
    assert_eq!(named.len(), 2, "{named:?}");
    assert!(named.contains(&(
        "c3d5".into(),
        "Nd5".into(),
        vec!["g2".into(), "h2".into(), "d3".into()]
    )));
    assert!(
        named.contains(&(
            "d3d5".into(),
            "Qd5".into(),
            vec!["g2".into(), "h2".into(), "c3".into()]
        )),
        "{named:?}"
    );
    assert_eq!(a.illegal_counts(), (0, 0));
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "ambiguous_move")
        .expect("open");
    assert_eq!(m.rulings.len(), 2, "{m:?}");
    assert!(
        m.rulings.iter().any(|r| r.effect.contains("g2 h2 d3")),
        "{m:?}"
    );
    // The arbiter saw the knight played: Nd5 stands, the three to put back.
    let d = feed(
        &mut a,
        &[rec(
            45_000,
            RecordKind::Arbiter {
                action: ArbiterAction::Choose("c3d5".into()),
                author: Some("IA Hansen".into()),
                expect: None,
                reason: None,
            },
        )],
    );
    assert!(events(&d).contains(&"move"), "{d:?}");
    assert!(!a.ambiguity_held());
    assert_eq!(a.moves().last().map(|m| m.san.as_str()), Some("Nd5"));
    assert_eq!(a.illegal_counts(), (0, 0));
    let d = feed(
        &mut a,
        &[
            place(46_000, Square::D3),
            place(46_001, Square::G2),
            place(46_002, Square::H2),
        ],
    );
    assert!(events(&d).contains(&"position_restored"), "{d:?}");
}

#[path = "withdraw_tests.rs"]
mod withdraw_tests;
