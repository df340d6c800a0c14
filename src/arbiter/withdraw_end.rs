//! A game end the board declared on its own, cancelled by the arbiter
//! (issue 40 §2: "cancel a game end the board declared"; the board is the
//! arbiter's eye, not the arbiter). The board ends the game alone where
//! the Laws decide without anyone: checkmate, stalemate and a dead
//! position (2023 5.1.1 / 5.2.1 / 5.2.2, 2009 §5.1a / §5.2a / §5.2b), a
//! flag (2023 6.9, 2009 §6.9), 2023 9.6's fivefold and seventy-five moves,
//! and the illegal-move count (7.5.5, withdrawn in `withdraw.rs`). What it
//! read can be wrong: a misread piece gives a false mate or a false dead
//! position, a defective clock a false flag (2023 6.10.1 "Any indication
//! given by the clocks is considered to be conclusive in the absence of
//! any evident defect. A chessclock with an evident defect shall be
//! replaced by the arbiter, who shall use his/her best judgement when
//! determining the times to be shown"; 2009 §6.10a). `withdraw` naming the
//! `game_end` reopens the game, its result withdrawn, as a journaled ruling
//! with its reason, undone by `undo` like any ruling of the game:
//!
//! - checkmate, stalemate, a dead position: the move that ended the game
//!   (as the board read it) is taken back; the player who made it is on
//!   move again, his clock running (the position after the move really
//!   made is then set with `position`, or made again on the board);
//! - a flag (a loss on time, a draw against insufficient material, both
//!   flags): the game goes on from its position with the clocks the
//!   arbiter gives (`white_ms`, `black_ms`); refused (409) while a clock
//!   would still show a flag, naming it;
//! - fivefold, seventy-five moves: the game goes on from its position; the
//!   board does not declare the same end again (fivefold: until a
//!   position occurs five times after the withdrawal; seventy-five moves:
//!   until a capture or a pawn move).
//!
//! A result a player or the arbiter gave (resignation, agreement, a
//! declared result, a claim) is not the board's: refused, naming the way
//! to correct it (`confirm` with another result, `undo`, `overrule`).

use super::announce::Decisions;
use super::matter::{ruling, side, OpenRuling};
use super::phase::Outcome;
use super::refusal::{hms, impossible, stale, Applied, Refusal};
use super::Arbiter;
use crate::model::EndReason;
use crate::rules::RulingArticles;
use crate::trace::PenaltyRef;
use shakmaty::{Color, Position};

/// A game end the arbiter withdrew that the board must not declare again
/// at once: its reason and the completed plies then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct WithdrawnEnd {
    reason: EndReason,
    ply: u32,
}

/// The game end a `withdraw` names: its `game_end` event's round time
/// (ms, when named) and the clocks (White, Black, ms) it goes on with.
pub(super) type EndRef = (Option<u64>, Option<(u64, u64)>);

/// How a game end the board declared is withdrawn.
enum Kind {
    /// The move that ended it is taken back (a misread position).
    TakeBack,
    /// The game goes on from its position, the clocks set (a flag).
    Flag,
    /// The game goes on from its position (9.6's automatic draws).
    InPlace,
}

/// How the game end `o` is withdrawn, when it is one the board can declare
/// alone: the automatic ends, and the draw 2023 A.5.4 gives the arbiter,
/// which the board declares as the arbiter's eye (`[event]
/// board_observes_illegal_moves`).
fn kind(o: &Outcome) -> Option<Kind> {
    Some(match o.reason {
        EndReason::ArbiterDecision if o.article == "A.5.4" => Kind::InPlace,
        EndReason::Checkmate | EndReason::Stalemate | EndReason::DeadPosition => Kind::TakeBack,
        EndReason::Time | EndReason::TimeVsInsufficientMaterial | EndReason::BothFlags => {
            Kind::Flag
        }
        EndReason::Fivefold | EndReason::SeventyFiveMoves => Kind::InPlace,
        _ => return None,
    })
}

impl Arbiter {
    /// The game end a `withdraw` names, when it names one: `"event":
    /// {"type": "game_end", …}` or times given (`PenaltyRef::End`), or
    /// made from the `game_end` alert (`expect.event`); `(its t, the
    /// times)`.
    pub(super) fn names_end(
        r: PenaltyRef,
        expect: Option<&crate::trace::Expect>,
    ) -> Option<EndRef> {
        match r {
            PenaltyRef::End { t, times } => Some((t, times)),
            PenaltyRef::Answered => expect
                .and_then(|e| e.event.as_ref())
                .filter(|e| e.kind == "game_end")
                .map(|e| (Some(e.t), None)),
            _ => None,
        }
    }

