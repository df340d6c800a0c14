//! Rulings bound to what the arbiter saw (issue 24.1, 24.5, 24.7), on a
//! board daemon over HTTP: a ruling request without `expect` is refused
//! 428 with an example; an impossible position, a forfeit after both
//! players moved, a ruling made from a state the game has left, and
//! anything on a game whose result is confirmed are refused with the
//! reason in words and a truthful status (422 / 409), journaled but never
//! given; the state lists `ply`, `open` and the `rulings` history with
//! each ruling's article and effect; `undo` reverses a confirmation; the
//! board restarted from its journal decides alike.

use crate::common;

use common::console::*;
use common::*;
use common::{board_post as post, board_state as bearer_state};
use serde_json::{json, Value};

fn state(addr: &str, auth: &[(&str, &str)]) -> Value {
    let (s, _, b) = http(addr, "GET", "/arbiter/state", auth, "");
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    v[0]["state"].clone()
}

#[test]
fn rulings_are_refused_with_their_reason_and_undone_as_rulings() {
    let dir = tempdir("ruling-refusals");
    let trace = steps_trace(
        &dir,
        "two",
        TIME_CONTROL,
        "1000 mv e2e4 w\n2000 mv e7e5 b\n",
    );
    let cfg = config(&dir, 1, 1, &named_account("IA Hansen", SECRET));
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

/// A board daemon on `trace` with the time control `tc` in its config;
/// `(board, a post closure's address)`.
fn board_with(dir: &std::path::Path, trace: &str, tc: &str) -> common::Running {
    let path = dir.join("t.jsonl");
    std::fs::write(&path, trace).unwrap();
    let cfg = config(dir, 1, 1, &named_account("IA Hansen", SECRET));
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "time_control = \"5400+30\"",
        &format!("time_control = \"{tc}\""),
    );
    std::fs::write(&cfg, text).unwrap();
    run_board(dir, &cfg, Some(&path), &["--speed", "50"])
}

/// 2009 §6.9 (2023 6.9): a flag is a draw when the opponent cannot
/// checkmate by any legal sequence. White's flag falls against a bare
/// king: the alert offers the draw in those words, the arbiter's 0-1 is
/// refused 422 with the reason (it used to end the game 0-1 "time"), the
/// draw is applied as the flag's draw (6.9, `time_vs_insufficient_material`,
/// not "arbiter_decision" under 13.1); once confirmed nothing is open.
#[test]
fn a_flag_against_a_bare_king_is_declared_a_draw_never_a_win() {
    let dir = tempdir("ruling-flag-draw");
    let trace = TraceBuilder::new()
        .header("start_fen", "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1")
        // 2009: the flag waits for a claim or the arbiter (6.8).
        .header("rules", "fide-2009")
        // The clock is read at each record: White adjusts after his flag fell.
        .adjust(65_000, "w")
        .text();
    let board = board_with(&dir, &trace, "60");
    let a = board.addr.clone();
    let st = poll(30, "White's flag alert", || {
        let st = bearer_state(&a);
        st["open"]
            .as_array()?
            .iter()
            .any(|m| m["type"] == "flag")
            .then_some(st)
    });
    let flag = st["open"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["type"] == "flag")
        .unwrap()
        .clone();
    assert_eq!(flag["rulings"][0]["body"]["result"], "1/2-1/2", "{flag}");
    let words = flag["rulings"][0]["effect"].as_str().unwrap();
    assert!(words.contains("cannot checkmate"), "{words}");
    let ply = st["ply"].clone();
    let (s, v) = post(
        &a,
        "/arbiter/result",
        json!({"result": "0-1", "expect": {"ply": ply}}),
    );
    assert_eq!(s, 422, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("Black cannot checkmate"),
        "{v}"
    );
    assert_eq!(bearer_state(&a)["result"], "*");
    let (s, v) = post(
        &a,
        "/arbiter/result",
        json!({"result": "1/2-1/2", "expect": {"ply": ply, "event": {"type": "flag", "t": flag["t"]}}}),
    );
    assert_eq!(s, 200, "{v}");
    let st = bearer_state(&a);
    assert_eq!(st["result"], "1/2-1/2", "{st}");
    assert_eq!(st["result_reason"], "time_vs_insufficient_material", "{st}");
    assert_eq!(st["rulings"][0]["article"], "6.9", "{st}");
    let (s, v) = post(&a, "/arbiter/confirm", json!({"expect": {"ply": ply}}));
    assert_eq!(s, 200, "{v}");
    assert_eq!(bearer_state(&a)["open"], json!([]));
}

