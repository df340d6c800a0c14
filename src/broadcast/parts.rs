//! The pieces of a board's [`Snapshot`](super::snapshot::Snapshot): the
//! PGN's extras, the illegal moves' comment ([`IllegalMark`]), the result's
//! status ([`result_status`]) and the pairing ([`Parts`]), shared by the
//! publisher's move-by-move build and by the whole build from every move
//! of the game ([`super::rebuilt`]).

use super::game_info::{GameInfo, TRIAL_TAG};
use super::livechess;
use super::pgn::PgnExtras;
use crate::arbiter::{Arbiter, Confirmation};
use crate::clock::fmt_hms;
use crate::model::{KnownOutcome, Score};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use shakmaty::Color;

/// An illegal move as the public sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IllegalMark {
    /// Completed moves before it.
    pub after_ply: usize,
    /// The offender, `w` / `b`.
    pub by: String,
    /// Article applied.
    pub article: String,
    /// The penalty text.
    pub penalty: String,
    /// The penalty's article (§7.4b / 7.5.5; empty in a snapshot kept
    /// before it was recorded).
    #[serde(default)]
    pub penalty_article: String,
    /// What was played, as the board showed it (`Ke1-e3`, or the squares).
    pub played: String,
    /// The position was reinstated (or play went on from it).
    pub corrected: bool,
    /// The `illegal_move` event's round time, ms (0 in a snapshot kept
    /// before it was recorded).
    #[serde(default)]
    pub t: u64,
    /// Its penalty was withdrawn by the arbiter (`withdraw`, `displaced`:
    /// issue 40 §2): the feeds no longer show it.
    #[serde(default)]
    pub withdrawn: bool,
}

impl IllegalMark {
    /// The comment the feed shows.
    pub fn comment(&self) -> String {
        let side = if self.by == "w" { "White" } else { "Black" };
        let penalty = match self.penalty_article.as_str() {
            "" => self.penalty.clone(),
            a => format!("{} ({a})", self.penalty),
        };
        if self.corrected {
            format!(
                "Illegal move by {side} ({}): {} was played and taken back, position reinstated; {penalty}",
                self.article, self.played
            )
        } else {
            format!(
                "Illegal move by {side} ({}): {} played; the position before it is to be reinstated; {penalty}",
                self.article, self.played
            )
        }
    }
}

/// The status of a game's result (DSU regulations 004 §15):
/// `provisional` until the arbiter confirms it, then `confirmed`,
/// `corrected` (the arbiter replaced the board's result) or `forfeit` (a
/// game not played); `None` while the game goes on.
pub fn result_status(game: &Arbiter) -> Option<&'static str> {
    game.outcome()?;
    Some(match game.confirmation() {
        None => "provisional",
        Some(c) if c.forfeit => "forfeit",
        Some(c) if c.corrected => "corrected",
        Some(_) => "confirmed",
    })
}

/// The public comment on a forfeit or a corrected result, in fixed words
/// (issue 42 §5): who forfeited, with the article of the Laws that makes
/// a player who has not arrived lose (2023 6.7.1, 2009 §6.6a; the
/// profile's), or that the arbiter corrected the result. Never the
/// arbiter's reason. `None` for a result confirmed as the board had it.
fn confirmation_words(c: &Confirmation, game: &Arbiter) -> Option<String> {
    if c.forfeit {
        let article = game.forfeit_article();
        return Some(match c.result {
            Score::Game(KnownOutcome::Decisive {
                winner: Color::White,
            }) => {
                format!("Black forfeits: did not appear ({article})")
            }
            Score::Game(KnownOutcome::Decisive {
                winner: Color::Black,
            }) => {
                format!("White forfeits: did not appear ({article})")
            }
            // A double forfeit: the PGN's own fixed comment says it
            // (`pgn::DOUBLE_FORFEIT_COMMENT`), once.
            Score::BothLost => return None,
            Score::Game(_) => format!("Entered as a forfeit ({article})"),
        });
    }
    c.corrected
        .then(|| format!("Result corrected by the arbiter to {}", c.result.as_str()))
}

