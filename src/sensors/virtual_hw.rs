//! Virtual hardware: a simulated board behind simulated buses that
//! implement the embedded-hal traits (SpiDevice, I2c, InputPin, OutputPin),
//! so the real drivers, calibration and debounce run end to end without a
//! Pi.
//!
//! Length: one simulated board with every bus the drivers use (SPI, I2C,
//! GPIO) and its tests; splitting per bus would scatter one model.
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

use super::calibration::{calibrate, CalError, Calibration, Operator, Orientation, Step};
use super::debounce::Sample;
use super::gpio_matrix::GpioMatrix;
use super::hc165::Hc165Chain;
use super::hw::{Bus, HwDesign};
use super::mcp23017::{Mcp23017Bank, GPIOA, GPPUA};
use super::mcp3008::{Mcp3008Array, FULL_SCALE};
use super::scanner::{Scanner, ScannerConfig};
use super::{NoDelay, RawScan, ReadingKind, SensorArray};
use crate::trace::{Record, RecordKind, Trace};
use embedded_hal::digital::{self, ErrorType as PinErrorType};
use embedded_hal::i2c::{self, Operation as I2cOp};
use embedded_hal::spi::{self, Operation as SpiOp};
use shakmaty::fen::Fen;
use shakmaty::{Board, CastlingMode, Chess, Position};
use std::cell::RefCell;
use std::convert::Infallible;
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

/// What a simulated SPI device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpiRole {
    /// The 74HC165 chain (chip select on CLK INH̅).
    Hc165,
    /// MCP3008 number n.
    Mcp3008(u8),
}

/// A simulated SPI device on the board.
pub struct VirtualSpi {
    board: VirtualBoard,
    role: SpiRole,
}

impl spi::ErrorType for VirtualSpi {
    type Error = Infallible;
}

