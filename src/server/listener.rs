//! The HTTP listener: who is let in, for how long, and over what (issue 18
//! §1 and §2; `docs/server.md`).
//!
//! Length: a third of the file is its tests (admission, the guard, the
//! write timeout), kept beside what they test.
//!
//! - **Admission.** At most [`Limits::max_connections`] connections at once
//!   and at most [`Limits::per_address`] from one address (IPv4 address, or
//!   IPv6 /64 prefix: one host's privacy addresses count as one). A
//!   connection over a limit is closed at once, before anything is read,
//!   and counted in a warn line: the first at once, then one per
//!   [`REFUSAL_REPORT`]. The last
//!   [`Limits::reserved`] slots are kept for the arbiter: a connection
//!   admitted into them may only ask for `/arbiter/…` and `/console…`
//!   (everything else: 503), so a full house of spectators never locks
//!   the arbiter out.
//! - **Time.** A client has [`Limits::idle_timeout`] to send a request head,
//!   also between requests on a keep-alive connection (hyper's header read
//!   timeout runs while the connection waits for the next request), and to
//!   finish a TLS handshake. A client that takes no bytes for
//!   [`Limits::write_timeout`] while the server has bytes for it (a stream
//!   client that stopped reading) is closed.
//! - **TLS.** With a certificate ([`Tls`]), the same port answers HTTPS and
//!   plain HTTP: the first byte of a TLS ClientHello (0x16, a handshake
//!   record, RFC 8446 §5.1) can never start an HTTP request line. The
//!   arbiter's routes answer only over TLS or from loopback (see
//!   [`super::guard`]), so no arbiter credential crosses the network in
//!   clear.
//!
//! Every request carries its [`Connection`] as an extension.

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tower::ServiceExt;

/// How often refused connections are reported (one warn line with counts).
pub const REFUSAL_REPORT: Duration = Duration::from_secs(10);

/// File descriptors kept free below the process's limit for the journal,
/// the clock device, the uplinks and the arbiter's reserve.
pub const FD_MARGIN: usize = 64;

/// The admission limits of one listener (config `[server]`, `docs/server.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once (`max_connections`); lowered at start to
    /// what the process's file-descriptor limit allows, less [`FD_MARGIN`].
    pub max_connections: usize,
    /// Connections from one address at once (`max_connections_per_address`;
    /// 0: no per-address limit, for a server behind a reverse proxy on the
    /// same host, where every client comes from loopback).
    pub per_address: usize,
    /// Of `max_connections`, the last slots kept for the arbiter's routes
    /// (`reserved_connections`).
    pub reserved: usize,
    /// The longest a client may take to send a request head, also between
    /// requests on a kept-alive connection, and to finish a TLS handshake
    /// (`idle_timeout_s`).
    pub idle_timeout: Duration,
    /// The longest a client may leave the server's bytes unread before it
    /// is closed (`write_timeout_s`).
    pub write_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 4096,
            per_address: 32,
            reserved: 64,
            idle_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(30),
        }
    }
}

impl Limits {
    /// These limits with `max_connections` lowered to what the process may
    /// open: the soft `RLIMIT_NOFILE` is first raised to the hard limit.
    /// Returns the limits and the descriptor limit found (None: unknown).
    pub fn fitted_to_process(mut self) -> (Self, Option<usize>) {
        let fds = raise_fd_limit();
        if let Some(n) = fds {
            let room = n.saturating_sub(FD_MARGIN).max(16);
            self.max_connections = self.max_connections.min(room);
        }
        self.reserved = self.reserved.min(self.max_connections / 2);
        (self, fds)
    }
}

/// Raises the soft open-file limit to the hard one; the soft limit after.
fn raise_fd_limit() -> Option<usize> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit write/read only the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim.rlim_cur = lim.rlim_max;
            }
        }
    }
    usize::try_from(lim.rlim_cur).ok()
}

/// The certificate the listener answers HTTPS with.
#[derive(Clone)]
pub struct Tls {
    /// The rustls server configuration (certificate chain and key).
    pub config: Arc<rustls::ServerConfig>,
    /// SHA-256 of the leaf certificate (DER), `AB:CD:…`, for pinning.
    pub fingerprint: String,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

/// How a listener serves: its limits and, when configured, TLS.
#[derive(Debug, Clone, Default)]
pub struct Listening {
    /// Admission and time limits.
    pub limits: Limits,
    /// HTTPS on the same port; `None`: plain HTTP only.
    pub tls: Option<Tls>,
}

/// What a request knows of the connection it came on (a request extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connection {
    /// The client's address.
    pub peer: SocketAddr,
    /// Whether the connection is TLS.
    pub tls: bool,
    /// Admitted into the arbiter's reserve: only the arbiter's routes.
    pub reserved_only: bool,
}

