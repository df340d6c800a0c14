//! A round's pairings as plain CSV (`docs/event.md`): a header row, then
//! one row per game. Columns by name (any order, case and spaces ignored):
//!
//! | column | meaning |
//! |---|---|
//! | `round` | optional: the round; rows of other rounds are skipped |
//! | `board` | optional: the board number (else the rows' order) |
//! | `white`, `black` | the players' names, `Surname, Given`; an empty `black` (or `white`) is a bye |
//! | `white_fide_id`, `white_title`, `white_federation`, `white_rating` | optional, and the same for `black_` |
//!
//! Fields are separated by `,` (or `;` when the header has no comma, as a
//! spreadsheet in a comma-decimal locale writes it); a field may be quoted
//! (`"Larsen, Bent"`, `""` inside is a quote). Unknown columns are errors
//! (a misspelt `white_fide` would otherwise be lost silently). A field
//! with a control character (a newline, a tab inside a name, an escape, a
//! bidirectional override: [`crate::model::text`]) is refused, naming its
//! line and column.

use super::{Pairing, PairingError, RoundPairings, Unplayed};
use crate::model::Player;

/// The columns a pairing CSV may have.
pub const COLUMNS: [&str; 12] = [
    "round",
    "board",
    "white",
    "black",
    "white_fide_id",
    "white_title",
    "white_federation",
    "white_rating",
    "black_fide_id",
    "black_title",
    "black_federation",
    "black_rating",
];

/// Splits one CSV line into fields; `Err` for an unterminated quote.
fn fields(line: &str, sep: char) -> Result<Vec<String>, &'static str> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cur.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' && cur.trim().is_empty() && !was_quoted {
            cur.clear();
            quoted = true;
            was_quoted = true;
        } else if c == sep {
            out.push(std::mem::take(&mut cur).trim().to_owned());
            was_quoted = false;
        } else {
            cur.push(c);
        }
    }
    if quoted {
        return Err("a quote is not closed (a quoted field ends with \")");
    }
    out.push(cur.trim().to_owned());
    Ok(out)
}

