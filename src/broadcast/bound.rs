//! What a relay takes from one table's source, whatever carries it (issue
//! 41 §2, `docs/relay-integrity.md`): the MQTT relay's topics
//! (`crate::mqtt::bound`) and the HTTP relay's board URLs
//! ([`super::binding`]) alike. A message only about the game its source
//! is bound to ([`check_game`]), of the rounds and boards followed
//! ([`Scope`]), with the pairing's players when the relay knows the
//! pairings ([`check_players`]), no larger than [`MAX_MESSAGE`], for at
//! most [`MAX_GAMES`] games. Whatever else arrives is dropped and said: a
//! warn line and an `uplink_alert` for the arbiter naming the source and
//! what did not match ([`Refusals`], rate-limited so that a flood does not
//! flood the arbiter's alert queue). Transport-free: no topic, no URL
//! scheme, no I/O.

use crate::model::Player;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The largest message (or one game's snapshot) taken from a table's
/// source, bytes (256 KiB). Measured: a retained snapshot of the Opera
/// Game (33 moves) is 3.2 KB, an events message 1.7 KB on average
/// (measured, `docs/mqtt.md`); estimated, not measured: a snapshot grows
/// by about 150 bytes a ply (the PGN's SAN and `[%clk]`, the state's and
/// the LiveChess game's move lists), so a 300-move game, longer than the
/// longest rated one (Nikolić–Arsović, Belgrade 1989, 269 moves), is about
/// 95 KB. 256 KiB is over twice that.
pub const MAX_MESSAGE: usize = 256 * 1024;

/// The most games (public streams) and tables (arbiter channels) a relay
/// keeps: 1,000, over three times the largest opens' boards (300 and more
/// at the biggest Swiss events); lichess takes at most 100 games a round.
pub const MAX_GAMES: usize = 1_000;

/// The alerts about refused messages: at most one per source per
/// [`REFUSAL_EVERY`], and at most [`REFUSAL_BURST`] in all per
/// [`REFUSAL_EVERY`]; the others are counted into the next one.
pub const REFUSAL_EVERY: Duration = Duration::from_secs(600);
/// See [`REFUSAL_EVERY`].
pub const REFUSAL_BURST: u32 = 20;

/// The rounds and boards a relay follows (`eboard relay --round R
/// --boards N`); empty: every round (the latest one per table) and every
/// table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// The rounds followed (empty: every round, the latest per table).
    pub rounds: Vec<u32>,
    /// Tables 1..=N (`None`: every table).
    pub boards: Option<u32>,
}

impl Scope {
    /// Whether the table `board` is followed.
    pub fn has_board(&self, board: u32) -> bool {
        board >= 1 && self.boards.is_none_or(|n| board <= n)
    }

    /// Whether round `round` is followed.
    pub fn has_round(&self, round: u32) -> bool {
        self.rounds.is_empty() || self.rounds.contains(&round)
    }
}

/// Whether game id `game` (`r.b`) is round `round` (any, when `None`) at
/// table `board`; else what did not match.
pub fn check_game(game: &str, round: Option<u32>, board: u32) -> Result<(), String> {
    let Some((r, b)) = super::delay::parse_game_id(game) else {
        return Err(format!("game \"{game}\" is not a game id (round.board)"));
    };
    if b != board {
        return Err(format!(
            "it names game {game} (board {b}), not board {board}'s"
        ));
    }
    match round {
        Some(want) if r != want => Err(format!(
            "it names game {game} (round {r}), not round {want}'s game at board {board}"
        )),
        _ => Ok(()),
    }
}

/// What the event's pairings (`[arbiter] pairings`, a TRF-16 or CSV read
/// by the composition root, `crate::app`) say of one game.
#[derive(Debug, Clone, PartialEq)]
pub enum Paired {
    /// The round is not in the pairings (not paired yet, or no file):
    /// the game's players are not checked, its round and board are.
    Unknown,
    /// The round is paired, with this many boards, none of them this one.
    NoBoard(u32),
    /// The pairing at this board: White, Black.
    Players(Player, Player),
}

