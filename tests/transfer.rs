//! A board set right (or found turned) in the middle of the game (issue 25,
//! point 6): 2009 §7.1b (seed 002) "Hvis det under et parti opdages, at
//! brættet er placeret i strid med §2.1, skal partiet fortsætte, men
//! stillingen skal overføres til et korrekt placeret bræt"; 2001 §7.1b the
//! same; 2023 7.2.2. The players lift every piece and set the position
//! anew on the board turned the other way: the board's square map follows,
//! the game goes on from the transferred position, no illegal move is
//! ruled for the transfer, and the arbiter is told.

mod common;

use common::{of, replay_events, TraceBuilder};
use eboard::board::Orientation;
use serde_json::{json, Value};
use shakmaty::{Chess, Position, Square};

const ALL: [&str; 4] = ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"];

/// The sensor square of the game's square `g` on a board turned by `o`.
fn sensor(o: Orientation, g: &str) -> String {
    let sq: Square = g.parse().unwrap();
    o.inverse().apply(sq).to_string()
}

/// The moves (UCI) by turns, starting with White.
const BEFORE: [&str; 4] = ["e2e4", "e7e5", "g1f3", "b8c6"];
const AFTER: [&str; 3] = ["f1b5", "a7a6", "b5a4"];

/// A game played on a board turned `from`, the position transferred at
/// 20 s to the board turned `to`, then played on.
fn game(from: Orientation, to: Orientation) -> TraceBuilder {
    let mut b = TraceBuilder::with_header(json!({"trace": 1}));
    // The set-up reading: the start position as the sensors see it.
    let start = Chess::default();
    let mut setup = 0u64;
    for sq in start.board().occupied() {
        setup |= 1 << from.inverse().apply(sq) as u64;
    }
    b = b.frame(0, &format!("{setup:016x}"));
    let mut pos = Chess::default();
    let mut t = 1000;
    let side = |i: usize| if i.is_multiple_of(2) { "w" } else { "b" };
    for (i, uci) in BEFORE.iter().enumerate() {
        b = b
            .lift(t, &sensor(from, &uci[..2]))
            .place(t + 300, &sensor(from, &uci[2..4]))
            .press(t + 600, side(i));
        let m = uci
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
        t += 2000;
    }
    // The transfer: every piece lifted, then set down on the board turned
    // `to`, on the squares the players see.
    let mut t = 20_000;
    let occupied: Vec<Square> = pos.board().occupied().into_iter().collect();
    for sq in &occupied {
        b = b.lift(t, &from.inverse().apply(*sq).to_string());
        t += 10;
    }
    for sq in &occupied {
        b = b.place(t, &to.inverse().apply(*sq).to_string());
        t += 10;
    }
    let mut t = 30_000;
    for (i, uci) in AFTER.iter().enumerate() {
        b = b
            .lift(t, &sensor(to, &uci[..2]))
            .place(t + 300, &sensor(to, &uci[2..4]))
            .press(t + 600, side(i));
        t += 2000;
    }
    b
}

fn sans(ev: &[Value]) -> Vec<String> {
    of(ev, "move")
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_owned())
        .collect()
}

fn transferred(ev: &[Value]) -> Vec<&Value> {
    of(ev, "irregularity")
        .into_iter()
        .filter(|e| e["t"].as_u64() >= Some(20_000))
        .collect()
}

#[test]
fn a_board_set_right_mid_game_is_followed_and_the_game_goes_on() {
    for from in [Orientation::Rot90, Orientation::Rot270] {
        for rules in ALL {
            let ev = replay_events(&game(from, Orientation::Identity), rules);
            assert_eq!(
                sans(&ev),
                ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"],
                "{rules} {from:?}: {ev:#?}"
            );
            assert!(of(&ev, "illegal_move").is_empty(), "{rules} {from:?}");
            assert!(of(&ev, "touch_move").is_empty(), "{rules} {from:?}");
            assert!(of(&ev, "game_end").is_empty(), "{rules} {from:?}");
            let told = transferred(&ev);
            assert_eq!(told.len(), 1, "{rules} {from:?}: {ev:#?}");
            assert_eq!(told[0]["kind"], "board_orientation");
            let want = if rules == "fide-2023" {
                "7.2.2"
            } else {
                "7.1b"
            };
            assert_eq!(told[0]["article"], want, "{rules}");
        }
    }
}

#[test]
fn a_board_turned_mid_game_is_followed_too() {
    // The reverse (the position transferred to a board turned a quarter or
    // half turn): the map follows whatever the board shows.
    for to in [Orientation::Rot90, Orientation::Rot180, Orientation::Rot270] {
        for rules in ALL {
            let ev = replay_events(&game(Orientation::Identity, to), rules);
            assert_eq!(sans(&ev).len(), 7, "{rules} {to:?}: {ev:#?}");
            assert!(of(&ev, "illegal_move").is_empty(), "{rules} {to:?}");
            let told = transferred(&ev);
            assert_eq!(told.len(), 1, "{rules} {to:?}: {ev:#?}");
            let kind = if to == Orientation::Rot180 {
                "board_turned"
            } else {
                "board_orientation"
            };
            assert_eq!(told[0]["kind"], kind, "{rules} {to:?}");
        }
    }
}

#[test]
fn a_few_pieces_moved_are_no_transfer() {
    // Evidence: fewer than eight squares off is never taken as a turned
    // board (a knocked piece, a move in the hand).
    for rules in ALL {
        let b = game(Orientation::Identity, Orientation::Identity);
        let ev = replay_events(&b, rules);
        assert!(transferred(&ev).is_empty(), "{rules}: {ev:#?}");
        assert_eq!(sans(&ev).len(), 7, "{rules}");
    }
}
