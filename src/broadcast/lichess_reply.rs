//! What a push to lichess sends and what lichess answers, without I/O:
//! the round's bodies ([`prepare`]: names filled in or the game withheld,
//! split under lichess's body limit) and the reading of the reply
//! ([`verdict`]).
//!
//! Sources (lila, `lichess-org/lila`, read 2026-11-23; see
//! `docs/broadcast.md`, "The lichess push"):
//! - `app/controllers/RelayRound.scala` `push`: the body is read with
//!   Play's `parse.tolerantText`, whose limit is
//!   `play.http.parser.maxMemoryBuffer` (`conf/base.conf`: 512 KiB); a
//!   longer body is refused with 413.
//! - `modules/relay/src/main/RelayPush.scala`: every game of the body is
//!   parsed on its own; the answer is 200 with one entry per game, in
//!   order: `{"tags": {…}, "moves": n}` or `{"tags": {…}, "error": "…"}`
//!   (`modules/relay/src/main/JsonView.scala`, `OWrites[RelayPush.Results]`).
//!   A round with a source URL answers one entry with empty tags and the
//!   error `The relay has an upstream URL, and cannot be pushed to.`

use super::public::Snapshot;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// The most bytes one push carries: lichess reads at most 512 KiB
/// (`play.http.parser.maxMemoryBuffer`); a round over this is split.
pub const MAX_BODY: usize = 480 * 1024;

/// The most games lichess takes from one round (its study chapters).
pub const MAX_GAMES: usize = 100;

/// The longest a `Retry-After` is obeyed.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(600);

/// A game not sent to lichess, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withheld {
    /// `round.board`.
    pub game: String,
    /// Why, and what to do about it.
    pub why: String,
}

/// The bodies of one push of a round, each under the body limit, and the
/// games held back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prepared {
    /// The PGN texts to POST, in order (one unless the round is too big).
    pub bodies: Vec<String>,
    /// The games not sent.
    pub withheld: Vec<Withheld>,
}

/// The value of tag `name` in `pgn`'s header.
pub fn tag<'a>(pgn: &'a str, name: &str) -> Option<&'a str> {
    let start = format!("[{name} \"");
    pgn.lines()
        .take_while(|l| l.starts_with('['))
        .find_map(|l| l.strip_prefix(start.as_str()))
        .and_then(|rest| rest.strip_suffix("\"]"))
}

/// `snap`'s PGN with `White` / `Black` filled in from the pairing
/// (`info.white.name`) where the PGN has `?` or nothing; an error naming
/// the sides when the pairing has no name either (lichess drops such a
/// game).
pub fn with_names(snap: &Snapshot) -> Result<String, String> {
    let mut pgn = snap.pgn.to_string();
    let mut missing = Vec::new();
    for (side, player) in [("White", &snap.info.white), ("Black", &snap.info.black)] {
        let shown = tag(&pgn, side).unwrap_or("?");
        if !(shown.is_empty() || shown == "?") {
            continue;
        }
        match player
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            Some(name) => {
                let old = format!("[{side} \"{shown}\"]\n");
                let new = format!("[{side} \"{}\"]\n", super::pgn::tag_value(name));
                pgn = pgn.replacen(&old, &new, 1);
            }
            None => missing.push(side),
        }
    }
    if missing.is_empty() {
        return Ok(pgn);
    }
    Err(format!(
        "game {}: no name for {}: lichess drops a game with [White \"?\"]; give the \
         names in the board's config ([game.white] name = \"Surname, Given\", [game.black] \
         name) and restart the board",
        snap.info.id(),
        missing.join(" and ")
    ))
}

/// The bodies of a push of `games` (the first [`MAX_GAMES`]), each at
/// most `max_body` bytes, games whole and in order.
pub fn prepare(games: &[&Snapshot], max_body: usize) -> Prepared {
    let mut out = Prepared::default();
    let mut body = String::new();
    for snap in games.iter().take(MAX_GAMES) {
        let pgn = match with_names(snap) {
            Ok(p) => p,
            Err(why) => {
                out.withheld.push(Withheld {
                    game: snap.info.id(),
                    why,
                });
                continue;
            }
        };
        if pgn.len() > max_body {
            out.withheld.push(Withheld {
                game: snap.info.id(),
                why: format!(
                    "game {}: its PGN is {} bytes, over the {max_body} bytes lichess reads in \
                     one push",
                    snap.info.id(),
                    pgn.len()
                ),
            });
            continue;
        }
        if !body.is_empty() && body.len() + pgn.len() > max_body {
            out.bodies.push(std::mem::take(&mut body));
        }
        body.push_str(&pgn);
    }
    if !body.is_empty() {
        out.bodies.push(body);
    }
    out
}

/// A game lichess did not take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The game's `Round` tag as lichess echoed it (`round.board`), when
    /// it did.
    pub game: Option<String>,
    /// White and Black as lichess echoed them.
    pub white: Option<String>,
    /// See `white`.
    pub black: Option<String>,
    /// lichess's reason.
    pub error: String,
}

/// What to do after one push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// 2xx: the games taken (their moves counted) and those rejected.
    Accepted {
        /// Games taken.
        games: usize,
        /// Moves of the games taken.
        moves: u64,
        /// Games rejected (not retried until they change: the same PGN
        /// gets the same answer).
        rejected: Vec<Rejection>,
    },
    /// Worth trying again (network, 5xx, 429): after `after` when the
    /// server said (`Retry-After`), else after the backoff.
    Retry {
        /// What went wrong.
        why: String,
        /// The server's `Retry-After`, at most [`MAX_RETRY_AFTER`].
        after: Option<Duration>,
    },
    /// This body is refused (400, 413, other 4xx): not sent again until
    /// the round changes.
    Refused {
        /// What lichess said.
        why: String,
    },
    /// No push can succeed (401, 403, 404, a round with a source URL):
    /// pushing stops.
    Stop {
        /// What lichess said and what to do.
        why: String,
    },
}

