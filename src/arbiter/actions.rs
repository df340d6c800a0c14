//! The arbiter's actions (the `arbiter` records and the arbiter API):
//! rulings on proposals and claims, results, clock settings, set-ups and
//! take-backs, pausing and resuming the clock. Each is checked first
//! (`rulings.rs`: what the arbiter saw, the game's end) and then either
//! applied — a `ruling` event with its number, article and effect — or
//! refused with the reason (`ruling_refused`), never ignored.

use super::announce::{Announcement, Decisions};
use super::matter::side;
use super::refusal::{hms, impossible, stale, Applied, Refusal};
use super::rulings::RulingEntry;
use super::{key, Arbiter, DecidedClaim};
use crate::model::ClaimKind;
use crate::rules::RulingArticles;
use crate::trace::{ArbiterAction, Event, EventKind, Expect};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position};

impl Arbiter {
    /// The arbiter's actions (the `arbiter` records and the arbiter API):
    /// checked, then applied or refused.
    pub(super) fn arbiter_action(
        &mut self,
        action: &ArbiterAction,
        author: Option<&str>,
        expect: Option<&Expect>,
        reason: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) {
        tracing::info!(
            action = action.as_str(),
            author,
            reason,
            t,
            "arbiter action"
        );
        let before = self.facts();
        let clocks_before = self.clock.as_ref().map(|c| c.remaining_at(t));
        let counters = |a: &Self| {
            a.clock
                .as_ref()
                .map(|c| [c.moves_done(Color::White), c.moves_done(Color::Black)])
        };
        let counters_before = counters(self);
        let asked_article = self.asked_article(action);
        let result = self
            .check_expect(action, expect)
            .and_then(|()| self.apply_action(action, expect, reason, t, out));
        match result {
            Ok(mut applied) => {
                // The arbiter's reason stays with what the ruling did (his
                // channel, the journal, the report; never the public's:
                // `reason_at`).
                let reason_at = reason.map(|r| {
                    let at = applied.effect.len();
                    applied.effect.push_str(&format!(" — reason: {r}"));
                    at
                });
                let seq = self.rulings.len() as u32 + 1;
                if let ArbiterAction::Undo(n) = action {
                    self.mark_undone(*n, seq);
                }
                let answers = expect.and_then(|e| e.event.clone());
                self.rulings.push(RulingEntry {
                    seq,
                    t,
                    action: action.as_str(),
                    author: author.map(str::to_owned),
                    article: applied.article,
                    effect: applied.effect.clone(),
                    answers: answers.clone(),
                    undone_by: None,
                    undoes: match action {
                        ArbiterAction::Undo(n) => Some(*n),
                        _ => None,
                    },
                    undoable: false,
                    ply: self.ply(),
                    before: Box::new(before),
                    clocks: clocks_before.zip(self.clock.as_ref().map(|c| c.remaining_at(t))),
                    counters: counters_before.zip(counters(self)),
                });
                // The ruling as applied, with the name of the arbiter who gave it.
                if let Some(author) = author {
                    out.push(Event {
                        t,
                        kind: EventKind::Ruling {
                            action: action.as_str(),
                            author: author.to_owned(),
                            article: applied.article,
                            seq,
                            effect: applied.effect,
                            answers,
                            reason_at,
                        },
                    });
                }
            }
            Err(Refusal { reason, status }) => {
                tracing::info!(action = action.as_str(), author, %reason, status, "ruling refused");
                out.push(Event {
                    t,
                    kind: EventKind::RulingRefused {
                        action: action.as_str(),
                        author: author.map(str::to_owned),
                        reason,
                        status,
                        article: asked_article,
                    },
                });
            }
        }
    }

