//! `eboard doctor`: what an operator would otherwise find out during round
//! 1, checked before it — the config, the board's sensors against their
//! calibration, the clock device, the broker and lichess with the
//! configured credentials (TLS included), the journal's disk, the system
//! time's synchronisation, the audio for a visually impaired player.
//!
//! One row a check (`ok`, `warn`, `FAIL`, `skip`) as a table, or as JSON
//! with `--json`; the exit status is 1 when any check failed (2 when the
//! doctor itself cannot run, as every command). The system checks are in
//! [`crate::service::checks`]; this module adds those that need the
//! config. See `docs/service.md`.

use super::settings::Startup;
use crate::config::{Config, SourceKind};
use crate::service::checks::{self, Finding, Status};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The arguments of `eboard doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// The configuration file (TOML), as `eboard run` is given it.
    #[arg(long, value_name = "FILE", default_value = "/etc/eboard/eboard.toml")]
    pub config: PathBuf,
    /// The directory of the journal and the MQTT queue (`eboard run
    /// --journal-dir`).
    #[arg(long, value_name = "DIR", default_value = "/var/lib/eboard")]
    pub journal_dir: PathBuf,
    /// The least free space for the journal, MB (a game writes well under
    /// 1 MB; `docs/service.md`).
    #[arg(long, value_name = "MB", default_value_t = 100)]
    pub min_free_mb: u64,
    /// How long each network check may take, seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 5)]
    pub timeout: u64,
    /// Leave out a check (config, sensors, clock, mqtt, lichess, disk, time,
    /// audio, https, secrets, session, game); may be repeated.
    #[arg(long, value_name = "CHECK")]
    pub skip: Vec<String>,
    /// One JSON object on standard output (`{"ok": bool, "checks": […]}`).
    #[arg(long)]
    pub json: bool,
}

/// The checks' names, in the table's order.
pub const CHECKS: [&str; 13] = [
    "config", "sensors", "clock", "mqtt", "lichess", "disk", "time", "audio", "https", "secrets",
    "session", "game", "rules",
];

/// `eboard doctor`: prints the table (or JSON); `Ok(false)` when a check
/// failed.
pub fn doctor(args: DoctorArgs) -> anyhow::Result<bool> {
    for s in &args.skip {
        if !CHECKS.contains(&s.as_str()) {
            anyhow::bail!("--skip {s}: not one of {}", CHECKS.join(", "));
        }
    }
    let findings = diagnose(&args);
    let ok = !findings.iter().any(|f| f.status == Status::Fail);
    if args.json {
        let v = serde_json::json!({ "ok": ok, "checks": findings });
        println!("{v}");
    } else {
        // A finding may quote a file's text: shown, never acted on by the
        // terminal (issue 41).
        print!(
            "{}",
            crate::model::text::escape_controls_but_newlines(&table(&findings))
        );
        println!(
            "{}",
            if ok {
                "eboard doctor: all checks passed"
            } else {
                "eboard doctor: FAILED"
            }
        );
    }
    Ok(ok)
}

/// The table: check, status, detail.
pub fn table(findings: &[Finding]) -> String {
    let w = findings.iter().map(|f| f.check.len()).max().unwrap_or(5);
    findings
        .iter()
        .map(|f| format!("{:<w$}  {:<4}  {}\n", f.check, f.status.as_str(), f.detail))
        .collect()
}

/// Every check of `args` in [`CHECKS`] order.
pub fn diagnose(args: &DoctorArgs) -> Vec<Finding> {
    let skipped = |c: &str| args.skip.iter().any(|s| s == c);
    let mut out = Vec::new();
    let shown = args.config.display().to_string();
    let loaded = Config::load(&args.config)
        .map_err(|e| e.to_string())
        .and_then(|cfg| {
            Startup::resolve(&cfg)
                .map(|s| (cfg, s))
                .map_err(|e| e.to_string())
        });
    let (cfg, startup) = match loaded {
        Ok(c) => {
            out.push(Finding::new(
                "config",
                Status::Ok,
                format!("{shown} is valid"),
            ));
            (Some(c.0), Some(c.1))
        }
        Err(e) => {
            out.push(Finding::new("config", Status::Fail, e));
            (None, None)
        }
    };
    let no_config = |c: &str| Finding::new(c, Status::Skip, "the config is not valid");
    let timeout = Duration::from_secs(args.timeout.max(1));
    for check in CHECKS.iter().skip(1) {
        let check = *check;
        if skipped(check) {
            out.push(Finding::new(check, Status::Skip, "--skip"));
            continue;
        }
        let f = match (check, &cfg, &startup) {
            ("disk", _, _) => checks::disk(&args.journal_dir, args.min_free_mb * 1_000_000),
            ("time", _, _) => checks::time(),
            (_, Some(cfg), Some(st)) => match check {
                "sensors" => sensors(cfg, &shown),
                "clock" => clock(&st.clock),
                "mqtt" => mqtt(st, timeout),
                "lichess" => lichess(st, timeout),
                "audio" => audio(cfg),
                "https" => https(cfg, &args.journal_dir),
                "secrets" => secrets(cfg),
                "session" => session(cfg),
                "game" => game(cfg, &args.journal_dir),
                "rules" => rules(cfg),
                _ => unreachable!("CHECKS"),
            },
            _ => no_config(check),
        };
        out.push(f);
    }
    out
}

