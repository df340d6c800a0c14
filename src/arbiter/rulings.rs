//! The arbiter's rulings as the board decides them (issue 24.1, 24.5): each
//! is checked against what the arbiter saw (`expect`) and the current
//! state, then applied or refused with a reason in words; the applied ones
//! form the board's ruling history ([`RulingEntry`], numbered from 1), and
//! `undo` reverses one as a new ruling where the Laws allow (clock, result,
//! position). Everything here is decided from the records alone, so a replay
//! of the journal gives the same outcomes (`docs/console.md`, "The ruling
//! request").
//!
//! This file holds the history's entries, the game's facts a ruling
//! changes and the check against what the arbiter saw; `refusal.rs` holds
//! the refusals and what an applied ruling did; `undo.rs` holds whether a
//! ruling can be undone and its reversal.

use super::claims::PendingBreach;
use super::confirm::Confirmation;
use super::illegal::PendingIllegal;
use super::refusal::{moves_ago, stale, Refusal};
use super::{Arbiter, Phase, PlayedMove};
use crate::board::SensedBoard;
use crate::clock::Clock;
use crate::trace::{ArbiterAction, EventRef, Expect};
use serde::Serialize;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color};

/// One applied ruling of the board's history (the state's `rulings`).
#[derive(Debug, Clone, Serialize)]
pub struct RulingEntry {
    /// Its number, from 1.
    pub seq: u32,
    /// Round time, ms.
    pub t: u64,
    /// The action (`clock`, `confirm`, `undo`, …).
    pub action: &'static str,
    /// The arbiter who gave it, when known.
    pub author: Option<String>,
    /// The article it applied.
    pub article: &'static str,
    /// What it did, in words.
    pub effect: String,
    /// The alert it answered, if any.
    pub answers: Option<EventRef>,
    /// The ruling that undid it, if any.
    pub undone_by: Option<u32>,
    /// The ruling it undid (an `undo`).
    pub undoes: Option<u32>,
    /// Whether an `undo` of it would be applied now.
    pub undoable: bool,
    /// The completed plies after it.
    #[serde(skip)]
    pub(super) ply: u32,
    /// The game before it (what an undo restores).
    #[serde(skip)]
    pub(super) before: Box<Facts>,
    /// Both clocks just before and just after it (white, black), ms.
    #[serde(skip)]
    pub(super) clocks: Option<((u64, u64), (u64, u64))>,
    /// The clock's move counters (white, black) just before and just
    /// after it: what an undo of a `clock` ruling gives back (§6.10b).
    #[serde(skip)]
    pub(super) counters: Option<([u32; 2], [u32; 2])>,
}

/// The game's facts a ruling changes and an undo restores.
#[derive(Debug, Clone)]
pub(super) struct Facts {
    pub(super) phase: Phase,
    pos: Chess,
    start: Chess,
    history: Vec<Chess>,
    keys: Vec<Zobrist64>,
    moves: Vec<PlayedMove>,
    pub(super) clock: Option<Clock>,
    confirmation: Option<Confirmation>,
    pending_illegal: Option<PendingIllegal>,
    pending_breach: Option<PendingBreach>,
    held_claim: Option<super::written::HeldClaim>,
    draw_offer: Option<Color>,
    illegal_counts: [u32; 2],
    flags: Vec<Color>,
    original_outcome: Option<super::Outcome>,
    /// Each board's sensed state (a ruling that takes the board as showing
    /// the position replaces it; its undo reads the sensors again).
    pub(super) sensed: Vec<SensedBoard>,
    /// The decided claim's standing then (its round time `t` ms, the ply
    /// it is open at, whether it was overruled): an undo of the overrule
    /// puts the board's decision back, open again at its own ply.
    claim_mark: Option<(u64, u32, bool)>,
    /// The penalties given for illegal moves (a withdrawal undone gives
    /// them back).
    penalties: Vec<super::withdraw::GivenPenalty>,
    /// The board's game ends withdrawn (an undo of the withdrawal lets
    /// the board declare them again).
    ends_withdrawn: Vec<super::withdraw_end::WithdrawnEnd>,
}

