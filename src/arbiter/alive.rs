//! A cheap proof that the dead-position check after a move
//! ([`super::dead::is_dead_fast`]) answers "not dead" (issue 28: the check
//! skipped where it cannot find the position dead, with the same answer).
//!
//! The check is chasolver 3.0.0's fast analysis (`is_unwinnable_fast`) of
//! both sides: the position is dead only when both are proven unable to
//! mate. For one side (the "winner", analysed from White's side, Black by
//! the solver's mirror) that analysis answers `false` when all of these
//! hold, read off its source (`winnability/fast.rs`, pinned in Cargo.toml):
//!
//! 1. The player on move has at least two legal moves that are neither
//!    castling nor en passant, so no forced move is played first and the
//!    analysed board is this one.
//! 2. The winner's material is not what the solver counts as insufficient
//!    (`insufficient_white_material`: a bare king; king and knight against
//!    no minor piece, rook or pawn; only bishops, all bishops of the board
//!    on one colour, no knight, no pawn).
//! 3. Four quiet moves (no capture, no pawn, no promotion, no castling) go
//!    round: the player on move plays `a→b`, the opponent `c→d`, then `b→a`
//!    and `d→c`, each legal. The board and the player on move are then
//!    those of the start, so the cycle goes on for ever with the material
//!    unchanged: every depth of the solver's full-width search
//!    (`is_dynamically_unwinnable`, depths 4, 7 and 15) has a line ending
//!    on a position with a legal move and mating material, which that
//!    search reads as "may be winnable".
//! 4. The pawns are not a "blocked candidate": fewer of the winner's pawns
//!    stand blocked (a pawn or the king of the other side directly in front)
//!    than `max(1, pawns / 2 − 2)`, or some file has a pawn of one side
//!    only (not counting White's on the seventh rank, Black's on the
//!    second). The static analysis, the check chains and the exhaustive
//!    closure are tried only on blocked candidates.
//!
//! When any of these fails the solver is asked as before. A proof never
//! says more than the solver would: `tests` checks it against the solver
//! over the unwinnability vectors and real games.

use crate::legal;
use shakmaty::{attacks, Bitboard, Board, Chess, Color, Move, Position};

/// Whether the solver's fast analysis is sure to find the position not
/// dead (true: `is_dead_fast` would answer false). False means "ask the
/// solver", not "dead".
pub(super) fn surely_not_dead(pos: &Chess) -> bool {
    let board = pos.board();
    // A position whose side not on move is in check is the solver's to
    // refuse (it cannot build the board); leave it to the usual path.
    if let Some(k) = board.king_of(!pos.turn()) {
        if pos.king_attackers(k, pos.turn(), board.occupied()).any() {
            return false;
        }
    } else {
        return false;
    }
    let winners = [Color::White, Color::Black]
        .into_iter()
        .filter(|&c| !insufficient_for(board, c) && !blocked_candidate(board, c));
    let mut winners = winners.peekable();
    if winners.peek().is_none() {
        return false;
    }
    let legal = legal::legal_moves(pos);
    let normal = legal
        .iter()
        .filter(|m| matches!(m, Move::Normal { .. }))
        .count();
    // 1: two or more legal moves that both solvers see alike.
    if normal < 2 {
        return false;
    }
    // 3 (the same for either winner: the cycle is the board's).
    goes_round(pos, &legal)
}

/// A quiet move that can be played back: a piece other than a pawn moving
/// without capturing.
fn quiet(m: &Move) -> Option<Move> {
    match *m {
        Move::Normal {
            role,
            from,
            capture: None,
            to,
            promotion: None,
        } if role != shakmaty::Role::Pawn => Some(Move::Normal {
            role,
            from: to,
            capture: None,
            to: from,
            promotion: None,
        }),
        _ => None,
    }
}

/// Condition 3: `a→b`, `c→d`, `b→a`, `d→c`, each legal where it is played.
/// A few candidates are tried for each move (the proof is cheap or
/// abandoned); the replies are tried by their pieces' reach, each checked
/// for legality, without generating every move.
fn goes_round(pos: &Chess, legal: &[Move]) -> bool {
    for (m1, back1) in legal
        .iter()
        .filter_map(|m| quiet(m).map(|b| (*m, b)))
        .take(3)
    {
        let mut p1 = pos.clone();
        p1.play_unchecked(m1);
        for (m2, back2) in quiet_candidates(&p1).take(8) {
            if !quiet_legal(&p1, &m2) {
                continue;
            }
            let mut p2 = p1.clone();
            p2.play_unchecked(m2);
            if !quiet_legal(&p2, &back1) {
                continue;
            }
            p2.play_unchecked(back1);
            if quiet_legal(&p2, &back2) {
                return true;
            }
        }
    }
    false
}

