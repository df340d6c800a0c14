//! The DGT Pi's clock (a DGT 3000 on the Pi's I2C bus 1): the frames of
//! its protocol, built and read, and the sending half over an
//! embedded-hal 1.0 I2C master. **Not a driver yet**: the clock answers
//! (acks, hello, times, buttons) as an I2C *master* writing to the Pi, so
//! the Pi must also be an I2C *slave* (the BCM2835's BSC slave peripheral),
//! which neither embedded-hal 1.0 nor Linux's i2c-bcm2835 driver offers
//! (`docs/clock.md`, "The DGT Pi's clock"). Nothing here is wired into the
//! daemon.
//!
//! Source: DGT's `dgtpicom` library (v0.8, © 2015 DGT, GPL-3.0-or-later,
//! as shipped with PicoChess, `jromang/picochess` `dgt/`): the message
//! descriptors in its header and the layout its `dgt3000Receive` reads.
//! The facts (byte values, field positions, CRC polynomial) are restated
//! here; no code is taken from it.
//!
//! A frame, as the bus carries it: `[destination address << 1, source
//! address << 1, length, command, payload…, CRC]`, `length` counting every
//! byte from the destination to the CRC, the CRC being CRC-8 with the
//! polynomial x⁸+x²+x+1 (0x07, initial 0) over all bytes before it. The
//! clock is address 8 (`0x10` on the bus), the Pi 16 (`0x20`); the clock
//! also writes to the general-call address 0 (broadcast).

use embedded_hal::i2c::I2c;

/// The clock's I2C address (7-bit).
pub const CLOCK_ADDRESS: u8 = 8;
/// The Pi's I2C address (7-bit), the source of its frames.
pub const PI_ADDRESS: u8 = 16;
/// The address the wake frame goes to (7-bit): never acknowledged; the
/// clock answers with a hello.
pub const WAKE_ADDRESS: u8 = 40;

/// Command bytes (the frame's fourth byte), as `dgtpicom` names them.
pub mod command {
    /// Ack (clock → Pi): `[…, 1, acked command, status, CRC]`.
    pub const ACK: u8 = 1;
    /// Hello (clock → Pi), the answer to a wake.
    pub const HELLO: u8 = 2;
    /// Time (clock → Pi): both clocks and the lever.
    pub const TIME: u8 = 4;
    /// Button (clock → Pi): buttons, on/off and lever, now and before.
    pub const BUTTON: u8 = 5;
    /// Display a text.
    pub const DISPLAY: u8 = 6;
    /// End the text display (back to the times).
    pub const END_DISPLAY: u8 = 7;
    /// Set both clocks and run one, or neither.
    pub const SET_AND_RUN: u8 = 10;
    /// Change the clock's state (mode 25: the Pi drives the times).
    pub const CHANGE_STATE: u8 = 11;
    /// Ping (the wake frame).
    pub const PING: u8 = 13;
    /// Take central control of the clock.
    pub const SET_CENTRAL_CONTROL: u8 = 15;
}

/// CRC-8, polynomial 0x07, initial value 0, no reflection (the frame's
/// last byte is this over the bytes before it).
pub fn crc8(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |mut c, &b| {
        c ^= b;
        for _ in 0..8 {
            c = if c & 0x80 != 0 {
                (c << 1) ^ 0x07
            } else {
                c << 1
            };
        }
        c
    })
}

/// A frame from the Pi to the clock: command and payload, with addresses,
/// length and CRC.
pub fn frame(command: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![CLOCK_ADDRESS << 1, PI_ADDRESS << 1, 0, command];
    f.extend_from_slice(payload);
    f[2] = (f.len() + 1) as u8;
    f.push(crc8(&f));
    f
}

/// "Set central control": the Pi takes the clock (ack status bit 3: taken).
pub fn set_central_control() -> Vec<u8> {
    frame(command::SET_CENTRAL_CONTROL, &[])
}

/// "Change state" to mode 25, in which the Pi sets the times (`dgtpicom`
/// sends mode 25 as the state byte 57; ack status 8: done).
pub fn mode_25() -> Vec<u8> {
    frame(command::CHANGE_STATE, &[57])
}

/// "End display": the clock shows the times again.
pub fn end_display() -> Vec<u8> {
    frame(command::END_DISPLAY, &[])
}

