//! `GET /standings.json` on a relay over six real boards (issue 42 §3):
//! round 3 of `tests/data/standings-open-2026.trf` set up by `eboard event`,
//! results confirmed one by one by the arbiter (`POST /arbiter/confirm`,
//! corrections, a forfeit), the standings following the public feed from
//! provisional to final, with points, Buchholz and Sonneborn-Berger as
//! computed by hand (`common::standings::BY_HAND`; FIDE C.07 2026); the
//! same as CSV (`/standings.csv`).

use crate::common;

use common::standings::*;
use common::*;
use serde_json::{json, Value};

/// The arbiter's ruling `path` with `body` (none: `Null`) on board `n`
/// (200 expected).
fn rule(boards: &[Running], n: usize, path: &str, body: Value) {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let (status, reply) = request(&boards[n - 1].addr, "POST", path, &[ARBITER_AUTH], &body);
    assert_eq!(status, 200, "board {n} {path}: {reply}");
}

/// The relay's standings once `ready` holds.
fn standings_when(addr: &str, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    poll(60, what, || {
        let (status, s) = standings(addr);
        (status == 200 && ready(&s)).then_some(s)
    })
}

fn unconfirmed(s: &Value) -> Vec<&str> {
    s["unconfirmed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap())
        .collect()
}

fn points(s: &Value, start: u64) -> f64 {
    s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["start"] == start)
        .unwrap()["points"]
        .as_f64()
        .unwrap()
}

#[test]
fn standings_follow_the_confirmed_results_from_provisional_to_final() {
    let dir = tempdir("standings");
    // Boards 1-4 and 6 play the Opera Game (1-0, the board's provisional
    // result); board 5's Black does not come.
    let boards = start_boards(
        &dir,
        |n, d| (n != 5).then(|| opera_trace(d, u64::from(n))),
        |_| vec!["--speed".into(), "60".into()],
    );
    let relay = relay(&dir, &boards).start();
    let r = relay.addr.as_str();

    // A server without a pairings file says why.
    let (status, text) = standings(&boards[0].addr);
    assert_eq!(status, 404, "{text}");
    assert!(
        text.as_str().unwrap().contains("[arbiter] pairings"),
        "{text}"
    );

    // Every game over on its board, none confirmed: after round 2.
    poll(90, "five games ended 1-0 at the relay", || {
        let b: Value = serde_json::from_str(&get(r, "/boards.json")).ok()?;
        let ended = b
            .as_array()?
            .iter()
            .filter(|s| s["state"]["result"] == "1-0")
            .count();
        (ended == 5).then_some(())
    });
    let s = standings_when(r, "the standings", |s| s["round"] == 3);
    assert_eq!(s["event"], "Eboard Standings Open 2026");
    assert_eq!(
        (s["rounds"].as_u64(), s["provisional"].as_bool()),
        (Some(5), Some(true))
    );
    assert_eq!(unconfirmed(&s), ["3.1", "3.2", "3.3", "3.4", "3.5", "3.6"]);
    assert_eq!(
        s["tiebreaks"],
        json!([{"code": "BH", "name": "Buchholz"}, {"code": "SB", "name": "Sonneborn-Berger"}])
    );
    // 11's pairing-allocated bye counts at once; the boards' 1-0s do not.
    assert_eq!(
        (points(&s, 4), points(&s, 11), points(&s, 2)),
        (1.5, 1.0, 2.0)
    );
    let first = &s["rows"][0];
    for key in [
        "rank",
        "tied",
        "start",
        "name",
        "title",
        "fed",
        "rating",
        "fide_id",
        "points",
        "tiebreaks",
    ] {
        assert!(first.get(key).is_some(), "{key} missing: {first}");
    }

    let csv = get(r, "/standings.csv");
    assert!(
        csv.ends_with("provisional: waiting for 3.1 3.2 3.3 3.4 3.5 3.6\r\n"),
        "{csv}"
    );

    // Board 2 (Dahl - Iversen) confirmed: it counts, the rest waits.
    rule(&boards, 2, "/arbiter/confirm", Value::Null);
    let s = standings_when(r, "board 2 confirmed", |s| unconfirmed(s).len() == 5);
    assert_eq!(unconfirmed(&s), ["3.1", "3.3", "3.4", "3.5", "3.6"]);
    assert_eq!((points(&s, 4), points(&s, 9)), (2.5, 1.5));
    assert_eq!(s["provisional"], true);
    assert_eq!(s["rows"][0]["name"], "Dahl,Ingrid");

    // The rest: board 1 corrected to a draw, 3 and 6 confirmed, 4
    // corrected to 0-1, 5 a forfeit (White's win).
    rule(&boards, 1, "/arbiter/confirm", json!({"result": "1/2-1/2"}));
    rule(&boards, 3, "/arbiter/confirm", Value::Null);
    rule(&boards, 4, "/arbiter/confirm", json!({"result": "0-1"}));
    rule(&boards, 5, "/arbiter/forfeit", json!({"result": "1-0"}));
    let s = standings_when(r, "four more results", |s| unconfirmed(s) == ["3.6"]);
    assert_eq!(s["provisional"], true);
    rule(&boards, 6, "/arbiter/confirm", Value::Null);
    let s = standings_when(r, "the final standings", |s| s["provisional"] == false);
    assert!(unconfirmed(&s).is_empty());
    assert_eq!(rows(&s), BY_HAND, "{s:#}");
    let third: Vec<&Value> = s["rows"].as_array().unwrap()[2..4].iter().collect();
    assert_eq!(
        (&third[0]["name"], &third[1]["name"]),
        (&json!("Andersen,Mads"), &json!("Frandsen,Lars")),
        "the shared third place by start rank"
    );
    let unrated = s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["start"] == 13)
        .unwrap();
    assert_eq!(
        (&unrated["rating"], &unrated["fide_id"]),
        (&Value::Null, &Value::Null)
    );
    // The same as a spreadsheet reads it.
    let csv = get(r, "/standings.csv");
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        lines[0],
        "rank,start,name,title,fed,rating,fide_id,points,BH,SB"
    );
    assert_eq!(
        lines[1],
        "1,4,\"Dahl,Ingrid\",WGM,NOR,2350,1500004,2.5,5.5,4.25"
    );
    assert_eq!(
        lines[3],
        "3=,1,\"Andersen,Mads\",GM,DEN,2560,1400001,2.5,4,2.75"
    );
    assert_eq!(lines[13], "13,12,\"Lund,Mikkel\",,DEN,1750,1400012,0,1.5,0");
    assert_eq!(lines.len(), 15, "no provisional line: {csv}");
    drop(relay);
    std::fs::remove_dir_all(&dir).ok();
}
