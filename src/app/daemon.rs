//! The live daemon's board loop: records from a [`RecordSource`] and from
//! the arbiter API go through the one [`Controller`], ticked on the round
//! clock; every record and decision is journaled; decisions are published
//! to the arbiter at once and to the public after the transmission delay.
//!
//! Time is injected as round time: ms since the start of the round, from a
//! monotonic clock ([`RoundClock`]); the journal keeps the round's start so
//! a restarted daemon continues the same time line.
//!
//! The loop runs on a thread of its own (a current-thread tokio runtime),
//! so journal `fsync`s never hold up the HTTP side and no client can hold
//! up the board: the channels towards the clients never wait.
//!
//! [`Daemon::stop`] ends it: the source is no longer read, the records
//! already read whose time has come are fed and journaled (those of a
//! recording read ahead of their time have not happened yet and are left),
//! queued arbiter actions are answered, the journal is synced and closed,
//! and the source and board threads are joined.

use super::settings::{self, MqttUplink};
use super::shutdown::Joinable;
use crate::arbiter::GameConfig;
use crate::broadcast::delay::Feed;
use crate::broadcast::public::{GameInfo, Publisher};
use crate::clock::device::{ClockFace, ClockInput};
use crate::clock::open::BoxedClock;
use crate::config::Config;
use crate::controller::Controller;
use crate::journal::{self, Journal};
use crate::model::IrregularityKind;
use crate::trace::{BoardId, Event, EventKind, Header, Line, Record, RecordKind, TraceReader};
use serde_json::Value;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::{mpsc, watch};

pub use crate::server::{ActionReply, ArbiterCommand};

/// How often the controller is ticked when no input comes, wall ms.
pub const TICK_MS: u64 = 20;

/// How long [`Daemon::stop`] waits for the source thread after the board
/// loop has ended.
pub const SOURCE_JOIN: Duration = Duration::from_millis(250);

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

/// Where the board's records come from: a blocking sequence of records in
/// round time (a recorded trace, standard input, later the sensor
/// hardware, which stamps its records with [`RoundClock::now_ms`]). It runs
/// on a thread of its own; each record is fed when its time has come.
pub trait RecordSource: Send {
    /// The next record; `None` at the end of input; an error ends the input.
    fn next_record(&mut self) -> Option<Result<Record, String>>;
}

impl<I: Iterator<Item = Result<Record, String>> + Send> RecordSource for I {
    fn next_record(&mut self) -> Option<Result<Record, String>> {
        self.next()
    }
}

/// Several live sources (the main and the tactile board) as one: each runs
/// on its own thread and their records arrive in the order they come.
pub fn merge_sources(
    sources: Vec<Box<dyn RecordSource>>,
) -> impl Iterator<Item = Result<Record, String>> + Send {
    let (tx, rx) = std::sync::mpsc::sync_channel(256);
    for mut src in sources {
        let tx = tx.clone();
        let _ = std::thread::Builder::new()
            .name("eboard-source-part".into())
            .spawn(move || {
                while let Some(r) = src.next_record() {
                    if tx.send(r).is_err() {
                        return;
                    }
                }
            });
    }
    rx.into_iter()
}

/// A recorded trace (a file or standard input) as a record source.
pub struct TraceSource {
    reader: TraceReader<Box<dyn BufRead + Send>>,
    name: String,
    /// The trace's header, when it has one.
    pub header: Option<Header>,
    first: Option<Record>,
    stop: Option<Arc<AtomicBool>>,
}

/// Standard input read so that a stop can end a read that waits for a
/// producer: `poll(2)` with a [`STDIN_POLL_MS`] bound between looks at the
/// stop flag; a stop reads as the end of the input.
struct StoppableStdin {
    stop: Arc<AtomicBool>,
}

/// How often a read of standard input that waits looks at its stop flag, ms.
pub const STDIN_POLL_MS: i32 = 50;

impl Read for StoppableStdin {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Ok(0);
            }
            let mut fd = libc::pollfd {
                fd: libc::STDIN_FILENO,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd for the duration of the call.
            let ready = unsafe { libc::poll(&mut fd, 1, STDIN_POLL_MS) };
            if ready < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if ready == 0 {
                continue;
            }
            // Readable, closed or failed: read(2) tells which. Nothing else
            // of this process reads standard input (no std buffer between).
            // SAFETY: `buf` is valid for `buf.len()` bytes.
            let n = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            return Ok(n as usize);
        }
    }
}

