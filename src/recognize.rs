//! Move recognition: which legal move explains what the board shows.
//!
//! Recognition looks at the sensed state at the moment of decision (a clock
//! press, or a move that would end the game) and at the history since the
//! last completed move, never at intermediate states. A legal move explains
//! the board when the board shows the position after it (occupancy always;
//! colour and identity wherever sensed). Among the moves that do, the
//! history decides: every square the move empties (including a captured
//! piece's square) should have been lifted and every square it fills placed
//! on; then the move whose destination received the latest placement wins
//! (the mover is set down last). Promotion pieces come from identity
//! sensing, else from a `promote` choice, else a queen is assumed.

use crate::board::{ReadingKey, SensedBoard};
use shakmaty::{Bitboard, Chess, Color, Move, Piece, Position, Role, Square};
use std::cell::RefCell;

/// The outcome of recognition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recognition {
    /// The board shows the position: nothing was moved (pieces may have been
    /// lifted and put back).
    NoMove,
    /// A legal move explains the board.
    Move {
        /// The move.
        mv: Move,
        /// True when it is a promotion whose piece was neither sensed nor
        /// chosen, so a queen was assumed.
        promotion_assumed: bool,
        /// Squares the move changes that the history does not show handled
        /// (0 for a fully explained move).
        missing: u32,
        /// Other legal moves that explain the board exactly as well (same
        /// `missing`, same latest placement on the destination): the board
        /// does not tell them from `mv`, which is only the first in
        /// move-generation order. Empty when the reading is unique.
        tied: Vec<Move>,
    },
    /// No legal move explains the board.
    NoLegalMove {
        /// Squares where the board differs from the position to reinstate.
        differs: Bitboard,
    },
}

/// What a move does to the squares: the squares it empties and the pieces it puts down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effect {
    /// Squares left empty or whose piece leaves (from, captured piece's square).
    pub vacated: Bitboard,
    /// Squares that must have been cleared before the move was made (capture target).
    pub cleared: Bitboard,
    /// Up to two placements: (square, piece).
    pub filled: [Option<(Square, Piece)>; 2],
}

/// The physical effect of `mv` for `side`.
pub fn effect(mv: &Move, side: Color) -> Effect {
    match *mv {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => Effect {
            vacated: Bitboard::from(from),
            cleared: if capture.is_some() {
                Bitboard::from(to)
            } else {
                Bitboard::EMPTY
            },
            filled: [
                Some((
                    to,
                    Piece {
                        color: side,
                        role: promotion.unwrap_or(role),
                    },
                )),
                None,
            ],
        },
        Move::EnPassant { from, to } => {
            let captured = Square::from_coords(to.file(), from.rank());
            Effect {
                vacated: Bitboard::from(from) | Bitboard::from(captured),
                cleared: Bitboard::from(captured),
                filled: [
                    Some((
                        to,
                        Piece {
                            color: side,
                            role: Role::Pawn,
                        },
                    )),
                    None,
                ],
            }
        }
        Move::Castle { king, rook } => {
            let side_ = if rook.file() > king.file() {
                shakmaty::CastlingSide::KingSide
            } else {
                shakmaty::CastlingSide::QueenSide
            };
            let k_to = Square::from_coords(side_.king_to_file(), king.rank());
            let r_to = Square::from_coords(side_.rook_to_file(), king.rank());
            Effect {
                vacated: Bitboard::from(king) | Bitboard::from(rook),
                cleared: Bitboard::EMPTY,
                filled: [
                    Some((
                        k_to,
                        Piece {
                            color: side,
                            role: Role::King,
                        },
                    )),
                    Some((
                        r_to,
                        Piece {
                            color: side,
                            role: Role::Rook,
                        },
                    )),
                ],
            }
        }
        Move::Put { to, role } => Effect {
            vacated: Bitboard::EMPTY,
            cleared: Bitboard::EMPTY,
            filled: [Some((to, Piece { color: side, role })), None],
        },
    }
}

