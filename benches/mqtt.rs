//! MQTT broadcast benchmark, on loopback, bounded in count and time:
//!
//! 1. latency: board daemons (in this process: the "Pis") each playing a
//!    different real game (TWIC 1599 from `../shared/data`, else the Opera
//!    Game), journal and MQTT queue on disk, publishing through one
//!    mosquitto to `eboard relay --mqtt` processes, each with SSE clients:
//!    spectators following one game (`/events?game=R.B`, spread evenly
//!    over the boards) and followers of the whole round (`/events`). From
//!    a move's completion (the clock press, round time) to its arrival at
//!    every client; messages per second into the broker and out of the
//!    relays; CPU seconds of each process; and each relay's `/games.pgn`
//!    compared byte for byte with the boards' PGNs;
//! 2. throughput: one uplink flooded with single-message updates; messages
//!    per second queued (fsync), acknowledged by the broker, and received
//!    by a relay.
//!
//! `cargo bench --bench mqtt` — knobs (environment): `EBOARD_BENCH_BOARDS`
//! (100), `EBOARD_BENCH_RELAYS` (2), `EBOARD_BENCH_CLIENTS` (1000 game
//! spectators per relay), `EBOARD_BENCH_ROUND_CLIENTS` (10 whole-round
//! followers per relay), `EBOARD_BENCH_SPEED` (50), `EBOARD_BENCH_FLOOD`
//! (5000 messages), `EBOARD_BENCH_JOURNAL` (1; 0: no journal, the queue in
//! memory, no fsync: what the boards' shared disk costs here). Needs `mosquitto` (skipped with a message without it);
//! 300 s limit for the round, 120 s for the flood.

mod common;

use common::{env, ClientSpec};
use eboard::broadcast::delay::Channel;
use eboard::broadcast::public::Update;
use eboard::config::{Config, MqttConfig};
use eboard::mqtt::{publish, BoardTopics, BrokerAddr};
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A child process killed when dropped (mosquitto, a relay).
struct Process(std::process::Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Process {
    /// CPU seconds (user + system) the process has used, from /proc.
    fn cpu_s(&self) -> f64 {
        cpu_of(&format!("/proc/{}/stat", self.0.id()))
    }
}

/// utime + stime of a /proc stat file, seconds (clock ticks of 1/100 s).
fn cpu_of(stat: &str) -> f64 {
    let Ok(text) = std::fs::read_to_string(stat) else {
        return f64::NAN;
    };
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = text.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        f.get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_listening(port: u16) -> bool {
    let end = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

fn mosquitto(dir: &std::path::Path) -> Option<(Process, u16)> {
    let bin = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())?;
    let port = free_port();
    let conf = dir.join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!("listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\nmax_inflight_messages 100\n"),
    )
    .ok()?;
    let child = std::process::Command::new(bin)
        .arg("-c")
        .arg(&conf)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let m = Process(child);
    wait_listening(port).then_some((m, port))
}

/// `GET path` over HTTP/1.0: the body.
fn http_get(addr: &str, path: &str) -> String {
    let Ok(mut s) = std::net::TcpStream::connect(addr) else {
        return String::new();
    };
    let _ = write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    text.split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_owned())
}

/// The games: TWIC 1599 (real over-the-board games) when `../shared/data`
/// is there, else the Opera Game for every board.
fn games(n: usize) -> (Vec<eboard::pgn::PgnGame>, &'static str) {
    let twic = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/pgn/twic1599_1110games.pgn"
    );
    if let Ok(text) = std::fs::read_to_string(twic) {
        if let Ok(g) = eboard::pgn::read_games(&text) {
            if g.len() >= n {
                return (g.into_iter().take(n).collect(), "TWIC 1599 games");
            }
        }
    }
    let pgn = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/data/opera-game.pgn"
    ))
    .unwrap();
    let g = eboard::pgn::read_games(&pgn).unwrap().remove(0);
    (vec![g; n], "the Opera Game (../shared/data absent)")
}

