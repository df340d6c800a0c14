//! An illegal move made and not pressed, then replied to (issue 25,
//! point 1): the readings whose first move is illegal (`unpressed.rs`
//! finds them) and what the profile does with them: the move stands where
//! only a claim before the opponent's own move counts (2009 A4c / B3c,
//! 2001 C3, 2023 A.5.2), or it is ruled when made (2001 §7.4a) or completed
//! (2009 §7.4a, 2023 7.5.1) where the arbiter rules. Texts and readings:
//! docs/profiles.md, "An illegal move made and not pressed".

use super::announce::Decisions;
use super::hand::Turn;
use super::unpressed::{split_first, Reading};
use super::Arbiter;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, Move, Position, Role, Square};

impl Arbiter {
    /// The illegal first moves the hand shows: the player's first piece
    /// carried and set down (or his king and rook: a castling), played on
    /// the last completed position without the legality check, as
    /// `played_unchecked` reads a pressed one (`illegal.rs`). Only moves
    /// that are not legal there; never a king taken.
    pub(super) fn illegal_starts(&self) -> Vec<(Chess, Vec<Move>)> {
        let mover = self.pos.turn();
        let b = self.pos.board();
        let own: Vec<(Square, Square)> = self
            .turn
            .placed
            .iter()
            .filter(|(from, _, _)| b.color_at(*from) == Some(mover))
            .map(|(from, to, _)| (*from, *to))
            .collect();
        let mut candidates = Vec::new();
        if let Some(&(from, to)) = own.first() {
            if let Some(piece) = b.piece_at(from).filter(|_| b.color_at(to) != Some(mover)) {
                candidates.push(Move::Normal {
                    role: piece.role,
                    from,
                    capture: b.role_at(to),
                    to,
                    promotion: None,
                });
                if piece.role == Role::Pawn && from.file() != to.file() && b.piece_at(to).is_none()
                {
                    candidates.push(Move::EnPassant { from, to });
                }
            }
        }
        if let [(a, _), (c, _), ..] = own[..] {
            let king = [a, c]
                .into_iter()
                .find(|s| b.role_at(*s) == Some(Role::King));
            let rook = [a, c]
                .into_iter()
                .find(|s| b.role_at(*s) == Some(Role::Rook));
            if let (Some(king), Some(rook)) = (king, rook) {
                candidates.push(Move::Castle { king, rook });
            }
        }
        let legal = self.pos.legal_moves();
        candidates
            .into_iter()
            .filter(|m| !legal.contains(m) && m.capture() != Some(Role::King))
            .map(|m| {
                let mut q = self.pos.clone();
                q.play_unchecked(m);
                (q, vec![m])
            })
            .collect()
    }

