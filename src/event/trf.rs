//! FIDE's Tournament Report File, TRF-16 (FIDE Handbook C.04 Annex 2,
//! `C04Annex2_TRF16.pdf`), as Swiss-Manager and Vega export it: the round's
//! pairings from the player records (`001`), the event's name from `012`.
//!
//! A `001` record is fixed columns (1-based, inclusive, characters; `docs/event.md`
//! has the table and the sources):
//!
//! | columns | field |
//! |---|---|
//! | 1-3 | `001` |
//! | 5-8 | start rank (the pairing number) |
//! | 10 | sex (`m`, `w`) |
//! | 11-13 | title (`g`, `m`, `f`, `c`, `wg`, `wm`, `wf`, `wc`) |
//! | 15-47 | name, `Surname,Given` |
//! | 49-52 | FIDE rating |
//! | 54-56 | federation |
//! | 58-68 | FIDE id |
//! | 70-79 | birth date |
//! | 81-84 | points |
//! | 86-89 | rank |
//! | 92-101, 102-111, … | one block per round: opponent's start rank (4 columns; `0000` or blank: none), colour (`w`, `b`, `-`), result |
//!
//! Result codes: `1` `=` `0` (played), `+` `-` (forfeit win, loss), `W`
//! `D` `L` (win, draw, loss of a game not rated), `H` (half-point bye), `F`
//! (full-point bye), `U` (pairing-allocated bye), `Z` (zero-point bye),
//! blank (not yet played: a pairing published before its results). The
//! score before a round counts `1 + W F U` as 1, `= D H` as ½.

use super::{Pairing, PairingError, RoundPairings, Unplayed};
use crate::model::Player;
use std::collections::BTreeMap;

/// Whether `text` is a TRF: one of its first lines starts with a record
/// code followed by a space (`012 `, `001 `).
pub fn looks_like_trf(text: &str) -> bool {
    text.lines().take(40).any(|l| {
        let b = l.as_bytes();
        b.len() >= 4 && b[..3].iter().all(u8::is_ascii_digit) && b[3] == b' '
    })
}

/// One player record (`001`).
#[derive(Debug, Clone)]
struct Record {
    line: usize,
    rank: u32,
    player: Player,
    /// (opponent, colour, result) per round, from round 1.
    rounds: Vec<(u32, char, char)>,
}

/// Columns `from..=to` (1-based) of a line as characters; a short line is
/// blank beyond its end. Characters, not bytes: a Latin-1 file (read as
/// such) and a UTF-8 file padded by characters keep their columns with
/// names such as `Müller,Jörg`.
fn col(line: &[char], from: usize, to: usize) -> String {
    let (s, e) = ((from - 1).min(line.len()), to.min(line.len()));
    line[s..e].iter().collect()
}

/// The TRF-16 title codes.
fn title(code: &str) -> Option<&'static str> {
    Some(match code.to_ascii_lowercase().as_str() {
        "g" | "gm" => "GM",
        "m" | "im" => "IM",
        "f" | "fm" => "FM",
        "c" | "cm" => "CM",
        "wg" | "wgm" => "WGM",
        "wm" | "wim" => "WIM",
        "wf" | "wfm" => "WFM",
        "wc" | "wcm" => "WCM",
        _ => return None,
    })
}

/// Points of a result code, tenths.
fn points(code: char) -> u32 {
    match code {
        '1' | '+' | 'W' | 'F' | 'U' => 10,
        '=' | 'D' | 'H' => 5,
        _ => 0,
    }
}

const RESULTS: &str = "1=0+-WDLHFUZ ";

/// The first column of round `r`'s block.
fn block_start(r: u32) -> usize {
    92 + (r as usize - 1) * 10
}

