//! Article 7, irregularities: illegal moves (§7.4 / 7.5; in rapid and blitz
//! claimed by the opponent, 2009 A4c / B3c, 2001 C3), what the board shows
//! after one, the claim and the penalty. Displaced pieces (§7.3) and
//! restoring the position on the board afterwards
//! ([`Phase::Restoring`](super::Phase::Restoring)) are in `restoring.rs`.

use super::announce::Decisions;
use super::hand::Turn;
use super::touch::{self, Release};
use super::{ci, dead, key, square_list, Arbiter, CompletedMove, Completion, PlayedMove};
use crate::model::{win_for, EndReason, KnownOutcome, Penalty};
use crate::recognize::{recognize, Recognition};
use crate::rules::IllegalMoveRule;
use crate::trace::{By, Event, EventKind};
use shakmaty::uci::UciMove;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role, Square,
};

/// A completed illegal move waiting for the opponent's claim before his own
/// next move is made (2009 A4c / B3c, 2001 C3), or being ruled on.
#[derive(Debug, Clone)]
pub(super) struct PendingIllegal {
    pub(super) by: Color,
    pub(super) article: &'static str,
    pub(super) differs: Bitboard,
    /// The position immediately before the illegal move: a ruling
    /// reinstates it (§7.4a, "Stillingen umiddelbart før
    /// uregelmæssigheden skal genetableres", seed 002; 2023 7.5.1).
    pub(super) before: Chess,
    /// Whether the game went on from the position on the board
    /// ([`Arbiter::position`] is it and the move is in the record,
    /// `illegal: true`), also when that position is no legal one (the
    /// mover's own king left in check, a pawn left unpromoted on the last
    /// rank: `played_unchecked`). Otherwise (the board explained by no single
    /// piece move) the position on the board is kept as `on_board` only, and
    /// the arbiter holds at `before` until the opponent claims or the
    /// arbiter sets a position.
    pub(super) stood: bool,
    /// The pieces on the board after the illegal move: the position on the
    /// board, which need not be a legal position.
    pub(super) on_board: Board,
    /// The mover's touches and releases of the illegal move's turn: they
    /// bind the move that replaces it (§7.4a, "…og reglerne i §4.3 og §4.6
    /// gælder for det træk, der erstatter det ulovlige træk"; 2023 7.5.1:
    /// "Articles 4.3 and 4.7 apply to the move replacing the illegal move").
    pub(super) turn: Turn,
    /// The claimant's own move shown on the board, and since when (ms): once
    /// it has stood for the release time it is made (released on its
    /// square), and the claim window closes (A4c "før kravstilleren selv
    /// udfører sit træk", B3c "før han har udført sit eget træk").
    pub(super) reply: Option<(Move, u64)>,
    /// A pawn left on the last rank at the press where the profile has it
    /// replaced by a queen (2023 7.5.2: "The pawn shall be replaced by a
    /// queen of the same colour as the pawn"): the promotion to a queen
    /// the ruling completes instead of reinstating `before`.
    pub(super) queen: Option<Move>,
}

impl PendingIllegal {
    /// Whether it is a press without a move (2023 7.5.3): no piece moved.
    pub(super) fn without_move(&self) -> bool {
        !self.stood && self.differs.is_empty() && self.on_board == *self.before.board()
    }
}

