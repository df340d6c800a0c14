//! The arbiter's console in the tests, a relay with accounts: the
//! accounts and their secrets ([`accounts`], [`token_account`]), a pass
//! phrase's hash as `eboard token --hash` makes it, a login; the HTTP
//! relay over running boards ([`relay_over`]) and the MQTT relay of an
//! event ([`MqttRelay`]); what its console says ([`console_alerts`],
//! [`console_states`]); a journal's records (docs/console.md).

use super::{eboard_with_input, http, poll, refs, spawn, Running};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The pass phrase of the tests' arbiter, IA Hansen.
pub const SECRET: &str = "correct horse battery staple";
/// The relay's token on the boards (an account of role `relay`).
pub const RELAY_TOKEN: &str = "c157a79031e1c40f85931829bc5fc552";
/// The pass phrase of the tests' deputy, Deputy Dam (role `deputy`).
pub const DEPUTY_SECRET: &str = "deputy sees everything";

/// IA Hansen's token (an account by token, no pass phrase) at the MQTT
/// relays' consoles ([`token_account`]).
pub const CONSOLE_TOKEN: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";

/// The `Authorization` header of [`CONSOLE_TOKEN`]: `Bearer …`.
pub fn console_bearer() -> String {
    format!("Bearer {CONSOLE_TOKEN}")
}

/// The `[[arbiter.accounts]]` of the console tests: IA Hansen (arbiter,
/// [`SECRET`]), Deputy Dam (deputy, [`DEPUTY_SECRET`]) when `deputy`, and
/// the hall's relay ([`RELAY_TOKEN`]). Each secret hashed as `eboard token
/// --hash` does.
pub fn accounts(deputy: bool) -> String {
    format!("{}{}", arbiter_accounts(deputy), relay_account())
}

/// [`accounts`] without the hall's relay: the arbiters' (a relay's own
/// console).
pub fn arbiter_accounts(deputy: bool) -> String {
    let mut a = named_account("IA Hansen", SECRET);
    a.push('\n');
    if deputy {
        a.push_str(&format!(
            "[[arbiter.accounts]]\nname = \"Deputy Dam\"\nrole = \"deputy\"\nsecret_hash = \"{}\"\n\n",
            secret_hash(DEPUTY_SECRET)
        ));
    }
    a
}

/// An arbiter's account `name` with the pass phrase `secret` (hashed).
pub fn named_account(name: &str, secret: &str) -> String {
    format!(
        "[[arbiter.accounts]]\nname = \"{name}\"\nsecret_hash = \"{}\"\n",
        secret_hash(secret)
    )
}

/// The hall relay's account on a board ([`RELAY_TOKEN`], role `relay`).
pub fn relay_account() -> String {
    format!(
        "[[arbiter.accounts]]\nname = \"Hall relay\"\nrole = \"relay\"\ntoken = \"{RELAY_TOKEN}\"\n"
    )
}

/// IA Hansen's account by [`CONSOLE_TOKEN`].
pub fn token_account() -> String {
    format!("[[arbiter.accounts]]\nname = \"IA Hansen\"\ntoken = \"{CONSOLE_TOKEN}\"\n")
}

/// `[arbiter] ruling_key`: the relay signs its rulings with the key file
/// `key` ([`console_key`]); `[[arbiter.accounts]]` may follow.
pub fn ruling_key(key: &Path) -> String {
    format!("[arbiter]\nruling_key = \"{}\"\n\n", key.display())
}

/// An HTTP relay (`eboard relay --config DIR/relay.toml` made by
/// [`relay_config`] with `accounts`) following `boards` by their
/// addresses, started in `dir`.
pub fn relay_over(dir: &Path, accounts: &str, boards: &[&Running]) -> Running {
    let cfg = relay_config(dir, accounts);
    let mut args = vec!["relay".to_owned(), "--config".to_owned(), path_str(&cfg)];
    args.extend(board_urls(boards));
    spawn(&refs(&args), &[], dir)
}

/// The boards' URLs (`http://ADDR`).
pub fn board_urls(boards: &[&Running]) -> Vec<String> {
    boards
        .iter()
        .map(|r| format!("http://{}", r.addr))
        .collect()
}