/// The pairings' answer for game (round, board) ([`Paired`]).
#[derive(Clone)]
pub struct Pairings(Arc<dyn Fn(u32, u32) -> Paired + Send + Sync>);

impl Pairings {
    /// The pairings as `f` answers them for (round, board).
    pub fn new(f: impl Fn(u32, u32) -> Paired + Send + Sync + 'static) -> Pairings {
        Pairings(Arc::new(f))
    }

    /// What the pairings say of game `round`.`board`.
    pub fn of(&self, round: u32, board: u32) -> Paired {
        (self.0)(round, board)
    }
}

impl std::fmt::Debug for Pairings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pairings(..)")
    }
}

/// A name as compared: lower case, no space around a comma, one space
/// between words (the TRF-16 writes `Surname,Given`, PGN `Surname, Given`).
fn name_key(name: &str) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    words
        .join(" ")
        .replace(" ,", ",")
        .replace(", ", ",")
        .to_lowercase()
}

/// Whether `seen` is the pairing's `want`: the same FIDE id when both have
/// one, else the same name ([`name_key`]).
fn same_player(seen: &Player, want: &Player) -> bool {
    match (seen.fide_id, want.fide_id) {
        (Some(a), Some(b)) => a == b,
        _ => match (&seen.name, &want.name) {
            (Some(a), Some(b)) => name_key(a) == name_key(b),
            _ => false,
        },
    }
}

/// A player as an alert names it: `"Name" (FIDE id)`, `nobody named`.
fn shown(p: &Player) -> String {
    let name = p.name.as_deref().map_or("nobody named".to_owned(), |n| {
        format!("\"{}\"", crate::model::text::escape_controls(n))
    });
    match p.fide_id {
        Some(id) => format!("{name} (FIDE {id})"),
        None => name,
    }
}

/// Whether game (`round`, `board`) with `white` and `black` is the
/// pairing's; else what did not match (both sides, as the pairings and as
/// the source give them). [`Paired::Unknown`]: taken.
pub fn check_players(
    paired: &Paired,
    (round, board): (u32, u32),
    white: &Player,
    black: &Player,
) -> Result<(), String> {
    match paired {
        Paired::Unknown => Ok(()),
        Paired::NoBoard(n) => Err(format!(
            "the pairings give round {round} {n} boards: there is no game {round}.{board}"
        )),
        Paired::Players(w, b) => {
            if same_player(white, w) && same_player(black, b) {
                return Ok(());
            }
            let swapped = same_player(white, b) && same_player(black, w);
            Err(format!(
                "its game {round}.{board} is White {}, Black {}, but the pairings give White {}, \
                 Black {}{}",
                shown(white),
                shown(black),
                shown(w),
                shown(b),
                if swapped { " (colours swapped)" } else { "" }
            ))
        }
    }
}

/// The relay's refusals: each logged, and alerted for the arbiter at most
/// once per source and [`REFUSAL_BURST`] times in all per
/// [`REFUSAL_EVERY`].
#[derive(Debug)]
pub struct Refusals {
    /// The uplink named in the alerts: `mqtt` (sources are topics) or
    /// `http` (sources are board URLs).
    uplink: &'static str,
    /// Per source: when it was last alerted, and the refusals since.
    sources: HashMap<String, (Option<Instant>, u64)>,
    /// The alerts of the current window, and when it began.
    window: Option<(Instant, u32)>,
    /// Refusals not alerted because of the burst limit.
    held: u64,
}

impl Refusals {
    /// No refusals yet, of `uplink`'s sources: `"mqtt"` (an alert names
    /// the `topic`) or `"http"` (it names the board's URL, `base`).
    pub fn new(uplink: &'static str) -> Refusals {
        Refusals {
            uplink,
            sources: HashMap::new(),
            window: None,
            held: 0,
        }
    }

