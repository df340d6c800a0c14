//! Draw claims by repetition and fifty moves (2009/2001 §9.2, §9.3, §9.5;
//! 2023 9.2–9.5), among them the claim on a move written on the scoresheet
//! and declared to the arbiter but not made on the board (2009/2001 §9.2a,
//! §9.3a; 2023 9.2.1, 9.3.1).
//!
//! - A claim that names its written move (the `claim` record's `move`) is
//!   checked against the position after that move, which is not made: if
//!   the claim is correct the game is drawn without it (§9.5a / 9.5.2); if
//!   not, the wrong claim's cost is applied and the move must be made
//!   (2009 §9.5b "skal dette træk udføres i henhold til § 4", 2001 §9.5b
//!   "det meddelte træk skal udføres", 2023 9.5.3 "in accordance with
//!   Articles 3 and 4"): its piece counts as touched.
//! - A claim that does not hold on the board and names no move is held for
//!   the arbiter (`claim_held`, the clocks stopped, §9.5 / 9.5.1) when some
//!   legal move would make it correct: the board cannot read the
//!   scoresheet, and must not penalise a claim that may be correct. It is
//!   rejected outright only when no legal move makes it correct.
//! - The arbiter rules on a held claim: `uphold` (with the written move)
//!   draws the game; `reject` applies the wrong claim's cost and restarts
//!   the claimant's clock. Until then nothing is announced, and the clocks
//!   are not restarted (`resume` is refused).

use super::announce::Decisions;
use super::matter::OpenMatter;
use super::refusal::{impossible, stale, Applied, Refusal};
use super::touch::Touch;
use super::{key, Arbiter};
use crate::model::{ClaimKind, EndReason, KnownOutcome};
use crate::rules::{Edition, WrongClaim};
use crate::trace::{By, Event, EventKind, MoveChoice};
use serde_json::{json, Value};
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

/// A draw claim the board holds for the arbiter's ruling (`claim_held`).
#[derive(Debug, Clone)]
pub(crate) struct HeldClaim {
    /// Round time of the claim, ms (the alert's `t`).
    pub(super) t: u64,
    /// The claimant.
    pub(super) by: Color,
    /// `Threefold` or `FiftyMoves`.
    pub(super) kind: ClaimKind,
    /// The legal moves after which the claim is correct.
    pub(super) candidates: Vec<Move>,
    /// The completed plies at the claim.
    pub(super) ply: u32,
    /// Whether holding it stopped a running clock (a rejection restarts it).
    pub(super) stopped: bool,
}

fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn san(pos: &Chess, m: &Move) -> String {
    SanPlus::from_move(pos.clone(), *m).to_string()
}

impl Arbiter {
    /// Whether a claim made at ply `ply` can still be ruled on: refused as
    /// stale (409) when the game is over or moves were made since (`then`:
    /// what the arbiter may do instead, in words).
    pub(super) fn claim_still_open(&self, ply: u32, then: &str) -> Result<(), Refusal> {
        if let Some(o) = self.outcome() {
            return Err(stale(format!(
                "the game is over ({}, {}): the claim is no longer open",
                o.result.as_str(),
                o.reason
            )));
        }
        if ply != self.ply() {
            return Err(stale(format!(
                "moves were made since the claim (ply {ply} → {}): {then}",
                self.ply()
            )));
        }
        Ok(())
    }