    /// Applies `action` at `t`, or refuses it before changing anything.
    fn apply_action(
        &mut self,
        action: &ArbiterAction,
        expect: Option<&Expect>,
        reason: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let a = self.cfg.profile.articles;
        let ra = RulingArticles::of(self.cfg.profile.edition);
        let applied = |article: &'static str, effect: String| Ok(Applied { article, effect });
        match action {
            ArbiterAction::Restore | ArbiterAction::Accept => {
                // The proposal in force: a pending illegal move is ruled on
                // (a penalty: the illegal-move article).
                if let Some(pi) = self.pending_illegal.take() {
                    let by = pi.by;
                    let from = out.len();
                    self.rule_illegal(pi, None, t, out);
                    // The ruling gives the penalty: its article (§7.4b / 7.5.5).
                    let (penalty, article) = super::penalty::given(&out.as_slice()[from..])
                        .unwrap_or(("none".into(), a.illegal_penalty));
                    return applied(
                        article,
                        format!(
                            "{}'s move ruled illegal: {penalty}; the position before it is reinstated",
                            side(by)
                        ),
                    );
                }
                // A touch-move breach the opponent claims through the arbiter.
                if let (ArbiterAction::Accept, Some(pb)) = (action, self.pending_breach.as_ref()) {
                    let (by, article, played, touched) = (
                        pb.by,
                        pb.breach.article,
                        pb.played.clone(),
                        pb.breach.touched,
                    );
                    self.claim(ClaimKind::TouchMove, !by, None, t, out);
                    return applied(
                        article,
                        format!(
                            "{}'s claim upheld: {played} taken back; {} must keep the obligation on {touched}",
                            side(!by),
                            side(by)
                        ),
                    );
                }
                if self.restore_pending() && matches!(action, ArbiterAction::Restore) {
                    // The arbiter reinstates the position himself (§7.4a /
                    // 2023 7.5.1, §7.5 / 7.6): the board takes it as shown.
                    let article = match self.alerts.last().map(|a| a.kind) {
                        Some("illegal_move") => a.illegal_move,
                        _ => ra.position,
                    };
                    self.reinstated_by_arbiter(t, out);
                    return applied(
                        article,
                        "the position is reinstated by the arbiter: the board takes it as set up; play goes on"
                            .to_owned(),
                    );
                }
                if self.restore_pending() {
                    return Err(impossible(
                        "nothing to accept: the board waits for the position to be reinstated \
                         (restore it)",
                    ));
                }
                Err(impossible(match action {
                    ArbiterAction::Restore => "the position is already restored",
                    _ => "nothing to accept: no proposal of the board is open",
                }))
            }
            ArbiterAction::Overrule => {
                // Made from the result's alert ("The claim was correct"):
                // a rejected draw claim found correct after the game ended.
                let from_end = expect
                    .and_then(|e| e.event.as_ref())
                    .is_some_and(|e| e.kind == "game_end");
                self.overrule(from_end, t, out)
            }
            ArbiterAction::Uphold(m) => self.rule_claim(true, m.as_deref(), t, out),
            ArbiterAction::Reject(m) => self.rule_claim(false, m.as_deref(), t, out),
            ArbiterAction::Confirm(r) => self.confirm_result(*r, reason, t, out),
            ArbiterAction::Forfeit(r) | ArbiterAction::ForfeitBeforeDefaultTime(r) => {
                let early = matches!(action, ArbiterAction::ForfeitBeforeDefaultTime(_));
                let applied = self.enter_forfeit(*r, (early, reason), t, out)?;
                // The arbiter's reason stays with the result it entered
                // (the PGN's comment), as a correction's does.
                if let Some(c) = self.confirmation.as_mut().filter(|c| c.forfeit) {
                    c.reason = reason.map(str::to_owned);
                }
                Ok(applied)
            }
            ArbiterAction::SetResult(result) => self.declare_result(*result, reason, false, t, out),
            ArbiterAction::DeclareResult { result, article } => {
                self.declare_result_under(*result, article, reason, t, out)
            }
            ArbiterAction::SetClock {
                white_ms,
                black_ms,
                moves,
            } => self.set_clock(*white_ms, *black_ms, *moves, t, out),
            ArbiterAction::SetPosition(fen) => self.set_position(fen, t, out),
            ArbiterAction::Choose(_) => Err(impossible(
                "no ambiguous reading is held: there is nothing to choose",
            )),
            ArbiterAction::Pause => {
                // A pause is urgent: whatever ply the arbiter saw (not
                // stale, `check_expect`), but never on a game that is over.
                if let Some(o) = self.outcome() {
                    return Err(stale(format!(
                        "the game is over ({}, {}): its clocks are stopped for good; nothing to pause",
                        o.result.as_str(),
                        o.reason
                    )));
                }
                let Some(c) = self.clock.as_mut() else {
                    return Err(impossible("no clock runs on this board"));
                };
                if c.running().is_none() {
                    return Err(impossible("the clocks are already stopped"));
                }
                c.stop(t);
                let (w, b) = c.remaining_at(t);
                self.push_clock(t, out);
                self.announce(Announcement::ClockPaused, t, out);
                applied(
                    ra.pause,
                    format!("both clocks stopped at White {} · Black {}", hms(w), hms(b)),
                )
            }
            ArbiterAction::Resume => {
                if let Some(o) = self.outcome() {
                    return Err(stale(format!(
                        "the game is over ({}, {}): its clocks stay stopped",
                        o.result.as_str(),
                        o.reason
                    )));
                }
                if let Some(r) = self.held_blocks_resume() {
                    return Err(r);
                }
                let side_on_move = self.pos.turn();
                let Some(c) = self.clock.as_mut() else {
                    return Err(impossible("no clock runs on this board"));
                };
                if c.running().is_some() {
                    return Err(impossible("the clocks already run"));
                }
                // Also the start of the game (§6.5) when the clocks wait for it.
                self.clock_started = true;
                self.session_started.get_or_insert(t);
                c.start(side_on_move, t);
                // The clocks as they restart (a pause pushes them too):
                // consumers re-anchor their running clock here.
                self.push_clock(t, out);
                self.announce(Announcement::ClockResumed, t, out);
                applied(
                    ra.resume,
                    format!("{}'s clock runs again", side(side_on_move)),
                )
            }
            ArbiterAction::Undo(n) => self.undo(*n, t, out),
            ArbiterAction::Rewind(p) => self.rewind(*p, t, out),
            ArbiterAction::Increment(r) => self.increment_request(r, t, out),
            ArbiterAction::TimeControl { .. } | ArbiterAction::Downtime { .. } => {
                self.clock_ruling(action, t, out)
            }
            ArbiterAction::Withdraw(p) => self.withdraw(*p, expect, t, out),
            ArbiterAction::Displaced { penalty, uci } => {
                self.reclassify_displaced(*penalty, uci.as_deref(), expect, t, out)
            }
        }
    }

