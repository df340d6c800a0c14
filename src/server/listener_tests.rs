//! Tests of the listener: the guard, the write timeout, the limits fitted
//! to the descriptor limit.

use super::*;

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
fn the_arbiters_paths() {
    assert!(is_arbiter_path("/console") && is_arbiter_path("/console/login"));
    assert!(is_arbiter_path("/arbiter/state"));
    assert!(!is_arbiter_path("/consoles") && !is_arbiter_path("/events"));
}

#[test]
fn a_client_that_reads_nothing_is_closed_after_the_write_timeout() {
    use tokio::io::AsyncWriteExt;
    rt().block_on(async {
        // A pipe of 64 bytes the other end never reads.
        let (ours, _theirs) = tokio::io::duplex(64);
        let mut io = WriteTimeout::new(ours, Duration::from_millis(100));
        let started = std::time::Instant::now();
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
    let l = Limits {
        max_connections: usize::MAX / 2,
        ..Limits::default()
    };
    let (l, fds) = l.fitted_to_process();
    let fds = fds.expect("getrlimit works on Linux");
    assert!(l.max_connections + FD_MARGIN <= fds.max(16 + FD_MARGIN));
    assert!(l.reserved <= l.max_connections / 2);
    assert!(l.max_streams <= l.max_connections / 4);
}
