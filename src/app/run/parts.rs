//! What `run` puts together: the journal, the reporter, the player's device, the router, the hardware.

use crate::app::daemon::{Daemon, EventObserver, RecordSource};
use crate::app::Anyhow;
use crate::config::Config;
use crate::console::board::ArbiterAccess;
use crate::console::command_ids::CommandIds;
use crate::console::kept::{ConsoleFiles, Damage};
use crate::server::AppState;
use crate::trace::{Event, EventKind};
use anyhow::{anyhow, bail, Context};
use std::path::{Path, PathBuf};

/// The journal of a journal directory, the finished game rotated away
/// first ([`crate::journal::rotate`]); except, on a board whose results an
/// arbiter confirms (`confirms`, [`results_confirmed_here`]), a finished
/// game: it is resumed, so that a restart within the round (a power cut,
/// the watchdog) keeps the provisional result for the arbiter to confirm
/// (DSU regulations 004 §15), and a confirmed (or corrected) one in the
/// feeds, the console's results and with its rulings, which stay undoable
/// (ia16: a restart after the confirmation began a new game of the same
/// pairing, the board's and the relay's PGN said `*`, the results TRF left
/// the game blank and the correction could no longer be undone, "there is
/// no ruling #2"). It is archived when this start is another game
/// ([`rotate_other_game`], the next pairing: [`super::pairing::Taken`]).
pub(super) fn journal_in(dir: &Path, keep: usize, confirms: bool) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("--journal-dir {}", dir.display()))?;
    let current = dir.join(crate::journal::CURRENT);
    if confirms {
        let s = crate::journal::standing(&current);
        match s.result {
            Some(result) if s.confirmed => {
                tracing::info!(
                    "the last game ended {result}, its result confirmed: resumed while this start is the same game (a restart within the round keeps its result and its rulings); it is archived to {} at the first start of another game (the next pairing or [game])",
                    dir.join(crate::journal::ARCHIVE).display()
                );
                return Ok(current);
            }
            Some(result) => {
                tracing::info!(
                    "the last game ended {result} and its result is not confirmed: resumed so the arbiter can confirm it (DSU 004 §15); it is archived to {} at the first start of another game after the confirmation",
                    dir.join(crate::journal::ARCHIVE).display()
                );
                return Ok(current);
            }
            None => {}
        }
    }
    if let Some(to) = crate::journal::rotate(dir, keep).anyhow()? {
        tracing::info!(
            "the last game has ended: its journal moved to {}",
            to.display()
        );
    }
    Ok(current)
}

/// Whether results on this board are confirmed by an arbiter: it has a
/// console account or token (`[arbiter] token`, `EBOARD_ARBITER_TOKEN`,
/// `[[arbiter.accounts]]`), the relay's account (`[arbiter] relay_token`,
/// `EBOARD_RELAY_TOKEN`) or takes signed rulings (`[mqtt] command_keys`).
/// A board with none of them (a club board) has no one to confirm a result:
/// its finished game is archived at the next start (so is a trial game,
/// `[board] source = "trial"`, whatever the config).
pub(crate) fn results_confirmed_here(cfg: &Config) -> bool {
    crate::console::board::arbiter_token(cfg.arbiter.token.as_deref()).is_some()
        || !cfg.arbiter.accounts.is_empty()
        || crate::app::settings::relay_token(Some(cfg)).is_ok_and(|t| t.is_some())
        || cfg
            .mqtt
            .as_ref()
            .is_some_and(|m| m.command_keys.as_ref().is_some_and(|k| !k.is_empty()))
}

/// A finished game resumed ([`journal_in`]) when this start is another
/// game (the config's `[game]` was changed to the next round): it is
/// archived, so that the new game starts. A result never confirmed is said
/// to the log at warn and to the arbiter (`notices`: game, error, action),
/// its journal kept in the archive; a confirmed one at info. Returns
/// whether it was archived.
pub(super) fn rotate_other_game(
    journal: &Path,
    game: &crate::trace::Header,
    keep: usize,
    notices: &mut Vec<(String, String, String)>,
) -> anyhow::Result<bool> {
    let standing = crate::journal::standing(journal);
    let Some(result) = standing.result else {
        return Ok(false);
    };
    if crate::journal::check_identity(journal, game).is_ok() {
        return Ok(false);
    }
    let Some(dir) = journal.parent() else {
        return Ok(false);
    };
    let old = super::pairing::journaled_game(journal)
        .and_then(|(h, _)| h.round)
        .unwrap_or_else(|| "?".into());
    let Some(to) = crate::journal::rotate(dir, keep).anyhow()? else {
        return Ok(false);
    };
    let this = game.round.as_deref().unwrap_or("?");
    if standing.confirmed {
        tracing::info!(
            "the last game has ended ({old}, {result}, confirmed): its journal moved to {}; this start is game {this}",
            to.display()
        );
        return Ok(true);
    }
    let error = format!("game {old} ended {result} and its result was never confirmed");
    let action = format!(
        "archived to {}: this start is game {this} (the config's [game]); the unconfirmed result is in that journal",
        to.display(),
    );
    tracing::warn!("{error}; {action}");
    notices.push((old, error, action));
    Ok(true)
}

