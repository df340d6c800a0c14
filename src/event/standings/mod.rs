//! The event's standings as they stand (issue 42 §3; `docs/event.md`,
//! "Standings"): the cross-table of the TRF-16 the event was set up from
//! (`[arbiter] pairings`, the file `eboard event` read: FIDE Handbook C.04
//! Annex 2) with the current round's results as the public feed shows them
//! final, ranked by points and the tie-breaks ([`tiebreak`]: FIDE Handbook
//! C.07, 2026).
//!
//! - **The current round** is the last round any player record has a
//!   block for (an opponent or a result code): a file exported after the
//!   pairing of round N and before its results. Rounds 1..N-1 count as the
//!   file has them (TRF-16 codes: `1 = 0`, `W D L` played; `+ -` forfeits;
//!   `U F` a full point, `H` half, `Z` nothing; a blank block no game).
//! - **Round N's games** get the boards `eboard event` gave them
//!   ([`super::berger_order`], [`super::order_boards`]); a game's result
//!   counts once the feed shows it final (`result_status` `confirmed`,
//!   `corrected` or `forfeit`: [`GameResult::is_final`]) and the feed's
//!   White and Black are the pairing's (FIDE id, else the name). A game
//!   whose players differ is left out, said in a warning, and listed
//!   unconfirmed: never the wrong player credited. A result the file
//!   already has stands; a feed's final result that contradicts it is
//!   left out the same way.
//! - **Provisional** while any game of round N lacks its final result;
//!   those games are [`Standings::unconfirmed`] (`round.board`).
//! - **Tie-breaks**: the file's list when it gives one (TRF-25's `212`
//!   "tie-breaks used to define standings", after the points, or `202`
//!   "tie-breaks used to break ties", as FIDE's tie-break checker reads
//!   them: Otto Milvang's TieBreakServer, `trf2json.py`), as far as eboard
//!   computes them (`BH`, `SB`): the first one it does not compute ends
//!   the list (said in a warning), so ties it would break stay shared,
//!   never broken otherwise. Without a list: BH then SB in a Swiss event,
//!   SB in a round robin (C.07 art. 8: Buchholz is not for round robins).
//! - **Rank**: points, then each tie-break, higher first; equal in all:
//!   the same rank (`tied`), listed by start rank.
//!
//! Text in, values out: no I/O (`server::standings` reads the file).

pub mod tiebreak;

#[cfg(test)]
mod tests;

use super::results::GameResult;
use super::trf::{player_records, PlayerRecord};
use super::PairingError;
use crate::model::Player;
use serde::Serialize;
use std::collections::HashMap;
use tiebreak::{Entry, Kind};

/// A tie-break as the standings name it: FIDE's code and its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TieBreak {
    /// FIDE's code (C.07 art. 8.1 `BH`, 9.1 `SB`).
    pub code: &'static str,
    /// Its name in English.
    pub name: &'static str,
}

/// Buchholz, C.07 art. 8.1.
pub const BH: TieBreak = TieBreak {
    code: "BH",
    name: "Buchholz",
};
/// Sonneborn-Berger, C.07 art. 9.1.
pub const SB: TieBreak = TieBreak {
    code: "SB",
    name: "Sonneborn-Berger",
};

/// One line of the standings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The place, from 1; shared by players equal in points and every tie-break.
    pub rank: u32,
    /// Whether the place is shared.
    pub tied: bool,
    /// The start rank (pairing number).
    pub start: u32,
    /// `Surname, Given` as the file writes it.
    pub name: String,
    /// `GM`, `IM`, …
    pub title: Option<String>,
    /// Federation, three letters.
    pub fed: Option<String>,
    /// FIDE rating.
    pub rating: Option<u32>,
    /// FIDE id.
    pub fide_id: Option<u64>,
    /// Points.
    pub points: f64,
    /// The tie-breaks' values, in [`Standings::tiebreaks`]' order (points).
    pub tiebreaks: Vec<f64>,
}

/// The standings after round [`Standings::round`] as it stands: the JSON
/// of `GET /standings.json` (`docs/broadcast.md`, "Standings").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standings {
    /// The event's name (TRF `012`, else the feed's).
    pub event: String,
    /// The round whose results are being confirmed.
    pub round: u32,
    /// The rounds of the event when the file says (TRF-25 `142`, JaVaFo's
    /// `XXR`, else TRF-16's round dates `132`, one a round); else null.
    pub rounds: Option<u32>,
    /// Whether a game of the round lacks its final result.
    pub provisional: bool,
    /// Those games, `round.board`, by board.
    pub unconfirmed: Vec<String>,
    /// The tie-breaks, in order.
    pub tiebreaks: Vec<TieBreak>,
    /// The players, best first.
    pub rows: Vec<Row>,
}

