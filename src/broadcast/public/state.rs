//! The live page's state of a game (the `state` message of the feeds and
//! the arbiter's channel, without its `moves`): players, position, clocks
//! (ms), result and stage, as `docs/broadcast.md` gives its fields.

use super::{stage_name, Publisher};
use crate::arbiter::Arbiter;
use crate::trace::color_str;
use serde_json::{json, Map, Value};
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position};

impl Publisher {
    /// The live page's state at round time `t` without its `moves`.
    pub(in crate::broadcast) fn state_fields(
        &self,
        game: &Arbiter,
        t: u64,
        status: Option<&'static str>,
    ) -> Map<String, Value> {
        let info = &self.info;
        let outcome = game.outcome();
        let state = json!({
            "type": "state",
            "game": info.id(),
            "t": t,
            "trial": info.trial,
            "event": info.event,
            "date": info.date,
            "site": info.site,
            "round": info.round,
            "board": info.board,
            "white": info.white,
            "black": info.black,
            "fen": Fen::from_position(game.position(), EnPassantMode::Legal).to_string(),
            "turn": color_str(game.position().turn()),
            "lang": self.voice.as_ref().map(|v| v.lang().as_str()),
            "clock": game.clock().map(|c| {
                let (w, b) = c.remaining_at(t);
                json!({
                    "white_ms": w, "black_ms": b,
                    "running": c.running().map(color_str),
                    "unix_ms": info.unix_ms(t),
                })
            }),
            "result": outcome.map_or("*", |o| o.result.as_str()),
            "reason": outcome.map(|o| o.reason),
            "result_status": status,
            "stage": stage_name(game),
            "marks": self.marks.iter().filter(|m| !m.withdrawn).collect::<Vec<_>>(),
            "started_at_unix_ms": info.started_at_unix_ms,
            "speed": info.speed,
            "delay_ms": info.delay_ms,
        });
        match state {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}
