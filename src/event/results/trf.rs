//! The round's results written into the TRF-16 pairings file (points, byes, forfeits).

use super::*;
use crate::event::PairingError;
use crate::model::Player;

/// What [`write_trf`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// The new file's text (line endings as the original's).
    pub text: String,
    /// The games written, `round.board`.
    pub written: Vec<String>,
    /// The games left blank, with why (not final, no result).
    pub skipped: Vec<(String, String)>,
    /// The games of players who are not in the file at all (neither of
    /// them): another group's game or a side game followed by the same
    /// relay; left out, with who played (ia14).
    pub outside: Vec<(String, String)>,
}

pub(super) const POINTS: (usize, usize) = (81, 84);

pub(super) fn block_start(r: u32) -> usize {
    92 + (r as usize - 1) * 10
}

pub(super) fn points_of(code: char) -> u32 {
    match code {
        '1' | '+' | 'W' | 'F' | 'U' => 10,
        '=' | 'D' | 'H' => 5,
        _ => 0,
    }
}

/// Columns `from..=to` (1-based) of `line`.
pub(super) fn cols(line: &[char], from: usize, to: usize) -> String {
    let (s, e) = ((from - 1).min(line.len()), to.min(line.len()));
    line[s..e].iter().collect::<String>().trim().to_owned()
}

/// Sets columns `from..=to` (1-based) of `line` to `text`, right-aligned,
/// padding the line with spaces as needed.
pub(super) fn set_cols(line: &mut Vec<char>, from: usize, to: usize, text: &str) {
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
pub(super) fn count_round_byes(lines: &mut [Vec<char>], round: u32) {
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
/// Black's names White's with `b`). A game neither of whose players is in
/// the file (another group's, a side game) is left out, named in
/// [`Written::outside`]. Errors: a game of which one player only is in
/// the file, or paired otherwise there (named by board and line).
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
        let who = |p: &Player| {
            p.name
                .clone()
                .or(p.fide_id.map(|i| i.to_string()))
                .unwrap_or_else(|| "?".into())
        };
        let (wi, bi) = (find(&lines, &r.white), find(&lines, &r.black));
        if wi.is_none() && bi.is_none() {
            out.outside.push((
                game,
                format!(
                    "{} - {}: neither player is in the file's player records (001)",
                    who(&r.white),
                    who(&r.black)
                ),
            ));
            continue;
        }
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
        let (Some(wi), Some(bi)) = (wi, bi) else {
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

/// The characters Windows-1252 puts at bytes 0x80-0x9F (the WHATWG
/// Encoding Standard's index for windows-1252; 0x81, 0x8D, 0x8F, 0x90 and
/// 0x9D are unassigned and stay the C1 controls Latin-1 has there).
const CP1252_HIGH: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}',
    '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
];

/// A TRF file's bytes as text: UTF-8, or else Windows-1252 (the files of
/// older pairing programs on Windows; Latin-1 but for 0x80-0x9F, where
/// Latin-1 has the C1 controls a name cannot hold: `š` is 0x9A there),
/// byte for char. `true`: it was not UTF-8.
pub fn decode_trf(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(t) => (t, false),
        Err(e) => (
            e.into_bytes()
                .iter()
                .map(|&b| match b {
                    0x80..=0x9f => CP1252_HIGH[usize::from(b - 0x80)],
                    b => char::from(b),
                })
                .collect(),
            true,
        ),
    }
}

/// TRF text back into bytes in the file's own encoding (`latin1`: the
/// Windows-1252 of [`decode_trf`]; a char outside it becomes `?`).
pub fn encode_trf(text: String, latin1: bool) -> Vec<u8> {
    if latin1 {
        text.chars()
            .map(|c| match CP1252_HIGH.iter().position(|&h| h == c) {
                Some(i) => 0x80 + i as u8,
                None => u8::try_from(c)
                    .ok()
                    .filter(|b| !(0x80..=0x9f).contains(b))
                    .unwrap_or(b'?'),
            })
            .collect()
    } else {
        text.into_bytes()
    }
}
