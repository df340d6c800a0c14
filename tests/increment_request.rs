//! 2023 Guidelines III.4 through the real binary (issue 25): the player
//! having the move with less than two minutes asks for five seconds per
//! move; the arbiter agrees over the API (`POST /arbiter/increment`, bound
//! to the ply he saw): applied with its article, the opponent two minutes
//! up, every press from then on 5 s; a request where Guidelines III do not
//! apply is refused 422 with its reason; the daemon's journal replayed by
//! `eboard replay` decides the same (the ruling is a trace record).

use crate::common;

use common::console::*;
use common::*;
use common::{board_post as post, board_state as state};
use serde_json::{json, Value};

/// After 1. f3 (the arbiter sets Black's clock to 1:40), 1… e5 2. g4 the
/// clocks are paused with Black to move: 11 minutes, rapid under 2023.
fn trace() -> TraceBuilder {
    TraceBuilder::new()
        .mv(1_000, "f2f3", "w")
        .record(json!({"t": 1_800, "arbiter": "clock", "white_ms": 600_000, "black_ms": 100_000}))
        .mv(2_000, "e7e5", "b")
        .mv(3_000, "g2g4", "w")
        .arbiter(3_800, "pause")
}

#[test]
fn iii4_agreed_over_the_api_and_replayed_alike_from_the_journal() {
    let dir = tempdir("iii4");
    let path = dir.join("t.jsonl");
    std::fs::write(&path, trace().text()).unwrap();
    let cfg = config(&dir, 1, 1, "");
    event_keys(&cfg, "660", "");
    let journal = dir.join("j.jsonl");
    let j = journal.to_str().unwrap();
    let mut board = run_board(&dir, &cfg, Some(&path), &["--journal", j]);
    let a = board.addr.clone();
    let st = poll(30, "the clocks paused after 2. g4", || {
        let st = state(&a);
        (st["ply"] == 3 && st["rulings"].as_array().is_some_and(|r| r.len() == 2)).then_some(st)
    });
    let standing = &st["increment_request"];
    assert_eq!(standing["by"], "b", "{st}");
    assert_eq!(standing["article"], "III.4", "{st}");
    assert_eq!(standing["time_control"], json!(["660", "660+5"]), "{st}");

    // The wrong side, then a stale ply: refused with the reason.
    let (s, v) = post(
        &a,
        "/arbiter/increment",
        json!({"by": "w", "expect": {"ply": 3}}),
    );
    assert_eq!(s, 422, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("only the player having the move"),
        "{v}"
    );
    let (s, v) = post(
        &a,
        "/arbiter/increment",
        json!({"by": "b", "expect": {"ply": 2}}),
    );
    assert_eq!(s, 409, "{v}");

    // Agreed: the article, White two minutes up, the control 660+5.
    let (s, v) = post(
        &a,
        "/arbiter/increment",
        json!({"by": "b", "expect": {"ply": 3}}),
    );
    assert_eq!(s, 200, "{v}");
    let st = state(&a);
    let r = st["rulings"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (r["action"].as_str(), r["article"].as_str()),
        (Some("increment"), Some("III.4")),
        "{st}"
    );
    let effect = r["effect"].as_str().unwrap();
    assert!(effect.contains("660 → 660+5"), "{effect}");
    assert!(effect.contains("White gets two extra minutes"), "{effect}");
    assert!(effect.contains("White 0:09:59 → 0:11:59"), "{effect}");
    assert_eq!(
        st["increment_request"],
        Value::Null,
        "introduced once: {st}"
    );
    // The record: the tag keeps the control the game started with (PGN
    // §9.6), the change is said after the move it followed (session 15).
    let pgn = get(&a, "/games.pgn");
    let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("[TimeControl \"660\"]"), "{pgn}");
    assert!(
        flat.contains(
            "2. g4 {[%clk 0:09:59] arbiter (III.4): time control 660 → 660+5, White +0:02:00}"
        ),
        "{pgn}"
    );
    let journaled = r.clone();
    board.kill();

    // The journal replayed by the binary: the same ruling, then a press
    // credits 5 s.
    let recs = journal_records(&journal);
    let inc: Vec<&Value> = recs
        .iter()
        .filter(|r| r["arbiter"] == "increment")
        .collect();
    assert_eq!(inc.len(), 3, "two refused, one given, as records: {recs:?}");
    let mut lines: Vec<String> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let t = inc.last().unwrap()["t"].as_u64().unwrap();
    lines.push(json!({"t": t + 10, "arbiter": "resume"}).to_string());
    for r in [
        json!({"t": t + 1_000, "lift": "d7"}),
        json!({"t": t + 1_100, "place": "d5"}),
        json!({"t": t + 2_010, "press": "b"}),
    ] {
        lines.push(r.to_string());
    }
    let more = dir.join("more.jsonl");
    std::fs::write(&more, lines.join("\n") + "\n").unwrap();
    let out = eboard_ok(&["replay", more.to_str().unwrap(), "--json"]);
    let events: Vec<Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let ruled: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "ruling" && e["action"] == "increment")
        .collect();
    assert_eq!(ruled.len(), 1, "{out}");
    assert_eq!(ruled[0]["effect"], journaled["effect"], "{out}");
    assert_eq!(ruled[0]["article"], "III.4");
    assert_eq!(ruled[0]["seq"], journaled["seq"]);
    let refused: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "ruling_refused" && e["action"] == "increment")
        .collect();
    assert_eq!(refused.len(), 2, "{out}");
    assert!(refused.iter().all(|e| e["article"] == "III.4"), "{out}");
    // Black's press 2 s after the resume: 5 s credited.
    let before = ruled[0]["t"].as_u64().unwrap();
    let clock = events
        .iter()
        .rfind(|e| e["type"] == "clock" && e["t"].as_u64() == Some(t + 2_010))
        .unwrap_or_else(|| panic!("the press's clock: {out}"));
    let black = events
        .iter()
        .rfind(|e| e["type"] == "clock" && e["t"].as_u64() == Some(before))
        .unwrap()["black_ms"]
        .as_u64()
        .unwrap();
    assert_eq!(
        clock["black_ms"].as_u64(),
        Some(black - 2_000 + 5_000),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn iii4_is_refused_in_blitz_and_before_2023_by_the_replay() {
    for (rules, tc, words, article) in [
        ("fide-2023", "300", "III.2.2", "III.4"),
        ("fide-2009", "660", "no five seconds on request", "10.2"),
    ] {
        let t = TraceBuilder::new()
            .header("time_control", tc)
            .header("rules", rules)
            .mv(1_000, "f2f3", "w")
            .record(
                json!({"t": 1_800, "arbiter": "clock", "white_ms": 200_000, "black_ms": 100_000}),
            )
            .mv(2_000, "e7e5", "b")
            .mv(3_000, "g2g4", "w")
            .record(json!({"t": 4_000, "arbiter": "increment", "by": "b", "author": "IA Hansen"}));
        let dir = tempdir("iii4-refused");
        let path = dir.join("t.jsonl");
        std::fs::write(&path, t.text()).unwrap();
        let out = eboard_ok(&["replay", path.to_str().unwrap(), "--json"]);
        let refused = out
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|e| e["type"] == "ruling_refused")
            .unwrap_or_else(|| panic!("{rules}: {out}"));
        assert_eq!(refused["status"], 422, "{refused}");
        assert_eq!(refused["article"], article, "{refused}");
        assert!(
            refused["reason"].as_str().unwrap().contains(words),
            "{refused}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn iii4_agreed_is_announced_to_both_players_in_the_games_language() {
    // Session 15: the clocks changed and nothing was said; a player who
    // cannot see the clock (Appendix E / 2023 Appendix D) must hear that
    // five seconds per move were introduced and the opponent's two minutes.
    for (lang, words) in [
        (
            "en",
            [
                "the arbiter has introduced 5 seconds per move for both players",
                "2 minutes added to white's time",
            ],
        ),
        (
            "da",
            [
                "dommeren har indført 5 sekunder pr. træk for begge spillere",
                "2 minutter lagt til hvids tid",
            ],
        ),
        (
            "de",
            [
                "der schiedsrichter hat 5 sekunden pro zug für beide spieler eingeführt",
                "2 minuten bedenkzeit für weiß",
            ],
        ),
    ] {
        let t = trace()
            .header("time_control", "660")
            .header("rules", "fide-2023")
            .header("language", lang)
            .record(json!({"t": 4_000, "arbiter": "increment", "by": "b", "author": "IA Hansen"}));
        let dir = tempdir("iii4-said");
        let path = dir.join("t.jsonl");
        std::fs::write(&path, t.text()).unwrap();
        let out = eboard_ok(&["replay", path.to_str().unwrap(), "--json"]);
        let events: Vec<Value> = out
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        assert!(
            events
                .iter()
                .any(|e| e["type"] == "ruling" && e["action"] == "increment"),
            "{lang}: applied: {out}"
        );
        let said: Vec<String> = events
            .iter()
            .filter(|e| e["type"] == "announce" && e["t"] == 4_000)
            .filter_map(|e| e["text"].as_str().map(str::to_lowercase))
            .collect();
        assert!(
            said.iter().any(|t| words.iter().all(|w| t.contains(w))),
            "{lang}: {said:?}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// Issue 40 point 8: `+0` in a time control is no increment. 2023
/// Guidelines III.2.2: "Guidelines III apply only to … games without
/// increment"; the Glossary's increment is time added before each move:
/// none is added by `+0` (`../shared/rules/fide-2023.md` §2.14). So a
/// request for five seconds (III.4) and a quickplay-finish claim (III.5)
/// are heard in `660+0` as in `660`.
mod plus_zero {

    use crate::common::{of, replay_events, TraceBuilder};
    use serde_json::{json, Value};

    /// 2023 rapid (11 minutes): after 1. f3 (the arbiter sets Black's clock
    /// to 1:40) e5 2. g4, Black having the move with less than two minutes
    /// asks for five seconds per move and the arbiter agrees.
    fn iii4(tc: &str) -> Vec<Value> {
        let t = TraceBuilder::with_header(json!({"trace": 1, "time_control": tc}))
            .mv(1_000, "f2f3", "w")
            .record(
                json!({"t": 1_800, "arbiter": "clock", "white_ms": 600_000, "black_ms": 100_000}),
            )
            .mv(2_000, "e7e5", "b")
            .mv(3_000, "g2g4", "w")
            .record(json!({"t": 3_800, "arbiter": "increment", "by": "b"}));
        replay_events(&t, "fide-2023")
    }

    #[test]
    fn five_seconds_on_request_are_introduced_in_a_plus_zero_control() {
        // Main before issue 40: refused, "the period has an increment".
        for tc in ["660", "660+0"] {
            let ev = iii4(tc);
            assert!(of(&ev, "ruling_refused").is_empty(), "{tc}: {ev:#?}");
            // White two minutes up (III.4), at the ruling.
            let c = of(&ev, "clock");
            let last = c.last().unwrap();
            assert_eq!(last["t"], 3_800, "{tc}: {ev:#?}");
            assert!(
                last["white_ms"].as_u64().unwrap() > 600_000 + 100_000,
                "{tc}: {last}"
            );
        }
        // A real increment still refuses it (III.2.2).
        let ev = iii4("660+1");
        assert_eq!(of(&ev, "ruling_refused").len(), 1, "{ev:#?}");
    }
}
