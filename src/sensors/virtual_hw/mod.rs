//! Virtual hardware: a simulated board behind simulated buses that
//! implement the embedded-hal traits (SpiDevice, I2c, InputPin, OutputPin),
//! so the real drivers, calibration and debounce run end to end without a
//! Pi.
//!
//! Layout: the board's model and its timeline here, the simulated buses
//! (SPI, I2C, GPIO) in [`buses`], the sensor array, the virtual operator
//! and the scan of a trace in [`records`].
//!
//! The [`VirtualBoard`] shows either a fixed position (set by a
//! [`VirtualOperator`] during calibration) or follows a trace over time
//! ([`VirtualBoard::follow`]); the buses read it like the chips would:
//! 74HC165 latches on the SH/LD̅ falling edge, MCP23017 registers with
//! pull-ups (a pin without its pull-up floats and reads 0), a diode matrix
//! whose columns follow the driven row, and linear Hall sensors with a
//! per-sensor offset and gain and ± noise behind MCP3008 conversions.
//!
//! [`virtual_records`] scans such a board at the scan rate while it
//! follows a trace and returns the debounced records, with the trace's
//! other records (clock presses, claims …) merged in time order.
//!
//! The handles share the board through `Rc<RefCell<_>>`: single-threaded.

use super::calibration::{CalError, Orientation};
use super::debounce::Sample;
use super::gpio_matrix::GpioMatrix;
use super::hc165::Hc165Chain;
use super::hw::{Bus, HwDesign};
use super::mcp23017::Mcp23017Bank;
use super::mcp3008::{Mcp3008Array, FULL_SCALE};
use super::scanner::ScannerConfig;
use super::NoDelay;
use crate::trace::{RecordKind, Trace};
use shakmaty::fen::Fen;
use shakmaty::{Board, CastlingMode, Chess, Position};
use std::cell::RefCell;
use std::rc::Rc;

/// Nominal response of a linear Hall sensor to a piece's magnet, ADC codes
/// (e.g. DRV5055A1 at 3.3 V, ~60 mV/mT, with ~5 mT at the sensor:
/// ~300 mV ≈ 93 codes at Vref 3.3 V; pieces vary, so 90–240).
pub const NOMINAL_RESPONSE: i32 = 160;

/// A simulated sensor fault.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    /// Reads this level (ADC code, or 0 / 1 for digital) whatever happens.
    Stuck(u16),
    /// Responds with this fraction of the normal signal.
    Weak(f32),
}

/// How the simulated board behaves and is scanned.
#[derive(Debug, Clone, PartialEq)]
pub struct VirtualOptions {
    /// Scan rate and debounce.
    pub scanner: ScannerConfig,
    /// Seed of the sensor model (offsets, gains, noise).
    pub seed: u64,
    /// ADC noise, ± codes (uniform).
    pub noise: u16,
    /// How the physical board is turned relative to the hw map (calibration
    /// must find the inverse).
    pub turned: Orientation,
    /// Sensor faults by sensor index.
    pub faults: Vec<(u8, Fault)>,
    /// Skip scans while nothing changes and nothing is pending (they would
    /// return nothing); keeps whole-game runs fast.
    pub skip_idle: bool,
    /// Samples per calibration step.
    pub calibration_samples: u32,
}

impl Default for VirtualOptions {
    fn default() -> Self {
        VirtualOptions {
            scanner: ScannerConfig::default(),
            seed: 7,
            noise: 3,
            turned: Orientation::Identity,
            faults: Vec::new(),
            skip_idle: true,
            calibration_samples: 20,
        }
    }
}

/// Why a virtual run failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VirtualError {
    /// The trace's start position is unusable.
    #[error("start position: {0}")]
    StartPosition(String),
    /// A colour-sensing design needs colours in the trace.
    #[error("t = {0} ms: a colour-sensing design needs placements with a colour (simulate with colour sensing)")]
    NeedsColour(u64),
    /// Frames carry no colour.
    #[error("t = {0} ms: frame records carry no colour; the design senses colour")]
    FrameOnColourBoard(u64),
    /// Calibration of the virtual board failed.
    #[error("virtual calibration: {0}")]
    Calibration(#[from] CalError),
    /// Building the scanner failed.
    #[error("{0}")]
    Scanner(String),
}

struct Timeline {
    /// (t, occupied, white) after each change, in time order.
    steps: Vec<(u64, u64, u64)>,
    idx: usize,
}