/// The legal moves of `pos`, never a capture of the king: after an illegal
/// move that stood where only a claim counts (2009 A4c / B3c, 2001 C3) the
/// game goes on from a position whose side not on move may be in check,
/// and "capturing" the opponent's king is no move (2023 1.4.1; 2009 §3.9:
/// the king is attacked, never taken).
fn legal_moves(pos: &Chess) -> impl Iterator<Item = Move> {
    // Generated once per position (`crate::legal`, issue 28).
    let moves = crate::legal::legal_moves(pos);
    (0..moves.len())
        .map(move |i| moves[i])
        .filter(|m| m.capture() != Some(Role::King))
}

/// Recognises the move the board shows in `pos`. `promote` is a promotion
/// choice given outside the board since the last completed move.
///
/// The board is read several times at one reading (the end-of-game watch
/// after the last placement, then the press and its tie check): the last
/// answers are kept, keyed by everything recognition looks at
/// ([`SensedBoard::reading_key`], the position, `promote`), so the same
/// question is answered once (issue 28).
pub fn recognize(pos: &Chess, sensed: &SensedBoard, promote: Option<Role>) -> Recognition {
    let board = pos.board();
    if sensed.matches(board) {
        return Recognition::NoMove;
    }
    // The stamp first: the same stamp is the same reading without
    // comparing the readings themselves (issue 28).
    let stamp = sensed.stamp();
    let mut key = None;
    let hit = LAST.with_borrow(|seen| {
        seen.iter()
            .find(|a| {
                a.promote == promote
                    && (a.stamp == stamp
                        || a.key == *key.get_or_insert_with(|| sensed.reading_key()))
                    && a.pos == *pos
            })
            .map(|a| a.answer.clone())
    });
    if let Some(r) = hit {
        return r;
    }
    let r = recognize_anew(pos, sensed, promote);
    let answered = Answered {
        stamp,
        key: key.unwrap_or_else(|| sensed.reading_key()),
        pos: pos.clone(),
        promote,
        answer: r.clone(),
    };
    LAST.with_borrow_mut(|seen| {
        if seen.len() >= 2 {
            seen.swap(0, 1);
            seen[1] = answered;
        } else {
            seen.push(answered);
        }
    });
    r
}

/// A reading already answered.
struct Answered {
    /// The board's [`SensedBoard::stamp`] then.
    stamp: u64,
    /// The reading.
    key: ReadingKey,
    /// The position.
    pos: Chess,
    /// The promotion choice.
    promote: Option<Role>,
    /// The answer.
    answer: Recognition,
}

thread_local! {
    /// The last readings [`recognize`] answered.
    static LAST: RefCell<Vec<Answered>> = const { RefCell::new(Vec::new()) };
}