#[derive(Deserialize)]
struct Reply {
    games: Vec<GameReply>,
}

#[derive(Deserialize)]
struct GameReply {
    #[serde(default)]
    tags: BTreeMap<String, String>,
    #[serde(default)]
    moves: Option<u64>,
    #[serde(default)]
    error: Option<String>,
}

/// lichess's error for a round that reads a source URL itself.
pub const UPSTREAM_ERROR: &str = "has an upstream URL";

/// Reads lichess's answer: HTTP `status`, its `Retry-After` header and
/// `body`; `url` names the endpoint in the messages.
pub fn verdict(status: u16, retry_after: Option<&str>, body: &str, url: &str) -> Verdict {
    let short: String = body.chars().take(300).collect();
    let said = format!("POST {url}: HTTP {status}: {}", short.trim());
    match status {
        200..=299 => {}
        401 | 403 => {
            return Verdict::Stop {
                why: format!(
                    "{said}; the token is refused: it needs the scope study:write and the \
                     round must be one you may contribute to ([lichess] token)"
                ),
            }
        }
        404 => {
            return Verdict::Stop {
                why: format!("{said}; no such broadcast round: check [lichess] round_id"),
            }
        }
        408 | 429 | 500..=599 => {
            let after = retry_after
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(|s| Duration::from_secs(s).min(MAX_RETRY_AFTER));
            return Verdict::Retry { why: said, after };
        }
        413 => {
            return Verdict::Refused {
                why: format!("{said}; the body is over lichess's limit"),
            }
        }
        _ => return Verdict::Refused { why: said },
    }
    let reply: Reply = match serde_json::from_str(body) {
        Ok(r) => r,
        Err(e) => {
            // A 2xx we cannot read: the games may or may not be taken.
            return Verdict::Refused {
                why: format!("{said}; the answer is not lichess's {{\"games\": […]}}: {e}"),
            };
        }
    };
    let mut games = 0;
    let mut moves = 0;
    let mut rejected = Vec::new();
    for g in reply.games {
        match (g.error, g.moves) {
            (Some(error), _) => {
                if g.tags.is_empty() && error.contains(UPSTREAM_ERROR) {
                    return Verdict::Stop {
                        why: format!(
                            "POST {url}: lichess: {error} (the round reads a source URL; \
                             remove it in the round's settings or push to another round)"
                        ),
                    };
                }
                rejected.push(Rejection {
                    game: g.tags.get("Round").cloned(),
                    white: g.tags.get("White").cloned(),
                    black: g.tags.get("Black").cloned(),
                    error,
                });
            }
            (None, m) => {
                games += 1;
                moves += m.unwrap_or(0);
            }
        }
    }
    Verdict::Accepted {
        games,
        moves,
        rejected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "https://lichess.org/api/broadcast/round/AbCd1234/push";

    #[test]
    fn a_partial_rejection_names_the_game() {
        let body = r#"{"games":[
            {"tags":{"White":"Carlsen, Magnus","Black":"Sørensen, Jens","Round":"1.1"},"moves":33},
            {"tags":{"White":"Æbelø, Anne","Black":"Hansen, Ib","Round":"1.2"},"error":"Illegal move e2e5"}
        ]}"#;
        let v = verdict(200, None, body, URL);
        assert_eq!(
            v,
            Verdict::Accepted {
                games: 1,
                moves: 33,
                rejected: vec![Rejection {
                    game: Some("1.2".into()),
                    white: Some("Æbelø, Anne".into()),
                    black: Some("Hansen, Ib".into()),
                    error: "Illegal move e2e5".into(),
                }],
            }
        );
    }

    #[test]
    fn statuses_sort_into_retry_refuse_and_stop() {
        let up = r#"{"games":[{"tags":{},"error":"The relay has an upstream URL, and cannot be pushed to."}]}"#;
        assert!(
            matches!(verdict(200, None, up, URL), Verdict::Stop { why } if why.contains("source URL"))
        );
        assert!(
            matches!(verdict(401, None, "", URL), Verdict::Stop { why } if why.contains("study:write"))
        );
        assert!(
            matches!(verdict(404, None, "", URL), Verdict::Stop { why } if why.contains("round_id"))
        );
        assert_eq!(
            verdict(429, Some("30"), "", URL),
            Verdict::Retry {
                why: format!("POST {URL}: HTTP 429: "),
                after: Some(Duration::from_secs(30))
            }
        );
        assert!(matches!(
            verdict(503, Some("99999"), "busy", URL),
            Verdict::Retry { after: Some(a), .. } if a == MAX_RETRY_AFTER
        ));
        assert!(matches!(
            verdict(413, None, "", URL),
            Verdict::Refused { .. }
        ));
        assert!(matches!(
            verdict(400, None, "bad", URL),
            Verdict::Refused { .. }
        ));
        assert!(
            matches!(verdict(200, None, "<html>", URL), Verdict::Refused { why } if why.contains("not lichess's"))
        );
        assert_eq!(
            verdict(200, None, r#"{"games":[]}"#, URL),
            Verdict::Accepted {
                games: 0,
                moves: 0,
                rejected: vec![]
            }
        );
    }
}
