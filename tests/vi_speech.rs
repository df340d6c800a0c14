//! Issue 14 item 1, replayed as a blind player follows the game: every
//! event he must know is spoken, in his language and words, to the players
//! it concerns, in time order.

use crate::common;

use common::{of, replay_steps, vi_e4_e5, vi_header};
use serde_json::{json, Value};

/// A two-board game, Black on the tactile board, no language set: the
/// profile's language is spoken.
fn hdr() -> Value {
    vi_header("300+0")
}

/// The moves e4 e5 (Black on the tactile board); White copies e5, offers a
/// draw and plays Nf3 (the offer is said after the move, §9.1.2); Black copies it and touches b8: the offer lapses; he
/// plays Nc6. The arbiter pauses and restarts the clock; Black asks for the
/// last announcement again and for the time; White resigns.
fn game() -> String {
    format!("{}{GAME_ON}", vi_e4_e5(8000))
}

/// [`game`] after 1… e5.
const GAME_ON: &str = "
    9000 lift e7
    9300 place e5
    10000 offer w
    10500 lift g1
    10800 place f3
    11000 press w
    12000 tactile lift g1
    12200 tactile place f3
    13000 tactile lift b8
    13300 tactile place c6
    17000 press b
    18000 arbiter pause
    19000 arbiter resume
    20000 query repeat b
    21000 query time b
    22000 resign w";

