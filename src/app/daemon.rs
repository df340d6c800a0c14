//! The live daemon's board loop: records from a [`RecordSource`] and from
//! the arbiter API go through the one [`Controller`], ticked on the round
//! clock; every record and decision is journaled; decisions are published
//! to the arbiter at once and to the public after the transmission delay.
//!
//! Time is injected as round time: ms since the start of the round, from a
//! monotonic clock ([`RoundClock`]); the journal keeps the round's start so
//! a restarted daemon continues the same time line.
//!
//! This module starts a board ([`Daemon::launch`]: the journal resumed,
//! the feed, the MQTT uplink, the source and loop threads) and stops it;
//! the loop itself is `board_loop.rs`, the sources `source.rs`.
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

use super::board_loop::{board_loop, BoardLoop, LoopInputs};
pub use super::board_loop::{EventObserver, TICK_MS};
use super::downtime;
use super::heartbeat::BootClock;
use super::settings::{self, MqttUplink};
use super::shutdown::Joinable;
use crate::arbiter::GameConfig;
use crate::broadcast::delay::Feed;
use crate::broadcast::public::{GameInfo, Publisher};
use crate::clock::open::BoxedClock;
use crate::config::Config;
use crate::controller::Controller;
use crate::journal::{self, Journal};
use crate::trace::{Event, Header, Record, RecordKind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};

pub use super::round_clock::{unix_now_ms, RoundClock};
pub use super::source::{merge_sources, RecordSource, TraceSource, STDIN_POLL_MS};
pub use crate::console::board::{ActionReply, ArbiterCommand};

