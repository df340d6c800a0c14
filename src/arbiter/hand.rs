//! The player's hand on the board (§4): which pieces he touched, which he
//! set down or released where, his promotion choice and his adjustments;
//! and, when his move is completed, whether it keeps the obligations his
//! touches created. The rules themselves are in [`touch`]; this file feeds
//! them what the sensors show.

use super::announce::Decisions;
use super::tactile::Announced;
use super::touch::{self, Breach, Release, Touch};
use super::Arbiter;
use crate::board::Change;
use crate::model::IrregularityKind;
use crate::recognize::{recognize, Recognition};
use crate::trace::{By, Event, EventKind};
use shakmaty::{Bitboard, Color, Move, Piece, Position, Rank, Role, Square};

/// What the player on move has done since the last completed move.
#[derive(Debug, Clone, Default)]
pub(super) struct Turn {
    /// Pieces touched, in order of lifting.
    pub(super) touches: Vec<Touch>,
    /// Origin squares of own pieces in the hand (last lifted last).
    pub(super) hand: Vec<Square>,
    /// Own pieces set down this turn: (origin, square, time).
    pub(super) placed: Vec<(Square, Square, u64)>,
    /// Pieces released on a square as (part of) a legal move.
    pub(super) releases: Vec<Release>,
    /// The first new piece (role) that touched the promotion square.
    pub(super) first_promotion: Option<Role>,
    /// The promotion choice given outside the board.
    pub(super) promote: Option<Role>,
    /// j'adoube declared: the next lift is an adjustment.
    pub(super) adjust_next: bool,
    /// j'adoube declared by the player not on move (§4.2 forbids it; it is
    /// logged for the arbiter): the next lift of one of his own pieces is
    /// his, not a touch by the player on move.
    pub(super) adjust_by_other: bool,
    /// Squares of the player not on move's pieces lifted by him to adjust
    /// them (after his declaration): their lift is not the mover's touch.
    pub(super) adjusted_by_other: Bitboard,
    /// Of those, the pieces still off their square: their return is not
    /// the mover's placing.
    pub(super) held_by_other: Bitboard,
    /// Own pieces put back on their square after being lifted.
    pub(super) returned: Bitboard,
    /// The VI player's move made on the tactile board, and whether announced.
    pub(super) announced: Option<Announced>,
    /// The promotion square the visually impaired player was asked to name
    /// the piece for (E2.1 / E2.3), once asked.
    pub(super) promotion_asked: Option<Square>,
    /// When the opponent began his reply to a move made and not pressed
    /// (ms): the first lift of one of his pieces, away from the mover's
    /// move, once the mover had set down every piece he carried. He has
    /// the move from then on (2009 §1.1, 2023 1.3), so the touches from
    /// then on are his (`Arbiter::emit_touches`).
    pub(super) reply_at: Option<u64>,
    /// The mover has held nothing with at least one piece set down: his
    /// move stood made on the board (for `reply_begins`).
    pub(super) made: bool,
    /// Since then, the origins of his pieces lifted again from where he had
    /// set them down (an opponent taking the moved piece, or the mover
    /// changing his mind: the next lift tells which).
    pub(super) relifted: Bitboard,
    /// The mover's pieces lifted again from the square he set them down on
    /// this turn (the square, the piece, when, ms): the piece a touch
    /// there names, not the one of the last completed position (a captured
    /// piece, or none).
    pub(super) lifted_after_move: Vec<(Square, Piece, u64)>,
    /// The mover's own pieces seen lifted in occupancy frames (origin, ms):
    /// a capture inside one scan is never seen placed (`frames.rs`).
    pub(super) frame_lifts: Vec<(Square, u64)>,
}

impl Arbiter {
    /// The promotion piece chosen outside the board (§4.4d / 4.4.4).
    pub(super) fn promote(&mut self, role: Role) {
        if self.ended() {
            return;
        }
        // 2009 §4.4d / 2023 4.4.4: the first choice is final; 2001: the last
        // before release counts.
        if self.turn.promote.is_none() || !self.cfg.profile.promotion_locked_at_first_choice {
            self.turn.promote = Some(role);
        }
        if self.turn.first_promotion.is_none() {
            self.turn.first_promotion = Some(role);
        }
        // A choice given after the piece was set down still decides a
        // promotion that ends the game.
        if let Some(since) = self.phase.pending_end().map(|p| p.t) {
            self.watch_for_game_end(since);
        }
    }

