//! The visually impaired player's own device (Appendix E2.9d) over real
//! HTTP against `eboard run`: its token asks (whole position, time used,
//! move number, whose move, the opponent's draw offer, repeat) for his own
//! side only, is refused every arbiter action (403), and the journal names
//! him as the author of his queries; the arbiter's token still acts.

use crate::common;

use common::*;
use serde_json::Value;

const PLAYER: [(&str, &str); 1] = [("Authorization", "Bearer 5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b")];
const ARBITER: [(&str, &str); 1] = [ARBITER_AUTH];

fn vi_config(dir: &std::path::Path) -> std::path::PathBuf {
    let p = dir.join("vi.toml");
    std::fs::write(
        &p,
        r#"[event]
name = "DM 2026"
time_control = "5400+30"
language = "da"
rules = "fide-2009"

[game]
round = 1
board = 1
vi_player = "b"

[game.white]
name = "Morphy, Paul"

[game.black]
name = "Karl, Duke"

[arbiter]
name = "Chief Arbiter"
token = "7f3c9a1e5b2d4c6e8a0b1c2d3e4f5a6b"

[player]
token = "5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
"#,
    )
    .unwrap();
    p
}

/// The reply's spoken answer.
fn said(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "announce")
        .unwrap_or_else(|| panic!("no announce in {body}"))["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn the_players_device_may_ask_but_never_act_as_the_arbiter() {
    let dir = tempdir("player-device");
    let cfg = vi_config(&dir);
    let journal = dir.join("j.jsonl");
    let run = run_board(&dir, &cfg, None, &["--journal", journal.to_str().unwrap()]);
    let a = &run.addr;

    // Every arbiter action, the arbiter's channel and state: 403.
    for action in [
        "accept", "overrule", "restore", "result", "clock", "position", "pause", "resume", "choose",
    ] {
        let (s, b) = request(a, "POST", &format!("/arbiter/{action}"), &PLAYER, "");
        assert_eq!(s, 403, "{action}: {b}");
    }
    let (s, _) = request(
        a,
        "POST",
        "/arbiter/result",
        &PLAYER,
        r#"{"result": "0-1"}"#,
    );
    assert_eq!(s, 403);
    assert_eq!(request(a, "GET", "/arbiter/state", &PLAYER, "").0, 403);
    assert_eq!(request(a, "GET", "/arbiter/events", &PLAYER, "").0, 403);
    // His own side only.
    let (s, b) = request(
        a,
        "POST",
        "/arbiter/query",
        &PLAYER,
        r#"{"what": "time", "by": "w"}"#,
    );
    assert_eq!(s, 403, "{b}");
    // A wrong token is still 401.
    let wrong = [("Authorization", "Bearer nobody")];
    assert_eq!(
        request(
            a,
            "POST",
            "/arbiter/query",
            &wrong,
            r#"{"what": "time", "by": "b"}"#
        )
        .0,
        401
    );

    // The queries, answered in his language, authored by him.
    let q = |what: &str| {
        let (s, b) = request(
            a,
            "POST",
            "/arbiter/query",
            &PLAYER,
            &format!(r#"{{"what": "{what}", "by": "b"}}"#),
        );
        assert_eq!(s, 200, "{what}: {b}");
        let v: Value = serde_json::from_str(&b).unwrap();
        assert_eq!(v["author"], "Karl, Duke", "{b}");
        said(&b)
    };
    let position = q("position");
    assert!(
        position.starts_with("Hvid: konge Erik et, dronning Dora et, tårn Anna et og Henrik et, løber Cecilie et og Frederik et, springer Bodil et og Gustav et, bonde Anna to, Bodil to"),
        "{position}"
    );
    assert!(position.contains("Sort: konge Erik otte"), "{position}");
    let time = q("time");
    assert!(
        time.contains("tid brugt") || time.contains("Tid brugt"),
        "{time}"
    );
    assert!(time.contains("tilbage"), "{time}");
    assert_eq!(q("turn"), "Hvid i trækket, træk 1");
    assert_eq!(q("move_number"), "Hvid i trækket, træk 1");
    assert_eq!(q("draw_offer"), "Hvid har ikke tilbudt remis");
    assert_eq!(q("repeat"), "Hvid har ikke tilbudt remis");

    // The journal names him as the author of his queries.
    let rec = poll(10, "the query in the journal", || {
        let j = std::fs::read_to_string(&journal).ok()?;
        j.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|r| r["query"] == "position")
    });
    assert_eq!(rec["author"], "Karl, Duke");
    assert_eq!(rec["by"], "b");

    // The arbiter's token still acts, and may ask too.
    assert_eq!(request(a, "POST", "/arbiter/pause", &ARBITER, "").0, 200);
    let (s, b) = request(
        a,
        "POST",
        "/arbiter/query",
        &ARBITER,
        r#"{"what": "turn", "by": "b"}"#,
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        serde_json::from_str::<Value>(&b).unwrap()["author"],
        "Chief Arbiter"
    );
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}
