//! Reading the clock rulings of issue 40 from an `arbiter` record:
//! `time_control` (2023 6.10.2: the right control installed) and
//! `downtime` (2023 7.1: who is charged the time the board was down).
//! Each error names the line (1-based) and the key.

use super::{ArbiterAction, DowntimeCharge, TraceError};
use crate::model::MAX_CLOCK_MS;
use serde_json::{Map, Value};

fn fail<T>(line: usize, message: String) -> Result<T, TraceError> {
    Err(TraceError { line, message })
}

/// An optional key of milliseconds (a clock's time: at most 24 h).
fn opt_ms(obj: &Map<String, Value>, key: &str, line: usize) -> Result<Option<u64>, TraceError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(ms) if ms <= MAX_CLOCK_MS => Ok(Some(ms)),
            _ => fail(
                line,
                format!("key '{key}': expected milliseconds (0 to {MAX_CLOCK_MS}), found {v}"),
            ),
        },
    }
}

/// The action `s` (`time_control` or `downtime`) of the record `obj`.
pub(super) fn action(
    s: &str,
    obj: &Map<String, Value>,
    line: usize,
) -> Result<ArbiterAction, TraceError> {
    if s == "downtime" {
        let charge = match obj.get("charge") {
            Some(Value::String(c)) if c == "mover" => DowntimeCharge::Mover,
            Some(Value::String(c)) if c == "nobody" => DowntimeCharge::Nobody,
            Some(v) => {
                return fail(
                    line,
                    format!("key 'charge': expected \"mover\" or \"nobody\", found {v}"),
                )
            }
            None => {
                return fail(
                    line,
                    "missing key 'charge' (\"mover\" or \"nobody\")".to_owned(),
                )
            }
        };
        return Ok(ArbiterAction::Downtime {
            charge,
            ms: opt_ms(obj, "ms", line)?,
        });
    }
    let control = match obj.get("control") {
        Some(Value::String(c)) => c.trim().to_owned(),
        Some(v) => {
            return fail(
                line,
                format!("key 'control': expected a time control such as \"5400+30\", found {v}"),
            )
        }
        None => {
            return fail(
                line,
                "missing key 'control' (a time control such as \"5400+30\")".to_owned(),
            )
        }
    };
    if let Err(e) = crate::clock::TimeControl::parse(&control) {
        return fail(line, format!("key 'control': \"{control}\": {e}"));
    }
    let from_move = match obj.get("from_move") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| (1..=crate::clock::MAX_PERIOD_MOVES).contains(n))
                .ok_or_else(|| TraceError {
                    line,
                    message: format!(
                        "key 'from_move': expected a move number (1 to {}), found {v}",
                        crate::clock::MAX_PERIOD_MOVES
                    ),
                })?,
        ),
    };
    let times = match (
        opt_ms(obj, "white_ms", line)?,
        opt_ms(obj, "black_ms", line)?,
    ) {
        (Some(w), Some(b)) => Some((w, b)),
        (None, None) => None,
        _ => {
            return fail(
                line,
                "keys 'white_ms' and 'black_ms': give both times or neither".to_owned(),
            )
        }
    };
    Ok(ArbiterAction::TimeControl {
        control,
        from_move,
        times,
    })
}
