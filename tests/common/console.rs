//! The arbiter's console in the tests: the accounts' secrets, a pass
//! phrase's hash as `eboard token --hash` makes it, a login, and a
//! journal's records (docs/console.md).

use super::{eboard_with_input, http};
use serde_json::Value;
use std::path::Path;

/// The pass phrase of the tests' arbiter, IA Hansen.
pub const SECRET: &str = "correct horse battery staple";
/// The relay's token on the boards (an account of role `relay`).
pub const RELAY_TOKEN: &str = "c157a79031e1c40f85931829bc5fc552";

/// The argon2id hash of `secret`, as `eboard token --hash` prints it.
pub fn secret_hash(secret: &str) -> String {
    let out = eboard_with_input(&["token", "--hash"], &format!("{secret}\n"));
    assert!(out.status.success(), "{out:?}");
    let h = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert!(h.starts_with("$argon2id$"), "{h}");
    h
}

/// Logs `name` in with `secret` at `addr` (`POST /console/login`, 200
/// expected); the whole `Set-Cookie` value.
pub fn login_set_cookie(addr: &str, name: &str, secret: &str) -> String {
    let body = serde_json::json!({"name": name, "secret": secret}).to_string();
    let (status, head, b) = http(addr, "POST", "/console/login", &[], &body);
    assert_eq!(status, 200, "{b}");
    head.lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .expect("a session cookie")
        .to_owned()
}

/// [`login_set_cookie`]'s `name=value`, for a `Cookie` header.
pub fn login(addr: &str, name: &str, secret: &str) -> String {
    login_set_cookie(addr, name, secret)
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

/// A journal's records (lines that are JSON), in order.
pub fn journal_records(journal: &Path) -> Vec<Value> {
    std::fs::read_to_string(journal)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// `DIR/relay.toml` for `eboard relay --config`: the relay's token on the
/// boards ([`RELAY_TOKEN`]) and `accounts` (its console's
/// `[[arbiter.accounts]]`, or more `[arbiter]` keys first).
pub fn relay_config(dir: &Path, accounts: &str) -> std::path::PathBuf {
    let p = dir.join("relay.toml");
    std::fs::write(
        &p,
        format!("[arbiter]\nrelay_token = \"{RELAY_TOKEN}\"\n{accounts}"),
    )
    .unwrap();
    p
}

/// A console's Ed25519 signing key made by `eboard rule --keygen` at
/// `DIR/NAME`: (its file, its public key in hex for `[mqtt] command_keys`).
pub fn console_key(dir: &Path, name: &str) -> (std::path::PathBuf, String) {
    let key = dir.join(name);
    let pk = super::eboard_ok(&["rule", "--keygen", key.to_str().unwrap()]);
    let pk = pk.trim().to_owned();
    assert_eq!(pk.len(), 64, "{pk}");
    (key, pk)
}

/// A board's config (round 1, `board`) following the broker at `url` and
/// taking rulings signed by public key `pk` (`[mqtt] command_keys`), with
/// `extra` keys of `[mqtt]` after.
pub fn signed_board_config(
    dir: &Path,
    url: &str,
    board: u32,
    pk: &str,
    extra: &str,
) -> std::path::PathBuf {
    super::config(
        dir,
        1,
        board,
        &format!("[mqtt]\nurl = \"{url}\"\ncommand_keys = [\"{pk}\"]\n{extra}"),
    )
}

/// A trace (`DIR/illegal.jsonl`, time control 5400+30) in which White
/// plays e2-e5, an illegal move, at `at_ms` of round time (lifted, placed
/// 200 ms later, the clock pressed 200 ms after that) and leaves it on the
/// board: the arbiter must restore.
pub fn illegal_trace(dir: &Path, at_ms: u64) -> std::path::PathBuf {
    let t = dir.join("illegal.jsonl");
    let text = super::TraceBuilder::new()
        .header("time_control", "5400+30")
        .lift(at_ms, "e2")
        .place(at_ms + 200, "e5")
        .press(at_ms + 400, "w")
        .text();
    std::fs::write(&t, text).unwrap();
    t
}

/// The arguments of `eboard rule`: a ruling `action` on board `board` of
/// the event "DM 2026" by `arbiter`, id `id`, signed with the key file
/// `key`, sent over the broker at `url`.
pub fn rule_args(
    key: &Path,
    url: &str,
    board: u32,
    action: &str,
    arbiter: &str,
    id: &str,
) -> Vec<String> {
    [
        "rule",
        "--key",
        key.to_str().unwrap(),
        "--mqtt",
        url,
        "--event",
        "DM 2026",
        "--board",
        &board.to_string(),
        "--action",
        action,
        "--arbiter",
        arbiter,
        "--id",
        id,
        // Pause and resume do not depend on the position: ply 0 holds.
        "--expect",
        "{\"ply\": 0}",
    ]
    .map(str::to_owned)
    .to_vec()
}
