//! A clock in memory, for replay and the demo: inputs are scheduled by the
//! caller (e.g. from a trace's `press` records) and delivered by
//! [`ClockDevice::poll`] once their time has come; everything the
//! controller asks to show is recorded with its time.

use super::device::{ClockDevice, ClockDeviceError, ClockFace, ClockInput};
use shakmaty::Color;

/// One thing the controller asked the clock to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// [`ClockDevice::set_times`] at `t_ms`.
    Times {
        /// When, ms.
        t_ms: u64,
        /// What.
        face: ClockFace,
    },
    /// [`ClockDevice::show_move`] at `t_ms`.
    Move {
        /// When, ms.
        t_ms: u64,
        /// The text.
        text: String,
    },
    /// [`ClockDevice::stop`] at `t_ms`.
    Stop {
        /// When, ms.
        t_ms: u64,
    },
}

/// The simulated clock.
#[derive(Debug, Clone)]
pub struct SimulatedClock {
    name: String,
    pending: Vec<ClockInput>,
    shown: Vec<Shown>,
    face: Option<ClockFace>,
    last_move: Option<String>,
    online: bool,
}

impl Default for SimulatedClock {
    fn default() -> Self {
        SimulatedClock::new()
    }
}

impl SimulatedClock {
    /// An online clock showing nothing.
    pub fn new() -> SimulatedClock {
        SimulatedClock {
            name: "simulated clock".into(),
            pending: Vec::new(),
            shown: Vec::new(),
            face: None,
            last_move: None,
            online: true,
        }
    }

    /// Schedules `input` for the first poll at or after its `t_ms`; inputs
    /// with equal times come out in the order scheduled.
    pub fn schedule(&mut self, input: ClockInput) {
        let t = input.t_ms();
        let at = self.pending.partition_point(|p| p.t_ms() <= t);
        self.pending.insert(at, input);
    }

    /// Schedules a press by `by` at `t_ms`.
    pub fn press(&mut self, by: Color, t_ms: u64) {
        self.schedule(ClockInput::Press { by, t_ms });
    }

    /// Everything shown so far, in order.
    pub fn shown(&self) -> &[Shown] {
        &self.shown
    }

    /// The last face set (after any stop).
    pub fn face(&self) -> Option<ClockFace> {
        self.face
    }

    /// The last move text shown.
    pub fn last_move(&self) -> Option<&str> {
        self.last_move.as_deref()
    }

    /// The times (white, black) the clock displays at `now_ms`, ms.
    pub fn display_at(&self, now_ms: u64) -> Option<(u64, u64)> {
        self.face.map(|f| f.times_at(now_ms))
    }
}

impl ClockDevice for SimulatedClock {
    fn name(&self) -> &str {
        &self.name
    }

    fn poll(&mut self, now_ms: u64) -> Result<Vec<ClockInput>, ClockDeviceError> {
        let due = self.pending.partition_point(|p| p.t_ms() <= now_ms);
        let out: Vec<ClockInput> = self.pending.drain(..due).collect();
        for i in &out {
            match i {
                ClockInput::Online { .. } => self.online = true,
                ClockInput::Offline { .. } => self.online = false,
                _ => {}
            }
        }
        Ok(out)
    }

    fn set_times(&mut self, now_ms: u64, face: ClockFace) -> Result<(), ClockDeviceError> {
        self.face = Some(face);
        self.shown.push(Shown::Times { t_ms: now_ms, face });
        Ok(())
    }

    fn show_move(&mut self, now_ms: u64, text: &str) -> Result<(), ClockDeviceError> {
        self.last_move = Some(text.to_owned());
        self.shown.push(Shown::Move {
            t_ms: now_ms,
            text: text.to_owned(),
        });
        Ok(())
    }

    fn stop(&mut self, now_ms: u64) -> Result<(), ClockDeviceError> {
        self.face = self.face.map(|f| f.stopped_at(now_ms));
        self.shown.push(Shown::Stop { t_ms: now_ms });
        Ok(())
    }

    fn is_online(&self) -> bool {
        self.online
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, TimeControl};

    #[test]
    fn delivers_in_time_order_and_records() {
        let mut s = SimulatedClock::new();
        s.press(Color::Black, 3000);
        s.press(Color::White, 1900);
        assert!(s.poll(1000).unwrap().is_empty());
        assert_eq!(
            s.poll(2000).unwrap(),
            vec![ClockInput::Press {
                by: Color::White,
                t_ms: 1900
            }]
        );
        // Drive it from the engine as the controller would.
        let mut c = Clock::new(TimeControl::parse("5400+30").unwrap());
        c.start(Color::White, 0);
        c.press(Color::White, 1900);
        let (w, b) = c.remaining_at(1900);
        let face = ClockFace {
            white_ms: w,
            black_ms: b,
            running: c.running(),
            at_ms: 1900,
        };
        s.set_times(1900, face).unwrap();
        s.show_move(1900, "e4").unwrap();
        // Over the board: 1:30:30 at the start, + 30 s at the press.
        assert_eq!(s.display_at(2900), Some((5_458_100, 5_429_000)));
        s.stop(2900).unwrap();
        assert_eq!(s.display_at(9000), Some((5_458_100, 5_429_000)));
        assert_eq!(s.shown().len(), 3);
        assert_eq!(s.last_move(), Some("e4"));
        assert_eq!(s.poll(5000).unwrap().len(), 1);
    }
}
