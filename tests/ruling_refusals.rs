//! Rulings bound to what the arbiter saw (issue 24.1, 24.5, 24.7), on a
//! board daemon over HTTP: a ruling request without `expect` is refused
//! 428 with an example; an impossible position, a forfeit after both
//! players moved, a ruling made from a state the game has left, and
//! anything on a game whose result is confirmed are refused with the
//! reason in words and a truthful status (422 / 409), journaled but never
//! given; the state lists `ply`, `open` and the `rulings` history with
//! each ruling's article and effect; `undo` reverses a confirmation; the
//! board restarted from its journal decides alike.

mod common;

use common::console::*;
use common::*;
use serde_json::{json, Value};

fn accounts() -> String {
    format!(
        "[[arbiter.accounts]]\nname = \"IA Hansen\"\nsecret_hash = \"{}\"\n",
        secret_hash(SECRET)
    )
}

fn state(addr: &str, auth: &[(&str, &str)]) -> Value {
    let (s, _, b) = http(addr, "GET", "/arbiter/state", auth, "");
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    v[0]["state"].clone()
}

#[test]
fn rulings_are_refused_with_their_reason_and_undone_as_rulings() {
    let dir = tempdir("ruling-refusals");
    let trace = dir.join("two.jsonl");
    std::fs::write(
        &trace,
        TraceBuilder::new()
            .header("time_control", "5400+30")
            .mv(1_000, "e2e4", "w")
            .mv(2_000, "e7e5", "b")
            .text(),
    )
    .unwrap();
    let cfg = config(&dir, 1, 1, &accounts());
    let journal = dir.join("j.jsonl");
    let j = journal.to_str().unwrap();
    let mut board = run_board(&dir, &cfg, Some(&trace), &["--journal", j]);
    let a = board.addr.clone();
    let bearer = format!("Bearer {ARBITER_TOKEN}");
    let auth = [("Authorization", bearer.as_str())];
    poll(30, "both moves", || {
        (state(&a, &auth)["ply"] == 2).then_some(())
    });
    let st = state(&a, &auth);
    assert!(st["open"].as_array().is_some(), "{st}");
    assert_eq!(st["rulings"], json!([]), "{st}");
    let post = |path: &str, body: &str| -> (u16, Value) {
        let (s, b) = request(&a, "POST", path, &auth, body);
        (s, serde_json::from_str(&b).unwrap_or(Value::Null))
    };

    // The console's request names what it was made from, or is refused.
    let cookie = login(&a, "IA Hansen", SECRET);
    let cmd = json!({"board": "1.1", "action": "pause", "id": "no-expect"}).to_string();
    let (s, _, b) = http(&a, "POST", "/arbiter/command", &[("Cookie", &cookie)], &cmd);
    assert_eq!(s, 428, "{b}");
    assert!(b.contains("\\\"expect\\\"") && b.contains("ply"), "{b}");

    // Impossible: not a legal position (today 200 and journaled as given).
    let (s, v) = post(
        "/arbiter/position",
        r#"{"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}"#,
    );
    assert_eq!(s, 422, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("not a legal position"),
        "{v}"
    );
    assert_eq!(v["refused"]["type"], "ruling_refused", "{v}");
    // A forfeit once both have moved (today 200).
    let (s, v) = post("/arbiter/forfeit", r#"{"result": "1-0"}"#);
    assert_eq!(s, 422, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("both players have moved"),
        "{v}"
    );
    // Made from a state the game has left.
    let (s, v) = post(
        "/arbiter/result",
        r#"{"result": "1-0", "expect": {"ply": 1}}"#,
    );
    assert_eq!(s, 409, "{v}");
    assert_eq!(
        v["error"],
        "the game has moved on: one move made since (ply 1 → 2); look again"
    );
    assert_eq!(state(&a, &auth)["result"], "*");

    // A draw declared and confirmed; then nothing more is ruled on it.
    let (s, v) = post(
        "/arbiter/result",
        r#"{"result": "1/2-1/2", "expect": {"ply": 2}}"#,
    );
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(
        "/arbiter/confirm",
        r#"{"expect": {"ply": 2, "result": "1/2-1/2"}}"#,
    );
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(
        "/arbiter/clock",
        r#"{"white_ms": 600000, "black_ms": 720000}"#,
    );
    assert_eq!(s, 409, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("the game is over and its result confirmed"),
        "{v}"
    );
    let (s, v) = post("/arbiter/resume", "");
    assert_eq!(s, 409, "{v}");

    // The history: two rulings, each with its article and effect.
    let st = state(&a, &auth);
    let rulings = st["rulings"].as_array().unwrap().clone();
    assert_eq!(rulings.len(), 2, "{st}");
    assert_eq!(rulings[1]["action"], "confirm");
    assert_eq!(rulings[1]["article"], "DSU 004 §15");
    assert_eq!(rulings[1]["undoable"], true, "{st}");
    // A declared result cites the arbiter's decision, not the penalties.
    let declared = rulings[0]["article"].as_str().unwrap();
    assert!(["12.1", "13.1"].contains(&declared), "{st}");
    // Undo the confirmation: the result is provisional again.
    let (s, v) = post("/arbiter/undo", r#"{"ruling": 2, "expect": {"ply": 2}}"#);
    assert_eq!(s, 200, "{v}");
    let st = state(&a, &auth);
    assert_eq!(st["result_status"], "provisional", "{st}");
    assert_eq!(st["rulings"][1]["undone_by"], 3, "{st}");
    assert_eq!(st["open"][0]["type"], "game_end", "{st}");
    // The refused ones are journaled (as refused), never given.
    let recs = journal_records(&journal);
    let arbiter: Vec<&str> = recs.iter().filter_map(|r| r["arbiter"].as_str()).collect();
    assert_eq!(
        arbiter,
        ["position", "forfeit", "result", "result", "confirm", "clock", "resume", "undo"]
    );
    let before = state(&a, &auth)["rulings"].clone();

    // Restarted from its journal: the same decisions.
    board.kill();
    let board = run_board(&dir, &cfg, Some(&trace), &["--journal", j]);
    let b = board.addr.clone();
    poll(30, "the replayed history", || {
        (state(&b, &auth)["rulings"] == before).then_some(())
    });
}
