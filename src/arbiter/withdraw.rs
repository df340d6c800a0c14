//! The board's penalties for illegal moves reversed by the arbiter (issue
//! 40 §2: the board is the arbiter's eye, not the arbiter). The Laws give
//! the penalty to the arbiter (2023 7.5.5 "the arbiter shall add two
//! minutes to his/her opponent's time"; 2009 §7.4b "skal dommeren give
//! modstanderen to minutter ekstra"), so what the board gave he can take
//! back, as a journaled ruling with its reason and undo:
//!
//! - `withdraw`: the minutes given to the opponent and the offender's
//!   illegal-move count (the next illegal move is counted as if this one
//!   had not been), or the game lost (or drawn) by the count, which then
//!   goes on from the position before the illegal move (7.5.1);
//! - `displaced`: the "illegal move" was a legal move beside pieces
//!   knocked over and put back by the player (2023 7.4.1 "If a player
//!   displaces one or more pieces, he/she shall re-establish the correct
//!   position on his/her own time"; 2009 §7.3): its penalty withdrawn and
//!   the legal move completed, the mover's clock back to what it showed
//!   at his press (plus the increment of the move), the opponent's clock
//!   running.
//!
//! `undo` of either gives everything back (the facts from before it, the
//! clocks by the amounts it changed, `undo.rs`). The feeds drop the
//! illegal-move mark of a withdrawn penalty (`broadcast::parts`).

use super::announce::Decisions;
use super::hand::Turn;
use super::matter::side;
use super::refusal::{hms, impossible, stale, Applied, Refusal};
use super::{ci, Arbiter, CompletedMove, Completion};
use crate::board::SensedBoard;
use crate::model::{IrregularityKind, Penalty};
use crate::trace::{Event, EventKind, Expect, PenaltyRef};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

/// A penalty the board (or a ruling) gave for an illegal move: what a
/// `withdraw` or `displaced` ruling reverses.
#[derive(Debug, Clone)]
pub(super) struct GivenPenalty {
    /// The `illegal_move` event's round time, ms.
    pub(super) t: u64,
    /// The offender.
    by: Color,
    /// What was given.
    penalty: Penalty,
    /// The penalty's article (2023 7.5.5, 2009 §7.4b).
    article: &'static str,
    /// The completed plies when it was given.
    ply: u32,
    /// The position before the illegal move (the offender on move).
    before: Chess,
    /// The offender's clock at his press, ms.
    mover_ms: Option<u64>,
    /// The legal move that best explains the board at the press (the
    /// fewest squares differing from the position after it), when one
    /// does alone.
    pub(super) reading: Option<Move>,
    /// Withdrawn by a ruling.
    pub(super) withdrawn: bool,
}

/// The legal move of `pos` whose position differs from what `sensed`
/// shows on the fewest squares, each square of the move the history does
/// not evidence (its from square not lifted, its destination not placed
/// on) counted as one more, when one alone does: the reading an arbiter
/// who saw pieces knocked over re-classifies the press to.
fn best_reading(pos: &Chess, sensed: &SensedBoard) -> Option<Move> {
    let occ = sensed.occupied();
    let side = pos.turn();
    let mut best: Option<(u32, Move, bool)> = None;
    for mv in crate::legal::legal_moves(pos).iter() {
        let mut after = pos.clone();
        after.play_unchecked(*mv);
        let e = crate::recognize::effect(mv, side);
        let mut filled = shakmaty::Bitboard::EMPTY;
        for (sq, _) in e.filled.iter().flatten() {
            filled.add(*sq);
        }
        let unevidenced = ((e.vacated | e.cleared) & !sensed.lifted()).count()
            + (filled & !sensed.placed()).count();
        let n = ((after.board().occupied() ^ occ).count() + unevidenced) as u32;
        match best {
            Some((b, _, _)) if n > b => {}
            Some((b, m, _)) if n == b => best = Some((b, m, true)),
            _ => best = Some((n, *mv, false)),
        }
    }
    best.filter(|(_, _, tie)| !tie).map(|(_, m, _)| m)
}

impl Arbiter {
    /// Notes the penalty just given to `by` (the `illegal_move` event at
    /// `t`), for the arbiter to withdraw.
    pub(super) fn note_penalty(
        &mut self,
        by: Color,
        penalty: Penalty,
        article: &'static str,
        t: u64,
    ) {
        let reading = (self.pos.turn() == by)
            .then(|| best_reading(&self.pos, &self.boards[self.board_of(by)].sensed))
            .flatten();
        let mover_ms = self.clock.as_ref().map(|c| {
            let (w, b) = c.remaining_at(t);
            if by == Color::White {
                w
            } else {
                b
            }
        });
        self.penalties.push(GivenPenalty {
            t,
            by,
            penalty,
            article,
            ply: self.ply(),
            before: self.pos.clone(),
            mover_ms,
            reading,
            withdrawn: false,
        });
    }