/// Whether the quiet move `m` (a piece other than a pawn, no capture, no
/// promotion: [`quiet`]'s moves) is legal in `p`: shakmaty's `is_legal`
/// for such a move, without its move generation (issue 28). The piece of
/// the player on move stands on the from square, the to square is empty
/// and within the piece's reach, and after the move his king is not
/// attacked (a pin, a check not answered, a king moving into an attack).
fn quiet_legal(p: &Chess, m: &Move) -> bool {
    let Move::Normal {
        role,
        from,
        capture: None,
        to,
        promotion: None,
    } = *m
    else {
        return p.is_legal(*m);
    };
    if role == shakmaty::Role::Pawn {
        return p.is_legal(*m);
    }
    let board = p.board();
    let us = p.turn();
    let piece = shakmaty::Piece { color: us, role };
    let occupied = board.occupied();
    if board.piece_at(from) != Some(piece)
        || occupied.contains(to)
        || !attacks::attacks(from, piece, occupied).contains(to)
    {
        return false;
    }
    let after = occupied.without(from).with(to);
    let king = if role == shakmaty::Role::King {
        Some(to)
    } else {
        board.king_of(us)
    };
    king.is_some_and(|k| board.attacks_to(k, !us, after).is_empty())
}

/// The quiet moves of the pieces (not pawns) of the player on move by
/// their reach onto empty squares, with the move back; not yet checked for
/// legality.
fn quiet_candidates(p: &Chess) -> impl Iterator<Item = (Move, Move)> + '_ {
    let board = p.board();
    let occupied = board.occupied();
    (board.by_color(p.turn()) & !board.pawns())
        .into_iter()
        .flat_map(move |from| {
            let piece = board.piece_at(from);
            let reach = piece.map_or(Bitboard::EMPTY, |pc| {
                attacks::attacks(from, pc, occupied) & !occupied
            });
            reach.into_iter().filter_map(move |to| {
                let role = piece?.role;
                let m = Move::Normal {
                    role,
                    from,
                    capture: None,
                    to,
                    promotion: None,
                };
                quiet(&m).map(|back| (m, back))
            })
        })
}

/// Condition 2: chasolver's `insufficient_white_material`, for `winner`.
fn insufficient_for(board: &Board, winner: Color) -> bool {
    let ours = board.by_color(winner);
    let theirs = board.by_color(!winner);
    if ours.count() == 1 {
        return true;
    }
    let minors = board.knights() | board.bishops();
    if ours.count() == 2
        && (ours & board.knights()).any()
        && (theirs & (minors | board.rooks() | board.pawns())).is_empty()
    {
        return true;
    }
    let our_bishops = ours & board.bishops();
    if our_bishops.any() {
        let shade = if (Bitboard::DARK_SQUARES & our_bishops).any() {
            Bitboard::DARK_SQUARES
        } else {
            Bitboard::LIGHT_SQUARES
        };
        if ours.count() == our_bishops.count() + 1
            && (!shade & board.bishops()).is_empty()
            && board.knights().is_empty()
            && board.pawns().is_empty()
        {
            return true;
        }
    }
    false
}

/// Condition 4 fails: chasolver's `nb_blocked_pawns` reaches
/// `max(1, pawns / 2 − 2)` for `winner` and `has_lonely_pawns` is false.
fn blocked_candidate(board: &Board, winner: Color) -> bool {
    let white_pawns = (board.pawns() & board.white()).0;
    let black_pawns = (board.pawns() & board.black()).0;
    let blocked = match winner {
        Color::White => {
            ((white_pawns << 8) & (black_pawns | (board.kings() & board.black()).0)).count_ones()
        }
        Color::Black => {
            ((black_pawns >> 8) & (white_pawns | (board.kings() & board.white()).0)).count_ones()
        }
    };
    let pawns = board.pawns().count() as i32;
    let needed = (pawns / 2 - 2).max(1) as u32;
    blocked >= needed && !lonely_pawns(white_pawns, black_pawns)
}

/// chasolver's `has_lonely_pawns`: the files of White's pawns off the
/// seventh rank differ from those of Black's pawns off the second.
fn lonely_pawns(white: u64, black: u64) -> bool {
    const RANK_7: u64 = 0x00ff_0000_0000_0000;
    const RANK_2: u64 = 0x0000_0000_0000_ff00;
    files(white & !RANK_7) != files(black & !RANK_2)
}