    /// `clock`: both times (and the move counter) at `t`.
    fn set_clock(
        &mut self,
        white_ms: u64,
        black_ms: u64,
        moves: Option<u32>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let ra = RulingArticles::of(self.cfg.profile.edition);
        if let Some(o) = self.outcome() {
            return Err(impossible(format!(
                "the game is over ({}, {}): its clocks no longer count",
                o.result.as_str(),
                o.reason
            )));
        }
        let turn = self.pos.turn();
        let Some(c) = self.clock.as_mut() else {
            return Err(impossible("no clock runs on this board"));
        };
        let (w, b) = c.remaining_at(t);
        // The counter as the clock keeps it: Black has one move fewer
        // while he is on move.
        let counts = moves.map(|n| {
            let black = if turn == Color::Black {
                n.saturating_sub(1)
            } else {
                n
            };
            (n, black)
        });
        let same_counts = counts.is_none_or(|(wn, bn)| {
            c.moves_done(Color::White) == wn && c.moves_done(Color::Black) == bn
        });
        if hms(w) == hms(white_ms) && hms(b) == hms(black_ms) && same_counts {
            return Err(impossible(format!(
                "the clocks already show White {} · Black {}",
                hms(w),
                hms(b)
            )));
        }
        c.set(white_ms, black_ms, t);
        let mut effect = format!(
            "White {} → {}, Black {} → {}",
            hms(w),
            hms(white_ms),
            hms(b),
            hms(black_ms)
        );
        if let Some((wn, bn)) = counts {
            let old = c.moves_done(Color::White);
            c.set_moves_done(wn, bn);
            effect.push_str(&format!("; move counter {old} → {wn}"));
        }
        self.push_clock(t, out);
        Ok(Applied {
            article: ra.clock,
            effect,
        })
    }

