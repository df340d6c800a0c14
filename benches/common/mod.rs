//! Shared by the broadcast, MQTT and first-paint benchmarks: knobs, a
//! gated record source, SSE clients measuring move latency, a round of
//! boards and a relay over them (`round`).

#[allow(dead_code)] // used by the broadcast bench only
pub mod stages;

#[allow(dead_code)] // the round's boards, by every bench; its relay, not by the MQTT bench
pub mod round;

use eboard::daemon::{unix_now_ms, RoundClock};
use eboard::trace::Record;
use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What else the machine is doing: the load averages and the processes
/// taking the most CPU now (besides this one), printed beside every
/// figure (issue 28: a figure on a shared machine says what it shared).
pub fn load() -> String {
    let avg = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    let me = std::process::id().to_string();
    let top = std::process::Command::new("ps")
        .args(["-eo", "pid=,pcpu=,comm=", "--sort=-pcpu"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .map(str::split_whitespace)
                .filter_map(|mut f| Some((f.next()?, f.next()?, f.next()?)))
                .filter(|(pid, cpu, _)| *pid != me && *cpu != "0.0")
                .take(5)
                .map(|(_, cpu, comm)| format!("{comm} {cpu}%"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    format!(
        "load average {avg} (1, 5, 15 min; running/all); busiest others: {}",
        if top.is_empty() { "none" } else { &top }
    )
}

/// A thread of the bench that keeps one core busy until `stop` is set:
/// the contention a Pi has beside the board (speech, the sensor scan, a
/// relay on the same host), issue 28.
#[allow(dead_code)] // used by the broadcast bench only
pub fn cpu_hog(stop: Arc<std::sync::atomic::AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut x: u64 = 1;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
            }
        }
        x
    })
}

/// The round clocks of the games by `"round.board"`, filled in as the
/// boards start (a client looks its game up when a move arrives).
pub type Clocks = Arc<Mutex<HashMap<String, RoundClock>>>;

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

/// One move seen at a stage of the way: the message's `id` on that
/// channel, the move's completion (Unix µs) and the latency, µs.
#[derive(Debug, Clone, Copy)]
#[allow(dead_code)] // read by the broadcast bench only
pub struct Probe {
    pub id: u64,
    pub done_us: u64,
    pub lat_us: u64,
}

/// The latency of every move at one stage of the way, µs: from the move's
/// completion (round time of its game's clock) to its arrival on
/// `channel` (a board's public feed, the relay's merged one), read in this
/// process. Stops after `moves_expected` moves.
#[allow(dead_code)] // used by the broadcast bench only
pub fn stage_probe(
    rt: &tokio::runtime::Runtime,
    channel: &eboard::broadcast::delay::Channel,
    clocks: Clocks,
    speed: f64,
    moves_expected: usize,
) -> Arc<Mutex<Vec<Probe>>> {
    let out = Arc::new(Mutex::new(Vec::with_capacity(moves_expected)));
    let mut rx = channel.events.subscribe();
    let got = out.clone();
    rt.spawn(async move {
        let mut table = HashMap::new();
        let mut n = 0;
        while n < moves_expected {
            let msg = match rx.recv().await {
                Ok(m) => m,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => break,
            };
            if !msg.json.contains("\"type\":\"move\"") {
                continue;
            }
            let now_us = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_micros() as u64;
            let done_us = move_done_us(&msg.json, &mut table, &clocks, speed);
            got.lock().unwrap().push(Probe {
                id: msg.id,
                done_us,
                lat_us: now_us.saturating_sub(done_us),
            });
            n += 1;
        }
    });
    out
}

/// `median, p90, p99, max` of latencies in µs, as milliseconds.
#[allow(dead_code)] // used by the broadcast bench only
pub fn summary(lat: &[u64]) -> String {
    let mut v = lat.to_vec();
    v.sort_unstable();
    format!(
        "median {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} moves)",
        percentile(&v, 0.5),
        percentile(&v, 0.9),
        percentile(&v, 0.99),
        v.last().map_or(f64::NAN, |m| *m as f64 / 1000.0),
        v.len()
    )
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// What a client reads of a move message: its game (`"1.5"`) and its
/// round time `t` (ms), the fields the latency needs; serde skips the
/// rest without building it (the old clients built a `serde_json::Value`
/// of every move: a map and a string per field, on the cores the relay
/// needs; issue 42 §7).
#[derive(serde::Deserialize)]
struct MoveAt<'a> {
    #[serde(borrow)]
    game: std::borrow::Cow<'a, str>,
    t: u64,
}

