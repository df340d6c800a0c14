//! Helpers shared by the integration tests (each test binary compiles this
//! module on its own, hence `allow(dead_code)`):
//!
//! - [`trace`]: the one step language for hand-written traces
//!   ([`TraceBuilder`]) and in-process replay to the event stream;
//! - [`process`]: the `eboard` binary run once ([`eboard`], [`eboard_ok`]) or
//!   as a daemon on loopback ([`spawn`], [`run_board`]);
//! - [`skip`]: skipping (or failing under CI) without a program or the corpus;
//! - [`round`]: a round of boards from traces (a directory, config,
//!   trace and journal a table);
//! - [`console`]: a relay with accounts (HTTP over running boards, or
//!   MQTT), the console's logins and what it says;
//! - [`mosquitto`]: a broker on loopback for the MQTT tests, set up as
//!   `docs/mqtt.md` says (password file, ACL) when asked;
//! - [`browser`]: a headless Chromium page driven over the DevTools
//!   protocol, with its helpers (evaluate, wait, click, log in);
//! - [`paced`]: audio outputs captured at real-time speed (ALSA into a
//!   FIFO read at the sample rate);
//! - [`voice`]: a game through `eboard run` with real speech and one paced
//!   output per listener, its journal replayed, the per-ear checks;
//! - [`doc_commands`]: the `eboard …` commands of the user docs' code
//!   blocks, as written;
//! - [`standings`]: a round of six boards configured from a TRF by
//!   `eboard event` and a relay knowing the pairings (`/standings.json`,
//!   `/hall`);
//! - [`pairings`]: the TRF-16 pairing file of `eboard event`'s tests;
//! - [`doctor`]: `eboard doctor --json` run, and one row of its table;
//! - [`copies`]: Appendix E's two-board game (its header, what is said);
//! - [`restart`]: a board on its journal killed and started again, and the
//!   journal edits that stand for a longer downtime, a new boot, a step of
//!   the wall clock;
//! - [`dgt_fake`]: a fake DGT board and DGT 3000 on a real pseudo-terminal,
//!   and the driver's rig on its other side;
//! - here: temporary directories, HTTP / SSE / WebSocket clients on plain
//!   blocking sockets with bounded waits, the Opera Game as a trace, a
//!   board config, python-chess as a PGN reader.
#![allow(dead_code, unused_imports)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub mod browser;
pub mod clock;
pub mod console;
pub mod copies;
pub mod dgt_fake;
pub mod doc_commands;
pub mod doctor;
pub mod heldout;
pub mod lichess;
pub mod mosquitto;
pub mod paced;
pub mod pairings;
pub mod process;
pub mod restart;
pub mod round;
pub mod skip;
pub mod standings;
pub mod tls;
pub mod trace;
pub mod venue64;
pub mod voice;

pub use browser::*;
pub use process::*;
pub use round::*;
pub use skip::*;
pub use trace::*;

/// A number not given out before in this process (file and directory
/// names of concurrent tests and processes must not collide).
fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A PGN's result when the game is over (`[Result "…"]` other than `*`).
pub fn result_of(pgn: &str) -> Option<String> {
    let line = pgn.lines().find(|l| l.starts_with("[Result "))?;
    let r = line
        .trim_start_matches("[Result \"")
        .trim_end_matches("\"]");
    (r != "*").then(|| r.to_owned())
}

/// The board's `/games.pgn` once its game has a result (waits at most 60 s).
pub fn final_pgn(addr: &str) -> String {
    poll(60, "the game's result in /games.pgn", || {
        let pgn = get(addr, "/games.pgn");
        result_of(&pgn).map(|_| pgn)
    })
}

/// `--journal JOURNAL --speed 100 --delay DELAY_S`: a recorded game run
/// fast with its journal, for the restart tests.
pub fn journal_args(journal: &Path, delay_s: u32) -> Vec<String> {
    journal_speed_delay(journal, "100", &delay_s.to_string())
}

/// `--journal JOURNAL --speed SPEED --delay DELAY_S`.
pub fn journal_speed_delay(journal: &Path, speed: &str, delay_s: &str) -> Vec<String> {
    [
        "--journal",
        journal.to_str().unwrap(),
        "--speed",
        speed,
        "--delay",
        delay_s,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// The wall clock stepped by `ms` (negative: back) while the daemon was
/// down: the journal's `started_at_unix_ms` moved `ms` back, so round time
/// 0 lies that much further back on the new wall clock.
pub fn shift_journal_start(journal: &Path, ms: i64) {
    let text = std::fs::read_to_string(journal).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(head).unwrap();
    let start = header["journal"]["started_at_unix_ms"].as_i64().unwrap();
    header["journal"]["started_at_unix_ms"] = serde_json::Value::from(start - ms);
    // Sealed again (its checksum, issue 41), as the daemon would have
    // written it: the edit is the test's, not damage.
    let sealed = header.as_object_mut().unwrap().remove("crc32c").is_some();
    let head = match sealed {
        true => eboard::disk::checksum::seal_json(&header.to_string()),
        false => header.to_string(),
    };
    std::fs::write(journal, format!("{head}\n{rest}")).unwrap();
}

/// The `&str`s of `v`, for an argument list.
pub fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// A fresh temporary directory for one test.
pub fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "eboard-test-{name}-{}-{}",
        std::process::id(),
        unique()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One HTTP/1.0 request (`Content-Type: application/json` with a body);
/// returns (status, head, body).
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(http_request(addr, method, path, headers, body).as_bytes())
        .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).expect("read response");
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_owned(), body.to_owned())
}

