//! Tests of the round report as a norm-file document ([`super::norm`],
//! issue 40 §9): the event's zone across a change of summer time, the
//! players' titles, federations and FIDE ids, each decision with its
//! outcome, penalty and article.

use super::norm::{self, EventHead};
use super::*;
use crate::config::zone::EventZone;
use crate::console::alerts::AlertQueue;
use serde_json::json;

/// 2026-10-24T22:30:00Z: 00:30 CEST on 25 October, the night the clocks
/// go back (03:00 CEST → 02:00 CET at 01:00Z).
const START: u64 = 1_792_881_000_000;

/// A round of the Danish championship in Copenhagen's zone, played across
/// the autumn change: an illegal move (its penalty), a draw claim the
/// board rejected (its cost), the arbiter's restore, and mate.
fn round() -> (Vec<Value>, AlertQueue) {
    let state = json!({
        "game": "5.1", "round": 5, "board": 1, "event": "DM 2026",
        "started_at_unix_ms": START, "speed": 1.0,
        "white": {"name": "Frandsen, Lars", "title": "GM", "federation": "DEN",
                  "fide_id": 1_401_234, "rating": 2550},
        "black": {"name": "Dahl, Ingrid", "title": "WIM", "federation": "NOR",
                  "fide_id": 1_505_678, "rating": 2301},
        "result": "1-0", "result_status": "confirmed", "reason": "checkmate",
        "rulings": [
            {"seq": 1, "t": 8_160_000, "action": "restore", "author": "IA Hansen",
             "article": "7.5.1", "effect": "the position before Bb5", "undone_by": null,
             "answers": {"type": "illegal_move", "t": 8_100_000}}
        ]
    });
    let q = AlertQueue::new();
    // 00:45Z: 02:45 CEST.
    let illegal = q
        .take(
            r#"{"type":"illegal_move","game":"5.1","t":8100000,"by":"b","article":"7.5.1","san":"Bb5","count":1,"penalty":"+2 min to white","penalty_article":"7.5.5"}"#,
            START + 8_100_500,
        )
        .unwrap();
    // Acknowledged at 01:15Z: 02:15 CET, after the change.
    q.ack(illegal.id, "IA Hansen", 1_792_890_900_000).unwrap();
    // 01:40Z: 02:40 CET.
    q.take(
        r#"{"type":"claim","game":"5.1","t":11400000,"by":"w","kind":"threefold","upheld":false,"article":"9.5.3","consequence":"the position stands for the second time: incorrect claim: +2 min to Black"}"#,
        START + 11_400_500,
    )
    .unwrap();
    // 02:30Z: 03:30 CET.
    q.take(
        r#"{"type":"game_end","game":"5.1","t":14400000,"result":"1-0","reason":"checkmate","article":"5.1.1"}"#,
        START + 14_400_500,
    )
    .unwrap();
    (vec![state], q)
}

/// The report in Europe/Copenhagen across the night of 24/25 October
/// 2026: 02:45 CEST before the change, 02:15 and 02:40 CET after it (the
/// hour 02:00-03:00 twice, told apart by the abbreviation), the zone named
/// with both offsets, and no time written as UTC.
#[test]
fn the_report_in_copenhagen_across_the_autumn_change() {
    let zone = EventZone::named("Europe/Copenhagen").unwrap();
    let (states, q) = round();
    let rows = rows(&states, &q.list(), &[], &zone);
    let at = |what: &str| {
        rows.iter()
            .find(|r| r.what == what)
            .unwrap_or_else(|| panic!("{what}: {rows:#?}"))
    };
    assert_eq!(
        zone.stamp(at("illegal_move").unix_ms),
        "2026-10-25 02:45:00 CEST"
    );
    assert_eq!(
        zone.stamp(at("restore").unix_ms),
        "2026-10-25 02:46:00 CEST"
    );
    assert_eq!(zone.stamp(at("claim").unix_ms), "2026-10-25 02:40:00 CET");
    assert!(
        at("illegal_move")
            .outcome
            .starts_with("acknowledged by IA Hansen at 2026-10-25 02:15:00 CET"),
        "{}",
        at("illegal_move").outcome
    );
    let mut head = EventHead {
        name: Some("DM 2026".into()),
        ..Default::default()
    };
    head.date = head.date_of(&states, &zone);
    assert_eq!(
        head.date.as_deref(),
        Some("2026.10.25"),
        "the round's date there"
    );
    let html = to_html(
        &rows,
        &crate::event::results::from_states(&states),
        &head,
        &zone,
        START + 15_000_000,
    );
    assert!(
        html.contains("Europe/Copenhagen: CEST (UTC+02:00), then CET (UTC+01:00)"),
        "{html}"
    );
    for wall in [
        "2026-10-25 02:45:00 CEST",
        "2026-10-25 02:46:00 CEST",
        "2026-10-25 02:40:00 CET",
        "2026-10-25 03:30:00 CET",
    ] {
        assert!(html.contains(wall), "{wall}: {html}");
    }
    assert!(!html.contains(" UTC"), "no time in UTC: {html}");
    let csv = to_csv(&rows, &zone);
    assert!(csv.contains("2026-10-25 02:40:00 CET"), "{csv}");
    assert!(!csv.contains(" UTC"), "{csv}");
    // `?tz=` still overrides: a fixed offset, or another zone by name.
    assert_eq!(zone_param("+01:00").unwrap().unwrap().name(), "UTC+01:00");
    assert_eq!(
        zone_param("Europe/Oslo").unwrap().unwrap().name(),
        "Europe/Oslo"
    );
    assert!(zone_param("").unwrap().is_none());
    assert!(zone_param("Mars/Olympus")
        .unwrap_err()
        .contains("Mars/Olympus"));
}

