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

#[cfg(test)]
mod tests {
    use super::super::{parse_record, record_json, ArbiterAction, PenaltyRef, RecordKind};
    use serde_json::{json, Value};

    fn action(v: Value) -> Result<ArbiterAction, String> {
        let obj = v.as_object().expect("object").clone();
        let r = parse_record(&obj, 1).map_err(|e| e.message)?;
        // Written back, read again: the same record.
        let again = record_json(&r);
        let back = parse_record(again.as_object().expect("object"), 1).expect("round trip");
        assert_eq!(back, r);
        match r.kind {
            RecordKind::Arbiter { action, .. } => Ok(action),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn withdraw_and_displaced_name_their_penalty_and_round_trip() {
        assert_eq!(
            action(json!({"t": 5, "arbiter": "withdraw"})),
            Ok(ArbiterAction::Withdraw(PenaltyRef::Answered))
        );
        assert_eq!(
            action(
                json!({"t": 5, "arbiter": "withdraw", "event": {"type": "illegal_move", "t": 1200}})
            ),
            Ok(ArbiterAction::Withdraw(PenaltyRef::Event(1200)))
        );
        assert_eq!(
            action(json!({"t": 5, "arbiter": "withdraw", "ruling": 3})),
            Ok(ArbiterAction::Withdraw(PenaltyRef::Ruling(3)))
        );
        assert_eq!(
            action(json!({"t": 5, "arbiter": "displaced", "uci": "c3d5"})),
            Ok(ArbiterAction::Displaced {
                penalty: PenaltyRef::Answered,
                uci: Some("c3d5".into())
            })
        );
        let bad =
            action(json!({"t": 5, "arbiter": "withdraw", "event": {"type": "claim", "t": 1}}));
        assert!(bad.is_err_and(|e| e.contains("key 'event'")));
        let both = action(
            json!({"t": 5, "arbiter": "withdraw", "event": {"type": "illegal_move", "t": 1}, "ruling": 2}),
        );
        assert!(both.is_err_and(|e| e.contains("not both")));
        let uci = action(json!({"t": 5, "arbiter": "displaced", "uci": "Nd5"}));
        assert!(uci.is_err_and(|e| e.contains("key 'uci'")));
    }
}
