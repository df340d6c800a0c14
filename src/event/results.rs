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

/// What [`write_trf`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// The new file's text (line endings as the original's).
    pub text: String,
    /// The games written, `round.board`.
    pub written: Vec<String>,
    /// The games left blank, with why (not final, not in the file).
    pub skipped: Vec<(String, String)>,
}

const POINTS: (usize, usize) = (81, 84);

fn block_start(r: u32) -> usize {
    92 + (r as usize - 1) * 10
}

fn points_of(code: char) -> u32 {
    match code {
        '1' | '+' | 'W' | 'F' | 'U' => 10,
        '=' | 'D' | 'H' => 5,
        _ => 0,
    }
}

/// Columns `from..=to` (1-based) of `line`.
fn cols(line: &[char], from: usize, to: usize) -> String {
    let (s, e) = ((from - 1).min(line.len()), to.min(line.len()));
    line[s..e].iter().collect::<String>().trim().to_owned()
}

/// Sets columns `from..=to` (1-based) of `line` to `text`, right-aligned,
/// padding the line with spaces as needed.
fn set_cols(line: &mut Vec<char>, from: usize, to: usize, text: &str) {
    if line.len() < to {
        line.resize(to, ' ');
    }
    let w = to + 1 - from;
    let t: Vec<char> = format!("{text:>w$}").chars().collect();
    line[from - 1..to].copy_from_slice(&t[t.len() - w..]);
}

/// The round's byes into the points (columns 81-84) of their players: a
/// pairing program writes this round's bye (`0000 - H`, `F`, `U`) with the
/// pairings, and its points may not count it yet. When a player's points
/// are the sum of his other rounds' results (the bye not counted), they
/// become the sum with it: the file's results are the round's final ones,
/// and its points must add up (FIDE Handbook C.04 Annex 2, TRF-16, the
/// player record's "Points"). Points that do not add up either way
/// (custom scoring, an acceleration) are left as they are.
fn count_round_byes(lines: &mut [Vec<char>], round: u32) {
    let s = block_start(round);
    for l in lines.iter_mut() {
        if !(l.len() > 3 && l[..3] == ['0', '0', '1'] && l[3] == ' ') {
            continue;
        }
        if cols(l, s, s + 3) != "0000" {
            continue;
        }
        let bye = cols(l, s + 7, s + 7).chars().next().unwrap_or(' ');
        if points_of(bye) == 0 {
            continue;
        }
        let mut sum = 0u32;
        let mut r = 1;
        while block_start(r) + 7 <= l.len() {
            let b = block_start(r);
            sum += points_of(cols(l, b + 7, b + 7).chars().next().unwrap_or(' '));
            r += 1;
        }
        let Ok(old) = cols(l, POINTS.0, POINTS.1).parse::<f64>() else {
            continue;
        };
        let old = (old * 10.0).round() as i64;
        if old == i64::from(sum) - i64::from(points_of(bye)) {
            set_cols(l, POINTS.0, POINTS.1, &format!("{}.{}", sum / 10, sum % 10));
        }
    }
}

