//! The arbiter's own words stay private (issue 42 §5): a forfeit and a
//! corrected result, each with a distinctive reason, on two boards behind
//! an HTTP relay that pushes the round to a local fake of lichess
//! (`common::lichess`). The reasons reach no public feed — the boards'
//! and the relay's `/games.pgn`, LiveChess tree, `/boards.json` and
//! `/events`, nor any push body — which carry the PGN standard's
//! `Termination` (§9.8.1) and a comment in fixed words instead; they are
//! in the journal and in the relay's round report (`/console/report`).
//! python-chess reads the relay's PGN with its tags.

use crate::common;

use common::console::*;
use common::lichess::serve_fake_lichess;
use common::round::*;
use common::*;
use serde_json::{json, Value};

/// The arbiter's reason for the forfeit (game 1.1).
const FORFEIT_REASON: &str = "Holm phoned at 13:05, stuck on the train QZX-F";
/// The arbiter's reason for the correction (game 1.2).
const CORRECTION_REASON: &str = "both scoresheets signed as a draw QZX-C";
/// What marks either reason in a text.
const MARK: &str = "QZX-";

/// The public texts of `addr` (a board or the relay): the PGN, the
/// LiveChess tree of round 1 and `/boards.json`, by path.
fn polled_feeds(addr: &str) -> Vec<(String, String)> {
    [
        "/games.pgn",
        "/tournament.json",
        "/round-1/index.json",
        "/round-1/game-1.json",
        "/round-1/game-2.json",
        "/boards.json",
    ]
    .iter()
    .map(|p| (format!("{addr}{p}"), http(addr, "GET", p, &[], "").2))
    .collect()
}

/// Every message `r` received until now (waits `ms` for stragglers).
fn drain(r: &SseReader, ms: u64) -> Vec<Value> {
    let mut out = Vec::new();
    while let Ok((_, v)) = r.rx.recv_timeout(std::time::Duration::from_millis(ms)) {
        out.push(v);
    }
    out
}

