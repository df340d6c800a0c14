//! The virtual board as a sensor array, its calibration operator, and the
//! debounced records of a scan that follows a trace.

use super::*;
use crate::sensors::calibration::{calibrate, CalError, Calibration, Operator, Step};
use crate::sensors::debounce::Sample;
use crate::sensors::gpio_matrix::GpioMatrix;
use crate::sensors::hc165::Hc165Chain;
use crate::sensors::hw::HwDesign;
use crate::sensors::mcp23017::Mcp23017Bank;
use crate::sensors::mcp3008::Mcp3008Array;
use crate::sensors::scanner::{Scanner, ScannerConfig};
use crate::sensors::{NoDelay, RawScan, ReadingKind, SensorArray};
use crate::trace::{Record, RecordKind, Trace};
use shakmaty::Board;
/// The design's real driver on the simulated bus (no boxing, no dynamic calls).
// One per board; boxing would add an indirection per scan.
#[allow(clippy::large_enum_variant)]
pub enum VirtualArray {
    /// 74HC165 chain.
    Hc165(Hc165Chain<VirtualSpi, VirtualPin, NoDelay>),
    /// MCP23017 bank.
    Mcp23017(Mcp23017Bank<VirtualI2c>),
    /// Diode matrix.
    Matrix(GpioMatrix<VirtualPin, VirtualPin, NoDelay>),
    /// MCP3008 ADCs.
    Mcp3008(Mcp3008Array<VirtualSpi>),
}

impl std::fmt::Debug for VirtualArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            VirtualArray::Hc165(_) => "VirtualArray::Hc165",
            VirtualArray::Mcp23017(_) => "VirtualArray::Mcp23017",
            VirtualArray::Matrix(_) => "VirtualArray::Matrix",
            VirtualArray::Mcp3008(_) => "VirtualArray::Mcp3008",
        })
    }
}

impl SensorArray for VirtualArray {
    type Error = String;

    fn kind(&self) -> ReadingKind {
        match self {
            VirtualArray::Mcp3008(_) => ReadingKind::Analog,
            _ => ReadingKind::Digital,
        }
    }

    fn init(&mut self) -> Result<(), String> {
        match self {
            VirtualArray::Hc165(a) => a.init().map_err(|e| e.to_string()),
            VirtualArray::Mcp23017(a) => a.init().map_err(|e| e.to_string()),
            VirtualArray::Matrix(a) => a.init().map_err(|e| format!("{e:?}")),
            VirtualArray::Mcp3008(a) => a.init().map_err(|e| e.to_string()),
        }
    }

    fn read(&mut self, raw: &mut RawScan) -> Result<(), String> {
        match self {
            VirtualArray::Hc165(a) => a.read(raw).map_err(|e| e.to_string()),
            VirtualArray::Mcp23017(a) => a.read(raw).map_err(|e| e.to_string()),
            VirtualArray::Matrix(a) => a.read(raw).map_err(|e| format!("{e:?}")),
            VirtualArray::Mcp3008(a) => a.read(raw).map_err(|e| e.to_string()),
        }
    }
}

/// Carries out the calibration steps on a virtual board, without prompts.
pub struct VirtualOperator {
    board: VirtualBoard,
    /// The instructions "shown", for tests.
    pub log: Vec<Step>,
}

impl VirtualOperator {
    /// An operator for `board`.
    pub fn new(board: &VirtualBoard) -> VirtualOperator {
        VirtualOperator {
            board: board.clone(),
            log: Vec::new(),
        }
    }
}

impl Operator for VirtualOperator {
    fn perform(&mut self, step: Step) -> Result<(), CalError> {
        self.log.push(step);
        let start = Sample::from_board(&Board::default(), true);
        let e2 = 1u64 << shakmaty::Square::E2 as u32;
        self.board.show(match step {
            Step::EmptyBoard => Sample::default(),
            Step::StartPosition | Step::Done => start,
            Step::LiftE2 => Sample {
                occupied: start.occupied & !e2,
                white: start.white & !e2,
            },
            Step::MiddleRanks => Sample {
                occupied: crate::sensors::calibration::MIDDLE_RANKS,
                white: crate::sensors::calibration::MIDDLE_WHITE,
            },
        });
        Ok(())
    }
}