/// Reads `round`'s pairings from CSV text; `file` names it in errors
/// (line numbers are the file's, the header is line 1 unless blank lines
/// or `#` comments precede it).
pub fn read_round(text: &str, file: &str, round: u32) -> Result<RoundPairings, PairingError> {
    let err = |line: Option<usize>, field: &str, message: String| PairingError {
        file: file.to_owned(),
        line,
        field: field.to_owned(),
        message,
    };
    if round == 0 {
        return Err(err(None, "", "rounds count from 1".into()));
    }
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((hn, header)) = lines.next() else {
        return Err(err(
            None,
            "",
            "empty: a header row (white,black,...) and one row per game".into(),
        ));
    };
    let header = header.trim_start_matches('\u{feff}');
    let sep = if !header.contains(',') && header.contains(';') {
        ';'
    } else {
        ','
    };
    let names: Vec<String> = fields(header, sep)
        .map_err(|e| err(Some(hn), "header", e.into()))?
        .into_iter()
        .map(|h| h.to_ascii_lowercase().replace([' ', '-'], "_"))
        .collect();
    for (i, h) in names.iter().enumerate() {
        if !COLUMNS.contains(&h.as_str()) {
            return Err(err(
                Some(hn),
                &format!("column {}", i + 1),
                format!(
                    "\"{h}\" is not a column; allowed are {}",
                    COLUMNS.join(", ")
                ),
            ));
        }
        if names[..i].contains(h) {
            return Err(err(
                Some(hn),
                &format!("column {}", i + 1),
                format!("\"{h}\" twice"),
            ));
        }
    }
    for need in ["white", "black"] {
        if !names.iter().any(|h| h == need) {
            return Err(err(Some(hn), "header", format!("no \"{need}\" column")));
        }
    }
    let idx = |name: &str| names.iter().position(|h| h == name);
    let mut out = RoundPairings {
        round,
        ..Default::default()
    };
    let mut boards_seen: Vec<(u32, usize)> = Vec::new();
    for (n, line) in lines {
        let row = fields(line, sep).map_err(|e| err(Some(n), "", e.into()))?;
        // Names and text are data (issue 41 §3): a field with a control
        // character is refused, naming its line and column.
        for (i, v) in row.iter().enumerate() {
            if let Err(c) = crate::model::text::check_text(v) {
                let column = names.get(i).map_or("", String::as_str);
                return Err(err(Some(n), column, c.to_string()));
            }
        }
        if row.len() > names.len() {
            return Err(err(
                Some(n),
                "",
                format!("{} fields, the header has {}", row.len(), names.len()),
            ));
        }
        let get = |name: &str| -> &str {
            idx(name)
                .and_then(|i| row.get(i))
                .map(String::as_str)
                .unwrap_or("")
        };
        let number = |name: &str| -> Result<Option<u64>, PairingError> {
            let s = get(name);
            if s.is_empty() {
                return Ok(None);
            }
            s.parse::<u64>()
                .map(|v| Some(v).filter(|v| *v > 0))
                .map_err(|_| err(Some(n), name, format!("\"{s}\" is not a number")))
        };
        if let Some(r) = number("round")? {
            if r != u64::from(round) {
                continue;
            }
        }
        let player = |side: &str| -> Result<Option<Player>, PairingError> {
            let name = get(side);
            if name.is_empty() {
                return Ok(None);
            }
            let f = |k: &str| format!("{side}_{k}");
            let opt = |k: &str| Some(get(&f(k)).to_owned()).filter(|s| !s.is_empty());
            let p = Player {
                name: Some(name.to_owned()),
                fide_id: number(&f("fide_id"))?,
                title: opt("title").map(|t| t.to_ascii_uppercase()),
                federation: opt("federation").map(|t| t.to_ascii_uppercase()),
                rating: number(&f("rating"))?.map(|r| r.min(u64::from(u32::MAX)) as u32),
            };
            super::check_player(&p).map_err(|(k, m)| err(Some(n), &f(k), m))?;
            Ok(Some(p))
        };
        let (white, black) = (player("white")?, player("black")?);
        let board = number("board")?
            .map(|b| u32::try_from(b).map_err(|_| err(Some(n), "board", format!("{b}: too large"))))
            .transpose()?;
        match (white, black) {
            (Some(white), Some(black)) => {
                if let Some(b) = board {
                    if let Some((_, first)) = boards_seen.iter().find(|(x, _)| *x == b) {
                        return Err(err(
                            Some(n),
                            "board",
                            format!("board {b} is also on line {first}"),
                        ));
                    }
                    boards_seen.push((b, n));
                }
                out.pairings.push(Pairing {
                    white,
                    black,
                    white_score: 0,
                    black_score: 0,
                    white_rank: 0,
                    black_rank: 0,
                    board,
                    forfeit: None,
                    line: n,
                });
            }
            (Some(p), None) | (None, Some(p)) => out.unplayed.push(Unplayed {
                player: p,
                opponent: None,
                code: 'U',
                what: "bye",
                line: n,
            }),
            (None, None) => {
                return Err(err(Some(n), "white", "no players on this row".into()));
            }
        }
    }
    if out.pairings.is_empty() {
        return Err(err(None, "", format!("no games of round {round}")));
    }
    let numbered = out.pairings.iter().filter(|p| p.board.is_some()).count();
    if numbered != 0 && numbered != out.pairings.len() {
        let missing = out
            .pairings
            .iter()
            .find(|p| p.board.is_none())
            .map(|p| p.line);
        return Err(err(
            missing,
            "board",
            "some rows have a board number and this one has none: give all or none".into(),
        ));
    }
    if numbered == 0 {
        // The rows' order is the board order.
        for (p, b) in out.pairings.iter_mut().zip(1u32..) {
            p.board = Some(b);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields() {
        assert_eq!(
            fields("1,\"Larsen, Bent\",\"a \"\"b\"\"\"", ',').unwrap(),
            ["1", "Larsen, Bent", "a \"b\""]
        );
        assert!(fields("\"open", ',').is_err());
        assert_eq!(fields("a;b", ';').unwrap(), ["a", "b"]);
    }
}