    /// Whether the penalty of the `illegal_move` event at `t` (ms) was
    /// withdrawn by the arbiter (`withdraw`, `displaced`): the feeds drop
    /// its mark.
    pub fn penalty_withdrawn(&self, t: u64) -> bool {
        self.penalties.iter().any(|p| p.t == t && p.withdrawn)
    }

    /// The rulings that reverse the penalty of the `illegal_move` at `t`
    /// (ms), for its open matter: "Withdraw penalty", and "It was
    /// displaced pieces: keep the move" where the board reads the move.
    pub(super) fn penalty_rulings(&self, t: u64) -> Vec<super::matter::OpenRuling> {
        let Some(p) = self.penalties.iter().rfind(|p| p.t == t && !p.withdrawn) else {
            return Vec::new();
        };
        let who = side(p.by);
        let mut v = vec![super::matter::ruling(
            "withdraw",
            serde_json::Value::Null,
            "Withdraw penalty",
            match p.penalty {
                Penalty::GameLost | Penalty::Draw => format!(
                    "the board's penalty ({}) is withdrawn: the game goes on from the position \
                     before the illegal move; {who}'s illegal-move count goes down by one",
                    p.penalty
                ),
                _ => format!(
                    "the board's penalty ({}) is withdrawn and {who}'s illegal-move count goes \
                     down by one; the position before the illegal move stays to be reinstated",
                    p.penalty
                ),
            },
        )];
        let same = |a: &Chess, b: &Chess| a.board() == b.board() && a.turn() == b.turn();
        if let Some(mv) = p
            .reading
            .filter(|_| self.ply() == p.ply && same(&self.pos, &p.before))
        {
            let san = shakmaty::san::SanPlus::from_move(p.before.clone(), mv).to_string();
            v.push(super::matter::ruling(
                "displaced",
                serde_json::json!({"uci": UciMove::from_standard(mv).to_string()}),
                &format!("It was displaced pieces: keep {san}"),
                format!(
                    "{who}'s {san} stands (pieces knocked over and put back, {}): the penalty is \
                     withdrawn, {who}'s clock goes back to what it showed at his press and the \
                     opponent's runs",
                    self.cfg.profile.articles.displaced
                ),
            ));
        }
        v
    }

    /// Whether `expect.event` of a `withdraw` / `displaced` ruling names a
    /// penalty still to withdraw: the alert is answered by it even when
    /// no longer open (the position was reinstated since).
    pub(super) fn names_penalty(&self, ev: &crate::trace::EventRef) -> bool {
        ev.kind == "illegal_move" && self.penalties.iter().any(|p| p.t == ev.t && !p.withdrawn)
    }

    /// The index of the penalty `r` names.
    fn penalty_index(&self, r: PenaltyRef, expect: Option<&Expect>) -> Result<usize, Refusal> {
        let t = match r {
            PenaltyRef::Event(t) => Some(t),
            PenaltyRef::Ruling(n) => match self.rulings.iter().find(|x| x.seq == n) {
                Some(x) => Some(x.t),
                None => {
                    return Err(impossible(format!(
                        "there is no ruling #{n} on this board ({} given)",
                        self.rulings.len()
                    )))
                }
            },
            PenaltyRef::End { .. } => None,
            PenaltyRef::Answered => expect
                .and_then(|e| e.event.as_ref())
                .filter(|e| e.kind == "illegal_move")
                .map(|e| e.t),
        };
        let found = match t {
            Some(t) => self.penalties.iter().rposition(|p| p.t == t),
            None => self.penalties.iter().rposition(|p| !p.withdrawn),
        };
        let Some(i) = found else {
            return Err(impossible(match (t, r) {
                (_, PenaltyRef::Ruling(n)) => {
                    format!("ruling #{n} gave no penalty for an illegal move")
                }
                (Some(t), _) => format!("no penalty was given for an illegal move at t = {t} ms"),
                (None, _) => "no penalty for an illegal move was given in this game".to_owned(),
            }));
        };
        if self.penalties[i].withdrawn {
            return Err(stale(format!(
                "the penalty for the illegal move at t = {} ms was already withdrawn",
                self.penalties[i].t
            )));
        }
        Ok(i)
    }

    /// `withdraw`: the penalty `r` names is taken back.
    pub(super) fn withdraw(
        &mut self,
        r: PenaltyRef,
        expect: Option<&Expect>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        // The game end the board declared (`withdraw_end.rs`).
        if let Some((end_t, times)) = Self::names_end(r, expect) {
            return self.withdraw_end(end_t, times, t, out);
        }
        let i = self.penalty_index(r, expect)?;
        let effect = self.withdraw_at(i, t, out)?;
        Ok(Applied {
            article: self.penalties[i].article,
            effect,
        })
    }