impl Connection {
    /// Whether the client is on this host (127.0.0.0/8, ::1, or IPv4-mapped loopback).
    pub fn is_loopback(&self) -> bool {
        match self.peer.ip() {
            IpAddr::V4(a) => a.is_loopback(),
            IpAddr::V6(a) => {
                a.is_loopback() || a.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
            }
        }
    }
}

/// The connections open now, in total and per address.
#[derive(Debug)]
struct Admission {
    limits: Limits,
    open: AtomicUsize,
    per_address: Mutex<HashMap<IpAddr, usize>>,
    refused_total: AtomicU64,
    refused_address: AtomicU64,
    /// When refusals were last reported (None: never).
    report: Mutex<Option<Instant>>,
}

/// One admitted connection; dropping it frees its slot.
#[derive(Debug)]
struct Ticket {
    admission: Arc<Admission>,
    key: IpAddr,
    reserved_only: bool,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.admission.open.fetch_sub(1, Ordering::AcqRel);
        let mut map = self
            .admission
            .per_address
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(n) = map.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.key);
            }
        }
    }
}

impl Admission {
    fn new(limits: Limits) -> Arc<Self> {
        Arc::new(Admission {
            limits,
            open: AtomicUsize::new(0),
            per_address: Mutex::new(HashMap::new()),
            refused_total: AtomicU64::new(0),
            refused_address: AtomicU64::new(0),
            report: Mutex::new(None),
        })
    }

    /// A ticket for a connection from `ip`, or `None` when a limit is reached.
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Ticket> {
        let key = super::backoff::source_key(ip);
        let mut map = self.per_address.lock().unwrap_or_else(|p| p.into_inner());
        let mine = map.get(&key).copied().unwrap_or(0);
        let per = self.limits.per_address;
        if per > 0 && mine >= per {
            drop(map);
            self.refused(&self.refused_address);
            return None;
        }
        let open = self.open.load(Ordering::Acquire);
        if open >= self.limits.max_connections {
            drop(map);
            self.refused(&self.refused_total);
            return None;
        }
        self.open.fetch_add(1, Ordering::AcqRel);
        *map.entry(key).or_insert(0) += 1;
        let reserved_only = open >= self.limits.max_connections - self.limits.reserved;
        Some(Ticket {
            admission: self.clone(),
            key,
            reserved_only,
        })
    }

    /// Counts a refusal; one warn line per [`REFUSAL_REPORT`].
    fn refused(&self, counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
        let mut last = self.report.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_none_or(|at| at.elapsed() >= REFUSAL_REPORT) {
            *last = Some(Instant::now());
            drop(last);
            tracing::warn!(
                over_address_limit = self.refused_address.swap(0, Ordering::Relaxed),
                over_total_limit = self.refused_total.swap(0, Ordering::Relaxed),
                open = self.open.load(Ordering::Relaxed),
                max_connections = self.limits.max_connections,
                max_per_address = self.limits.per_address,
                "connections refused (server limits, docs/server.md)"
            );
        }
    }
}

/// The arbiter's routes: `/arbiter/…` and the console (`/console…`).
pub fn is_arbiter_path(path: &str) -> bool {
    path.starts_with("/arbiter/") || path == "/console" || path.starts_with("/console/")
}

/// The listener's rules per request (a middleware on every route): a
/// connection in the arbiter's reserve serves only the arbiter's routes
/// (503 otherwise); the arbiter's routes answer only over TLS or from
/// loopback (403 otherwise, naming the HTTPS address), so no token or
/// session crosses the network in clear. A request served without
/// [`serve`] (no [`Connection`]) passes.
pub async fn guard(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{header, StatusCode};
    use axum::response::IntoResponse;
    let Some(conn) = req.extensions().get::<Connection>().copied() else {
        return next.run(req).await;
    };
    let arbiter = is_arbiter_path(req.uri().path());
    if conn.reserved_only && !arbiter {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "5"), (header::CONNECTION, "close")],
            "the server is full; try again shortly\n",
        )
            .into_response();
    }
    if arbiter && !conn.tls && !conn.is_loopback() {
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("this board")
            .to_owned();
        tracing::warn!(peer = %conn.peer, path = req.uri().path(), "arbiter route asked over plain HTTP: refused");
        return (
            StatusCode::FORBIDDEN,
            axum::Json(serde_json::json!({
                "error": format!("the arbiter's routes answer only over HTTPS: use https://{host}{} (docs/server.md)", req.uri().path())
            })),
        )
            .into_response();
    }
    next.run(req).await
}

