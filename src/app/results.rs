//! `eboard results`: a round's results back to the pairing program
//! (`docs/event.md`, "Results back to the pairing program"): the results
//! CSV the console serves (`GET /console/results.csv`, downloaded from the
//! console) written into the round's column of the pairings' TRF-16
//! ([`crate::event::results::write_trf`]), for Swiss-Manager or Vega.

use super::Anyhow;
use crate::event::results::{read_csv, the_round, write_trf};
use anyhow::{bail, Context};
use std::path::PathBuf;

/// The arguments of `eboard results`.
#[derive(Debug, clap::Args)]
pub struct ResultsArgs {
    /// The TRF-16 file the round's pairings came from (the one given to
    /// `eboard event`).
    pub trf: PathBuf,
    /// The results: the console's `/console/results.csv` (`-`: standard input).
    #[arg(long, value_name = "CSV")]
    pub results: PathBuf,
    /// The round (default: the round of the results).
    #[arg(long, value_name = "N")]
    pub round: Option<u32>,
    /// Where the TRF with the results goes (`-`, the default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Fail (exit 2) when a game of the round has no final result yet
    /// (provisional, still playing) instead of leaving it blank.
    #[arg(long)]
    pub complete: bool,
}

/// Runs `eboard results`: the games written and those left blank (with
/// why) on standard error; the TRF to `--output`.
pub fn results(a: ResultsArgs) -> anyhow::Result<()> {
    let trf_name = a.trf.display().to_string();
    let bytes =
        std::fs::read(&a.trf).with_context(|| format!("reading the pairings {trf_name}"))?;
    // TRF files of older programs are Latin-1: read and written back as such.
    let (trf, latin1) = crate::event::results::decode_trf(bytes);
    let (csv, csv_name) = if a.results.as_os_str() == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)?;
        (s, "standard input".to_owned())
    } else {
        let name = a.results.display().to_string();
        (
            std::fs::read_to_string(&a.results)
                .with_context(|| format!("reading the results {name}"))?,
            name,
        )
    };
    let games = read_csv(&csv, &csv_name).anyhow()?;
    let round = match a.round.map_or_else(|| the_round(&games), Ok) {
        Ok(r) => r,
        Err(rounds) if rounds.is_empty() => bail!("{csv_name}: no game"),
        Err(rounds) => bail!("{csv_name}: games of rounds {rounds:?}: say which with --round"),
    };
    // Games of another round are never written into this one's column: a
    // file of round 4 given with --round 3 is refused, not written back
    // unchanged as if round 3 had no result.
    let others: Vec<String> = games
        .iter()
        .filter(|g| g.round != round)
        .map(|g| g.game())
        .collect();
    if games.is_empty() {
        bail!("{csv_name}: no game");
    }
    if others.len() == games.len() {
        bail!(
            "{csv_name}: no game of round {round} (its games: {}): give the results of round {round}, or their round with --round",
            others.join(", ")
        );
    }
    if !others.is_empty() {
        tracing::warn!(
            round,
            "left out, not games of round {round}: {}",
            others.join(", ")
        );
    }
    let w = write_trf(&trf, &trf_name, round, &games).anyhow()?;
    for (game, why) in &w.skipped {
        tracing::warn!(game, "left blank: {why}");
    }
    for (game, who) in &w.outside {
        tracing::warn!(game, "left out, not a game of {trf_name}: {who}");
    }
    if a.complete && !w.skipped.is_empty() {
        bail!(
            "round {round}: {} game(s) without a final result: {}",
            w.skipped.len(),
            w.skipped
                .iter()
                .map(|(g, why)| format!("{g} ({why})"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let out = crate::event::results::encode_trf(w.text, latin1);
    match &a.output {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(p, &out).with_context(|| format!("writing {}", p.display()))?;
        }
        _ => std::io::Write::write_all(&mut std::io::stdout(), &out)?,
    }
    tracing::info!(
        round,
        written = w.written.len(),
        blank = w.skipped.len(),
        "results written into the round's column: {}",
        w.written.join(", ")
    );
    Ok(())
}
