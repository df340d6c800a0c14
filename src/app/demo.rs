//! `eboard demo`: a famous master game (Morphy's Opera Game, Paris 1858, or
//! a PGN file's first game) played by simulated hands on a virtual board,
//! its Hall sensors read by the real drivers over a simulated bus — the
//! records a real board gives — and fed through the daemon's own board loop
//! ([`super::daemon`]) on a scaled clock; each decision is printed as it is
//! taken, and with `--listen` the feeds and the live page are served too.

use super::daemon::{Daemon, Lifecycle, RunOptions};
use super::router::daemon_router;
use super::shutdown::{Shutdown, GRACE};
use super::{bind, close_runtime, runtime, view, write_to, Anyhow, SensingArg};
use crate::arbiter::GameConfig;
use crate::config::Config;
use crate::trace::{Event, Sensing, Trace};
use anyhow::{bail, Context};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The built-in demo game.
const DEMO_PGN: &str = include_str!("../data/opera-game.pgn");

/// The board design the demo's virtual board uses by default.
const DEMO_HW: &str = include_str!("../../hw/hc165-chain.toml");

/// `--speed 0` (no waiting): round ms per wall ms.
const NO_WAIT_SPEED: f64 = 1e6;

/// The arguments of `eboard demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Speed factor over real time (20 = twenty times faster; 0 = no waiting).
    #[arg(long, default_value_t = 20.0)]
    pub speed: f64,
    /// Random seed for the simulated hands.
    #[arg(long, default_value_t = 1858)]
    pub seed: u64,
    /// What the simulated board senses.
    #[arg(long, value_enum, default_value = "occupancy")]
    pub sensing: SensingArg,
    /// Where to leave the PGN.
    #[arg(long, default_value = "eboard-demo.pgn")]
    pub pgn: PathBuf,
    /// A PGN file to play instead of the built-in game (its first game).
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// The board design whose drivers the simulated hands go through
    /// (a file in hw/; default: the built-in 74HC165 chain design).
    #[arg(long, value_name = "HW_TOML")]
    pub hw: Option<PathBuf>,
    /// Feed the simulated records straight to the controller, without
    /// the virtual bus and drivers.
    #[arg(long, conflicts_with = "hw")]
    pub direct: bool,
    /// Also serve the live page and the feeds on ADDR (`--listen` alone:
    /// 127.0.0.1:8080, this machine only; 0.0.0.0:8080 for the network) and
    /// keep serving after the game until Ctrl-C.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    pub listen: Option<String>,
}

/// `eboard demo`: the game's records through the board loop, printed as
/// they are decided; the PGN to `--pgn`.
pub fn demo(args: DemoArgs) -> anyhow::Result<()> {
    if !(args.speed >= 0.0 && args.speed.is_finite()) {
        bail!("--speed {}: give a factor of 0 or more", args.speed);
    }
    let (trace, source) = demo_records(&args)?;
    // Checked before anything starts: the game's settings from its header.
    GameConfig::from_header(&trace.header, None, None).anyhow()?;
    // The names are the recording's: shown, never acted on by the
    // terminal (issue 41).
    let shown = |v: &Option<String>| {
        crate::model::text::escape_controls(v.as_deref().unwrap_or("?")).into_owned()
    };
    println!(
        "eboard demo: {} – {}, {} ({} records from {source}, {} sensing, speed ×{})",
        shown(&trace.header.white),
        shown(&trace.header.black),
        shown(&trace.header.event),
        trace.records.len(),
        trace.header.sensing.as_str(),
        args.speed,
    );
    let speed = if args.speed == 0.0 {
        NO_WAIT_SPEED
    } else {
        args.speed
    };
    let rt = runtime()?;
    let shutdown = Shutdown::new();
    shutdown
        .on_signals(rt.handle())
        .context("cannot install the SIGTERM/SIGINT handlers")?;
    let cfg = Config::default();
    let daemon = Daemon::launch(
        RunOptions {
            config: cfg.clone(),
            delay_s: 0,
            journal: None,
            source: Box::new(trace.records.into_iter().map(Ok)),
            source_header: Some(trace.header),
            source_is_recording: true,
            speed,
            on_event: Some(Box::new(|e: &Event| view::show(e))),
            clock_device: None,
            source_is_live: false,
        },
        None,
        Lifecycle {
            end_with_source: true,
            source_stop: None,
            watchdog: None,
        },
        rt.handle(),
    )
    .anyhow()?;
    let mut done = daemon.done.clone();
    let mut signal = shutdown.signal();
    let pgn_path = args.pgn.as_path();
    let result = match &args.listen {
        None => {
            rt.block_on(async {
                tokio::select! {
                    _ = done.wait_for(|d| *d) => {}
                    _ = signal.wait() => {}
                }
            });
            daemon
                .stop(Instant::now() + GRACE)
                .anyhow()
                .and_then(|c| write_to(pgn_path, &crate::broadcast::write_pgn(c.arbiter())))
                .map(|()| println!("\nPGN written to {}", pgn_path.display()))
        }
        Some(addr) => {
            let router = daemon_router(&daemon, &cfg, rt.handle())?;
            let public = daemon.feed.public.clone();
            let served = rt.block_on(async {
                // The demo is shown on this host: plain HTTP, default limits.
                let listening = crate::server::Listening::default();
                let l = bind(addr, &listening).await?;
                println!(
                    "eboard demo: the live page is at http://{}/",
                    l.local_addr().context("the demo's address")?
                );
                let server = tokio::spawn(crate::server::serve(l, router, listening));
                // The records have ended and every one was decided (a
                // game-ending move still settling counts as made at its end,
                // as in replay), or a stop came first.
                tokio::select! {
                    _ = done.wait_for(|d| *d) => {}
                    _ = signal.wait() => return Ok(()),
                }
                let pgn: String = public
                    .view
                    .borrow()
                    .games
                    .iter()
                    .map(|g| g.pgn.as_str())
                    .collect();
                write_to(pgn_path, &pgn)?;
                println!(
                    "\nPGN written to {}; serving until Ctrl-C",
                    pgn_path.display()
                );
                tokio::select! {
                    r = server => r.anyhow()?.anyhow(),
                    _ = signal.wait() => Ok(()),
                }
            });
            let stopped = daemon.stop(Instant::now() + GRACE);
            served.and(stopped.anyhow().map(drop))
        }
    };
    close_runtime(rt, Duration::from_millis(200));
    result
}

