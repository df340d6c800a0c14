//! The clock (§6): the press that completes a move, the flags, and the
//! clock times reported after each change.

use super::announce::Decisions;
use super::{Arbiter, CompletedMove, Completion};
use crate::clock::Clock;
use crate::model::IrregularityKind;
use crate::recognize::{recognize, Recognition};
use crate::trace::{By, Event, EventKind};
use shakmaty::{Bitboard, Color, Position, Rank, Role};

impl Arbiter {
    /// The timers due strictly before `t`, in the order the game takes
    /// them ([`Arbiter::advance`] puts their decisions in time order).
    pub(super) fn fire_timers(&mut self, t: u64, out: &mut Decisions) {
        self.emit_touches(t.saturating_sub(1), false, out);
        self.close_claim_window(t);
        if self.boards.len() > 1 {
            self.check_divergence(t, out);
            self.announce_settled_vi_move(t, out);
        }
        if let Some(p) = self.phase.pending_end() {
            let settled_at = p.t + self.cfg.settle_ms;
            if t >= settled_at {
                let completed = p.completed();
                self.complete(completed, settled_at, out);
                return;
            }
        }
        self.fall_flags(t, out);
    }

    /// `side` presses his clock (§6.2): it completes the move the board
    /// shows, or is an illegal move, or an irregularity.
    pub(super) fn press(&mut self, side: Color, t: u64, out: &mut Decisions) {
        if self.ended() {
            return;
        }
        self.emit_touches(t, true, out);
        if self.paused() {
            // The arbiter decides when the game restarts (2009 §6.12c, 2001
            // §6.13c, 2023 6.11.3): the press is shown to him, not applied;
            // the move on the board waits for the press after his resume.
            // So too after the daemon's own pause for a downtime it could
            // not show harmless (`DOWNTIME_AUTHOR`, docs/clock.md, "A
            // restart"): only the arbiter's resume ends it.
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::PressDuringPause,
                    article: self.cfg.profile.article_pause_holds(),
                    squares: Vec::new(),
                },
            });
            return;
        }
        if !self.clock_started && self.clock.is_some() && self.moves.is_empty() {
            // §6.5: the game starts. The player not on move presses at the
            // arbiter's word (his opponent's clock starts), or the player on
            // move completes his first move (his clock starts at the press:
            // the set-up cost him nothing).
            self.start_clocks(t);
            if side != self.pos.turn() {
                self.push_clock(t, out);
                // The first move made and not pressed, then the reply made:
                // both are read from the board (`unpressed.rs`).
                self.press_after_unpressed(side, t, out);
                return;
            }
        }
        if side != self.pos.turn() {
            // The clock of the player not on move is not running: a press on
            // it changes nothing (§6.7a). But his opponent's move may have
            // been made without a press and his own made after it (he had
            // the move, §1.1 / 2023 1.3): the board is read as both moves
            // (`unpressed.rs`).
            self.press_after_unpressed(side, t, out);
            return;
        }
        let bi = self.mi();
        let reading = recognize(&self.pos, &self.reading(bi), self.turn.promote);
        // A copy error on the mover's board, corrected from the record
        // (E2.7): his move stands; the squares are named after it (a
        // person says the move first), unless they were named already.
        let copy_wrong = match reading {
            Recognition::Move { .. } if !self.boards[bi].synced => self.boards[bi]
                .copy_reading(&self.pos, self.turn.promote)
                .map(|r| r.wrong),
            _ => None,
        };
        match reading {
            Recognition::Move {
                mv,
                promotion_assumed: true,
                ..
            } if self.plays_tactile(side) && self.forced.is_none() => {
                // E2.3: the move is not made before it is announced, and it
                // is not announced with a piece assumed: it waits for the
                // player's answer.
                self.ask_promotion_piece(side, &mv, t, out);
                self.check_press_after_announcement(side, &mv, t, out);
            }
            Recognition::Move {
                mut mv,
                mut promotion_assumed,
                tied,
                ..
            } => {
                // A held reading's candidate (ambiguous.rs): the board fits it
                // as well as the first.
                if let Some(f) = self.forced.take().filter(|f| tied.contains(f)) {
                    promotion_assumed &= f.is_promotion();
                    mv = f;
                }
                // E2.3: the visually impaired player starts the clock only
                // after his move was made and announced.
                self.check_press_after_announcement(side, &mv, t, out);
                let completed = CompletedMove {
                    mv,
                    how: Completion::Pressed,
                    promotion_assumed,
                };
                self.complete(completed, t, out);
                if let Some(wrong) = copy_wrong {
                    self.report_boards_differ(bi, wrong, t, out);
                }
            }
            Recognition::NoMove => {
                let a = self.cfg.profile.articles;
                if self.cfg.profile.press_without_move_is_illegal {
                    // 2023 A.5.2 / B.3: alerted, ruled on a claim or by the
                    // arbiter (`illegal.rs`); else ruled at the press.
                    if !self.press_without_move_alerted(side, t, out) {
                        self.illegal(side, a.press_without_move, Bitboard::EMPTY, false, t, out);
                    }
                } else {
                    out.push(Event {
                        t,
                        kind: EventKind::Irregularity {
                            kind: IrregularityKind::ClockPressedWithoutMove,
                            article: a.press_without_move,
                            squares: Vec::new(),
                        },
                    });
                }
            }
            // His move made and not pressed, his opponent's reply, and his
            // next move: three moves on the board (`unpressed.rs`).
            Recognition::NoLegalMove { .. } if self.press_after_unpressed(side, t, out) => {}
            Recognition::NoLegalMove { .. }
                if bi == 0 && self.moves.is_empty() && self.try_turned_board(t, out) =>
            {
                self.press(side, t, out);
            }
            Recognition::NoLegalMove { .. }
                if bi == 0
                    && self.setup_unsettled()
                    && self.move_from_wrong_setup(side, t, out) => {}
            Recognition::NoLegalMove { .. } if self.try_displaced(side, bi, t, out) => {}
            Recognition::NoLegalMove { differs } => {
                let last_rank = match side {
                    Color::White => Rank::Eighth,
                    Color::Black => Rank::First,
                };
                let pawn_on_last_rank = differs.into_iter().any(|sq| {
                    sq.rank() == last_rank
                        && self.boards[bi]
                            .sensed
                            .piece_at(sq)
                            .map(|p| (p.role, p.color))
                            == Some((Role::Pawn, side))
                });
                let a = self.cfg.profile.articles;
                let article = if pawn_on_last_rank {
                    a.incomplete_promotion
                } else {
                    a.illegal_move
                };
                self.illegal(side, article, differs, pawn_on_last_rank, t, out);
            }
        }
    }

    /// The flags that fall at or before `t` (§6.8): a flag falls exactly
    /// when the clock shows zero, so a press at that very moment comes after
    /// it and completes no move in time. A move that ends the game, made
    /// before the flag fell, ends it first (§6.9: the game ended with the
    /// mate or stalemate).
    pub(super) fn fall_flags(&mut self, t: u64, out: &mut Decisions) {
        while let Some((side, tf)) = self.clock.as_ref().and_then(Clock::flag_time) {
            if tf > t || self.ended() {
                break;
            }
            if let Some(p) = self.phase.pending_end().filter(|p| p.t <= tf) {
                let (completed, at) = (p.completed(), p.t);
                self.complete(completed, at, out);
                return;
            }
            // 2023 6.2.1.2: his next move, made, completed the one he did not
            // press; it counts toward the time control before his flag.
            if self.complete_by_next_move_made(side) {
                continue;
            }
            self.flag(side, tf, out);
        }
    }

    /// `side`'s flag falls at `t` (§6.8): a loss, a draw (§6.9), or only
    /// reported where the opponent must claim.
    pub(super) fn flag(&mut self, side: Color, t: u64, out: &mut Decisions) {
        if let Some(c) = self.clock.as_mut() {
            c.set_flagged(side);
        }
        self.flags.push(side);
        out.push(Event {
            t,
            kind: EventKind::Flag { by: By(side) },
        });
        let p = self.cfg.profile;
        let a = p.articles;
        if p.flag_needs_claim {
            // Only a claim counts (2009 A4d1, 2001 B6/C); the clocks run on,
            // so both flags can fall, and even then only a claim draws
            // (A4d3 "som beskrevet i 1 og 2", `claims.rs`; docs/profiles.md).
            return;
        }
        self.time_forfeit(side, a.time, t, out);
    }

    /// Whether the clocks are paused: the game's clock was started (§6.5)
    /// and both clocks stand while the game goes on (the arbiter's `pause`,
    /// or the daemon's after a downtime it could not measure); only the
    /// arbiter's `resume` starts them again.
    pub(super) fn paused(&self) -> bool {
        self.clock_started
            && !self.ended()
            && self.clock.as_ref().is_some_and(|c| c.running().is_none())
    }

    /// Reports both clocks at `t`.
    pub(super) fn push_clock(&self, t: u64, out: &mut Decisions) {
        if let Some(c) = &self.clock {
            let (w, b) = c.remaining_at(t);
            out.push(Event {
                t,
                kind: EventKind::Clock {
                    white_ms: w,
                    black_ms: b,
                },
            });
        }
    }

    /// Starts the game's clock for the player on move at `t` (§6.5), once.
    pub(super) fn start_clocks(&mut self, t: u64) {
        if self.clock_started {
            return;
        }
        self.clock_started = true;
        self.session_started.get_or_insert(t);
        let side = self.pos.turn();
        if let Some(c) = self.clock.as_mut() {
            if c.running().is_none() {
                c.start(side, t);
            }
        }
    }
}
