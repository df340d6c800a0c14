//! The Raspberry Pi backend (cargo feature `rpi`, off by default): opens
//! the buses and pins a hw design names with rppal and hands them to the
//! generic drivers. Only embedded-hal traits cross this line, so another
//! backend is a drop-in: rppal is retired upstream, and
//! `linux-embedded-hal` (spidev, i2cdev, gpio-cdev) or `gpiocdev` with its
//! embedded-hal adapter implement the same traits over the kernel's
//! character devices on any Linux board.
//!
//! rppal (0.22, feature `hal`) implements embedded-hal 1.0: `SpiBus` for
//! `Spi`, `SpiDevice` for `SimpleHalSpiDevice` (hardware chip select),
//! `I2c` for `I2c`, `OutputPin` / `InputPin` for its pins and `DelayNs`
//! for `hal::Delay`. Note: its `SimpleHalSpiDevice` turns an in-place
//! transfer into a read-only segment, so the MCP3008 driver uses separate
//! read and write buffers.
//!
//! The eight MCP3008 chip selects are GPIOs ([`embedded_hal_bus`]'s
//! `RcDevice` toggles them around each transfer on the shared SPI bus);
//! the hardware CE0 of that bus is left unconnected.

use super::gpio_matrix::GpioMatrix;
use super::hc165::Hc165Chain;
use super::hw::{Bus, HwDesign};
use super::mcp23017::Mcp23017Bank;
use super::mcp3008::Mcp3008Array;
use super::DynArray;
use rppal::gpio::Gpio;
use rppal::hal::Delay;
use rppal::i2c::I2c;
use rppal::spi::{Bus as SpiBus, Mode, SimpleHalSpiDevice, SlaveSelect, Spi};
use std::cell::RefCell;
use std::rc::Rc;

/// Opening the hardware failed (the message names the design and the part).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{design}: {message}")]
pub struct RpiError {
    /// The design as shown (its file).
    pub design: String,
    /// What failed.
    pub message: String,
}

fn spi_bus(n: u8) -> Option<SpiBus> {
    Some(match n {
        0 => SpiBus::Spi0,
        1 => SpiBus::Spi1,
        2 => SpiBus::Spi2,
        3 => SpiBus::Spi3,
        4 => SpiBus::Spi4,
        5 => SpiBus::Spi5,
        6 => SpiBus::Spi6,
        _ => return None,
    })
}

fn slave_select(n: u8) -> Option<SlaveSelect> {
    Some(match n {
        0 => SlaveSelect::Ss0,
        1 => SlaveSelect::Ss1,
        2 => SlaveSelect::Ss2,
        _ => return None,
    })
}

/// Opens the design's buses and pins and returns its driver (not yet
/// initialised: the scanner or the calibration calls `init`).
pub fn open(design: &HwDesign) -> Result<DynArray, RpiError> {
    let fail = |part: String| {
        let design = design.shown();
        move |e: &dyn std::fmt::Display| RpiError {
            design,
            message: format!("{part}: {e}"),
        }
    };
    let gpio = || Gpio::new().map_err(|e| fail("GPIO".into())(&e));
    match &design.bus {
        &Bus::Hc165 {
            spi_bus: bus,
            chip_select,
            clock_hz,
            load_pin,
            ..
        } => {
            let part = format!("SPI{bus} CE{chip_select}");
            let (b, ss) = spi_bus(bus)
                .zip(slave_select(chip_select))
                .ok_or_else(|| fail(part.clone())(&"no such bus or chip select"))?;
            let spi = Spi::new(b, ss, clock_hz, Mode::Mode0).map_err(|e| fail(part)(&e))?;
            let load = gpio()?
                .get(load_pin)
                .map_err(|e| fail(format!("GPIO {load_pin} (SH/LD)"))(&e))?
                .into_output_high();
            Ok(DynArray::new(Hc165Chain::new(
                SimpleHalSpiDevice::new(spi),
                load,
                Delay::new(),
            )))
        }
        Bus::Mcp23017 {
            i2c_bus, addresses, ..
        } => {
            let i2c = I2c::with_bus(*i2c_bus).map_err(|e| fail(format!("I2C{i2c_bus}"))(&e))?;
            Ok(DynArray::new(Mcp23017Bank::new(i2c, *addresses)))
        }
        Bus::GpioMatrix {
            rows,
            columns,
            row_active_low,
            settle_us,
            ..
        } => {
            let g = gpio()?;
            let mut out = Vec::with_capacity(8);
            for &p in rows {
                let pin = g.get(p).map_err(|e| fail(format!("GPIO {p} (row)"))(&e))?;
                out.push(if *row_active_low {
                    pin.into_output_high()
                } else {
                    pin.into_output_low()
                });
            }
            let mut inp = Vec::with_capacity(8);
            for &p in columns {
                let pin = g
                    .get(p)
                    .map_err(|e| fail(format!("GPIO {p} (column)"))(&e))?;
                // Pull to the inactive level.
                inp.push(if *row_active_low {
                    pin.into_input_pullup()
                } else {
                    pin.into_input_pulldown()
                });
            }
            let rows: [_; 8] = out.try_into().map_err(|_| fail("rows".into())(&"need 8"))?;
            let cols: [_; 8] = inp
                .try_into()
                .map_err(|_| fail("columns".into())(&"need 8"))?;
            Ok(DynArray::new(GpioMatrix::new(
                rows,
                cols,
                Delay::new(),
                settle_us.saturating_mul(1000),
                *row_active_low,
            )))
        }
        Bus::Mcp3008 {
            spi_bus: bus,
            clock_hz,
            chip_selects,
            ..
        } => {
            let part = format!("SPI{bus}");
            let b = spi_bus(*bus).ok_or_else(|| fail(part.clone())(&"no such bus"))?;
            let spi = Spi::new(b, SlaveSelect::Ss0, *clock_hz, Mode::Mode0)
                .map_err(|e| fail(part)(&e))?;
            let shared = Rc::new(RefCell::new(spi));
            let g = gpio()?;
            let mut devs = Vec::with_capacity(8);
            for &p in chip_selects {
                let cs = g
                    .get(p)
                    .map_err(|e| fail(format!("GPIO {p} (chip select)"))(&e))?
                    .into_output_high();
                let dev = embedded_hal_bus::spi::RcDevice::new(shared.clone(), cs, Delay::new())
                    .map_err(|e| fail(format!("GPIO {p} (chip select)"))(&format!("{e:?}")))?;
                devs.push(dev);
            }
            let chips: [_; 8] = devs
                .try_into()
                .map_err(|_| fail("chip_selects".into())(&"need 8"))?;
            Ok(DynArray::new(Mcp3008Array::new(chips)))
        }
    }
}
