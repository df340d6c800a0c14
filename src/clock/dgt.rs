//! A DGT 3000 clock attached to a DGT e-board, over the board's serial line
//! (USB `ttyACM*`/`ttyUSB*`, or Bluetooth `rfcomm*`).
//!
//! Length: one device protocol (framing, commands, acknowledgements, the
//! lever and button decoding) in one place, with its byte-level tests.
//!
//! # Sources
//!
//! DGT's board protocol header `dgtbrd.h` ($Id dgtbrd.h 2962, ©DGT
//! 1998–2014, as `jromang/picochess test/dgtbrd-marius.h`) and PicoChess
//! (`JohanSjoblom/picochess dgt/board.py`, `dgt/util.py`), summarised in
//! `shared/reference/ecosystem.md` §2. Nothing here was checked against a
//! real clock; the points we are unsure of are marked *unverified*.
//! The header says the protocol "may not be used commercially without
//! written permission of DGT Projects B.V."
//!
//! # Link
//!
//! 9600 baud, 8 data bits, no parity, 1 stop bit, no handshake.
//!
//! # PC → board
//!
//! Board commands are one byte. We use `DGT_SEND_UPDATE_NICE` `0x4b` at
//! start (the board then relays clock messages and acks: "Clock commands
//! return an ACK message if mode is UPDATE or UPDATE_NICE", `dgt/util.py`),
//! then `DGT_SEND_VERSION` `0x4d` (PicoChess's handshake; the board answers
//! `0x93 0x00 0x05 major minor`), and `DGT_SEND_CLK` `0x41` as a keep-alive
//! (the board answers one `BWTIME`). After every `SETNRUN` an `END` follows
//! ([`DgtConfig::end_after_setnrun`], PicoChess `dgt/hw.py`), and the times
//! of a `BWTIME` are checked ([`TimeFilter`]) before its lever is read
//! (`docs/clock.md`, "As PicoChess drives it").
//!
//! A clock command is wrapped as
//! `0x2b len 0x03 cmd data… 0x00` where `0x2b` is `DGT_CLOCK_MESSAGE`,
//! `0x03` starts and `0x00` ends the clock message, and `len` counts the
//! bytes from the `0x03` to the `0x00` inclusive (`data.len() + 3`; PicoChess
//! sends `len = 0x0a` for `SETNRUN` with 7 data bytes, `0x0c` for `ASCII`
//! with 9, `0x03` for `END`/`VERSION` with none). Commands used here:
//!
//! | cmd | name | data |
//! |---|---|---|
//! | `0x09` | `VERSION` | none; acked with the version in ack2 |
//! | `0x0a` | `SETNRUN` | `lh lm ls rh rm rs flags`; times are plain binary (not BCD: PicoChess passes integers; *unverified* against DGT's text); flags `0x01` left runs, `0x02` right runs, `0x04` both paused (PicoChess `ClockSide`) |
//! | `0x0c` | `ASCII` | 8 ASCII characters, then beep length in 64 ms units (DGT 3000 only) |
//! | `0x03` | `END` | none; back from text to the times |
//!
//! Only one clock command may be in flight; the next one waits for the
//! ack, which "usually" comes "within one or two seconds" (dgtbrd.h).
//! PicoChess resends after 2 s; we resend after [`DgtConfig::ack_timeout_ms`]
//! at most [`DgtConfig::attempts`] times in all, then report the clock
//! offline.
//!
//! # Board → PC
//!
//! Every message is `0x80|id, len_hi, len_lo, data…`, the length being the
//! whole message including the 3-byte header as two 7-bit halves
//! (`(len_hi << 7) | len_lo`); data bytes never have bit 7 set, so a byte
//! with bit 7 set always starts a new message: this is how [`FrameReader`]
//! resyncs after garbage or a lost byte.
//!
//! `BWTIME` is `0x8d 0x00 0x0a b3 … b9` (7 data bytes). It is either
//!
//! * a **clock ack**, when `(b3 & 0x0f) == 0x0a || (b6 & 0x0f) == 0x0a`:
//!   `ack0 = (b4 & 0x7f) | ((b6 << 3) & 0x80)`,
//!   `ack1 = (b5 & 0x7f) | ((b6 << 2) & 0x80)`,
//!   `ack2 = (b7 & 0x7f) | ((b3 << 3) & 0x80)`,
//!   `ack3 = (b8 & 0x7f) | ((b3 << 2) & 0x80)`.
//!   `ack0 == 0x10` is OK (anything else an error; dgtbrd.h names `0x40`);
//!   `ack1` is the acknowledged command code, or ≥ `0x80` for an automatic
//!   message: `0x88` button (ack3 `0x31` back, `0x34` minus, `0x33`
//!   play/pause, `0x32` plus, `0x35` forward, per PicoChess's button
//!   numbers 0–4), `0x81` ready, `0x8a` mode, `0x90` "not in mode 23";
//! * the **times**: `b3` hours of the right-hand player (low nibble),
//!   `b4` minutes and `b5` seconds as two BCD digits each, `b6`–`b8` the
//!   same for the left-hand player, `b9` status: bit 0 running, bit 1 the
//!   lever is down on the right side (PicoChess's reading), bit 2 battery
//!   low, bit 3 right's turn, bit 4 left's turn, bit 5 no clock;
//! * **all zero**: ignored (dgtbrd.h: an empty `BWTIME` can follow a
//!   command).
//!
//! A **press** is the lever going from one side down to the other: the
//! player on the side that went down has pressed (*unverified* on real
//! hardware; PicoChess emits a lever event on the same change).

