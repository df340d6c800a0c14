//! What the controller needs from a physical chess clock, behind one trait.
//!
//! The controller owns the time-control logic ([`super::Clock`]); a device
//! only *shows* the times it is told and *reports* what the players did
//! with it. The completion event of §6.7a is [`ClockInput::Press`].
//!
//! Time is injected: every call takes `now_ms`, the caller's monotonic time
//! in milliseconds (the trace's `t` in replay). No implementation reads a
//! wall clock in its logic.
//!
//! Implementations: [`super::dgt::DgtClock`] (a DGT 3000 behind a DGT board
//! on a serial line), [`super::builtin::BuiltinClock`] (two GPIO buttons and
//! an I2C character LCD), [`super::simulated::SimulatedClock`] (in memory,
//! for replay and the demo).

use shakmaty::Color;
use std::io;

/// A button of the clock other than the two players' press buttons / lever.
///
/// The DGT 3000 has five buttons under its display (DGT's board protocol
/// reports them as automatic ack `0x88` with codes `0x31..=0x35`, see
/// [`super::dgt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockButton {
    /// Leftmost button ("back", `<`).
    Back,
    /// Second button ("minus", `-`).
    Minus,
    /// Middle button ("play/pause").
    PlayPause,
    /// Fourth button ("plus", `+`).
    Plus,
    /// Rightmost button ("forward", `>` / OK).
    Forward,
}

/// Something the clock reports, stamped with the `now_ms` of the poll that
/// saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockInput {
    /// `by` pressed their clock button or pushed the lever down on their
    /// side: the completion event of §6.7a.
    Press {
        /// The player who pressed.
        by: Color,
        /// When it was seen, ms.
        t_ms: u64,
    },
    /// Another button was pressed.
    Button {
        /// Which button.
        button: ClockButton,
        /// When it was seen, ms.
        t_ms: u64,
    },
    /// The times the device itself displays (only devices that report them,
    /// e.g. the DGT 3000 about once a second while running), whole seconds
    /// in ms. For cross-checking; the controller's engine stays the truth.
    Shown {
        /// White's displayed time, ms.
        white_ms: u64,
        /// Black's displayed time, ms.
        black_ms: u64,
        /// When it was seen, ms.
        t_ms: u64,
    },
    /// The device answers again (or for the first time).
    Online {
        /// When it was seen, ms.
        t_ms: u64,
    },
    /// The device stopped answering or reports itself unusable.
    Offline {
        /// When it was decided, ms.
        t_ms: u64,
        /// Why.
        reason: ClockDeviceError,
    },
    /// A command was refused by the device every time it was tried; the
    /// device still answers.
    CommandFailed {
        /// When it was given up, ms.
        t_ms: u64,
        /// What failed.
        error: ClockDeviceError,
    },
}

impl ClockInput {
    /// When the input was seen, ms.
    pub fn t_ms(&self) -> u64 {
        match self {
            ClockInput::Press { t_ms, .. }
            | ClockInput::Button { t_ms, .. }
            | ClockInput::Shown { t_ms, .. }
            | ClockInput::Online { t_ms }
            | ClockInput::Offline { t_ms, .. }
            | ClockInput::CommandFailed { t_ms, .. } => *t_ms,
        }
    }
}

