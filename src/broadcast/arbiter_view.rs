//! The arbiter's snapshot: the public state's members plus his own fields
//! (`docs/console.md`, "The board's state"), and what of them changes with
//! the time of reading alone (issue 28: an event only he sees sends his
//! snapshot again only when something else changed).

use crate::arbiter::Arbiter;
use serde_json::{json, Map, Value};
use shakmaty::Position;

/// Adds to a state's members the arbiter's own fields, which make the
/// arbiter's snapshot (the public one plus these undelayed fields;
/// (`docs/console.md`, "The board's state"): `ply` (completed plies),
/// `open` (the matters open, with the rulings the Laws leave open, worded
/// by effect), `rulings` (the history), `result_reason` (the termination,
/// e.g. `agreement`), and in `clock` the move counter (`moves_done`,
/// white/black) and `moves_to_control` (the player on move's moves to the
/// next time control, when another period follows). Never public: claims
/// and irregularities go to the arbiter only (§13.7a)).
pub(crate) fn arbiter_fields(m: &mut Map<String, Value>, game: &Arbiter) {
    m.insert("ply".into(), Value::from(game.ply()));
    m.insert(
        "open".into(),
        serde_json::to_value(game.open()).unwrap_or(Value::Null),
    );
    m.insert(
        "rulings".into(),
        serde_json::to_value(game.rulings()).unwrap_or(Value::Null),
    );
    // The default time of a no-show's forfeit (6.7.1, DSU 004 §11): when a
    // forfeit becomes possible on this board.
    m.insert(
        "default_time".into(),
        serde_json::to_value(game.default_time_state()).unwrap_or(Value::Null),
    );
    // 2023 Guidelines III.4: where the five seconds could be introduced on
    // request (the console shows it while the player having the move has
    // less than `under_ms`).
    m.insert(
        "increment_request".into(),
        serde_json::to_value(game.increment_request_standing()).unwrap_or(Value::Null),
    );
    // Who decides, per article (issue 40 point 1), with the event's
    // choice where it has one.
    m.insert(
        "decisions".into(),
        serde_json::to_value(game.config().profile.decisions()).unwrap_or(Value::Null),
    );
    // The last downtime (issue 40.4): whom it is charged to, whether the
    // clocks wait for Resume (the card says so).
    m.insert(
        "downtime".into(),
        serde_json::to_value(game.downtime_standing()).unwrap_or(Value::Null),
    );
    m.insert(
        "result_reason".into(),
        game.outcome()
            .map_or(Value::Null, |o| Value::from(o.reason.as_str())),
    );
    // Issue 40.6: the article of the result (the console's "declared under
    // 11.3.2.2"), and the articles a result may be declared under in this
    // profile (the "Declare result" form's list).
    m.insert(
        "result_article".into(),
        game.outcome()
            .map_or(Value::Null, |o| Value::from(o.article)),
    );
    m.insert(
        "declared_articles".into(),
        Value::from(
            game.config()
                .profile
                .declared_articles()
                .iter()
                .map(|d| json!({"article": d.article, "what": d.what, "win": d.ground.wants_win()}))
                .collect::<Vec<_>>(),
        ),
    );
    if let (Some(Value::Object(c)), Some(clock)) = (m.get_mut("clock"), game.clock()) {
        use shakmaty::Color;
        let turn = game.position().turn();
        c.insert(
            "moves_done".into(),
            json!({"white": clock.moves_done(Color::White), "black": clock.moves_done(Color::Black)}),
        );
        // The control the clock runs (the console's "Time control" field).
        c.insert(
            "time_control".into(),
            Value::from(clock.time_control().to_string()),
        );
        c.insert(
            "moves_to_control".into(),
            clock
                .moves_to_control(turn)
                .map_or(Value::Null, Value::from),
        );
    }
}

/// The console's name of the game's [`Stage`](crate::arbiter::Stage).
pub fn stage_name(game: &Arbiter) -> &'static str {
    use crate::arbiter::Stage;
    match game.stage() {
        Stage::SetUp => "setup",
        Stage::Playing => "playing",
        Stage::Paused => "paused",
        Stage::Settling => "settling",
        Stage::Restoring => "restoring",
        Stage::Ended => "ended",
    }
}

/// A state's members without what changes with the time of reading alone
/// (`t`; the clock's `white_ms`, `black_ms` and `unix_ms`, which a reader
/// runs on from `running`).
pub(super) fn timeless(mut state: Map<String, Value>) -> Map<String, Value> {
    state.remove("t");
    if let Some(Value::Object(c)) = state.get_mut("clock") {
        for k in ["white_ms", "black_ms", "unix_ms"] {
            c.remove(k);
        }
    }
    state
}
