//! The builder's kit of a board design (issue 43 §5), made from the same
//! `hw/*.toml` the daemon reads: every line from the Pi's 40-pin header to
//! the chips and from the chips to each square's sensor, the bill of
//! materials, the 3.3 V power budget, the Pi models and the built-in
//! clock's wiring. `eboard kit` writes it as an SVG diagram ([`svg`]) and a
//! Markdown sheet ([`sheet`]); `hw/kit/` holds both for the designs in
//! `hw/`, and a test regenerates them, so they cannot drift from the TOML.
//!
//! Sources: the header's BCM GPIO → physical pin map and the SPI0 / SPI1 /
//! I2C1 pins are the Raspberry Pi documentation's ("GPIO and the 40-pin
//! header"; `hw/README.md` has the same table); the chips' pin-outs are
//! their datasheets' (74HC165: TI SCLS116; MCP23017: Microchip
//! DS20001952; MCP3008: Microchip DS21295), as `hw/README.md` lists them;
//! the parts' currents are in [`parts`].
//!
//! Depends on [`super::hw`] only. Its data (the header, lines, pins, the
//! bill of materials) is in `lines`.

mod lines;
pub mod parts;
pub mod sheet;
pub mod svg;

pub use lines::{
    gpio_at, header_pin, BomLine, Chip, ChipPin, ClockWiring, KitError, PiLine, SensorLine,
    PINS_3V3, PINS_5V, PINS_GND,
};
use lines::{gpio_line, gpio_text, pin, spi_pins};

use super::hw::{Bus, HwDesign};
use crate::trace::BoardId;

/// Free GPIOs the kit proposes for the clock's buttons, in this order
/// (the example config's 17 and 27 first).
const CLOCK_PIN_PREFERENCE: [u8; 10] = [17, 27, 22, 23, 24, 14, 15, 7, 4, 18];

/// A design's kit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kit {
    /// The design's name (`hc165-chain`).
    pub design: String,
    /// Its one line for people.
    pub description: String,
    /// The main board or the tactile peg board.
    pub board: BoardId,
    /// The Pi's header lines used, in pin order.
    pub pi: Vec<PiLine>,
    /// The chips, `U1` first.
    pub chips: Vec<Chip>,
    /// The 64 sensors in index order.
    pub sensors: Vec<SensorLine>,
    /// The bill of materials.
    pub bom: Vec<BomLine>,
    /// The 3.3 V rail's worst case, µA: every part at its maximum, and every
    /// pull-up of a square under a piece conducting (32 pieces).
    pub budget_ua: u32,
    /// The built-in clock's wiring.
    pub clock: ClockWiring,
    /// Remarks the builder must read (shared buses, 5 V modules).
    pub notes: Vec<String>,
}

