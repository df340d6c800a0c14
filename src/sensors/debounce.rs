//! Debounce: a square's state changes only after N consecutive scans that
//! agree on the new state. Works on whole boards as bitboards (square
//! order, a1 = 0 … h8 = 63); allocation-free, and at idle (no square
//! differs from its stable state) a scan costs a few word operations.
//!
//! A square's state is empty, occupied (colour unknown: occupancy
//! sensing), white or black (colour sensing). A change of colour on an
//! occupied square (a capture done inside one scan) is reported as a lift
//! then a placement.

use crate::trace::{BoardId, Record, RecordKind};
use shakmaty::{Color, Square};

/// Default number of consecutive equal scans: 3 (at 100 Hz, a change is
/// accepted after 20–30 ms; flickers shorter than 20 ms are ignored).
pub const DEFAULT_DEBOUNCE: u8 = 3;

/// What the sensors show in one scan, in square order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sample {
    /// Occupied squares (bit i = square i).
    pub occupied: u64,
    /// Among the occupied squares, the white pieces (colour sensing only;
    /// always 0 on an occupancy board).
    pub white: u64,
}

impl Sample {
    /// The sample a board showing `board` gives (`colour`: with colours).
    pub fn from_board(board: &shakmaty::Board, colour: bool) -> Sample {
        Sample {
            occupied: board.occupied().0,
            white: if colour { board.white().0 } else { 0 },
        }
    }
}

/// The squares that changed in one scan; iterate it for the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Changes {
    /// Scan time, ms.
    pub t: u64,
    /// The board the records name.
    pub board: BoardId,
    /// Squares whose piece left (including colour swaps).
    pub lifts: u64,
    /// Squares where a piece arrived (including colour swaps).
    pub places: u64,
    /// Among `places`, white pieces (colour sensing).
    pub white: u64,
    /// Whether places carry a colour.
    pub colour: bool,
}

impl Changes {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.lifts | self.places == 0
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        (self.lifts.count_ones() + self.places.count_ones()) as usize
    }
}

impl Iterator for Changes {
    type Item = Record;

    /// Lifts first, then placements, each in square order.
    fn next(&mut self) -> Option<Record> {
        let kind = if self.lifts != 0 {
            let sq = self.lifts.trailing_zeros();
            self.lifts &= self.lifts - 1;
            RecordKind::Lift(Square::new(sq))
        } else if self.places != 0 {
            let sq = self.places.trailing_zeros();
            self.places &= self.places - 1;
            let color = self.colour.then(|| {
                if self.white >> sq & 1 == 1 {
                    Color::White
                } else {
                    Color::Black
                }
            });
            RecordKind::Place {
                square: Square::new(sq),
                color,
                piece: None,
            }
        } else {
            return None;
        };
        Some(Record {
            t: self.t,
            board: self.board,
            kind,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len(), Some(self.len()))
    }
}

/// The debouncer: stable state, the candidate state per square and how
/// many consecutive scans showed it.
#[derive(Debug, Clone)]
pub struct Debouncer {
    n: u8,
    colour: bool,
    stable: Sample,
    cand: Sample,
    /// Squares with a candidate run under way.
    counting: u64,
    count: [u8; 64],
    /// Runs abandoned before reaching N, per square (flicker; saturating).
    flicker: [u16; 64],
}

impl Debouncer {
    /// A debouncer starting from `initial`, accepting a change after `n`
    /// consecutive equal scans (`n` = 1: no debounce; 0 is taken as 1).
    /// `colour`: the samples carry colours.
    pub fn new(initial: Sample, n: u8, colour: bool) -> Debouncer {
        let initial = Self::norm(initial, colour);
        Debouncer {
            n: n.max(1),
            colour,
            stable: initial,
            cand: initial,
            counting: 0,
            count: [0; 64],
            flicker: [0; 64],
        }
    }

