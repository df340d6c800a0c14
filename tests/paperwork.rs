//! The round's paperwork (issue 24.9), from a real round: `eboard event`
//! writes round 4 of `tests/data/pairings-open-2026.trf` as the boards'
//! pairings; four boards play it (4.1 the Opera Game, 4.2 an illegal
//! move, 4.3 a loss for White's phone the arbiter declares under 2023
//! 11.3.2.2, issue 40.6, 4.4 a no-show) behind an HTTP relay with the
//! arbiters' console;
//! the boards carry only the relay's account (issue 24.10), the arbiters'
//! accounts are the relay's. The arbiter acknowledges the illegal move at
//! the console and rules at the boards (restore, forfeit, confirm). Then:
//!
//! - `/console/report.csv` and `/console/report` (print-ready HTML) have
//!   every alert and ruling: board, who, wall and round time, article,
//!   outcome (acknowledged by whom; applied; refused with its reason);
//! - `/console/results.csv` goes through `eboard results` into the TRF,
//!   which our own TRF reader takes back: 1/0 for the game played, +/- for
//!   the forfeit, the unfinished game blank and named.

use crate::common;

use common::console::*;
use common::round::*;
use common::*;
use serde_json::{json, Value};

const TRF: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/pairings-open-2026.trf"
);
const BOARD_TOKEN: &str = "7f3c9a1e5b2d4c6e8a0b1c2d3e4f5a6b";

/// A ruling at a board by its own token (the per-action API): (status, body).
fn rule_at(board: &str, action: &str, body: &str) -> (u16, String) {
    let auth = format!("Bearer {BOARD_TOKEN}");
    let (s, _, b) = http(
        board,
        "POST",
        &format!("/arbiter/{action}"),
        &[("Authorization", auth.as_str())],
        body,
    );
    (s, b)
}

/// The console's alert of `kind` on `game`, once it is there.
fn alert(relay: &str, cookie: &str, kind: &str, game: &str) -> Value {
    console_alert(relay, ("Cookie", cookie), kind, game)
}

/// The CSV's rows as maps of header → cell (the report's cells hold no
/// line break; quoted commas are kept together).
fn csv_rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    fn split(line: &str) -> Vec<String> {
        let (mut out, mut cur, mut q) = (Vec::new(), String::new(), false);
        let mut it = line.chars().peekable();
        while let Some(c) = it.next() {
            match (c, q) {
                ('"', true) if it.peek() == Some(&'"') => {
                    cur.push('"');
                    it.next();
                }
                ('"', _) => q = !q,
                (',', false) => out.push(std::mem::take(&mut cur)),
                (c, _) => cur.push(c),
            }
        }
        out.push(cur);
        out
    }
    let mut lines = text.split("\r\n").filter(|l| !l.is_empty());
    let header = split(lines.next().unwrap());
    lines
        .map(|l| header.iter().cloned().zip(split(l)).collect())
        .collect()
}

