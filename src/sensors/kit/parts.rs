//! The parts a design is built from, each with what it is for and the
//! supply current the power budget counts for it, with the document the
//! figure comes from.
//!
//! Currents are the datasheets' maximum operating supply current per part
//! (µA, at the part's rated conditions, which are at or above our 3.3 V:
//! a budget that holds there holds at 3.3 V). A builder who buys another
//! part than the one named checks its figure against the same row of its
//! own datasheet.

/// One kind of part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// What to order (a part number or a generic description).
    pub name: &'static str,
    /// What it is, in a few words.
    pub what: &'static str,
    /// Maximum supply current per part on the 3.3 V rail, µA; `None` for
    /// passive parts and parts that draw only through other rows (a pull-up
    /// resistor's current is counted by [`PULL_UP_UA`]).
    pub supply_ua: Option<u32>,
    /// The document and the row the figure comes from.
    pub source: &'static str,
    /// The datasheet's own words for the figure, quoted from the row that
    /// was read; `None` when the row could not be read from any source at
    /// hand (the sheet then says the figure is unconfirmed), and for parts
    /// with no supply current.
    pub checked: Option<&'static str>,
}

/// The omnipolar Hall switch of the occupancy designs: switches on either
/// pole, so both colours' magnets (white north down, black south down) are
/// seen. Bypass capacitor at VCC: "0.01-µF (minimum) ceramic" (the pin
/// table of the DRV5033 datasheet, TI SLIS152).
///
/// Supply current: **unconfirmed**. The datasheet found is TI SLIS152G
/// (May 2014, revised September 2016), its table 6.5 "Electrical
/// Characteristics"; the stored copies at hand give its contents list and
/// its pin table but not the ICC row, so 3.5 mA (the figure this kit has
/// carried) is not checked against it. The DRV5033-Q1 sheet (SLIS164E)
/// was no more complete.
pub const DRV5033: Part = Part {
    name: "TI DRV5033 (e.g. DRV5033FAQLPG, TO-92)",
    what: "omnipolar Hall switch, open-drain output",
    supply_ua: Some(3_500),
    source: "TI DRV5033 datasheet (SLIS152G, 2016), 6.5 Electrical Characteristics, ICC max",
    checked: None,
};

/// The linear (ratiometric) Hall sensor of the colour design: VCC/2 with no
/// field, rising with a south pole at the branded face.
///
/// Supply current: **unconfirmed**. The datasheet found is TI SBAS640B
/// (January 2018, revised April 2021; its first page: "Operates From 3.3-V
/// and 5-V Power Supplies", "Low-Noise Output With ±1-mA Drive"); the ICC
/// row of its Electrical Characteristics table was not in the stored copies
/// at hand, so 10 mA is not checked against it.
pub const DRV5055A1: Part = Part {
    name: "TI DRV5055A1 (e.g. DRV5055A1QLPG, TO-92)",
    what: "ratiometric linear Hall sensor, 3.3 V",
    supply_ua: Some(10_000),
    source: "TI DRV5055 datasheet (SBAS640B, 2021), Electrical Characteristics, ICC max",
    checked: None,
};

/// A reed switch (the diode matrices).
pub const REED: Part = Part {
    name: "reed switch, normally open, 10-15 mm glass",
    what: "closes over a piece's magnet",
    supply_ua: None,
    source: "passive",
    checked: None,
};

/// The matrix diode.
pub const DIODE: Part = Part {
    name: "1N4148",
    what: "signal diode, one per switch (no ghosting)",
    supply_ua: None,
    source: "passive",
    checked: None,
};

/// The shift register of `hc165-chain`.
///
/// Supply current: **unconfirmed**. The datasheet found is TI SCLS116G
/// (December 1982, revised August 2013); the stored copy at hand gives its
/// absolute maximum ratings and recommended operating conditions (VCC 2 to
/// 6 V) but not the ICC row of its electrical characteristics, nor does TI's
/// CD74HC165 sheet (SCHS156D) in the copy at hand, so 80 µA (static, VCC =
/// 6 V, -40 to 85 °C) is not checked against it. The newest revision
/// found, SCLS116H (December 2015), has the row in its table 6.7
/// "Electrical Characteristics, SN74HC165"; only its contents list was at
/// hand. A static figure: the
/// clocked current (CPD × VCC² × f) comes on top and stays far below a
/// milliampere at the scan's SPI clock.
pub const HC165: Part = Part {
    name: "74HC165 (DIP-16 or SOIC-16)",
    what: "8-bit parallel-in serial-out shift register",
    supply_ua: Some(80),
    source: "TI SN74HC165 datasheet (SCLS116G, 2013), ICC, VCC = 6 V, -40 to 85 °C",
    checked: None,
};