impl Arbiter {
    /// 2023 7.5.3 ("If the player presses the clock without making a move,
    /// it shall be considered and penalized as if an illegal move") where
    /// A.5.2 / B.3 leave illegal moves to the arbiter and the opponent's
    /// claim ("If the arbiter observes an action taken under Article 7.5.1,
    /// 7.5.2, 7.5.3 or 7.5.4, he/she shall act according to Article 7.5.5,
    /// provided the opponent has not made his/her next move"): alerted like
    /// an unclaimed illegal move, the clock over as pressed, nothing ruled;
    /// open to the claim and the arbiter's ruling until the opponent's
    /// next move. Whether it was (else the caller rules it at the press).
    pub(super) fn press_without_move_alerted(
        &mut self,
        side: Color,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        let p = self.cfg.profile;
        if !p.unclaimed_illegal_alerted || p.illegal_rule != IllegalMoveRule::ClaimPenalty {
            return false;
        }
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: crate::model::IrregularityKind::IllegalMoveUnclaimed,
                article: p.articles.illegal_claim,
                squares: Vec::new(),
            },
        });
        if let Some(c) = self.clock.as_mut() {
            c.press(side, t);
        }
        self.push_clock(t, out);
        self.pending_illegal = Some(PendingIllegal {
            by: side,
            article: p.article_illegal_ruled(p.articles.press_without_move, false),
            differs: Bitboard::EMPTY,
            before: self.pos.clone(),
            stood: false,
            on_board: self.pos.board().clone(),
            turn: self.binding_turn(),
            reply: None,
            queen: None,
        });
        true
    }

    /// The legal promotion to a queen by `side` whose squares are among
    /// `differs` and whose last-rank square holds `side`'s pawn on the
    /// board (a pawn moved to the last rank and not replaced, 2023 7.5.2).
    fn promotion_to_queen(&self, side: Color, differs: Bitboard) -> Option<Move> {
        if self.pos.turn() != side {
            return None;
        }
        let sensed = &self.boards[self.mi()].sensed;
        self.pos.legal_moves().into_iter().find(|m| {
            m.promotion() == Some(Role::Queen)
                && m.from().is_some_and(|f| differs.contains(f))
                && differs.contains(m.to())
                && sensed.piece_at(m.to()).map(|p| (p.role, p.color)) == Some((Role::Pawn, side))
        })
    }
}

/// Whether both kings stand in check on `board` (2009 A4c: the arbiter
/// intervenes unasked).
pub(super) fn both_kings_in_check(board: &Board) -> bool {
    [Color::White, Color::Black].into_iter().all(|c| {
        board
            .king_of(c)
            .is_some_and(|k| board.attacks_to(k, !c, board.occupied()).any())
    })
}

/// The position on the board after an illegal move that leaves no legal
/// position (the mover's own king left in check, 2023 1.4.1 / 2009 §3.9; a
/// pawn left unpromoted on the last rank, 2009 §3.7e): the one piece move
/// (or castling) the hand made, played on `before` without the legality
/// check, when it gives exactly `board`. Where only a claim counts (2009
/// A4c / B3c, 2001 C3) an unclaimed illegal move stands and the game goes on
/// from this position: the opponent's moves are recognised from it, the
/// clocks run. `None` when no single move explains the board.
fn played_unchecked(
    before: &Chess,
    placed: &[(Square, Square, u64)],
    board: &Board,
) -> Option<Chess> {
    let b = before.board();
    let candidates: Vec<Move> = match placed {
        [(from, to, _)] => {
            let piece = b.piece_at(*from)?;
            let landed = board.piece_at(*to)?;
            let promotion = (landed.role != piece.role).then_some(landed.role);
            let mut c = vec![Move::Normal {
                role: piece.role,
                from: *from,
                capture: b.role_at(*to),
                to: *to,
                promotion,
            }];
            if piece.role == Role::Pawn {
                c.push(Move::EnPassant {
                    from: *from,
                    to: *to,
                });
            }
            c
        }
        [(a, _, _), (c, _, _)] => {
            let king = [*a, *c]
                .into_iter()
                .find(|s| b.role_at(*s) == Some(Role::King))?;
            let rook = [*a, *c]
                .into_iter()
                .find(|s| b.role_at(*s) == Some(Role::Rook))?;
            vec![Move::Castle { king, rook }]
        }
        _ => Vec::new(),
    };
    candidates.into_iter().find_map(|m| {
        let mut pos = before.clone();
        pos.play_unchecked(m);
        (pos.board() == board).then_some(pos)
    })
}

impl Arbiter {
    /// The pieces on the board after a completed illegal move that is open
    /// to a claim, as the board part of a FEN (e.g. `4k3/4r3/8/8/8/3B4/8/4K3`),
    /// also when it is no legal position (the mover's own king left in
    /// check, a pawn on the last rank); `None` when no such move is open.
    pub fn illegal_position_on_board(&self) -> Option<String> {
        self.pending_illegal
            .as_ref()
            .map(|p| p.on_board.to_string())
    }