/// A clock set with the move counter in a two-period control (40 moves,
/// then 30 min), then undone (issue 24.4, 24.5; 2009 §6.10b): the undo
/// gives the counter back with the times, so the next period comes at
/// the right move; when the counter it set made a time control arrive
/// (White's 40th move at his 3rd), an undo by amounts would leave the 30
/// minutes: refused 409 with the reason and not offered.
#[test]
fn a_clock_ruling_with_the_move_counter_is_undone_with_its_counter() {
    let dir = tempdir("ruling-clock-counter");
    let trace = TraceBuilder::new()
        .mv(1_000, "e2e4", "w")
        .mv(2_000, "e7e5", "b")
        .mv(3_000, "g1f3", "w")
        .mv(4_000, "b8c6", "b")
        .record(json!({"t": 5_000, "arbiter": "clock", "white_ms": 300_000,
                       "black_ms": 400_000, "moves": 39, "author": "IA Hansen"}))
        .mv(6_000, "f1c4", "w")
        .mv(7_000, "f8c5", "b")
        .text();
    let board = board_with(&dir, &trace, "40/5400:1800");
    let a = board.addr.clone();
    let st = poll(30, "six plies", || {
        let st = bearer_state(&a);
        (st["ply"] == 6).then_some(st)
    });
    // White completed his 40th move by the counter: +30 min.
    assert_eq!(st["clock"]["moves_done"]["white"], 40, "{st}");
    assert_eq!(st["rulings"][0]["undoable"], false, "{st}");
    let (s, v) = post(
        &a,
        "/arbiter/undo",
        json!({"ruling": 1, "expect": {"ply": 6}}),
    );
    assert_eq!(s, 409, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("a time control was reached"),
        "{v}"
    );
    // The arbiter sets it right: White has completed 3 moves.
    let (s, v) = post(
        &a,
        "/arbiter/clock",
        json!({"white_ms": 5_000_000, "black_ms": 5_100_000, "moves": 3, "expect": {"ply": 6}}),
    );
    assert_eq!(s, 200, "{v}");
    let st = bearer_state(&a);
    assert_eq!(st["clock"]["moves_done"]["white"], 3, "{st}");
    assert_eq!(st["clock"]["moves_to_control"], 37, "{st}");
    // Undone: the counter as before it, with the times.
    let (s, v) = post(
        &a,
        "/arbiter/undo",
        json!({"ruling": 2, "expect": {"ply": 6}}),
    );
    assert_eq!(s, 200, "{v}");
    let effect = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "ruling")
        .map(|e| e["effect"].as_str().unwrap().to_owned())
        .unwrap();
    assert!(effect.contains("move counter 3 → 40"), "{effect}");
    let st = bearer_state(&a);
    assert_eq!(st["clock"]["moves_done"]["white"], 40, "{st}");
    assert_eq!(st["clock"]["moves_done"]["black"], 40, "{st}");
}

