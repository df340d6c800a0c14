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
//! The commands that run whole with files of this repository are run for
//! real by their own tests: `eboard event` on TRF files (`tests/event.rs`),
//! `eboard kit` (`tests/kit.rs`), `eboard results` (`tests/event.rs`), the
//! docs' marked shell blocks (`tests/docs.rs`).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The user docs read.
fn user_docs() -> Vec<PathBuf> {
    let mut out = vec![
        root().join("README.md"),
        root().join("hw/README.md"),
        root().join("hw/kit/README.md"),
        root().join("calibration/README.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// Every `eboard …` command line in the code blocks of `doc`: (line, the
/// command as written, its words to run).
fn commands(doc: &Path) -> Vec<(usize, String, Vec<String>)> {
    let text = std::fs::read_to_string(doc).unwrap();
    let mut out = Vec::new();
    let (mut in_block, mut joined, mut first) = (false, String::new(), 0);
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            joined.clear();
            continue;
        }
        if !in_block || line.trim_start().starts_with('#') {
            continue;
        }
        if joined.is_empty() {
            first = n + 1;
        }
        // A comment after the command, then a continuation line.
        let code = match line.find(" #") {
            Some(at) => &line[..at],
            None => line,
        };
        if let Some(cont) = code.trim_end().strip_suffix('\\') {
            joined.push_str(cont);
            joined.push(' ');
            continue;
        }
        joined.push_str(code);
        let whole = std::mem::take(&mut joined);
        let Some(at) = whole.find("eboard ").filter(|&at| {
            let before = &whole[..at];
            before.trim().is_empty() || before.ends_with(' ')
        }) else {
            continue;
        };
        let command = whole[at..].trim().to_owned();
        // `sudo -u eboard eboard doctor`: the second `eboard` is the command.
        let command = command
            .strip_prefix("eboard eboard ")
            .map(|rest| format!("eboard {rest}"))
            .unwrap_or(command);
        let starts_with_a_command = command
            .get("eboard ".len()..)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_lowercase()));
        if !starts_with_a_command {
            continue;
        }
        out.push((first, command.clone(), words(&command)));
    }
    out
}

/// The words of a command as the shell would split them (double quotes
/// kept together), without optional `[…]` groups and `…` placeholders.
fn words(command: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut depth = 0;
    for c in command.chars() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let mut out = Vec::new();
    let (mut word, mut quoted, mut any) = (String::new(), false, false);
    for c in plain.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out.retain(|w| w != "…");
    out.remove(0); // "eboard"
    out
}

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