/// A device error: what failed, on which device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockDeviceError {
    /// Reading or writing the device failed.
    #[error("{device}: I/O error while {doing}: {message} ({kind:?})")]
    Io {
        /// The device (e.g. `DGT 3000 on /dev/ttyACM0`).
        device: String,
        /// What was being done (e.g. `writing SETNRUN`).
        doing: String,
        /// The I/O error kind.
        kind: io::ErrorKind,
        /// The I/O error text.
        message: String,
    },
    /// The device could not be opened.
    #[error("{device}: cannot open: {message}")]
    Open {
        /// The device path or name.
        device: String,
        /// Why.
        message: String,
    },
    /// A command got no acknowledgement in time, on every attempt.
    #[error("{device}: no ack for {command} after {attempts} attempts of {timeout_ms} ms")]
    NoAck {
        /// The device.
        device: String,
        /// The command (e.g. `SETNRUN`).
        command: &'static str,
        /// Attempts made.
        attempts: u32,
        /// Wait for the ack per attempt, ms.
        timeout_ms: u64,
    },
    /// The device answered a command with an error code, on every attempt.
    #[error("{device}: {command} refused (ack code {code:#04x}) after {attempts} attempts")]
    Refused {
        /// The device.
        device: String,
        /// The command.
        command: &'static str,
        /// The device's error code.
        code: u8,
        /// Attempts made.
        attempts: u32,
    },
    /// Nothing came from the device for too long.
    #[error("{device}: silent for {silent_ms} ms")]
    Silent {
        /// The device.
        device: String,
        /// How long, ms.
        silent_ms: u64,
    },
    /// The device says it has no clock attached or is not in the mode the
    /// commands need.
    #[error("{device}: {what}")]
    NotReady {
        /// The device.
        device: String,
        /// What it reports.
        what: String,
    },
    /// A bus transaction (GPIO read, I2C write) failed.
    #[error("{device}: {what} failed: {detail}")]
    Bus {
        /// The device.
        device: String,
        /// The transaction (e.g. `I2C write to 0x27`).
        what: String,
        /// The HAL's error, as text.
        detail: String,
    },
    /// A value the controller asked to show does not fit the device.
    #[error("{device}: cannot show {what}")]
    Unshowable {
        /// The device.
        device: String,
        /// What and why.
        what: String,
    },
}

impl ClockDeviceError {
    /// An [`ClockDeviceError::Io`] from an `io::Error`.
    pub fn io(device: &str, doing: impl Into<String>, e: &io::Error) -> ClockDeviceError {
        ClockDeviceError::Io {
            device: device.to_owned(),
            doing: doing.into(),
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

/// What a device is told to show: both times and the running side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockFace {
    /// White's remaining time at `at_ms`, ms.
    pub white_ms: u64,
    /// Black's remaining time at `at_ms`, ms.
    pub black_ms: u64,
    /// Whose time runs down from `at_ms` on; `None` when both are stopped.
    pub running: Option<Color>,
    /// When these values were true, ms.
    pub at_ms: u64,
}

impl ClockFace {
    /// The times (white, black) this face shows at `now_ms`, counting the
    /// running side down from `at_ms`, floored at 0, ms.
    pub fn times_at(&self, now_ms: u64) -> (u64, u64) {
        let used = now_ms.saturating_sub(self.at_ms);
        match self.running {
            Some(Color::White) => (self.white_ms.saturating_sub(used), self.black_ms),
            Some(Color::Black) => (self.white_ms, self.black_ms.saturating_sub(used)),
            None => (self.white_ms, self.black_ms),
        }
    }

    /// The same face frozen at `now_ms` (nobody runs).
    pub fn stopped_at(&self, now_ms: u64) -> ClockFace {
        let (white_ms, black_ms) = self.times_at(now_ms);
        ClockFace {
            white_ms,
            black_ms,
            running: None,
            at_ms: now_ms,
        }
    }
}

/// A physical (or simulated) chess clock as the controller drives it.
///
/// The controller calls [`ClockDevice::poll`] often (every 10–50 ms in the
/// daemon); commands only queue or write without waiting, so no call blocks
/// for longer than the device's read timeout. No method panics on device
/// input.
pub trait ClockDevice {
    /// A short name for messages (e.g. `DGT 3000 on /dev/ttyACM0`).
    fn name(&self) -> &str;

    /// Reads the device, moves pending commands on (acks, retries, timeouts)
    /// and returns what happened since the last poll, in order. `now_ms` is
    /// the caller's monotonic time, ms, non-decreasing.
    ///
    /// `Err` only for a failure of the link itself (e.g. the port vanished);
    /// the device is then also offline.
    fn poll(&mut self, now_ms: u64) -> Result<Vec<ClockInput>, ClockDeviceError>;

    /// Shows both times and lets `face.running` count down (or stops both
    /// when `None`). Times are ms; devices round to what they can show.
    fn set_times(&mut self, now_ms: u64, face: ClockFace) -> Result<(), ClockDeviceError>;

    /// Shows the last move's text (e.g. `"Nf3"`, or `"12. Nf3"`) as far as
    /// the device can.
    fn show_move(&mut self, now_ms: u64, text: &str) -> Result<(), ClockDeviceError>;

    /// Stops (pauses) both times where they are at `now_ms`.
    fn stop(&mut self, now_ms: u64) -> Result<(), ClockDeviceError>;

    /// Whether the device answers now (as far as the last poll knows).
    fn is_online(&self) -> bool;
}
