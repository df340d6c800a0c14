//! The live sensor view for a board builder (`eboard calibrate --watch`,
//! issue 43 §5): the 8 × 8 board as read now, each square with the sensor
//! wired to it (its index in the design's read order), its raw value and
//! what that value means. Put a piece on a square and the cell that
//! changes names the sensor that sees it: a miswired square shows up as
//! another square's cell changing, a dead one as a cell that never does.
//!
//! One frame is text, rank 8 at the top, as a player sits at White:
//!
//! ```text
//!        a        b     …
//!   8  B 871#56 B 903#57 …
//!   1  W 144#0  W 131#1  …
//! ```
//!
//! A cell is `state raw#sensor`: the state `W` / `B` (a white / black
//! piece, colour boards with a calibration), `X` (a piece, occupancy
//! boards), `.` (empty), `?` (a colour board's raw value without a
//! calibration to read it by); the raw value is the ADC code (0 ..= 1023)
//! or the input level (0 / 1); the sensor is the index of
//! [`super::hw::HwDesign::map`] (shift order, chip × 16 + pin, row × 8 +
//! column, chip × 8 + channel, `hw/README.md`).

use super::calibration::Calibration;
use super::hw::HwDesign;
use super::RawScan;

/// What a sensor's value means.
fn state(design: &HwDesign, cal: Option<&Calibration>, raw: &RawScan, i: usize) -> (char, u16) {
    match design.bus.active_low() {
        Some(active_low) => {
            let level = (raw.bits >> i & 1) as u16;
            let present = (level == 1) != active_low;
            (if present { 'X' } else { '.' }, level)
        }
        None => {
            let v = raw.levels[i];
            let Some(a) = cal.and_then(|c| c.analog.as_ref()) else {
                return ('?', v);
            };
            let (low, high) = (a.low_array()[i], a.high_array()[i]);
            let c = if v < low {
                if a.white_reads_low {
                    'W'
                } else {
                    'B'
                }
            } else if v > high {
                if a.white_reads_low {
                    'B'
                } else {
                    'W'
                }
            } else {
                '.'
            };
            (c, v)
        }
    }
}

/// One frame of the view: `raw` read from `design`'s bus, turned into the
/// game's squares by `cal`'s orientation (none: the design's map as it
/// stands) and read by its thresholds (colour boards).
pub fn frame(design: &HwDesign, cal: Option<&Calibration>, raw: &RawScan) -> String {
    let orientation = cal.map(|c| c.orientation);
    // The sensor of each game square (a1 = 0 … h8 = 63).
    let mut sensor_of = [usize::MAX; 64];
    for (i, sq) in design.map.iter().enumerate() {
        let sq = orientation.map_or(*sq, |o| o.apply(*sq));
        sensor_of[sq as usize] = i;
    }
    let mut out = String::from("    ");
    for f in 'a'..='h' {
        out.push_str(&format!("    {f}    "));
    }
    out.push('\n');
    for rank in (0..8).rev() {
        out.push_str(&format!("  {} ", rank + 1));
        for file in 0..8 {
            let i = sensor_of[rank * 8 + file];
            if i == usize::MAX {
                out.push_str("  (none)  ");
                continue;
            }
            let (c, v) = state(design, cal, raw, i);
            out.push_str(&format!(" {c}{v:>4}#{i:<2}"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sensors::virtual_hw::{VirtualBoard, VirtualOptions};
    use crate::sensors::{debounce::Sample, SensorArray};

    fn design(name: &str) -> HwDesign {
        let path = format!("{}/hw/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        HwDesign::load(std::path::Path::new(&path)).unwrap()
    }

    /// The initial position on the simulated board of `d`, read once.
    fn read_start(d: &HwDesign) -> RawScan {
        let board = VirtualBoard::new(d, &VirtualOptions::default());
        board.show(Sample::from_board(&shakmaty::Board::default(), true));
        let mut array = board.array();
        array.init().unwrap();
        let mut raw = RawScan::default();
        array.read(&mut raw).unwrap();
        raw
    }

    #[test]
    fn an_occupancy_board_shows_the_pieces_where_they_stand() {
        let d = design("hc165-chain");
        let view = frame(&d, None, &read_start(&d));
        let rows: Vec<&str> = view.lines().collect();
        assert!(rows[0].contains('a') && rows[0].contains('h'), "{view}");
        // Rank 8 and 7 occupied, 6 to 3 empty, 2 and 1 occupied.
        for (row, rank) in rows[1..].iter().zip((1..=8).rev()) {
            let pieces = row.matches('X').count();
            let empty = row.matches(" .").count();
            let want = if [1, 2, 7, 8].contains(&rank) {
                (8, 0)
            } else {
                (0, 8)
            };
            assert_eq!((pieces, empty), want, "rank {rank}: {view}");
        }
        // a1 is sensor 0 on a rank-major chain, h8 sensor 63.
        assert!(rows[8].trim_start().starts_with("1  X"), "{view}");
        assert!(rows[8].contains("#0 ") && rows[1].contains("#63"), "{view}");
    }

    #[test]
    fn a_colour_board_reads_white_and_black_by_its_calibration() {
        let d = design("mcp3008-hall");
        let cal_path = format!(
            "{}/calibration/virtual-mcp3008-hall.toml",
            env!("CARGO_MANIFEST_DIR")
        );
        let cal = Calibration::load(std::path::Path::new(&cal_path)).unwrap();
        let raw = read_start(&d);
        let view = frame(&d, Some(&cal), &raw);
        let rows: Vec<&str> = view.lines().collect();
        assert_eq!(rows[1].matches('B').count(), 8, "{view}");
        assert_eq!(rows[8].matches('W').count(), 8, "{view}");
        assert_eq!(rows[4].matches(" .").count(), 8, "{view}");
        // Without a calibration the values are shown, not read.
        let bare = frame(&d, None, &raw);
        assert_eq!(bare.matches('?').count(), 64, "{bare}");
    }
}