/// How long [`Daemon::stop`] waits for the source thread after the board
/// loop has ended.
pub const SOURCE_JOIN: Duration = Duration::from_millis(250);

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
    /// systemd's watchdog (`WatchdogSec=`), fed from the board loop: a
    /// loop that hangs stops feeding it and systemd restarts the service.
    pub watchdog: Option<crate::service::notify::Watchdog>,
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
    /// The board's MQTT presence, told offline ("stopped") on [`Daemon::stop`].
    presence: Option<crate::mqtt::status::PresenceStop>,
    stop: watch::Sender<bool>,
    source_stop: Arc<AtomicBool>,
    board_thread: Joinable<Controller>,
    source_thread: Joinable<()>,
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
        let mut header = settings::game_header(&config, source_header.as_ref());
        let mut report = Vec::new();
        let mut pending_alerts: Vec<journal::Alert> = Vec::new();
        let now_unix = unix_now_ms();
        // The round's scheduled start on the round clock a new game starts
        // now (a resumed game keeps its journaled one, below).
        if let Some(s) = settings::session_start_ms(&config, now_unix, speed) {
            header.session_start_ms = Some(s);
        }
        let (journal, recovered) = match &journal_path {
            Some(p) => {
                let (j, r) = Journal::open(p, &header, now_unix).map_err(|e| e.to_string())?;
                (Some(j), r)
            }
            None => (None, None),
        };
        let damaged = recovered.as_ref().is_some_and(|r| r.damage.is_some());
        // A resumed game keeps its journaled settings (the same game's:
        // `Journal::open` refuses another game's journal).
        let game_header = recovered.as_ref().map_or(&header, |r| &r.header);
        let mut game_cfg = GameConfig::from_header(game_header, None, None).map_err(|e| {
            let file = match &recovered {
                Some(_) => journal_path.as_ref().unwrap().display().to_string(),
                None => config.file().to_owned(),
            };
            format!("{file}: {e}")
        })?;
        game_cfg.clock_start_at = settings::clock_start_at(&config, source_is_live);
        let started_at = recovered
            .as_ref()
            .and_then(|r| r.started_at_unix_ms)
            .unwrap_or(now_unix);
        // A resumed game: the round time goes on from the journal's last
        // time plus the downtime, when the wall clock can be trusted to
        // measure it; else from the journal's last time, the clocks stopped
        // for the arbiter (`resume_round`).
        let resume = match (&recovered, &journal_path) {
            (Some(rec), Some(p)) => Some(downtime::resume_round(&downtime::facts(
                p,
                rec.records.last().map_or(0, |r| r.t),
                started_at,
                now_unix,
                speed,
                downtime::wall_clock_synchronised(&config),
            ))),
            _ => None,
        };
        // Damaged lines of the events file (their checksum fails): read as
        // absent, the downtime not measured; the arbiter is told.
        if let (Some(_), Some(p)) = (&recovered, &journal_path) {
            let lines = journal::events_read(p).damaged;
            if !lines.is_empty() {
                let a = journal::Alert::EventsDamaged {
                    file: journal::events_path(p),
                    lines,
                };
                a.log();
                report.push(format!("journal: {}", a.to_json(0)));
                pending_alerts.push(a);
            }
        }
        let clock = match &resume {
            Some(r) => r.clock,
            None => RoundClock::new(started_at, speed),
        };
        let info = settings::game_info(
            &config,
            game_header,
            clock.started_at_unix_ms(),
            speed,
            delay_s * 1000,
        );
        let now_fn: Arc<dyn Fn() -> u64 + Send + Sync> = Arc::new(move || clock.now_ms());
        // The MQTT uplink takes the public updates as the public gets them;
        // its queue lives beside the journal (`JOURNAL.mqtt`). A journal
        // resumed up to damage regenerates a shorter stream than the one
        // sent: a new epoch, so consumers start the board's stream again
        // (its old queue was set aside with the damaged journal). With
        // `[mqtt] arbiter_channel`, the arbiter's channel too, started on
        // the feed before anything is published.
        let epoch = if damaged { now_unix } else { started_at };
        let mut uplinks = super::uplinks::start(rt, mqtt, &info, epoch, journal_path.as_deref())?;
        let feed = Arc::new(Feed::start_tapped(
            rt,
            delay_s * 1000,
            now_fn,
            speed,
            uplinks.tap.take(),
        ));
        let arbiter_mqtt = uplinks.start_arbiter(rt, &feed.arbiter)?;
        let mqtt = uplinks.status;
        let presence = uplinks.presence.take();
        // SSE ids: the same for the same messages after a restart (a
        // journal resumed up to damage regenerates another stream: a new one).
        feed.set_epoch(if damaged { now_unix } else { started_at });
        // The downtime's article: the clocks set after an irregularity
        // (2009 §6.13, 2023 7.1), not the penalties'.
        let article = game_cfg.profile.article_downtime();
        let mut board = BoardLoop {
            controller: Controller::new(game_cfg),
            publisher: Publisher::new(info.clone()),
            journal: None,
            feed: feed.clone(),
            last_t: 0,
            on_event: None,
            events: Vec::new(),
            device: clock_device,
            last_heartbeat_t: None,
            boot_id: BootClock::now().map(|b| b.boot_id),
        };
        if config.event.speak == Some(true) {
            // The speaker reports each announcement's end (`spoken`).
            board.controller.set_speech_timing(
                crate::controller::SpeechTiming::Reported,
                settings::voice_wpm(&config),
            );
        }
        let first = board.publisher.snapshot_now(board.controller.arbiter(), 0);
        feed.publish_start(first);
        // Resume: the journal's records replayed (not journaled again).
        let mut skip: Vec<Record> = Vec::new();
        // The events of a journal resumed up to damage are written anew
        // (its events file went aside with it).
        let mut replayed_events: Vec<Event> = Vec::new();
        if let Some(rec) = &recovered {
            for r in &rec.records {
                let events = board.record(r.clone());
                if damaged {
                    replayed_events.extend(events);
                }
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
        // The public sees nothing the journal's time does not cover.
        let releases = board.journal.is_some().then(|| feed.journal_releases());
        if let Some(j) = board.journal.as_mut() {
            for e in &replayed_events {
                let _ = j.event(&e.to_json());
            }
            for a in j.take_alerts() {
                report.push(format!("journal: {}", a.to_json(board.last_t)));
                // Back for the board loop to publish and journal below.
                pending_alerts.push(a);
            }
        }
        board.on_event = on_event;
        board.show_clock_now(board.last_t);
        if let (Some(rec), Some(resume)) = (&recovered, &resume) {
            report.extend(downtime::announce(
                &mut board,
                &feed,
                resume,
                rec.torn.as_ref().map(|t| t.line),
                source_is_recording,
                article,
                config.clock.clock_runs_while_down(),
            ));
        }
        // What the journal found on opening (damage set aside, an empty
        // journal): to the arbiter, and into the events file.
        for a in pending_alerts {
            let msg = a.to_json(board.last_t);
            if let Some(j) = board.journal.as_mut() {
                let _ = j.event(&msg);
            }
            feed.arbiter.publish(0, None, &[Arc::from(msg)]);
        }
        board.journal_alerts(board.last_t);
        // Messages found cut short in the MQTT queue: the arbiter is told
        // (they are queued again from the replay, logged by the uplink).
        for (cut, queue) in [
            (mqtt.as_ref(), "MQTT queue"),
            (arbiter_mqtt.as_ref(), "MQTT arbiter channel's queue"),
        ]
        .into_iter()
        .filter_map(|(s, q)| Some((s?.borrow().cut_at_open, q)))
        {
            if cut > 0 {
                let msg = serde_json::json!({
                    "type": "uplink_alert",
                    "uplink": "mqtt",
                    "error": format!("{cut} queued message(s) found cut short in the {queue}"),
                    "action": "queued again from the journal's replay",
                })
                .to_string();
                feed.arbiter.publish(0, None, &[Arc::from(msg)]);
            }
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
                    if already_journaled(rec, s) {
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
            watchdog: life.watchdog,
            releases,
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
            presence,
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
        // The broker is told the board stops (its will is for a lost connection).
        if let Some(p) = self.presence {
            if !p.stop(deadline) {
                tracing::warn!("mqtt: the board's offline status was not sent by the deadline");
            }
        }
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

pub use super::downtime::{DOWNTIME_AUTHOR, QUICK_RESTART_MS};

/// Whether the recording's record `rec` is the journal's record `journaled`
/// (the next one a resume skips): the same board and kind, journaled at
/// its own time or later. A record is journaled at no earlier than the
/// last journaled time (`BoardLoop::record`), so after a restart whose
/// downtime ruling was journaled at the resume's time, the records fed
/// next carry that later time in the journal; compared with their time
/// too, the next resume stopped skipping there and fed the recording's
/// records again from that point (moves played twice, illegal moves,
/// seen on the arm64 package under qemu).
fn already_journaled(rec: &Record, journaled: &Record) -> bool {
    rec.board == journaled.board && rec.kind == journaled.kind && rec.t <= journaled.t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::BoardId;
    use shakmaty::Square;

    fn lift(t: u64, sq: Square) -> Record {
        Record {
            t,
            board: BoardId::Main,
            kind: RecordKind::Lift(sq),
        }
    }

    #[test]
    fn a_record_journaled_later_than_its_time_is_still_skipped() {
        // Journaled at the resume's downtime ruling (t = 105495), not at
        // the recording's own t = 103513: the same record.
        assert!(already_journaled(
            &lift(103_513, Square::D2),
            &lift(105_495, Square::D2)
        ));
        assert!(already_journaled(
            &lift(7, Square::E2),
            &lift(7, Square::E2)
        ));
        assert!(!already_journaled(
            &lift(7, Square::E2),
            &lift(7, Square::E7)
        ));
        // Journaled before the recording's time: another record.
        assert!(!already_journaled(
            &lift(9, Square::E2),
            &lift(7, Square::E2)
        ));
    }
}
