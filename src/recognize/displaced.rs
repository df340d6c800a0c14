//! Readings beside the exact ones: whether the board can show a move the
//! history fully explains at all (a test without move generation), and
//! the legal move the board shows apart from a few displaced pieces
//! (§7.3, §7.5).

use super::{effect, legal_moves};
use crate::board::SensedBoard;
use shakmaty::{Bitboard, Chess, Move, Position, Role};

/// Whether the board can show a move that is fully explained by the
/// history (`missing` 0): every square that now reads empty was lifted,
/// every square that now reads occupied was placed on, and something was
/// placed. A necessary condition only, without generating moves: when it
/// fails, [`super::recognize`] cannot answer a move with `missing` 0.
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
