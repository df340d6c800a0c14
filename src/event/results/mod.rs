//! A round's results going back to the pairing program (issue 24.9,
//! `docs/event.md`, "Results back to the pairing program"): each game's
//! result as the boards' states have it ([`from_states`]), as CSV
//! ([`to_csv`], [`read_csv`]: the console's `GET /console/results.csv`),
//! and written into the round's column of the players' `001` records of
//! the TRF-16 file the pairings came from ([`write_trf`], `eboard results`),
//! for Swiss-Manager or Vega to import.
//!
//! TRF-16 (FIDE Handbook C.04 Annex 2; the columns in [`super::trf`]):
//! round `r`'s block starts at column 92 + 10 (r - 1): the opponent's start
//! rank (4 columns), the colour (`w`, `b`) at +5 and the result at +7:
//! `1` win, `=` draw, `0` loss for a game played; `+` forfeit win, `-`
//! forfeit loss for a game not played (a double forfeit is `-` for both;
//! a game played and declared lost by both, 2023 11.8, is `0` for both).
//! The points (columns 81-84, `11.5`) are brought up to date; the rank
//! (86-89) is the pairing program's to recompute.
//!
//! Only final results are written: `confirmed`, `corrected` (by the
//! arbiter) and `forfeit` (DSU 004 §15: a result is the arbiter's once he
//! has it). A provisional or unfinished game is left blank and named.

use super::PairingError;
use crate::model::Player;
use serde_json::Value;

/// One game's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    /// The event's name, when the board has one.
    pub event: Option<String>,
    /// The round, from 1.
    pub round: u32,
    /// The board, from 1.
    pub board: u32,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// `1-0`, `0-1`, `1/2-1/2`, `0-0` (a double forfeit) or `*`.
    pub result: String,
    /// `provisional`, `confirmed`, `corrected`, `forfeit`; `None` while playing.
    pub status: Option<String>,
    /// The termination (`checkmate`, `agreement`, `forfeit`, …), when ended.
    pub reason: Option<String>,
}

impl GameResult {
    /// `round.board`.
    pub fn game(&self) -> String {
        format!("{}.{}", self.round, self.board)
    }

    /// Whether the result is the arbiter's (confirmed, corrected or a
    /// forfeit): what goes into the TRF.
    pub fn is_final(&self) -> bool {
        matches!(
            self.status.as_deref(),
            Some("confirmed" | "corrected" | "forfeit")
        ) && self.result != "*"
    }

    /// The TRF-16 result codes (White's, Black's), `None` for `*`.
    pub fn trf_codes(&self) -> Option<(char, char)> {
        let forfeit = self.status.as_deref() == Some("forfeit");
        Some(match (self.result.as_str(), forfeit) {
            ("1-0", false) => ('1', '0'),
            ("0-1", false) => ('0', '1'),
            ("1/2-1/2", _) => ('=', '='),
            ("1-0", true) => ('+', '-'),
            ("0-1", true) => ('-', '+'),
            // A double forfeit; a game played and lost by both (11.8).
            ("0-0", true) => ('-', '-'),
            ("0-0", false) => ('0', '0'),
            _ => return None,
        })
    }
}

fn player(v: &Value) -> Player {
    serde_json::from_value(v.clone()).unwrap_or_default()
}

/// The results of the games of `states` (each board's state message, as
/// `GET /arbiter/state` lists them: `round`, `board`, `white`, `black`,
/// `result`, `result_status`, `reason`), in (round, board) order.
pub fn from_states(states: &[Value]) -> Vec<GameResult> {
    let mut out: Vec<GameResult> = states
        .iter()
        .filter_map(|s| {
            Some(GameResult {
                event: s["event"].as_str().map(str::to_owned),
                round: u32::try_from(s["round"].as_u64()?).ok()?,
                board: u32::try_from(s["board"].as_u64()?).ok()?,
                white: player(&s["white"]),
                black: player(&s["black"]),
                result: s["result"].as_str().unwrap_or("*").to_owned(),
                status: s["result_status"].as_str().map(str::to_owned),
                reason: s["reason"].as_str().map(str::to_owned),
            })
        })
        .collect();
    out.sort_by_key(|r| (r.round, r.board));
    out
}

