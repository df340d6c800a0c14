//! Linear Hall sensors read through eight MCP3008 10-bit ADCs (8 channels
//! each) on SPI: 64 analog levels that tell white / black / empty by magnet
//! polarity (colour sensing).
//!
//! Source: Microchip MCP3004/3008 datasheet (DS21295), §6.1 "Using the
//! MCP3004/3008 with Microcontroller SPI Ports": with CS̅ low the host
//! sends three bytes `0x01` (start bit), `SGL/DIFF D2 D1 D0 0000` and a
//! don't-care byte; the chip answers B9 B8 in the two low bits of the second
//! byte received and B7 … B0 in the third. Each conversion needs its own
//! CS̅ cycle, so every channel is one SPI transaction. SPI mode 0 or 3.
//!
//! The transfer uses separate read and write buffers
//! (`Operation::Transfer`), not an in-place transfer: rppal 0.22's
//! `SimpleHalSpiDevice` maps in-place transfers to read-only segments.
//!
//! Sensor index: chip × 8 + channel, chips in the hw file's order.

use super::{DriverError, RawScan, ReadingKind, SensorArray};
use embedded_hal::spi::SpiDevice;
use std::convert::Infallible;

/// Number of ADC chips.
pub const CHIPS: usize = 8;
/// Channels per chip.
pub const CHANNELS: usize = 8;
/// Largest code (10 bits).
pub const FULL_SCALE: u16 = 1023;

/// The three bytes that start a single-ended conversion of `channel`.
pub const fn command(channel: u8) -> [u8; 3] {
    [0x01, 0x80 | (channel & 0x07) << 4, 0x00]
}

/// The 10-bit code in the three bytes received.
pub const fn decode(rx: [u8; 3]) -> u16 {
    ((rx[1] as u16 & 0x03) << 8) | rx[2] as u16
}

/// The ADCs: one SPI device (with its own chip select) per chip.
#[derive(Debug)]
pub struct Mcp3008Array<S> {
    chips: [S; CHIPS],
}

impl<S: SpiDevice> Mcp3008Array<S> {
    /// ADCs in sensor-index order.
    pub fn new(chips: [S; CHIPS]) -> Self {
        Mcp3008Array { chips }
    }

    /// Gives the devices back.
    pub fn release(self) -> [S; CHIPS] {
        self.chips
    }

    /// One conversion: chip `chip`, single-ended channel `channel`.
    pub fn convert(&mut self, chip: usize, channel: u8) -> Result<u16, S::Error> {
        let tx = command(channel);
        let mut rx = [0u8; 3];
        self.chips[chip].transfer(&mut rx, &tx)?;
        Ok(decode(rx))
    }
}

impl<S: SpiDevice> SensorArray for Mcp3008Array<S> {
    type Error = DriverError<S::Error, Infallible>;

    fn kind(&self) -> ReadingKind {
        ReadingKind::Analog
    }

    fn read(&mut self, raw: &mut RawScan) -> Result<(), Self::Error> {
        for chip in 0..CHIPS {
            for ch in 0..CHANNELS {
                raw.levels[chip * CHANNELS + ch] =
                    self.convert(chip, ch as u8).map_err(DriverError::Bus)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_hal_mock::eh1::spi::{Mock, Transaction as T};

    #[test]
    fn one_transaction_per_channel_with_the_datasheet_bytes() {
        let chips: [Mock<u8>; CHIPS] = std::array::from_fn(|chip| {
            let mut ex = Vec::new();
            for ch in 0..CHANNELS as u8 {
                let code = (chip as u16) * 100 + u16::from(ch);
                ex.push(T::transaction_start());
                ex.push(T::transfer(
                    vec![0x01, 0x80 | ch << 4, 0x00],
                    vec![0xFF, 0xF8 | (code >> 8) as u8, code as u8],
                ));
                ex.push(T::transaction_end());
            }
            Mock::new(&ex)
        });
        let mut adc = Mcp3008Array::new(chips);
        let mut raw = RawScan::default();
        adc.read(&mut raw).unwrap();
        for chip in 0..CHIPS {
            for ch in 0..CHANNELS {
                assert_eq!(raw.levels[chip * 8 + ch], (chip * 100 + ch) as u16);
            }
        }
        for mut m in adc.release() {
            m.done();
        }
    }

    #[test]
    fn decode_takes_ten_bits() {
        assert_eq!(decode([0xFF, 0xFF, 0xFF]), 1023);
        assert_eq!(decode([0x00, 0x02, 0x01]), 513);
        assert_eq!(command(7), [0x01, 0xF0, 0x00]);
    }
}
