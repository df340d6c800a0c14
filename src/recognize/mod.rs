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
//!
//! The module's files: [`effect`] (what a move does to the squares),
//! `cache` ([`recognize`], answering the same reading once), `explain`
//! (which legal moves explain a reading) and `displaced` (a move beside
//! displaced pieces, any number of them, and the cheap test whether an explained move can
//! be on the board at all).
//!
//! Depends on `board` (the reading) and `legal` (the moves), the modules
//! below it in docs/dev/architecture.md's map. It must not depend on
//! `arbiter` (which asks it), `rules`, `trace` or anything above them: it
//! says which legal moves explain a reading, never what the Laws make of
//! it.

mod cache;
mod displaced;
mod effect;
mod explain;

pub use cache::recognize;
pub use displaced::{may_show_explained_move, nearest_with_displaced, readings_with_displaced};
pub use effect::{effect, Effect};

use shakmaty::{Bitboard, Chess, Move, Role};

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

#[cfg(test)]
mod tests;