#[test]
fn a_rounds_report_and_its_results_in_the_pairings_trf() {
    let dir = tempdir("paperwork");
    // The pairings of round 4 as fragments for `eboard run --pairing`.
    let pairings = dir.join("pairings");
    let out = pairings.to_str().unwrap();
    eboard_ok(&[
        "event", TRF, "--round", "4", "--event", "DM 2026", "--out", out,
    ]);
    // The boards: only the relay's account (no arbiter's secret on a board).
    let relay_account = format!("\n{}", relay_account());
    let mut boards = Vec::new();
    for n in [1u32, 2, 3, 4] {
        let d = dir.join(format!("b{n}"));
        std::fs::create_dir_all(&d).unwrap();
        let cfg = config(&d, 4, n, &relay_account);
        let trace = match n {
            1 => Some(opera_trace(&d, 1)),
            2 => Some(illegal_trace(&d, 12_000)),
            _ => None,
        };
        let fragment = pairings.join(format!("board-{n}.toml"));
        let j = d.join("j.jsonl");
        let board = run_board(
            &d,
            &cfg,
            trace.as_deref(),
            &[
                "--journal",
                j.to_str().unwrap(),
                "--speed",
                "50",
                "--pairing",
                fragment.to_str().unwrap(),
            ],
        );
        let stderr = std::fs::read_to_string(&board.stderr).unwrap_or_default();
        assert!(
            !stderr.contains("a console account's"),
            "a board with the relay's account only is not warned: {stderr}"
        );
        boards.push(board);
    }
    // The relay: the arbiters' accounts live here.
    // And the event's zone and chief arbiter (issue 40 §9): the report's
    // times are in Copenhagen's, not the machine's UTC.
    let accounts = format!(
        "pairings = \"{TRF}\"\n\n{}\n[event]\ntime_zone = \"Europe/Copenhagen\"\n\
         chief_arbiter = \"IA Hansen, Peter\"\n",
        named_account("IA Hansen", SECRET)
    );
    let relay = relay_over(&dir, &accounts, &boards.iter().collect::<Vec<_>>());
    let r = relay.addr.as_str();
    let cookie = login(r, "IA Hansen", SECRET);
    let me = [("Cookie", cookie.as_str())];
    // Behind the login.
    assert_eq!(http(r, "GET", "/console/report", &[], "").0, 401);
    assert_eq!(http(r, "GET", "/console/results.csv", &[], "").0, 401);
    assert_eq!(http(r, "GET", "/console/results.trf", &[], "").0, 401);
    // The console page links the paperwork, so the arbiter finds it.
    let (s, _, page) = http(r, "GET", "/console", &[], "");
    assert_eq!(s, 200);
    for link in [
        "/console/report",
        "/console/report.csv",
        "/console/results.csv",
        "/console/results.trf",
    ] {
        assert!(
            page.contains(&format!("href=\"{link}\"")),
            "the console links {link}"
        );
    }

    // 4.2: the illegal move, acknowledged at the console, restored at the board.
    let illegal = alert(r, &cookie, "illegal_move", "4.2");
    let (s, _, b) = http(
        r,
        "POST",
        "/console/ack",
        &me,
        &json!({"id": illegal["id"]}).to_string(),
    );
    assert_eq!(s, 200, "{b}");
    let (s, b) = rule_at(&boards[1].addr, "restore", "");
    assert_eq!(s, 200, "{b}");
    // 4.4: nobody came.
    let (s, b) = rule_at(&boards[3].addr, "forfeit", r#"{"result": "1-0"}"#);
    assert_eq!(s, 200, "{b}");
    // 4.3: White's phone rings (2023 11.3.2.2): the arbiter declares the
    // loss under its article, with his reason; an article not in the
    // profile's list is refused with the list (issue 40.6).
    let (s, b) = rule_at(
        &boards[2].addr,
        "result",
        r#"{"result": "0-1", "article": "12.3b", "reason": "phone"}"#,
    );
    assert_eq!(s, 422, "{b}");
    assert!(b.contains("11.3.2.2 (an electronic device"), "{b}");
    let (s, b) = rule_at(
        &boards[2].addr,
        "result",
        r#"{"result": "0-1", "article": "11.3.2.2", "reason": "White's phone rang in the playing venue"}"#,
    );
    assert_eq!(s, 200, "{b}");
    let reply: Value = serde_json::from_str(&b).unwrap();
    let end = reply["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "game_end")
        .unwrap_or_else(|| panic!("{reply}"));
    assert_eq!(
        (&end["article"], &end["reason"], &end["declared"]),
        (&json!("11.3.2.2"), &json!("rules_infraction"), &json!(true)),
        "{end}"
    );
    let pgn = http(&boards[2].addr, "GET", "/games.pgn", &[], "").2;
    assert_eq!(
        common::pgn_tag(&pgn, "Termination"),
        Some("rules infraction"),
        "{pgn}"
    );
    assert_eq!(
        common::pgn_tag(&pgn, "ResultStatus"),
        Some("confirmed"),
        "{pgn}"
    );
    // 4.1: the game ends; its result confirmed; a second confirmation is
    // refused by the boards that know it changes nothing (issue 24.1).
    let end = alert(r, &cookie, "game_end", "4.1");
    assert_eq!(end["event"]["result"], "1-0", "{end}");
    let (s, b) = rule_at(&boards[0].addr, "confirm", "");
    assert_eq!(s, 200, "{b}");
    let (again, again_body) = rule_at(&boards[0].addr, "confirm", "");

    // The report, as CSV: every alert and ruling, once each ruling is in.
    let rows = poll(30, "the rulings in the report", || {
        let (s, head, b) = http(r, "GET", "/console/report.csv?tz=%2B02:00", &me, "");
        (s == 200).then_some(())?;
        assert!(head.to_lowercase().contains("text/csv"), "{head}");
        let rows = csv_rows(&b);
        let has = |game: &str, kind: &str, what: &str| {
            rows.iter()
                .any(|x| x["game"] == game && x["kind"] == kind && x["what"] == what)
        };
        (has("4.2", "ruling", "restore")
            && has("4.4", "ruling", "forfeit")
            && has("4.3", "ruling", "result")
            && has("4.1", "ruling", "confirm")
            && has("4.1", "refused", "confirm"))
        .then_some(rows)
    });
    let find = |game: &str, kind: &str, what: &str| -> &std::collections::HashMap<String, String> {
        rows.iter()
            .find(|x| x["game"] == game && x["kind"] == kind && x["what"] == what)
            .unwrap_or_else(|| panic!("no {kind} {what} of {game}: {rows:?}"))
    };
    let a = find("4.2", "alert", "illegal_move");
    assert_eq!(a["who"], "White (Frandsen,Lars)", "{a:?}");
    assert!(a["article"].starts_with("7.5"), "{a:?}");
    assert!(
        a["outcome"].starts_with("acknowledged by IA Hansen at "),
        "{a:?}"
    );
    assert!(a["wall_time"].ends_with("UTC+02:00"), "{a:?}");
    let round_ms: u64 = a["round_ms"].parse().unwrap();
    assert!(
        (12_000..=13_000).contains(&round_ms),
        "the move of the trace at 12 s: {a:?}"
    );
    assert_eq!(a["round_time"], "0:00:12", "{a:?}");
    let restore = find("4.2", "ruling", "restore");
    assert_eq!(restore["who"], "Chief Arbiter", "{restore:?}");
    assert!(restore["outcome"].starts_with("applied"), "{restore:?}");
    assert!(!restore["article"].is_empty(), "{restore:?}");
    // 4.3's declared loss: its article in the report, confirmed by the
    // act (no "result to confirm" alert).
    let phone = find("4.3", "ruling", "result");
    assert_eq!(phone["article"], "11.3.2.2", "{phone:?}");
    assert!(phone["outcome"].starts_with("applied"), "{phone:?}");
    assert!(
        !rows
            .iter()
            .any(|x| x["game"] == "4.3" && x["kind"] == "alert" && x["what"] == "game_end"),
        "{rows:?}"
    );
    assert!(
        console_alerts(r, ("Cookie", cookie.as_str()), "game_end", Some("4.3")).is_empty(),
        "a declared result waits for no confirmation"
    );
    let forfeit = find("4.4", "ruling", "forfeit");
    assert!(forfeit["outcome"].starts_with("applied"), "{forfeit:?}");
    find("4.1", "alert", "game_end");
    // Wall times in order, each within this test's run.
    let walls: Vec<u64> = rows.iter().map(|x| x["unix_ms"].parse().unwrap()).collect();
    assert!(walls.windows(2).all(|w| w[0] <= w[1]), "{walls:?}");
    // The second confirmation: refused by the board, with its reason.
    assert!(again == 409 || again == 422, "{again}: {again_body}");
    let refused = find("4.1", "refused", "confirm");
    assert!(
        refused["outcome"].starts_with(&format!("refused ({again}): "))
            && refused["outcome"].len() > 20,
        "{refused:?} / {again_body}"
    );
    // Its article: the confirmation's (DSU 004 §15), as an applied one's.
    assert_eq!(refused["article"], "DSU 004 §15", "{refused:?}");
    assert_eq!(find("4.1", "ruling", "confirm")["article"], "DSU 004 §15");

    // The print-ready page: the same, escaped, no script.
    let (s, head, html) = http(r, "GET", "/console/report", &me, "");
    assert_eq!(s, 200);
    assert!(head.to_lowercase().contains("text/html"), "{head}");
    assert!(
        html.contains("<h1>Round report: DM 2026, round 4</h1>"),
        "{html}"
    );
    assert!(html.contains("@page") && html.contains("@media print"));
    assert!(!html.contains("<script"), "print-ready: no script");
    assert!(html.contains("acknowledged by IA Hansen"), "{html}");
    // The refused confirmation's row: its article and its outcome.
    let row = html
        .split("<tr>")
        .find(|r| r.contains("<td class=\"refused\">refused (") && r.contains("<td>confirm</td>"))
        .unwrap_or_else(|| panic!("no refused row: {html}"));
    assert!(
        row.contains("<td>DSU 004 §15</td>") && row.contains("<td>confirm</td>"),
        "{row}"
    );
    assert!(html.contains("Frandsen,Lars"), "{html}");
    assert!(
        html.contains("<td>11.3.2.2</td>"),
        "the phone's article: {html}"
    );
    // A norm-file document (issue 40 §9): the chief arbiter, the players'
    // ratings, federations and FIDE ids (from the pairings), every time in
    // the event's zone with its abbreviation, none in UTC.
    for want in [
        "<dt>Chief arbiter</dt><dd>IA Hansen, Peter</dd>",
        "Andersen,Mads</td><td>2560</td><td>DEN</td><td>1400001</td>",
        "Wall times in Europe/Copenhagen, 24-hour",
        "<h3>Board 4.",
    ] {
        assert!(html.contains(want), "{want}: {html}");
    }
    assert!(!html.contains(" UTC"), "no time in UTC: {html}");
    let ack = html
        .split("acknowledged by IA Hansen at ")
        .nth(1)
        .and_then(|rest| rest.split([';', '<']).next())
        .unwrap_or_default();
    assert!(
        ack.len() == 23 && ack.ends_with(" CET") || ack.len() == 24 && ack.ends_with(" CEST"),
        "the acknowledgement in Copenhagen's time: {ack:?}"
    );
    assert_eq!(http(r, "GET", "/console/report?tz=noon", &me, "").0, 422);
    if let Ok(keep) = std::env::var("EBOARD_KEEP_REPORT") {
        std::fs::write(keep, &html).unwrap();
    }

    // The results, into the pairings' TRF, read back by our own reader.
    let results = poll(30, "the confirmed results", || {
        let (s, _, b) = http(r, "GET", "/console/results.csv", &me, "");
        (s == 200 && b.contains(",confirmed,") && b.contains(",forfeit,")).then_some(b)
    });
    let csv = dir.join("results.csv");
    std::fs::write(&csv, &results).unwrap();
    let trf_out = dir.join("round4.trf");
    let out = eboard_command()
        .args(["results", TRF, "--results", csv.to_str().unwrap()])
        .args(["-o", trf_out.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("4.2") && said.contains("left blank"),
        "{said}"
    );
    let text = std::fs::read_to_string(&trf_out).unwrap();
    let entries = eboard::event::trf::round_entries(&text, "round4.trf", 4).unwrap();
    let code = |rank: u32| entries.iter().find(|e| e.rank == rank).unwrap().result;
    // 4.1 Iversen (9) - Dahl (4) 1-0; 4.4 Eriksen (5) - Christensen (3) 1-0
    // forfeit; 4.2 Frandsen (6) - Andersen (1) unfinished; 4.3 Berg (2) -
    // Holm (8) 0-1, White's phone (11.3.2.2), confirmed by the declaration.
    assert_eq!((code(9), code(4)), ('1', '0'));
    assert_eq!((code(5), code(3)), ('+', '-'));
    assert_eq!((code(6), code(1)), (' ', ' '));
    assert_eq!((code(2), code(8)), ('0', '1'));
    assert_eq!(code(7), 'H', "the bye is kept");
    // The pairings still read (the file is a TRF-16 as before).
    eboard::event::read_round(&text, "round4.trf", 4).unwrap();
    // The console serves the same TRF itself (`[arbiter] pairings`), the
    // game left blank named.
    let (s, head, served) = http(r, "GET", "/console/results.trf", &me, "");
    assert_eq!(s, 200, "{served}");
    assert_eq!(
        served, text,
        "the console's TRF is the one eboard results writes"
    );
    let head = head.to_ascii_lowercase();
    assert!(head.contains("x-eboard-left-blank: 4.2"), "{head}");
    assert!(head.contains("round4-results.trf"), "{head}");
    // --complete refuses a round with games unfinished.
    let out = eboard_command()
        .args([
            "results",
            TRF,
            "--results",
            csv.to_str().unwrap(),
            "--complete",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("without a final result"));
    drop(boards);
    std::fs::remove_dir_all(&dir).ok();
}

/// A corrected result, a board restart, the correction undone (ia16), on
/// a board with a journal directory (the service's): the restart within
/// the round resumes the game whose result the arbiter confirmed and
/// corrected, so the PGN, the results CSV and the results TRF still carry
/// it, and the correction can be undone after the restart: all three then
/// carry the draw by agreement, confirmed, its termination kept, and
/// nothing of the correction. The next round's pairing archives the game.
/// On main the restart archived the confirmed game and began a new one of
/// the same pairing: the PGN said `*`, the TRF left 4.1 blank, the CSV had
/// `*`, and the undo was refused "there is no ruling #2 on this board".
#[test]
fn a_correction_undone_after_a_board_restart_leaves_the_final_result_everywhere() {
    let dir = tempdir("paperwork-restart");
    let pairings = dir.join("pairings");
    let out = eboard_command()
        .args(["event", TRF, "--round", "4", "--event", "DM 2026"])
        .args(["--out", pairings.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let fragment = pairings.join("board-1.toml");
    let cfg = config(&dir, 4, 1, &format!("pairings = \"{TRF}\"\n"));
    let trace = steps_trace(
        &dir,
        "draw",
        TIME_CONTROL,
        "1000 mv e2e4 w\n2000 mv e7e5 b\n3000 offer w\n3500 accept b\n",
    );
    let state = dir.join("state");
    let args = |pairing: &std::path::Path| -> Vec<String> {
        vec![
            "--journal-dir".into(),
            state.display().to_string(),
            "--pairing".into(),
            pairing.display().to_string(),
        ]
    };
    let first = args(&fragment);
    let mut board = run_board(&dir, &cfg, Some(&trace), &refs(&first));
    let auth = [ARBITER_AUTH];
    let b = board.addr.clone();
    poll(30, "the draw", || {
        get(&b, "/games.pgn")
            .contains("[Result \"1/2-1/2\"]")
            .then_some(())
    });
    let (s, body) = request(&b, "POST", "/arbiter/confirm", &auth, "{}");
    assert_eq!(s, 200, "{body}");
    let wrong = json!({"result": "1-0", "reason": "read the wrong scoresheet"}).to_string();
    let (s, body) = request(&b, "POST", "/arbiter/confirm", &auth, &wrong);
    assert_eq!(s, 200, "{body}");
    board.kill();
    // Restarted within the round (a power cut): the same game, resumed.
    let again = args(&fragment);
    let board = run_board(&dir, &cfg, None, &refs(&again));
    let b = board.addr.clone();
    let pgn = get(&b, "/games.pgn");
    assert!(
        pgn.contains("[Result \"1-0\"]") && pgn.contains("1. e4"),
        "the corrected game, not a new one: {pgn}"
    );
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        log.contains("its result confirmed: resumed while this start is the same game"),
        "{log}"
    );
    // The correction undone after the restart.
    let (s, body) = request(
        &b,
        "POST",
        "/arbiter/undo",
        &auth,
        &json!({"ruling": 2}).to_string(),
    );
    assert_eq!(s, 200, "{body}");
    let pgn = get(&b, "/games.pgn");
    assert!(
        pgn.contains("[Result \"1/2-1/2\"]")
            && pgn.contains("[ResultStatus \"confirmed\"]")
            && !pgn.contains("1-0")
            && !pgn.contains("corrected"),
        "{pgn}"
    );
    let (s, csv) = request(&b, "GET", "/console/results.csv", &auth, "");
    assert_eq!(s, 200, "{csv}");
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 1, "{csv}");
    assert_eq!(
        (
            rows[0]["result"].as_str(),
            rows[0]["status"].as_str(),
            rows[0]["reason"].as_str()
        ),
        ("1/2-1/2", "confirmed", "agreement"),
        "{csv}"
    );
    let (s, head, trf) = http(&b, "GET", "/console/results.trf", &auth, "");
    assert_eq!(s, 200, "{trf}");
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("x-eboard-left-blank: 4.1"),
        "{head}"
    );
    let entries = eboard::event::trf::round_entries(&trf, "round4.trf", 4).unwrap();
    // Iversen (9) - Dahl (4), drawn: `=` for both in round 4.
    let code = |rank: u32| entries.iter().find(|e| e.rank == rank).map(|e| e.result);
    assert_eq!((code(9), code(4)), (Some('='), Some('=')), "{trf}");
    drop(board);
    // The next round's pairing: the confirmed game is archived, 5.1 begins.
    let next = dir.join("board-1-round5.toml");
    std::fs::write(
        &next,
        std::fs::read_to_string(&fragment)
            .unwrap()
            .replace("round = 4", "round = 5"),
    )
    .unwrap();
    let fifth = args(&next);
    let board = run_board(&dir, &cfg, None, &refs(&fifth));
    let pgn = get(&board.addr, "/games.pgn");
    assert!(
        pgn.contains("[Round \"5.1\"]") && pgn.contains("[Result \"*\"]"),
        "{pgn}"
    );
    assert_eq!(
        std::fs::read_dir(state.join("games"))
            .unwrap()
            .filter(|e| e
                .as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "jsonl"))
            .count(),
        1
    );
    drop(board);
    std::fs::remove_dir_all(&dir).ok();
}
