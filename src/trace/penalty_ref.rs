//! The penalty a `withdraw` / `displaced` ruling names (issue 40 §2),
//! read from the `arbiter` record (`parse.rs`).

use super::*;

/// The penalty a `withdraw` / `displaced` ruling names: `"event": {"type":
/// "illegal_move", "t": T}`, `"ruling": SEQ`, or neither (the one its
/// `expect.event` answers, else the last).
pub(super) fn read(obj: &Map<String, Value>, line: usize) -> Result<PenaltyRef, TraceError> {
    let event = match obj.get("event") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let ok = v.get("type").and_then(Value::as_str) == Some("illegal_move");
            match (ok, v.get("t").and_then(Value::as_u64)) {
                (true, Some(t)) => Some(t),
                _ => {
                    return err(
                        line,
                        format!("key 'event': expected {{\"type\": \"illegal_move\", \"t\": round ms}}, found {v}"),
                    )
                }
            }
        }
    };
    let ruling = match obj.get("ruling") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64().and_then(|n| u32::try_from(n).ok()).filter(|n| *n >= 1) {
            Some(n) => Some(n),
            None => return err(line, format!("key 'ruling': expected the number (seq, from 1) of the ruling that gave the penalty, found {v}")),
        },
    };
    Ok(match (event, ruling) {
        (Some(_), Some(_)) => return err(line, "give 'event' or 'ruling', not both".to_owned()),
        (Some(t), None) => PenaltyRef::Event(t),
        (None, Some(n)) => PenaltyRef::Ruling(n),
        (None, None) => PenaltyRef::Answered,
    })
}
