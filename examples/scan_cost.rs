//! Cost of one scan → debounce → records, for the instruction counts in
//! docs/dev/performance.md, "Sensor scanning" (run under callgrind by
//! `scripts/scan-cost`).
//!
//! ```text
//! scan_cost HW_TOML idle|move SCANS [bus|pipeline]
//! ```
//!
//! - `bus` (default): the real driver on the simulated bus (the simulated
//!   chips' work is counted too), classification, square map, debounce and
//!   records.
//! - `pipeline`: the scanner on canned raw scans (driver and bus cost
//!   excluded): classification, map, debounce, records.
//! - `idle`: the initial position, nothing moves.
//! - `move`: the board alternates between the initial position and 1. e4
//!   every 4 scans, so every scan has squares pending and every fourth
//!   accepts a lift and a place.
//!
//! Setup (reading the hw file, virtual calibration) is the same for any
//! SCANS, so the difference of two runs divided by the difference of SCANS
//! is the cost of one scan.

use eboard::sensors::virtual_hw::{calibrate_virtual, VirtualBoard};
use eboard::sensors::{
    HwDesign, RawScan, ReadingKind, Sample, Scanner, ScannerConfig, SensorArray, VirtualOptions,
};
use shakmaty::{Board, Square};
use std::hint::black_box;
use std::path::Path;

/// Replays two canned raw scans (the driver and bus are not counted).
struct Canned {
    kind: ReadingKind,
    scans: [RawScan; 2],
    which: std::rc::Rc<std::cell::Cell<usize>>,
}

impl SensorArray for Canned {
    type Error = std::convert::Infallible;
    fn kind(&self) -> ReadingKind {
        self.kind
    }
    fn read(&mut self, raw: &mut RawScan) -> Result<(), Self::Error> {
        *raw = self.scans[self.which.get()];
        Ok(())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: scan_cost HW_TOML idle|move SCANS [bus|pipeline]");
        std::process::exit(2);
    }
    let design = HwDesign::load(Path::new(&args[1])).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let moving = args[2] == "move";
    let scans: u64 = args[3].parse().expect("SCANS: a number");
    let pipeline = args.get(4).is_some_and(|a| a == "pipeline");
    let opts = VirtualOptions::default();
    let cal = calibrate_virtual(&design, &opts).expect("virtual calibration");
    let colour = design.is_analog();
    let start = Sample::from_board(&Board::default(), colour);
    let e2 = 1u64 << Square::E2 as u32;
    let e4 = 1u64 << Square::E4 as u32;
    let after = Sample {
        occupied: start.occupied & !e2 | e4,
        white: start.white & !e2 | e4 & if colour { !0 } else { 0 },
    };
    let board = VirtualBoard::new(&design, &opts);
    board.show(start);
    let config = ScannerConfig::default();
    let mut records = 0u64;
    if pipeline {
        let which = std::rc::Rc::new(std::cell::Cell::new(0));
        let mut arr = board.array();
        arr.init().unwrap();
        let mut canned = Canned {
            kind: arr.kind(),
            scans: [RawScan::default(); 2],
            which: which.clone(),
        };
        arr.read(&mut canned.scans[0]).unwrap();
        board.show(after);
        arr.read(&mut canned.scans[1]).unwrap();
        let mut s = Scanner::new(canned, &design, Some(&cal), config, start).unwrap();
        for k in 0..scans {
            which.set(usize::from(moving && k / 4 % 2 == 1));
            for r in s.scan(black_box(k * 10)).unwrap() {
                black_box(&r);
                records += 1;
            }
        }
    } else {
        let mut s = Scanner::new(board.array(), &design, Some(&cal), config, start).unwrap();
        s.init().unwrap();
        for k in 0..scans {
            if moving {
                board.show(if k / 4 % 2 == 1 { after } else { start });
            }
            for r in s.scan(black_box(k * 10)).unwrap() {
                black_box(&r);
                records += 1;
            }
        }
    }
    println!(
        "{} {} {scans} scans: {records} records",
        design.name, args[2]
    );
}