fn main() {
    let boards = env("EBOARD_BENCH_BOARDS", 100).max(1);
    let relays = env("EBOARD_BENCH_RELAYS", 2).max(1);
    let per_relay = env("EBOARD_BENCH_CLIENTS", 1000);
    let round_per_relay = env("EBOARD_BENCH_ROUND_CLIENTS", 10);
    let speed = env("EBOARD_BENCH_SPEED", 50) as f64;
    let flood = env("EBOARD_BENCH_FLOOD", 5000);
    let journal = env("EBOARD_BENCH_JOURNAL", 1) != 0;
    let dir = std::env::temp_dir().join(format!("eboard-bench-mqtt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let Some((broker, port)) = mosquitto(&dir) else {
        println!("mqtt benchmark SKIPPED: mosquitto is not installed or did not start");
        return;
    };
    let url = format!("mqtt://127.0.0.1:{port}");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // The clients have a runtime of their own: the boards' journal and
    // queue fsyncs (100 "Pis" sharing one disk and two workers here) must
    // not hold up the clients that measure.
    let crt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (games, source) = games(boards);

    // The relays: `eboard relay --mqtt` processes. Every bench client
    // comes from 127.0.0.1: no per-address limit (as behind a reverse
    // proxy, docs/server.md; the default 32 refused all clients but 32).
    let relay_conf = dir.join("relay.toml");
    std::fs::write(
        &relay_conf,
        "[server]\nmax_connections_per_address = 0\ntls = \"off\"\n",
    )
    .unwrap();
    let mut relay_procs = Vec::new();
    let mut relay_addrs = Vec::new();
    for _ in 0..relays {
        let p = free_port();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_eboard"))
            .args(["relay", "--mqtt", &url, "--event", "Benchmark"])
            .arg("--config")
            .arg(&relay_conf)
            .args(["--listen", &format!("127.0.0.1:{p}")])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start eboard relay");
        relay_procs.push(Process(child));
        assert!(wait_listening(p), "the relay did not listen");
        relay_addrs.push(format!("127.0.0.1:{p}"));
    }

    // The games: the moves each will have (the replay decides: the Laws
    // may end a game before its score does).
    let mut traces = Vec::new();
    let mut plies = Vec::new();
    for (b, game) in (1..=boards as u32).zip(&games) {
        let trace = eboard::sim::simulate(
            game,
            &eboard::sim::SimOptions {
                seed: u64::from(b),
                ..Default::default()
            },
        )
        .unwrap();
        let (_, events) = eboard::controller::replay(&trace, None, None).unwrap();
        plies.push(
            events
                .iter()
                .filter(|e| matches!(e.kind, eboard::trace::EventKind::Move { .. }))
                .count(),
        );
        traces.push(trace);
    }
    let all_plies: usize = plies.iter().sum();

    // The clients: spectators of one game each, spread evenly over the
    // boards, and followers of the whole round.
    let mut spectators = Vec::new();
    let mut followers = Vec::new();
    for addr in &relay_addrs {
        for c in 0..per_relay {
            let b = c % boards;
            spectators.push(ClientSpec {
                addr: addr.clone(),
                path: format!("/events?game=1.{}", b + 1),
                moves_expected: plies[b],
            });
        }
        for _ in 0..round_per_relay {
            followers.push(ClientSpec {
                addr: addr.clone(),
                path: "/events".into(),
                moves_expected: all_plies,
            });
        }
    }
    let clocks = common::Clocks::default();
    let spectators = common::SseClients::spawn(&crt, spectators, clocks.clone(), speed);
    let followers = common::SseClients::spawn(&crt, followers, clocks.clone(), speed);
    spectators.wait_connected(&crt);
    followers.wait_connected(&crt);
    let cpu = |relay_procs: &[Process]| {
        (
            cpu_of("/proc/self/stat"),
            broker.cpu_s(),
            relay_procs.iter().map(Process::cpu_s).sum::<f64>(),
        )
    };
    let cpu0 = cpu(&relay_procs);
    let started = Instant::now();
    // The board daemons: journaled (so the MQTT queue is on disk), no HTTP.
    // Each starts its game (and so its clocks) as soon as it is up: a
    // daemon's clocks start with it, so a board set up long before the
    // others' would have lost its time before its first move (issue 28:
    // every board once flagged before its first move).
    let mut daemons = Vec::new();
    for (b, trace) in (1..=boards as u32).zip(&traces) {
        let mut cfg = Config::default();
        cfg.game.board = b;
        cfg.event.name = Some("Benchmark".into());
        cfg.event.time_control = Some("5400+30".into());
        cfg.mqtt = Some(MqttConfig {
            url: url.clone(),
            ..Default::default()
        });
        let journal = journal.then(|| dir.join(format!("b{b}.jsonl")));
        let (d, go_tx) = common::round::start_board(&rt, cfg, trace, journal, speed);
        clocks.lock().unwrap().insert(format!("1.{b}"), d.clock);
        // Go: this board starts its game now.
        let _ = go_tx.send(d.clock.now_ms() + 500);
        daemons.push(d);
    }
    spectators.wait_done(started, Duration::from_secs(300));
    followers.wait_done(started, Duration::from_secs(300));
    let run_s = started.elapsed().as_secs_f64();
    let cpu1 = cpu(&relay_procs);
    let what = format!(
        "{boards} boards ({source}, {all_plies} moves, journal {}), {relays} relays, speed ×{speed}",
        if journal { "and queue on disk" } else { "off, queue in memory" }
    );
    spectators.report(
        "mqtt latency, move completed → broker → relay → SSE spectator of one game",
        &format!("{what}, {} spectators (?game=R.B)", relays * per_relay),
        started,
    );
    followers.report(
        "mqtt latency, move completed → broker → relay → SSE follower of the round",
        &format!(
            "{what}, {} round followers (/events)",
            relays * round_per_relay
        ),
        started,
    );
    let published: u64 = daemons
        .iter()
        .filter_map(|d| d.mqtt.as_ref().map(|s| s.borrow().queued))
        .sum();
    let sse = spectators.messages() + followers.messages();
    println!(
        "  messages: {published} published by the boards ({:.0}/s into the broker, {:.0}/s out to the relays); {sse} SSE messages received ({:.0}/s) over {run_s:.1} s",
        published as f64 / run_s,
        (published * relays as u64) as f64 / run_s,
        sse as f64 / run_s
    );
    println!(
        "  CPU seconds: boards + clients (this process) {:.1}, mosquitto {:.1}, relays {:.1} (of {:.1} available on {} cores)",
        cpu1.0 - cpu0.0,
        cpu1.1 - cpu0.1,
        cpu1.2 - cpu0.2,
        run_s * std::thread::available_parallelism().map_or(1, |n| n.get()) as f64,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    // The relays' PGN against the boards' own, byte for byte.
    let board_pgn: String = daemons
        .iter()
        .map(|d| {
            let v = d.feed.public.view.borrow().clone();
            v.games.iter().map(|g| g.pgn.as_str()).collect::<String>()
        })
        .collect();
    let end = Instant::now() + Duration::from_secs(30);
    for addr in &relay_addrs {
        let same = loop {
            let same = http_get(addr, "/games.pgn") == board_pgn;
            if same || Instant::now() > end {
                break same;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(
            same,
            "relay {addr}: /games.pgn differs from the boards' PGN ({} bytes)",
            board_pgn.len()
        );
        println!(
            "  relay {addr}: /games.pgn {} the boards' PGN ({} bytes, {boards} games)",
            if same {
                "byte-identical to"
            } else {
                "DIFFERS from"
            },
            board_pgn.len()
        );
    }
    drop(daemons);
    drop(relay_procs);

    // Throughput: one uplink flooded, a relay counting what arrives.
    let sink = Arc::new(Channel::new());
    let mut rx = sink.events.subscribe();
    eboard::mqtt::relay::start(
        rt.handle(),
        BrokerAddr::parse(&url).unwrap(),
        "flood".into(),
        None,
        sink.clone(),
    )
    .unwrap();
    let (tx, mut status) = publish::start(
        rt.handle(),
        publish::Uplink {
            broker: BrokerAddr::parse(&url).unwrap(),
            topics: BoardTopics::new("flood", Some("x"), 1, 1),
            epoch: 1,
            client_id: "eboard-flood".into(),
            announce_arbiter: false,
        },
        Some(&dir.join("flood.mqtt")),
    )
    .unwrap();
    // Probes until the relay is subscribed (bounded).
    let probe = |i: u64| Update {
        seq: i,
        t: 0,
        snapshot: None,
        public: vec![Arc::from("{\"type\":\"probe\"}")],
        arbiter: Vec::new(),
        arbiter_snapshot: None,
    };
    rt.block_on(async {
        for i in 0..100 {
            let _ = tx.send(probe(i));
            if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_millis(100), rx.recv()).await {
                return;
            }
        }
        panic!("the flood relay never subscribed");
    });
    let started = Instant::now();
    for i in 0..flood as u64 {
        let _ = tx.send(Update {
            seq: i + 1,
            t: i,
            snapshot: None,
            public: vec![Arc::from(format!("{{\"type\":\"clock\",\"n\":{i}}}"))],
            arbiter: Vec::new(),
            arbiter_snapshot: None,
        });
    }
    let (acked_s, got, got_s) = rt.block_on(async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        let mut acked_s = f64::NAN;
        let mut got = 0usize;
        let mut got_s = f64::NAN;
        loop {
            tokio::select! {
                r = status.changed() => {
                    if r.is_err() { break; }
                    let s = *status.borrow();
                    if acked_s.is_nan() && s.queued >= flood as u64 && s.pending == 0 {
                        acked_s = started.elapsed().as_secs_f64();
                    }
                }
                m = rx.recv() => {
                    if m.is_ok_and(|m| m.json.contains("clock")) {
                        got += 1;
                        if got == flood {
                            got_s = started.elapsed().as_secs_f64();
                        }
                    }
                }
                _ = tokio::time::sleep_until(deadline) => break,
            }
            if !acked_s.is_nan() && !got_s.is_nan() {
                break;
            }
        }
        (acked_s, got, got_s)
    });
    // A flood that did not arrive whole measured nothing (issue 28).
    assert!(
        got == flood && !acked_s.is_nan(),
        "mqtt throughput: the relay received {got} of {flood} messages (broker acknowledged all: {}): nothing to measure; {}",
        !acked_s.is_nan(),
        common::load()
    );
    println!("mqtt throughput, one uplink (queue on disk, one fsync per batch of waiting updates), {flood} messages:");
    println!("  {}", common::load());
    println!(
        "  all acknowledged by the broker in {acked_s:.2} s ({:.0} msg/s); relay received {got}/{flood} in {got_s:.2} s ({:.0} msg/s)",
        flood as f64 / acked_s,
        flood as f64 / got_s
    );
    std::fs::remove_dir_all(&dir).ok();
    std::process::exit(0);
}