    /// `overrule`: the board's decision on the open matter is reversed: a
    /// standing illegal move or a touch-move breach is let stand; a claim
    /// the board rejected is upheld, one it upheld is rejected. `from_end`:
    /// made from the result's alert of a game that ended after a draw
    /// claim the board rejected (the claim found correct: drawn when it
    /// was made, 2023 9.5.2 / 2009 §9.5b; [`Self::claim_correct_after_end`]).
    fn overrule(
        &mut self,
        from_end: bool,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        if let Some(pi) = self.pending_illegal.take() {
            return Ok(Applied {
                article: pi.article,
                effect: format!("{}'s move stands as played; no penalty", side(pi.by)),
            });
        }
        if let Some(dc) = self.decided_claim.clone().filter(|d| d.ply == self.ply()) {
            if dc.overruled {
                return Err(stale("the claim's decision was already overruled"));
            }
            // Upheld on overruling, the ruling applies the claim's own
            // article (9.2, 9.3, 10.2, 6.9), not the wrong claim's (9.5b)
            // the board cited when it rejected it; a draw claim rejected
            // on overruling, the wrong claim's.
            let a = self.cfg.profile.articles;
            let article = match (dc.upheld, dc.kind) {
                (false, ClaimKind::Threefold) => a.threefold,
                (false, ClaimKind::FiftyMoves) => a.fifty_moves,
                (false, ClaimKind::InsufficientLosingChances) => a.quickplay,
                (false, ClaimKind::Time) => a.time,
                (true, ClaimKind::Threefold | ClaimKind::FiftyMoves) => a.wrong_claim,
                _ => dc.article,
            };
            if let Some(o) = self.ended_after(dc.t) {
                let effect = match from_end {
                    true => self.claim_correct_after_end(&dc, o, t, out),
                    false => None,
                };
                let Some(effect) = effect else {
                    return Err(stale(format!(
                        "the game ended after the claim ({}, {}): the claim is no longer open{}",
                        o.result.as_str(),
                        o.reason,
                        self.correct_claim_after_end_words(dc.t)
                    )));
                };
                if let Some(d) = self.decided_claim.as_mut() {
                    d.overruled = true;
                }
                return Ok(Applied { article, effect });
            }
            let effect = if dc.upheld {
                let was = self.result_words();
                self.restore_facts((*dc.before).clone(), t);
                // Overruled, the draw claim was incorrect: its cost is due
                // (2009 §9.5b / 2023 9.5.3), as when the board rejects one.
                let cost = if matches!(dc.kind, ClaimKind::Threefold | ClaimKind::FiftyMoves) {
                    format!("; {}", self.wrong_claim(dc.by, t))
                } else {
                    String::new()
                };
                self.push_clock(t, out);
                let now = self.result_words();
                // The result unchanged (a touch-move claim: the game went
                // on), the position says what the ruling did.
                let what = if was == now {
                    let mover = if self.pos.turn() == Color::White {
                        "White"
                    } else {
                        "Black"
                    };
                    match self.moves.last() {
                        Some(m) => format!("{} stands again; {mover} to move", m.san),
                        None => format!("{mover} to move"),
                    }
                } else {
                    format!("{was} → {now}")
                };
                format!(
                    "the board upheld the claim; overruled: the game is put back as it stood before \
                     it ({what}){cost}"
                )
            } else {
                self.uphold_on_overrule(&dc, t, out)?
            };
            if let Some(d) = self.decided_claim.as_mut() {
                d.overruled = true;
                d.ply = self.moves.len() as u32;
            }
            return Ok(Applied { article, effect });
        }
        if let Some(pb) = self.pending_breach.take() {
            return Ok(Applied {
                article: pb.breach.article,
                effect: format!(
                    "{}'s {} stands: the breach of {} is not to be claimed",
                    side(pb.by),
                    pb.played,
                    pb.breach.touched
                ),
            });
        }
        Err(impossible(
            "nothing to overrule: no decision of the board is open (a claim is open until the next move)",
        ))
    }

