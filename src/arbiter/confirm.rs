//! Result confirmation (DSU regulations 004 §15: the winner, or White after
//! a draw, reports the result to the arbiter at once): a game's result is
//! provisional until the arbiter confirms it (`confirm`), possibly
//! correcting it; a game not played is entered as a forfeit (`forfeit`),
//! confirmed at once. A take-back that reopens the game makes it
//! unconfirmed again.

use super::announce::Decisions;
use super::refusal::{impossible, stale, Applied, Refusal};
use super::{Arbiter, Outcome};
use crate::model::{win_for, EndReason, KnownOutcome, Score};
use crate::rules::RulingArticles;
use crate::trace::{Event, EventKind, Forfeit};
use shakmaty::Color;

/// The arbiter's confirmation of the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    /// The result that stands (`0-0` only for a double forfeit).
    pub result: Score,
    /// The board's result was replaced by the arbiter's.
    pub corrected: bool,
    /// The game was not played (a no-show).
    pub forfeit: bool,
    /// The arbiter's reason for a correction or a forfeit, in words
    /// (issue 24.3).
    pub reason: Option<String>,
}

impl Arbiter {
    /// The arbiter's confirmation of the result, once given.
    pub fn confirmation(&self) -> Option<&Confirmation> {
        self.confirmation.as_ref()
    }