/// Which way a side's clock runs in a set-and-run frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// Stopped.
    Stop = 0,
    /// Counting down.
    Down = 1,
    /// Counting up.
    Up = 2,
}

/// One side's time for a set-and-run frame: hours (0–9), minutes, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideTime {
    /// Hours, 0–9 (the display has one digit).
    pub h: u8,
    /// Minutes, 0–59.
    pub m: u8,
    /// Seconds, 0–59.
    pub s: u8,
}

impl SideTime {
    /// The time of `ms` milliseconds, whole seconds down; `None` at 10 h or
    /// more (the clock shows one digit of hours).
    pub fn from_ms(ms: u64) -> Option<SideTime> {
        let s = ms / 1000;
        (s < 10 * 3600).then_some(SideTime {
            h: (s / 3600) as u8,
            m: (s / 60 % 60) as u8,
            s: (s % 60) as u8,
        })
    }
}

fn bcd(v: u8) -> u8 {
    ((v / 10) << 4) | (v % 10)
}

fn from_bcd(b: u8) -> Option<u8> {
    let (hi, lo) = (b >> 4, b & 0x0f);
    (hi < 10 && lo < 10).then_some(hi * 10 + lo)
}

/// "Set and run": the left and right clocks (the left is the side of the
/// lever's left position) and how each runs. Layout: hours, minutes and
/// seconds in BCD per side, then `left run | right run << 2`.
pub fn set_and_run(left: SideTime, left_run: Run, right: SideTime, right_run: Run) -> Vec<u8> {
    frame(
        command::SET_AND_RUN,
        &[
            left.h,
            bcd(left.m),
            bcd(left.s),
            right.h,
            bcd(right.m),
            bcd(right.s),
            left_run as u8 | (right_run as u8) << 2,
        ],
    )
}

/// Writes `frame` on the bus: the I2C address is the frame's first byte
/// (shifted), the bytes after it are written (as `dgtpicom`'s master does).
/// Errors: the bus's (a NACK: the clock is off or another master was
/// sending; retry as `dgtpicom` does, wake the clock after three).
pub fn send<I: I2c>(i2c: &mut I, frame: &[u8]) -> Result<(), I::Error> {
    let (addr, rest) = frame.split_first().unwrap_or((&0, &[]));
    i2c.write(addr >> 1, rest)
}

/// A frame the clock sent, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FromClock {
    /// The clock acknowledged `command` with `status`.
    Ack {
        /// The acknowledged command.
        command: u8,
        /// Its status byte (e.g. 8: done, for set-and-run and mode 25).
        status: u8,
    },
    /// The clock woke.
    Hello,
    /// Both clocks and the lever.
    Time {
        /// Left clock.
        left: SideTime,
        /// Right clock.
        right: SideTime,
        /// The lever is to the right (its state bit).
        lever_right: bool,
    },
    /// The buttons now and before (bits 0–4 buttons, 5 on/off, 6 lever).
    Button {
        /// Now.
        now: u8,
        /// Before.
        before: u8,
    },
}

/// Why a frame from the clock was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// Shorter than its length byte says, or than five bytes.
    Length(usize),
    /// Not from the clock (the source byte).
    Source(u8),
    /// The CRC does not match.
    Crc,
    /// A time field that is not BCD.
    Time,
    /// Too short for its command.
    Short(u8),
    /// A command eboard does not read.
    Unknown(u8),
}

