//! Outputs for broadcast: the game in PGN ([`pgn`]), the LiveChess-Cloud
//! style JSON tree ([`livechess`]), the public view of a game with the
//! illegal-move marking ([`public`]), the transmission delay ([`delay`]) and
//! the merge of many boards into one event ([`relay`]) and the push to a
//! lichess broadcast round ([`lichess_push`]).
//!
//! Every public output of a board is built from one [`public::Snapshot`]
//! taken after a decision of the controller; the delay line releases
//! snapshots and events to the public `delay` seconds after the decision.

mod arbiter_view;
pub mod delay;
pub mod alert_types {
    //! Which arbiter-channel messages are alerts for the arbiter's console
    //! (`docs/console.md`): one list for the console's queue
    //! (`crate::server::alerts`) and the board's retained alert list over
    //! MQTT (`crate::mqtt::alert_list`).

    /// The message types a board raises that are alerts: illegal moves,
    /// touch-move breaches, irregularities (boards that differ, Appendix E,
    /// among them), claims, flags, ambiguous readings, a game's end (its
    /// result to confirm), the journal's, the uplinks' and the speech's own
    /// alerts (`speech_alert`: an output that cannot play, issue 29).
    pub const BOARD: [&str; 11] = [
        "illegal_move",
        "touch_move",
        "irregularity",
        "claim",
        "claim_held",
        "flag",
        "ambiguous_move",
        "game_end",
        "journal_alert",
        "uplink_alert",
        "speech_alert",
    ];

    /// The relays' own alerts (`crate::broadcast::relay`, the MQTT relay):
    /// made afresh by each run of a relay, never sent by a board.
    pub const RELAY: [&str; 2] = ["board_offline", "board_resumed"];

    /// Whether messages of type `kind` are alerts.
    pub fn is_alert(kind: &str) -> bool {
        BOARD.contains(&kind) || RELAY.contains(&kind)
    }

    /// Whether the message `v` is an alert: its `type` is one
    /// ([`is_alert`]), except the `game_end` of a forfeit: the arbiter
    /// entered it and it is confirmed at once, so there is no result to
    /// confirm (the forfeit's `ruling` says what was done).
    pub fn is_alert_message(v: &serde_json::Value) -> bool {
        let Some(kind) = v.get("type").and_then(serde_json::Value::as_str) else {
            return false;
        };
        is_alert(kind)
            && !(kind == "game_end"
                && v.get("reason").and_then(serde_json::Value::as_str) == Some("forfeit"))
    }
}
pub mod event_id;
pub mod feed_moves;
pub mod json;
pub mod lichess_push;
pub mod lichess_reply;
pub mod livechess;
pub mod pgn;
pub mod pgn_live;
pub mod public;
pub mod relay;
pub mod settle;
pub mod snapshot;
pub mod text;

pub use pgn::write_pgn;