    /// Why the game's end `o` is no game end the board declared alone,
    /// when it is not (the refusal names how to correct it instead).
    fn not_the_boards(&self, o: &Outcome) -> Option<Refusal> {
        let by_ruling = self
            .rulings
            .iter()
            .rev()
            .find(|r| r.t == o.t && r.undone_by.is_none() && r.action != "withdraw");
        let words = format!("{} ({})", o.result.as_str(), o.reason);
        match (kind(o), by_ruling) {
            (Some(_), Some(r)) if matches!(r.action, "result" | "confirm") => {
                Some(impossible(format!(
                    "{words} was declared by the arbiter (ruling #{}, {}), not by the board: undo \
                     ruling #{} to withdraw it",
                    r.seq, r.action, r.seq
                )))
            }
            (Some(_), _) => None,
            (None, _) => Some(impossible(match o.reason {
                EndReason::Threefold | EndReason::FiftyMoves => format!(
                    "{words} ended the game on a player's claim, not by the board alone: overrule \
                     the claim if it was incorrect, or correct the result (confirm)"
                ),
                _ => match by_ruling {
                    Some(r) => format!(
                        "{words} was given by ruling #{} ({}), not by the board: undo ruling #{} or \
                         correct the result (confirm)",
                        r.seq, r.action, r.seq
                    ),
                    None => format!(
                        "{words} was not the board's decision (a player's or the arbiter's): \
                         correct the result (confirm with another result) instead"
                    ),
                },
            })),
        }
    }

    /// The "Cancel the board's …" ruling of the open `game_end` matter,
    /// with its effect in words, when the game end is the board's own and
    /// not the illegal-move count's (`penalty_rulings` has that one).
    pub(super) fn end_withdrawal_ruling(&self, o: &Outcome) -> Option<OpenRuling> {
        if o.reason == EndReason::IllegalMoves || self.not_the_boards(o).is_some() {
            return None;
        }
        let words = format!("{} ({})", o.result.as_str(), o.reason);
        let label = match o.reason {
            EndReason::ArbiterDecision => format!("Cancel the board's draw ({})", o.article),
            r => format!("Cancel the board's {}", r.as_str().replace('_', " ")),
        };
        let (body, effect) = match kind(o)? {
            Kind::TakeBack => {
                let m = self.moves.last()?;
                (
                    serde_json::Value::Null,
                    format!(
                        "the board's {words} is withdrawn (a misread position): {} as the board \
                         read it is taken back, {} to move again with his clock running; set the \
                         position after the move really made, or let him make it again",
                        m.san,
                        side(m.by)
                    ),
                )
            }
            Kind::Flag => {
                let (w, b) = self.clock.as_ref()?.remaining_at(self.now.max(o.t));
                (
                    serde_json::json!({"white_ms": w, "black_ms": b}),
                    format!(
                        "the board's {words} is withdrawn (a defective clock): the game goes on \
                         with the clocks you give (now White {} · Black {}; a clock at 0 is \
                         refused), {}'s clock running",
                        hms(w),
                        hms(b),
                        side(self.pos.turn())
                    ),
                )
            }
            Kind::InPlace => (
                serde_json::Value::Null,
                format!(
                    "the board's {words} is withdrawn: the game goes on from its position, {} to \
                     move with his clock running; the board does not declare it again on the same record",
                    side(self.pos.turn())
                ),
            ),
        };
        Some(ruling("withdraw", body, &label, effect))
    }

