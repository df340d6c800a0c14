//! A whole visually impaired player's game, replayed from a real game of
//! `../shared/data` with the two-board records (Appendix E): the sighted
//! player on `main`, the VI player on `tactile`, each copying the other's
//! move on his own board. Copy errors (E2.7 / E2.8) are injected; the
//! promotion question and a piece moved after its announcement (E2.3) are
//! played out on short scenarios.

use crate::common;

use common::skip::shared_pgn_dir_or_skip;
use common::voice::changes;
use common::{of, replay_events, replay_steps, TraceBuilder};
use serde_json::{json, Value};
use shakmaty::san::San;
use shakmaty::{Bitboard, Chess, Color, Position, Square};

fn push(tb: TraceBuilder, t: u64, (kind, sq): (&str, Square), board: &str) -> TraceBuilder {
    let r = json!({"t": t, kind: sq.to_string(), "board": board});
    tb.record(r)
}

/// A real game with at least `min` plies and no promotion (the first such
/// game of the TWIC file).
fn real_game(min: usize) -> Option<Vec<String>> {
    let dir = shared_pgn_dir_or_skip()?;
    let text = std::fs::read_to_string(dir.join("twic1599_1110games.pgn")).unwrap();
    let games = eboard::pgn::read_games(&text).unwrap();
    games
        .into_iter()
        .map(|g| g.moves.into_iter().map(|m| m.san).collect::<Vec<_>>())
        .find(|m| m.len() >= min && m.len() <= min + 30 && m.iter().all(|s| !s.contains('=')))
}

/// What was injected and where.
struct Injected {
    /// Ply (0-based) whose copy went to a wrong square, and the squares
    /// the guidance must name.
    wrong: (usize, Bitboard),
    /// Ply whose copy was forgotten, and the squares to name.
    forgotten: (usize, Bitboard),
}

/// The game as a two-board trace: Black is the VI player. The copy of ply
/// `wrong` (a White move, copied by Black on the tactile board) goes to a
/// wrong square and Black plays on at once (no pause); he puts it right
/// after his press. The copy of ply `forgotten` (a Black move, copied by
/// White on the main board) is forgotten; White plays on and copies it
/// after his press.
fn game_trace(sans: &[String]) -> (TraceBuilder, Injected, Vec<Chess>) {
    let mut tb = TraceBuilder::with_header(json!({
        "trace": 1, "boards": ["main", "tactile"], "vi_player": "b",
        "language": "da", "time_control": "5400+30"
    }));
    let mut pos = Chess::default();
    let mut positions = vec![pos.clone()];
    let mut moves = Vec::new();
    for san in sans {
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        moves.push(mv);
        pos.play_unchecked(mv);
        positions.push(pos.clone());
    }
    let plain = |i: usize| {
        let mv = &moves[i];
        !mv.is_capture() && mv.castling_side().is_none() && !mv.is_promotion()
    };
    // The injected plies: a quiet White move after move 8 whose copy can go
    // to an empty neighbouring square that the next two plies leave alone;
    // a quiet Black move after move 15.
    let touched = |i: usize| -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for j in i..(i + 3).min(moves.len()) {
            for (_, sq) in changes(&positions[j], &moves[j]) {
                b.add(sq);
            }
        }
        b
    };
    let mut wrong = None;
    for i in (16..moves.len() - 4).step_by(2) {
        if !plain(i) {
            continue;
        }
        let to = moves[i].to();
        let spot = [to.offset(1), to.offset(-1), to.offset(8), to.offset(-8)]
            .into_iter()
            .flatten()
            .filter(|s| s.distance(to) == 1)
            .find(|s| {
                !positions[i + 1].board().occupied().contains(*s)
                    && !positions[i + 2].board().occupied().contains(*s)
                    && !touched(i).contains(*s)
            })
            .filter(|_| !touched(i + 1).contains(moves[i].to()));
        if let Some(s) = spot {
            wrong = Some((i, s));
            break;
        }
    }
    let (wi, wrong_sq) = wrong.expect("a White move whose copy can go wrong");
    let fi = ((wi + 7)..moves.len() - 2)
        .step_by(2)
        .find(|&i| {
            plain(i)
                && !touched(i + 1).contains(moves[i].to())
                && !touched(i + 1).contains(moves[i].from().unwrap())
        })
        .expect("a Black move whose copy can be forgotten");
    let mut injected = Injected {
        wrong: (wi, Bitboard::EMPTY),
        forgotten: (fi, Bitboard::EMPTY),
    };
    let mut t = 1000;
    // A copy still to be put right after the next press: (board, changes).
    let mut fix_after_press: Option<(&str, Vec<(&str, Square)>)> = None;
    for (i, mv) in moves.iter().enumerate() {
        let white = i % 2 == 0;
        let (own, other, by) = if white {
            ("main", "tactile", "w")
        } else {
            ("tactile", "main", "b")
        };
        for (k, ch) in changes(&positions[i], mv).into_iter().enumerate() {
            tb = push(tb, t + 100 * k as u64, ch, own);
        }
        // The VI player presses after his move was announced (E2.3: its
        // words played, some 2–4 s of speech).
        tb = tb.press(t + 5000, by);
        if let Some((board, fix)) = fix_after_press.take() {
            for (k, ch) in fix.into_iter().enumerate() {
                tb = push(tb, t + 5100 + 100 * k as u64, ch, board);
            }
        }
        // The other player copies the move at once; his own move follows
        // 200 ms later (no pause of 2 s).
        let copy = changes(&positions[i], mv);
        let ct = t + 5300;
        if i == wi {
            let from = mv.from().unwrap();
            tb = push(tb, ct, ("lift", from), other);
            tb = push(tb, ct + 100, ("place", wrong_sq), other);
            injected.wrong.1 = Bitboard::from(mv.to()) | Bitboard::from(wrong_sq);
            fix_after_press = Some((other, vec![("lift", wrong_sq), ("place", mv.to())]));
        } else if i == fi {
            injected.forgotten.1 = Bitboard::from(mv.to()) | Bitboard::from(mv.from().unwrap());
            fix_after_press = Some((other, copy));
        } else {
            for (k, ch) in copy.into_iter().enumerate() {
                tb = push(tb, ct + 100 * k as u64, ch, other);
            }
        }
        t = ct + 600;
    }
    (tb, injected, positions)
}

