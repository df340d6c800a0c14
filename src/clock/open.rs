//! Opening the clock device the daemon's config names (`[clock] device`):
//! the simulated clock, a DGT 3000 on a serial port, or the built-in clock
//! (two GPIO buttons and an I2C character LCD; on the Pi build only).

use super::builtin::BuiltinConfig;
use super::device::{ClockDevice, ClockDeviceError};
use super::dgt::{DgtClock, DgtConfig};
use super::simulated::SimulatedClock;

/// Which clock to drive, with its wiring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceSpec {
    /// In memory (replay, demo, a daemon without a physical clock).
    Simulated,
    /// A DGT 3000 behind a DGT board's serial line, e.g. `/dev/ttyACM0`.
    Dgt3000 {
        /// The serial device.
        port: String,
    },
    /// Buttons on two GPIO pins (BCM numbers) and an HD44780 LCD behind a
    /// PCF8574 on I2C bus 1.
    Builtin {
        /// White's button, BCM pin.
        white_pin: u8,
        /// Black's button, BCM pin.
        black_pin: u8,
        /// The LCD backpack's address (usually 0x27).
        lcd_addr: u8,
    },
}

/// A clock device the daemon can own and move between threads.
pub type BoxedClock = Box<dyn ClockDevice + Send>;

/// Opens the device. Errors name the device and what failed (a missing
/// serial port, a Pi-only device on another build).
pub fn open(spec: &DeviceSpec) -> Result<BoxedClock, ClockDeviceError> {
    match spec {
        DeviceSpec::Simulated => Ok(Box::new(SimulatedClock::new())),
        DeviceSpec::Dgt3000 { port } => Ok(Box::new(DgtClock::open(port, DgtConfig::default())?)),
        DeviceSpec::Builtin {
            white_pin,
            black_pin,
            lcd_addr,
        } => open_builtin(*white_pin, *black_pin, *lcd_addr),
    }
}

#[cfg(feature = "rpi")]
fn open_builtin(
    white_pin: u8,
    black_pin: u8,
    lcd_addr: u8,
) -> Result<BoxedClock, ClockDeviceError> {
    use rppal::gpio::Gpio;
    use rppal::i2c::I2c;
    let bus = |what: String, e: &dyn std::fmt::Display| ClockDeviceError::Bus {
        device: "built-in clock".into(),
        what,
        detail: e.to_string(),
    };
    let gpio = Gpio::new().map_err(|e| bus("GPIO".into(), &e))?;
    let pin = |n: u8| {
        gpio.get(n)
            .map(|p| p.into_input_pullup())
            .map_err(|e| bus(format!("GPIO {n}"), &e))
    };
    let white = pin(white_pin)?;
    let black = pin(black_pin)?;
    let i2c = I2c::new().map_err(|e| bus("I2C bus 1".into(), &e))?;
    let cfg = BuiltinConfig {
        lcd_addr,
        ..BuiltinConfig::default()
    };
    let clock =
        super::builtin::BuiltinClock::new(white, black, i2c, &mut rppal::hal::Delay::new(), cfg)?;
    Ok(Box::new(clock))
}

#[cfg(not(feature = "rpi"))]
fn open_builtin(_white: u8, _black: u8, lcd_addr: u8) -> Result<BoxedClock, ClockDeviceError> {
    let _ = BuiltinConfig::default();
    Err(ClockDeviceError::Bus {
        device: format!("built-in clock (LCD at I2C {lcd_addr:#04x})"),
        what: "GPIO and I2C".into(),
        detail: "this build has no Raspberry Pi backend: build with --features rpi".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_the_simulated_clock_and_reports_a_missing_port() {
        assert!(open(&DeviceSpec::Simulated).is_ok());
        let e = open(&DeviceSpec::Dgt3000 {
            port: "/dev/does-not-exist".into(),
        })
        .err()
        .unwrap();
        assert!(e.to_string().contains("/dev/does-not-exist"), "{e}");
    }
}
