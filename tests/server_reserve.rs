//! The arbiter's reserve and the stream cap of a real board daemon under
//! many source addresses (issue 26 §3, `docs/server.md` "Connection
//! limits"), at a small scale: a house of 64 connections (8 reserved, 8
//! streams) filled from 16 loopback addresses by idle connections that
//! reconnect and by stream clients that never read. The arbiter (with his
//! token) and a spectator from another address are still served every
//! time; a fresh source's stream past the cap closes a never-reader's (the
//! busiest source's oldest unproven stream) instead of getting 503, while
//! sources holding about as many get 503 rather than closing each
//! other's; a WebSocket
//! client that reads nothing is closed, one that answers pings is not; a
//! client that takes 2 s to send its request is served during the flood.

use crate::common;

use common::*;
use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const LIMITS: &str = "\n[server]\nmax_connections = 64\nreserved_connections = 8\nmax_streams = 8\nmax_streams_per_address = 2\nstream_deadline_s = 1\n";

/// A connection from `source` to `addr` (None when it cannot be made).
fn connect_from(source: Ipv4Addr, addr: SocketAddr) -> Option<TcpStream> {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).ok()?;
    sock.bind(&SocketAddr::new(source.into(), 0).into()).ok()?;
    sock.connect_timeout(&addr.into(), Duration::from_secs(5))
        .ok()?;
    Some(sock.into())
}

/// Whether the server closed `s` (reads what is there without waiting).
fn closed(s: &mut TcpStream) -> bool {
    s.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 4096];
    let gone = loop {
        match s.read(&mut buf) {
            Ok(0) => break true,
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::WouldBlock => break false,
            Err(_) => break true,
        }
    };
    s.set_nonblocking(false).unwrap();
    gone
}

/// From each of `sources`, `per` idle connections, reopened whenever the
/// server closes one, until `stop`; counts the reconnections.
fn idle_flood(
    addr: SocketAddr,
    sources: Vec<Ipv4Addr>,
    per: usize,
    stop: Arc<AtomicBool>,
    reconnects: Arc<AtomicUsize>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut held: Vec<(Ipv4Addr, Option<TcpStream>)> = sources
            .iter()
            .flat_map(|&s| (0..per).map(move |_| (s, None)))
            .collect();
        while !stop.load(Ordering::Relaxed) {
            for (source, conn) in held.iter_mut() {
                if conn.as_mut().is_none_or(closed) {
                    if conn.is_some() {
                        reconnects.fetch_add(1, Ordering::Relaxed);
                    }
                    *conn = connect_from(*source, addr);
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    })
}

/// A `GET /events` from `source` whose status line is read, then nothing
/// more: (status, the connection).
fn stream_never_read(source: Ipv4Addr, addr: SocketAddr) -> (u16, TcpStream) {
    let mut s = connect_from(source, addr).expect("connect");
    s.write_all(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).unwrap();
    let status = String::from_utf8_lossy(&head[9..12]).parse().unwrap_or(0);
    (status, s)
}

/// One request from `source`: (status, seconds).
fn timed_from(
    source: Ipv4Addr,
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, f64) {
    let t = Instant::now();
    let Some(mut s) = connect_from(source, addr) else {
        return (0, t.elapsed().as_secs_f64());
    };
    let mut req = format!("GET {path} HTTP/1.0\r\nHost: x\r\n");
    for (k, v) in headers {
        req += &format!("{k}: {v}\r\n");
    }
    req += "\r\n";
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    if s.write_all(req.as_bytes()).is_err() {
        return (0, t.elapsed().as_secs_f64());
    }
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    let status = std::str::from_utf8(got.get(9..12).unwrap_or(b"000"))
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, t.elapsed().as_secs_f64())
}

