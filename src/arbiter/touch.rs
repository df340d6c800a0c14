//! §4 touch-move: the obligations that the touched and released pieces of
//! the player on move create, and whether the move played keeps them.
//!
//! Sources: 2009 §4.3a–c, §4.4a–d, §4.5, §4.6; 2001 §4.3–§4.5, §4.7;
//! 2023 4.3.1–4.3.3, 4.4.1–4.4.4, 4.5, 4.7 (`../shared/rules/digest.md` §2.3,
//! `fide-2023.md` §4). A Hall-sensor board sees a touch only when the piece
//! is lifted; a release is inferred from a piece staying on a square.

use crate::recognize::effect;
pub use crate::rules::TouchArticles;
use shakmaty::{Bitboard, Chess, Color, Move, Piece, Position, Role, Square};

/// A touched piece: lifted by the player on move (not as j'adoube).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touch {
    /// Where it stood.
    pub square: Square,
    /// The piece.
    pub piece: Piece,
    /// When it was lifted, ms.
    pub t: u64,
}

/// A piece of the player on move released on a square as (part of) a legal
/// move: it cannot go to another square on this move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// The piece's square at the start of the turn.
    pub from: Square,
    /// Where it was released.
    pub to: Square,
}

/// A broken obligation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Breach {
    /// The article.
    pub article: &'static str,
    /// The touched (or released) square whose obligation was broken.
    pub touched: Square,
}

/// The moves allowed by §4 and the article that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Obligation {
    /// The legal moves that keep the obligation.
    pub allowed: Vec<Move>,
    /// The article.
    pub article: &'static str,
    /// The square of the piece the obligation concerns.
    pub touched: Square,
}

/// Where `mv` takes the piece standing on `sq`, if it moves it.
pub fn destination(mv: &Move, sq: Square) -> Option<Square> {
    match *mv {
        Move::Castle { king, rook } => {
            let e = effect(mv, Color::White);
            let k_to = e.filled[0].map(|(s, _)| s);
            let r_to = e.filled[1].map(|(s, _)| s);
            if sq == king {
                k_to
            } else if sq == rook {
                r_to
            } else {
                None
            }
        }
        _ => (mv.from() == Some(sq)).then(|| mv.to()),
    }
}

fn captures_of(legal: &[Move], target: Square, pos: &Chess) -> Vec<Move> {
    legal
        .iter()
        .filter(|m| {
            m.is_capture()
                && match m {
                    Move::EnPassant { from, to } => {
                        Square::from_coords(to.file(), from.rank()) == target
                    }
                    _ => m.to() == target && pos.board().piece_at(target).is_some(),
                }
        })
        .copied()
        .collect()
}

fn moves_of(legal: &[Move], sq: Square) -> Vec<Move> {
    legal
        .iter()
        .filter(|m| destination(m, sq).is_some())
        .copied()
        .collect()
}

/// Orders the touches as §4.3c and §4.4c read them: touches inside
/// `window_ms` of each other count as simultaneous, the own piece first, and
/// a king before a rook.
pub fn order(touches: &[Touch], side: Color, window_ms: u64) -> Vec<Touch> {
    let mut out: Vec<Touch> = touches.to_vec();
    out.sort_by_key(|x| x.t);
    // Within a window, own before opponent; king before rook.
    let rank = |x: &Touch| -> u8 {
        match (x.piece.color == side, x.piece.role) {
            (true, Role::King) => 0,
            (true, _) => 1,
            (false, _) => 2,
        }
    };
    let mut i = 0;
    while i < out.len() {
        let mut j = i + 1;
        while j < out.len() && out[j].t.saturating_sub(out[i].t) <= window_ms {
            j += 1;
        }
        out[i..j].sort_by_key(|x| (rank(x), x.t));
        i = j;
    }
    out
}

