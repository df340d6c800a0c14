//! Running under systemd (docs/service.md): the unit file passes
//! `systemd-analyze verify`, and the real `eboard run` speaks systemd's
//! notification protocol to a Unix datagram socket standing in for
//! systemd's `NOTIFY_SOCKET`: READY=1 once the journal is resumed and the
//! server listens, WATCHDOG=1 from the board loop every half of
//! `WATCHDOG_USEC`, nothing while the process is frozen, STOPPING=1 on
//! SIGTERM; a killed daemon started again is ready again with its game
//! resumed from the journal. The relay's unit (`eboard-relay.service`)
//! passes verify too, and its command line, run with the package's
//! `relay.toml` and a board's address as `EBOARD_RELAY_ARGS`, serves the
//! board and keeps its state in the state directory.

use crate::common;

use common::*;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const UNIT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/debian/eboard.service");
const RELAY_UNIT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/debian/eboard-relay.service");
const RELAY_TOML: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/pkg/relay.toml");

/// systemd-analyze verify on the unit with ExecStart pointing at the
/// binary under test (verify checks that the command exists); `--man=no`
/// (the man pages are checked in the package). Any message is a failure:
/// verify exits 0 on an unknown key and only says so.
fn verify(unit_text: &str, dir: &Path) -> (bool, String) {
    verify_as("eboard.service", unit_text, dir)
}

/// [`verify`] of a unit written as `name`.
fn verify_as(name: &str, unit_text: &str, dir: &Path) -> (bool, String) {
    let p = dir.join(name);
    std::fs::write(
        &p,
        unit_text.replace("/usr/bin/eboard", env!("CARGO_BIN_EXE_eboard")),
    )
    .unwrap();
    let out = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&p)
        .output()
        .expect("systemd-analyze");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success() && text.trim().is_empty(), text)
}

#[test]
fn the_unit_file_passes_systemd_analyze_verify() {
    if !systemd_analyze_or_skip() {
        return;
    }
    let dir = tempdir("unit");
    let text = std::fs::read_to_string(UNIT).unwrap();
    for key in [
        "Type=notify",
        "WatchdogSec=",
        "Restart=on-failure",
        "RestartPreventExitStatus=78",
        "ProtectSystem=strict",
        "ReadWritePaths=/var/lib/eboard",
        "NoNewPrivileges=yes",
        "DevicePolicy=closed",
    ] {
        assert!(text.lines().any(|l| l.starts_with(key)), "{UNIT}: no {key}");
    }
    let (ok, msg) = verify(&text, &dir);
    assert!(ok, "{UNIT}: systemd-analyze verify: {msg}");
    // The check can fail: a misspelt key is reported.
    let (ok, msg) = verify(&text.replace("WatchdogSec=", "WatchdogSecs="), &dir);
    assert!(!ok && msg.contains("WatchdogSecs"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn systemd_analyze_or_skip() -> bool {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        skip_or_fail_under_ci("systemd-analyze is not installed (package systemd)");
        return false;
    }
    true
}

#[test]
fn the_relay_unit_passes_verify_and_its_command_line_serves_a_board() {
    let text = std::fs::read_to_string(RELAY_UNIT).unwrap();
    for key in [
        "StateDirectory=eboard-relay",
        "ReadWritePaths=/var/lib/eboard-relay",
        "ProtectSystem=strict",
        "PrivateDevices=yes",
        "EnvironmentFile=-/etc/default/eboard-relay",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(key)),
            "{RELAY_UNIT}: no {key}"
        );
    }
    let dir = tempdir("relay-unit");
    if systemd_analyze_or_skip() {
        let (ok, msg) = verify_as("eboard-relay.service", &text, &dir);
        assert!(ok, "{RELAY_UNIT}: systemd-analyze verify: {msg}");
    }
    // The unit's command line as systemd runs it: the package's relay.toml,
    // the state directory, and the boards from EBOARD_RELAY_ARGS.
    let exec = text
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("ExecStart");
    let board = run_board(
        &dir,
        &config(&dir, 3, 7, ""),
        Some(&opera_trace(&dir, 2)),
        &[],
    );
    let state = dir.join("state");
    let words: Vec<String> = exec
        .split_whitespace()
        .skip(1)
        .map(|w| match w {
            "/etc/eboard/relay.toml" => RELAY_TOML.to_owned(),
            "/var/lib/eboard-relay" => state.to_str().unwrap().to_owned(),
            "$EBOARD_RELAY_ARGS" => format!("http://{}", board.addr),
            w => w.to_owned(),
        })
        .collect();
    let at = words
        .iter()
        .position(|w| w == "--listen")
        .expect("--listen");
    let mut args: Vec<&str> = words.iter().map(String::as_str).collect();
    args.drain(at..at + 2); // spawn listens on 127.0.0.1:0
    let relay = spawn(&args, &[], &dir);
    let boards = poll(20, "the board through the relay", || {
        let b = get(&relay.addr, "/boards.json");
        b.contains("\"round\":3").then_some(b)
    });
    assert!(boards.contains("Morphy"), "{boards}");
    assert!(
        state.join("eboard-tls-cert.pem").exists(),
        "the relay's certificate in its state directory: {:?}",
        std::fs::read_dir(&state).map(|d| d.count())
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The stand-in for systemd: a bound datagram socket.
struct FakeSystemd {
    socket: UnixDatagram,
    path: PathBuf,
}

impl FakeSystemd {
    fn bind(dir: &Path) -> FakeSystemd {
        let path = dir.join("notify.sock");
        let socket = UnixDatagram::bind(&path).unwrap();
        FakeSystemd { socket, path }
    }

    /// The next message within `within`, or `None`.
    fn next(&self, within: Duration) -> Option<String> {
        self.socket.set_read_timeout(Some(within)).unwrap();
        let mut buf = [0u8; 1024];
        match self.socket.recv(&mut buf) {
            Ok(n) => Some(String::from_utf8_lossy(&buf[..n]).into_owned()),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                None
            }
            Err(e) => panic!("notify socket: {e}"),
        }
    }

    /// Messages until one starts with `first`, within `secs`; all of them.
    fn until(&self, first: &str, secs: u64) -> Vec<String> {
        let end = Instant::now() + Duration::from_secs(secs);
        let mut got = Vec::new();
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let Some(m) = self.next(left.max(Duration::from_millis(1))) else {
                panic!("no {first} within {secs} s; got {got:?}");
            };
            let done = m.lines().next() == Some(first);
            got.push(m);
            if done {
                return got;
            }
        }
    }
}