#[test]
fn the_reserve_and_the_stream_cap_hold_under_many_addresses() {
    let dir = tempdir("reserve");
    let cfg = config(&dir, 1, 1, LIMITS);
    let trace = opera_trace(&dir, 7);
    let board = run_board(&dir, &cfg, Some(&trace), &[]);
    let addr: SocketAddr = board.addr.parse().unwrap();
    let sources: Vec<Ipv4Addr> = (2..18).map(|i| Ipv4Addr::new(127, 0, 0, i)).collect();
    // Never-reading streams from the 16 addresses: 2 each would be 32; the
    // cap holds 8 (issue 26 §3, the lease: none of them has proved it
    // reads). The first stream of each source is let in by closing an
    // unproven one (a source holding none always gets in); a second is let
    // in only while some source holds 2 more than its own (1 + 2 > 2: no
    // more once the first four sources are cut to one each): refused, 503,
    // rather than sources closing each other's streams in turn.
    let mut streams: Vec<(u16, TcpStream)> = sources
        .iter()
        .flat_map(|&s| [s, s])
        .map(|s| stream_never_read(s, addr))
        .collect();
    let firsts: Vec<u16> = streams.iter().step_by(2).map(|(st, _)| *st).collect();
    assert!(
        firsts.iter().all(|st| *st == 200),
        "a fresh source's stream past the cap closes an unproven one: {firsts:?}"
    );
    let refused = streams.iter().filter(|(st, _)| *st == 503).count();
    assert!(
        refused >= 8 && streams.iter().all(|(st, _)| *st == 200 || *st == 503),
        "second streams past the cap refused, not churned: {:?}",
        streams.iter().map(|(st, _)| *st).collect::<Vec<_>>()
    );
    let mut gone: Vec<bool> = streams.iter().map(|(st, _)| *st != 200).collect();
    poll(10, "the never-readers past the cap closed", || {
        for (g, (_, s)) in gone.iter_mut().zip(streams.iter_mut()) {
            *g = *g || closed(s);
        }
        (gone.iter().filter(|g| !**g).count() == 8).then_some(())
    });
    // Idle connections that reconnect: 16 × 4 = 64, the whole house.
    let stop = Arc::new(AtomicBool::new(false));
    let reconnects = Arc::new(AtomicUsize::new(0));
    let flood = idle_flood(addr, sources, 4, stop.clone(), reconnects.clone());
    // Until the house has turned over at least once (the flood's
    // connections closed to admit its own new ones).
    poll(20, "the idle flood filling the house", || {
        (reconnects.load(Ordering::Relaxed) >= 16).then_some(())
    });
    let arbiter_at = Ipv4Addr::LOCALHOST;
    let spectator_at = Ipv4Addr::new(127, 0, 0, 200);
    let auth = [ARBITER_AUTH];
    let mut worst: f64 = 0.0;
    for round in 0..40 {
        let (a, secs_a) = timed_from(arbiter_at, addr, "/arbiter/state", &auth);
        let (p, secs_p) = timed_from(spectator_at, addr, "/games.pgn", &[]);
        assert_eq!(a, 200, "the arbiter in round {round} of the flood");
        assert_eq!(p, 200, "a spectator in round {round} of the flood");
        worst = worst.max(secs_a).max(secs_p);
    }
    // The stream cap is still full of never-readers: a spectator's stream
    // from another address is let in all the same.
    let (st, _s) = stream_never_read(spectator_at, addr);
    assert_eq!(st, 200, "a spectator's stream past a cap of never-readers");
    stop.store(true, Ordering::Relaxed);
    flood.join().unwrap();
    println!(
        "80 requests (arbiter, spectator) served during the flood, slowest {worst:.3} s; \
         the flood reconnected {} times",
        reconnects.load(Ordering::Relaxed)
    );
    assert!(
        worst < 3.0,
        "served, but slowly: {worst:.3} s (a bound for a loaded CI machine)"
    );
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        log.contains("idle_closed"),
        "the closures are reported: {log}"
    );
    drop(streams);
}