/// Bytes a client asks the socket for at a time.
const READ_CHUNK: usize = 16 * 1024;

/// When the move of the message `json` was completed (its clock press),
/// Unix µs: its `t` on its game's round clock, looked up in `table` (a
/// client's own copy of `clocks`, taken again when the game is not in
/// it yet). Panics on a move without `game` or `t`, or of a game no board
/// plays: the bench would measure nothing.
fn move_done_us(
    json: &str,
    table: &mut HashMap<String, RoundClock>,
    clocks: &Clocks,
    speed: f64,
) -> u64 {
    let m: MoveAt = serde_json::from_str(json).expect("a move message names its game and t");
    if !table.contains_key(m.game.as_ref()) {
        *table = clocks.lock().unwrap().clone();
    }
    let clock = table[m.game.as_ref()];
    clock.started_at_unix_ms() * 1000 + (m.t as f64 * 1000.0 / speed) as u64
}

/// One SSE client to start: the server, the path it follows (`/events`,
/// `/events?game=1.7`) and how many moves it must receive.
pub struct ClientSpec {
    pub addr: String,
    pub path: String,
    pub moves_expected: usize,
}

/// How the clients' streams ended before their last move, and how their
/// reconnections went (counts over all clients).
#[derive(Default)]
pub struct Reconnects {
    /// Streams ended by their lease (`event: lease`; docs/server.md).
    pub leases: std::sync::atomic::AtomicU64,
    /// Streams ended without a lease: the server dropped a client that fell
    /// more than its channel's capacity behind, or closed.
    pub dropped: std::sync::atomic::AtomicU64,
    /// Reconnections whose `Last-Event-ID` the server could not resume
    /// from (the client then misses moves).
    pub not_resumed: std::sync::atomic::AtomicU64,
    /// Connections refused.
    pub refused: std::sync::atomic::AtomicU64,
}

impl std::fmt::Display for Reconnects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "streams ended by a lease {}, dropped by the server {}; reconnections not resumed {}, refused {}",
            self.leases.load(Relaxed),
            self.dropped.load(Relaxed),
            self.not_resumed.load(Relaxed),
            self.refused.load(Relaxed)
        )
    }
}

/// SSE clients, each recording the latency of every move from its
/// completion (round time of the game's clock) to arrival, µs, and counting
/// every message it receives.
pub struct SseClients {
    /// (arrival, Unix µs; latency, µs) of every move at every client.
    latencies: Arc<Mutex<Vec<(u64, u64)>>>,
    received: Arc<Mutex<Vec<usize>>>,
    messages: Arc<std::sync::atomic::AtomicU64>,
    reconnects: Arc<Reconnects>,
    connected: Arc<tokio::sync::Semaphore>,
    expected: Vec<usize>,
}