/// The field of a `001` record that column `c` (1-based) falls in, as the
/// errors name it.
fn field_of_column(c: usize) -> String {
    match c {
        1..=4 => "record code (columns 1-3)".into(),
        5..=8 => "start rank (columns 5-8)".into(),
        9..=10 => "sex (column 10)".into(),
        11..=14 => "title (columns 11-13)".into(),
        15..=48 => "name (columns 15-47)".into(),
        49..=53 => "rating (columns 49-52)".into(),
        54..=57 => "federation (columns 54-56)".into(),
        58..=69 => "FIDE id (columns 58-68)".into(),
        70..=80 => "birth date (columns 70-79)".into(),
        81..=91 => "points and rank (columns 81-89)".into(),
        c => {
            let r = (c - 92) / 10 + 1;
            let s = block_start(r as u32);
            format!("round {r} (columns {s}-{})", s + 9)
        }
    }
}

/// Refuses a line that eboard reads (`001`, `012`, `122`) when it holds a
/// control character ([`crate::model::text::is_control`]: an escape, a
/// newline, a bidirectional override, …): names and text are data, never
/// structure (issue 41 §3). A pairing program never writes one, so the
/// file is damaged or forged: refused, naming the line, the field and the
/// column, never passed on to the boards, the PGN or the terminal
/// (`docs/event.md`, "Control characters").
fn check_line(line: &str, n: usize, file: &str) -> Result<(), PairingError> {
    let Err(c) = crate::model::text::check_text(line) else {
        return Ok(());
    };
    let field = match line.get(..3) {
        Some("001") => field_of_column(c.at),
        Some("012") => "event name (record 012)".into(),
        _ => "time control (record 122)".into(),
    };
    Err(PairingError {
        file: file.to_owned(),
        line: Some(n),
        field,
        message: format!(
            "{} at column {}: a pairing program never writes one; fix the name there and export again",
            crate::model::text::describe(c.ch),
            c.at
        ),
    })
}

fn record(line: &str, n: usize, file: &str) -> Result<Record, PairingError> {
    let err = |field: &str, message: String| PairingError {
        file: file.to_owned(),
        line: Some(n),
        field: field.to_owned(),
        message,
    };
    let line: Vec<char> = line.chars().collect();
    let line = line.as_slice();
    let rank_text = col(line, 5, 8);
    let rank_text = rank_text.trim();
    let rank: u32 = rank_text.parse().ok().filter(|r| *r > 0).ok_or_else(|| {
        err(
            "start rank (columns 5-8)",
            format!("\"{rank_text}\" is not a start rank (a number from 1)"),
        )
    })?;
    let name = col(line, 15, 47);
    let name = name.trim();
    if name.is_empty() {
        return Err(err("name (columns 15-47)", "no name".into()));
    }
    let t = col(line, 11, 13);
    let t = t.trim();
    let title = if t.is_empty() {
        None
    } else {
        Some(
            title(t)
                .ok_or_else(|| {
                    err(
                        "title (columns 11-13)",
                        format!("\"{t}\": TRF-16 titles are g, m, f, c, wg, wm, wf, wc"),
                    )
                })?
                .to_owned(),
        )
    };
    let num = |from: usize, to: usize, what: &str| -> Result<Option<u64>, PairingError> {
        let s = col(line, from, to);
        let s = s.trim();
        if s.is_empty() {
            return Ok(None);
        }
        s.parse::<u64>()
            .map(|v| Some(v).filter(|v| *v > 0))
            .map_err(|_| {
                err(
                    &format!("{what} (columns {from}-{to})"),
                    format!("\"{s}\" is not a number"),
                )
            })
    };
    let rating = num(49, 52, "rating")?.map(|r| r as u32);
    let fide_id = num(58, 68, "FIDE id")?;
    let fed = col(line, 54, 56);
    let fed = fed.trim();
    let federation = if fed.is_empty() {
        None
    } else if fed.len() == 3 && fed.chars().all(|c| c.is_ascii_alphabetic()) {
        Some(fed.to_ascii_uppercase())
    } else {
        return Err(err(
            "federation (columns 54-56)",
            format!("\"{fed}\": three letters (DEN, NOR, ...)"),
        ));
    };
    let mut rounds = Vec::new();
    let mut r = 1;
    while block_start(r) <= line.len() {
        let s = block_start(r);
        let opp_text = col(line, s, s + 3);
        let opp_text = opp_text.trim();
        let opp = if opp_text.is_empty() {
            0
        } else {
            opp_text.parse::<u32>().map_err(|_| {
                err(
                    &format!("round {r} opponent (columns {s}-{})", s + 3),
                    format!("\"{opp_text}\" is not a start rank"),
                )
            })?
        };
        let colour = col(line, s + 5, s + 5).chars().next().unwrap_or(' ');
        if !"wbWB- ".contains(colour) {
            return Err(err(
                &format!("round {r} colour (column {})", s + 5),
                format!("'{colour}': allowed are w, b, -"),
            ));
        }
        let result = col(line, s + 7, s + 7).chars().next().unwrap_or(' ');
        if !RESULTS.contains(result) {
            return Err(err(
                &format!("round {r} result (column {})", s + 7),
                format!("'{result}': allowed are 1 = 0 + - W D L H F U Z or blank"),
            ));
        }
        rounds.push((opp, colour.to_ascii_lowercase(), result));
        r += 1;
    }
    let player = Player {
        name: Some(name.to_owned()),
        fide_id,
        title,
        federation,
        rating,
    };
    if let Err((f, m)) = super::check_player(&player) {
        return Err(err(f, m));
    }
    Ok(Record {
        line: n,
        rank,
        player,
        rounds,
    })
}

