//! Appendix E's two-board game as the copy tests set it up: the header
//! (Black, visually impaired, plays on the tactile board) and the texts the
//! players hear; shared by `tests/copies.rs` and `tests/copies_rewind.rs`.

use super::of;
use serde_json::{json, Value};

/// Black plays on the tactile board.
pub fn hdr(lang: &str) -> Value {
    json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "b", "language": lang,
           "time_control": "5400+30"})
}

/// The texts of the `announce` events, in order.
pub fn texts(ev: &[Value]) -> Vec<String> {
    of(ev, "announce")
        .iter()
        .map(|a| a["text"].as_str().unwrap().to_owned())
        .collect()
}
