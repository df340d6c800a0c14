//! A round of board daemons and a relay over them, in the bench's process
//! on loopback (the broadcast and first-paint benches): each board plays
//! the Opera Game from its own simulated trace (seed = its number) once
//! told to go, serves its feeds; the relay follows their HTTP streams.
//! The MQTT bench starts its boards (its own games, journaled, over MQTT)
//! with the same [`start_board`].

use super::{Clocks, Gated};
use eboard::broadcast::delay::Channel;
use eboard::config::Config;
use eboard::console::board::ArbiterAccess;
use eboard::daemon::{Daemon, RunOptions};
use eboard::server::{router, AppState};
use eboard::trace::Trace;
use std::sync::{mpsc, Arc};

/// Moves of the Opera Game (17. Rd8#: 33 plies).
pub const OPERA_MOVES: usize = 33;

/// The boards of a round, started and waiting for the go.
pub struct Round {
    /// Each board's base URL (`http://127.0.0.1:PORT`).
    pub urls: Vec<String>,
    /// Each game's round clock, by `"1.B"`.
    pub clocks: Clocks,
    /// The daemons.
    pub daemons: Vec<Daemon>,
    gos: Vec<mpsc::Sender<u64>>,
}

impl Round {
    /// `boards` board daemons (round 1, boards 1…) playing at `speed`, on
    /// `rt`, each serving its feeds on a port of 127.0.0.1.
    pub fn start(rt: &tokio::runtime::Runtime, boards: usize, speed: f64) -> Round {
        let pgn = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/data/opera-game.pgn"
        ))
        .unwrap();
        let game = eboard::pgn::read_games(&pgn).unwrap().remove(0);
        let clocks = Clocks::default();
        let (mut urls, mut daemons, mut gos) = (Vec::new(), Vec::new(), Vec::new());
        for b in 1..=boards as u32 {
            let trace = eboard::sim::simulate(
                &game,
                &eboard::sim::SimOptions {
                    seed: u64::from(b),
                    ..Default::default()
                },
            )
            .unwrap();
            let mut cfg = Config::default();
            cfg.game.board = b;
            cfg.event.name = Some("Benchmark".into());
            let (d, go_tx) = start_board(rt, cfg, &trace, None, speed);
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
        Round {
            urls,
            clocks,
            daemons,
            gos,
        }
    }

    /// Every board starts its game now (half a second of round time on).
    pub fn go(&self) {
        for (go, d) in self.gos.iter().zip(&self.daemons) {
            let _ = go.send(d.clock.now_ms() + 500);
        }
    }
}

/// One board daemon on `rt` playing `trace` at `speed` once told to go:
/// send it the round time (ms) its first record is shifted to (the
/// returned sender; [`Round::go`]). `journal`: its journal file (and so its
/// MQTT queue on disk), or none. The set-up every bench's boards share.
pub fn start_board(
    rt: &tokio::runtime::Runtime,
    config: Config,
    trace: &Trace,
    journal: Option<std::path::PathBuf>,
    speed: f64,
) -> (Daemon, mpsc::Sender<u64>) {
    let (go_tx, go_rx) = mpsc::channel();
    let d = Daemon::start(
        RunOptions {
            config,
            delay_s: 0,
            journal,
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
    (d, go_tx)
}

/// A relay serving what it merged.
pub struct Relay {
    /// Its address, `127.0.0.1:PORT`.
    pub addr: String,
    /// Its merged public channel.
    pub channel: Arc<Channel>,
}

/// A relay following the boards at `urls`: their streams read on
/// `readers` (the product's relay reads them on a runtime of its own,
/// `app::reader_runtime`), its server on `rt`.
pub fn serve_relay(
    rt: &tokio::runtime::Runtime,
    readers: &tokio::runtime::Runtime,
    urls: Vec<String>,
) -> Relay {
    let channel = Arc::new(Channel::new());
    eboard::broadcast::relay::start(readers.handle(), urls, channel.clone()).unwrap();
    let l = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = l.local_addr().unwrap().to_string();
    rt.spawn(eboard::server::serve(
        l,
        router(AppState {
            console: None,
            public: channel.clone(),
            arbiter: None,
        }),
        loopback_listening(),
    ));
    Relay { addr, channel }
}

/// Every bench client comes from 127.0.0.1: no per-address limit (as
/// behind a reverse proxy, docs/server.md), plain HTTP.
pub fn loopback_listening() -> eboard::server::Listening {
    eboard::server::Listening {
        limits: eboard::server::Limits {
            per_address: 0,
            ..eboard::server::Limits::default()
        },
        tls: None,
    }
}