    fn norm(s: Sample, colour: bool) -> Sample {
        Sample {
            occupied: s.occupied,
            white: if colour { s.white & s.occupied } else { 0 },
        }
    }

    /// The debounced state.
    pub fn stable(&self) -> Sample {
        self.stable
    }

    /// Sets the debounced state (no records), abandoning runs under way.
    pub fn reset(&mut self, s: Sample) {
        self.stable = Self::norm(s, self.colour);
        self.counting = 0;
    }

    /// Squares whose reading differs from the stable state but has not yet
    /// been accepted.
    pub fn pending(&self) -> u64 {
        self.counting
    }

    /// Runs abandoned before acceptance, per square, since the start or
    /// [`Debouncer::clear_flicker`].
    pub fn flicker(&self) -> &[u16; 64] {
        &self.flicker
    }

    /// Zeroes the flicker counters.
    pub fn clear_flicker(&mut self) {
        self.flicker = [0; 64];
    }

    /// One scan at time `t` (ms): returns the accepted changes.
    pub fn update(&mut self, t: u64, board: BoardId, sample: Sample) -> Changes {
        let s = Self::norm(sample, self.colour);
        let differs = (s.occupied ^ self.stable.occupied) | (s.white ^ self.stable.white);
        // Runs on squares back to their stable state are abandoned.
        let mut dropped = self.counting & !differs;
        while dropped != 0 {
            let i = dropped.trailing_zeros() as usize;
            dropped &= dropped - 1;
            self.flicker[i] = self.flicker[i].saturating_add(1);
        }
        self.counting &= differs;
        let mut out = Changes {
            t,
            board,
            colour: self.colour,
            ..Changes::default()
        };
        if differs == 0 {
            return out;
        }
        let same_cand = !((s.occupied ^ self.cand.occupied) | (s.white ^ self.cand.white));
        // New runs: squares that differ and were not counting the same value.
        let fresh = differs & !(self.counting & same_cand);
        let restarted = self.counting & fresh;
        let mut m = restarted;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            self.flicker[i] = self.flicker[i].saturating_add(1);
        }
        self.cand.occupied = (self.cand.occupied & !fresh) | (s.occupied & fresh);
        self.cand.white = (self.cand.white & !fresh) | (s.white & fresh);
        self.counting |= differs;
        let mut accepted = 0u64;
        let mut m = differs;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            let c = if fresh >> i & 1 == 1 {
                1
            } else {
                self.count[i].saturating_add(1)
            };
            self.count[i] = c;
            if c >= self.n {
                accepted |= 1 << i;
            }
        }
        if accepted != 0 {
            let was = self.stable;
            let now_occ = (was.occupied & !accepted) | (s.occupied & accepted);
            let now_white = (was.white & !accepted) | (s.white & accepted);
            // A colour swap on a square occupied before and after is a lift then a place.
            let swapped = was.occupied & now_occ & (was.white ^ now_white) & accepted;
            out.lifts = (was.occupied & !now_occ & accepted) | swapped;
            out.places = (now_occ & !was.occupied & accepted) | swapped;
            out.white = out.places & now_white;
            self.stable = Sample {
                occupied: now_occ,
                white: now_white,
            };
            self.counting &= !accepted;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: Square) -> u64 {
        1 << s as u32
    }

    fn kinds(c: Changes) -> Vec<RecordKind> {
        c.map(|r| r.kind).collect()
    }

    #[test]
    fn a_change_needs_n_consecutive_equal_scans() {
        let start = Sample {
            occupied: sq(Square::E2),
            white: 0,
        };
        let mut d = Debouncer::new(start, 3, false);
        let lifted = Sample::default();
        assert!(d.update(0, BoardId::Main, lifted).is_empty());
        assert!(d.update(10, BoardId::Main, lifted).is_empty());
        let c = d.update(20, BoardId::Main, lifted);
        assert_eq!(c.t, 20);
        assert_eq!(kinds(c), vec![RecordKind::Lift(Square::E2)]);
        assert_eq!(d.stable(), lifted);
        // Stable now: further equal scans say nothing.
        assert!(d.update(30, BoardId::Main, lifted).is_empty());
    }