/// Reads a frame the clock wrote (`[destination, source, length, command,
/// …, CRC]`, as an I2C slave receives it with the address byte first).
pub fn read(f: &[u8]) -> Result<FromClock, FrameError> {
    if f.len() < 5 || f[2] as usize != f.len() {
        return Err(FrameError::Length(f.len()));
    }
    if f[1] != CLOCK_ADDRESS << 1 {
        return Err(FrameError::Source(f[1]));
    }
    let (body, crc) = f.split_at(f.len() - 1);
    if crc8(body) != crc[0] {
        return Err(FrameError::Crc);
    }
    let need = |n: usize| {
        if f.len() < n {
            Err(FrameError::Short(f[3]))
        } else {
            Ok(())
        }
    };
    match f[3] {
        command::ACK => {
            need(7)?;
            Ok(FromClock::Ack {
                command: f[4],
                status: f[5],
            })
        }
        command::HELLO => Ok(FromClock::Hello),
        command::TIME => {
            need(21)?;
            let side = |h: u8, m: u8, s: u8| -> Result<SideTime, FrameError> {
                Ok(SideTime {
                    h: h & 0x0f,
                    m: from_bcd(m).filter(|m| *m < 60).ok_or(FrameError::Time)?,
                    s: from_bcd(s).filter(|s| *s < 60).ok_or(FrameError::Time)?,
                })
            };
            Ok(FromClock::Time {
                left: side(f[5], f[6], f[7])?,
                right: side(f[11], f[12], f[13])?,
                lever_right: f[19] & 1 == 1,
            })
        }
        command::BUTTON => {
            need(7)?;
            Ok(FromClock::Button {
                now: f[4],
                before: f[5],
            })
        }
        other => Err(FrameError::Unknown(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_hal_mock::eh1::i2c::{Mock, Transaction};

    /// The descriptors `dgtpicom` sends, byte for byte (its header).
    #[test]
    fn the_frames_are_dgtpicoms() {
        assert_eq!(set_central_control(), [16, 32, 5, 15, 72]);
        assert_eq!(mode_25(), [16, 32, 6, 11, 57, 185]);
        assert_eq!(end_display(), [16, 32, 5, 7, 112]);
        // Its no-auto-message descriptor, built the same way.
        assert_eq!(frame(3, &[209]), [16, 32, 6, 3, 209, 135]);
    }

    #[test]
    fn set_and_run_in_bcd_with_the_run_bits() {
        let f = set_and_run(
            SideTime::from_ms(5_400_000 + 59_000).unwrap(),
            Run::Down,
            SideTime::from_ms(4_799_999).unwrap(),
            Run::Stop,
        );
        // 1:30:59 left running down, 1:19:59 right stopped.
        assert_eq!(
            &f[..11],
            [16, 32, 12, 10, 1, 0x30, 0x59, 1, 0x19, 0x59, 0x01]
        );
        assert_eq!(f[11], crc8(&f[..11]));
        assert_eq!(f.len(), 12);
        assert_eq!(SideTime::from_ms(36_000_000), None);
    }

    #[test]
    fn sending_writes_after_the_address_byte() {
        let mut i2c = Mock::new(&[
            Transaction::write(CLOCK_ADDRESS, vec![32, 5, 15, 72]),
            Transaction::write(CLOCK_ADDRESS, vec![32, 6, 11, 57, 185]),
        ]);
        send(&mut i2c, &set_central_control()).unwrap();
        send(&mut i2c, &mode_25()).unwrap();
        i2c.done();
    }

    /// A time frame as `dgtpicom` reads it: left at bytes 5–7, right at
    /// 11–13 (BCD minutes and seconds), the lever in byte 19 bit 0.
    fn time_frame(lever: u8, left_s: u8) -> Vec<u8> {
        let mut f = vec![0, 16, 22, 4, 0, 1, 0x30, left_s, 0, 0, 0, 1, 0x29, 0x05];
        f.extend([0, 0, 0, 0, 0, lever, 0]);
        let crc = crc8(&f);
        f.push(crc);
        f
    }

    #[test]
    fn frames_from_the_clock_are_read_and_garbage_is_refused() {
        assert_eq!(
            read(&time_frame(1, 0x59)),
            Ok(FromClock::Time {
                left: SideTime { h: 1, m: 30, s: 59 },
                right: SideTime { h: 1, m: 29, s: 5 },
                lever_right: true,
            })
        );
        let mut ack = vec![0x20, 16, 7, 1, 10, 8];
        ack.push(crc8(&ack));
        assert_eq!(
            read(&ack),
            Ok(FromClock::Ack {
                command: 10,
                status: 8
            })
        );
        let mut bad = time_frame(0, 0x59);
        bad[6] ^= 0x01;
        assert_eq!(read(&bad), Err(FrameError::Crc));
        assert_eq!(read(&time_frame(0, 0x6a)), Err(FrameError::Time));
        assert_eq!(read(&ack[..5]), Err(FrameError::Length(5)));
        let mut other = ack.clone();
        other[1] = 32;
        assert!(matches!(read(&other), Err(FrameError::Source(32))));
    }
}
