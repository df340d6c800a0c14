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
    if let Some(r) = plain(text.as_bytes()) {
        return Some(r);
    }
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

/// The plainest records, byte by byte: `{"t":N,"lift":"e2"}`,
/// `{"t":N,"place":"e4"}`, `{"t":N,"press":"w"}`, the two keys in either
/// order (`eboard sim` writes them sorted, a recorder `t` first), JSON
/// whitespace allowed between the tokens, no other key. `None` for
/// anything else, which the typed pass below then reads.
pub(super) fn plain(b: &[u8]) -> Option<Record> {
    let mut i = 0;
    let ws = |i: &mut usize| {
        while b
            .get(*i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            *i += 1;
        }
    };
    let lit = |i: &mut usize, s: &[u8]| -> Option<()> {
        ws(i);
        b.get(*i..*i + s.len()).filter(|w| *w == s)?;
        *i += s.len();
        Some(())
    };
    lit(&mut i, b"{")?;
    let mut t = None;
    let mut field: Option<(&[u8], &[u8])> = None;
    for n in 0..2 {
        if n == 1 {
            lit(&mut i, b",")?;
        }
        ws(&mut i);
        let key: &[u8] = [&b"\"t\""[..], b"\"lift\"", b"\"place\"", b"\"press\""]
            .into_iter()
            .find(|k| b.get(i..i + k.len()) == Some(*k))?;
        i += key.len();
        lit(&mut i, b":")?;
        ws(&mut i);
        if key == b"\"t\"" {
            if t.is_some() {
                return None;
            }
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let digits = &b[start..i];
            // No leading zero (not JSON), no more digits than a trace time has.
            if digits.is_empty() || digits.len() > 15 || (digits.len() > 1 && digits[0] == b'0') {
                return None;
            }
            t = Some(
                digits
                    .iter()
                    .fold(0u64, |n, d| n * 10 + u64::from(d - b'0')),
            );
        } else {
            if field.is_some() {
                return None;
            }
            lit(&mut i, b"\"")?;
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_alphanumeric) {
                i += 1;
            }
            let value = &b[start..i];
            lit(&mut i, b"\"")?;
            field = Some((key, value));
        }
    }
    lit(&mut i, b"}")?;
    ws(&mut i);
    let (t, (key, value)) = (t?, field?);
    if i != b.len() || t > MAX_TRACE_MS {
        return None;
    }
    let square = || match value {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            Some(Square::new(u32::from(r - b'1') * 8 + u32::from(f - b'a')))
        }
        _ => None,
    };
    let kind = match key {
        b"\"lift\"" => RecordKind::Lift(square()?),
        b"\"place\"" => RecordKind::Place {
            square: square()?,
            color: None,
            piece: None,
        },
        _ => RecordKind::Press(match value {
            b"w" => Color::White,
            b"b" => Color::Black,
            _ => return None,
        }),
    };
    Some(Record {
        t,
        board: BoardId::default(),
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
            r#"{ "t" : 12 , "press" : "b" }"#,
            r#"{"t":0,"lift":"a1"}"#,
            "{\"t\":\t9,\n\"place\":\"h8\"}",
            r#"{"lift":"e2","t":1000}"#,
            r#"{"place": "e4", "t": 1300}"#,
            r#"{"press":"b","t":0}"#,
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
            r#"{"t": 01, "lift": "e2"}"#,
            r#"{"t": -1, "lift": "e2"}"#,
            r#"{"t": 1, "lift": "E2"}"#,
            r#"{"t": 1, "press": "W"}"#,
            r#"{"t": 1, "press": "w"} x"#,
            r#"{"t": 1, "press": "w",}"#,
            r#"{"t": 1e3, "press": "w"}"#,
            r#"{"press": "w", "press": "b"}"#,
            r#"{"lift": "e2", "lift": "e2"}"#,
            r#"{"t": 1, "lift": "e2", "t": 1}"#,
            r#"{"t": 1}"#,
            r#"{"lift": "e2"}"#,
            r#"{"t": 99999999999999, "lift": "e2"}"#,
        ] {
            assert!(parse(l).is_none(), "taken: {l}");
        }
    }
}