    /// The obligations of this turn that bind the move replacing an illegal
    /// one (§7.4a: §4.3 and §4.6; 2023 7.5.1: 4.3 and 4.7): the touches,
    /// the pieces released on a square as (part of) a legal move (a king
    /// released on g1 in an attempted castling, a pawn released on the last
    /// rank), and the promotion piece placed first (§4.4d).
    fn binding_turn(&self) -> Turn {
        if !self.cfg.profile.release_binds_replacement {
            // 2001 §7.4a: only 4.3 binds the replacement.
            return Turn {
                touches: self.turn.touches.clone(),
                ..Turn::default()
            };
        }
        let mut releases = self.turn.releases.clone();
        let board = &self.boards[self.mi()].sensed;
        let standing: Vec<(Square, Square, u64)> = self
            .turn
            .placed
            .iter()
            .filter(|(_, to, _)| board.occupied().contains(*to))
            .copied()
            .collect();
        for (from, to, placed_t) in &self.turn.placed {
            let with = touch::moved_with(&standing, *placed_t, self.cfg.release_ms);
            if board.occupied().contains(*to)
                && touch::is_legal_release_among(&self.pos, *from, *to, &with)
                && !releases.iter().any(|r| r.from == *from)
            {
                releases.push(Release {
                    from: *from,
                    to: *to,
                });
            }
        }
        Turn {
            touches: self.turn.touches.clone(),
            releases,
            first_promotion: self.turn.first_promotion,
            ..Turn::default()
        }
    }

