//! What a ruling was made from (`expect`, issue 24.1): the game state the
//! arbiter saw when he ruled — the completed plies, the alert answered, the
//! result shown — carried by the `arbiter` record so that the board applies
//! the ruling only while that still holds, and a replay of the journal
//! decides alike. The protocol: `docs/console.md` ("The ruling request"),
//! `docs/trace-extensions.md`.
//!
//! ```json
//! {"t": 90000, "arbiter": "overrule", "expect": {"ply": 23, "event": {"type": "claim", "t": 81234}}, "author": "IA Hansen"}
//! ```

use crate::model::{parse_result, Score};
use serde::Serialize;
use serde_json::{Map, Value};

/// The event types a ruling may answer (the matters the board's state lists
/// as `open`).
pub const ANSWERABLE: [&str; 8] = [
    "illegal_move",
    "touch_move",
    "claim",
    "claim_held",
    "ambiguous_move",
    "flag",
    "game_end",
    "irregularity",
];

/// One board event named by its `type` and its time (round ms), as in the
/// event stream: the alert a ruling answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventRef {
    /// The event's `type` (one of [`ANSWERABLE`]).
    #[serde(rename = "type")]
    pub kind: String,
    /// The event's `t`, round ms.
    pub t: u64,
}

/// The state a ruling was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    /// The completed plies (half moves) the arbiter saw: the state's `ply`.
    pub ply: u32,
    /// The alert the ruling answers, when it answers one.
    pub event: Option<EventRef>,
    /// The result the arbiter saw (for `confirm`): `Some(None)` for `*`
    /// (no result yet), `Some(Some(r))` for `1-0`, `0-1`, `1/2-1/2` or
    /// `0-0` (a double forfeit).
    pub result: Option<Option<Score>>,
}

impl Expect {
    /// Reads `{"ply": N, "event": {"type", "t"}?, "result": "1-0"?}`. The
    /// error names the key and what was expected.
    pub fn from_json(v: &Value) -> Result<Expect, String> {
        let obj = v.as_object().ok_or_else(|| {
            format!("key 'expect': expected an object such as {EXAMPLE}, found {v}")
        })?;
        if let Some(k) = obj
            .keys()
            .find(|k| !["ply", "event", "result"].contains(&k.as_str()))
        {
            return Err(format!(
                "key 'expect.{k}': unknown; expect takes ply, event, result"
            ));
        }
        let ply = match obj.get("ply") {
            Some(p) => p
                .as_u64()
                .and_then(|p| u32::try_from(p).ok())
                .ok_or_else(|| {
                    format!("key 'expect.ply': expected the completed plies (a non-negative integer), found {p}")
                })?,
            None => {
                return Err(format!(
                    "key 'expect.ply': missing (the completed plies the arbiter saw, the state's 'ply'), e.g. {EXAMPLE}"
                ))
            }
        };
        let event = match obj.get("event") {
            None | Some(Value::Null) => None,
            Some(e) => Some(event_ref(e)?),
        };
        let result = match obj.get("result") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s == "*" => Some(None),
            Some(Value::String(s)) if s == "0-0" => Some(Some(Score::BothLost)),
            Some(Value::String(s)) => Some(Some(
                parse_result(s)
                    .map(Score::Game)
                    .map_err(|e| format!("key 'expect.result': {e} (or 0-0, *)"))?,
            )),
            Some(other) => {
                return Err(format!(
                    "key 'expect.result': expected \"1-0\", \"0-1\", \"1/2-1/2\", \"0-0\" or \"*\", found {other}"
                ))
            }
        };
        Ok(Expect { ply, event, result })
    }

    /// The record's form: `{"ply", "event"?, "result"?}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("ply".into(), Value::from(self.ply));
        if let Some(e) = &self.event {
            m.insert(
                "event".into(),
                serde_json::json!({"type": e.kind, "t": e.t}),
            );
        }
        if let Some(r) = &self.result {
            m.insert("result".into(), Value::from(r.map_or("*", |r| r.as_str())));
        }
        Value::Object(m)
    }
}

/// An example of `expect`, for the errors.
pub const EXAMPLE: &str = r#"{"ply": 23, "event": {"type": "claim", "t": 81234}}"#;

fn event_ref(e: &Value) -> Result<EventRef, String> {
    let kind = e.get("type").and_then(Value::as_str).ok_or_else(|| {
        format!(
            "key 'expect.event.type': expected one of {}, found {e}",
            ANSWERABLE.join(", ")
        )
    })?;
    if !ANSWERABLE.contains(&kind) {
        return Err(format!(
            "key 'expect.event.type': \"{kind}\" is not one of {}",
            ANSWERABLE.join(", ")
        ));
    }
    let t = e.get("t").and_then(Value::as_u64).ok_or_else(|| {
        "key 'expect.event.t': expected the event's round time in ms (a non-negative integer)"
            .to_owned()
    })?;
    Ok(EventRef {
        kind: kind.to_owned(),
        t,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expect_round_trips_and_names_bad_keys() {
        let v =
            serde_json::json!({"ply": 23, "event": {"type": "claim", "t": 81234}, "result": "*"});
        let e = Expect::from_json(&v).unwrap();
        assert_eq!(e.ply, 23);
        assert_eq!(e.result, Some(None));
        assert_eq!(e.to_json(), v);
        let bad = Expect::from_json(&serde_json::json!({"event": null})).unwrap_err();
        assert!(bad.contains("expect.ply"), "{bad}");
        let bad =
            Expect::from_json(&serde_json::json!({"ply": 1, "event": {"type": "move", "t": 1}}))
                .unwrap_err();
        assert!(bad.contains("expect.event.type"), "{bad}");
    }
}
