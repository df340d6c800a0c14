//! Tests of [`super`] (report.rs).

use super::*;
use crate::config::zone::EventZone;
use crate::console::alerts::AlertQueue;
use serde_json::json;

/// The rows from every source: an alert (acknowledged), a ruling seen
/// as its event, a refused one, and an applied one only in the board's
/// history (the console was away); the history's undo is shown.
#[test]
fn every_alert_and_ruling_once_in_order_with_its_outcome() {
    let state = json!({
        "game": "4.2", "round": 4, "board": 2, "started_at_unix_ms": 1_775_000_000_000u64,
        "speed": 1.0, "white": {"name": "Frandsen,Lars"}, "black": {"name": "Andersen,Mads"},
        "result": "*", "result_status": null,
        "rulings": [
            {"seq": 1, "t": 12_900, "action": "restore", "author": "IA Hansen",
             "article": "7.5.1", "effect": "the position before e2-e5", "undone_by": 3,
             "answers": {"type": "illegal_move", "t": 12_400}},
            {"seq": 2, "t": 20_000, "action": "clock", "author": "IA Hansen",
             "article": "6.10.2", "effect": "White 1:20:00 → 0:01:20", "undone_by": null},
            {"seq": 3, "t": 30_000, "action": "undo", "author": "IA Hansen",
             "article": "6.10.2", "effect": "ruling #1 withdrawn", "undone_by": null}
        ]
    });
    let q = AlertQueue::new();
    let a = q
        .take(
            r#"{"type":"illegal_move","game":"4.2","t":12400,"by":"w","article":"7.5.1","san":"e5"}"#,
            1_775_000_012_500,
        )
        .unwrap();
    q.ack(a.id, "IA Hansen", 1_775_000_013_000).unwrap();
    let log = RulingLog::default();
    let seen = r#"{"type":"ruling","game":"4.2","t":12900,"seq":1,"action":"restore","author":"IA Hansen","article":"7.5.1","effect":"the position before e2-e5"}"#;
    log.take(seen, 1_775_000_012_950);
    log.take(seen, 1_775_000_012_999); // a backlog sent again: once
    log.take(
        r#"{"type":"ruling_refused","game":"4.2","t":25000,"action":"overrule","author":"IA Hansen","reason":"the claim was decided three moves ago","status":409}"#,
        1_775_000_025_100,
    );
    log.take(r#"{"type":"move","game":"4.2"}"#, 1);
    let rows = rows(&[state], &q.list(), &log.list(), &EventZone::utc());
    let what: Vec<(&str, &str)> = rows.iter().map(|r| (r.kind, r.what.as_str())).collect();
    assert_eq!(
        what,
        [
            ("alert", "illegal_move"),
            ("ruling", "restore"),
            ("ruling", "clock"),
            ("refused", "overrule"),
            ("ruling", "undo")
        ]
    );
    assert_eq!(rows[0].who, "White (Frandsen,Lars)");
    assert_eq!(
        rows[0].unix_ms, 1_775_000_012_400,
        "the round time on the game's clock"
    );
    assert!(rows[0]
        .outcome
        .starts_with("acknowledged by IA Hansen at 2026-"));
    assert_eq!(rows[1].outcome, "applied (#1), undone by #3");
    assert_eq!(rows[2].detail, "White 1:20:00 → 0:01:20");
    assert_eq!(
        rows[3].outcome,
        "refused (409): the claim was decided three moves ago"
    );
    let csv = to_csv(&rows, &EventZone::fixed(120));
    assert!(csv.starts_with(CSV_HEADER), "{csv}");
    assert!(csv.contains("UTC+02:00"), "{csv}");
    assert_eq!(csv.matches("\r\n").count(), 6);
    let html = to_html(
        &rows,
        &[],
        &Default::default(),
        &EventZone::utc(),
        1_775_000_100_000,
    );
    assert!(html.contains("White 1:20:00 → 0:01:20"));
    assert!(!html.contains("<script"));
}

/// An alert nobody acknowledged reads "open" only while the board still
/// lists it among its open matters; decided, it reads "not acknowledged"
/// with the ruling that answered it.
#[test]
fn an_alert_not_acknowledged_is_open_only_while_the_board_has_it_open() {
    let state = |open: Value, rulings: Value| {
        json!({"game": "4.1", "round": 4, "board": 1, "started_at_unix_ms": 1_775_000_000_000u64,
               "speed": 1.0, "white": {"name": "A"}, "black": {"name": "B"},
               "result": "*", "open": open, "rulings": rulings})
    };
    let q = AlertQueue::new();
    q.take(
        r#"{"type":"claim","game":"4.1","t":5000,"by":"w","article":"9.2","claim":"threefold"}"#,
        1_775_000_005_100,
    )
    .unwrap();
    let waiting = state(json!([{"type": "claim", "t": 5000, "by": "w"}]), json!([]));
    let rows_open = rows(&[waiting], &q.list(), &[], &EventZone::utc());
    assert_eq!(rows_open[0].outcome, "open: awaiting a ruling");
    let decided = state(
        json!([]),
        json!([{"seq": 1, "t": 6000, "action": "overrule", "author": "IA Hansen",
                "article": "9.2", "effect": "drawn", "undone_by": null,
                "answers": {"type": "claim", "t": 5000}}]),
    );
    let rows_decided = rows(&[decided], &q.list(), &[], &EventZone::utc());
    assert_eq!(
        rows_decided[0].outcome,
        "not acknowledged; answered by ruling #1 (overrule)"
    );
}

#[test]
fn times_and_offsets() {
    assert_eq!(wall(0, 0), "1970-01-01 00:00:00");
    assert_eq!(wall(1_775_000_000_000, 0), "2026-03-31 23:33:20");
    assert_eq!(wall(1_775_000_000_000, 120), "2026-04-01 01:33:20");
    assert_eq!(round_time(5_025_000), "1:23:45");
    assert_eq!(parse_offset("+02:00"), Ok(120));
    assert_eq!(parse_offset("-05:30"), Ok(-330));
    assert_eq!(parse_offset("Z"), Ok(0));
    // `?tz=+01:00` typed in an address bar: the `+` arrives as a space.
    assert_eq!(parse_offset(" 01:00"), Ok(60));
    assert_eq!(parse_offset(" "), Ok(0));
    assert!(parse_offset("noon").unwrap_err().contains("+01:00"));
    // Markup in a message is shown, never run.
    let row = Row {
        game: "1.1".into(),
        kind: "alert",
        what: "<script>".into(),
        who: String::new(),
        unix_ms: 0,
        t: None,
        article: String::new(),
        detail: "\"&'".into(),
        outcome: "open".into(),
    };
    let html = to_html(&[row], &[], &Default::default(), &EventZone::utc(), 0);
    assert!(html.contains("&lt;script&gt;") && html.contains("&quot;&amp;&#39;"));
}

/// ia11's round: a relay restarted mid-round dropped every refused ruling
/// from the round report (a refused ruling is known to the relay only from
/// its event; the boards' state lists the applied ones). With the relay's
/// state directory the log is kept in `console-rulings.jsonl`: the
/// restarted relay's report still has it, once.
#[test]
fn refused_rulings_stay_in_the_round_report_across_a_relay_restart() {
    let dir = std::env::temp_dir().join(format!("eboard-rulings-{}", rand::random::<u32>()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = crate::console::kept::ConsoleFiles::in_dir(&dir);
    let path = files
        .relay_rulings
        .clone()
        .expect("a relay keeps its rulings");
    let refused = r#"{"type":"ruling_refused","game":"3.3","t":99262,"action":"forfeit","author":"IA Jensen","reason":"White has moved: he was present, so the forfeit is his win (1-0)","status":422}"#;
    let first = RulingLog::default();
    let (file, kept, damage) = crate::console::kept::OwnAlertLog::open(&path).unwrap();
    assert!(kept.is_empty() && damage.is_none());
    first.keep(file, kept);
    first.take(refused, 1_795_695_750_000);
    drop(first);
    // The relay restarts; the board's backlog brings the same event again.
    let again = RulingLog::default();
    let (file, kept, _) = crate::console::kept::OwnAlertLog::open(&path).unwrap();
    again.keep(file, kept);
    again.take(refused, 1_795_696_000_000);
    let list = again.list();
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0].0, 1_795_695_750_000, "kept with when it arrived");
    let rows = rows(&[], &[], &list, &EventZone::utc());
    let row = rows
        .iter()
        .find(|r| r.kind == "refused")
        .expect("the refused row");
    assert!(
        row.outcome.starts_with("refused (422): White has moved"),
        "{}",
        row.outcome
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A touch-move breach in the report: the square touched and the move in
/// SAN, never its UCI (the arbiter reads the report).
#[test]
fn a_touch_move_breach_is_reported_in_san() {
    let q = AlertQueue::new();
    q.take(
        r#"{"type":"touch_move","game":"4.1","t":4200,"by":"w","article":"4.3.1","touched":"g1","played":"b1c3","san":"Nc3"}"#,
        1_775_000_004_300,
    )
    .unwrap();
    let rows = rows(&[], &q.list(), &[], &EventZone::utc());
    assert_eq!(rows[0].detail, "touched: g1; played: Nc3");
}
