//! `eboard doctor`: what an operator would otherwise find out during round
//! 1, checked before it. On a board: the config, the board's sensors
//! against their calibration, the clock device, the broker and lichess
//! with the configured credentials (TLS included), the journal's disk, the
//! system time's synchronisation, the audio for a visually impaired
//! player, the certificate, the journaled game and the rules. On a relay
//! (`--relay`, or a config with a relay's keys): the config, the broker,
//! lichess, the state directory's disk and certificate, the console's
//! accounts, the ruling key and the pairings.
//!
//! One row a check (`ok`, `warn`, `FAIL`, `skip`) as a table, or as JSON
//! with `--json`; the exit status is 1 when any check failed (2 when the
//! doctor itself cannot run, as every command). `ok` says only what was
//! checked; each failure names its remedy. The system checks are in
//! [`crate::service::checks`]; the board's in [`board`], the uplinks' in
//! [`links`], the relay's in [`relay`]. See `docs/service.md`.
//!
//! Must not depend on: the server or the daemon's loop (the doctor runs
//! while the daemon is stopped, and reads what the daemon would read).

mod board;
mod links;
mod relay;

use super::settings::Startup;
use crate::config::Config;
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
    /// Check a relay's config (`eboard relay --config`): its accounts,
    /// ruling key and pairings instead of a board's sensors, clock and game.
    /// A config with `[arbiter]` ruling_key, relay_token or state_dir is
    /// taken as a relay's without it.
    #[arg(long)]
    pub relay: bool,
    /// The relay's state directory (`eboard relay --state-dir`; default the
    /// config's `[arbiter] state_dir`): its disk and certificate.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Leave out a check (config, sensors, clock, mqtt, lichess, disk, time,
    /// audio, https, secrets, session, game, rules, accounts, ruling_key,
    /// pairings); may be repeated.
    #[arg(long, value_name = "CHECK")]
    pub skip: Vec<String>,
    /// One JSON object on standard output (`{"ok": bool, "checks": […]}`).
    #[arg(long)]
    pub json: bool,
}

/// The checks' names: a board's in the table's order, then the relay's own.
pub const CHECKS: [&str; 16] = [
    "config",
    "sensors",
    "clock",
    "mqtt",
    "lichess",
    "disk",
    "time",
    "audio",
    "https",
    "secrets",
    "session",
    "game",
    "rules",
    "accounts",
    "ruling_key",
    "pairings",
];

/// A relay's checks, in the table's order.
const RELAY_CHECKS: [&str; 9] = [
    "config",
    "mqtt",
    "lichess",
    "disk",
    "time",
    "https",
    "accounts",
    "ruling_key",
    "pairings",
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
    let relay_key = cfg.as_ref().and_then(relay::relay_key);
    let is_relay = args.relay || relay_key.is_some();
    if let (Some(key), false, Some(first)) = (relay_key, args.relay, out.first_mut()) {
        first.detail = format!("{}; a relay's ({key}): the relay's checks", first.detail);
    }
    // The relay's state directory holds its certificate and kept state.
    let state_dir = args.state_dir.clone().or_else(|| {
        cfg.as_ref()
            .and_then(|c| c.arbiter.state_dir.as_ref().map(PathBuf::from))
    });
    let list: &[&str] = if is_relay {
        &RELAY_CHECKS
    } else {
        &CHECKS[..13]
    };
    for check in list.iter().skip(1) {
        let check = *check;
        if skipped(check) {
            out.push(Finding::new(check, Status::Skip, "--skip"));
            continue;
        }
        let f = match (check, &cfg, &startup) {
            ("disk", _, _) if is_relay => match &state_dir {
                Some(d) => checks::disk(d, args.min_free_mb * 1_000_000),
                None => Finding::new(
                    check,
                    Status::Skip,
                    "no state directory (--state-dir or [arbiter] state_dir): the relay keeps nothing on disk",
                ),
            },
            ("disk", _, _) => checks::disk(&args.journal_dir, args.min_free_mb * 1_000_000),
            ("time", _, _) => checks::time(),
            ("https", Some(cfg), Some(_)) if is_relay => match &state_dir {
                Some(d) => https(cfg, d),
                None => Finding::new(
                    check,
                    Status::Warn,
                    "no state directory (--state-dir or [arbiter] state_dir): a new certificate, \
                     with a new fingerprint to pin, at every start",
                ),
            },
            (_, Some(cfg), Some(st)) => match check {
                "sensors" => board::sensors(cfg, &shown),
                "clock" => board::clock(&st.clock),
                "mqtt" => links::mqtt(st, timeout),
                "lichess" => links::lichess(st, timeout),
                "audio" => board::audio(cfg),
                "https" => https(cfg, &args.journal_dir),
                "secrets" => board::secrets(cfg),
                "session" => board::session(cfg),
                "game" => board::game(cfg, &args.journal_dir),
                "rules" => board::rules(cfg),
                "accounts" => relay::accounts(cfg),
                "ruling_key" => relay::ruling_key(cfg),
                "pairings" => relay::pairings(cfg),
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
