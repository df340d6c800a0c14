//! The whole build of a board's snapshots from every move of the game
//! ([`rebuilt`]), which the publisher's move-by-move output is tested
//! against, byte for byte (issue 28).

use super::arbiter_view::arbiter_fields;
use super::feed_moves::state_entry;
use super::json::Json;
use super::livechess;
use super::parts::Parts;
use super::pgn::write_pgn_with;
use super::public::Publisher;
use super::snapshot::Snapshot;
use crate::arbiter::Arbiter;
use serde_json::Value;

/// The public snapshot and the arbiter's at round time `t` built whole from
/// every move of `game` (the PGN by [`write_pgn_with`], the LiveChess game
/// by [`livechess::game_json`], the state with a `moves` array of every
/// move): what the publisher's last update gave, byte for byte, when
/// called right after it with the same `game` and `t`. Its cost grows with
/// the game; for tests and benches.
pub fn rebuilt(p: &Publisher, game: &Arbiter, t: u64) -> (Snapshot, Snapshot) {
    let info = p.info();
    let parts = Parts::of(info, p.marks(), game, t);
    let pgn = write_pgn_with(game, &parts.extras);
    let mut game_json = livechess::game_json(game, info, parts.comment.as_deref(), t);
    if let Value::Object(m) = &mut game_json {
        parts.extend_chess(m);
    }
    let mut state = p.state_fields(game, t, parts.status);
    let moves: Vec<Value> = game
        .moves()
        .iter()
        .enumerate()
        .map(|(i, m)| state_entry(m, p.spoken(i)))
        .collect();
    state.insert("moves".into(), Value::from(moves));
    let mut arbiter_state = state.clone();
    arbiter_fields(&mut arbiter_state, game);
    let public = Snapshot {
        seq: p.seq(),
        t,
        info: info.for_game(game),
        pgn: pgn.into(),
        game: Json::from(game_json),
        pairing: parts.pairing,
        state: Json::from(Value::Object(state)),
        outline: None,
    };
    let arbiter = Snapshot {
        state: Json::from(Value::Object(arbiter_state)),
        ..public.clone()
    };
    (public, arbiter)
}