    /// A completed illegal move by `side` (§7.4 / 7.5). Depending on the
    /// profile the controller proposes the ruling at once, or waits for the
    /// opponent's claim before his own next move is made.
    pub(super) fn illegal(
        &mut self,
        side: Color,
        article: &'static str,
        differs: Bitboard,
        incomplete_promotion: bool,
        t: u64,
        out: &mut Decisions,
    ) {
        let p = self.cfg.profile;
        let physical = self.physical_position(side);
        // 2009 A4c: where only a claim counts, the arbiter still intervenes
        // unasked on both kings in check or an incomplete promotion (not in
        // blitz, B3b; not in 2001), and cites A4c.
        let listed = incomplete_promotion
            || physical
                .as_ref()
                .is_some_and(|(b, _, _)| both_kings_in_check(b));
        let intervenes = p.illegal_positions_ruled_unasked && listed;
        let unasked = p.illegal_rule == IllegalMoveRule::Arbiter || intervenes;
        let mut pending = PendingIllegal {
            by: side,
            article: p.article_illegal_ruled(article, intervenes),
            differs,
            before: self.pos.clone(),
            stood: false,
            on_board: physical
                .as_ref()
                .map(|(b, _, _)| b.clone())
                .unwrap_or_else(|| self.pos.board().clone()),
            turn: self.binding_turn(),
            reply: None,
            queen: None,
        };
        if incomplete_promotion && p.unreplaced_pawn_becomes_queen {
            pending.queen = self.promotion_to_queen(side, differs);
        }
        let Some((_, text, stood)) = physical.filter(|_| !unasked) else {
            // Ruled at once; or the board cannot be read as a position: the
            // arbiter must act.
            self.rule_illegal(pending, None, t, out);
            return;
        };
        // 2023 A.5.2: the arbiter may still intervene before the
        // opponent's next move: he is told at once, nothing is ruled.
        if p.unclaimed_illegal_alerted {
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: crate::model::IrregularityKind::IllegalMoveUnclaimed,
                    article: p.articles.illegal_claim,
                    squares: square_list(differs),
                },
            });
        }
        // Only a claim before the opponent's own move is made counts: the
        // clock goes over as pressed, and the game goes on from the position
        // on the board, which a claim takes back.
        let clock_ms = self.clock.as_mut().map(|c| {
            c.press(side, t);
            let (w, b) = c.remaining_at(t);
            if side == Color::White {
                w
            } else {
                b
            }
        });
        // The clocks run on: the opponent's is started by the press.
        self.push_clock(t, out);
        let bi = self.mi();
        if let Some(stood) = stood {
            pending.stood = true;
            self.pos = stood;
            self.history.push(self.pos.clone());
            self.keys.push(key(&self.pos));
            self.moves.push(PlayedMove {
                san: text,
                uci: String::new(),
                by: side,
                t,
                clock_ms,
                clocks: self.clock.as_ref().map(|c| c.remaining_at(t)),
                illegal: true,
            });
            let pos = self.pos.clone();
            self.boards[bi].sensed.reset_to(pos.board());
        } else {
            // No position the game can go on from (the board explained by no
            // single piece move or castling): the position on the board is
            // kept as it stands, unruled; the board is not followed as moves
            // until a claim or the arbiter's set-up. No ruling unasked.
            tracing::info!(
                by = crate::model::side_name(side),
                illegal = %text,
                "illegal move leaves no legal position; waiting for a claim"
            );
            self.set_restoring(true);
        }
        self.turn = Turn::default();
        self.pending_illegal = Some(pending);
    }

    /// The claimant (the player on move after a standing illegal move)
    /// shows his own move on the board: when it stays for the release time,
    /// it is made and the claim window closes ([`Arbiter::close_claim_window`]).
    pub(super) fn watch_claimant_reply(&mut self, t: u64) {
        let turn = self.pos.turn();
        let bi = self.mi();
        let Some(pi) = self
            .pending_illegal
            .as_ref()
            .filter(|p| p.stood && p.by != turn)
        else {
            return;
        };
        let shown = match recognize(&self.pos, &self.boards[bi].sensed, self.turn.promote) {
            Recognition::Move { mv, missing: 0, .. } => Some(mv),
            _ => None,
        };
        let reply = match (shown, pi.reply) {
            (Some(mv), Some((old, since))) if old == mv => Some((mv, since)),
            (Some(mv), _) => Some((mv, t)),
            (None, _) => None,
        };
        if let Some(pi) = self.pending_illegal.as_mut() {
            pi.reply = reply;
        }
    }

    /// A4c / B3c / C3: the claimant's own move, shown on the board before
    /// `t` for the release time, is made: the illegal move stands and can no
    /// longer be claimed.
    pub(super) fn close_claim_window(&mut self, t: u64) {
        let release = self.cfg.release_ms;
        if let Some((mv, since)) = self.pending_illegal.as_ref().and_then(|p| p.reply) {
            if since + release < t {
                tracing::info!(
                    reply = %UciMove::from_move(mv, CastlingMode::Standard),
                    "the claimant's own move is made: the illegal move stands"
                );
                self.pending_illegal = None;
            }
        }
    }

    /// Rules on a completed illegal move: the penalty (time, loss, draw, or in
    /// blitz the claimant's win) and the position to reinstate, the one
    /// immediately before the illegal move (§7.4a).
    pub(super) fn rule_illegal(
        &mut self,
        pi: PendingIllegal,
        claimant: Option<Color>,
        t: u64,
        out: &mut Decisions,
    ) {
        let p = self.cfg.profile;
        let side = pi.by;
        let opponent = !side;
        let article = if claimant.is_some() {
            p.articles.illegal_claim
        } else {
            pi.article
        };
        if self.penalise_illegal(side, article, pi.differs, claimant, t, out) {
            return;
        }
        let same = pi.before.board() == self.pos.board() && pi.before.turn() == self.pos.turn();
        if pi.without_move() && !same {
            // A press without a move claimed after the offender's own move
            // (before the opponent's next one, A.5.2): nothing was moved
            // by it to reinstate; 7.5.5's time is given.
            if let Some(c) = self.clock.as_mut() {
                c.adjust(opponent, p.illegal_move_bonus_ms as i64);
            }
            self.push_clock(t, out);
            return;
        }
        if let Some(mv) = pi.queen.filter(|_| !pi.stood) {
            // 2023 7.5.2: the pawn is replaced by a queen and the move
            // stands, completed by the press; 7.5.5's penalty as ruled above.
            self.turn = Turn::default();
            let c = CompletedMove {
                mv,
                how: Completion::Pressed,
                promotion_assumed: false,
            };
            self.complete(c, t, out);
            if let Some(c) = self.clock.as_mut() {
                c.adjust(opponent, p.illegal_move_bonus_ms as i64);
            }
            self.push_clock(t, out);
            return;
        }
        if pi.stood {
            // The game went on from the position on the board: take the
            // illegal move out of the record.
            self.moves.pop();
            self.history.pop();
            self.keys.pop();
        }
        self.pos = pi.before;
        self.turn = pi.turn;
        if let Some(c) = self.clock.as_mut() {
            c.adjust(opponent, p.illegal_move_bonus_ms as i64);
            // The offender replaces the move on his own time.
            if c.running().is_some() {
                c.stop(t);
                c.start(side, t);
            }
        }
        self.push_clock(t, out);
        let pos = self.pos.clone();
        let bi = self.mi();
        let restore = !self.boards[bi].sensed.matches(pos.board());
        self.set_restoring(restore);
        if !restore {
            self.boards[bi].sensed.reset_to(pos.board());
        }
    }

    /// The illegal move's event and its penalty (§7.4b / 7.5.5; in blitz
    /// under B3c / C3 a claim wins): the count, time to the opponent, or
    /// the game lost (drawn when the opponent cannot mate, where the
    /// profile has that exception). Returns whether the game ended. The
    /// time itself is added by the caller, with the position it rules.
    pub(super) fn penalise_illegal(
        &mut self,
        side: Color,
        article: &'static str,
        differs: Bitboard,
        claimant: Option<Color>,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        let p = self.cfg.profile;
        let opponent = !side;
        let i = ci(side);
        self.illegal_counts[i] += 1;
        let count = self.illegal_counts[i];
        let claim_wins = claimant.is_some() && p.illegal_rule == IllegalMoveRule::ClaimWins;
        let (penalty, end) = if claim_wins || count >= p.illegal_moves_to_lose {
            let exception = p.illegal_loss_draw_exception || claim_wins;
            if exception && dead::can_mate(&self.pos, opponent) == Some(false) {
                (Penalty::Draw, Some(KnownOutcome::Draw))
            } else {
                (Penalty::GameLost, Some(win_for(opponent)))
            }
        } else {
            let penalty = Penalty::TimeAdded {
                to: opponent,
                ms: p.illegal_move_bonus_ms,
            };
            (penalty, None)
        };
        let penalty_article = p.article_illegal_penalty(claim_wins);
        self.note_penalty(side, penalty, penalty_article, t);
        out.push(Event {
            t,
            kind: EventKind::IllegalMove {
                by: By(side),
                article,
                count,
                penalty,
                penalty_article,
                squares: square_list(differs),
            },
        });
        if let Some(result) = end {
            self.end(result, EndReason::IllegalMoves, penalty_article, t, out);
            return true;
        }
        false
    }

    /// The position the board shows after `side` moved illegally, read from
    /// the pieces `side` set down this turn (captures by replacement): the
    /// pieces on the board, a long-algebraic description (`Ng1-g3`), and the
    /// position the game can go on from when it is one (not when the mover's
    /// own king is left in check or a pawn stands on the last rank); `None`
    /// when the board cannot be read.
    fn physical_position(&self, side: Color) -> Option<(Board, String, Option<Chess>)> {
        let board = &self.boards[self.board_of(side)].sensed;
        let mut setup = self.pos.to_setup(EnPassantMode::Legal);
        let mut text = Vec::new();
        let mut moved = Bitboard::EMPTY;
        // §9.3 / 9.3.2 counts the moves "without the movement of any pawn
        // and without any capture": a standing illegal move that is neither
        // (a castling through check, a pinned piece moved) counts on.
        let mut pawn_or_capture = false;
        for (from, to, _) in &self.turn.placed {
            let mut piece = setup.board.remove_piece_at(*from)?;
            pawn_or_capture |= piece.role == Role::Pawn;
            if let Some(sensed) = board.piece_at(*to) {
                piece = sensed;
            }
            let capture = setup.board.piece_at(*to).is_some();
            pawn_or_capture |= capture;
            setup.board.set_piece_at(*to, piece);
            moved.add(*from);
            let letter = match piece.role {
                Role::Pawn => String::new(),
                r => r.upper_char().to_string(),
            };
            text.push(format!(
                "{letter}{from}{}{to}",
                if capture { "x" } else { "-" }
            ));
        }
        // Pieces of the opponent removed without a replacement (e.p.-like).
        for sq in setup.board.occupied() & !board.occupied() {
            setup.board.discard_piece_at(sq);
            pawn_or_capture = true;
        }
        if text.is_empty() || setup.board.occupied() != board.occupied() {
            return None;
        }
        setup.turn = !side;
        setup.ep_square = None;
        setup.castling_rights &= !moved;
        setup.halfmoves = if pawn_or_capture {
            0
        } else {
            self.pos.halfmoves().saturating_add(1)
        };
        if side == Color::Black {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        let on_board = setup.board.clone();
        let pos = <Chess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard)
            .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
            .or_else(shakmaty::PositionError::ignore_impossible_check)
            .ok()
            .or_else(|| played_unchecked(&self.pos, &self.turn.placed, &on_board));
        Some((on_board, text.join(" "), pos))
    }
}