fn squares(v: &Value) -> Bitboard {
    v["squares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().parse::<Square>().unwrap())
        .fold(Bitboard::EMPTY, |b, s| b | Bitboard::from(s))
}

#[test]
fn copy_errors_in_a_real_game_are_corrected_from_the_record_without_penalty() {
    let Some(sans) = real_game(50) else { return };
    let (tb, injected, positions) = game_trace(&sans);
    let ev = replay_events(&tb, "fide-2009");
    // Every move of the game recognised, none ruled illegal, no penalty.
    let moves: Vec<&str> = of(&ev, "move")
        .iter()
        .map(|m| m["san"].as_str().unwrap())
        .collect();
    assert_eq!(moves.len(), sans.len(), "{:#?}", of(&ev, "irregularity"));
    assert_eq!(moves, sans.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        of(&ev, "illegal_move").is_empty(),
        "{:#?}",
        of(&ev, "illegal_move")
    );
    assert_eq!(
        of(&ev, "move").last().unwrap()["fen"],
        shakmaty::fen::Fen::from_position(
            positions.last().unwrap(),
            shakmaty::EnPassantMode::Legal
        )
        .to_string()
    );
    // The boards differing, reported twice with the squares to put right,
    // each followed by its announcement naming them in Danish.
    let irr = of(&ev, "irregularity");
    let differ: Vec<&&Value> = irr
        .iter()
        .filter(|e| e["kind"] == "boards_differ")
        .collect();
    assert_eq!(differ.len(), 2, "{irr:#?}");
    assert!(
        irr.iter().all(|e| e["kind"] == "boards_differ"),
        "nothing else irregular: {irr:#?}"
    );
    assert_eq!(squares(differ[0]), injected.wrong.1, "{:#?}", differ[0]);
    assert_eq!(squares(differ[1]), injected.forgotten.1, "{:#?}", differ[1]);
    // Whose board: Black's copy went wrong, White's was forgotten.
    for (d, head) in differ
        .iter()
        .zip(["Sorts bræt afviger på", "Hvids bræt afviger på"])
    {
        assert_eq!(d["article"], "E2.7");
        let i = ev.iter().position(|e| e == **d).unwrap();
        let said = ev[i + 1..]
            .iter()
            .find(|e| e["type"] == "announce")
            .unwrap();
        assert_eq!(said["t"], d["t"]);
        let text = said["text"].as_str().unwrap();
        assert!(text.starts_with(head), "{text}");
        let voc = eboard::voice::Vocabulary::new(
            eboard::model::Lang::Da,
            eboard::model::Edition::Fide2009,
            eboard::voice::VoiceOptions::default(),
        );
        for sq in squares(d) {
            assert!(text.contains(&voc.square(sq)), "{text} names {sq}");
        }
    }
    // Reported as the owner's next move showed, before its press: no pause
    // was needed. The wrong copy is on the VI player's move (ply wi + 1).
    let presses: Vec<u64> = tb
        .text()
        .lines()
        .filter(|l| l.contains("\"press\""))
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["t"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert!(differ[0]["t"].as_u64().unwrap() < presses[injected.wrong.0 + 1]);
    assert!(differ[1]["t"].as_u64().unwrap() < presses[injected.forgotten.0 + 1]);
    // Once put right, the boards agree again (said twice).
    let agree = of(&ev, "announce")
        .iter()
        .filter(|a| a["text"] == "Brætterne stemmer overens")
        .count();
    assert_eq!(agree, 2);
    // The VI player's moves announced before his press, once each; every
    // move announced.
    let moves_said = of(&ev, "announce")
        .iter()
        .filter(|a| {
            let t = a["text"].as_str().unwrap();
            !t.starts_with("Brætterne") && !t.contains(" bræt afviger ")
        })
        .count();
    assert_eq!(moves_said, sans.len());
    // In time order.
    let ts: Vec<u64> = ev.iter().map(|e| e["t"].as_u64().unwrap()).collect();
    assert!(
        ts.windows(2).all(|w| w[0] <= w[1]),
        "events out of time order"
    );
    let _ = Color::White;
}

/// Black is the VI player and promotes his pawn on b2; White's king is far
/// away on h1.
fn promo_header() -> Value {
    json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "b", "language": "da",
           "time_control": "5400+30", "start_fen": "k7/8/8/8/8/8/1p6/7K w - - 0 1"})
}

