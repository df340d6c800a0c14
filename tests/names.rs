//! Names and text are data, never structure (issue 41 §3 and §5): a
//! player's name with a newline and a forged `[Result "0-1"]` cannot forge
//! a game in `/games.pgn` (python-chess reads one game, with the game's own
//! result), whether it comes in the config file (refused, naming the file,
//! the line and the key), in the MQTT board configuration (refused, the
//! board keeps its own players) or in a trace's header (the PGN writer
//! keeps it one tag value, PGN standard §7); a name `<!--<script>` leaves
//! the live page working (Chromium runs live.js: the board and its moves,
//! not "Connecting…"); a TRF-16 with terminal escapes in a name is refused
//! by `eboard event` with its line and column, and no escape reaches the
//! terminal.
//!
//! python-chess, mosquitto and Chromium are installed by `.ci/run`;
//! without them the checks skip with a reason, under CI they fail.

use crate::common;

use common::browser::{chromium_or_skip, headless};
use common::mosquitto::broker;
use common::*;
use serde_json::{json, Value};
use std::path::Path;

/// A name that closes its tag, forges a result and a whole second game.
const FORGED: &str = "Forger\"]\n[Result \"0-1\"]\n\n1. e4 0-1\n\n[Event \"forged";

/// Two moves, then Black resigns: the game's own result is 1-0.
fn short_game(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("game.jsonl");
    let trace = TraceBuilder::new()
        .mv(1000, "e2e4", "w")
        .mv(3000, "e7e5", "b")
        .resign(5000, "b");
    std::fs::write(&p, trace.text()).unwrap();
    p
}

/// python-chess's games of `pgn`, or `None` (skipped) without it.
fn python_games(pgn: &str) -> Option<Vec<Value>> {
    if python_chess().is_none() {
        skip_or_fail_under_ci("python-chess not installed (.ci/run installs it)");
        return None;
    }
    Some(parse_pgn_with_python(pgn).as_array().unwrap().clone())
}

/// Publishes `payload` retained at QoS 1 on `topic` and waits for the
/// broker's PUBACK.
fn publish_retained(port: u16, topic: &str, payload: Vec<u8>) {
    use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
    let (client, mut conn) = Client::new(MqttOptions::new("names-test", "127.0.0.1", port), 8);
    client
        .publish(topic, QoS::AtLeastOnce, true, payload)
        .unwrap();
    for ev in conn.iter() {
        match ev {
            Ok(Event::Incoming(Packet::PubAck(_))) => return,
            Ok(_) => {}
            Err(e) => panic!("publishing {topic}: {e}"),
        }
    }
}

#[test]
fn a_newline_name_in_a_trace_stays_one_tag_for_python_chess() {
    let trace =
        TraceBuilder::with_header(json!({"trace": 1, "white": FORGED, "black": "Karl, Duke"}))
            .mv(1000, "e2e4", "w")
            .mv(3000, "e7e5", "b")
            .resign(5000, "b");
    let out = eboard_with_input(&["replay", "-", "--pgn", "-"], &trace.text());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pgn = String::from_utf8(out.stdout).unwrap();
    let Some(games) = python_games(&pgn) else {
        return;
    };
    assert_eq!(games.len(), 1, "one game, not a forged second: {pgn}");
    let h = &games[0]["headers"];
    assert_eq!(h["Result"], "1-0", "{pgn}");
    // The name as one value, its newlines written as spaces (python-chess
    // keeps the escapes of a tag value as written: `\"`).
    let white = h["White"].as_str().unwrap();
    assert!(
        white.starts_with("Forger") && white.contains("[Result") && !white.contains('\n'),
        "the name is one tag value: {white:?} in {pgn}"
    );
    assert_eq!(games[0]["moves"], json!(["e4", "e5"]));
}

