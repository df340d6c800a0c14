//! What `run` puts together: the journal, the reporter, the hardware. The
//! router and the player's device are `app/router.rs`, shared with the demo.

use crate::app::daemon::{EventObserver, RecordSource};
use crate::app::Anyhow;
use crate::config::Config;
use crate::trace::{Event, EventKind};
use anyhow::{bail, Context};
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
    // A rotation a kill cut short: its events file to its game first.
    crate::journal::recover_rotation(dir).anyhow()?;
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