/// The daemon's own report of its decisions in the log (one line per move
/// and per game end, as they are journaled), then `then` (the speaker).
pub(super) fn reporter(mut then: Option<EventObserver>) -> EventObserver {
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
pub(super) fn player_device(
    cfg: &Config,
) -> anyhow::Result<Option<crate::console::board::PlayerDevice>> {
    let Some(token) = crate::console::board::player_token(cfg.player.token.as_deref()) else {
        return Ok(None);
    };
    crate::console::access::check_token(&token).map_err(|e| {
        let e = if std::env::var("EBOARD_PLAYER_TOKEN").is_ok_and(|t| !t.is_empty()) {
            format!("EBOARD_PLAYER_TOKEN: {e}")
        } else {
            e
        };
        anyhow::anyhow!("{}", cfg.error_at("player.token", e))
    })?;
    Ok(player_device_with(cfg, token))
}

pub(super) fn player_device_with(
    cfg: &Config,
    token: String,
) -> Option<crate::console::board::PlayerDevice> {
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
    Some(crate::console::board::PlayerDevice { token, name, side })
}

/// What a board keeps across a restart besides its journal: the ids of
/// the rulings taken ([`CommandIds`], `JOURNAL.rulings`) and its console's
/// acknowledgements and sessions (`JOURNAL.acks`, `JOURNAL.sessions`,
/// [`crate::console::kept`]); in memory without a journal.
pub(crate) struct Kept {
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
    pub(super) fn open(journal: Option<&Path>) -> anyhow::Result<(Kept, Option<Damage>)> {
        let Some(j) = journal else {
            return Ok((Kept::in_memory(), None));
        };
        let (ids, damage) =
            CommandIds::open(&crate::app::commands::rulings_path(j)).map_err(|e| anyhow!(e))?;
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
pub(crate) fn daemon_router(
    d: &Daemon,
    cfg: &Config,
    rt: &tokio::runtime::Handle,
) -> anyhow::Result<axum::Router> {
    daemon_router_kept(d, cfg, rt, &Kept::in_memory())
}

/// [`daemon_router`] with what the board keeps ([`Kept`]); damaged
/// console files are set aside and alerted on the arbiter's channel.
pub(super) fn daemon_router_kept(
    d: &Daemon,
    cfg: &Config,
    rt: &tokio::runtime::Handle,
    kept: &Kept,
) -> anyhow::Result<axum::Router> {
    let accounts = crate::app::settings::console_accounts(cfg).anyhow()?;
    for w in crate::app::settings::console_secrets_on_board(cfg) {
        tracing::warn!("{w}");
    }
    let console = std::sync::Arc::new(
        crate::console::state::Console::new(accounts, d.feed.arbiter.clone(), None)
            .with_command_ids(kept.ids.clone())
            .with_pairings(cfg.arbiter.pairings.as_ref().map(std::path::PathBuf::from)),
    );
    console.spawn_feed(rt);
    if let Some(files) = &kept.console {
        let damage = console
            .keep(files, crate::app::daemon::unix_now_ms())
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
            token: crate::console::board::arbiter_token(cfg.arbiter.token.as_deref()),
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
pub(super) fn hw_source(cfg: &Config, shown: &str) -> anyhow::Result<Box<dyn RecordSource>> {
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
    Ok(Box::new(crate::app::daemon::merge_sources(vec![
        main, second,
    ])))
}

/// How long start-up waits for the sensor bus to open.
#[cfg(feature = "rpi")]
pub(super) const SENSORS_ANSWER: std::time::Duration = std::time::Duration::from_secs(10);

#[cfg(feature = "rpi")]
pub(super) fn open_hw(
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
pub(super) fn open_hw(
    design: crate::sensors::HwDesign,
    _calibration: Option<crate::sensors::Calibration>,
    shown: &str,
) -> anyhow::Result<Box<dyn RecordSource>> {
    bail!(
        "{shown}: key 'board.source': \"hw\" reads {} on the Raspberry Pi: build with --features rpi (see docs/hardware.md)",
        design.name
    )
}