fn spoken(ev: &[Value]) -> Vec<(u64, String, Option<String>)> {
    of(ev, "announce")
        .iter()
        .map(|a| {
            (
                a["t"].as_u64().unwrap(),
                a["text"].as_str().unwrap().to_owned(),
                a["to"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn a_vi_game_is_spoken_in_the_profiles_language_and_words() {
    for (rules, lang, want) in [
        (
            "fide-2009-no",
            "nb",
            [
                "Bauer Eva vier",
                "Bauer Eva fünf",
                "Springer Felix drei",
                "Hvit tilbyr remis",
                "Hvits remistilbud har falt bort",
                "Springer Cæsar sechs",
                "Dommeren har stoppet klokken",
                "Dommeren har startet klokken igjen",
                "Dommeren har startet klokken igjen",
                "Tid igjen: hvit 4 minutter",
                "Svart vinner, oppgitt",
            ],
        ),
        (
            "fide-2009",
            "da",
            [
                "Bonde Erik fire",
                "Bonde Erik fem",
                "Springer Frederik tre",
                "Hvid tilbyder remis",
                "Hvids remistilbud er bortfaldet",
                "Springer Cecilie seks",
                "Dommeren har stoppet uret",
                "Dommeren har startet uret igen",
                "Dommeren har startet uret igen",
                "Tid tilbage: hvid 4 minutter",
                "Sort vinder, opgivet",
            ],
        ),
    ] {
        let ev = replay_steps(hdr(), &game(), rules);
        let said = spoken(&ev);
        assert_eq!(said.len(), want.len(), "{rules}: {said:#?}");
        for ((_, text, _), w) in said.iter().zip(want) {
            assert!(text.starts_with(w), "{rules}: {text:?} should start {w:?}");
        }
        // Never English by accident.
        for a in of(&ev, "announce") {
            assert_eq!(a["lang"], lang, "{rules}");
        }
        // The answers go to the asker alone; the rest to both.
        let to: Vec<Option<&str>> = said.iter().map(|s| s.2.as_deref()).collect();
        assert_eq!(to[8..10], [Some("b"), Some("b")], "{rules}");
        assert!(
            to[..8].iter().chain(&to[10..]).all(Option::is_none),
            "{rules}"
        );
        // In time order, each after (or with) what it speaks of.
        let times: Vec<u64> = ev.iter().map(|e| e["t"].as_u64().unwrap()).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{rules}: {times:?}");
        let end = ev.iter().position(|e| e["type"] == "game_end").unwrap();
        assert_eq!(
            ev[end + 1]["type"],
            "announce",
            "{rules}: the result is said"
        );
        // Numbered, with the length of the speech.
        let n: Vec<u64> = of(&ev, "announce")
            .iter()
            .map(|a| a["n"].as_u64().unwrap())
            .collect();
        assert_eq!(n, (1..=want.len() as u64).collect::<Vec<_>>());
        assert!(of(&ev, "announce")
            .iter()
            .all(|a| a["ms"].as_u64() > Some(500)));
    }
}

#[test]
fn german_words_in_a_norwegian_game_carry_their_ssml() {
    let ev = replay_steps(hdr(), &game(), "fide-2009-no");
    let first = &of(&ev, "announce")[0];
    assert_eq!(
        first["ssml"],
        "<speak xml:lang=\"nb\"><voice xml:lang=\"de\">Bauer</voice> Eva \
         <voice xml:lang=\"de\">vier</voice></speak>"
    );
    // Scandinavian words chosen for the game (E2.1's last sentence): no
    // German, no markup.
    let mut h = hdr();
    h["words"] = json!("scandinavian");
    let ev = replay_steps(h, &game(), "fide-2009-no");
    let first = &of(&ev, "announce")[0];
    assert_eq!(first["text"], "Bonde Eva fire");
    assert!(first.get("ssml").is_none(), "{first}");
}

#[test]
fn an_illegal_move_ruling_says_the_penalty_and_the_squares() {
    let fen = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
    let h = json!({"trace": 1, "start_fen": fen, "language": "en", "time_control": "5400+30"});
    let ev = replay_steps(h, "1000 lift e5\n1200 place d6\n2000 press w", "fide-2009");
    let ill = of(&ev, "illegal_move");
    assert_eq!(ill.len(), 1, "{ev:#?}");
    let said = spoken(&ev);
    let text = &said.last().unwrap().1;
    assert!(
        text.starts_with("Illegal move by White. 2 minutes added to Black's time."),
        "{text}"
    );
    assert!(text.contains("Eva fünf and David sechs"), "{text}");
}

#[test]
fn claims_and_flags_are_spoken() {
    let h = json!({"trace": 1, "language": "de", "time_control": "60+0"});
    let ev = replay_steps(
        h,
        "1000 lift e2\n1300 place e4\n1600 press w\n4000 claim threefold b\n200000 lift e7",
        "fide-2023",
    );
    let said: Vec<String> = spoken(&ev).into_iter().map(|s| s.1).collect();
    assert!(
        said.iter()
            .any(|s| s.starts_with("Reklamation von Schwarz, dreifache Stellungswiederholung")),
        "{said:#?}"
    );
    assert!(
        said.iter()
            .any(|s| s == "Die Zeit von Schwarz ist abgelaufen"),
        "{said:#?}"
    );
}

#[test]
fn a_replay_with_the_speakers_reports_keeps_them() {
    // The daemon's journal holds a `spoken` record per announcement; its
    // replay reads them (and gives the same announcements). The moves'
    // words are reported played before each press (E2.3).
    let mut steps = game();
    steps = steps
        .replace("    8000 press b", "    4700 spoken 2\n    8000 press b")
        .replace("    17000 press b", "    16500 spoken 6\n    17000 press b");
    let with = common::TraceBuilder::with_header(hdr()).steps(&steps);
    let text = with.text();
    assert!(text.contains("\"spoken\":2"), "{text}");
    let plain = replay_steps(hdr(), &game(), "fide-2009-no");
    let (_, events) =
        eboard::controller::replay(&with.trace(), Some("fide-2009-no".parse().unwrap()), None)
            .unwrap();
    let announced: Vec<Value> = events
        .iter()
        .filter(|e| e.type_name() == "announce")
        .map(|e| serde_json::from_str(&e.to_json()).unwrap())
        .collect();
    let plain: Vec<Value> = of(&plain, "announce").into_iter().cloned().collect();
    let texts = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|a| format!("{} {} {}", a["t"], a["n"], a["text"]))
            .collect()
    };
    assert_eq!(texts(&announced), texts(&plain));
    assert_eq!(announced, plain);
}
