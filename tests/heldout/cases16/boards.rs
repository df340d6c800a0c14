//! Session 16's held-out cases for points 2 and 6: a board turned 180° at
//! move 15, and an Appendix E copy of a castling with the rook left behind.

use crate::common::heldout::{case, hdr, run};
use serde_json::json;
use shakmaty::{uci::UciMove, Chess, Position, Square};

/// The sensor square under the game's square on a board turned 180°.
fn half(sq: Square) -> String {
    let (f, r) = (sq.file() as u32, sq.rank() as u32);
    Square::from_coords((7 - f).try_into().unwrap(), (7 - r).try_into().unwrap()).to_string()
}

/// Colour-sensing steps: `before` played on a board lying right (2 s a
/// ply from 1 s), at 70 s every piece lifted and set down on the board
/// turned 180° (the same game squares), then `after` from 90 s.
fn turned_180(before: &[&str], after: &[&str]) -> String {
    let mut pos = Chess::default();
    let mut s = String::new();
    let play = |s: &mut String, pos: &mut Chess, t: u64, uci: &str, turned: bool| {
        let at = |sq: Square| if turned { half(sq) } else { sq.to_string() };
        let m = uci.parse::<UciMove>().unwrap().to_move(pos).unwrap();
        let (from, to) = (m.from().unwrap(), m.to());
        let by = if pos.turn().is_white() { "w" } else { "b" };
        if pos.board().piece_at(to).is_some() {
            *s += &format!("{t} lift {}\n", at(to));
        }
        *s += &format!(
            "{} lift {}\n{} place {} {by}\n{} press {by}\n",
            t + 100,
            at(from),
            t + 300,
            at(to),
            t + 600
        );
        pos.play_unchecked(m);
    };
    for (i, uci) in before.iter().enumerate() {
        play(&mut s, &mut pos, 1000 + 2000 * i as u64, uci, false);
    }
    let occupied: Vec<Square> = pos.board().occupied().into_iter().collect();
    let mut t = 70_000;
    for sq in occupied.iter().rev() {
        s += &format!("{t} lift {sq}\n");
        t += 10;
    }
    for sq in &occupied {
        let c = if pos.board().color_at(*sq).is_some_and(|c| c.is_white()) {
            "w"
        } else {
            "b"
        };
        s += &format!("{t} place {} {c}\n", half(*sq));
        t += 10;
    }
    for (i, uci) in after.iter().enumerate() {
        play(&mut s, &mut pos, 90_000 + 2000 * i as u64, uci, true);
    }
    s
}

/// 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d3 d6 6. Nbd2 a6 7. a4 h6
/// 8. h3 Be6 9. Bxe6 fxe6 10. b4 Ba7 11. Qb3 Qd7 12. a5 Ne7 13. Nc4 Ng6
/// 14. Be3 Bxe3 15. Nxe3, Black to move; then 15… Qe7 16. Qb2 Rb8.
const FIFTEEN: [&str; 29] = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "c2c3", "g8f6", "d2d3", "d7d6", "b1d2", "a7a6",
    "a2a4", "h7h6", "h2h3", "c8e6", "c4e6", "f7e6", "b2b4", "c5a7", "d1b3", "d8d7", "a4a5", "c6e7",
    "d2c4", "e7g6", "c1e3", "a7e3", "c4e3",
];

const ON: [&str; 3] = ["d7e7", "b3b2", "a8b8"];

/// Point 2 and 5: a board turned 180° at move 15. 2009 §2.1 "Skakbrættet
/// anbringes mellem spillerne så det nærmeste hjørnefelt til højre for
/// hver spiller er hvidt" holds of a board turned 180°, so it is no §7.1b
/// (2023 7.2.2) board "placed contrary to Article 2.1"; the pieces stand
/// on their squares, each player's own in front of him, so it is no
/// "colours reversed" either (2009 §7.2, 2023 7.3 — and 2023 7.3 has the
/// game continue after ten moves anyway): the game goes on, no illegal
/// move, no 7.3.
#[test]
fn s16_point_2_a_board_turned_180_at_move_15() {
    let steps = turned_180(&FIFTEEN, &ON);
    let quiet = [
        "illegal_move",
        "touch_move",
        "game_end",
        "irregularity.article=7.3",
        "irregularity.kind=colours_reversed",
        "irregularity.kind=displaced",
    ];
    let mut cases = Vec::new();
    for rules in ["fide-2023", "fide-2009", "fide-2009-no", "fide-2001"] {
        cases.push(case(
            "16-2a a board turned 180° at move 15",
            rules,
            hdr("5400+30", json!({"sensing": "colour"})),
            steps.clone(),
            &[
                "move.san=Nxe3",
                "irregularity.kind=board_turned",
                "irregularity.article=2.1",
                "move.san=Qe7",
                "move.san=Qb2",
                "move.san=Rb8",
            ],
            &quiet,
        ));
    }
    run(cases);
}

/// Point 6: the VI player Black copies White's O-O with the king only (the
/// rook left on h1), then makes his own Ra7. 2009 E2.7 "Hvis der under
/// partiet opstår forskellige stillinger på de to skakbrætter": the boards
/// differ on f1 and h1 only (2023 D.2.9), never his own move's squares, and
/// it is no §7.3 / 7.4 displacement.
#[test]
fn s16_point_6_a_castling_copied_without_its_rook() {
    let vi = json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "b",
                    "language": "da", "time_control": "5400+30",
                    "start_fen": "r3k3/8/8/8/8/8/8/4K2R w K - 0 1"});
    let steps = "1000 main lift e1\n1200 main place g1\n1400 main lift h1\n1600 main place f1\n2000 press w\n\
                 2500 tactile lift e1\n2800 tactile place g1\n3500 tactile lift a8\n3800 tactile place a7\n6000 press b";
    let mut cases = Vec::new();
    for (rules, art) in [
        ("fide-2009", "irregularity.article=E2.7"),
        ("fide-2023", "irregularity.article=D.2.9"),
    ] {
        cases.push(case(
            "16-6a E2.7 a castling copied without its rook",
            rules,
            vi.clone(),
            steps,
            &[
                "move.san=O-O",
                "irregularity.kind=boards_differ",
                "irregularity.squares=[\"f1\",\"h1\"]",
                art,
                "move.san=Ra7",
            ],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
    }
    run(cases);
}
