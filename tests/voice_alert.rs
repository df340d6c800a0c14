//! Issue 29, point 4: speech that cannot play is an alert to the arbiter
//! at once, through `eboard run` with real espeak-ng: an output whose
//! device does not exist (aplay refuses it) while the other output plays,
//! and the player program missing altogether. The alert is read where the
//! arbiter reads it (`GET /console/alerts`, the arbiter's token).

use crate::common;

use common::console::console_alerts;
use common::voice::{speech_programs, PacedGame};
use common::{poll, tempdir, TraceBuilder, ARBITER_AUTH, ARBITER_TOKEN};
use serde_json::{json, Value};

/// The board's `speech_alert`s so far (each alert's message, its
/// `event`).
fn speech_alerts(addr: &str) -> Vec<Value> {
    console_alerts(addr, ARBITER_AUTH, "speech_alert", None)
        .into_iter()
        .map(|a| a["event"].clone())
        .collect()
}

fn config(voices: &str) -> String {
    format!(
        "[event]\nname = \"DM\"\nrules = \"fide-2009\"\nspeak = true\n\
         [game]\nboard = 1\nvi_player = \"b\"\n\
         [arbiter]\nname = \"Chief Arbiter\"\ntoken = \"{ARBITER_TOKEN}\"\n{voices}"
    )
}

const STEPS: &str = "1000 lift e2
     1300 place e4
     1600 press w";

fn header() -> Value {
    json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "b", "time_control": "300+0"})
}

#[test]
fn an_output_that_cannot_play_is_alerted_to_the_arbiter_at_once() {
    if !speech_programs() {
        return;
    }
    // White's output plays (paced); Black's device does not exist.
    let text = TraceBuilder::with_header(header()).steps(STEPS).text();
    let mut game = PacedGame::start(
        "alert-device",
        &["white"],
        &config(
            "[voice.white]\ndevice = \"white\"\n\
             [voice.black]\ndevice = \"nosuchdevice\"\n",
        ),
        &text,
    );
    let addr = game.addr().to_owned();
    let alert = poll(20, "the speech alert", || speech_alerts(&addr).pop());
    // White heard e4 meanwhile, and reported it; Black did not, and his
    // output's failure is journaled (`unheard`, E2.3: his press is then
    // no clock started before the announcement; issue 40.8).
    let records = poll(20, "White's report of e4 and Black's unheard", || {
        let r = game.records();
        (r.iter().any(|v| v["spoken"].is_u64() && v["by"] == "w")
            && r.iter().any(|v| v["unheard"] == 1 && v["by"] == "b"))
        .then_some(r)
    });
    let log = game.stop();
    // At once: within 2 s of the announcement (White's press at 1600 ms).
    let zero = records[0]["journal"]["started_at_unix_ms"]
        .as_i64()
        .unwrap();
    let late = alert["unix_ms"].as_i64().unwrap() - (zero + 1600);
    assert!(
        late <= 2000,
        "the alert came {late} ms after the announcement: {alert}"
    );
    println!("alert {late} ms after the announcement: {alert}");
    assert_eq!(alert["outputs"], json!(["black"]), "{alert}\n{log}");
    assert_eq!(alert["device"], "nosuchdevice", "{alert}");
    assert_eq!(alert["text"], "Bonde Erik fire", "{alert}");
    assert!(
        alert["action"].as_str().is_some_and(|a| !a.is_empty()),
        "{alert}"
    );
    assert!(
        !records
            .iter()
            .any(|v| v["spoken"].is_u64() && v["by"] == "b"),
        "Black's output failed, yet his hearing was reported: {records:#?}"
    );
    assert!(log.contains("speech alert"), "{log}");
}

#[test]
fn a_missing_player_program_is_alerted_naming_its_package() {
    if !speech_programs() {
        return;
    }
    // A PATH with espeak-ng and without aplay.
    let bin = tempdir("alert-path");
    let espeak = std::process::Command::new("sh")
        .args(["-c", "command -v espeak-ng"])
        .output()
        .unwrap();
    let espeak = String::from_utf8(espeak.stdout).unwrap();
    std::os::unix::fs::symlink(espeak.trim(), bin.join("espeak-ng")).unwrap();
    let dir = tempdir("alert-aplay");
    let cfg = dir.join("board.toml");
    std::fs::write(&cfg, config("[voice.white]\ndevice = \"white\"\n")).unwrap();
    let trace = dir.join("game.jsonl");
    std::fs::write(
        &trace,
        TraceBuilder::with_header(header()).steps(STEPS).text(),
    )
    .unwrap();
    let run = common::run_board_with_env(
        &dir,
        &cfg,
        Some(&trace),
        &[],
        &[("PATH", bin.to_str().unwrap())],
    );
    let alert = poll(20, "the speech alert", || speech_alerts(&run.addr).pop());
    let log = std::fs::read_to_string(&run.stderr).unwrap();
    drop(run);
    println!("{alert}");
    assert!(
        alert["action"]
            .as_str()
            .is_some_and(|a| a.contains("alsa-utils")),
        "the alert names the package: {alert}"
    );
    assert!(
        log.contains("aplay") && log.contains("alsa-utils"),
        "the log names aplay and its package: {log}"
    );
}
