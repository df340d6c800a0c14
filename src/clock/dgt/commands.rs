//! The clock commands of a [`DgtClock`]: the queue (one of each kind, an
//! `END` after each `SETNRUN`), the frame built at send time (so the times
//! are current), one command in flight until its ack, resent after
//! [`super::DgtConfig::ack_timeout_ms`] and given up after
//! [`super::DgtConfig::attempts`]; and [`DgtClock::step`], one poll: the
//! start-up, the reading, the resends, the keep-alive, the silence.

use super::wire::*;
use super::DgtClock;
use crate::clock::device::{ClockDeviceError, ClockFace, ClockInput};
use shakmaty::Color;
use std::io::{Read, Write};

/// A clock command waiting to be sent; frames are built at send time so the
/// times are current.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Job {
    Version,
    Face,
    Text([u8; 8]),
    EndText,
}

impl Job {
    pub(super) fn code(&self) -> u8 {
        match self {
            Job::Version => CLOCK_VERSION,
            Job::Face => CLOCK_SETNRUN,
            Job::Text(_) => CLOCK_ASCII,
            Job::EndText => CLOCK_END,
        }
    }

    pub(super) fn name(&self) -> &'static str {
        match self {
            Job::Version => "VERSION",
            Job::Face => "SETNRUN",
            Job::Text(_) => "ASCII",
            Job::EndText => "END",
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct InFlight {
    pub(super) job: Job,
    pub(super) attempts: u32,
    pub(super) deadline_ms: u64,
    pub(super) refused: Option<u8>,
}

impl<P: Read + Write> DgtClock<P> {
    pub(super) fn enqueue(&mut self, job: Job) {
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

    pub(super) fn step(&mut self, now: u64) -> Result<(), ClockDeviceError> {
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
