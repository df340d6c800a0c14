//! The end of the game: by the position after a move (§5: checkmate,
//! stalemate, a dead position; 2023 9.6: fivefold, seventy-five moves), by
//! resignation, on time (§6.9), and the draws the player on move may claim
//! then (§9.2, §9.3). A move that ends the game counts as made without a
//! clock press once it settles on the board ([`Phase::Settling`](super::Phase::Settling)).

use super::announce::Decisions;
use super::phase::{Outcome, PendingEnd};
use super::refusal::{impossible, Refusal};
use super::{dead, Arbiter};
use crate::legal;
use crate::model::{win_for, ClaimKind, EndReason, KnownOutcome, Score};
use crate::recognize::{may_show_explained_move, recognize, Recognition};
use crate::rules::RulingArticles;
use crate::trace::{Event, EventKind};
use shakmaty::{Color, Position};

impl Arbiter {
    /// `side` resigns (§5.1b; 2023 5.1.2: a draw against an opponent who
    /// cannot mate).
    pub(super) fn resign(&mut self, side: Color, t: u64, out: &mut Decisions) {
        let p = self.cfg.profile;
        // 2023 5.1.2: resigning against an opponent who cannot mate is a draw.
        if p.resignation_needs_mating_chance && dead::can_mate(&self.pos, !side) == Some(false) {
            self.end(
                KnownOutcome::Draw,
                EndReason::Resignation,
                p.articles.resignation,
                t,
                out,
            );
        } else {
            self.end(
                win_for(!side),
                EndReason::Resignation,
                p.articles.resignation,
                t,
                out,
            );
        }
    }

    /// A move that ends the game is complete when made (§6.7a exceptions):
    /// watch for one on the board at `t`, and let it settle before it counts.
    pub(super) fn watch_for_game_end(&mut self, t: u64) {
        self.cancel_pending_end();
        // Most readings (a lift, a hand in the air) cannot show a move the
        // history fully explains: no move generation for those.
        let reading = self.reading(self.mi());
        if !may_show_explained_move(&self.pos, &reading) {
            return;
        }
        if let Recognition::Move {
            mv,
            promotion_assumed,
            missing: 0,
            tied,
        } = recognize(&self.pos, &reading, self.turn.promote)
        {
            // A reading that fits several moves is never a guess: it waits
            // for the press (src/arbiter/ambiguous.rs); a promotion on the
            // tactile board waits for the piece to be named (E2.3).
            if !tied.is_empty() || (promotion_assumed && self.plays_tactile(self.pos.turn())) {
                return;
            }
            // 2023 5.1.1 / 5.2.1 / 5.2.2: a move breaking Article 4 ends
            // nothing when made; it waits for the press like any move.
            if self.cfg.profile.game_end_needs_article_4() && self.touch_breach(&mv).is_some() {
                return;
            }
            let mut after = self.pos.clone();
            after.play_unchecked(mv);
            if legal::is_checkmate(&after)
                || legal::is_stalemate(&after)
                || dead::is_dead_fast(&after)
            {
                self.settle(PendingEnd {
                    mv,
                    t,
                    promotion_assumed,
                });
            }
        }
    }

    /// The end of the game by the position (§5) and the automatic draws of
    /// 2023 9.6; the draws the player on move may claim (§9.2, §9.3).
    pub(super) fn after_move(&mut self, by: Color, t: u64, out: &mut Decisions) {
        let p = self.cfg.profile;
        let a = p.articles;
        // 2023 5.1.1 / 5.2.1 / 5.2.2: only a move "in accordance with
        // Article 3 and Articles 4.2 – 4.7" ends the game by the position;
        // one that broke Article 4 stands open to the opponent's claim
        // (4.8) and the arbiter's decision.
        // (9.6's automatic draws have no such proviso.)
        let breached = self.pending_breach.as_ref().is_some_and(|b| b.by == by);
        let by_position = !(p.game_end_needs_article_4() && breached);
        if by_position && legal::is_checkmate(&self.pos) {
            self.end(win_for(by), EndReason::Checkmate, a.checkmate, t, out);
            return;
        }
        if by_position && legal::is_stalemate(&self.pos) {
            self.end(
                KnownOutcome::Draw,
                EndReason::Stalemate,
                a.stalemate,
                t,
                out,
            );
            return;
        }
        if by_position && dead::is_dead_fast(&self.pos) {
            self.end(
                KnownOutcome::Draw,
                EndReason::DeadPosition,
                a.dead_position,
                t,
                out,
            );
            return;
        }
        let reps = self.repetitions();
        // A 9.6 draw the arbiter withdrew is not declared again for the
        // same position / run of moves (`withdraw_end.rs`).
        if p.automatic_fivefold && reps >= 5 && !self.end_withdrawn(EndReason::Fivefold) {
            self.end(KnownOutcome::Draw, EndReason::Fivefold, a.fivefold, t, out);
            return;
        }
        if p.automatic_fivefold
            && self.pos.halfmoves() >= 150
            && !self.end_withdrawn(EndReason::SeventyFiveMoves)
        {
            self.end(
                KnownOutcome::Draw,
                EndReason::SeventyFiveMoves,
                a.seventy_five_moves,
                t,
                out,
            );
            return;
        }
        if reps >= 3 {
            out.push(Event {
                t,
                kind: EventKind::DrawClaimable {
                    kind: ClaimKind::Threefold,
                    article: a.threefold,
                },
            });
        }
        if self.pos.halfmoves() >= 100 {
            out.push(Event {
                t,
                kind: EventKind::DrawClaimable {
                    kind: ClaimKind::FiftyMoves,
                    article: a.fifty_moves,
                },
            });
        }
    }

