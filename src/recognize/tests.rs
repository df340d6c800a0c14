use super::*;
use crate::board::{Change, SensedBoard};
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, EnPassantMode};
use shakmaty::{Chess, Color, Piece, Position, Role, Square};

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn run(fen: &str, steps: &[&str], promote: Option<Role>) -> Recognition {
    let p = pos(fen);
    let mut b = SensedBoard::new(p.board());
    for (t, s) in steps.iter().enumerate() {
        let ch = if let Some(x) = s.strip_prefix('-') {
            Change::Lift(sq(x))
        } else if let Some((x, piece)) = s.split_once('=') {
            let pc = Piece::from_char(piece.chars().next().unwrap()).unwrap();
            Change::Place(sq(x), Some(pc.color), Some(pc))
        } else if let Some((x, c)) = s.split_once('@') {
            Change::Place(
                sq(x),
                Some(if c == "w" { Color::White } else { Color::Black }),
                None,
            )
        } else {
            Change::Place(sq(&s[1..]), None, None)
        };
        b.apply(ch, t as u64 * 100);
    }
    recognize(&p, &b, promote)
}

fn uci(r: &Recognition) -> String {
    match r {
        Recognition::Move { mv, .. } => UciMove::from_standard(*mv).to_string(),
        other => format!("{other:?}"),
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn quiet_move_and_slide_and_set_down_on_the_way() {
    assert_eq!(uci(&run(START, &["-e2", "+e4"], None)), "e2e4");
    assert_eq!(
        uci(&run(START, &["-e2", "+e3", "-e3", "+e4"], None)),
        "e2e4"
    );
    let p = "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR w KQkq - 0 1";
    assert_eq!(
        uci(&run(
            p,
            &["-f1", "+e2", "-e2", "+d3", "-d3", "+c4", "-c4", "+b5"],
            None
        )),
        "f1b5"
    );
    assert_eq!(run(START, &["-e2", "+e2"], None), Recognition::NoMove);
}

#[test]
fn captures_in_both_orders_choose_the_captured_square() {
    // Knight on f3 can take e5 or d4.
    let p = "4k3/8/8/4p3/3p4/5N2/8/4K3 w - - 0 1";
    assert_eq!(uci(&run(p, &["-e5", "-f3", "+e5"], None)), "f3e5");
    assert_eq!(uci(&run(p, &["-f3", "-d4", "+d4"], None)), "f3d4");
    // Occupancy alone cannot tell them apart at the end; the history does,
    // even when the other target was picked up and put back first.
    assert_eq!(
        uci(&run(p, &["-f3", "-d4", "+d4", "-e5", "+e5"], None)),
        "f3e5"
    );
}

#[test]
fn en_passant_either_pawn_first() {
    let p = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
    assert_eq!(uci(&run(p, &["-d5", "-e5", "+d6"], None)), "e5d6");
    assert_eq!(uci(&run(p, &["-e5", "+d6", "-d5"], None)), "e5d6");
}

#[test]
fn castling_king_first_and_rook_first() {
    let p = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    assert_eq!(uci(&run(p, &["-e1", "+g1", "-h1", "+f1"], None)), "e1g1");
    assert_eq!(uci(&run(p, &["-h1", "+f1", "-e1", "+g1"], None)), "e1g1");
    assert_eq!(
        uci(&run(p, &["-e1", "+f1", "-f1", "+c1", "-a1", "+d1"], None)),
        "e1c1"
    );
}

#[test]
fn promotion_sources() {
    let p = "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1";
    let r = run(p, &["-a7", "+a8", "-a8", "+a8"], None);
    assert!(matches!(
        r,
        Recognition::Move {
            promotion_assumed: true,
            ..
        }
    ));
    assert_eq!(uci(&r), "a7a8q");
    assert_eq!(uci(&run(p, &["-a7", "+a8"], Some(Role::Knight))), "a7a8n");
    assert_eq!(uci(&run(p, &["-a7", "a8=R"], None)), "a7a8r");
    // Identity shows the pawn still on a8: incomplete promotion.
    assert!(matches!(
        run(p, &["-a7", "a8=P"], None),
        Recognition::NoLegalMove { .. }
    ));
    // Capture-promotion with the new piece placed directly.
    assert_eq!(uci(&run(p, &["-b8", "-a7", "b8=N"], None)), "a7b8n");
}

#[test]
fn colour_resolves_what_occupancy_cannot() {
    let p = "4k3/8/8/8/8/8/8/R3K2R w - - 0 1";
    assert_eq!(uci(&run(p, &["-a1", "a4@w"], None)), "a1a4");
    // A black piece appearing is no legal white move.
    assert!(matches!(
        run(p, &["-a1", "a4@b"], None),
        Recognition::NoLegalMove { .. }
    ));
}

#[test]
fn a_knocked_over_piece_beside_a_legal_move() {
    let p = pos(START);
    let mut b = SensedBoard::new(p.board());
    b.apply(Change::Lift(sq("e2")), 0);
    b.apply(Change::Place(sq("e4"), None, None), 100);
    b.apply(Change::Lift(sq("a8")), 200);
    assert!(matches!(
        recognize(&p, &b, None),
        Recognition::NoLegalMove { .. }
    ));
    let (m, extra) = nearest_with_displaced(&p, &b, None, 2).unwrap();
    assert_eq!(UciMove::from_standard(m).to_string(), "e2e4");
    assert_eq!(extra, Bitboard::from(sq("a8")));
    // An illegal move is not a legal move with displaced pieces.
    let mut b = SensedBoard::new(p.board());
    b.apply(Change::Lift(sq("g1")), 0);
    b.apply(Change::Place(sq("g3"), None, None), 100);
    assert!(nearest_with_displaced(&p, &b, None, 2).is_none());
}

fn tied(r: &Recognition) -> Vec<String> {
    match r {
        Recognition::Move { mv, tied, .. } => {
            let mut v: Vec<String> = std::iter::once(mv)
                .chain(tied)
                .map(|m| UciMove::from_standard(*m).to_string())
                .collect();
            v.sort();
            v
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_capture_whose_target_never_read_empty_is_a_tie() {
    // Knight on f3 can take e5 or d4; the slow scan saw only f3 empty.
    let p = "4k3/8/8/4p3/3p4/5N2/8/4K3 w - - 0 1";
    assert_eq!(tied(&run(p, &["-f3"], None)), ["f3d4", "f3e5"]);
    // Three targets, three readings.
    let p = "4k3/8/8/4p1p1/3p4/5N2/8/4K3 w - - 0 1";
    assert_eq!(tied(&run(p, &["-f3"], None)), ["f3d4", "f3e5", "f3g5"]);
    // The history that tells them apart leaves no tie.
    for steps in [
        &["-e5", "-f3", "+e5"][..],
        &["-f3", "-d4", "+d4"],
        &["-f3", "-d4", "+d4", "-e5", "+e5"],
    ] {
        match run("4k3/8/8/4p3/3p4/5N2/8/4K3 w - - 0 1", steps, None) {
            Recognition::Move { tied, .. } => assert!(tied.is_empty(), "{steps:?}"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_tie_needs_the_same_evidence_not_only_the_same_occupancy() {
    // Occupancy fits both captures, but e5 was lifted and placed on:
    // Nxe5 is fully explained, no tie.
    let p = "4k3/8/8/4p3/3p4/5N2/8/4K3 w - - 0 1";
    match run(p, &["-f3", "-e5", "+e5"], None) {
        Recognition::Move {
            mv, tied, missing, ..
        } => {
            assert_eq!(UciMove::from_standard(mv).to_string(), "f3e5");
            assert_eq!(missing, 0);
            assert!(tied.is_empty());
        }
        other => panic!("{other:?}"),
    }
    // A quiet move is never tied.
    match run(START, &["-e2", "+e4"], None) {
        Recognition::Move { tied, .. } => assert!(tied.is_empty()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn illegal_move_names_the_squares() {
    match run(START, &["-e2", "+e5"], None) {
        Recognition::NoLegalMove { differs } => {
            assert_eq!(differs, Bitboard::from(sq("e2")) | Bitboard::from(sq("e5")))
        }
        other => panic!("{other:?}"),
    }
    let _ = EnPassantMode::Legal;
}
