//! The built-in clock across the embedded-hal 1.0 interface: the exact I2C
//! bytes a PCF8574 backpack receives, and button debounce on mocked GPIO.

use eboard::clock::builtin::{BuiltinClock, BuiltinConfig};
use eboard::clock::device::{ClockDevice, ClockDeviceError, ClockFace, ClockInput};
use embedded_hal::i2c::ErrorKind;
use embedded_hal_mock::eh1::delay::{CheckedDelay, NoopDelay, Transaction as DelayTx};
use embedded_hal_mock::eh1::digital::{Mock as PinMock, State, Transaction as PinTx};
use embedded_hal_mock::eh1::i2c::{Mock as I2cMock, Transaction as I2cTx};
use embedded_hal_mock::eh1::MockError;
use shakmaty::Color;

const ADDR: u8 = 0x27;

/// Bytes written to the PCF8574 for one HD44780 data byte with RS = 1 and
/// the backlight on (P0 RS, P2 E, P3 backlight, P4–P7 D4–D7), written out
/// by hand from the backpack wiring: high nibble `[n|0x0d, n|0x09]`, then
/// the low nibble the same way.
fn data_bytes(c: u8) -> [u8; 4] {
    match c {
        b'1' => [0x3d, 0x39, 0x1d, 0x19],
        b':' => [0x3d, 0x39, 0xad, 0xa9],
        b'3' => [0x3d, 0x39, 0x3d, 0x39],
        b'0' => [0x3d, 0x39, 0x0d, 0x09],
        b'2' => [0x3d, 0x39, 0x2d, 0x29],
        b'8' => [0x3d, 0x39, 0x8d, 0x89],
        b'9' => [0x3d, 0x39, 0x9d, 0x99],
        b'<' => [0x3d, 0x39, 0xcd, 0xc9],
        b' ' => [0x2d, 0x29, 0x0d, 0x09],
        b'.' => [0x2d, 0x29, 0xed, 0xe9],
        b'e' => [0x6d, 0x69, 0x5d, 0x59],
        b'4' => [0x3d, 0x39, 0x4d, 0x49],
        b'7' => [0x3d, 0x39, 0x7d, 0x79],
        other => panic!("no hand-written bytes for {other:#04x}"),
    }
}

/// The DDRAM "set address" command for row 0 (`0x80`) or row 1 (`0xc0`),
/// RS = 0, backlight on.
fn row_cmd(row: u8) -> [u8; 4] {
    if row == 0 {
        [0x8c, 0x88, 0x0c, 0x08]
    } else {
        [0xcc, 0xc8, 0x0c, 0x08]
    }
}

fn row_write(row: u8, text: &[u8; 16]) -> I2cTx {
    let mut v = row_cmd(row).to_vec();
    for &c in text {
        v.extend_from_slice(&data_bytes(c));
    }
    assert_eq!(v.len(), 68);
    I2cTx::write(ADDR, v)
}

/// HD44780 datasheet figure 24 (4-bit), with backlight on and RS = 0.
fn init_writes() -> Vec<I2cTx> {
    vec![
        I2cTx::write(ADDR, vec![0x3c, 0x38]),             // 0x3
        I2cTx::write(ADDR, vec![0x3c, 0x38]),             // 0x3
        I2cTx::write(ADDR, vec![0x3c, 0x38]),             // 0x3
        I2cTx::write(ADDR, vec![0x2c, 0x28]),             // 0x2: 4-bit
        I2cTx::write(ADDR, vec![0x2c, 0x28, 0x8c, 0x88]), // 0x28 function set
        I2cTx::write(ADDR, vec![0x0c, 0x08, 0xcc, 0xc8]), // 0x0c display on
        I2cTx::write(ADDR, vec![0x0c, 0x08, 0x1c, 0x18]), // 0x01 clear
        I2cTx::write(ADDR, vec![0x0c, 0x08, 0x6c, 0x68]), // 0x06 entry mode
    ]
}

fn highs(n: usize) -> Vec<PinTx> {
    vec![PinTx::get(State::High); n]
}

