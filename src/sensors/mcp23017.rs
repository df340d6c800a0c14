//! Four MCP23017 16-bit I/O expanders on I2C: 64 digital Hall switches
//! (occupancy).
//!
//! Source: Microchip MCP23017/MCP23S17 datasheet (DS20001952), register map
//! with IOCON.BANK = 0 (the power-on default): IODIRA 0x00 / IODIRB 0x01
//! (1 = input), GPPUA 0x0C / GPPUB 0x0D (1 = 100 kΩ pull-up), IOCON 0x0A,
//! GPIOA 0x12 / GPIOB 0x13 (port levels). With IOCON.SEQOP = 0 the address
//! pointer increments, so one write-read of GPIOA returns GPIOA then GPIOB.
//! The 7-bit address is 0b0100_A2A1A0 (0x20 ..= 0x27).
//!
//! Sensor index: chip k (in the hw file's `addresses` order) pin GPAj is
//! index 16k + j, pin GPBj is index 16k + 8 + j.

use super::{DriverError, RawScan, ReadingKind, SensorArray};
use embedded_hal::i2c::I2c;
use std::convert::Infallible;

/// Number of expanders (16 inputs each).
pub const CHIPS: usize = 4;

/// IODIRA: port A direction, 1 = input (IOCON.BANK = 0).
pub const IODIRA: u8 = 0x00;
/// IOCON: configuration (BANK, MIRROR, SEQOP, …), also at 0x0B.
pub const IOCON: u8 = 0x0A;
/// GPPUA: port A 100 kΩ pull-ups, 1 = enabled.
pub const GPPUA: u8 = 0x0C;
/// GPIOA: port A levels (GPIOB follows at 0x13).
pub const GPIOA: u8 = 0x12;

/// The expanders: the I2C bus and the four 7-bit addresses.
#[derive(Debug)]
pub struct Mcp23017Bank<I> {
    i2c: I,
    addresses: [u8; CHIPS],
}

impl<I: I2c> Mcp23017Bank<I> {
    /// Expanders at `addresses` (0x20 ..= 0x27), in sensor-index order.
    pub fn new(i2c: I, addresses: [u8; CHIPS]) -> Self {
        Mcp23017Bank { i2c, addresses }
    }

    /// Gives the bus back.
    pub fn release(self) -> I {
        self.i2c
    }
}

impl<I: I2c> SensorArray for Mcp23017Bank<I> {
    type Error = DriverError<I::Error, Infallible>;

    fn kind(&self) -> ReadingKind {
        ReadingKind::Digital
    }

    /// Per chip: IOCON = 0 (BANK = 0, sequential addressing), all 16 pins
    /// inputs, all 16 pull-ups on (open-drain Hall switches pull low).
    fn init(&mut self) -> Result<(), Self::Error> {
        for &a in &self.addresses {
            self.i2c
                .write(a, &[IOCON, 0x00])
                .map_err(DriverError::Bus)?;
            self.i2c
                .write(a, &[IODIRA, 0xFF, 0xFF])
                .map_err(DriverError::Bus)?;
            self.i2c
                .write(a, &[GPPUA, 0xFF, 0xFF])
                .map_err(DriverError::Bus)?;
        }
        Ok(())
    }

    fn read(&mut self, raw: &mut RawScan) -> Result<(), Self::Error> {
        let mut bits = 0u64;
        for (k, &a) in self.addresses.iter().enumerate() {
            let mut ab = [0u8; 2];
            self.i2c
                .write_read(a, &[GPIOA], &mut ab)
                .map_err(DriverError::Bus)?;
            bits |= (u64::from(ab[0]) | u64::from(ab[1]) << 8) << (16 * k);
        }
        raw.bits = bits;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_hal_mock::eh1::i2c::{Mock, Transaction as T};

    #[test]
    fn init_configures_pullups_and_read_takes_both_ports() {
        let addrs = [0x20, 0x21, 0x22, 0x27];
        let mut ex = Vec::new();
        for &a in &addrs {
            ex.push(T::write(a, vec![IOCON, 0x00]));
            ex.push(T::write(a, vec![IODIRA, 0xFF, 0xFF]));
            ex.push(T::write(a, vec![GPPUA, 0xFF, 0xFF]));
        }
        ex.push(T::write_read(0x20, vec![GPIOA], vec![0x01, 0x80]));
        ex.push(T::write_read(0x21, vec![GPIOA], vec![0x00, 0x00]));
        ex.push(T::write_read(0x22, vec![GPIOA], vec![0xFF, 0x00]));
        ex.push(T::write_read(0x27, vec![GPIOA], vec![0x00, 0x01]));
        let mut bank = Mcp23017Bank::new(Mock::new(&ex), addrs);
        bank.init().unwrap();
        let mut raw = RawScan::default();
        bank.read(&mut raw).unwrap();
        assert_eq!(raw.bits, 1 | 1 << 15 | 0xFF << 32 | 1 << 56);
        bank.release().done();
    }
}
