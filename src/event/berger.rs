//! Round robins in FIDE's Berger board order (issue 43 §4).
//!
//! A round robin's pairings come from the Berger tables (FIDE Handbook
//! C.05, Annex 1, "Berger Tables for Round-Robin Tournaments"; the same
//! tables in Vega's manual, appendix C): with `n` players (an odd number
//! plays as `n + 1`, the highest number being the bye), each of the
//! `n − 1` rounds lists its games in a fixed order, and the boards are
//! numbered in that order. For 12 players round 5 reads 3-12, 4-2, 5-1,
//! 6-11, 7-10, 8-9: board 1 is the game of player 12, board 2 the game of
//! player 4, and so on. Swiss-Manager prints a round robin's boards so.
//!
//! The rule behind the tables, which this module uses instead of copying
//! them: in each round one player `p` meets player `n` (board 1), and
//! every other game pairs `a` with `b` where `a + b ≡ 2p (mod n − 1)`;
//! board `k + 2` (k = 0, 1, …) is the game of player `p + 1 + k` (counted
//! round 1 … n − 1). Checked against the tables for 4 to 14 players.
//!
//! The round is found from the games themselves, not from its number, so
//! a double round robin (its second cycle with colours reversed) and
//! FIDE's advice to swap the first cycle's last two rounds both keep their
//! boards. The players' numbers are the file's start ranks (the draw
//! numbers a round robin's TRF-16 lists); a round whose games do not fit
//! one round of the table is refused, naming the game, never numbered by
//! guess.

use super::{Pairing, PairingError, RoundPairings};

/// Whether the file says the event is a round robin: TRF-16's `092`
/// (type of tournament) naming it ("Individual: Round Robin", "Berger",
/// "Rundeturnering" …).
pub fn says_round_robin(round: &RoundPairings) -> bool {
    round.system.as_deref().is_some_and(|t| {
        let t = t.to_lowercase();
        (t.contains("round") && t.contains("robin"))
            || t.contains("berger")
            || t.contains("all-play-all")
            || t.contains("rundeturnering")
    })
}

/// The table's numbers: `(n, p)`, the even number of places and the
/// player who meets place `n` this round; or the game that does not fit.
fn table_round(round: &RoundPairings) -> Result<(u32, u32), String> {
    let players = round.players.max(
        round
            .pairings
            .iter()
            .map(|p| p.white_rank.max(p.black_rank))
            .max()
            .unwrap_or(0),
    );
    let n = players + players % 2;
    if n < 4 {
        return Err(format!("{players} players: too few for a table"));
    }
    let m = n - 1;
    // 2 is invertible modulo the odd m: p ≡ (a + b) · (m + 1)/2.
    let p_of = |a: u32, b: u32| -> u32 {
        let p = ((a + b) % m) * m.div_ceil(2) % m;
        if p == 0 {
            m
        } else {
            p
        }
    };
    let mut p = None;
    for g in &round.pairings {
        let (a, b) = (g.white_rank, g.black_rank);
        if a == 0 || b == 0 {
            return Err(format!("line {}: a game without start ranks", g.line));
        }
        let this = if a == n {
            b
        } else if b == n {
            a
        } else {
            p_of(a, b)
        };
        match p {
            None => p = Some(this),
            Some(q) if q == this => {}
            Some(q) => {
                return Err(format!(
                "line {}: the game {a}-{b} is not in the round of the table where {q} meets {n}",
                g.line
            ))
            }
        }
    }
    p.map(|p| (n, p))
        .ok_or_else(|| "no game in the round".to_owned())
}

/// Whether the round's games fit one round of the Berger table (for the
/// warning when the file does not say what it is).
pub fn fits(round: &RoundPairings) -> bool {
    !round.pairings.is_empty() && table_round(round).is_ok()
}

