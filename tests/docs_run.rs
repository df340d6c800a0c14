//! Issue 43 §1: every `eboard …` command of the user docs' code blocks
//! runs as written, to its end, with what a fresh clone has (no
//! `../shared`): each in a directory of its own, given the files it names,
//! made from the repository (the pairing files of `tests/data/`, the
//! examples of `docs/examples/` and `pkg/`, the designs of `hw/`, the
//! Opera Game as a trace), and checked for what its doc promises: exit 0,
//! the files it says it writes (and that they read back), the lines it
//! says it prints, the page or feed it says it serves (then stopped).
//!
//! What a test machine has not is put in its place, always the same way:
//!
//! - a path under `/etc`, `/var` or `/media` is taken inside the command's
//!   directory (`/etc/eboard` → `DIR/etc/eboard`), in the command and in
//!   the example config it reads;
//! - a listening address (`--listen`, `--listen ADDR`) is a free port on
//!   loopback; a synopsis's optional `[…]` parts are the test's;
//! - a host (`10.0.0.21:8080`, `broker:1883`, `broker.hall.example:8883`)
//!   is a board, a mosquitto or a TLS mosquitto (the test CA's `ca.pem`,
//!   the logins `USER` / `USER-pw`) the test starts on loopback; lichess
//!   is the tests' fake of its push endpoint.
//!
//! A command that needs more than that says so in [`LIMITED`] with the
//! reason, and is checked as far as it can be.

use crate::common;

use common::doc_commands::*;
use common::mosquitto::{broker, retained_json, tls_broker};
use common::process::Running;
use common::*;
use std::path::{Path, PathBuf};

/// The commands run with one thing more than the doc writes, and why.
const LIMITED: &[(&str, &str)] = &[
    (
        "eboard event round.trf --round 3 --mqtt mqtts://broker.hall.example:8883 --mqtt-username organiser",
        "the hall's broker has a certificate of a public CA; the test's TLS broker has the test CA's, given with --mqtt-ca-file ca.pem",
    ),
    (
        "eboard relay --config relay.toml --event \"DM 2026\"",
        "docs/examples/relay.toml: the example's broker (mqtts://broker.hall.example:8883) is the test's TLS broker, its [mqtt] ca_file the test CA",
    ),
    (
        "eboard doctor",
        "a test machine has no /etc/eboard/eboard.toml: the doctor must name it; the packaged config (pkg/eboard.toml) is then checked with --config and --journal-dir",
    ),
];

/// The lines of `docs/event.md`'s block that shows what `eboard event`
/// prints for round 4.
fn event_doc_output() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("docs/event.md")).unwrap();
    let at = text
        .find("```\nDM 2026 round 4:")
        .expect("the printed round");
    let block = &text[at + 4..];
    let end = block.find("```").unwrap();
    block[..end].lines().map(str::to_owned).collect()
}

