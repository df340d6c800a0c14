//! What is open for the arbiter now (issue 24.2): the matters the board
//! raised that still wait for a ruling, each with the rulings the Laws
//! leave open, worded by their effect (the state's `open`). A matter the
//! board decided offers only what reverses its decision ("Overrule"); a
//! penalty the board gave is never offered again; a decided or stale
//! matter is not listed.

use super::matter::{by_str, restore_ruling, ruling, side, OpenMatter};
use super::refusal::hms;
use super::Arbiter;
use crate::model::{win_for, ClaimKind, EndReason, KnownOutcome, Score};
use crate::trace::{Event, EventKind, EventRef};
use serde_json::{json, Value};
use shakmaty::Color;

/// An alert the board raised: its type, time and ply (what `expect.event`
/// names).
#[derive(Debug, Clone)]
pub(super) struct Alert {
    pub(super) kind: &'static str,
    pub(super) t: u64,
    pub(super) ply: u32,
    pub(super) event: Event,
}

impl Arbiter {
    /// Notes the alerts among the decisions from index `from` on.
    pub(super) fn note_alerts(&mut self, out: &super::Decisions, from: usize) {
        let ply = self.ply();
        for d in out.as_slice().get(from..).unwrap_or(&[]) {
            let super::Decision::Event(e) = d else {
                continue;
            };
            let kind = match &e.kind {
                EventKind::IllegalMove { .. } => "illegal_move",
                EventKind::TouchMove { .. } => "touch_move",
                EventKind::Claim { .. } => "claim",
                EventKind::ClaimHeld { .. } => "claim_held",
                EventKind::AmbiguousMove { .. } => "ambiguous_move",
                EventKind::Flag { .. } => "flag",
                EventKind::GameEnd { .. } => "game_end",
                EventKind::Irregularity { .. } => "irregularity",
                _ => continue,
            };
            self.alerts.push(Alert {
                kind,
                t: e.t,
                ply,
                event: e.clone(),
            });
            // The log is for the matters still open: a long game keeps
            // the last ones only.
            if self.alerts.len() > 64 {
                self.alerts.remove(0);
            }
        }
    }

    /// The last alert of `kind`.
    fn last_alert(&self, kind: &str) -> Option<&Alert> {
        self.alerts.iter().rev().find(|a| a.kind == kind)
    }

    /// Whether the alert `ev` is still open.
    pub(super) fn is_open(&self, ev: &EventRef) -> bool {
        self.open().iter().any(|m| m.kind == ev.kind && m.t == ev.t)
    }

    /// Whether the alert at `ev` answered by a ruling already (a decided claim overruled).
    pub(super) fn answered(&self, kind: &str, t: u64) -> bool {
        self.rulings.iter().any(|r| {
            r.undone_by.is_none()
                && r.answers
                    .as_ref()
                    .is_some_and(|a| a.kind == kind && a.t == t)
        })
    }