/// What the norm file needs of the round: the event's head with the chief
/// arbiter, the players with title, rating, federation and FIDE id, the
/// termination in words, and per game each decision: the claim rejected
/// with its cost and article, the illegal move with its penalty and the
/// penalty's article, the arbiter's ruling with who and the article, the
/// board's mate.
#[test]
fn the_report_names_titles_federations_ids_and_each_decision_with_its_article() {
    let zone = EventZone::named("Europe/Copenhagen").unwrap();
    let (states, q) = round();
    let rows = rows(&states, &q.list(), &[], &zone);
    let claim = rows.iter().find(|r| r.what == "claim").unwrap();
    assert!(
        claim
            .detail
            .starts_with("threefold claim rejected by the board: the position stands for the second time: incorrect claim: +2 min to Black"),
        "{}",
        claim.detail
    );
    assert_eq!(claim.article, "9.5.3");
    assert_eq!(claim.who, "White (Frandsen, Lars)");
    let illegal = rows.iter().find(|r| r.what == "illegal_move").unwrap();
    assert!(
        illegal.detail.starts_with(
            "penalty: +2 min to white, article 7.5.5 (this player's illegal move no. 1)"
        ),
        "{}",
        illegal.detail
    );
    assert_eq!(
        illegal.detail.matches("+2 min").count(),
        1,
        "once: {}",
        illegal.detail
    );
    assert!(
        illegal.outcome.contains("answered by ruling #1 (restore)"),
        "{}",
        illegal.outcome
    );
    let end = rows.iter().find(|r| r.what == "game_end").unwrap();
    assert!(
        end.detail.starts_with("result 1-0: checkmate"),
        "{}",
        end.detail
    );
    let held = serde_json::json!({"type": "claim_held", "by": "b", "kind": "threefold", "article": "9.2.1"});
    assert_eq!(
        norm::decision(&held).as_deref(),
        Some("threefold claim held for the arbiter: correct only with a move written on the scoresheet")
    );
    let ruling = rows.iter().find(|r| r.what == "restore").unwrap();
    assert_eq!(
        (ruling.who.as_str(), ruling.article.as_str()),
        ("IA Hansen", "7.5.1")
    );

    let cfg = crate::config::Config::parse(
        "[event]\nname = \"DM 2026\"\nsite = \"Svendborg\"\ncountry = \"DEN\"\n\
         rules = \"fide-2023\"\nmode = \"standard\"\ntime_control = \"40/5400+30:1800+30\"\n\
         chief_arbiter = \"IA Hansen, Peter (FIDE id 1401999)\"\ntime_zone = \"Europe/Copenhagen\"\n",
        "board.toml",
    )
    .unwrap();
    let mut head = EventHead::of(&cfg);
    head.date = head.date_of(&states, &zone);
    let html = to_html(
        &rows,
        &crate::event::results::from_states(&states),
        &head,
        &zone,
        START + 15_000_000,
    );
    for want in [
        "<dt>Event</dt><dd>DM 2026</dd>",
        "<dt>Round</dt><dd>5</dd>",
        "<dt>Date</dt><dd>2026.10.25</dd>",
        "<dt>Place</dt><dd>Svendborg (DEN)</dd>",
        "<dt>Rate of play</dt><dd>40/5400+30:1800+30</dd>",
        "<dt>Rules</dt><dd>fide-2023, standard</dd>",
        "<dt>Chief arbiter</dt><dd>IA Hansen, Peter (FIDE id 1401999)</dd>",
        "<td>GM Frandsen, Lars</td><td>2550</td><td>DEN</td><td>1401234</td>",
        "<td>WIM Dahl, Ingrid</td><td>2301</td><td>NOR</td><td>1505678</td>",
        "<td>checkmate</td>",
        "<h3>Board 5.1: GM Frandsen, Lars – WIM Dahl, Ingrid</h3>",
        "threefold claim rejected by the board",
        "penalty: +2 min to white, article 7.5.5",
        "<td>9.5.3</td>",
    ] {
        assert!(html.contains(want), "{want}: {html}");
    }
}