/// Issue 41 §2: under a reconnect flood that turns the house over, a
/// client that takes 2 s to send its request was closed as the oldest
/// idle connection before it finished: never served. The connection
/// closed for a newcomer is now the oldest of the source holding the most.
#[test]
fn a_slow_request_start_is_served_under_a_reconnect_flood() {
    let dir = tempdir("slow-start");
    let cfg = config(&dir, 1, 1, LIMITS);
    let trace = opera_trace(&dir, 7);
    let board = run_board(&dir, &cfg, Some(&trace), &[]);
    let addr: SocketAddr = board.addr.parse().unwrap();
    let sources: Vec<Ipv4Addr> = (2..18).map(|i| Ipv4Addr::new(127, 0, 0, i)).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let reconnects = Arc::new(AtomicUsize::new(0));
    let flood = idle_flood(addr, sources, 4, stop.clone(), reconnects.clone());
    poll(20, "the idle flood filling the house", || {
        (reconnects.load(Ordering::Relaxed) >= 16).then_some(())
    });
    let slow_at = Ipv4Addr::new(127, 0, 0, 201);
    let mut answers = Vec::new();
    let mut turned = usize::MAX;
    for _ in 0..2 {
        let before = reconnects.load(Ordering::Relaxed);
        let mut s = connect_from(slow_at, addr).expect("connect");
        let _ = s.write_all(b"GET /games.pgn HTTP/1.1\r\n");
        // The slow client itself (the scenario, not a wait for a
        // condition): the rest of its head 2 s later.
        std::thread::sleep(Duration::from_secs(2));
        let _ = s.write_all(b"Host: x\r\nConnection: close\r\n\r\n");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut got = Vec::new();
        let _ = s.read_to_end(&mut got);
        let status: u16 = std::str::from_utf8(got.get(9..12).unwrap_or(b"000"))
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        answers.push(status);
        turned = turned.min(reconnects.load(Ordering::Relaxed) - before);
    }
    stop.store(true, Ordering::Relaxed);
    flood.join().unwrap();
    println!("a request head sent over 2 s during the flood: {answers:?}; the flood reconnected at least {turned} times meanwhile");
    assert!(
        turned >= 64,
        "the flood did not turn the house over during the slow start ({turned} reconnections): no test"
    );
    assert_eq!(answers, [200, 200], "the slow request start (0: closed)");
}

/// A WebSocket client frame (masked, RFC 6455 §5.3) of `opcode` with `payload` (< 126 bytes).
fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mask = [0x12, 0x34, 0x56, 0x78];
    let mut f = vec![0x80 | opcode, 0x80 | payload.len() as u8];
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