mod plausible;

pub use plausible::TimeFilter;

use super::device::{ClockButton, ClockDevice, ClockDeviceError, ClockFace, ClockInput};
use shakmaty::Color;
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::time::Duration;

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
    /// The display for `ms` remaining, rounded *up* to whole seconds (so the
    /// clock never shows 0:00:00 before the engine's flag falls); `None`
    /// past 9:59:59, the most a DGT 3000 shows.
    pub fn from_ms_ceil(ms: u64) -> Option<Hms> {
        let secs = ms.div_ceil(1000);
        if secs > super::MAX_DISPLAY_S {
            return None;
        }
        let (h, m, s) = super::split_hms(secs);
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

/// Settings of the DGT driver. Times in ms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DgtConfig {
    /// White sits on the clock's left side.
    pub white_on_left: bool,
    /// Wait for a clock ack before resending, ms (PicoChess: 2000).
    pub ack_timeout_ms: u64,
    /// Attempts per command in all, ≥ 1 (PicoChess gives up after 3).
    pub attempts: u32,
    /// Ask the board for the time (`0x41`) after this long without a byte, ms.
    pub keepalive_ms: u64,
    /// Report the clock offline after this long without a byte, ms.
    pub offline_after_ms: u64,
    /// How long a move's text stays on the display before the times come
    /// back, ms; 0 shows no move text.
    pub move_text_ms: u64,
    /// Send `END` after every `SETNRUN` (PicoChess `dgt/hw.py`: "this is
    /// needed for some(!) clocks", unless its `disable_end` option).
    pub end_after_setnrun: bool,
}

impl Default for DgtConfig {
    fn default() -> Self {
        DgtConfig {
            white_on_left: true,
            ack_timeout_ms: 2000,
            attempts: 3,
            keepalive_ms: 1000,
            offline_after_ms: 5000,
            move_text_ms: 2000,
            end_after_setnrun: true,
        }
    }
}

/// Counters for tests and diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DgtStats {
    /// Board messages received.
    pub frames: u64,
    /// Bytes thrown away while resyncing.
    pub discarded_bytes: u64,
    /// `BWTIME` messages that did not decode.
    pub invalid_messages: u64,
    /// Clock commands written (first attempts and resends).
    pub commands_sent: u64,
    /// Resends after a lost ack or an error ack.
    pub resends: u64,
    /// Commands acknowledged.
    pub acked: u64,
    /// Commands given up.
    pub given_up: u64,
    /// Acks that matched no command in flight (late or duplicate).
    pub stray_acks: u64,
    /// Time messages that cannot be real (a time going up, a fall of over
    /// an hour: [`TimeFilter`]); their lever was not read.
    pub implausible_times: u64,
    /// The board's version (`DGT_MSG_VERSION`: major, minor), once it
    /// answered the handshake.
    pub board_version: Option<(u8, u8)>,
}