/// The HTTPS certificate the console is served with and its SHA-256
/// fingerprint, the one the board prints at start (`docs/console.md`,
/// "Opening the console"): `[server] tls = "files"`'s, or the one made and
/// kept in the journal's directory (`eboard run --journal-dir`).
fn https(cfg: &Config, journal_dir: &Path) -> Finding {
    use crate::server::certificate::{from_files, CERT_FILE, KEY_FILE};
    const C: &str = "https";
    let sv = &cfg.server;
    let (cert, key) = match sv.tls.as_deref().unwrap_or("auto") {
        "off" => return Finding::new(
            C,
            Status::Warn,
            "[server] tls = \"off\": no HTTPS, the console answers on this host only (loopback)",
        ),
        "files" => match (&sv.tls_cert, &sv.tls_key) {
            (Some(c), Some(k)) => (PathBuf::from(c), PathBuf::from(k)),
            _ => {
                return Finding::new(
                    C,
                    Status::Fail,
                    "tls = \"files\" needs tls_cert and tls_key",
                )
            }
        },
        _ => (journal_dir.join(CERT_FILE), journal_dir.join(KEY_FILE)),
    };
    if !cert.exists() && sv.tls.as_deref() != Some("files") {
        return Finding::new(
            C,
            Status::Ok,
            format!(
                "no certificate yet: the board makes one at its first start in {} and prints its SHA-256 fingerprint (so does this check afterwards)",
                journal_dir.display()
            ),
        );
    }
    match from_files(&cert, &key) {
        Ok(tls) => Finding::new(
            C,
            Status::Ok,
            format!("{}: SHA-256 {}", cert.display(), tls.fingerprint),
        ),
        Err(e) => Finding::new(C, Status::Fail, e),
    }
}

