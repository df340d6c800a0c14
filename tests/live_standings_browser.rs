//! The relay's live page shows the standings (issue 42 §4), the present
//! case: round 3 of `tests/data/standings-open-2026.trf` on six real boards
//! and an HTTP relay that knows the pairings (`common::standings`). In
//! headless Chromium at 1280×800 the round's page shows, under its tiles,
//! the table of `/standings.json` as the relay counts it, row for row
//! (rank, `=` when shared, title, name, federation, rating, points with
//! ½, the tie-breaks it names), "provisional" with the games unconfirmed;
//! a forfeit entered on board 5 (a `result_confirmed` on the stream) brings
//! the page the new standings without a reload. Skipped (with the reason
//! printed) when Chromium or python3 is missing, unless `CI` is set.

use crate::common;

use common::standings::*;
use common::*;
use serde_json::Value;

/// The CDP steps: the page, its table, board 5's forfeit (the arbiter's
/// `POST /arbiter/forfeit` at `sys.argv[4]`), the table again.
const STEPS: &str = r##"
import base64, urllib.request
board5, token = sys.argv[4:6]
READ = """({heading: document.getElementById('standings-h').textContent,
  provisional: document.getElementById('standings-provisional').checkVisibility() ? document.getElementById('standings-provisional').textContent : '',
  head: Array.from(document.querySelectorAll('table.standings thead th')).map((th) => th.textContent),
  rows: Array.from(document.querySelectorAll('table.standings tbody tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent)),
  tiles: document.querySelectorAll('#grid .tile').length})"""
with steps() as res:
    page(1280, 800, False)
    wait("!document.getElementById('standings').hidden && document.querySelectorAll('table.standings tbody tr').length === 13 && document.querySelectorAll('#grid .tile').length === 6", "the standings under the round")
    res["before"] = js(READ)
    req = urllib.request.Request(board5 + "/arbiter/forfeit", data=b'{"result": "1-0"}', method="POST",
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    res["forfeit"] = urllib.request.urlopen(req, timeout=10).status
    wait("!/3\\.5/.test(document.getElementById('standings-provisional').textContent)", "the standings after the forfeit", 20)
    js("document.getElementById('standings').scrollIntoView()")
    data = call("Page.captureScreenshot", {"format": "png"}, s)["data"]
    path = os.path.join(os.path.dirname(sys.argv[3]), "standings-1280x800.png")
    open(path, "wb").write(base64.b64decode(data))
    res["after"] = js(READ)
    res["shot"] = path
"##;

/// Points as the page writes them: 2.5 → "2½", 0.5 → "½", 2 → "2".
fn points(x: f64) -> String {
    match (x.fract() == 0.5, x.trunc()) {
        (true, 0.0) => "½".to_owned(),
        (true, w) => format!("{w}½"),
        _ => format!("{x}"),
    }
}

/// The table's rows as the page must show `/standings.json`'s.
fn table(s: &Value) -> Vec<Vec<String>> {
    let text = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(t) => t.clone(),
        v => v.to_string(),
    };
    s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let rank = format!("{}{}", r["rank"], if r["tied"] == true { "=" } else { "" });
            let mut row = vec![rank, text(&r["title"]), text(&r["name"]), text(&r["fed"])];
            row.push(text(&r["rating"]));
            row.push(points(r["points"].as_f64().unwrap()));
            for t in r["tiebreaks"].as_array().unwrap() {
                row.push(format!("{}", t.as_f64().unwrap()));
            }
            row
        })
        .collect()
}

/// The relay's standings once `ready` holds.
fn standings_when(addr: &str, ready: impl Fn(&Value) -> bool) -> Value {
    poll(60, "the relay's standings", || {
        let (status, s) = standings(addr);
        (status == 200 && ready(&s)).then_some(s)
    })
}

#[test]
fn the_relays_page_shows_its_standings_and_follows_a_confirmed_result() {
    let Some(chrome) = chromium_and_python() else {
        return;
    };
    let dir = tempdir("live-standings");
    // Nobody moves: every game of round 3 is still to be decided.
    let boards = start_boards(&dir, |_, _| None, |_| Vec::new());
    let relay = relay(&dir, &boards).start();
    let before = standings_when(&relay.addr, |s| {
        s["unconfirmed"].as_array().is_some_and(|u| u.len() == 6)
    });
    let url = format!("http://{}/", relay.addr);
    let board5 = format!("http://{}", boards[4].addr);
    let res = run_steps(
        &chrome,
        &url,
        &dir,
        STEPS,
        &[&board5, ARBITER_TOKEN],
        &relay.stderr,
    );
    println!("screenshot: {}", res["shot"].as_str().unwrap());
    let after = standings_when(&relay.addr, |s| {
        s["unconfirmed"].as_array().is_some_and(|u| u.len() == 5)
    });
    assert_ne!(table(&before), table(&after), "the forfeit counts");

    for (page, json) in [(&res["before"], &before), (&res["after"], &after)] {
        assert_eq!(page["tiles"], 6, "{page}");
        assert_eq!(
            page["heading"],
            format!("Standings after round 3 of {}", json["rounds"]),
            "{page}"
        );
        let unconfirmed: Vec<&str> = json["unconfirmed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap())
            .collect();
        assert_eq!(
            page["provisional"],
            format!(
                "Provisional: the results of {} are not confirmed yet.",
                unconfirmed.join(", ")
            ),
            "{page}"
        );
        let mut head = vec!["Rank", "Title", "Name", "Fed", "Rating", "Points"];
        let codes: Vec<&str> = json["tiebreaks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["code"].as_str().unwrap())
            .collect();
        head.extend(codes);
        assert_eq!(page["head"], serde_json::json!(head), "{page}");
        let rows: Vec<Vec<String>> = serde_json::from_value(page["rows"].clone()).unwrap();
        assert_eq!(rows, table(json), "the page's rows are the relay's");
    }
    assert_eq!(res["forfeit"], 200);
    assert!(!res["after"]["provisional"]
        .as_str()
        .unwrap()
        .contains("3.5"));
    drop(relay);
    drop(boards);
}
