//! The simulated buses of the virtual board: SPI (74HC165, MCP3008), I2C
//! (MCP23017) and GPIO pins, as embedded-hal 1.0 devices.

use super::*;
use crate::sensors::mcp23017::{GPIOA, GPPUA};
use embedded_hal::digital::{self, ErrorType as PinErrorType};
use embedded_hal::i2c::{self, Operation as I2cOp};
use embedded_hal::spi::{self, Operation as SpiOp};
use std::convert::Infallible;
/// What a simulated SPI device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpiRole {
    /// The 74HC165 chain (chip select on CLK INH̅).
    Hc165,
    /// MCP3008 number n.
    Mcp3008(u8),
}

/// A simulated SPI device on the board.
pub struct VirtualSpi {
    pub(super) board: VirtualBoard,
    pub(super) role: SpiRole,
}

impl spi::ErrorType for VirtualSpi {
    type Error = Infallible;
}

impl spi::SpiDevice for VirtualSpi {
    fn transaction(&mut self, operations: &mut [SpiOp<'_, u8>]) -> Result<(), Infallible> {
        let mut st = self.board.state.borrow_mut();
        match self.role {
            SpiRole::Hc165 => {
                // Each byte clocked out shifts the chain by 8; zeros come in
                // at SER of the last chip.
                let mut pos = 0usize;
                for op in operations.iter_mut() {
                    let buf: &mut [u8] = match op {
                        SpiOp::Read(b) => b,
                        SpiOp::Transfer(r, _) => r,
                        SpiOp::TransferInPlace(b) => b,
                        SpiOp::Write(w) => {
                            pos += w.len();
                            continue;
                        }
                        SpiOp::DelayNs(_) => continue,
                    };
                    for b in buf.iter_mut() {
                        *b = st.shift.get(pos).copied().unwrap_or(0);
                        pos += 1;
                    }
                }
            }
            SpiRole::Mcp3008(chip) => {
                for op in operations.iter_mut() {
                    let (rx, tx): (&mut [u8], [u8; 3]) = match op {
                        SpiOp::Transfer(r, w) => {
                            let mut t = [0u8; 3];
                            for (d, s) in t.iter_mut().zip(w.iter()) {
                                *d = *s;
                            }
                            (r, t)
                        }
                        SpiOp::TransferInPlace(b) => {
                            let mut t = [0u8; 3];
                            for (d, s) in t.iter_mut().zip(b.iter()) {
                                *d = *s;
                            }
                            (b, t)
                        }
                        SpiOp::Read(b) => (b, [0; 3]),
                        _ => continue,
                    };
                    // Start bit in byte 0, SGL/DIFF D2 D1 D0 in byte 1's top nibble.
                    let code = if tx[0] & 1 == 1 && tx[1] & 0x80 != 0 {
                        let ch = usize::from(tx[1] >> 4 & 7);
                        st.adc(usize::from(chip) * 8 + ch)
                    } else {
                        0
                    };
                    let out = [0u8, (code >> 8) as u8 & 0x03, code as u8];
                    for (d, s) in rx.iter_mut().zip(out) {
                        *d = s;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The simulated I2C bus with the design's MCP23017s on it.
pub struct VirtualI2c {
    pub(super) board: VirtualBoard,
}

impl i2c::ErrorType for VirtualI2c {
    type Error = i2c::ErrorKind;
}

impl i2c::I2c for VirtualI2c {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [I2cOp<'_>],
    ) -> Result<(), i2c::ErrorKind> {
        let mut st = self.board.state.borrow_mut();
        let chip = st.addresses.iter().position(|&a| a == address).ok_or(
            i2c::ErrorKind::NoAcknowledge(i2c::NoAcknowledgeSource::Address),
        )?;
        for op in operations.iter_mut() {
            match op {
                I2cOp::Write(bytes) => {
                    if let Some((&reg, data)) = bytes.split_first() {
                        let mut p = reg;
                        for &b in data {
                            if let Some(r) = st.regs[chip].get_mut(usize::from(p)) {
                                *r = b;
                            }
                            p = p.wrapping_add(1);
                        }
                        st.pointer[chip] = if data.is_empty() { reg } else { p };
                    }
                }
                I2cOp::Read(buf) => {
                    let mut p = st.pointer[chip];
                    for b in buf.iter_mut() {
                        *b = if p == GPIOA || p == GPIOA + 1 {
                            let port = usize::from(p - GPIOA);
                            let pullups = st.regs[chip][usize::from(GPPUA) + port];
                            let mut v = 0u8;
                            for bit in 0..8 {
                                let i = chip * 16 + port * 8 + bit;
                                // Open drain: low with a magnet, else the pull-up (or floating: 0).
                                let high = if st.active_low {
                                    !st.magnet(i) && pullups >> bit & 1 == 1
                                } else {
                                    st.level(i)
                                };
                                v |= u8::from(high) << bit;
                            }
                            v
                        } else {
                            st.regs[chip].get(usize::from(p)).copied().unwrap_or(0)
                        };
                        p = p.wrapping_add(1);
                    }
                    st.pointer[chip] = p;
                }
            }
        }
        Ok(())
    }
}

/// What a simulated pin is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinRole {
    /// 74HC165 SH/LD̅: a low level latches the sensors.
    Load,
    /// Matrix row n (output).
    Row(u8),
    /// Matrix column n (input).
    Column(u8),
}

/// A simulated GPIO pin.
pub struct VirtualPin {
    pub(super) board: VirtualBoard,
    pub(super) role: PinRole,
}

impl PinErrorType for VirtualPin {
    type Error = Infallible;
}

impl digital::OutputPin for VirtualPin {
    fn set_low(&mut self) -> Result<(), Infallible> {
        let mut st = self.board.state.borrow_mut();
        match self.role {
            PinRole::Load => {
                // Parallel load: sensor index i = shift position i; byte k,
                // bit 7 - j holds index 8k + j.
                let mut bytes = [0u8; 8];
                for (i, b) in (0..64).map(|i| (i, st.level(i))) {
                    bytes[i / 8] |= u8::from(b) << (7 - i % 8);
                }
                st.shift = bytes;
            }
            PinRole::Row(r) => st.row_levels &= !(1 << r),
            PinRole::Column(_) => {}
        }
        Ok(())
    }

    fn set_high(&mut self) -> Result<(), Infallible> {
        let mut st = self.board.state.borrow_mut();
        if let PinRole::Row(r) = self.role {
            st.row_levels |= 1 << r;
        }
        Ok(())
    }
}

impl digital::InputPin for VirtualPin {
    fn is_high(&mut self) -> Result<bool, Infallible> {
        let st = self.board.state.borrow();
        let PinRole::Column(c) = self.role else {
            return Ok(false);
        };
        // The pull keeps the column at the inactive level; a closed sensor on
        // a selected row (through its diode) pulls it to the row's level.
        let inactive_high = st.row_active_low;
        let selected = if st.row_active_low {
            !st.row_levels
        } else {
            st.row_levels
        };
        let mut pulled = false;
        for r in 0..8 {
            if selected >> r & 1 == 1 && st.magnet(r * 8 + usize::from(c)) {
                pulled = true;
            }
        }
        Ok(if pulled {
            !inactive_high
        } else {
            inactive_high
        })
    }

    fn is_low(&mut self) -> Result<bool, Infallible> {
        self.is_high().map(|h| !h)
    }
}