/// Secrets a board should not hold ([`super::settings::console_secrets_on_board`]).
fn secrets(cfg: &Config) -> Finding {
    const C: &str = "secrets";
    let a = &cfg.arbiter;
    if a.relay_token.is_some() || a.ruling_key.is_some() || a.state_dir.is_some() {
        return Finding::new(
            C,
            Status::Ok,
            "a relay's config (relay_token, ruling_key or state_dir): the console's accounts belong here",
        );
    }
    let found = super::settings::console_secrets_on_board(cfg);
    if found.is_empty() {
        Finding::new(C, Status::Ok, "no console account's secret on this board")
    } else {
        Finding::new(C, Status::Warn, found.join("; "))
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
fn game(cfg: &Config, journal_dir: &Path) -> Finding {
    const C: &str = "game";
    let current = journal_dir.join(crate::journal::CURRENT);
    let Some((header, records)) = super::pairing::journaled_game(&current) else {
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
        Some(r) if super::run::results_confirmed_here(cfg) => Finding::new(
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
/// that choose and the Laws' own default. Never fails.
fn rules(cfg: &Config) -> Finding {
    match super::settings::game_config(cfg, None) {
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
fn session(cfg: &Config) -> Finding {
    const C: &str = "session";
    let edition = cfg.event.rules.unwrap_or_default();
    let d = match cfg.event.default_time_min {
        Some(min) => crate::rules::DefaultTime::of_event(min.saturating_mul(60_000)),
        None => crate::rules::DefaultTime::of(edition),
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
    let start_at = super::settings::clock_start_at(cfg, live);
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

/// The board design and its calibration: the design file loads, the
/// calibration is for it, and the calibration's health report has no
/// stuck, weak, noisy or reversed sensor; on the Pi build the bus is
/// opened and read once.
fn sensors(cfg: &Config, shown: &str) -> Finding {
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
    match bus(&design) {
        Ok(how) => Finding::new(
            C,
            Status::Ok,
            format!("{}: calibration healthy; {how}", design.name),
        ),
        Err(e) => Finding::new(C, Status::Fail, format!("{}: {e}", design.name)),
    }
}

/// Opens the design's bus and reads every sensor once.
#[cfg(feature = "rpi")]
fn bus(design: &crate::sensors::HwDesign) -> Result<String, String> {
    use crate::sensors::{RawScan, SensorArray};
    let mut a = crate::sensors::rpi::open(design).map_err(|e| e.to_string())?;
    a.init().map_err(|e| format!("bus init: {e:?}"))?;
    let mut raw = RawScan::default();
    a.read(&mut raw).map_err(|e| format!("bus read: {e:?}"))?;
    Ok("the bus answers".to_owned())
}

/// Without the Pi backend the bus cannot be opened.
#[cfg(not(feature = "rpi"))]
fn bus(_design: &crate::sensors::HwDesign) -> Result<String, String> {
    Ok("bus not opened (this build has no Raspberry Pi backend)".to_owned())
}

/// The clock device opens and answers a poll.
fn clock(spec: &crate::clock::open::DeviceSpec) -> Finding {
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

/// The broker accepts a connection with the configured login (TLS and
/// the extra CA included): a CONNACK within `timeout`.
fn mqtt(st: &Startup, timeout: Duration) -> Finding {
    const C: &str = "mqtt";
    let Some(up) = &st.mqtt else {
        return Finding::new(C, Status::Skip, "no [mqtt]");
    };
    let b = &up.broker;
    let where_ = format!(
        "{}://{}:{}",
        if b.tls { "mqtts" } else { "mqtt" },
        b.host,
        b.port
    );
    let opts = match b.options(format!("eboard-doctor-{}", std::process::id())) {
        Ok(o) => o,
        Err(e) => return Finding::new(C, Status::Fail, format!("{where_}: {e}")),
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Finding::new(C, Status::Fail, format!("runtime: {e}")),
    };
    let result = rt.block_on(async {
        let (client, mut ev) = rumqttc::AsyncClient::new(opts, 4);
        let r = tokio::time::timeout(timeout, async {
            loop {
                match ev.poll().await {
                    Ok(rumqttc::Event::Incoming(rumqttc::Packet::ConnAck(_))) => return Ok(()),
                    Ok(_) => {}
                    Err(e) => return Err(b.explain(&e)),
                }
            }
        })
        .await;
        let _ = client.try_disconnect();
        r
    });
    match result {
        Ok(Ok(())) => Finding::new(
            C,
            Status::Ok,
            format!(
                "{where_} accepted {}",
                b.login
                    .as_ref()
                    .map_or("an anonymous login".to_owned(), |l| format!(
                        "user \"{}\"",
                        l.username
                    ))
            ),
        ),
        Ok(Err(e)) => Finding::new(C, Status::Fail, format!("{where_}: {e}")),
        Err(_) => Finding::new(
            C,
            Status::Fail,
            format!("{where_}: no answer within {} s", timeout.as_secs()),
        ),
    }
}

/// lichess (or the configured `base_url`) answers `GET /api/account` with
/// the token: 200 is a token lichess accepts; TLS with the webpki roots and
/// `ca_file`.
fn lichess(st: &Startup, timeout: Duration) -> Finding {
    const C: &str = "lichess";
    let Some(t) = &st.lichess else {
        return Finding::new(C, Status::Skip, "no [lichess]");
    };
    let url = format!("{}/api/account", t.base_url);
    // The push's own client set-up (broadcast::lichess_push): the
    // built-in roots and the extra CA.
    let mut builder = reqwest::Client::builder()
        .timeout(timeout)
        .tls_built_in_root_certs(true);
    for der in &t.extra_roots {
        match reqwest::Certificate::from_der(der) {
            Ok(cert) => builder = builder.add_root_certificate(cert),
            Err(e) => return Finding::new(C, Status::Fail, format!("[lichess] ca_file: {e}")),
        }
    }
    let client = match builder.build() {
        Ok(c) => c,
        Err(e) => return Finding::new(C, Status::Fail, crate::tls::error_chain(&e)),
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Finding::new(C, Status::Fail, format!("runtime: {e}")),
    };
    let r = rt.block_on(client.get(&url).bearer_auth(&t.token).send());
    match r {
        Ok(resp) if resp.status().is_success() => {
            Finding::new(C, Status::Ok, format!("{url}: token accepted"))
        }
        Ok(resp) if resp.status().as_u16() == 401 => Finding::new(
            C,
            Status::Fail,
            format!(
                "{url}: 401, the token is refused (check [lichess] token or EBOARD_LICHESS_TOKEN)"
            ),
        ),
        Ok(resp) => Finding::new(C, Status::Fail, format!("{url}: HTTP {}", resp.status())),
        Err(e) => Finding::new(
            C,
            Status::Fail,
            format!("{url}: {}", crate::tls::error_chain(&e)),
        ),
    }
}

/// Speech is needed when a visually impaired player plays or the config
/// speaks. The programs are checked (espeak-ng, aplay: the package to
/// install named), then a short test ("Test, white") is played on each
/// configured output (`[voice.white]`, `[voice.black]`, `[voice.arbiter]`;
/// unset: the default device) at once, as the announcements are: every
/// output that cannot play is named with the player program's message.
fn audio(cfg: &Config) -> Finding {
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
    let routing = super::settings::voice_routing(cfg);
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
