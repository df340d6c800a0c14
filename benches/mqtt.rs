//! MQTT broadcast benchmark, on loopback, bounded in count and time:
//!
//! 1. latency: board daemons publishing through one mosquitto (queue on
//!    disk, fsync per decision) to relays (`eboard relay --mqtt`, in
//!    process) with SSE clients; from a move's completion (the clock press,
//!    round time) to its arrival at every client;
//! 2. throughput: one uplink flooded with single-message updates; messages
//!    per second queued (fsync), acknowledged by the broker, and received
//!    by a relay.
//!
//! `cargo bench --bench mqtt` — knobs (environment): `EBOARD_BENCH_BOARDS`
//! (20), `EBOARD_BENCH_RELAYS` (2), `EBOARD_BENCH_CLIENTS` (200 per relay),
//! `EBOARD_BENCH_SPEED` (20), `EBOARD_BENCH_FLOOD` (5000 messages). Needs
//! `mosquitto` (skipped with a message without it); 120 s limit per phase.

mod common;

use common::{env, Gated};
use eboard::broadcast::delay::Channel;
use eboard::broadcast::public::Update;
use eboard::config::{Config, MqttConfig};
use eboard::daemon::{Daemon, RunOptions};
use eboard::mqtt::{publish, BoardTopics, BrokerAddr};
use eboard::server::{router, AppState};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

struct Mosquitto(std::process::Child);

impl Drop for Mosquitto {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn mosquitto(dir: &std::path::Path) -> Option<(Mosquitto, u16)> {
    let bin = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
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
    let m = Mosquitto(child);
    let end = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some((m, port))
}

fn main() {
    let boards = env("EBOARD_BENCH_BOARDS", 20);
    let relays = env("EBOARD_BENCH_RELAYS", 2).max(1);
    let per_relay = env("EBOARD_BENCH_CLIENTS", 200);
    let clients = relays * per_relay;
    let speed = env("EBOARD_BENCH_SPEED", 20) as f64;
    let flood = env("EBOARD_BENCH_FLOOD", 5000);
    let dir = std::env::temp_dir().join(format!("eboard-bench-mqtt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let Some((_broker, port)) = mosquitto(&dir) else {
        println!("mqtt benchmark SKIPPED: mosquitto is not installed or did not start");
        return;
    };
    let url = format!("mqtt://127.0.0.1:{port}");
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

    // The relays and their servers.
    let mut relay_addrs = Vec::new();
    for _ in 0..relays {
        let ch = Arc::new(Channel::new());
        eboard::mqtt::relay::start(
            rt.handle(),
            BrokerAddr::parse(&url).unwrap(),
            "eboard".into(),
            Some("Benchmark".into()),
            ch.clone(),
        )
        .unwrap();
        let l = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        relay_addrs.push(l.local_addr().unwrap().to_string());
        rt.spawn(eboard::server::serve(
            l,
            router(AppState {
                public: ch,
                arbiter: None,
            }),
        ));
    }

    // The board daemons: journaled (so the MQTT queue is on disk), no HTTP.
    let mut gos = Vec::new();
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
        cfg.mqtt = Some(MqttConfig {
            url: url.clone(),
            topic_prefix: None,
        });
        let (go_tx, go_rx) = mpsc::channel();
        let d = Daemon::start(
            RunOptions {
                config: cfg,
                delay_s: 0,
                journal: Some(dir.join(format!("b{b}.jsonl"))),
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
        clocks.insert(format!("1.{b}"), d.clock);
        gos.push(go_tx);
        daemons.push(d);
    }

    // The clients: latency of every move at every client, µs.
    let sse = common::SseClients::spawn(&rt, &relay_addrs, clients, clocks, speed, moves_expected);
    sse.wait_connected(&rt);
    // Go: every board starts its game now.
    let started = Instant::now();
    for (go, d) in gos.iter().zip(&daemons) {
        let _ = go.send(d.clock.now_ms() + 500);
    }
    sse.wait_done(started, Duration::from_secs(120));
    sse.report(
        "mqtt latency, move completed → broker → relay → SSE client",
        &format!("boards {boards}, relays {relays}, clients {clients}, speed ×{speed}"),
        started,
    );
    drop(daemons);

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
    println!("mqtt throughput, one uplink (queue on disk, one fsync per batch of waiting updates), {flood} messages:");
    println!(
        "  all acknowledged by the broker in {acked_s:.2} s ({:.0} msg/s); relay received {got}/{flood} in {got_s:.2} s ({:.0} msg/s)",
        flood as f64 / acked_s,
        flood as f64 / got_s
    );
    std::fs::remove_dir_all(&dir).ok();
    std::process::exit(0);
}
