//! Whether a player can still checkmate by any legal sequence (§5.2b / 5.2.2
//! dead position; §6.9 loss on time; §7.4b / 7.5.5 the illegal-move
//! exception), with the `chasolver` helpmate solver (MIT).

use shakmaty::{Chess, Color, EnPassantMode, Position, Role, Square};
use std::cell::RefCell;

/// The position as the solver's board, square by square (no FEN text in
/// between, issue 28): the pieces, the side to move, the castling rights
/// (the rook on its corner) and the en passant file when the capture is
/// legal, as the FEN with `EnPassantMode::Legal` gives them.
fn to_board(pos: &Chess) -> Option<chess::Board> {
    let mut b = chess::BoardBuilder::new();
    for (sq, piece) in pos.board().clone() {
        let role = match piece.role {
            Role::Pawn => chess::Piece::Pawn,
            Role::Knight => chess::Piece::Knight,
            Role::Bishop => chess::Piece::Bishop,
            Role::Rook => chess::Piece::Rook,
            Role::Queen => chess::Piece::Queen,
            Role::King => chess::Piece::King,
        };
        b.piece(
            chess::ALL_SQUARES[usize::from(sq)],
            role,
            cha_color(piece.color),
        );
    }
    b.side_to_move(cha_color(pos.turn()));
    let rights = pos.castles().castling_rights();
    for (c, king_side, queen_side) in [
        (Color::White, Square::H1, Square::A1),
        (Color::Black, Square::H8, Square::A8),
    ] {
        let r = match (rights.contains(king_side), rights.contains(queen_side)) {
            (true, true) => chess::CastleRights::Both,
            (true, false) => chess::CastleRights::KingSide,
            (false, true) => chess::CastleRights::QueenSide,
            (false, false) => chess::CastleRights::NoRights,
        };
        b.castle_rights(cha_color(c), r);
    }
    let ep = pos
        .ep_square(EnPassantMode::Legal)
        .map(|sq| chess::File::from_index(usize::from(sq.file())));
    b.en_passant(ep);
    chess::Board::try_from(&b).ok()
}

thread_local! {
    /// The last positions [`is_dead_fast`] answered: a move is checked when
    /// it is seen on the board and again when it is completed.
    static DEAD_FAST: RefCell<Vec<(Chess, bool)>> = const { RefCell::new(Vec::new()) };
}

fn cha_color(c: Color) -> chess::Color {
    match c {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    }
}

