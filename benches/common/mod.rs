//! Shared by the broadcast and MQTT latency benchmarks: knobs, a gated
//! record source, and SSE clients measuring move latency.

use eboard::daemon::{unix_now_ms, RoundClock};
use eboard::trace::Record;
use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A knob from the environment.
pub fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A source that waits for the go, then plays the records shifted by the
/// round time of the go.
pub struct Gated {
    pub go: mpsc::Receiver<u64>,
    pub offset: Option<u64>,
    pub records: std::vec::IntoIter<Record>,
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

/// SSE clients of `/events`, each recording the latency of every move from
/// its completion (round time of the game's clock) to arrival, µs.
pub struct SseClients {
    latencies: Arc<Mutex<Vec<u64>>>,
    received: Arc<Mutex<Vec<usize>>>,
    connected: Arc<tokio::sync::Semaphore>,
    clients: usize,
    moves_expected: usize,
}

impl SseClients {
    /// Connects `clients` clients, spread over `addrs`; `clocks` maps a
    /// game's `"round.board"` to its daemon's round clock.
    pub fn spawn(
        rt: &tokio::runtime::Runtime,
        addrs: &[String],
        clients: usize,
        clocks: HashMap<String, RoundClock>,
        speed: f64,
        moves_expected: usize,
    ) -> SseClients {
        let clocks = Arc::new(clocks);
        let latencies = Arc::new(Mutex::new(Vec::with_capacity(moves_expected * clients)));
        let received = Arc::new(Mutex::new(vec![0usize; clients]));
        let connected = Arc::new(tokio::sync::Semaphore::new(0));
        for c in 0..clients {
            let (addr, clocks, latencies, received, connected) = (
                addrs[c % addrs.len()].clone(),
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
        SseClients {
            latencies,
            received,
            connected,
            clients,
            moves_expected,
        }
    }

    /// Waits (at most 60 s) until every client has its stream open.
    pub fn wait_connected(&self, rt: &tokio::runtime::Runtime) {
        rt.block_on(async {
            let _ = tokio::time::timeout(
                Duration::from_secs(60),
                self.connected.acquire_many(self.clients as u32),
            )
            .await;
        });
    }

    /// Waits until every client got every move, or `limit` has passed.
    pub fn wait_done(&self, started: Instant, limit: Duration) {
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let done = self.latencies.lock().unwrap().len() >= self.moves_expected * self.clients;
            if done || started.elapsed() > limit {
                break;
            }
        }
    }

    /// Prints the figures: `title`, then `what` (the set-up) with the counts.
    pub fn report(&self, title: &str, what: &str, started: Instant) {
        let mut lat = self.latencies.lock().unwrap().clone();
        lat.sort_unstable();
        let complete = self
            .received
            .lock()
            .unwrap()
            .iter()
            .filter(|n| **n == self.moves_expected)
            .count();
        println!(
            "{title} (loopback, {} cores shared)",
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
        println!(
            "  {what}, moves {}, deliveries {} (clients complete: {complete}/{})",
            self.moves_expected,
            lat.len(),
            self.clients
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
    }
}
