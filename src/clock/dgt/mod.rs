//! A DGT 3000 clock attached to a DGT e-board, over the board's serial line
//! (USB `ttyACM*`/`ttyUSB*`, or Bluetooth `rfcomm*`).
//!
//! Length: one device protocol (framing, commands, acknowledgements, the
//! lever and button decoding) in this module, with its byte-level tests.
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
//!
//! # Files
//!
//! `wire` (the bytes: frames, BCD times, `BWTIME` decoding), `plausible`
//! ([`TimeFilter`]), `settings` ([`DgtConfig`], [`DgtStats`]), this file
//! (the driver [`DgtClock`] and its [`ClockDevice`] side), `commands` (the
//! clock commands: queue, frames, one in flight, resends, keep-alive) and
//! `receive` (what the board sends: times, lever, buttons, acks).

mod commands;
mod plausible;
mod receive;
mod settings;
mod wire;

pub use plausible::TimeFilter;
pub use settings::{DgtConfig, DgtStats};
pub use wire::*;

use super::device::{ClockDevice, ClockDeviceError, ClockFace, ClockInput};
use commands::{InFlight, Job};
use shakmaty::Color;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::time::Duration;

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
mod tests;