    /// `withdraw` of the game end (at `end_t`, when named): the game goes
    /// on, its result withdrawn; `times` (White, Black, ms) set the clocks
    /// of a flag's end.
    pub(super) fn withdraw_end(
        &mut self,
        end_t: Option<u64>,
        times: Option<(u64, u64)>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let Some(o) = self.outcome() else {
            return Err(stale(
                "the game is not over: there is no game end to withdraw",
            ));
        };
        if let Some(et) = end_t.filter(|et| *et != o.t) {
            return Err(stale(format!(
                "the game end at t = {et} ms is no longer the game's: it ended {} ({}) at t = {} ms",
                o.result.as_str(),
                o.reason,
                o.t
            )));
        }
        if o.reason == EndReason::IllegalMoves {
            if times.is_some() {
                return Err(impossible(
                    "the game was lost by the illegal-move count, not on time: withdraw it without \
                     times, and set the clocks once it goes on",
                ));
            }
            return self.withdraw(PenaltyRef::Event(o.t), None, t, out);
        }
        if let Some(r) = self.not_the_boards(&o) {
            return Err(r);
        }
        let words = format!("{} ({})", o.result.as_str(), o.reason);
        let ra = RulingArticles::of(self.cfg.profile.edition);
        let k = kind(&o).ok_or_else(|| impossible("not the board's game end"))?;
        if times.is_some() && !matches!(k, Kind::Flag) {
            return Err(impossible(format!(
                "{words} is no flag: the clocks are not part of withdrawing it (set them with \
                 `clock` once the game goes on)"
            )));
        }
        let (article, what) = match k {
            Kind::TakeBack => {
                if self.moves.is_empty() || self.history.len() < 2 {
                    return Err(impossible(format!(
                        "{words} is the start position's: no move to take back; set the position \
                         (a new start before the first move)"
                    )));
                }
                let m = self.moves.pop().expect("a move");
                self.history.pop();
                self.keys.pop();
                self.pos = self.history.last().cloned().expect("the start position");
                (
                    ra.position,
                    format!(
                        "{} as the board read it taken back (ply {} → {})",
                        m.san,
                        self.ply() + 1,
                        self.ply()
                    ),
                )
            }
            Kind::Flag => {
                let Some(c) = self.clock.as_ref() else {
                    return Err(impossible("no clock runs on this board"));
                };
                let (w, b) = c.remaining_at(t);
                let (nw, nb) = times.unwrap_or((w, b));
                let zero: Vec<&str> = [(Color::White, nw), (Color::Black, nb)]
                    .iter()
                    .filter(|(_, ms)| *ms == 0)
                    .map(|(c, _)| side(*c))
                    .collect();
                if !zero.is_empty() {
                    return Err(stale(format!(
                        "{}'s clock would still show the flag (0:00:00): give the times the game \
                         goes on with (\"white_ms\", \"black_ms\"; the arbiter's best judgement, \
                         a defective clock {})",
                        zero.join(" and "),
                        ra.clock
                    )));
                }
                if let Some(c) = self.clock.as_mut() {
                    c.set(nw, nb, t);
                }
                self.flags.clear();
                (
                    ra.clock,
                    format!(
                        "clocks White {} → {}, Black {} → {}",
                        hms(w),
                        hms(nw),
                        hms(b),
                        hms(nb)
                    ),
                )
            }
            Kind::InPlace => {
                self.ends_withdrawn.push(WithdrawnEnd {
                    reason: o.reason,
                    ply: self.ply(),
                });
                (
                    o.article,
                    "the position stands; the board does not declare it again".to_owned(),
                )
            }
        };
        self.resume_play();
        self.original_outcome = None;
        self.pending_illegal = None;
        self.pending_breach = None;
        self.take_back_state(t);
        let on_move = self.pos.turn();
        let started = self.clock_started;
        if let Some(c) = self.clock.as_mut().filter(|_| started) {
            if c.running().is_none() {
                c.start(on_move, t);
            }
        }
        self.push_clock(t, out);
        let put_right = if self.phase.is_restoring() {
            let bi = self.mi();
            format!(
                "; the board shows another position (squares {}): to be set up",
                crate::model::square_names(self.boards[bi].sensed.differences(self.pos.board()))
                    .join(" ")
            )
        } else {
            String::new()
        };
        let runs = if self.clock.is_some() && started {
            format!(", {}'s clock runs", side(on_move))
        } else {
            String::new()
        };
        Ok(Applied {
            article,
            effect: format!(
                "the board's {words} withdrawn: {what}; the game goes on, {} to move{runs}{put_right}",
                side(on_move)
            ),
        })
    }

    /// Whether the board's end `reason` was withdrawn by the arbiter for
    /// the position now, so it is not declared again: fivefold, while the
    /// position has not occurred five times since the withdrawal (the
    /// record before it is what the arbiter found wrong); seventy-five
    /// moves, while no capture or pawn move was made since.
    pub(super) fn end_withdrawn(&self, reason: EndReason) -> bool {
        let ply = self.ply();
        self.ends_withdrawn
            .iter()
            .filter(|w| w.reason == reason && w.ply <= ply)
            .any(|w| match reason {
                EndReason::Fivefold => {
                    let now = self.keys.last();
                    let since = self.keys.iter().skip(w.ply as usize);
                    since.filter(|k| Some(*k) == now).count() < 5
                }
                _ => self
                    .history
                    .get(w.ply as usize)
                    .is_some_and(|p| p.halfmoves() + (ply - w.ply) == self.pos.halfmoves()),
            })
    }
}
