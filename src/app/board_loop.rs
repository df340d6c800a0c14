//! The board loop itself: one record (or arbiter action, or tick) at a
//! time through the [`Controller`], journaled, published to the feed,
//! streamed to the clock device and shown to the observer; and its stop
//! ([`BoardLoop::drain`]). Started and stopped by [`super::daemon::Daemon`].

use super::heartbeat::{boottime_ms, heartbeat_line, BootClock};
use super::round_clock::RoundClock;
use crate::broadcast::delay::Feed;
use crate::broadcast::public::Publisher;
use crate::clock::device::{ClockFace, ClockInput};
use crate::clock::open::BoxedClock;
use crate::console::board::{ActionReply, ArbiterCommand};
use crate::controller::Controller;
use crate::journal::Journal;
use crate::trace::{BoardId, Event, EventKind, Record, RecordKind};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How often the controller is ticked when no input comes, wall ms.
pub const TICK_MS: u64 = 20;

/// Called on the board loop with every event (the demo prints them).
pub type EventObserver = Box<dyn FnMut(&Event) + Send>;

/// One board's game as the loop runs it.
pub(super) struct BoardLoop {
    pub(super) controller: Controller,
    pub(super) publisher: Publisher,
    pub(super) journal: Option<Journal>,
    pub(super) feed: Arc<Feed>,
    pub(super) last_t: u64,
    pub(super) on_event: Option<EventObserver>,
    pub(super) events: Vec<Event>,
    /// The physical clock the controller drives (§6.7a: its press completes
    /// a move; the controller streams the times and the last move to it).
    pub(super) device: Option<BoxedClock>,
    /// Round time of the last `heartbeat` line in the events file, ms
    /// (`None`: none yet in this run).
    pub(super) last_heartbeat_t: Option<u64>,
    /// This boot's `/proc/sys/kernel/random/boot_id`, journaled in every
    /// heartbeat with `CLOCK_BOOTTIME` (`super::downtime`).
    pub(super) boot_id: Option<String>,
}

/// Round ms between two `heartbeat` lines in the journal's events file
/// while a game runs (`docs/journal.md`): a restart measures its downtime
/// from the last line journaled, so a quick restart during a long think is
/// measured from at most this long before the stop, not from the think's
/// start.
pub const HEARTBEAT_MS: u64 = 2_000;

impl BoardLoop {
    /// Streams the decisions to the clock device: the times after every
    /// completed move and every correction, the last move on its display.
    fn stream_to_clock(&mut self, t: u64) {
        let Some(dev) = self.device.as_mut() else {
            return;
        };
        let arbiter = self.controller.arbiter();
        for e in &self.events {
            let r = match &e.kind {
                EventKind::Clock { white_ms, black_ms } => {
                    let running = if arbiter.outcome().is_some() {
                        None
                    } else {
                        arbiter.clock().and_then(|c| c.running())
                    };
                    dev.set_times(
                        t,
                        ClockFace {
                            white_ms: *white_ms,
                            black_ms: *black_ms,
                            running,
                            at_ms: e.t,
                        },
                    )
                }
                EventKind::Move { san, .. } => dev.show_move(t, san),
                // 2023 Guidelines III.4 agreed as a delay: the device shows
                // the times it is sent and runs them down itself (the DGT
                // 3000 in SETNRUN mode has no delay mode we can set), so
                // during each move's delay its display runs ahead until
                // the press sets it right (docs/clock.md). An increment
                // needs nothing: each press sends the time credited.
                EventKind::Ruling {
                    action: "increment",
                    ..
                } if arbiter.clock().is_some_and(|c| {
                    matches!(
                        c.time_control().periods.last().map(|p| p.bonus),
                        Some(crate::clock::Bonus::UsDelay(_))
                    )
                }) =>
                {
                    tracing::warn!(
                        "clock {}: the 5 s delay (III.4) is not run by the device: it counts \
                         down during each move's delay and shows the game's time again at the press",
                        dev.name()
                    );
                    Ok(())
                }
                EventKind::GameEnd { .. } => dev.stop(t),
                _ => Ok(()),
            };
            if let Err(err) = r {
                tracing::warn!("clock {}: {err}", dev.name());
            }
        }
    }

    /// Shows the clock's current times on the device (at the start: base +
    /// increment over the board, `docs/clock.md`), before any move is made.
    pub(super) fn show_clock_now(&mut self, t: u64) {
        let (Some(dev), Some(c)) = (self.device.as_mut(), self.controller.arbiter().clock()) else {
            return;
        };
        let (white_ms, black_ms) = c.remaining_at(t);
        let face = ClockFace {
            white_ms,
            black_ms,
            running: c.running(),
            at_ms: t,
        };
        if let Err(err) = dev.set_times(t, face) {
            tracing::warn!("clock {}: {err}", dev.name());
        }
    }

