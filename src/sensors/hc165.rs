//! A chain of eight 74HC165 8-bit parallel-in / serial-out shift registers
//! read over SPI: 64 digital Hall switches (occupancy).
//!
//! Sources: the 74HC165 datasheet (NXP / TI): while SH/LD̅ (pin 1) is low the
//! eight parallel inputs A…H are loaded asynchronously; with SH/LD̅ high and
//! CLK INH (pin 15, here the SPI chip select) low, each rising CLK edge
//! shifts, QH (pin 9) first. SER (pin 10) of each chip takes QH of the next
//! chip, so the chip whose QH drives MISO comes out first.
//!
//! Sensor index: the position in shift order. Index 0 is input H of the
//! chip on MISO (the first bit read, bit 7 of the first byte), index 7 its
//! input A, index 8 input H of the next chip, … index 63 input A of the
//! last chip.

use super::{DriverError, RawScan, ReadingKind, SensorArray};
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::OutputPin;
use embedded_hal::spi::SpiDevice;

/// Number of chips in the chain.
pub const CHIPS: usize = 8;

/// Width of the SH/LD̅ load pulse, ns. The datasheets' minimum pulse width
/// is 80–100 ns at VCC = 2 V (16–20 ns at 4.5 V); 1 µs leaves ample margin
/// and costs nothing at a 100 Hz scan rate.
pub const LOAD_PULSE_NS: u32 = 1_000;

/// The 74HC165 chain: an SPI device (chip select wired to CLK INH̅, or
/// unused) and the SH/LD̅ pin.
#[derive(Debug)]
pub struct Hc165Chain<SPI, PL, D> {
    spi: SPI,
    load: PL,
    delay: D,
    buf: [u8; CHIPS],
}

impl<SPI, PL, D> Hc165Chain<SPI, PL, D>
where
    SPI: SpiDevice,
    PL: OutputPin,
    D: DelayNs,
{
    /// A chain on `spi` with the parallel-load pin `load` (SH/LD̅, idle high).
    pub fn new(spi: SPI, load: PL, delay: D) -> Self {
        Hc165Chain {
            spi,
            load,
            delay,
            buf: [0; CHIPS],
        }
    }

    /// Gives the bus and the pin back.
    pub fn release(self) -> (SPI, PL, D) {
        (self.spi, self.load, self.delay)
    }

    /// Latches the inputs and shifts out the 64 bits: bit i of the result is
    /// the level of sensor index i (1 = high).
    pub fn read_bits(&mut self) -> Result<u64, DriverError<SPI::Error, PL::Error>> {
        self.load.set_low().map_err(DriverError::Pin)?;
        self.delay.delay_ns(LOAD_PULSE_NS);
        self.load.set_high().map_err(DriverError::Pin)?;
        self.spi.read(&mut self.buf).map_err(DriverError::Bus)?;
        // Byte 0 bit 7 (the first bit shifted) becomes bit 0.
        Ok(u64::from_be_bytes(self.buf).reverse_bits())
    }
}

impl<SPI, PL, D> SensorArray for Hc165Chain<SPI, PL, D>
where
    SPI: SpiDevice,
    PL: OutputPin,
    D: DelayNs,
{
    type Error = DriverError<SPI::Error, PL::Error>;

    fn kind(&self) -> ReadingKind {
        ReadingKind::Digital
    }

    /// SH/LD̅ idles high (shift mode).
    fn init(&mut self) -> Result<(), Self::Error> {
        self.load.set_high().map_err(DriverError::Pin)
    }

    fn read(&mut self, raw: &mut RawScan) -> Result<(), Self::Error> {
        raw.bits = self.read_bits()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_hal_mock::eh1::delay::{CheckedDelay, Transaction as D};
    use embedded_hal_mock::eh1::digital::{Mock as PinMock, State, Transaction as P};
    use embedded_hal_mock::eh1::spi::{Mock as SpiMock, Transaction as S};

    #[test]
    fn load_pulse_then_eight_byte_read() {
        let bytes = vec![0x80, 0x01, 0, 0, 0, 0, 0, 0xFF];
        let spi = SpiMock::new(&[
            S::transaction_start(),
            S::read_vec(bytes),
            S::transaction_end(),
        ]);
        let pin = PinMock::new(&[P::set(State::High), P::set(State::Low), P::set(State::High)]);
        let delay = CheckedDelay::new(&[D::delay_ns(LOAD_PULSE_NS)]);
        let mut chain = Hc165Chain::new(spi, pin, delay);
        chain.init().unwrap();
        let mut raw = RawScan::default();
        chain.read(&mut raw).unwrap();
        // First bit shifted (byte 0, bit 7) is index 0; byte 1 bit 0 is index 15;
        // the whole last byte is indices 56..63.
        assert_eq!(raw.bits, 1 | 1 << 15 | 0xFF << 56);
        let (mut spi, mut pin, mut delay) = chain.release();
        spi.done();
        pin.done();
        delay.done();
    }

    #[test]
    fn pin_errors_are_reported() {
        use embedded_hal_mock::eh1::MockError;
        let spi = SpiMock::new(&[]);
        let pin =
            PinMock::new(
                &[P::set(State::Low).with_error(MockError::Io(std::io::ErrorKind::Other))],
            );
        let mut chain = Hc165Chain::new(spi, pin, crate::sensors::NoDelay);
        let mut raw = RawScan::default();
        assert!(matches!(chain.read(&mut raw), Err(DriverError::Pin(_))));
        let (mut spi, mut pin, _) = chain.release();
        spi.done();
        pin.done();
    }
}