fn event(doc: &Doc) {
    let file = &doc.args[1];
    let round: u32 = doc.value("--round").unwrap().parse().unwrap();
    if file.ends_with(".csv") {
        std::fs::write(
            doc.path(file),
            "board,white,black,white_fide_id,black_fide_id\n\
             1,\"Iversen, Emil\",\"Dahl, Ingrid\",1400009,1500004\n\
             2,\"Frandsen, Lars\",\"Andersen, Mads\",1400006,1400001\n",
        )
        .unwrap();
    } else {
        pairing_file(doc, file);
    }
    if let Some(base) = doc.value("--base") {
        std::fs::write(
            doc.path(base),
            local_file(&doc.dir, "docs/examples/board-http.toml"),
        )
        .unwrap();
    }
    let (said, broker) = match doc.value("--mqtt") {
        Some(url) if url.starts_with("mqtts://") => {
            let Some((b, _pki)) = tls_broker(&doc.dir, &[("organiser", "organiser-pw")]) else {
                return;
            };
            let host = url.trim_start_matches("mqtts://").to_owned();
            let mut args = doc.local_args(&[(&host, format!("localhost:{}", b.port))]);
            args.extend(["--mqtt-ca-file".into(), "ca.pem".into()]);
            (
                doc.finish(&args, &[("EBOARD_MQTT_PASSWORD", "organiser-pw")]),
                Some(b),
            )
        }
        Some(url) => {
            let Some(b) = broker(&doc.dir) else { return };
            let host = url.trim_start_matches("mqtt://").to_owned();
            let args = doc.local_args(&[(&host, format!("127.0.0.1:{}", b.port))]);
            (doc.finish(&args, &[]), Some(b))
        }
        None => (doc.finish(&doc.local_args(&[]), &[]), None),
    };
    assert!(said.contains(&format!("round {round}: ")), "{said}");
    if file == "round4.trf" && doc.value("--event") == Some("DM 2026") {
        for line in event_doc_output() {
            assert!(
                said.contains(&line),
                "docs/event.md prints {line:?}; eboard:\n{said}"
            );
        }
    }
    if let Some(out) = doc.value("--out") {
        let out = PathBuf::from(local_path(&doc.dir, out));
        let out = if out.is_absolute() {
            out
        } else {
            doc.path(out.to_str().unwrap())
        };
        let one = std::fs::read_to_string(out.join("board-1.toml")).expect("board-1.toml written");
        let v: toml::Value = toml::from_str(&one).unwrap();
        if doc.value("--base").is_some() {
            assert_eq!(
                v["game"]["round"].as_integer(),
                Some(i64::from(round)),
                "{one}"
            );
            assert!(v.get("board").is_some(), "a whole config: {one}");
        } else {
            assert_eq!(v["round"].as_integer(), Some(i64::from(round)), "{one}");
        }
    }
    if let (Some(b), Some(url)) = (&broker, doc.value("--mqtt")) {
        if url.starts_with("mqtt://") {
            let event = doc
                .value("--event")
                .unwrap_or("dm-2026")
                .to_lowercase()
                .replace(' ', "-");
            let config = retained_json(b.port, "reader", &format!("eboard/{event}/board/1/config"));
            assert_eq!(config["round"], round, "{config}");
        } else {
            assert!(said.contains("published"), "{said}");
        }
    }
}

fn results(doc: &Doc) {
    let trf = pairing_file(doc, &doc.args[1]);
    let round = doc.value("--round").map_or(4, |r| r.parse().unwrap());
    std::fs::write(doc.path("results.csv"), results_csv(&trf, round)).unwrap();
    let said = doc.finish(&doc.local_args(&[]), &[]);
    let out = std::fs::read_to_string(doc.path(doc.value("-o").unwrap())).expect("the TRF written");
    let before = std::fs::read_to_string(&trf).unwrap();
    assert_ne!(out, before, "results written: {said}");
    let back = eboard::event::read_round(&out, "out.trf", round).unwrap();
    assert!(!back.pairings.is_empty(), "{said}");
}

fn kit(doc: &Doc) {
    let hw = doc.path("hw");
    std::fs::create_dir_all(&hw).unwrap();
    let names: Vec<String> = std::fs::read_dir(root().join("hw"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".toml").map(str::to_owned))
        .collect();
    assert!(names.len() >= 5, "{names:?}");
    for name in names {
        std::fs::copy(
            root().join(format!("hw/{name}.toml")),
            hw.join(format!("{name}.toml")),
        )
        .unwrap();
        let args: Vec<String> = doc.args.iter().map(|a| a.replace("NAME", &name)).collect();
        doc.finish(&args, &[]);
        for ext in ["md", "svg"] {
            let made = std::fs::read(hw.join(format!("kit/{name}.{ext}"))).unwrap();
            let kept = std::fs::read(root().join(format!("hw/kit/{name}.{ext}"))).unwrap();
            assert!(
                made == kept,
                "hw/kit/{name}.{ext} is not what `eboard kit` makes"
            );
        }
    }
}