    /// Polls the clock device at round time `t`; its presses are records.
    fn poll_clock(&mut self, t: u64) {
        let inputs = match self.device.as_mut() {
            Some(dev) => match dev.poll(t) {
                Ok(i) => i,
                Err(err) => {
                    tracing::warn!("clock {}: {err}", dev.name());
                    return;
                }
            },
            None => return,
        };
        for input in inputs {
            match input {
                ClockInput::Press { by, t_ms } => {
                    self.record(Record {
                        t: t_ms.min(t),
                        board: BoardId::Main,
                        kind: RecordKind::Press(by),
                    });
                }
                ClockInput::Offline { reason, .. } => tracing::warn!("clock offline: {reason}"),
                other => tracing::debug!(?other, "clock input"),
            }
        }
    }

    /// Feeds one record at its time (at least the last one's), journals and publishes.
    pub(super) fn record(&mut self, mut rec: Record) -> Vec<Event> {
        rec.t = rec.t.max(self.last_t);
        self.last_t = rec.t;
        if let Some(j) = self.journal.as_mut() {
            if let Err(e) = j.record(&rec) {
                tracing::error!("journal: {e}");
            }
        }
        self.journal_alerts(rec.t);
        self.events.clear();
        self.controller.feed(&rec, &mut self.events);
        let forced = matches!(rec.kind, RecordKind::Arbiter { .. });
        self.stream_to_clock(rec.t);
        self.decided(rec.t, forced);
        std::mem::take(&mut self.events)
    }

    /// The input has ended at `t` (a recording's end): a game-ending move
    /// still settling counts as made, as `eboard replay` decides.
    fn finish(&mut self, t: u64) {
        self.events.clear();
        self.controller.finish(t, &mut self.events);
        if !self.events.is_empty() {
            self.decided(t, false);
        }
    }

    /// Tells the arbiter what the journal reports (a disk that refuses
    /// records or recovers, damage found on start): each alert on the
    /// arbiter's channel at round time `t` and in the events file (logged
    /// by the journal already).
    pub(super) fn journal_alerts(&mut self, t: u64) {
        let Some(j) = self.journal.as_mut() else {
            return;
        };
        for a in j.take_alerts() {
            let msg = a.to_json(t);
            let _ = j.event(&msg);
            self.feed.arbiter.publish(0, None, &[Arc::from(msg)]);
        }
    }

    /// Time passes to `t` without input.
    pub(super) fn tick(&mut self, t: u64) {
        if let Some(j) = self.journal.as_mut() {
            if j.waiting() > 0 {
                j.retry_at(t);
                self.journal_alerts(t);
            }
        }
        self.events.clear();
        self.controller.tick(t, &mut self.events);
        if !self.events.is_empty() {
            self.stream_to_clock(t);
            self.decided(t, false);
        }
    }

    /// While the game runs, a `{"type": "heartbeat", "t", "boot_id",
    /// "boottime_ms"}` line in the journal's events file every
    /// [`HEARTBEAT_MS`] of round time, `t` the round clock's time `now`
    /// (ms) read with the boot clock: the last moment the daemon is known
    /// to have run (`journal::last_event_t`), and the anchor a restart on
    /// the same boot measures its downtime from exactly (`super::downtime`).
    /// The records file stays the game's trace, untouched.
    pub(super) fn heartbeat(&mut self, now: u64) {
        if self
            .last_heartbeat_t
            .is_some_and(|h| now < h.saturating_add(HEARTBEAT_MS))
            || self.controller.arbiter().outcome().is_some()
        {
            return;
        }
        self.write_heartbeat(now);
    }

    /// The delay line is about to show the public what was decided up to
    /// round time `t` (ms): unless the journal holds that time already (a
    /// record or heartbeat at `t` or later), a heartbeat at `now` (the round
    /// clock, at least `t`) first, also after the game's end. A restart
    /// that cannot measure its downtime goes on from the journal's last
    /// time, so nothing the public had is withheld again
    /// (`broadcast::delay::Release`, docs/journal.md).
    pub(super) fn journal_release(&mut self, now: u64, t: u64) {
        if t <= self.last_heartbeat_t.unwrap_or(0).max(self.last_t) {
            return;
        }
        self.write_heartbeat(now.max(t));
    }

    /// A `heartbeat` line at round time `now` (ms) with the boot clock.
    fn write_heartbeat(&mut self, now: u64) {
        let Some(j) = self.journal.as_mut() else {
            return;
        };
        self.last_heartbeat_t = Some(now);
        let boot = match (&self.boot_id, boottime_ms()) {
            (Some(id), Some(ms)) => Some(BootClock {
                boot_id: id.clone(),
                boottime_ms: ms,
            }),
            _ => None,
        };
        let _ = j.event(&heartbeat_line(now, boot.as_ref()));
    }