/// A game of the current round: its board and its players' start ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardGame {
    /// The board, as `eboard event` numbered it.
    pub board: u32,
    /// White's start rank.
    pub white: u32,
    /// Black's start rank.
    pub black: u32,
}

/// The event as its TRF-16 gives it, read once ([`Event::read`]) and
/// ranked with each new view of the feed ([`Event::standings`]).
#[derive(Debug, Clone)]
pub struct Event {
    /// The event's name (TRF `012`).
    pub name: Option<String>,
    /// The rounds of the event, when the file says.
    pub rounds: Option<u32>,
    /// The current round (the last with a block).
    pub round: u32,
    /// Pre-determined pairings (a round robin: Berger board order).
    pub round_robin: bool,
    /// The tie-breaks computed, in order.
    pub tiebreaks: Vec<TieBreak>,
    /// The players' records, in the file's order.
    pub players: Vec<PlayerRecord>,
    /// The current round's games on boards, by board.
    pub boards: Vec<BoardGame>,
    /// What the standings leave out of the file (warnings).
    pub notes: Vec<String>,
}

/// The same player: the same FIDE id when both have one, else the same
/// name (case and spaces aside: `Hansen,Anna` is `Hansen, Anna`).
fn same_player(feed: &Player, file: &Player) -> bool {
    if let (Some(a), Some(b)) = (feed.fide_id, file.fide_id) {
        return a == b;
    }
    let norm = |p: &Player| -> Option<String> {
        let n: String = p.name.as_deref()?.split_whitespace().collect();
        Some(n.to_lowercase())
    };
    matches!((norm(feed), norm(file)), (Some(a), Some(b)) if a == b)
}

/// A player as a warning names him: name and FIDE id.
fn shown(p: &Player) -> String {
    let name = p.name.as_deref().unwrap_or("?");
    match p.fide_id {
        Some(id) => format!("\"{name}\" (FIDE id {id})"),
        None => format!("\"{name}\""),
    }
}

impl Event {
    /// Reads the event from a TRF-16 text (`file` names it in errors);
    /// `board_order` is `eboard event --board-order` if the round was set
    /// up with one. Errors name the file, the line and the field: a record
    /// that does not read, a round whose games disagree between the two
    /// players' records, a result played without an opponent.
    pub fn read(text: &str, file: &str, board_order: Option<&str>) -> Result<Event, PairingError> {
        let at = |line: Option<usize>, field: String, message: String| PairingError {
            file: file.to_owned(),
            line,
            field,
            message,
        };
        let players = player_records(text, file)?;
        let blank = (0, ' ', ' ');
        let round = players
            .iter()
            .filter_map(|p| p.rounds.iter().rposition(|b| *b != blank))
            .max()
            .map(|i| i as u32 + 1)
            .ok_or_else(|| {
                at(
                    None,
                    String::new(),
                    "no round has pairings or results yet (no player record has a round block)"
                        .into(),
                )
            })?;
        let ranks: HashMap<u32, &PlayerRecord> = players.iter().map(|p| (p.rank, p)).collect();
        for p in &players {
            for (i, &(opp, _, code)) in p.rounds.iter().enumerate().take(round as usize) {
                let r = i + 1;
                let s = 92 + i * 10;
                let field = format!("round {r} (columns {s}-{})", s + 7);
                if opp == 0 {
                    if "1=0WDL".contains(code) {
                        let m = format!("result '{code}' of a game without an opponent");
                        return Err(at(Some(p.line), field, m));
                    }
                    continue;
                }
                let Some(o) = ranks.get(&opp) else {
                    let m = format!("opponent {opp} has no player record");
                    return Err(at(Some(p.line), field, m));
                };
                if o.rounds.get(i).map(|b| b.0) != Some(p.rank) {
                    let m = format!(
                        "opponent {opp} (line {}) is not paired against {} in round {r}",
                        o.line, p.rank
                    );
                    return Err(at(Some(p.line), field, m));
                }
            }
        }
        let mut pairings = super::trf::read_round(text, file, round)?;
        let round_robin = super::berger_order(&pairings, board_order);
        if round_robin {
            super::berger::number_boards(&mut pairings, file)?;
        }
        let boards = super::order_boards(&pairings.pairings)
            .into_iter()
            .map(|(board, p)| BoardGame {
                board,
                white: p.white_rank,
                black: p.black_rank,
            })
            .collect();
        let mut notes = Vec::new();
        let (rounds, listed) = header(text, file, &mut notes);
        let rounds = match rounds {
            Some(r) if r < round => {
                notes.push(format!(
                    "{file}: the file gives {r} rounds (142, XXR or the dates of 132) but has round {round}: the number of rounds is not shown"
                ));
                None
            }
            r => r,
        };
        let tiebreaks = match listed {
            Some((line, codes)) => supported(&codes, line, file, &mut notes),
            None if round_robin => vec![SB],
            None => vec![BH, SB],
        };
        Ok(Event {
            name: pairings.event,
            rounds,
            round,
            round_robin,
            tiebreaks,
            players,
            boards,
            notes,
        })
    }