/// A clock command waiting to be sent; frames are built at send time so the
/// times are current.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Job {
    Version,
    Face,
    Text([u8; 8]),
    EndText,
}

impl Job {
    fn code(&self) -> u8 {
        match self {
            Job::Version => CLOCK_VERSION,
            Job::Face => CLOCK_SETNRUN,
            Job::Text(_) => CLOCK_ASCII,
            Job::EndText => CLOCK_END,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Job::Version => "VERSION",
            Job::Face => "SETNRUN",
            Job::Text(_) => "ASCII",
            Job::EndText => "END",
        }
    }
}

#[derive(Debug, Clone)]
struct InFlight {
    job: Job,
    attempts: u32,
    deadline_ms: u64,
    refused: Option<u8>,
}

/// A DGT 3000 behind a DGT board on a serial line, over any port that
/// reads with a timeout (a read that times out returns `Ok(0)` or an error
/// of kind `TimedOut`/`WouldBlock`).
pub struct DgtClock<P> {
    port: P,
    name: String,
    cfg: DgtConfig,
    reader: FrameReader,
    queue: VecDeque<Job>,
    in_flight: Option<InFlight>,
    face: Option<ClockFace>,
    lever_right_down: Option<bool>,
    online: Option<bool>,
    started: bool,
    last_rx_ms: u64,
    last_keepalive_ms: u64,
    end_text_at: Option<u64>,
    stats: DgtStats,
    out: Vec<ClockInput>,
    times: TimeFilter,
    /// The clock answered `VERSION` (PicoChess `enable_ser_clock`).
    clock_found: bool,
}

impl DgtClock<Box<dyn serialport::SerialPort>> {
    /// Opens a real serial device (9600 8N1, no flow control, read timeout
    /// [`READ_TIMEOUT_MS`]).
    pub fn open(path: &str, cfg: DgtConfig) -> Result<Self, ClockDeviceError> {
        let port = serialport::new(path, 9600)
            .data_bits(serialport::DataBits::Eight)
            .parity(serialport::Parity::None)
            .stop_bits(serialport::StopBits::One)
            .flow_control(serialport::FlowControl::None)
            .timeout(Duration::from_millis(READ_TIMEOUT_MS))
            .open()
            .map_err(|e| ClockDeviceError::Open {
                device: path.to_owned(),
                message: e.to_string(),
            })?;
        Ok(DgtClock::new(port, format!("DGT 3000 on {path}"), cfg))
    }
}