/// The seed of the trial mode's simulated hands (`[board] source =
/// "trial"`): fixed, so that a restart resumes the same records from the
/// journal (as a recorded trace does).
pub const TRIAL_SEED: u64 = 1858;

/// The records of `[board] source = "trial"` (`eboard run` without
/// sensors): the demo's built-in game (Morphy's Opera Game) played by
/// simulated hands on the demo's virtual board (the 74HC165 chain design,
/// read by its real drivers over a simulated bus), with the game's header
/// (players, event) for the config to override. The returned text says
/// where the records come from.
pub fn trial_records() -> anyhow::Result<(Trace, String)> {
    demo_records(&DemoArgs {
        speed: 1.0,
        seed: TRIAL_SEED,
        sensing: SensingArg::Occupancy,
        pgn: PathBuf::new(),
        game: None,
        hw: None,
        direct: false,
        listen: None,
    })
}

/// The demo's game as records: simulated hands, through the virtual bus
/// and the drivers of `--hw` (or straight with `--direct`); the text says
/// where the records come from.
fn demo_records(args: &DemoArgs) -> anyhow::Result<(Trace, String)> {
    use crate::sensors::{virtual_hw, HwDesign};
    let text = match &args.game {
        Some(p) => std::fs::read_to_string(p).with_context(|| p.display().to_string())?,
        None => DEMO_PGN.to_owned(),
    };
    let games = crate::pgn::read_games(&text)
        .anyhow()
        .context("demo game")?;
    let game = games.first().context("demo game: no game in the file")?;
    // The hands move pieces on a virtual board; its Hall sensors are read by
    // the real drivers over a simulated bus, calibrated, scanned at 100 Hz
    // and debounced into the records the controller gets from a real board.
    let design = if args.direct {
        None
    } else {
        Some(match &args.hw {
            Some(p) => HwDesign::load(p).anyhow()?,
            None => HwDesign::parse(DEMO_HW, "hw/hc165-chain.toml").anyhow()?,
        })
    };
    let sensing = design
        .as_ref()
        .map_or(Sensing::from(args.sensing), |d| d.sensing);
    let trace = crate::sim::simulate(
        game,
        &crate::sim::SimOptions {
            seed: args.seed,
            sensing,
            frames: false,
        },
    )
    .anyhow()
    .context("demo game")?;
    Ok(match &design {
        None => (trace, "simulated records".to_owned()),
        Some(design) => {
            let opts = virtual_hw::VirtualOptions {
                seed: args.seed,
                ..Default::default()
            };
            let records = virtual_hw::virtual_records(&trace, design, &opts)
                .anyhow()
                .with_context(|| design.name.clone())?;
            (
                Trace {
                    header: trace.header.clone(),
                    records,
                },
                format!("{} drivers on a virtual bus", design.name),
            )
        }
    })
}