/// Writes the final results among `results` (round `round` only) into the
/// round's column of the `001` records of `trf` (the pairings' TRF-16):
/// each player is found by FIDE id, else by name; the file's own pairing
/// must agree (White's block names Black's start rank with colour `w`,
/// Black's names White's with `b`). Errors: a game whose players are not
/// in the file, or paired otherwise there (named by board and line).
pub fn write_trf(
    trf: &str,
    file: &str,
    round: u32,
    results: &[GameResult],
) -> Result<Written, PairingError> {
    let err = |line: Option<usize>, field: String, message: String| PairingError {
        file: file.to_owned(),
        line,
        field,
        message,
    };
    if round == 0 {
        return Err(err(None, "round".into(), "rounds count from 1".into()));
    }
    let crlf = trf.contains("\r\n");
    let mut lines: Vec<Vec<char>> = trf
        .lines()
        .map(|l| l.trim_end_matches('\r').chars().collect())
        .collect();
    let is_player = |l: &[char]| l.len() > 3 && l[..3] == ['0', '0', '1'] && l[3] == ' ';
    let find = |lines: &[Vec<char>], p: &Player| -> Option<usize> {
        let by_id = p.fide_id.and_then(|id| {
            lines
                .iter()
                .position(|l| is_player(l) && cols(l, 58, 68).parse::<u64>().ok() == Some(id))
        });
        by_id.or_else(|| {
            let name = p.name.as_deref()?.trim();
            lines
                .iter()
                .position(|l| is_player(l) && cols(l, 15, 47) == name)
        })
    };
    let mut out = Written::default();
    let s = block_start(round);
    for r in results.iter().filter(|r| r.round == round) {
        let game = r.game();
        if !r.is_final() {
            out.skipped.push((
                game,
                format!(
                    "the result is {} ({}): not confirmed by the arbiter",
                    r.result,
                    r.status.as_deref().unwrap_or("playing")
                ),
            ));
            continue;
        }
        let Some((wc, bc)) = r.trf_codes() else {
            out.skipped
                .push((game, format!("no result ({})", r.result)));
            continue;
        };
        let who = |p: &Player| {
            p.name
                .clone()
                .or(p.fide_id.map(|i| i.to_string()))
                .unwrap_or_else(|| "?".into())
        };
        let (Some(wi), Some(bi)) = (find(&lines, &r.white), find(&lines, &r.black)) else {
            return Err(err(
                None,
                format!("board {game}"),
                format!(
                    "{} - {}: not both players are in the file's player records (001)",
                    who(&r.white),
                    who(&r.black)
                ),
            ));
        };
        let rank = |i: usize| cols(&lines[i], 5, 8);
        for (i, opp, colour) in [(wi, bi, 'w'), (bi, wi, 'b')] {
            let l = &lines[i];
            let opponent = cols(l, s, s + 3);
            let c = cols(l, s + 5, s + 5).to_ascii_lowercase();
            if opponent != rank(opp) || c != colour.to_string() {
                return Err(err(
                    Some(i + 1),
                    format!("round {round} (columns {s}-{})", s + 7),
                    format!(
                        "board {game}: the file pairs {} against \"{opponent}\" with colour \"{c}\", \
                         the board had start rank {} with {}",
                        cols(l, 15, 47),
                        rank(opp),
                        if colour == 'w' { "White" } else { "Black" }
                    ),
                ));
            }
        }
        for (i, code) in [(wi, wc), (bi, bc)] {
            let l = &mut lines[i];
            let before = cols(l, s + 7, s + 7).chars().next().unwrap_or(' ');
            let old: f64 = cols(l, POINTS.0, POINTS.1).parse().unwrap_or(0.0);
            let tenths = (old * 10.0).round() as i64 - i64::from(points_of(before))
                + i64::from(points_of(code));
            set_cols(l, s + 7, s + 7, &code.to_string());
            set_cols(
                l,
                POINTS.0,
                POINTS.1,
                &format!("{}.{}", tenths.max(0) / 10, tenths.max(0) % 10),
            );
        }
        out.written.push(game);
    }
    count_round_byes(&mut lines, round);
    let nl = if crlf { "\r\n" } else { "\n" };
    out.text = lines
        .iter()
        .map(|l| l.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(nl);
    out.text.push_str(nl);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRF: &str = include_str!("../../tests/data/pairings-open-2026.trf");

    fn game(board: u32, w: u64, b: u64, result: &str, status: &str) -> GameResult {
        GameResult {
            event: None,
            round: 4,
            board,
            white: Player {
                fide_id: Some(w),
                ..Player::default()
            },
            black: Player {
                fide_id: Some(b),
                ..Player::default()
            },
            result: result.into(),
            status: Some(status.into()),
            reason: None,
        }
    }

    #[test]
    fn results_go_into_the_rounds_column_and_read_back() {
        // Round 4 of the file: 9-4 (Iversen-Dahl), 6-1, 2-8, 5-3, 7 has a bye.
        let results = [
            game(1, 1400009, 1500004, "1/2-1/2", "confirmed"),
            game(2, 1400006, 1400001, "0-1", "corrected"),
            game(3, 1500002, 1400008, "1-0", "provisional"),
            game(4, 1400005, 1400003, "1-0", "forfeit"),
        ];
        let w = write_trf(TRF, "p.trf", 4, &results).unwrap();
        assert_eq!(w.written, ["4.1", "4.2", "4.4"]);
        assert_eq!(w.skipped.len(), 1);
        assert!(w.skipped[0].1.contains("provisional"), "{:?}", w.skipped);
        let line = |rank: &str| {
            w.text
                .lines()
                .find(|l| l.starts_with("001") && l[4..8].trim() == rank)
                .unwrap()
                .to_owned()
        };
        // Columns 92 + 30 = 122..=129 hold round 4: opponent, colour, result.
        assert_eq!(&line("9")[121..129], "   4 w =");
        assert_eq!(&line("4")[121..129], "   9 b =");
        assert_eq!(&line("1")[121..129], "   6 b 1");
        assert_eq!(&line("6")[121..129], "   1 w 0");
        assert_eq!(&line("5")[121..129], "   3 w +");
        assert_eq!(&line("3")[121..129], "   5 b -");
        assert_eq!(line("2")[121..].trim_end(), "   8 w", "provisional: blank");
        // Points brought up to date (columns 81-84).
        assert_eq!(&line("1")[80..84], " 3.5");
        assert_eq!(&line("9")[80..84], " 3.0");
        assert_eq!(&line("3")[80..84], " 1.0");
        assert_eq!(&line("5")[80..84], " 2.0");
        // Our own reader takes the file back: round 5 would score them so.
        let back = crate::event::trf::read_round(&w.text, "out.trf", 4).unwrap();
        assert_eq!(back.pairings.len(), 4);
        let codes: Vec<(u32, char)> = crate::event::trf::round_entries(&w.text, "out.trf", 4)
            .unwrap()
            .iter()
            .map(|e| (e.rank, e.result))
            .collect();
        assert_eq!(
            codes,
            [
                (1, '1'),
                (2, ' '),
                (3, '-'),
                (4, '='),
                (5, '+'),
                (6, '0'),
                (7, 'H'),
                (8, ' '),
                (9, '=')
            ]
        );
        let again = write_trf(&w.text, "p.trf", 4, &results).unwrap();
        assert_eq!(again.text, w.text, "writing twice changes nothing");
    }

    #[test]
    fn a_game_paired_otherwise_in_the_file_is_refused_by_name() {
        let wrong = [game(1, 1500004, 1400009, "1-0", "confirmed")];
        let e = write_trf(TRF, "p.trf", 4, &wrong).unwrap_err();
        assert!(e.message.contains("board 4.1"), "{e:?}");
        assert!(e.line.is_some());
        let absent = [game(1, 999, 1400009, "1-0", "confirmed")];
        let e = write_trf(TRF, "p.trf", 4, &absent).unwrap_err();
        assert!(e.message.contains("not both players"), "{e:?}");
    }

    #[test]
    fn the_csv_reads_back_as_written() {
        let mut r = game(2, 1400006, 1400001, "0-0", "forfeit");
        r.white.name = Some("Frandsen, \"Lars\"".into());
        r.reason = Some("=cmd".into());
        let csv = to_csv(&[r.clone()]);
        assert!(csv.contains("'=cmd"), "{csv}");
        let back = read_csv(&csv, "r.csv").unwrap();
        assert_eq!(back, [r]);
        assert_eq!(r_codes("0-0", "forfeit"), Some(('-', '-')));
        assert_eq!(r_codes("0-0", "corrected"), Some(('0', '0')));
        assert_eq!(r_codes("1-0", "confirmed"), Some(('1', '0')));
        assert_eq!(r_codes("*", "confirmed"), None);
        let e = read_csv("round,board\r\n1,1\r\n", "r.csv").unwrap_err();
        assert!(e.message.contains("no column \"white\""), "{e:?}");
    }

    /// ia11's round 3: Dam's half-point bye (`0000 - H`) was in the
    /// round's column with his points (0.0) not counting it; the results
    /// file gave him 0.0 for 0.5 (a TRF checker sums the rounds). Points
    /// that already count it stay.
    #[test]
    fn a_bye_of_the_round_counts_in_the_points_of_the_results_file() {
        let trf = "012 Test\n\
001    9 m  c Dam,Kasper                        2210 DEN     1400090 2007/09/09  0.0    9     4 w 0     2 b 0  0000 - H\n\
001   10 w    Holm,Sofie                        2150 DEN     1400100 2009/10/10  0.0   10     5 b 0     8 b 0  0000 - Z\n\
001   11 m    Counted,Already                   2100 DEN     1400110 2009/10/10  1.5   11     5 b 1     8 b 0  0000 - H\n";
        let w = write_trf(trf, "round3.trf", 3, &[]).unwrap();
        let points = |name: &str| {
            let l: Vec<char> = w
                .text
                .lines()
                .find(|l| l.contains(name))
                .unwrap()
                .chars()
                .collect();
            cols(&l, 81, 84)
        };
        assert_eq!(points("Dam,Kasper"), "0.5", "{}", w.text);
        assert_eq!(points("Holm,Sofie"), "0.0");
        assert_eq!(points("Counted,Already"), "1.5");
    }

    fn r_codes(result: &str, status: &str) -> Option<(char, char)> {
        game(1, 1, 2, result, status).trf_codes()
    }
}