impl<P: Read + Write> DgtClock<P> {
    /// A driver over an open port; nothing is written until the first poll,
    /// which sets the board to `UPDATE_NICE` and asks the clock's version.
    pub fn new(port: P, name: impl Into<String>, cfg: DgtConfig) -> Self {
        DgtClock {
            port,
            name: name.into(),
            cfg,
            reader: FrameReader::new(),
            queue: VecDeque::new(),
            in_flight: None,
            face: None,
            lever_right_down: None,
            online: None,
            started: false,
            last_rx_ms: 0,
            last_keepalive_ms: 0,
            end_text_at: None,
            stats: DgtStats::default(),
            out: Vec::new(),
            times: TimeFilter::default(),
            clock_found: false,
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> DgtStats {
        DgtStats {
            discarded_bytes: self.reader.discarded(),
            ..self.stats
        }
    }

    /// Whether a clock command waits for its ack.
    pub fn busy(&self) -> bool {
        self.in_flight.is_some() || !self.queue.is_empty()
    }

    /// The port (for tests).
    pub fn port_mut(&mut self) -> &mut P {
        &mut self.port
    }

    fn side_color(&self, right: bool) -> Color {
        if right == self.cfg.white_on_left {
            Color::Black
        } else {
            Color::White
        }
    }

    fn set_online(&mut self, now: u64) {
        if self.online != Some(true) {
            self.online = Some(true);
            self.out.push(ClockInput::Online { t_ms: now });
        }
    }

    fn set_offline(&mut self, now: u64, reason: ClockDeviceError) {
        if self.online != Some(false) {
            self.online = Some(false);
            self.out.push(ClockInput::Offline { t_ms: now, reason });
        }
    }

    fn write(&mut self, bytes: &[u8], doing: &str) -> Result<(), ClockDeviceError> {
        let r = self.port.write_all(bytes).and_then(|_| self.port.flush());
        r.map_err(|e| {
            self.online = Some(false);
            ClockDeviceError::io(&self.name, doing, &e)
        })
    }

    fn enqueue(&mut self, job: Job) {
        let same = std::mem::discriminant(&job);
        self.queue.retain(|j| std::mem::discriminant(j) != same);
        if let Job::Text(_) = job {
            self.queue.retain(|j| *j != Job::EndText);
        }
        let face = job == Job::Face;
        self.queue.push_back(job);
        // END after SETNRUN, unless a move's text is up: its own END
        // comes when it has been shown.
        if face && self.cfg.end_after_setnrun && self.end_text_at.is_none() {
            self.queue.retain(|j| *j != Job::EndText);
            self.queue.push_back(Job::EndText);
        }
    }

    fn frame_for(&self, job: &Job, now: u64) -> Result<Vec<u8>, ClockDeviceError> {
        Ok(match job {
            Job::Version => clock_frame(CLOCK_VERSION, &[]),
            Job::EndText => clock_frame(CLOCK_END, &[]),
            Job::Text(t) => {
                let mut d = t.to_vec();
                d.push(0); // no beep
                clock_frame(CLOCK_ASCII, &d)
            }
            Job::Face => {
                let face = self.face.unwrap_or(ClockFace {
                    white_ms: 0,
                    black_ms: 0,
                    running: None,
                    at_ms: now,
                });
                let (w, b) = face.times_at(now);
                let hms = |ms: u64| {
                    Hms::from_ms_ceil(ms).ok_or_else(|| ClockDeviceError::Unshowable {
                        device: self.name.clone(),
                        what: format!("{ms} ms (more than 9:59:59)"),
                    })
                };
                let (wh, bh) = (hms(w)?, hms(b)?);
                let (left, right) = if self.cfg.white_on_left {
                    (wh, bh)
                } else {
                    (bh, wh)
                };
                let flags = match face.running {
                    None => RUN_NONE,
                    Some(c) => {
                        if (c == Color::White) == self.cfg.white_on_left {
                            RUN_LEFT
                        } else {
                            RUN_RIGHT
                        }
                    }
                };
                clock_frame(
                    CLOCK_SETNRUN,
                    &[left.h, left.m, left.s, right.h, right.m, right.s, flags],
                )
            }
        })
    }

    fn send(&mut self, job: Job, attempts: u32, now: u64) -> Result<(), ClockDeviceError> {
        let frame = self.frame_for(&job, now)?;
        self.write(&frame, &format!("writing {}", job.name()))?;
        if job == Job::Face {
            // The clock may show up to these from now on (frame: 2b 0a 03
            // 0a lh lm ls rh rm rs flags 00).
            let ms = |h: &[u8]| {
                Hms {
                    h: h[0],
                    m: h[1],
                    s: h[2],
                }
                .to_ms()
            };
            self.times.sent(ms(&frame[4..7]), ms(&frame[7..10]));
        }
        self.stats.commands_sent += 1;
        self.in_flight = Some(InFlight {
            job,
            attempts,
            deadline_ms: now + self.cfg.ack_timeout_ms,
            refused: None,
        });
        Ok(())
    }

    fn handle_frame(&mut self, f: Frame, now: u64) {
        self.stats.frames += 1;
        self.last_rx_ms = now;
        if f.id == MSG_VERSION && f.data.len() == 2 {
            self.stats.board_version = Some((f.data[0], f.data[1]));
            return;
        }
        if f.id != MSG_BWTIME {
            return;
        }
        let Ok(d) = <[u8; 7]>::try_from(f.data.as_slice()) else {
            self.stats.invalid_messages += 1;
            return;
        };
        match decode_bwtime(&d) {
            Bwtime::Empty => {}
            Bwtime::Invalid => self.stats.invalid_messages += 1,
            Bwtime::Ack(a) => self.handle_ack(a, now),
            Bwtime::Times(t) => {
                if t.no_clock() {
                    let reason = ClockDeviceError::NotReady {
                        device: self.name.clone(),
                        what: "the board reports no clock attached".into(),
                    };
                    self.set_offline(now, reason);
                    self.lever_right_down = None;
                    return;
                }
                // Checked before anything of the message is used: a garbled
                // message presses nothing (PicoChess's order too).
                if self.times.check(t.left_ms, t.right_ms).is_err() {
                    self.stats.implausible_times += 1;
                    return;
                }
                self.set_online(now);
                // The clock talks but never answered VERSION (switched on
                // late): ask again (PicoChess `startup_serial_clock`).
                if !self.clock_found
                    && !self.queue.contains(&Job::Version)
                    && self
                        .in_flight
                        .as_ref()
                        .is_none_or(|f| f.job != Job::Version)
                {
                    self.queue.push_front(Job::Version);
                }
                let (white_ms, black_ms) = if self.cfg.white_on_left {
                    (t.left_ms, t.right_ms)
                } else {
                    (t.right_ms, t.left_ms)
                };
                self.out.push(ClockInput::Shown {
                    white_ms,
                    black_ms,
                    t_ms: now,
                });
                let right = t.lever_right_down();
                if let Some(prev) = self.lever_right_down {
                    if prev != right {
                        let by = self.side_color(right);
                        self.out.push(ClockInput::Press { by, t_ms: now });
                    }
                }
                self.lever_right_down = Some(right);
            }
        }
    }

    fn handle_ack(&mut self, a: ClockAck, now: u64) {
        self.set_online(now);
        if a.ack0 != ACK_OK {
            // An error ack refers to the command in flight (PicoChess resends
            // the last command on any error ack).
            if let Some(f) = self.in_flight.as_mut() {
                f.refused = Some(a.ack0);
                f.deadline_ms = now;
            } else {
                self.stats.stray_acks += 1;
            }
            return;
        }
        if a.ack1 >= 0x80 {
            match a.ack1 {
                ACK_BUTTON => {
                    let button = match a.ack3 {
                        0x31 => Some(ClockButton::Back),
                        0x34 => Some(ClockButton::Minus),
                        0x33 => Some(ClockButton::PlayPause),
                        0x32 => Some(ClockButton::Plus),
                        0x35 => Some(ClockButton::Forward),
                        _ => None,
                    };
                    if let Some(button) = button {
                        self.out.push(ClockInput::Button { button, t_ms: now });
                    }
                }
                ACK_NOT_IN_MODE => self.out.push(ClockInput::CommandFailed {
                    t_ms: now,
                    error: ClockDeviceError::NotReady {
                        device: self.name.clone(),
                        what: "clock is not in PC mode 23".into(),
                    },
                }),
                _ => {}
            }
            return;
        }
        match &self.in_flight {
            Some(f) if f.job.code() == a.ack1 => {
                if f.job == Job::Version {
                    self.clock_found = true;
                }
                self.in_flight = None;
                self.stats.acked += 1;
            }
            _ => self.stats.stray_acks += 1,
        }
    }

    fn read_available(&mut self, now: u64) -> Result<(), ClockDeviceError> {
        let mut buf = [0u8; 256];
        for _ in 0..8 {
            match self.port.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    for &b in &buf[..n] {
                        if let Some(f) = self.reader.push(b) {
                            self.handle_frame(f, now);
                        }
                    }
                    if n < buf.len() {
                        break;
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::TimedOut | ErrorKind::WouldBlock | ErrorKind::Interrupted
                    ) =>
                {
                    break
                }
                Err(e) => {
                    self.online = Some(false);
                    return Err(ClockDeviceError::io(&self.name, "reading", &e));
                }
            }
        }
        Ok(())
    }

    fn step(&mut self, now: u64) -> Result<(), ClockDeviceError> {
        if !self.started {
            self.started = true;
            self.last_rx_ms = now;
            self.last_keepalive_ms = now;
            // PicoChess's start-up: UPDATE_NICE, the board's VERSION, the
            // clock's VERSION.
            self.write(&[DGT_SEND_UPDATE_NICE], "writing UPDATE_NICE")?;
            self.write(&[DGT_SEND_VERSION], "writing SEND_VERSION")?;
            self.queue.push_front(Job::Version);
        }
        self.read_available(now)?;

        if let Some(f) = self.in_flight.clone() {
            if now >= f.deadline_ms {
                if f.attempts < self.cfg.attempts.max(1) {
                    self.stats.resends += 1;
                    self.send(f.job, f.attempts + 1, now)?;
                } else {
                    self.in_flight = None;
                    self.stats.given_up += 1;
                    match f.refused {
                        Some(code) => self.out.push(ClockInput::CommandFailed {
                            t_ms: now,
                            error: ClockDeviceError::Refused {
                                device: self.name.clone(),
                                command: f.job.name(),
                                code,
                                attempts: f.attempts,
                            },
                        }),
                        None => {
                            let reason = ClockDeviceError::NoAck {
                                device: self.name.clone(),
                                command: f.job.name(),
                                attempts: f.attempts,
                                timeout_ms: self.cfg.ack_timeout_ms,
                            };
                            self.set_offline(now, reason);
                        }
                    }
                }
            }
        }

        if let Some(at) = self.end_text_at {
            if now >= at {
                self.end_text_at = None;
                self.enqueue(Job::EndText);
            }
        }

        if self.in_flight.is_none() {
            if let Some(job) = self.queue.pop_front() {
                self.send(job, 1, now)?;
            }
        }

        let quiet = now.saturating_sub(self.last_rx_ms);
        if self.in_flight.is_none()
            && quiet >= self.cfg.keepalive_ms
            && now.saturating_sub(self.last_keepalive_ms) >= self.cfg.keepalive_ms
        {
            self.last_keepalive_ms = now;
            self.write(&[DGT_SEND_CLK], "writing SEND_CLK")?;
        }
        if quiet >= self.cfg.offline_after_ms {
            let reason = ClockDeviceError::Silent {
                device: self.name.clone(),
                silent_ms: quiet,
            };
            self.set_offline(now, reason);
        }
        Ok(())
    }
}

impl<P: Read + Write> ClockDevice for DgtClock<P> {
    fn name(&self) -> &str {
        &self.name
    }