/// The text of one HTTP/1.0 request to `addr` (`Content-Type:
/// application/json` with a body).
pub fn http_request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> String {
    let mut req = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        req.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    req
}

/// The text of an HTTP/1.1 request for the event stream `path` at `addr`.
pub fn sse_request(addr: &str, path: &str, headers: &[(&str, &str)]) -> String {
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req
}

/// One HTTP/1.0 request; returns (status, body).
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let (status, _, body) = http(addr, method, path, headers, body);
    (status, body)
}

/// The header `name` of `headers` as text (empty when absent or not text).
pub fn header_text(headers: &axum::http::HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

/// GET, expecting 200.
pub fn get(addr: &str, path: &str) -> String {
    let (status, body) = request(addr, "GET", path, &[], "");
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

/// Polls `f` every 20 ms until it returns `Some`, at most `secs` seconds.
pub fn poll<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits (at most `secs` seconds) until the file `path` contains `text`.
pub fn wait_for_text(secs: u64, what: &str, path: &Path, text: &str) {
    poll(secs, what, || {
        std::fs::read_to_string(path)
            .ok()?
            .contains(text)
            .then_some(())
    });
}

/// The value of the PGN tag `name` in `pgn` (its first game), if any.
pub fn pgn_tag<'a>(pgn: &'a str, name: &str) -> Option<&'a str> {
    let prefix = format!("[{name} \"");
    pgn.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .and_then(|l| l.strip_suffix("\"]"))
}

/// A server-sent-events reader on its own thread: every `data:` line with
/// the local Unix time (ms) of its arrival.
pub struct SseReader {
    pub rx: std::sync::mpsc::Receiver<(u64, serde_json::Value)>,
}

pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

impl SseReader {
    pub fn open(addr: &str, path: &str, headers: &[(&str, &str)]) -> SseReader {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.write_all(sse_request(addr, path, headers).as_bytes())
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(s);
            let mut line = String::new();
            while r.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                // Chunked framing lines are not JSON; only data lines count.
                if let Some(d) = line.trim_end().strip_prefix("data: ") {
                    if let Ok(v) = serde_json::from_str(d) {
                        if tx.send((unix_ms(), v)).is_err() {
                            break;
                        }
                    }
                }
                line.clear();
            }
        });
        SseReader { rx }
    }

    /// Messages until `stop` says so (the last one included), bounded in time.
    pub fn until(
        &self,
        secs: u64,
        mut stop: impl FnMut(&serde_json::Value) -> bool,
    ) -> Vec<(u64, serde_json::Value)> {
        let end = Instant::now() + Duration::from_secs(secs);
        let mut out = Vec::new();
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok((at, v)) => {
                    let done = stop(&v);
                    out.push((at, v));
                    if done {
                        return out;
                    }
                }
                Err(_) => panic!(
                    "stream: timed out; got {} messages: {:?}",
                    out.len(),
                    out.last()
                ),
            }
        }
    }
}

/// The Opera Game (Morphy, Paris 1858), from `src/data/opera-game.pgn`.
pub fn opera_game() -> eboard::pgn::PgnGame {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/data/opera-game.pgn"
    ))
    .unwrap();
    eboard::pgn::read_games(&text).unwrap().remove(0)
}

/// The Opera Game simulated into a trace file in `dir`.
pub fn opera_trace(dir: &Path, seed: u64) -> PathBuf {
    let trace = eboard::sim::simulate(
        &opera_game(),
        &eboard::sim::SimOptions {
            seed,
            ..Default::default()
        },
    )
    .unwrap();
    // The PGN's 600+5 is not the game's: the tests' configs set theirs
    // (`config`: 5400+30), and `eboard run` refuses a header that
    // contradicts the config.
    let mut trace = trace;
    trace.header.time_control = None;
    let p = dir.join("game.jsonl");
    let mut f = std::fs::File::create(&p).unwrap();
    trace.write(&mut f).unwrap();
    p
}

/// The arbiter's token of [`config`] (128 random bits, as a real one must be).
pub const ARBITER_TOKEN: &str = "7f3c9a1e5b2d4c6e8a0b1c2d3e4f5a6b";
/// The request header that carries [`ARBITER_TOKEN`].
pub const ARBITER_AUTH: (&str, &str) = ("Authorization", "Bearer 7f3c9a1e5b2d4c6e8a0b1c2d3e4f5a6b");

