//! Article 7, irregularities: illegal moves (§7.4 / 7.5; in rapid and blitz
//! claimed by the opponent, 2009 A4c / B3c, 2001 C3), displaced pieces
//! (§7.3), a board set up turned (§7.1b / 7.2.2), and restoring the position
//! on the board afterwards ([`Phase::Restoring`](super::Phase::Restoring)).

use super::announce::Decisions;
use super::hand::Turn;
use super::{
    ci, dead, key, square_list, turn_change, Arbiter, CompletedMove, Completion, PlayedMove,
};
use crate::board::{Change, SensedBoard};
use crate::model::{win_for, EndReason, IrregularityKind, KnownOutcome, Penalty};
use crate::recognize::{recognize, Recognition};
use crate::rules::{Edition, IllegalMoveRule};
use crate::trace::{By, Event, EventKind};
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, EnPassantMode, Position, Role};

/// A completed illegal move waiting for the opponent's claim before his own
/// next move (2009 A4c / B3c, 2001 C3).
#[derive(Debug, Clone)]
pub(super) struct PendingIllegal {
    pub(super) by: Color,
    pub(super) article: &'static str,
    pub(super) differs: Bitboard,
    /// The position before the illegal move, when the game went on from the
    /// position on the board (the move stands unless claimed).
    pub(super) before: Option<Chess>,
}

