//! Issue 13 §3: a press whose board fits several moves (a capture whose
//! target square never read empty on an occupancy board) is never a silent
//! guess. Later evidence settles it, or an `ambiguous_move` alert goes to
//! the arbiter and his `choose` record picks the reading; no reading ever
//! gives a penalty. Run under every profile.

use crate::common;

use common::{of, replay_events, sans, TraceBuilder, ALL_RULES as ALL};
use serde_json::{json, Value};

/// White's knight on f3 can take e5 or d4.
const FEN: &str = "4k3/8/8/4p3/3p4/5N2/8/4K3 w - - 0 1";

/// The knight leaves f3 and the press comes; the captured pawn's square
/// never read empty (a slow scan merged its lift and the knight's placement).
const AMBIGUOUS_CAPTURE: &str = "
    1000 lift f3
    1500 press w";

fn hdr() -> Value {
    json!({"trace": 1, "start_fen": FEN})
}

/// The first penalty or irregularity of the stream.
fn false_alarm_json(ev: &[Value]) -> Option<&Value> {
    ev.iter().find(|e| {
        matches!(
            e["type"].as_str(),
            Some("illegal_move" | "touch_move" | "irregularity")
        )
    })
}

/// The article of an `ambiguous_move`: which move was made (2009 §4.6,
/// 2001 §4.7, 2023 4.7), not the penalties (13.4 / 12.9).
fn arbiter_article(rules: &str) -> &'static str {
    match rules {
        "fide-2009" | "fide-2009-no" => "4.6",
        _ => "4.7",
    }
}

#[test]
fn the_opponents_next_move_settles_the_reading_without_a_penalty() {
    for rules in ALL {
        // Black plays ...e4: only legal if the knight took on d4.
        let b = TraceBuilder::with_header(hdr()).steps(&format!(
            "{AMBIGUOUS_CAPTURE}
            3000 lift e5
            3300 place e4
            3600 press b"
        ));
        let ev = replay_events(&b, rules);
        assert_eq!(sans(&ev), ["Nxd4", "e4"], "{rules}: {ev:#?}");
        assert!(of(&ev, "ambiguous_move").is_empty(), "{rules}: {ev:#?}");
        assert!(false_alarm_json(&ev).is_none(), "{rules}: {ev:#?}");
        // The held move keeps the time of its press.
        assert_eq!(of(&ev, "move")[0]["t"], 1500, "{rules}");
    }
}

#[test]
fn the_squares_lifted_next_settle_the_reading() {
    for rules in ALL {
        // Black replies ...Kd8 (fits both readings); White then moves the
        // knight from e5: only the reading Nxe5 has a knight there.
        let b = TraceBuilder::with_header(hdr()).steps(&format!(
            "{AMBIGUOUS_CAPTURE}
            3000 lift e8
            3300 place d8
            3600 press b"
        ));
        let alerted = replay_events(&b, rules);
        assert_eq!(of(&alerted, "ambiguous_move").len(), 1, "{rules}");
        let b = b.steps("5000 mv e5c6 w");
        let ev = replay_events(&b, rules);
        assert_eq!(sans(&ev), ["Nxe5", "Kd8", "Nc6+"], "{rules}: {ev:#?}");
        assert!(false_alarm_json(&ev).is_none(), "{rules}: {ev:#?}");
    }
}

#[test]
fn still_open_at_the_next_completed_move_the_arbiter_chooses() {
    for rules in ALL {
        for (choice, want) in [("f3e5", "Nxe5"), ("f3d4", "Nxd4")] {
            let b = TraceBuilder::with_header(hdr())
                .steps(&format!(
                    "{AMBIGUOUS_CAPTURE}
                    3000 lift e8
                    3300 place d8
                    3600 press b"
                ))
                .record(json!({"t": 5000, "arbiter": "choose", "uci": choice}));
            let ev = replay_events(&b, rules);
            let alert = of(&ev, "ambiguous_move");
            assert_eq!(alert.len(), 1, "{rules}: {ev:#?}");
            let a = alert[0];
            assert_eq!(a["t"], 3600, "{rules}: raised at the next completed move");
            assert_eq!(a["by"], "w");
            assert_eq!(a["ply"], 1);
            assert_eq!(a["article"], arbiter_article(rules), "{rules}");
            let mut c: Vec<(String, String)> = a["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["uci"].as_str().unwrap().to_owned(),
                        c["san"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            c.sort();
            assert_eq!(
                c,
                [
                    ("f3d4".to_owned(), "Nxd4".to_owned()),
                    ("f3e5".to_owned(), "Nxe5".to_owned())
                ]
            );
            // Nothing of the held reading was decided before the ruling;
            // then the game goes on from the chosen move, the reply re-read.
            let alert_at = ev
                .iter()
                .position(|e| e["type"] == "ambiguous_move")
                .unwrap();
            assert!(of(&ev[..alert_at], "move").is_empty(), "{rules}: {ev:#?}");
            assert_eq!(sans(&ev), [want, "Kd8"], "{rules}: {ev:#?}");
            assert!(false_alarm_json(&ev).is_none(), "{rules}: {ev:#?}");
        }
    }
}

#[test]
fn a_choice_that_is_no_candidate_keeps_the_game_held() {
    let b = TraceBuilder::with_header(hdr())
        .steps(&format!(
            "{AMBIGUOUS_CAPTURE}
            3000 lift e8
            3300 place d8
            3600 press b"
        ))
        .record(json!({"t": 5000, "arbiter": "choose", "uci": "f3g5"}));
    let ev = replay_events(&b, "fide-2023");
    assert_eq!(of(&ev, "ambiguous_move").len(), 1);
    assert!(of(&ev, "move").is_empty(), "{ev:#?}");
}

#[test]
fn an_unambiguous_capture_is_not_held() {
    let b = TraceBuilder::with_header(hdr()).steps(
        "1000 lift e5
         1200 lift f3
         1400 place e5
         1500 press w",
    );
    let ev = replay_events(&b, "fide-2023");
    assert_eq!(sans(&ev), ["Nxe5"]);
    assert_eq!(of(&ev, "move")[0]["t"], 1500);
}

#[test]
fn the_choose_record_round_trips_through_the_trace_codec() {
    let text = "{\"trace\": 1}\n{\"t\": 5, \"arbiter\": \"choose\", \"uci\": \"d1d5\"}\n";
    let tr = eboard::trace::Trace::parse(text).unwrap();
    let mut out = Vec::new();
    tr.write(&mut out).unwrap();
    let again = eboard::trace::Trace::parse(std::str::from_utf8(&out).unwrap()).unwrap();
    assert_eq!(tr.records, again.records);
    assert!(String::from_utf8(out).unwrap().contains("\"uci\":\"d1d5\""));
    let bad = "{\"trace\": 1}\n{\"t\": 5, \"arbiter\": \"choose\", \"uci\": \"xx\"}\n";
    let e = eboard::trace::Trace::parse(bad).unwrap_err().to_string();
    assert!(e.contains("uci"), "{e}");
}
