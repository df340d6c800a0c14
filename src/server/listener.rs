//! The HTTP listener: who is let in, for how long, and over what (issue 18
//! §1 and §2; `docs/server.md`).
//!
//! - **Admission** ([`super::admission`]). At most
//!   [`Limits::max_connections`] connections at once and at most
//!   [`Limits::per_address`] from one address (IPv4 address, or IPv6
//!   /128), [`Limits::per_prefix`] from one IPv6 /64. When the house is
//!   full the oldest idle connection without credentials is closed to let
//!   the new one in; a connection refused is closed at once, before
//!   anything is read, and counted in a warn line: the first at once, then
//!   one per [`REFUSAL_REPORT`]. The last [`Limits::reserved`] slots are
//!   the arbiter's: a connection enters them once it has shown an arbiter
//!   or console route with valid credentials, and is then never closed to
//!   admit another. Streams have their own cap ([`Limits::max_streams`]).
//! - **Size.** A request head is at most [`HEAD_LIMIT`] bytes (431 past
//!   it), and a connection's read buffer at most [`READ_BUFFER`].
//! - **Time.** A client has [`Limits::idle_timeout`] to send a request head,
//!   also between requests on a keep-alive connection (hyper's header read
//!   timeout runs while the connection waits for the next request), and to
//!   finish a TLS handshake. A client that takes no bytes for
//!   [`Limits::write_timeout`] while the server has bytes for it (a stream
//!   client that stopped reading) is closed. A WebSocket client that does
//!   not answer a ping within [`Limits::stream_deadline`] is closed, even
//!   when everything sent to it fits the socket buffers.
//! - **TLS.** With a certificate ([`Tls`]), the same port answers HTTPS and
//!   plain HTTP: the first byte of a TLS ClientHello (0x16, a handshake
//!   record, RFC 8446 §5.1) can never start an HTTP request line. The
//!   arbiter's routes answer only over TLS or from loopback (see
//!   [`super::guard`]), so no arbiter credential crosses the network in
//!   clear.
//!
//! Every request carries its [`Connection`] and its
//! [`Slot`](super::admission::Slot) as extensions.

pub use super::admission::REFUSAL_REPORT;
use super::admission::{Admission, Busy, Slot};
pub use super::limits::Limits;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tower::ServiceExt;

/// A request slower than this to its response head is logged at debug
/// ([`serve_one`]).
pub const SLOW_REQUEST: Duration = Duration::from_millis(100);

/// The largest request head (request line and headers), bytes; a longer
/// one is answered 431 Request Header Fields Too Large (RFC 6585 §5) and
/// the connection closed (hyper's `http1::Builder::max_header_size`).
/// hyper's default, its ~400 KB read buffer, let 4,060 connections hold
/// 1.83 GB (issue 41 §2); nginx's `large_client_header_buffers` allows
/// 4 × 8 KiB. A browser's head with the console's cookies is under 2 KiB.
pub const HEAD_LIMIT: usize = 16 * 1024;

/// The most a connection's buffer holds (hyper's
/// `http1::Builder::max_buf_size`, at least 8 KiB): a head, or a request
/// body's pieces (bodies are at most [`super::BODY_LIMIT`]). At twice the
/// head limit, 1,000 connections each holding a head just under it took
/// 38 MB (hyper reserves up to this much per connection); at the head
/// limit, the figures in `docs/server.md`.
pub const READ_BUFFER: usize = HEAD_LIMIT;

/// File descriptors kept free below the process's limit for the journal,
/// the clock device, the uplinks and the arbiter's reserve.
pub const FD_MARGIN: usize = 64;

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
        self.max_streams = self.max_streams.min(self.max_connections / 4).max(1);
        self.per_prefix = self
            .per_prefix
            .min(self.max_connections / 4)
            .max(self.per_address);
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

/// The arbiter's routes: `/arbiter/…` and the console (`/console…`).
pub fn is_arbiter_path(path: &str) -> bool {
    path.starts_with("/arbiter/") || path == "/console" || path.starts_with("/console/")
}