/// The I/O expander of `mcp23017-bank`.
///
/// Supply current: confirmed, Microchip DS20001952C (2005-2016), Table 1-1
/// "DC Characteristics" (1.8 V ≤ VDD ≤ 5.5 V, -40 °C ≤ TA ≤ +125 °C),
/// parameter D004: "Supply Current IDD — — 1 mA SCL/SCK = 1 MHz". The Pi's
/// I2C runs at 100-400 kHz, under the row's condition.
pub const MCP23017: Part = Part {
    name: "Microchip MCP23017 (DIP-28)",
    what: "16-bit I2C I/O expander",
    supply_ua: Some(1_000),
    source:
        "Microchip MCP23017 datasheet (DS20001952C), Table 1-1 DC Characteristics, D004 IDD max",
    checked: Some("D004 Supply Current IDD, max 1 mA, SCL/SCK = 1 MHz"),
};

/// The ADC of `mcp3008-hall`.
///
/// Supply current: confirmed from the datasheet's first page, Microchip
/// DS21295D (2008), "Features": "500 µA max. active current at 5V" (and
/// "5 nA typical standby current, 2 µA max."). The row of its electrical
/// characteristics table was not in the copies at hand; the features line
/// states the same maximum. The reference input (VREF, tied to the same
/// 3.3 V rail) draws its own current, not in this figure.
pub const MCP3008: Part = Part {
    name: "Microchip MCP3008 (DIP-16)",
    what: "8-channel 10-bit SPI ADC",
    supply_ua: Some(500),
    source: "Microchip MCP3008 datasheet (DS21295D), Features: max. active current at VDD = 5 V",
    checked: Some("500 µA max. active current at 5V"),
};

/// Pull-up resistor of an open-drain sensor line.
pub const R10K: Part = Part {
    name: "10 kΩ resistor (or 9-pin 10 kΩ networks, 8 per network)",
    what: "pull-up to 3.3 V of a sensor line",
    supply_ua: None,
    source: "passive",
    checked: None,
};

/// Decoupling capacitor.
pub const C100N: Part = Part {
    name: "100 nF ceramic capacitor",
    what: "decoupling at each chip's and each sensor's VCC",
    supply_ua: None,
    source: "passive",
    checked: None,
};

/// A piece's magnet (the main boards).
pub const MAGNET_PIECE: Part = Part {
    name: "neodymium disc magnet 8 × 3 mm, N42",
    what: "one in each piece's base (white: north down, black: south down)",
    supply_ua: None,
    source: "passive",
    checked: None,
};

/// A peg's magnet (the tactile board).
pub const MAGNET_PEG: Part = Part {
    name: "neodymium disc magnet 4 × 2 mm",
    what: "one in each peg's base",
    supply_ua: None,
    source: "passive",
    checked: None,
};

/// The ribbon to the Pi.
pub const HEADER: Part = Part {
    name: "2 × 20 female header with a 40-way IDC ribbon",
    what: "the Pi's 40-pin header to the board",
    supply_ua: None,
    source: "passive",
    checked: None,
};

/// The 3.3 V regulator for the sensors.
pub const REGULATOR: Part = Part {
    name: "3.3 V regulator module, input 5 V (rating: the power budget below)",
    what: "the sensors' own 3.3 V rail, fed from the Pi's 5 V pins",
    supply_ua: None,
    source: "passive",
    checked: None,
};

/// The built-in clock's buttons.
pub const BUTTON: Part = Part {
    name: "push button, normally open (a chess clock's lever switch)",
    what: "a player's clock button, between its GPIO and GND",
    supply_ua: None,
    source: "passive",
    checked: None,
};

/// The built-in clock's display.
pub const LCD: Part = Part {
    name: "16 × 2 HD44780 LCD with a PCF8574 I2C backpack (\"LCM1602 IIC\")",
    what: "the built-in clock's display",
    supply_ua: None,
    source: "its module's own sheet: powered from 5 V, backlight included",
    checked: None,
};

/// The current through one closed open-drain sensor's 10 kΩ pull-up at
/// 3.3 V, µA (Ohm's law: 3.3 V / 10 kΩ).
pub const PULL_UP_UA: u32 = 330;
