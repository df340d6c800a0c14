//! The sensed board: what the Hall sensors say about each square, and the
//! history of lifts and placements since the last completed move.
//!
//! This layer knows nothing of the Laws. It keeps, per square, occupancy and
//! (when the board senses it) the colour or the identity of the piece, turns
//! occupancy frames into lifts and placements, and debounces lifts: a lift
//! undone by a placement on the same square within [`SensedBoard::bounce_ms`]
//! is sensor bounce, not a touch. Squares are shakmaty's (a1 = 0, h8 = 63).
//!
//! Depends on nothing of the product: it is at the bottom of
//! docs/dev/architecture.md's map. It must not depend on `sensors`,
//! `recognize` or `arbiter` (which build on it), on `trace` or on any other
//! module.

use shakmaty::{Bitboard, Board, Color, Piece, Square};

/// One of the eight symmetries of the square: how sensed squares (after the
/// hw map) turn into the squares of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Orientation {
    /// As wired.
    #[default]
    Identity,
    /// Turned a quarter clockwise.
    Rot90,
    /// Turned 180° (White sits at the black end).
    Rot180,
    /// Turned a quarter anticlockwise.
    Rot270,
    /// Files mirrored (a ↔ h).
    FlipFiles,
    /// Ranks mirrored (1 ↔ 8).
    FlipRanks,
    /// Mirrored on the a1–h8 diagonal.
    Transpose,
    /// Mirrored on the h1–a8 diagonal.
    AntiTranspose,
}

impl Orientation {
    /// All eight.
    pub const ALL: [Orientation; 8] = [
        Orientation::Identity,
        Orientation::Rot90,
        Orientation::Rot180,
        Orientation::Rot270,
        Orientation::FlipFiles,
        Orientation::FlipRanks,
        Orientation::Transpose,
        Orientation::AntiTranspose,
    ];

    /// The image of `sq`.
    pub fn apply(self, sq: Square) -> Square {
        let (f, r) = (sq as u32 % 8, sq as u32 / 8);
        let (f2, r2) = match self {
            Orientation::Identity => (f, r),
            Orientation::Rot90 => (r, 7 - f),
            Orientation::Rot180 => (7 - f, 7 - r),
            Orientation::Rot270 => (7 - r, f),
            Orientation::FlipFiles => (7 - f, r),
            Orientation::FlipRanks => (f, 7 - r),
            Orientation::Transpose => (r, f),
            Orientation::AntiTranspose => (7 - r, 7 - f),
        };
        Square::new(r2 * 8 + f2)
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Orientation {
        match self {
            Orientation::Rot90 => Orientation::Rot270,
            Orientation::Rot270 => Orientation::Rot90,
            o => o,
        }
    }

    /// The image of a set of squares.
    pub fn apply_bits(self, bits: u64) -> u64 {
        Bitboard(bits)
            .into_iter()
            .fold(0, |acc, sq| acc | 1 << self.apply(sq) as u32)
    }

    /// This symmetry followed by a half turn: the other reading of a start
    /// position that occupancy alone cannot tell apart (Identity ↔ Rot180,
    /// Rot90 ↔ Rot270, and so on).
    pub fn half_turn(self) -> Orientation {
        match self {
            Orientation::Identity => Orientation::Rot180,
            Orientation::Rot180 => Orientation::Identity,
            Orientation::Rot90 => Orientation::Rot270,
            Orientation::Rot270 => Orientation::Rot90,
            Orientation::FlipFiles => Orientation::FlipRanks,
            Orientation::FlipRanks => Orientation::FlipFiles,
            Orientation::Transpose => Orientation::AntiTranspose,
            Orientation::AntiTranspose => Orientation::Transpose,
        }
    }

    /// The image of a change.
    pub fn apply_change(self, ch: Change) -> Change {
        match ch {
            Change::Lift(sq) => Change::Lift(self.apply(sq)),
            Change::Place(sq, c, p) => Change::Place(self.apply(sq), c, p),
        }
    }

    /// The image of a board: the piece on `sq` stands on `apply(sq)`.
    pub fn apply_board(self, board: &Board) -> Board {
        let mut out = Board::empty();
        for (sq, piece) in board.clone() {
            out.set_piece_at(self.apply(sq), piece);
        }
        out
    }
}

/// A physical change on the board, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A piece left the square.
    Lift(Square),
    /// A piece arrived on the square (colour / identity when sensed).
    Place(Square, Option<Color>, Option<Piece>),
}

/// A confirmed lift (not a bounce) of a square that held a piece when the
/// history was last reset: the candidate touch of §4.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifted {
    /// The square the piece left.
    pub square: Square,
    /// Trace time of the lift, ms.
    pub t: u64,
}

/// Default bounce window, ms: a flicker shorter than this is not a touch.
pub const DEFAULT_BOUNCE_MS: u64 = 60;