/// Why `side` cannot checkmate, in words the arbiter can check on the
/// board (issue 40 point 7): the material when it is insufficient by
/// itself ("White has only a king", "… a king and a knight"), else that no
/// sequence of legal moves ends in mate (the helpmate search,
/// [`can_mate`]), with the material.
pub fn cannot_mate_words(pos: &Chess, side: Color) -> String {
    use shakmaty::Role;
    let b = pos.board();
    let name = if side == Color::White {
        "White"
    } else {
        "Black"
    };
    let mut pieces = Vec::new();
    for (role, one, many) in [
        (Role::Queen, "a queen", "queens"),
        (Role::Rook, "a rook", "rooks"),
        (Role::Bishop, "a bishop", "bishops"),
        (Role::Knight, "a knight", "knights"),
        (Role::Pawn, "a pawn", "pawns"),
    ] {
        match (b.by_role(role) & b.by_color(side)).count() {
            0 => {}
            1 => pieces.push(one.to_owned()),
            n => pieces.push(format!("{n} {many}")),
        }
    }
    let material = match pieces.len() {
        0 => "only a king".to_owned(),
        _ => format!("a king and {}", pieces.join(", ")),
    };
    if pos.has_insufficient_material(side) {
        format!("{name} has {material}: no mate is possible with it")
    } else {
        format!("{name} has {material}, but no sequence of legal moves leads to mate here")
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
    if let Some(dead) =
        DEAD_FAST.with_borrow(|seen| seen.iter().find(|(p, _)| p == pos).map(|(_, dead)| *dead))
    {
        return dead;
    }
    // Most positions carry their own proof that the analysis below would
    // answer "not dead" (`alive.rs`): no solver, no board conversion.
    let dead = !super::alive::surely_not_dead(pos) && solver_dead_fast(pos);
    DEAD_FAST.with_borrow_mut(|seen| {
        if seen.len() >= 4 {
            seen.remove(0);
        }
        seen.push((pos.clone(), dead));
    });
    dead
}

/// The solver's fast analysis of both sides: proven dead. A position the
/// analysis would study at length is first given a helpmate search whose
/// mate, replayed, shows it alive (`alive::helpmate_shown`).
fn solver_dead_fast(pos: &Chess) -> bool {
    to_board(pos)
        .is_some_and(|board| !super::alive::helpmate_shown(pos, &board) && fast_both(&board))
}

/// chasolver's fast analysis: neither side can mate.
fn fast_both(board: &chess::Board) -> bool {
    chasolver::is_unwinnable_fast(board, chess::Color::White)
        && chasolver::is_unwinnable_fast(board, chess::Color::Black)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn the_solver_board_is_the_fen_s() {
        use std::str::FromStr;
        let mut fens = vec![
            "rnbqkbnr/pppp2pp/8/4pP2/8/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 3".to_owned(),
            "r3k2r/8/8/8/3pP3/8/8/R3K2R b Kq e3 0 1".to_owned(),
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2".to_owned(),
        ];
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/positions/cha_unwinnability_test_vectors.txt"
        );
        if let Ok(text) = std::fs::read_to_string(path) {
            fens.extend(
                text.lines()
                    .filter(|l| l.len() > 3 && !l.starts_with('#'))
                    .map(|l| l[2..].trim().to_owned()),
            );
        }
        let mut n = 0;
        for fen in &fens {
            let Ok(f) = fen.parse::<Fen>() else { continue };
            let Ok(p) = f.into_position::<Chess>(CastlingMode::Standard) else {
                continue;
            };
            let text = Fen::from_position(&p, EnPassantMode::Legal).to_string();
            let want = chess::Board::from_str(&text).ok();
            assert_eq!(to_board(&p), want, "{fen}");
            n += 1;
        }
        assert!(n >= 3);
    }

    /// The positions of the unwinnability vectors, every position one move
    /// on from a third of them, and the positions of the first `games`
    /// games of each real-game file (`None` when the data is absent outside
    /// CI).
    type Probes = (Vec<Chess>, Vec<Chess>, Vec<Chess>);
    fn probe_positions(games: usize) -> Option<Probes> {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data");
        let vectors = format!("{data}/positions/cha_unwinnability_test_vectors.txt");
        let Ok(text) = std::fs::read_to_string(&vectors) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "{vectors} absent under CI"
            );
            return None;
        };
        let (mut vectors, mut near) = (Vec::new(), Vec::new());
        let lines = text.lines().filter(|l| l.len() > 3 && !l.starts_with('#'));
        for (i, line) in lines.enumerate() {
            let Ok(f) = line[2..].trim().parse::<Fen>() else {
                continue;
            };
            let Ok(p) = f.into_position::<Chess>(CastlingMode::Standard) else {
                continue;
            };
            // One move on from every third vector (the test's time).
            for m in p.legal_moves().into_iter().filter(|_| i % 3 == 0) {
                let mut q = p.clone();
                q.play_unchecked(m);
                near.push(q);
            }
            vectors.push(p);
        }
        let mut played = Vec::new();
        for file in [
            "lichess_db_2025-05_438games.pgn",
            "twic1599_1110games.pgn",
            "engine_threefold_188games.pgn",
        ] {
            let text = std::fs::read_to_string(format!("{data}/pgn/{file}")).expect("the corpus");
            for g in crate::pgn::read_games(&text)
                .expect("PGN")
                .iter()
                .take(games)
            {
                let mut p = Chess::default();
                for m in &g.moves {
                    let san: shakmaty::san::San = m.san.parse().expect("SAN");
                    p.play_unchecked(san.to_move(&p).expect("legal"));
                    played.push(p.clone());
                }
            }
        }
        Some((vectors, near, played))
    }

    #[test]
    fn the_proof_of_life_never_contradicts_the_solver() {
        // `alive.rs` skips the solver only where it would answer "not
        // dead": checked against the solver itself on endgame vectors (and
        // one move on from each), and on real games, where it must spare the
        // solver most positions.
        let Some((vectors, near, played)) = probe_positions(40) else {
            return;
        };
        for (set, p) in [("vectors", &vectors), ("near", &near), ("games", &played)] {
            let mut proven = 0;
            for pos in p.iter() {
                let board = to_board(pos);
                // The helpmate search on the games only (on the endgame
                // vectors it takes minutes).
                let shown = |b: &chess::Board| {
                    set == "games" && super::super::alive::helpmate_shown(pos, b)
                };
                if super::super::alive::surely_not_dead(pos) || board.as_ref().is_some_and(shown) {
                    proven += 1;
                    assert!(
                        !board.as_ref().is_some_and(fast_both),
                        "proved alive, but the solver finds it dead: {}",
                        Fen::from_position(pos, EnPassantMode::Legal)
                    );
                }
            }
            println!("{set}: {proven} of {} positions proved alive", p.len());
            if set == "games" {
                assert!(proven * 10 >= p.len() * 9, "{proven} of {}", p.len());
            }
        }
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