impl Arbiter {
    /// A completed illegal move by `side` (§7.4 / 7.5). Depending on the
    /// profile the controller proposes the ruling at once, or waits for the
    /// opponent's claim before his own next move.
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
        let mut pending = PendingIllegal {
            by: side,
            article,
            differs,
            before: None,
        };
        // 2009 A4c: the arbiter intervenes unasked on an incomplete promotion.
        let unasked = p.illegal_rule == IllegalMoveRule::Arbiter
            || incomplete_promotion && p.edition != Edition::Fide2001;
        if unasked {
            self.rule_illegal(pending, None, t, out);
        } else {
            // Only a claim before the opponent's next move counts: the clock
            // goes over as pressed and the game goes on from the position on
            // the board, which a claim takes back.
            if let Some((stood, text)) = self.physical_position(side) {
                pending.before = Some(self.pos.clone());
                let clock_ms = self.clock.as_mut().map(|c| {
                    c.press(side, t);
                    let (w, b) = c.remaining_at(t);
                    if side == Color::White {
                        w
                    } else {
                        b
                    }
                });
                let bi = self.mi();
                self.pos = stood;
                self.history.push(self.pos.clone());
                self.keys.push(key(&self.pos));
                self.moves.push(PlayedMove {
                    san: text,
                    uci: String::new(),
                    by: side,
                    t,
                    clock_ms,
                    illegal: true,
                });
                let pos = self.pos.clone();
                self.boards[bi].sensed.reset_to(pos.board());
                self.turn = Turn::default();
                self.pending_illegal = Some(pending);
            } else {
                // The board cannot be read as a position: the arbiter must act.
                self.rule_illegal(pending, None, t, out);
            }
        }
    }

    /// Rules on a completed illegal move: the penalty (time, loss, draw, or in
    /// blitz the claimant's win) and the position to reinstate.
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
        let article = if claimant.is_some() {
            p.articles.illegal_claim
        } else {
            pi.article
        };
        out.push(Event {
            t,
            kind: EventKind::IllegalMove {
                by: By(side),
                article,
                count,
                penalty,
                squares: square_list(pi.differs),
            },
        });
        if let Some(result) = end {
            self.end(result, EndReason::IllegalMoves, article, t, out);
            return;
        }
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

    /// The position the board shows after `side` moved illegally, read from
    /// the pieces `side` set down this turn (captures by replacement), with
    /// a long-algebraic description (`Ng1-g3`); `None` when it cannot be read.
    fn physical_position(&self, side: Color) -> Option<(Chess, String)> {
        let board = &self.boards[self.board_of(side)].sensed;
        let mut setup = self.pos.to_setup(EnPassantMode::Legal);
        let mut text = Vec::new();
        let mut moved = Bitboard::EMPTY;
        for (from, to, _) in &self.turn.placed {
            let mut piece = setup.board.remove_piece_at(*from)?;
            if let Some(sensed) = board.piece_at(*to) {
                piece = sensed;
            }
            let capture = setup.board.piece_at(*to).is_some();
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
        }
        if text.is_empty() || setup.board.occupied() != board.occupied() {
            return None;
        }
        setup.turn = !side;
        setup.ep_square = None;
        setup.castling_rights &= !moved;
        setup.halfmoves = 0;
        if side == Color::Black {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        let pos = <Chess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard)
            .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
            .or_else(shakmaty::PositionError::ignore_impossible_check)
            .ok()?;
        Some((pos, text.join(" ")))
    }

    /// §7.3 / §7.5: the board shows a legal move and, away from it, one or
    /// two pieces knocked over or displaced. The move is completed; the
    /// arbiter and the players are told which squares to put right, and the
    /// board is guided back to the position.
    pub(super) fn try_displaced(
        &mut self,
        side: Color,
        bi: usize,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        let Some((mv, extra)) = crate::recognize::nearest_with_displaced(
            &self.pos,
            &self.boards[bi].sensed,
            self.turn.promote,
            2,
        ) else {
            return false;
        };
        let _ = side;
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::Displaced,
                article: self.cfg.profile.articles.displaced,
                squares: square_list(extra),
            },
        });
        let completed = CompletedMove {
            mv,
            how: Completion::Pressed,
            promotion_assumed: false,
        };
        self.complete(completed, t, out);
        if !self.ended() {
            // The board still shows the displaced pieces: follow the sensors.
            let pos = self.pos.clone();
            let b = &mut self.boards[bi].sensed;
            for sq in extra {
                if pos.board().piece_at(sq).is_some() {
                    b.apply(Change::Lift(sq), t);
                } else {
                    b.apply(Change::Place(sq, None, None), t);
                }
            }
            b.clear_history();
            self.set_restoring(true);
        }
        true
    }

    /// §7.1b / 7.2.2: the board was set up turned by 180°. If the changes
    /// since the start, turned, show a legal first move, the board is taken
    /// as turned from now on (its squares remapped) and the arbiter told.
    pub(super) fn try_turned_board(&mut self, t: u64, out: &mut Decisions) -> bool {
        let Some(log) = self.setup_log.clone() else {
            return false;
        };
        let mut probe = SensedBoard::new(self.cfg.start.board());
        probe.bounce_ms = self.cfg.bounce_ms;
        for (ct, ch) in &log {
            probe.apply(turn_change(*ch), *ct);
        }
        if !matches!(
            recognize(&self.pos, &probe, self.turn.promote),
            Recognition::Move { missing: 0, .. }
        ) {
            return false;
        }
        self.turned = true;
        self.setup_log = Some(log.iter().map(|(ct, ch)| (*ct, turn_change(*ch))).collect());
        self.boards[0].sensed = probe;
        self.turn = Turn::default();
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::BoardOrientation,
                article: self.cfg.profile.articles.board_orientation,
                squares: Vec::new(),
            },
        });
        true
    }

    /// After the position changed under the players (take-back, set-up):
    /// the turn starts afresh, the clock runs for the player on move and the
    /// board is guided back to the position.
    pub(super) fn take_back_state(&mut self, t: u64) {
        self.cancel_pending_end();
        self.turn = Turn::default();
        let turn = self.pos.turn();
        if let Some(c) = self.clock.as_mut() {
            if c.running().is_some() {
                c.stop(t);
                c.start(turn, t);
            }
        }
        let pos = self.pos.clone();
        let bi = self.mi();
        let b = &mut self.boards[bi];
        b.sensed.clear_history();
        b.synced = true;
        let restore = !b.sensed.matches(pos.board());
        if !restore {
            b.sensed.reset_to(pos.board());
        }
        self.set_restoring(restore);
    }

    /// `Restoring → Playing` once the mover's board `bi` shows the position
    /// again (`position_restored`).
    pub(super) fn check_restored(&mut self, bi: usize, t: u64, out: &mut Decisions) {
        if self.boards[bi].sensed.matches(self.pos.board()) {
            self.set_restoring(false);
            let pos = self.pos.clone();
            self.boards[bi].sensed.reset_to(pos.board());
            out.push(Event {
                t,
                kind: EventKind::PositionRestored {
                    fen: Fen::from_position(&self.pos, EnPassantMode::Legal).to_string(),
                },
            });
        }
    }
}