#[test]
fn the_arbiters_reasons_reach_no_public_feed_and_stay_in_the_report() {
    let dir = tempdir("public-reasons");
    let rt = runtime();
    let (lichess, pushed) = serve_fake_lichess(&rt, 0);
    // 1.1: nobody came (no trace); 1.2: Black resigns after 1. e4 e5.
    let round = Round::start(&dir, &relay_account(), 2, |t| match t.n {
        1 => t.start(None, &refs(&t.journaled("20", &[]))),
        _ => {
            let trace = t.trace(
                TIME_CONTROL,
                "1000 mv e2e4 w\n2000 mv e7e5 b\n3000 resign b\n",
            );
            t.start(Some(&trace), &refs(&t.journaled("20", &[])))
        }
    });
    let accounts = format!(
        "{}\n[lichess]\nround_id = \"PubR1234\"\ntoken = \"lip_test\"\nbase_url = \"http://{lichess}\"\n",
        named_account("IA Hansen", SECRET)
    );
    let relay = relay_over(&dir, &accounts, &round.boards());
    let r = relay.addr.as_str();
    let (b1, b2) = (round.boards[0].addr.as_str(), round.boards[1].addr.as_str());
    // The public streams, open before the rulings.
    let streams = [
        SseReader::open(r, "/events", &[]),
        SseReader::open(b1, "/events", &[]),
        SseReader::open(b2, "/events", &[]),
    ];
    poll(30, "1.2 resigned", || {
        (board_state(b2)["result"] == "1-0").then_some(())
    });

    let (s, v) = board_post(
        b1,
        "/arbiter/forfeit",
        json!({"result": "1-0", "before_default_time": true, "reason": FORFEIT_REASON}),
    );
    assert_eq!(s, 200, "{v}");
    let (s, v) = board_post(
        b2,
        "/arbiter/confirm",
        json!({"result": "1/2-1/2", "reason": CORRECTION_REASON}),
    );
    assert_eq!(s, 200, "{v}");

    // Both results in the relay's PGN and in the last push to lichess.
    let pgn = poll(30, "both results at the relay", || {
        let pgn = get(r, "/games.pgn");
        (pgn.contains("[ResultStatus \"forfeit\"]") && pgn.contains("[ResultStatus \"corrected\"]"))
            .then_some(pgn)
    });
    poll(30, "the results pushed to lichess", || {
        let p = pushed.lock().unwrap();
        p.calls
            .last()
            .is_some_and(|c| {
                c.3.contains("[ResultStatus \"corrected\"]")
                    && c.3.contains("[ResultStatus \"forfeit\"]")
            })
            .then_some(())
    });

    // Nothing public says the arbiter's words.
    let mut public: Vec<(String, String)> = Vec::new();
    for addr in [r, b1, b2] {
        public.extend(polled_feeds(addr));
    }
    for (name, s) in ["relay", "board 1.1", "board 1.2"].iter().zip(&streams) {
        for m in drain(s, 300) {
            public.push((format!("{name} /events"), m.to_string()));
        }
    }
    for c in &pushed.lock().unwrap().calls {
        public.push(("the push to lichess".into(), c.3.clone()));
    }
    assert!(
        public.iter().any(|(_, t)| t.contains("\"ruling\"")),
        "the rulings themselves are public (their effects): {public:?}"
    );
    for (what, text) in &public {
        assert!(
            !text.contains(MARK),
            "{what} carries the arbiter's reason: {text}"
        );
    }

    // What the public gets instead: the standard's Termination and fixed words.
    assert_eq!(
        pgn_tag(&pgn, "Termination"),
        Some("rules infraction"),
        "{pgn}"
    );
    assert!(pgn.contains("Black forfeits: did not appear ("), "{pgn}");
    assert!(pgn.contains("Result corrected by the arbiter"), "{pgn}");
    if python_chess().is_some() {
        let games = parse_pgn_with_python(&pgn);
        let games = games.as_array().unwrap();
        assert_eq!(games.len(), 2, "{games:?}");
        let h = |i: usize, k: &str| games[i]["headers"][k].clone();
        assert_eq!(
            (h(0, "Result"), h(0, "Termination")),
            (json!("1-0"), json!("rules infraction"))
        );
        assert_eq!(
            (h(1, "Result"), h(1, "Termination")),
            (json!("1/2-1/2"), json!("adjudication"))
        );
        assert!(
            games[0]["first_comment"]
                .as_str()
                .is_some_and(|c| c.contains("Black forfeits: did not appear")),
            "{games:?}"
        );
        let last = games[1]["comments"]
            .as_array()
            .and_then(|c| c.last())
            .cloned();
        assert!(
            last.as_ref()
                .and_then(Value::as_str)
                .is_some_and(|c| c.contains("Result corrected by the arbiter")),
            "{games:?}"
        );
    } else {
        skip_or_fail_under_ci("python-chess is not installed: the PGN is not read by it");
    }

    // The words are kept: the journal and the round report.
    let journaled = |n: u32, action: &str| {
        round
            .records(n)
            .iter()
            .find(|v| v["arbiter"] == action)
            .map(|v| v["reason"].clone())
    };
    assert_eq!(journaled(1, "forfeit"), Some(json!(FORFEIT_REASON)));
    assert_eq!(journaled(2, "confirm"), Some(json!(CORRECTION_REASON)));
    let cookie = login(r, "IA Hansen", SECRET);
    let report = poll(30, "both reasons in the round report", || {
        let (s, _, html) = http(
            r,
            "GET",
            "/console/report",
            &[("Cookie", cookie.as_str())],
            "",
        );
        (s == 200 && html.contains(FORFEIT_REASON) && html.contains(CORRECTION_REASON))
            .then_some(html)
    });
    assert!(report.contains("<td>forfeit</td>"), "{report}");
    drop(relay);
    drop(round);
    std::fs::remove_dir_all(&dir).ok();
}
