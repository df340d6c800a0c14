//! The HTTP listener of a real board daemon under the issue 18 probes
//! (`docs/server.md`): one address holding thousands of idle and
//! never-reading stream connections does not lock spectators or the
//! arbiter out; idle keep-alive connections are closed; HTTPS on the same
//! port with the certificate made at first start.

use crate::common;

use common::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Raises this process's open-file limit to the hard limit; the soft limit after.
fn raise_fd_limit() -> usize {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain struct in/out.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        lim.rlim_cur = lim.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
    }
    lim.rlim_cur as usize
}

/// Opens `n` connections from 127.0.0.2 (another address than the
/// spectators' 127.0.0.1) to `addr`; with `request`, each sends it and then
/// never reads. Returns the sockets (held open) and how many connected.
async fn attack(
    addr: SocketAddr,
    n: usize,
    request: Option<&'static str>,
) -> Vec<tokio::net::TcpStream> {
    use tokio::io::AsyncWriteExt;
    let mut held = Vec::with_capacity(n);
    for _ in 0..n {
        let Ok(sock) = tokio::net::TcpSocket::new_v4() else {
            break;
        };
        if sock.bind("127.0.0.2:0".parse().unwrap()).is_err() {
            break;
        }
        let Ok(Ok(mut s)) = tokio::time::timeout(Duration::from_secs(5), sock.connect(addr)).await
        else {
            continue;
        };
        if let Some(r) = request {
            let _ = s.write_all(r.as_bytes()).await;
        }
        held.push(s);
    }
    held
}

/// One timed request from the spectators' address: (status, seconds).
fn timed(addr: &str, method: &str, path: &str, headers: &[(&str, &str)]) -> (u16, f64) {
    let t = Instant::now();
    let (status, _) = request(addr, method, path, headers, "");
    (status, t.elapsed().as_secs_f64())
}

#[test]
fn one_address_cannot_lock_out_spectators_or_the_arbiter() {
    let dir = tempdir("lockout");
    let fds = raise_fd_limit();
    // The probe of the issue: 4,200 idle + 4,200 never-reading SSE clients.
    let n = 4200.min(fds.saturating_sub(600) / 2);
    if n < 4200 {
        println!("open-file limit {fds}: {n} + {n} attack connections instead of 4200 + 4200");
    }
    let cfg = config(&dir, 1, 1, "");
    let trace = opera_trace(&dir, 7);
    let board = run_board(&dir, &cfg, Some(&trace), &[]);
    let addr: SocketAddr = board.addr.parse().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    // The attack runs while the spectators poll and the arbiter rules.
    let attacker = rt.spawn(async move {
        let idle = attack(addr, n, None).await;
        let streams = attack(addr, n, Some("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")).await;
        (idle, streams)
    });
    let mut worst: f64 = 0.0;
    let mut served = 0;
    let auth = [ARBITER_AUTH];
    let mut round = 0;
    while !attacker.is_finished() || round < 3 {
        round += 1;
        for (method, path, headers) in [
            ("GET", "/games.pgn", &[][..]),
            ("GET", "/boards.json", &[][..]),
            ("GET", "/", &[][..]),
            ("GET", "/arbiter/state", &auth[..]),
            ("POST", "/arbiter/pause", &auth[..]),
            ("POST", "/arbiter/resume", &auth[..]),
        ] {
            let (status, secs) = timed(&board.addr, method, path, headers);
            assert_eq!(
                status, 200,
                "{method} {path} during the attack (round {round})"
            );
            worst = worst.max(secs);
            served += 1;
        }
        assert!(round < 10_000, "the attack never ended");
    }
    let (idle, streams) = rt.block_on(attacker).unwrap();
    // Still held by the attacker, and still every request answered.
    let sse = SseReader::open(&board.addr, "/events", &[]);
    drop(sse);
    println!(
        "attack: {} idle + {} stream connections opened from 127.0.0.2; {served} requests \
         (feeds, page, arbiter state and rulings) served from 127.0.0.1, slowest {:.3} s",
        idle.len(),
        streams.len(),
        worst
    );
    assert!(
        worst < 3.0,
        "a spectator or the arbiter waited {worst:.3} s (measured target: under 1 s, docs/dev/server-notes.md)"
    );
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        log.contains("connections refused"),
        "the refusals are reported: {log}"
    );
    drop((idle, streams));
}

#[test]
fn an_idle_keep_alive_connection_is_closed() {
    let dir = tempdir("idle");
    let cfg = config(&dir, 1, 1, "\n[server]\nidle_timeout_s = 1\n");
    let trace = opera_trace(&dir, 7);
    let board = run_board(&dir, &cfg, Some(&trace), &[]);
    let mut s = TcpStream::connect(&board.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(8))).unwrap();
    s.write_all(b"GET /boards.json HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    // The response, then the connection stays open (keep-alive) until idle.
    let started = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let closed = loop {
        match s.read(&mut buf) {
            Ok(0) => break true,
            Ok(k) => got.extend_from_slice(&buf[..k]),
            Err(_) => break false, // read timed out: never closed
        }
    };
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        closed,
        "an idle keep-alive connection is still open after 8 s"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "closed before its idle time"
    );
}

#[test]
fn https_on_the_same_port_with_the_certificate_made_at_first_start() {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempdir("https");
    let cfg = config(&dir, 1, 1, "");
    let trace = opera_trace(&dir, 7);
    let board = run_board(&dir, &cfg, Some(&trace), &[]);
    // Made beside the config, its fingerprint logged.
    let pem = std::fs::read(dir.join("eboard-tls-cert.pem")).expect("the certificate is kept");
    let der = CertificateDer::from_pem_slice(&pem).unwrap();
    let print = ring::digest::digest(&ring::digest::SHA256, &der)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":");
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        log.contains(&print),
        "the fingerprint {print} is logged: {log}"
    );
    // A client that trusts exactly this certificate (pinned).
    let mut roots = rustls::RootCertStore::empty();
    roots.add(der).unwrap();
    let client = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(client));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let addr = board.addr.clone();
    let answer = |path: &'static str, token: &'static str| {
        let connector = connector.clone();
        let addr = addr.clone();
        rt.block_on(async move {
            let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let name = ServerName::try_from("127.0.0.1").unwrap();
            let mut tls = connector.connect(name, tcp).await.expect("TLS handshake");
            let req = format!(
                "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
            );
            tls.write_all(req.as_bytes()).await.unwrap();
            let mut out = Vec::new();
            let _ = tls.read_to_end(&mut out).await;
            String::from_utf8_lossy(&out).into_owned()
        })
    };
    let state = answer("/arbiter/state", ARBITER_TOKEN);
    assert!(state.starts_with("HTTP/1.1 200"), "{state}");
    let wrong = answer("/arbiter/state", "wrong-token");
    assert!(wrong.starts_with("HTTP/1.1 401"), "{wrong}");
    let pgn = answer("/games.pgn", "");
    assert!(pgn.contains("[White \"Morphy, Paul\"]"), "{pgn}");
    // Plain HTTP still answers on the same port.
    assert!(get(&board.addr, "/games.pgn").contains("Morphy"));
    // A second start keeps the certificate (the pin stays valid).
    drop(board);
    let again = run_board(&dir, &cfg, Some(&trace), &[]);
    let pem2 = std::fs::read(dir.join("eboard-tls-cert.pem")).unwrap();
    assert_eq!(pem, pem2);
    drop(again);
}
