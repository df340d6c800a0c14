//! A relay's own checks (`eboard relay --config`): the console's accounts,
//! the key that signs the rulings it forwards over MQTT, and the round's
//! pairings file its "Results TRF-16" writes into. The broker, lichess,
//! the disk, the time and the certificate are checked as on a board
//! ([`super::links`], [`super::https`]); the board's own rows (sensors,
//! clock, audio, game, session, rules) are not shown for a relay.

use super::super::settings;
use crate::config::Config;
use crate::service::checks::{Finding, Status};
use std::path::Path;

/// Why `cfg` is a relay's config (a key only `eboard relay` reads), or
/// `None` for a board's.
pub(super) fn relay_key(cfg: &Config) -> Option<&'static str> {
    let a = &cfg.arbiter;
    if a.ruling_key.is_some() {
        Some("[arbiter] ruling_key")
    } else if a.relay_token.is_some() {
        Some("[arbiter] relay_token")
    } else if a.state_dir.is_some() {
        Some("[arbiter] state_dir")
    } else {
        None
    }
}

/// The console's accounts load (hashes and tokens valid, as the relay
/// loads them: [`settings::console_accounts`]) and who can log in; `warn`
/// without any (the console refuses every login: a broadcast-only relay).
pub(super) fn accounts(cfg: &Config) -> Finding {
    const C: &str = "accounts";
    if let Err(e) = settings::console_accounts(cfg) {
        return Finding::new(C, Status::Fail, e.to_string());
    }
    let people: Vec<String> = cfg
        .arbiter
        .accounts
        .iter()
        .map(|a| format!("{} ({})", a.name, a.role.as_deref().unwrap_or("arbiter")))
        .chain(cfg.arbiter.token.as_ref().map(|_| {
            format!(
                "{} (arbiter, [arbiter] token)",
                cfg.arbiter.name.as_deref().unwrap_or("arbiter")
            )
        }))
        .collect();
    if people.is_empty() {
        return Finding::new(
            C,
            Status::Warn,
            "no [[arbiter.accounts]]: the console refuses every login (a broadcast-only relay); \
             for an arbiter, add an account with secret_hash = the output of \
             `echo 'pass phrase' | eboard token --hash`",
        );
    }
    Finding::new(
        C,
        Status::Ok,
        format!("{} can log in: {}", people.len(), people.join(", ")),
    )
}

/// `[arbiter] ruling_key`: the seed file reads as a signing key, readable
/// by its owner only; the public key each board's `[mqtt] command_keys`
/// must list is printed (`docs/mqtt.md`).
pub(super) fn ruling_key(cfg: &Config) -> Finding {
    const C: &str = "ruling_key";
    let Some(path) = cfg.arbiter.ruling_key.as_deref() else {
        return Finding::new(
            C,
            Status::Skip,
            "no [arbiter] ruling_key: rulings are not sent over MQTT (an HTTP relay forwards \
             them with relay_token)",
        );
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            return Finding::new(
                C,
                Status::Fail,
                format!("[arbiter] ruling_key {path}: {e} (make it with `eboard rule --keygen`)"),
            )
        }
    };
    let key = match crate::mqtt::command::SigningKey::from_seed_hex(&text) {
        Ok(k) => k,
        Err(e) => {
            return Finding::new(
                C,
                Status::Fail,
                format!("[arbiter] ruling_key {path}: {e} (make it with `eboard rule --keygen`)"),
            )
        }
    };
    let public = key.public_hex();
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path).map(|m| m.permissions().mode() & 0o077) {
        Ok(0) => Finding::new(
            C,
            Status::Ok,
            format!("{path}: public key {public} (each board's [mqtt] command_keys lists it)"),
        ),
        _ => Finding::new(
            C,
            Status::Warn,
            format!(
                "{path} can be read by others than its owner: `chmod 600 {path}`; public key {public}"
            ),
        ),
    }
}

/// `[arbiter] pairings`: the TRF-16 the console writes the round's
/// confirmed results into (`GET /console/results.trf`) reads, with its
/// players and the rounds it pairs; `warn` when it is not set (the
/// console's "Results TRF-16" answers 404 until it is).
pub(super) fn pairings(cfg: &Config) -> Finding {
    const C: &str = "pairings";
    let Some(path) = cfg.arbiter.pairings.as_deref() else {
        return Finding::new(
            C,
            Status::Warn,
            "no [arbiter] pairings: the console's \"Results TRF-16\" answers 404; set pairings = \
             the TRF-16 the pairing program wrote (the file `eboard event` read)",
        );
    };
    let bytes = match std::fs::read(Path::new(path)) {
        Ok(b) => b,
        Err(e) => return Finding::new(C, Status::Fail, format!("[arbiter] pairings {path}: {e}")),
    };
    let (text, latin1) = crate::event::results::decode_trf(bytes);
    if !crate::event::trf::looks_like_trf(&text) {
        return Finding::new(
            C,
            Status::Fail,
            format!("[arbiter] pairings {path}: not a TRF-16 file (no line starts with a record code such as `001 `)"),
        );
    }
    let players = text.lines().filter(|l| l.starts_with("001 ")).count();
    let mut rounds = Vec::new();
    for round in 1..=99 {
        match crate::event::read_round(&text, path, round) {
            Ok(r) if !r.pairings.is_empty() => rounds.push(round),
            Ok(_) => break,
            Err(e) if round == 1 => return Finding::new(C, Status::Fail, e.to_string()),
            Err(_) => break,
        }
    }
    Finding::new(
        C,
        Status::Ok,
        format!(
            "{path}: TRF-16{}, {players} players, rounds {} paired",
            if latin1 { " (Latin-1)" } else { "" },
            match (rounds.first(), rounds.last()) {
                (Some(a), Some(b)) if a != b => format!("{a}–{b}"),
                (Some(a), _) => a.to_string(),
                _ => "none".to_owned(),
            }
        ),
    )
}