impl Facts {
    /// Both clocks' times at `t` (White, Black), ms, when a clock runs.
    pub(super) fn clocks_at(&self, t: u64) -> Option<(u64, u64)> {
        self.clock.as_ref().map(|c| c.remaining_at(t))
    }
}

/// Which facts a ruling of this action changes: the clocks only, or the
/// game (position, moves, result).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    Clock,
    Game,
    /// Pause, resume, choose: reversed by the opposite action, not by undo.
    None,
}

pub(super) fn scope(action: &str) -> Scope {
    match action {
        "clock" | "increment" | "time_control" | "downtime" => Scope::Clock,
        "pause" | "resume" | "choose" | "undo" => Scope::None,
        _ => Scope::Game,
    }
}

impl Arbiter {
    /// The board's ruling history, oldest first.
    pub fn rulings(&self) -> Vec<RulingEntry> {
        let mut v = self.rulings.clone();
        for r in v.iter_mut() {
            r.undoable = self.undo_check(r.seq).is_ok();
        }
        v
    }

    /// The completed plies.
    pub fn ply(&self) -> u32 {
        self.moves.len() as u32
    }

    pub(super) fn facts(&self) -> Facts {
        Facts {
            phase: self.phase.clone(),
            pos: self.pos.clone(),
            start: self.cfg.start.clone(),
            history: self.history.clone(),
            keys: self.keys.clone(),
            moves: self.moves.clone(),
            clock: self.clock.clone(),
            confirmation: self.confirmation.clone(),
            pending_illegal: self.pending_illegal.clone(),
            pending_breach: self.pending_breach.clone(),
            held_claim: self.held_claim.clone(),
            draw_offer: self.draw_offer,
            illegal_counts: self.illegal_counts,
            flags: self.flags.clone(),
            original_outcome: self.original_outcome,
            sensed: self.boards.iter().map(|b| b.sensed.clone()).collect(),
            claim_mark: self
                .decided_claim
                .as_ref()
                .map(|d| (d.t, d.ply, d.overruled)),
            penalties: self.penalties.clone(),
            ends_withdrawn: self.ends_withdrawn.clone(),
        }
    }

    /// Puts `f` back at `t`, keeping the clocks' current times (the
    /// arbiter decides when play restarts: the time between is charged to
    /// nobody); the board is to show the position again.
    pub(super) fn restore_facts(&mut self, f: Facts, t: u64) {
        let now = self.clock.as_ref().map(|c| c.remaining_at(t));
        self.phase = f.phase;
        self.pos = f.pos;
        self.cfg.start = f.start;
        self.history = f.history;
        self.keys = f.keys;
        self.moves = f.moves;
        self.clock = f.clock;
        self.confirmation = f.confirmation;
        self.pending_illegal = f.pending_illegal;
        self.pending_breach = f.pending_breach;
        self.held_claim = f.held_claim;
        self.draw_offer = f.draw_offer;
        self.illegal_counts = f.illegal_counts;
        self.flags = f.flags;
        self.original_outcome = f.original_outcome;
        self.penalties = f.penalties;
        self.ends_withdrawn = f.ends_withdrawn;
        // The same claim as then: its standing as then (facts from before
        // it leave it as it is: the ruling that restores them decides).
        if let (Some(d), Some((ct, ply, overruled))) = (self.decided_claim.as_mut(), f.claim_mark) {
            if d.t == ct {
                d.ply = ply;
                d.overruled = overruled;
            }
        }
        if let (Some(c), Some((w, b))) = (self.clock.as_mut(), now) {
            let running = c.running();
            c.stop(t);
            c.set(w, b, t);
            for s in [Color::White, Color::Black] {
                if self.flags.contains(&s) {
                    c.set_flagged(s);
                }
            }
            if let (Some(side), false) = (running, self.phase.is_ended()) {
                c.start(side, t);
            }
        }
        self.take_back_state(t);
    }

