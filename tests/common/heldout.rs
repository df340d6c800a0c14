//! The held-out Laws cases' harness (issue 25; `tests/laws_heldout.rs`,
//! `tests/articles.rs`): a trace in the step language of
//! [`TraceBuilder::steps`] run through the real binary (`eboard replay -
//! --json --rules P`), its event stream checked against what the case's
//! text decides.
//!
//! A case lists what the event stream must hold (`has`) and must not
//! (`lacks`): `TYPE` (an event of that type), `TYPE.FIELD=VALUE` (one whose
//! field equals the value) or `TYPE.FIELD~TEXT` (one whose field contains
//! the text); conditions joined by `&` hold of one event
//! (`clock.t=9000&white_ms=1`).

use super::{eboard_with_input, TraceBuilder};
use serde_json::{json, Value};

/// One case: the text it is written from, the profile, the trace.
pub struct Case {
    /// Point of the issue and the text, e.g. "1 2009 B3c".
    pub id: &'static str,
    pub rules: &'static str,
    pub header: Value,
    pub steps: String,
    pub has: Vec<&'static str>,
    pub lacks: Vec<&'static str>,
}

pub fn case(
    id: &'static str,
    rules: &'static str,
    header: Value,
    steps: impl Into<String>,
    has: &[&'static str],
    lacks: &[&'static str],
) -> Case {
    Case {
        id,
        rules,
        header,
        steps: steps.into(),
        has: has.to_vec(),
        lacks: lacks.to_vec(),
    }
}

/// A header: the trace version, `tc`, and the keys of `extra`.
pub fn hdr(tc: &str, extra: Value) -> Value {
    let mut h = json!({"trace": 1, "time_control": tc});
    if let (Some(h), Some(e)) = (h.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            h.insert(k.clone(), v.clone());
        }
    }
    h
}

/// A game on an identity-sensing board from `fen` (`mode`, `tc`,
/// `supervision`).
pub fn game(fen: &str, mode: &str, tc: &str, supervision: &str) -> Value {
    // The board as the arbiter's eye under 2023 A.5.2 / B.3 (issue 40: an
    // event setting; the Laws' default, alert and wait, is tests/a52_illegal.rs).
    hdr(
        tc,
        json!({"start_fen": fen, "mode": mode, "supervision": supervision, "sensing": "identity",
               "board_observes_illegal_moves": true}),
    )
}

/// The moves 1. e4 e5 (White 1.5 s used, Black 1 s).
pub const E4E5: &str =
    "1000 lift e2\n1200 place e4\n1500 press w\n2000 lift e7\n2200 place e5\n2500 press b\n";

/// How the board lies: the sensor square under the game's square.
#[derive(Clone, Copy)]
pub enum Lie {
    Right,
    Quarter,
    Half,
    ThreeQuarters,
}

/// The sensor square under the game's square `sq` on a board lying `lie`.
pub fn sensor(lie: Lie, sq: shakmaty::Square) -> String {
    let (f, r) = (sq.file() as u32, sq.rank() as u32);
    let (f, r) = match lie {
        Lie::Right => (f, r),
        Lie::Quarter => (r, 7 - f),
        Lie::Half => (7 - f, 7 - r),
        Lie::ThreeQuarters => (7 - r, f),
    };
    shakmaty::Square::from_coords(f.try_into().unwrap(), r.try_into().unwrap()).to_string()
}

/// Appends to `s` the steps of the move `uci` in `pos`, made at `*t` on a
/// board lying `lie`: a taken piece lifted first, the piece lifted at
/// +100 ms and placed at +300 ms (whose it is when `colour`), a promotion
/// given off the board at +400 ms, the clock pressed at +600 ms; then
/// plays it on `pos` and moves `*t` 2 s on.
pub fn play_on(
    s: &mut String,
    pos: &mut shakmaty::Chess,
    t: &mut u64,
    uci: &str,
    lie: Lie,
    colour: bool,
) {
    use shakmaty::Position;
    let m = uci
        .parse::<shakmaty::uci::UciMove>()
        .unwrap()
        .to_move(pos)
        .unwrap();
    let (from_sq, to_sq) = (m.from().unwrap(), m.to());
    let by = if pos.turn().is_white() { "w" } else { "b" };
    if pos.board().piece_at(to_sq).is_some() {
        *s += &format!("{} lift {}\n", *t, sensor(lie, to_sq));
    }
    let c = if colour {
        format!(" {by}")
    } else {
        String::new()
    };
    *s += &format!(
        "{} lift {}\n{} place {}{c}\n",
        *t + 100,
        sensor(lie, from_sq),
        *t + 300,
        sensor(lie, to_sq)
    );
    if let Some(p) = m.promotion() {
        *s += &format!("{} promote {}\n", *t + 400, p.char());
    }
    *s += &format!("{} press {by}\n", *t + 600);
    pos.play_unchecked(m);
    *t += 2000;
}

/// Appends to `s` the step of the piece on `sq` in `pos` set down at `t`
/// on a board lying `lie` (whose piece it is when `colour`).
pub fn set_down_on(
    s: &mut String,
    pos: &shakmaty::Chess,
    t: u64,
    sq: shakmaty::Square,
    lie: Lie,
    colour: bool,
) {
    use shakmaty::Position;
    let c = match (colour, pos.board().color_at(sq)) {
        (true, Some(c)) if c.is_white() => " w",
        (true, Some(_)) => " b",
        _ => "",
    };
    *s += &format!("{t} place {}{c}\n", sensor(lie, sq));
}

pub fn matches(ev: &[Value], spec: &str) -> bool {
    let (ty, rest) = spec.split_once('.').unwrap_or((spec, ""));
    ev.iter()
        .filter(|e| e["type"] == ty)
        .any(|e| rest.is_empty() || rest.split('&').all(|cond| field_matches(e, cond)))
}

/// One condition on one event: `FIELD=VALUE` or `FIELD~TEXT`; several
/// joined by `&` must hold of the same event (`clock.t=9000&white_ms=1`).
fn field_matches(e: &Value, cond: &str) -> bool {
    // The first `=` or `~` ends the field's name (a value may hold either).
    let at = cond.find(['=', '~']).expect("FIELD=VALUE or FIELD~TEXT");
    let (field, want, contains) = (&cond[..at], &cond[at + 1..], &cond[at..at + 1] == "~");
    let got = match &e[field] {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    if contains {
        got.contains(want)
    } else {
        got == want
    }
}

/// Runs every case through the binary; panics naming each case that the
/// board decides otherwise than its text, with its events.
pub fn run(cases: Vec<Case>) {
    let runs: Vec<_> = cases
        .into_iter()
        .map(|c| {
            std::thread::spawn(move || {
                let text = TraceBuilder::with_header(c.header.clone())
                    .steps(&c.steps)
                    .text();
                let out = eboard_with_input(&["replay", "-", "--json", "--rules", c.rules], &text);
                let ev: Vec<Value> = String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .filter_map(|l| serde_json::from_str(l).ok())
                    .collect();
                let mut wrong: Vec<String> = Vec::new();
                if !out.status.success() {
                    wrong.push(format!("exit {}", String::from_utf8_lossy(&out.stderr)));
                }
                wrong.extend(
                    c.has
                        .iter()
                        .filter(|s| !matches(&ev, s))
                        .map(|s| format!("missing {s}")),
                );
                wrong.extend(
                    c.lacks
                        .iter()
                        .filter(|s| matches(&ev, s))
                        .map(|s| format!("unexpected {s}")),
                );
                (c.id, c.rules, wrong, ev)
            })
        })
        .collect();
    let mut failed = Vec::new();
    for r in runs {
        let (id, rules, wrong, ev) = r.join().expect("a case");
        if !wrong.is_empty() {
            let shown: Vec<String> = ev
                .iter()
                .filter(|e| e["type"] != "touch")
                .map(|e| e.to_string())
                .collect();
            failed.push(format!(
                "[{id}] {rules}: {wrong:?}\n  {}",
                shown.join("\n  ")
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
