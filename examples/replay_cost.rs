//! Cost of a trace record in the replay, for the instruction counts in
//! docs/dev/performance.md (issue 28; run under callgrind by
//! `scripts/replay-cost`).
//!
//! ```text
//! replay_cost [GAMES] [parsed]
//! ```
//!
//! The first GAMES games (default 588) of the real games of
//! `../shared/data/pgn` (the replay bench's files, in its order) are
//! simulated once (occupancy sensing, noisy hands) and written as JSON
//! Lines; [`parse_and_replay`] then reads each trace and replays it, as
//! `eboard replay` does. Callgrind's inclusive count of that function over
//! the records printed is the cost per record. With `parsed`, the replay
//! of traces already read ([`replay_only`]).

use eboard::controller::replay;
use eboard::sim::{simulate, SimOptions};
use eboard::trace::{Sensing, Trace};
use std::hint::black_box;
use std::path::PathBuf;

#[inline(never)]
fn parse_and_replay(texts: &[Vec<u8>]) -> usize {
    let mut moves = 0;
    for t in texts {
        let tr = Trace::read(&t[..]).expect("trace");
        let (arbiter, events) = replay(&tr, None, None).expect("replay");
        moves += arbiter.moves().len();
        black_box(events);
    }
    moves
}

#[inline(never)]
fn replay_only(traces: &[Trace]) -> usize {
    let mut moves = 0;
    for tr in traces {
        let (arbiter, events) = replay(tr, None, None).expect("replay");
        moves += arbiter.moves().len();
        black_box(events);
    }
    moves
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(588);
    let parsed = args.next().as_deref() == Some("parsed");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pgn");
    let mut traces = Vec::new();
    for f in [
        "lichess_db_2025-05_438games.pgn",
        "twic1599_1110games.pgn",
        "engine_threefold_188games.pgn",
    ] {
        let text = std::fs::read_to_string(dir.join(f)).expect("the corpus (../shared/data/pgn)");
        for (i, g) in eboard::pgn::read_games(&text)
            .expect("PGN")
            .iter()
            .enumerate()
        {
            if traces.len() == n {
                break;
            }
            let opts = SimOptions {
                seed: i as u64,
                sensing: Sensing::Occupancy,
                frames: false,
            };
            traces.push(simulate(g, &opts).expect("simulate"));
        }
    }
    let records: usize = traces.iter().map(|t| t.records.len()).sum();
    let ms: u64 = traces.iter().map(Trace::duration_ms).sum();
    let texts: Vec<Vec<u8>> = traces
        .iter()
        .map(|t| {
            let mut v = Vec::new();
            t.write(&mut v).expect("write");
            v
        })
        .collect();
    let cpu0 = thread_cpu_s();
    let moves = if parsed {
        replay_only(&traces)
    } else {
        parse_and_replay(&texts)
    };
    let cpu = thread_cpu_s() - cpu0;
    assert!(moves > 0, "nothing replayed");
    println!(
        "{} games, {records} records, {moves} moves, {:.1} h of play; \
         {cpu:.3} s of CPU (this thread), real-time factor {:.0}x",
        traces.len(),
        ms as f64 / 3.6e6,
        ms as f64 / 1000.0 / cpu
    );
}

/// CPU time of this thread, s (not wall time: the machine is shared).
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}
