//! The latency's stages inside the product (issue 28 §5): the board loop,
//! the publisher and the relay's stream tasks emit `TRACE` events of target
//! `eboard::stage` (nothing is recorded unless a subscriber asks for
//! them); this subscriber keeps each with its arrival time, µs since the
//! Unix epoch. Stage 1: a move decided by the board loop (`round`,
//! `board`, `t` of the move); 2: its messages built, before the delay
//! line; 5: a message (`id`) taken from the channel by one client's stream
//! task (the fan-out's end).

use std::sync::Mutex;
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::subscriber::Interest;
use tracing::{span, Event, Metadata, Subscriber};

/// One stage event.
#[derive(Debug, Default, Clone, Copy)]
pub struct Mark {
    pub stage: u64,
    pub round: u64,
    pub board: u64,
    pub t: u64,
    pub id: u64,
    pub at_us: u64,
}

/// Every stage event so far, in chunks of [`CHUNK`] marks: a full chunk is
/// never copied (a single `Vec` of the 1.4 M marks of a run doubled up to
/// 64 MB, each doubling a copy made under this lock, which the stream
/// tasks of both tokio workers then waited for: the bench's own stall in
/// its p99; issue 42 §7). Read them with [`marks`].
static MARKS: Mutex<Vec<Vec<Mark>>> = Mutex::new(Vec::new());

/// Marks per chunk of [`MARKS`] (3 MB: a fresh allocation, never grown).
const CHUNK: usize = 65_536;

/// Every stage event so far, in order.
pub fn marks() -> Vec<Mark> {
    MARKS.lock().unwrap().concat()
}

const TARGET: &str = "eboard::stage";

struct Recorder;

struct Fields(Mark);

impl Visit for Fields {
    fn record_u64(&mut self, f: &Field, v: u64) {
        match f.name() {
            "stage" => self.0.stage = v,
            "round" => self.0.round = v,
            "board" => self.0.board = v,
            "t" => self.0.t = v,
            "id" => self.0.id = v,
            _ => {}
        }
    }
    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

impl Subscriber for Recorder {
    fn register_callsite(&self, m: &'static Metadata<'static>) -> Interest {
        if m.target() == TARGET {
            Interest::always()
        } else {
            Interest::never()
        }
    }
    fn enabled(&self, m: &Metadata<'_>) -> bool {
        m.target() == TARGET
    }
    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::TRACE)
    }
    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }
    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
    fn event(&self, e: &Event<'_>) {
        let mut f = Fields(Mark::default());
        e.record(&mut f);
        f.0.at_us = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64);
        let mut marks = MARKS.lock().unwrap();
        match marks.last_mut() {
            Some(c) if c.len() < CHUNK => c.push(f.0),
            _ => {
                let mut c = Vec::with_capacity(CHUNK);
                c.push(f.0);
                marks.push(c);
            }
        }
    }
    fn enter(&self, _: &span::Id) {}
    fn exit(&self, _: &span::Id) {}
}

/// Records the stage events of this process from now on.
pub fn install() {
    tracing::subscriber::set_global_default(Recorder).expect("no other subscriber");
}
