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
mod settings;
mod wire;

pub use plausible::TimeFilter;
pub use settings::{DgtConfig, DgtStats};
pub use wire::*;

use super::device::{ClockButton, ClockDevice, ClockDeviceError, ClockFace, ClockInput};
use shakmaty::Color;
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::time::Duration;

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
mod tests;