impl TraceSource {
    /// Opens a trace file and reads its header. `-` is standard input, read
    /// lazily (a live producer may write its first line much later; a
    /// header line there is skipped: the config decides the game).
    pub fn open(path: &Path) -> Result<TraceSource, String> {
        let name = path.display().to_string();
        if path == Path::new("-") {
            let stop = Arc::new(AtomicBool::new(false));
            let stdin = StoppableStdin { stop: stop.clone() };
            return Ok(TraceSource {
                reader: TraceReader::new(Box::new(std::io::BufReader::new(stdin))),
                name: "<stdin>".into(),
                header: None,
                first: None,
                stop: Some(stop),
            });
        }
        let input: Box<dyn BufRead + Send> = Box::new(std::io::BufReader::new(
            std::fs::File::open(path).map_err(|e| format!("{name}: {e}"))?,
        ));
        TraceSource::new(input, name)
    }

    /// A trace read from `input`, named `name` in errors.
    pub fn new(input: Box<dyn BufRead + Send>, name: String) -> Result<TraceSource, String> {
        let mut reader = TraceReader::new(input);
        let (header, first) = match reader.next_line() {
            None => (None, None),
            Some(Ok(Line::Header(h))) => (Some(h), None),
            Some(Ok(Line::Record(r))) => (None, Some(r)),
            Some(Err(e)) => return Err(format!("{name}: {e}")),
        };
        Ok(TraceSource {
            reader,
            name,
            header,
            first,
            stop: None,
        })
    }

    /// For standard input: the flag that ends a read waiting for the
    /// producer (give it to [`Lifecycle::source_stop`]); `None` for a file,
    /// whose reads do not wait.
    pub fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        self.stop.clone()
    }
}

impl Iterator for TraceSource {
    type Item = Result<Record, String>;
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(r) = self.first.take() {
            return Some(Ok(r));
        }
        loop {
            return match self.reader.next_line()? {
                Ok(Line::Record(r)) => Some(Ok(r)),
                // Only ever the first line (the reader checks).
                Ok(Line::Header(_)) => continue,
                Err(e) => Some(Err(format!("{}: {e}", self.name))),
            };
        }
    }
}

/// Called on the board loop with every event (the demo prints them).
pub type EventObserver = Box<dyn FnMut(&Event) + Send>;

/// How to run a board.
pub struct RunOptions {
    /// The configuration.
    pub config: Config,
    /// Transmission delay of the public feeds, seconds.
    pub delay_s: u64,
    /// The journal file (resumed when it exists).
    pub journal: Option<PathBuf>,
    /// The records.
    pub source: Box<dyn RecordSource>,
    /// A recorded trace's header: fills in what the config leaves unset.
    pub source_header: Option<Header>,
    /// The source replays a recorded trace: on resuming, its records
    /// already in the journal are skipped.
    pub source_is_recording: bool,
    /// Round ms per wall ms (1 live).
    pub speed: f64,
    /// Called on the board loop with every event decided from now on (the
    /// demo prints them, the daemon logs its moves, the speaker speaks);
    /// not with those of a resumed journal's replay (said and shown then).
    pub on_event: Option<EventObserver>,
    /// The clock device the controller drives, if any.
    pub clock_device: Option<BoxedClock>,
    /// The source is live (hardware): its records are stamped with the
    /// round clock when they arrive.
    pub source_is_live: bool,
}

/// How a board's run begins and ends, beside [`RunOptions`].
#[derive(Debug, Default)]
pub struct Lifecycle {
    /// The board loop ends by itself once the source has ended and its
    /// records were decided, without ticking time on (the demo); otherwise
    /// it runs until [`Daemon::stop`].
    pub end_with_source: bool,
    /// Set by [`Daemon::stop`] to end a source read that waits (standard
    /// input: [`TraceSource::stop_handle`]).
    pub source_stop: Option<Arc<AtomicBool>>,
}