/// The listener's rule per request (a middleware on every route): the
/// arbiter's routes answer only over TLS or from loopback (403 otherwise,
/// naming the HTTPS address), so no token or session crosses the network
/// in clear. A request served without [`serve`] (no [`Connection`]) passes.
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
        let accepted = std::time::Instant::now();
        // Over a limit: on probation, for the arbiter's credentials
        // (`Admission::admit_probation`), else closed at once.
        let Some(slot) = admission
            .admit(peer.ip())
            .or_else(|| admission.admit_probation(peer.ip()))
        else {
            continue; // closed at once: over a limit
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let acceptor = acceptor.clone();
        let limits = listening.limits.clone();
        tokio::spawn(async move {
            let evicted = slot.clone();
            tokio::select! {
                () = connection(stream, peer, slot, acceptor, router, limits, accepted) => {}
                // Closed to admit another while idle: dropping the
                // connection's future closes the socket.
                () = evicted.evicted() => tracing::debug!(%peer, "idle connection closed to admit another"),
            }
        });
    }
}

/// One admitted connection, from its first byte to its close.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    slot: Arc<Slot>,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
    router: Router,
    limits: Limits,
    accepted: std::time::Instant,
) {
    let tls = match &acceptor {
        Some(_) => match starts_tls(&stream, limits.idle_timeout).await {
            Some(t) => t,
            None => return, // closed or silent before its first byte
        },
        None => false,
    };
    let conn = Connection { peer, tls };
    match (tls, acceptor) {
        (true, Some(acceptor)) => {
            let handshake =
                tokio::time::timeout(limits.idle_timeout, acceptor.accept(stream)).await;
            match handshake {
                Ok(Ok(s)) => serve_one(s, conn, slot, router, &limits, accepted).await,
                Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
            }
        }
        _ => serve_one(stream, conn, slot, router, &limits, accepted).await,
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

/// Serves one connection's requests, each carrying `conn` and `slot`; the
/// slot is busy from a request's head until its response body is dropped.
/// A request whose response head took over [`SLOW_REQUEST`] from its
/// connection's accept (first request) or from its head is logged at debug
/// with the stages' times (issue 26, the slow spectator request).
async fn serve_one<S>(
    io: S,
    conn: Connection,
    slot: Arc<Slot>,
    router: Router,
    limits: &Limits,
    accepted: std::time::Instant,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let first = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let service = tower::service_fn(move |mut req: axum::extract::Request<_>| {
        let head = std::time::Instant::now();
        let since = match first.swap(false, std::sync::atomic::Ordering::Relaxed) {
            true => Some(head - accepted),
            false => None,
        };
        let busy = slot.busy();
        req.extensions_mut().insert(conn);
        req.extensions_mut().insert(slot.clone());
        let router = router.clone();
        let probation = slot.on_probation().then(|| slot.clone());
        async move {
            let path = req.uri().path().to_owned();
            if probation.is_some() && !is_arbiter_path(&path) {
                return Ok(over_limit(busy));
            }
            let mut response = router.oneshot(req).await?;
            if probation.is_some_and(|s| s.on_probation()) {
                // No credentials shown: this answer, then closed.
                response.headers_mut().insert(
                    axum::http::header::CONNECTION,
                    axum::http::HeaderValue::from_static("close"),
                );
            }
            let handler = head.elapsed();
            if handler + since.unwrap_or_default() > SLOW_REQUEST {
                tracing::debug!(
                    peer = %conn.peer,
                    path,
                    accept_to_head_ms = since.map(|d| d.as_secs_f64() * 1e3),
                    handler_ms = handler.as_secs_f64() * 1e3,
                    "slow request"
                );
            }
            Ok::<_, std::convert::Infallible>(
                response.map(|body| axum::body::Body::new(BusyBody { body, _busy: busy })),
            )
        }
    });
    let service = TowerToHyperService::new(service);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.idle_timeout)
        .max_header_size(HEAD_LIMIT)
        .max_buf_size(READ_BUFFER);
    let io = WriteTimeout::new(io, limits.write_timeout);
    let _ = http
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades()
        .await;
}

/// The answer to a public request on a connection on probation (over its
/// address's limit, [`super::admission::Admission::admit_probation`]): 503
/// with `Retry-After`, then closed.
fn over_limit(busy: Busy) -> axum::response::Response {
    use axum::http::{header, HeaderValue, StatusCode};
    let mut r = axum::response::Response::new(axum::body::Body::new(BusyBody {
        body: axum::body::Body::from(
            "too many connections from this address (server limits, docs/server.md): retry shortly\n",
        ),
        _busy: busy,
    }));
    *r.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let h = r.headers_mut();
    h.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// A response body that keeps its connection busy (not idle) until it is
/// sent or dropped.
struct BusyBody {
    body: axum::body::Body,
    _busy: Busy,
}

impl http_body::Body for BusyBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
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
#[path = "listener_tests.rs"]
mod tests;