/// Serves `router` on `listener` until the process ends (HTTP/1.1 with
/// WebSocket upgrades; HTTPS on the same port when `listening.tls` is set),
/// under `listening.limits`.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    listening: Listening,
) -> io::Result<()> {
    let admission = Admission::new(listening.limits.clone());
    let acceptor = listening
        .tls
        .as_ref()
        .map(|t| tokio_rustls::TlsAcceptor::from(t.config.clone()));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of file descriptors and the like: wait, keep serving.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(ticket) = admission.admit(peer.ip()) else {
            continue; // closed at once: over a limit
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let acceptor = acceptor.clone();
        let limits = listening.limits.clone();
        tokio::spawn(async move {
            let reserved_only = ticket.reserved_only;
            let tls = match &acceptor {
                Some(_) => match starts_tls(&stream, limits.idle_timeout).await {
                    Some(t) => t,
                    None => return, // closed or silent before its first byte
                },
                None => false,
            };
            let conn = Connection {
                peer,
                tls,
                reserved_only,
            };
            match (tls, acceptor) {
                (true, Some(acceptor)) => {
                    let handshake =
                        tokio::time::timeout(limits.idle_timeout, acceptor.accept(stream)).await;
                    match handshake {
                        Ok(Ok(s)) => serve_one(s, conn, router, &limits).await,
                        Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                }
                _ => serve_one(stream, conn, router, &limits).await,
            }
            drop(ticket);
        });
    }
}

/// Whether the client opens with a TLS handshake record (first byte
/// 0x16); `None` when it closes or sends nothing within `wait`.
async fn starts_tls(stream: &TcpStream, wait: Duration) -> Option<bool> {
    let mut first = [0u8; 1];
    match tokio::time::timeout(wait, stream.peek(&mut first)).await {
        Ok(Ok(1)) => Some(first[0] == 0x16),
        _ => None,
    }
}

/// Serves one connection's requests, each carrying `conn`.
async fn serve_one<S>(io: S, conn: Connection, router: Router, limits: &Limits)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = router.map_request(move |mut req: axum::extract::Request<_>| {
        req.extensions_mut().insert(conn);
        req
    });
    let service = TowerToHyperService::new(service);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.idle_timeout);
    let io = WriteTimeout::new(io, limits.write_timeout);
    let _ = http
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades()
        .await;
}

