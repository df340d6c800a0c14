//! Appendix E2.8's rewind (issue 25.6, issue 29.3): when the two boards
//! differ and so do the scoresheets, the game goes back to the move where
//! they agree and the arbiter sets the clocks. The rewind offered, applied
//! and undone; each edition's article cited; a journaled record that
//! replays the same; taken by the arbiter's API and the signed commands,
//! bound by `expect` over HTTP. The copy errors before it are
//! `tests/copies.rs`.
//!
//! E2.8 (seed 002): "Hvis de to noteringslister også er forskellige, skal
//! spillet føres tilbage til det træk hvor de er ens, og dommeren skal
//! indstille urene tilsvarende."

use crate::common;

use common::copies::{hdr, texts};
use common::{of, TraceBuilder, DRIFT};
use eboard::arbiter::GameConfig;
use eboard::controller::Controller;
use eboard::trace::{Event, Trace};
use serde_json::{json, Value};

fn run(c: &mut Controller, trace: &Trace, out: &mut Vec<Event>) {
    for r in &trace.records {
        c.feed(r, out);
    }
}

fn json_of(out: &[Event]) -> Vec<Value> {
    out.iter()
        .map(|e| serde_json::from_str(&e.to_json()).unwrap())
        .collect()
}

#[test]
fn e2_8_the_rewind_to_where_both_boards_agreed_is_offered_applied_and_undone() {
    let tb = TraceBuilder::with_header(hdr("da"))
        .header("rules", "fide-2009")
        .steps(DRIFT);
    let trace = tb.trace();
    let cfg = GameConfig::from_header(&trace.header, None, None).unwrap();
    let mut c = Controller::new(cfg);
    let mut out = Vec::new();
    run(&mut c, &trace, &mut out);
    c.tick(21_000, &mut out);
    let ev = json_of(&out);
    let differ = of(&ev, "irregularity");
    assert_eq!(differ.len(), 1, "{differ:#?}");
    assert_eq!(differ[0]["squares"], json!(["f3", "h3"]));
    let differ_t = differ[0]["t"].as_u64().unwrap();
    // The clocks when ply 2 was completed (Black's press at 8000).
    let at_ply_2 = of(&ev, "clock")
        .into_iter()
        .find(|e| e["t"] == 8000)
        .cloned()
        .unwrap();
    let before_rewind = of(&ev, "clock").last().cloned().cloned().unwrap();
    // Open for the arbiter: the boards differ, with the rewind to ply 2
    // and its effect in words.
    let open = c.arbiter().open();
    let m = open
        .iter()
        .find(|m| m.kind == "irregularity")
        .unwrap_or_else(|| panic!("{open:#?}"));
    assert_eq!(m.t, differ_t);
    assert_eq!(m.by, Some("b"));
    assert!(m.summary.contains("E2.8"), "{}", m.summary);
    let rewind = m.rulings.iter().find(|r| r.action == "rewind").unwrap();
    assert_eq!(rewind.body, json!({"ply": 2}));
    assert!(
        rewind.effect.contains("after 1…e5 (ply 2)"),
        "{}",
        rewind.effect
    );
    let shown = |k: &str| eboard::clock::fmt_hms(at_ply_2[k].as_u64().unwrap());
    let clocks = format!("White {} · Black {}", shown("white_ms"), shown("black_ms"));
    assert!(rewind.effect.contains(&clocks), "{}", rewind.effect);
    // A ruling made from a stale view is refused; the one offered applies.
    let rule = |t: u64, body: Value| {
        let mut r = json!({"t": t, "arbiter": "rewind", "author": "IA Hansen"});
        for (k, v) in body.as_object().unwrap() {
            r[k] = v.clone();
        }
        let text = format!("{}\n{r}\n", json!({"trace": 1}));
        Trace::parse(&text).unwrap().records.remove(0)
    };
    let from = out.len();
    c.feed(
        &rule(22_000, json!({"ply": 2, "expect": {"ply": 4}})),
        &mut out,
    );
    let ev = json_of(&out[from..]);
    assert_eq!(of(&ev, "ruling_refused")[0]["status"], 409, "{ev:#?}");
    assert_eq!(c.arbiter().moves().len(), 5);
    let from = out.len();
    c.feed(
        &rule(
            23_000,
            json!({"ply": 2, "expect": {"ply": 5, "event": {"type": "irregularity", "t": differ_t}}}),
        ),
        &mut out,
    );
    let ev = json_of(&out[from..]);
    let ruling = of(&ev, "ruling");
    assert_eq!(ruling.len(), 1, "{ev:#?}");
    assert_eq!(ruling[0]["action"], "rewind");
    assert_eq!(ruling[0]["article"], "E2.8");
    assert_eq!(ruling[0]["answers"]["t"], differ_t);
    // The position after 1…e5, the clocks as they were then.
    assert_eq!(c.arbiter().moves().len(), 2);
    assert_eq!(
        shakmaty::fen::Fen::from_position(c.arbiter().position(), shakmaty::EnPassantMode::Legal)
            .to_string(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    let clock = of(&ev, "clock").last().cloned().cloned().unwrap();
    assert_eq!(clock["white_ms"], at_ply_2["white_ms"]);
    assert_eq!(clock["black_ms"], at_ply_2["black_ms"]);
    // Both boards are to show it: each named with its squares.
    let named: Vec<String> = texts(&ev);
    assert!(
        named.iter().any(|t| t.starts_with("Hvids bræt afviger på"))
            && named.iter().any(|t| t.starts_with("Sorts bræt afviger på")),
        "{named:?}"
    );
    // Undone: the game and the clocks as before the rewind.
    let from = out.len();
    let undo = Trace::parse(&format!(
        "{}\n{}\n",
        json!({"trace": 1}),
        json!({"t": 24_000, "arbiter": "undo", "ruling": 1, "author": "IA Hansen",
               "expect": {"ply": 2}})
    ))
    .unwrap()
    .records
    .remove(0);
    c.feed(&undo, &mut out);
    let ev = json_of(&out[from..]);
    assert_eq!(of(&ev, "ruling")[0]["action"], "undo", "{ev:#?}");
    assert_eq!(c.arbiter().moves().len(), 5);
    let clock = of(&ev, "clock").last().cloned().cloned().unwrap();
    assert_eq!(clock["white_ms"], before_rewind["white_ms"]);
    // Black's clock ran from 20 500 to the rewind at 23 000.
    assert_eq!(
        clock["black_ms"].as_u64().unwrap(),
        before_rewind["black_ms"].as_u64().unwrap() - 2_500
    );
    let rulings = c.arbiter().rulings();
    assert_eq!(rulings[0].undone_by, Some(2));
}

#[test]
fn the_rewind_cites_each_editions_article() {
    use eboard::rules::{Edition, Mode, Profile};
    for (edition, want) in [
        (Edition::Fide2001, "F2.8"),
        (Edition::Fide2009, "E2.8"),
        (Edition::Fide2009No, "E2.8"),
        (Edition::Fide2023, "D.2.9"),
    ] {
        let p = Profile::new(edition, Mode::Standard);
        assert_eq!(p.article_vi_rewind(), want, "{edition:?}");
        // E2.7 and E2.8 are neighbours; 2023 holds both in D.2.9.
        let differ = want.replace(".8", ".7").replace("D.2.7", "D.2.9");
        assert_eq!(p.articles.vi_boards_differ, differ, "{edition:?}");
    }
}

#[test]
fn the_rewind_is_a_journaled_record_and_replays_the_same() {
    // The ruling as a trace record: parsed, written back, replayed.
    // Then both boards are set up after 1…e5 and the game goes on: 2.Nf3
    // Nc6 again, copied right.
    let tb = TraceBuilder::with_header(hdr("da"))
        .steps(DRIFT)
        .record(json!({"t": 23_000, "arbiter": "rewind", "ply": 2, "author": "IA Hansen"}))
        .steps(
            "24000 lift b5
             24200 place f1
             24400 lift f3
             24600 place g1
             24800 lift c6
             25000 place b8
             25200 tactile lift h3
             25400 tactile place g1
             25600 tactile lift c6
             25800 tactile place b8
             30000 lift g1
             30200 place f3
             30500 press w
             32000 tactile lift g1
             32200 tactile place f3
             32400 tactile lift b8
             32600 tactile place c6
             37000 press b",
        );
    let text = tb.text();
    let trace = Trace::parse(&text).unwrap();
    let written = trace
        .records
        .iter()
        .map(eboard::trace::record_json)
        .find(|r| r["arbiter"] == "rewind")
        .unwrap();
    assert_eq!(written["ply"], 2, "{written}");
    let ev = common::replay_events(&tb, "fide-2009");
    assert_eq!(of(&ev, "ruling")[0]["action"], "rewind");
    let last_move_fen = of(&ev, "move")[1]["fen"].clone();
    assert_eq!(
        last_move_fen,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    // The boards named after the rewind, then agreeing; the game goes on
    // from ply 2 with nothing irregular.
    let after: Vec<&Value> = ev
        .iter()
        .filter(|e| e["t"].as_u64().unwrap() >= 23_000)
        .collect();
    let said: Vec<&str> = after
        .iter()
        .filter(|e| e["type"] == "announce")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(said.contains(&"Brætterne stemmer overens"), "{said:?}");
    assert!(
        after
            .iter()
            .all(|e| e["type"] != "illegal_move" && e["type"] != "touch_move"),
        "{after:#?}"
    );
    let moves: Vec<&Value> = after
        .iter()
        .copied()
        .filter(|e| e["type"] == "move")
        .collect();
    assert_eq!(moves.len(), 2, "{after:#?}");
    assert_eq!(
        (moves[0]["ply"].clone(), moves[0]["san"].clone()),
        (json!(3), json!("Nf3"))
    );
    assert_eq!(
        (moves[1]["ply"].clone(), moves[1]["san"].clone()),
        (json!(4), json!("Nc6"))
    );
    // A bad body is an error naming the key.
    let bad = format!(
        "{}\n{}\n",
        json!({"trace": 1}),
        json!({"t": 1, "arbiter": "rewind"})
    );
    let e = Trace::parse(&bad).unwrap_err().to_string();
    assert!(e.contains("'ply'"), "{e}");
}

#[test]
fn the_rewind_is_taken_by_the_arbiter_api_and_the_signed_commands() {
    // `POST /arbiter/rewind`, `/arbiter/command` and MQTT share this parser.
    use eboard::trace::{ArbiterAction, RecordKind};
    let kind = eboard::console::ruling::parse_ruling(
        "rewind",
        &json!({"ply": 2, "expect": {"ply": 5, "event": {"type": "irregularity", "t": 14600}}}),
    )
    .unwrap();
    match kind {
        RecordKind::Arbiter { action, expect, .. } => {
            assert_eq!(action, ArbiterAction::Rewind(2));
            assert_eq!(expect.unwrap().ply, 5);
        }
        other => panic!("{other:?}"),
    }
    let e = eboard::console::ruling::parse_ruling("rewind", &json!({"plies": 2})).unwrap_err();
    assert!(e.contains("'plies'") && e.contains("ply"), "{e}");
    let e = eboard::console::ruling::parse_ruling("rewind", &Value::Null).unwrap_err();
    assert!(e.contains("'ply'"), "{e}");
}

/// The E2.8 rewind through the real daemon (`eboard run`, the DRIFT game
/// replayed in real time, ~21 s): `POST /arbiter/rewind` bound by `expect`
/// (`/work/notes/ruling-protocol.md` §1–2). A view the game has left is
/// refused 409 with the reason, a ply not before the current one 422, the
/// offered one applied 200: the state is back at ply 2 with Black's clock
/// as it stood when ply 2 was completed, and the journal keeps every
/// request (the refused ones as refused).
#[test]
fn the_rewind_over_http_is_bound_by_expect_and_answers_truthfully() {
    use common::console::journal_records;
    use common::{http, poll, request, run_board, tempdir, ARBITER_AUTH};
    let dir = tempdir("rewind-http");
    let trace = dir.join("drift.jsonl");
    let tb = TraceBuilder::with_header(hdr("da"))
        .header("rules", "fide-2009")
        .steps(DRIFT);
    std::fs::write(&trace, tb.text()).unwrap();
    let cfg = dir.join("board.toml");
    std::fs::write(
        &cfg,
        "[event]\nname = \"DM\"\nrules = \"fide-2009\"\nlanguage = \"da\"\n\
         time_control = \"5400+30\"\n[game]\nround = 1\nboard = 1\nvi_player = \"b\"\n\
         [arbiter]\nname = \"Chief Arbiter\"\ntoken = \"7f3c9a1e5b2d4c6e8a0b1c2d3e4f5a6b\"\n",
    )
    .unwrap();
    let journal = dir.join("j.jsonl");
    let board = run_board(
        &dir,
        &cfg,
        Some(&trace),
        &["--journal", journal.to_str().unwrap()],
    );
    let a = board.addr.clone();
    let auth = [ARBITER_AUTH];
    let state = || -> Value {
        let (s, _, b) = http(&a, "GET", "/arbiter/state", &auth, "");
        assert_eq!(s, 200, "{b}");
        serde_json::from_str::<Value>(&b).unwrap()[0]["state"].clone()
    };
    // The boards differ after ply 5, and the rewind to ply 2 is offered.
    let differ_t = poll(60, "the boards-differ matter with its rewind", || {
        let st = state();
        let open = st["open"].as_array()?.clone();
        let m = open.iter().find(|m| m["type"] == "irregularity")?;
        let offered = m["rulings"]
            .as_array()?
            .iter()
            .any(|r| r["action"] == "rewind" && r["body"] == json!({"ply": 2}));
        (st["ply"] == 5 && offered).then(|| m["t"].as_u64().unwrap())
    });
    let post = |body: Value| -> (u16, Value) {
        let (s, b) = request(&a, "POST", "/arbiter/rewind", &auth, &body.to_string());
        (s, serde_json::from_str(&b).unwrap_or(Value::Null))
    };
    // Made from a view the game has left: 409, nothing changed.
    let (s, v) = post(json!({"ply": 2, "expect": {"ply": 4}}));
    assert_eq!(s, 409, "{v}");
    assert_eq!(v["refused"]["type"], "ruling_refused", "{v}");
    assert_eq!(v["refused"]["status"], 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("moved on"), "{v}");
    assert_eq!(state()["ply"], 5);
    // A ply not before the current one: 422.
    let (s, v) = post(json!({"ply": 5, "expect": {"ply": 5}}));
    assert_eq!(s, 422, "{v}");
    assert_eq!(v["refused"]["status"], 422, "{v}");
    assert_eq!(state()["ply"], 5);
    // The offered rewind, answering the open matter: applied.
    let (s, v) = post(json!({"ply": 2,
        "expect": {"ply": 5, "event": {"type": "irregularity", "t": differ_t}}}));
    assert_eq!(s, 200, "{v}");
    let st = state();
    assert_eq!(st["ply"], 2, "{st}");
    assert_eq!(
        st["fen"], "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        "{st}"
    );
    let r = &st["rulings"][0];
    assert_eq!(r["action"], "rewind", "{st}");
    assert_eq!(r["article"], "E2.8", "{st}");
    assert_eq!(r["answers"]["t"], differ_t, "{st}");
    // Black's clock as it stood at ply 2 (his press at 8.0 s: it ran from
    // White's press at 1.6 s, then +30 s); White's runs from the rewind.
    assert_eq!(st["clock"]["running"], "w", "{st}");
    assert_eq!(st["clock"]["black_ms"], 5_430_000 - 6_400 + 30_000, "{st}");
    // The same request again is stale now (the game is at ply 2): 409.
    let (s, v) = post(json!({"ply": 2,
        "expect": {"ply": 5, "event": {"type": "irregularity", "t": differ_t}}}));
    assert_eq!(s, 409, "{v}");
    // Every request journaled, in order.
    let recs = journal_records(&journal);
    let rewinds = recs.iter().filter(|r| r["arbiter"] == "rewind").count();
    assert_eq!(rewinds, 4, "{recs:#?}");
    drop(board);
}
