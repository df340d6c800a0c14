//! Whether a player can still checkmate by any legal sequence (§5.2b / 5.2.2
//! dead position; §6.9 loss on time; §7.4b / 7.5.5 the illegal-move
//! exception), with the `chasolver` helpmate solver (MIT).

use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode, Position};
use std::str::FromStr;

fn to_board(pos: &Chess) -> Option<chess::Board> {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    chess::Board::from_str(&fen).ok()
}

fn cha_color(c: Color) -> chess::Color {
    match c {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    }
}

/// Whether `winner` can checkmate by some sequence of legal moves (a
/// helpmate). `Some(false)` is proven; `None` when the solver could not
/// decide (the caller must then assume a mate is possible and leave the
/// decision to the arbiter).
pub fn can_mate(pos: &Chess, winner: Color) -> Option<bool> {
    if pos.has_insufficient_material(winner) {
        return Some(false);
    }
    let board = to_board(pos)?;
    if chasolver::is_unwinnable_fast(&board, cha_color(winner)) {
        return Some(false);
    }
    match chasolver::winnability(&board, cha_color(winner))? {
        chasolver::Winnability::Winnable { .. } => Some(true),
        chasolver::Winnability::Unwinnable => Some(false),
    }
}

/// Whether the position is dead: neither player can checkmate by any legal
/// sequence (§5.2b; 2023 5.2.2). Only proven cases count.
pub fn is_dead(pos: &Chess) -> bool {
    if pos.is_insufficient_material() {
        return true;
    }
    let Some(board) = to_board(pos) else {
        return false;
    };
    let proven = |c: Color| {
        chasolver::is_unwinnable_fast(&board, cha_color(c))
            || matches!(
                chasolver::winnability(&board, cha_color(c)),
                Some(chasolver::Winnability::Unwinnable)
            )
    };
    proven(Color::White) && proven(Color::Black)
}

/// Cheap dead-position test for the hot path after every move: proven by
/// the fast analysis of both sides.
pub fn is_dead_fast(pos: &Chess) -> bool {
    if pos.is_insufficient_material() {
        return true;
    }
    let Some(board) = to_board(pos) else {
        return false;
    };
    chasolver::is_unwinnable_fast(&board, chess::Color::White)
        && chasolver::is_unwinnable_fast(&board, chess::Color::Black)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn blocked_pawn_wall_is_dead() {
        // Scenario S65: W Ka1, pawns a4 c4 e4 g4; B Ka8, pawns a5 c5 e5 g5.
        let p = pos("k7/8/8/p1p1p1p1/P1P1P1P1/8/8/K7 w - - 0 1");
        assert!(is_dead(&p));
        assert_eq!(can_mate(&p, Color::White), Some(false));
    }

    #[test]
    fn a_forced_pawn_check_into_stalemate_is_dead() {
        // Found by tests/properties.rs: White's only move is a5+, and every
        // reply (a king move or Nxa5) leaves White stalemated (a6 blocks
        // the pawn, a2/b1/b2 are covered). With the knight off a6 the pawn
        // runs on and the position lives.
        let dead = pos("5r2/pn6/nk4p1/8/P3b3/b7/7r/K7 w - - 0 40");
        assert!(is_dead_fast(&dead) && is_dead(&dead));
        let alive = pos("5r2/pn6/1k4p1/8/P3b3/b7/7r/K7 w - - 0 40");
        assert!(!is_dead(&alive));
    }

    #[test]
    fn king_and_knight_can_be_helpmated_by_the_pawn_side() {
        // Scenario S63: White K+P oversteps, Black has K+N: Black can mate.
        let p = pos("8/8/8/8/8/2k5/1nP5/K7 w - - 0 1");
        assert_eq!(can_mate(&p, Color::Black), Some(true));
        assert_eq!(
            can_mate(&pos("8/8/8/8/8/2k5/8/K7 w - - 0 1"), Color::Black),
            Some(false)
        );
    }

    #[test]
    fn unwinnability_test_vectors() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/positions/cha_unwinnability_test_vectors.txt"
        );
        let Ok(text) = std::fs::read_to_string(path) else {
            if std::env::var_os("CI").is_some() {
                panic!("{path} absent under CI");
            }
            println!("skipped: {path} absent");
            return;
        };
        let (mut n, mut wrong, mut undecided) = (0, Vec::new(), 0);
        for line in text.lines().filter(|l| l.len() > 3 && !l.starts_with('#')) {
            let (label, fen) = line.split_at(2);
            let Ok(f) = fen.trim().parse::<Fen>() else {
                continue;
            };
            let Ok(p) = f.into_position::<Chess>(CastlingMode::Standard) else {
                continue;
            };
            n += 1;
            let want_w = label.as_bytes()[0] == b'W';
            let want_b = label.as_bytes()[1] == b'B';
            for (c, want) in [(Color::White, want_w), (Color::Black, want_b)] {
                match can_mate(&p, c) {
                    Some(got) if got != want => wrong.push(format!("{label} {c:?} {}", fen.trim())),
                    None => undecided += 1,
                    _ => {}
                }
            }
            if is_dead(&p) {
                assert!(
                    !want_w && !want_b,
                    "called dead but a side can mate: {line}"
                );
            }
        }
        println!(
            "{n} positions, {undecided} undecided, {} wrong",
            wrong.len()
        );
        assert!(n > 1700, "{n}");
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        assert!(undecided * 100 < n, "{undecided} undecided of {n}");
    }
}
