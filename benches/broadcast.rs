//! Broadcast latency: from a completed move (the clock press, in round
//! time) to its arrival at every one of many SSE clients of a relay that
//! merges many board daemons, all on loopback in one process.
//!
//! `cargo bench --bench broadcast` — knobs (environment):
//! `EBOARD_BENCH_BOARDS` (20), `EBOARD_BENCH_CLIENTS` (1000),
//! `EBOARD_BENCH_SPEED` (10: round time runs 10× wall time, so each board's
//! 276-second Opera Game takes about 28 s). Loads are bounded: one game per
//! board, a fixed number of clients, a 120 s limit.
//!
//! `EBOARD_BENCH_HOG`: `0` runs on the machine as it is, `1` with one core
//! kept busy by a thread of the bench (a CPU hog: the contention a Pi has
//! beside the board); unset, both runs, one after the other (issue 28).
//! Every run prints the load and the busiest other processes beside its
//! figures, and fails (exit non-zero) when a client missed a move.

mod common;

use common::{env, Gated};
use eboard::broadcast::delay::Channel;
use eboard::config::Config;
use eboard::console::board::ArbiterAccess;
use eboard::daemon::{Daemon, RunOptions};
use eboard::server::{router, AppState};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

fn main() {
    let Ok(hog) = std::env::var("EBOARD_BENCH_HOG") else {
        // Both runs, each in a process of its own.
        for hog in ["0", "1"] {
            let status = std::process::Command::new(std::env::current_exe().unwrap())
                .args(std::env::args().skip(1))
                .env("EBOARD_BENCH_HOG", hog)
                .status()
                .unwrap();
            assert!(
                status.success(),
                "the run with EBOARD_BENCH_HOG={hog} failed"
            );
        }
        return;
    };
    let hog = hog == "1";
    // The stages inside the product (`common::stages`), for the breakdown.
    common::stages::install();
    let boards = env("EBOARD_BENCH_BOARDS", 20);
    let clients = env("EBOARD_BENCH_CLIENTS", 1000);
    let speed = env("EBOARD_BENCH_SPEED", 10) as f64;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let pgn = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/data/opera-game.pgn"
    ))
    .unwrap();
    let game = eboard::pgn::read_games(&pgn).unwrap().remove(0);

    // The board daemons, each with its server.
    let mut gos = Vec::new();
    let mut urls = Vec::new();
    let clocks = common::Clocks::default();
    let mut daemons = Vec::new();
    let mut moves_expected = 0;
    for b in 1..=boards as u32 {
        let trace = eboard::sim::simulate(
            &game,
            &eboard::sim::SimOptions {
                seed: u64::from(b),
                ..Default::default()
            },
        )
        .unwrap();
        moves_expected += 33;
        let mut cfg = Config::default();
        cfg.game.board = b;
        cfg.event.name = Some("Benchmark".into());
        let (go_tx, go_rx) = mpsc::channel();
        let d = Daemon::start(
            RunOptions {
                config: cfg,
                delay_s: 0,
                journal: None,
                source: Box::new(Gated {
                    go: go_rx,
                    offset: None,
                    records: trace.records.clone().into_iter(),
                }),
                source_header: Some(trace.header.clone()),
                source_is_recording: true,
                speed,
                on_event: None,
                clock_device: None,
                source_is_live: false,
            },
            rt.handle(),
        )
        .unwrap();
        let app = router(AppState {
            console: None,
            public: d.feed.public.clone(),
            arbiter: Some(ArbiterAccess {
                channel: d.feed.arbiter.clone(),
                token: None,
                name: "bench".into(),
                commands: d.commands.clone(),
                player: None,
            }),
        });
        let l = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        urls.push(format!("http://{}", l.local_addr().unwrap()));
        rt.spawn(eboard::server::serve(l, app, loopback_listening()));
        clocks.lock().unwrap().insert(format!("1.{b}"), d.clock);
        gos.push(go_tx);
        daemons.push(d);
    }

    // The relay and its server.
    let relay = Arc::new(Channel::new());
    eboard::broadcast::relay::start(rt.handle(), urls, relay.clone()).unwrap();
    let relay_probe = relay.clone();
    let l = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let relay_addr = l.local_addr().unwrap().to_string();
    rt.spawn(eboard::server::serve(
        l,
        router(AppState {
            console: None,
            public: relay,
            arbiter: None,
        }),
        loopback_listening(),
    ));

    // The clients: latency of every move at every client, µs.
    let specs = (0..clients)
        .map(|_| common::ClientSpec {
            addr: relay_addr.clone(),
            path: "/events".into(),
            moves_expected,
        })
        .collect();
    let sse = common::SseClients::spawn(&rt, specs, clocks.clone(), speed);
    sse.wait_connected(&rt);
    // Stage probes (issue 28 §5), in this process: each board's public
    // feed (after the board loop, the delay line and the snapshot's
    // serialisation) and the relay's merged feed (after the boards' HTTP
    // streams and the relay's reading); the clients' figure adds the
    // relay's fan-out to its streams, the socket writes and the reading.
    let at_boards: Vec<_> = daemons
        .iter()
        .map(|d| common::stage_probe(&rt, &d.feed.public, clocks.clone(), speed, 33))
        .collect();
    let at_relay = common::stage_probe(&rt, &relay_probe, clocks.clone(), speed, moves_expected);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hogging = hog.then(|| common::cpu_hog(stop.clone()));
    // Go: every board starts its game now.
    let started = Instant::now();
    for (go, d) in gos.iter().zip(&daemons) {
        let _ = go.send(d.clock.now_ms() + 500);
    }
    sse.wait_done(started, Duration::from_secs(120));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    if let Some(h) = hogging {
        let _ = h.join();
    }
    sse.report(
        "broadcast latency, move completed → SSE client of the relay",
        &format!(
            "boards {boards}, clients {clients}, speed ×{speed}, {}",
            if hog {
                "one core kept busy by a CPU hog thread of the bench"
            } else {
                "no hog"
            }
        ),
        started,
    );
    let at_boards: Vec<common::Probe> = at_boards
        .iter()
        .flat_map(|p| p.lock().unwrap().clone())
        .collect();
    let at_relay = at_relay.lock().unwrap().clone();
    print_stages(
        &clocks,
        speed,
        clients,
        &at_boards,
        &at_relay,
        &sse.latencies_us(),
    );
    std::process::exit(0);
}

