//! `eboard run`: the board daemon wired — the config resolved at start-up
//! ([`super::settings`]), the record source (a trace, standard input or
//! the sensors), the clock device, the board loop ([`super::daemon`]), the
//! HTTP server, the MQTT and lichess uplinks, the speech thread; and one
//! stop for all of them on SIGTERM or Ctrl-C.
//!
//! Length: the run's wiring in start-up order (config, source, clock, board
//! loop, server, uplinks, pairing, stop) reads best as one function with
//! its helpers.

use super::daemon::{Daemon, EventObserver, Lifecycle, RecordSource, RunOptions, TraceSource};
use super::pairing;
use super::settings::Startup;
use super::shutdown::{Shutdown, GRACE};
use super::{bind, close_runtime, runtime, serve_until, Anyhow};
use crate::config::{Config, SourceKind, MAX_DELAY_S};
use crate::server::command_ids::CommandIds;
use crate::server::kept::{ConsoleFiles, Damage};
use crate::server::{AppState, ArbiterAccess};
use crate::trace::{Event, EventKind};
use anyhow::{anyhow, bail, Context};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The arguments of `eboard run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The configuration file (TOML).
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Address to serve on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Transmission delay of every public feed, seconds (default: the config's, else 0).
    #[arg(long, value_name = "SECONDS")]
    pub delay: Option<u64>,
    /// The journal: resumed when it exists, else started.
    #[arg(long, value_name = "FILE", conflicts_with = "journal_dir")]
    pub journal: Option<PathBuf>,
    /// A journal directory (the service's /var/lib/eboard): the game's
    /// journal is DIR/board.jsonl, rotated per game to DIR/games/ when its
    /// game has ended (the newest --keep-games kept).
    #[arg(long, value_name = "DIR")]
    pub journal_dir: Option<PathBuf>,
    /// Finished games kept in DIR/games/ with --journal-dir.
    #[arg(long, value_name = "N", default_value_t = crate::journal::KEEP_GAMES)]
    pub keep_games: usize,
    /// A recorded trace replayed at wall-clock pace (default: JSON lines on standard input).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Time factor for replaying a trace (2 = twice as fast; round time, clocks and delay scale with it).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// This board's game from `eboard event --out`: a board-N.toml
    /// fragment (round, board, players, time control) set over the
    /// config's [game] (docs/event.md).
    #[arg(long, value_name = "FILE")]
    pub pairing: Option<PathBuf>,
}

/// `eboard run`: serves the board until SIGTERM or Ctrl-C, then stops in
/// order within [`GRACE`]: the source, the board loop (drained, journal
/// synced and closed), the server and the uplinks, the threads.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let RunArgs {
        config: config_path,
        listen,
        delay,
        journal,
        journal_dir,
        keep_games,
        trace,
        speed,
        pairing: pairing_file,
    } = args;
    // A configuration error keeps its type: `main` exits 78 (EX_CONFIG)
    // for it, which the unit does not restart (RestartPreventExitStatus).
    let mut cfg = Config::load(&config_path).map_err(anyhow::Error::new)?;
    let rotates = journal_dir.is_some();
    if cfg.board.source == SourceKind::Trial && trace.is_some() {
        tracing::info!("--trace given: its records are played, not the trial game of [board] source = \"trial\"");
        cfg.board.source = SourceKind::Trace;
    }
    let journal = match journal_dir {
        Some(dir) => {
            let trial = cfg.board.source == SourceKind::Trial;
            let shown = config_path.display().to_string();
            if let Some(to) = super::trial::prepare(&dir, trial, &shown)? {
                tracing::info!("the trial game's journal set aside in {}", to.display());
            }
            Some(journal_in(&dir, keep_games)?)
        }
        None => journal,
    };
    let shown = config_path.display().to_string();
    // The game from `eboard event`: a fragment file, then the broker's
    // retained configuration (docs/event.md); never over a journaled game.
    let mut taken = pairing::Taken::default();
    // Set when a new pairing arrives before this board's game has begun:
    // the board stops and starts again with it (`pairing::restart`).
    let taking = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Some(p) = &pairing_file {
        let a = pairing::load_fragment(p)?;
        taken
            .take(&mut cfg, a, journal.as_deref())
            .map_err(|e| anyhow!("--pairing {}: {e}", p.display()))?;
    }
    let first = Startup::resolve(&cfg).map_err(anyhow::Error::new)?;
    let config_topic = match (&first.mqtt, &cfg.mqtt) {
        (Some(up), Some(m)) if m.board_config == Some(true) => {
            let topic = pairing::topic(&cfg, &up.prefix);
            let wait = Duration::from_secs(m.board_config_wait.unwrap_or(pairing::DEFAULT_WAIT_S));
            match pairing::fetch(up, &topic, wait) {
                Ok(Some(a)) => {
                    if let Err(e) = taken.take(&mut cfg, a.clone(), journal.as_deref()) {
                        taken.notices.push((
                            a.game(),
                            format!("{topic}: {e}"),
                            "not applied".into(),
                        ));
                        // Not taken again while this board runs.
                        taken.refused = Some(a);
                    }
                }
                Ok(None) => tracing::warn!(
                    "no board configuration on {topic} within {} s: the game of {shown}'s [game]",
                    wait.as_secs()
                ),
                Err(e) => {
                    tracing::warn!("board configuration {topic}: {e}; the game of {shown}'s [game]")
                }
            }
            Some((up.clone(), topic))
        }
        _ => None,
    };
    let startup = Startup::resolve(&cfg).map_err(anyhow::Error::new)?;
    let delay_s = delay.or(cfg.event.delay).unwrap_or(0);
    if delay_s > MAX_DELAY_S {
        bail!("--delay {delay_s}: the delay must be 0..={MAX_DELAY_S} seconds");
    }
    // The clock the controller drives: its presses complete moves; it is
    // shown the times and the last move.
    let clock_device = match &startup.clock {
        crate::clock::open::DeviceSpec::Simulated => None,
        s => Some(
            crate::clock::open::open(s)
                .anyhow()
                .with_context(|| format!("{shown}: [clock]"))?,
        ),
    };
    let live = cfg.board.source == SourceKind::Hw;
    let trial = cfg.board.source == SourceKind::Trial;
    let mut source_stop = None;
    let (source, header): (Box<dyn RecordSource>, _) = if live {
        (hw_source(&cfg, &shown)?, None)
    } else if trial {
        let (t, from) = super::demo::trial_records()?;
        tracing::warn!(
            "TRIAL MODE ([board] source = \"trial\" in {shown}): simulated hands play {} - {} on a virtual board ({from}); NOT a real game: every feed is marked trial",
            t.header.white.as_deref().unwrap_or("?"),
            t.header.black.as_deref().unwrap_or("?"),
        );
        (Box::new(t.records.into_iter().map(Ok)), Some(t.header))
    } else {
        let src = TraceSource::open(trace.as_deref().unwrap_or(Path::new("-"))).anyhow()?;
        source_stop = src.stop_handle();
        let header = src.header.clone();
        let name = trace
            .as_deref()
            .map_or("-".into(), |p| p.display().to_string());
        super::source::check_recording_header(&cfg, header.as_ref(), &name)?;
        (Box::new(src), header)
    };
    // A journal of another game than the config's is refused before
    // anything starts, with the message naming the file to move (exit
    // EX_CONFIG: systemd does not restart it in a loop, docs/journal.md).
    if let Some(j) = &journal {
        let game = super::settings::game_header(&cfg, header.as_ref());
        crate::journal::check_identity(j, &game).map_err(anyhow::Error::new)?;
    }
    let rt = runtime()?;
    let shutdown = Shutdown::new();
    shutdown
        .on_signals(rt.handle())
        .context("cannot install the SIGTERM/SIGINT handlers")?;
    let (speech, speaker, spoken_sink, say) = match super::speech::speaker(&cfg) {
        Some(s) => (Some(s.thread), Some(s.observer), Some(s.sink), Some(s.say)),
        None => (None, None, None, None),
    };
    // The ids of the rulings taken (both ways in: the console's HTTP and
    // the signed MQTT topic) and the console's state, beside the journal.
    let (kept, damaged) = Kept::open(journal.as_deref())?;
    // The signed rulings' channel, resolved before the board starts.
    let rulings = super::commands::command_channel(&cfg, startup.mqtt.as_ref(), kept.ids.clone())?;
    let journal_path = journal.clone();
    let journal_parent = journal
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf);
    let daemon = Daemon::launch(
        RunOptions {
            config: cfg.clone(),
            delay_s,
            journal,
            source,
            source_header: header,
            source_is_recording: (trace.is_some() || trial) && !live,
            speed,
            on_event: Some(reporter(speaker)),
            clock_device,
            source_is_live: live,
        },
        startup.mqtt,
        Lifecycle {
            end_with_source: false,
            source_stop,
            watchdog: crate::service::notify::Watchdog::from_env(),
        },
        rt.handle(),
    )
    .anyhow()?;
    if let Some(sink) = spoken_sink {
        if let Ok(mut s) = sink.lock() {
            s.commands = Some(daemon.commands.clone());
            s.alerts = Some(daemon.feed.arbiter.clone());
        }
        // A missing espeak-ng or aplay is alerted at once.
        super::speech::check_programs(&sink);
    }
    for line in &daemon.report {
        tracing::info!("{line}");
    }
    for (game, error, action) in &taken.notices {
        pairing::alert(&daemon.feed.arbiter, game, error, action);
    }
    if let Some(a) = &taken.applied {
        tracing::info!(
            "game {}: {} - {} ({})",
            a.game(),
            a.white.name.as_deref().unwrap_or("?"),
            a.black.name.as_deref().unwrap_or("?"),
            taken.from
        );
        // Appendix E: a player who cannot read the pairing list hears it.
        if let (Some(say), Some(_)) = (&say, &cfg.game.vi_player) {
            if let Some((text, lang)) = pairing::spoken(&cfg, a) {
                tracing::info!("saying the pairing: {text}");
                let _ = say.send(super::speech::Queued {
                    n: 0,
                    text,
                    ssml: None,
                    lang,
                    to: None,
                    report: false,
                });
            }
        }
    }
    if let Some(ch) = rulings {
        tracing::info!("rulings: signed commands on {}", ch.command_topic);
        super::commands::start(rt.handle(), ch, daemon.commands.clone()).anyhow()?;
    }
    if let Some((up, topic)) = config_topic {
        let current = taken
            .applied
            .clone()
            .unwrap_or_else(|| pairing::from_config(&cfg));
        pairing::watch(
            rt.handle(),
            &up,
            topic,
            current,
            taken.refused.clone(),
            daemon.feed.arbiter.clone(),
            journal_path.map(|j| pairing::Restart {
                journal: j,
                shutdown: shutdown.clone(),
                requested: taking.clone(),
                rotates,
            }),
        )
        .anyhow()?;
    }
    if let Some(target) = startup.lichess {
        tracing::info!("pushing the PGN to {}", target.url());
        // Rejected games and a stopped push are alerts to the arbiter.
        let options = crate::broadcast::lichess_push::Options {
            alerts: Some(daemon.feed.arbiter.clone()),
            ..Default::default()
        };
        crate::broadcast::lichess_push::start_with(
            rt.handle(),
            target,
            daemon.feed.public.clone(),
            options,
        )
        .anyhow()?;
    }
    let router = daemon_router_kept(&daemon, &cfg, rt.handle(), &kept)?;
    if let Some(d) = damaged {
        daemon
            .feed
            .arbiter
            .publish(0, None, &[std::sync::Arc::from(d.alert_json())]);
    }
    // A made certificate is kept with the journal (the service's state
    // directory), else beside the config.
    let cert_dir = journal_parent
        .as_deref()
        .or_else(|| config_path.parent())
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        });
    let listening = super::settings::listening(Some(&cfg), cert_dir).anyhow()?;
    let signal = shutdown.signal();
    // systemd (Type=notify): ready once the journal is resumed, the
    // sensors have answered (the source opened) and the server listens.
    let notifier = crate::service::notify::Notifier::from_env()
        .map_err(|e| tracing::warn!("NOTIFY_SOCKET: {e}"))
        .ok()
        .flatten();
    let served = rt.block_on(async {
        let l = bind(&listen, &listening).await?;
        if let Some(n) = &notifier {
            n.tell(&format!(
                "READY=1\nSTATUS=board {} round {}: serving {}{}",
                daemon.info.board,
                daemon.info.round,
                l.local_addr().map_or(listen.clone(), |a| a.to_string()),
                if daemon.info.trial {
                    " (TRIAL MODE: simulated hands, not a real game)"
                } else {
                    ""
                }
            ));
        }
        tracing::info!("ready");
        serve_until(l, router, listening, signal).await
    });
    let restarting = taking.load(std::sync::atomic::Ordering::SeqCst);
    if let Some(n) = &notifier {
        // A restart to take a new pairing is a reload to systemd.
        n.tell(if restarting {
            "RELOADING=1"
        } else {
            "STOPPING=1"
        });
    }
    // The stop, in order; it must be over within GRACE of the signal.
    let deadline = Instant::now() + GRACE;
    let stopped = daemon.stop(deadline);
    close_runtime(rt, Duration::from_millis(200));
    if let Some(s) = speech {
        // It ends after the announcement it is speaking.
        if let Err(e) = s.join_by(deadline) {
            tracing::warn!("speech: {e}");
        }
    }
    served?;
    stopped.anyhow()?;
    if restarting {
        return Err(pairing::restart());
    }
    tracing::info!("stopped");
    Ok(())
}

/// The journal of a journal directory, the finished game rotated away
/// first ([`crate::journal::rotate`]).
fn journal_in(dir: &Path, keep: usize) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("--journal-dir {}", dir.display()))?;
    if let Some(to) = crate::journal::rotate(dir, keep).anyhow()? {
        tracing::info!(
            "the last game has ended: its journal moved to {}",
            to.display()
        );
    }
    Ok(dir.join(crate::journal::CURRENT))
}

/// The daemon's own report of its decisions in the log (one line per move
/// and per game end, as they are journaled), then `then` (the speaker).
fn reporter(mut then: Option<EventObserver>) -> EventObserver {
    Box::new(move |e: &Event| {
        match &e.kind {
            EventKind::Move { ply, san, .. } => tracing::info!("move {ply}: {san}"),
            EventKind::GameEnd { result, reason, .. } => {
                tracing::info!("game over: {result} ({reason})")
            }
            _ => {}
        }
        if let Some(f) = then.as_mut() {
            f(e);
        }
    })
}

/// The visually impaired player's own device (`[player]`, E2.9d), when a
/// token is configured (`EBOARD_PLAYER_TOKEN` wins) and the game has a VI
/// player. A token under 128 random bits is refused, naming the key.
fn player_device(cfg: &Config) -> anyhow::Result<Option<crate::server::PlayerDevice>> {
    let Some(token) = crate::server::player_token(cfg.player.token.as_deref()) else {
        return Ok(None);
    };
    crate::server::access::check_token(&token).map_err(|e| {
        let e = if std::env::var("EBOARD_PLAYER_TOKEN").is_ok_and(|t| !t.is_empty()) {
            format!("EBOARD_PLAYER_TOKEN: {e}")
        } else {
            e
        };
        anyhow::anyhow!("{}", cfg.error_at("player.token", e))
    })?;
    Ok(player_device_with(cfg, token))
}

fn player_device_with(cfg: &Config, token: String) -> Option<crate::server::PlayerDevice> {
    let side = match cfg.game.vi_player.as_deref() {
        Some("w") => shakmaty::Color::White,
        Some("b") => shakmaty::Color::Black,
        _ => {
            tracing::warn!(
                "[player] token set but no [game] vi_player: the player's device is off"
            );
            return None;
        }
    };
    let name = cfg.player.name.clone().unwrap_or_else(|| {
        match side {
            shakmaty::Color::White => cfg.game.white.name.clone(),
            shakmaty::Color::Black => cfg.game.black.name.clone(),
        }
        .unwrap_or_else(|| "player".to_owned())
    });
    Some(crate::server::PlayerDevice { token, name, side })
}

/// What a board keeps across a restart besides its journal: the ids of
/// the rulings taken ([`CommandIds`], `JOURNAL.rulings`) and its console's
/// acknowledgements and sessions (`JOURNAL.acks`, `JOURNAL.sessions`,
/// [`crate::server::kept`]); in memory without a journal.
pub(super) struct Kept {
    /// The rulings' ids, shared by `POST /arbiter/command` and the MQTT
    /// command channel.
    pub ids: std::sync::Arc<CommandIds>,
    /// The console's files.
    pub console: Option<ConsoleFiles>,
}

impl Kept {
    /// Nothing kept (the demo, a board without a journal).
    pub fn in_memory() -> Kept {
        Kept {
            ids: std::sync::Arc::new(CommandIds::in_memory()),
            console: None,
        }
    }

    /// The files beside `journal` (none: in memory), and the damage found
    /// in the ids' file. Errors name the file.
    fn open(journal: Option<&Path>) -> anyhow::Result<(Kept, Option<Damage>)> {
        let Some(j) = journal else {
            return Ok((Kept::in_memory(), None));
        };
        let (ids, damage) =
            CommandIds::open(&super::commands::rulings_path(j)).map_err(|e| anyhow!(e))?;
        Ok((
            Kept {
                ids: std::sync::Arc::new(ids),
                console: Some(ConsoleFiles::beside(j)),
            },
            damage,
        ))
    }
}

/// The router of a board: the public feed, the arbiter API and the
/// arbiter's console (its alert queue fed on `rt`), nothing kept.
pub(super) fn daemon_router(
    d: &Daemon,
    cfg: &Config,
    rt: &tokio::runtime::Handle,
) -> anyhow::Result<axum::Router> {
    daemon_router_kept(d, cfg, rt, &Kept::in_memory())
}

/// [`daemon_router`] with what the board keeps ([`Kept`]); damaged
/// console files are set aside and alerted on the arbiter's channel.
fn daemon_router_kept(
    d: &Daemon,
    cfg: &Config,
    rt: &tokio::runtime::Handle,
    kept: &Kept,
) -> anyhow::Result<axum::Router> {
    let accounts = super::settings::console_accounts(cfg).anyhow()?;
    for w in super::settings::console_secrets_on_board(cfg) {
        tracing::warn!("{w}");
    }
    let console = std::sync::Arc::new(
        crate::server::console::Console::new(accounts, d.feed.arbiter.clone(), None)
            .with_command_ids(kept.ids.clone())
            .with_pairings(cfg.arbiter.pairings.as_ref().map(std::path::PathBuf::from)),
    );
    console.spawn_feed(rt);
    if let Some(files) = &kept.console {
        let damage = crate::server::kept::keep(&console, files, super::daemon::unix_now_ms())
            .map_err(|e| anyhow!(e))?;
        for x in damage {
            d.feed
                .arbiter
                .publish(0, None, &[std::sync::Arc::from(x.alert_json())]);
        }
    }
    Ok(crate::server::router(AppState {
        console: Some(console),
        public: d.feed.public.clone(),
        arbiter: Some(ArbiterAccess {
            channel: d.feed.arbiter.clone(),
            token: crate::server::arbiter_token(cfg.arbiter.token.as_deref()),
            name: cfg
                .arbiter
                .name
                .clone()
                .unwrap_or_else(|| "arbiter".to_owned()),
            commands: d.commands.clone(),
            player: player_device(cfg)?,
        }),
    }))
}

/// The live board of `[board] source = "hw"`: the design and calibration
/// files the config names, scanned on the Pi (feature `rpi`).
fn hw_source(cfg: &Config, shown: &str) -> anyhow::Result<Box<dyn RecordSource>> {
    use crate::sensors::{Calibration, HwDesign};
    let hw = cfg.board.hw.as_deref().with_context(|| {
        format!("{shown}: key 'board.hw': source = \"hw\" needs the board design file (hw/*.toml)")
    })?;
    let load = |hw: &str, cal: Option<&str>, key: &str| -> anyhow::Result<_> {
        let design = HwDesign::load(Path::new(hw))
            .anyhow()
            .with_context(|| format!("{shown}: key 'board.{key}'"))?;
        let calibration = match cal {
            Some(c) => Some(
                Calibration::load(Path::new(c))
                    .anyhow()
                    .with_context(|| format!("{shown}: calibration of 'board.{key}'"))?,
            ),
            None => None,
        };
        Ok((design, calibration))
    };
    let (design, calibration) = load(hw, cfg.board.calibration.as_deref(), "hw")?;
    let main = open_hw(design, calibration, shown)?;
    let Some(tactile) = cfg.board.tactile_hw.as_deref() else {
        return Ok(main);
    };
    // Appendix E: the tactile peg board is a second sensor source; its
    // design file names it `tactile`, so its records say so.
    let (design, calibration) = load(
        tactile,
        cfg.board.tactile_calibration.as_deref(),
        "tactile_hw",
    )?;
    let second = open_hw(design, calibration, shown)?;
    Ok(Box::new(super::daemon::merge_sources(vec![main, second])))
}

/// How long start-up waits for the sensor bus to open.
#[cfg(feature = "rpi")]
const SENSORS_ANSWER: Duration = Duration::from_secs(10);

#[cfg(feature = "rpi")]
fn open_hw(
    design: crate::sensors::HwDesign,
    calibration: Option<crate::sensors::Calibration>,
    _shown: &str,
) -> anyhow::Result<Box<dyn RecordSource>> {
    use crate::sensors::{live::LiveSource, Sample, Scanner, ScannerConfig};
    let config = ScannerConfig::default();
    let period = config.period_ms();
    let name = design.name.clone();
    // The sensors have answered once the bus is open and the scanner made
    // (systemd's READY=1 waits for it, `docs/service.md`).
    let (answered_tx, answered) = std::sync::mpsc::channel::<Result<(), String>>();
    let source = LiveSource::start(
        move || {
            let opened = crate::sensors::rpi::open(&design)
                .map_err(|e| e.to_string())
                .and_then(|array| {
                    let start = shakmaty::Board::default();
                    let initial = Sample::from_board(&start, design.is_analog());
                    Scanner::new(array, &design, calibration.as_ref(), config, initial)
                        .map_err(|e| e.to_string())
                });
            let _ = answered_tx.send(opened.as_ref().map(|_| ()).map_err(Clone::clone));
            opened
        },
        period,
    );
    match answered.recv_timeout(SENSORS_ANSWER) {
        Ok(Ok(())) => Ok(Box::new(source)),
        Ok(Err(e)) => bail!("{_shown}: the sensors of {name}: {e}"),
        Err(_) => bail!(
            "{_shown}: the sensors of {name} did not answer within {} s",
            SENSORS_ANSWER.as_secs()
        ),
    }
}

#[cfg(not(feature = "rpi"))]
fn open_hw(
    design: crate::sensors::HwDesign,
    _calibration: Option<crate::sensors::Calibration>,
    shown: &str,
) -> anyhow::Result<Box<dyn RecordSource>> {
    bail!(
        "{shown}: key 'board.source': \"hw\" reads {} on the Raspberry Pi: build with --features rpi (see docs/hardware.md)",
        design.name
    )
}
