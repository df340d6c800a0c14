//! The LiveChess Cloud JSON tree, as lichess broadcasts and chess.com read
//! it (`../shared/reference/ecosystem.md` §6):
//!
//! - `tournament.json`: `{id, name, location, country, website, rules,
//!   chess960, timecontrol, rounds: [{count, live}], eboards: []}`;
//! - `round-N/index.json`: `{date, pairings: [{white: {fname, mname, lname,
//!   title, federation, gender, fideid}, black: {…}, result, live}]}`;
//! - `round-N/game-M.json`: `{live, serialNr, firstMove, chess960, result,
//!   comment, clock: {white, black, time}, moves: ["e4 5941", …]}` — a move
//!   is SAN, a space and the mover's clock in whole seconds after the move;
//!   `clock.white` / `clock.black` are seconds, `clock.time` the Unix time
//!   in ms at which they were read; `chess960` is 518 for standard chess.
//!
//! Game M of a round is pairing M of its index (board M).

use super::game_info::GameInfo;
use super::snapshot::Snapshot;
use crate::arbiter::Arbiter;
use crate::model::Player;
use serde_json::{json, Map, Value};

/// A player as a LiveChess pairing entry; `Surname, Given` is split into
/// `lname` / `fname`.
pub fn player_json(p: &Player) -> Value {
    let (fname, lname) = match p.name.as_deref() {
        Some(n) => match n.split_once(',') {
            Some((last, first)) => (Some(first.trim().to_owned()), Some(last.trim().to_owned())),
            None => (None, Some(n.trim().to_owned())),
        },
        None => (None, None),
    };
    json!({
        "fname": fname,
        "mname": null,
        "lname": lname,
        "title": p.title,
        "federation": p.federation,
        "gender": null,
        "fideid": p.fide_id,
    })
}

/// The pairing entry of a game for `round-N/index.json`.
pub fn pairing_json(info: &GameInfo, result: &str, live: bool) -> Value {
    json!({
        "white": player_json(&info.white),
        "black": player_json(&info.black),
        "result": result,
        "live": live,
    })
}

/// An empty pairing: a board of the round this feed does not carry. Its
/// result is `"*"`, not null: lila (`modules/relay/src/main/DgtJson.scala`,
/// `finishedGameIndexes`: `pairing.result.forall(_ != "*")`) takes a
/// pairing without a result as a finished game.
pub fn empty_pairing() -> Value {
    json!({"white": null, "black": null, "result": "*", "live": false})
}

/// `game-M.json` for the game; `comment` is the public marking of illegal
/// moves (or null), `unix_ms` the Unix time in ms of the snapshot.
pub fn game_json(game: &Arbiter, info: &GameInfo, comment: Option<&str>, t: u64) -> Value {
    let moves: Vec<String> = game
        .moves()
        .iter()
        .map(super::feed_moves::chess_entry)
        .collect();
    let mut m = game_fields(game, info, comment, t);
    m.insert("moves".into(), Value::from(moves));
    Value::Object(m)
}

/// `game-M.json` without its `moves` (which a live feed keeps move by
/// move, [`super::feed_moves`]).
pub fn game_fields(
    game: &Arbiter,
    info: &GameInfo,
    comment: Option<&str>,
    t: u64,
) -> Map<String, Value> {
    let clock = game.clock().map(|c| {
        let (w, b) = c.remaining_at(t);
        json!({"white": w / 1000, "black": b / 1000, "time": info.unix_ms(t)})
    });
    let v = json!({
        "live": game.outcome().is_none(),
        "serialNr": format!("eboard-{}-{}", info.round, info.board),
        "firstMove": game.moves().first().map(|m| info.unix_ms(m.t)),
        "chess960": 518,
        "result": game.outcome().map_or("*", |o| o.result.as_str()),
        "comment": comment,
        "clock": clock,
    });
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// `tournament.json` for the games of a feed (one board, or a relay's).
pub fn tournament_json(games: &[&Snapshot]) -> Value {
    let Some(first) = games.first() else {
        return json!({"id": null, "name": null, "rounds": [], "eboards": []});
    };
    let info = &first.info;
    let last_round = games.iter().map(|s| s.info.round).max().unwrap_or(1);
    let rounds: Vec<Value> = (1..=last_round)
        .map(|r| {
            let here: Vec<_> = games.iter().filter(|s| s.info.round == r).collect();
            let count = here.iter().map(|s| s.info.board).max().unwrap_or(0);
            let live = here.iter().filter(|s| s.live()).count();
            json!({"count": count, "live": live})
        })
        .collect();
    let id: String = info
        .event
        .as_deref()
        .unwrap_or("eboard")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    json!({
        "id": id,
        "name": info.event,
        "location": info.site,
        "country": info.country,
        "website": info.website,
        "rules": info.mode.as_str().to_ascii_uppercase(),
        "chess960": false,
        "timecontrol": info.time_control,
        "rounds": rounds,
        "eboards": [],
    })
}

/// `round-N/index.json`: the pairings of round `round` in board order (a
/// board the feed does not carry is an empty pairing); `None` when the feed
/// has no game in that round.
pub fn round_index_json(games: &[&Snapshot], round: u32) -> Option<Value> {
    let here: Vec<&&Snapshot> = games.iter().filter(|s| s.info.round == round).collect();
    let last = here.iter().map(|s| s.info.board).max()?;
    let pairings: Vec<Value> = (1..=last)
        .map(|b| {
            here.iter()
                .find(|s| s.info.board == b)
                .map_or_else(empty_pairing, |s| s.pairing.clone())
        })
        .collect();
    let date = here[0].info.date.as_ref().map(|d| d.replace('.', "-"));
    Some(json!({"date": date, "pairings": pairings}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_board_is_not_finished_for_lila() {
        let p = empty_pairing();
        // lila: finished = result.forall(_ != "*"); a null result is finished.
        let finished = p["result"].as_str().is_none_or(|r| r != "*");
        assert!(!finished, "{p}");
        assert_eq!(p["live"], false);
    }
}
