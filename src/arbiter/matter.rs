//! A matter open for the arbiter and the rulings open on it, as the
//! state's `open` lists them (`open.rs` decides which are open; the
//! files that raise a matter word it with these).

use serde::Serialize;
use serde_json::Value;
use shakmaty::Color;

/// One ruling open on a matter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenRuling {
    /// The action to send.
    pub action: &'static str,
    /// Its body (`null`: none).
    pub body: Value,
    /// The button's words.
    pub label: String,
    /// What it does, in words.
    pub effect: String,
}

/// One matter open now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenMatter {
    /// The event type (`claim`, `illegal_move`, `touch_move`, `flag`,
    /// `game_end`, `irregularity` (a position to restore, or the boards of
    /// an Appendix E game differing), `ambiguous_move`).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The event's round time, ms (with `type`: the `expect.event`).
    pub t: u64,
    /// The player concerned (`w` / `b`), if any.
    pub by: Option<&'static str>,
    /// What stands, in words.
    pub summary: String,
    /// The rulings open on it.
    pub rulings: Vec<OpenRuling>,
}

/// "White" / "Black", as the open matters and the rulings' effects say it.
pub(super) fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

pub(super) fn by_str(c: Color) -> &'static str {
    crate::trace::color_str(c)
}

pub(super) fn ruling(action: &'static str, body: Value, label: &str, effect: String) -> OpenRuling {
    OpenRuling {
        action,
        body,
        label: label.to_owned(),
        effect,
    }
}

/// "Restore position": the arbiter has reinstated the position himself.
pub(super) fn restore_ruling() -> OpenRuling {
    ruling(
        "restore",
        Value::Null,
        "Restore position",
        "the arbiter has set up the position to reinstate: the board takes it as shown and play goes on (no penalty is added)".to_owned(),
    )
}
