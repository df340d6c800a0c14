//! A double forfeit (issue 24.6: neither player came, both lose, `0-0`),
//! through the board daemon over HTTP: `forfeit` with `0-0` before any move
//! ends the game at once, confirmed; the state, the PGN (read by
//! python-chess: `[Result "0-0"]`, no moves, no error), the LiveChess tree
//! and the event stream carry it; the journal replays it to the same
//! result after a restart; `undo` gives the game back, playable; a double
//! forfeit once a player has moved is refused, naming him.

use crate::common;

use common::pgn_tag as tag;

use common::console::*;
use common::*;
use serde_json::{json, Value};

/// The first message of `r` that `f` accepts, within `secs`.
fn wait_for(r: &SseReader, secs: u64, f: impl Fn(&Value) -> bool) -> Value {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let left = end
            .checked_duration_since(std::time::Instant::now())
            .unwrap_or_else(|| panic!("no such message within {secs} s"));
        match r.rx.recv_timeout(left) {
            Ok((_, v)) if f(&v) => return v,
            Ok(_) => {}
            Err(e) => panic!("no such message within {secs} s: {e}"),
        }
    }
}

/// `eboard doctor`'s `game` row for the journal directory `jd`: (status,
/// detail).
fn doctor_game(
    dir: &std::path::Path,
    cfg: &std::path::Path,
    jd: &std::path::Path,
) -> (String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_eboard"))
        .args(["doctor", "--json", "--skip", "time", "--config"])
        .arg(cfg)
        .arg("--journal-dir")
        .arg(jd)
        .current_dir(dir)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let row = v["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|r| r["check"] == "game"))
        .unwrap_or_else(|| panic!("no game row: {v}"));
    (
        row["status"].as_str().unwrap_or_default().to_owned(),
        row["detail"].as_str().unwrap_or_default().to_owned(),
    )
}

#[test]
fn a_double_forfeit_is_carried_by_every_feed_replayed_and_undone() {
    let dir = tempdir("double-forfeit");
    let trace = steps_trace(&dir, "empty", TIME_CONTROL, "");
    let cfg = config(&dir, 1, 1, "");
    let journal = dir.join("j.jsonl");
    let j = journal.to_str().unwrap();
    let mut board = run_board(&dir, &cfg, Some(&trace), &["--journal", j]);
    let a = board.addr.clone();
    poll(30, "the board's state", || {
        (board_state(&a)["ply"] == 0).then_some(())
    });
    let public = SseReader::open(&a, "/events", &[]);

    let (s, v) = board_post(
        &a,
        "/arbiter/forfeit",
        json!({"result": "0-0", "expect": {"ply": 0, "result": "*"}}),
    );
    assert_eq!(s, 200, "{v}");
    let st = board_state(&a);
    assert_eq!(st["result"], "0-0", "{st}");
    assert_eq!(st["result_status"], "forfeit", "{st}");
    assert_eq!(st["result_reason"], "forfeit", "{st}");
    assert_eq!(st["stage"], "ended", "{st}");
    assert_eq!(st["clock"]["running"], Value::Null, "{st}");
    assert_eq!(st["open"], json!([]), "nothing left to rule: {st}");
    let effect = st["rulings"][0]["effect"].as_str().unwrap().to_owned();
    assert!(effect.contains("0-0, both players lost"), "{effect}");
    assert_eq!(st["rulings"][0]["undoable"], true, "{st}");

    // The public stream (no delay): the end, lost by both, confirmed.
    let end = wait_for(&public, 10, |v| v["type"] == "game_end");
    assert_eq!(
        (&end["result"], &end["reason"]),
        (&json!("0-0"), &json!("forfeit"))
    );
    let conf = wait_for(&public, 10, |v| v["type"] == "result_confirmed");
    assert_eq!(
        (&conf["result"], &conf["forfeit"]),
        (&json!("0-0"), &json!(true))
    );

    // The PGN: the tag lichess broadcasts read as 0 points each, the
    // movetext ending in `*` (a `0-0` there reads as castling).
    let pgn = get(&a, "/games.pgn");
    assert_eq!(tag(&pgn, "Result"), Some("0-0"), "{pgn}");
    assert_eq!(tag(&pgn, "ResultStatus"), Some("forfeit"), "{pgn}");
    assert_eq!(tag(&pgn, "Termination"), Some("rules infraction"), "{pgn}");
    let movetext = pgn.split("\n\n").nth(1).unwrap_or_default().trim();
    assert_eq!(
        movetext, "{double forfeit: neither player came, both lost (0-0)} *",
        "{pgn}"
    );
    if python_chess().is_some() {
        let games = parse_pgn_with_python(&pgn);
        let g = &games[0];
        assert_eq!(g["headers"]["Result"], "0-0", "{games}");
        assert_eq!(g["moves"], json!([]), "{games}");
        assert!(
            g["first_comment"]
                .as_str()
                .unwrap()
                .contains("double forfeit"),
            "{games}"
        );
    } else {
        skip_or_fail_under_ci("python3 with python-chess is not installed");
    }
    // The LiveChess tree: the pairing's result is what lila's relay copies
    // into the Result tag.
    let index: Value = serde_json::from_str(&get(&a, "/round-1/index.json")).unwrap();
    assert_eq!(index["pairings"][0]["result"], "0-0", "{index}");
    assert_eq!(index["pairings"][0]["resultStatus"], "forfeit", "{index}");
    let game: Value = serde_json::from_str(&get(&a, "/round-1/game-1.json")).unwrap();
    assert_eq!(game["result"], "0-0", "{game}");

    // The journal: the record as given, replayed to the same result.
    let recs = journal_records(&journal);
    assert!(
        recs.iter()
            .any(|r| r["arbiter"] == "forfeit" && r["result"] == "0-0"),
        "{recs:?}"
    );
    let before = board_state(&a)["rulings"].clone();
    board.kill();
    let board = run_board(&dir, &cfg, Some(&trace), &["--journal", j]);
    let b = board.addr.clone();
    poll(30, "the replayed double forfeit", || {
        let st = board_state(&b);
        (st["rulings"] == before).then_some(st)
    });
    let st = board_state(&b);
    assert_eq!(
        (&st["result"], &st["result_status"]),
        (&json!("0-0"), &json!("forfeit"))
    );

    // Undone: the game as before it, and White may still come.
    let (s, v) = board_post(
        &b,
        "/arbiter/undo",
        json!({"ruling": 1, "expect": {"ply": 0}}),
    );
    assert_eq!(s, 200, "{v}");
    let st = board_state(&b);
    assert_eq!(st["result"], "*", "{st}");
    assert_eq!(st["result_status"], Value::Null, "{st}");
    assert_eq!(st["rulings"][0]["undone_by"], 2, "{st}");
    let pgn = get(&b, "/games.pgn");
    assert_eq!(tag(&pgn, "Result"), Some("*"), "{pgn}");
    assert!(!pgn.contains("double forfeit"), "{pgn}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_double_forfeit_after_a_move_is_refused_naming_the_player_present() {
    let dir = tempdir("double-forfeit-moved");
    let trace = steps_trace(&dir, "one", TIME_CONTROL, "1000 mv e2e4 w\n");
    let cfg = config(&dir, 1, 1, "");
    let board = run_board(&dir, &cfg, Some(&trace), &[]);
    let a = board.addr.clone();
    poll(30, "White's move", || {
        (board_state(&a)["ply"] == 1).then_some(())
    });
    let (s, v) = board_post(&a, "/arbiter/forfeit", json!({"result": "0-0"}));
    assert_eq!(s, 422, "{v}");
    let why = v["error"].as_str().unwrap();
    assert!(why.starts_with("White has moved"), "{why}");
    assert!(why.contains("1-0"), "his win by forfeit is named: {why}");
    assert_eq!(board_state(&a)["result"], "*");
    std::fs::remove_dir_all(&dir).ok();
}

/// `[event] session_start` (issue 24, the default time from the round's
/// scheduled start, DSU 004 §11): a fide-2009 board (15 min) whose round
/// was scheduled 16 min before it started takes a no-show's forfeit at
/// once, with no clock ever run; without the scheduled start the session
/// would start at the board's start and the forfeit be refused for 15
/// min. The daemon writes the start in round ms into the journal's header
/// (`session_start_ms`), so a replay decides the same. About 2 s.
#[test]
fn a_forfeit_counts_the_default_time_from_the_rounds_scheduled_start() {
    let dir = tempdir("session-start");
    let trace = steps_trace(&dir, "empty", TIME_CONTROL, "");
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let out = std::process::Command::new("date")
        .args([
            "-u",
            "-d",
            &format!("@{}", now_s - 16 * 60),
            "+%Y-%m-%dT%H:%M:%S+00:00",
        ])
        .output()
        .unwrap();
    let scheduled = String::from_utf8(out.stdout).unwrap();
    let cfg = config(&dir, 1, 1, "");
    let text = std::fs::read_to_string(&cfg).unwrap().replacen(
        "[event]\n",
        &format!(
            "[event]\nrules = \"fide-2009\"\nsession_start = \"{}\"\n",
            scheduled.trim()
        ),
        1,
    );
    std::fs::write(&cfg, text).unwrap();
    let journal = dir.join("j.jsonl");
    let j = journal.to_str().unwrap();
    let mut board = run_board(&dir, &cfg, Some(&trace), &["--journal", j]);
    let a = board.addr.clone();
    let st = poll(30, "the board's state", || {
        let st = board_state(&a);
        (st["ply"] == 0).then_some(st)
    });
    let d = &st["default_time"];
    assert_eq!(d["scheduled"], true, "{st}");
    let started = d["started_t"].as_i64().unwrap_or_else(|| panic!("{st}"));
    assert!(
        (-962_000..=-950_000).contains(&started),
        "16 min before round time 0: {st}"
    );
    assert_eq!(d["passes_t"], 0, "the default time has passed: {st}");
    let (s, v) = board_post(&a, "/arbiter/forfeit", json!({"result": "1-0"}));
    assert_eq!(s, 200, "{v}");
    assert_eq!(board_state(&a)["result_status"], "forfeit");
    board.kill();
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&journal)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        header["session_start_ms"].as_i64(),
        Some(started),
        "{header}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A ruling withdrawn is withdrawn at the next start too (issue 24.5;
/// `journal::standing`): on a board with a journal directory (the
/// service's), a forfeit undone leaves a game in progress, resumed — not
/// archived as finished; a confirmation undone leaves the result
/// provisional, resumed for the arbiter to confirm (DSU 004 §15), not
/// archived as confirmed. Both were archived (the live game lost from the
/// feeds, a new game begun) while the journal was read for the words
/// `game_end` and `result_confirmed` alone.
#[test]
fn a_forfeit_or_a_confirmation_undone_is_not_taken_as_standing_at_the_next_start() {
    let dir = tempdir("undone-restart");
    let state_dir = dir.join("state");
    let jd = ["--journal-dir", state_dir.to_str().unwrap()];
    let cfg = config(&dir, 1, 1, "");
    let trace = steps_trace(&dir, "empty", TIME_CONTROL, "");
    let board = run_board(&dir, &cfg, Some(&trace), &jd);
    let a = board.addr.clone();
    poll(30, "the board's state", || {
        (board_state(&a)["ply"] == 0).then_some(())
    });
    let (s, v) = board_post(
        &a,
        "/arbiter/forfeit",
        json!({"result": "1-0", "expect": {"ply": 0, "result": "*"}}),
    );
    assert_eq!(s, 200, "{v}");
    let (s, v) = board_post(
        &a,
        "/arbiter/undo",
        json!({"ruling": 1, "expect": {"ply": 0}}),
    );
    assert_eq!(s, 200, "{v}");
    assert_eq!(board_state(&a)["result"], "*");
    drop(board);
    let board = run_board(&dir, &cfg, Some(&trace), &jd);
    let a = board.addr.clone();
    let st = poll(30, "the resumed game", || {
        let st = board_state(&a);
        (st["rulings"].as_array().map(Vec::len) == Some(2)).then_some(st)
    });
    assert_eq!(st["result"], "*", "the game goes on: {st}");
    assert!(
        !state_dir.join("games").exists(),
        "a game in progress is never archived"
    );
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(!log.contains("the last game has ended"), "{log}");
    let (status, detail) = doctor_game(&dir, &cfg, &state_dir);
    assert!(
        status == "ok" && detail.contains("in progress"),
        "{status}: {detail}"
    );

    // The arbiter ends it (his decision), confirms it, then withdraws the
    // confirmation: provisional again across a restart, kept for him.
    let (s, v) = board_post(
        &a,
        "/arbiter/result",
        json!({"result": "1/2-1/2", "expect": {"ply": 0, "result": "*"}}),
    );
    assert_eq!(s, 200, "{v}");
    let (s, v) = board_post(
        &a,
        "/arbiter/confirm",
        json!({"expect": {"ply": 0, "result": "1/2-1/2"}}),
    );
    assert_eq!(s, 200, "{v}");
    let (s, v) = board_post(
        &a,
        "/arbiter/undo",
        json!({"ruling": 4, "expect": {"ply": 0}}),
    );
    assert_eq!(s, 200, "{v}");
    drop(board);
    let board = run_board(&dir, &cfg, Some(&trace), &jd);
    let a = board.addr.clone();
    let st = poll(30, "the resumed game", || {
        let st = board_state(&a);
        (st["rulings"].as_array().map(Vec::len) == Some(5)).then_some(st)
    });
    assert_eq!(
        (&st["result"], &st["result_status"]),
        (&json!("1/2-1/2"), &json!("provisional")),
        "{st}"
    );
    assert!(!state_dir.join("games").exists(), "nothing archived");
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        log.contains("the last game ended 1/2-1/2 and its result is not confirmed: resumed"),
        "{log}"
    );
    drop(board);
    // What the organiser's `eboard doctor` says of it before the next round.
    let (status, detail) = doctor_game(&dir, &cfg, &state_dir);
    assert!(
        status == "warn" && detail.contains("ended 1/2-1/2 and the arbiter has not confirmed"),
        "{status}: {detail}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