    /// The matters open now, oldest first.
    pub fn open(&self) -> Vec<OpenMatter> {
        let mut v = Vec::new();
        // A confirmed result closes every matter: nothing is ruled on the
        // game any more but a correction or an undo (`check_expect`), so
        // nothing is offered (a live "Overrule" would only be refused).
        if self.confirmation.is_some() {
            return v;
        }
        // A downtime: the clocks wait for the arbiter (`clock_rulings.rs`).
        v.extend(self.downtime_matter());
        let ply = self.ply();
        let a = self.cfg.profile.articles;
        // A completed illegal move open to a claim (rapid and blitz with
        // inadequate supervision) is not listed: only the opponent's claim
        // counts (2009 A4c / B3c), the arbiter does not intervene unasked.
        if let Some(al) = self.last_alert("illegal_move") {
            // The board ruled: the penalty is given; only the position is
            // to be put right on the board.
            if self.restore_pending() && al.ply == ply && !self.answered("illegal_move", al.t) {
                let penalty = match &al.event.kind {
                    EventKind::IllegalMove { penalty, by, .. } => {
                        format!("{} by {}: {penalty} (given)", "illegal move", side(by.0))
                    }
                    _ => String::new(),
                };
                // Whose time the reinstatement takes (docs/profiles.md, "The
                // clocks while an illegal move is set back"): said, so that
                // the arbiter who judges otherwise pauses (7.1).
                let running = self
                    .clock
                    .as_ref()
                    .and_then(|c| c.running())
                    .map(|c| format!(", {}'s clock running", side(c)))
                    .unwrap_or_default();
                v.push(OpenMatter {
                    kind: "illegal_move",
                    t: al.t,
                    by: None,
                    summary: format!(
                        "{penalty}; the board waits for the position before it to be set up again{running}"
                    ),
                    rulings: std::iter::once(restore_ruling())
                        .chain(self.penalty_rulings(al.t))
                        .collect(),
                });
            }
        }
        if let Some(m) = self.open_unclaimed_illegal() {
            v.push(m);
        }
        v.extend(self.open_illegal_position());
        if let Some(pb) = &self.pending_breach {
            if let Some(al) = self.last_alert("touch_move") {
                let opp = side(!pb.by);
                v.push(OpenMatter {
                    kind: "touch_move",
                    t: al.t,
                    by: Some(by_str(pb.by)),
                    summary: format!(
                        "{} broke touch-move ({}): {} played, {} touched; open to {opp}'s claim",
                        side(pb.by),
                        pb.breach.article,
                        pb.played,
                        pb.breach.touched
                    ),
                    rulings: vec![ruling(
                        "accept",
                        Value::Null,
                        &format!("Uphold {opp}'s claim"),
                        format!(
                            "{} is taken back; {} must keep the obligation on {} ({})",
                            pb.played,
                            side(pb.by),
                            pb.breach.touched,
                            pb.breach.article
                        ),
                    )],
                });
            }
        }
        if let Some(m) = self.open_claim() {
            v.push(m);
        }
        if let Some(m) = self.open_held() {
            v.push(m);
        }
        if let Some(al) = self.last_alert("ambiguous_move") {
            if self.held.is_some() {
                if let EventKind::AmbiguousMove { candidates, by, .. } = &al.event.kind {
                    v.push(OpenMatter {
                        kind: "ambiguous_move",
                        t: al.t,
                        by: Some(by_str(by.0)),
                        summary: format!(
                            "{}'s move fits several readings; the game is held",
                            side(by.0)
                        ),
                        rulings: candidates
                            .iter()
                            .map(|c| {
                                ruling(
                                    "choose",
                                    json!({"uci": c.uci}),
                                    &format!("Choose {}", c.san),
                                    if c.displaced.is_empty() {
                                        format!("{} is the move played", c.san)
                                    } else {
                                        format!(
                                            "{} is the move played; the pieces on {} were \
                                             displaced, to be put right ({})",
                                            c.san,
                                            c.displaced.join(" "),
                                            a.displaced
                                        )
                                    },
                                )
                            })
                            .collect(),
                    });
                }
            }
        }
        if !self.ended() {
            if let Some(m) = self.both_flags_open() {
                v.push(m);
            } else if let Some(al) = self.last_alert("flag") {
                if let EventKind::Flag { by } = &al.event.kind {
                    let loser = by.0;
                    let result = if super::dead::can_mate(&self.pos, !loser) == Some(false) {
                        KnownOutcome::Draw
                    } else {
                        win_for(!loser)
                    };
                    let mut summary = format!("{}'s flag has fallen; the game goes on until the opponent claims or the arbiter declares it", side(loser));
                    let mut rulings = vec![ruling(
                        "result",
                        json!({"result": result.as_str()}),
                        "Declare the flag",
                        if result == KnownOutcome::Draw {
                            format!("ends the game 1/2-1/2: {}'s flag has fallen, but {} cannot checkmate by any legal sequence ({})", side(loser), side(!loser), a.time)
                        } else {
                            format!(
                                "ends the game {}: {} lost on time ({})",
                                result.as_str(),
                                side(loser),
                                a.time
                            )
                        },
                    )];
                    // §10.2c / III.5.2: after a postponed claim the flag
                    // is the moment to declare the final result.
                    if let Some(dc) = self
                        .postponed_claim_of(loser)
                        .filter(|_| result != KnownOutcome::Draw)
                    {
                        let q = self.cfg.profile.articles.quickplay;
                        summary = format!(
                            "{summary}; {}: declare the final result now ({q})",
                            self.postponed_words(dc)
                        );
                        rulings.push(ruling("result", json!({"result": "1/2-1/2"}), &format!("Declare the draw ({q})"),
                            format!("ends the game 1/2-1/2 on the postponed claim: {} could not win by normal means, or made no sufficient attempt to ({q})", side(!loser))));
                    }
                    v.push(OpenMatter {
                        kind: "flag",
                        t: al.t,
                        by: Some(by_str(loser)),
                        summary,
                        rulings,
                    });
                }
            }
            if self.restore_pending() && !v.iter().any(|m| m.kind == "illegal_move") {
                if let Some(al) = self.last_alert("irregularity") {
                    v.push(OpenMatter {
                        kind: "irregularity",
                        t: al.t,
                        by: None,
                        summary: "the position on the board differs from the game's: it is to be put right on the board".to_owned(),
                        rulings: std::iter::once(restore_ruling())
                            .chain(self.clock.as_ref().filter(|c| c.running().is_some()).map(|_| ruling("pause", Value::Null, "Pause clocks", "stops both clocks while the position is put right".to_owned())))
                            .collect(),
                    });
                }
            }
        }
        if let Some(m) = self
            .open_boards_differ()
            .filter(|_| !self.restore_pending())
        {
            v.push(m);
        }
        if let (Some(o), None) = (self.outcome(), &self.confirmation) {
            let t = self.last_alert("game_end").map_or(o.t, |a| a.t);
            // §10.2c / III.5.2: a flag after a postponed claim.
            let postponed = match o.result {
                Score::Game(KnownOutcome::Decisive { winner }) if o.reason == EndReason::Time => {
                    self.postponed_claim_of(!winner)
                        .map(|dc| (winner, self.postponed_words(dc)))
                }
                _ => None,
            };
            let q = self.cfg.profile.articles.quickplay;
            let mut rulings = vec![ruling(
                "confirm",
                Value::Null,
                &format!("Confirm {}", o.result.as_str()),
                format!(
                    "confirms {} ({}) as the result",
                    o.result.as_str(),
                    o.reason
                ),
            )];
            for r in [
                KnownOutcome::Decisive {
                    winner: Color::White,
                },
                KnownOutcome::Draw,
                KnownOutcome::Decisive {
                    winner: Color::Black,
                },
            ] {
                if r != o.result {
                    let why = match &postponed {
                        Some(_) if r == KnownOutcome::Draw => {
                            format!("the arbiter's decision on the postponed claim, {q}")
                        }
                        _ => "the arbiter's decision".to_owned(),
                    };
                    rulings.push(ruling(
                        "confirm",
                        json!({"result": r.as_str()}),
                        &format!("Correct to {}", r.as_str()),
                        format!(
                            "replaces the board's {} ({}) by {} ({why}) and confirms it",
                            o.result.as_str(),
                            o.reason,
                            r.as_str()
                        ),
                    ));
                }
            }
            let mut summary = format!(
                "the game ended {} ({}): the result to confirm (DSU 004 §15)",
                o.result.as_str(),
                o.reason
            );
            // A draw and no win (7.5.5 / 6.9): why no mate (issue 40.7).
            if let Some(w) = self.no_mate_words(&o) {
                summary.push_str(&format!("; a draw, not a win: {w}"));
            }
            // A draw claim the board rejected before this end, no move
            // since: if the arbiter finds it correct, the game was drawn
            // when it was made (ia16/ia18: its cost taken back too).
            if let Some(words) = self
                .decided_claim
                .as_ref()
                .filter(|dc| dc.ply == self.ply() && dc.t < o.t)
                .and_then(|dc| self.claim_correct_after_end_words(dc, o))
            {
                summary.push_str(
                    "; a draw claim the board rejected came before this end: if it was correct, \
                     the game was drawn when it was made",
                );
                rulings.push(ruling(
                    "overrule",
                    Value::Null,
                    "The claim was correct: 1/2-1/2",
                    words,
                ));
            }
            if o.reason == EndReason::IllegalMoves {
                // The board's loss by the count (7.5.5): the arbiter's to withdraw.
                rulings.extend(self.penalty_rulings(o.t));
            }
            // Any other end the board declared alone (issue 40 §2).
            rulings.extend(self.end_withdrawal_ruling(&o));
            if let Some((winner, words)) = &postponed {
                summary = format!(
                    "{summary}; {words}: correct to 1/2-1/2 if {} could not win by normal means, or \
                     made no sufficient attempt to ({q})",
                    side(*winner),
                );
            }
            v.push(OpenMatter {
                kind: "game_end",
                t,
                by: None,
                summary,
                rulings,
            });
        }
        v.sort_by_key(|m| m.t);
        v
    }