const PROMO_OPENING: &str = "
    1000 lift h1
    1300 place h2
    1600 press w
    2000 tactile lift h1
    2200 tactile place h2
    3000 tactile lift b2
    3300 tactile place b1";

#[test]
fn e2_3_an_assumed_promotion_piece_is_never_announced_the_player_is_asked() {
    // He names the knight, the move is announced, he presses.
    let steps = format!("{PROMO_OPENING}\n4000 promote n\n8000 press b");
    let ev = replay_steps(promo_header(), &steps, "fide-2009");
    let irr = of(&ev, "irregularity");
    assert_eq!(irr.len(), 1, "{irr:#?}");
    assert_eq!(irr[0]["kind"], "promotion_piece_unnamed");
    assert_eq!(irr[0]["t"], 3300);
    assert_eq!(irr[0]["squares"], json!(["b1"]));
    let ann = of(&ev, "announce");
    let texts: Vec<&str> = ann.iter().map(|a| a["text"].as_str().unwrap()).collect();
    assert_eq!(texts[1], "Hvilken brik på Bodil et?", "{texts:?}");
    assert!(texts[2].contains("springer"), "{texts:?}");
    assert!(texts.iter().all(|t| !t.contains("dronning")), "{texts:?}");
    assert_eq!(ann[2]["t"], 4300);
    let mv = of(&ev, "move");
    assert_eq!(mv[1]["san"], "b1=N");
    assert!(of(&ev, "promotion_assumed").is_empty());
    // Pressed before answering: the move waits; flagged; no queen said.
    // (The flag's words, then the rook's, are played before the press at 14 s.)
    let steps = format!("{PROMO_OPENING}\n4000 press b\n4500 promote r\n14000 press b");
    let ev = replay_steps(promo_header(), &steps, "fide-2009");
    let kinds: Vec<&str> = of(&ev, "irregularity")
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "promotion_piece_unnamed",
            "clock_started_before_announcement"
        ]
    );
    let mv = of(&ev, "move");
    assert_eq!(mv.len(), 2);
    assert_eq!(mv[1]["san"], "b1=R");
    assert_eq!(mv[1]["t"], 14000);
    assert!(of(&ev, "announce")
        .iter()
        .all(|a| !a["text"].as_str().unwrap().contains("dronning")));
}