    /// A series whose first move is illegal, made and not pressed, then
    /// replied to (`side` pressed; `behind`: the offender pressed after the
    /// reply was made). `true` when the press was taken here.
    ///
    /// - Where only a claim before the opponent's own move counts
    ///   ([`Profile::unpressed_illegal_stands_after_reply`]): the reply was
    ///   made, so no claim can come and nothing is ruled; the illegal move
    ///   stands and the game goes on from the position on the board, the
    ///   clocks as the real clock runs. But 2009 A4c's own exception (an
    ///   incomplete promotion, both kings in check) is ruled unasked.
    /// - Where the arbiter rules (§7.4a / 7.5.1): at the first press that
    ///   shows it in 2001 ("gjort", made), at the offender's own press in
    ///   2009 / 2023 (completed); until then nothing is completed and the
    ///   press changes nothing. The ruling reinstates the position
    ///   immediately before the illegal move (the reply goes with it) and
    ///   the offender's touches of it bind its replacement.
    ///
    /// [`Profile::unpressed_illegal_stands_after_reply`]: crate::rules::Profile::unpressed_illegal_stands_after_reply
    pub(super) fn illegal_series(
        &mut self,
        r: Reading,
        side: Color,
        behind: bool,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        let Some(&mv) = r.moves.first() else {
            return false;
        };
        let p = self.cfg.profile;
        let offender = self.pos.turn();
        let mut after = self.pos.clone();
        after.play_unchecked(mv);
        let last_rank = match offender {
            Color::White => shakmaty::Rank::Eighth,
            Color::Black => shakmaty::Rank::First,
        };
        let incomplete_promotion =
            mv.role() == Role::Pawn && mv.to().rank() == last_rank && !mv.is_promotion();
        let listed = incomplete_promotion || super::illegal::both_kings_in_check(after.board());
        let unasked = p.illegal_positions_ruled_unasked && listed;
        if p.unpressed_illegal_stands_after_reply() && !unasked {
            tracing::info!(
                t,
                by = crate::model::side_name(offender),
                "an illegal move made and not pressed was replied to: it stands"
            );
            if behind {
                self.complete_behind(r, t, out);
            } else {
                self.complete_series(r, side, t, out);
                self.draw_if_still_illegal(t, out);
            }
            return true;
        }
        if !(p.illegal_ruled_when_made() || unasked || side == offender) {
            // Not completed before the offender's press (2009 §6.7a / §7.4a,
            // 2023 7.5.1): his clock runs on; nothing to apply yet.
            return false;
        }
        if incomplete_promotion
            && p.unreplaced_pawn_becomes_queen
            && self.queen_for_unreplaced_pawn(&r, behind, t, out)
        {
            return true;
        }
        let a = p.articles;
        let (mine, _) = split_first(&self.turn, &self.pos, &mv);
        let releases = if p.release_binds_replacement {
            self.turn
                .releases
                .iter()
                .filter(|x| self.pos.board().color_at(x.from) == Some(offender))
                .copied()
                .collect()
        } else {
            Vec::new()
        };
        let mut differs = Bitboard::from_square(mv.to());
        if let Some(from) = mv.from() {
            differs.add(from);
        }
        let pending = super::illegal::PendingIllegal {
            by: offender,
            article: p.article_illegal_ruled(
                if incomplete_promotion {
                    a.incomplete_promotion
                } else {
                    a.illegal_move
                },
                unasked,
            ),
            differs,
            before: self.pos.clone(),
            stood: false,
            on_board: after.board().clone(),
            turn: Turn {
                touches: mine,
                releases,
                ..Turn::default()
            },
            reply: None,
            queen: None,
        };
        self.rule_illegal(pending, None, t, out);
        true
    }

