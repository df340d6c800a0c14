//! Points, Buchholz and Sonneborn-Berger from a cross-table, as FIDE's
//! Play-Off and Tie-Break Regulations define them (FIDE Handbook C.07, the
//! version approved by the FIDE Council on 2 February 2026 and in force
//! from 1 March 2026, `handbook.fide.com/chapter/TieBreakRegulations032026`):
//!
//! - **Buchholz (BH), art. 8.1**: the sum of the scores of each of the
//!   participant's opponents.
//! - **Sonneborn-Berger (SB), art. 9.1**: for each round, the opponent's
//!   score multiplied by the points scored against that opponent, added up.
//! - **Unplayed rounds in a Swiss event, art. 16**: a *requested bye* is a
//!   half- or zero-point bye (16.1.1; a round after a withdrawal is a
//!   zero-point bye); a *voluntary unplayed round* (VUR) is a requested bye
//!   or a forfeit loss (16.1.2). The categories (16.2): 16.2.1 pairing-
//!   allocated or full-point byes, 16.2.2 forfeit wins, 16.2.3 requested
//!   byes followed by at least one round that is not a VUR, 16.2.4 forfeit
//!   losses, 16.2.5 requested byes followed only by VURs or in the last
//!   round. For the opponents' tie-breaks a participant's score is
//!   *adjusted* (16.3): rounds of 16.2.1-16.2.4 count the points awarded,
//!   rounds of 16.2.5 count as draws. For the participant's own tie-break
//!   (16.4) each unplayed round is a game against a dummy, the result the
//!   points awarded, the dummy's score the participant's own score but not
//!   above the scheduled opponent's adjusted score for a forfeit (16.4.1),
//!   nor above a draw's points times the number of rounds for the other
//!   unplayed rounds (16.4.2).
//! - **Pre-determined pairings (a round robin), art. 15.2**: forfeits count
//!   as regular games; article 16 does not apply. A round robin's bye (an
//!   odd number of players) adds nothing.
//!
//! Standings *during* an event count the rounds so far: "the number of
//! rounds" of 16.4.2 and "the last round" of 16.2.5 are the rounds counted,
//! as FIDE's tie-break checker does for a given round (Otto Milvang's
//! TieBreakServer, `tiebreak.py`: the draw cap is the points for a draw
//! times the current round). A game of the current round whose result is
//! not final yet ([`Kind::Pending`]) counts for nobody: no points, no
//! opponent's score, no dummy.
//!
//! Units: points and Buchholz in half points, Sonneborn-Berger in quarter
//! points (half points times half points), so every sum is exact.

/// What a participant's round was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A game played over the board (TRF-16 `1 = 0`, unrated `W D L`).
    Played,
    /// A forfeit win (`+`), art. 16.2.2.
    ForfeitWin,
    /// A forfeit loss (`-`), art. 16.2.4: a VUR.
    ForfeitLoss,
    /// A pairing-allocated (`U`) or full-point (`F`) bye, art. 16.2.1.
    FullBye,
    /// A requested bye: half-point (`H`), zero-point (`Z`) or not paired
    /// at all (a blank block: art. 16.1.1's round after a withdrawal).
    RequestedBye,
    /// A game of the current round without a final result yet.
    Pending,
}

/// One participant's round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The (scheduled) opponent, an index into the table.
    pub opp: Option<usize>,
    /// What the round was.
    pub kind: Kind,
    /// The points scored in it, half points.
    pub halves: u32,
}

impl Entry {
    /// A voluntary unplayed round (art. 16.1.2): a requested bye or a
    /// forfeit loss.
    fn is_vur(&self) -> bool {
        matches!(self.kind, Kind::RequestedBye | Kind::ForfeitLoss)
    }
}

/// Each participant's score, half points (pending games count nothing).
pub fn scores(table: &[Vec<Entry>]) -> Vec<u32> {
    table
        .iter()
        .map(|rounds| {
            rounds
                .iter()
                .filter(|e| e.kind != Kind::Pending)
                .map(|e| e.halves)
                .sum()
        })
        .collect()
}

/// Each participant's score as the opponents' tie-breaks count it (art.
/// 16.3, Swiss only): a requested bye followed only by VURs, or in the last
/// round counted (16.2.5), counts as a draw; everything else as awarded.
pub fn adjusted(table: &[Vec<Entry>]) -> Vec<u32> {
    table
        .iter()
        .map(|rounds| {
            rounds
                .iter()
                .enumerate()
                .map(|(i, e)| match e.kind {
                    Kind::Pending => 0,
                    Kind::RequestedBye if rounds[i + 1..].iter().all(Entry::is_vur) => 1,
                    _ => e.halves,
                })
                .sum()
        })
        .collect()
}

/// Buchholz (half points) and Sonneborn-Berger (quarter points) of every
/// participant of `table` after `rounds` rounds; `swiss` applies art. 16,
/// otherwise art. 15.2 (a round robin).
pub fn buchholz_and_sonneborn_berger(
    table: &[Vec<Entry>],
    rounds: u32,
    swiss: bool,
) -> Vec<(u32, u32)> {
    let own = scores(table);
    let adj = if swiss { adjusted(table) } else { own.clone() };
    table
        .iter()
        .enumerate()
        .map(|(p, entries)| {
            let (mut bh, mut sb) = (0u32, 0u32);
            for e in entries {
                let opponent = match (e.kind, e.opp) {
                    (Kind::Pending, _) => continue,
                    (Kind::Played, Some(o)) => adj[o],
                    // Art. 15.2: a round robin's forfeits are games.
                    (Kind::ForfeitWin | Kind::ForfeitLoss, Some(o)) if !swiss => adj[o],
                    // A round robin's bye: nothing.
                    _ if !swiss => continue,
                    // Art. 16.4.1: a forfeit's dummy, capped by the
                    // scheduled opponent's adjusted score.
                    (Kind::ForfeitWin | Kind::ForfeitLoss, Some(o)) => own[p].min(adj[o]),
                    // Art. 16.4.2: a draw's points times the rounds.
                    _ => own[p].min(rounds),
                };
                bh += opponent;
                sb += opponent * e.halves;
            }
            (bh, sb)
        })
        .collect()
}