    /// The article under which a player who has not arrived loses (a
    /// forfeit): the profile's (2023 6.7.1, 2009 §6.6a, 2001 6.7).
    pub fn forfeit_article(&self) -> &'static str {
        RulingArticles::of(self.cfg.profile.edition).forfeit
    }

    /// `confirm`: the result stands as the board has it (or `correct`
    /// replaces it: one ruling, announced once; a correction back to the
    /// board's own result restores its reason, e.g. `agreement`). Before
    /// the end, a result given ends the game with it (the arbiter's
    /// decision); without one it is refused (nothing to confirm).
    pub(super) fn confirm_result(
        &mut self,
        correct: Option<Score>,
        reason: Option<&str>,
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let ra = RulingArticles::of(self.cfg.profile.edition);
        let article = ra.confirm;
        let was_forfeit = self.confirmation.as_ref().is_some_and(|c| c.forfeit);
        if correct == Some(Score::BothLost) {
            self.both_lost_allowed(reason, was_forfeit)?;
        }
        let (result, corrected, effect) = match (self.outcome(), correct) {
            (Some(o), Some(r)) if r != o.result => {
                let board = *self.original_outcome.get_or_insert(o);
                // Back to the board's own result: its reason stands again.
                let back = board.result == r;
                let outcome = if back {
                    board
                } else {
                    Outcome {
                        result: r,
                        // A forfeit corrected stays a forfeit (0-0: a double one).
                        reason: if was_forfeit {
                            EndReason::Forfeit
                        } else {
                            EndReason::ArbiterDecision
                        },
                        article,
                        t,
                    }
                };
                self.correct_outcome(outcome);
                (
                    r,
                    !back,
                    format!(
                        "{} ({}) corrected to {} ({}){}, confirmed",
                        o.result.as_str(),
                        o.reason,
                        r.as_str(),
                        outcome.reason,
                        both_lost_words(r, ra.both_lost, was_forfeit)
                    ),
                )
            }
            (Some(o), _) => {
                if self.confirmation.is_some() {
                    return Err(impossible(format!(
                        "the result {} is already confirmed",
                        o.result.as_str()
                    )));
                }
                let corrected = self.original_outcome.is_some_and(|b| b.result != o.result);
                (
                    o.result,
                    corrected,
                    format!("{} ({}) confirmed", o.result.as_str(), o.reason),
                )
            }
            (None, Some(r)) => {
                let declared = match r {
                    Score::BothLost => ra.both_lost,
                    Score::Game(_) => ra.result,
                };
                self.end(r, EndReason::ArbiterDecision, declared, t, out);
                (
                    r,
                    false,
                    format!(
                        "the game ends {} (arbiter's decision){}, confirmed",
                        r.as_str(),
                        both_lost_words(r, ra.both_lost, false)
                    ),
                )
            }
            (None, None) => {
                return Err(impossible(
                    "no result to confirm: the game goes on (give a result to end it)",
                ))
            }
        };
        let forfeit = was_forfeit && result != Score::Game(KnownOutcome::Draw);
        self.record_confirmation(
            Confirmation {
                result,
                corrected,
                forfeit,
                reason: reason.filter(|_| corrected).map(str::to_owned),
            },
            article,
            t,
            out,
        );
        Ok(Applied { article, effect })
    }

    /// Keeps `c` as the game's confirmation and announces it
    /// (`result_confirmed`, citing `article`): the one place a
    /// confirmation, a correction or a forfeit is recorded.
    pub(super) fn record_confirmation(
        &mut self,
        c: Confirmation,
        article: &'static str,
        t: u64,
        out: &mut Decisions,
    ) {
        out.push(Event {
            t,
            kind: EventKind::ResultConfirmed {
                result: c.result,
                corrected: c.corrected,
                forfeit: c.forfeit,
                article,
            },
        });
        self.confirmation = Some(c);
    }

    /// Whether a result lost by both (`0-0`) may be given now: only with
    /// the arbiter's reason (both players guilty, 2023 11.8 / 2009 §12.9 /
    /// 2001 §12.8, or a double forfeit), and never as a double forfeit of a
    /// game in which a player has moved (he was present).
    fn both_lost_allowed(&self, reason: Option<&str>, forfeit: bool) -> Result<(), Refusal> {
        let both = RulingArticles::of(self.cfg.profile.edition).both_lost;
        if reason.is_none_or(|r| r.trim().is_empty()) {
            return Err(impossible(format!(
                "0-0 (the game lost by both) is given only with its reason: both players found \
                 guilty ({both}) or neither player came (a double forfeit); say which"
            )));
        }
        if let (true, Some(m)) = (forfeit, self.moves.first()) {
            return Err(impossible(format!(
                "{} has moved: he was present, so this forfeit is not a double one \
                 (his win by forfeit is {})",
                if m.by == Color::White {
                    "White"
                } else {
                    "Black"
                },
                win_for(m.by).as_str()
            )));
        }
        Ok(())
    }

    /// `forfeit`: a game not played (a no-show; Laws 2009 §6.6a / 2023
    /// 6.7.1, DSU 004 §11): before any move, or after the present player's
    /// first move (he starts his clock and moves, the normal sequence: the
    /// result is then his win), also once the absent player's flag has
    /// fallen (the flag's result, not confirmed, is replaced). `0-0`: neither player came (a double
    /// forfeit, before any move: both lose, [`Score::BothLost`]). Refused
    /// with the reason otherwise, and before the default time has passed
    /// unless the arbiter decides it then (`early`: (true, his reason);
    /// `default_time.rs`).
    pub(super) fn enter_forfeit(
        &mut self,
        forfeit: Forfeit,
        (early, reason): (bool, Option<&str>),
        t: u64,
        out: &mut Decisions,
    ) -> Result<Applied, Refusal> {
        let article = RulingArticles::of(self.cfg.profile.edition).forfeit;
        // The absent player's flag fell before the arbiter entered the
        // forfeit (his clock ran from the start, 6.7.2 / §6.6): that game
        // was never played, and a forfeit is what the event's papers must
        // carry (TRF `+`/`-`, `-`/`-`), not a game lost on time.
        let flagged = match self.outcome() {
            Some(o) if self.flag_of_a_game_not_played(&o) => Some(o),
            Some(o) => {
                return Err(stale(format!(
                    "the game is already over ({}, {}){}",
                    o.result.as_str(),
                    o.reason,
                    if self.confirmation.is_some() {
                        ": its result is confirmed; undo the confirmation first"
                    } else {
                        ""
                    }
                )))
            }
            None => None,
        };
        let moved = self.moves.first().map(|m| m.by);
        let result = match (forfeit, self.moves.len(), moved) {
            (_, n, _) if n > 1 => {
                return Err(impossible(format!(
                    "both players have moved ({n} plies): the game was played; declare its result instead"
                )))
            }
            (Forfeit::Double, 0, _) => Score::BothLost,
            (Forfeit::Double, _, Some(by)) => {
                return Err(impossible(format!(
                    "{} has moved: he was present, so this is not a double forfeit \
                     (his win by forfeit is {})",
                    if by == Color::White { "White" } else { "Black" },
                    win_for(by).as_str()
                )))
            }
            (Forfeit::Won(r), 0, _) => r.into(),
            (Forfeit::Won(r), _, Some(by)) if r == win_for(by) => r.into(),
            (Forfeit::Won(_), _, Some(by)) => {
                return Err(impossible(format!(
                    "{} has moved: he was present, so the forfeit is his win ({})",
                    if by == Color::White { "White" } else { "Black" },
                    win_for(by).as_str()
                )))
            }
            (_, _, None) => {
                // One ply always has its mover; answered rather than assumed.
                return Err(impossible("the game's first move has no mover"));
            }
        };
        let before_default_time = self.check_default_time(early, reason, t)?;
        match flagged {
            None => self.end(result, EndReason::Forfeit, article, t, out),
            // One ruling replacing the flag's result, as a correction is:
            // no second game end (no second "Result to confirm").
            Some(o) => {
                self.original_outcome.get_or_insert(o);
                self.correct_outcome(Outcome {
                    result,
                    reason: EndReason::Forfeit,
                    article,
                    t,
                });
            }
        }
        self.record_confirmation(
            Confirmation {
                result,
                corrected: false,
                forfeit: true,
                reason: None,
            },
            article,
            t,
            out,
        );
        let shown = match result {
            Score::BothLost => "0-0, both players lost".to_owned(),
            r => r.as_str().to_owned(),
        };
        let replaced = flagged
            .map(|o| format!("{} ({}) → ", o.result.as_str(), o.reason))
            .unwrap_or_default();
        Ok(Applied {
            article,
            effect: match before_default_time {
                None => format!("{replaced}the game is entered as a forfeit, {shown}, confirmed"),
                Some(w) => {
                    format!("{replaced}the game is entered as a forfeit, {shown}, confirmed; {w}")
                }
            },
        })
    }

    /// A flag that ended a game not played, `o` not yet confirmed: no move
    /// made (the flag is White's, absent from the start), or the present
    /// player's first move only (the flag is the absent opponent's). A
    /// forfeit may replace it.
    fn flag_of_a_game_not_played(&self, o: &Outcome) -> bool {
        o.reason == EndReason::Time && self.confirmation.is_none() && self.moves.len() <= 1
    }
}

/// What a result lost by both means, for the ruling's effect: "" for
/// another result.
fn both_lost_words(r: Score, both: &str, forfeit: bool) -> String {
    match (r, forfeit) {
        (Score::BothLost, true) => " — a double forfeit: neither player came".to_owned(),
        (Score::BothLost, false) => format!(" — lost by both ({both})"),
        _ => String::new(),
    }
}