/// An I/O that fails a write left pending (the peer's window closed: it
/// reads nothing) for longer than its limit, so the connection is closed.
struct WriteTimeout<S> {
    io: S,
    limit: Duration,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> WriteTimeout<S> {
    fn new(io: S, limit: Duration) -> Self {
        WriteTimeout {
            io,
            limit,
            stalled: None,
        }
    }

    /// After a pending write: arms the timer (once) and fails when it has run out.
    fn pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let limit = self.limit;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing within the write timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteTimeout<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.io).poll_write(cx, buf) {
            Poll::Pending => self.pending(cx).map(|r| r.map(|()| 0)),
            done => {
                self.stalled = None;
                done
            }
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.io).poll_write_vectored(cx, bufs) {
            Poll::Pending => self.pending(cx).map(|r| r.map(|()| 0)),
            done => {
                self.stalled = None;
                done
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.io).poll_flush(cx) {
            Poll::Pending => self.pending(cx),
            done => {
                self.stalled = None;
                done
            }
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max: usize, per: usize, reserved: usize) -> Limits {
        Limits {
            max_connections: max,
            per_address: per,
            reserved,
            ..Limits::default()
        }
    }

    #[test]
    fn one_address_gets_its_share_and_no_more() {
        let a = Admission::new(limits(100, 3, 10));
        let x: IpAddr = "192.168.1.7".parse().unwrap();
        let y: IpAddr = "192.168.1.8".parse().unwrap();
        let held: Vec<_> = (0..3).map(|_| a.admit(x).unwrap()).collect();
        assert!(a.admit(x).is_none(), "a fourth from one address");
        assert!(a.admit(y).is_some(), "another address is still let in");
        drop(held);
        assert!(a.admit(x).is_some(), "slots come back when closed");
    }

    #[test]
    fn ipv6_hosts_count_by_their_64_prefix() {
        let a = Admission::new(limits(100, 2, 10));
        let p1: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let p2: IpAddr = "2001:db8:1:2:aaaa::9".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        let _h = (a.admit(p1).unwrap(), a.admit(p2).unwrap());
        assert!(a.admit(p1).is_none());
        assert!(a.admit(other).is_some());
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        let _m = (a.admit(mapped).unwrap(), a.admit(v4).unwrap());
        assert!(
            a.admit(v4).is_none(),
            "IPv4-mapped counts as the IPv4 address"
        );
    }

    #[test]
    fn the_last_slots_are_the_arbiters() {
        let a = Admission::new(limits(10, 0, 3));
        let mut held = Vec::new();
        for i in 0..10u8 {
            let t = a.admit(IpAddr::from([10, 0, 0, i])).unwrap();
            assert_eq!(t.reserved_only, i >= 7, "connection {i}");
            held.push(t);
        }
        assert!(a.admit(IpAddr::from([10, 0, 1, 1])).is_none(), "full");
        assert_eq!(a.open.load(Ordering::Relaxed), 10);
        drop(held);
        assert_eq!(a.open.load(Ordering::Relaxed), 0);
        assert!(a.per_address.lock().unwrap().is_empty());
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// A router with the guard, answering 200 on an arbiter and a public route.
    fn guarded() -> Router {
        use axum::routing::get;
        Router::new()
            .route("/arbiter/state", get(|| async { "state" }))
            .route("/games.pgn", get(|| async { "pgn" }))
            .layer(axum::middleware::from_fn(guard))
    }

    fn status(path: &str, conn: Option<Connection>) -> u16 {
        let mut req = axum::http::Request::get(path)
            .header("host", "board7.local:8080")
            .body(axum::body::Body::empty())
            .unwrap();
        if let Some(c) = conn {
            req.extensions_mut().insert(c);
        }
        rt().block_on(guarded().oneshot(req))
            .unwrap()
            .status()
            .as_u16()
    }

    #[test]
    fn the_arbiter_is_served_over_tls_or_loopback_only() {
        let at = |ip: &str, tls: bool| {
            Some(Connection {
                peer: SocketAddr::new(ip.parse().unwrap(), 50000),
                tls,
                reserved_only: false,
            })
        };
        assert_eq!(status("/arbiter/state", at("192.0.2.10", false)), 403);
        assert_eq!(status("/arbiter/state", at("192.0.2.10", true)), 200);
        assert_eq!(status("/arbiter/state", at("127.0.0.1", false)), 200);
        assert_eq!(status("/arbiter/state", at("::ffff:127.0.0.1", false)), 200);
        assert_eq!(
            status("/games.pgn", at("192.0.2.10", false)),
            200,
            "public feeds stay plain"
        );
        assert_eq!(status("/arbiter/state", None), 200, "no listener, no rule");
    }

    #[test]
    fn the_reserve_serves_the_arbiter_only() {
        let reserved = Some(Connection {
            peer: SocketAddr::new("192.0.2.10".parse().unwrap(), 50000),
            tls: true,
            reserved_only: true,
        });
        assert_eq!(status("/games.pgn", reserved), 503);
        assert_eq!(status("/arbiter/state", reserved), 200);
        assert!(is_arbiter_path("/console") && is_arbiter_path("/console/login"));
        assert!(!is_arbiter_path("/consoles") && !is_arbiter_path("/events"));
    }

    #[test]
    fn a_client_that_reads_nothing_is_closed_after_the_write_timeout() {
        use tokio::io::AsyncWriteExt;
        rt().block_on(async {
            // A pipe of 64 bytes the other end never reads.
            let (ours, _theirs) = tokio::io::duplex(64);
            let mut io = WriteTimeout::new(ours, Duration::from_millis(100));
            let started = Instant::now();
            let mut sent = 0usize;
            let err = loop {
                match io.write(&[b'x'; 32]).await {
                    Ok(n) => sent += n,
                    Err(e) => break e,
                }
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "never timed out"
                );
            };
            assert_eq!(err.kind(), io::ErrorKind::TimedOut);
            assert_eq!(sent, 64, "what fitted was written");
            assert!(started.elapsed() >= Duration::from_millis(100));
        });
    }

    #[test]
    fn a_client_that_reads_keeps_its_connection() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        rt().block_on(async {
            let (ours, mut theirs) = tokio::io::duplex(64);
            let mut io = WriteTimeout::new(ours, Duration::from_millis(200));
            let reader = tokio::spawn(async move {
                let mut got = Vec::new();
                theirs.read_to_end(&mut got).await.unwrap();
                got.len()
            });
            for _ in 0..100 {
                io.write_all(&[b'y'; 32]).await.unwrap();
            }
            io.shutdown().await.unwrap();
            drop(io);
            assert_eq!(reader.await.unwrap(), 3200);
        });
    }

    #[test]
    fn limits_fit_the_descriptor_limit() {
        let (l, fds) = limits(usize::MAX / 2, 8, 64).fitted_to_process();
        let fds = fds.expect("getrlimit works on Linux");
        assert!(l.max_connections + FD_MARGIN <= fds.max(16 + FD_MARGIN));
        assert!(l.reserved <= l.max_connections / 2);
    }
}