/// `GET /arbiter/state` at the board `addr` with [`ARBITER_AUTH`] (200
/// expected): its first game's state.
pub fn board_state(addr: &str) -> serde_json::Value {
    let (s, b) = request(addr, "GET", "/arbiter/state", &[ARBITER_AUTH], "");
    assert_eq!(s, 200, "{b}");
    let v: serde_json::Value = serde_json::from_str(&b).unwrap();
    v[0]["state"].clone()
}

/// POSTs `body` to `path` at the board `addr` with [`ARBITER_AUTH`]:
/// (status, the reply as JSON, `null` when it is not).
pub fn board_post(addr: &str, path: &str, body: serde_json::Value) -> (u16, serde_json::Value) {
    let (s, b) = request(addr, "POST", path, &[ARBITER_AUTH], &body.to_string());
    (
        s,
        serde_json::from_str(&b).unwrap_or(serde_json::Value::Null),
    )
}

/// A board config in `dir`.
pub fn config(dir: &Path, round: u32, board: u32, extra: &str) -> PathBuf {
    let p = dir.join(format!("board{board}.toml"));
    std::fs::write(
        &p,
        format!(
            r#"[event]
name = "DM 2026"
site = "Odense DEN"
date = "2026.04.03"
time_control = "5400+30"

[game]
round = {round}
board = {board}

[game.white]
name = "Morphy, Paul"
fide_id = 9000001
title = "GM"
federation = "USA"

[game.black]
name = "Karl, Duke"
fide_id = 9000002

[arbiter]
name = "Chief Arbiter"
token = "7f3c9a1e5b2d4c6e8a0b1c2d3e4f5a6b"
{extra}"#
        ),
    )
    .unwrap();
    p
}

/// python3 with python-chess, when installed.
pub fn python_chess() -> Option<&'static str> {
    let ok = Command::new("python3")
        .args(["-c", "import chess.pgn"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok.then_some("python3")
}

/// Parses PGN with python-chess: per game, the headers, the SAN moves, the
/// clocks and comments (JSON).
pub fn parse_pgn_with_python(pgn: &str) -> serde_json::Value {
    let script = r#"
import sys, json, io, chess.pgn
out = []
f = io.StringIO(sys.stdin.read())
while True:
    g = chess.pgn.read_game(f)
    if g is None:
        break
    if g.errors:
        raise SystemExit("errors: %r" % g.errors)
    moves, clocks, comments = [], [], []
    node = g
    while node.variations:
        node = node.variation(0)
        moves.append(node.san())
        clocks.append(node.clock())
        comments.append(node.comment)
    out.append({"headers": dict(g.headers), "moves": moves, "clocks": clocks, "comments": comments, "first_comment": g.comment})
print(json.dumps(out))
"#;
    let out = output_with_input(Command::new("python3").args(["-c", script]), pgn);
    assert!(
        out.status.success(),
        "python-chess: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Opens `/ws`, returns the text of the first `n` frames (server frames
/// are unmasked; enough of RFC 6455 for a test).
pub fn ws_messages(addr: &str, n: usize) -> Vec<String> {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = format!(
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    assert!(line.contains("101"), "upgrade refused: {line}");
    loop {
        line.clear();
        r.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
    }
    let mut out = Vec::new();
    while out.len() < n {
        let (opcode, payload) = ws_frame(&mut r).expect("a WebSocket frame");
        if opcode == 1 {
            out.push(String::from_utf8(payload).unwrap());
        }
    }
    out
}

/// One WebSocket frame from the server (RFC 6455 §5.2; server frames are
/// not masked): its opcode (1 text, 8 close, 9 ping) and payload; `None`
/// when the connection ends or fails.
pub fn ws_frame(r: &mut impl Read) -> Option<(u8, Vec<u8>)> {
    let mut h = [0u8; 2];
    r.read_exact(&mut h).ok()?;
    let len = match h[1] & 0x7f {
        126 => {
            let mut b = [0u8; 2];
            r.read_exact(&mut b).ok()?;
            u64::from(u16::from_be_bytes(b))
        }
        127 => {
            let mut b = [0u8; 8];
            r.read_exact(&mut b).ok()?;
            u64::from_be_bytes(b)
        }
        l => u64::from(l),
    };
    let mut payload = vec![0u8; usize::try_from(len).ok()?];
    r.read_exact(&mut payload).ok()?;
    Some((h[0] & 0x0f, payload))
}

/// An events-file line a test edited (`v`, read from `JOURNAL.events`)
/// written back as the daemon writes it: its old checksum key taken off,
/// the line sealed again (`eboard::disk::checksum::seal_json`, the last key
/// `"crc32c"`, `docs/journal.md`), with its newline. A test that changes a
/// line stages another run's file, not damage.
pub fn sealed_event_line(v: &serde_json::Value) -> String {
    let mut v = v.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove(eboard::disk::checksum::KEY);
    }
    eboard::disk::checksum::seal_json(&v.to_string()) + "\n"
}