    /// Withdraws penalty `i` at `t`: its effect in words.
    fn withdraw_at(&mut self, i: usize, t: u64, out: &mut Decisions) -> Result<String, Refusal> {
        let p = self.penalties[i].clone();
        let who = side(p.by);
        let n = self.illegal_counts[ci(p.by)];
        let count = format!("{who}'s illegal moves {n} → {}", n.saturating_sub(1));
        let what = match p.penalty {
            Penalty::TimeAdded { to, ms } => {
                if let Some(o) = self.outcome() {
                    return Err(impossible(format!(
                        "the game is over ({}, {}): its clocks no longer count",
                        o.result.as_str(),
                        o.reason
                    )));
                }
                let Some(c) = self.clock.as_mut() else {
                    return Err(impossible("no clock runs on this board"));
                };
                let before = c.remaining_at(t);
                c.adjust(to, -(ms as i64));
                let after = c.remaining_at(t);
                let pick = |x: (u64, u64)| if to == Color::White { x.0 } else { x.1 };
                self.push_clock(t, out);
                format!(
                    "{}'s clock {} → {}",
                    side(to),
                    hms(pick(before)),
                    hms(pick(after))
                )
            }
            Penalty::GameLost | Penalty::Draw => {
                let ended_by_it = self.outcome().is_some_and(|o| {
                    o.reason == crate::model::EndReason::IllegalMoves && o.t == p.t
                });
                if !ended_by_it {
                    return Err(stale(format!(
                        "the game is no longer ended by that illegal move ({})",
                        self.result_words()
                    )));
                }
                let was = self.result_words();
                self.reopen_before(&p, t);
                format!("{was} withdrawn: the game goes on, {who} to replace his move on his own time (7.5.1)")
            }
            Penalty::None => "no penalty had been given".to_owned(),
        };
        self.illegal_counts[ci(p.by)] = n.saturating_sub(1);
        self.penalties[i].withdrawn = true;
        Ok(format!(
            "the penalty for {who}'s illegal move (t = {} ms, {}) withdrawn: {what}; {count}",
            p.t, p.penalty
        ))
    }

    /// A game the count of illegal moves ended goes on from the position
    /// before the illegal move, the offender's clock running.
    fn reopen_before(&mut self, p: &GivenPenalty, t: u64) {
        // An illegal move that stood (a claim ruled on it, 2009 A4c) leaves
        // the record; the game's position is then the one before it.
        if self.moves.last().is_some_and(|m| m.illegal) {
            self.moves.pop();
            self.history.pop();
            self.keys.pop();
        }
        self.pos = self
            .history
            .last()
            .cloned()
            .unwrap_or_else(|| p.before.clone());
        self.resume_play();
        self.pending_illegal = None;
        self.turn = Turn::default();
        let started = self.clock_started;
        if let Some(c) = self.clock.as_mut().filter(|_| started) {
            c.start(p.by, t);
        }
        let bi = self.mi();
        let restore = !self.boards[bi].sensed.matches(self.pos.board());
        self.set_restoring(restore);
    }

    /// `displaced`: the illegal move `r` names was a legal move beside
    /// displaced pieces (2023 7.4.1, 2009 §7.3).
    pub(super) fn reclassify_displaced(
        &mut self,
        r: PenaltyRef,
        uci: Option<&str>,
        expect: Option<&Expect>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let i = self.penalty_index(r, expect)?;
        let p = self.penalties[i].clone();
        let same = |a: &Chess, b: &Chess| a.board() == b.board() && a.turn() == b.turn();
        let ended_by_it = self.outcome().is_some_and(|o| o.t == p.t);
        if self.ply() != p.ply || !same(&self.pos, &p.before) || (self.ended() && !ended_by_it) {
            return Err(stale(format!(
                "the game has moved on since the illegal move (ply {} → {}): withdraw its penalty, \
                 or set the position",
                p.ply,
                self.ply()
            )));
        }
        let mv = match uci {
            Some(u) => u
                .parse::<UciMove>()
                .ok()
                .and_then(|m| m.to_move(&p.before).ok())
                .ok_or_else(|| {
                    impossible(format!("{u} is no legal move of {} here", side(p.by)))
                })?,
            None => p.reading.ok_or_else(|| {
                impossible(
                    "the board does not read one legal move beside the displaced pieces: name it \
                     (\"uci\")",
                )
            })?,
        };
        let paused = self.clock.as_ref().is_some_and(|c| c.running().is_none());
        let withdrawn = self.withdraw_at(i, t, out)?;
        // The mover's clock as it stood at his press; the press completes
        // the move now (his increment), the opponent's clock runs.
        let mut clock_words = String::new();
        if let (Some(c), Some(ms)) = (self.clock.as_mut(), p.mover_ms) {
            let (w, b) = c.remaining_at(t);
            let (nw, nb) = if p.by == Color::White {
                (ms, b)
            } else {
                (w, ms)
            };
            c.set(nw, nb, t);
            if c.running() != Some(p.by) {
                c.start(p.by, t);
            }
            clock_words = format!(
                "; {}'s clock back to {} as at his press",
                side(p.by),
                hms(ms)
            );
        }
        let (san, put_right) = self.complete_as_pressed(mv, p.by, paused, t, out);
        Ok(Applied {
            article: self.cfg.profile.articles.displaced,
            effect: format!(
                "{}'s {san} stands: pieces displaced and put back, no illegal move; {withdrawn}{clock_words}{put_right}",
                side(p.by)
            ),
        })
    }