/// Calibrates a virtual board of `design` without prompts.
pub fn calibrate_virtual(
    design: &HwDesign,
    opts: &VirtualOptions,
) -> Result<Calibration, CalError> {
    let board = VirtualBoard::new(design, opts);
    let mut array = board.array();
    let mut op = VirtualOperator::new(&board);
    calibrate(&mut array, design, &mut op, opts.calibration_samples)
}

/// Scans a virtual board of `design` that follows `trace` at the scan rate
/// (calibrated first, without prompts) and returns the debounced records,
/// with the trace's records of other kinds (presses, claims, …) and of the
/// other board merged in time order (a scan's records before another
/// record of the same time). Scan k happens at t = k × period.
pub fn virtual_records(
    trace: &Trace,
    design: &HwDesign,
    opts: &VirtualOptions,
) -> Result<Vec<Record>, VirtualError> {
    let calibration = calibrate_virtual(design, opts)?;
    let board = VirtualBoard::new(design, opts);
    board.follow(trace)?;
    let start = start_board(trace)?;
    let initial = Sample::from_board(&start, design.is_analog());
    let mut scanner = Scanner::new(
        board.array(),
        design,
        Some(&calibration),
        opts.scanner,
        initial,
    )
    .map_err(|e| VirtualError::Scanner(e.to_string()))?;
    scanner
        .init()
        .map_err(|e| VirtualError::Scanner(e.to_string()))?;
    let period = scanner.period_ms();
    let is_board_record = |r: &Record| {
        r.board == design.board
            && matches!(
                r.kind,
                RecordKind::Lift(_) | RecordKind::Place { .. } | RecordKind::Frame(_)
            )
    };
    let mut others = trace
        .records
        .iter()
        .filter(|r| !is_board_record(r))
        .peekable();
    let end = trace.duration_ms() + period * (u64::from(opts.scanner.debounce) + 2);
    let mut out = Vec::with_capacity(trace.records.len() + 16);
    let mut t = 0u64;
    while t <= end {
        while let Some(r) = others.next_if(|r| r.t < t) {
            out.push(r.clone());
        }
        board.set_time(t);
        let changes = scanner
            .scan(t)
            .map_err(|e| VirtualError::Scanner(e.to_string()))?;
        out.extend(changes);
        let mut next = t + period;
        if opts.skip_idle && scanner.pending() == 0 {
            // Until the next change, every scan would read the same.
            let until = board.next_change_after(t).unwrap_or(end + 1);
            next = next.max(until.div_ceil(period) * period);
        }
        t = next;
    }
    out.extend(others.cloned());
    Ok(out)
}

/// Whether a scanner with `config` can see every move of `trace` before
/// its clock press: each press must come at least (debounce + 1) scan
/// periods after the last lift / place before it. Traces simulated from
/// games with 1-second `[%clk]` stamps (bullet, premoves) put a whole move
/// and its press in the same millisecond: no scanning board can see that,
/// and neither can a player make it. Returns the time of the first press
/// that comes too early.
pub fn scannable(trace: &Trace, config: &ScannerConfig) -> Result<(), u64> {
    let need = config.period_ms() * (u64::from(config.debounce.max(1)) + 1);
    let mut last_board: Option<u64> = None;
    for r in &trace.records {
        match r.kind {
            RecordKind::Lift(_) | RecordKind::Place { .. } | RecordKind::Frame(_) => {
                last_board = Some(r.t)
            }
            RecordKind::Press(_) => {
                if let Some(b) = last_board.take() {
                    if r.t < b + need {
                        return Err(r.t);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