    /// j'adoube declared by `side` (§4.2 / 4.2.1).
    pub(super) fn adjust(&mut self, side: Color, t: u64, out: &mut Decisions) {
        if self.ended() {
            return;
        }
        // The move of the player whose clock runs may stand made on the
        // board, not yet pressed: then his opponent has the move (2009 §1.1,
        // 2023 1.3) and the adjusting is read by who may adjust then (F4).
        let made = self.boards.len() == 1
            && matches!(
                recognize(&self.pos, &self.reading(0), self.turn.promote),
                Recognition::Move { .. }
            );
        let a = self.cfg.profile.articles;
        if side == self.pos.turn() {
            // His next lift is an adjustment, not a touch.
            self.turn.adjust_next = true;
            if made {
                // His move is made: he no longer has the move (2009 §4.2
                // "Kun den spiller, der er i trækket, må rette", 2023 4.2.1),
                // though his clock still runs. The arbiter is told.
                out.push(Event {
                    t,
                    kind: EventKind::Irregularity {
                        kind: IrregularityKind::AdjustByPlayerNotOnMove,
                        article: a.adjust,
                        squares: Vec::new(),
                    },
                });
            }
        } else if made && self.cfg.profile.article_adjust_clock_running().is_none() {
            // 2009 / 2001: the opponent's move is made, so he has the move
            // (§1.1) and may adjust (§4.2), his clock not running or not: his
            // next lift of his own piece is his adjustment.
            self.turn.adjust_by_other = true;
        } else {
            // Only the player having the move may adjust (§4.2 / 4.2.1):
            // "Kun den spiller, der er i trækket, må rette …" (2009 §4.2,
            // seed 002; 2023 4.2.1 "Only the player having the move may
            // adjust …"). The arbiter is told; the declarer's next lift of
            // his own piece is his, never a touch by the player on move.
            self.turn.adjust_by_other = true;
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::AdjustByPlayerNotOnMove,
                    // 2023: having the move is not enough; his clock must
                    // run (6.2.5), and between his opponent's move made and
                    // its press it does not.
                    article: match self.cfg.profile.article_adjust_clock_running() {
                        Some(running) if made => running,
                        _ => a.adjust,
                    },
                    squares: Vec::new(),
                },
            });
        }
    }

    /// Follows the mover's pieces through the hand: which piece went where,
    /// and which were released on a square as part of a legal move (§4.6).
    pub(super) fn follow_hand(&mut self, ch: Change, t: u64) {
        let side = self.pos.turn();
        match ch {
            Change::Lift(sq)
                if self.turn.adjust_by_other
                    && self.pos.board().color_at(sq) == Some(!side)
                    && !self.turn.placed.iter().any(|p| p.1 == sq) =>
            {
                // The player not on move lifts his own piece after his
                // j'adoube: his adjustment, not the mover's touch.
                self.turn.adjust_by_other = false;
                self.turn.adjusted_by_other.add(sq);
                self.turn.held_by_other.add(sq);
            }
            Change::Place(sq, _, _) if self.turn.held_by_other.contains(sq) => {
                // The adjusted piece put back on its square.
                self.turn.held_by_other.discard(sq);
            }
            Change::Lift(sq) => {
                if self.turn.reply_at.is_none() && self.reply_begins(sq, t) {
                    self.turn.reply_at = Some(t);
                }
                if let Some(i) = self.turn.placed.iter().position(|p| p.1 == sq) {
                    let (from, to, placed_t) = self.turn.placed.remove(i);
                    // Only the mover's own piece, or the opponent's first
                    // lift taking it: once the reply has begun, a placement
                    // the hand reads as the mover's may be the opponent's
                    // (his piece set down, or put back, where the moved
                    // piece stood), so the square is named as before.
                    let ours = self.turn.reply_at.is_none_or(|r| r == t);
                    if let Some(mut piece) = self.pos.board().piece_at(from).filter(|_| ours) {
                        let last_rank = match side {
                            Color::White => Rank::Eighth,
                            Color::Black => Rank::First,
                        };
                        if piece.role == Role::Pawn && to.rank() == last_rank {
                            if let Some(role) = self.turn.first_promotion {
                                piece.role = role;
                            }
                        }
                        self.turn.lifted_after_move.push((to, piece, t));
                    }
                    if self.turn.made {
                        self.turn.relifted.add(from);
                    }
                    let standing =
                        touch::moved_with(&self.turn.placed, placed_t, self.cfg.release_ms);
                    if t.saturating_sub(placed_t) >= self.cfg.release_ms
                        && touch::is_legal_release_among(&self.pos, from, to, &standing)
                        && !self.turn.releases.iter().any(|r| r.from == from)
                    {
                        self.turn.releases.push(Release { from, to });
                    }
                    self.turn.hand.push(from);
                } else if self.pos.board().color_at(sq) == Some(side)
                    && !self.turn.hand.contains(&sq)
                    && !self.turn.placed.iter().any(|p| p.0 == sq)
                {
                    self.turn.hand.push(sq);
                }
            }
            Change::Place(sq, _, piece) => {
                let last_rank = match side {
                    Color::White => Rank::Eighth,
                    Color::Black => Rank::First,
                };
                if let Some(p) = piece {
                    if p.color == side
                        && p.role != Role::Pawn
                        && sq.rank() == last_rank
                        && self.turn.first_promotion.is_none()
                        && self
                            .turn
                            .hand
                            .iter()
                            .chain(self.turn.placed.iter().map(|p| &p.0))
                            .any(|f| self.pos.board().role_at(*f) == Some(Role::Pawn))
                    {
                        self.turn.first_promotion = Some(p.role);
                    }
                }
                match self.turn.hand.pop() {
                    Some(from) if from == sq => self.turn.returned.add(sq),
                    Some(from) => self.turn.placed.push((from, sq, t)),
                    None => {
                        // A new piece from outside the board (promotion), or
                        // a captured piece put back.
                    }
                }
                if self.turn.hand.is_empty() && !self.turn.placed.is_empty() {
                    self.turn.made = true;
                    self.turn.relifted = Bitboard::EMPTY;
                }
            }
        }
    }

    /// Whether a lift on `sq` at `t` (one board for both players) begins
    /// the opponent's reply to a move made and not pressed. The mover's
    /// move stood made (he held nothing with a piece set down). A piece of
    /// the opponent's lifted while the mover holds only pieces of his
    /// lifted again from where he set them down begins it (the opponent
    /// took the moved piece first). Otherwise the mover holds nothing and
    /// has set down at least one piece, and either
    ///
    /// - the piece is the opponent's (not the pawn a pawn of the mover's,
    ///   gone diagonally to an empty square, took en passant): the same
    ///   split as `unpressed.rs` makes at completion; or
    /// - the piece is the mover's (one he set down, or another) and every
    ///   piece he set down has stood for the release time, none a king two
    ///   files over (a castling whose rook may still come): his move is
    ///   made and released (§4.6 / 2023 4.7), he can no longer change it,
    ///   so only the opponent, who has the move, lifts it: to capture it.
    fn reply_begins(&self, sq: Square, t: u64) -> bool {
        let side = self.pos.turn();
        let b = self.pos.board();
        if self.boards.len() > 1 || !self.turn.made {
            return false;
        }
        // A piece of the opponent's lifted while the mover holds nothing,
        // or only his own moved pieces lifted again from where he set them
        // down (the opponent takes the moved piece, then lifts his own).
        let opponent_may_lift = self
            .turn
            .hand
            .iter()
            .all(|s| self.turn.relifted.contains(*s));
        if !self.turn.hand.is_empty() || self.turn.placed.is_empty() {
            return b.color_at(sq) == Some(!side)
                && opponent_may_lift
                && !self.turn.placed.iter().any(|&(_, to, _)| to == sq);
        }
        // Every piece the mover set down has stood for the release time,
        // and no castling waits for its rook.
        let released = self.turn.placed.iter().all(|&(from, to, at)| {
            let castling =
                b.role_at(from) == Some(Role::King) && from.file().distance(to.file()) > 1;
            at + self.cfg.release_ms <= t && !castling
        });
        if self.turn.placed.iter().any(|&(_, to, _)| to == sq) {
            // The mover's piece where he set it down: taken by the opponent.
            return released;
        }
        match b.color_at(sq) {
            Some(c) if c == side => released,
            Some(_) => !self.turn.placed.iter().any(|&(from, to, _)| {
                b.role_at(from) == Some(Role::Pawn)
                    && from.file() != to.file()
                    && b.piece_at(to).is_none()
                    && Square::from_coords(to.file(), from.rank()) == sq
            }),
            None => false,
        }
    }

    /// Reports the lifts confirmed up to `t` (all of them when `flush`) as
    /// touches of the player on move (§4.3), unless they are adjustments,
    /// copying the opponent's move (E2.2) or restoring the position.
    pub(super) fn emit_touches(&mut self, t: u64, flush: bool, out: &mut Decisions) {
        let by = self.pos.turn();
        let mi = self.mi();
        for (bi, slot) in self.boards.iter_mut().enumerate() {
            if bi != mi || !slot.synced {
                // Lifts on the other board, or while copying the opponent's
                // move, are not touches of the player on move.
                slot.sensed.confirmed_lifts(t, true);
            }
        }
        let board_name = self.boards[mi].id.as_str();
        for l in self.boards[mi].sensed.confirmed_lifts(t, flush) {
            if self.phase.is_restoring() {
                continue;
            }
            // The piece actually there: the mover's own, lifted again from
            // where he set it down (by him, or by the opponent taking it),
            // else the last completed position's.
            let moved = self
                .turn
                .lifted_after_move
                .iter()
                .rev()
                .find(|(sq, _, at)| *sq == l.square && *at == l.t)
                .map(|(_, p, _)| *p);
            let Some(piece) = moved.or_else(|| self.pos.board().piece_at(l.square)) else {
                continue;
            };
            if self.turn.adjusted_by_other.contains(l.square) && piece.color != by {
                // The player not on move adjusting his own piece (§4.2,
                // logged when declared): not a touch by the player on move.
                self.turn.adjusted_by_other.discard(l.square);
                continue;
            }
            if self.turn.adjust_next {
                // j'adoube (§4.2): this lift is an adjustment, not a touch.
                self.turn.adjust_next = false;
                // But a deliberate touch where the claim's window closes on
                // one (2001 §4.6, 2009-DK §4.7 "med vilje rører en brik").
                if self.cfg.profile.adjustment_ends_touch_claim
                    && self.pending_breach.as_ref().is_some_and(|b| b.by != by)
                {
                    self.pending_breach = None;
                }
                continue;
            }
            // A lift after the opponent began his reply to a move made and
            // not pressed is his: he has the move (2009 §1.1, 2023 1.3).
            let toucher = if self.turn.reply_at.is_some_and(|r| l.t >= r) {
                !by
            } else {
                by
            };
            // The claimant loses the right to claim a §4 breach once he
            // touches a piece (2009 §4.7, 2001 §4.6, 2023 4.8).
            if self
                .pending_breach
                .as_ref()
                .is_some_and(|b| b.by != toucher)
            {
                self.pending_breach = None;
            }
            self.turn.touches.push(Touch {
                square: l.square,
                piece,
                t: l.t,
            });
            out.push(Event {
                t: l.t,
                kind: EventKind::Touch {
                    by: By(toucher),
                    square: l.square.to_string(),
                    piece: piece.char().to_string(),
                    board: board_name,
                },
            });
            // The opponent's draw offer lapses (2009 §9.1b(1)), said after
            // the touch that ends it.
            self.lapse_offer_on_touch(toucher, l.t, out);
        }
    }

    /// The §4 breach, if any, of completing `mv` after this turn's touches
    /// and releases.
    pub(super) fn touch_breach(&self, mv: &Move) -> Option<Breach> {
        if let Some(b) = self.announced_breach(mv) {
            return Some(b);
        }
        let by = self.pos.turn();
        // The lift that starts the move itself, after other pieces were
        // touched, is the act of moving, not another touch: the obligation
        // comes from the earlier touches (castling keeps its king-and-rook
        // order, §4.4).
        let mut touches = touch::order(&self.turn.touches, by, self.cfg.touch_window_ms);
        if touches.len() > 1 && !mv.is_castle() {
            let last = touches[touches.len() - 1];
            if touch::destination(mv, last.square).is_some()
                && !self.turn.returned.contains(last.square)
            {
                touches.pop();
            }
        }
        touch::check(
            &self.pos,
            &touches,
            &self.turn.releases,
            self.turn.first_promotion,
            mv,
            &self.cfg.profile.touch,
        )
    }
}
