//! A board set up turned (issue 13 §4): turned 90° (the dark corner at the
//! players' right, contrary to §2.1; 2001/2009 §7.1b, 2023 7.2.2) it is
//! detected from the frames, its squares remapped and the game played on;
//! turned 180° (no rule of placement broken, White at the end the wiring
//! gives Black) it is the profile's colours reversed (2001/2009 §7.2, 2023
//! 7.3), remapped too. Whole real games are replayed on a board turned each
//! way, with frames and with lift/place records: the moves are those of the
//! board as wired, and the one irregularity carries the profile's article.

use crate::common;

use common::skip::shared_pgn_dir_or_skip;
use common::{of, replay_steps, ALL_RULES as ALL};
use eboard::board::Orientation;
use eboard::controller::replay;
use eboard::pgn::PgnGame;
use eboard::sim::{simulate, SimOptions};
use eboard::trace::{BoardId, RecordKind, Trace};
use serde_json::{json, Value};

/// The quarter and half turns a board can be set down in.
const TURNED: [Orientation; 3] = [Orientation::Rot90, Orientation::Rot180, Orientation::Rot270];

/// The irregularity and its article a board turned `o` raises under `rules`.
fn expected(o: Orientation, rules: &str) -> (&'static str, &'static str) {
    let y2023 = rules == "fide-2023";
    match o {
        Orientation::Rot180 => ("board_turned", "2.1"),
        _ => ("board_orientation", if y2023 { "7.2.2" } else { "7.1b" }),
    }
}

/// `trace` as the sensors of a board set down turned by `o` report it: the
/// game's square `r` is sensed at `o.inverse().apply(r)`.
fn turned(trace: &Trace, o: Orientation) -> Trace {
    let s = o.inverse();
    let mut out = trace.clone();
    for rec in out.records.iter_mut().filter(|r| r.board == BoardId::Main) {
        rec.kind = match rec.kind.clone() {
            RecordKind::Lift(sq) => RecordKind::Lift(s.apply(sq)),
            RecordKind::Place {
                square,
                color,
                piece,
            } => RecordKind::Place {
                square: s.apply(square),
                color,
                piece,
            },
            RecordKind::Frame(bits) => RecordKind::Frame(s.apply_bits(bits)),
            other => other,
        };
    }
    out
}

fn events(trace: &Trace, rules: &str) -> Vec<Value> {
    let (_, ev) = replay(trace, Some(rules.parse().unwrap()), None).unwrap();
    ev.iter()
        .map(|e| serde_json::from_str(&e.to_json()).unwrap())
        .collect()
}

fn moves(ev: &[Value]) -> Vec<Value> {
    of(ev, "move").into_iter().cloned().collect()
}

fn alarms(ev: &[Value]) -> Vec<&Value> {
    ev.iter()
        .filter(|e| {
            e["type"] == "irregularity" || e["type"] == "illegal_move" || e["type"] == "touch_move"
        })
        .collect()
}

/// Replays `game` (frames or lift/place, seed) as wired and turned each way
/// under `rules`; the turned replays record the same moves at the same
/// times, raise exactly the turned board's irregularity, and nothing else.
/// Returns `false` when the game cannot be simulated (nothing checked).
fn check_game(game: &PgnGame, name: &str, frames: bool, seed: u64, rules: &str) -> bool {
    let opts = SimOptions {
        seed,
        frames,
        ..Default::default()
    };
    let Ok(trace) = simulate(game, &opts) else {
        return false;
    };
    let wired = events(&trace, rules);
    let base_alarms = alarms(&wired).len();
    for o in TURNED {
        let ev = events(&turned(&trace, o), rules);
        assert_eq!(
            moves(&ev),
            moves(&wired),
            "{name} ({rules}, frames {frames}) turned {o:?}"
        );
        let (kind, article) = expected(o, rules);
        let irr: Vec<&Value> = of(&ev, "irregularity")
            .into_iter()
            .filter(|e| e["kind"] == kind)
            .collect();
        assert_eq!(irr.len(), 1, "{name} ({rules}) turned {o:?}: {irr:?}");
        assert_eq!(irr[0]["article"], article, "{name} ({rules}) turned {o:?}");
        assert_eq!(
            alarms(&ev).len(),
            base_alarms + 1,
            "{name} ({rules}, frames {frames}) turned {o:?}: {:#?}",
            alarms(&ev)
        );
        assert_eq!(
            of(&ev, "game_end"),
            of(&wired, "game_end"),
            "{name} ({rules}) turned {o:?}"
        );
    }
    true
}

#[test]
fn the_opera_game_on_a_board_turned_each_way_is_read_right_in_every_profile() {
    let game = common::opera_game();
    for rules in ALL {
        for frames in [true, false] {
            assert!(check_game(&game, "opera", frames, 7, rules));
        }
    }
}