impl Kit {
    /// The kit of `design`; `clock`: the built-in clock's configured pins
    /// (`None`: the kit proposes free ones). Errors name the key: a pin off
    /// the header, an SPI bus without documented pins, a clock pin the
    /// design already uses, an LCD address one of its chips has.
    pub fn of(design: &HwDesign, clock: Option<ClockWiring>) -> Result<Kit, KitError> {
        let mut pi = Vec::new();
        let mut chips = Vec::new();
        let mut line_of: Vec<String> = vec![String::new(); 64];
        let mut bom = Vec::new();
        let mut notes = Vec::new();
        let mut i2c_addresses: Vec<u8> = Vec::new();
        let sensors_part;
        let mut chips_ua = 0u32;
        let mut pull_ups_ua = 0u32;
        match &design.bus {
            Bus::Hc165 {
                spi_bus,
                chip_select,
                load_pin,
                ..
            } => {
                let [sclk, _mosi, miso, ce0, ce1] = spi_pins(*spi_bus)?;
                let ce = match chip_select {
                    0 => ce0,
                    1 => ce1,
                    c => {
                        return Err(KitError(format!(
                            "key 'bus.chip_select': CE{c} is not on the header (0 or 1)"
                        )))
                    }
                };
                pi.push(gpio_line(
                    sclk,
                    format!("SPI{spi_bus} SCLK"),
                    "CLK (pin 2) of U1–U8",
                ));
                pi.push(gpio_line(
                    miso,
                    format!("SPI{spi_bus} MISO"),
                    "QH (pin 9) of U1",
                ));
                pi.push(gpio_line(
                    ce,
                    format!("SPI{spi_bus} CE{chip_select}"),
                    "CLK INH (pin 15) of U1–U8",
                ));
                pi.push(gpio_line(*load_pin, "load", "SH/LD̅ (pin 1) of U1–U8"));
                for k in 0..8u8 {
                    let r = format!("U{}", k + 1);
                    let mut pins = vec![
                        pin(1, "SH/LD̅", gpio_text(*load_pin)),
                        pin(2, "CLK", gpio_text(sclk)),
                        pin(8, "GND", "GND"),
                        pin(
                            9,
                            "QH",
                            if k == 0 {
                                gpio_text(miso)
                            } else {
                                format!("SER (pin 10) of U{k}")
                            },
                        ),
                        pin(
                            10,
                            "SER",
                            if k == 7 {
                                "GND".to_owned()
                            } else {
                                format!("QH (pin 9) of U{}", k + 2)
                            },
                        ),
                        pin(15, "CLK INH", gpio_text(ce)),
                        pin(16, "VCC", "3.3 V, 100 nF to GND"),
                    ];
                    // Shift order: input H leaves first (sensor 8k), A last.
                    for (j, (name, p)) in [
                        ("H", 6u8),
                        ("G", 5),
                        ("F", 4),
                        ("E", 3),
                        ("D", 14),
                        ("C", 13),
                        ("B", 12),
                        ("A", 11),
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        let index = 8 * k as usize + j;
                        line_of[index] = format!("{r} {name}");
                        pins.push(pin(
                            p,
                            name,
                            format!("sensor {index} ({}), 10 kΩ to 3.3 V", design.map[index]),
                        ));
                    }
                    pins.sort_by_key(|p| p.pin);
                    chips.push(Chip {
                        reference: r,
                        part: parts::HC165,
                        role: format!("chip {k}: sensors {}–{}", 8 * k, 8 * k + 7),
                        pins,
                    });
                }
                chips_ua = 8 * parts::HC165.supply_ua.unwrap_or(0);
                pull_ups_ua = 32 * parts::PULL_UP_UA;
                sensors_part = parts::DRV5033;
                bom.push(BomLine {
                    count: 8,
                    part: parts::HC165,
                    use_: "U1–U8 (U1 on MISO)".into(),
                });
                bom.push(BomLine {
                    count: 64,
                    part: parts::R10K,
                    use_: "a pull-up on each sensor line".into(),
                });
                bom.push(BomLine {
                    count: 72,
                    part: parts::C100N,
                    use_: "one at each chip's VCC, one at each sensor's VCC".into(),
                });
            }
            Bus::Mcp23017 {
                i2c_bus, addresses, ..
            } => {
                if *i2c_bus != 1 {
                    return Err(KitError(format!(
                        "key 'bus.i2c_bus': I2C{i2c_bus} is not the header's documented I2C (1: GPIO 2 / 3)"
                    )));
                }
                pi.push(gpio_line(2, "I2C1 SDA", "SDA (pin 13) of U1–U4"));
                pi.push(gpio_line(3, "I2C1 SCL", "SCL (pin 12) of U1–U4"));
                for (k, addr) in addresses.iter().enumerate() {
                    let r = format!("U{}", k + 1);
                    let a = addr - 0x20;
                    let level = |bit: u8| if a >> bit & 1 == 1 { "3.3 V" } else { "GND" };
                    let mut pins = vec![
                        pin(9, "VDD", "3.3 V, 100 nF to GND"),
                        pin(10, "VSS", "GND"),
                        pin(12, "SCL", gpio_text(3)),
                        pin(13, "SDA", gpio_text(2)),
                        pin(15, "A0", level(0)),
                        pin(16, "A1", level(1)),
                        pin(17, "A2", level(2)),
                        pin(18, "RESET̅", "3.3 V"),
                    ];
                    for j in 0..16usize {
                        let index = 16 * k + j;
                        let (name, p) = if j < 8 {
                            (format!("GPA{j}"), 21 + j as u8)
                        } else {
                            (format!("GPB{}", j - 8), 1 + (j - 8) as u8)
                        };
                        line_of[index] = format!("{r} {name}");
                        pins.push(pin(
                            p,
                            &name,
                            format!("sensor {index} ({}), internal pull-up", design.map[index]),
                        ));
                    }
                    pins.sort_by_key(|p| p.pin);
                    chips.push(Chip {
                        reference: r,
                        part: parts::MCP23017,
                        role: format!(
                            "chip {k} at {addr:#04x}: sensors {}–{}",
                            16 * k,
                            16 * k + 15
                        ),
                        pins,
                    });
                    i2c_addresses.push(*addr);
                }
                chips_ua = 4 * parts::MCP23017.supply_ua.unwrap_or(0);
                // The internal pull-ups (100 kΩ, the datasheet's nominal) of
                // the squares under the 32 pieces: 3.3 V / 100 kΩ = 33 µA.
                pull_ups_ua = 32 * 33;
                sensors_part = parts::DRV5033;
                bom.push(BomLine {
                    count: 4,
                    part: parts::MCP23017,
                    use_: "U1–U4".into(),
                });
                bom.push(BomLine {
                    count: 68,
                    part: parts::C100N,
                    use_: "one at each chip's VDD, one at each sensor's VCC".into(),
                });
                notes.push("No pull-ups on the sensor lines: the driver enables the MCP23017's own (GPPUA/GPPUB). The Pi has 1.8 kΩ pull-ups on GPIO 2/3 already.".into());
            }
            Bus::GpioMatrix { rows, columns, .. } => {
                for (r, g) in rows.iter().enumerate() {
                    pi.push(gpio_line(
                        *g,
                        format!("row {r}"),
                        format!("cathodes of row {r}'s diodes"),
                    ));
                }
                for (c, g) in columns.iter().enumerate() {
                    pi.push(gpio_line(
                        *g,
                        format!("column {c}"),
                        format!("switches of column {c} (internal pull-up)"),
                    ));
                }
                for (index, line) in line_of.iter_mut().enumerate() {
                    *line = format!("R{} C{}", index / 8, index % 8);
                }
                sensors_part = parts::REED;
                bom.push(BomLine {
                    count: 64,
                    part: parts::DIODE,
                    use_: "one per switch: anode at the column, cathode at the row".into(),
                });
            }
            Bus::Mcp3008 {
                spi_bus,
                chip_selects,
                ..
            } => {
                let [sclk, mosi, miso, _, _] = spi_pins(*spi_bus)?;
                pi.push(gpio_line(
                    sclk,
                    format!("SPI{spi_bus} SCLK"),
                    "CLK (pin 13) of U1–U8",
                ));
                pi.push(gpio_line(
                    mosi,
                    format!("SPI{spi_bus} MOSI"),
                    "DIN (pin 11) of U1–U8",
                ));
                pi.push(gpio_line(
                    miso,
                    format!("SPI{spi_bus} MISO"),
                    "DOUT (pin 12) of U1–U8",
                ));
                for (k, cs) in chip_selects.iter().enumerate() {
                    let r = format!("U{}", k + 1);
                    pi.push(gpio_line(
                        *cs,
                        format!("chip select {k}"),
                        format!("CS̅ (pin 10) of {r}"),
                    ));
                    let mut pins = vec![
                        pin(9, "DGND", "GND"),
                        pin(10, "CS̅", gpio_text(*cs)),
                        pin(11, "DIN", gpio_text(mosi)),
                        pin(12, "DOUT", gpio_text(miso)),
                        pin(13, "CLK", gpio_text(sclk)),
                        pin(14, "AGND", "GND"),
                        pin(15, "VREF", "3.3 V"),
                        pin(16, "VDD", "3.3 V, 100 nF to GND"),
                    ];
                    for ch in 0..8usize {
                        let index = 8 * k + ch;
                        line_of[index] = format!("{r} CH{ch}");
                        pins.push(pin(
                            1 + ch as u8,
                            &format!("CH{ch}"),
                            format!("sensor {index} ({})", design.map[index]),
                        ));
                    }
                    pins.sort_by_key(|p| p.pin);
                    chips.push(Chip {
                        reference: r,
                        part: parts::MCP3008,
                        role: format!("ADC {k}: sensors {}–{}", 8 * k, 8 * k + 7),
                        pins,
                    });
                }
                chips_ua = 8 * parts::MCP3008.supply_ua.unwrap_or(0);
                sensors_part = parts::DRV5055A1;
                bom.push(BomLine {
                    count: 8,
                    part: parts::MCP3008,
                    use_: "U1–U8".into(),
                });
                bom.push(BomLine {
                    count: 72,
                    part: parts::C100N,
                    use_: "one at each ADC's VDD, one at each sensor's VCC".into(),
                });
            }
        }
        for g in pi.iter().filter_map(|l| l.gpio) {
            if header_pin(g).is_none() {
                return Err(KitError(format!(
                    "GPIO {g} is not on the 40-pin header (GPIO 0–27)"
                )));
            }
        }
        // Sensors and the parts every design has.
        let sensors_ua = 64 * sensors_part.supply_ua.unwrap_or(0);
        let sensor_use = match &design.bus {
            Bus::GpioMatrix { .. } => {
                "one under each square, between its row's diode and its column"
            }
            _ => "one under each square's centre, branded face up",
        };
        bom.insert(
            0,
            BomLine {
                count: 64,
                part: sensors_part,
                use_: sensor_use.into(),
            },
        );
        let magnet = if design.board == BoardId::Tactile {
            BomLine {
                count: 32,
                part: parts::MAGNET_PEG,
                use_: "one per peg (order spares)".into(),
            }
        } else {
            BomLine {
                count: 32,
                part: parts::MAGNET_PIECE,
                use_: "one per piece (order spares)".into(),
            }
        };
        bom.push(magnet);
        bom.push(BomLine {
            count: 1,
            part: parts::HEADER,
            use_: "to the Pi".into(),
        });
        let budget_ua = sensors_ua + chips_ua + pull_ups_ua;
        if budget_ua > 0 {
            bom.push(BomLine {
                count: 1,
                part: parts::REGULATOR,
                use_: "the sensors' and chips' 3.3 V".into(),
            });
        }
        // Power and ground on the header.
        if budget_ua > 0 {
            pi.push(PiLine {
                pin: PINS_5V[0],
                gpio: None,
                signal: "5 V".into(),
                to: "the 3.3 V regulator's input".into(),
            });
        }
        if budget_ua > 0 {
            pi.push(PiLine {
                pin: PINS_GND[0],
                gpio: None,
                signal: "GND".into(),
                to: "the board's ground (regulator, chips, sensors)".into(),
            });
        }
        pi.sort_by_key(|l| l.pin);
        // The built-in clock.
        let used: Vec<u8> = pi.iter().filter_map(|l| l.gpio).collect();
        let clock = match clock {
            Some(c) => {
                for (key, p) in [("white_pin", c.white_pin), ("black_pin", c.black_pin)] {
                    if header_pin(p).is_none() {
                        return Err(KitError(format!(
                            "key 'clock.{key}': GPIO {p} is not on the 40-pin header (GPIO 0–27)"
                        )));
                    }
                    if let Some(l) = pi.iter().find(|l| l.gpio == Some(p)) {
                        return Err(KitError(format!(
                            "key 'clock.{key}': GPIO {p} is the design's {} already; choose a free GPIO",
                            l.signal
                        )));
                    }
                }
                if c.white_pin == c.black_pin {
                    return Err(KitError(format!(
                        "keys 'clock.white_pin' / 'clock.black_pin': both GPIO {}",
                        c.white_pin
                    )));
                }
                c
            }
            None => {
                let mut free = CLOCK_PIN_PREFERENCE
                    .into_iter()
                    .filter(|p| !used.contains(p) && ![2, 3].contains(p));
                match (free.next(), free.next()) {
                    (Some(w), Some(b)) => ClockWiring {
                        white_pin: w,
                        black_pin: b,
                        lcd_address: 0x27,
                        proposed: true,
                    },
                    _ => {
                        return Err(KitError(
                            "no two free GPIOs left for the built-in clock's buttons".into(),
                        ))
                    }
                }
            }
        };
        if i2c_addresses.contains(&clock.lcd_address) {
            return Err(KitError(format!(
                "key 'clock.lcd_address': {:#04x} is one of the design's I2C chips already",
                clock.lcd_address
            )));
        }
        if matches!(design.bus, Bus::Mcp23017 { .. }) {
            notes.push(format!(
                "The built-in clock's LCD shares I2C1 with U1–U4 at its own address {:#04x}.",
                clock.lcd_address
            ));
        }
        let sensors = (0..64)
            .map(|i| SensorLine {
                index: i as u8,
                square: design.map[i].to_string(),
                line: std::mem::take(&mut line_of[i]),
            })
            .collect();
        Ok(Kit {
            design: design.name.clone(),
            description: design.description.clone(),
            board: design.board,
            pi,
            chips,
            sensors,
            bom,
            budget_ua,
            clock,
            notes,
        })
    }
}

#[cfg(test)]
mod tests;
