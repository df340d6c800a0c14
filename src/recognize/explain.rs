//! Which legal move explains a reading: the position after it must be
//! what the board shows (occupancy, colour and identity wherever sensed);
//! among those, the history decides (the squares lifted and placed on, the
//! latest placement on the destination), and moves that the board cannot
//! tell apart are reported as tied.

use super::{effect, legal_moves, Recognition};
use crate::board::SensedBoard;
use shakmaty::{Bitboard, Chess, Color, Move, Position, Role};

/// Answers [`super::recognize`]'s question without its cache.
pub(super) fn recognize_anew(
    pos: &Chess,
    sensed: &SensedBoard,
    promote: Option<Role>,
) -> Recognition {
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
