//! Reasons the arbiter can check (issue 40 point 7): why a draw claim on
//! the position on the board was rejected — the positions compared and
//! what differs between them (§9.2 / 9.2.2: positions are the same when
//! "the same player has the move, pieces of the same kind and colour
//! occupy the same squares and the possible moves of all the pieces of
//! both players are the same", i.e. the same castling rights and en
//! passant captures; 2009 §9.2 "Stillingerne … betragtes som ens, hvis den
//! samme spiller er i trækket, brikker af samme slags og farve står på de
//! samme felter, og alle brikkers mulige træk er de samme", seed 002) —
//! or the moves counted (§9.3 / 9.3.2).

use super::matter::side;
use super::Arbiter;
use crate::model::ClaimKind;
use shakmaty::{Color, EnPassantMode, Position, Square};

/// At most this many other positions with the same pieces are named.
const SHOWN: usize = 3;

impl Arbiter {
    /// Why `kind` does not hold on the position on the board now, in words
    /// the arbiter can check against the scoresheet.
    pub(super) fn claim_rejection_reason(&self, kind: ClaimKind) -> String {
        match kind {
            ClaimKind::Threefold => self.repetition_reason(),
            _ => {
                let h = self.pos.halfmoves();
                format!(
                    "{h} half-moves since the last pawn move or capture: the fifty moves of \
                     each player need 100 ({})",
                    self.cfg.profile.articles.fifty_moves
                )
            }
        }
    }

    /// Where position `i` of the game stood: `the start`, `after 6…Nf6`.
    fn stood_words(&self, i: usize) -> String {
        match (
            i,
            self.moves.get(i.wrapping_sub(1)),
            self.history.get(i.wrapping_sub(1)),
        ) {
            (0, _, _) => "at the start".to_owned(),
            (_, Some(m), Some(before)) => {
                let n = before.fullmoves();
                match m.by {
                    Color::White => format!("after {n}.{}", m.san),
                    Color::Black => format!("after {n}…{}", m.san),
                }
            }
            _ => format!("after ply {i}"),
        }
    }

    /// The threefold claim's reason: how often the position stands, where,
    /// and the positions with the same pieces that do not count, each with
    /// what differs (the player to move, a castling right, an en passant
    /// capture).
    fn repetition_reason(&self) -> String {
        let last = self.keys.len() - 1;
        let now = self.keys[last];
        let same: Vec<usize> = (0..last).filter(|i| self.keys[*i] == now).collect();
        let count = same.len() + 1;
        let mut s = match count {
            1 => "the position on the board stands for the first time".to_owned(),
            n => format!(
                "the position on the board stands for the {} time (also {})",
                if n == 2 { "second" } else { "third" },
                same.iter()
                    .map(|i| self.stood_words(*i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let board = self.pos.board();
        let others: Vec<(usize, Vec<String>)> = (0..last)
            .filter(|i| self.keys[*i] != now && self.history[*i].board() == board)
            .map(|i| (i, differences(&self.history[i], &self.pos)))
            .filter(|(_, d)| !d.is_empty())
            .collect();
        for (i, d) in others.iter().rev().take(SHOWN).rev() {
            s.push_str(&format!(
                "; {} the same pieces stood, not the same position: {}",
                self.stood_words(*i),
                d.join(", ")
            ));
        }
        s.push_str(&format!(" ({})", self.cfg.profile.articles.threefold));
        s
    }
}

/// What makes `then` another position than `now` with the same pieces
/// (§9.2 / 9.2.2): the player to move, the castling rights, the en
/// passant captures.
fn differences(then: &shakmaty::Chess, now: &shakmaty::Chess) -> Vec<String> {
    let mut v = Vec::new();
    if then.turn() != now.turn() {
        v.push(format!(
            "{} to move there, {} now",
            side(then.turn()),
            side(now.turn())
        ));
    }
    let (a, b) = (
        then.castles().castling_rights(),
        now.castles().castling_rights(),
    );
    for rook in (a ^ b).into_iter() {
        let had = a.contains(rook);
        v.push(format!(
            "{} castling {} with the rook {rook} {}",
            side(rook_colour(rook)),
            if rook.file() > shakmaty::File::E {
                "king-side"
            } else {
                "queen-side"
            },
            if had {
                "possible there, lost since"
            } else {
                "not possible there"
            }
        ));
    }
    let (ea, eb) = (
        then.ep_square(EnPassantMode::Legal),
        now.ep_square(EnPassantMode::Legal),
    );
    if ea != eb {
        if let Some(sq) = ea {
            v.push(format!("an en passant capture on {sq} possible there"));
        }
        if let Some(sq) = eb {
            v.push(format!("an en passant capture on {sq} possible now"));
        }
    }
    v
}

/// The colour whose castling right a rook square is (the first rank
/// White's).
fn rook_colour(sq: Square) -> Color {
    if sq.rank() == shakmaty::Rank::First {
        Color::White
    } else {
        Color::Black
    }
}

impl Arbiter {
    /// Why a game that ended drawn by the illegal-move rule (7.5.5, 2009
    /// §7.4b) or on time (6.9) is a draw and no win: the side that could
    /// not checkmate by any series of legal moves, and its material
    /// (issue 40 point 7); `None` for other ends.
    pub(super) fn no_mate_words(&self, o: &super::Outcome) -> Option<String> {
        use crate::model::{EndReason, KnownOutcome, Score};
        if o.result != Score::Game(KnownOutcome::Draw)
            || !matches!(o.reason, EndReason::IllegalMoves | EndReason::Time)
        {
            return None;
        }
        let words: Vec<String> = [Color::White, Color::Black]
            .into_iter()
            .filter(|c| super::dead::can_mate(&self.pos, *c) == Some(false))
            .map(|c| super::dead::cannot_mate_words(&self.pos, c))
            .collect();
        (!words.is_empty()).then(|| words.join("; "))
    }
}