    fn poll(&mut self, now_ms: u64) -> Result<Vec<ClockInput>, ClockDeviceError> {
        self.step(now_ms)?;
        Ok(std::mem::take(&mut self.out))
    }

    fn set_times(&mut self, now_ms: u64, face: ClockFace) -> Result<(), ClockDeviceError> {
        let (w, b) = face.times_at(now_ms);
        for ms in [w, b] {
            if Hms::from_ms_ceil(ms).is_none() {
                return Err(ClockDeviceError::Unshowable {
                    device: self.name.clone(),
                    what: format!("{ms} ms (more than 9:59:59)"),
                });
            }
        }
        self.face = Some(face);
        self.enqueue(Job::Face);
        Ok(())
    }

    fn show_move(&mut self, now_ms: u64, text: &str) -> Result<(), ClockDeviceError> {
        if self.cfg.move_text_ms == 0 {
            return Ok(());
        }
        let mut t = [b' '; 8];
        for (slot, c) in t.iter_mut().zip(text.chars()) {
            *slot = if c.is_ascii_graphic() || c == ' ' {
                c as u8
            } else {
                b'?'
            };
        }
        self.enqueue(Job::Text(t));
        self.end_text_at = Some(now_ms + self.cfg.move_text_ms);
        Ok(())
    }

