//! The penalty a `withdraw` / `displaced` ruling names (issue 40 §2),
//! read from the `arbiter` record (`parse.rs`).

use super::*;

/// The penalty a `withdraw` / `displaced` ruling names: `"event": {"type":
/// "illegal_move", "t": T}`, `"ruling": SEQ`, or neither (the one its
/// `expect.event` answers, else the last). A `withdraw` (`end`) may name
/// the game end instead: `"event": {"type": "game_end", "t": T}`, and for a
/// flag's end the clocks the game goes on with, `"white_ms"` and
/// `"black_ms"` (both).
pub(super) fn read(
    obj: &Map<String, Value>,
    line: usize,
    end: bool,
) -> Result<PenaltyRef, TraceError> {
    let expected = if end {
        "{\"type\": \"illegal_move\" or \"game_end\", \"t\": round ms}"
    } else {
        "{\"type\": \"illegal_move\", \"t\": round ms}"
    };
    let event = match obj.get("event") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let kind = v.get("type").and_then(Value::as_str);
            let ok = kind == Some("illegal_move") || (end && kind == Some("game_end"));
            match (ok, v.get("t").and_then(Value::as_u64)) {
                (true, Some(t)) => Some((kind == Some("game_end"), t)),
                _ => return err(line, format!("key 'event': expected {expected}, found {v}")),
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
    let ms = |k: &str| -> Result<Option<u64>, TraceError> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) => Ok(Some(n)),
                None => err(
                    line,
                    format!("key '{k}': expected the clock's time in ms, found {v}"),
                ),
            },
        }
    };
    let times = match (ms("white_ms")?, ms("black_ms")?) {
        (None, None) => None,
        (Some(w), Some(b)) if end => Some((w, b)),
        (Some(_), Some(_)) => {
            return err(
                line,
                "keys 'white_ms', 'black_ms': only a withdrawn game end takes the clocks"
                    .to_owned(),
            )
        }
        _ => return err(
            line,
            "give both 'white_ms' and 'black_ms' (the clocks the game goes on with), or neither"
                .to_owned(),
        ),
    };
    Ok(match (event, ruling, times) {
        (Some(_), Some(_), _) => return err(line, "give 'event' or 'ruling', not both".to_owned()),
        (None, Some(_), Some(_)) => {
            return err(
                line,
                "the clocks go with the game end, not with a ruling's penalty".to_owned(),
            )
        }
        (Some((false, _)), None, Some(_)) => return err(
            line,
            "the clocks go with the game end (\"type\": \"game_end\"), not with an illegal move"
                .to_owned(),
        ),
        (Some((true, t)), None, times) => PenaltyRef::End { t: Some(t), times },
        (None, None, Some(times)) => PenaltyRef::End {
            t: None,
            times: Some(times),
        },
        (Some((false, t)), None, None) => PenaltyRef::Event(t),
        (None, Some(n), None) => PenaltyRef::Ruling(n),
        (None, None, None) => PenaltyRef::Answered,
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

    #[test]
    fn withdraw_names_the_game_end_and_a_flags_clocks_and_round_trips() {
        assert_eq!(
            action(json!({"t": 5, "arbiter": "withdraw", "event": {"type": "game_end", "t": 900}})),
            Ok(ArbiterAction::Withdraw(PenaltyRef::End {
                t: Some(900),
                times: None
            }))
        );
        assert_eq!(
            action(json!({"t": 5, "arbiter": "withdraw", "white_ms": 60000, "black_ms": 30000})),
            Ok(ArbiterAction::Withdraw(PenaltyRef::End {
                t: None,
                times: Some((60_000, 30_000))
            }))
        );
        let one = action(json!({"t": 5, "arbiter": "withdraw", "white_ms": 60000}));
        assert!(one.is_err_and(|e| e.contains("both 'white_ms' and 'black_ms'")));
        let displaced =
            action(json!({"t": 5, "arbiter": "displaced", "event": {"type": "game_end", "t": 1}}));
        assert!(displaced.is_err_and(|e| e.contains("key 'event'")));
        let illegal = action(
            json!({"t": 5, "arbiter": "withdraw", "event": {"type": "illegal_move", "t": 1}, "white_ms": 1, "black_ms": 1}),
        );
        assert!(illegal.is_err_and(|e| e.contains("not with an illegal move")));
    }
}