/// The round of `games` when none is named (`eboard results` without
/// `--round`, `/console/results.trf` without `?round=`): `Ok(round)` when
/// every game is of that one round, else `Err` with the rounds found, in
/// order (empty: no game).
pub fn the_round(games: &[GameResult]) -> Result<u32, Vec<u32>> {
    let mut rounds: Vec<u32> = games.iter().map(|g| g.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    match rounds[..] {
        [r] => Ok(r),
        _ => Err(rounds),
    }
}

/// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a
/// line break; a field a spreadsheet would read as a formula (starting
/// with `=`, `+`, `-`, `@`) is prefixed with `'` (OWASP's CSV injection).
pub fn csv_field(s: &str) -> String {
    let s = if s.len() > 1 && s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_owned()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// The results CSV's header.
pub const CSV_HEADER: &str =
    "round,board,white,white_fide_id,black,black_fide_id,result,status,reason";

/// The results as CSV (RFC 4180, CRLF).
pub fn to_csv(results: &[GameResult]) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push_str("\r\n");
    for r in results {
        let id = |p: &Player| p.fide_id.map(|i| i.to_string()).unwrap_or_default();
        let cells = [
            r.round.to_string(),
            r.board.to_string(),
            r.white.name.clone().unwrap_or_default(),
            id(&r.white),
            r.black.name.clone().unwrap_or_default(),
            id(&r.black),
            r.result.clone(),
            r.status.clone().unwrap_or_default(),
            r.reason.clone().unwrap_or_default(),
        ];
        let line: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
        s.push_str(&line.join(","));
        s.push_str("\r\n");
    }
    s
}

/// The fields of one CSV record (RFC 4180 quoting), starting at `text`;
/// returns them and the rest after the record's line break.
fn csv_record(text: &str) -> (Vec<String>, &str) {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek().map(|x| x.1) == Some('"') {
                    cur.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            ',' => fields.push(std::mem::take(&mut cur)),
            '\r' | '\n' => {
                fields.push(cur);
                let mut rest = &text[i + 1..];
                if c == '\r' {
                    rest = rest.strip_prefix('\n').unwrap_or(rest);
                }
                return (fields, rest);
            }
            c => cur.push(c),
        }
    }
    fields.push(cur);
    (fields, "")
}

/// Reads a results CSV ([`to_csv`]'s columns, by their header names; the
/// `'` that guards a formula-like cell is taken off). Errors name the
/// file, the line and the column.
pub fn read_csv(text: &str, file: &str) -> Result<Vec<GameResult>, PairingError> {
    let err = |line: Option<usize>, field: &str, message: String| PairingError {
        file: file.to_owned(),
        line,
        field: field.to_owned(),
        message,
    };
    let (header, mut rest) = csv_record(text.trim_start_matches('\u{feff}'));
    let col = |name: &str| -> Result<usize, PairingError> {
        header.iter().position(|h| h.trim() == name).ok_or_else(|| {
            err(
                Some(1),
                name,
                format!("no column \"{name}\" (expected {CSV_HEADER})"),
            )
        })
    };
    let [round, board, white, white_id, black, black_id, result, status, reason] = [
        col("round")?,
        col("board")?,
        col("white")?,
        col("white_fide_id")?,
        col("black")?,
        col("black_fide_id")?,
        col("result")?,
        col("status")?,
        col("reason")?,
    ];
    let mut out = Vec::new();
    let mut n = 1;
    while !rest.is_empty() {
        n += 1;
        let (f, next) = csv_record(rest);
        rest = next;
        if f.iter().all(|x| x.trim().is_empty()) {
            continue;
        }
        let get = |i: usize| -> String {
            let v = f.get(i).map(|s| s.trim()).unwrap_or("");
            v.strip_prefix('\'').unwrap_or(v).to_owned()
        };
        let num = |i: usize, what: &str| -> Result<u32, PairingError> {
            get(i).parse().ok().filter(|x| *x > 0).ok_or_else(|| {
                err(
                    Some(n),
                    what,
                    format!("\"{}\" is not a number from 1", get(i)),
                )
            })
        };
        let id = |i: usize, what: &str| -> Result<Option<u64>, PairingError> {
            let s = get(i);
            if s.is_empty() {
                return Ok(None);
            }
            s.parse()
                .map(Some)
                .map_err(|_| err(Some(n), what, format!("\"{s}\" is not a FIDE id")))
        };
        let res = get(result);
        if !["1-0", "0-1", "1/2-1/2", "0-0", "*"].contains(&res.as_str()) {
            return Err(err(
                Some(n),
                "result",
                format!("\"{res}\": one of 1-0, 0-1, 1/2-1/2, 0-0, *"),
            ));
        }
        let opt = |s: String| Some(s).filter(|s| !s.is_empty());
        out.push(GameResult {
            event: None,
            round: num(round, "round")?,
            board: num(board, "board")?,
            white: Player {
                name: opt(get(white)),
                fide_id: id(white_id, "white_fide_id")?,
                ..Player::default()
            },
            black: Player {
                name: opt(get(black)),
                fide_id: id(black_id, "black_fide_id")?,
                ..Player::default()
            },
            result: res,
            status: opt(get(status)),
            reason: opt(get(reason)),
        });
    }
    Ok(out)
}

mod trf;
pub use trf::*;

#[cfg(test)]
mod tests;