impl SseClients {
    /// Connects one client per spec; `clocks` maps a game's `"round.board"`
    /// to its daemon's round clock.
    pub fn spawn(
        rt: &tokio::runtime::Runtime,
        specs: Vec<ClientSpec>,
        clocks: Clocks,
        speed: f64,
    ) -> SseClients {
        let total: usize = specs.iter().map(|s| s.moves_expected).sum();
        let latencies = Arc::new(Mutex::new(Vec::with_capacity(total)));
        let received = Arc::new(Mutex::new(vec![0usize; specs.len()]));
        let messages = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let reconnects = Arc::new(Reconnects::default());
        let connected = Arc::new(tokio::sync::Semaphore::new(0));
        let expected = specs.iter().map(|s| s.moves_expected).collect();
        for (c, spec) in specs.into_iter().enumerate() {
            let (clocks, latencies, received, messages, connected) = (
                clocks.clone(),
                latencies.clone(),
                received.clone(),
                messages.clone(),
                connected.clone(),
            );
            let reconnects = reconnects.clone();
            rt.spawn(async move {
                let ClientSpec {
                    addr,
                    path,
                    moves_expected,
                } = spec;
                let mut mine = Vec::with_capacity(moves_expected);
                let mut announced = false;
                // As `EventSource` does (WHATWG HTML §9.2): the stream's last
                // `id:` kept, and sent back as `Last-Event-ID` when the
                // stream ends (a lease's end, docs/server.md, or a slow
                // client dropped) after the `retry:` time.
                let mut last_id: Option<String> = None;
                let mut retry_ms = 0u64;
                let mut pass = 0u32;
                let mut buf: Vec<u8> = Vec::with_capacity(READ_CHUNK);
                // The games' round clocks, copied once (again only for a
                // game not yet in it): no lock shared by every client a move.
                let mut table = HashMap::new();
                while mine.len() < moves_expected {
                    if pass > 0 {
                        tokio::time::sleep(Duration::from_millis(retry_ms)).await;
                    }
                    pass += 1;
                    let Ok(mut s) = tokio::net::TcpStream::connect(&addr).await else {
                        reconnects.refused.fetch_add(1, Relaxed);
                        retry_ms = retry_ms.max(250);
                        continue;
                    };
                    let resume = last_id
                        .as_ref()
                        .map(|id| format!("Last-Event-ID: {id}\r\n"))
                        .unwrap_or_default();
                    if s.write_all(
                        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{resume}\r\n").as_bytes(),
                    )
                    .await
                    .is_err()
                    {
                        continue;
                    }
                    // The stream as a browser's `EventSource` reads it:
                    // the bytes as they come, cut into lines in one
                    // buffer kept for the client's life (no `String` a
                    // line); only a move's `game` and `t` are parsed
                    // ([`MoveAt`]).
                    let mut lease = false;
                    buf.clear();
                    loop {
                        buf.reserve(READ_CHUNK);
                        match s.read_buf(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(_) => {}
                        }
                        if !announced {
                            announced = true;
                            connected.add_permits(1);
                        }
                        let (mut start, mut data_lines) = (0, 0u64);
                        while let Some(end) = buf[start..].iter().position(|&b| b == b'\n') {
                            let line = &buf[start..start + end];
                            start += end + 1;
                            let line = line.strip_suffix(b"\r").unwrap_or(line);
                            let Ok(line) = std::str::from_utf8(line) else {
                                continue;
                            };
                            if let Some(id) = line.strip_prefix("id: ") {
                                let last = last_id.get_or_insert_with(String::new);
                                last.clear();
                                last.push_str(id);
                                continue;
                            }
                            if let Some(ms) = line.strip_prefix("retry: ") {
                                retry_ms = ms.parse().unwrap_or(retry_ms);
                                continue;
                            }
                            if line == "event: lease" {
                                lease = true;
                                continue;
                            }
                            if line.starts_with(": Last-Event-ID not resumed") {
                                // Moves between the last id and the states are
                                // lost to this client: the bench then fails.
                                reconnects.not_resumed.fetch_add(1, Relaxed);
                                continue;
                            }
                            let Some(data) = line.strip_prefix("data: ") else {
                                continue;
                            };
                            data_lines += 1;
                            if !data.contains("\"type\":\"move\"") {
                                continue;
                            }
                            let now_us = std::time::SystemTime::now()
                                .duration_since(std::time::UNIX_EPOCH)
                                .unwrap()
                                .as_micros() as u64;
                            let done_us = move_done_us(data, &mut table, &clocks, speed);
                            mine.push((now_us, now_us.saturating_sub(done_us)));
                            if mine.len() == moves_expected {
                                break;
                            }
                        }
                        buf.drain(..start);
                        messages.fetch_add(data_lines, Relaxed);
                        if mine.len() == moves_expected {
                            break;
                        }
                    }
                    if mine.len() < moves_expected {
                        if lease {
                            reconnects.leases.fetch_add(1, Relaxed);
                        } else {
                            // Ended without a lease: dropped (a slow client)
                            // or the server closed.
                            reconnects.dropped.fetch_add(1, Relaxed);
                            retry_ms = retry_ms.max(100);
                        }
                    }
                }
                received.lock().unwrap()[c] = mine.len();
                latencies.lock().unwrap().extend(mine);
            });
        }
        SseClients {
            latencies,
            received,
            messages,
            reconnects,
            connected,
            expected,
        }
    }