#[test]
fn e2_3_a_piece_moved_again_after_its_announcement_is_flagged() {
    let steps = "
        1000 lift e2
        1300 place e4
        1600 press w
        2000 tactile lift e2
        2200 tactile place e4
        3000 tactile lift e7
        3300 tactile place e5
        4000 tactile lift e5
        4200 tactile place e6
        12000 press b";
    let ev = replay_steps(
        json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "b", "language": "da", "time_control": "5400+30"}),
        steps,
        "fide-2009",
    );
    let irr = of(&ev, "irregularity");
    assert_eq!(irr.len(), 1, "{irr:#?}");
    assert_eq!(irr[0]["kind"], "moved_after_announcement");
    assert_eq!(irr[0]["article"], "E2.3");
    assert_eq!(irr[0]["t"], 4000);
    assert_eq!(irr[0]["squares"], json!(["e5", "e7"]));
    // The move the board shows at the press counts, announced as well
    // (after the irregularity's words: speech is played in turn, so the
    // press waits for both).
    let ann = of(&ev, "announce");
    assert!(ann[1]["text"].as_str().unwrap().contains("Erik fem"));
    assert!(ann[2]["text"].as_str().unwrap().contains("brik flyttet"));
    assert!(ann[3]["text"].as_str().unwrap().contains("Erik seks"));
    assert_eq!(of(&ev, "move")[1]["san"], "e6");
}

#[test]
fn e2_3_the_announced_instant_is_when_the_speech_has_played() {
    // The speaker reports each announcement's end (`spoken` records): a
    // press before the move's words have played is flagged (E2.3), one
    // after is not.
    use eboard::arbiter::GameConfig;
    use eboard::controller::{Controller, SpeechTiming};
    use eboard::trace::{BoardId, Event, EventKind, Record, RecordKind};
    let tb = TraceBuilder::with_header(json!({"trace": 1, "boards": ["main", "tactile"],
        "vi_player": "b", "language": "da", "time_control": "5400+30"}))
    .steps(
        "1000 lift e2
         1300 place e4
         1600 press w
         2000 tactile lift e2
         2200 tactile place e4
         3000 tactile lift e7
         3300 tactile place e5",
    );
    let trace = tb.trace();
    let run = |end: u64| {
        let cfg = GameConfig::from_header(&trace.header, None, None).unwrap();
        let mut c = Controller::new(cfg);
        c.set_speech_timing(SpeechTiming::Reported, 175);
        let mut out: Vec<Event> = Vec::new();
        for r in &trace.records {
            c.feed(r, &mut out);
        }
        c.tick(4000, &mut out);
        // The announcement of Black's e5 (the last one given).
        let n = out
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EventKind::Announce { n, text, .. } if text.contains("Erik fem") => Some(*n),
                _ => None,
            })
            .expect("e5 announced");
        let spoken = Record {
            t: end,
            board: BoardId::Main,
            kind: RecordKind::Spoken { n, by: None },
        };
        let press = Record {
            t: 4500,
            board: BoardId::Main,
            kind: RecordKind::Press(shakmaty::Color::Black),
        };
        let order = if end <= 4500 {
            [spoken, press]
        } else {
            [press, spoken]
        };
        for r in &order {
            c.feed(r, &mut out);
        }
        c.finish(5000, &mut out);
        out.iter()
            .filter(|e| e.to_json().contains("clock_started_before_announcement"))
            .count()
    };
    // Played by 4500: the press at 4500 is after the announcement.
    assert_eq!(run(4400), 0);
    assert_eq!(run(4500), 0);
    // Still playing at the press.
    assert_eq!(run(4501), 1);
}
