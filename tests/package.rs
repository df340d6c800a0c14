//! The Debian package's parts that can be tested without building it
//! (`.ci/run` builds and inspects the .deb itself, `pkg/check-deb`): the
//! man pages and completions `eboard generate` writes, and `preinst`
//! refusing an upgrade while a game is in progress (docs/service.md).

use crate::common;

use common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

const PREINST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/debian/preinst");

#[test]
fn generate_writes_man_pages_and_completions() {
    let dir = tempdir("generate");
    eboard_ok(&["generate", dir.to_str().unwrap()]);
    for cmd in ["", "-run", "-doctor", "-replay", "-calibrate", "-relay"] {
        let p = dir.join(format!("man1/eboard{cmd}.1"));
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(
            text.starts_with(".ie") || text.contains("\n.TH "),
            "{}",
            p.display()
        );
    }
    let doctor = std::fs::read_to_string(dir.join("man1/eboard-doctor.1")).unwrap();
    assert!(doctor.contains("json"), "the options are in the page");
    assert!(
        !dir.join("man1/eboard-generate.1").exists(),
        "generate is hidden"
    );
    // eboard.toml(5), which the packaged configs point to (issue 24.11).
    let toml5 = std::fs::read_to_string(dir.join("man5/eboard.toml.5")).unwrap();
    assert!(toml5.contains(".TH EBOARD.TOML 5"), "{toml5}");
    for cfg in ["pkg/eboard.toml", "pkg/relay.toml"] {
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(cfg)).unwrap();
        assert!(
            text.contains("man 5 eboard.toml"),
            "{cfg} points to the page"
        );
    }
    let bash = std::fs::read_to_string(dir.join("completions/eboard.bash")).unwrap();
    assert!(bash.contains("doctor") && bash.contains("--journal-dir"));
    assert!(dir.join("completions/_eboard").exists());
    assert!(dir.join("completions/eboard.fish").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `preinst upgrade 0.1.0` with the state in `state` and a
/// `systemctl` on PATH that says the service is active (`active`) or not.
fn preinst(dir: &Path, active: bool, env: &[(&str, &str)]) -> Output {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("systemctl");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\nexit {}\n", if active { 0 } else { 3 }),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let mut cmd = Command::new("sh");
    cmd.args([PREINST, "upgrade", "0.1.0"])
        .env("PATH", path)
        .env("EBOARD_STATE_DIR", dir.join("state"))
        .env_remove("EBOARD_UPGRADE_DURING_GAME");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn an_upgrade_during_a_game_is_refused_with_a_clear_message() {
    let dir = tempdir("preinst");
    let state = dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    // No journal: nothing in progress.
    assert!(preinst(&dir, true, &[]).status.success());
    // A real game's journal half-way: the Opera Game's trace replayed by
    // the daemon's own journal writer until a few moves are in.
    let trace = opera_trace(&dir, 3);
    let cfg = config(&dir, 1, 1, "");
    let run = run_board(
        &dir,
        &cfg,
        Some(&trace),
        &["--journal-dir", state.to_str().unwrap(), "--speed", "20"],
    );
    let events = state.join("board.jsonl.events");
    wait_for_text(30, "a journaled move", &events, "\"type\":\"move\"");
    drop(run);
    let out = preinst(&dir, true, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a game is in progress on this board")
            && err.contains("EBOARD_UPGRADE_DURING_GAME=1"),
        "{err}"
    );
    // The service stopped: the new daemon will resume the game; allowed.
    assert!(preinst(&dir, false, &[]).status.success());
    // Forced.
    assert!(preinst(&dir, true, &[("EBOARD_UPGRADE_DURING_GAME", "1")])
        .status
        .success());
    // The game over (the daemon's own game_end line): allowed.
    let mut text = std::fs::read_to_string(&events).unwrap();
    text.push_str(&sealed_event_line(&serde_json::json!(
        {"t": 99999, "type": "game_end", "result": "1-0"}
    )));
    std::fs::write(&events, text).unwrap();
    assert!(preinst(&dir, true, &[]).status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The refusal's recipe works with `sudo` in front, as a Pi owner types
/// it: the variable is given after `sudo` (through `env`), since sudo drops
/// a variable set before it (`VAR=1 sudo apt …` never reaches preinst).
#[test]
fn the_refusals_recipe_puts_the_variable_after_sudo() {
    let text = std::fs::read_to_string(PREINST).unwrap();
    let recipe = text
        .lines()
        .find_map(|l| l.split_once("run: ").map(|(_, r)| r))
        .expect("the recipe line");
    let words: Vec<&str> = recipe.split_whitespace().collect();
    let sudo = words.iter().position(|w| *w == "sudo").expect("sudo");
    let var = words
        .iter()
        .position(|w| w.starts_with("EBOARD_UPGRADE_DURING_GAME=1"))
        .expect("the variable");
    assert!(
        sudo < var && words[sudo + 1] == "env",
        "the variable after `sudo env`: {recipe}"
    );
}

const POSTINST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/debian/postinst");

/// dpkg runs the installed version's `postinst abort-upgrade NEW` when the
/// new version's preinst refused the upgrade (a game in progress): it must
/// not touch the running daemon. cargo-deb's systemd snippet, which
/// replaces `#DEBHELPER#`, does `deb-systemd-invoke try-restart` there; the
/// stand-in below does the same and records every call.
#[test]
fn an_aborted_upgrade_leaves_the_daemon_alone() {
    let dir = tempdir("postinst");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let calls = dir.join("calls");
    for tool in ["deb-systemd-invoke", "deb-systemd-helper", "systemctl"] {
        let p = bin.join(tool);
        std::fs::write(
            &p,
            format!("#!/bin/sh\necho \"{tool} $*\" >> '{}'\n", calls.display()),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let script = std::fs::read_to_string(POSTINST).unwrap();
    // cargo-deb replaces every occurrence, comments too: one, at the end.
    assert_eq!(script.matches("#DEBHELPER#").count(), 1);
    let snippet = "if [ \"$1\" = \"configure\" ] || [ \"$1\" = \"abort-upgrade\" ] || [ \"$1\" = \"abort-deconfigure\" ] || [ \"$1\" = \"abort-remove\" ] ; then\n\
                   \tdeb-systemd-invoke try-restart eboard.service >/dev/null || true\nfi";
    let with_snippet = dir.join("postinst");
    std::fs::write(&with_snippet, script.replace("#DEBHELPER#", snippet)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = Command::new("sh")
        .arg(&with_snippet)
        .args(["abort-upgrade", "0.1.0-1+ci1"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let made = std::fs::read_to_string(&calls).unwrap_or_default();
    assert!(made.is_empty(), "abort-upgrade touched the service: {made}");
    std::fs::remove_dir_all(&dir).unwrap();
}