/// The obligation the touches create in `pos` (§4.3–§4.5), if any.
pub fn obligation(pos: &Chess, touches: &[Touch], a: &TouchArticles) -> Option<Obligation> {
    let side = pos.turn();
    // Generated once per position (`crate::legal`, issue 28).
    let legal = crate::legal::legal_moves(pos);
    let own: Vec<&Touch> = touches.iter().filter(|x| x.piece.color == side).collect();
    let opp: Vec<&Touch> = touches.iter().filter(|x| x.piece.color != side).collect();
    let king = own.iter().position(|x| x.piece.role == Role::King);
    let rook = own.iter().position(|x| x.piece.role == Role::Rook);
    // §4.4: king and rook.
    if let (Some(k), Some(r)) = (king, rook) {
        let (ksq, rsq) = (own[k].square, own[r].square);
        let castle: Vec<Move> = legal
            .iter()
            .filter(|m| matches!(m, Move::Castle { king, rook } if *king == ksq && *rook == rsq))
            .copied()
            .collect();
        if k < r {
            if !castle.is_empty() {
                return Some(Obligation {
                    allowed: castle,
                    article: a.king_rook,
                    touched: ksq,
                });
            }
            let king_moves = moves_of(&legal, ksq);
            if !king_moves.is_empty() {
                return Some(Obligation {
                    allowed: king_moves,
                    article: a.castling_illegal,
                    touched: ksq,
                });
            }
            return None;
        }
        // Rook first: castling on that side barred; §4.3a governs.
        let not_castle: Vec<Move> = legal
            .iter()
            .filter(|m| !matches!(m, Move::Castle { rook, .. } if *rook == rsq))
            .copied()
            .collect();
        for t in &own {
            let ms = moves_of(&not_castle, t.square);
            if !ms.is_empty() {
                return Some(Obligation {
                    allowed: ms,
                    article: if castle.is_empty() {
                        a.own
                    } else {
                        a.rook_king
                    },
                    touched: t.square,
                });
            }
        }
        return None;
    }
    // §4.3c: pieces of both colours.
    if let (Some(o), Some(x)) = (own.first(), opp.first()) {
        let with_own: Vec<Move> = captures_of(&legal, x.square, pos)
            .into_iter()
            .filter(|m| destination(m, o.square).is_some())
            .collect();
        if !with_own.is_empty() {
            return Some(Obligation {
                allowed: with_own,
                article: a.both,
                touched: x.square,
            });
        }
        for t in touches {
            let ms = if t.piece.color == side {
                moves_of(&legal, t.square)
            } else {
                captures_of(&legal, t.square, pos)
            };
            if !ms.is_empty() {
                return Some(Obligation {
                    allowed: ms,
                    article: a.both,
                    touched: t.square,
                });
            }
        }
        return None;
    }
    // §4.3a: own pieces only.
    for t in &own {
        let ms = moves_of(&legal, t.square);
        if !ms.is_empty() {
            return Some(Obligation {
                allowed: ms,
                article: a.own,
                touched: t.square,
            });
        }
    }
    // §4.3b: opponent's pieces only.
    for t in &opp {
        let ms = captures_of(&legal, t.square, pos);
        if !ms.is_empty() {
            return Some(Obligation {
                allowed: ms,
                article: a.opponent,
                touched: t.square,
            });
        }
    }
    // §4.5: nothing touched can move or be captured.
    None
}

/// The other pieces moved this turn (`placed`: origin, square, time set
/// down, ms) that count with a piece set down at `placed_t` ms: those set
/// down before it was released (`release_ms` later). A piece released as
/// a legal move stays released whatever is moved after it.
pub fn moved_with(
    placed: &[(Square, Square, u64)],
    placed_t: u64,
    release_ms: u64,
) -> Vec<(Square, Square)> {
    placed
        .iter()
        .filter(|p| p.2 <= placed_t.saturating_add(release_ms))
        .map(|p| (p.0, p.1))
        .collect()
}

/// Whether the piece from `from` set down on `to` is a legal move or part
/// of one **together with** the other pieces the player has moved this
/// turn and left standing (`others`: origin, square; a piece put back on
/// its own square is none): 2009 §4.6 "Når, som et lovligt træk eller en
/// del af et lovligt træk, en brik er blevet sluppet på et felt" (2023
/// 4.7, 2001 §4.7). A rook set down on f8 after the king went to g8 in a
/// castling through check is part of that castling, which is no legal
/// move; it is not the legal Rf8 (held-out 18-7j/k: the replacement of the
/// illegal castling was bound to Rf8).
pub fn is_legal_release_among(
    pos: &Chess,
    from: Square,
    to: Square,
    others: &[(Square, Square)],
) -> bool {
    pos.legal_moves().iter().any(|m| {
        destination(m, from) == Some(to)
            && others
                .iter()
                .filter(|(f, t)| f != t && *f != from)
                .all(|(f, t)| destination(m, *f) == Some(*t))
    })
}

