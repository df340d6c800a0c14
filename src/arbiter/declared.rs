//! A result the arbiter declares himself (`arbiter: result`, issue 40.6):
//! plain (the arbiter's decision, 2009 / 2001 §13.1, 2023 12.1, or what the
//! fallen flags make it, [`Arbiter::flag_declared`]) or under an article of
//! the profile's list ([`crate::rules::Profile::declared_articles`]: 2023
//! 11.3.2.2 a device, "the player shall lose the game. The opponent shall
//! win."; 2009 §12.3b "skal spilleren tabe partiet. Modstanderen skal
//! vinde", seed 002; misconduct, a forfeit, illegal moves, a flag, a
//! resignation, a draw). Under an article the declaration is the
//! arbiter's own act: the result is confirmed by it (`result_confirmed` at
//! once; DSU regulations 004 §15's provisional result is for results the
//! board found, `confirm.rs`), and the `game_end` says `declared`. Without
//! an article (the record of journals written before issue 40) the
//! result stays provisional, as it was.

use super::announce::Decisions;
use super::confirm::Confirmation;
use super::refusal::{impossible, Applied, Refusal};
use super::{dead, Arbiter};
use crate::model::{EndReason, KnownOutcome, Score};
use crate::rules::{DeclaredArticle, DeclaredGround};
use crate::trace::Forfeit;
use shakmaty::Color;

/// "White" / "Black".
fn name(c: Color) -> &'static str {
    if c == Color::White {
        "White"
    } else {
        "Black"
    }
}

impl Arbiter {
    /// `result` without an article: the arbiter's decision, or the flag's
    /// result ([`Arbiter::flag_declared`]). Provisional as before issue 40
    /// (`confirm` follows), so that a journal written before articles
    /// replays to the same rulings (its `confirm`, its `undo` numbers);
    /// `confirmed`: the same result under the article of the arbiter's
    /// decision (12.1 / §13.1), confirmed by that act.
    pub(super) fn declare_result(
        &mut self,
        result: KnownOutcome,
        reason: Option<&str>,
        confirmed: bool,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        self.not_over_yet()?;
        let (why, article) = self.flag_declared(result, reason.is_some())?;
        if confirmed {
            return Ok(self.declared(result, (why, article), reason, t, out));
        }
        self.end(result, why, article, t, out);
        Ok(Applied {
            article,
            effect: format!("the game ends {} ({why})", result.as_str()),
        })
    }

    /// `result` under `article` (one of the profile's declared articles),
    /// with the arbiter's `reason` (required): checked against what the
    /// article gives (a win, a draw; the draw when the winner cannot mate
    /// where the article has that exception), then the game ends with the
    /// article's reason (`rules_infraction`, `illegal_moves`, `time`, …),
    /// confirmed at once. 6.7.1 / §6.6a / §6.7 enter the forfeit (the
    /// default time's checks, `confirm.rs`).
    pub(super) fn declare_result_under(
        &mut self,
        result: KnownOutcome,
        article: &str,
        reason: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        self.not_over_yet()?;
        let p = self.cfg.profile;
        let Some(d) = p.declared_article(article) else {
            return Err(impossible(format!(
                "\"{article}\" is no article a result is declared under in {} ({}); the articles: {}",
                p.edition.name(),
                p.mode.as_str(),
                p.declared_articles()
                    .iter()
                    .map(|d| format!("{} ({})", d.article, d.what))
                    .collect::<Vec<_>>()
                    .join("; ")
            )));
        };
        if reason.is_none_or(|r| r.trim().is_empty()) {
            return Err(impossible(format!(
                "a result declared under {} ({}) is given with its reason (what happened, e.g. \
                 \"Black's phone rang in the playing venue\")",
                d.article, d.what
            )));
        }
        // The arbiter's plain decision: as without an article (the fallen
        // flags' results kept, `flag_declared`).
        if d.ground == DeclaredGround::Decision {
            return self.declare_result(result, reason, true, t, out);
        }
        if d.ground == DeclaredGround::Forfeit {
            let KnownOutcome::Decisive { .. } = result else {
                return Err(impossible(format!(
                    "{} ({}): a forfeit is won by the player present (1-0 or 0-1)",
                    d.article, d.what
                )));
            };
            return self.enter_forfeit(Forfeit::Won(result), (false, reason), t, out);
        }
        let why = self.declared_reason(result, d)?;
        let applied = self.declared(result, (why, d.article), reason, t, out);
        Ok(Applied {
            article: d.article,
            effect: format!("{} — {}", applied.effect, d.what),
        })
    }

