//! Round time: ms since the start of the round on a monotonic clock, the
//! one time the board loop injects into the controller (records of a live
//! source are stamped with it; a recording's own `t` is its round time).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The Unix time now, ms.
pub fn unix_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Round time: ms since the start of the round on a monotonic clock,
/// continuing across restarts (the start is kept as a Unix time).
#[derive(Debug, Clone, Copy)]
pub struct RoundClock {
    origin: Instant,
    offset_ms: u64,
    started_at_unix_ms: u64,
    speed: f64,
}

impl RoundClock {
    /// A round that started at `started_at_unix_ms`; `speed` round ms pass
    /// per wall ms (1 live; more to replay a trace faster).
    pub fn new(started_at_unix_ms: u64, speed: f64) -> RoundClock {
        let since = unix_now_ms().saturating_sub(started_at_unix_ms);
        RoundClock {
            origin: Instant::now(),
            offset_ms: (since as f64 * speed) as u64,
            started_at_unix_ms,
            speed,
        }
    }

    /// A round resumed at round time `at_ms` now, whatever the wall clock
    /// says: its time 0 is put `at_ms` before now (a resumed journal whose
    /// downtime cannot be measured on a trusted wall clock).
    pub fn resume_at(at_ms: u64, speed: f64) -> RoundClock {
        let wall_ms = (at_ms as f64 / speed.max(1e-9)) as u64;
        RoundClock {
            origin: Instant::now(),
            offset_ms: at_ms,
            started_at_unix_ms: unix_now_ms().saturating_sub(wall_ms),
            speed,
        }
    }

    /// A round resumed at round time `at_ms` now whose time 0 stays at
    /// `started_at_unix_ms` (a downtime measured on the wall clock).
    pub fn resume_with_epoch(at_ms: u64, started_at_unix_ms: u64, speed: f64) -> RoundClock {
        RoundClock {
            origin: Instant::now(),
            offset_ms: at_ms,
            started_at_unix_ms,
            speed,
        }
    }

    /// Round time now, ms.
    pub fn now_ms(&self) -> u64 {
        self.offset_ms + (self.origin.elapsed().as_secs_f64() * 1000.0 * self.speed) as u64
    }

    /// Unix time in ms of round time 0.
    pub fn started_at_unix_ms(&self) -> u64 {
        self.started_at_unix_ms
    }

    /// Round ms per wall ms.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Wall time for `round_ms` of round time.
    pub fn wall(&self, round_ms: u64) -> Duration {
        Duration::from_secs_f64(round_ms as f64 / 1000.0 / self.speed.max(1e-9))
    }
}
