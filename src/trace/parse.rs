//! Reading a trace line's JSON object into a [`Record`] or [`Header`]:
//! every record kind of the contract, each error naming the line (1-based)
//! and the key (`spec/trace-format.md`).

use super::*;

pub(super) fn get_str<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    line: usize,
) -> Result<&'a str, TraceError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => err(
            line,
            format!("key '{key}': expected a string, found {other}"),
        ),
        None => err(line, format!("missing key '{key}'")),
    }
}

pub(super) fn opt_str<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    line: usize,
) -> Result<Option<&'a str>, TraceError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => err(
            line,
            format!("key '{key}': expected a string, found {other}"),
        ),
    }
}

/// An optional key whose value is one of a [`crate::model`] enum's names.
pub(super) fn opt_named<T: FromStr<Err = UnknownName>>(
    obj: &Map<String, Value>,
    key: &str,
    line: usize,
) -> Result<Option<T>, TraceError> {
    match opt_str(obj, key, line)? {
        None => Ok(None),
        Some(s) => s.parse().map(Some).map_err(|e: UnknownName| TraceError {
            line,
            message: format!("key '{key}': {e}"),
        }),
    }
}

/// A required key whose value is one of a [`crate::model`] enum's names.
/// The optional key `move`: a move written on the scoresheet, UCI
/// (`g1f3`) or SAN (`Nf3`), checked for its form only (whether it is legal
/// is the arbiter's question, in the position it is made in).
fn written_move(obj: &Map<String, Value>, line: usize) -> Result<Option<String>, TraceError> {
    let Some(m) = opt_str(obj, "move", line)? else {
        return Ok(None);
    };
    if m.parse::<shakmaty::uci::UciMove>().is_err() && m.parse::<shakmaty::san::San>().is_err() {
        return err(
            line,
            format!("key 'move': \"{m}\" is neither a UCI move (g1f3) nor SAN (Nf3)"),
        );
    }
    Ok(Some(m.to_owned()))
}

pub(super) fn get_named<T: FromStr<Err = UnknownName>>(
    obj: &Map<String, Value>,
    key: &str,
    line: usize,
) -> Result<T, TraceError> {
    get_str(obj, key, line)?
        .parse()
        .map_err(|e: UnknownName| TraceError {
            line,
            message: format!("key '{key}': {e}"),
        })
}

pub(super) fn parse_color(s: &str, key: &str, line: usize) -> Result<Color, TraceError> {
    match s {
        "w" => Ok(Color::White),
        "b" => Ok(Color::Black),
        _ => err(
            line,
            format!("key '{key}': expected \"w\" or \"b\", found \"{s}\""),
        ),
    }
}

pub(super) fn parse_square(s: &str, key: &str, line: usize) -> Result<Square, TraceError> {
    s.parse::<Square>().map_err(|_| TraceError {
        line,
        message: format!("key '{key}': \"{s}\" is not a square (a1..h8)"),
    })
}

/// Parses one record object (not the header). `line` is 1-based, for errors.
pub fn parse_record(obj: &Map<String, Value>, line: usize) -> Result<Record, TraceError> {
    let t = match obj.get("t") {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(t) if t <= MAX_TRACE_MS => t,
            Some(_) => {
                return err(
                    line,
                    format!(
                    "key 't': {n} ms is past the latest trace time ({MAX_TRACE_MS} ms, 30 days)"
                ),
                )
            }
            None => {
                return err(
                    line,
                    format!("key 't': expected milliseconds as a non-negative integer, found {n}"),
                )
            }
        },
        Some(other) => {
            return err(
                line,
                format!("key 't': expected milliseconds as a number, found {other}"),
            )
        }
        None => {
            return err(
                line,
                "missing key 't' (milliseconds since the start of the trace)",
            )
        }
    };
    let (board, kind) = parse_kind(obj, line)?;
    Ok(Record { t, board, kind })
}

/// A record's content without its time (`{"arbiter": "result", "result":
/// "1-0"}`): the one parser of every record kind, used by the trace reader,
/// the journal and the arbiter API. The error names the key and what is
/// allowed.
pub fn parse_record_kind(obj: &Map<String, Value>) -> Result<(BoardId, RecordKind), String> {
    parse_kind(obj, 0).map_err(|e| e.message)
}