fn recognize_anew(pos: &Chess, sensed: &SensedBoard, promote: Option<Role>) -> Recognition {
    let board = pos.board();
    let side = pos.turn();
    let occ = board.occupied();
    let target = sensed.occupied();
    // A move that is not castling empties its from square (from ≠ to), so
    // only moves from a square that now reads empty can fit the board
    // (castling is left to the full test: in Chess960 the king may stay).
    let emptied = occ & !target;
    let (known, white) = sensed.colors();
    let lifted = sensed.lifted();
    let placed = sensed.placed();
    // The best candidate so far: ((missing, -last placement on
    // destination), move, promotion assumed), and the later candidates
    // with the same key, in move-generation order.
    let mut best: Option<((u32, i64), Move, bool)> = None;
    let mut tied: Vec<Move> = Vec::new();
    for mv in legal_moves(pos) {
        if let Some(from) = mv.from() {
            if !mv.is_castle() && !emptied.contains(from) {
                continue;
            }
        }
        let e = effect(&mv, side);
        let mut filled_sq = Bitboard::EMPTY;
        let mut filled_white = Bitboard::EMPTY;
        for (sq, p) in e.filled.iter().flatten() {
            filled_sq.add(*sq);
            if p.color == Color::White {
                filled_white.add(*sq);
            }
        }
        let occ_after = (occ & !e.vacated) | filled_sq;
        if occ_after != target {
            continue;
        }
        let white_after = (board.white() & !e.vacated & !filled_sq) | filled_white;
        if !(known & (white ^ white_after)).is_empty() {
            continue;
        }
        // Identity: every sensed piece on a square the history touched must agree.
        let mut ok = true;
        for sq in (placed & target).into_iter() {
            if let Some(p) = sensed.piece_at(sq) {
                let expected = e
                    .filled
                    .iter()
                    .flatten()
                    .find(|(s, _)| *s == sq)
                    .map(|(_, p)| *p)
                    .or_else(|| board.piece_at(sq));
                if expected != Some(p) {
                    ok = false;
                    break;
                }
            }
        }
        if !ok {
            continue;
        }
        let mut assumed = false;
        if let Some(role) = mv.promotion() {
            let to = mv.to();
            if sensed.piece_at(to).is_none() {
                match promote {
                    Some(choice) if choice != role => continue,
                    Some(_) => {}
                    None if role != Role::Queen => continue,
                    None => assumed = true,
                }
            }
        }
        let need_lift = e.vacated | e.cleared;
        let missing = (need_lift & !lifted).count() + (filled_sq & !placed).count();
        let dest = e.filled[0].map_or(mv.to(), |(s, _)| s);
        let key = (missing as u32, -(sensed.last_place_seq(dest) as i64));
        // The best key; among equals, the first in move-generation order,
        // the others reported as tied (never chosen silently by the caller).
        match &best {
            Some((k, _, _)) if key > *k => {}
            Some((k, _, _)) if key == *k => tied.push(mv),
            _ => {
                best = Some((key, mv, assumed));
                tied.clear();
            }
        }
    }
    match best {
        Some(((missing, _), mv, promotion_assumed)) => Recognition::Move {
            mv,
            promotion_assumed,
            missing,
            tied,
        },
        None => Recognition::NoLegalMove {
            differs: sensed.differences(board),
        },
    }
}

/// Whether the board can show a move that is fully explained by the
/// history (`missing` 0): every square that now reads empty was lifted,
/// every square that now reads occupied was placed on, and something was
/// placed. A necessary condition only, without generating moves: when it
/// fails, [`recognize`] cannot answer a move with `missing` 0.
pub fn may_show_explained_move(pos: &Chess, sensed: &SensedBoard) -> bool {
    let occ = pos.board().occupied();
    let target = sensed.occupied();
    let placed = sensed.placed();
    !placed.is_empty()
        && (occ & !target & !sensed.lifted()).is_empty()
        && (target & !occ & !placed).is_empty()
}

/// The legal move the board shows apart from a few displaced pieces (§7.3,
/// §7.5): squares away from the move that changed on the board. Returns the
/// move and those squares, when at most `max_displaced` squares differ and
/// the move itself is fully explained by the history.
pub fn nearest_with_displaced(
    pos: &Chess,
    sensed: &SensedBoard,
    promote: Option<Role>,
    max_displaced: u32,
) -> Option<(Move, Bitboard)> {
    let side = pos.turn();
    let board = pos.board();
    let touched = sensed.lifted() | sensed.placed();
    let mut best: Option<(u32, Move, Bitboard)> = None;
    for mv in legal_moves(pos) {
        if let Some(role) = mv.promotion() {
            if role != promote.unwrap_or(Role::Queen) {
                continue;
            }
        }
        let e = effect(&mv, side);
        let mut filled = Bitboard::EMPTY;
        for (sq, _) in e.filled.iter().flatten() {
            filled.add(*sq);
        }
        let move_squares = e.vacated | e.cleared | filled;
        let expected = (board.occupied() & !e.vacated) | filled;
        let extra = expected ^ sensed.occupied();
        let n = extra.count() as u32;
        let evidenced = ((e.vacated | e.cleared) & !sensed.lifted()).is_empty()
            && (filled & !sensed.placed()).is_empty();
        if n == 0
            || n > max_displaced
            || !(extra & move_squares).is_empty()
            || !(extra & !touched).is_empty()
            || !evidenced
        {
            continue;
        }
        if best.as_ref().is_none_or(|(b, _, _)| n < *b) {
            best = Some((n, mv, extra));
        }
    }
    best.map(|(_, m, x)| (m, x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Change;
    use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, EnPassantMode};

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
}
