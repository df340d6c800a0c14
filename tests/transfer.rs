//! A board set right (or found turned) in the middle of the game (issue 25,
//! point 6): 2009 §7.1b (seed 002) "Hvis det under et parti opdages, at
//! brættet er placeret i strid med §2.1, skal partiet fortsætte, men
//! stillingen skal overføres til et korrekt placeret bræt"; 2001 §7.1b the
//! same; 2023 7.2.2. The players lift every piece and set the position
//! anew on the board turned the other way: the board's square map follows,
//! the game goes on from the transferred position, no illegal move is
//! ruled for the transfer, and the arbiter is told.

use crate::common;

use common::{of, replay_events, sans, TraceBuilder, ALL_RULES as ALL};
use eboard::board::Orientation;
use serde_json::{json, Value};
use shakmaty::{Chess, Position, Square};

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

// ---- Held-out cases (issue 25, point 2), from 2009 §7.1b (seed 002), 2001
// §7.1b (seed 000), 2023 7.2.2, and the arbiter's reinstatement of a
// position (2009 §7.5 / 2023 7.6, `RulingArticles::position`). ------------

/// A game of 76 plies (seeded random, no castling, en passant or
/// promotion; captures), as UCI.
const LONG: &str = "c2c4 f7f5 e2e4 d7d5 f2f3 e8d7 e1f2 a7a5 g2g3 h7h6 g3g4 g7g5 b1c3 g8f6 \
d1a4 c7c6 f2g2 f5f4 a4b5 f6e8 g1e2 f8g7 g2f2 d7e6 b5c5 e8c7 h2h4 h8e8 c5e7 e6e7 c3a4 c7a6 \
c4c5 a6b4 h1h2 e7f7 f1g2 d8d7 h2h1 b4d3 f2g1 g7f6 e2c3 b8a6 h4h5 a6b8 a4b6 d7d6 b6c8 d6c7 \
e4e5 e8d8 c3b5 a8a7 a2a4 f7f8 c8b6 a7a8 b6c8 c7h7 b5c7 d3e1 c7e8 h7h8 h1h4 e1g2 c8b6 d5d4 \
g1h1 g2h4 e8c7 h8h7 b6c4 f6h8 d2d3 f8e7";

/// The sensor square of `sq` on a board turned `o`.
fn at(o: Orientation, sq: Square) -> String {
    o.inverse().apply(sq).to_string()
}

/// `LONG` played from the set-up on a board turned `start`; before ply
/// `p` of each `(p, o)` the position is transferred to the board turned
/// `o` (every piece lifted, then set down). Each ply: lift (the captured
/// piece first), place, press, 2 s apart; transfers take 1 s.
fn long_game(start: Orientation, transfers: &[(usize, Orientation)]) -> (TraceBuilder, Vec<u64>) {
    let mut b = TraceBuilder::with_header(json!({"trace": 1}));
    let mut setup = 0u64;
    for sq in Chess::default().board().occupied() {
        setup |= 1 << start.inverse().apply(sq) as u64;
    }
    b = b.frame(0, &format!("{setup:016x}"));
    let mut pos = Chess::default();
    let mut o = start;
    let mut t = 1000;
    let mut at_transfer = Vec::new();
    for (i, uci) in LONG.split_whitespace().enumerate() {
        if let Some(&(_, to)) = transfers.iter().find(|(p, _)| *p == i) {
            at_transfer.push(t);
            let occupied: Vec<Square> = pos.board().occupied().into_iter().collect();
            for sq in &occupied {
                b = b.lift(t, &at(o, *sq));
                t += 10;
            }
            for sq in &occupied {
                b = b.place(t, &at(to, *sq));
                t += 10;
            }
            o = to;
            t += 1000;
        }
        let m = uci
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        let side = if pos.turn() == shakmaty::Color::White {
            "w"
        } else {
            "b"
        };
        if m.is_capture() {
            b = b.lift(t, &at(o, m.to()));
        }
        b = b
            .lift(t + 100, &at(o, m.from().unwrap()))
            .place(t + 400, &at(o, m.to()))
            .press(t + 700, side);
        pos.play_unchecked(m);
        t += 2000;
    }
    (b, at_transfer)
}