    /// An arbiter action at round time `now` (at least the last record's),
    /// answered with the decisions it led to.
    fn act(&mut self, now: u64, c: ArbiterCommand) {
        let t = now.max(self.last_t);
        let events = self.record(Record {
            t,
            board: BoardId::Main,
            kind: c.kind,
        });
        let _ = c.reply.send(ActionReply { t, events });
    }

    /// Syncs and closes the journal; the controller is what is left.
    pub(super) fn close(mut self) -> Controller {
        if let Some(j) = self.journal.take() {
            // Lost lines are logged by the journal; the arbiter's channel
            // closes with the loop.
            for a in j.close() {
                let msg = a.to_json(self.last_t);
                self.feed.arbiter.publish(0, None, &[Arc::from(msg)]);
            }
        }
        self.controller
    }

    /// The stop: what was read is decided (records whose time has come at
    /// `now`, in order, and the queued arbiter actions), then the journal
    /// is closed. A recording's records read ahead of their time have not
    /// happened and are left.
    fn drain(mut self, from: DrainFrom) -> Controller {
        let DrainFrom {
            now,
            live,
            pending,
            mut commands,
            mut src_rx,
            mut cmd_rx,
        } = from;
        src_rx.close();
        cmd_rx.close();
        let mut read: Vec<Record> = pending.into_iter().collect();
        while let Ok(r) = src_rx.try_recv() {
            match r {
                Ok(mut rec) => {
                    if live {
                        rec.t = now;
                    }
                    read.push(rec);
                }
                Err(e) => {
                    tracing::error!("source: {e}");
                    break;
                }
            }
        }
        while let Ok(c) = cmd_rx.try_recv() {
            commands.push_back(c);
        }
        let due = read.iter().take_while(|r| r.t <= now).count();
        let ahead = read.len() - due;
        for r in read.into_iter().take(due) {
            self.record(r);
        }
        for c in commands {
            self.act(now, c);
        }
        let journaled = self.journal.is_some();
        let controller = self.close();
        tracing::info!(
            "board stopped at round time {now} ms: {due} record(s) read were decided while \
             stopping, {ahead} read ahead of their time left{}",
            if journaled {
                "; journal synced and closed"
            } else {
                ""
            }
        );
        controller
    }

    /// Journals, publishes and shows the decisions in `self.events`.
    fn decided(&mut self, t: u64, forced: bool) {
        // The latency's stages, for the broadcast bench (issue 28 §5):
        // a move decided, then its messages built (off unless a subscriber
        // asks for target `eboard::stage`; docs/dev/performance.md).
        let staged = tracing::enabled!(target: "eboard::stage", tracing::Level::TRACE)
            .then(|| {
                self.events
                    .iter()
                    .find_map(|e| matches!(e.kind, EventKind::Move { .. }).then_some(e.t))
            })
            .flatten();
        if let Some(move_t) = staged {
            let info = self.publisher.info();
            tracing::trace!(target: "eboard::stage", stage = 1u64, round = info.round, board = info.board, t = move_t);
        }
        let events = &self.events;
        if let Some(j) = self.journal.as_mut() {
            for e in events {
                if let Err(err) = j.event(&e.to_json()) {
                    tracing::error!("journal: {err}");
                }
            }
            let completed = events.iter().any(|e| {
                matches!(
                    e.kind,
                    EventKind::Move { .. }
                        | EventKind::GameEnd { .. }
                        | EventKind::IllegalMove { .. }
                )
            });
            if completed || forced {
                if let Err(err) = j.sync() {
                    tracing::error!("journal: {err}");
                }
            }
        }
        if let Some(u) = self
            .publisher
            .update(self.controller.arbiter(), events, t, forced)
        {
            if let Some(move_t) = staged {
                let info = self.publisher.info();
                tracing::trace!(target: "eboard::stage", stage = 2u64, round = info.round, board = info.board, t = move_t);
            }
            self.feed.publish(u);
        }
        if let Some(f) = self.on_event.as_mut() {
            for e in events {
                f(e);
            }
        }
        self.journal_alerts(t);
    }
}

/// What the board loop holds when it is stopped.
struct DrainFrom {
    /// Round time of the stop, ms.
    now: u64,
    /// The source is live (its records are stamped with `now`).
    live: bool,
    /// The record in hand.
    pending: Option<Record>,
    /// Arbiter actions taken but not yet done.
    commands: std::collections::VecDeque<ArbiterCommand>,
    /// The records read and not yet taken.
    src_rx: mpsc::Receiver<Result<Record, String>>,
    /// The actions sent and not yet taken.
    cmd_rx: mpsc::Receiver<ArbiterCommand>,
}