/// What a snapshot's outputs share: the PGN's extras, the public comment on
/// illegal moves, the result's status, the pairing entry.
pub(super) struct Parts {
    /// The PGN's tags and comments.
    pub extras: PgnExtras,
    /// The illegal moves' comment (LiveChess `comment`).
    pub comment: Option<String>,
    /// The result's status ([`result_status`]).
    pub status: Option<&'static str>,
    /// The LiveChess pairing entry.
    pub pairing: Value,
    trial: bool,
}

impl Parts {
    pub(super) fn of(info: &GameInfo, marks: &[IllegalMark], game: &Arbiter, t: u64) -> Parts {
        // A penalty the arbiter withdrew is no illegal move in the record.
        let shown: Vec<IllegalMark> = marks.iter().filter(|m| !m.withdrawn).cloned().collect();
        let marks = &shown[..];
        let result = game.outcome().map_or("*", |o| o.result.as_str());
        let mut tags: Vec<(String, String)> = Vec::new();
        if info.trial {
            tags.push((TRIAL_TAG.0.into(), TRIAL_TAG.1.into()));
        }
        for (side, pl) in [("White", &info.white), ("Black", &info.black)] {
            if let Some(id) = pl.fide_id {
                tags.push((format!("{side}FideId"), id.to_string()));
            }
            if let Some(title) = &pl.title {
                tags.push((format!("{side}Title"), title.clone()));
            }
            if let Some(fed) = &pl.federation {
                tags.push((format!("{side}Fed"), fed.clone()));
            }
            if let Some(elo) = pl.rating {
                tags.push((format!("{side}Elo"), elo.to_string()));
            }
        }
        let status = result_status(game);
        if let Some(st) = status {
            // Our own tag: the `Result` is the board's until confirmed.
            tags.push(("ResultStatus".into(), st.into()));
        }
        if let Some((w, b)) = game.clock().map(|c| c.remaining_at(t)) {
            // As the clock shows them: the whole seconds left, as `[%clk]`.
            tags.push(("WhiteClock".into(), fmt_hms(w)));
            tags.push(("BlackClock".into(), fmt_hms(b)));
        }
        let mut comments: Vec<(usize, String)> =
            marks.iter().map(|m| (m.after_ply, m.comment())).collect();
        // A control changed mid-game (2023 III.4): said where it happened
        // (the `TimeControl` tag keeps the game's, docs/broadcast.md).
        if let Some(ch) = game.time_control_change() {
            comments.push((ch.ply as usize, ch.comment()));
        }
        // A forfeit or a corrected result is said in fixed words; the
        // arbiter's own reason is never public (issue 42 §5: it stays in
        // the journal and the round report).
        if let Some(words) = game
            .confirmation()
            .and_then(|c| confirmation_words(c, game))
        {
            comments.push((game.moves().len(), words));
        }
        let extras = PgnExtras {
            round: Some(info.id()),
            tags,
            comments,
        };
        let comment = (!marks.is_empty()).then(|| {
            marks
                .iter()
                .map(IllegalMark::comment)
                .collect::<Vec<_>>()
                .join(" / ")
        });
        let mut pairing = livechess::pairing_json(info, result, game.outcome().is_none());
        let mut parts = Parts {
            extras,
            comment,
            status,
            pairing: Value::Null,
            trial: info.trial,
        };
        if let Value::Object(m) = &mut pairing {
            parts.extend_chess(m);
        }
        parts.pairing = pairing;
        parts
    }

    /// Our extension of the LiveChess tree: the result's status, the trial.
    pub(super) fn extend_chess(&self, m: &mut Map<String, Value>) {
        if let Some(st) = self.status {
            m.insert("resultStatus".into(), Value::from(st));
        }
        if self.trial {
            m.insert("trial".into(), Value::from(true));
        }
    }
}
