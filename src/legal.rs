//! The legal moves of a position, generated once for the several questions
//! asked of it (issue 28): after a move the end-of-game watch asks whether
//! the position is mate or stalemate, the dead-position check's proof
//! (`arbiter/alive.rs`) reads the moves, and the next move's recognition
//! tries them; each used to generate them anew.
//!
//! The last few positions asked about are kept with their moves (per
//! thread, shared by reference count); the answers are shakmaty's
//! `legal_moves`, in its order.
//!
//! Depends on nothing of the product (shakmaty only): it is at the bottom
//! of docs/dev/architecture.md's map. It must not depend on `board`,
//! `recognize`, `arbiter` (which ask it) or any other module.

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{Chess, Move, Position};
use std::cell::RefCell;
use std::rc::Rc;

/// How many positions are kept: the position after a move and the one
/// before it (a reading may show either), and one more.
const KEPT: usize = 3;

thread_local! {
    /// The positions asked about last, oldest first, with their moves.
    static LAST: RefCell<Vec<(Chess, Rc<[Move]>)>> = const { RefCell::new(Vec::new()) };
}

/// The legal moves of `pos`, as shakmaty's `legal_moves` gives them (same
/// moves, same order), generated once while `pos` is among the last
/// positions asked about. Kept as a slice of their own length (a
/// `MoveList` holds room for 256 moves, 2 KiB to copy).
pub fn legal_moves(pos: &Chess) -> Rc<[Move]> {
    let hit = LAST.with_borrow(|last| {
        last.iter()
            .find(|(p, _)| p == pos)
            .map(|(_, moves)| Rc::clone(moves))
    });
    if let Some(moves) = hit {
        return moves;
    }
    let moves: Rc<[Move]> = Rc::from(&pos.legal_moves()[..]);
    LAST.with_borrow_mut(|last| {
        if last.len() >= KEPT {
            last.rotate_left(1);
            last[KEPT - 1] = (pos.clone(), Rc::clone(&moves));
        } else {
            last.push((pos.clone(), Rc::clone(&moves)));
        }
    });
    moves
}

/// Whether the player on move is checkmated (shakmaty's `is_checkmate`).
pub fn is_checkmate(pos: &Chess) -> bool {
    pos.is_check() && legal_moves(pos).is_empty()
}

/// Whether the player on move is stalemated (shakmaty's `is_stalemate`
/// for standard chess).
pub fn is_stalemate(pos: &Chess) -> bool {
    !pos.is_check() && legal_moves(pos).is_empty()
}

/// The SAN of `m` with its check or mate suffix, playing `m` on `pos`:
/// shakmaty's `SanPlus::from_move_and_play_unchecked` (same text), whose
/// suffix generated every legal move of the position after every move to
/// tell mate (`Position::outcome`); here only a check is looked at further,
/// with the moves kept for the position (which the end-of-game watch asks
/// for next). `m` must be legal in `pos`.
pub fn san_plus_and_play(pos: &mut Chess, m: Move) -> SanPlus {
    let san = San::from_move(&*pos, m);
    pos.play_unchecked(m);
    // In standard chess the outcome is decisive only by checkmate.
    let suffix = if pos.is_check() {
        Some(if legal_moves(pos).is_empty() {
            Suffix::Checkmate
        } else {
            Suffix::Check
        })
    } else {
        None
    };
    SanPlus { san, suffix }
}

/// Whether `m` is among the legal moves of `pos`.
pub fn is_legal(pos: &Chess, m: &Move) -> bool {
    legal_moves(pos).contains(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    #[test]
    fn the_kept_moves_are_shakmatys_for_each_position() {
        // Positions asked in turn, again and out of order: every answer is
        // the position's own moves, never a neighbour's.
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
            "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 2",
        ];
        let positions: Vec<Chess> = fens
            .iter()
            .map(|f| {
                f.parse::<Fen>()
                    .unwrap()
                    .into_position(CastlingMode::Standard)
                    .unwrap()
            })
            .collect();
        for i in [0, 1, 2, 3, 0, 3, 1, 2, 2, 0] {
            let p = &positions[i];
            assert_eq!(*legal_moves(p), p.legal_moves()[..], "{}", fens[i]);
            assert_eq!(is_checkmate(p), p.is_checkmate(), "{}", fens[i]);
            assert_eq!(is_stalemate(p), p.is_stalemate(), "{}", fens[i]);
        }
        assert!(is_stalemate(&positions[1]) && is_checkmate(&positions[2]));
    }

    #[test]
    fn the_san_with_its_suffix_is_shakmatys() {
        // Every legal move of positions with quiet moves, checks, mates
        // (the suffix), castling, en passant and promotions.
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 2",
            "6k1/5ppp/8/8/8/8/1p3PPP/R5K1 b - - 0 1",
            "7k/1P4pp/8/8/8/8/6PP/R5K1 w - - 0 1",
        ];
        for f in fens {
            let p: Chess = f
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            for m in p.legal_moves() {
                let mut a = p.clone();
                let mut b = p.clone();
                let ours = san_plus_and_play(&mut a, m);
                let theirs = SanPlus::from_move_and_play_unchecked(&mut b, m);
                assert_eq!(ours.to_string(), theirs.to_string(), "{f} {m:?}");
                assert_eq!(a, b);
            }
        }
    }
}