/// Opens `/ws` from `source` and reads the 101 head.
fn websocket(source: Ipv4Addr, addr: &str) -> TcpStream {
    let mut s = connect_from(source, addr.parse().unwrap()).expect("connect");
    s.write_all(
        b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut b).unwrap();
        head.push(b[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    s
}

/// Whether the server closes `s` within `wait` (reading what it sends,
/// pings included, meanwhile).
fn closed_within(s: &mut TcpStream, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = [0u8; 65536];
    while Instant::now() < until {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return true, // reset
        }
    }
    false
}

#[test]
fn a_websocket_client_that_reads_nothing_is_closed_one_that_answers_pings_is_not() {
    let dir = tempdir("ws-deadline");
    let cfg = config(&dir, 1, 1, LIMITS);
    let trace = opera_trace(&dir, 7);
    let board = run_board(&dir, &cfg, Some(&trace), &[]);
    let mut silent = websocket(Ipv4Addr::LOCALHOST, &board.addr);
    let mut reader = websocket(Ipv4Addr::LOCALHOST, &board.addr);
    // A client that reads nothing but sends a pong every 200 ms, with the
    // payload the daemon's pings used to carry: an unsolicited pong is no
    // answer (the payload must echo the ping's, RFC 6455 §5.5.3).
    let blind = websocket(Ipv4Addr::new(127, 0, 0, 2), &board.addr);
    let blind_stop = Arc::new(AtomicBool::new(false));
    let blind_pongs = {
        let mut out = blind.try_clone().unwrap();
        let stop = blind_stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if out.write_all(&client_frame(0xA, b"eboard")).is_err() {
                    break; // closed by the server
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    // The reader answers every ping for 4 s (two deadlines and more).
    let until = Instant::now() + Duration::from_secs(4);
    reader
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf: Vec<u8> = Vec::new();
    let mut pings = 0;
    while Instant::now() < until {
        let mut chunk = [0u8; 65536];
        match reader.read(&mut chunk) {
            Ok(0) => panic!("the reading client was closed after {pings} pings"),
            Ok(k) => buf.extend_from_slice(&chunk[..k]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) => panic!("the reading client: {e}"),
        }
        // Whole server frames (unmasked): answer pings.
        loop {
            if buf.len() < 2 {
                break;
            }
            let (len, at) = match buf[1] & 0x7f {
                126 if buf.len() >= 4 => (u16::from_be_bytes([buf[2], buf[3]]) as usize, 4),
                127 if buf.len() >= 10 => (
                    u64::from_be_bytes(buf[2..10].try_into().unwrap()) as usize,
                    10,
                ),
                126 | 127 => break,
                n => (n as usize, 2),
            };
            if buf.len() < at + len {
                break;
            }
            let frame: Vec<u8> = buf.drain(..at + len).collect();
            if frame[0] & 0x0f == 0x9 {
                pings += 1;
                reader.write_all(&client_frame(0xA, &frame[at..])).unwrap();
            }
        }
    }
    assert!(pings >= 2, "pinged every second: {pings} pings in 4 s");
    // The silent one read nothing in those 4 s: it was closed.
    silent
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut all = Vec::new();
    let end = silent.read_to_end(&mut all);
    assert!(
        end.is_ok(),
        "the client that read nothing is still open after 4 s: {end:?}"
    );
    // The blind one still sends its pongs while this waits: it must be
    // closed all the same (within two deadlines of 1 s, long past).
    let mut blind = blind;
    let end = closed_within(&mut blind, Duration::from_secs(5));
    blind_stop.store(true, Ordering::Relaxed);
    blind_pongs.join().unwrap();
    assert!(
        end,
        "the client that reads nothing but sends unsolicited pongs is still open 9 s on"
    );
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(log.contains("answered no ping"), "{log}");
}

/// Issue 41 §4: the arbiter's reserve from any address once
/// authenticated. One address (spectators behind the arbiter's NAT, say)
/// holds its whole budget of connections busy (4 streams that never
/// read, `max_connections_per_address = 4`): the arbiter from that same
/// address, with his token, is served every time (let in on probation,
/// into the reserve with his credentials); a spectator from it is refused
/// (503), and so is an arbiter's route without credentials after its
/// answer; another address is served as before.
#[test]
fn the_arbiter_is_served_from_an_address_holding_its_whole_budget() {
    let dir = tempdir("reserve-any-address");
    let limits = "\n[server]\nmax_connections = 64\nreserved_connections = 8\nmax_streams = 16\n\
                  max_connections_per_address = 4\nmax_streams_per_address = 4\n";
    let cfg = config(&dir, 1, 1, limits);
    let trace = opera_trace(&dir, 7);
    let board = run_board(&dir, &cfg, Some(&trace), &[]);
    let addr: SocketAddr = board.addr.parse().unwrap();
    let shared = Ipv4Addr::new(127, 0, 0, 41);
    let held: Vec<(u16, TcpStream)> = (0..4).map(|_| stream_never_read(shared, addr)).collect();
    assert!(held.iter().all(|(s, _)| *s == 200), "the four streams");
    let (mut arbiter, mut spectator, mut anonymous, mut other) = (0, 0, 0, 0);
    let start = Instant::now();
    for _ in 0..15 {
        arbiter +=
            usize::from(timed_from(shared, addr, "/arbiter/state", &[ARBITER_AUTH]).0 == 200);
        spectator += usize::from(timed_from(shared, addr, "/games.pgn", &[]).0 == 200);
        anonymous += usize::from(timed_from(shared, addr, "/arbiter/state", &[]).0 == 200);
        other +=
            usize::from(timed_from(Ipv4Addr::new(127, 0, 0, 42), addr, "/games.pgn", &[]).0 == 200);
        std::thread::sleep(Duration::from_millis(100));
    }
    let (status, _) = timed_from(shared, addr, "/games.pgn", &[]);
    println!(
        "one address holding its 4 connections busy: the arbiter (token) from it served \
         {arbiter}/15, a spectator from it {spectator}/15 (then {status}), without credentials \
         {anonymous}/15, another address {other}/15, in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(arbiter, 15, "the arbiter from the address at its limit");
    assert_eq!(spectator, 0, "a spectator from it");
    assert!(status == 503 || status == 0, "{status}");
    assert_eq!(anonymous, 0, "no credentials, no reserve");
    assert_eq!(other, 15, "another address");
    drop(held);
}

/// Issue 41 §4, from a venue's single /64: hosts of the /64 hold its whole
/// budget busy (4 hosts × 4 streams that never read = the 16 a /64 may
/// hold at `max_connections = 64`). The arbiter from a fifth host of the
/// same /64, with his token over TLS, is served every time; a spectator
/// from it is refused (503), as before (closed).
#[test]
fn the_arbiter_is_served_from_a_64_holding_its_whole_budget() {
    use common::venue64::*;
    in_venue_64(|| {
        let dir = tempdir("reserve-64");
        let limits =
            "\n[server]\nmax_connections = 64\nreserved_connections = 8\nmax_streams = 16\n\
                      max_connections_per_address = 4\nmax_streams_per_address = 4\n";
        let cfg = config(&dir, 1, 1, limits);
        let trace = opera_trace(&dir, 7);
        let args = [
            "run",
            "--config",
            cfg.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
        ];
        let _board = serving_at(&args, VENUE_BOARD, &dir);
        wait_for_text(
            20,
            "the certificate",
            &dir.join("stderr.txt"),
            "fingerprint=",
        );
        let addr: SocketAddr = VENUE_BOARD.parse().unwrap();
        let host = |s: &str| -> std::net::IpAddr { s.parse().unwrap() };
        let mut held = Vec::new();
        for h in [
            "2001:db8:41:64::a",
            "2001:db8:41:64::b",
            "2001:db8:41:64::c",
            "2001:db8:41:64::d",
        ] {
            for _ in 0..4 {
                let mut s = connect_from(host(h), addr).expect("connect");
                s.write_all(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
                    .unwrap();
                s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                let mut head = [0u8; 12];
                s.read_exact(&mut head).unwrap();
                assert_eq!(&head[9..12], b"200", "a stream of the /64");
                held.push(s);
            }
        }
        let (arbiter, neighbour) = (host("2001:db8:41:64::e"), host("2001:db8:41:64::f"));
        let (mut a_ok, mut n_ok) = (0, 0);
        let mut n_status = Vec::new();
        for _ in 0..15 {
            a_ok +=
                usize::from(tls_from(&dir, arbiter, addr, "/arbiter/state", ARBITER_TOKEN) == 200);
            let s = plain_from(neighbour, addr, "/games.pgn");
            n_ok += usize::from(s == 200);
            n_status.push(s);
        }
        println!(
            "a /64 holding its 16 connections busy: the arbiter (token, TLS) from a fifth host \
             served {a_ok}/15, a spectator from a sixth {n_ok}/15 ({n_status:?})"
        );
        assert_eq!(a_ok, 15, "the arbiter from the /64 at its budget");
        assert_eq!(n_ok, 0, "a spectator from it");
        assert!(
            n_status.iter().all(|s| *s == 503 || *s == 0),
            "{n_status:?}"
        );
        drop(held);
    });
}
