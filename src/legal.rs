//! The legal moves of a position, generated once for the several questions
//! asked of it (issue 28): after a move the end-of-game watch asks whether
//! the position is mate or stalemate, the dead-position check's proof
//! (`arbiter/alive.rs`) reads the moves, and the next move's recognition
//! tries them; each used to generate them anew.
//!
//! The last few positions asked about are kept with their moves (per
//! thread, shared by reference count); the answers are shakmaty's
//! `legal_moves`, in its order.

use shakmaty::{Chess, Move, MoveList, Position};
use std::cell::RefCell;
use std::rc::Rc;

/// How many positions are kept: the position after a move and the one
/// before it (a reading may show either), and one more.
const KEPT: usize = 3;

thread_local! {
    /// The positions asked about last, oldest first, with their moves.
    static LAST: RefCell<Vec<(Chess, Rc<MoveList>)>> = const { RefCell::new(Vec::new()) };
}

/// The legal moves of `pos`, as shakmaty's `legal_moves` gives them (same
/// moves, same order), generated once while `pos` is among the last
/// positions asked about.
pub fn legal_moves(pos: &Chess) -> Rc<MoveList> {
    let hit = LAST.with_borrow(|last| {
        last.iter()
            .find(|(p, _)| p == pos)
            .map(|(_, moves)| Rc::clone(moves))
    });
    if let Some(moves) = hit {
        return moves;
    }
    let moves = Rc::new(pos.legal_moves());
    LAST.with_borrow_mut(|last| {
        if last.len() >= KEPT {
            last.remove(0);
        }
        last.push((pos.clone(), Rc::clone(&moves)));
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
            assert_eq!(*legal_moves(p), p.legal_moves(), "{}", fens[i]);
            assert_eq!(is_checkmate(p), p.is_checkmate(), "{}", fens[i]);
            assert_eq!(is_stalemate(p), p.is_stalemate(), "{}", fens[i]);
        }
        assert!(is_stalemate(&positions[1]) && is_checkmate(&positions[2]));
    }
}