    /// Checks a ruling against what the arbiter saw (`expect`) and the
    /// game's end; the per-action checks are the action's own.
    pub(super) fn check_expect(
        &self,
        action: &ArbiterAction,
        expect: Option<&Expect>,
    ) -> Result<(), Refusal> {
        let name = action.as_str();
        if let Some(c) = &self.confirmation {
            let correction = matches!(action, ArbiterAction::Confirm(Some(r)) if *r != c.result);
            if !correction && !matches!(action, ArbiterAction::Undo(_)) {
                return Err(stale(format!(
                    "the game is over and its result confirmed ({}): nothing is ruled on it any more; \
                     undo the confirmation first to change it",
                    c.result.as_str()
                )));
            }
        }
        let Some(e) = expect else {
            return Ok(());
        };
        let ply = self.ply();
        // A penalty is withdrawn from its alert also once the position was
        // reinstated (`withdraw.rs`).
        let penalty = matches!(name, "withdraw" | "displaced");
        if let Some(ev) = e
            .event
            .as_ref()
            .filter(|ev| !(penalty && self.names_penalty(ev)))
        {
            if !self.is_open(ev) {
                let what = ev.kind.replace('_', " ");
                if e.ply < ply {
                    return Err(stale(format!(
                        "the {what} was decided {} ago",
                        moves_ago(ply - e.ply)
                    )));
                }
                let then = if ev.kind == "claim" {
                    self.correct_claim_after_end_words(ev.t)
                } else {
                    String::new()
                };
                return Err(stale(format!(
                    "the {what} (t = {} ms) is no longer open: {}{then}",
                    ev.t,
                    self.closed_by(ev)
                )));
            }
        }
        // Stopping or restarting the clocks is never stale: it does not
        // depend on the position (the clocks' own state is checked).
        if e.ply != ply && !matches!(name, "pause" | "resume") {
            // Ended since: "look again" would only bring another refusal
            // of a clock or a position, so the end is said too.
            let ended = self.outcome().map_or(String::new(), |o| {
                format!(
                    ", and the game is over ({}, {})",
                    o.result.as_str(),
                    o.reason
                )
            });
            return Err(if e.ply < ply {
                stale(format!(
                    "the game has moved on: {} made since (ply {} → {ply}){ended}; look again",
                    moves_ago(ply - e.ply),
                    e.ply
                ))
            } else {
                stale(format!(
                    "moves were taken back since (ply {} → {ply}); look again",
                    e.ply
                ))
            });
        }
        if let Some(r) = e.result {
            let now = self.outcome().map(|o| o.result);
            if now != r {
                return Err(stale(format!(
                    "the result is now {}, not {}",
                    now.map_or("*", |r| r.as_str()),
                    r.map_or("*", |r| r.as_str())
                )));
            }
        }
        Ok(())
    }

    /// What closed an alert that is no longer open, in words.
    pub(super) fn closed_by(&self, ev: &EventRef) -> String {
        if let Some(r) = self
            .rulings
            .iter()
            .rev()
            .find(|r| r.answers.as_ref() == Some(ev))
        {
            return format!("ruling #{} ({}) decided it: {}", r.seq, r.action, r.effect);
        }
        if !self.alerts.iter().any(|a| a.kind == ev.kind && a.t == ev.t) {
            return "this board raised no such alert".to_owned();
        }
        if let Some(o) = self.outcome() {
            return format!("the game is over ({}, {})", o.result.as_str(), o.reason);
        }
        "the board has settled it".to_owned()
    }

    /// The game's result in words: "1-0 (checkmate), confirmed" or "game in progress".
    pub(super) fn result_words(&self) -> String {
        match self.outcome() {
            None => "the game in progress".to_owned(),
            Some(o) => {
                let st = match &self.confirmation {
                    None => "provisional",
                    Some(c) if c.forfeit => "forfeit",
                    Some(c) if c.corrected => "corrected",
                    Some(_) => "confirmed",
                };
                format!("{} ({}), {st}", o.result.as_str(), o.reason)
            }
        }
    }
}
