//! A capture the frames never saw (issue 25): on a board read from
//! occupancy frames (`frame` records, `../shared/spec/trace-format.md`),
//! a piece set down on a square whose captured piece was taken off inside
//! one scan leaves that square occupied in every frame: only the capturing
//! piece's own square is seen emptying. With `lift` / `place` records each
//! change is seen, so this reading is for frames only.
//!
//! *Reading chosen* (docs/profiles.md, "A touch seen only through frames"):
//! a piece of the mover's lifted in a frame and seen set down nowhere for
//! the release time (2 s: a move made and released, 2009 §4.6 / 2023 4.7),
//! while an opponent's piece it can legally capture stands on a square
//! that then empties, was set down there: the move stood made, and the
//! lift of that square is of the mover's piece, not of the piece the last
//! completed position has there. So the `touch` names the piece actually
//! lifted (the knight that took on e5, not the pawn it took), and the lift
//! begins the opponent's reply as for a placement seen (`hand.rs`).

use super::Arbiter;
use shakmaty::{Bitboard, Position, Square};

impl Arbiter {
    /// Notes a frame's lift of the mover's own piece on `sq` at `t`, ms
    /// (when the frames saw it go).
    pub(super) fn note_frame_lift(&mut self, sq: Square, t: u64) {
        if self.pos.board().color_at(sq) == Some(self.pos.turn())
            && !self.turn.frame_lifts.iter().any(|(s, _)| *s == sq)
        {
            self.turn.frame_lifts.push((sq, t));
        }
    }

    /// Before a frame's lift of `sq` at `t` is followed: if the mover's
    /// piece, lifted unseen-placed for the release time, can have captured
    /// on `sq`, its placement there is taken as made at its own lift
    /// (`Turn::placed`), so the lift of `sq` is read as the lift of that
    /// piece.
    pub(super) fn place_unseen_capture(&mut self, sq: Square, t: u64) {
        let side = self.pos.turn();
        if self.pos.board().color_at(sq) != Some(!side)
            || self.turn.placed.iter().any(|p| p.1 == sq)
        {
            return;
        }
        let occupied = self.boards[self.mi()].sensed.occupied();
        let release = self.cfg.release_ms;
        let legal = crate::legal::legal_moves(&self.pos);
        let found = self.turn.hand.iter().copied().find(|from| {
            let lifted = self
                .turn
                .frame_lifts
                .iter()
                .find(|(s, _)| s == from)
                .map(|(_, at)| *at);
            lifted.is_some_and(|at| at + release <= t)
                && !occupied.contains(*from)
                && !self.turn.placed.iter().any(|p| p.0 == *from)
                && legal
                    .iter()
                    .any(|m| m.from() == Some(*from) && m.to() == sq && m.is_capture())
        });
        let Some(from) = found else {
            return;
        };
        let at = self
            .turn
            .frame_lifts
            .iter()
            .find(|(s, _)| *s == from)
            .map_or(t, |(_, at)| *at);
        self.turn.hand.retain(|s| *s != from);
        self.turn.placed.push((from, sq, at));
        if self.turn.hand.is_empty() {
            self.turn.made = true;
            self.turn.relifted = Bitboard::EMPTY;
        }
    }
}