    /// After a move the arbiter completed (`displaced`, `position`): the
    /// mover's board as its sensors show it now, not as taken to show the
    /// position; squares still wrong are named (a `displaced` notice) and
    /// the board waits for them. Their words.
    fn read_sensors_after(&mut self, by: Color, t: u64, out: &mut Decisions) -> String {
        let bi = self.board_of(by);
        let slot = &mut self.boards[bi];
        let mut b = slot.sensed.clone();
        for ch in b.frame_changes(slot.seen.0) {
            b.apply(ch, t);
        }
        b.clear_history();
        let wrong = b.differences(self.pos.board());
        slot.sensed = b;
        if self.ended() || wrong.is_empty() {
            return String::new();
        }
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::Displaced,
                article: self.cfg.profile.articles.displaced,
                squares: super::square_list(wrong),
            },
        });
        self.set_restoring(true);
        format!(
            "; the pieces on {} to be put right",
            crate::model::square_names(wrong).join(" ")
        )
    }

    /// `position` with the position after one legal move of the game's
    /// position (the last legal move, which the board took for an illegal
    /// one): that move is completed now, as pressed; a penalty given
    /// stands (`withdraw` takes it back). `None`: `target` is no such
    /// position.
    pub(super) fn position_after_move(
        &mut self,
        target: &Chess,
        t: u64,
        out: &mut Decisions,
    ) -> Option<Result<Applied, Refusal>> {
        if self.ended() {
            return None;
        }
        let mv = crate::legal::legal_moves(&self.pos)
            .iter()
            .copied()
            .find(|m| {
                let mut after = self.pos.clone();
                after.play_unchecked(*m);
                after.board() == target.board() && after.turn() == target.turn()
            })?;
        let by = self.pos.turn();
        let paused = self.clock.as_ref().is_some_and(|c| c.running().is_none());
        if let Some(c) = self.clock.as_mut().filter(|c| c.running() != Some(by)) {
            c.start(by, t);
        }
        self.pending_illegal = None;
        let (san, put_right) = self.complete_as_pressed(mv, by, paused, t, out);
        let standing = self
            .penalties
            .last()
            .filter(|p| !p.withdrawn && p.ply + 1 == self.ply())
            .map(|p| {
                format!(
                    "; the penalty for the illegal move (t = {} ms, {}) stands: withdraw it if it \
                     should not",
                    p.t, p.penalty
                )
            })
            .unwrap_or_default();
        Some(Ok(Applied {
            article: crate::rules::RulingArticles::of(self.cfg.profile.edition).position,
            effect: format!(
                "the position after {}'s {san} is set up: the move is completed{put_right}{standing}",
                side(by)
            ),
        }))
    }
}

impl Arbiter {
    /// Completes `mv` by `by` now as if pressed (the `displaced` and
    /// `position` rulings that keep a legal move), the clocks stopped again
    /// when they were paused (`paused`); its SAN and the squares the board
    /// must still put right, in words.
    fn complete_as_pressed(
        &mut self,
        mv: Move,
        by: Color,
        paused: bool,
        t: u64,
        out: &mut Decisions,
    ) -> (String, String) {
        self.turn = Turn::default();
        let completed = CompletedMove {
            mv,
            how: Completion::Pressed,
            promotion_assumed: false,
        };
        self.complete(completed, t, out);
        if paused {
            if let Some(c) = self.clock.as_mut() {
                c.stop(t);
            }
            self.push_clock(t, out);
        }
        let san = self.moves.last().map(|m| m.san.clone()).unwrap_or_default();
        (san, self.read_sensors_after(by, t, out))
    }
}