#[test]
fn time_display_sends_exact_i2c_bytes() {
    let mut expect = init_writes();
    // 1:30:28.1 shows 1:30:28 (the whole seconds left, as a clock shows them).
    expect.push(row_write(0, b"1:30:28< 1:30:00"));
    expect.push(row_write(1, b"                "));
    expect.push(row_write(0, b"1:30:27< 1:30:00")); // poll at 500 ms
                                                    // poll at 900 ms: same text, no traffic.
    expect.push(row_write(1, b"1. e4           "));
    let mut i2c = I2cMock::new(&expect);
    let mut white = PinMock::new(&highs(2));
    let mut black = PinMock::new(&highs(2));
    let mut delay = CheckedDelay::new(&[
        DelayTx::delay_ms(50),
        DelayTx::delay_us(4500),
        DelayTx::delay_us(150),
        DelayTx::delay_us(150),
        DelayTx::delay_ms(2),
    ]);
    let mut clock = BuiltinClock::new(
        white.clone(),
        black.clone(),
        i2c.clone(),
        &mut delay,
        BuiltinConfig::default(),
    )
    .unwrap();
    let face = ClockFace {
        white_ms: 5_428_100,
        black_ms: 5_400_000,
        running: Some(Color::White),
        at_ms: 0,
    };
    clock.set_times(0, face).unwrap();
    assert!(clock.poll(500).unwrap().is_empty());
    assert!(clock.poll(900).unwrap().is_empty());
    clock.show_move(950, "1. e4").unwrap();
    assert!(clock.is_online());
    i2c.done();
    white.done();
    black.done();
    delay.done();
}

#[test]
fn buttons_are_debounced_by_consecutive_polls() {
    let mut expect = init_writes();
    expect.push(row_write(1, b"                "));
    let mut i2c = I2cMock::new(&expect);
    use State::{High, Low};
    // Active low. White bounces (Low, High) before three steady Lows, stays
    // down (one press only), is released, then pressed again cleanly.
    let white_levels = [
        High, Low, High, Low, Low, Low, Low, Low, High, High, High, Low, Low, Low,
    ];
    let mut white = PinMock::new(&white_levels.map(PinTx::get));
    // Black: a single-poll glitch, never a press.
    let black_levels = [
        High, High, High, High, High, Low, High, High, High, High, High, High, High, High,
    ];
    let mut black = PinMock::new(&black_levels.map(PinTx::get));
    let mut clock = BuiltinClock::new(
        white.clone(),
        black.clone(),
        i2c.clone(),
        &mut NoopDelay::new(),
        BuiltinConfig::default(),
    )
    .unwrap();
    let mut presses = Vec::new();
    for i in 0..white_levels.len() as u64 {
        for input in clock.poll(i * 10).unwrap() {
            presses.push(input);
        }
    }
    assert_eq!(
        presses,
        vec![
            ClockInput::Press {
                by: Color::White,
                t_ms: 50
            },
            ClockInput::Press {
                by: Color::White,
                t_ms: 130
            },
        ]
    );
    i2c.done();
    white.done();
    black.done();
}

#[test]
fn bus_errors_are_typed_not_panics() {
    let mut expect = init_writes();
    expect.push(row_write(1, b"                "));
    expect.push(row_write(0, b"1:30:28< 1:30:00").with_error(ErrorKind::Other));
    let mut i2c = I2cMock::new(&expect);
    let mut white = PinMock::new(&[
        PinTx::get(State::High),
        PinTx::get(State::High).with_error(MockError::Io(std::io::ErrorKind::NotConnected)),
    ]);
    let mut black = PinMock::new(&highs(1));
    let mut clock = BuiltinClock::new(
        white.clone(),
        black.clone(),
        i2c.clone(),
        &mut NoopDelay::new(),
        BuiltinConfig::default(),
    )
    .unwrap();
    assert!(clock.poll(0).unwrap().is_empty());
    let face = ClockFace {
        white_ms: 5_428_100,
        black_ms: 5_400_000,
        running: Some(Color::White),
        at_ms: 0,
    };
    let err = clock.set_times(0, face).unwrap_err();
    assert!(
        matches!(&err, ClockDeviceError::Bus { what, .. } if what.contains("row 0")),
        "{err}"
    );
    assert!(!clock.is_online());
    let err = clock.poll(10).unwrap_err();
    assert!(err.to_string().contains("White's button"), "{err}");
    i2c.done();
    white.done();
    black.done();
}
