//! The board's own checks: its sensors against their calibration, the
//! clock device, the audio for a visually impaired player, the journaled
//! game, who decides (the rules), from when the default time counts, and
//! the secrets a board should not hold. A relay has none of these
//! ([`super::relay`]).

use super::super::settings;
use crate::config::{Config, SourceKind};
use crate::service::checks::{self, Finding, Status};
use std::path::Path;

/// The board design and its calibration: the design file loads, the
/// calibration is for it, and the calibration's health report has no
/// stuck, weak, noisy or reversed sensor; on the Pi build the bus is
/// opened and read once. `warn` when squares were never tested with a
/// piece (named) or when the bus was not read (a build without the Pi
/// backend): `ok` only for what was checked.
pub(super) fn sensors(cfg: &Config, shown: &str) -> Finding {
    use crate::sensors::{Calibration, HwDesign};
    const C: &str = "sensors";
    if cfg.board.source != SourceKind::Hw {
        return Finding::new(C, Status::Skip, "board.source is not \"hw\" (no sensors)");
    }
    let Some(hw) = cfg.board.hw.as_deref() else {
        return Finding::new(C, Status::Fail, format!("{shown}: key 'board.hw' missing"));
    };
    let design = match HwDesign::load(Path::new(hw)) {
        Ok(d) => d,
        Err(e) => return Finding::new(C, Status::Fail, format!("{shown}: board.hw: {e}")),
    };
    let Some(cal_path) = cfg.board.calibration.as_deref() else {
        return Finding::new(
            C,
            Status::Fail,
            format!("{shown}: key 'board.calibration' missing: run eboard calibrate --hw {hw}"),
        );
    };
    let cal = match Calibration::load(Path::new(cal_path)) {
        Ok(c) => c,
        Err(e) => return Finding::new(C, Status::Fail, format!("board.calibration: {e}")),
    };
    if cal.design != design.name {
        return Finding::new(
            C,
            Status::Fail,
            format!(
                "{cal_path}: calibrated for design \"{}\", board.hw is \"{}\": recalibrate",
                cal.design, design.name
            ),
        );
    }
    if !cal.health.is_healthy() {
        return Finding::new(
            C,
            Status::Fail,
            format!(
                "{cal_path}: {} sensor issue(s): {}",
                cal.health.issues.len(),
                cal.health.describe().replace('\n', "; ")
            ),
        );
    }
    let untested = &cal.health.untested;
    let healthy = if untested.is_empty() {
        "calibration healthy on all 64 squares".to_owned()
    } else {
        format!(
            "calibration healthy on {} squares; {} never tested with a piece ({}): this calibration \
             was made before the middle-ranks step; run `eboard calibrate` again (it tests all 64), \
             or put a piece on each of these before the round and see the board's state (/state) \
             show it",
            64 - untested.len(),
            untested.len(),
            untested.join(" ")
        )
    };
    match bus(&design) {
        Ok(Some(how)) if untested.is_empty() => {
            Finding::new(C, Status::Ok, format!("{}: {healthy}; {how}", design.name))
        }
        Ok(Some(how)) => Finding::new(
            C,
            Status::Warn,
            format!("{}: {healthy}; {how}", design.name),
        ),
        Ok(None) => Finding::new(
            C,
            Status::Warn,
            format!(
                "{}: {healthy}; the bus was NOT read: this build has no Raspberry Pi backend (run \
                 the doctor of the Pi's package, built with --features rpi, on the board)",
                design.name
            ),
        ),
        Err(e) => Finding::new(C, Status::Fail, format!("{}: {e}", design.name)),
    }
}

/// Opens the design's bus and reads every sensor once: what it did, or
/// `None` when this build cannot open a bus.
#[cfg(feature = "rpi")]
fn bus(design: &crate::sensors::HwDesign) -> Result<Option<String>, String> {
    use crate::sensors::{RawScan, SensorArray};
    let mut a = crate::sensors::rpi::open(design).map_err(|e| e.to_string())?;
    a.init().map_err(|e| format!("bus init: {e:?}"))?;
    let mut raw = RawScan::default();
    a.read(&mut raw).map_err(|e| format!("bus read: {e:?}"))?;
    Ok(Some("the bus answers: every sensor read once".to_owned()))
}

/// Without the Pi backend the bus cannot be opened.
#[cfg(not(feature = "rpi"))]
fn bus(_design: &crate::sensors::HwDesign) -> Result<Option<String>, String> {
    Ok(None)
}

