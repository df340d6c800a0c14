//! `undo`: whether an applied ruling can be undone now (a later ruling
//! that depends on it, the game moved on, a move counter that changed a
//! time control, §6.10b), and its reversal as a new ruling: the clocks by
//! the amounts it changed, or the game's facts from before it, the board
//! read from its sensors again where the ruling took it as showing the
//! position. Split from `rulings.rs` (the history it reverses).

use super::announce::Decisions;
use super::refusal::{hms, impossible, stale, Applied, Refusal};
use super::rulings::{scope, RulingEntry, Scope};
use super::Arbiter;
use crate::board::SensedBoard;
use crate::trace::{Event, EventKind};
use shakmaty::fen::Fen;
use shakmaty::{Color, EnPassantMode, Position};

impl Arbiter {
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
            Scope::Clock if r.action == "time_control" => self.undo_time_control(&r, t, out)?,
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
                if matches!(r.action, "withdraw" | "displaced" | "position") {
                    // A penalty withdrawn is given again, a move completed
                    // taken back: the clocks by the amounts it changed.
                    self.clocks_back(&r, t);
                }
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

    /// Marks ruling `seq` undone by `by`.
    pub(super) fn mark_undone(&mut self, seq: u32, by: u32) {
        if let Some(r) = self.rulings.iter_mut().find(|r| r.seq == seq) {
            r.undone_by = Some(by);
        }
    }

    /// The clocks given back the amounts ruling `r` changed them by.
    fn clocks_back(&mut self, r: &RulingEntry, t: u64) {
        if let (Some(((wb, bb), (wa, ba))), Some(c)) = (r.clocks, self.clock.as_mut()) {
            let (w, b) = c.remaining_at(t);
            let back = |now: u64, before: u64, after: u64| {
                (now as i64 + before as i64 - after as i64).max(0) as u64
            };
            c.set(back(w, wb, wa), back(b, bb, ba), t);
        }
    }
}