pub(super) fn parse_kind(
    obj: &Map<String, Value>,
    line: usize,
) -> Result<(BoardId, RecordKind), TraceError> {
    // An `arbiter` record's fields may share a kind's name: the III.4
    // request's `"offer": "accepted"` (2023 Guidelines III.4 "This
    // constitutes the offer of a draw") is the arbiter's, no `offer` record.
    let arbiter = obj.contains_key("arbiter");
    let mut kinds = RECORD_KINDS
        .iter()
        .filter(|k| obj.contains_key(**k) && !(arbiter && **k == "offer"));
    let kind = match (kinds.next(), kinds.next()) {
        (Some(k), None) => *k,
        (Some(a), Some(b)) => {
            return err(line, format!("record has two kinds, '{a}' and '{b}'"));
        }
        (None, _) => {
            let keys: Vec<&str> = obj
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "t")
                .collect();
            return err(
                line,
                format!(
                    "unknown record kind (keys: {}); expected one of {}",
                    if keys.is_empty() {
                        "none".to_owned()
                    } else {
                        keys.join(", ")
                    },
                    RECORD_KINDS.join(", ")
                ),
            );
        }
    };
    let board = opt_named(obj, "board", line)?.unwrap_or_default();
    let by =
        |line| -> Result<Color, TraceError> { parse_color(get_str(obj, "by", line)?, "by", line) };
    let kind = match kind {
        "lift" => RecordKind::Lift(parse_square(get_str(obj, "lift", line)?, "lift", line)?),
        "place" => {
            let square = parse_square(get_str(obj, "place", line)?, "place", line)?;
            let piece = match opt_str(obj, "piece", line)? {
                Some(p) => {
                    let mut chars = p.chars();
                    match (chars.next().and_then(Piece::from_char), chars.next()) {
                        (Some(piece), None) => Some(piece),
                        _ => {
                            return err(
                                line,
                                format!(
                                "key 'piece': \"{p}\" is not a FEN piece letter (PNBRQK pnbrqk)"
                            ),
                            )
                        }
                    }
                }
                None => None,
            };
            let color = match opt_str(obj, "color", line)?.or(opt_str(obj, "colour", line)?) {
                Some(c) => Some(parse_color(c, "color", line)?),
                None => piece.map(|p| p.color),
            };
            if let (Some(c), Some(p)) = (color, piece) {
                if c != p.color {
                    return err(
                        line,
                        format!(
                            "keys 'color' and 'piece' disagree ({} vs {})",
                            color_str(c),
                            p.char()
                        ),
                    );
                }
            }
            RecordKind::Place {
                square,
                color,
                piece,
            }
        }
        "frame" => {
            let s = get_str(obj, "frame", line)?;
            if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
                return err(
                    line,
                    format!("key 'frame': expected 16 hex digits, found \"{s}\""),
                );
            }
            RecordKind::Frame(u64::from_str_radix(s, 16).map_err(|e| TraceError {
                line,
                message: format!("key 'frame': {e}"),
            })?)
        }
        "press" => RecordKind::Press(parse_color(get_str(obj, "press", line)?, "press", line)?),
        "promote" => {
            let s = get_str(obj, "promote", line)?;
            let role = match s.to_ascii_lowercase().as_str() {
                "q" => Role::Queen,
                "r" => Role::Rook,
                "b" => Role::Bishop,
                "n" => Role::Knight,
                _ => {
                    return err(
                        line,
                        format!("key 'promote': \"{s}\" is not one of q, r, b, n"),
                    )
                }
            };
            RecordKind::Promote(role)
        }
        "claim" => {
            let kind = get_named(obj, "claim", line)?;
            let intended = written_move(obj, line)?;
            if intended.is_some() && !matches!(kind, ClaimKind::Threefold | ClaimKind::FiftyMoves) {
                return err(
                    line,
                    format!("key 'move': only a threefold or fifty_moves claim names a written move (9.2a / 9.3a), not {}", kind.as_str()),
                );
            }
            RecordKind::Claim {
                kind,
                by: by(line)?,
                intended,
            }
        }
        "offer" | "accept" | "decline" => {
            let s = get_str(obj, kind, line)?;
            if s != "draw" {
                return err(line, format!("key '{kind}': \"{s}\" is not \"draw\""));
            }
            let by = by(line)?;
            match kind {
                "offer" => RecordKind::Offer(by),
                "accept" => RecordKind::Accept(by),
                _ => RecordKind::Decline(by),
            }
        }
        "resign" => RecordKind::Resign(parse_color(get_str(obj, "resign", line)?, "resign", line)?),
        "adjust" => RecordKind::Adjust(parse_color(get_str(obj, "adjust", line)?, "adjust", line)?),
        "query" => {
            let what = get_named(obj, "query", line)?;
            let piece = match opt_str(obj, "piece", line)? {
                Some(p) => Some(
                    p.chars()
                        .next()
                        .filter(|_| p.chars().count() == 1)
                        .and_then(Piece::from_char)
                        .ok_or_else(|| TraceError {
                            line,
                            message: format!("key 'piece': \"{p}\" is not a FEN piece letter"),
                        })?,
                ),
                None if what == QueryKind::Piece => {
                    return err(
                        line,
                        "key 'piece': a piece query names the piece (FEN letter)",
                    )
                }
                None => None,
            };
            RecordKind::Query {
                what,
                by: by(line)?,
                piece,
                author: opt_str(obj, "author", line)?.map(str::to_owned),
            }
        }
        "spoken" => RecordKind::Spoken {
            n: obj.get("spoken").and_then(Value::as_u64).ok_or_else(|| TraceError {
                line,
                message: "key 'spoken': expected the announcement's number n (a non-negative integer)"
                    .to_owned(),
            })?,
            by: match obj.get("by") {
                None => None,
                Some(_) => Some(by(line)?),
            },
        },
        "unheard" => RecordKind::Unheard {
            n: obj.get("unheard").and_then(Value::as_u64).ok_or_else(|| TraceError {
                line,
                message: "key 'unheard': expected the announcement's number n (a non-negative integer)"
                    .to_owned(),
            })?,
            by: by(line)?,
        },
        "arbiter" => {
            let s = get_str(obj, "arbiter", line)?;
            let ms = |key: &str| -> Result<u64, TraceError> {
                let v = obj.get(key).ok_or_else(|| TraceError {
                    line,
                    message: format!("missing key '{key}' (milliseconds)"),
                })?;
                match v.as_u64() {
                    Some(ms) if ms <= MAX_CLOCK_MS => Ok(ms),
                    Some(_) => err(
                        line,
                        format!("key '{key}': {v} ms is more than a clock can be set to ({MAX_CLOCK_MS} ms, 24 h)"),
                    ),
                    None => err(
                        line,
                        format!("key '{key}': expected milliseconds (a non-negative integer), found {v}"),
                    ),
                }
            };
            let action = match s {
                "restore" => ArbiterAction::Restore,
                "accept" => ArbiterAction::Accept,
                "overrule" => ArbiterAction::Overrule,
                "result" => {
                    let r = get_str(obj, "result", line)?;
                    let result = parse_result(r).map_err(|e| TraceError {
                        line,
                        message: format!("key 'result': {e}"),
                    })?;
                    match opt_str(obj, "article", line)?.map(str::trim) {
                        None => ArbiterAction::SetResult(result),
                        Some(a) if a.is_empty() || a.chars().count() > MAX_ARTICLE_CHARS => {
                            return err(
                                line,
                                format!("key 'article': expected the article the result is declared under (e.g. \"11.3.2.2\", at most {MAX_ARTICLE_CHARS} characters), found \"{a}\""),
                            )
                        }
                        Some(a) => ArbiterAction::DeclareResult {
                            result,
                            article: a.to_owned(),
                        },
                    }
                }
                "clock" => ArbiterAction::SetClock {
                    white_ms: ms("white_ms")?,
                    black_ms: ms("black_ms")?,
                    moves: match obj.get("moves") {
                        None | Some(Value::Null) => None,
                        Some(v) => Some(v.as_u64().and_then(|n| u32::try_from(n).ok()).filter(|n| *n <= crate::clock::MAX_PERIOD_MOVES).ok_or_else(|| TraceError {
                            line,
                            message: format!("key 'moves': expected the moves White has completed (0 to {}), found {v}", crate::clock::MAX_PERIOD_MOVES),
                        })?),
                    },
                },
                "position" => {
                    let fen = get_str(obj, "fen", line)?;
                    if fen.parse::<shakmaty::fen::Fen>().is_err() {
                        return err(line, format!("key 'fen': \"{fen}\" is not a FEN"));
                    }
                    ArbiterAction::SetPosition(fen.to_owned())
                }
                "pause" => ArbiterAction::Pause,
                "resume" => ArbiterAction::Resume,
                "choose" => {
                    let uci = get_str(obj, "uci", line)?;
                    if uci.parse::<shakmaty::uci::UciMove>().is_err() {
                        return err(line, format!("key 'uci': \"{uci}\" is not a UCI move"));
                    }
                    ArbiterAction::Choose(uci.to_owned())
                }
                "confirm" => match opt_str(obj, "result", line)? {
                    Some("0-0" | "-/-") => ArbiterAction::Confirm(Some(Score::BothLost)),
                    Some(r) => ArbiterAction::Confirm(Some(Score::Game(parse_result(r).map_err(|e| {
                        TraceError {
                            line,
                            message: format!("key 'result': {e}"),
                        }
                    })?))),
                    None => ArbiterAction::Confirm(None),
                },
                "forfeit" => {
                    let r = get_str(obj, "result", line)?;
                    let early = match obj.get("before_default_time") {
                        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
                        Some(Value::Bool(true)) => true,
                        Some(v) => return err(line, format!("key 'before_default_time': expected true or false, found {v}")),
                    };
                    let f = if r == "0-0" || r == "-/-" {
                        Forfeit::Double
                    } else {
                        let result = parse_result(r).map_err(|e| TraceError {
                            line,
                            message: format!("key 'result': {e}"),
                        })?;
                        if result == KnownOutcome::Draw {
                            return err(
                                line,
                                "key 'result': a forfeit is won by one side (1-0 or 0-1), or lost by both (0-0)".to_owned(),
                            );
                        }
                        Forfeit::Won(result)
                    };
                    if early {
                        ArbiterAction::ForfeitBeforeDefaultTime(f)
                    } else {
                        ArbiterAction::Forfeit(f)
                    }
                }
                "undo" => {
                    let n = obj.get("ruling").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).filter(|n| *n >= 1);
                    ArbiterAction::Undo(n.ok_or_else(|| TraceError {
                        line,
                        message: "key 'ruling': expected the number (seq, from 1) of the ruling to undo".to_owned(),
                    })?)
                }
                "uphold" => ArbiterAction::Uphold(written_move(obj, line)?),
                "reject" => ArbiterAction::Reject(written_move(obj, line)?),
                "increment" => ArbiterAction::Increment(IncrementRequest {
                    by: by(line)?,
                    delay: match opt_str(obj, "mode", line)? {
                        None | Some("increment") => false,
                        Some("delay") => true,
                        Some(m) => return err(line, format!("key 'mode': \"{m}\" is not \"increment\" or \"delay\"")),
                    },
                    accepted: match opt_str(obj, "offer", line)? {
                        None | Some("refused") => false,
                        Some("accepted") => true,
                        Some(o) => return err(line, format!("key 'offer': \"{o}\" is not \"refused\" or \"accepted\"")),
                    },
                }),
                "time_control" | "downtime" => super::parse_clock::action(s, obj, line)?,
                "withdraw" => ArbiterAction::Withdraw(super::penalty_ref::read(obj, line, true)?),
                "displaced" => ArbiterAction::Displaced {
                    penalty: super::penalty_ref::read(obj, line, false)?,
                    uci: match opt_str(obj, "uci", line)? {
                        Some(u) if u.parse::<shakmaty::uci::UciMove>().is_err() => {
                            return err(line, format!("key 'uci': \"{u}\" is not a UCI move"))
                        }
                        u => u.map(str::to_owned),
                    },
                },
                "rewind" => {
                    let n = obj.get("ply").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
                    ArbiterAction::Rewind(n.ok_or_else(|| TraceError {
                        line,
                        message: "key 'ply': expected the ply (completed half-moves, from 0) to go back to".to_owned(),
                    })?)
                }
                _ => {
                    return err(
                        line,
                        format!(
                            "key 'arbiter': \"{s}\" is not one of {}",
                            ArbiterAction::NAMES.join(", ")
                        ),
                    )
                }
            };
            let author = opt_str(obj, "author", line)?.map(str::to_owned);
            let expect = match obj.get("expect") {
                None | Some(Value::Null) => None,
                Some(v) => Some(Expect::from_json(v).map_err(|message| TraceError { line, message })?),
            };
            let reason = match opt_str(obj, "reason", line)?.map(str::trim) {
                Some(r) if r.chars().count() > MAX_REASON_CHARS => {
                    return err(
                        line,
                        format!("key 'reason': {} characters; at most {MAX_REASON_CHARS}", r.chars().count()),
                    )
                }
                Some("") | None => None,
                Some(r) => Some(r.to_owned()),
            };
            RecordKind::Arbiter {
                action,
                author,
                expect,
                reason,
            }
        }
        other => return err(line, format!("unknown record kind '{other}'")),
    };
    Ok((board, kind))
}
