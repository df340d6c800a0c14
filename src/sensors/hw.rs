//! Board designs: one TOML file per supported design in `hw/` (bus, chip
//! addresses, pins, sensor index → square map, sensing kind). See
//! `hw/README.md` for the wiring and the keys.
//!
//! Errors name the file and the key (`hw/x.toml: key 'map.squares': …`);
//! unknown keys are rejected, so a misspelt key is not silently ignored.

use crate::trace::{BoardId, Sensing};
use serde::Deserialize;
use shakmaty::Square;
use std::path::{Path, PathBuf};

/// A hw file that cannot be used: the file, the key and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct HwError {
    /// The file as given.
    pub file: String,
    /// What is wrong, naming the key.
    pub message: String,
}

/// Which polarity a white piece's magnet shows the sensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pole {
    /// North pole down (the house convention for white pieces).
    North,
    /// South pole down.
    South,
}

/// The bus and chips of a design (hw file table `[bus]`, key `kind`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Bus {
    /// Eight 74HC165 on SPI plus a load pin.
    Hc165 {
        /// SPI bus number (Pi: 0 = SPI0).
        spi_bus: u8,
        /// Hardware chip select (Pi SPI0: 0 = CE0 / GPIO 8, 1 = CE1 / GPIO 7).
        chip_select: u8,
        /// SCLK, Hz.
        clock_hz: u32,
        /// SH/LD̅ pin, BCM GPIO number.
        load_pin: u8,
        /// A magnet pulls the input low (open-drain Hall switches with pull-ups).
        active_low: bool,
    },
    /// Four MCP23017 on I2C.
    Mcp23017 {
        /// I2C bus number (Pi: 1 = GPIO 2 / 3).
        i2c_bus: u8,
        /// The four 7-bit addresses (0x20 ..= 0x27), in sensor-index order.
        addresses: [u8; 4],
        /// A magnet pulls the input low.
        active_low: bool,
    },
    /// An 8 × 8 diode matrix on GPIO.
    GpioMatrix {
        /// Row output pins, BCM GPIO numbers, row 0 first.
        rows: [u8; 8],
        /// Column input pins (pull-ups enabled), BCM GPIO numbers.
        columns: [u8; 8],
        /// Rows are selected by driving them low.
        row_active_low: bool,
        /// Settling time after selecting a row, µs.
        settle_us: u32,
        /// A closed sensor reads low on its column.
        active_low: bool,
    },
    /// Linear Hall sensors on eight MCP3008 ADCs.
    Mcp3008 {
        /// SPI bus number.
        spi_bus: u8,
        /// SCLK, Hz (the MCP3008 allows 1.35 MHz at 2.7 V, 3.6 MHz at 5 V).
        clock_hz: u32,
        /// Chip-select pins, BCM GPIO numbers (software chip selects), chip 0 first.
        chip_selects: [u8; 8],
        /// The pole white pieces show the sensor.
        white_pole: Pole,
        /// The sensor's output rises with a south pole at its branded face
        /// (DRV5055, SS49E: true).
        rises_with_south: bool,
    },
}

