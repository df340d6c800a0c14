//! The DGT board's wire format: the command bytes, the clock-message frame
//! `0x2b len 0x03 cmd data… 0x00`, the `BWTIME` decoding and the resyncing
//! [`FrameReader`] (sources and byte layout: the parent module's doc).

/// `DGT_SEND_CLK`: the board answers one `BWTIME`.
pub const DGT_SEND_CLK: u8 = 0x41;
/// `DGT_SEND_UPDATE_NICE`: field updates, and clock messages when they change.
pub const DGT_SEND_UPDATE_NICE: u8 = 0x4b;
/// `DGT_SEND_VERSION`: the board answers `DGT_MSG_VERSION` (PicoChess's
/// start-up handshake sends it right after `UPDATE_NICE`).
pub const DGT_SEND_VERSION: u8 = 0x4d;
/// Message id of `DGT_MSG_VERSION` (`0x80 | 0x13`): the board's version,
/// two data bytes (major, minor).
pub const MSG_VERSION: u8 = 0x93;
/// `DGT_CLOCK_MESSAGE`: a clock command follows.
pub const DGT_CLOCK_MESSAGE: u8 = 0x2b;
/// Starts the clock message inside a `0x2b` frame.
pub const CLOCK_START_MESSAGE: u8 = 0x03;
/// Ends the clock message inside a `0x2b` frame.
pub const CLOCK_END_MESSAGE: u8 = 0x00;
/// Clock command `END`: back from text to the times.
pub const CLOCK_END: u8 = 0x03;
/// Clock command `VERSION`.
pub const CLOCK_VERSION: u8 = 0x09;
/// Clock command `SETNRUN`.
pub const CLOCK_SETNRUN: u8 = 0x0a;
/// Clock command `ASCII` (DGT 3000 only).
pub const CLOCK_ASCII: u8 = 0x0c;
/// Message id of `BWTIME` (times or clock ack).
pub const MSG_BWTIME: u8 = 0x8d;
/// `ack0` of a successful clock ack.
pub const ACK_OK: u8 = 0x10;
/// `ack1` of a button message.
pub const ACK_BUTTON: u8 = 0x88;
/// `ack1` of "clock not in mode 23".
pub const ACK_NOT_IN_MODE: u8 = 0x90;
/// `SETNRUN` flag: the left clock runs.
pub const RUN_LEFT: u8 = 0x01;
/// `SETNRUN` flag: the right clock runs.
pub const RUN_RIGHT: u8 = 0x02;
/// `SETNRUN` flag: both paused.
pub const RUN_NONE: u8 = 0x04;
/// `BWTIME` status bit: the lever is down on the right.
pub const STATUS_LEVER_RIGHT_DOWN: u8 = 0x02;
/// `BWTIME` status bit: no clock attached to the board.
pub const STATUS_NO_CLOCK: u8 = 0x20;
/// The longest board message accepted (`BOARD_DUMP` is 67 bytes).
pub const MAX_MESSAGE_LEN: usize = 128;
/// Read timeout used by [`DgtClock::open`], ms: bounds how long a poll waits.
pub const READ_TIMEOUT_MS: u64 = 10;

/// Wraps a clock command: `0x2b, data.len()+3, 0x03, cmd, data…, 0x00`.
pub fn clock_frame(cmd: u8, data: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(data.len() + 5);
    f.push(DGT_CLOCK_MESSAGE);
    f.push((data.len() + 3) as u8);
    f.push(CLOCK_START_MESSAGE);
    f.push(cmd);
    f.extend_from_slice(data);
    f.push(CLOCK_END_MESSAGE);
    f
}

/// Hours, minutes, seconds as the clock shows them (binary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hms {
    /// Hours, 0–9.
    pub h: u8,
    /// Minutes, 0–59.
    pub m: u8,
    /// Seconds, 0–59.
    pub s: u8,
}

impl Hms {
    /// The whole seconds to *set* for `ms` remaining, rounded *up*; `None`
    /// past 9:59:59, the most a DGT 3000 shows.
    ///
    /// Not a display (eboard's displays truncate, [`crate::clock::fmt_hms`]):
    /// `SETNRUN` sets whole seconds on a device that then runs on by
    /// itself. Rounded up, the device's time is at most a second more than
    /// the engine's, so its flag falls at most a second after the engine's
    /// (which decides, and which the next press sets right again), never
    /// before: a flag shown on the table before the player's time is up
    /// would take a fraction of a second from him and could be claimed.
    pub fn from_ms_ceil(ms: u64) -> Option<Hms> {
        let secs = ms.div_ceil(1000);
        if secs > crate::clock::MAX_DISPLAY_S {
            return None;
        }
        let (h, m, s) = crate::clock::split_hms(secs);
        Some(Hms {
            h: h as u8,
            m: m as u8,
            s: s as u8,
        })
    }

