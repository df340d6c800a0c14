//! `eboard doctor` on the configuration (issue 24): a good config (the
//! table, `--json` and the exit status: 0 all passed, 1 a check failed), a
//! bad key (file, line, key named), the session's default time, a check to
//! skip that does not exist, the rules row (who decides, the event's
//! choice, DSU 004's warning), and a relay's config (the relay's checks,
//! not a board's). The devices are `tests/doctor_devices.rs`; what the
//! board talks to over the network, `tests/doctor_network.rs`.

use crate::common;

use common::doctor::{doctor, row};
use common::*;

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
fn an_unknown_check_to_skip_is_an_error() {
    let out = eboard(&["doctor", "--config", "/nonexistent", "--skip", "tiem"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--skip tiem: not one of config, sensors"),
        "{err}"
    );
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