/// Checks the move played against the touches, the releases and the
/// promotion piece first placed. `first_promotion` is the role of the
/// first new piece that touched the promotion square, when known.
pub fn check(
    pos: &Chess,
    touches: &[Touch],
    releases: &[Release],
    first_promotion: Option<Role>,
    played: &Move,
    a: &TouchArticles,
) -> Option<Breach> {
    // §4.6 / 4.7: a piece released on a square as a legal move stays there.
    for r in releases {
        if destination(played, r.from) != Some(r.to) {
            return Some(Breach {
                article: a.released,
                touched: r.from,
            });
        }
    }
    // §4.4d / 4.4.4: the promotion piece is final once it touched the square.
    if let (Some(article), Some(first), Some(role)) =
        (a.promotion_final, first_promotion, played.promotion())
    {
        if first != role {
            return Some(Breach {
                article,
                touched: played.to(),
            });
        }
    }
    // Nothing touched, or only the piece the (legal) move moves: the
    // obligation (§4.3a) is that piece's moves, which the move keeps; no
    // moves to look through.
    match touches {
        [] => return None,
        [t] if t.piece.color == pos.turn()
            && destination(played, t.square).is_some()
            && crate::legal::is_legal(pos, played) =>
        {
            return None
        }
        _ => {}
    }
    let ob = obligation(pos, touches, a)?;
    if ob.allowed.contains(played) {
        None
    } else {
        Some(Breach {
            article: ob.article,
            touched: ob.touched,
        })
    }
}

