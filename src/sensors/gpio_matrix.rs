//! An 8 × 8 switch matrix on GPIO pins with one diode per sensor: drive one
//! row to its active level, read the eight columns, release the row.
//!
//! The diodes (cathode towards the row for active-low rows) stop ghosting
//! when several switches are closed. Columns need pull resistors to the
//! inactive level (the Pi's internal pull-ups for active-low rows).
//!
//! Sensor index: row × 8 + column, rows and columns in the hw file's order.

use super::{DriverError, RawScan, ReadingKind, SensorArray};
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{InputPin, OutputPin};
use std::convert::Infallible;

/// Default settling time after driving a row, ns (RC of the pull-up and
/// the column wiring; 10 µs covers 50 kΩ × 100 pF with margin).
pub const DEFAULT_SETTLE_NS: u32 = 10_000;

/// The matrix: eight row outputs, eight column inputs.
#[derive(Debug)]
pub struct GpioMatrix<R, C, D> {
    rows: [R; 8],
    cols: [C; 8],
    delay: D,
    settle_ns: u32,
    row_active_low: bool,
}

impl<R, C, D> GpioMatrix<R, C, D>
where
    R: OutputPin,
    C: InputPin,
    D: DelayNs,
{
    /// A matrix whose rows are driven low (`row_active_low`) or high to
    /// select them, waiting `settle_ns` before reading the columns.
    pub fn new(rows: [R; 8], cols: [C; 8], delay: D, settle_ns: u32, row_active_low: bool) -> Self {
        GpioMatrix {
            rows,
            cols,
            delay,
            settle_ns,
            row_active_low,
        }
    }

    /// Gives the pins back.
    pub fn release(self) -> ([R; 8], [C; 8], D) {
        (self.rows, self.cols, self.delay)
    }

    fn drive(row: &mut R, active: bool, active_low: bool) -> Result<(), R::Error> {
        if active == active_low {
            row.set_low()
        } else {
            row.set_high()
        }
    }
}

impl<R, C, D> SensorArray for GpioMatrix<R, C, D>
where
    R: OutputPin,
    C: InputPin,
    D: DelayNs,
{
    type Error = DriverError<Infallible, MatrixPinError<R::Error, C::Error>>;

    fn kind(&self) -> ReadingKind {
        ReadingKind::Digital
    }

    /// Every row inactive.
    fn init(&mut self) -> Result<(), Self::Error> {
        let low = self.row_active_low;
        for r in &mut self.rows {
            Self::drive(r, false, low).map_err(|e| DriverError::Pin(MatrixPinError::Row(e)))?;
        }
        Ok(())
    }

    fn read(&mut self, raw: &mut RawScan) -> Result<(), Self::Error> {
        let low = self.row_active_low;
        let mut bits = 0u64;
        for (r, row) in self.rows.iter_mut().enumerate() {
            Self::drive(row, true, low).map_err(|e| DriverError::Pin(MatrixPinError::Row(e)))?;
            self.delay.delay_ns(self.settle_ns);
            for (c, col) in self.cols.iter_mut().enumerate() {
                let high = col
                    .is_high()
                    .map_err(|e| DriverError::Pin(MatrixPinError::Column(e)))?;
                bits |= u64::from(high) << (r * 8 + c);
            }
            Self::drive(row, false, low).map_err(|e| DriverError::Pin(MatrixPinError::Row(e)))?;
        }
        raw.bits = bits;
        Ok(())
    }
}

/// Which pin of the matrix failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixPinError<RE, CE> {
    /// A row output.
    Row(RE),
    /// A column input.
    Column(CE),
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_hal_mock::eh1::delay::NoopDelay;
    use embedded_hal_mock::eh1::digital::{Mock, State, Transaction as T};

    #[test]
    fn each_row_driven_low_then_columns_read_then_released() {
        // Rows active low; a closed switch pulls its column low.
        let rows: [Mock; 8] = std::array::from_fn(|_| {
            Mock::new(&[
                T::set(State::High), // init
                T::set(State::Low),  // select
                T::set(State::High), // release
            ])
        });
        // Row 0 column 3 and row 7 column 0 closed.
        let cols: [Mock; 8] = std::array::from_fn(|c| {
            let levels: Vec<T> = (0..8)
                .map(|r| {
                    let closed = (r == 0 && c == 3) || (r == 7 && c == 0);
                    T::get(if closed { State::Low } else { State::High })
                })
                .collect();
            Mock::new(&levels)
        });
        let mut m = GpioMatrix::new(rows, cols, NoopDelay::new(), DEFAULT_SETTLE_NS, true);
        m.init().unwrap();
        let mut raw = RawScan::default();
        m.read(&mut raw).unwrap();
        assert_eq!(raw.bits, !(1u64 << 3 | 1 << 56));
        let (rows, cols, _) = m.release();
        for mut p in rows.into_iter().chain(cols) {
            p.done();
        }
    }
}
