//! `eboard doctor` on real things: a config with a bad key (file, line,
//! key named), a real mosquitto with a password file (accepted, refused,
//! unreachable), a full disk (a free-space threshold above what there is),
//! a calibration file with a dead sensor; the table, `--json` and the exit
//! status (0 all passed, 1 a check failed).

use crate::common;

use common::mosquitto::broker_with;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// `eboard doctor --json` with the journal dir in `dir`; the time check is
/// left out (this machine's clock synchronisation is not the test's) and
/// the exit code and JSON are returned.
fn doctor(dir: &Path, cfg: &Path, extra: &[&str]) -> (i32, Value, Output) {
    let jd = dir.join("var");
    let mut args = vec![
        "doctor",
        "--config",
        cfg.to_str().unwrap(),
        "--journal-dir",
        jd.to_str().unwrap(),
        "--skip",
        "time",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = eboard(&args);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json: {e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v, out)
}

/// The row of `check`: (status, detail).
fn row(v: &Value, check: &str) -> (String, String) {
    let r = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["check"] == check)
        .unwrap_or_else(|| panic!("no row {check}: {v}"));
    (
        r["status"].as_str().unwrap().to_owned(),
        r["detail"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn a_good_config_passes_and_the_table_says_so() {
    let dir = tempdir("doctor-good");
    let cfg = config(&dir, 1, 1, "");
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["ok"], true);
    assert_eq!(row(&v, "config").0, "ok");
    assert_eq!(row(&v, "disk").0, "ok");
    assert_eq!(row(&v, "time").0, "skip");
    assert_eq!(
        row(&v, "sensors").0,
        "skip",
        "a trace source has no sensors"
    );
    // The table: one row a check, the verdict last.
    let out = eboard(&[
        "doctor",
        "--config",
        cfg.to_str().unwrap(),
        "--journal-dir",
        dir.to_str().unwrap(),
        "--skip",
        "time",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 14, "{text}");
    assert!(
        lines[0].starts_with("config ") && lines[0].contains(" ok "),
        "{text}"
    );
    assert!(
        lines[11].starts_with("game ") && lines[11].contains("no game journaled"),
        "{text}"
    );
    assert!(lines[12].starts_with("rules "), "{text}");
    assert_eq!(lines[13], "eboard doctor: all checks passed");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_config_names_file_line_and_key() {
    let dir = tempdir("doctor-badcfg");
    let cfg = config(&dir, 1, 1, "\n[clock]\ndevise = \"dgt3000\"\n");
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["ok"], false);
    let (status, detail) = row(&v, "config");
    assert_eq!(status, "fail");
    let line = std::fs::read_to_string(&cfg)
        .unwrap()
        .lines()
        .position(|l| l.starts_with("devise"))
        .unwrap()
        + 1;
    assert!(
        detail.contains(cfg.to_str().unwrap())
            && detail.contains(&format!("{line}"))
            && detail.contains("devise"),
        "line {line}: {detail}"
    );
    assert_eq!(row(&v, "mqtt").0, "skip");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `[event] session_start`: the doctor says from when the default time
/// counts (the scheduled start, or White's clock with a warning on the
/// sensors), and a time without its offset names file, line and key.
#[test]
fn the_session_row_says_from_when_the_default_time_counts() {
    let dir = tempdir("doctor-session");
    let with = |event: &str, extra: &str| {
        let cfg = config(&dir, 1, 1, extra);
        let text = std::fs::read_to_string(&cfg).unwrap();
        std::fs::write(
            &cfg,
            text.replacen("[event]\n", &format!("[event]\n{event}"), 1),
        )
        .unwrap();
        cfg
    };
    let cfg = with(
        "rules = \"fide-2009\"\nsession_start = \"2026-11-26T15:00:00+01:00\"\n",
        "",
    );
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 0, "{v}");
    let (status, detail) = row(&v, "session");
    assert_eq!(status, "ok", "{detail}");
    assert!(
        detail.contains("15 min (DSU 004 §11)")
            && detail.contains("scheduled start 2026-11-26T15:00:00+01:00"),
        "{detail}"
    );
    // The 2023 Laws give no default time (6.7.1: zero when the
    // regulations are silent); DSU 004 §11 gives 15 minutes whatever the
    // edition, so a DSU event says so apart from the Laws.
    let cfg = with("rules = \"fide-2023\"\n", "");
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    assert!(row(&v, "session").1.contains("0 min (6.7.1"), "{v}");
    let cfg = with("rules = \"fide-2023\"\nregulations = \"dsu-004\"\n", "");
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    assert!(row(&v, "session").1.contains("15 min (DSU 004 §11)"), "{v}");
    // The invitation's own rule still wins.
    let cfg = with(
        "rules = \"fide-2023\"\nregulations = \"dsu-004\"\ndefault_time_min = 30\n",
        "",
    );
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    assert!(
        row(&v, "session")
            .1
            .contains("30 min (the event's regulations)"),
        "{v}"
    );
    let cfg = with("regulations = \"dsu-2004\"\n", "");
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 1, "{v}");
    assert!(row(&v, "config").1.contains("regulations"), "{v}");
    // A TOML date-time is taken too.
    let cfg = with("session_start = 2026-11-26T15:00:00+01:00\n", "");
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    assert!(
        row(&v, "session")
            .1
            .contains("scheduled start 2026-11-26T15:00:00+01:00"),
        "{v}"
    );
    // None on a board on its sensors: the clock's start, with a warning.
    let cfg = with(
        "rules = \"fide-2009\"\n",
        "\n[clock]\nstart_at = \"arbiter_or_press\"\n",
    );
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "session");
    assert_eq!(status, "warn", "{detail}");
    assert!(
        detail.contains("no [event] session_start") && detail.contains("first press"),
        "{detail}"
    );
    // No offset: the config row fails naming file, line and key.
    let cfg = with("session_start = \"2026-11-26T15:00:00\"\n", "");
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 1, "{v}");
    let (status, detail) = row(&v, "config");
    assert_eq!(status, "fail");
    assert!(
        detail.contains(&format!("{}:2", cfg.display()))
            && detail.contains("event.session_start")
            && detail.contains("offset is missing"),
        "{detail}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_disk_fails() {
    let dir = tempdir("doctor-disk");
    let cfg = config(&dir, 1, 1, "");
    // More than any disk here has: the journal's disk counts as full.
    let (code, v, _) = doctor(&dir, &cfg, &["--min-free-mb", "1000000000"]);
    assert_eq!(code, 1, "{v}");
    let (status, detail) = row(&v, "disk");
    assert_eq!(status, "fail");
    assert!(detail.contains("need 1000000000 MB"), "{detail}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_dead_sensor_in_the_calibration_fails() {
    let dir = tempdir("doctor-cal");
    let root = env!("CARGO_MANIFEST_DIR");
    let cal_text =
        std::fs::read_to_string(format!("{root}/calibration/virtual-mcp3008-hall.toml")).unwrap();
    let good = dir.join("good.toml");
    std::fs::write(&good, &cal_text).unwrap();
    let dead = dir.join("dead.toml");
    std::fs::write(
        &dead,
        cal_text.replace(
            "issues = []",
            "issues = [{ sensor = 12, square = \"e2\", kind = \"stuck\", detail = \"reads 1023 with and without a piece\" }]",
        ),
    )
    .unwrap();
    let hw = format!("{root}/hw/mcp3008-hall.toml");
    let board = |cal: &Path| {
        format!(
            "\n[board]\nsource = \"hw\"\nsensing = \"colour\"\nhw = \"{hw}\"\ncalibration = \"{}\"\n",
            cal.display()
        )
    };
    let cfg = config(&dir, 1, 1, &board(&good));
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "sensors");
    // Every square tested (the middle-ranks step), but `ok` only for what
    // was checked: this build (no Pi backend) did not read the bus.
    assert_eq!(status, "warn", "{detail}");
    assert!(
        detail.contains("calibration healthy on all 64 squares")
            && detail.contains("the bus was NOT read"),
        "{detail}"
    );
    assert_eq!(code, 0, "a warning is not a failure: {v}");
    // A calibration made before the middle-ranks step: the 32 squares
    // empty in the initial position were never tested with a piece.
    let old = dir.join("old.toml");
    let ranks_3_to_6: Vec<String> = (3..=6)
        .flat_map(|r| "abcdefgh".chars().map(move |f| format!("\"{f}{r}\"")))
        .collect();
    std::fs::write(
        &old,
        cal_text.replace(
            "untested = []",
            &format!("untested = [{}]", ranks_3_to_6.join(", ")),
        ),
    )
    .unwrap();
    let cfg = config(&dir, 1, 1, &board(&old));
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "sensors");
    assert_eq!(status, "warn", "{detail}");
    assert!(
        detail.contains("calibration healthy on 32 squares")
            && detail.contains("32 never tested with a piece (a3 b3 ")
            && detail.contains(" h6)")
            && detail.contains("eboard calibrate"),
        "{detail}"
    );
    let cfg = config(&dir, 1, 1, &board(&dead));
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 1, "{v}");
    let (status, detail) = row(&v, "sensors");
    assert_eq!(status, "fail");
    assert!(
        detail.contains("Stuck sensor 12 (e2)") && detail.contains("dead.toml"),
        "{detail}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_broker_is_checked_with_the_configured_login() {
    let dir = tempdir("doctor-mqtt");
    let passwd = dir.join("passwd");
    let Some(mut broker) = ({
        if common::mosquitto::mosquitto_or_skip().is_none() {
            None
        } else {
            let out = Command::new("mosquitto_passwd")
                .args(["-b", "-c"])
                .arg(&passwd)
                .args(["board1", "board1-pw"])
                .output()
                .expect("mosquitto_passwd (Debian package mosquitto)");
            assert!(out.status.success());
            broker_with(
                &dir,
                &format!(
                    "password_file {}\nallow_anonymous false\n",
                    passwd.display()
                ),
            )
        }
    }) else {
        return;
    };
    let url = broker.url();
    let mqtt = |pw: &str| {
        format!("\n[mqtt]\nurl = \"{url}\"\nusername = \"board1\"\npassword = \"{pw}\"\n")
    };
    let cfg = config(&dir, 1, 1, &mqtt("board1-pw"));
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(row(&v, "mqtt").0, "ok", "{v}");
    assert!(row(&v, "mqtt").1.contains("user \"board1\""), "{v}");
    assert_eq!(code, 0, "{v}");

    let cfg = config(&dir, 1, 1, &mqtt("wrong"));
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 1);
    let (status, detail) = row(&v, "mqtt");
    assert_eq!(status, "fail");
    assert!(
        detail.contains("refused the credentials of user \"board1\""),
        "{detail}"
    );

    // Unreachable: the broker stopped.
    broker.kill();
    let cfg = config(&dir, 1, 1, &mqtt("board1-pw"));
    let (code, v, _) = doctor(&dir, &cfg, &["--timeout", "3"]);
    assert_eq!(code, 1);
    let (status, detail) = row(&v, "mqtt");
    assert_eq!(status, "fail");
    assert!(
        detail.contains(&format!("127.0.0.1:{}", broker.port)),
        "{detail}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_check_to_skip_is_an_error() {
    let out = eboard(&["doctor", "--config", "/nonexistent", "--skip", "tiem"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--skip tiem: not one of config, sensors"),
        "{err}"
    );
}

/// Issue 24.11 and 24.10: the doctor shows the fingerprint of the HTTPS
/// certificate the board made and printed at its start (the one the
/// arbiter's phone checks), and warns of console accounts' secrets on a
/// board, naming the key.
#[test]
fn the_certificates_fingerprint_and_secrets_on_a_board() {
    let dir = tempdir("doctor-https");
    let hash = common::console::secret_hash("a long pass phrase");
    let cfg = config(
        &dir,
        1,
        1,
        &format!(
            "\n[[arbiter.accounts]]\nname = \"IA Hansen\"\nsecret_hash = \"{hash}\"\n\n\
             [[arbiter.accounts]]\nname = \"Hall relay\"\nrole = \"relay\"\ntoken = \"{}\"\n",
            common::console::RELAY_TOKEN
        ),
    );
    let jd = dir.join("var");
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "https");
    assert_eq!(status, "ok", "{detail}");
    assert!(detail.contains("no certificate yet"), "{detail}");
    let (status, detail) = row(&v, "secrets");
    assert_eq!(status, "warn", "{detail}");
    assert!(
        detail.contains("arbiter.accounts.1") && detail.contains("IA Hansen"),
        "{detail}"
    );
    assert!(
        !detail.contains("Hall relay"),
        "the relay's account belongs there: {detail}"
    );
    // The board makes its certificate at start and prints its fingerprint.
    let mut board = run_board(&dir, &cfg, None, &["--journal-dir", jd.to_str().unwrap()]);
    let printed = poll(20, "the board's fingerprint", || {
        let log = std::fs::read_to_string(&board.stderr).ok()?;
        let at = log.find("fingerprint=")? + "fingerprint=".len();
        Some(log[at..].chars().take(95).collect::<String>())
    });
    assert!(board.stderr.exists());
    board.kill();
    assert!(
        std::fs::read_to_string(&board.stderr)
            .unwrap()
            .contains("key 'arbiter.accounts.1'"),
        "the board warns at start too"
    );
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "https");
    assert_eq!(status, "ok", "{detail}");
    assert!(
        detail.contains(&format!("SHA-256 {printed}")),
        "{printed} / {detail}"
    );
    assert_eq!(code, 0, "a warning is not a failure: {v}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `eboard doctor` on the audio alone, with `envs` set.
fn doctor_audio(dir: &Path, cfg: &Path, envs: &[(&str, &str)]) -> (String, String) {
    let jd = dir.join("var");
    let mut cmd = eboard_command();
    cmd.args(["doctor", "--config", cfg.to_str().unwrap()])
        .args(["--journal-dir", jd.to_str().unwrap(), "--json"]);
    for c in ["time", "sensors", "clock", "mqtt", "lichess", "disk"] {
        cmd.args(["--skip", c]);
    }
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json ({:?}): {e}: {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    row(&v, "audio")
}

#[test]
fn the_audio_check_plays_a_test_on_each_output_and_names_the_missing_player() {
    // Issue 29: each configured output gets a short test (here ALSA's file
    // plugin, one WAV per device); without aplay the check fails naming
    // its package, alsa-utils.
    let have = |p: &str| Command::new(p).arg("--version").output().is_ok();
    if !have("espeak-ng") || !have("aplay") {
        skip_or_fail_under_ci("espeak-ng or aplay (alsa-utils) is not installed");
        return;
    }
    let dir = tempdir("doctor-audio");
    let alsa = common::voice::wav_outputs(&dir);
    let cfg = dir.join("board.toml");
    std::fs::write(
        &cfg,
        "[event]\nname = \"DM\"\nrules = \"fide-2009\"\nspeak = true\n\
         [game]\nboard = 1\nvi_player = \"b\"\n\
         [voice.white]\ndevice = \"white\"\n[voice.black]\ndevice = \"black\"\n\
         [voice.arbiter]\ndevice = \"arbiter\"\n",
    )
    .unwrap();
    let (status, detail) = doctor_audio(&dir, &cfg, &[("ALSA_CONFIG_PATH", &alsa)]);
    assert_eq!(status, "ok", "{detail}");
    for name in ["white", "black", "arbiter"] {
        assert!(detail.contains(&format!("{name} on {name}")), "{detail}");
        let f = dir.join(format!("{name}.wav"));
        let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
        assert!(len > 10_000, "{name}: {len} bytes of test audio");
    }
    // A device that does not exist fails the check, named.
    std::fs::write(
        &cfg,
        "[event]\nname = \"DM\"\nrules = \"fide-2009\"\nspeak = true\n\
         [game]\nboard = 1\nvi_player = \"b\"\n\
         [voice.white]\ndevice = \"white\"\n[voice.black]\ndevice = \"nosuchcard\"\n",
    )
    .unwrap();
    let (status, detail) = doctor_audio(&dir, &cfg, &[("ALSA_CONFIG_PATH", &alsa)]);
    assert_eq!(status, "fail", "{detail}");
    assert!(detail.contains("black on nosuchcard"), "{detail}");
    // No aplay on the PATH (espeak-ng alone): the package is named.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let espeak = Command::new("sh")
        .args(["-c", "command -v espeak-ng"])
        .output()
        .unwrap();
    let espeak = String::from_utf8_lossy(&espeak.stdout).trim().to_owned();
    std::os::unix::fs::symlink(&espeak, bin.join("espeak-ng")).unwrap();
    let (status, detail) = doctor_audio(&dir, &cfg, &[("PATH", bin.to_str().unwrap())]);
    assert_eq!(status, "fail", "{detail}");
    assert!(detail.contains("alsa-utils"), "{detail}");
}

/// Issue 40 point 1: the `rules` row says who decides, per article, and
/// the event's `board_observes_illegal_moves` with the Laws' default.
#[test]
fn the_rules_row_says_who_decides_and_the_events_choice() {
    let dir = tempdir("doctor-rules");
    let with = |event: &str| {
        let cfg = config(&dir, 1, 1, "");
        let text = std::fs::read_to_string(&cfg).unwrap();
        std::fs::write(
            &cfg,
            text.replacen("[event]\n", &format!("[event]\n{event}"), 1),
        )
        .unwrap();
        cfg
    };
    let cfg = with("rules = \"fide-2023\"\nmode = \"rapid\"\n");
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 0, "{v}");
    let (status, detail) = row(&v, "rules");
    assert_eq!(status, "ok", "{detail}");
    assert!(
        detail.contains("checkmate 5.1.1 by automatic")
            && detail.contains("illegal move A.5.2 by claim")
            && detail.contains("board_observes_illegal_moves = false, the Laws' default"),
        "{detail}"
    );
    let cfg =
        with("rules = \"fide-2023\"\nmode = \"blitz\"\nboard_observes_illegal_moves = true\n");
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    let detail = row(&v, "rules").1;
    assert!(
        detail.contains("illegal move 7.5.5 by arbiter")
            && detail.contains("board_observes_illegal_moves = true"),
        "{detail}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 43 §4: under DSU's regulations a board no arbiter can reach is a
/// `warn` (§15: its results would stay provisional for good); with the
/// arbiter's token it is `ok`.
#[test]
fn under_dsu_004_a_board_without_an_arbiter_is_a_warning() {
    let dir = tempdir("doctor-dsu");
    let cfg = config(&dir, 1, 1, "");
    let text = std::fs::read_to_string(&cfg).unwrap().replacen(
        "[event]\n",
        "[event]\nregulations = \"dsu-004\"\n",
        1,
    );
    std::fs::write(&cfg, &text).unwrap();
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(row(&v, "rules").0, "ok", "{v}");
    let without = text.replace("token = \"7f3c9a1e5b2d4c6e8a0b1c2d3e4f5a6b\"\n", "");
    assert_ne!(without, text);
    std::fs::write(&cfg, without).unwrap();
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "rules");
    assert_eq!(status, "warn", "{detail}");
    assert!(
        detail.contains("DSU 004 §15") && detail.contains("relay_token"),
        "{detail}"
    );
    assert_eq!(code, 0, "a warning is not a failure: {v}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A lichess for the doctor, over HTTPS with the test CA's certificate
/// (lichess's API, <https://lichess.org/api>): `POST /api/token/test`
/// (the body: tokens, comma-separated) answers each token's user and
/// scopes, or `null` for a token lichess does not know; `GET
/// /api/broadcast/{tour slug}/{round slug}/{round id}` the round and its
/// tour, 404 for an unknown round.
fn fake_lichess_for_doctor() -> axum::Router {
    use axum::http::StatusCode;
    use axum::routing::{get, post};
    axum::Router::new()
        .route(
            "/api/token/test",
            post(|body: String| async move {
                let known = |t: &str| match t {
                    "lip_Rw9vTq4XnB2kZs7M" => serde_json::json!({
                        "userId": "ia-hansen", "scopes": "study:read,study:write", "expires": null
                    }),
                    "lip_Hc3pLd8YwQ5tJv1N" => serde_json::json!({
                        "userId": "ia-hansen", "scopes": "challenge:read", "expires": null
                    }),
                    _ => Value::Null,
                };
                let m: serde_json::Map<String, Value> = body
                    .split(',')
                    .map(|t| (t.to_owned(), known(t)))
                    .collect();
                axum::Json(Value::Object(m))
            }),
        )
        .route(
            "/api/broadcast/{tour}/{round}/{id}",
            get(
                |axum::extract::Path((_, _, id)): axum::extract::Path<(String, String, String)>| async move {
                    if id == "AbCd1234" {
                        Ok(axum::Json(serde_json::json!({
                            "round": {"id": "AbCd1234", "name": "Round 3", "slug": "round-3"},
                            "tour": {"id": "TourId99", "name": "DM 2026", "slug": "dm-2026"}
                        })))
                    } else {
                        Err(StatusCode::NOT_FOUND)
                    }
                },
            ),
        )
}

#[test]
fn the_lichess_token_and_round_are_checked_over_tls() {
    let dir = tempdir("doctor-lichess");
    let pki = common::tls::test_pki(&dir);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (port, _) = common::tls::serve_https(&rt, &pki, fake_lichess_for_doctor());
    let lichess = |round: &str, token: &str, ca: bool| {
        let ca = if ca {
            format!("ca_file = \"{}\"\n", pki.ca.display())
        } else {
            String::new()
        };
        format!(
            "\n[lichess]\nround_id = \"{round}\"\ntoken = \"{token}\"\nbase_url = \"https://localhost:{port}\"\n{ca}"
        )
    };
    let check = |extra: String| {
        let cfg = config(&dir, 1, 1, &extra);
        let (code, v, out) = doctor(&dir, &cfg, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!stderr.contains("panicked"), "{stderr}");
        let (status, detail) = row(&v, "lichess");
        (code, status, detail)
    };

    let (code, status, detail) = check(lichess("AbCd1234", "lip_Rw9vTq4XnB2kZs7M", true));
    assert_eq!((code, status.as_str()), (0, "ok"), "{detail}");
    assert!(
        detail.contains("ia-hansen")
            && detail.contains("study:write")
            && detail.contains("\"Round 3\"")
            && detail.contains("\"DM 2026\""),
        "{detail}"
    );

    // Each failure names what is wrong and its remedy.
    let (code, status, detail) = check(lichess("AbCd1234", "lip_Zz0000000000000x", true));
    assert_eq!((code, status.as_str()), (1, "fail"), "{detail}");
    assert!(
        detail.contains("not valid") && detail.contains("/account/oauth/token/create"),
        "{detail}"
    );
    let (_, status, detail) = check(lichess("AbCd1234", "lip_Hc3pLd8YwQ5tJv1N", true));
    assert_eq!(status, "fail", "{detail}");
    assert!(
        detail.contains("lacks the scope study:write") && detail.contains("challenge:read"),
        "{detail}"
    );
    let (_, status, detail) = check(lichess("Nope5678", "lip_Rw9vTq4XnB2kZs7M", true));
    assert_eq!(status, "fail", "{detail}");
    assert!(
        detail.contains("no broadcast round Nope5678") && detail.contains("round_id"),
        "{detail}"
    );
    let (_, status, detail) = check(lichess("AbCd1234", "lip_Rw9vTq4XnB2kZs7M", false));
    assert_eq!(status, "fail", "{detail}");
    assert!(
        detail.contains("certificate is refused") && detail.contains("[lichess] ca_file"),
        "{detail}"
    );
    drop(rt);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_relay_config_gets_the_relays_checks_and_not_the_boards() {
    let dir = tempdir("doctor-relay");
    let (key, pk) = common::console::console_key(&dir, "console.key");
    let trf = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/pairings-open-2026.trf"
    );
    let state = dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    let relay = |pairings: &str| {
        let p = dir.join("relay.toml");
        std::fs::write(
            &p,
            format!(
                "{}state_dir = \"{}\"\n{pairings}\n{}",
                common::console::ruling_key(&key),
                state.display(),
                common::console::token_account()
            ),
        )
        .unwrap();
        p
    };
    let cfg = relay(&format!("pairings = \"{trf}\""));
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    let checks: Vec<&str> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["check"].as_str().unwrap())
        .collect();
    assert_eq!(
        checks,
        [
            "config",
            "mqtt",
            "lichess",
            "disk",
            "time",
            "https",
            "accounts",
            "ruling_key",
            "pairings"
        ],
        "{v}"
    );
    assert!(
        row(&v, "config")
            .1
            .contains("a relay's ([arbiter] ruling_key)"),
        "{v}"
    );
    let (status, detail) = row(&v, "accounts");
    assert_eq!(status, "ok", "{detail}");
    assert!(detail.contains("IA Hansen (arbiter)"), "{detail}");
    let (status, detail) = row(&v, "ruling_key");
    assert_eq!(status, "ok", "{detail}");
    assert!(
        detail.contains(&pk),
        "the public key for the boards: {detail}"
    );
    let (status, detail) = row(&v, "pairings");
    assert_eq!(status, "ok", "{detail}");
    assert!(
        detail.contains("9 players") && detail.contains("rounds 1–4"),
        "{detail}"
    );
    assert!(row(&v, "disk").1.contains("state"), "{v}");
    assert_eq!(code, 0, "{v}");

    // Without pairings the console's "Results TRF-16" answers 404: said.
    let cfg = relay("");
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "pairings");
    assert_eq!(status, "warn", "{detail}");
    assert!(
        detail.contains("404") && detail.contains("pairings ="),
        "{detail}"
    );
    assert_eq!(code, 0, "a warning is not a failure: {v}");

    // A key others can read is said, with the remedy.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "ruling_key");
    assert_eq!(status, "warn", "{detail}");
    assert!(detail.contains("chmod 600"), "{detail}");
    std::fs::remove_dir_all(&dir).ok();
}
