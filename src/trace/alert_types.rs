//! Which arbiter-channel messages are alerts for the arbiter's console
//! (`docs/console.md`): one list for the console's queue
//! (`crate::console::alerts`), the board's retained alert list over MQTT
//! (`crate::mqtt::alert_list`) and the arbiter's own tests, which check
//! which events of a decision are alerts. It lives in `trace` (the event
//! vocabulary, below both the arbiter and the outputs:
//! `docs/dev/architecture.md`) so that the arbiter, which may not depend on
//! `broadcast`, reads the same list (`crate::mqtt::alert_list` re-exports
//! it as `BOARD_ALERT_TYPES`).

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
/// ([`is_alert`]), except the `game_end` of a forfeit or of a result the
/// arbiter declared himself (`declared: true`, issue 40.6): he entered it
/// and it is confirmed at once, so there is no result to confirm (the
/// `ruling` says what was done).
pub fn is_alert_message(v: &serde_json::Value) -> bool {
    let Some(kind) = v.get("type").and_then(serde_json::Value::as_str) else {
        return false;
    };
    is_alert(kind)
        && !(kind == "game_end"
            && (v.get("reason").and_then(serde_json::Value::as_str) == Some("forfeit")
                || v.get("declared").and_then(serde_json::Value::as_bool) == Some(true)))
}
