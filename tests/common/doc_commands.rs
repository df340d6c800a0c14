//! The `eboard …` commands of the user docs' code blocks, as a user would
//! type them: found by [`commands`] in [`user_docs`], split into words by
//! [`words`] (`tests/docs_commands.rs` checks each is accepted,
//! `tests/docs_run.rs` runs each to its end), and what runs one in a
//! directory of its own ([`Doc`]) with the files it names made from the
//! repository ([`local_path`], [`local_file`], [`pairing_file`],
//! [`results_csv`]).

use super::process::{eboard_command, spawn_command, Running};
use super::unique;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root (a fresh clone: nothing outside it is read).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The user docs whose commands are read: the README, `hw/`, `hw/kit/`,
/// `calibration/` and every page of `docs/` (not `docs/dev/`).
pub fn user_docs() -> Vec<PathBuf> {
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
pub fn commands(doc: &Path) -> Vec<(usize, String, Vec<String>)> {
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
pub fn words(command: &str) -> Vec<String> {
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

/// One command of the docs: where it is, as written, its words.
pub struct Doc {
    pub at: String,
    pub command: String,
    pub args: Vec<String>,
    pub dir: PathBuf,
}

impl Doc {
    /// The value after `flag`, if the command has it.
    pub fn value(&self, flag: &str) -> Option<&str> {
        let at = self.args.iter().position(|a| a == flag)?;
        self.args.get(at + 1).map(String::as_str)
    }

    /// A file of the command's directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Its arguments with the paths under `/etc`, `/var`, `/media` in its
    /// directory, `hosts` (from, to) replaced, without `--listen [ADDR]`.
    pub fn local_args(&self, hosts: &[(&str, String)]) -> Vec<String> {
        let mut out = Vec::new();
        let mut args = self.args.iter().peekable();
        while let Some(a) = args.next() {
            if a == "--listen" {
                if args.peek().is_some_and(|v| !v.starts_with('-')) {
                    args.next();
                }
                continue;
            }
            let mut a = local_path(&self.dir, a);
            for (from, to) in hosts {
                a = a.replace(from, to);
            }
            out.push(a);
        }
        out
    }

    /// `eboard ARGS` in its directory with `envs`, not yet started.
    pub fn command(&self, args: &[String], envs: &[(&str, &str)]) -> Command {
        let mut c = eboard_command();
        c.args(args)
            .current_dir(&self.dir)
            .env("RUST_LOG", "warn")
            .envs(envs.iter().copied());
        c
    }

    /// Runs `eboard ARGS` to its end: its output, which must say exit 0.
    pub fn finish(&self, args: &[String], envs: &[(&str, &str)]) -> String {
        let out = self
            .command(args, envs)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?}\n{said}", out.status);
        said
    }

    /// Starts `eboard ARGS` serving on a free loopback port.
    pub fn serve(&self, args: &[String], envs: &[(&str, &str)]) -> Running {
        let stderr = self.dir.join(format!("stderr-{}.txt", unique()));
        let mut c = self.command(args, envs);
        c.stderr(std::fs::File::create(&stderr).unwrap());
        spawn_command(c, stderr, None)
    }
}

/// `arg` with a path under `/etc`, `/var` or `/media` taken inside `dir`
/// (its parent made).
pub fn local_path(dir: &Path, arg: &str) -> String {
    if !["/etc/", "/var/", "/media/"]
        .iter()
        .any(|p| arg.starts_with(p))
    {
        return arg.to_owned();
    }
    let p = dir.join(arg.trim_start_matches('/'));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    p.to_str().unwrap().to_owned()
}

/// The text of `file` (in the repository) with its `/etc/` and `/var/`
/// paths inside `dir`, as [`local_path`] takes them.
pub fn local_file(dir: &Path, file: &str) -> String {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    for d in ["etc/eboard", "var/lib"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let d = dir.to_str().unwrap();
    text.replace("\"/etc/", &format!("\"{d}/etc/"))
        .replace("\"/var/", &format!("\"{d}/var/"))
}

/// The pairing file a command names, from `tests/data/`: a round robin's
/// (`club-rr.trf`), round 3 paired and not yet played (a Swiss of 13), or
/// round 4 (the Swiss of 9 whose round 4 `docs/event.md` prints).
pub fn pairing_file(doc: &Doc, name: &str) -> PathBuf {
    let data = if name.contains("-rr") {
        "round-robin-6.trf"
    } else if doc.value("--round") == Some("3") {
        "standings-open-2026.trf"
    } else {
        "pairings-open-2026.trf"
    };
    let to = doc.path(name);
    std::fs::copy(root().join("tests/data").join(data), &to).unwrap();
    to
}

/// The round of `trf` as the console's results CSV saves it, every game
/// confirmed (`1-0`, `1/2-1/2`, `0-1` in turn).
pub fn results_csv(trf: &Path, round: u32) -> String {
    use eboard::event::results::{to_csv, GameResult};
    let text = std::fs::read_to_string(trf).unwrap();
    let r = eboard::event::read_round(&text, "round.trf", round).unwrap();
    let results: Vec<GameResult> = r
        .pairings
        .iter()
        .enumerate()
        .map(|(i, p)| GameResult {
            event: r.event.clone(),
            round,
            board: i as u32 + 1,
            white: p.white.clone(),
            black: p.black.clone(),
            result: ["1-0", "1/2-1/2", "0-1"][i % 3].to_owned(),
            status: Some("confirmed".to_owned()),
            reason: None,
        })
        .collect();
    to_csv(&results)
}

/// The doctor's row `check`: its status and detail.
pub fn row<'a>(said: &'a str, check: &str) -> (&'a str, &'a str) {
    let line = said
        .lines()
        .find(|l| l.split_whitespace().next() == Some(check))
        .unwrap_or_else(|| panic!("no {check} row:\n{said}"));
    let mut w = line.split_whitespace();
    w.next();
    let status = w.next().unwrap();
    (status, line.split_once(status).unwrap().1.trim())
}
