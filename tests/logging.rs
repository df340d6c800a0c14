//! The binary's log reaches standard error: a `tracing::warn!` of the
//! library (the journal's events file found with a torn last line) is
//! written as a plain line with a timestamp, as a journald line with its
//! priority when systemd's `JOURNAL_STREAM` names standard error, and not
//! at all when `RUST_LOG` asks for errors only. Records of the `log` crate
//! (rumqttc and rustls log through it) reach the same subscriber.

use crate::common;

use common::*;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const TORN: &str = "torn last line of the events file dropped";

/// A board run with a journal in `dir`, stopped once its events file has
/// some lines: (config, trace, journal).
fn journaled_board(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let trace = opera_trace(dir, 3);
    let cfg = config(dir, 1, 1, "");
    let journal = dir.join("j.jsonl");
    let mut run = run_board(
        dir,
        &cfg,
        Some(&trace),
        &["--journal", journal.to_str().unwrap(), "--speed", "50"],
    );
    let events = eboard::journal::events_path(&journal);
    poll(60, "events journaled", || {
        let text = std::fs::read_to_string(&events).unwrap_or_default();
        (text.lines().count() >= 5).then_some(())
    });
    run.kill();
    (cfg, trace, journal)
}

/// Tears the last line of the journal's events file (a write cut short).
fn tear(journal: &Path) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(eboard::journal::events_path(journal))
        .unwrap();
    f.write_all(b"{\"t\":99,\"type\":\"mo").unwrap();
}

/// Resumes the board from `journal` with `env`, standard error into a file
/// of `dir`, and returns that standard error once the board serves.
fn resume(
    dir: &Path,
    (cfg, trace, journal): &(PathBuf, PathBuf, PathBuf),
    env: &[(&str, String)],
    name: &str,
) -> String {
    let stderr_path = dir.join(format!("{name}.stderr"));
    let stderr = std::fs::File::create(&stderr_path).unwrap();
    let id = stderr.metadata().unwrap();
    let mut cmd = eboard_command();
    cmd.args(["run", "--config", cfg.to_str().unwrap()])
        .args(["--trace", trace.to_str().unwrap()])
        .args(["--journal", journal.to_str().unwrap()])
        .stderr(stderr)
        .env_remove("RUST_LOG")
        .env_remove("JOURNAL_STREAM")
        .env_remove("EBOARD_ARBITER_TOKEN");
    for (k, v) in env {
        // `{stderr}` stands for the device:inode of the standard error file.
        cmd.env(
            k,
            v.replace("{stderr}", &format!("{}:{}", id.dev(), id.ino())),
        );
    }
    // Stopped as soon as it serves: the start-up log is complete by then.
    drop(spawn_command(cmd, stderr_path.clone(), None));
    std::fs::read_to_string(&stderr_path).unwrap()
}

#[test]
fn library_warnings_reach_standard_error() {
    let dir = tempdir("logging");
    let board = journaled_board(&dir);

    // A terminal or a file: a timestamped WARN line.
    tear(&board.2);
    let plain = resume(&dir, &board, &[], "plain");
    let line = plain
        .lines()
        .find(|l| l.contains(TORN))
        .unwrap_or_else(|| panic!("the warning on standard error: {plain}"));
    assert!(line.contains(" WARN "), "{line}");
    assert!(
        line.as_bytes()[..4].iter().all(u8::is_ascii_digit) && line.contains('T'),
        "a timestamp first: {line}"
    );
    assert!(line.contains("j.jsonl.events"), "the file named: {line}");
    assert!(!plain.contains('\u{1b}'), "no colours into a file: {plain}");
    // The daemon's report is logged too (info, the default level).
    assert!(plain.contains("INFO resumed"), "{plain}");

    // Under systemd: no timestamp, the syslog priority first.
    tear(&board.2);
    let journald = resume(
        &dir,
        &board,
        &[("JOURNAL_STREAM", "{stderr}".to_owned())],
        "journald",
    );
    assert!(
        journald.lines().any(|l| l
            == format!("<4>{TORN} file={}", {
                eboard::journal::events_path(&board.2).display()
            })),
        "{journald}"
    );
    assert!(
        journald.lines().all(|l| l.starts_with('<')),
        "every line with its priority: {journald}"
    );

    // JOURNAL_STREAM inherited but naming another stream: plain lines.
    tear(&board.2);
    let inherited = resume(
        &dir,
        &board,
        &[("JOURNAL_STREAM", "1:2".to_owned())],
        "inherited",
    );
    assert!(
        inherited
            .lines()
            .any(|l| l.contains(TORN) && !l.starts_with('<')),
        "{inherited}"
    );

    // RUST_LOG=error: the warning is filtered out.
    tear(&board.2);
    let quiet = resume(&dir, &board, &[("RUST_LOG", "error".to_owned())], "quiet");
    assert!(!quiet.contains(TORN), "{quiet}");
    assert!(!quiet.contains("INFO"), "{quiet}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A misspelt key under systemd: the last line is at priority err (`<3>`,
/// so `journalctl -u eboard -p err` shows it), names file, line and key,
/// and the exit status is 78 (EX_CONFIG), which the unit does not restart
/// (RestartPreventExitStatus=78): the unit ends `failed` at once.
#[test]
fn a_config_error_ends_at_priority_err_with_exit_78() {
    let dir = tempdir("log-config-error");
    let cfg = config(&dir, 3, 7, "");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let bad = text.replacen("round = 3", "round = 3\nrounds = 3", 1);
    assert_ne!(bad, text, "the config has `round = 3`: {text}");
    std::fs::write(&cfg, bad).unwrap();
    let stderr_path = dir.join("stderr");
    let stderr = std::fs::File::create(&stderr_path).unwrap();
    let id = stderr.metadata().unwrap();
    let status = run_command(&cfg)
        .stdin(std::process::Stdio::null())
        .stderr(stderr)
        .env("JOURNAL_STREAM", format!("{}:{}", id.dev(), id.ino()))
        .status()
        .unwrap();
    let log = std::fs::read_to_string(&stderr_path).unwrap();
    assert_eq!(status.code(), Some(78), "{log}");
    let last = log.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("<3>eboard: ") && last.contains("rounds"),
        "{log}"
    );
    // Outside systemd: the same line without the priority.
    let out = eboard(&["run", "--config", cfg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(78));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.lines()
            .last()
            .unwrap_or_default()
            .starts_with("eboard: "),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn records_of_the_log_crate_reach_the_subscriber() {
    use eboard::logging::{filter, init_with, subscriber, LogStyle, MemoryWriter};
    // What the binary installs (this test process has no other subscriber).
    init_with(LogStyle::Plain { ansi: false }, filter(Some("info")));
    let buf = MemoryWriter::default();
    let s = subscriber(
        LogStyle::Plain { ansi: false },
        filter(Some("info")),
        buf.clone(),
    );
    tracing::subscriber::with_default(s, || {
        log::warn!(target: "rumqttc::eventloop", "connection refused by the broker");
        log::debug!(target: "rustls::client", "not shown at info");
    });
    let text = buf.text();
    assert!(
        text.contains("WARN connection refused by the broker"),
        "{text:?}"
    );
    assert!(!text.contains("not shown"), "{text:?}");
}