    fn stop(&mut self, now_ms: u64) -> Result<(), ClockDeviceError> {
        if let Some(face) = self.face {
            self.face = Some(face.stopped_at(now_ms));
            self.enqueue(Job::Face);
        }
        Ok(())
    }

    fn is_online(&self) -> bool {
        self.online == Some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_match_picochess_lengths() {
        assert_eq!(
            clock_frame(CLOCK_VERSION, &[]),
            [0x2b, 0x03, 0x03, 0x09, 0x00]
        );
        let f = clock_frame(CLOCK_SETNRUN, &[1, 30, 0, 1, 29, 59, RUN_RIGHT]);
        assert_eq!(f[1], 0x0a);
        assert_eq!(f.len(), 12);
        assert_eq!(clock_frame(CLOCK_ASCII, &[b' '; 9])[1], 0x0c);
    }

    #[test]
    fn bwtime_times_decode_bcd() {
        // right 1:29:59, left 0:05:07, lever right down, running.
        let d = [0x01, 0x29, 0x59, 0x00, 0x05, 0x07, 0x03];
        assert_eq!(
            decode_bwtime(&d),
            Bwtime::Times(ClockTimes {
                right_ms: 5_399_000,
                left_ms: 307_000,
                status: 0x03
            })
        );
        assert_eq!(decode_bwtime(&[0; 7]), Bwtime::Empty);
        assert_eq!(
            decode_bwtime(&[0x01, 0x6a, 0x00, 0, 0, 0, 0]),
            Bwtime::Invalid
        );
        assert_eq!(
            decode_bwtime(&[0x01, 0x60, 0x00, 0, 0, 0, 0]),
            Bwtime::Invalid
        );
    }

    #[test]
    fn bwtime_ack_decode() {
        // ack0 0x10, ack1 0x88 (bit 7 from b6 bit 5), ack2 0x05, ack3 0x31.
        let d = [0x0a, 0x10, 0x08, 0x2a, 0x05, 0x31, 0x00];
        assert_eq!(
            decode_bwtime(&d),
            Bwtime::Ack(ClockAck {
                ack0: 0x10,
                ack1: 0x88,
                ack2: 0x05,
                ack3: 0x31
            })
        );
    }

    #[test]
    fn reader_resyncs() {
        let mut r = FrameReader::new();
        let mut got = Vec::new();
        let stream = [
            0x12, 0x7f, // stray data bytes
            0x8d, 0x00, 0x0a, 0x01, 0x02, // cut message
            0x8d, 0x00, 0x0a, 1, 2, 3, 4, 5, 6, 7, // whole
            0xff, 0x7f, 0x7f, // oversized header
            0x93, 0x00, 0x05, 3, 4, // VERSION
        ];
        for b in stream {
            if let Some(f) = r.push(b) {
                got.push(f);
            }
        }
        assert_eq!(
            got,
            vec![
                Frame {
                    id: 0x8d,
                    data: vec![1, 2, 3, 4, 5, 6, 7]
                },
                Frame {
                    id: 0x93,
                    data: vec![3, 4]
                }
            ]
        );
        assert_eq!(r.discarded(), 2 + 5 + 3);
    }

    #[test]
    fn hms_rounds_up_and_caps() {
        assert_eq!(
            Hms::from_ms_ceil(5_428_100),
            Some(Hms { h: 1, m: 30, s: 29 })
        );
        assert_eq!(Hms::from_ms_ceil(0), Some(Hms { h: 0, m: 0, s: 0 }));
        assert_eq!(Hms::from_ms_ceil(1), Some(Hms { h: 0, m: 0, s: 1 }));
        assert!(Hms::from_ms_ceil(36_000_000).is_none());
        assert!(Hms::from_ms_ceil(35_999_000).is_some());
    }
}