/// Squares of the pieces of `side` in `pos` (the pieces a lift can touch).
pub fn own_squares(pos: &Chess, side: Color) -> Bitboard {
    pos.board().by_color(side)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{fen::Fen, CastlingMode};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn touch(p: &Chess, sq: &str, t: u64) -> Touch {
        let square: Square = sq.parse().unwrap();
        Touch {
            square,
            piece: p.board().piece_at(square).unwrap(),
            t,
        }
    }

    fn mv(p: &Chess, uci: &str) -> Move {
        uci.parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(p)
            .unwrap()
    }

    const A: TouchArticles = TouchArticles::FIDE_2009;

    fn breach(p: &Chess, touches: &[Touch], played: &str) -> Option<&'static str> {
        let ordered = order(touches, p.turn(), 200);
        check(p, &ordered, &[], None, &mv(p, played), &A).map(|b| b.article)
    }

    #[test]
    fn a_release_counts_only_with_the_other_pieces_moved_that_turn() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        // Black may castle short, but the rook f1 attacks f8: the rook set
        // down on f8 after the king went to g8 is part of that illegal
        // castling, not the legal Rf8 (held-out 18-7j/k).
        let through = pos("4k2r/8/8/8/8/8/8/K4R2 b k - 0 1");
        let king = (sq("e8"), sq("g8"));
        assert!(!is_legal_release_among(
            &through,
            sq("h8"),
            sq("f8"),
            &[king]
        ));
        // Alone it is the legal Rf8.
        assert!(is_legal_release_among(&through, sq("h8"), sq("f8"), &[]));
        // A legal castling: each piece is part of it together with the other.
        let open = pos("4k2r/8/8/8/8/8/8/K7 b k - 0 1");
        assert!(is_legal_release_among(&open, sq("h8"), sq("f8"), &[king]));
        assert!(is_legal_release_among(
            &open,
            sq("e8"),
            sq("g8"),
            &[(sq("h8"), sq("f8"))]
        ));
        // The king released on g8 alone: part of the legal castling.
        assert!(is_legal_release_among(&open, sq("e8"), sq("g8"), &[]));
        // Only the pieces set down before the release count with it: the
        // king set down at 1.2 s, the rook at 1.6 s; a piece set down 2 s
        // after the rook was released does not.
        let placed = [(sq("e8"), sq("g8"), 1200), (sq("a1"), sq("a2"), 3700)];
        assert_eq!(moved_with(&placed, 1600, 2000), vec![king]);
        // A piece put back on its own square is no other move.
        assert!(is_legal_release_among(
            &open,
            sq("h8"),
            sq("g8"),
            &[(sq("e8"), sq("e8"))]
        ));
    }

    #[test]
    fn s01_s03_own_piece() {
        let p = Chess::default();
        assert_eq!(breach(&p, &[touch(&p, "g1", 0)], "e2e4"), Some("4.3a"));
        assert_eq!(breach(&p, &[touch(&p, "g1", 0)], "g1f3"), None);
        // Bc1 cannot move: the obligation passes to Ng1.
        assert_eq!(
            breach(&p, &[touch(&p, "c1", 0), touch(&p, "g1", 900)], "g1f3"),
            None
        );
        assert_eq!(
            breach(&p, &[touch(&p, "c1", 0), touch(&p, "g1", 900)], "e2e4"),
            Some("4.3a")
        );
    }

    #[test]
    fn s05_s06_opponent_piece() {
        let p = pos("rnbqkb1r/pppp1ppp/5n2/4P3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 1 3");
        assert_eq!(breach(&p, &[touch(&p, "f6", 0)], "h2h3"), Some("4.3b"));
        assert_eq!(breach(&p, &[touch(&p, "f6", 0)], "e5f6"), None);
        // Qd8 cannot be captured: any move.
        assert_eq!(breach(&p, &[touch(&p, "d8", 0)], "h2h3"), None);
    }

    #[test]
    fn s07_s09_s10_both_colours() {
        let p = pos("r1bqkbnr/pppp1ppp/2n5/4p3/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 0 3");
        let nf3_e5 = [touch(&p, "f3", 0), touch(&p, "e5", 900)];
        assert_eq!(breach(&p, &nf3_e5, "f3e5"), None);
        assert_eq!(breach(&p, &nf3_e5, "d4e5"), Some("4.3c"));
        // Simultaneous, opponent's piece first by a few ms: own counts first.
        let sim = [touch(&p, "e5", 0), touch(&p, "f3", 50)];
        assert_eq!(breach(&p, &sim, "d4e5"), Some("4.3c"));
        // S09: d5 first, then Nf3 which cannot take it: capture d5 with anything.
        let q = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 2");
        let d5_f3 = [touch(&q, "d5", 0), touch(&q, "f3", 900)];
        assert_eq!(breach(&q, &d5_f3, "e4d5"), None);
        assert_eq!(breach(&q, &d5_f3, "f3g5"), Some("4.3c"));
    }

    #[test]
    fn s15_s17_king_and_rook() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let kr = [touch(&p, "e1", 0), touch(&p, "h1", 900)];
        assert_eq!(breach(&p, &kr, "e1g1"), None);
        assert_eq!(breach(&p, &kr, "e1f1"), Some("4.4a"));
        let rk = [touch(&p, "h1", 0), touch(&p, "e1", 900)];
        assert_eq!(breach(&p, &rk, "e1g1"), Some("4.4b"));
        assert_eq!(breach(&p, &rk, "h1f1"), None);
        // f1 attacked: castling illegal, another king move (queenside counts).
        let q = pos("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1");
        let kr = [touch(&q, "e1", 0), touch(&q, "h1", 900)];
        assert_eq!(breach(&q, &kr, "e1c1"), None);
        assert_eq!(breach(&q, &kr, "a1a8"), Some("4.4c"));
    }

    #[test]
    fn s22_released_piece_stays() {
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2");
        let r = [Release {
            from: Square::B1,
            to: Square::D2,
        }];
        let t = [touch(&p, "b1", 0)];
        let b = check(&p, &t, &r, None, &mv(&p, "b1c3"), &A).unwrap();
        assert_eq!(b.article, "4.6");
        assert!(check(&p, &t, &r, None, &mv(&p, "b1d2"), &A).is_none());
        let b01 = check(&p, &t, &r, None, &mv(&p, "b1c3"), &TouchArticles::FIDE_2001).unwrap();
        assert_eq!(b01.article, "4.7");
    }

    #[test]
    fn s29_s30_promotion_piece_final() {
        let p = pos("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
        let t = [touch(&p, "a7", 0)];
        let played = mv(&p, "a7a8n");
        assert_eq!(
            check(&p, &t, &[], Some(Role::Queen), &played, &A).map(|b| b.article),
            Some("4.4d")
        );
        assert_eq!(
            check(
                &p,
                &t,
                &[],
                Some(Role::Queen),
                &played,
                &TouchArticles::FIDE_2001
            ),
            None
        );
    }
}