/// Numbers the round's boards in the Berger table's order (each
/// pairing's `board`, from 1; with an odd number of players the bye's
/// place is not a board). Errors: a game that does not fit the table,
/// named with its line.
pub fn number_boards(round: &mut RoundPairings, file: &str) -> Result<(), PairingError> {
    let (n, p) = table_round(round).map_err(|message| PairingError {
        file: file.to_owned(),
        line: None,
        field: "round robin (Berger table)".into(),
        message,
    })?;
    let m = n - 1;
    // The place of player x after p, counted 0, 1, … round 1 … m.
    let after = |x: u32| (x + m - p - 1) % m;
    let place = |g: &Pairing| -> u32 {
        if g.white_rank == n || g.black_rank == n {
            0
        } else {
            1 + after(g.white_rank).min(after(g.black_rank))
        }
    };
    let bye_place = u32::from(round.players % 2 == 1);
    for g in &mut round.pairings {
        g.board = Some(place(g) + 1 - bye_place);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The round's games as (white, black) start ranks, in board order.
    fn numbered(players: u32, games: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let mut r = RoundPairings {
            players,
            pairings: games
                .iter()
                .map(|&(w, b)| Pairing {
                    white_rank: w,
                    black_rank: b,
                    ..Pairing::default()
                })
                .collect(),
            ..RoundPairings::default()
        };
        number_boards(&mut r, "rr.trf").unwrap();
        let mut v: Vec<(u32, (u32, u32))> = r
            .pairings
            .iter()
            .map(|g| (g.board.unwrap(), (g.white_rank, g.black_rank)))
            .collect();
        v.sort();
        let boards: Vec<u32> = v.iter().map(|x| x.0).collect();
        assert_eq!(boards, (1..=v.len() as u32).collect::<Vec<_>>());
        v.into_iter().map(|x| x.1).collect()
    }

    /// The table for 12 players (FIDE Handbook C.05 Annex 1), every
    /// round, its games given shuffled.
    #[test]
    fn twelve_players_every_round_as_the_table_prints_it() {
        let table: [&[(u32, u32)]; 11] = [
            &[(1, 12), (2, 11), (3, 10), (4, 9), (5, 8), (6, 7)],
            &[(12, 7), (8, 6), (9, 5), (10, 4), (11, 3), (1, 2)],
            &[(2, 12), (3, 1), (4, 11), (5, 10), (6, 9), (7, 8)],
            &[(12, 8), (9, 7), (10, 6), (11, 5), (1, 4), (2, 3)],
            &[(3, 12), (4, 2), (5, 1), (6, 11), (7, 10), (8, 9)],
            &[(12, 9), (10, 8), (11, 7), (1, 6), (2, 5), (3, 4)],
            &[(4, 12), (5, 3), (6, 2), (7, 1), (8, 11), (9, 10)],
            &[(12, 10), (11, 9), (1, 8), (2, 7), (3, 6), (4, 5)],
            &[(5, 12), (6, 4), (7, 3), (8, 2), (9, 1), (10, 11)],
            &[(12, 11), (1, 10), (2, 9), (3, 8), (4, 7), (5, 6)],
            &[(6, 12), (7, 5), (8, 4), (9, 3), (10, 2), (11, 1)],
        ];
        for round in table {
            let mut shuffled = round.to_vec();
            shuffled.reverse();
            shuffled.rotate_left(2);
            assert_eq!(numbered(12, &shuffled), round);
        }
    }

    /// 8 players round 2 (8-5, 6-4, 7-3, 1-2), and 7 players: the game of
    /// player 8 is the bye, the others are boards 1-3.
    #[test]
    fn eight_players_and_seven_with_the_bye() {
        let r2 = [(8, 5), (6, 4), (7, 3), (1, 2)];
        assert_eq!(numbered(8, &[(1, 2), (7, 3), (8, 5), (6, 4)]), r2);
        assert_eq!(numbered(7, &[(1, 2), (7, 3), (6, 4)]), &r2[1..]);
        // The second cycle of a double round robin: colours reversed.
        assert_eq!(
            numbered(8, &[(2, 1), (3, 7), (5, 8), (4, 6)]),
            [(5, 8), (4, 6), (3, 7), (2, 1)]
        );
    }

    #[test]
    fn a_swiss_round_is_refused_naming_the_game() {
        let mut r = RoundPairings {
            players: 8,
            pairings: [(1, 5), (6, 2), (3, 7), (8, 4)]
                .iter()
                .zip(10..)
                .map(|(&(w, b), line)| Pairing {
                    white_rank: w,
                    black_rank: b,
                    line,
                    ..Pairing::default()
                })
                .collect(),
            ..RoundPairings::default()
        };
        assert!(!fits(&r));
        let e = number_boards(&mut r, "open.trf").unwrap_err().to_string();
        assert!(
            e.contains("open.trf") && e.contains("line 11") && e.contains("6-2"),
            "{e}"
        );
    }
}