    /// The latency of every move at every client so far, µs.
    #[allow(dead_code)] // used by the broadcast bench only
    pub fn latencies_us(&self) -> Vec<u64> {
        self.latencies
            .lock()
            .unwrap()
            .iter()
            .map(|(_, l)| *l)
            .collect()
    }

    /// Messages (`data:` lines) received so far by all clients.
    pub fn messages(&self) -> u64 {
        self.messages.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Waits (at most 60 s) until every client has its stream open.
    /// Panics when some did not (refused, e.g. by a per-address limit): a
    /// bench whose clients are not there measures nothing (issue 28).
    pub fn wait_connected(&self, rt: &tokio::runtime::Runtime) {
        let all = self.expected.len() as u32;
        let opened = rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(60), self.connected.acquire_many(all))
                .await
                .map(|p| p.map(|p| p.forget()))
                .is_ok()
        });
        assert!(
            opened,
            "only {} of {all} clients opened their stream in 60 s: nothing to measure; {}",
            self.connected.available_permits(),
            load()
        );
    }

    /// Waits until every client got every move, or `limit` has passed.
    pub fn wait_done(&self, started: Instant, limit: Duration) {
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let done = self.latencies.lock().unwrap().len() >= self.expected.iter().sum::<usize>();
            if done || started.elapsed() > limit {
                break;
            }
        }
    }

    /// Every move expected at every client.
    pub fn expected(&self) -> usize {
        self.expected.iter().sum()
    }

    /// Prints the figures: `title`, then `what` (the set-up) with the
    /// counts and what else the machine was doing. Panics, before any
    /// figure, when a client did not get every move: a bench that
    /// delivered less than it sent measured nothing (issue 28).
    pub fn report(&self, title: &str, what: &str, started: Instant) {
        let all = self.latencies.lock().unwrap().clone();
        let expected = self.expected();
        assert!(
            all.len() == expected,
            "{title}: {what}: only {} of {expected} move deliveries arrived in {:.1} s \
             ({} messages received; {}): nothing to measure; {}",
            all.len(),
            started.elapsed().as_secs_f64(),
            self.messages(),
            self.reconnects,
            load()
        );
        let mut lat: Vec<u64> = all.iter().map(|(_, l)| *l).collect();
        lat.sort_unstable();
        // After the opening: every board starts at the same moment and the
        // first moves come quickest, so the first 10 s are the burst.
        let start_us = unix_now_ms() * 1000 - started.elapsed().as_micros() as u64;
        let mut later: Vec<u64> = all
            .iter()
            .filter(|(at, _)| *at > start_us + 10_000_000)
            .map(|(_, l)| *l)
            .collect();
        later.sort_unstable();
        let complete = self
            .received
            .lock()
            .unwrap()
            .iter()
            .zip(&self.expected)
            .filter(|(n, e)| n == e)
            .count();
        println!(
            "{title} (loopback, {} cores shared)",
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
        println!(
            "  {what}: move deliveries {} of {}, messages {} (clients complete: {complete}/{})",
            lat.len(),
            self.expected.iter().sum::<usize>(),
            self.messages(),
            self.expected.len()
        );
        println!("  {}", self.reconnects);
        println!("  {}", load());
        println!(
            "  median {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms; run {:.1} s; at {}",
            percentile(&lat, 0.5),
            percentile(&lat, 0.9),
            percentile(&lat, 0.99),
            lat.last().map_or(f64::NAN, |m| *m as f64 / 1000.0),
            started.elapsed().as_secs_f64(),
            unix_now_ms()
        );
        println!(
            "  after the first 10 s ({} deliveries): median {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            later.len(),
            percentile(&later, 0.5),
            percentile(&later, 0.9),
            percentile(&later, 0.99),
            later.last().map_or(f64::NAN, |m| *m as f64 / 1000.0),
        );
    }
}