    /// 2023 A.5.2 / B.3: a completed illegal move the board alerted and
    /// did not rule, while the opponent has not made his next move: the
    /// arbiter may apply 7.5.5 ("If the arbiter observes an action taken
    /// under Article 7.5.1 … he/she shall act according to Article
    /// 7.5.5, provided the opponent has not made his/her next move") or
    /// let it stand.
    fn open_unclaimed_illegal(&self) -> Option<OpenMatter> {
        let p = self.cfg.profile;
        let pi = self.pending_illegal.as_ref()?;
        if !p.unclaimed_illegal_alerted {
            return None;
        }
        let al = self.alerts.iter().rev().find(|a| {
            a.kind == "irregularity"
                && matches!(
                    a.event.kind,
                    EventKind::Irregularity {
                        kind: crate::model::IrregularityKind::IllegalMoveUnclaimed,
                        ..
                    }
                )
        })?;
        let (by, opp) = (side(pi.by), side(!pi.by));
        let count = self.illegal_counts[super::ci(pi.by)] + 1;
        let penalty = if count >= p.illegal_moves_to_lose {
            if p.illegal_loss_draw_exception
                && super::dead::can_mate(&pi.before, !pi.by) == Some(false)
            {
                format!("the game drawn ({opp} cannot checkmate by any legal sequence)")
            } else {
                format!("the game lost (illegal move no. {count})")
            }
        } else {
            crate::model::Penalty::TimeAdded {
                to: !pi.by,
                ms: p.illegal_move_bonus_ms,
            }
            .to_string()
        };
        let pen = p.articles.illegal_penalty;
        Some(OpenMatter {
            kind: "irregularity",
            t: al.t,
            by: Some(by_str(pi.by)),
            summary: format!(
                "{by} {}; not ruled: {opp} may claim, or the arbiter \
                 intervene, until {opp}'s next move is made; otherwise it stands ({})",
                match pi.without_move() {
                    true => format!(
                        "pressed the clock without making a move ({})",
                        p.articles.press_without_move
                    ),
                    false => "completed an illegal move".to_owned(),
                },
                p.articles.illegal_claim
            ),
            rulings: vec![
                ruling(
                    "accept",
                    Value::Null,
                    &format!("Rule it illegal ({pen})"),
                    format!(
                        "{by}'s move is ruled illegal: {penalty} ({pen}); the position before it \
                         is reinstated and {by} moves again"
                    ),
                ),
                ruling(
                    "overrule",
                    Value::Null,
                    "Let it stand",
                    format!("{by}'s move stands as played; no penalty, no illegal move counted"),
                ),
            ],
        })
    }

