//! Outputs for broadcast: the game in PGN ([`pgn`]), the LiveChess-Cloud
//! style JSON tree ([`livechess`]), the public view of a game with the
//! illegal-move marking ([`public`]), the transmission delay ([`delay`]) and
//! the merge of many boards into one event ([`relay`]) and the push to a
//! lichess broadcast round ([`lichess_push`]).
//!
//! Every public output of a board is built from one [`public::Snapshot`]
//! taken after a decision of the controller; the delay line releases
//! snapshots and events to the public `delay` seconds after the decision.
//!
//! Depends on `arbiter` (its decisions' types), `voice` (the public
//! stream's spoken moves), `trace`, `clock`, `model`, `retry` and `tls`,
//! the modules below it in docs/dev/architecture.md's map. It must not
//! depend on `controller`, `journal`, `mqtt`, `server`, `config` or `app`:
//! its settings are its own types (`public::GameInfo`,
//! `lichess_push::Settings`).

mod arbiter_view;
pub mod binding;
pub mod bound;
pub mod delay;
pub mod event_id;
pub mod event_stream;
pub mod feed_moves;
pub mod game_info;
pub mod json;
pub mod lichess_push;
pub mod lichess_reply;
pub mod livechess;
pub mod parts;
pub mod pgn;
pub mod pgn_live;
pub mod public;
pub mod rebuilt;
pub mod relay;
pub mod settle;
pub mod snapshot;
pub mod text;

pub use pgn::write_pgn;
