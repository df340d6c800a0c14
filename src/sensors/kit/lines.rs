//! The kit's parts list and lines as data: the Pi's 40-pin header (BCM
//! GPIO → physical pin, the Raspberry Pi documentation's pinout, as
//! `hw/README.md` prints it), a line from the header, a chip's pins, a
//! sensor's line, a row of the bill of materials, the clock's wiring.

use super::parts::Part;

/// The header's pins for BCM GPIO 0 … 27 (physical pin numbers 1–40).
const HEADER_PINS: [u8; 28] = [
    27, 28, 3, 5, 7, 29, 31, 26, 24, 21, 19, 23, 32, 33, 8, 10, 36, 11, 12, 35, 38, 40, 15, 16, 18,
    22, 37, 13,
];
/// The header's 3.3 V pins.
pub const PINS_3V3: [u8; 2] = [1, 17];
/// The header's 5 V pins.
pub const PINS_5V: [u8; 2] = [2, 4];
/// The header's ground pins.
pub const PINS_GND: [u8; 8] = [6, 9, 14, 20, 25, 30, 34, 39];

/// The physical pin (1–40) of BCM GPIO `gpio` on the 40-pin header.
pub fn header_pin(gpio: u8) -> Option<u8> {
    HEADER_PINS.get(gpio as usize).copied()
}

/// The BCM GPIO on physical pin `pin`, if it is one.
pub fn gpio_at(pin: u8) -> Option<u8> {
    HEADER_PINS.iter().position(|&p| p == pin).map(|g| g as u8)
}

/// A kit that cannot be made: what is wrong, naming the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct KitError(pub String);

/// One line between the Pi's header and the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiLine {
    /// Physical pin, 1–40.
    pub pin: u8,
    /// BCM GPIO number (`None`: a power or ground pin).
    pub gpio: Option<u8>,
    /// The signal (`SCLK`, `row 0 (rank 1)`, `3.3 V`).
    pub signal: String,
    /// Where it goes on the board.
    pub to: String,
}

/// One pin of a chip and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChipPin {
    /// The chip's pin number.
    pub pin: u8,
    /// Its name in the datasheet.
    pub name: String,
    /// Where it goes.
    pub to: String,
}

/// One chip of the design.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chip {
    /// Reference designator (`U1`).
    pub reference: String,
    /// The part.
    pub part: Part,
    /// What it does here (`chip 0: sensors 0–7, rank 1`).
    pub role: String,
    /// Every pin used.
    pub pins: Vec<ChipPin>,
}

/// One sensor: its index in the driver's read order, its square and the
/// line it is read on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SensorLine {
    /// Sensor index (the driver's read order, `hw/README.md`).
    pub index: u8,
    /// The square it watches (`a1`).
    pub square: String,
    /// The line it is read on, short (`U1 H`, `row 0 × col 3`, `U2 CH5`).
    pub line: String,
}

/// One row of the bill of materials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BomLine {
    /// How many.
    pub count: u32,
    /// The part.
    pub part: Part,
    /// Where it goes in this design.
    pub use_: String,
}

/// The built-in clock's wiring (`[clock] device = "builtin"`,
/// `src/clock/builtin.rs`): two buttons to GND with the Pi's pull-ups, the
/// LCD's backpack on I2C1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockWiring {
    /// White's button, BCM GPIO (`[clock] white_pin`).
    pub white_pin: u8,
    /// Black's button, BCM GPIO (`[clock] black_pin`).
    pub black_pin: u8,
    /// The PCF8574 backpack's 7-bit I2C address (`[clock] lcd_address`).
    pub lcd_address: u8,
    /// Whether the pins were given (a config) or proposed by the kit.
    pub proposed: bool,
}

/// SPI pins (SCLK, MOSI, MISO, CE0, CE1) of bus 0 and 1.
pub(super) fn spi_pins(bus: u8) -> Result<[u8; 5], KitError> {
    match bus {
        0 => Ok([11, 10, 9, 8, 7]),
        1 => Ok([21, 20, 19, 18, 17]),
        b => Err(KitError(format!(
            "key 'bus.spi_bus': SPI{b} is not on the 40-pin header's documented pins (0 or 1)"
        ))),
    }
}

pub(super) fn gpio_line(gpio: u8, signal: impl Into<String>, to: impl Into<String>) -> PiLine {
    PiLine {
        pin: header_pin(gpio).unwrap_or(0),
        gpio: Some(gpio),
        signal: signal.into(),
        to: to.into(),
    }
}

pub(super) fn pin(pin: u8, name: &str, to: impl Into<String>) -> ChipPin {
    ChipPin {
        pin,
        name: name.to_owned(),
        to: to.into(),
    }
}

pub(super) fn gpio_text(gpio: u8) -> String {
    format!("GPIO {gpio} (pin {})", header_pin(gpio).unwrap_or(0))
}