    /// How often the current position has occurred (§9.2: same player on
    /// move, same pieces, same castling and en passant possibilities).
    pub(super) fn repetitions(&self) -> usize {
        let k = self.keys[self.keys.len() - 1];
        self.keys.iter().filter(|x| **x == k).count()
    }

    /// What a result the arbiter declares on a game still going on is, given
    /// the flags that have fallen (2009 §6.8–§6.9, 2023 6.9): the win of a
    /// flagged player's opponent is a loss on time; a draw is the flag's
    /// draw when that opponent cannot checkmate by any legal sequence
    /// (`time_vs_insufficient_material`); that opponent's win is then
    /// refused (422), the Laws give a draw. Any other result is the
    /// arbiter's decision (2009 §13.1 / 2023 12.1).
    ///
    /// Both flags down where that draws (2009 A4d3 "skal dommeren erklære
    /// partiet remis", 2001 B8 "er partiet remis"; `both_flags_down`): a
    /// win is no win on time; it is refused (422) unless the arbiter gives
    /// his `ground` (the ruling's reason), and then it is his penalty, the
    /// game declared lost (2009 / 2001 §13.4d "Erklære partiet for tabt"),
    /// cited `articles.arbiter`, never 6.9.
    pub(super) fn flag_declared(
        &self,
        result: KnownOutcome,
        ground: bool,
    ) -> Result<(EndReason, &'static str), Refusal> {
        let a = self.cfg.profile.articles;
        let name = |c: Color| if c == Color::White { "White" } else { "Black" };
        if self.both_flags_down() {
            return match (result, ground) {
                (KnownOutcome::Draw, _) => Ok((EndReason::BothFlags, a.both_flags)),
                (_, true) => Ok((EndReason::ArbiterDecision, a.arbiter)),
                (_, false) => Err(impossible(format!(
                    "both flags have fallen: the game is drawn once a player claims or the arbiter \
                     declares it ({}), not won on time; declare 1/2-1/2 — or, to declare the game \
                     lost as a penalty ({}), give the reason",
                    a.both_flags, a.arbiter
                ))),
            };
        }
        for &s in &self.flags {
            let cannot_mate = dead::can_mate(&self.pos, !s) == Some(false);
            if result == win_for(!s) && cannot_mate {
                return Err(impossible(format!(
                    "{}'s flag has fallen, but {} cannot checkmate by any legal sequence: the game \
                     is drawn ({}), not {}; declare 1/2-1/2",
                    name(s),
                    name(!s),
                    a.time,
                    result.as_str()
                )));
            }
            if result == win_for(!s) {
                return Ok((EndReason::Time, a.time));
            }
            if result == KnownOutcome::Draw && cannot_mate {
                return Ok((EndReason::TimeVsInsufficientMaterial, a.time));
            }
            if result == KnownOutcome::Draw && self.postponed_claim_of(s).is_some() {
                return Ok((EndReason::ArbiterDecision, a.quickplay));
            }
        }
        Ok((
            EndReason::ArbiterDecision,
            RulingArticles::of(self.cfg.profile.edition).result,
        ))
    }

    /// `side` loses on time, or draws when the opponent cannot mate by any
    /// legal sequence (§6.9).
    pub(super) fn time_forfeit(
        &mut self,
        side: Color,
        article: &'static str,
        t: u64,
        out: &mut Decisions,
    ) {
        if dead::can_mate(&self.pos, !side) == Some(false) {
            self.end(
                KnownOutcome::Draw,
                EndReason::TimeVsInsufficientMaterial,
                article,
                t,
                out,
            );
        } else {
            self.end(win_for(!side), EndReason::Time, article, t, out);
        }
    }

    /// Ends the game (the first end stands): the clock stops and `game_end`
    /// is reported.
    pub(super) fn end(
        &mut self,
        result: impl Into<Score>,
        reason: EndReason,
        article: &'static str,
        t: u64,
        out: &mut Decisions,
    ) {
        self.end_with(result, (reason, article), false, t, out);
    }

    /// [`Arbiter::end`], `declared` when the arbiter declared the result
    /// himself (the `game_end` says so: no result waits for his
    /// confirmation, issue 40.6).
    pub(super) fn end_with(
        &mut self,
        result: impl Into<Score>,
        (reason, article): (EndReason, &'static str),
        declared: bool,
        t: u64,
        out: &mut Decisions,
    ) {
        let result = result.into();
        let outcome = Outcome {
            result,
            reason,
            article,
            t,
        };
        if !self.enter_ended(outcome) {
            return;
        }
        if let Some(c) = self.clock.as_mut() {
            c.stop(t);
        }
        out.push(Event {
            t,
            kind: EventKind::GameEnd {
                result,
                reason,
                article,
                declared,
            },
        });
    }
}