    /// The claim the board decided at this ply, if no move was made since,
    /// nobody ruled on it and nothing after it ended the game.
    fn open_claim(&self) -> Option<OpenMatter> {
        let dc = self.decided_claim.as_ref()?;
        if dc.ply != self.ply() || self.answered("claim", dc.t) || self.ended_after(dc.t).is_some()
        {
            return None;
        }
        let who = side(dc.by);
        let kind = dc.kind.as_str().replace('_', " ");
        let (summary, rulings) = if self.referred_claim().is_some() {
            (
                format!(
                    "{who} claimed a draw ({kind}); the board does not judge it: {}; the clocks are \
                     stopped — to postpone, Set clocks (the two minutes you may give the \
                     opponent) and Resume",
                    dc.consequence
                ),
                self.referred_rulings(dc)
                    .into_iter()
                    .map(|(action, label, effect)| ruling(action, Value::Null, &label, effect))
                    .collect(),
            )
        } else if dc.upheld {
            (
                format!("{who} claimed {kind}; the board upheld it: {}", dc.consequence),
                vec![ruling("overrule", Value::Null, "Overrule",
                    format!("the board upheld the claim; overruling rejects it: the game is put back as it stood before the claim{}", self.wrong_claim_words(dc.by, dc.kind)))],
            )
        } else {
            let upheld = self.uphold_words(dc);
            (
                format!(
                    "{who} claimed {kind}; the board rejected it: {}",
                    dc.consequence
                ),
                upheld
                    .map(|w| {
                        vec![ruling(
                            "overrule",
                            Value::Null,
                            "Overrule",
                            format!(
                                "the board rejected the claim; overruling upholds it: {w}{}",
                                self.cost_back_words(dc)
                            ),
                        )]
                    })
                    .unwrap_or_default(),
            )
        };
        Some(OpenMatter {
            kind: "claim",
            t: dc.t,
            by: Some(by_str(dc.by)),
            summary,
            rulings,
        })
    }

    /// The game's end when something after round time `t` (ms) ended it (a
    /// resignation, an illegal move that lost it): a matter raised at `t`
    /// is then no longer open; the result is confirmed or corrected instead.
    pub(super) fn ended_after(&self, t: u64) -> Option<super::Outcome> {
        self.outcome().filter(|o| o.t > t)
    }

    /// What upholding a rejected claim does, when the board can carry it
    /// out; `None` otherwise (the arbiter sets the position instead).
    pub(super) fn uphold_words(&self, dc: &super::DecidedClaim) -> Option<String> {
        let a = self.cfg.profile.articles;
        match dc.kind {
            ClaimKind::Threefold => {
                Some(format!("the game is drawn by repetition ({})", a.threefold))
            }
            ClaimKind::FiftyMoves => Some(format!(
                "the game is drawn under the fifty-move rule ({})",
                a.fifty_moves
            )),
            ClaimKind::InsufficientLosingChances => {
                Some(format!("the game is drawn ({})", a.quickplay))
            }
            ClaimKind::Time => {
                let loser = !dc.by;
                let left = self.clock.as_ref().map(|c| {
                    let (w, b) = c.remaining_at(self.now);
                    if loser == Color::White {
                        w
                    } else {
                        b
                    }
                });
                Some(format!(
                    "{} loses on time ({}){}",
                    side(loser),
                    a.time,
                    left.map_or(String::new(), |l| format!("; the clock shows {}", hms(l)))
                ))
            }
            ClaimKind::TouchMove | ClaimKind::IllegalMove => None,
        }
    }
}