/// A running board.
pub struct Daemon {
    /// The arbiter's and the public channels.
    pub feed: Arc<Feed>,
    /// The arbiter API's way into the board loop.
    pub commands: mpsc::Sender<ArbiterCommand>,
    /// The game's info.
    pub info: GameInfo,
    /// The round clock.
    pub clock: RoundClock,
    /// True once the source has ended and all its records were fed.
    pub done: watch::Receiver<bool>,
    /// What happened on start: resumed (records replayed), torn line, downtime.
    pub report: Vec<String>,
    /// The MQTT uplink's state, when the config has `[mqtt]`.
    pub mqtt: Option<watch::Receiver<crate::mqtt::publish::UplinkStatus>>,
    stop: watch::Sender<bool>,
    source_stop: Arc<AtomicBool>,
    board_thread: Joinable<Controller>,
    source_thread: Joinable<()>,
}

struct BoardLoop {
    controller: Controller,
    publisher: Publisher,
    journal: Option<Journal>,
    feed: Arc<Feed>,
    last_t: u64,
    on_event: Option<EventObserver>,
    events: Vec<Event>,
    /// The physical clock the controller drives (§6.7a: its press completes
    /// a move; the controller streams the times and the last move to it).
    device: Option<BoxedClock>,
}

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
                EventKind::GameEnd { .. } => dev.stop(t),
                _ => Ok(()),
            };
            if let Err(err) = r {
                tracing::warn!("clock {}: {err}", dev.name());
            }
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
    fn record(&mut self, mut rec: Record) -> Vec<Event> {
        rec.t = rec.t.max(self.last_t);
        self.last_t = rec.t;
        if let Some(j) = self.journal.as_mut() {
            if let Err(e) = j.record(&rec) {
                tracing::error!("journal: {e}");
            }
        }
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

    /// Time passes to `t` without input.
    fn tick(&mut self, t: u64) {
        self.events.clear();
        self.controller.tick(t, &mut self.events);
        if !self.events.is_empty() {
            self.stream_to_clock(t);
            self.decided(t, false);
        }
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
    fn close(mut self) -> Controller {
        if let Some(mut j) = self.journal.take() {
            if let Err(e) = j.sync() {
                tracing::error!("journal: {e}");
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
            self.feed.publish(u);
        }
        if let Some(f) = self.on_event.as_mut() {
            for e in events {
                f(e);
            }
        }
    }
}

impl Daemon {
    /// Starts the board loop for `opts`; the delay line runs on `rt`. The
    /// MQTT broker of `opts.config`'s `[mqtt]` is resolved here (its
    /// `ca_file` read); the loop runs until [`Daemon::stop`].
    pub fn start(opts: RunOptions, rt: &tokio::runtime::Handle) -> Result<Daemon, String> {
        let mqtt = settings::mqtt_uplink(&opts.config).map_err(|e| e.to_string())?;
        Daemon::launch(opts, mqtt, Lifecycle::default(), rt)
    }

    /// Starts the board loop for `opts` with the MQTT uplink `mqtt` resolved
    /// at start-up ([`settings::mqtt_uplink`]) and the ending of `life`;
    /// the delay line and the uplink run on `rt`.
    pub fn launch(
        opts: RunOptions,
        mqtt: Option<MqttUplink>,
        life: Lifecycle,
        rt: &tokio::runtime::Handle,
    ) -> Result<Daemon, String> {
        let RunOptions {
            config,
            delay_s,
            journal: journal_path,
            mut source,
            source_header,
            source_is_recording,
            speed,
            on_event,
            clock_device,
            source_is_live,
        } = opts;
        if !(speed > 0.0 && speed.is_finite()) {
            return Err(format!("speed {speed}: give a factor above 0"));
        }
        let header = settings::game_header(&config, source_header.as_ref());
        let mut report = Vec::new();
        let now_unix = unix_now_ms();
        let (journal, recovered) = match &journal_path {
            Some(p) => {
                let (j, r) = Journal::open(p, &header, now_unix).map_err(|e| e.to_string())?;
                (Some(j), r)
            }
            None => (None, None),
        };
        // A resumed game keeps its journaled settings.
        let game_header = recovered.as_ref().map_or(&header, |r| &r.header);
        let game_cfg = GameConfig::from_header(game_header, None, None).map_err(|e| {
            let file = match &recovered {
                Some(_) => journal_path.as_ref().unwrap().display().to_string(),
                None => config.file().to_owned(),
            };
            format!("{file}: {e}")
        })?;
        let started_at = recovered
            .as_ref()
            .and_then(|r| r.started_at_unix_ms)
            .unwrap_or(now_unix);
        let clock = RoundClock::new(started_at, speed);
        let info = settings::game_info(&config, game_header, started_at, speed, delay_s * 1000);
        let now_fn: Arc<dyn Fn() -> u64 + Send + Sync> = Arc::new(move || clock.now_ms());
        // The MQTT uplink takes the public updates as the public gets them;
        // its queue lives beside the journal (`JOURNAL.mqtt`).
        let (tap, mqtt) = match mqtt {
            Some(MqttUplink { broker, prefix }) => {
                let topics = crate::mqtt::BoardTopics::new(
                    &prefix,
                    info.event.as_deref(),
                    info.round,
                    info.board,
                );
                let queue = journal_path.as_ref().map(|p| {
                    let mut q = p.clone().into_os_string();
                    q.push(".mqtt");
                    PathBuf::from(q)
                });
                let uplink = crate::mqtt::publish::Uplink {
                    broker,
                    client_id: format!(
                        "eboard-{}-{}-{}-{:x}",
                        crate::mqtt::slug(info.event.as_deref()),
                        info.round,
                        info.board,
                        rand::random::<u32>()
                    ),
                    topics,
                    epoch: started_at,
                };
                let (tx, status) = crate::mqtt::publish::start(rt, uplink, queue.as_deref())?;
                (Some(tx), Some(status))
            }
            None => (None, None),
        };
        let feed = Arc::new(Feed::start_tapped(rt, delay_s * 1000, now_fn, speed, tap));
        let article = game_cfg.profile.articles.arbiter;
        let mut board = BoardLoop {
            controller: Controller::new(game_cfg),
            publisher: Publisher::new(info.clone()),
            journal: None,
            feed: feed.clone(),
            last_t: 0,
            on_event: None,
            events: Vec::new(),
            device: clock_device,
        };
        let first = board.publisher.snapshot_now(board.controller.arbiter(), 0);
        feed.publish_start(first);
        // Resume: the journal's records replayed (not journaled again).
        let mut skip: Vec<Record> = Vec::new();
        if let Some(rec) = &recovered {
            for r in &rec.records {
                board.record(r.clone());
            }
            if source_is_recording {
                skip = rec
                    .records
                    .iter()
                    .filter(|r| {
                        !matches!(
                            r.kind,
                            RecordKind::Arbiter {
                                author: Some(_),
                                ..
                            }
                        )
                    })
                    .cloned()
                    .collect();
            }
            report.push(format!(
                "resumed {}: {} records replayed, {} moves",
                journal_path.as_ref().unwrap().display(),
                rec.records.len(),
                board.controller.arbiter().moves().len()
            ));
            if let Some(e) = &rec.torn {
                report.push(format!(
                    "{}: torn last line dropped ({e})",
                    journal_path.as_ref().unwrap().display()
                ));
            }
        }
        board.journal = journal;
        board.on_event = on_event;
        if let (Some(rec), Some(p)) = (&recovered, &journal_path) {
            let since = rec
                .records
                .last()
                .map_or(0, |r| r.t)
                .max(journal::last_event_t(p).unwrap_or(0));
            let now = clock.now_ms().max(board.last_t);
            let e = Event {
                t: now,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::Downtime,
                    article,
                    squares: Vec::new(),
                },
            };
            let mut extra = vec![
                ("since_t", Value::from(since)),
                ("until_t", Value::from(now)),
                ("downtime_ms", Value::from(now.saturating_sub(since))),
            ];
            if let Some(torn) = &rec.torn {
                extra.push(("torn_line", Value::from(torn.line)));
            }
            let msg = board.publisher.message(&e, &extra);
            if let Some(j) = board.journal.as_mut() {
                let _ = j.event(&msg).and_then(|_| j.sync());
            }
            feed.arbiter.publish(0, None, &[msg]);
            report.push(format!(
                "downtime {} ms (round time {since}..{now}) reported to the arbiter",
                now.saturating_sub(since)
            ));
        }

        let (src_tx, src_rx) = mpsc::channel::<Result<Record, String>>(64);
        let source_stop = life
            .source_stop
            .unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        let stopped = source_stop.clone();
        let source_thread = Joinable::spawn("eboard-source", move || {
            let mut skip = skip.into_iter().peekable();
            while !stopped.load(Ordering::SeqCst) {
                let Some(r) = source.next_record() else {
                    break;
                };
                if let (Ok(rec), Some(s)) = (&r, skip.peek()) {
                    if rec == s {
                        skip.next();
                        continue;
                    }
                }
                let end = r.is_err();
                if src_tx.blocking_send(r).is_err() || end {
                    break;
                }
            }
        })
        .map_err(|e| format!("cannot start the source thread: {e}"))?;
        let (cmd_tx, cmd_rx) = mpsc::channel(64);
        let (done_tx, done_rx) = watch::channel(false);
        let (stop_tx, stop_rx) = watch::channel(false);
        let inputs = LoopInputs {
            clock,
            lookahead: source_is_recording,
            live: source_is_live,
            end_with_source: life.end_with_source,
            src_rx,
            cmd_rx,
            done: done_tx,
            stop: stop_rx,
        };
        let board_thread = Joinable::spawn("eboard-board", move || {
            match tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
            {
                Ok(rt) => rt.block_on(board_loop(board, inputs)),
                Err(e) => {
                    tracing::error!("the board loop's runtime cannot start: {e}");
                    board.close()
                }
            }
        })
        .map_err(|e| format!("cannot start the board loop: {e}"))?;
        Ok(Daemon {
            feed,
            commands: cmd_tx,
            info,
            clock,
            done: done_rx,
            report,
            mqtt,
            stop: stop_tx,
            source_stop,
            board_thread,
            source_thread,
        })
    }

    /// Stops the board by `deadline`: the source is no longer read; the
    /// records already read whose time has come are fed and journaled, the
    /// queued arbiter actions answered; the journal is synced and closed;
    /// the board and source threads are joined. Returns the game's
    /// controller as the loop left it; an error when the board thread did
    /// not end by `deadline` (a source stuck in a read that cannot be
    /// interrupted is left to the process's exit, logged).
    pub fn stop(self, deadline: Instant) -> Result<Controller, String> {
        self.source_stop.store(true, Ordering::SeqCst);
        self.stop.send_replace(true);
        let controller = self
            .board_thread
            .join_by(deadline)
            .map_err(|e| format!("the board loop: {e}"))?;
        // The loop has dropped its receiver: a source thread blocked on a
        // full channel ends now, one reading standard input within
        // STDIN_POLL_MS. One waiting in a read nobody can interrupt (a
        // sensor scan that reports only changes) is left to the exit:
        // nothing it could still read would be decided.
        let soon = Instant::now() + SOURCE_JOIN;
        if let Err(e) = self.source_thread.join_by(deadline.min(soon)) {
            tracing::debug!("the record source: {e}");
        }
        Ok(controller)
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
struct LoopInputs {
    /// The round clock.
    clock: RoundClock,
    /// The source is a recording that can always tell its next record, so
    /// time is never ticked past a record not yet read (a resumed game
    /// catches up on the records due while the daemon was down exactly as
    /// they were recorded).
    lookahead: bool,
    /// The source is live: its records are stamped on arrival.
    live: bool,
    /// End once the source has ended and its records were decided.
    end_with_source: bool,
    /// The source's records.
    src_rx: mpsc::Receiver<Result<Record, String>>,
    /// The arbiter API's actions.
    cmd_rx: mpsc::Receiver<ArbiterCommand>,
    /// Set once the source has ended and all its records were fed.
    done: watch::Sender<bool>,
    /// Set by [`Daemon::stop`].
    stop: watch::Receiver<bool>,
}

/// Runs the board until the source and the API are both gone, the source
/// has ended with [`LoopInputs::end_with_source`], or a stop; returns the
/// controller with the journal closed.
async fn board_loop(mut board: BoardLoop, inputs: LoopInputs) -> Controller {
    let LoopInputs {
        clock,
        lookahead,
        live,
        end_with_source,
        mut src_rx,
        mut cmd_rx,
        done,
        mut stop,
    } = inputs;
    let mut pending: Option<Record> = None;
    let mut commands: std::collections::VecDeque<ArbiterCommand> = Default::default();
    let mut src_done = false;
    let mut cmd_closed = false;
    // The stop's sender gone (a dropped Daemon): no stop will come.
    let mut stop_gone = false;
    loop {
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
