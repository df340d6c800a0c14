use super::*;
use crate::sensors::hw::HwDesign;
use std::path::Path;

fn design(name: &str) -> HwDesign {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("hw")
        .join(format!("{name}.toml"));
    HwDesign::load(&path).unwrap()
}

const DESIGNS: [&str; 5] = [
    "hc165-chain",
    "mcp23017-bank",
    "gpio-matrix",
    "mcp3008-hall",
    "tactile-matrix",
];

/// The header map is the one `hw/README.md` prints for builders (both
/// made from the Raspberry Pi documentation's pinout): every `| N ... | P |`
/// row of its table agrees.
#[test]
fn the_header_map_is_the_readme_table() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hw/README.md"))
            .unwrap();
    let table = readme.split("## Raspberry Pi header").nth(1).unwrap();
    let mut seen = 0;
    for line in table.lines().take_while(|l| !l.starts_with("Enable")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        for pair in cells.get(1..).unwrap_or_default().chunks(3) {
            let (Some(g), Some(p)) = (pair.first(), pair.get(1)) else {
                continue;
            };
            let gpio = g.split(' ').next().and_then(|n| n.parse::<u8>().ok());
            if let (Some(gpio), Ok(pin)) = (gpio, p.parse::<u8>()) {
                assert_eq!(header_pin(gpio), Some(pin), "GPIO {gpio}");
                assert_eq!(gpio_at(pin), Some(gpio), "pin {pin}");
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 26, "rows read from hw/README.md");
}

/// Every design: 64 sensors, each on its own line, each square once; every
/// GPIO the TOML names is a line from the header at its physical pin.
#[test]
fn every_sensor_and_every_pin_of_each_design_is_in_its_kit() {
    for name in DESIGNS {
        let d = design(name);
        let kit = Kit::of(&d, None).unwrap();
        assert_eq!(kit.sensors.len(), 64, "{name}");
        let mut lines: Vec<&str> = kit.sensors.iter().map(|s| s.line.as_str()).collect();
        lines.sort();
        lines.dedup();
        assert_eq!(lines.len(), 64, "{name}: a line read twice");
        for (i, s) in kit.sensors.iter().enumerate() {
            assert_eq!(s.square, d.map[i].to_string(), "{name} sensor {i}");
        }
        let gpios: Vec<u8> = match &d.bus {
            Bus::Hc165 { load_pin, .. } => vec![11, 9, 8, *load_pin],
            Bus::Mcp23017 { .. } => vec![2, 3],
            Bus::GpioMatrix { rows, columns, .. } => rows.iter().chain(columns).copied().collect(),
            Bus::Mcp3008 { chip_selects, .. } => [11, 10, 9]
                .into_iter()
                .chain(chip_selects.iter().copied())
                .collect(),
        };
        for g in gpios {
            let line = kit
                .pi
                .iter()
                .find(|l| l.gpio == Some(g))
                .unwrap_or_else(|| panic!("{name}: GPIO {g}"));
            assert_eq!(Some(line.pin), header_pin(g), "{name}: GPIO {g}");
        }
        let svg = svg::render(&kit);
        for s in &kit.sensors {
            assert!(
                svg.contains(&format!(">#{}</text>", s.index)),
                "{name}: sensor {}",
                s.index
            );
        }
        let sheet = sheet::render(&kit);
        assert!(
            sheet.contains(&format!("white_pin = {}", kit.clock.white_pin)),
            "{name}"
        );
    }
}

/// The hc165 chain's order as the driver shifts it (`hw/README.md`): chip 0
/// on MISO, its input H (pin 6) first; chip k's QH feeds chip k−1's SER.
#[test]
fn the_shift_registers_chain_in_the_drivers_order() {
    let kit = Kit::of(&design("hc165-chain"), None).unwrap();
    assert_eq!(kit.sensors[0].line, "U1 H");
    assert_eq!(kit.sensors[7].line, "U1 A");
    assert_eq!(kit.sensors[8].line, "U2 H");
    let u1 = &kit.chips[0];
    let qh = u1.pins.iter().find(|p| p.pin == 9).unwrap();
    assert_eq!(qh.to, "GPIO 9 (pin 21)");
    let u2_qh = kit.chips[1].pins.iter().find(|p| p.pin == 9).unwrap();
    assert_eq!(u2_qh.to, "SER (pin 10) of U1");
    let u8_ser = kit.chips[7].pins.iter().find(|p| p.pin == 10).unwrap();
    assert_eq!(u8_ser.to, "GND");
    let h = u1.pins.iter().find(|p| p.pin == 6).unwrap();
    assert_eq!(h.name, "H");
    assert!(h.to.starts_with("sensor 0 (a1)"), "{}", h.to);
}

/// The budget: 64 × the sensor's maximum + the chips + 32 pull-ups, and
/// the regulator at 1.5 × rounded up to 100 mA.
#[test]
fn the_power_budget_counts_every_part_at_its_maximum() {
    let hc = Kit::of(&design("hc165-chain"), None).unwrap();
    assert_eq!(hc.budget_ua, 64 * 3_500 + 8 * 80 + 32 * 330);
    assert_eq!(sheet::regulator_ma(hc.budget_ua), 400);
    let adc = Kit::of(&design("mcp3008-hall"), None).unwrap();
    assert_eq!(adc.budget_ua, 64 * 10_000 + 8 * 500);
    assert_eq!(sheet::regulator_ma(adc.budget_ua), 1_000);
    let matrix = Kit::of(&design("gpio-matrix"), None).unwrap();
    assert_eq!(matrix.budget_ua, 0);
    assert!(!matrix.bom.iter().any(|b| b.part == parts::REGULATOR));
    assert!(sheet::render(&adc).contains("**644.0 mA**"));
}

/// A clock button on a pin the design uses, or the LCD at a chip's
/// address, is refused naming the key and what holds it; without a config
/// the kit proposes free pins (never the matrix's rows).
#[test]
fn the_clock_never_takes_a_pin_or_address_the_design_uses() {
    let matrix = design("gpio-matrix");
    let given = ClockWiring {
        white_pin: 17,
        black_pin: 27,
        lcd_address: 0x27,
        proposed: false,
    };
    let e = Kit::of(&matrix, Some(given)).unwrap_err().to_string();
    assert!(
        e.contains("clock.white_pin") && e.contains("GPIO 17") && e.contains("row 6"),
        "{e}"
    );
    let proposed = Kit::of(&matrix, None).unwrap().clock;
    assert!(proposed.proposed);
    for p in [proposed.white_pin, proposed.black_pin] {
        assert!(
            ![4, 5, 6, 12, 13, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 2, 3].contains(&p),
            "{p}"
        );
    }
    let bank = design("mcp23017-bank");
    let at_chip = ClockWiring {
        white_pin: 17,
        black_pin: 27,
        lcd_address: 0x21,
        proposed: false,
    };
    let e = Kit::of(&bank, Some(at_chip)).unwrap_err().to_string();
    assert!(e.contains("clock.lcd_address") && e.contains("0x21"), "{e}");
    let off_header = ClockWiring {
        white_pin: 30,
        black_pin: 27,
        lcd_address: 0x27,
        proposed: false,
    };
    let e = Kit::of(&bank, Some(off_header)).unwrap_err().to_string();
    assert!(
        e.contains("clock.white_pin") && e.contains("GPIO 30"),
        "{e}"
    );
}