/// What move recognition reads of a [`SensedBoard`]
/// ([`SensedBoard::reading_key`]): occupancy, colour and identity where
/// sensed, the squares lifted and placed on since the last reset, and the
/// sequence number of each square's last placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadingKey {
    occupied: Bitboard,
    color_known: Bitboard,
    white: Bitboard,
    lifted: Bitboard,
    placed: Bitboard,
    // Compared before the pieces (a byte comparison, the pieces one by one).
    last_place: [u32; 64],
    pieces: [Option<Piece>; 64],
}

/// The last [`SensedBoard::stamp`] given out (process-wide).
static STAMPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A stamp no board had before.
fn new_stamp() -> u64 {
    STAMPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
}

/// What the sensors show, plus the history since the last reset.
#[derive(Debug, Clone)]
pub struct SensedBoard {
    occupied: Bitboard,
    /// Squares whose colour was sensed since the last reset.
    color_known: Bitboard,
    /// Among `color_known`, the white ones.
    white: Bitboard,
    /// Piece identities sensed since the last reset.
    pieces: [Option<Piece>; 64],
    /// Squares lifted since the last reset.
    lifted: Bitboard,
    /// Squares placed on since the last reset.
    placed: Bitboard,
    /// Sequence number of the last placement per square (0 = none).
    last_place: [u32; 64],
    seq: u32,
    /// Occupied squares at the last reset (the pieces a touch can concern).
    origin: Bitboard,
    /// Lifts of origin squares waiting out the bounce window.
    pending: Vec<Lifted>,
    /// Origin squares already reported as lifted since the last reset.
    reported: Bitboard,
    /// The bounce window, ms.
    pub bounce_ms: u64,
    /// Renewed whenever what [`SensedBoard::reading_key`] reads may change
    /// ([`SensedBoard::stamp`]).
    stamp: u64,
}

impl SensedBoard {
    /// A board showing exactly `board`.
    pub fn new(board: &Board) -> SensedBoard {
        let mut s = SensedBoard {
            occupied: Bitboard::EMPTY,
            color_known: Bitboard::EMPTY,
            white: Bitboard::EMPTY,
            pieces: [None; 64],
            lifted: Bitboard::EMPTY,
            placed: Bitboard::EMPTY,
            last_place: [0; 64],
            seq: 0,
            origin: Bitboard::EMPTY,
            pending: Vec::new(),
            reported: Bitboard::EMPTY,
            bounce_ms: DEFAULT_BOUNCE_MS,
            stamp: 0,
        };
        s.reset_to(board);
        s
    }

    /// Sets the sensed state to `board` and clears the history (after a
    /// completed move, when the board is known to show the position).
    pub fn reset_to(&mut self, board: &Board) {
        // Colour and identity count only where the sensors reported them
        // since the reset: a square nobody touched says nothing new, and a
        // fast swap on one square (a capture inside one scan) must not be
        // contradicted by what stood there before.
        self.stamp = new_stamp();
        self.occupied = board.occupied();
        self.color_known = Bitboard::EMPTY;
        self.white = Bitboard::EMPTY;
        self.pieces = [None; 64];
        self.clear_history();
    }

    /// Clears the history only; the sensed state stays.
    pub fn clear_history(&mut self) {
        self.stamp = new_stamp();
        self.lifted = Bitboard::EMPTY;
        self.placed = Bitboard::EMPTY;
        self.last_place = [0; 64];
        self.seq = 0;
        self.origin = self.occupied;
        self.pending.clear();
        self.reported = Bitboard::EMPTY;
    }

    /// Occupied squares as sensed.
    pub fn occupied(&self) -> Bitboard {
        self.occupied
    }

    /// Squares whose colour is known, and among them the white ones.
    pub fn colors(&self) -> (Bitboard, Bitboard) {
        (self.color_known, self.white)
    }