    /// 2023 7.5.2, a pawn left on the furthest rank, completed by the
    /// offender's press after his opponent's reply was made (6.2.2), or by
    /// his next move made (6.2.1.2): "If during a game it is found that a
    /// pawn has been moved to the furthest distant rank, the player has
    /// pressed the clock, but the pawn has not been replaced with a new
    /// piece, the move is illegal. The pawn shall be replaced by a queen of
    /// the same colour as the pawn." The text replaces the pawn; it
    /// reinstates nothing, so the moves made after it stand when they are
    /// legal on the position with the queen: the illegal move is penalised
    /// (7.5.5), the promotion to a queen completed, the reply left made
    /// to its own press (or, with the offender's next move on the board, the
    /// reply made and his move completed by the press). `false` (nothing
    /// done) when the three moves are no legal series once the pawn is a
    /// queen: then the position before is reinstated (7.5.1), as
    /// docs/profiles.md says.
    fn queen_for_unreplaced_pawn(
        &mut self,
        r: &Reading,
        behind: bool,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        let Some(&Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion: None,
        }) = r.moves.first()
        else {
            return false;
        };
        let queen = Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion: Some(Role::Queen),
        };
        if !self.pos.is_legal(queen) {
            return false;
        }
        // The later moves, read again on the position with the queen (a
        // capture on the promotion square takes a queen, not a pawn). With
        // the offender's press behind the reply, the reply is only made: it
        // stays on the board and is judged at its own press (a reply that
        // is no legal move once the pawn is a queen is then an illegal
        // move of its own, completed by that press).
        let mut p = self.pos.clone();
        p.play_unchecked(queen);
        let mut moves = vec![queen];
        for m in r.moves[1..].iter().filter(|_| !behind) {
            let uci = UciMove::from_move(*m, CastlingMode::Standard);
            let Ok(m) = uci.to_move(&p) else {
                return false;
            };
            if m.capture() == Some(Role::King) {
                return false;
            }
            p.play_unchecked(m);
            moves.push(m);
        }
        let offender = self.pos.turn();
        let article = self.cfg.profile.articles.incomplete_promotion;
        let differs = Bitboard::from_square(from) | Bitboard::from_square(to);
        tracing::info!(
            t,
            by = crate::model::side_name(offender),
            "a pawn left on the furthest rank, completed after the reply: replaced by a queen"
        );
        if self.penalise_illegal(offender, article, differs, None, t, out) {
            return true;
        }
        if behind {
            moves.extend(r.moves.get(1).copied());
        }
        let reading = Reading {
            moves,
            promotion_assumed: false,
            illegal_first: false,
        };
        if behind {
            self.complete_behind(reading, t, out);
        } else {
            self.complete_series(reading, offender, t, out);
        }
        if self.ended() {
            return true;
        }
        // The board still shows the pawn: the arbiter's ruling made it a
        // queen (identity sensing reads the queen there from now on).
        for slot in &mut self.boards {
            if slot.sensed.piece_at(to).map(|x| (x.role, x.color)) == Some((Role::Pawn, offender)) {
                let queen = shakmaty::Piece {
                    color: offender,
                    role: Role::Queen,
                };
                slot.sensed.apply(
                    crate::board::Change::Place(to, Some(offender), Some(queen)),
                    t,
                );
            }
        }
        let bonus = self.cfg.profile.illegal_move_bonus_ms as i64;
        if let Some(c) = self.clock.as_mut() {
            c.adjust(!offender, bonus);
        }
        self.push_clock(t, out);
        true
    }

    /// 2023 A.5.4: the illegal position the board alerted, while it is
    /// still on the board and the game goes on: the arbiter declares the
    /// draw ("If an illegal position is still on the board, he/she declares
    /// a draw").
    pub(super) fn open_illegal_position(&self) -> Option<super::matter::OpenMatter> {
        let al = self.alerts.iter().rev().find(|a| {
            matches!(
                a.event.kind,
                crate::trace::EventKind::Irregularity {
                    kind: crate::model::IrregularityKind::IllegalPosition,
                    ..
                }
            )
        })?;
        let crate::trace::EventKind::Irregularity {
            article, squares, ..
        } = &al.event.kind
        else {
            return None;
        };
        let now = illegal_position_squares(shakmaty::Position::board(&self.pos));
        if self.ended() || now.is_empty() || self.answered("irregularity", al.t) {
            return None;
        }
        let on = squares.join(", ");
        Some(super::matter::OpenMatter {
            kind: "irregularity",
            t: al.t,
            by: None,
            summary: format!(
                "an illegal position is still on the board after the next move ({on}): the \
                 arbiter declares the draw ({article})"
            ),
            rulings: vec![super::matter::ruling(
                "result",
                serde_json::json!({
                    "result": "1/2-1/2",
                    "article": article,
                    "reason": format!(
                        "an illegal position still on the board after the next move ({on})"
                    ),
                }),
                &format!("Declare the draw ({article})"),
                format!("the game is drawn ({article}): an illegal position ({on}) is still on the board after the next move"),
            )],
        })
    }

    /// 2023 A.5.4: an illegal position (both kings in check, a pawn on the
    /// furthest rank) still on the board once the next move is completed:
    /// "If an illegal position is still on the board, he/she declares a
    /// draw" — the arbiter. The board alerts him (`irregularity`
    /// `illegal_position`, the squares named) and he declares it (`result`
    /// under A.5.4, [`crate::rules::DeclaredGround::IllegalPosition`]); as
    /// the arbiter's eye (`[event] board_observes_illegal_moves`) it
    /// declares the draw itself, which the arbiter can withdraw.
    pub(super) fn draw_if_still_illegal(&mut self, t: u64, out: &mut Decisions) {
        let p = self.cfg.profile;
        let Some(article) = p.article_illegal_position_draw() else {
            return;
        };
        if self.ended() {
            return;
        }
        let squares = illegal_position_squares(self.pos.board());
        if squares.is_empty() {
            return;
        }
        if p.board_observes_illegal_moves {
            self.end(
                crate::model::KnownOutcome::Draw,
                crate::model::EndReason::ArbiterDecision,
                article,
                t,
                out,
            );
        } else {
            tracing::warn!(
                article,
                ?squares,
                "an illegal position is still on the board after the next move: the arbiter \
                 declares the draw"
            );
            out.push(crate::trace::Event {
                t,
                kind: crate::trace::EventKind::Irregularity {
                    kind: crate::model::IrregularityKind::IllegalPosition,
                    article,
                    squares: squares.iter().map(ToString::to_string).collect(),
                },
            });
        }
    }

    /// Records an illegal move that stands (no claim can come any more):
    /// played without the legality check, kept in the record as
    /// `illegal: true` with its long form (`Be2-d3`) and no `move` event,
    /// as a pressed one that stood (`illegal.rs`). `pressed`: completed
    /// now by its player's press (the clock switches); otherwise made
    /// without a press (his clock runs on, counted at his next press).
    pub(super) fn stand_illegal(&mut self, mv: Move, pressed: bool, t: u64, out: &mut Decisions) {
        let by = self.pos.turn();
        let text = long_form(&self.pos, &mv);
        self.pos.play_unchecked(mv);
        let i = super::ci(by);
        let clock_ms = self.clock.as_mut().map(|c| {
            if pressed {
                c.press(by, t);
                for _ in 0..std::mem::take(&mut self.unpressed[i]) {
                    c.count_move(by);
                }
            } else {
                self.unpressed[i] += 1;
            }
            let (w, b) = c.remaining_at(t);
            if by == Color::White {
                w
            } else {
                b
            }
        });
        self.setup_log = None;
        self.setup = super::setup::SetUp::Done;
        self.history.push(self.pos.clone());
        self.keys.push(super::key(&self.pos));
        self.moves.push(super::PlayedMove {
            san: text,
            uci: String::new(),
            by,
            t,
            clock_ms,
            clocks: self.clock.as_ref().map(|c| c.remaining_at(t)),
            illegal: true,
        });
        if pressed {
            self.push_clock(t, out);
        }
        if self.pending_illegal.as_ref().is_some_and(|p| p.by != by) {
            self.pending_illegal = None;
        }
        self.turn = Turn::default();
    }
}

