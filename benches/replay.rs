//! Replay throughput: trace records per second and the real-time factor
//! (trace duration ÷ processing time), single core, over the real games of
//! `../shared/data/pgn` simulated once (occupancy sensing, noisy hands), or
//! over the built-in demo game when the corpus is absent.
//!
//! `cargo bench --bench replay`. Figures are written in docs/dev/performance.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use eboard::controller::replay;
use eboard::sim::{simulate, SimOptions};
use eboard::trace::{Sensing, Trace};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

fn corpus() -> Vec<Trace> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pgn");
    let files = [
        "lichess_db_2025-05_438games.pgn",
        "twic1599_1110games.pgn",
        "engine_threefold_188games.pgn",
    ];
    let mut texts = Vec::new();
    for f in files {
        if let Ok(t) = std::fs::read_to_string(dir.join(f)) {
            texts.push(t);
        }
    }
    if texts.is_empty() {
        eprintln!("corpus absent: benchmarking the built-in demo game");
        texts.push(include_str!("../src/data/opera-game.pgn").to_owned());
    }
    let mut traces = Vec::new();
    for t in &texts {
        for (i, g) in eboard::pgn::read_games(t).expect("PGN").iter().enumerate() {
            let opts = SimOptions {
                seed: i as u64,
                sensing: Sensing::Occupancy,
                frames: false,
            };
            traces.push(simulate(g, &opts).expect("simulate"));
        }
    }
    traces
}

fn bench(c: &mut Criterion) {
    let traces = corpus();
    let records: u64 = traces.iter().map(|t| t.records.len() as u64).sum();
    let duration_ms: u64 = traces.iter().map(|t| t.duration_ms()).sum();
    let texts: Vec<Vec<u8>> = traces
        .iter()
        .map(|t| {
            let mut v = Vec::new();
            t.write(&mut v).unwrap();
            v
        })
        .collect();
    let bytes: usize = texts.iter().map(Vec::len).sum();

    // One plain timed pass for the real-time factor, printed once; a pass
    // that replayed no move measured nothing (issue 28).
    let start = Instant::now();
    let mut moves = 0;
    for t in &texts {
        let tr = Trace::read(&t[..]).unwrap();
        let (arbiter, events) = replay(&tr, None, None).unwrap();
        moves += arbiter.moves().len();
        black_box(events);
    }
    let secs = start.elapsed().as_secs_f64();
    assert!(
        records > 0 && moves > 0,
        "replayed {moves} moves of {records} records: nothing to measure"
    );
    eprintln!(
        "load average {} (1, 5, 15 min; running/all) while measuring; {moves} moves replayed",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    eprintln!(
        "corpus: {} games, {records} records, {:.1} h of play, {:.1} MB of JSONL; parse+replay {:.3} s = {:.0} records/s, real-time factor {:.0}x",
        traces.len(),
        duration_ms as f64 / 3.6e6,
        bytes as f64 / 1e6,
        secs,
        records as f64 / secs,
        duration_ms as f64 / 1000.0 / secs
    );

    let mut g = c.benchmark_group("replay");
    g.sample_size(10);
    g.throughput(Throughput::Elements(records));
    g.bench_function("corpus parse+replay", |b| {
        b.iter(|| {
            for t in &texts {
                let tr = Trace::read(&t[..]).unwrap();
                black_box(replay(&tr, None, None).unwrap());
            }
        })
    });
    g.bench_function("corpus replay (parsed)", |b| {
        b.iter(|| {
            for tr in &traces {
                black_box(replay(tr, None, None).unwrap());
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
