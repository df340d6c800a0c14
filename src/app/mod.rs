//! The composition root: the one place that sees both the configuration
//! and the parts it configures, and wires them into the program's commands.
//! `main.rs` parses the command line and calls one function here.
//!
//! - [`run`] (`eboard run`): a board daemon — a record source (a trace,
//!   standard input or the sensors) through the board loop ([`daemon`]),
//!   journaled, served over HTTP, pushed to MQTT and lichess;
//! - [`demo`] (`eboard demo`): the same board loop fed by simulated hands
//!   (through the virtual sensor hardware) on a scaled clock;
//! - [`relay`] (`eboard relay`): many boards' feeds merged (HTTP or MQTT);
//! - [`event`] (`eboard event`): a round's pairings sent to the boards
//!   ([`pairing`]: the board's side);
//! - [`replay`], [`simulate`], [`announce`], [`calibrate`], [`kit`]: the offline tools.
//!
//! Start-up turns the config into each consumer's settings
//! ([`settings`]); one [`shutdown::Shutdown`] (SIGTERM, Ctrl-C) stops
//! everything in order and joins every thread.
//!
//! The dependency rule this module keeps: `model ← arbiter ← controller ←
//! app`; the config and the outputs (mqtt, broadcast, server, clock devices,
//! voice) depend on the model and never on each other; only `app` (and
//! `main`) see both (`scripts/deps.sh` checks that there is no cycle).
//!
//! As the composition root it may depend on every other module, and nothing
//! but `main.rs` may depend on it: no module of docs/dev/architecture.md's
//! map reaches up to `app`.

mod board_loop;
mod commands;
pub mod daemon;
pub mod demo;
pub mod doctor;
pub mod downtime;
mod event;
mod heartbeat;
mod kit;
mod memory;
pub mod pairing;
mod relay;
mod results;
pub mod round_clock;
mod router;
mod rule;
mod run;
pub mod settings;
pub mod shutdown;
pub mod source;
mod speech;
mod tools;
pub mod trial;
mod uplinks;
mod view;

pub use demo::{demo, DemoArgs};
pub use doctor::{doctor, DoctorArgs};
pub use event::{event, pairing_list, EventArgs};
pub use kit::{kit, KitArgs};
pub use relay::{relay, RelayArgs};
pub use results::{results, ResultsArgs};
pub use rule::{rule, RuleArgs};
pub use run::{run, RunArgs};
pub use tools::{
    announce, calibrate, replay, simulate, AnnounceArgs, CalibrateArgs, ReplayArgs, SensingArg,
    SimulateArgs,
};

use anyhow::{anyhow, Context};
use std::io::{BufReader, Write};
use std::path::Path;

/// The library's errors as anyhow errors of one message each: their text
/// names the cause already (`"{what}: {source}"`), so the chain is not
/// walked again; the command adds where (`with_context`).
trait Anyhow<T> {
    fn anyhow(self) -> anyhow::Result<T>;
}

impl<T, E: std::fmt::Display> Anyhow<T> for Result<T, E> {
    fn anyhow(self) -> anyhow::Result<T> {
        self.map_err(|e| anyhow!("{e}"))
    }
}

/// Reads a trace file; `-` is standard input.
fn read_trace(path: &Path) -> anyhow::Result<crate::trace::Trace> {
    use crate::trace::Trace;
    let shown = path.display();
    if path == Path::new("-") {
        Trace::read(std::io::stdin().lock())
            .anyhow()
            .context("<stdin>")
    } else {
        let f = std::fs::File::open(path).with_context(|| shown.to_string())?;
        Trace::read(BufReader::new(f))
            .anyhow()
            .with_context(|| shown.to_string())
    }
}

/// Writes `text` to `path`; `-` is standard output.
fn write_to(path: &Path, text: &str) -> anyhow::Result<()> {
    if path == Path::new("-") {
        std::io::stdout()
            .write_all(text.as_bytes())
            .context("stdout")
    } else {
        std::fs::write(path, text).with_context(|| path.display().to_string())
    }
}

/// The runtime of the HTTP side, the delay lines and the uplinks.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("eboard-io")
        .enable_all()
        .build()
        .context("cannot start the runtime")
}

/// The runtime of an HTTP relay's readers of its boards' streams (issue 42
/// §7): one worker thread of their own, so that a board's message is read
/// and re-published when it arrives, not after the relay's fan-out of the
/// messages before it to every spectator's stream, which runs on
/// [`runtime`]'s workers. Mostly asleep, the thread gets a core at once
/// when a board writes (the kernel favours a thread that slept over a busy
/// one).
fn reader_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("eboard-relay-in")
        .enable_all()
        .build()
        .context("cannot start the boards' readers' runtime")
}

/// The listen backlog: connections the kernel completes before they are
/// accepted. A burst of connections (a client opening thousands, which
/// the listener then refuses) must not fill it, or the next spectator's or
/// the arbiter's connection waits for a SYN retransmission (1 s and more);
/// the kernel caps it at `net.core.somaxconn` (4096 since Linux 5.4).
const BACKLOG: u32 = 4096;

/// A listener on the first address `addr` resolves to, with [`BACKLOG`].
async fn listen(addr: &str) -> std::io::Result<tokio::net::TcpListener> {
    let mut last = None;
    for a in tokio::net::lookup_host(addr).await? {
        let socket = match a {
            std::net::SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
            std::net::SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
        };
        socket.set_reuseaddr(true)?;
        match socket.bind(a).and_then(|()| socket.listen(BACKLOG)) {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address to listen on")
    }))
}

/// Binds `addr` and prints the address actually bound (port 0 picks one);
/// with TLS, the HTTPS address on the same port and the certificate's
/// SHA-256 fingerprint (to pin on the arbiter's phone and in the relay).
async fn bind(
    addr: &str,
    listening: &crate::server::Listening,
) -> anyhow::Result<tokio::net::TcpListener> {
    let l = listen(addr)
        .await
        .with_context(|| format!("--listen {addr}"))?;
    let a = l.local_addr().with_context(|| format!("--listen {addr}"))?;
    println!("eboard: serving http://{a}/");
    if let Some(tls) = &listening.tls {
        println!(
            "eboard: serving https://{a}/ (certificate SHA-256 {})",
            tls.fingerprint
        );
    }
    Ok(l)
}

/// Serves `router` on `listener` until `stop` (then the listener is
/// closed; open connections end when the runtime is shut down).
async fn serve_until(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    listening: crate::server::Listening,
    mut stop: shutdown::ShutdownSignal,
) -> anyhow::Result<()> {
    tokio::select! {
        r = crate::server::serve(listener, router, listening) => r.anyhow(),
        _ = stop.wait() => Ok(()),
        // Never ends: what departed clients freed goes back to the system.
        () = memory::give_back_periodically() => Ok(()),
    }
}

/// Ends the runtime: its tasks (servers, connections, delay lines,
/// uplinks) are dropped; what still runs after `within` is left to the exit.
fn close_runtime(rt: tokio::runtime::Runtime, within: std::time::Duration) {
    rt.shutdown_timeout(within);
}
