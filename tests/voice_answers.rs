//! Issue 29, point 5: answers on demand never delay a move's announcement
//! and are cut short by it. Real espeak-ng and aplay through `eboard run`,
//! each listener's output captured at real-time speed
//! ([`common::paced`]): Black (on the tactile board) asks for the whole
//! position while White thinks — about 28 s of speech — and White's move
//! comes 4 s into it.

use crate::common;

use common::voice::{quiet_for, replayed_events, speech_programs, PacedGame};
use common::{poll, vi_header, TraceBuilder, VI_E4};
use serde_json::Value;

/// Both tests' board: Black is the visually impaired player, each player
/// has his own output device.
const CONFIG: &str = "[event]\nname = \"DM\"\nrules = \"fide-2009\"\nspeak = true\n\
     [game]\nboard = 1\nvi_player = \"b\"\n\
     [voice.white]\ndevice = \"white\"\n\
     [voice.black]\ndevice = \"black\"\n";

/// Both tests' opening: 1. e4 made and pressed on the main board, copied on
/// Black's tactile board.
fn opening() -> TraceBuilder {
    TraceBuilder::with_header(vi_header("300+0")).steps(VI_E4)
}

#[test]
fn a_move_cuts_a_long_answer_short_and_is_heard_at_once() {
    if !speech_programs() {
        return;
    }
    let text = opening()
        .steps(
            "4000 tactile lift e7
         4300 tactile place e5
         6000 press b
         6500 query position b
         8000 lift e7
         8300 place e5
         10000 lift g1
         10300 place f3
         10600 press w",
        )
        .text();
    let mut game = PacedGame::start("answers-cut", &["white", "black"], CONFIG, &text);
    let (white, black) = (game.sink("white"), game.sink("black"));
    // White has heard three phrases (e4, e5, Nf3) and both outputs have
    // been silent for 1.5 s since.
    let records = poll(45, "Nf3 heard and both outputs quiet", || {
        let w = white.heard(0);
        (w.len() >= 3 && quiet_for(white, 1500) && quiet_for(black, 1500)).then(|| game.records())
    });
    let (w, b) = (white.heard(0), black.heard(0));
    let log = game.stop();
    let events = replayed_events(&records);
    let said = |pred: &dyn Fn(&Value) -> bool| {
        events
            .iter()
            .find(|e| e["type"] == "announce" && pred(e))
            .cloned()
            .unwrap_or_else(|| panic!("not announced: {events:#?}\n{log}"))
    };
    let answer = said(&|e| e["to"] == "b" && e["text"].as_str().unwrap().starts_with("Hvid:"));
    let nf3 = said(&|e| e["text"] == "Springer Frederik tre");
    let trace_ms = |i| game.trace_ms(&records, i);
    let nf3_t = nf3["t"].as_i64().unwrap();
    let nf3_white = w[2];
    println!(
        "answer at t {} ({} ms estimated), Nf3 at t {nf3_t}: white hears Nf3 {}..{}; \
         black's stretches {:?}",
        answer["t"],
        answer["ms"],
        trace_ms(nf3_white.start),
        trace_ms(nf3_white.end),
        b.iter()
            .map(|h| (trace_ms(h.start), trace_ms(h.end)))
            .collect::<Vec<_>>()
    );
    // The move is heard at once: its words start within 1.5 s of the
    // announcement (the answer would hold it back by ~20 s).
    let delay = trace_ms(nf3_white.start) - nf3_t;
    assert!(
        (0..=1500).contains(&delay),
        "Nf3 started {delay} ms after its announcement in White's ear"
    );
    // Black heard the answer start, and it stopped for the move: his
    // output's last sound ends with the move's words (their stretches join,
    // the cut leaving no pause), not ~20 s later with the position's.
    let answer_t = answer["t"].as_i64().unwrap();
    let heard_answer = b
        .iter()
        .find(|h| trace_ms(h.end) > answer_t)
        .unwrap_or_else(|| panic!("Black never heard the answer: {b:?}"));
    assert!(
        trace_ms(heard_answer.start) <= answer_t + 1000,
        "the answer started late in Black's ear"
    );
    let black_end = trace_ms(b.last().unwrap().end);
    assert!(
        black_end <= trace_ms(nf3_white.end) + 500,
        "Black's output went on until {black_end} ms, the move's words ended at {} ms: the \
         answer was not cut short",
        trace_ms(nf3_white.end)
    );
    assert!(
        answer["ms"].as_i64().unwrap() > black_end - answer_t + 5000,
        "the answer should be far longer than what was played of it"
    );
    // No irregularity: the speech changed nothing in the game.
    assert!(
        !events.iter().any(|e| e["type"] == "irregularity"),
        "{events:#?}"
    );
}

#[test]
fn a_new_query_cuts_a_long_answer_short() {
    // Black asks for the whole position (about 28 s of speech), then 2.5 s
    // into it for his clock: the position stops and the clock is said.
    if !speech_programs() {
        return;
    }
    let text = opening()
        .steps(
            "6500 query position b
         9000 query clock b",
        )
        .text();
    let mut game = PacedGame::start("answers-query", &["white", "black"], CONFIG, &text);
    let black = game.sink("black");
    // Black has heard e4 and the answers, and been silent for 1.5 s since
    // (the clock answer is announced at 9000).
    let records = poll(45, "both answers heard", || {
        let r = game.records();
        let asked = r.iter().filter(|v| v["query"].is_string()).count() == 2;
        let late = r.iter().any(|v| v["t"].as_u64().is_some_and(|t| t >= 9000));
        (asked && late && black.heard(0).len() >= 2 && quiet_for(black, 1500)).then_some(r)
    });
    let b = black.heard(0);
    let log = game.stop();
    let events = replayed_events(&records);
    let answers: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "announce" && e["to"] == "b")
        .collect();
    assert_eq!(answers.len(), 2, "two answers: {answers:#?}\n{log}");
    let (position, clock) = (answers[0], answers[1]);
    assert!(
        position["text"].as_str().unwrap().starts_with("Hvid:"),
        "{position}"
    );
    let trace_ms = |i| game.trace_ms(&records, i);
    let (position_t, clock_t) = (
        position["t"].as_i64().unwrap(),
        clock["t"].as_i64().unwrap(),
    );
    let clock_ms = clock["ms"].as_i64().unwrap();
    let end = trace_ms(b.last().unwrap().end);
    println!(
        "position at {position_t} ({} ms estimated), clock {:?} at {clock_t} ({clock_ms} ms); \
         black's stretches {:?}",
        position["ms"],
        clock["text"],
        b.iter()
            .map(|h| (trace_ms(h.start), trace_ms(h.end)))
            .collect::<Vec<_>>()
    );
    // The position stopped for the new query: Black's output ends with the
    // clock's words (within its length and a second), not ~25 s later.
    assert!(
        end > clock_t && end <= clock_t + clock_ms + 1500,
        "Black's output ended at {end} ms; the clock was asked at {clock_t} ms ({clock_ms} ms \
         of speech): the position was not cut short"
    );
    assert!(
        position["ms"].as_i64().unwrap() > end - position_t + 5000,
        "the position should be far longer than what was played of it"
    );
}
