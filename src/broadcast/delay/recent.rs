//! The recent messages a channel keeps for resuming readers, and their time stamps.

use super::*;
use crate::broadcast::event_id::{EventId, StreamPos};
use std::sync::Arc;

impl Recent {
    /// The position a reader who last had `text` stands at, or why it
    /// cannot be resumed from.
    pub(super) fn resume_from(&self, text: &str) -> Result<StreamPos, String> {
        let id =
            EventId::parse(text).ok_or_else(|| format!("{text:?} is not an id of eboard's"))?;
        if id.stream != self.stream {
            return Err(format!(
                "{text:?} is of another stream (this one is {}: another game, another channel, or a journal started again)",
                self.stream
            ));
        }
        // An out-of-band message of an earlier run is not regenerated: the
        // reader stands after the journaled message before it (this run's
        // out-of-band messages after that one are new to it).
        let pos = StreamPos {
            n: id.n,
            k: match id.extra {
                Some((boot, k)) if boot == self.boot => k,
                _ => 0,
            },
        };
        if pos > self.pos {
            return Err(format!("{text:?} is not published (yet)"));
        }
        if pos < self.floor {
            return Err(format!(
                "{text:?} is older than the last {RESUME_WINDOW} messages kept"
            ));
        }
        Ok(pos)
    }
}

/// Whether `json` is a message that should say when it happened and does
/// not: an object with a `type` other than `state`, without `unix_ms`.
pub(super) fn needs_stamp(json: &str) -> bool {
    json.starts_with('{') && !json.contains("\"unix_ms\":") && !json.contains("\"type\":\"state\"")
}

/// `json` with `"unix_ms": now` added when [`needs_stamp`] (else as it is).
pub(super) fn stamp(json: &Arc<str>, now: u64) -> Arc<str> {
    if !needs_stamp(json) {
        return json.clone();
    }
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::Object(mut m))
            if m.contains_key("type") && !m.contains_key("unix_ms") =>
        {
            m.insert("unix_ms".into(), serde_json::Value::from(now));
            Arc::from(serde_json::Value::Object(m).to_string())
        }
        _ => json.clone(),
    }
}
