//! What a move does to the squares of the board: the squares it empties,
//! the square a capture must have cleared first and the pieces it puts
//! down (castling puts down two).

use shakmaty::{Bitboard, Color, Move, Piece, Role, Square};

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