/// Threefold claims overruled (2009 §9.2, §9.5b): a claim the board
/// rejected (the position twice only) and the arbiter upholds is a draw
/// under 9.2, not the wrong claim's 9.5b; a claim the board upheld and
/// the arbiter finds incorrect costs the claimant the wrong claim's 3
/// minutes to the opponent. A confirmed result offers nothing (it used to
/// keep a live "Overrule" that was then refused 409).
#[test]
fn threefold_claims_overruled_carry_the_right_article_and_cost() {
    let dir = tempdir("ruling-threefold");
    let knights = |b: TraceBuilder, t0: u64| {
        b.mv(t0, "g1f3", "w")
            .mv(t0 + 1_000, "g8f6", "b")
            .mv(t0 + 2_000, "f3g1", "w")
            .mv(t0 + 3_000, "f6g8", "b")
    };
    // The position twice: a wrong claim, overruled.
    let d1 = dir.join("twice");
    std::fs::create_dir_all(&d1).unwrap();
    let trace = knights(TraceBuilder::new().header("rules", "fide-2009"), 1_000)
        .claim(6_000, "threefold", "w")
        .text();
    let board = board_with(&d1, &trace, "5400+30");
    let a = board.addr.clone();
    let st = poll(30, "the rejected claim", || {
        let st = bearer_state(&a);
        (st["open"][0]["type"] == "claim").then_some(st)
    });
    let t = st["open"][0]["t"].clone();
    let (s, v) = post(
        &a,
        "/arbiter/overrule",
        json!({"expect": {"ply": 4, "event": {"type": "claim", "t": t}}}),
    );
    assert_eq!(s, 200, "{v}");
    let st = bearer_state(&a);
    assert_eq!(st["result_reason"], "threefold", "{st}");
    // §9.2b: the position "netop er fremkommet" (the claim on the board).
    assert_eq!(st["rulings"][0]["article"], "9.2b", "{st}");

    // Three times: upheld by the board; confirmed, nothing is open; the
    // confirmation undone, the claim is overruled and costs 3 minutes.
    let d2 = dir.join("thrice");
    std::fs::create_dir_all(&d2).unwrap();
    let trace = knights(
        knights(TraceBuilder::new().header("rules", "fide-2009"), 1_000),
        5_000,
    )
    .claim(10_000, "threefold", "w")
    .text();
    let board = board_with(&d2, &trace, "5400+30");
    let a = board.addr.clone();
    let st = poll(30, "the draw", || {
        let st = bearer_state(&a);
        (st["result"] == "1/2-1/2").then_some(st)
    });
    let claim_t = st["open"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["type"] == "claim")
        .expect("the upheld claim open to an overruling")["t"]
        .clone();
    let (s, v) = post(&a, "/arbiter/confirm", json!({"expect": {"ply": 8}}));
    assert_eq!(s, 200, "{v}");
    let st = bearer_state(&a);
    assert_eq!(st["open"], json!([]), "{st}");
    let (s, v) = post(
        &a,
        "/arbiter/undo",
        json!({"ruling": 1, "expect": {"ply": 8}}),
    );
    assert_eq!(s, 200, "{v}");
    let black_before = bearer_state(&a)["clock"]["black_ms"].as_u64().unwrap();
    let (s, v) = post(
        &a,
        "/arbiter/overrule",
        json!({"expect": {"ply": 8, "event": {"type": "claim", "t": claim_t}}}),
    );
    assert_eq!(s, 200, "{v}");
    let st = bearer_state(&a);
    assert_eq!(st["result"], "*", "{st}");
    let r = &st["rulings"][2];
    assert_eq!(r["article"], "9.5b", "{st}");
    assert!(
        r["effect"].as_str().unwrap().contains("+3 min to black"),
        "{st}"
    );
    let black_after = st["clock"]["black_ms"].as_u64().unwrap();
    assert!(
        black_after >= black_before + 170_000,
        "{black_before} → {black_after}"
    );
}

