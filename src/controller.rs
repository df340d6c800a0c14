//! The one code path from records to events: the live daemon, the demo and
//! `eboard replay` all feed [`Controller`] timed records and tick it as time
//! passes. Only the time source differs (the wall clock, or the trace's `t`).

use crate::arbiter::{Arbiter, ConfigError, GameConfig};
use crate::model::{Edition, Mode};
use crate::trace::{Event, Record, Trace};

/// Drives one game: records in, events out.
#[derive(Debug, Clone)]
pub struct Controller {
    arbiter: Arbiter,
    last_t: u64,
}

impl Controller {
    /// A controller for a game with these settings.
    pub fn new(cfg: GameConfig) -> Controller {
        Controller {
            arbiter: Arbiter::new(cfg),
            last_t: 0,
        }
    }

    /// Feeds one record (its `t` is the time of the input, ms); appends the
    /// decisions to `out`.
    pub fn feed(&mut self, rec: &Record, out: &mut Vec<Event>) {
        self.last_t = self.last_t.max(rec.t);
        self.arbiter.record(rec, out);
    }

    /// Time has passed up to `t` (ms) with no input; timers fire.
    pub fn tick(&mut self, t: u64, out: &mut Vec<Event>) {
        self.last_t = self.last_t.max(t);
        self.arbiter.advance(t, out);
    }

    /// The input has ended at `t` (ms).
    pub fn finish(&mut self, t: u64, out: &mut Vec<Event>) {
        self.last_t = self.last_t.max(t);
        self.arbiter.finish(self.last_t, out);
    }

    /// The game state.
    pub fn arbiter(&self) -> &Arbiter {
        &self.arbiter
    }
}

/// Replays a whole trace: the header's settings (with `rules` and `mode`
/// overriding them), every record in order, then the end of input.
/// Returns the final game state and the event stream.
pub fn replay(
    trace: &Trace,
    rules: Option<Edition>,
    mode: Option<Mode>,
) -> Result<(Arbiter, Vec<Event>), ConfigError> {
    let cfg = GameConfig::from_header(&trace.header, rules, mode)?;
    let mut c = Controller::new(cfg);
    let mut events = Vec::with_capacity(trace.records.len());
    for r in &trace.records {
        c.feed(r, &mut events);
    }
    c.finish(trace.duration_ms(), &mut events);
    Ok((c.arbiter, events))
}