fn signal(pid: u32, sig: i32) {
    // SAFETY: kill(2) on a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(pid as i32, sig) }, 0);
}

/// 1 s: WATCHDOG=1 every 500 ms, each due within the second.
const WATCHDOG_USEC: &str = "1000000";

fn start(dir: &Path, sd: &FakeSystemd, journal: &Path, speed: &str) -> Running {
    let cfg = config(dir, 1, 1, "");
    let trace = opera_trace(dir, 7);
    run_board_with_env(
        dir,
        &cfg,
        Some(&trace),
        &["--journal", journal.to_str().unwrap(), "--speed", speed],
        &[
            ("NOTIFY_SOCKET", sd.path.to_str().unwrap()),
            ("WATCHDOG_USEC", WATCHDOG_USEC),
        ],
    )
}

#[test]
fn ready_watchdog_and_stopping_reach_the_notify_socket() {
    let dir = tempdir("notify");
    let sd = FakeSystemd::bind(&dir);
    let journal = dir.join("board.jsonl");
    let mut run = start(&dir, &sd, &journal, "1");

    // READY=1 with a status line; the journal exists by then (resumed or
    // started before the daemon says it is ready).
    let got = sd.until("READY=1", 20);
    let ready = got.last().unwrap();
    assert!(
        ready.contains("\nSTATUS=board 1 round 1: serving "),
        "{ready}"
    );
    let head = std::fs::read_to_string(&journal).unwrap();
    assert!(
        head.contains("\"trace\":1") && head.contains("\"journal\":{"),
        "{head}"
    );

    // WATCHDOG=1 keeps coming, about every half of WATCHDOG_USEC: five of
    // them, each within the interval of the one before.
    for i in 0..5 {
        let m = sd
            .next(Duration::from_millis(1000))
            .unwrap_or_else(|| panic!("watchdog {i}: nothing within the 1 s interval"));
        assert_eq!(m, "WATCHDOG=1");
    }

    // A frozen process feeds nothing (systemd would kill it after the
    // interval); thawed, the loop feeds again.
    signal(run.child.id(), libc::SIGSTOP);
    // A message sent just before the stop may still be queued.
    let mut quiet = 0;
    while sd.next(Duration::from_millis(1500)).is_some() {
        quiet += 1;
        assert!(quiet < 3, "a stopped process kept feeding the watchdog");
    }
    signal(run.child.id(), libc::SIGCONT);
    assert_eq!(
        sd.next(Duration::from_secs(2)).as_deref(),
        Some("WATCHDOG=1")
    );

    // SIGTERM: STOPPING=1, then a clean exit.
    signal(run.child.id(), libc::SIGTERM);
    let got = sd.until("STOPPING=1", 10);
    assert!(
        got.iter().all(|m| m == "WATCHDOG=1" || m == "STOPPING=1"),
        "{got:?}"
    );
    let status = run.child.wait().unwrap();
    assert!(
        status.success(),
        "{status}: {}",
        std::fs::read_to_string(&run.stderr).unwrap_or_default()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_daemon_is_ready_again_with_its_game_resumed() {
    let dir = tempdir("notify-resume");
    let sd = FakeSystemd::bind(&dir);
    let journal = dir.join("board.jsonl");
    let mut run = start(&dir, &sd, &journal, "20");
    sd.until("READY=1", 20);
    // Wait (bounded) for a few moves to be journaled, then kill -9, as the
    // watchdog's SIGABRT or a crash would.
    poll(30, "a journaled move", || {
        let ev = std::fs::read_to_string(eboard::journal::events_path(&journal)).ok()?;
        ev.contains("\"type\":\"move\"").then_some(())
    });
    run.kill();
    let records_before = std::fs::read_to_string(&journal).unwrap().lines().count();
    let run2 = start(&dir, &sd, &journal, "20");
    let got = sd.until("READY=1", 20);
    assert!(got.last().unwrap().starts_with("READY=1"));
    let log = poll(10, "the resume report", || {
        let log = std::fs::read_to_string(&run2.stderr).ok()?;
        log.contains("ready").then_some(log)
    });
    assert!(log.contains("resumed"), "{log}");
    let records_after = std::fs::read_to_string(&journal).unwrap().lines().count();
    assert!(
        records_after >= records_before,
        "{records_before} → {records_after}"
    );
    drop(run2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_finished_game_is_resumed_until_confirmed_then_rotated_when_the_service_starts_again() {
    let dir = tempdir("rotate");
    let state = dir.join("state");
    let cfg = config(&dir, 1, 1, "");
    let trace = opera_trace(&dir, 7);
    let sd = FakeSystemd::bind(&dir);
    let env = [("NOTIFY_SOCKET", sd.path.to_str().unwrap())];
    let jd = ["--journal-dir", state.to_str().unwrap()];
    let mut args = jd.to_vec();
    args.extend(["--speed", "100"]);
    let run = run_board_with_env(&dir, &cfg, Some(&trace), &args, &env);
    let events = state.join("board.jsonl.events");
    wait_for_text(
        60,
        "the game's end in the journal",
        &events,
        "\"type\":\"game_end\"",
    );
    drop(run);
    // Restarted before the arbiter confirmed the result (a power cut within
    // the round, DSU 004 §15): the finished game is resumed, its result
    // still provisional everywhere, and the arbiter confirms it.
    let run = run_board_with_env(&dir, &cfg, None, &jd, &env);
    sd.until("READY=1", 20);
    let log = std::fs::read_to_string(&run.stderr).unwrap();
    assert!(
        log.contains("the last game ended 1-0 and its result is not confirmed: resumed"),
        "{log}"
    );
    assert!(!state.join("games").exists(), "nothing archived yet");
    let pgn = get(&run.addr, "/games.pgn");
    assert!(
        pgn.contains("17. Rd8#") && pgn.contains("[Result \"1-0\"]"),
        "{pgn}"
    );
    let (status, s) = request(&run.addr, "GET", "/arbiter/state", &[ARBITER_AUTH], "");
    let s: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(status, 200);
    let st = &s[0]["state"];
    assert_eq!(st["result_status"], "provisional", "{s}");
    assert_eq!(st["result"], "1-0", "{s}");
    assert!(st["clock"]["running"].is_null(), "no clock runs: {s}");
    assert_eq!(
        st["open"][0]["type"], "game_end",
        "the result to confirm: {s}"
    );
    let (status, csv) = request(
        &run.addr,
        "GET",
        "/console/results.csv",
        &[ARBITER_AUTH],
        "",
    );
    assert!(status == 200 && csv.contains("1-0"), "{status} {csv}");
    // (A copy of the unconfirmed game, for the config's next round below.)
    let state2 = dir.join("state2");
    std::fs::create_dir_all(&state2).unwrap();
    for f in ["board.jsonl", "board.jsonl.events"] {
        std::fs::copy(state.join(f), state2.join(f)).unwrap();
    }
    let (status, body) = request(&run.addr, "POST", "/arbiter/confirm", &[ARBITER_AUTH], "");
    assert_eq!(status, 200, "{body}");
    wait_for_text(
        10,
        "the confirmation in the journal",
        &events,
        "\"type\":\"result_confirmed\"",
    );
    drop(run);
    // Restarted within the round after the confirmation (ia16): the same
    // game, resumed with its confirmed result (before, a new game of the
    // same pairing began and the result left the feeds and the results).
    let run = run_board_with_env(&dir, &cfg, None, &jd, &env);
    sd.until("READY=1", 20);
    let log = std::fs::read_to_string(&run.stderr).unwrap();
    assert!(
        log.contains("the last game ended 1-0, its result confirmed: resumed"),
        "{log}"
    );
    assert!(!state.join("games").exists(), "nothing archived yet");
    let pgn = get(&run.addr, "/games.pgn");
    assert!(
        pgn.contains("17. Rd8#") && pgn.contains("[ResultStatus \"confirmed\"]"),
        "{pgn}"
    );
    drop(run);
    // The next start is the next round: the confirmed game is archived, a
    // new journal begun, and the daemon is ready.
    let r2 = dir.join("r2");
    std::fs::create_dir_all(&r2).unwrap();
    let cfg2 = config(&r2, 2, 1, "");
    let run = run_board_with_env(&dir, &cfg2, None, &jd, &env);
    sd.until("READY=1", 20);
    let games: Vec<PathBuf> = std::fs::read_dir(state.join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(games.len(), 1, "{games:?}");
    let pgn = eboard_ok(&["replay", games[0].to_str().unwrap(), "--pgn", "-"]);
    assert!(
        pgn.contains("17. Rd8#") && pgn.contains("[Result \"1-0\"]"),
        "{pgn}"
    );
    let current = std::fs::read_to_string(state.join("board.jsonl")).unwrap();
    assert_eq!(
        current.lines().count(),
        1,
        "a new game: the header only\n{current}"
    );
    let log = std::fs::read_to_string(&run.stderr).unwrap();
    assert!(log.contains("the last game has ended"), "{log}");
    drop(run);
    // The config changed to the next round over an unconfirmed game: that
    // game is archived after all (said at warn), the new game starts.
    let run = run_board(
        &dir,
        &cfg2,
        None,
        &["--journal-dir", state2.to_str().unwrap()],
    );
    let log = std::fs::read_to_string(&run.stderr).unwrap();
    assert!(
        log.contains("WARN")
            && log.contains("game 1.1 ended 1-0 and its result was never confirmed"),
        "{log}"
    );
    assert_eq!(std::fs::read_dir(state2.join("games")).unwrap().count(), 2);
    let s = get(&run.addr, "/games.pgn");
    assert!(s.contains("[Round \"2.1\"]") && !s.contains("Rd8#"), "{s}");
    drop(run);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The values of `key=` in a unit's text, in order.
fn values<'a>(unit: &'a str, key: &str) -> Vec<&'a str> {
    unit.lines()
        .filter_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .collect()
}

/// The daemon reads the clock's sync state with adjtimex(2) when it
/// resumes a game: the unit's sandbox must let that read through. systemd's
/// `ProtectClock=yes` refuses adjtimex whatever its modes (EPERM), so every
/// restart stopped the clocks for the arbiter; the same protection comes
/// from the empty capability bounding set (no CAP_SYS_TIME: the kernel
/// refuses any change) and a filter that allows adjtimex last.
#[test]
fn the_units_sandbox_lets_the_daemon_read_the_clocks_sync_state() {
    let unit = std::fs::read_to_string(UNIT).unwrap();
    assert!(
        !values(&unit, "ProtectClock").contains(&"yes"),
        "ProtectClock=yes refuses adjtimex(2)"
    );
    assert_eq!(values(&unit, "CapabilityBoundingSet"), vec![""]);
    let filters = values(&unit, "SystemCallFilter");
    let last_deny = filters.iter().rposition(|f| f.starts_with('~'));
    let allowed_at = filters
        .iter()
        .rposition(|f| !f.starts_with('~') && f.split_whitespace().any(|s| s == "adjtimex"))
        .expect("adjtimex allowed by name");
    assert!(
        last_deny.is_none_or(|d| d < allowed_at),
        "a later deny list (~@privileged holds @clock) takes adjtimex away again: {filters:?}"
    );
}

/// A start-up error ends in `failed` rather than restarting every 2 s
/// forever: a configuration error exits 78 (not restarted), anything else
/// meets the start limit; the relay the same. The relay does not default
/// to the board's port 8080, and its port is a variable of
/// /etc/default/eboard-relay.
#[test]
fn both_units_stop_restarting_a_failing_start() {
    for path in [UNIT, RELAY_UNIT] {
        let unit = std::fs::read_to_string(path).unwrap();
        assert_eq!(
            values(&unit, "RestartPreventExitStatus"),
            vec!["78"],
            "{path}"
        );
        assert_eq!(values(&unit, "StartLimitBurst"), vec!["5"], "{path}");
        assert_eq!(
            values(&unit, "StartLimitIntervalSec"),
            vec!["30s"],
            "{path}"
        );
        assert_eq!(values(&unit, "RestartSec"), vec!["2s"], "{path}");
    }
    let relay = std::fs::read_to_string(RELAY_UNIT).unwrap();
    assert_eq!(
        values(&relay, "Environment"),
        vec!["EBOARD_RELAY_LISTEN=0.0.0.0:8081", "RUST_LOG=info"]
    );
    let exec = values(&relay, "ExecStart");
    assert!(
        exec[0].contains("--listen ${EBOARD_RELAY_LISTEN}"),
        "{exec:?}"
    );
}

/// `systemd-analyze security` (offline, the unit file as installed)
/// scores both units at most 3.0, with the devices the board designs use
/// still allowed (`DeviceAllow=`: GPIO, I2C, SPI, serial, ALSA) and none
/// of the settings that would take them away (PrivateDevices=, and
/// PrivateUsers=, which maps the device groups away).
#[test]
fn both_units_score_at_most_3_in_systemd_analyze_security() {
    if !systemd_analyze_or_skip() {
        return;
    }
    let dir = tempdir("security");
    for (name, path) in [
        ("eboard.service", UNIT),
        ("eboard-relay.service", RELAY_UNIT),
    ] {
        let p = dir.join(name);
        std::fs::copy(path, &p).unwrap();
        let out = Command::new("systemd-analyze")
            .args(["security", "--offline=true", "--no-pager"])
            .arg(&p)
            .output()
            .expect("systemd-analyze security");
        let text = String::from_utf8_lossy(&out.stdout);
        let score: f64 = text
            .lines()
            .find_map(|l| {
                l.split_once(&format!("exposure level for {name}: "))?
                    .1
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| {
                panic!(
                    "{name}: no score in {text}{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        assert!(score <= 3.0, "{name}: exposure {score} > 3.0\n{text}");
    }
    let unit = std::fs::read_to_string(UNIT).unwrap();
    let devices = values(&unit, "DeviceAllow").join(" ");
    for d in [
        "char-gpiochip",
        "/dev/gpiomem",
        "char-i2c",
        "char-spi",
        "char-ttyACM",
        "char-ttyUSB",
        "char-ttyAMA",
        "char-alsa",
    ] {
        assert!(devices.contains(d), "DeviceAllow= lost {d}: {devices}");
    }
    for key in ["PrivateDevices", "PrivateUsers", "ProcSubset"] {
        assert!(
            values(&unit, key).is_empty(),
            "{key}= takes a device or the Pi's identity away"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
