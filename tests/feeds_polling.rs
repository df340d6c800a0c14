//! Polling etiquette on a running board daemon (issue 17): a poller of
//! `/games.pgn` and the JSON feeds gets `304 Not Modified` for the
//! validators it was given (strong `ETag`, `Last-Modified`), gzip when it
//! asks, and CORS preflights are answered for the public feeds only.

use crate::common;

use common::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

/// One HTTP/1.0 request: (status, headers lower-cased, body bytes).
fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).expect("read response");
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let (status, hs) = parse_head(&buf[..split]);
    (status, hs, buf[split + 4..].to_vec())
}

/// The status and the headers (names lower-cased) of a response head.
fn parse_head(head: &[u8]) -> (u16, Vec<(String, String)>) {
    let head = String::from_utf8_lossy(head);
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let hs = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, hs)
}

/// The status and headers of a stream that does not end (read up to the
/// end of the head only).
fn stream_head(addr: &str, path: &str, headers: &[(&str, &str)]) -> (u16, Vec<(String, String)>) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 512];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = s.read(&mut chunk).expect("read the head");
        assert!(n > 0, "the stream closed before its head ended");
        buf.extend_from_slice(&chunk[..n]);
    }
    let end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(buf.len());
    parse_head(&buf[..end])
}

fn header<'a>(hs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    hs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn gunzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut child = Command::new("gzip")
        .arg("-dc")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(bytes).ok()?;
    let out = child.wait_with_output().ok()?;
    out.status.success().then_some(out.stdout)
}

#[test]
fn a_poller_gets_304s_gzip_and_cors() {
    let dir = tempdir("feeds-polling");
    let trace = opera_trace(&dir, 3);
    let cfg = config(&dir, 1, 1, "");
    let board = run_board(&dir, &cfg, Some(&trace), &["--speed", "60"]);
    let addr = board.addr.clone();
    poll(90, "the game's end", || {
        get(&addr, "/games.pgn")
            .contains("[Result \"1-0\"]")
            .then_some(())
    });

    for path in [
        "/games.pgn",
        "/tournament.json",
        "/boards.json",
        "/round-1/index.json",
        "/round-1/game-1.json",
    ] {
        let (status, hs, body) = http(&addr, "GET", path, &[]);
        assert_eq!(status, 200, "{path}");
        assert!(!body.is_empty());
        let tag = header(&hs, "etag").unwrap_or_else(|| panic!("{path}: no ETag"));
        assert!(tag.starts_with('"') && tag.ends_with('"'), "strong: {tag}");
        let modified = header(&hs, "last-modified")
            .expect("Last-Modified")
            .to_owned();
        assert!(modified.ends_with(" GMT"), "{modified}");
        assert_eq!(header(&hs, "access-control-allow-origin"), Some("*"));
        // The same content: the same tag.
        let (_, hs2, _) = http(&addr, "GET", path, &[]);
        assert_eq!(header(&hs2, "etag"), Some(tag), "{path}: stable tag");

        let (status, hs304, body) = http(&addr, "GET", path, &[("If-None-Match", tag)]);
        assert_eq!(status, 304, "{path}: If-None-Match");
        assert!(body.is_empty(), "{path}: a 304 has no body");
        assert_eq!(header(&hs304, "etag"), Some(tag));
        let (status, _, _) = http(&addr, "GET", path, &[("If-Modified-Since", &modified)]);
        assert_eq!(status, 304, "{path}: If-Modified-Since");
        let (status, _, _) = http(&addr, "GET", path, &[("If-None-Match", "\"stale\"")]);
        assert_eq!(status, 200, "{path}: another tag is another version");
        let (status, _, _) = http(
            &addr,
            "GET",
            path,
            &[("If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT")],
        );
        assert_eq!(status, 200, "{path}: modified since 1970");
    }

    // gzip when asked; the same text after decompression; its own tag.
    let (_, plain_hs, plain) = http(&addr, "GET", "/games.pgn", &[]);
    let (status, hs, zipped) = http(&addr, "GET", "/games.pgn", &[("Accept-Encoding", "gzip")]);
    assert_eq!(status, 200);
    assert_eq!(header(&hs, "content-encoding"), Some("gzip"), "{hs:?}");
    assert!(
        zipped.len() < plain.len(),
        "{} !< {}",
        zipped.len(),
        plain.len()
    );
    match gunzip(&zipped) {
        Some(text) => assert_eq!(text, plain),
        None => skip_or_fail_under_ci("gzip (the program) not installed"),
    }
    assert_ne!(header(&hs, "etag"), header(&plain_hs, "etag"));
    let gz_tag = header(&hs, "etag").unwrap().to_owned();
    let (status, _, _) = http(
        &addr,
        "GET",
        "/games.pgn",
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &gz_tag)],
    );
    assert_eq!(status, 304);

    // CORS preflight: the public feeds and the stream, not the arbiter API.
    let pre = [
        ("Origin", "https://example.org"),
        ("Access-Control-Request-Method", "GET"),
        ("Access-Control-Request-Headers", "if-none-match"),
    ];
    for path in ["/games.pgn", "/round-1/game-1.json", "/events"] {
        let (status, hs, _) = http(&addr, "OPTIONS", path, &pre);
        assert_eq!(status, 204, "{path}");
        assert_eq!(header(&hs, "access-control-allow-origin"), Some("*"));
        assert!(header(&hs, "access-control-allow-methods")
            .unwrap()
            .contains("GET"));
        assert!(header(&hs, "access-control-allow-headers")
            .unwrap()
            .contains("If-None-Match"));
    }
    let (status, hs, _) = http(&addr, "OPTIONS", "/arbiter/pause", &pre);
    assert_ne!(status, 204, "no preflight for the arbiter API");
    assert_eq!(header(&hs, "access-control-allow-origin"), None);
    // The streams: the public one readable from any page, the arbiter's
    // channel from none (it once answered `*`).
    let (status, hs) = stream_head(&addr, "/events", &[]);
    assert_eq!(status, 200);
    assert_eq!(header(&hs, "access-control-allow-origin"), Some("*"));
    let token = [ARBITER_AUTH, ("Origin", "https://example.org")];
    let (status, hs) = stream_head(&addr, "/arbiter/events", &token);
    assert_eq!(status, 200);
    assert_eq!(header(&hs, "access-control-allow-origin"), None, "{hs:?}");
    drop(board);
    std::fs::remove_dir_all(&dir).ok();
}
