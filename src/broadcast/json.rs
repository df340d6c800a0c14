//! A JSON value of a snapshot kept as its text (issue 28): the live page's
//! state and the LiveChess game grow with every move, so the publisher
//! writes them once per update from cached pieces ([`object_with_raw`])
//! instead of building a [`Value`] tree of every move; a reader that wants
//! the tree (the console's report, the live page's language) parses it on
//! demand, once per snapshot.
//!
//! The text is serde_json's compact form of the value (keys in order, no
//! spaces), byte for byte what `Value::to_string` gives for the same value.
//! It is a [`Text`] of shared pieces: the moves' part is the chunks the
//! publisher keeps, shared with the snapshots before.

use super::text::{Chunks, Text, TextBuilder};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A JSON value held as its compact text, parsed when first read as a
/// [`Value`] (through `Deref`: `json["key"]`, `json.get("key")`).
#[derive(Clone, Default)]
pub struct Json {
    /// The text as written, in shared pieces.
    text: Text,
    /// The parsed value, shared by the clones of one snapshot.
    parsed: Arc<OnceLock<Value>>,
}

impl Json {
    /// A value from its compact text. The text must be JSON as serde_json
    /// writes it (the publisher's own output); text that does not parse
    /// reads as `null`.
    pub fn from_text(text: String) -> Json {
        Json::from_pieces(Text::from(text))
    }

    /// A value from its compact text in pieces ([`Json::from_text`]).
    pub fn from_pieces(text: Text) -> Json {
        Json {
            text,
            parsed: Arc::new(OnceLock::new()),
        }
    }

    /// The compact JSON text (joined on first use).
    pub fn as_str(&self) -> &str {
        self.text.as_str()
    }

    /// The compact JSON text in its pieces.
    pub fn text(&self) -> &Text {
        &self.text
    }

    /// The compact JSON text as a message (joined once per snapshot; every
    /// client of a stream shares it).
    pub fn shared(&self) -> Arc<str> {
        self.text.shared()
    }

    /// The value (parsed once, on first use).
    pub fn value(&self) -> &Value {
        self.parsed
            .get_or_init(|| serde_json::from_str(self.as_str()).unwrap_or(Value::Null))
    }
}

impl From<Value> for Json {
    fn from(v: Value) -> Json {
        let parsed = OnceLock::new();
        let text = v.to_string();
        let _ = parsed.set(v);
        Json {
            text: Text::from(text),
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
        fmt::Display::fmt(&self.text, f)
    }
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.text, f)
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
        match serde_json::value::RawValue::from_string(self.as_str().to_owned()) {
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
/// value is the JSON array `[` + `items` + `]` (`items`: the array's
/// elements, comma-separated, kept as shared chunks), in its place in key
/// order (serde_json's map keeps its keys sorted): what `Value::to_string`
/// gives for `map` with `key` set to the parsed array. `key` must not be in
/// `map`. The chunks are shared, not copied.
pub fn object_with_array(map: &Map<String, Value>, key: &str, items: &Chunks) -> Text {
    use std::fmt::Write;
    let mut out = TextBuilder::with_capacity(items.pieces() + 2, 1024 + items.open_len());
    out.push_str("{");
    let mut placed = false;
    let mut first = true;
    let mut name = |out: &mut TextBuilder, k: &str| {
        if !first {
            out.push_str(",");
        }
        first = false;
        // A plain key needs no escaping (written without a temporary).
        if k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            let o = out.open();
            o.push('"');
            o.push_str(k);
            o.push('"');
        } else {
            out.push_str(&Value::from(k).to_string());
        }
        out.push_str(":");
    };
    let array = |out: &mut TextBuilder| {
        out.push_str("[");
        out.push_chunks(items);
        out.push_str("]");
    };
    for (k, v) in map {
        if !placed && k.as_str() > key {
            name(&mut out, key);
            array(&mut out);
            placed = true;
        }
        name(&mut out, k);
        // `Value`'s `Display` is its compact text (`to_string`'s).
        let _ = write!(out.open(), "{v}");
    }
    if !placed {
        name(&mut out, key);
        array(&mut out);
    }
    out.push_str("}");
    out.finish()
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
            let text = moves.to_string();
            let mut items = Chunks::default();
            items.push_str(&text[1..text.len() - 1]);
            assert_eq!(
                object_with_array(&map, "moves", &items).as_str(),
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