struct State {
    occupied: u64,
    white: u64,
    timeline: Option<Timeline>,
    /// Sensor index → the game square above it (hw map, then the turn).
    square_of: [u8; 64],
    active_low: bool,
    white_low: bool,
    baseline: [i32; 64],
    gain: [f32; 64],
    faults: [Option<Fault>; 64],
    noise: u16,
    rng: u64,
    // 74HC165
    shift: [u8; 8],
    // MCP23017: register files (BANK = 0), pointer per chip
    regs: [[u8; 0x16]; 4],
    pointer: [u8; 4],
    addresses: [u8; 4],
    // GPIO matrix
    row_levels: u8,
    row_active_low: bool,
}

impl State {
    fn next_rand(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Whether a magnet sits over sensor `i`.
    fn magnet(&self, i: usize) -> bool {
        match self.faults[i] {
            Some(Fault::Stuck(v)) => (v != 0) != self.active_low,
            _ => self.occupied >> self.square_of[i] & 1 == 1,
        }
    }

    /// The electrical level of digital sensor `i` (true = high).
    fn level(&self, i: usize) -> bool {
        if let Some(Fault::Stuck(v)) = self.faults[i] {
            return v != 0;
        }
        self.magnet(i) != self.active_low
    }

    fn adc(&mut self, i: usize) -> u16 {
        let sq = self.square_of[i];
        let mut v = self.baseline[i];
        if self.occupied >> sq & 1 == 1 {
            let white = self.white >> sq & 1 == 1;
            let sign = if white == self.white_low { -1.0 } else { 1.0 };
            let mut g = self.gain[i];
            if let Some(Fault::Weak(f)) = self.faults[i] {
                g *= f;
            }
            v += (sign * g * NOMINAL_RESPONSE as f32) as i32;
        }
        if self.noise > 0 {
            let span = 2 * u64::from(self.noise) + 1;
            v += (self.next_rand() % span) as i32 - i32::from(self.noise);
        }
        if let Some(Fault::Stuck(s)) = self.faults[i] {
            v = i32::from(s);
        }
        v.clamp(0, i32::from(FULL_SCALE)) as u16
    }

    fn advance(&mut self, t: u64) {
        if let Some(tl) = &mut self.timeline {
            while tl.idx + 1 < tl.steps.len() && tl.steps[tl.idx + 1].0 <= t {
                tl.idx += 1;
            }
            let (_, o, w) = tl.steps[tl.idx];
            self.occupied = o;
            self.white = w;
        }
    }
}

/// The simulated board; clone the handle freely (all clones are one board).
#[derive(Clone)]
pub struct VirtualBoard {
    design: HwDesign,
    state: Rc<RefCell<State>>,
}

impl std::fmt::Debug for VirtualBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.state.borrow();
        write!(
            f,
            "VirtualBoard({}, occupied {:016x}, white {:016x})",
            self.design.name, s.occupied, s.white
        )
    }
}

