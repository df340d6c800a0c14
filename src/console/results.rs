//! The round's final results
//! (confirmed, corrected, forfeits) written into the round's column of the
//! pairings' TRF-16 (`[arbiter] pairings`), as `eboard results` writes them
//! from `/console/results.csv` (issue 24.9; `docs/console.md`, "The round's
//! paperwork"), for Swiss-Manager or Vega. Any role of the console. The
//! games left blank (not final) are named in the header
//! `X-Eboard-Left-Blank`; the games neither of whose players is in the file
//! (a side game, another group's) are left out and named in
//! `X-Eboard-Not-In-File` (the page shows both).

use super::refusal::{refuse, Refusal};
use super::state::Console;
use crate::event::results::{from_states, the_round, write_trf};
use serde_json::Value;

/// The pairings' TRF-16 with a round's results written in.
#[derive(Debug, Clone)]
pub struct TrfResults {
    /// The file's bytes, in the pairings' own encoding.
    pub body: Vec<u8>,
    /// Whether the pairings were Latin-1 (older pairing programs'), and so is `body`.
    pub latin1: bool,
    /// The round written.
    pub round: u32,
    /// The games left blank (not final), each `game (why)`, `; `-separated.
    pub blank: String,
    /// The games not in the pairings, the same way.
    pub outside: String,
    /// How many results were written.
    pub written: usize,
}

/// The results of `round` (default: the round of the games in `states`,
/// the boards' states) written into `console`'s pairings file. Refusals:
/// 404 without a pairings file or a game, 422 for games of several rounds
/// without `round` or a pairings file that cannot take them, 500 when the
/// file cannot be read (named).
pub fn results_trf_for(
    console: &Console,
    states: &[Value],
    round: Option<u32>,
) -> Result<TrfResults, Refusal> {
    let Some(path) = console.pairings.as_ref() else {
        return Err(refuse(
            404,
            "this console knows no pairings file: set [arbiter] pairings = \"round.trf\" \
             (the TRF-16 the pairing program wrote) in its config, or download results.csv \
             and run `eboard results PAIRINGS.trf --results results.csv`",
        ));
    };
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| refuse(500, &format!("reading the pairings {name}: {e}")))?;
    // TRF files of older programs are Latin-1: read and written back as such.
    let (trf, latin1) = crate::event::results::decode_trf(bytes);
    let games = from_states(states);
    let round = match round.map_or_else(|| the_round(&games), Ok) {
        Ok(r) => r,
        Err(rounds) if rounds.is_empty() => return Err(refuse(404, "no game on this console yet")),
        Err(rounds) => {
            return Err(refuse(
                422,
                &format!("games of rounds {rounds:?}: say which, ?round=N"),
            ))
        }
    };
    let w = write_trf(&trf, &name, round, &games).map_err(|e| refuse(422, &e.to_string()))?;
    let named = |v: &[(String, String)]| {
        v.iter()
            .map(|(g, why)| format!("{g} ({why})"))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let (blank, outside) = (named(&w.skipped), named(&w.outside));
    let body = crate::event::results::encode_trf(w.text, latin1);
    tracing::info!(round, written = w.written.len(), blank = %blank, outside = %outside, "results.trf served");
    Ok(TrfResults {
        body,
        latin1,
        round,
        blank,
        outside,
        written: w.written.len(),
    })
}