fn doctor(doc: &Doc) {
    if doc.value("--config").is_none() {
        if Path::new("/etc/eboard/eboard.toml").exists() {
            return; // a machine with the package: its own doctor
        }
        let out = doc.command(&doc.args, &[]).output().unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{said}");
        let (status, detail) = row(&said, "config");
        assert_eq!(status, "FAIL");
        assert!(
            detail.starts_with("/etc/eboard/eboard.toml: cannot read"),
            "{said}"
        );
        // The packaged config, where the package puts it.
        let cfg = local_path(&doc.dir, "/etc/eboard/eboard.toml");
        std::fs::copy(root().join("pkg/eboard.toml"), &cfg).unwrap();
        let jdir = local_path(&doc.dir, "/var/lib/eboard");
        std::fs::create_dir_all(&jdir).unwrap();
        let args = ["doctor", "--config", &cfg, "--journal-dir", &jdir].map(String::from);
        let out = doc.command(&args, &[]).output().unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        for (check, status) in [
            ("config", "ok"),
            ("sensors", "skip"),
            ("disk", "ok"),
            ("game", "ok"),
            ("rules", "ok"),
        ] {
            assert_eq!(row(&said, check).0, status, "{check}:\n{said}");
        }
        return;
    }
    // The relay's: the HTTP relay of docs/examples/ with its pairings.
    let args = doc.local_args(&[]);
    let cfg = args
        .iter()
        .position(|a| a == "--config")
        .map(|i| args[i + 1].clone())
        .unwrap();
    std::fs::write(&cfg, local_file(&doc.dir, "docs/examples/relay-http.toml")).unwrap();
    let trf = local_path(&doc.dir, "/etc/eboard/round.trf");
    std::fs::copy(root().join("tests/data/standings-open-2026.trf"), trf).unwrap();
    let out = doc.command(&args, &[]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(row(&said, "config").1.contains("a relay's"), "{said}");
    assert!(
        row(&said, "accounts")
            .1
            .contains("IA Hansen (arbiter), Deputy Dam (deputy)"),
        "{said}"
    );
    assert!(
        row(&said, "pairings")
            .1
            .contains("13 players, rounds 1–3 paired"),
        "{said}"
    );
    for (check, status) in [
        ("config", "ok"),
        ("accounts", "ok"),
        ("pairings", "ok"),
        ("disk", "ok"),
        ("https", "ok"),
        ("lichess", "skip"),
    ] {
        assert_eq!(row(&said, check).0, status, "{check}:\n{said}");
    }
}

/// A board of the tests (`common::config`, round `round`, table `n`,
/// `extra` keys) playing the Opera Game, in `doc`'s directory.
fn board(doc: &Doc, round: u32, n: u32, extra: &str, more: &[&str]) -> Running {
    let d = doc.path(&format!("board-{n}"));
    std::fs::create_dir_all(&d).unwrap();
    let cfg = config(&d, round, n, extra);
    let trace = opera_trace(&d, u64::from(n));
    let mut args = vec!["--speed", "20", "--delay", "0"];
    args.extend_from_slice(more);
    run_board(&d, &cfg, Some(&trace), &args)
}

/// Waits until `addr`'s `/games.pgn` has `text`; the page `/` answers too.
fn serves(addr: &str, text: &str) {
    assert!(get(addr, "/").contains("<html"), "the live page at {addr}");
    poll(60, &format!("{text} in {addr}/games.pgn"), || {
        get(addr, "/games.pgn").contains(text).then_some(())
    });
}

fn run(doc: &Doc) {
    if doc
        .value("--journal")
        .is_some_and(|j| j.starts_with("/var/"))
    {
        // docs/mqtt.md's board over the broker, its journal where the
        // package keeps it.
        let Some(b) = broker(&doc.dir) else { return };
        config(&doc.dir, 3, 1, &format!("[mqtt]\nurl = \"{}\"\n", b.url()));
        let r = doc.serve(&doc.local_args(&[]), &[]);
        let status = retained_json(b.port, "reader", "eboard/dm-2026/board/1/status");
        assert_eq!(status["status"], "online", "{status}");
        assert!(PathBuf::from(local_path(&doc.dir, doc.value("--journal").unwrap())).exists());
        drop(r);
        return;
    }
    // docs/broadcast.md's synopsis, its optional parts the test's.
    config(&doc.dir, 1, 1, "");
    opera_trace(&doc.dir, 1);
    let mut args = doc.local_args(&[]);
    args.extend(
        [
            "--delay",
            "0",
            "--journal",
            "board1.jsonl",
            "--trace",
            "game.jsonl",
            "--speed",
            "20",
        ]
        .map(String::from),
    );
    let r = doc.serve(&args, &[]);
    serves(&r.addr, "[White \"Morphy, Paul\"]");
    assert!(doc.path("board1.jsonl").exists());
}

fn demo(doc: &Doc) {
    let r = doc.serve(&doc.local_args(&[]), &[]);
    serves(&r.addr, "Morphy");
}

/// `docs/mqtt.md`'s relays: a board of round 3 publishing to the broker,
/// the relay following it; with `push.toml`, pushing to a fake lichess.
fn relay_mqtt(doc: &Doc, tls: bool) {
    let users = [
        ("relay", "relay-pw"),
        ("console", "console-pw"),
        ("board1", "board1-pw"),
    ];
    let (b, url, ca) = if tls {
        let Some((b, pki)) = tls_broker(&doc.dir, &users) else {
            return;
        };
        let url = format!("mqtts://localhost:{}", b.port);
        (b, url, Some(pki.ca))
    } else {
        let Some(b) = broker(&doc.dir) else { return };
        let url = b.url();
        (b, url, None)
    };
    let login = match &ca {
        Some(ca) => format!(
            "username = \"board1\"\npassword = \"board1-pw\"\nca_file = \"{}\"\n",
            ca.display()
        ),
        None => String::new(),
    };
    // With the example relay.toml the relay knows the round's pairings
    // (its [arbiter] pairings): the board plays table 1's as `eboard event`
    // gives it (the organiser's step), else the relay drops its game.
    let mut pairing = vec![];
    if doc.value("--config") == Some("relay.toml") {
        let cfg = local_file(&doc.dir, "docs/examples/relay.toml")
            .replace("mqtts://broker.hall.example:8883", &url)
            .replace(
                "username = \"console\"",
                &format!(
                    "username = \"console\"\nca_file = \"{}\"",
                    ca.as_ref().unwrap().display()
                ),
            );
        std::fs::write(doc.path("relay.toml"), cfg).unwrap();
        let trf = local_path(&doc.dir, "/etc/eboard/round.trf");
        std::fs::copy(root().join("tests/data/standings-open-2026.trf"), &trf).unwrap();
        let key = local_path(&doc.dir, "/etc/eboard/console.key");
        doc.finish(&["rule", "--keygen", &key].map(String::from), &[]);
        let out = doc.path("cfg");
        doc.finish(
            &[
                "event",
                &trf,
                "--round",
                "3",
                "--out",
                out.to_str().unwrap(),
            ]
            .map(String::from),
            &[],
        );
        pairing = vec![
            "--pairing".to_owned(),
            out.join("board-1.toml").to_str().unwrap().to_owned(),
        ];
    }
    let _board = board(
        doc,
        3,
        1,
        &format!("[mqtt]\nurl = \"{url}\"\n{login}"),
        &refs(&pairing),
    );
    let host = |u: &str| u.split("://").nth(1).unwrap_or(u).to_owned();
    let mut hosts = vec![];
    if let Some(u) = doc.value("--mqtt") {
        hosts.push((host(u), host(&url)));
    }
    let hosts: Vec<(&str, String)> = hosts.iter().map(|(f, t)| (f.as_str(), t.clone())).collect();
    let mut envs = vec![];
    let rt = round::runtime();
    let mut lichess = None;
    if doc.value("--config") == Some("push.toml") {
        let (addr, received) = common::lichess::serve_fake_lichess(&rt, 0);
        std::fs::write(
            doc.path("push.toml"),
            format!("[lichess]\nround_id = \"AbCd1234\"\nbase_url = \"http://{addr}\"\n"),
        )
        .unwrap();
        envs.push(("EBOARD_LICHESS_TOKEN", "lip_test"));
        lichess = Some(received);
    }
    let user = doc.value("--mqtt-username").unwrap_or("console");
    let password = format!("{user}-pw");
    if tls {
        envs.push(("EBOARD_MQTT_PASSWORD", password.as_str()));
    }
    let r = doc.serve(&doc.local_args(&hosts), &envs);
    serves(&r.addr, "[Round \"3.1\"]");
    if let Some(received) = lichess {
        poll(60, "a push to lichess with the game", || {
            let r = received.lock().unwrap();
            r.calls
                .iter()
                .any(|c| c.0 == "AbCd1234" && c.3.contains("Morphy"))
                .then_some(())
        });
    }
    drop(b);
}

fn relay(doc: &Doc) {
    if doc.value("--mqtt").is_some() || doc.value("--config").is_some() {
        let tls = doc
            .value("--mqtt")
            .is_some_and(|u| u.starts_with("mqtts://"))
            || doc.value("--config") == Some("relay.toml");
        return relay_mqtt(doc, tls);
    }
    // docs/broadcast.md's HTTP relay of two boards.
    let boards: Vec<Running> = (1..=2).map(|n| board(doc, 1, n, "", &[])).collect();
    let hosts: Vec<(&str, String)> = ["10.0.0.21:8080", "10.0.0.22:8080"]
        .into_iter()
        .zip(boards.iter().map(|b| b.addr.clone()))
        .collect();
    let r = doc.serve(&doc.local_args(&hosts), &[]);
    serves(&r.addr, "[Round \"1.1\"]");
    serves(&r.addr, "[Round \"1.2\"]");
}

/// Runs `doc` to its end; panics with what went wrong.
fn run_to_end(doc: &Doc) {
    match doc.args[0].as_str() {
        "event" => event(doc),
        "results" => results(doc),
        "kit" => kit(doc),
        "doctor" => doctor(doc),
        "run" => run(doc),
        "relay" => relay(doc),
        "demo" => demo(doc),
        other => panic!("no way to run `eboard {other}` here: add one to tests/docs_run.rs"),
    }
}

#[test]
fn every_command_of_the_user_docs_runs_to_its_end() {
    let dir = tempdir("docs-run");
    let mut all = Vec::new();
    for doc in user_docs() {
        for (line, command, args) in commands(&doc) {
            let at = format!("{}:{line}", doc.strip_prefix(root()).unwrap().display());
            all.push((at, command, args));
        }
    }
    assert!(all.len() >= 20, "commands found: {}", all.len());
    let plain = |c: &str| c.split_whitespace().collect::<Vec<_>>().join(" ");
    for (limited, _) in LIMITED {
        assert!(
            all.iter().any(|(_, c, _)| plain(c) == *limited),
            "LIMITED names a command no doc has: {limited}"
        );
    }
    let docs: Vec<Doc> = all
        .into_iter()
        .enumerate()
        .map(|(i, (at, command, args))| {
            let d = dir.join(i.to_string());
            std::fs::create_dir_all(&d).unwrap();
            Doc {
                at,
                command,
                args,
                dir: d,
            }
        })
        .collect();
    // Four at a time: each may start a broker, boards and a relay.
    let mut failures = Vec::new();
    for chunk in docs.chunks(4) {
        std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|d| (d, s.spawn(move || run_to_end(d))))
                .collect();
            for (d, h) in handles {
                if let Err(e) = h.join() {
                    let why = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_default();
                    failures.push(format!("{}: `{}`:\n{why}", d.at, d.command));
                }
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `eboard results` given the results of another round than `--round`
/// refuses them: it wrote the pairings back unchanged and said nothing,
/// as if the round had no result (`organiser.md`'s `--round 3` with a
/// round 4 file). Games of another round beside the round's are left
/// out, named.
#[test]
fn results_of_another_round_are_refused_not_written_as_none() {
    let dir = tempdir("results-round");
    let trf = dir.join("round.trf");
    std::fs::copy(root().join("tests/data/pairings-open-2026.trf"), &trf).unwrap();
    let csv = results_csv(&trf, 4);
    std::fs::write(dir.join("results.csv"), &csv).unwrap();
    let results = |round: &str| {
        eboard_command()
            .current_dir(&dir)
            .args(["results", "round.trf", "--results", "results.csv"])
            .args(["--round", round, "-o", "out.trf"])
            .output()
            .unwrap()
    };
    let out = results("3");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("no game of round 3") && said.contains("4.1"),
        "{said}"
    );
    assert!(!dir.join("out.trf").exists());
    // One game of round 3 among round 4's: round 4 written, 3.1 named.
    let first = csv.lines().nth(1).unwrap();
    let extra = format!("3,{}\r\n", first.split_once(',').unwrap().1);
    std::fs::write(dir.join("results.csv"), csv.clone() + &extra).unwrap();
    let out = results("4");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("left out, not games of round 4: 3.1"),
        "{said}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