/// The long form of a move as the hand made it (`Be2-d3`, `Ke1-g1 Rh1-f1`,
/// `b7-b8`), for a move kept in the record that is no legal move.
fn long_form(pos: &Chess, mv: &Move) -> String {
    let b = pos.board();
    let one = |from: Square, to: Square| {
        let letter = match b.role_at(from) {
            Some(Role::Pawn) | None => String::new(),
            Some(r) => r.upper_char().to_string(),
        };
        let x = if b
            .piece_at(to)
            .is_some_and(|p| Some(p.color) != b.color_at(from))
        {
            "x"
        } else {
            "-"
        };
        format!("{letter}{from}{x}{to}")
    };
    match *mv {
        Move::Castle { king, rook } => {
            let (k, r) = (mv
                .castling_side()
                .map(|s| (s.king_to(pos.turn()), s.rook_to(pos.turn()))))
            .unwrap_or((king, rook));
            format!("{} {}", one(king, k), one(rook, r))
        }
        _ => match mv.from() {
            Some(from) => one(from, mv.to()),
            None => mv.to().to_string(),
        },
    }
}

/// The squares that make `board` an illegal position under 2023 A.5.4:
/// the pawns on their furthest rank, and both kings when both stand in
/// check; empty when it is none.
pub(super) fn illegal_position_squares(board: &shakmaty::Board) -> Vec<shakmaty::Square> {
    let far = (board.pawns() & board.white() & Bitboard::from_rank(shakmaty::Rank::Eighth))
        | (board.pawns() & board.black() & Bitboard::from_rank(shakmaty::Rank::First));
    let mut v: Vec<shakmaty::Square> = far.into_iter().collect();
    if super::illegal::both_kings_in_check(board) {
        v.extend(board.kings());
    }
    v
}