    /// Notes the claim the board decided among the decisions from `from`
    /// (`before`: the game before the claim), so the arbiter may overrule it.
    pub(super) fn note_claim(
        &mut self,
        before: super::rulings::Facts,
        out: &Decisions,
        from: usize,
    ) {
        let decided = out
            .as_slice()
            .get(from..)
            .unwrap_or(&[])
            .iter()
            .find_map(|d| match d {
                super::Decision::Event(Event {
                    t,
                    kind:
                        EventKind::Claim {
                            by,
                            kind,
                            upheld,
                            consequence,
                            article,
                        },
                }) => Some(DecidedClaim {
                    t: *t,
                    by: by.0,
                    kind: *kind,
                    upheld: *upheld,
                    consequence: consequence.clone(),
                    article,
                    ply: self.moves.len() as u32,
                    cost: super::claim_cost::given(&before, self.clock.as_ref(), *t),
                    before: Box::new(before.clone()),
                    overruled: false,
                }),
                _ => None,
            });
        if let Some(d) = decided {
            self.decided_claim = Some(d);
        }
    }

    /// Sets up `fen`: an earlier position of this game takes the moves after
    /// it back; before the first move it becomes the start position.
    /// Anything else is refused, naming the reason.
    fn set_position(&mut self, fen: &str, t: u64, out: &mut Decisions) -> Result<Applied, Refusal> {
        let ra = RulingArticles::of(self.cfg.profile.edition);
        let target = fen
            .parse::<Fen>()
            .map_err(|e| impossible(format!("\"{fen}\" is not a FEN: {e}")))?
            .into_position::<Chess>(CastlingMode::Standard)
            .map_err(|e| impossible(format!("\"{fen}\" is not a legal position: {e}")))?;
        let same = |a: &Chess, b: &Chess| a.board() == b.board() && a.turn() == b.turn();
        if same(&target, &self.pos) && !self.ended() {
            if self.restore_pending() {
                // The arbiter has set the position up (a board set right,
                // pieces put back): the board takes it as shown.
                self.reinstated_by_arbiter(t, out);
                return Ok(Applied {
                    article: ra.position,
                    effect: "the game's position is set up by the arbiter: the board takes it as \
                             shown; play goes on"
                        .to_owned(),
                });
            }
            return Err(impossible("the position is already restored"));
        }
        let ply = self.history.iter().rposition(|p| same(p, &target));
        let before_ply = self.moves.len();
        let effect = match ply {
            Some(ply) => {
                self.history.truncate(ply + 1);
                self.keys.truncate(ply + 1);
                self.moves.truncate(ply);
                self.pos = self.history[ply].clone();
                format!(
                    "{} taken back (ply {before_ply} → {ply})",
                    super::refusal::moves_ago(before_ply as u32 - ply as u32).replace(" ago", "")
                )
            }
            None if self.moves.is_empty() => {
                self.cfg.start = target.clone();
                self.history = vec![target.clone()];
                self.keys = vec![key(&target)];
                self.pos = target;
                "a new start position set up before the first move".to_owned()
            }
            None => return self.position_after_move(&target, t, out).unwrap_or_else(|| Err(impossible(
                "not a position of this game: only an earlier position of the game (a take-back), \
                     the position after one legal move, or before the first move a new start can be set",
            ))),
        };
        // A result the take-back withdraws is said by name (ia12: a draw by
        // agreement vanished under "the game goes on").
        let reopened = self.ended().then(|| self.result_words());
        // The arbiter has set the position: the set-up guidance is over.
        self.setup = super::SetUp::Done;
        // A take-back reopens a game that had ended (its result unconfirmed).
        self.resume_play();
        self.confirmation = None;
        self.pending_illegal = None;
        self.pending_breach = None;
        self.take_back_state(t);
        self.push_clock(t, out);
        Ok(Applied {
            article: ra.position,
            effect: match reopened {
                Some(result) => {
                    format!("{effect}; the result {result} is withdrawn: the game goes on")
                }
                None => effect,
            },
        })
    }
}