/// The clock device opens and answers a poll.
pub(super) fn clock(spec: &crate::clock::open::DeviceSpec) -> Finding {
    use crate::clock::open::DeviceSpec;
    const C: &str = "clock";
    if *spec == DeviceSpec::Simulated {
        return Finding::new(C, Status::Skip, "simulated clock (no device)");
    }
    match crate::clock::open::open(spec) {
        Ok(mut d) => match d.poll(0) {
            Ok(_) => Finding::new(C, Status::Ok, format!("{} opened", d.name())),
            Err(e) => Finding::new(C, Status::Fail, format!("{}: {e}", d.name())),
        },
        Err(e) => Finding::new(C, Status::Fail, e.to_string()),
    }
}

/// Speech is needed when a visually impaired player plays or the config
/// speaks. The programs are checked (espeak-ng, aplay: the package to
/// install named), then a short test ("Test, white") is played on each
/// configured output (`[voice.white]`, `[voice.black]`, `[voice.arbiter]`;
/// unset: the default device) at once, as the announcements are: every
/// output that cannot play is named with the player program's message.
pub(super) fn audio(cfg: &Config) -> Finding {
    if cfg.game.vi_player.is_none() && cfg.event.speak != Some(true) {
        return Finding::new(
            "audio",
            Status::Skip,
            "no visually impaired player, no speech",
        );
    }
    let (espeak, aplay) = (checks::on_path("espeak-ng"), checks::on_path("aplay"));
    let pcm = std::fs::read_to_string("/proc/asound/pcm").ok();
    let programs = checks::audio(espeak, aplay, pcm.as_deref());
    if !(espeak && aplay) {
        return programs;
    }
    let routing = settings::voice_routing(cfg);
    let tts = crate::voice::tts::Espeak::new();
    let u = crate::voice::output::Utterance {
        text: "Test",
        ssml: None,
        lang: crate::voice::Lang::En,
        to: None,
    };
    let audio = match routing.render(&tts, &u) {
        Ok(a) => a,
        Err(e) => return Finding::new("audio", Status::Fail, format!("espeak-ng: {e}")),
    };
    let mut played = Vec::new();
    let mut failed = Vec::new();
    let _ = crate::voice::output::play_rendered(&audio, |p| {
        let who: Vec<&str> = p
            .audio
            .ears
            .iter()
            .map(|(e, _)| match e {
                crate::voice::output::Ear::Player(shakmaty::Color::White) => "white",
                crate::voice::output::Ear::Player(shakmaty::Color::Black) => "black",
                crate::voice::output::Ear::Arbiter => "arbiter",
            })
            .collect();
        let device = p.audio.device.as_deref().unwrap_or("default");
        match &p.result {
            Ok(()) => played.push(format!("{} on {device}", who.join("+"))),
            Err(e) => failed.push(format!("{} on {device}: {e}", who.join("+"))),
        }
    });
    if failed.is_empty() {
        Finding::new(
            "audio",
            Status::Ok,
            format!("espeak-ng, aplay; a test played: {}", played.join(", ")),
        )
    } else {
        Finding::new(
            "audio",
            Status::Fail,
            format!("cannot play: {}", failed.join("; ")),
        )
    }
}

/// The game journaled in the journal directory and what the next start
/// does with it (`journal::standing`, the arbiter's undos counted): none
/// or one in progress (resumed), one ended and confirmed (resumed while
/// the next start is the same game, archived when it is another), one ended whose result the arbiter has not confirmed
/// (DSU regulations 004 §15): on a board whose results an arbiter confirms
/// it is resumed and the board takes no other pairing until it is
/// confirmed — `warn`, so that an organiser setting up the next round sees
/// which result waits at the console. Never fails.
pub(super) fn game(cfg: &Config, journal_dir: &Path) -> Finding {
    const C: &str = "game";
    let current = journal_dir.join(crate::journal::CURRENT);
    let Some((header, records)) = super::super::pairing::journaled_game(&current) else {
        return Finding::new(
            C,
            Status::Ok,
            format!(
                "no game journaled in {}: the next start begins one",
                journal_dir.display()
            ),
        );
    };
    let round = header.round.as_deref().unwrap_or("?");
    let s = crate::journal::standing(&current);
    let archive = journal_dir.join(crate::journal::ARCHIVE);
    match s.result {
        None => Finding::new(
            C,
            Status::Ok,
            format!("game {round} in progress ({records} records): resumed at the next start"),
        ),
        Some(r) if s.confirmed => Finding::new(
            C,
            Status::Ok,
            format!(
                "game {round} ended {r}, confirmed: resumed at the next start while it is the same game (a restart within the round keeps its result); archived to {} at the first start of another game (the next pairing or [game])",
                archive.display()
            ),
        ),
        Some(r) if super::super::run::results_confirmed_here(cfg) => Finding::new(
            C,
            Status::Warn,
            format!(
                "game {round} ended {r} and the arbiter has not confirmed its result (DSU 004 §15): the next start resumes it for the console, and the board takes no other pairing until it is confirmed"
            ),
        ),
        Some(r) => Finding::new(
            C,
            Status::Ok,
            format!(
                "game {round} ended {r}: archived to {} at the next start (no arbiter confirms results on this board)",
                archive.display()
            ),
        ),
    }
}

