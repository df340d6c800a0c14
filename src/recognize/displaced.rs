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

/// The legal move the board shows apart from displaced pieces (§7.3,
/// 2023 7.4.1), when at most `max_displaced` squares away from it differ:
/// the first of [`readings_with_displaced`] with the fewest such squares.
pub fn nearest_with_displaced(
    pos: &Chess,
    sensed: &SensedBoard,
    promote: Option<Role>,
    max_displaced: u32,
) -> Option<(Move, Bitboard)> {
    readings_with_displaced(pos, sensed, promote)
        .into_iter()
        .next()
        .filter(|(_, extra)| extra.count() as u32 <= max_displaced)
}

/// Every legal move the board shows apart from displaced pieces (§7.3 /
/// 2009 §7.3, 2023 7.4.1: pieces knocked over or displaced, whatever their
/// number): the squares the move itself empties and fills read as the move
/// leaves them and the history evidences them (lifted, placed on), and the
/// squares away from it that differ from the position after it (the
/// displaced ones) were each lifted or placed on since the last completed
/// move. Returned with those squares, fewest first (move-generation order
/// among equals); empty when no legal move explains the rest.
///
/// One pass over the legal moves, each compared with the board by a few
/// bitboard operations (the position after the move against the sensed
/// occupancy, the differing squares counted): linear in the legal moves,
/// never in the subsets of displaced squares (docs/dev/performance.md).
pub fn readings_with_displaced(
    pos: &Chess,
    sensed: &SensedBoard,
    promote: Option<Role>,
) -> Vec<(Move, Bitboard)> {
    let side = pos.turn();
    let board = pos.board();
    let touched = sensed.lifted() | sensed.placed();
    let mut found: Vec<(Move, Bitboard)> = Vec::new();
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
        let evidenced = ((e.vacated | e.cleared) & !sensed.lifted()).is_empty()
            && (filled & !sensed.placed()).is_empty();
        if extra.is_empty()
            || !(extra & move_squares).is_empty()
            || !(extra & !touched).is_empty()
            || !evidenced
        {
            continue;
        }
        found.push((mv, extra));
    }
    // Stable: move-generation order among readings with as many squares.
    found.sort_by_key(|(_, extra)| extra.count());
    found
}