    /// The standings with the feed's games `games` (each board's public
    /// state as [`super::results::from_states`] reads it), and the
    /// warnings: games left out and why, and the file's [`Event::notes`].
    pub fn standings(&self, games: &[GameResult]) -> (Standings, Vec<String>) {
        let n = self.round;
        let mut warnings = self.notes.clone();
        let index: HashMap<u32, usize> = self
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| (p.rank, i))
            .collect();
        let block = |i: usize, r: u32| {
            self.players[i]
                .rounds
                .get(r as usize - 1)
                .copied()
                .unwrap_or((0, ' ', ' '))
        };
        // Round N's games on boards: their codes (White's, Black's) once final.
        let mut live: HashMap<usize, char> = HashMap::new();
        let mut unconfirmed = Vec::new();
        for g in &self.boards {
            let game = format!("{n}.{}", g.board);
            let (Some(&w), Some(&b)) = (index.get(&g.white), index.get(&g.black)) else {
                continue;
            };
            let file = (block(w, n).2, block(b, n).2);
            let feed = games.iter().find(|x| x.round == n && x.board == g.board);
            let mut codes = None;
            let mut left_out = false;
            if let Some(x) = feed {
                let (pw, pb) = (&self.players[w], &self.players[b]);
                if !same_player(&x.white, &pw.player) || !same_player(&x.black, &pb.player) {
                    warnings.push(format!(
                        "game {game}: the feed's players {} - {} are not the pairing's {} - {} (lines {}, {}): its result is not counted",
                        shown(&x.white), shown(&x.black), shown(&pw.player), shown(&pb.player), pw.line, pb.line
                    ));
                    left_out = true;
                } else if x.is_final() {
                    codes = x.trf_codes();
                }
            }
            if file.0 != ' ' || file.1 != ' ' {
                // The file's own result (a forfeit entered with the pairing).
                match codes {
                    Some(c) if c != file => {
                        warnings.push(format!(
                            "game {game}: the feed's final result {} contradicts the file's codes '{}'/'{}': not counted",
                            feed.map_or("?", |x| x.result.as_str()), file.0, file.1
                        ));
                        codes = None;
                    }
                    _ if !left_out && file.0 != ' ' && file.1 != ' ' => codes = Some(file),
                    _ => {}
                }
            }
            match codes {
                Some((cw, cb)) => {
                    live.insert(w, cw);
                    live.insert(b, cb);
                }
                None => unconfirmed.push(game),
            }
        }
        let on_board: std::collections::HashSet<usize> = self
            .boards
            .iter()
            .flat_map(|g| [index.get(&g.white), index.get(&g.black)])
            .flatten()
            .copied()
            .collect();
        let table: Vec<Vec<Entry>> = (0..self.players.len())
            .map(|i| {
                (1..=n)
                    .map(|r| {
                        let (opp, _, code) = block(i, r);
                        let code = if r == n && on_board.contains(&i) {
                            live.get(&i).copied().unwrap_or('?')
                        } else {
                            code
                        };
                        entry((opp != 0).then(|| index.get(&opp).copied()).flatten(), code)
                    })
                    .collect()
            })
            .collect();
        for (i, p) in self.players.iter().enumerate() {
            for r in 1..n {
                if table[i][r as usize - 1].kind == Kind::Pending {
                    warnings.push(format!(
                        "line {}: round {r} has a game without a result: counted as not played yet",
                        p.line
                    ));
                }
            }
        }
        let points = tiebreak::scores(&table);
        let tb = tiebreak::buchholz_and_sonneborn_berger(&table, n, !self.round_robin);
        let values = |i: usize| -> Vec<u32> {
            self.tiebreaks
                .iter()
                .map(|t| if t.code == "BH" { tb[i].0 } else { tb[i].1 })
                .collect()
        };
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        let key = |i: usize| (points[i], values(i));
        order.sort_by(|&a, &b| {
            key(b)
                .cmp(&key(a))
                .then(self.players[a].rank.cmp(&self.players[b].rank))
        });
        let mut rows = Vec::with_capacity(order.len());
        for (pos, &i) in order.iter().enumerate() {
            let first = order.iter().position(|&j| key(j) == key(i)).unwrap_or(pos);
            let tied = order.iter().filter(|&&j| key(j) == key(i)).count() > 1;
            let p = &self.players[i].player;
            rows.push(Row {
                rank: first as u32 + 1,
                tied,
                start: self.players[i].rank,
                name: p.name.clone().unwrap_or_default(),
                title: p.title.clone(),
                fed: p.federation.clone(),
                rating: p.rating,
                fide_id: p.fide_id,
                points: f64::from(points[i]) / 2.0,
                tiebreaks: self
                    .tiebreaks
                    .iter()
                    .zip(values(i))
                    .map(|(t, v)| f64::from(v) / if t.code == "BH" { 2.0 } else { 4.0 })
                    .collect(),
            });
        }
        let event = self
            .name
            .clone()
            .or_else(|| games.iter().find_map(|g| g.event.clone()))
            .unwrap_or_default();
        let standings = Standings {
            event,
            round: n,
            rounds: self.rounds,
            provisional: !unconfirmed.is_empty(),
            unconfirmed,
            tiebreaks: self.tiebreaks.clone(),
            rows,
        };
        (standings, warnings)
    }
}

