//! Issue 40 point 8: `+0` in a time control is no increment. 2023
//! Guidelines III.2.2: "Guidelines III apply only to … games without
//! increment"; the Glossary's increment is time added before each move:
//! none is added by `+0` (`../shared/rules/fide-2023.md` §2.14). So a
//! request for five seconds (III.4) and a quickplay-finish claim (III.5)
//! are heard in `660+0` as in `660`.

mod common;

use common::{of, replay_events, TraceBuilder};
use serde_json::{json, Value};

/// 2023 rapid (11 minutes): after 1. f3 (the arbiter sets Black's clock
/// to 1:40) e5 2. g4, Black having the move with less than two minutes
/// asks for five seconds per move and the arbiter agrees.
fn iii4(tc: &str) -> Vec<Value> {
    let t = TraceBuilder::with_header(json!({"trace": 1, "time_control": tc}))
        .mv(1_000, "f2f3", "w")
        .record(json!({"t": 1_800, "arbiter": "clock", "white_ms": 600_000, "black_ms": 100_000}))
        .mv(2_000, "e7e5", "b")
        .mv(3_000, "g2g4", "w")
        .record(json!({"t": 3_800, "arbiter": "increment", "by": "b"}));
    replay_events(&t, "fide-2023")
}

#[test]
fn five_seconds_on_request_are_introduced_in_a_plus_zero_control() {
    // Main before issue 40: refused, "the period has an increment".
    for tc in ["660", "660+0"] {
        let ev = iii4(tc);
        assert!(of(&ev, "ruling_refused").is_empty(), "{tc}: {ev:#?}");
        // White two minutes up (III.4), at the ruling.
        let c = of(&ev, "clock");
        let last = c.last().unwrap();
        assert_eq!(last["t"], 3_800, "{tc}: {ev:#?}");
        assert!(
            last["white_ms"].as_u64().unwrap() > 600_000 + 100_000,
            "{tc}: {last}"
        );
    }
    // A real increment still refuses it (III.2.2).
    let ev = iii4("660+1");
    assert_eq!(of(&ev, "ruling_refused").len(), 1, "{ev:#?}");
}
