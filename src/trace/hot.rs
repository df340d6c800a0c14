//! The records that make up nearly all of a trace (`lift`, `place`,
//! `press`, `frame`) read straight into a [`Record`] (issue 28): one typed
//! pass over the line, the strings borrowed from it, no JSON tree. Anything
//! else, or anything this pass does not take as it is (an unknown or
//! repeated key, `null`, an escaped string, a bad value), goes to the
//! general reader, which gives the same record or the error naming what
//! and where (`spec/trace-format.md`).

use super::{BoardId, Record, RecordKind};
use crate::model::MAX_TRACE_MS;
use serde::Deserialize;
use shakmaty::{Color, Piece, Square};

/// The keys of the common records.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Hot<'a> {
    t: u64,
    #[serde(borrow, default)]
    lift: Option<&'a str>,
    #[serde(borrow, default)]
    place: Option<&'a str>,
    #[serde(borrow, default)]
    press: Option<&'a str>,
    #[serde(borrow, default)]
    frame: Option<&'a str>,
    #[serde(borrow, default)]
    board: Option<&'a str>,
    #[serde(borrow, default)]
    color: Option<&'a str>,
    #[serde(borrow, default)]
    piece: Option<&'a str>,
}

fn color(s: &str) -> Option<Color> {
    match s {
        "w" => Some(Color::White),
        "b" => Some(Color::Black),
        _ => None,
    }
}

/// The record on `text` when it is a common one the typed pass takes
/// whole; `None`: read it with the general reader.
pub(super) fn parse(text: &str) -> Option<Record> {
    if text.contains("null") {
        return None;
    }
    let h: Hot = serde_json::from_str(text).ok()?;
    if h.t > MAX_TRACE_MS {
        return None;
    }
    let board = match h.board {
        Some(b) => b.parse::<BoardId>().ok()?,
        None => BoardId::default(),
    };
    let extra = h.color.is_some() || h.piece.is_some();
    let kind = match (h.lift, h.place, h.press, h.frame) {
        (Some(s), None, None, None) if !extra => RecordKind::Lift(s.parse::<Square>().ok()?),
        (None, Some(s), None, None) => {
            let square = s.parse::<Square>().ok()?;
            let piece = match h.piece {
                Some(p) => {
                    let mut chars = p.chars();
                    match (chars.next().and_then(Piece::from_char), chars.next()) {
                        (Some(piece), None) => Some(piece),
                        _ => return None,
                    }
                }
                None => None,
            };
            let color = match h.color {
                Some(c) => Some(color(c)?),
                None => piece.map(|p| p.color),
            };
            if let (Some(c), Some(p)) = (color, piece) {
                if c != p.color {
                    return None;
                }
            }
            RecordKind::Place {
                square,
                color,
                piece,
            }
        }
        (None, None, Some(s), None) if !extra => RecordKind::Press(color(s)?),
        (None, None, None, Some(s)) if !extra => {
            if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            RecordKind::Frame(u64::from_str_radix(s, 16).ok()?)
        }
        _ => return None,
    };
    Some(Record {
        t: h.t,
        board,
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line read by the typed pass is the general reader's record.
    #[test]
    fn the_typed_pass_reads_as_the_general_reader() {
        let lines = [
            r#"{"t": 1000, "lift": "e2"}"#,
            r#"{"t":1300,"place":"e4"}"#,
            r#"{"t": 1600, "press": "w"}"#,
            r#"{"t": 3000, "lift": "e2", "board": "tactile"}"#,
            r#"{"t": 5, "place": "h8", "color": "b"}"#,
            r#"{"t": 5, "place": "a1", "piece": "Q"}"#,
            r#"{"t": 5, "place": "a1", "piece": "q", "color": "b"}"#,
            r#"{"t": 7, "frame": "ffff00000000ffff"}"#,
        ];
        for l in lines {
            let fast = parse(l).unwrap_or_else(|| panic!("not taken: {l}"));
            let obj: serde_json::Map<String, serde_json::Value> = serde_json::from_str(l).unwrap();
            assert_eq!(Some(fast), super::super::parse_record(&obj, 1).ok(), "{l}");
        }
        // Left to the general reader (its errors name the line and key).
        for l in [
            r#"{"trace": 1}"#,
            r#"{"t": 1, "lift": "e9"}"#,
            r#"{"t": 1, "lift": "e2", "place": "e4"}"#,
            r#"{"t": 1, "lift": "e2", "color": "w"}"#,
            r#"{"t": 1, "place": "e4", "piece": "Q", "color": "b"}"#,
            r#"{"t": 1, "place": "e4", "colour": "b"}"#,
            r#"{"t": 1, "press": "x"}"#,
            r#"{"t": 1, "press": null}"#,
            r#"{"t": 1.5, "press": "w"}"#,
            r#"{"t": 1, "t": 2, "press": "w"}"#,
            r#"{"t": 1, "lift": "e\u0032"}"#,
            r#"{"t": 1, "board": "nosuch", "lift": "e2"}"#,
            r#"{"t": 1, "frame": "ffff"}"#,
            r#"{"t": 99999999999999, "lift": "e2"}"#,
        ] {
            assert!(parse(l).is_none(), "taken: {l}");
        }
    }
}