/// The latency by stage (issue 28 §5): for every move, from its completion
/// (the clock press, round time) to the end of each stage, in the order a
/// move goes: each line adds the work it names to the line before. Lines
/// 1, 2 and 5 are the product's own `eboard::stage` events
/// (`common::stages`), 3 and 4 the probes of the board's and the relay's
/// channels, 6 the clients.
fn print_stages(
    clocks: &common::Clocks,
    speed: f64,
    clients: usize,
    at_boards: &[common::Probe],
    at_relay: &[common::Probe],
    at_clients: &[u64],
) {
    let marks = common::stages::MARKS.lock().unwrap().clone();
    let clocks = clocks.lock().unwrap().clone();
    let done_us = |m: &common::stages::Mark| {
        clocks
            .get(&format!("{}.{}", m.round, m.board))
            .map(|c| c.started_at_unix_ms() * 1000 + (m.t as f64 * 1000.0 / speed) as u64)
    };
    let by_stage = |stage: u64| -> Vec<u64> {
        marks
            .iter()
            .filter(|m| m.stage == stage)
            .filter_map(|m| done_us(m).map(|d| m.at_us.saturating_sub(d)))
            .collect()
    };
    // Stage 5 names the relay's message id: the move's completion from the
    // relay's probe of the same message.
    let relay_done: std::collections::HashMap<u64, u64> =
        at_relay.iter().map(|p| (p.id, p.done_us)).collect();
    let fanned: Vec<u64> = marks
        .iter()
        .filter(|m| m.stage == 5)
        .filter_map(|m| relay_done.get(&m.id).map(|d| m.at_us.saturating_sub(*d)))
        .collect();
    let lat = |p: &[common::Probe]| p.iter().map(|p| p.lat_us).collect::<Vec<u64>>();
    println!("  latency by stage, press → the end of each stage (median / p90 / p99 / max; each line adds what it names):");
    let rows: [(&str, Vec<u64>); 6] = [
        ("1. decided by the board loop (the record's wait for the loop's thread and a core, the arbiter)", by_stage(1)),
        ("2. its messages built (snapshot, PGN and messages serialised; no journal here)", by_stage(2)),
        ("3. on the board's public feed (the delay line at delay 0, a task's wake-up)", lat(at_boards)),
        ("4. on the relay's merged feed (the board's SSE write, loopback, the relay's read, parse, re-publication)", lat(at_relay)),
        (
            "5. taken from the relay's channel by each client's stream task (the fan-out to the streams' tasks)",
            fanned,
        ),
        (
            "6. read by each client (SSE framing, the socket writes, loopback, the client's read)",
            at_clients.to_vec(),
        ),
    ];
    for (what, v) in rows {
        println!("    {what}: {}", common::summary(&v));
    }
    println!("    (rows 5 and 6: every move at each of the {clients} clients)");
}

/// Every bench client comes from 127.0.0.1: no per-address limit (as
/// behind a reverse proxy, docs/server.md), plain HTTP.
fn loopback_listening() -> eboard::server::Listening {
    eboard::server::Listening {
        limits: eboard::server::Limits {
            per_address: 0,
            ..eboard::server::Limits::default()
        },
        tls: None,
    }
}