/// The board turned 180° in the middle of the game (before White's 30th
/// move) and set right again five moves later: §7.1b / 7.2.2, "the game
/// shall continue" on the transferred position. All 76 moves are read, no
/// illegal move, nothing ends the game; each transfer is told as seen
/// (`board_turned`, 2.1).
#[test]
fn a_board_turned_at_move_30_and_set_right_later_loses_no_move() {
    let (b, ts) = long_game(
        Orientation::Identity,
        &[(58, Orientation::Rot180), (68, Orientation::Identity)],
    );
    let want: Vec<String> = LONG.split_whitespace().map(str::to_owned).collect();
    for rules in ALL {
        let ev = replay_events(&b, rules);
        let ucis: Vec<String> = of(&ev, "move")
            .iter()
            .map(|m| m["uci"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ucis, want, "{rules}: {ev:#?}");
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}");
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
        assert!(of(&ev, "game_end").is_empty(), "{rules}");
        let told: Vec<(u64, &str, &str)> = of(&ev, "irregularity")
            .iter()
            .map(|e| {
                (
                    e["t"].as_u64().unwrap(),
                    e["kind"].as_str().unwrap(),
                    e["article"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(told.len(), 2, "{rules}: {told:?}");
        for (k, (t, kind, article)) in told.into_iter().enumerate() {
            assert!(t >= ts[k] && t < ts[k] + 2000, "{rules}: {t} vs {ts:?}");
            assert_eq!((kind, article), ("board_turned", "2.1"), "{rules}");
        }
    }
}

/// A board set up turned a quarter (contrary to §2.1), played 29 moves so,
/// then set right: the game goes on (§7.1b / 7.2.2); the set-right is told
/// with the placement article.
#[test]
fn a_board_set_right_at_move_30_after_a_quarter_turn_from_the_start() {
    let (b, ts) = long_game(Orientation::Rot90, &[(58, Orientation::Identity)]);
    for rules in ALL {
        let ev = replay_events(&b, rules);
        assert_eq!(of(&ev, "move").len(), 76, "{rules}: {ev:#?}");
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}");
        let told: Vec<&Value> = of(&ev, "irregularity")
            .into_iter()
            .filter(|e| e["t"].as_u64() >= Some(ts[0]))
            .collect();
        assert_eq!(told.len(), 1, "{rules}: {told:?}");
        assert_eq!(told[0]["kind"], "board_orientation", "{rules}");
        let want = if rules == "fide-2023" {
            "7.2.2"
        } else {
            "7.1b"
        };
        assert_eq!(told[0]["article"], want, "{rules}");
    }
}

/// On a board found turned 180° and followed, the arbiter reinstates the
/// position of one move before (2009 §7.5 / 2023 7.6: `position`): the
/// ruling takes effect, the player puts the piece back on the turned board
/// (its sensor squares), the board says the position is restored, and the
/// game goes on with another move.
#[test]
fn the_arbiters_position_ruling_takes_effect_on_a_turned_board() {
    // 1. e4 e5 2. Nf3 Nc6 on a board turned at the start of move 2 … then
    // 3. Bb5, taken back by the arbiter; White plays 3. Bc4 instead.
    let o = Orientation::Rot180;
    let mut b =
        TraceBuilder::with_header(json!({"trace": 1})).steps("1000 mv e2e4 w\n3000 mv e7e5 b");
    let mut pos = Chess::default();
    for uci in ["e2e4", "e7e5"] {
        let m = uci.parse::<shakmaty::uci::UciMove>().unwrap();
        pos.play_unchecked(m.to_move(&pos).unwrap());
    }
    let occupied: Vec<Square> = pos.board().occupied().into_iter().collect();
    let mut t = 5000;
    for sq in &occupied {
        b = b.lift(t, &sq.to_string());
        t += 10;
    }
    for sq in &occupied {
        b = b.place(t, &at(o, *sq));
        t += 10;
    }
    let sq = |s: &str| at(o, s.parse().unwrap());
    let steps = format!(
        "8000 lift {g1}\n8300 place {f3}\n8600 press w\n\
         10000 lift {b8}\n10300 place {c6}\n10600 press b\n\
         12000 lift {f1}\n12300 place {b5}\n12600 press w",
        g1 = sq("g1"),
        f3 = sq("f3"),
        b8 = sq("b8"),
        c6 = sq("c6"),
        f1 = sq("f1"),
        b5 = sq("b5"),
    );
    let back = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let b = b
        .steps(&steps)
        .record(json!({"t": 14000, "arbiter": "position", "fen": back, "author": "IA Hansen"}))
        .steps(&format!(
            "15000 lift {b5}\n15300 place {f1}\n17000 lift {f1}\n17300 place {c4}\n17600 press w",
            b5 = sq("b5"),
            f1 = sq("f1"),
            c4 = sq("c4"),
        ));
    for (rules, article) in [
        ("fide-2001", "7.5"),
        ("fide-2009", "7.5"),
        ("fide-2009-no", "7.5"),
        ("fide-2023", "7.6"),
    ] {
        let ev = replay_events(&b, rules);
        let r = of(&ev, "ruling");
        assert_eq!(r.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(r[0]["action"], "position", "{rules}");
        assert_eq!(r[0]["article"], article, "{rules}");
        assert_eq!(of(&ev, "position_restored").len(), 1, "{rules}: {ev:#?}");
        let sans: Vec<&str> = of(&ev, "move")
            .iter()
            .map(|m| m["san"].as_str().unwrap())
            .collect();
        assert_eq!(
            sans,
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "Bc4"],
            "{rules}: {ev:#?}"
        );
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}");
        assert_eq!(of(&ev, "irregularity").len(), 1, "{rules}: the turn only");
    }
}

/// The arbiter's `position` is never ignored: at each moment it takes
/// effect or is refused with its reason and status. Before the first move
/// a new start is taken; mid-game a position not of this game is refused
/// (422), so is the position already on the board with nothing to
/// restore; during a pause a take-back takes effect and the pause holds
/// (2009 §6.12c / 2023 6.11.3: the arbiter decides when play restarts).
#[test]
fn the_arbiters_position_ruling_takes_effect_or_is_refused_at_every_moment() {
    let start = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let cases: [(&str, &str, Option<u16>); 4] = [
        ("", start, None),
        (
            "1000 mv e2e4 w\n",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            Some(422),
        ),
        ("1000 mv e2e4 w\n", after_e4, Some(422)),
        (
            "1000 mv e2e4 w\n3000 mv e7e5 b\n4000 arbiter pause\n",
            after_e4,
            None,
        ),
    ];
    for rules in ALL {
        for (before, fen, refused) in cases {
            let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "300+2"}))
                .steps(before)
                .record(
                    json!({"t": 5000, "arbiter": "position", "fen": fen, "author": "IA Hansen"}),
                );
            let ev = replay_events(&b, rules);
            let done = of(&ev, "ruling")
                .into_iter()
                .filter(|r| r["action"] == "position")
                .count();
            let no = of(&ev, "ruling_refused");
            match refused {
                None => {
                    assert_eq!(done, 1, "{rules} {fen}: {ev:#?}");
                    assert!(no.is_empty(), "{rules} {fen}: {no:?}");
                }
                Some(status) => {
                    assert_eq!(done, 0, "{rules} {fen}");
                    assert_eq!(no.len(), 1, "{rules} {fen}: {ev:#?}");
                    assert_eq!(no[0]["status"], status, "{rules} {fen}");
                    assert!(!no[0]["reason"].as_str().unwrap().is_empty());
                }
            }
        }
        // The take-back during the pause: e5 taken back, the pause holds.
        let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "300+2"})).steps(
            &format!(
                "1000 mv e2e4 w\n3000 mv e7e5 b\n4000 arbiter pause\n\
                 5000 arbiter position {after_e4}\n6000 lift e5\n6300 place e7\n\
                 7000 lift e7\n7300 place e6\n8000 press b"
            ),
        );
        let ev = replay_events(&b, rules);
        assert_eq!(of(&ev, "move").len(), 2, "{rules}: {ev:#?}");
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "press_during_pause", "{rules}");
        assert!(of(&ev, "clock").iter().all(|c| c["t"] != 8000), "{rules}");
    }
}