#[test]
fn a_newline_name_in_the_config_is_refused_with_file_line_and_key() {
    let dir = tempdir("names-config");
    let cfg = config(&dir, 1, 1, "");
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "name = \"Morphy, Paul\"",
        &format!("name = {}", toml_string(FORGED)),
    );
    std::fs::write(&cfg, text).unwrap();
    // Refused at once; a board that started with the name is stopped.
    let stderr = dir.join("stderr.txt");
    let mut child = run_command(&cfg)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if std::time::Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let err = std::fs::read_to_string(&stderr).unwrap();
    let status = status.unwrap_or_else(|| panic!("the board started with the forged name: {err}"));
    assert_eq!(status.code(), Some(78), "a configuration error: {err}");
    let line = std::fs::read_to_string(&cfg)
        .unwrap()
        .lines()
        .position(|l| l.contains("Forger"))
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!(
            "{}:{line}: key 'game.white.name': U+000A (line feed) at character 9",
            cfg.display()
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `s` as a TOML basic string (its newlines and quotes escaped).
fn toml_string(s: &str) -> String {
    format!(
        "\"{}\"",
        s.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

#[test]
fn a_newline_name_in_the_mqtt_board_configuration_is_refused_and_the_pgn_keeps_one_game() {
    let dir = tempdir("names-mqtt");
    let Some(broker) = broker(&dir) else {
        return;
    };
    let topic = eboard::event::config_topic("eboard", &eboard::mqtt::slug(Some("DM 2026")), 1);
    let forged = json!({
        "event": "DM 2026", "round": 1, "board": 1,
        "white": {"name": FORGED}, "black": {"name": "Karl, Duke"},
    });
    publish_retained(broker.port, &topic, serde_json::to_vec(&forged).unwrap());
    let mqtt = format!(
        "[mqtt]\nurl = \"{}\"\nboard_config = true\nboard_config_wait = 5\n",
        broker.url()
    );
    let cfg = config(&dir, 1, 1, &mqtt);
    let trace = short_game(&dir);
    let board = run_board(&dir, &cfg, Some(&trace), &["--speed", "20"]);
    let pgn = final_pgn(&board.addr);
    if let Some(games) = python_games(&pgn) {
        assert_eq!(games.len(), 1, "one game, not a forged second: {pgn}");
        let h = &games[0]["headers"];
        assert_eq!(h["White"], "Morphy, Paul", "the board's own player: {pgn}");
        assert_eq!(h["Result"], "1-0", "{pgn}");
    }
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        log.contains("WARN") && log.contains("white.name: U+000A (line feed)"),
        "the refusal in the log, naming the field: {log}"
    );
    drop(board);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_script_comment_name_leaves_the_live_page_working() {
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    let dir = tempdir("names-page");
    let cfg = config(&dir, 1, 1, "");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("name = \"Morphy, Paul\"", "name = \"<!--<script>\"");
    std::fs::write(&cfg, text).unwrap();
    let trace = short_game(&dir);
    let board = run_board(&dir, &cfg, Some(&trace), &["--speed", "20"]);
    final_pgn(&board.addr);
    let url = format!("http://{}/", board.addr);
    let out = headless(&chrome, &dir, &["--dump-dom"], &url);
    let dom = shown_dom(&out);
    // live.js ran: it drew the board and the moves from the embedded state.
    assert_eq!(
        dom.matches("data-square=\"").count(),
        64,
        "the board: {dom}"
    );
    assert!(dom.contains("e5"), "the moves: {dom}");
    assert!(
        dom.contains("&lt;!--&lt;script&gt;"),
        "the name shown as text: {dom}"
    );
    drop(board);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn terminal_escapes_in_a_trf_name_never_reach_the_terminal() {
    let dir = tempdir("names-trf");
    let trf = include_str!("data/pairings-open-2026.trf");
    // The same number of characters, so that the columns stay where they
    // are: OSC 0 (the window's title), BEL, CSI 2J (clear the screen).
    let escapes = "\u{1b}]0;X\u{7}\u{1b}[2JH";
    assert_eq!(escapes.chars().count(), "Holm,Anders".chars().count());
    let file = dir.join("open.trf");
    std::fs::write(&file, trf.replace("Holm,Anders", escapes)).unwrap();
    let out = eboard(&["event", file.to_str().unwrap(), "--round", "4"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    for text in [&stdout, &stderr] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "a raw escape reached the terminal: {text:?}"
        );
    }
    assert!(!out.status.success(), "refused: {stdout}");
    assert!(
        stderr.contains(&format!(
            "{}:20: name (columns 15-47): U+001B (escape) at column 15",
            file.display()
        )),
        "{stderr}"
    );
    // The same in a CSV: refused, naming the line and the column.
    let csv = dir.join("round.csv");
    std::fs::write(&csv, "white,black\n\"Larsen, Bent\",\"Holm\u{1b}[2J\"\n").unwrap();
    let out = eboard(&["event", csv.to_str().unwrap(), "--round", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && !stderr.contains('\u{1b}'),
        "{stderr:?}"
    );
    assert!(
        stderr.contains(":2: black: U+001B (escape) at character 5"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The console's forms: a ruling's reason with a newline is refused (422)
/// by the one parser of the API and of the MQTT command channel, naming
/// the key.
#[test]
fn a_ruling_reason_with_a_newline_is_refused_naming_the_key() {
    let body = json!({"result": "1-0", "reason": "flag fell\n[Result \"0-1\"]"});
    let e = eboard::console::ruling::parse_ruling("result", &body).unwrap_err();
    assert!(
        e.starts_with("key 'reason': U+000A (line feed) at character 10"),
        "{e}"
    );
    let ok = json!({"result": "1-0", "reason": "flag fell, Black claimed"});
    assert!(eboard::console::ruling::parse_ruling("result", &ok).is_ok());
}