    /// The piece on `sq` when known.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.pieces[sq as usize]
    }

    /// Squares lifted since the last reset.
    pub fn lifted(&self) -> Bitboard {
        self.lifted
    }

    /// Squares placed on since the last reset.
    pub fn placed(&self) -> Bitboard {
        self.placed
    }

    /// Order of the last placement on `sq` since the last reset (0 = none;
    /// larger is later).
    pub fn last_place_seq(&self, sq: Square) -> u32 {
        self.last_place[sq as usize]
    }

    /// Turns an occupancy frame (bit i = square i) into changes: lifts
    /// first, then placements, each in square order.
    pub fn frame_changes(&self, bits: u64) -> Vec<Change> {
        let now = Bitboard(bits);
        let gone = self.occupied & !now;
        let came = now & !self.occupied;
        gone.into_iter()
            .map(Change::Lift)
            .chain(came.into_iter().map(|sq| Change::Place(sq, None, None)))
            .collect()
    }

    /// Applies one change at trace time `t` (ms). A lift of an empty square or
    /// a placement on an occupied one is inconsistent sensing; it is applied
    /// as the sensor says (the state follows the sensors).
    pub fn apply(&mut self, change: Change, t: u64) {
        self.stamp = new_stamp();
        self.seq += 1;
        match change {
            Change::Lift(sq) => {
                self.occupied.discard(sq);
                self.color_known.discard(sq);
                self.white.discard(sq);
                self.pieces[sq as usize] = None;
                self.lifted.add(sq);
                if self.origin.contains(sq) && !self.reported.contains(sq) {
                    self.pending.push(Lifted { square: sq, t });
                }
            }
            Change::Place(sq, color, piece) => {
                self.occupied.add(sq);
                let color = color.or(piece.map(|p| p.color));
                match color {
                    Some(c) => {
                        self.color_known.add(sq);
                        self.white.set(sq, c == Color::White);
                    }
                    None => {
                        self.color_known.discard(sq);
                        self.white.discard(sq);
                    }
                }
                self.pieces[sq as usize] = piece;
                self.placed.add(sq);
                self.last_place[sq as usize] = self.seq;
                // A placement back on a square lifted within the bounce
                // window undoes that lift: sensor bounce, not a touch.
                if let Some(i) = self
                    .pending
                    .iter()
                    .position(|l| l.square == sq && t.saturating_sub(l.t) < self.bounce_ms)
                {
                    self.pending.remove(i);
                }
            }
        }
    }

    /// Lifts confirmed by `t`: older than the bounce window, or all pending
    /// ones when `flush` (a press or another decision is taken at `t`).
    /// Each origin square is reported once per history.
    pub fn confirmed_lifts(&mut self, t: u64, flush: bool) -> Vec<Lifted> {
        if self.pending.is_empty() {
            return Vec::new();
        }
        let bounce = self.bounce_ms;
        let mut out = Vec::new();
        self.pending.retain(|l| {
            if flush || t >= l.t + bounce {
                out.push(*l);
                false
            } else {
                true
            }
        });
        out.retain(|l| {
            let fresh = !self.reported.contains(l.square);
            self.reported.add(l.square);
            fresh
        });
        out
    }

    /// A number renewed by every change of what [`SensedBoard::reading_key`]
    /// reads, never given to another state: two boards (a board and its
    /// clone) with the same stamp have the same reading key (the converse
    /// need not hold). A cheap first comparison of readings (issue 28).
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Everything move recognition reads of this board (the sensed
    /// state and the history since the last reset), as a value to compare
    /// readings by: two boards with equal keys are recognised alike.
    pub fn reading_key(&self) -> ReadingKey {
        ReadingKey {
            occupied: self.occupied,
            color_known: self.color_known,
            white: self.white,
            lifted: self.lifted,
            placed: self.placed,
            pieces: self.pieces,
            last_place: self.last_place,
        }
    }

    /// Whether the sensed state agrees with `board`: same occupancy, and the
    /// same colour and piece wherever they are known.
    pub fn matches(&self, board: &Board) -> bool {
        self.differences(board).is_empty()
    }

    /// Squares where the sensed state disagrees with `board`.
    pub fn differences(&self, board: &Board) -> Bitboard {
        let mut diff = self.occupied ^ board.occupied();
        diff |= self.color_known & (self.white ^ board.white());
        for sq in self.occupied & board.occupied() {
            if let Some(p) = self.pieces[sq as usize] {
                if board.piece_at(sq) != Some(p) {
                    diff.add(sq);
                }
            }
        }
        diff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounce_is_not_a_touch_but_a_real_lift_is() {
        let mut b = SensedBoard::new(&Board::default());
        b.apply(Change::Lift(Square::G1), 1000);
        b.apply(Change::Place(Square::G1, None, None), 1004);
        assert!(b.confirmed_lifts(2000, false).is_empty());
        b.apply(Change::Lift(Square::E2), 3000);
        assert!(b.confirmed_lifts(3010, false).is_empty());
        let l = b.confirmed_lifts(3070, false);
        assert_eq!(
            l,
            vec![Lifted {
                square: Square::E2,
                t: 3000
            }]
        );
        b.apply(Change::Place(Square::E4, None, None), 3400);
        b.apply(Change::Lift(Square::E4), 3405);
        b.apply(Change::Place(Square::E4, None, None), 3410);
        assert!(
            b.confirmed_lifts(4000, true).is_empty(),
            "e4 was empty: no piece touched there"
        );
        assert!(b.lifted().contains(Square::G1));
    }

    #[test]
    fn frames_become_lifts_then_places() {
        let b = SensedBoard::new(&Board::default());
        let start = Board::default().occupied().0;
        let after = (start & !(1 << Square::E2 as u64)) | (1 << Square::E4 as u64);
        assert_eq!(
            b.frame_changes(after),
            vec![
                Change::Lift(Square::E2),
                Change::Place(Square::E4, None, None)
            ]
        );
    }

    #[test]
    fn differences_use_colour_and_identity_when_known() {
        let mut b = SensedBoard::new(&Board::default());
        assert!(b.matches(&Board::default()));
        b.apply(Change::Lift(Square::E2), 0);
        b.apply(Change::Place(Square::E2, Some(Color::Black), None), 10);
        assert_eq!(b.differences(&Board::default()), Bitboard::from(Square::E2));
        b.apply(Change::Lift(Square::E2), 20);
        b.apply(Change::Place(Square::E2, None, None), 30);
        assert!(
            b.matches(&Board::default()),
            "colour unknown: occupancy decides"
        );
    }
}
