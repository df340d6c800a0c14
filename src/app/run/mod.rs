//! `eboard run`: the board daemon wired — the config resolved at start-up
//! ([`super::settings`]), the record source (a trace, standard input or
//! the sensors), the clock device, the board loop ([`super::daemon`]), the
//! HTTP server, the MQTT and lichess uplinks, the speech thread; and one
//! stop for all of them on SIGTERM or Ctrl-C.
//!
//! Layout: the run's wiring in start-up order (config, source, clock, board
//! loop, server, uplinks, pairing, stop) is one function here; what it puts
//! together (journal, reporter, hardware) is in `parts`; the board's
//! router, what it keeps and the player's device in `super::router`
//! (shared with the demo).

use super::daemon::{Daemon, Lifecycle, RecordSource, RunOptions, TraceSource};
use super::pairing;
use super::router::{daemon_router_kept, Kept};
use super::settings::Startup;
use super::shutdown::{Shutdown, GRACE};
use super::{bind, close_runtime, runtime, serve_until, Anyhow};
use crate::config::{Config, SourceKind, MAX_DELAY_S};
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
    /// game has ended (the newest --keep-games kept); with an arbiter, once
    /// its result is confirmed.
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
            // A trial game's result is no result to confirm.
            let confirms = !trial && results_confirmed_here(&cfg);
            Some(journal_in(&dir, keep_games, confirms)?)
        }
        None => journal,
    };
    let shown = config_path.display().to_string();
    // The game from `eboard event`: a fragment file, then the broker's
    // retained configuration (docs/event.md); never over a journaled game.
    let mut taken = pairing::Taken {
        rotate: rotates.then_some(keep_games),
        ..pairing::Taken::default()
    };
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
    // A finished game kept for its confirmation (`journal_in`) is archived
    // when this start is another game.
    if let Some(j) = &journal {
        let game = super::settings::game_header(&cfg, header.as_ref());
        if rotates {
            rotate_other_game(j, &game, keep_games, &mut taken.notices)?;
        }
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
    if let Some(mut ch) = rulings {
        // The game as the board plays it (a pairing taken, a journal resumed).
        ch.round = daemon.info.round;
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

mod parts;
pub(crate) use parts::*;