impl spi::SpiDevice for VirtualSpi {
    fn transaction(&mut self, operations: &mut [SpiOp<'_, u8>]) -> Result<(), Infallible> {
        let mut st = self.board.state.borrow_mut();
        match self.role {
            SpiRole::Hc165 => {
                // Each byte clocked out shifts the chain by 8; zeros come in
                // at SER of the last chip.
                let mut pos = 0usize;
                for op in operations.iter_mut() {
                    let buf: &mut [u8] = match op {
                        SpiOp::Read(b) => b,
                        SpiOp::Transfer(r, _) => r,
                        SpiOp::TransferInPlace(b) => b,
                        SpiOp::Write(w) => {
                            pos += w.len();
                            continue;
                        }
                        SpiOp::DelayNs(_) => continue,
                    };
                    for b in buf.iter_mut() {
                        *b = st.shift.get(pos).copied().unwrap_or(0);
                        pos += 1;
                    }
                }
            }
            SpiRole::Mcp3008(chip) => {
                for op in operations.iter_mut() {
                    let (rx, tx): (&mut [u8], [u8; 3]) = match op {
                        SpiOp::Transfer(r, w) => {
                            let mut t = [0u8; 3];
                            for (d, s) in t.iter_mut().zip(w.iter()) {
                                *d = *s;
                            }
                            (r, t)
                        }
                        SpiOp::TransferInPlace(b) => {
                            let mut t = [0u8; 3];
                            for (d, s) in t.iter_mut().zip(b.iter()) {
                                *d = *s;
                            }
                            (b, t)
                        }
                        SpiOp::Read(b) => (b, [0; 3]),
                        _ => continue,
                    };
                    // Start bit in byte 0, SGL/DIFF D2 D1 D0 in byte 1's top nibble.
                    let code = if tx[0] & 1 == 1 && tx[1] & 0x80 != 0 {
                        let ch = usize::from(tx[1] >> 4 & 7);
                        st.adc(usize::from(chip) * 8 + ch)
                    } else {
                        0
                    };
                    let out = [0u8, (code >> 8) as u8 & 0x03, code as u8];
                    for (d, s) in rx.iter_mut().zip(out) {
                        *d = s;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The simulated I2C bus with the design's MCP23017s on it.
pub struct VirtualI2c {
    board: VirtualBoard,
}

impl i2c::ErrorType for VirtualI2c {
    type Error = i2c::ErrorKind;
}

impl i2c::I2c for VirtualI2c {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [I2cOp<'_>],
    ) -> Result<(), i2c::ErrorKind> {
        let mut st = self.board.state.borrow_mut();
        let chip = st.addresses.iter().position(|&a| a == address).ok_or(
            i2c::ErrorKind::NoAcknowledge(i2c::NoAcknowledgeSource::Address),
        )?;
        for op in operations.iter_mut() {
            match op {
                I2cOp::Write(bytes) => {
                    if let Some((&reg, data)) = bytes.split_first() {
                        let mut p = reg;
                        for &b in data {
                            if let Some(r) = st.regs[chip].get_mut(usize::from(p)) {
                                *r = b;
                            }
                            p = p.wrapping_add(1);
                        }
                        st.pointer[chip] = if data.is_empty() { reg } else { p };
                    }
                }
                I2cOp::Read(buf) => {
                    let mut p = st.pointer[chip];
                    for b in buf.iter_mut() {
                        *b = if p == GPIOA || p == GPIOA + 1 {
                            let port = usize::from(p - GPIOA);
                            let pullups = st.regs[chip][usize::from(GPPUA) + port];
                            let mut v = 0u8;
                            for bit in 0..8 {
                                let i = chip * 16 + port * 8 + bit;
                                // Open drain: low with a magnet, else the pull-up (or floating: 0).
                                let high = if st.active_low {
                                    !st.magnet(i) && pullups >> bit & 1 == 1
                                } else {
                                    st.level(i)
                                };
                                v |= u8::from(high) << bit;
                            }
                            v
                        } else {
                            st.regs[chip].get(usize::from(p)).copied().unwrap_or(0)
                        };
                        p = p.wrapping_add(1);
                    }
                    st.pointer[chip] = p;
                }
            }
        }
        Ok(())
    }
}

/// What a simulated pin is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinRole {
    /// 74HC165 SH/LD̅: a low level latches the sensors.
    Load,
    /// Matrix row n (output).
    Row(u8),
    /// Matrix column n (input).
    Column(u8),
}

/// A simulated GPIO pin.
pub struct VirtualPin {
    board: VirtualBoard,
    role: PinRole,
}

impl PinErrorType for VirtualPin {
    type Error = Infallible;
}

impl digital::OutputPin for VirtualPin {
    fn set_low(&mut self) -> Result<(), Infallible> {
        let mut st = self.board.state.borrow_mut();
        match self.role {
            PinRole::Load => {
                // Parallel load: sensor index i = shift position i; byte k,
                // bit 7 - j holds index 8k + j.
                let mut bytes = [0u8; 8];
                for (i, b) in (0..64).map(|i| (i, st.level(i))) {
                    bytes[i / 8] |= u8::from(b) << (7 - i % 8);
                }
                st.shift = bytes;
            }
            PinRole::Row(r) => st.row_levels &= !(1 << r),
            PinRole::Column(_) => {}
        }
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        let mut st = self.board.state.borrow_mut();
        if let PinRole::Row(r) = self.role {
            st.row_levels |= 1 << r;
        }
        Ok(())
    }
}

impl digital::InputPin for VirtualPin {
    fn is_high(&mut self) -> Result<bool, Infallible> {
        let st = self.board.state.borrow();
        let PinRole::Column(c) = self.role else {
            return Ok(false);
        };
        // The pull keeps the column at the inactive level; a closed sensor on
        // a selected row (through its diode) pulls it to the row's level.
        let inactive_high = st.row_active_low;
        let selected = if st.row_active_low {
            !st.row_levels
        } else {
            st.row_levels
        };
        let mut pulled = false;
        for r in 0..8 {
            if selected >> r & 1 == 1 && st.magnet(r * 8 + usize::from(c)) {
                pulled = true;
            }
        }
        Ok(if pulled {
            !inactive_high
        } else {
            inactive_high
        })
    }

    fn is_low(&mut self) -> Result<bool, Infallible> {
        self.is_high().map(|h| !h)
    }
}

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
