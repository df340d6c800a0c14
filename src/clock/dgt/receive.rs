//! What the board sends a [`DgtClock`]: its version, the clock's times
//! (checked by the [`super::TimeFilter`] before the lever is read; a
//! press is the lever going down on the other side), the buttons and the
//! acks of the command in flight.

use super::commands::Job;
use super::wire::*;
use super::DgtClock;
use crate::clock::device::{ClockButton, ClockDeviceError, ClockInput};
use std::io::{ErrorKind, Read, Write};

impl<P: Read + Write> DgtClock<P> {
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

    pub(super) fn read_available(&mut self, now: u64) -> Result<(), ClockDeviceError> {
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
}