/// The files (bit 0 = a) holding any square of `squares`.
fn files(squares: u64) -> u8 {
    let mut f = squares;
    f |= f >> 32;
    f |= f >> 16;
    f |= f >> 8;
    (f & 0xff) as u8
}

/// The second proof, for the positions the first leaves to the solver
/// because of blocked pawns (condition 4): there the fast analysis may run
/// its static analysis, about 2 M instructions a position. When the
/// analysis would get there for White (`static_likely`) and the solver's
/// helpmate search finds White a mate, the mate is replayed here move by
/// move; a mate that replays shows White can still mate, which the fast
/// analysis (sound: it proves only what is true) cannot deny, so the
/// position is not dead. Anything else: ask the solver as before.
pub(super) fn helpmate_shown(pos: &Chess, board: &chess::Board) -> bool {
    if !blocked_candidate(pos.board(), Color::White) || !static_likely(board) {
        return false;
    }
    match chasolver::winnability(board, chess::Color::White) {
        Some(chasolver::Winnability::Winnable { helpmate }) => mates(pos, &helpmate, Color::White),
        _ => false,
    }
}

/// Whether the fast analysis is likely to reach its static analysis for
/// White: its search's first line (the first legal move in the solver's
/// order, four plies, seven with only pawns and bishops) moves no queen,
/// rook or knight. An estimate of cost only: the proof does not rest on it.
fn static_likely(board: &chess::Board) -> bool {
    use chess::Piece;
    let heavy = *board.pieces(Piece::Queen) | *board.pieces(Piece::Rook);
    let depth = if (heavy | *board.pieces(Piece::Knight)).popcnt() == 0 {
        7
    } else {
        4
    };
    let mut b = *board;
    for _ in 0..depth {
        let Some(m) = chess::MoveGen::new_legal(&b).next() else {
            break;
        };
        if matches!(
            b.piece_on(m.get_source()),
            Some(Piece::Queen | Piece::Rook | Piece::Knight)
        ) {
            return false;
        }
        b = b.make_move_new(m);
    }
    true
}

/// Whether `line` (the solver's moves) is legal from `pos` and ends with
/// the side other than `winner` checkmated.
fn mates(pos: &Chess, line: &[chess::ChessMove], winner: Color) -> bool {
    use shakmaty::uci::UciMove;
    let square = |s: chess::Square| shakmaty::Square::new(s.to_index() as u32);
    let mut p = pos.clone();
    for m in line {
        let promotion = m.get_promotion().map(|r| match r {
            chess::Piece::Knight => shakmaty::Role::Knight,
            chess::Piece::Bishop => shakmaty::Role::Bishop,
            chess::Piece::Rook => shakmaty::Role::Rook,
            _ => shakmaty::Role::Queen,
        });
        let uci = UciMove::Normal {
            from: square(m.get_source()),
            to: square(m.get_dest()),
            promotion,
        };
        let Ok(mv) = uci.to_move(&p) else {
            return false;
        };
        p.play_unchecked(mv);
    }
    p.turn() == !winner && p.is_checkmate()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_legality_is_shakmatys() {
        // Every move `goes_round` asks about (the reach candidates of both
        // players and the moves back) in the positions of real games:
        // `quiet_legal` answers as shakmaty's `is_legal`.
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/pgn");
        let Ok(text) = std::fs::read_to_string(format!("{data}/twic1599_1110games.pgn")) else {
            assert!(std::env::var_os("CI").is_none(), "{data} absent under CI");
            return;
        };
        let mut asked = 0;
        let check = |p: &Chess, m: &Move, asked: &mut usize| {
            *asked += 1;
            assert_eq!(quiet_legal(p, m), p.is_legal(*m), "{m:?} in {p:?}");
        };
        for g in crate::pgn::read_games(&text).expect("PGN").iter().take(30) {
            let mut p = Chess::default();
            for m in &g.moves {
                let san: shakmaty::san::San = m.san.parse().expect("SAN");
                p.play_unchecked(san.to_move(&p).expect("legal"));
                for (m1, back1) in quiet_candidates(&p) {
                    check(&p, &m1, &mut asked);
                    if !p.is_legal(m1) {
                        continue;
                    }
                    let mut p1 = p.clone();
                    p1.play_unchecked(m1);
                    check(&p1, &back1, &mut asked);
                    for (m2, back2) in quiet_candidates(&p1).take(4) {
                        check(&p1, &m2, &mut asked);
                        check(&p1, &back2, &mut asked);
                    }
                }
            }
        }
        assert!(asked > 10_000, "{asked}");
    }
}