/// A draw claim on a move written on the scoresheet and not made (2001 /
/// 2009 §9.2a, 2023 9.2.1), per profile where the texts differ: Black
/// claims a repetition that is not on the board (the position twice), with
/// no move named; 4... Ng8 would make it the third. The board used to
/// reject it and give the wrong claim's cost at once. Now it holds it for
/// the arbiter: the clocks stopped, no penalty, `resume` refused, and the
/// rulings worded by their effect with the profile's penalty. Upheld
/// (2023, the SAN written), the game is drawn without the move (9.2.1);
/// rejected (2009), the cost (+3 min, 9.5b) is given once and Black's
/// clock runs again; rejected with the written move (2001), +3 min and the
/// claimant's time cut, and "the announced move must be made".
#[test]
fn a_claim_on_a_written_move_is_held_for_the_arbiter_per_profile() {
    let dir = tempdir("ruling-written");
    let moves = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
    for (rules, reject, uphold, cost, article) in [
        (
            "fide-2023",
            "Reject (+2 min to White, 9.5.3)",
            "Uphold: Ng8 written (draw, 9.2.1)",
            0,
            "9.2.1",
        ),
        (
            "fide-2009",
            "Reject (+3 min to White, 9.5b)",
            "Uphold: Ng8 written (draw, 9.2a)",
            180_000,
            "9.5b",
        ),
        (
            "fide-2001",
            "Reject (+3 min to White and Black's time reduced, 9.5b)",
            "Uphold: Ng8 written (draw, 9.2a)",
            180_000,
            "9.5b",
        ),
    ] {
        let d = dir.join(rules);
        std::fs::create_dir_all(&d).unwrap();
        let mut b = TraceBuilder::new().header("rules", rules);
        for (i, m) in moves.iter().enumerate() {
            b = b.mv(
                1_000 * (i as u64 + 1),
                m,
                if i % 2 == 0 { "w" } else { "b" },
            );
        }
        let board = board_with(&d, &b.claim(9_000, "threefold", "b").text(), "5400+30");
        let a = board.addr.clone();
        let st = poll(30, "the held claim", || {
            let st = bearer_state(&a);
            (st["open"][0]["type"] == "claim_held" && st["clock"]["running"].is_null())
                .then_some(st)
        });
        let m = &st["open"][0];
        assert_eq!(m["rulings"][0]["label"], uphold, "{rules}: {m}");
        assert_eq!(m["rulings"][1]["label"], reject, "{rules}: {m}");
        assert_eq!(st["result"], "*", "{rules}: {st}");
        assert_eq!(st["rulings"], json!([]), "{rules}");
        let held = json!({"ply": 7, "event": {"type": "claim_held", "t": m["t"]}});
        // No penalty yet: White has the time his last move left him.
        let white = st["clock"]["white_ms"].as_u64().unwrap();
        let black = st["clock"]["black_ms"].as_u64().unwrap();
        assert_eq!(
            white,
            st["moves"][6]["clock_ms"].as_u64().unwrap(),
            "{rules}: {st}"
        );
        let (s, v) = post(&a, "/arbiter/resume", json!({"expect": {"ply": 7}}));
        assert_eq!(s, 422, "{rules}: {v}");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("held for your ruling"),
            "{v}"
        );
        let (s, v) = match rules {
            "fide-2023" => post(
                &a,
                "/arbiter/uphold",
                json!({"move": "Ng8", "expect": held}),
            ),
            "fide-2009" => post(&a, "/arbiter/reject", json!({"expect": held})),
            _ => post(
                &a,
                "/arbiter/reject",
                json!({"move": "f6h5", "expect": held}),
            ),
        };
        assert_eq!(s, 200, "{rules}: {v}");
        // The claim is decided, and so announced, now: once.
        let claims: Vec<&Value> = v["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "claim")
            .collect();
        assert_eq!(claims.len(), 1, "{rules}: {v}");
        let st = bearer_state(&a);
        assert_eq!(st["rulings"][0]["article"], article, "{rules}: {st}");
        assert!(
            st["open"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["type"] != "claim_held"),
            "{st}"
        );
        if rules == "fide-2023" {
            assert_eq!(claims[0]["upheld"], true, "{v}");
            assert_eq!(
                (&st["result"], &st["result_reason"]),
                (&json!("1/2-1/2"), &json!("threefold")),
                "{st}"
            );
            assert_eq!(st["ply"], 7, "the written move is not made: {st}");
            continue;
        }
        assert_eq!(claims[0]["upheld"], false, "{v}");
        assert_eq!(
            st["clock"]["white_ms"].as_u64().unwrap(),
            white + cost,
            "{rules}: {st}"
        );
        assert_eq!(st["clock"]["running"], "b", "{rules}: {st}");
        let black_now = st["clock"]["black_ms"].as_u64().unwrap();
        if rules == "fide-2001" {
            assert!(
                black_now <= black - 180_000,
                "2001 cuts the claimant's time: {black} → {black_now}"
            );
            assert!(
                claims[0]["consequence"]
                    .as_str()
                    .unwrap()
                    .contains("the announced move must be made"),
                "{v}"
            );
        } else {
            assert!(black_now > black - 60_000, "{black} → {black_now}");
        }
    }
}