    /// The game's end reason for `result` under `d`, or why the article
    /// does not give that result.
    fn declared_reason(
        &self,
        result: KnownOutcome,
        d: DeclaredArticle,
    ) -> Result<EndReason, Refusal> {
        use DeclaredGround as G;
        let p = self.cfg.profile;
        if d.ground == G::IllegalPosition
            && super::unpressed_illegal::illegal_position_squares(shakmaty::Position::board(
                &self.pos,
            ))
            .is_empty()
        {
            return Err(impossible(format!(
                "{} ({}): the position on the board is legal (no pawn on its furthest rank, \
                 not both kings in check); A.5.4 draws only an illegal position still on the \
                 board",
                d.article, d.what
            )));
        }
        let cannot_mate = |c: Color| dead::can_mate(&self.pos, c) == Some(false);
        // Where the article draws when the winner cannot checkmate.
        let draw_exception = match d.ground {
            G::IllegalMoves => p.illegal_loss_draw_exception,
            G::Time => true,
            G::Resignation => p.resignation_needs_mating_chance,
            _ => false,
        };
        match (d.ground.wants_win(), result) {
            (Some(true), KnownOutcome::Decisive { winner }) if cannot_mate(winner) => {
                if let G::Infraction {
                    draw_if_no_mate: true,
                } = d.ground
                {
                    return Err(impossible(format!(
                        "{} cannot win by any legal sequence: under {} his score is a draw's and \
                             the offender's a loss (0-½), a score the board's results (1-0, 0-1, \
                             1/2-1/2) cannot carry; declare it under the arbiter's decision and \
                             record the score on the paperwork",
                        name(winner),
                        d.article
                    )));
                }
                if draw_exception {
                    return Err(impossible(format!(
                        "{} cannot checkmate by any legal sequence: under {} the game is drawn, \
                             not {}; declare 1/2-1/2",
                        name(winner),
                        d.article,
                        result.as_str()
                    )));
                }
            }
            (Some(true), KnownOutcome::Draw) => {
                let someone_cannot = cannot_mate(Color::White) || cannot_mate(Color::Black);
                if !(draw_exception && someone_cannot) {
                    return Err(impossible(format!(
                        "under {} ({}) the result is a win (1-0 or 0-1){}",
                        d.article,
                        d.what,
                        if draw_exception {
                            "; a draw only when the winner cannot checkmate by any legal sequence, \
                             and both sides still can"
                        } else {
                            ""
                        }
                    )));
                }
            }
            (Some(false), KnownOutcome::Decisive { .. }) => {
                return Err(impossible(format!(
                    "under {} ({}) the result is a draw (1/2-1/2)",
                    d.article, d.what
                )));
            }
            _ => {}
        }
        Ok(match (d.ground, result) {
            (G::Decision, _) => EndReason::ArbiterDecision,
            (G::Infraction { .. }, _) => EndReason::RulesInfraction,
            (G::IllegalMoves, _) => EndReason::IllegalMoves,
            (G::Time, KnownOutcome::Draw) => EndReason::TimeVsInsufficientMaterial,
            (G::Time, _) => EndReason::Time,
            (G::Resignation, _) => EndReason::Resignation,
            (G::Agreement, _) => EndReason::Agreement,
            (G::Threefold, _) => EndReason::Threefold,
            (G::FiftyMoves, _) => EndReason::FiftyMoves,
            (G::IllegalPosition, _) => EndReason::ArbiterDecision,
            // Entered as a forfeit before this (`declare_result_under`).
            (G::Forfeit, _) => EndReason::Forfeit,
        })
    }

    /// A result is declared on a game still going on only.
    fn not_over_yet(&self) -> Result<(), Refusal> {
        match self.outcome() {
            Some(o) => Err(impossible(format!(
                "the game is already over ({}, {}): confirm or correct its result instead",
                o.result.as_str(),
                o.reason
            ))),
            None => Ok(()),
        }
    }

    /// Ends the game with the declared result and confirms it (one act).
    fn declared(
        &mut self,
        result: KnownOutcome,
        (why, article): (EndReason, &'static str),
        reason: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) -> Applied {
        self.end_with(result, (why, article), true, t, out);
        self.record_confirmation(
            Confirmation {
                result: Score::Game(result),
                corrected: false,
                forfeit: false,
                reason: reason
                    .map(str::trim)
                    .filter(|r| !r.is_empty())
                    .map(str::to_owned),
            },
            article,
            t,
            out,
        );
        Applied {
            article,
            effect: format!(
                "the game ends {} ({why}), confirmed as declared",
                result.as_str()
            ),
        }
    }
}