impl VirtualBoard {
    /// An empty board of `design` with the sensor model of `opts`.
    pub fn new(design: &HwDesign, opts: &VirtualOptions) -> VirtualBoard {
        let mut rng = opts.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = || {
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        let baseline: [i32; 64] = std::array::from_fn(|_| 512 + (next() % 41) as i32 - 20);
        let gain: [f32; 64] = std::array::from_fn(|_| 0.75 + (next() % 51) as f32 / 100.0);
        let mut faults = [None; 64];
        for &(i, f) in &opts.faults {
            if let Some(slot) = faults.get_mut(usize::from(i)) {
                *slot = Some(f);
            }
        }
        let turn = opts.turned;
        let (addresses, row_active_low) = match design.bus {
            Bus::Mcp23017 { addresses, .. } => (addresses, true),
            Bus::GpioMatrix { row_active_low, .. } => ([0; 4], row_active_low),
            _ => ([0; 4], true),
        };
        let state = State {
            occupied: 0,
            white: 0,
            timeline: None,
            square_of: std::array::from_fn(|i| turn.inverse().apply(design.map[i]) as u8),
            active_low: design.bus.active_low().unwrap_or(false),
            white_low: design.bus.white_reads_low().unwrap_or(true),
            baseline,
            gain,
            faults,
            noise: opts.noise,
            rng: next() | 1,
            shift: [0; 8],
            regs: [[0; 0x16]; 4],
            pointer: [0; 4],
            addresses,
            row_levels: if row_active_low { 0xFF } else { 0 },
            row_active_low,
        };
        VirtualBoard {
            design: design.clone(),
            state: Rc::new(RefCell::new(state)),
        }
    }

    /// Shows a fixed position (stops following a trace).
    pub fn show(&self, s: Sample) {
        let mut st = self.state.borrow_mut();
        st.timeline = None;
        st.occupied = s.occupied;
        st.white = s.white & s.occupied;
    }

    /// What the board shows now.
    pub fn showing(&self) -> Sample {
        let st = self.state.borrow();
        Sample {
            occupied: st.occupied,
            white: st.white,
        }
    }

    /// Follows the board records of `trace` (those of the design's board):
    /// the position at time t is the start position changed by every
    /// lift / place / frame with a time ≤ t. Call [`VirtualBoard::set_time`].
    pub fn follow(&self, trace: &Trace) -> Result<(), VirtualError> {
        let steps = timeline(trace, &self.design)?;
        let mut st = self.state.borrow_mut();
        st.timeline = Some(Timeline { steps, idx: 0 });
        st.advance(0);
        Ok(())
    }

    /// Moves the followed trace to time `t` (ms; never backwards).
    pub fn set_time(&self, t: u64) {
        self.state.borrow_mut().advance(t);
    }

    /// The time of the next change after `t`, if any.
    pub fn next_change_after(&self, t: u64) -> Option<u64> {
        let st = self.state.borrow();
        let tl = st.timeline.as_ref()?;
        tl.steps[tl.idx..].iter().map(|s| s.0).find(|&x| x > t)
    }

    /// The design.
    pub fn design(&self) -> &HwDesign {
        &self.design
    }

    /// The design's driver on this board's simulated bus.
    pub fn array(&self) -> VirtualArray {
        let spi = |role| VirtualSpi {
            board: self.clone(),
            role,
        };
        let pin = |role| VirtualPin {
            board: self.clone(),
            role,
        };
        match &self.design.bus {
            Bus::Hc165 { .. } => VirtualArray::Hc165(Hc165Chain::new(
                spi(SpiRole::Hc165),
                pin(PinRole::Load),
                NoDelay,
            )),
            Bus::Mcp23017 { addresses, .. } => VirtualArray::Mcp23017(Mcp23017Bank::new(
                VirtualI2c {
                    board: self.clone(),
                },
                *addresses,
            )),
            Bus::GpioMatrix {
                row_active_low,
                settle_us,
                ..
            } => VirtualArray::Matrix(GpioMatrix::new(
                std::array::from_fn(|r| pin(PinRole::Row(r as u8))),
                std::array::from_fn(|c| pin(PinRole::Column(c as u8))),
                NoDelay,
                settle_us.saturating_mul(1000),
                *row_active_low,
            )),
            Bus::Mcp3008 { .. } => {
                VirtualArray::Mcp3008(Mcp3008Array::new(std::array::from_fn(|c| {
                    spi(SpiRole::Mcp3008(c as u8))
                })))
            }
        }
    }
}

/// The start position of a trace.
pub fn start_board(trace: &Trace) -> Result<Board, VirtualError> {
    match &trace.header.start_fen {
        None => Ok(Board::default()),
        Some(f) => {
            let fen: Fen = f
                .parse()
                .map_err(|e| VirtualError::StartPosition(format!("{f}: {e}")))?;
            let pos: Chess = fen
                .into_position(CastlingMode::Standard)
                .map_err(|e| VirtualError::StartPosition(format!("{f}: {e}")))?;
            Ok(pos.board().clone())
        }
    }
}

fn timeline(trace: &Trace, design: &HwDesign) -> Result<Vec<(u64, u64, u64)>, VirtualError> {
    let start = start_board(trace)?;
    let colour = design.is_analog();
    let (mut occ, mut white) = (start.occupied().0, start.white().0);
    let mut steps = vec![(0, occ, white)];
    for r in trace.records.iter().filter(|r| r.board == design.board) {
        match r.kind {
            RecordKind::Lift(sq) => {
                occ &= !(1 << sq as u32);
                white &= !(1 << sq as u32);
            }
            RecordKind::Place {
                square,
                color,
                piece,
            } => {
                let bit = 1u64 << square as u32;
                occ |= bit;
                match color.or(piece.map(|p| p.color)) {
                    Some(c) if c.is_white() => white |= bit,
                    Some(_) => white &= !bit,
                    None if colour => return Err(VirtualError::NeedsColour(r.t)),
                    None => {}
                }
            }
            RecordKind::Frame(bits) => {
                if colour {
                    return Err(VirtualError::FrameOnColourBoard(r.t));
                }
                occ = bits;
            }
            _ => continue,
        }
        match steps.last_mut() {
            Some(last) if last.0 == r.t => *last = (r.t, occ, white),
            _ => steps.push((r.t, occ, white)),
        }
    }
    Ok(steps)
}

mod buses;
mod records;
pub use buses::*;
pub use records::*;