    /// Refuses a message of `source` for `why`: the alert to raise now (an
    /// `uplink_alert` naming the source, the reason and how many messages
    /// were refused since the last one), or `None` while the limit holds
    /// (logged at debug then).
    pub fn refuse(&mut self, source: &str, why: &str, now: Instant) -> Option<Arc<str>> {
        if self.sources.len() >= 4 * MAX_GAMES {
            // Bounded: the sources alerted in this window stay.
            self.sources
                .retain(|_, (at, _)| at.is_some_and(|a| now.duration_since(a) < REFUSAL_EVERY));
        }
        let (at, since) = self.sources.entry(source.to_owned()).or_insert((None, 0));
        *since += 1;
        let fresh = at.is_none_or(|a| now.duration_since(a) >= REFUSAL_EVERY);
        let window = match self.window {
            Some((start, n)) if now.duration_since(start) < REFUSAL_EVERY => (start, n),
            _ => (now, 0),
        };
        if !fresh || window.1 >= REFUSAL_BURST {
            self.window = Some(window);
            if fresh {
                self.held += 1;
            }
            tracing::debug!(source, why, "relay: message refused");
            return None;
        }
        let refused = std::mem::take(since);
        *at = Some(now);
        self.window = Some((window.0, window.1 + 1));
        let held = std::mem::take(&mut self.held);
        tracing::warn!(source, refused, "relay: a message refused: {why}");
        let (key, on) = match self.uplink {
            "mqtt" => ("topic", "on"),
            _ => ("base", "from"),
        };
        let mut v = serde_json::json!({
            "type": "uplink_alert",
            "uplink": self.uplink,
            "error": format!("a message {on} {source} refused: {why}"),
            "action": "dropped: not on this relay's feeds, console or report; the table's own messages are still taken",
            "refused": refused,
        });
        v[key] = Value::from(source);
        if held > 0 {
            v["held"] = Value::from(held);
        }
        Some(Arc::from(v.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(name: &str, fide: Option<u64>) -> Player {
        Player {
            name: Some(name.to_owned()),
            fide_id: fide,
            ..Player::default()
        }
    }

    #[test]
    fn the_pairings_players_by_fide_id_else_by_name() {
        let w = player("Hansen,Anna", Some(1234567));
        let b = player("Lund,Bo", None);
        let paired = Paired::Players(w.clone(), b.clone());
        let game = (3, 2);
        // The same, as PGN writes the names.
        assert_eq!(
            check_players(
                &paired,
                game,
                &player("Hansen, Anna", Some(1234567)),
                &player("LUND,  Bo", None)
            ),
            Ok(())
        );
        // A FIDE id wins over the name.
        let e =
            check_players(&paired, game, &player("Hansen, Anna", Some(7654321)), &b).unwrap_err();
        assert!(
            e.contains("FIDE 7654321") && e.contains("FIDE 1234567"),
            "{e}"
        );
        let e = check_players(&paired, game, &b, &w).unwrap_err();
        assert!(e.contains("colours swapped"), "{e}");
        let e = check_players(&paired, game, &Player::default(), &b).unwrap_err();
        assert!(e.contains("nobody named"), "{e}");
        assert!(check_players(&Paired::NoBoard(12), (3, 15), &w, &b)
            .unwrap_err()
            .contains("12 boards"));
        assert_eq!(check_players(&Paired::Unknown, game, &w, &b), Ok(()));
    }

    #[test]
    fn an_http_refusal_names_the_boards_url() {
        let mut r = Refusals::new("http");
        let a = r
            .refuse("http://10.0.0.21:8080", "it names game 1.2", Instant::now())
            .unwrap();
        let v: Value = serde_json::from_str(&a).unwrap();
        assert_eq!(v["uplink"], "http");
        assert_eq!(v["base"], "http://10.0.0.21:8080");
        assert!(v["error"]
            .as_str()
            .unwrap()
            .starts_with("a message from http://10.0.0.21:8080 refused: it names game 1.2"));
    }
}