/// The result of a forfeited game from White's code and Black's (TRF-16:
/// `+` won by forfeit, `-` lost by forfeit): `1-0`, `0-1`, or `0-0` when
/// both lost by forfeit (a double forfeit).
fn forfeit_result(white: char, black: char) -> &'static str {
    match (white, black) {
        ('-', '-') => "0-0",
        ('+', _) | (_, '-') => "1-0",
        _ => "0-1",
    }
}

/// One player's block of one round, as the file has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundEntry {
    /// The player's start rank (columns 5-8).
    pub rank: u32,
    /// The player.
    pub player: Player,
    /// The opponent's start rank (0: none).
    pub opponent: u32,
    /// `w`, `b`, `-` or blank.
    pub colour: char,
    /// The result code (`1 = 0 + - W D L H F U Z`, blank: none yet).
    pub result: char,
}

/// Every player's block of round `round` (rounds from 1), in the file's
/// order: what a results file carries back (`super::results`). Errors as
/// [`read_round`]'s: a record that does not read, naming its line.
pub fn round_entries(text: &str, file: &str, round: u32) -> Result<Vec<RoundEntry>, PairingError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.get(..3) != Some("001") {
            continue;
        }
        check_line(line, i + 1, file)?;
        let r = record(line, i + 1, file)?;
        let (opponent, colour, result) = r
            .rounds
            .get((round as usize).saturating_sub(1))
            .copied()
            .unwrap_or((0, ' ', ' '));
        out.push(RoundEntry {
            rank: r.rank,
            player: r.player,
            opponent,
            colour,
            result,
        });
    }
    Ok(out)
}

/// One player record (`001`) with every round's block, as
/// [`player_records`] reads it: the cross-table the standings are counted
/// from (`super::standings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerRecord {
    /// The file's 1-based line.
    pub line: usize,
    /// The start rank (columns 5-8).
    pub rank: u32,
    /// The player.
    pub player: Player,
    /// Round 1, 2, …: (the opponent's start rank, 0 for none; the colour
    /// `w`, `b`, `-` or blank; the result code, blank for none yet).
    pub rounds: Vec<(u32, char, char)>,
}