    /// Milliseconds.
    pub fn to_ms(self) -> u64 {
        (self.h as u64 * 3600 + self.m as u64 * 60 + self.s as u64) * 1000
    }
}

/// The four bytes of a clock ack (see the module docs for the bit shuffle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockAck {
    /// `0x10` OK, else an error code.
    pub ack0: u8,
    /// The acknowledged command, or ≥ `0x80` for an automatic message.
    pub ack1: u8,
    /// Extra data (version, button details).
    pub ack2: u8,
    /// Extra data (button code).
    pub ack3: u8,
}

/// The times part of a `BWTIME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockTimes {
    /// The right-hand player's time, ms (whole seconds).
    pub right_ms: u64,
    /// The left-hand player's time, ms (whole seconds).
    pub left_ms: u64,
    /// The status byte `b9`.
    pub status: u8,
}

impl ClockTimes {
    /// Whether the lever is down on the right side.
    pub fn lever_right_down(&self) -> bool {
        self.status & STATUS_LEVER_RIGHT_DOWN != 0
    }

    /// Whether the board reports no clock attached.
    pub fn no_clock(&self) -> bool {
        self.status & STATUS_NO_CLOCK != 0
    }
}

/// A decoded `BWTIME` message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bwtime {
    /// A clock ack.
    Ack(ClockAck),
    /// The clock's times and status.
    Times(ClockTimes),
    /// All zero: ignored.
    Empty,
    /// A digit that is not BCD or out of range (garbled message).
    Invalid,
}

fn bcd(b: u8, max: u8) -> Option<u8> {
    let (hi, lo) = (b >> 4, b & 0x0f);
    let v = hi.checked_mul(10)?.checked_add(lo)?;
    (hi <= 9 && lo <= 9 && v <= max).then_some(v)
}

/// Decodes the 7 data bytes `b3..=b9` of a `BWTIME` (module docs).
pub fn decode_bwtime(d: &[u8; 7]) -> Bwtime {
    if d[0] & 0x0f == 0x0a || d[3] & 0x0f == 0x0a {
        return Bwtime::Ack(ClockAck {
            ack0: (d[1] & 0x7f) | ((d[3] << 3) & 0x80),
            ack1: (d[2] & 0x7f) | ((d[3] << 2) & 0x80),
            ack2: (d[4] & 0x7f) | ((d[0] << 3) & 0x80),
            ack3: (d[5] & 0x7f) | ((d[0] << 2) & 0x80),
        });
    }
    if d.iter().all(|&b| b == 0) {
        return Bwtime::Empty;
    }
    let side = |h: u8, m: u8, s: u8| -> Option<u64> {
        let h = h & 0x0f;
        if h > 9 {
            return None;
        }
        let m = bcd(m, 59)?;
        let s = bcd(s, 59)?;
        Some((h as u64 * 3600 + m as u64 * 60 + s as u64) * 1000)
    };
    match (side(d[0], d[1], d[2]), side(d[3], d[4], d[5])) {
        (Some(right_ms), Some(left_ms)) => Bwtime::Times(ClockTimes {
            right_ms,
            left_ms,
            status: d[6],
        }),
        _ => Bwtime::Invalid,
    }
}

/// A whole board message: its id byte (bit 7 set) and its data bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// `0x80 | id`.
    pub id: u8,
    /// The data after the 3-byte header.
    pub data: Vec<u8>,
}

/// Cuts the board's byte stream into [`Frame`]s, resyncing on any byte with
/// bit 7 set (module docs).
#[derive(Debug, Clone, Default)]
pub struct FrameReader {
    buf: Vec<u8>,
    expected: usize,
    discarded: u64,
}

impl FrameReader {
    /// An empty reader.
    pub fn new() -> FrameReader {
        FrameReader::default()
    }

    /// Bytes thrown away so far (garbage, cut or oversized messages).
    pub fn discarded(&self) -> u64 {
        self.discarded
    }

    /// Takes one byte; returns a message when it completes one.
    pub fn push(&mut self, b: u8) -> Option<Frame> {
        if b & 0x80 != 0 {
            self.discarded += self.buf.len() as u64;
            self.buf.clear();
            self.buf.push(b);
            self.expected = 0;
            return None;
        }
        if self.buf.is_empty() {
            self.discarded += 1;
            return None;
        }
        self.buf.push(b);
        if self.buf.len() == 3 {
            let len = ((self.buf[1] as usize) << 7) | self.buf[2] as usize;
            if !(3..=MAX_MESSAGE_LEN).contains(&len) {
                self.discarded += 3;
                self.buf.clear();
                return None;
            }
            self.expected = len;
        }
        if self.buf.len() >= 3 && self.buf.len() == self.expected {
            let data = self.buf[3..].to_vec();
            let id = self.buf[0];
            self.buf.clear();
            self.expected = 0;
            return Some(Frame { id, data });
        }
        None
    }
}