/// Who decides, per article (issue 40 point 1): the game's profile's
/// table ([`crate::rules::Profile::decisions`]), with the event settings
/// that choose and the Laws' own default. `warn` under DSU's regulations
/// (`[event] regulations = "dsu-004"`) on a board no arbiter can reach:
/// §15 has results reported to the arbiter, so they stay provisional
/// until he confirms them, and nobody could (issue 43 §4). Never fails.
pub(super) fn rules(cfg: &Config) -> Finding {
    let trial = cfg.board.source == crate::config::SourceKind::Trial;
    let dsu = cfg.event.regulations == Some(crate::model::Regulations::Dsu004);
    match settings::game_config(cfg, None) {
        Ok(g) if dsu && !trial && !super::super::run::results_confirmed_here(cfg) => Finding::new(
            "rules",
            Status::Warn,
            format!(
                "{}; DSU 004 §15: results are reported to the arbiter and stay provisional until \
                 he confirms them, but no arbiter can reach this board (no [arbiter] token or \
                 accounts, no relay_token, no [mqtt] command_keys): give it the relay's account \
                 ([arbiter] relay_token) or the console's key ([mqtt] command_keys)",
                g.profile.decisions_words()
            ),
        ),
        Ok(g) => Finding::new("rules", Status::Ok, g.profile.decisions_words()),
        Err(e) => Finding::new("rules", Status::Warn, e.to_string()),
    }
}

/// From when the default time counts (2023 6.7.1, DSU 004 §11): `[event]
/// session_start` (the round's scheduled start), or when White's clock
/// first runs on the board. Never fails (the config check refused a bad
/// time); `warn` when the default time is above zero and counts from a
/// start the board's sensors wait for (`clock.start_at =
/// "arbiter_or_press"`): a late start makes the board wait longer.
pub(super) fn session(cfg: &Config) -> Finding {
    const C: &str = "session";
    let edition = cfg.event.rules.unwrap_or_default();
    let d = match (cfg.event.default_time_min, cfg.event.regulations) {
        (Some(min), _) => crate::rules::DefaultTime::of_event(min.saturating_mul(60_000)),
        (None, Some(r)) => {
            let (ms, source) = r.default_time();
            crate::rules::DefaultTime { ms, source }
        }
        (None, None) => crate::rules::DefaultTime::of(edition),
    };
    let what = format!("the default time of {} ({})", d.words(), d.source);
    if let Some(s) = &cfg.event.session_start {
        return Finding::new(
            C,
            Status::Ok,
            format!("{what} counts from the round's scheduled start {s} ([event] session_start)"),
        );
    }
    let live = cfg.board.source == SourceKind::Hw;
    let start_at = settings::clock_start_at(cfg, live);
    let from = match start_at {
        crate::model::ClockStartAt::RoundStart => "the board's start (clock.start_at = \"round_start\")",
        crate::model::ClockStartAt::ArbiterOrPress => {
            "when White's clock first runs (the arbiter's start or the first press: clock.start_at = \"arbiter_or_press\")"
        }
    };
    let words = format!("{what} counts from {from}: no [event] session_start");
    if d.ms > 0 && start_at == crate::model::ClockStartAt::ArbiterOrPress {
        Finding::new(
            C,
            Status::Warn,
            format!("{words}; a late start makes the board wait longer than the regulations say: set the round's scheduled start"),
        )
    } else {
        Finding::new(C, Status::Ok, words)
    }
}

/// Secrets a board should not hold ([`settings::console_secrets_on_board`]).
pub(super) fn secrets(cfg: &Config) -> Finding {
    const C: &str = "secrets";
    let found = settings::console_secrets_on_board(cfg);
    if found.is_empty() {
        Finding::new(C, Status::Ok, "no console account's secret on this board")
    } else {
        Finding::new(C, Status::Warn, found.join("; "))
    }
}
