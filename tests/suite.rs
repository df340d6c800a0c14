//! The integration tests as one test binary (issue 39 §5: CI time).
//!
//! Each file of `tests/` is a module here, not a binary of its own: the
//! shared fixtures of `tests/common` are compiled once instead of once per
//! file, the crate graph (eboard, tokio, axum, rustls …) is linked once
//! instead of 86 times, and libtest runs the tests of every file side by
//! side on the machine's cores, where 86 binaries ran one after another
//! (a binary with one 80-second test held one core). `Cargo.toml` sets
//! `autotests = false` and names this binary and the four files that keep
//! a process of their own, because they change the process for every test
//! in it or need the machine to themselves:
//!
//! - `scan_alloc.rs` installs a counting global allocator (it counts every
//!   allocation of the process);
//! - `voice_ears.rs` and `voice_outputs.rs` set `ALSA_CONFIG_PATH` for the
//!   process, which every `aplay` and daemon a test of this binary starts
//!   would inherit;
//! - `voice_game.rs` speaks four languages' whole games at once in real
//!   time and checks each phrase plays within its length: beside the other
//!   tests (load 7) its phrases played 30 % over.
//!
//! Run one file's tests with `cargo test --test suite <file>::`, e.g.
//! `cargo test --test suite mqtt_console::`. A new file of `tests/` must be
//! named below (or in `Cargo.toml`): `every_test_file_is_compiled` fails
//! otherwise, since with `autotests = false` cargo would skip it silently.
//! `no_long_file_without_its_reason` holds every source file to issue 39
//! §2's rule: over 600 lines only with its reason at the top.

mod common;

mod a52_illegal;
mod ambiguous;
mod articles;
mod claims;
mod clock_builtin_hal;
mod clock_dgt_faults;
mod clock_dgt_pty;
mod clock_fide;
mod clock_model;
mod clock_replay;
mod console;
mod console_browser;
mod console_overview_browser;
mod console_phone_alert_browser;
mod console_question_browser;
mod console_resolved;
mod console_resolved_browser;
mod console_restart;
mod console_rulings_browser;
mod contract;
mod copies;
mod copies_rewind;
mod corners;
mod corpus;
mod cross_site_browser;
mod daemon;
mod daemon_clock;
mod docs;
mod docs_commands;
mod docs_run;
mod doctor;
mod doctor_devices;
mod doctor_network;
mod double_forfeit;
mod event;
mod event_boards;
mod events_damage;
mod feed_golden;
mod feeds_polling;
mod fide2023;
mod fuzz_readers;
mod hall_browser;
mod increment_request;
mod journal_daemon;
mod journal_damage;
mod kit;
mod laws_heldout;
mod lichess_push;
mod live_page;
mod live_page_a11y;
mod live_round_browser;
mod live_standings_browser;
mod logging;
mod login_flood;
mod mqtt;
mod mqtt_bound;
mod mqtt_console;
mod mqtt_dropped;
mod mqtt_missed;
mod mqtt_offline;
mod mqtt_queue_damage;
mod mqtt_scale;
mod mqtt_stale_alert;
mod names;
mod orientation;
mod package;
mod paperwork;
mod pause;
mod pgn_consumers;
mod pgn_tools;
mod player_device;
mod properties;
mod public_reasons;
mod readme_commands;
mod relay;
mod relay_bound;
mod relay_split_proxy;
mod restart_moments;
mod restart_pause;
mod restart_think;
mod round;
mod ruling_refusals;
mod rulings;
mod scenarios;
mod sensors;
mod server_limits;
mod server_reserve;
mod service;
mod setup;
mod shutdown;
mod sse_resume;
mod standings;
mod tactile;
mod transfer;
mod trial;
mod unpressed;
mod unsupervised;
mod vi_game;
mod vi_speech;
mod voice;
mod voice_alert;
mod voice_answers;
mod voice_duration;

/// Every `tests/*.rs` is compiled into a test binary: a module of this
/// file, or a `[[test]]` of its own in `Cargo.toml`.
#[test]
fn every_test_file_is_compiled() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = std::fs::read_to_string(dir.join("tests/suite.rs")).unwrap();
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(dir.join("tests")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let name = file.trim_end_matches(".rs");
        let as_module = suite.lines().any(|l| l == format!("mod {name};"));
        let as_binary = manifest.contains(&format!("path = \"tests/{file}\""));
        if !as_module && !as_binary {
            missing.push(file);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/ files compiled into no test binary (name them in tests/suite.rs \
         as `mod NAME;`, or give them a [[test]] in Cargo.toml): {missing:?}"
    );
}

/// Issue 39 §2: no file past 600 lines without its reason at the top.
/// Every git-tracked `.rs` file under `src/`, `tests/` and `benches/` of
/// more than 600 lines says why it is one file in a line of its first 40
/// that starts `//! One file:` (or `// One file:` where the file has no
/// module doc); one that does not is split by concern
/// (`docs/dev/architecture.md`, "Files over about 600 lines").
#[test]
fn no_long_file_without_its_reason() {
    const MOST_LINES: usize = 600;
    const HEAD_LINES: usize = 40;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = std::process::Command::new("git")
        .args(["ls-files", "-z", "--", "src", "tests", "benches"])
        .current_dir(dir)
        .output()
        .expect("git ls-files: the guard lists the tracked files with git");
    assert!(
        listed.status.success(),
        "git ls-files in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&listed.stderr)
    );
    let mut long = Vec::new();
    for file in String::from_utf8_lossy(&listed.stdout).split('\0') {
        if !file.ends_with(".rs") {
            continue;
        }
        // A tracked file deleted in the working tree is not there to measure.
        let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
            continue;
        };
        let lines = text.lines().count();
        let reason = text.lines().take(HEAD_LINES).any(|l| {
            let l = l.trim_start();
            l.starts_with("//! One file:") || l.starts_with("// One file:")
        });
        if lines > MOST_LINES && !reason {
            long.push(format!("{file} ({lines} lines)"));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MOST_LINES} lines with no `//! One file:` (or `// One file:`) \
         line in their first {HEAD_LINES} saying why; split them by concern or \
         state the reason: {}",
        long.join(", ")
    );
}