impl Bus {
    /// The key's value for this kind.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Bus::Hc165 { .. } => "hc165",
            Bus::Mcp23017 { .. } => "mcp23017",
            Bus::GpioMatrix { .. } => "gpio-matrix",
            Bus::Mcp3008 { .. } => "mcp3008",
        }
    }

    /// Digital inputs read low when a magnet is present (`None` for ADCs).
    pub fn active_low(&self) -> Option<bool> {
        match *self {
            Bus::Hc165 { active_low, .. }
            | Bus::Mcp23017 { active_low, .. }
            | Bus::GpioMatrix { active_low, .. } => Some(active_low),
            Bus::Mcp3008 { .. } => None,
        }
    }

    /// ADC designs: white pieces read below the empty level.
    pub fn white_reads_low(&self) -> Option<bool> {
        match *self {
            Bus::Mcp3008 {
                white_pole,
                rises_with_south,
                ..
            } => Some((white_pole == Pole::North) == rises_with_south),
            _ => None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    layout: Option<String>,
    squares: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDesign {
    name: String,
    description: Option<String>,
    sensing: String,
    board: Option<String>,
    bus: Bus,
    map: RawMap,
}

/// A board design read from a hw file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HwDesign {
    /// Short name (`hc165-chain`).
    pub name: String,
    /// One line for people.
    pub description: String,
    /// What the sensors tell: occupancy or colour.
    pub sensing: Sensing,
    /// Which board it is (the instrumented board or the tactile peg board).
    pub board: BoardId,
    /// Bus and chips.
    pub bus: Bus,
    /// Sensor index → square (a1 = 0 … h8 = 63).
    pub map: [Square; 64],
    /// The file it came from, if any.
    pub path: Option<PathBuf>,
}

/// Map layouts that need no list: `rank-major` (index = square: a1, b1 …
/// h1, a2 …), `file-major` (a1, a2 … a8, b1 …), `serpentine` (a1 … h1,
/// h2 … a2, a3 … h3: rows wired in a snake).
pub const LAYOUTS: [&str; 3] = ["rank-major", "file-major", "serpentine"];

fn layout_map(name: &str) -> Option<[Square; 64]> {
    let f: fn(u32) -> u32 = match name {
        "rank-major" => |i| i,
        "file-major" => |i| (i % 8) * 8 + i / 8,
        "serpentine" => |i| {
            let (r, c) = (i / 8, i % 8);
            r * 8 + if r % 2 == 0 { c } else { 7 - c }
        },
        _ => return None,
    };
    Some(std::array::from_fn(|i| Square::new(f(i as u32))))
}

impl HwDesign {
    /// Reads and checks a hw file.
    pub fn load(path: &Path) -> Result<HwDesign, HwError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| HwError {
            file: file.clone(),
            message: e.to_string(),
        })?;
        let mut d = HwDesign::parse(&text, &file)?;
        d.path = Some(path.to_owned());
        Ok(d)
    }

    /// Parses hw-file text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<HwDesign, HwError> {
        let bad = |message: String| HwError {
            file: file.to_owned(),
            message,
        };
        let raw: RawDesign = toml::from_str(text).map_err(|e| {
            let msg = e.message().to_owned();
            let at = e
                .span()
                .map(|s| {
                    let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                    format!("line {line}: ")
                })
                .unwrap_or_default();
            bad(format!("{at}{msg}"))
        })?;
        let sensing = match raw.sensing.parse::<Sensing>() {
            Ok(s @ (Sensing::Occupancy | Sensing::Colour)) => s,
            _ => {
                return Err(bad(format!(
                    "key 'sensing': '{}' is not 'occupancy' or 'colour'",
                    raw.sensing
                )))
            }
        };
        let analog = matches!(raw.bus, Bus::Mcp3008 { .. });
        if analog != (sensing == Sensing::Colour) {
            return Err(bad(format!(
                "key 'sensing': bus kind '{}' senses {}, not {}",
                raw.bus.kind_name(),
                if analog { "colour" } else { "occupancy" },
                sensing.as_str()
            )));
        }
        let board = match raw.board.as_deref() {
            None | Some("main") => BoardId::Main,
            Some("tactile") => BoardId::Tactile,
            Some(o) => {
                return Err(bad(format!(
                    "key 'board': '{o}' is not 'main' or 'tactile'"
                )))
            }
        };
        match &raw.bus {
            Bus::Mcp23017 { addresses, .. } => {
                for (i, a) in addresses.iter().enumerate() {
                    if !(0x20..=0x27).contains(a) {
                        return Err(bad(format!(
                            "key 'bus.addresses[{i}]': {a:#04x} is outside 0x20..=0x27"
                        )));
                    }
                    if addresses[..i].contains(a) {
                        return Err(bad(format!(
                            "key 'bus.addresses[{i}]': {a:#04x} appears twice"
                        )));
                    }
                }
            }
            Bus::GpioMatrix { rows, columns, .. } => {
                let all: Vec<u8> = rows.iter().chain(columns).copied().collect();
                for (i, p) in all.iter().enumerate() {
                    if all[..i].contains(p) {
                        return Err(bad(format!(
                            "keys 'bus.rows' / 'bus.columns': GPIO {p} is used twice"
                        )));
                    }
                }
            }
            Bus::Mcp3008 { chip_selects, .. } => {
                for (i, p) in chip_selects.iter().enumerate() {
                    if chip_selects[..i].contains(p) {
                        return Err(bad(format!(
                            "key 'bus.chip_selects[{i}]': GPIO {p} appears twice"
                        )));
                    }
                }
            }
            Bus::Hc165 { .. } => {}
        }
        let map = match (&raw.map.layout, &raw.map.squares) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "table 'map': give 'layout' or 'squares', not both".to_owned()
                ))
            }
            (None, None) => return Err(bad("table 'map': give 'layout' or 'squares'".to_owned())),
            (Some(l), None) => layout_map(l).ok_or_else(|| {
                bad(format!(
                    "key 'map.layout': '{l}' is not one of {}",
                    LAYOUTS.join(", ")
                ))
            })?,
            (None, Some(list)) => {
                if list.len() != 64 {
                    return Err(bad(format!(
                        "key 'map.squares': {} entries, 64 needed (sensor index 0 … 63)",
                        list.len()
                    )));
                }
                let mut map = [Square::A1; 64];
                let mut seen = 0u64;
                for (i, name) in list.iter().enumerate() {
                    let sq: Square = name.parse().map_err(|_| {
                        bad(format!(
                            "key 'map.squares[{i}]': '{name}' is not a square (a1 … h8)"
                        ))
                    })?;
                    if seen >> sq as u32 & 1 == 1 {
                        return Err(bad(format!("key 'map.squares[{i}]': {name} appears twice")));
                    }
                    seen |= 1 << sq as u32;
                    map[i] = sq;
                }
                map
            }
        };
        Ok(HwDesign {
            name: raw.name,
            description: raw.description.unwrap_or_default(),
            sensing,
            board,
            bus: raw.bus,
            map,
            path: None,
        })
    }

    /// Square → sensor index (the inverse of [`HwDesign::map`]).
    pub fn sensor_of(&self) -> [u8; 64] {
        let mut inv = [0u8; 64];
        for (i, sq) in self.map.iter().enumerate() {
            inv[*sq as usize] = i as u8;
        }
        inv
    }

    /// Whether the design reads ADC levels (colour sensing).
    pub fn is_analog(&self) -> bool {
        matches!(self.bus, Bus::Mcp3008 { .. })
    }

    /// The design's name as shown to people: the file if known, else the name.
    pub fn shown(&self) -> String {
        self.path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| self.name.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HC: &str = r#"
name = "t"
sensing = "occupancy"
[bus]
kind = "hc165"
spi_bus = 0
chip_select = 0
clock_hz = 1000000
load_pin = 25
active_low = true
[map]
layout = "serpentine"
"#;

    #[test]
    fn parses_a_design_and_its_layout() {
        let d = HwDesign::parse(HC, "hw/t.toml").unwrap();
        assert_eq!(d.map[8], Square::H2);
        assert_eq!(d.map[15], Square::A2);
        assert_eq!(d.sensor_of()[Square::A2 as usize], 15);
        assert_eq!(d.bus.active_low(), Some(true));
    }

    #[test]
    fn errors_name_the_file_and_key() {
        let e = HwDesign::parse(&HC.replace("serpentine", "zigzag"), "hw/t.toml").unwrap_err();
        assert_eq!(e.file, "hw/t.toml");
        assert!(e.to_string().contains("key 'map.layout'"), "{e}");
        let e = HwDesign::parse(&HC.replace("load_pin", "load_pn"), "hw/t.toml").unwrap_err();
        assert!(e.to_string().contains("load_pn"), "{e}");
        assert!(e.to_string().contains("line "), "{e}");
        let e = HwDesign::parse(&HC.replace("occupancy", "colour"), "hw/t.toml").unwrap_err();
        assert!(e.to_string().contains("key 'sensing'"), "{e}");
        let sq = HC.replace("layout = \"serpentine\"", "squares = [\"a1\", \"i9\"]");
        let e = HwDesign::parse(&sq, "hw/t.toml").unwrap_err();
        assert!(e.to_string().contains("64 needed"), "{e}");
    }
}