fn path_str(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

/// An HTTP relay that keeps its state (`eboard relay --config
/// DIR/relay.toml --state-dir DIR/relay-state URL…`, its config made by
/// [`relay_config`]), started and started again by the test.
pub struct HttpRelay {
    dir: PathBuf,
    pub args: Vec<String>,
}

impl HttpRelay {
    /// The relay in `dir` with `accounts`, following the boards at `urls`.
    pub fn new(dir: &Path, accounts: &str, urls: &[String]) -> HttpRelay {
        let cfg = relay_config(dir, accounts);
        let state = dir.join("relay-state");
        let mut args = ["relay", "--config", cfg.to_str().unwrap()]
            .map(str::to_owned)
            .to_vec();
        args.extend(["--state-dir".to_owned(), path_str(&state)]);
        args.extend(urls.iter().cloned());
        HttpRelay {
            dir: dir.to_owned(),
            args,
        }
    }

    /// Starts it on a port of its own (waits until it serves).
    pub fn start(&self) -> Running {
        spawn(&refs(&self.args), &[], &self.dir)
    }

    /// Starts it at `addr` (kept across its restarts) and waits until its
    /// console answers.
    pub fn start_at(&self, addr: &str) -> Running {
        let r = super::serving_at(&refs(&self.args), addr, &self.dir);
        poll(20, "the relay serving", || {
            (super::request(addr, "GET", "/console", &[], "").0 == 200).then_some(())
        });
        r
    }
}

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
    use super::round::{illegal_steps, steps_trace, TIME_CONTROL};
    steps_trace(
        dir,
        "illegal",
        TIME_CONTROL,
        &illegal_steps(at_ms, "e2", "e5"),
    )
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

/// An MQTT relay of the event "DM 2026" (`eboard relay --mqtt URL
/// --mqtt-username USER --event "DM 2026" --config DIR/relay.toml …`, the
/// password in `EBOARD_MQTT_PASSWORD`), in its own directory; started (and
/// started again) by [`MqttRelay::start`].
pub struct MqttRelay {
    pub dir: PathBuf,
    args: Vec<String>,
    password: String,
}

impl MqttRelay {
    /// The relay in `DIR/NAME` with `relay_toml` as its config, logged in
    /// to the broker at `url` as `user` (password `USER-pw`, as
    /// [`super::mosquitto::docs_broker`] makes them).
    pub fn new(dir: &Path, name: &str, url: &str, user: &str, relay_toml: &str) -> MqttRelay {
        let dir = dir.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = dir.join("relay.toml");
        std::fs::write(&cfg, relay_toml).unwrap();
        let args = [
            "relay",
            "--mqtt",
            url,
            "--mqtt-username",
            user,
            "--event",
            "DM 2026",
            "--config",
            cfg.to_str().unwrap(),
        ]
        .map(str::to_owned)
        .to_vec();
        MqttRelay {
            dir,
            args,
            password: format!("{user}-pw"),
        }
    }

    /// The relay keeping its state in `DIR/NAME/state` (`--state-dir`).
    pub fn with_state(mut self) -> MqttRelay {
        let state = self.dir.join("state");
        self.args
            .extend(["--state-dir".to_owned(), state.to_str().unwrap().to_owned()]);
        self
    }

    /// The relay with the arguments `more` too (`--round 1 --boards 2`).
    pub fn with_args(mut self, more: &[&str]) -> MqttRelay {
        self.args.extend(more.iter().map(|a| (*a).to_owned()));
        self
    }

    /// Starts the relay (waits until it serves).
    pub fn start(&self) -> Running {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        spawn(
            &args,
            &[("EBOARD_MQTT_PASSWORD", self.password.as_str())],
            &self.dir,
        )
    }
}

/// `GET path` at `addr` with the header `auth` (`Authorization` or
/// `Cookie`): (status, JSON body, `null` when not JSON).
pub fn get_json(addr: &str, path: &str, auth: (&str, &str)) -> (u16, Value) {
    let (s, _, b) = http(addr, "GET", path, &[auth], "");
    (s, serde_json::from_str(&b).unwrap_or(Value::Null))
}

/// The console's alerts at `addr` (asked with the header `auth`) of type
/// `kind` about `game` (any game when `None`), as listed (newest first).
pub fn console_alerts(
    addr: &str,
    auth: (&str, &str),
    kind: &str,
    game: Option<&str>,
) -> Vec<Value> {
    let (s, v) = get_json(addr, "/console/alerts", auth);
    assert_eq!(s, 200, "{v}");
    v.as_array()
        .unwrap()
        .iter()
        .filter(|a| a["type"] == kind && game.is_none_or(|g| a["game"] == g))
        .cloned()
        .collect()
}

/// The console's first alert of `kind` on `game` at `addr`, once it is
/// there (at most 60 s).
pub fn console_alert(addr: &str, auth: (&str, &str), kind: &str, game: &str) -> Value {
    poll(60, &format!("the {kind} alert of {game}"), || {
        let (s, v) = get_json(addr, "/console/alerts", auth);
        (s == 200).then_some(())?;
        v.as_array()?
            .iter()
            .find(|a| a["type"] == kind && a["game"] == game)
            .cloned()
    })
}

/// The games' undelayed states at the console at `addr` (`/arbiter/state`
/// with the header `auth`), when it answers 200.
pub fn console_states(addr: &str, auth: (&str, &str)) -> Option<Vec<Value>> {
    let (s, v) = get_json(addr, "/arbiter/state", auth);
    (s == 200).then_some(())?;
    Some(v.as_array()?.iter().map(|g| g["state"].clone()).collect())
}

/// Game `game`'s state at the console at `addr`, if it has one.
pub fn console_state(addr: &str, auth: (&str, &str), game: &str) -> Option<Value> {
    console_states(addr, auth)?
        .into_iter()
        .find(|st| st["game"] == game)
}

/// `ConsolePage::new(NAME, DEPUTY)`, or a return from the calling test
/// (skipped, [`ConsolePage::new`] said why).
#[macro_export]
macro_rules! console_page_or_skip {
    ($name:expr, $deputy:expr) => {
        match $crate::common::console::ConsolePage::new($name, $deputy) {
            Some(page) => page,
            None => return,
        }
    };
}

/// A console test in Chromium: the browser ([`super::chromium_and_python`]),
/// a temporary directory and the console tests' [`accounts`].
pub struct ConsolePage {
    pub chrome: PathBuf,
    pub dir: PathBuf,
    pub accounts: String,
}

impl ConsolePage {
    /// The test `name` (its directory), with Deputy Dam's account when
    /// `deputy`; `None` (skipped) without Chromium or python3.
    pub fn new(name: &str, deputy: bool) -> Option<ConsolePage> {
        let chrome = super::chromium_and_python()?;
        let dir = super::tempdir(name);
        Some(ConsolePage {
            chrome,
            dir,
            accounts: accounts(deputy),
        })
    }

    /// Runs the browser `steps` ([`super::run_steps`]) on the console of
    /// `server` (a relay or a board) with the arguments IA Hansen,
    /// [`SECRET`] and `more`; prints and returns what they saw.
    pub fn run(&self, server: &Running, steps: &str, more: &[&str]) -> Value {
        let url = format!("http://{}/console", server.addr);
        let mut args = vec!["IA Hansen", SECRET];
        args.extend_from_slice(more);
        let r = super::run_steps(&self.chrome, &url, &self.dir, steps, &args, &server.stderr);
        println!("{r:#}");
        r
    }
}

/// POSTs the ruling `cmd` to `/arbiter/command` at `addr` with the header
/// `auth`: (status, body).
pub fn console_command(addr: &str, auth: (&str, &str), cmd: &Value) -> (u16, String) {
    let (s, _, b) = http(addr, "POST", "/arbiter/command", &[auth], &cmd.to_string());
    (s, b)
}

/// Board 2 taking rulings signed by the console's key over a broker on
/// loopback ([`signed_board`]).
pub struct SignedBoard {
    pub broker: super::mosquitto::Broker,
    /// The broker's URL.
    pub url: String,
    /// The console's signing key file ([`console_key`]).
    pub key: PathBuf,
    /// Board 2's config ([`signed_board_config`]).
    pub cfg: PathBuf,
}

/// A broker (anonymous clients) in `dir`, the console's key
/// `DIR/console.key` and board 2's config taking rulings signed by it
/// (`extra` keys of `[mqtt]` after); `None` (skipped) without mosquitto.
pub fn signed_board(dir: &Path, extra: &str) -> Option<SignedBoard> {
    let broker = super::mosquitto::broker(dir)?;
    let url = broker.url();
    let (key, pk) = console_key(dir, "console.key");
    let cfg = signed_board_config(dir, &url, 2, &pk, extra);
    Some(SignedBoard {
        broker,
        url,
        key,
        cfg,
    })
}
