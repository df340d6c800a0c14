//! Board sensing hardware: drivers over embedded-hal 1.0, debounce, the
//! scanner that turns scans into trace [`Record`](crate::trace::Record)s,
//! hardware definitions (`hw/*.toml`), calibration and sensor health, the
//! simulated bus, and (feature `rpi`) the Raspberry Pi backend.
//!
//! The data's way:
//!
//! ```text
//! driver (74HC165 / MCP23017 / GPIO matrix / MCP3008)   RawScan, sensor-index order
//!   → Classifier (active level, or calibrated ADC thresholds)  present / white bits
//!   → SquareMap (hw map ∘ calibrated orientation)        square order, a1 = 0 … h8 = 63
//!   → Debouncer (N consecutive equal scans)              Changes
//!   → Records (lift / place with colour) at the injected time t (ms)
//! ```
//!
//! A live board and a recorded trace are thus the same input to everything
//! above. Drivers only know embedded-hal traits: the Pi (module `rpi`, feature
//! `rpi`), linux-embedded-hal / gpiocdev, and the simulated bus
//! ([`virtual_hw`]) are interchangeable implementations.
//!
//! Depends on `board` (squares) and `trace` (the records it emits), the
//! modules below it in docs/dev/architecture.md's map. It must not depend
//! on `recognize` or `arbiter` (the sensors report, the arbiter
//! interprets), on `sim`, `config` (a design's `hw/*.toml` is read here) or
//! on anything above them.

pub mod calibration;
pub mod debounce;
pub mod gpio_matrix;
pub mod hc165;
pub mod hw;
pub mod kit;
pub mod live;
pub mod mcp23017;
pub mod mcp3008;
#[cfg(feature = "rpi")]
pub mod rpi;
pub mod scanner;
pub mod virtual_hw;
pub mod watch;

pub use calibration::{Calibration, HealthReport};
pub use debounce::{Changes, Debouncer, Sample};
pub use hw::{Bus, HwDesign, HwError};
pub use scanner::{Scanner, ScannerConfig};
pub use virtual_hw::{virtual_records, VirtualBoard, VirtualOptions};

use std::fmt;

/// Number of sensors on a board (one per square).
pub const SENSORS: usize = 64;

/// What a driver reads: switch levels or ADC codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadingKind {
    /// One bit per sensor ([`RawScan::bits`]): the electrical level of the
    /// sensor's input, 1 = high. Whether high means "magnet" is the hw
    /// design's `active_low`.
    Digital,
    /// One 10-bit ADC code per sensor ([`RawScan::levels`], 0 ..= 1023).
    Analog,
}

/// The raw result of one scan, in sensor-index order (the order the hw
/// design's map numbers the sensors: shift order, expander pin, matrix
/// row × 8 + column, ADC chip × 8 + channel).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawScan {
    /// Digital arrays: bit i is the level of sensor i (1 = high).
    pub bits: u64,
    /// Analog arrays: the ADC code of sensor i (0 ..= 1023).
    pub levels: [u16; SENSORS],
}

impl Default for RawScan {
    fn default() -> Self {
        RawScan {
            bits: 0,
            levels: [0; SENSORS],
        }
    }
}

/// A sensor array: one driver instance covering the 64 squares.
pub trait SensorArray {
    /// The bus or pin error.
    type Error: fmt::Debug;

    /// What [`SensorArray::read`] fills in.
    fn kind(&self) -> ReadingKind;

    /// Configures the chips (pull-ups, pin directions). Called once before
    /// the first read; idempotent.
    fn init(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Reads every sensor once into `raw` (only the field of
    /// [`SensorArray::kind`] is written). Must not allocate.
    fn read(&mut self, raw: &mut RawScan) -> Result<(), Self::Error>;
}

/// A driver error: the bus (SPI, I2C) or a pin failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverError<B, P> {
    /// The SPI or I2C transfer failed.
    Bus(B),
    /// A GPIO pin failed.
    Pin(P),
}

impl<B: fmt::Debug, P: fmt::Debug> fmt::Display for DriverError<B, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverError::Bus(e) => write!(f, "bus error: {e:?}"),
            DriverError::Pin(e) => write!(f, "pin error: {e:?}"),
        }
    }
}

/// A sensor-array error as text (for arrays chosen at run time).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SensorError(pub String);

trait ErasedArray {
    fn kind(&self) -> ReadingKind;
    fn init(&mut self) -> Result<(), SensorError>;
    fn read(&mut self, raw: &mut RawScan) -> Result<(), SensorError>;
}

impl<A: SensorArray> ErasedArray for A {
    fn kind(&self) -> ReadingKind {
        SensorArray::kind(self)
    }
    fn init(&mut self) -> Result<(), SensorError> {
        SensorArray::init(self).map_err(|e| SensorError(format!("{e:?}")))
    }
    fn read(&mut self, raw: &mut RawScan) -> Result<(), SensorError> {
        SensorArray::read(self, raw).map_err(|e| SensorError(format!("{e:?}")))
    }
}

/// Any sensor array behind one type (the driver is chosen from the hw file
/// at run time). Costs one virtual call per scan.
pub struct DynArray(Box<dyn ErasedArray>);

impl DynArray {
    /// Wraps a driver.
    pub fn new<A: SensorArray + 'static>(array: A) -> DynArray {
        DynArray(Box::new(array))
    }
}

impl fmt::Debug for DynArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DynArray({:?})", self.0.kind())
    }
}

impl SensorArray for DynArray {
    type Error = SensorError;
    fn kind(&self) -> ReadingKind {
        self.0.kind()
    }
    fn init(&mut self) -> Result<(), SensorError> {
        self.0.init()
    }
    fn read(&mut self, raw: &mut RawScan) -> Result<(), SensorError> {
        self.0.read(raw)
    }
}

/// A delay that does not wait (the simulated bus needs no settling time).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoDelay;

impl embedded_hal::delay::DelayNs for NoDelay {
    fn delay_ns(&mut self, _ns: u32) {}
}
