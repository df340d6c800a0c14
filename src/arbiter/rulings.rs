//! The arbiter's rulings as the board decides them (issue 24.1, 24.5): each
//! is checked against what the arbiter saw (`expect`) and the current
//! state, then applied or refused with a reason in words; the applied ones
//! form the board's ruling history ([`RulingEntry`], numbered from 1), and
//! `undo` reverses one as a new ruling where the Laws allow (clock, result,
//! position). Everything here is decided from the records alone, so a replay
//! of the journal gives the same outcomes (`docs/console.md`, "The ruling
//! request").

use super::announce::Decisions;
use super::claims::PendingBreach;
use super::confirm::Confirmation;
use super::illegal::PendingIllegal;
use super::{Arbiter, Phase, PlayedMove};
use crate::board::SensedBoard;
use crate::clock::Clock;
use crate::trace::{ArbiterAction, Event, EventKind, EventRef, Expect};
use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::zobrist::Zobrist64;
use shakmaty::EnPassantMode;
use shakmaty::{Chess, Color, Position};

/// HTTP-style status of a refusal: the state the ruling was made from no
/// longer holds (the game moved on, the matter was decided, the game is
/// over and its result confirmed).
pub const STALE: u16 = 409;
/// HTTP-style status of a refusal: the ruling is impossible, or would
/// change nothing.
pub const IMPOSSIBLE: u16 = 422;

/// A ruling refused: why, and [`STALE`] or [`IMPOSSIBLE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The reason in words.
    pub reason: String,
    /// 409 or 422.
    pub status: u16,
}

pub(super) fn stale(reason: impl Into<String>) -> Refusal {
    Refusal {
        reason: reason.into(),
        status: STALE,
    }
}

pub(super) fn impossible(reason: impl Into<String>) -> Refusal {
    Refusal {
        reason: reason.into(),
        status: IMPOSSIBLE,
    }
}

/// What an applied ruling did: its article and its effect in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Applied {
    pub(super) article: &'static str,
    pub(super) effect: String,
}

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
    phase: Phase,
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
    sensed: Vec<SensedBoard>,
    /// The decided claim's standing then (its round time `t` ms, the ply
    /// it is open at, whether it was overruled): an undo of the overrule
    /// puts the board's decision back, open again at its own ply.
    claim_mark: Option<(u64, u32, bool)>,
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
enum Scope {
    Clock,
    Game,
    /// Pause, resume, choose: reversed by the opposite action, not by undo.
    None,
}

fn scope(action: &str) -> Scope {
    match action {
        "clock" | "increment" => Scope::Clock,
        "pause" | "resume" | "choose" | "undo" => Scope::None,
        _ => Scope::Game,
    }
}

/// `H:MM:SS` as the clocks show it.
pub(super) use crate::clock::fmt_shown as hms;

