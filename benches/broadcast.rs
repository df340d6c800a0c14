//! Broadcast latency: from a completed move (the clock press, in round
//! time) to its arrival at every one of many SSE clients of a relay that
//! merges many board daemons, all on loopback in one process.
//!
//! `cargo bench --bench broadcast` — knobs (environment):
//! `EBOARD_BENCH_BOARDS` (20), `EBOARD_BENCH_CLIENTS` (1000),
//! `EBOARD_BENCH_SPEED` (10: round time runs 10× wall time, so each board's
//! 276-second Opera Game takes about 28 s). Loads are bounded: one game per
//! board, a fixed number of clients, a 120 s limit.

use eboard::broadcast::delay::Channel;
use eboard::config::Config;
use eboard::daemon::{unix_now_ms, Daemon, RunOptions};
use eboard::server::{router, AppState, ArbiterAccess};
use eboard::trace::Record;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A source that waits for the go, then plays the records shifted by the
/// round time of the go.
struct Gated {
    go: mpsc::Receiver<u64>,
    offset: Option<u64>,
    records: std::vec::IntoIter<Record>,
}

impl Iterator for Gated {
    type Item = Result<Record, String>;
    fn next(&mut self) -> Option<Self::Item> {
        let offset = *self
            .offset
            .get_or_insert_with(|| self.go.recv().unwrap_or(0));
        let mut r = self.records.next()?;
        r.t += offset;
        Some(Ok(r))
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

fn main() {
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
    let mut clocks = std::collections::HashMap::new();
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
            public: d.feed.public.clone(),
            arbiter: Some(ArbiterAccess {
                channel: d.feed.arbiter.clone(),
                token: None,
                name: "bench".into(),
                commands: d.commands.clone(),
            }),
        });
        let l = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        urls.push(format!("http://{}", l.local_addr().unwrap()));
        rt.spawn(eboard::server::serve(l, app));
        clocks.insert(format!("1.{b}"), d.clock);
        gos.push(go_tx);
        daemons.push(d);
    }

    // The relay and its server.
    let relay = Arc::new(Channel::new());
    eboard::broadcast::relay::start(rt.handle(), urls, relay.clone()).unwrap();
    let l = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let relay_addr = l.local_addr().unwrap().to_string();
    rt.spawn(eboard::server::serve(
        l,
        router(AppState {
            public: relay,
            arbiter: None,
        }),
    ));

    // The clients: latency of every move at every client, µs.
    let clocks = Arc::new(clocks);
    let latencies = Arc::new(Mutex::new(Vec::with_capacity(moves_expected * clients)));
    let received = Arc::new(Mutex::new(vec![0usize; clients]));
    let connected = Arc::new(tokio::sync::Semaphore::new(0));
    for c in 0..clients {
        let (addr, clocks, latencies, received, connected) = (
            relay_addr.clone(),
            clocks.clone(),
            latencies.clone(),
            received.clone(),
            connected.clone(),
        );
        rt.spawn(async move {
            let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
            s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut lines = BufReader::new(s).lines();
            let mut mine = Vec::with_capacity(moves_expected);
            let mut announced = false;
            while let Ok(Some(line)) = lines.next_line().await {
                if !announced {
                    announced = true;
                    connected.add_permits(1);
                }
                let Some(data) = line.strip_prefix("data: ") else {
                    continue;
                };
                if !data.contains("\"type\":\"move\"") {
                    continue;
                }
                let now_us = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_micros() as u64;
                let v: serde_json::Value = serde_json::from_str(data).unwrap();
                let clock = clocks[v["game"].as_str().unwrap()];
                let t = v["t"].as_u64().unwrap();
                let done_us =
                    clock.started_at_unix_ms() * 1000 + (t as f64 * 1000.0 / speed) as u64;
                mine.push(now_us.saturating_sub(done_us));
                if mine.len() == moves_expected {
                    break;
                }
            }
            received.lock().unwrap()[c] = mine.len();
            latencies.lock().unwrap().extend(mine);
        });
    }
    rt.block_on(async {
        let _ = tokio::time::timeout(
            Duration::from_secs(60),
            connected.acquire_many(clients as u32),
        )
        .await;
    });
    // Go: every board starts its game now.
    let started = Instant::now();
    for (go, d) in gos.iter().zip(&daemons) {
        let _ = go.send(d.clock.now_ms() + 500);
    }
    let limit = Duration::from_secs(120);
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let r = received.lock().unwrap();
        let all = r.iter().filter(|n| **n > 0).count() == clients
            && latencies.lock().unwrap().len() >= moves_expected * clients;
        if all || started.elapsed() > limit {
            break;
        }
    }
    let mut lat = latencies.lock().unwrap().clone();
    lat.sort_unstable();
    let r = received.lock().unwrap().clone();
    let complete = r.iter().filter(|n| **n == moves_expected).count();
    println!(
        "broadcast latency, move completed → SSE client of the relay (loopback, {} cores shared)",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "  boards {boards}, clients {clients}, speed ×{speed}, moves {moves_expected}, deliveries {} (clients complete: {complete}/{clients})",
        lat.len()
    );
    println!(
        "  median {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms; run {:.1} s; at {}",
        percentile(&lat, 0.5),
        percentile(&lat, 0.9),
        percentile(&lat, 0.99),
        lat.last().map_or(f64::NAN, |m| *m as f64 / 1000.0),
        started.elapsed().as_secs_f64(),
        unix_now_ms()
    );
    std::process::exit(0);
}
