//! A JSON value of a snapshot kept as its text (issue 28): the live page's
//! state and the LiveChess game grow with every move, so the publisher
//! writes them once per update from cached pieces ([`object_with_raw`])
//! instead of building a [`Value`] tree of every move; a reader that wants
//! the tree (the console's report, the live page's language) parses it on
//! demand, once per snapshot.
//!
//! The text is serde_json's compact form of the value (keys in order, no
//! spaces), byte for byte what `Value::to_string` gives for the same value.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A JSON value held as its compact text, parsed when first read as a
/// [`Value`] (through `Deref`: `json["key"]`, `json.get("key")`).
#[derive(Clone, Default)]
pub struct Json {
    /// The text as written (a `String`, not copied into an `Arc<str>`).
    text: Arc<String>,
    /// The parsed value, shared by the clones of one snapshot.
    parsed: Arc<OnceLock<Value>>,
}

impl Json {
    /// A value from its compact text. The text must be JSON as serde_json
    /// writes it (the publisher's own output); text that does not parse
    /// reads as `null`.
    pub fn from_text(text: String) -> Json {
        Json {
            text: Arc::new(text),
            parsed: Arc::new(OnceLock::new()),
        }
    }

    /// The compact JSON text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The compact JSON text as a message (one copy; a stream's first
    /// message to each of many clients shares it).
    pub fn shared(&self) -> Arc<str> {
        Arc::from(self.text.as_str())
    }

    /// The value (parsed once, on first use).
    pub fn value(&self) -> &Value {
        self.parsed
            .get_or_init(|| serde_json::from_str(&self.text).unwrap_or(Value::Null))
    }
}

impl From<Value> for Json {
    fn from(v: Value) -> Json {
        let parsed = OnceLock::new();
        let text = v.to_string();
        let _ = parsed.set(v);
        Json {
            text: Arc::new(text),
            parsed: Arc::new(parsed),
        }
    }
}

impl std::ops::Deref for Json {
    type Target = Value;
    fn deref(&self) -> &Value {
        self.value()
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        self.text == other.text
    }
}

impl PartialEq<Value> for Json {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match serde_json::value::RawValue::from_string(self.text.to_string()) {
            Ok(raw) => raw.serialize(s),
            Err(_) => self.value().serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        Value::deserialize(d).map(Json::from)
    }
}

/// The compact text of the object `map` with one more member, `key`, whose
/// value is the JSON text `raw`, in its place in key order (serde_json's
/// map keeps its keys sorted): what `Value::to_string` gives for `map` with
/// `key` set to the parsed `raw` (given as pieces to join). `key` must not
/// be in `map`.
pub fn object_with_raw(map: &Map<String, Value>, key: &str, raw: &[&str]) -> String {
    let len: usize = raw.iter().map(|r| r.len()).sum();
    let mut out = String::with_capacity(len + 64 * map.len() + 16);
    out.push('{');
    let mut placed = false;
    let mut first = true;
    let mut member = |out: &mut String, k: &str, v: &[&str]| {
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(&Value::from(k).to_string());
        out.push(':');
        for piece in v {
            out.push_str(piece);
        }
    };
    for (k, v) in map {
        if !placed && k.as_str() > key {
            member(&mut out, key, raw);
            placed = true;
        }
        member(&mut out, k, &[&v.to_string()]);
    }
    if !placed {
        member(&mut out, key, raw);
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_with_a_raw_member_is_the_value_written() {
        let moves = json!([{"san": "e4", "uci": "e2e4"}, "a \"quoted\" é"]);
        for extra in [
            json!({}),
            json!({"a": 1, "z": null}),
            json!({"lang": "da", "marks": [], "result": "*", "white": {"name": "Æ, Ø"}}),
            json!({"zz": 1.5}),
        ] {
            let mut whole = extra.clone();
            whole["moves"] = moves.clone();
            let Value::Object(map) = extra else {
                unreachable!()
            };
            assert_eq!(
                object_with_raw(&map, "moves", &[&moves.to_string()]),
                whole.to_string()
            );
        }
    }

    #[test]
    fn json_reads_and_writes_as_its_value() {
        let v = json!({"b": [1, 2], "a": "x"});
        let j = Json::from_text(v.to_string());
        assert_eq!(j["b"][1], 2);
        assert_eq!(j, v);
        assert_eq!(j.to_string(), v.to_string());
        assert_eq!(serde_json::to_string(&j).unwrap(), v.to_string());
        assert_eq!(serde_json::to_value(&j).unwrap(), v);
        let back: Json = serde_json::from_str(&v.to_string()).unwrap();
        assert_eq!(back.as_str(), v.to_string());
    }
}