/// What the board loop runs on.
pub(super) struct LoopInputs {
    /// The round clock.
    pub(super) clock: RoundClock,
    /// The source is a recording that can always tell its next record, so
    /// time is never ticked past a record not yet read (a resumed game
    /// catches up on the records due while the daemon was down exactly as
    /// they were recorded).
    pub(super) lookahead: bool,
    /// The source is live: its records are stamped on arrival.
    pub(super) live: bool,
    /// End once the source has ended and its records were decided.
    pub(super) end_with_source: bool,
    /// The source's records.
    pub(super) src_rx: mpsc::Receiver<Result<Record, String>>,
    /// The arbiter API's actions.
    pub(super) cmd_rx: mpsc::Receiver<ArbiterCommand>,
    /// Set once the source has ended and all its records were fed.
    pub(super) done: watch::Sender<bool>,
    /// Set by [`Daemon::stop`].
    pub(super) stop: watch::Receiver<bool>,
    /// systemd's watchdog, fed at every turn of the loop (at least every
    /// [`TICK_MS`]); a hung loop stops feeding it.
    pub(super) watchdog: Option<crate::service::notify::Watchdog>,
    /// The delay line's releases to journal before the public gets them
    /// ([`BoardLoop::journal_release`]); `None` without a journal.
    pub(super) releases: Option<mpsc::UnboundedReceiver<crate::broadcast::delay::Release>>,
}

/// Runs the board until the source and the API are both gone, the source
/// has ended with [`LoopInputs::end_with_source`], or a stop; returns the
/// controller with the journal closed.
pub(super) async fn board_loop(mut board: BoardLoop, inputs: LoopInputs) -> Controller {
    let LoopInputs {
        clock,
        lookahead,
        live,
        end_with_source,
        mut src_rx,
        mut cmd_rx,
        done,
        mut stop,
        mut watchdog,
        mut releases,
    } = inputs;
    let mut pending: Option<Record> = None;
    let mut commands: std::collections::VecDeque<ArbiterCommand> = Default::default();
    let mut src_done = false;
    let mut cmd_closed = false;
    // The stop's sender gone (a dropped Daemon): no stop will come.
    let mut stop_gone = false;
    loop {
        if let Some(w) = watchdog.as_mut() {
            w.feed(std::time::Instant::now());
        }
        if *stop.borrow() {
            return board.drain(DrainFrom {
                now: clock.now_ms(),
                live,
                pending,
                commands,
                src_rx,
                cmd_rx,
            });
        }
        let now = clock.now_ms();
        board.poll_clock(now.max(board.last_t));
        // Records whose time has come first, in order; then the arbiter.
        if pending.as_ref().is_some_and(|r| r.t <= now) {
            let r = pending.take().expect("checked");
            board.record(r);
            continue;
        }
        if let Some(c) = commands.pop_front() {
            board.act(now, c);
            continue;
        }
        if end_with_source && src_done && pending.is_none() {
            done.send_replace(true);
            return board.close();
        }
        // Timers strictly before the next record's time only, so the live
        // loop decides exactly as a replay of its journal does.
        let tick_to = pending.as_ref().map_or(now, |r| now.min(r.t));
        if pending.is_some() || src_done || !lookahead {
            board.tick(tick_to);
        }
        board.heartbeat(clock.now_ms());
        done.send_if_modified(|d| {
            let now_done = src_done && pending.is_none();
            std::mem::replace(d, now_done) != now_done
        });
        if src_done && pending.is_none() && cmd_closed {
            return board.close();
        }
        let wait = pending
            .as_ref()
            .map_or(clock.wall(u64::MAX / 4), |r| clock.wall(r.t - now))
            .min(Duration::from_millis(TICK_MS));
        tokio::select! {
            biased;
            r = stop.changed(), if !stop_gone => {
                if r.is_err() {
                    stop_gone = true;
                }
            }
            c = cmd_rx.recv(), if !cmd_closed => match c {
                Some(c) => commands.push_back(c),
                None => cmd_closed = true,
            },
            r = next_release(&mut releases), if releases.is_some() => match r {
                Some(r) => {
                    board.journal_release(clock.now_ms(), r.t);
                    let _ = r.journaled.send(());
                }
                None => releases = None,
            },
            r = src_rx.recv(), if pending.is_none() && !src_done => match r {
                Some(Ok(mut rec)) => {
                    if live {
                        // Time is injected here, once: the round clock.
                        rec.t = clock.now_ms();
                    }
                    pending = Some(rec)
                }
                Some(Err(e)) => {
                    tracing::error!("source: {e}; no more records are read");
                    src_done = true;
                }
                None => {
                    src_done = true;
                    if lookahead {
                        let t = board.last_t;
                        board.finish(t);
                    }
                }
            },
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// The next release the delay line asks to journal (never, without one).
async fn next_release(
    rx: &mut Option<mpsc::UnboundedReceiver<crate::broadcast::delay::Release>>,
) -> Option<crate::broadcast::delay::Release> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}
