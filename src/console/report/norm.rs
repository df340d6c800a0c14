//! What makes the round report a norm-file document (issue 40 §9): the
//! event's head (name, place, date, round, rate of play, chief arbiter), the
//! players as FIDE's norm report form (IT1) lists an opponent — title,
//! name, rating, federation, FIDE id — and each game's termination and
//! decisions in words.
//!
//! FIDE's title regulations have the chief arbiter certify a norm on the
//! IT1 form, which names the event, its place and dates, the chief arbiter,
//! the rate of play and, per game, the opponent's title, federation, FIDE
//! id, rating and result; the incidents and the arbiter's decisions go in
//! his tournament report. This page holds the round's share of both.

use crate::config::zone::EventZone;
use crate::config::Config;
use crate::model::Player;
use serde_json::Value;

/// The event's head as the report prints it (`[event]` of the server's
/// config; each absent field is left out).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventHead {
    /// The event's name (`[event] name`).
    pub name: Option<String>,
    /// Where (`[event] site`), with the country (`[event] country`).
    pub site: Option<String>,
    /// The round's date, `YYYY.MM.DD` (`[event] date`); absent: the date
    /// the round's games started, in the event's zone.
    pub date: Option<String>,
    /// The rate of play (`[event] time_control`).
    pub time_control: Option<String>,
    /// The rules (`[event] rules` and `mode`: `fide-2023, standard`).
    pub rules: Option<String>,
    /// The chief arbiter (`[event] chief_arbiter`).
    pub chief_arbiter: Option<String>,
}

impl EventHead {
    /// The head from a config's `[event]`.
    pub fn of(cfg: &Config) -> EventHead {
        let e = &cfg.event;
        let site = match (&e.site, &e.country) {
            (Some(s), Some(c)) => Some(format!("{s} ({c})")),
            (Some(s), None) => Some(s.clone()),
            (None, c) => c.clone(),
        };
        let rules = e.rules.map(|r| match e.mode {
            Some(m) => format!("{}, {}", r.as_str(), m.as_str()),
            None => r.as_str().to_owned(),
        });
        EventHead {
            name: e.name.clone(),
            site,
            date: e.date.clone(),
            time_control: e.time_control.clone(),
            rules,
            chief_arbiter: e.chief_arbiter.clone(),
        }
    }

    /// The round's date: the configured one, else the day (in `zone`) of
    /// the earliest start among the boards' `states`.
    pub fn date_of(&self, states: &[Value], zone: &EventZone) -> Option<String> {
        if let Some(d) = &self.date {
            return Some(d.clone());
        }
        let start = states
            .iter()
            .filter_map(|s| s["started_at_unix_ms"].as_u64())
            .filter(|ms| *ms > 0)
            .min()?;
        Some(zone.date(start))
    }
}

/// A player as the IT1 form names one: `GM Morphy, Paul`.
pub fn player_name(p: &Player) -> String {
    [p.title.as_deref(), p.name.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A game's termination (its `game_end` reason) in words.
pub fn termination_words(reason: &str) -> String {
    match reason {
        "checkmate" => "checkmate",
        "resignation" => "resignation",
        "time" => "lost on time (flag fell)",
        "time_vs_insufficient_material" => "flag fell, the opponent cannot checkmate: drawn",
        "both_flags" => "both flags fell",
        "stalemate" => "stalemate",
        "agreement" => "draw by agreement",
        "threefold" => "draw by threefold repetition (claimed)",
        "fivefold" => "draw by fivefold repetition",
        "fifty_moves" => "draw by the fifty-move rule (claimed)",
        "seventy_five_moves" => "draw by the seventy-five-move rule",
        "insufficient_material" | "dead_position" => "dead position: no checkmate possible",
        "insufficient_losing_chances" => "draw: insufficient losing chances (claim upheld)",
        "illegal_moves" => "lost by illegal moves",
        "forfeit" => "forfeit (default time passed)",
        "arbiter_decision" => "the arbiter's decision",
        "rules_infraction" => "lost for a rules infraction (the arbiter's decision)",
        other => return other.replace('_', " "),
    }
    .to_owned()
}

/// The decision an alert carries, in words, when it is one: a claim upheld,
/// rejected or referred to the arbiter, with its consequence (the penalty
/// of a wrong claim: minutes to whom); an illegal move's penalty with its
/// article; a game's end with its result.
pub fn decision(e: &Value) -> Option<String> {
    let text = |k: &str| e[k].as_str().filter(|s| !s.is_empty());
    match e["type"].as_str()? {
        "claim" => {
            let kind = text("kind").unwrap_or("claim").replace('_', " ");
            let consequence = text("consequence");
            let verdict = match (e["upheld"].as_bool(), consequence) {
                (_, Some(c)) if c.contains("referred") => "referred to the arbiter",
                (Some(true), _) => "upheld by the board",
                (Some(false), _) => "rejected by the board",
                (None, _) => "claimed",
            };
            Some(match consequence {
                Some(c) => format!("{kind} claim {verdict}: {c}"),
                None => format!("{kind} claim {verdict}"),
            })
        }
        "illegal_move" => {
            let pen = text("penalty")?;
            let count = e["count"]
                .as_u64()
                .map(|n| format!(" (this player's illegal move no. {n})"))
                .unwrap_or_default();
            Some(match text("penalty_article") {
                Some(a) => format!("penalty: {pen}, article {a}{count}"),
                None => format!("penalty: {pen}{count}"),
            })
        }
        // 2009 §9.2a / 2023 9.2.1: the board cannot decide it, the arbiter does.
        "claim_held" => Some(format!(
            "{} claim held for the arbiter: correct only with a move written on the scoresheet",
            text("kind").unwrap_or("draw").replace('_', " ")
        )),
        "touch_move" => text("penalty").map(|p| format!("penalty: {p}")),
        "game_end" => {
            let result = text("result")?;
            Some(match text("reason") {
                Some(r) => format!("result {result}: {}", termination_words(r)),
                None => format!("result {result}"),
            })
        }
        _ => None,
    }
}
