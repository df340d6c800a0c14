//! Reading a trace's header (line 1, the object with the key `trace`)
//! into a [`Header`]: each error names the line and the key
//! (`spec/trace-format.md`, docs/trace-extensions.md for the extensions).

use super::parse::{opt_named, opt_str};
use super::*;

/// Parses the header object of line 1.
pub(super) fn parse_header(obj: &Map<String, Value>, line: usize) -> Result<Header, TraceError> {
    let version = match obj.get("trace") {
        Some(Value::Number(n)) => n.as_u64().ok_or_else(|| TraceError {
            line,
            message: format!("key 'trace': expected a positive integer, found {n}"),
        })?,
        Some(other) => {
            return err(
                line,
                format!("key 'trace': expected a number, found {other}"),
            )
        }
        None => return err(line, "missing key 'trace'"),
    };
    let mut h = Header {
        version,
        boards: vec![BoardId::Main],
        ..Header::default()
    };
    if let Some(s) = opt_named(obj, "sensing", line)? {
        h.sensing = s;
    }
    if let Some(v) = obj.get("boards") {
        let arr = v.as_array().ok_or_else(|| TraceError {
            line,
            message: format!("key 'boards': expected a list, found {v}"),
        })?;
        let mut boards = Vec::new();
        for b in arr {
            match b.as_str().map(str::parse::<BoardId>) {
                Some(Ok(id)) => boards.push(id),
                _ => {
                    return err(
                        line,
                        format!("key 'boards': {b} is not \"main\" or \"tactile\""),
                    )
                }
            }
        }
        if boards.first() != Some(&BoardId::Main) {
            return err(line, "key 'boards': the list must start with \"main\"");
        }
        h.boards = boards;
    }
    h.rules = opt_named(obj, "rules", line)?;
    h.mode = opt_named(obj, "mode", line)?;
    h.time_control = opt_str(obj, "time_control", line)?.map(str::to_owned);
    h.start_fen = opt_str(obj, "start_fen", line)?.map(str::to_owned);
    h.white = opt_str(obj, "white", line)?.map(str::to_owned);
    h.black = opt_str(obj, "black", line)?.map(str::to_owned);
    h.event = opt_str(obj, "event", line)?.map(str::to_owned);
    h.round = match obj.get("round") {
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => opt_str(obj, "round", line)?.map(str::to_owned),
    };
    h.language = opt_named(obj, "language", line)?;
    h.vi_player = match opt_str(obj, "vi_player", line)? {
        Some(s) => Some(parse_color(s, "vi_player", line)?),
        None => None,
    };
    h.site = opt_str(obj, "site", line)?.map(str::to_owned);
    h.supervision = opt_named(obj, "supervision", line)?;
    h.date = opt_str(obj, "date", line)?.map(str::to_owned);
    h.words = opt_named(obj, "words", line)?;
    h.board_observes_illegal_moves = match obj.get("board_observes_illegal_moves") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(v) => {
            return Err(TraceError {
                line,
                message: format!(
                    "key 'board_observes_illegal_moves': expected true or false, found {v}"
                ),
            })
        }
    };
    h.default_time_ms = match obj.get("default_time_ms") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().filter(|ms| *ms <= MAX_TRACE_MS).ok_or_else(|| {
            TraceError {
                line,
                message: format!(
                    "key 'default_time_ms': expected the default time in ms (0 to {MAX_TRACE_MS}), found {v}"
                ),
            }
        })?),
    };
    h.session_start_ms = match obj.get("session_start_ms") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_i64()
                .filter(|ms| ms.unsigned_abs() <= MAX_TRACE_MS)
                .ok_or_else(|| TraceError {
                    line,
                    message: format!(
                        "key 'session_start_ms': expected the scheduled start in round ms \
                         (-{MAX_TRACE_MS} to {MAX_TRACE_MS}), found {v}"
                    ),
                })?,
        ),
    };
    Ok(h)
}