/// Issue 40 §2, 2023 6.10.1 (a defective clock: "the arbiter … shall use
/// his/her best judgement when determining the times to be shown"): the
/// board ends the game on White's flag by itself; the `game_end` alert
/// offers its cancellation with the clocks to give; without clocks that
/// show no flag it is refused 409 naming the flag, with them the result is
/// withdrawn and the game goes on; the undo gives the board's result back.
#[test]
fn a_flag_the_board_declared_is_cancelled_with_the_clocks_and_undone() {
    let dir = tempdir("ruling-flag-cancel");
    let board = board_with(&dir, &TraceBuilder::new().adjust(65_000, "w").text(), "60");
    let a = board.addr.clone();
    let st = poll(30, "the game ended on time", || {
        let st = bearer_state(&a);
        (st["result"] == "0-1" && st["result_reason"] == "time").then_some(st)
    });
    let open = st["open"].as_array().unwrap();
    let end = open.iter().find(|m| m["type"] == "game_end").unwrap();
    let rulings = end["rulings"].as_array().unwrap();
    let cancel = rulings.iter().find(|r| r["action"] == "withdraw");
    let cancel = cancel.unwrap_or_else(|| panic!("no cancel offered: {end}"));
    assert_eq!(cancel["label"], "Cancel the board's time", "{cancel}");
    assert_eq!(cancel["body"]["white_ms"], 0, "{cancel}");
    let expect = json!({"ply": st["ply"], "event": {"type": "game_end", "t": end["t"]}});
    let (s, v) = post(&a, "/arbiter/withdraw", json!({ "expect": expect }));
    assert_eq!(s, 409, "{v}");
    let why = v["error"].as_str().unwrap();
    assert!(
        why.contains("White's clock would still show the flag"),
        "{v}"
    );
    assert_eq!(bearer_state(&a)["result"], "0-1");
    let body = json!({"white_ms": 3_600_000, "black_ms": 60_000,
                      "reason": "the clock was defective", "expect": expect});
    let (s, v) = post(&a, "/arbiter/withdraw", body);
    assert_eq!(s, 200, "{v}");
    let st = bearer_state(&a);
    assert_eq!(st["result"], "*", "{st}");
    let r = &st["rulings"][0];
    assert_eq!(
        (&r["action"], &r["article"]),
        (&json!("withdraw"), &json!("6.10.2"))
    );
    let effect = r["effect"].as_str().unwrap();
    assert!(effect.contains("the board's 0-1 (time) withdrawn"), "{r}");
    let undo = json!({"ruling": 1, "expect": {"ply": st["ply"]}});
    assert_eq!(post(&a, "/arbiter/undo", undo).0, 200);
    assert_eq!(bearer_state(&a)["result"], "0-1");
}
