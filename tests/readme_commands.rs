//! The README's command table against the binary (issue 43 §2): every
//! command of `eboard --help` has a row, every flag of `eboard CMD --help`
//! is named in that command's rows, and no help text points to
//! `../shared` (a clone does not have it).

use crate::common;

use common::*;
use std::collections::BTreeSet;

/// The commands of `eboard --help` (without `help`).
fn commands() -> Vec<String> {
    let help = String::from_utf8(eboard(&["--help"]).stdout).unwrap();
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// The long flags of `text` (`--journal-dir`), without `--help` and
/// `--version`.
fn flags(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        rest = &rest[at + 2..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        if name.len() > 1 && name != "help" && name != "version" {
            out.insert(format!("--{name}"));
        }
    }
    out
}

#[test]
fn the_readme_names_every_command_and_every_flag_of_its_help() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut missing = Vec::new();
    let cmds = commands();
    assert!(cmds.len() >= 12, "{cmds:?}");
    for cmd in &cmds {
        let out = eboard(&[cmd, "--help"]);
        let help = String::from_utf8(out.stdout).unwrap();
        let options = help.split("Options:").nth(1).unwrap_or("");
        // Each option's long flag and its short one (`-o, --output`): the
        // table may use either.
        let wanted: Vec<(String, Option<String>)> = options
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with('-'))
            .filter_map(|l| {
                let short = l
                    .strip_prefix('-')
                    .filter(|r| r.as_bytes().get(1) == Some(&b','))
                    .map(|r| format!("-{}", &r[..1]));
                let long = flags(l.split("  ").next().unwrap_or(""))
                    .into_iter()
                    .next()?;
                Some((long, short))
            })
            .collect();
        // The first cells of the table's rows for this command (`\|`
        // inside a cell is a `|` of the synopsis).
        let cells: Vec<String> = readme
            .lines()
            .filter(|l| l.starts_with(&format!("| `eboard {cmd}")))
            .map(|l| {
                l.replace("\\|", "/")
                    .split('|')
                    .nth(1)
                    .unwrap_or("")
                    .to_owned()
            })
            .collect();
        if cells.is_empty() {
            missing.push(format!("eboard {cmd}: no row"));
            continue;
        }
        let named: BTreeSet<String> = cells.iter().flat_map(|c| flags(c)).collect();
        for (long, short) in &wanted {
            let short_named = short.as_ref().is_some_and(|s| {
                cells
                    .iter()
                    .any(|c| c.contains(&format!("{s} ")) || c.contains(&format!("{s}]")))
            });
            if !named.contains(long) && !short_named {
                missing.push(format!("eboard {cmd} {long}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the README's command table lacks: {missing:?}"
    );
}

#[test]
fn no_help_text_points_to_the_shared_directory_a_clone_lacks() {
    let mut texts = vec![("eboard --help".to_owned(), eboard(&["--help"]).stdout)];
    for cmd in commands() {
        texts.push((
            format!("eboard {cmd} --help"),
            eboard(&[&cmd, "--help"]).stdout,
        ));
    }
    for (what, out) in texts {
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("../shared"), "{what}: {text}");
    }
}

/// Issue 43 §2: the user docs (docs/*.md, hw/, calibration/, hw/kit/) name
/// their sources as published, never a path into the development
/// material a clone or a package does not have. `docs/dev/` is for
/// developers and may.
#[test]
fn no_user_doc_points_to_the_shared_directory() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for dir in ["docs", "hw", "hw/kit", "calibration"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    assert!(
                        !line.contains("../shared") && !line.contains("seed 00"),
                        "{}:{}: {line}",
                        path.display(),
                        n + 1
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "{checked} docs read");
}
