//! Issue 43 §1: every `eboard …` command of the user docs' code blocks
//! (docs/*.md, the README, hw/ and calibration/) is one eboard accepts as
//! written: run in an empty directory, none may end in a usage error
//! (clap's "Usage:", exit 2: a flag that does not exist, a value of the
//! wrong form, a missing argument). A command that then fails on what the
//! directory lacks (no `round.trf`, no broker) has passed that test; one
//! that starts serving is stopped after a few seconds. The optional parts
//! of a synopsis (`[--listen ADDR]`) are left out, a placeholder `…` too;
//! the leading `sudo -u eboard` and `VAR=value` assignments are dropped.
//!
//! Each command is then run to its end, with the files it names, by
//! `tests/docs_run.rs`.

use crate::common;

use common::doc_commands::{commands, root, user_docs, words};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `eboard ARGS` in `dir` for at most `secs`: (exit code or None when
/// it was still running, standard error).
fn run(dir: &Path, args: &[String], secs: u64) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eboard"))
        .args(args)
        .current_dir(dir)
        .env("RUST_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(secs);
    let code = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st.code();
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    (code, err)
}

fn usage_error(code: Option<i32>, err: &str) -> bool {
    code == Some(2) && err.contains("Usage:")
}

#[test]
fn every_command_of_the_user_docs_is_accepted_as_written() {
    let dir = common::tempdir("docs-commands");
    // The classification can fail: a misspelt flag is a usage error, a
    // missing file is not.
    let (code, err) = run(&dir, &words("eboard event round.trf --rounds 3"), 5);
    assert!(usage_error(code, &err), "{code:?} {err}");
    let (code, err) = run(&dir, &words("eboard event round.trf --round 3"), 5);
    assert!(!usage_error(code, &err) && code.is_some(), "{code:?} {err}");

    let mut all = Vec::new();
    for doc in user_docs() {
        for (line, command, args) in commands(&doc) {
            all.push((
                format!("{}:{line}", doc.strip_prefix(root()).unwrap().display()),
                command,
                args,
            ));
        }
    }
    assert!(all.len() >= 20, "commands found: {}", all.len());
    // Side by side: a command that starts serving takes its seconds.
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .iter()
            .enumerate()
            .map(|(i, (at, command, args))| {
                let dir = dir.join(i.to_string());
                s.spawn(move || {
                    std::fs::create_dir_all(&dir).unwrap();
                    let (code, err) = run(&dir, args, 4);
                    usage_error(code, &err).then(|| format!("{at}: `{command}`:\n{err}"))
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    std::fs::remove_dir_all(&dir).ok();
}