/// "N moves" in words, for the reasons.
pub(super) fn moves_ago(n: u32) -> String {
    const WORDS: [&str; 11] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    let w = WORDS
        .get(n as usize)
        .map_or_else(|| n.to_string(), |w| (*w).to_owned());
    if n == 1 {
        format!("{w} move")
    } else {
        format!("{w} moves")
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
        if let Some(ev) = &e.event {
            if !self.is_open(ev) {
                let what = ev.kind.replace('_', " ");
                if e.ply < ply {
                    return Err(stale(format!(
                        "the {what} was decided {} ago",
                        moves_ago(ply - e.ply)
                    )));
                }
                return Err(stale(format!(
                    "the {what} (t = {} ms) is no longer open: {}",
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
    fn closed_by(&self, ev: &EventRef) -> String {
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

    /// Whether ruling `seq` can be undone now; why not otherwise.
    pub(super) fn undo_check(&self, seq: u32) -> Result<&RulingEntry, Refusal> {
        let Some(r) = self.rulings.iter().find(|r| r.seq == seq) else {
            return Err(impossible(format!(
                "there is no ruling #{seq} on this board ({} given)",
                self.rulings.len()
            )));
        };
        if let Some(by) = r.undone_by {
            return Err(stale(format!(
                "ruling #{seq} was already undone by ruling #{by}"
            )));
        }
        let later = |s: Scope| {
            self.rulings
                .iter()
                .rev()
                .find(|x| x.seq > seq && x.undone_by.is_none() && scope(x.action) == s)
                .map(|x| x.seq)
        };
        match scope(r.action) {
            Scope::None => Err(impossible(super::not_undone::reason(r, &self.rulings))),
            Scope::Clock => match later(Scope::Clock) {
                Some(l) => Err(stale(format!(
                    "a later ruling depends on it: #{l} set the clocks after it; undo #{l} first"
                ))),
                None if self.clock.is_none() => Err(impossible("no clock on this board")),
                None => self.counter_undo_check(r).map(|()| r),
            },
            Scope::Game => {
                if let Some(l) = later(Scope::Game) {
                    return Err(stale(format!(
                        "a later ruling depends on it: #{l} changed the game after it; undo #{l} first"
                    )));
                }
                if self.ply() != r.ply {
                    return Err(stale(format!(
                        "the game has moved on since ruling #{seq} (ply {} → {}): set the position instead",
                        r.ply,
                        self.ply()
                    )));
                }
                Ok(r)
            }
        }
    }

    /// A clock ruling that set the move counter can be undone by amounts
    /// only while the moves completed since reached as many time controls
    /// as they would have under the counter it replaced: otherwise the
    /// next period's time was given (or withheld) because of it, and an
    /// undo by amounts would leave that wrong (§6.10b). Refused then (409),
    /// with what to do instead.
    fn counter_undo_check(&self, r: &RulingEntry) -> Result<(), Refusal> {
        let (Some(c), Some((mb, ma))) = (self.clock.as_ref(), r.counters) else {
            return Ok(());
        };
        let now = [c.moves_done(Color::White), c.moves_done(Color::Black)];
        for (i, who) in [(0, "White"), (1, "Black")] {
            let since = now[i].saturating_sub(ma[i]);
            let with_set = c.controls_between(ma[i], now[i]);
            let without = c.controls_between(mb[i], mb[i] + since);
            if with_set != without {
                return Err(stale(format!(
                    "a time control was {} since ruling #{} because of the move counter it set \
                     ({who}'s counter {} → {}, now {}): undoing it would leave the next period's \
                     time wrong; set the clocks and the move counter instead",
                    if with_set > without {
                        "reached"
                    } else {
                        "missed"
                    },
                    r.seq,
                    mb[i],
                    ma[i],
                    now[i]
                )));
            }
        }
        Ok(())
    }

    /// `undo`: reverses ruling `seq` at `t`.
    pub(super) fn undo(
        &mut self,
        seq: u32,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let r = self.undo_check(seq)?.clone();
        let effect = match scope(r.action) {
            Scope::Clock if r.action == "increment" => self.undo_increment(&r, t, out)?,
            Scope::Clock => {
                let ((wb, bb), (wa, ba)) = r.clocks.unwrap_or(((0, 0), (0, 0)));
                let c = self.clock.as_mut().ok_or_else(|| impossible("no clock"))?;
                let (w, b) = c.remaining_at(t);
                let nw = (w as i64 + wb as i64 - wa as i64).max(0) as u64;
                let nb = (b as i64 + bb as i64 - ba as i64).max(0) as u64;
                c.set(nw, nb, t);
                // The move counter it set goes back too, by the moves it
                // changed (moves completed since still count), so the next
                // period arrives at the move it did before (§6.10b).
                let mut counter = String::new();
                if let Some((mb, ma)) = r.counters.filter(|(mb, ma)| mb != ma) {
                    let now = [c.moves_done(Color::White), c.moves_done(Color::Black)];
                    let back = |i: usize| {
                        (i64::from(now[i]) + i64::from(mb[i]) - i64::from(ma[i])).max(0) as u32
                    };
                    let (nw_moves, nb_moves) = (back(0), back(1));
                    c.set_moves_done(nw_moves, nb_moves);
                    counter = format!("; move counter {} → {nw_moves}", now[0]);
                }
                self.push_clock(t, out);
                format!(
                    "ruling #{seq} undone: White {} → {}, Black {} → {}{counter}",
                    hms(w),
                    hms(nw),
                    hms(b),
                    hms(nb)
                )
            }
            _ => {
                let before_result = self.result_words();
                let before = (*r.before).clone();
                // A ruling that took the board as showing the position it
                // waited for (`restore`, or that position set): withdrawn,
                // the board is read as its sensors show it now.
                let reread = before.phase.is_restoring() && !self.phase.is_restoring();
                if reread {
                    self.sensors_again(&before.sensed, t);
                }
                self.restore_facts(before, t);
                if reread {
                    return Ok(Applied {
                        article: r.article,
                        effect: self.reread_effect(seq, r.action, t, out),
                    });
                }
                // A wrong claim's cost (a claim rejected, an upheld one
                // overruled) is given back with the claim open again.
                if matches!(r.action, "reject" | "overrule") {
                    if let (Some(((wb, bb), (wa, ba))), Some(c)) = (r.clocks, self.clock.as_mut()) {
                        let (w, b) = c.remaining_at(t);
                        let back = |now: u64, before: u64, after: u64| {
                            (now as i64 + before as i64 - after as i64).max(0) as u64
                        };
                        c.set(back(w, wb, wa), back(b, bb, ba), t);
                    }
                }
                if r.action == "rewind" {
                    // E2.8 set the clocks back: undone, they get back what
                    // it took; the boards are to show the game again.
                    if let Some(c) = r.clocks {
                        self.undo_rewind_clocks(c, t);
                    }
                    self.boards_to_position(t, out);
                }
                self.push_clock(t, out);
                let after_result = self.result_words();
                if before_result != after_result {
                    // A game that goes on again (a forfeit or a result
                    // withdrawn): its clocks as they stand, and that the
                    // time since the ruling was charged to nobody (a
                    // latecomer's, 6.7, is then the arbiter's to set).
                    let clocks = match (self.clock.as_ref(), self.ended()) {
                        (Some(c), false) => {
                            let (w, b) = c.remaining_at(t);
                            let runs = match c.running() {
                                Some(Color::White) => "White's clock runs",
                                Some(Color::Black) => "Black's clock runs",
                                None => "both clocks stopped",
                            };
                            format!(
                                "; clocks White {} · Black {}, {runs} (the time since ruling \
                                 #{seq} is charged to nobody: set the clocks if it should be)",
                                hms(w),
                                hms(b)
                            )
                        }
                        _ => String::new(),
                    };
                    format!(
                        "ruling #{seq} ({}) undone: {before_result} → {after_result}{clocks}",
                        r.action
                    )
                } else {
                    format!(
                        "ruling #{seq} ({}) undone: the game as before it ({after_result})",
                        r.action
                    )
                }
            }
        };
        Ok(Applied {
            article: r.article,
            effect,
        })
    }

    /// Each board's sensed state as it was in `before`, brought to what
    /// its sensors report now (`Slot::seen`): the sensors' reading, not
    /// the arbiter's word that the board shows the position.
    fn sensors_again(&mut self, before: &[SensedBoard], t: u64) {
        for (slot, b) in self.boards.iter_mut().zip(before) {
            let mut b = b.clone();
            for ch in b.frame_changes(slot.seen.0) {
                b.apply(ch, t);
            }
            b.clear_history();
            slot.sensed = b;
        }
    }

    /// The undo of ruling `seq` (`action`) that took the board as showing
    /// the position, in words, once the sensors are read again: the
    /// matter it answered is open again while the board shows another
    /// position (the squares named); when it shows the position, the
    /// position is restored (`position_restored`) and play goes on.
    fn reread_effect(&mut self, seq: u32, action: &str, t: u64, out: &mut Decisions) -> String {
        self.push_clock(t, out);
        let bi = self.mi();
        let overrule = action == "overrule";
        if self.phase.is_restoring() {
            let wrong =
                crate::model::square_names(self.boards[bi].sensed.differences(self.pos.board()))
                    .join(" ");
            if overrule {
                // The board's own decision stands again (a claim it upheld:
                // the move taken back), and is open to overruling again.
                format!(
                    "ruling #{seq} ({action}) undone: the board's decision stands again; the \
                     board shows another position (squares {wrong}), which is to be set up as \
                     the decision gives it, and the matter is open"
                )
            } else {
                format!(
                    "ruling #{seq} ({action}) undone: the position is no longer taken as reinstated; \
                     the board shows another one (squares {wrong}), so it is to be reinstated again \
                     and the matter is open"
                )
            }
        } else {
            out.push(Event {
                t,
                kind: EventKind::PositionRestored {
                    fen: Fen::from_position(&self.pos, EnPassantMode::Legal).to_string(),
                },
            });
            if overrule {
                format!(
                    "ruling #{seq} ({action}) undone: the board's decision stands again; the \
                     board's sensors show its position; play goes on"
                )
            } else {
                format!(
                    "ruling #{seq} ({action}) undone: the board's sensors show the position \
                     reinstated; play goes on"
                )
            }
        }
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

    /// Marks ruling `seq` undone by `by`.
    pub(super) fn mark_undone(&mut self, seq: u32, by: u32) {
        if let Some(r) = self.rulings.iter_mut().find(|r| r.seq == seq) {
            r.undone_by = Some(by);
        }
    }
}
