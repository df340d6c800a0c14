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
//!
//! The clients (`common::SseClients`) share the machine with the product
//! here, which a spectator's browser does not, so each reads as cheaply as
//! a browser's `EventSource` does and no more: the bytes as they arrive,
//! cut into lines in one buffer kept for the client's life; the last
//! `id:` (sent back as `Last-Event-ID` when a lease ends), `retry:`, the
//! lease's event; of a move's JSON only `game` and `t` are parsed (a
//! typed, borrowed parse: serde skips the other fields without building
//! them). What they check is unchanged: every client gets every move
//! (the run fails otherwise), the latency of each from its clock press.
//!
//! `EBOARD_BENCH_RUNTIMES` (4): where the parts run (issue 42 §7). `1`:
//! everything on one runtime of two workers (the layout of issue 28's
//! figures, for comparison): a move's message then waited behind the
//! wake-ups of the 1,000 stream tasks and the 1,000 bench clients of the
//! messages before it at each of its task hops. `3`: the 20 boards, the
//! relay and the 1,000 clients each on a runtime of two workers of its own,
//! as deployed (the boards are Pis of their own, the relay the organiser's
//! machine, the spectators elsewhere), the relay reading the boards on its
//! own runtime (the product before issue 42). `4`: the same, the relay's
//! readers of the boards' streams on a thread of their own, as the
//! product's relay now does (`app::reader_runtime`). Every layout shares
//! the machine's cores with the hog.

mod common;

use common::env;
use std::sync::Arc;
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
    let runtimes = env("EBOARD_BENCH_RUNTIMES", 4);
    let workers = |n: usize| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n)
            .enable_all()
            .build()
            .unwrap()
    };
    // The boards' runtime; the relay's and the clients' when apart; the
    // relay's readers of the boards' streams on a thread of their own as
    // the product's relay does (`app::reader_runtime`).
    let rt = workers(2);
    let apart = (runtimes >= 3).then(|| (workers(2), workers(2)));
    let relay_rt = apart.as_ref().map_or(&rt, |(r, _)| r);
    let clients_rt = apart.as_ref().map_or(&rt, |(_, c)| c);
    let readers = (runtimes >= 4).then(|| workers(1));
    let readers_rt = readers.as_ref().unwrap_or(relay_rt);

    // The board daemons, each with its server, and the relay.
    let round = common::round::Round::start(&rt, boards, speed);
    let moves_expected = boards * common::round::OPERA_MOVES;
    let clocks = round.clocks.clone();
    let daemons = &round.daemons;
    let relay = common::round::serve_relay(relay_rt, readers_rt, round.urls.clone());
    let relay_probe = relay.channel.clone();
    let relay_addr = relay.addr.clone();

    // The clients: latency of every move at every client, µs.
    let specs = (0..clients)
        .map(|_| common::ClientSpec {
            addr: relay_addr.clone(),
            path: "/events".into(),
            moves_expected,
        })
        .collect();
    let sse = common::SseClients::spawn(clients_rt, specs, clocks.clone(), speed);
    sse.wait_connected(clients_rt);
    // Stage probes (issue 28 §5), in this process: each board's public
    // feed (after the board loop, the delay line and the snapshot's
    // serialisation) and the relay's merged feed (after the boards' HTTP
    // streams and the relay's reading); the clients' figure adds the
    // relay's fan-out to its streams, the socket writes and the reading.
    let at_boards: Vec<_> = daemons
        .iter()
        .map(|d| {
            common::stage_probe(
                &rt,
                &d.feed.public,
                clocks.clone(),
                speed,
                common::round::OPERA_MOVES,
            )
        })
        .collect();
    // Read where the relay publishes (its readers' thread in layout 4): a
    // probe among the relay's 1,000 stream tasks would time its own wait
    // behind their fan-out, not the hop.
    let at_relay = common::stage_probe(
        readers_rt,
        &relay_probe,
        clocks.clone(),
        speed,
        moves_expected,
    );
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hogging = hog.then(|| common::cpu_hog(stop.clone()));
    // Go: every board starts its game now.
    let started = Instant::now();
    round.go();
    sse.wait_done(started, Duration::from_secs(120));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    if let Some(h) = hogging {
        let _ = h.join();
    }
    sse.report(
        "broadcast latency, move completed → SSE client of the relay",
        &format!(
            "boards {boards}, clients {clients}, speed ×{speed}, {}, {}",
            match runtimes {
                0..=2 => "boards, relay and clients on one runtime of two workers",
                3 => "boards, relay and clients on a runtime of two workers each",
                _ => "boards, relay and clients on a runtime of two workers each, the relay's readers on a thread of their own",
            },
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
    let marks = common::stages::marks();
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