#[test]
fn real_games_on_a_board_turned_each_way_are_read_right() {
    let Some(dir) = shared_pgn_dir_or_skip() else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("twic1599_1110games.pgn")).unwrap();
    let (games, _) = eboard::pgn::read_games_lenient(&text);
    assert!(games.len() > 100, "{} games read", games.len());
    // Every 37th game: about thirty real games, openings of every kind.
    let mut checked = 0;
    for (i, game) in games.iter().enumerate().step_by(37) {
        let rules = ALL[i % ALL.len()];
        checked += usize::from(check_game(
            game,
            &format!("twic #{i}"),
            i % 2 == 0,
            i as u64,
            rules,
        ));
    }
    assert!(checked >= 25, "only {checked} games could be simulated");
}

/// The start position's occupancy as a board turned 90° senses it: the home
/// ranks along files a/b and g/h.
const QUARTER: u64 = 0xc3c3_c3c3_c3c3_c3c3;

#[test]
fn a_board_turned_90_degrees_is_seen_at_the_set_up_and_the_game_starts() {
    // Switched on during the set-up: files a, b, g, h filling up. The
    // guidance names the squares the players see on the turned board; once
    // the start position stands turned, the board is remapped, the
    // irregularity raised at that reading, and the guidance says done.
    let half_set: u64 = 0x0303_0303_0303_0303; // files a and b only
    let steps = format!(
        "0 frame {half_set:016x}\n500 frame {QUARTER:016x}\n2000 lift {e2}\n2300 place {e4}\n2600 press w\n4000 lift {e7}\n4300 place {e5}\n4600 press b",
        e2 = sq(Orientation::Rot90, "e2"),
        e4 = sq(Orientation::Rot90, "e4"),
        e7 = sq(Orientation::Rot90, "e7"),
        e5 = sq(Orientation::Rot90, "e5"),
    );
    for rules in ALL {
        let ev = replay_steps(json!({"trace": 1}), &steps, rules);
        let setup = of(&ev, "setup");
        assert_eq!(setup.len(), 2, "{rules}: {setup:#?}");
        // Half the pieces (one side) stand: the guidance names the eight
        // + eight squares of the other side, in the game's squares.
        let missing = setup[0]["missing"].as_array().unwrap();
        assert_eq!(missing.len(), 16, "{rules}: {setup:#?}");
        assert_eq!(setup[1]["missing"], json!([]), "{rules}");
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {irr:#?}");
        let (kind, article) = expected(Orientation::Rot90, rules);
        assert_eq!(irr[0]["kind"], kind);
        assert_eq!(irr[0]["article"], article);
        assert_eq!(irr[0]["t"], 500);
        let sans: Vec<&str> = of(&ev, "move")
            .iter()
            .map(|m| m["san"].as_str().unwrap())
            .collect();
        assert_eq!(sans, ["e4", "e5"], "{rules}: {ev:#?}");
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}");
    }
}

#[test]
fn a_quarter_turn_the_other_way_is_settled_by_the_first_move() {
    // Occupancy cannot tell 90° from 270°: the board is taken one way at
    // the set-up; the first move, legal only the other way, settles it
    // without a second irregularity and without an illegal move.
    let o = Orientation::Rot270;
    let steps = format!(
        "0 frame {QUARTER:016x}\n2000 lift {}\n2300 place {}\n2600 press w\n4000 lift {}\n4300 place {}\n4600 press b",
        sq(o, "g1"),
        sq(o, "f3"),
        sq(o, "d7"),
        sq(o, "d5"),
    );
    let ev = replay_steps(json!({"trace": 1}), &steps, "fide-2009");
    let sans: Vec<&str> = of(&ev, "move")
        .iter()
        .map(|m| m["san"].as_str().unwrap())
        .collect();
    assert_eq!(sans, ["Nf3", "d5"], "{ev:#?}");
    assert_eq!(of(&ev, "irregularity").len(), 1, "{ev:#?}");
    assert!(of(&ev, "illegal_move").is_empty());
}

#[test]
fn a_colour_sensing_board_turned_180_degrees_is_board_turned_at_the_set_up() {
    // A colour-sensing board shows the White pieces at the wired ranks 7–8
    // from its first reading: colours reversed, raised at that reading
    // (t = 10), and the moves read right.
    let mut steps = String::new();
    for file in "abcdefgh".chars() {
        for (rank, c) in [(1, "b"), (2, "b"), (7, "w"), (8, "w")] {
            steps.push_str(&format!("10 place {file}{rank} {c}\n"));
        }
    }
    let o = Orientation::Rot180;
    steps.push_str(&format!(
        "2000 lift {}\n2300 place {} w\n2600 press w\n",
        sq(o, "e2"),
        sq(o, "e4")
    ));
    for rules in ALL {
        let ev = replay_steps(json!({"trace": 1, "sensing": "colour"}), &steps, rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        let (kind, article) = expected(o, rules);
        assert_eq!(irr[0]["kind"], kind);
        assert_eq!(irr[0]["article"], article, "{rules}");
        assert_eq!(irr[0]["t"], 10, "{rules}");
        let sans: Vec<&str> = of(&ev, "move")
            .iter()
            .map(|m| m["san"].as_str().unwrap())
            .collect();
        assert_eq!(sans, ["e4"], "{rules}: {ev:#?}");
    }
}

/// The sensed square of the game's square `name` on a board turned `o`.
fn sq(o: Orientation, name: &str) -> String {
    let s: shakmaty::Square = name.parse().unwrap();
    o.inverse().apply(s).to_string()
}