/// A round's entry from its TRF-16 code (`?`: a game of the current round
/// without a final result).
fn entry(opp: Option<usize>, code: char) -> Entry {
    let (kind, halves) = match code {
        '1' | 'W' => (Kind::Played, 2),
        '=' | 'D' => (Kind::Played, 1),
        '0' | 'L' => (Kind::Played, 0),
        '+' => (Kind::ForfeitWin, 2),
        '-' => (Kind::ForfeitLoss, 0),
        'U' | 'F' => (Kind::FullBye, 2),
        'H' => (Kind::RequestedBye, 1),
        'Z' => (Kind::RequestedBye, 0),
        ' ' if opp.is_none() => (Kind::RequestedBye, 0),
        _ => (Kind::Pending, 0),
    };
    Entry { opp, kind, halves }
}

/// The rounds (`142`, `XXR`, else the number of dates in `132`) and the tie-break list (`212` after its
/// points, else `202`: line, codes) of the file's header records.
fn header(
    text: &str,
    file: &str,
    notes: &mut Vec<String>,
) -> (Option<u32>, Option<(usize, Vec<String>)>) {
    let (mut rounds, mut dates, mut t202, mut t212) = (None, None, None, None);
    for (i, line) in text.lines().enumerate() {
        let code = line.get(..3).unwrap_or("");
        let rest = line.get(4..).unwrap_or("").trim();
        let codes = || -> Vec<String> {
            rest.split([',', ' ', '\t'])
                .filter(|c| !c.is_empty())
                .map(str::to_uppercase)
                .collect()
        };
        match code {
            "142" | "XXR" => match rest.parse::<u32>() {
                Ok(r) if r > 0 => rounds = Some(r),
                _ => notes.push(format!(
                    "{file}:{}: record {code}: \"{rest}\" is not a number of rounds: not read",
                    i + 1
                )),
            },
            // TRF-16's dates of the rounds: one a round, as scheduled.
            "132" => dates = Some(rest.split_whitespace().count() as u32).filter(|n| *n > 0),
            "202" => t202 = Some((i + 1, codes())),
            "212" => {
                let mut c = codes();
                if c.first()
                    .is_some_and(|x| matches!(x.as_str(), "PTS" | "MPTS" | "GPTS"))
                {
                    c.remove(0);
                }
                t212 = Some((i + 1, c));
            }
            _ => {}
        }
    }
    (rounds.or(dates), t212.or(t202))
}

/// The file's tie-break list as far as eboard computes it; the first code
/// it does not compute ends the list, with a note naming it.
fn supported(codes: &[String], line: usize, file: &str, notes: &mut Vec<String>) -> Vec<TieBreak> {
    let mut out = Vec::new();
    for c in codes {
        match c.as_str() {
            "BH" => out.push(BH),
            "SB" => out.push(SB),
            other => {
                notes.push(format!(
                    "{file}:{line}: the tie-break {other} is not one eboard computes (BH, SB): the standings break ties by {} only; players equal so far share their place",
                    if out.is_empty() { "points".to_owned() } else { out.iter().map(|t| t.code).collect::<Vec<_>>().join(", ") }
                ));
                break;
            }
        }
    }
    out
}