    /// The article of a claim on a written move (`rules`, per profile).
    fn written_article(&self, kind: ClaimKind) -> &'static str {
        self.cfg
            .profile
            .article_written_claim(kind == ClaimKind::FiftyMoves)
    }

    /// Whether the claim of `kind` holds on the position as it stands
    /// (§9.2b / §9.3b; 2023 9.2.2 / 9.3.2).
    fn holds_now(&self, kind: ClaimKind) -> bool {
        match kind {
            ClaimKind::Threefold => self.repetitions() >= 3,
            _ => self.pos.halfmoves() >= 100,
        }
    }

    /// Whether the claim of `kind` holds after the legal move `m`, not made
    /// (§9.2a / §9.3a): the position after it stands for the third time,
    /// or it completes fifty moves of each player without a pawn move or a
    /// capture.
    fn holds_after(&self, kind: ClaimKind, m: &Move) -> bool {
        let mut after = self.pos.clone();
        after.play_unchecked(*m);
        match kind {
            ClaimKind::Threefold => {
                let k = key(&after);
                self.keys.iter().filter(|x| **x == k).count() >= 2
            }
            _ => after.halfmoves() >= 100,
        }
    }

    /// The legal moves after which the claim of `kind` would be correct.
    fn candidates(&self, kind: ClaimKind) -> Vec<Move> {
        self.pos
            .legal_moves()
            .into_iter()
            .filter(|m| self.holds_after(kind, m))
            .collect()
    }

    /// `w` (UCI or SAN) as a legal move in the position on the board.
    fn written(&self, w: &str) -> Result<Move, String> {
        let m = match w.parse::<UciMove>() {
            Ok(u) => u.to_move(&self.pos).map_err(|e| e.to_string()),
            Err(_) => w
                .parse::<San>()
                .map_err(|e| e.to_string())
                .and_then(|s| s.to_move(&self.pos).map_err(|e| e.to_string())),
        };
        m.map_err(|e| format!("{w} is not a legal move here ({e})"))
    }

    /// What a wrong draw claim by `by` costs, in words (2009 §9.5b, 2001
    /// §9.5b, 2023 9.5.3), without applying it.
    pub(super) fn wrong_claim_cost(&self, by: Color) -> String {
        if self.clock.is_none() {
            return "no time penalty (no clock)".to_owned();
        }
        let opp = side(!by);
        match self.cfg.profile.wrong_claim {
            WrongClaim::OpponentBonus(ms) => format!("+{} min to {opp}", ms / 60_000),
            WrongClaim::BonusAndCut => {
                format!("+3 min to {opp} and {}'s time reduced", side(by))
            }
        }
    }

    /// Rules on `by`'s draw claim of `kind` (threefold, fifty moves) at `t`,
    /// on the written move `intended` when the claim names one.
    pub(super) fn draw_claim(
        &mut self,
        kind: ClaimKind,
        by: Color,
        intended: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) {
        let p = self.cfg.profile;
        let a = p.articles;
        let (article, reason) = if kind == ClaimKind::Threefold {
            (a.threefold, EndReason::Threefold)
        } else {
            (a.fifty_moves, EndReason::FiftyMoves)
        };
        // 2009 §9.4 / 2023 9.4: the right is lost once the claimant
        // touched a piece; 2001 §9.4: once he made a move.
        let touched = !self.turn.touches.is_empty() && p.edition != Edition::Fide2001;
        if by != self.pos.turn() {
            let text = "only the player on move may claim".to_owned();
            return self.claim_event(by, kind, false, text, article, t, out);
        }
        if touched {
            let text = "the right to claim was lost on touching a piece (9.4)".to_owned();
            return self.claim_event(by, kind, false, text, article, t, out);
        }
        if self.holds_now(kind) {
            self.claim_event(by, kind, true, "draw".into(), article, t, out);
            self.end(KnownOutcome::Draw, reason, article, t, out);
            return;
        }
        let written = intended.map(|w| self.written(w));
        if let Some(Ok(m)) = &written {
            let m = *m;
            let w_article = self.written_article(kind);
            let s = san(&self.pos, &m);
            if self.holds_after(kind, &m) {
                let text = format!("draw: {s}, written and not made, {}", self.why(kind));
                self.claim_event(by, kind, true, text, w_article, t, out);
                self.end(KnownOutcome::Draw, reason, w_article, t, out);
                return;
            }
            let cost = self.wrong_claim(by, t);
            let must = self.oblige(&m, t);
            // An incorrect claim is also a draw offer (2009 §9.1b(3)).
            self.draw_offer = Some(by);
            let text = format!("{cost}; {must}");
            self.claim_event(by, kind, false, text, a.wrong_claim, t, out);
            self.push_clock(t, out);
            return;
        }
        // No move named (or one not legal here): held for the arbiter when
        // a move written on the scoresheet could make the claim correct.
        let candidates = self.candidates(kind);
        if candidates.is_empty() {
            // The cost, then why (issue 40 point 7): the positions compared.
            let why = self.claim_rejection_reason(kind);
            let text = format!("{}; {why}", self.wrong_claim(by, t));
            self.draw_offer = Some(by);
            self.claim_event(by, kind, false, text, a.wrong_claim, t, out);
            self.push_clock(t, out);
            return;
        }
        let stopped = match self.clock.as_mut() {
            Some(c) if c.running().is_some() => {
                c.stop(t);
                true
            }
            _ => false,
        };
        self.draw_offer = Some(by);
        out.push(Event {
            t,
            kind: EventKind::ClaimHeld {
                by: By(by),
                kind,
                candidates: candidates
                    .iter()
                    .map(|m| MoveChoice {
                        uci: m.to_uci(CastlingMode::Standard).to_string(),
                        san: san(&self.pos, m),
                        displaced: Vec::new(),
                    })
                    .collect(),
                article: self.written_article(kind),
            },
        });
        self.held_claim = Some(HeldClaim {
            t,
            by,
            kind,
            candidates,
            ply: self.ply(),
            stopped,
        });
        if stopped {
            self.push_clock(t, out);
        }
    }

    /// Why the claim holds after the written move, in words.
    fn why(&self, kind: ClaimKind) -> String {
        match kind {
            ClaimKind::Threefold => format!(
                "gives the same position for the third time ({})",
                self.written_article(kind)
            ),
            _ => format!(
                "completes fifty moves of each player without a pawn move or a capture ({})",
                self.written_article(kind)
            ),
        }
    }

    /// The written move `m` must now be made (§9.5b / 9.5.3): its piece
    /// counts as touched (Article 4). Returns the words.
    fn oblige(&mut self, m: &Move, t: u64) -> String {
        let s = san(&self.pos, m);
        if let Some(article) = self.bind_announced(m) {
            // 2001 §9.5b: the announced move itself (`announced.rs`).
            return format!("{s} was written: the announced move must be made ({article})");
        }
        let rule = match self.cfg.profile.edition {
            Edition::Fide2001 => "the announced move must be made",
            Edition::Fide2023 => "it must be played in accordance with Articles 3 and 4",
            _ => "it must be made in accordance with Article 4",
        };
        let from = match m {
            Move::Castle { king, .. } => Some(*king),
            _ => m.from(),
        };
        if let Some((sq, piece)) =
            from.and_then(|sq| self.pos.board().piece_at(sq).map(|p| (sq, p)))
        {
            if !self.turn.touches.iter().any(|x| x.square == sq) {
                self.turn.touches.push(Touch {
                    square: sq,
                    piece,
                    t,
                });
            }
            return format!(
                "{s} was written: {rule} ({}; the piece on {sq} counts as touched)",
                self.cfg.profile.articles.wrong_claim
            );
        }
        format!("{s} was written: {rule}")
    }

    /// `uphold` (`uphold` true) or `reject` of the held claim, on the move
    /// the arbiter read on the scoresheet (`written`, UCI or SAN).
    pub(super) fn rule_held(
        &mut self,
        uphold: bool,
        written: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let Some(h) = self.held_claim.clone() else {
            return Err(impossible(
                "no draw claim is held for a ruling (a claim the board decided is overruled instead)",
            ));
        };
        self.claim_still_open(h.ply, "set the position back to rule on it")?;
        let mv = written
            .map(|w| self.written(w))
            .transpose()
            .map_err(impossible)?;
        let names = |v: &[Move]| {
            v.iter()
                .map(|m| san(&self.pos, m))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let a = self.cfg.profile.articles;
        if uphold {
            let m = match mv {
                Some(m) if h.candidates.contains(&m) => m,
                Some(m) => {
                    return Err(impossible(format!(
                        "with {} written the claim is not correct; it is with {}",
                        san(&self.pos, &m),
                        names(&h.candidates)
                    )))
                }
                None if h.candidates.len() == 1 => h.candidates[0],
                None => {
                    return Err(impossible(format!(
                        "name the written move (body key 'move'): one of {}",
                        names(&h.candidates)
                    )))
                }
            };
            let s = san(&self.pos, &m);
            let article = self.written_article(h.kind);
            let why = self.why(h.kind);
            let reason = if h.kind == ClaimKind::Threefold {
                EndReason::Threefold
            } else {
                EndReason::FiftyMoves
            };
            self.held_claim = None;
            let text = format!("draw: {s}, written and not made, {why}");
            self.claim_event(h.by, h.kind, true, text, article, t, out);
            self.end(KnownOutcome::Draw, reason, article, t, out);
            return Ok(Applied {
                article,
                effect: format!(
                    "{}'s claim upheld: the game is drawn; {s}, written and not made, {why}",
                    side(h.by)
                ),
            });
        }
        if let Some(m) = mv.as_ref().filter(|m| h.candidates.contains(m)) {
            return Err(impossible(format!(
                "with {} written the claim is correct: uphold it",
                san(&self.pos, m)
            )));
        }
        self.held_claim = None;
        let cost = self.wrong_claim(h.by, t);
        let must = mv
            .map(|m| format!("; {}", self.oblige(&m, t)))
            .unwrap_or_default();
        if h.stopped {
            let turn = self.pos.turn();
            if let Some(c) = self.clock.as_mut().filter(|c| c.running().is_none()) {
                c.start(turn, t);
            }
        }
        let text = format!("{cost}{must}; play goes on");
        self.claim_event(h.by, h.kind, false, text.clone(), a.wrong_claim, t, out);
        self.push_clock(t, out);
        Ok(Applied {
            article: a.wrong_claim,
            effect: format!("{}'s claim rejected: {text}", side(h.by)),
        })
    }

    /// The held claim as an open matter, with its rulings worded by effect.
    pub(super) fn open_held(&self) -> Option<OpenMatter> {
        let h = self.held_claim.as_ref().filter(|_| !self.ended())?;
        let who = side(h.by);
        let what = h.kind.as_str().replace('_', " ");
        let article = self.written_article(h.kind);
        if h.ply != self.ply() {
            // Overtaken: ruled only on its own position (`held_overtaken.rs`).
            return Some(self.held_overtaken(h, &what, article));
        }
        let names: Vec<String> = h.candidates.iter().map(|m| san(&self.pos, m)).collect();
        let summary = format!(
            "{who} claimed {what}; it does not hold on the board, but it is correct if the move \
             written on the scoresheet is {} ({article}): held for your ruling, the clocks \
             stopped; no penalty given",
            names.join(" or ")
        );
        let cost = self.wrong_claim_cost(h.by);
        let mut rulings: Vec<super::matter::OpenRuling> = h
            .candidates
            .iter()
            .zip(&names)
            .map(|(m, s)| {
                super::matter::ruling(
                    "uphold",
                    json!({"move": m.to_uci(CastlingMode::Standard).to_string()}),
                    &format!("Uphold: {s} written (draw, {article})"),
                    format!(
                        "the game is drawn: {s}, written and not made, {}",
                        self.why(h.kind)
                    ),
                )
            })
            .collect();
        rulings.push(super::matter::ruling(
            "reject",
            Value::Null,
            &format!("Reject ({cost}, {})", self.cfg.profile.articles.wrong_claim),
            format!(
                "the claim is incorrect (the move written is none of {}): {cost} ({}); a move \
                 written must then be made; {}'s clock runs again",
                names.join(", "),
                self.cfg.profile.articles.wrong_claim,
                side(self.pos.turn())
            ),
        ));
        Some(OpenMatter {
            kind: "claim_held",
            t: h.t,
            by: Some(crate::trace::color_str(h.by)),
            summary,
            rulings,
        })
    }

    /// Why `resume` is refused while a claim is held, if one is.
    pub(super) fn held_blocks_resume(&self) -> Option<Refusal> {
        let h = self.held_claim.as_ref().filter(|_| !self.ended())?;
        Some(impossible(format!(
            "{}'s {} claim (t = {} ms) is held for your ruling: uphold or reject it first \
             (rejecting restarts the clock)",
            side(h.by),
            h.kind.as_str().replace('_', " "),
            h.t
        )))
    }
}