/// Every player record (`001`) of a TRF-16 text, in the file's order.
/// Errors as [`read_round`]'s: a record that does not read, naming its
/// line and field; the same start rank twice.
pub fn player_records(text: &str, file: &str) -> Result<Vec<PlayerRecord>, PairingError> {
    let mut out: Vec<PlayerRecord> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.get(..3) != Some("001") {
            continue;
        }
        check_line(line, i + 1, file)?;
        let r = record(line, i + 1, file)?;
        if let Some(first) = out.iter().find(|p| p.rank == r.rank) {
            return Err(PairingError {
                file: file.to_owned(),
                line: Some(i + 1),
                field: "start rank (columns 5-8)".into(),
                message: format!("{} is also the start rank of line {}", r.rank, first.line),
            });
        }
        out.push(PlayerRecord {
            line: r.line,
            rank: r.rank,
            player: r.player,
            rounds: r.rounds,
        });
    }
    Ok(out)
}

/// Reads round `round`'s pairings from a TRF-16 text; `file` names it in
/// errors. Each game is in both players' records: they must agree
/// (opponents, colours), else the error names both lines.
pub fn read_round(text: &str, file: &str, round: u32) -> Result<RoundPairings, PairingError> {
    let whole = |message: String| PairingError {
        file: file.to_owned(),
        line: None,
        field: String::new(),
        message,
    };
    if round == 0 {
        return Err(whole("rounds count from 1".into()));
    }
    let mut out = RoundPairings {
        round,
        ..Default::default()
    };
    let mut players: BTreeMap<u32, Record> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim_end_matches('\r');
        let code = line.get(..3).unwrap_or("");
        if matches!(code, "001" | "012" | "122") {
            check_line(line, n, file)?;
        }
        match code {
            "001" => {
                let r = record(line, n, file)?;
                if let Some(first) = players.get(&r.rank) {
                    return Err(PairingError {
                        file: file.to_owned(),
                        line: Some(n),
                        field: "start rank (columns 5-8)".into(),
                        message: format!(
                            "{} is also the start rank of line {}",
                            r.rank, first.line
                        ),
                    });
                }
                players.insert(r.rank, r);
            }
            "012" => {
                let name = line.get(4..).unwrap_or("").trim();
                if !name.is_empty() {
                    out.event = Some(name.to_owned());
                }
            }
            "092" => {
                let t = line.get(4..).unwrap_or("").trim();
                if !t.is_empty() {
                    out.system = Some(t.to_owned());
                }
            }
            "122" => {
                let tc = line.get(4..).unwrap_or("").trim();
                if !tc.is_empty() {
                    out.time_control_text = Some(tc.to_owned());
                }
            }
            _ => {}
        }
    }
    if players.is_empty() {
        return Err(whole("no player records (lines starting \"001 \")".into()));
    }
    out.players = u32::try_from(players.len()).unwrap_or(u32::MAX);
    let score = |r: &Record| -> u32 {
        r.rounds
            .iter()
            .take(round as usize - 1)
            .map(|(_, _, res)| points(*res))
            .sum()
    };
    let block = |r: &Record| {
        r.rounds
            .get(round as usize - 1)
            .copied()
            .unwrap_or((0, ' ', ' '))
    };
    if players.values().all(|r| block(r) == (0, ' ', ' ')) {
        let last = players.values().map(|r| r.rounds.len()).max().unwrap_or(0);
        return Err(whole(format!(
            "round {round} has no pairings in this file (its records reach round {last})"
        )));
    }
    for r in players.values() {
        let (opp, colour, result) = block(r);
        let s = block_start(round);
        let at = |message: String| PairingError {
            file: file.to_owned(),
            line: Some(r.line),
            field: format!("round {round} (columns {s}-{})", s + 7),
            message,
        };
        if opp == 0 {
            let what = match result {
                'U' => "pairing-allocated bye",
                'F' => "full-point bye",
                'H' => "half-point bye",
                'Z' => "zero-point bye",
                '+' => "forfeit win without opponent",
                '-' => "forfeit loss without opponent",
                ' ' => "not paired",
                c => return Err(at(format!("result '{c}' without an opponent"))),
            };
            out.unplayed.push(Unplayed {
                player: r.player.clone(),
                opponent: None,
                code: result,
                what,
                line: r.line,
            });
            continue;
        }
        if opp == r.rank {
            return Err(at(format!("paired against itself ({opp})")));
        }
        let Some(o) = players.get(&opp) else {
            return Err(at(format!("opponent {opp} has no player record")));
        };
        let (o_opp, o_colour, o_result) = block(o);
        if o_opp != r.rank {
            return Err(at(format!(
                "opponent {opp} (line {}) is paired against {} in round {round}",
                o.line,
                if o_opp == 0 {
                    "nobody".to_owned()
                } else {
                    o_opp.to_string()
                }
            )));
        }
        if (colour == 'w' && o_colour != 'b') || (colour == 'b' && o_colour != 'w') {
            return Err(at(format!(
                "colour '{colour}' but opponent {opp} (line {}) has '{o_colour}'",
                o.line
            )));
        }
        let forfeit = matches!(result, '+' | '-') || matches!(o_result, '+' | '-');
        if forfeit && !matches!(colour, 'w' | 'b') {
            // A forfeit without colours was never given a board: reported
            // once per game, from the winner's record (or the lower rank
            // when both lost by forfeit).
            let mine = result == '+' || (result == '-' && o_result == '-' && r.rank < opp);
            if mine {
                out.unplayed.push(Unplayed {
                    player: r.player.clone(),
                    opponent: Some(o.player.clone()),
                    code: result,
                    what: if result == '+' {
                        "forfeit win"
                    } else {
                        "both forfeited"
                    },
                    line: r.line,
                });
            }
            continue;
        }
        if colour != 'w' {
            if colour == '-' || colour == ' ' {
                return Err(at(format!(
                    "a game against {opp} without a colour (w or b)"
                )));
            }
            continue;
        }
        out.pairings.push(Pairing {
            white: r.player.clone(),
            black: o.player.clone(),
            white_score: score(r),
            black_score: score(o),
            white_rank: r.rank,
            black_rank: opp,
            board: None,
            forfeit: forfeit.then(|| forfeit_result(result, o_result)),
            line: r.line,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 41: a control character in a line eboard reads refuses the
    /// file, naming the line, the field and the column; other records are
    /// not read, so not refused.
    #[test]
    fn control_characters_name_line_field_and_column() {
        let player = "001    1 m  g Andersen,Mads                     2560 DEN     1400001 1990/01/01  0.0    1";
        let blocks = "     2 w  ";
        let text = format!("012 Open\n{player}{blocks}\n");
        assert!(
            read_round(&text, "t.trf", 1).is_err(),
            "one player: unpaired"
        );
        let e = read_round(&format!("012 Op\u{1b}[2Jen\n{player}\n"), "t.trf", 1).unwrap_err();
        assert_eq!(
            (e.line, e.field.as_str()),
            (Some(1), "event name (record 012)")
        );
        assert!(e.message.starts_with("U+001B (escape) at column 7"), "{e}");
        let bidi = player.replace("Andersen", "Ander\u{202e}en");
        let e = read_round(&format!("012 Open\n{bidi}\n"), "t.trf", 1).unwrap_err();
        assert_eq!(
            (e.line, e.field.as_str()),
            (Some(2), "name (columns 15-47)"),
            "{e}"
        );
        let e = read_round(&format!("{player}     2 w\u{9b}\n"), "t.trf", 1).unwrap_err();
        assert_eq!(e.field, "round 1 (columns 92-101)", "{e}");
        assert!(!e.to_string().chars().any(crate::model::text::is_control));
        // A record eboard does not read keeps whatever it holds.
        let e = read_round(&format!("XXR \t9\n{player}{blocks}\n"), "t.trf", 1).unwrap_err();
        assert!(!e.message.contains("U+0009"), "{e}");
    }
}