    #[test]
    fn a_flicker_shorter_than_n_scans_is_ignored_and_counted() {
        let start = Sample {
            occupied: sq(Square::G1),
            white: 0,
        };
        let mut d = Debouncer::new(start, 3, false);
        assert!(d.update(0, BoardId::Main, Sample::default()).is_empty());
        assert!(d.update(10, BoardId::Main, Sample::default()).is_empty());
        assert!(d.update(20, BoardId::Main, start).is_empty());
        assert!(d.update(30, BoardId::Main, Sample::default()).is_empty());
        assert!(d.update(40, BoardId::Main, start).is_empty());
        assert_eq!(d.stable(), start);
        assert_eq!(d.flicker()[Square::G1 as usize], 2);
        assert_eq!(d.pending(), 0);
    }

    #[test]
    fn n_one_is_immediate_and_lifts_come_before_places() {
        let mut d = Debouncer::new(
            Sample {
                occupied: sq(Square::E4),
                white: 0,
            },
            1,
            false,
        );
        let c = d.update(
            5,
            BoardId::Tactile,
            Sample {
                occupied: sq(Square::A1),
                white: 0,
            },
        );
        let recs: Vec<Record> = c.collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].kind, RecordKind::Lift(Square::E4));
        assert_eq!(
            recs[1].kind,
            RecordKind::Place {
                square: Square::A1,
                color: None,
                piece: None
            }
        );
        assert!(recs.iter().all(|r| r.board == BoardId::Tactile && r.t == 5));
    }

    #[test]
    fn colour_swap_is_a_lift_then_a_coloured_place() {
        let e5 = sq(Square::E5);
        let black = Sample {
            occupied: e5,
            white: 0,
        };
        let white = Sample {
            occupied: e5,
            white: e5,
        };
        let mut d = Debouncer::new(black, 2, true);
        assert!(d.update(0, BoardId::Main, white).is_empty());
        assert_eq!(
            kinds(d.update(10, BoardId::Main, white)),
            vec![
                RecordKind::Lift(Square::E5),
                RecordKind::Place {
                    square: Square::E5,
                    color: Some(Color::White),
                    piece: None
                }
            ]
        );
    }

    #[test]
    fn a_changing_reading_restarts_the_run() {
        // Empty → white (1 scan) → black (2 scans): black is accepted at the
        // second black scan, never white.
        let mut d = Debouncer::new(Sample::default(), 2, true);
        let e4 = sq(Square::E4);
        let w = Sample {
            occupied: e4,
            white: e4,
        };
        let b = Sample {
            occupied: e4,
            white: 0,
        };
        assert!(d.update(0, BoardId::Main, w).is_empty());
        assert!(d.update(10, BoardId::Main, b).is_empty());
        assert_eq!(
            kinds(d.update(20, BoardId::Main, b)),
            vec![RecordKind::Place {
                square: Square::E4,
                color: Some(Color::Black),
                piece: None
            }]
        );
        assert_eq!(d.flicker()[Square::E4 as usize], 1);
    }

    #[test]
    fn squares_run_independently() {
        let mut d = Debouncer::new(Sample::default(), 2, false);
        let a = Sample {
            occupied: sq(Square::A1),
            white: 0,
        };
        let ab = Sample {
            occupied: sq(Square::A1) | sq(Square::B1),
            white: 0,
        };
        assert!(d.update(0, BoardId::Main, a).is_empty());
        let c = d.update(10, BoardId::Main, ab);
        assert_eq!(c.places, sq(Square::A1));
        let c = d.update(20, BoardId::Main, ab);
        assert_eq!(c.places, sq(Square::B1));
    }
}
