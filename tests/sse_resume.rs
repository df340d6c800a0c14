//! SSE `id:` and `Last-Event-ID` (issue 17 §3): a client that reconnects
//! with the id of the last message it read gets exactly the rest, on the
//! public stream and the arbiter's, also after a `kill -9` and a restart
//! of the daemon from its journal; an id ahead of the public stream gets
//! the states and nothing the delay holds; the relay resumes its boards.
//! A public stream ends after its lease with a proof in its last id: the
//! reconnect resumes exactly and is a proven reader, once; a forged or
//! reused proof is not; a full stream cap closes an unproven stream first;
//! a relay follows a board across its leases (issue 26 §3).

use crate::common;

use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// What an SSE stream sent: a message with its id, or a comment.
#[derive(Debug, Clone)]
enum Got {
    Msg { id: String, data: Value },
    Comment(String),
}

/// An SSE client on a raw socket, so its requests are exactly what is
/// written (a `Last-Event-ID` header included).
struct Client {
    rx: std::sync::mpsc::Receiver<Got>,
    stream: TcpStream,
    /// The `eboard-lease` response header (the lease and what the proof
    /// counted for), once read.
    lease: std::sync::Arc<std::sync::OnceLock<String>>,
}

impl Client {
    fn open(addr: &str, path: &str, headers: &[(&str, &str)]) -> Client {
        Client::open_from([127, 0, 0, 1], addr, path, headers)
    }

    /// [`Client::open`] from the loopback address `source` (each is
    /// another source to the daemon's admission).
    fn open_from(source: [u8; 4], addr: &str, path: &str, headers: &[(&str, &str)]) -> Client {
        let to: std::net::SocketAddr = addr.parse().expect("an IP:port");
        let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
            .expect("socket");
        sock.bind(&std::net::SocketAddr::from((source, 0)).into())
            .expect("bind a loopback source");
        sock.connect(&to.into()).expect("connect");
        let mut s: TcpStream = sock.into();
        s.write_all(sse_request(addr, path, headers).as_bytes())
            .unwrap();
        let stream = s.try_clone().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let lease = std::sync::Arc::new(std::sync::OnceLock::new());
        let header = lease.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(s);
            let mut line = String::new();
            let mut id = None;
            while r.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                let l = line.trim_end();
                if let Some(v) = l.strip_prefix("eboard-lease: ") {
                    let _ = header.set(v.to_owned());
                }
                // Chunked framing lines are neither fields nor comments.
                let got = if let Some(v) = l.strip_prefix("id: ") {
                    id = Some(v.to_owned());
                    None
                } else if let Some(d) = l.strip_prefix("data: ") {
                    serde_json::from_str(d).ok().map(|data| Got::Msg {
                        id: id.clone().unwrap_or_default(),
                        data,
                    })
                } else {
                    l.strip_prefix(':')
                        .filter(|c| !c.trim().is_empty())
                        .map(|c| Got::Comment(c.trim().to_owned()))
                };
                if let Some(g) = got {
                    if tx.send(g).is_err() {
                        break;
                    }
                }
                line.clear();
            }
        });
        Client { rx, stream, lease }
    }

    /// The `eboard-lease` header (it comes before any message).
    fn lease(&self) -> String {
        self.lease.get().cloned().unwrap_or_default()
    }

    /// Whether the server closed the stream within `ms` (what arrives in
    /// between is dropped).
    fn ended_within(&self, ms: u64) -> bool {
        let end = Instant::now() + Duration::from_millis(ms);
        loop {
            match self
                .rx
                .recv_timeout(end.saturating_duration_since(Instant::now()))
            {
                Ok(_) => continue,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return true,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => return false,
            }
        }
    }

    /// Items until `stop` says so (included), within `secs`.
    fn until(&self, secs: u64, mut stop: impl FnMut(&Got) -> bool) -> Vec<Got> {
        let end = Instant::now() + Duration::from_secs(secs);
        let mut out = Vec::new();
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(g) => {
                    let done = stop(&g);
                    out.push(g);
                    if done {
                        return out;
                    }
                }
                Err(_) => panic!("stream: timed out; got {} items: {out:?}", out.len()),
            }
        }
    }

    /// What arrives within `ms` (nothing expected, typically).
    fn quiet(&self, ms: u64) -> Vec<Got> {
        let end = Instant::now() + Duration::from_millis(ms);
        let mut out = Vec::new();
        while let Ok(g) = self
            .rx
            .recv_timeout(end.saturating_duration_since(Instant::now()))
        {
            out.push(g);
        }
        out
    }

    fn close(self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

fn is_end(g: &Got) -> bool {
    matches!(g, Got::Msg { data, .. } if data["type"] == "game_end")
}

fn msgs(items: &[Got]) -> Vec<(String, Value)> {
    items
        .iter()
        .filter_map(|g| match g {
            Got::Msg { id, data } => Some((id.clone(), data.clone())),
            Got::Comment(_) => None,
        })
        .collect()
}

/// The journaled message numbers of ids `STREAM-N` (the states, which
/// carry the id of where they stand, and out-of-band ids `STREAM-N-BOOT-K`
/// left out), checking the stream.
fn numbers(ms: &[(String, Value)], stream: &str) -> Vec<u64> {
    ms.iter()
        .filter(|(_, v)| v["type"] != "state")
        .filter_map(|(id, _)| {
            let mut p = id.split('-');
            assert_eq!(p.next(), Some(stream), "{id}");
            let n = p.next().unwrap().parse().unwrap();
            p.next().is_none().then_some(n)
        })
        .collect()
}

/// The plies of the move messages.
fn plies(ms: &[(String, Value)]) -> Vec<u64> {
    ms.iter()
        .filter(|(_, v)| v["type"] == "move")
        .map(|(_, v)| v["ply"].as_u64().expect("ply"))
        .collect()
}

/// The arbiter's token of `common::config` (`ARBITER_TOKEN`).
const TOKEN: (&str, &str) = ARBITER_AUTH;

#[test]
fn reconnecting_with_last_event_id_resumes_without_gap_or_duplicate_across_kill_9() {
    let dir = tempdir("sse-resume");
    let trace = opera_trace(&dir, 11);
    let cfg = config(&dir, 1, 4, "\n[clock]\nwall_clock = \"rtc\"\n");
    let journal = dir.join("j.jsonl");
    let args = journal_speed_delay(&journal, "15", "15");
    let mut run = run_board(&dir, &cfg, Some(&trace), &refs(&args));
    let public = Client::open(&run.addr, "/events", &[]);
    let arbiter = Client::open(&run.addr, "/arbiter/events", &[TOKEN]);

    // Within one run: read some, reconnect with the last id, get the rest.
    let mut moves = 0;
    let first = msgs(&public.until(60, |g| {
        moves += usize::from(matches!(g, Got::Msg { data, .. } if data["type"] == "move"));
        moves == 4
    }));
    public.close();
    let last = first.last().unwrap().0.clone();
    let stream = last.split('-').next().unwrap().to_owned();
    let public = Client::open(&run.addr, "/events", &[("Last-Event-ID", &last)]);
    let mut moves = 0;
    let second = msgs(&public.until(60, |g| {
        moves += usize::from(matches!(g, Got::Msg { data, .. } if data["type"] == "move"));
        moves == 6
    }));
    let arbiter_first = msgs(&arbiter.until(
        60,
        |g| matches!(g, Got::Msg { data, .. } if data["type"] == "move" && data["ply"] == 12),
    ));
    // Killed with both clients in the middle of the game.
    run.kill();
    drop(run);
    public.close();
    arbiter.close();
    let public_last = second.last().unwrap().0.clone();
    let arbiter_last = arbiter_first.last().unwrap().0.clone();

    let run = run_board(&dir, &cfg, Some(&trace), &refs(&args));
    let public = Client::open(&run.addr, "/events", &[("Last-Event-ID", &public_last)]);
    let arbiter = Client::open(
        &run.addr,
        "/arbiter/events",
        &[TOKEN, ("Last-Event-ID", &arbiter_last)],
    );
    let third_items = public.until(120, is_end);
    let arbiter_items = arbiter.until(120, is_end);
    assert!(
        !third_items.iter().any(|g| matches!(g, Got::Comment(_))),
        "resumed, not started again: {third_items:?}"
    );
    let third = msgs(&third_items);

    // The public stream: every journaled message once, in order; the whole
    // game's moves once each; no state again.
    let all: Vec<_> = first.iter().chain(&second).chain(&third).cloned().collect();
    let n = numbers(&all, &stream);
    assert!(n.windows(2).all(|w| w[1] == w[0] + 1), "{n:?}");
    let state_id = &all[0].0;
    assert_eq!(all[0].1["type"], "state");
    assert_eq!(format!("{stream}-{}", n[0] - 1), *state_id);
    assert_eq!(plies(&all), (1..=33).collect::<Vec<_>>());
    assert_eq!(
        all.iter().filter(|(_, v)| v["type"] == "state").count(),
        1,
        "the state once, at the first connection"
    );
    // The arbiter's: the same, its stream named apart, and the downtime
    // report of the restart (out of band) among the rest.
    let arbiter_all: Vec<_> = arbiter_first
        .iter()
        .chain(&msgs(&arbiter_items))
        .cloned()
        .collect();
    let n = numbers(&arbiter_all, &format!("{stream}a"));
    assert!(n.windows(2).all(|w| w[1] == w[0] + 1), "{n:?}");
    assert_eq!(plies(&arbiter_all), (1..=33).collect::<Vec<_>>());
    assert!(arbiter_all.iter().any(|(_, v)| v["kind"] == "downtime"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_id_ahead_of_the_public_stream_gets_the_state_and_nothing_early() {
    let dir = tempdir("sse-ahead");
    let trace = opera_trace(&dir, 12);
    let cfg = config(&dir, 1, 4, "");
    // A long delay: the public sees the start only while the test runs.
    let run = run_board(
        &dir,
        &cfg,
        Some(&trace),
        &["--speed", "20", "--delay", "3600"],
    );
    let arbiter = Client::open(&run.addr, "/arbiter/events", &[TOKEN]);
    let a = msgs(&arbiter.until(
        60,
        |g| matches!(g, Got::Msg { data, .. } if data["type"] == "move" && data["ply"] == 3),
    ));
    let arbiter_id = a.last().unwrap().0.clone();
    let stream = arbiter_id.split('-').next().unwrap().trim_end_matches('a');
    let public_ahead = format!("{stream}-{}", numbers(&a, &format!("{stream}a")).len());
    for last in [arbiter_id.as_str(), public_ahead.as_str(), "garbage"] {
        let c = Client::open(&run.addr, "/events", &[("Last-Event-ID", last)]);
        let got = c.until(10, |g| matches!(g, Got::Msg { .. }));
        match &got[..] {
            [Got::Comment(why), Got::Msg { data, .. }] => {
                assert!(why.contains("Last-Event-ID not resumed"), "{why}");
                assert_eq!(data["type"], "state", "{data}");
                assert_eq!(
                    data["moves"].as_array().map(Vec::len),
                    Some(0),
                    "no move in the delayed state: {data}"
                );
            }
            other => panic!("{last}: {other:?}"),
        }
        let more = c.quiet(1500);
        assert!(
            !more
                .iter()
                .any(|g| matches!(g, Got::Msg { data, .. } if data["type"] == "move")),
            "{last}: a move before the delay: {more:?}"
        );
        c.close();
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A board's `/events` that ends after two messages the first time, and
/// the `Last-Event-ID` of each connection, for the relay.
#[test]
fn the_relay_resumes_a_board_it_lost_with_last_event_id() {
    use axum::http::HeaderMap;
    use axum::response::IntoResponse;
    use eboard::broadcast::delay::Channel;
    use std::sync::{Arc, Mutex};
    let rt = tokio::runtime::Runtime::new().unwrap();
    let asked: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let seen = asked.clone();
    let events = move |headers: HeaderMap| {
        let seen = seen.clone();
        async move {
            let last = headers
                .get("last-event-id")
                .map(|v| v.to_str().unwrap().to_owned());
            let mut seen = seen.lock().unwrap();
            seen.push(last);
            let body = if seen.len() == 1 {
                // Two messages, then the board is lost.
                "id: 1700-1\ndata: {\"n\":1}\n\n: keep-alive\n\nid: 1700-2\ndata: {\"n\":2}\n\n"
            } else {
                "id: 1700-3\ndata: {\"n\":3}\n\n"
            };
            let first = seen.len() == 1;
            let stream = futures_util::stream::iter([Ok::<_, std::io::Error>(body)]);
            let body = if first {
                axum::body::Body::from_stream(stream)
            } else {
                use futures_util::StreamExt;
                axum::body::Body::from_stream(stream.chain(futures_util::stream::pending()))
            };
            ([("content-type", "text/event-stream")], body).into_response()
        }
    };
    let out = Arc::new(Channel::new());
    let mut rx = out.events.subscribe();
    rt.block_on(async {
        let app = axum::Router::new()
            .route("/events", axum::routing::get(events))
            .route("/boards.json", axum::routing::get(|| async { "[]" }));
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(l, app).await });
        eboard::broadcast::relay::start(
            &tokio::runtime::Handle::current(),
            vec![format!("http://{addr}")],
            out.clone(),
        )
        .unwrap();
        let mut got = Vec::new();
        while got.len() < 3 {
            let m = tokio::time::timeout(Duration::from_secs(20), rx.recv())
                .await
                .expect("forwarded")
                .unwrap();
            got.push(m.json.to_string());
        }
        assert_eq!(got, [r#"{"n":1}"#, r#"{"n":2}"#, r#"{"n":3}"#]);
    });
    assert_eq!(*asked.lock().unwrap(), [None, Some("1700-2".to_owned())]);
}

fn is_lease(g: &Got) -> bool {
    matches!(g, Got::Msg { data, .. } if data["type"] == "lease")
}

/// The proof of a lease's last event: its id.
fn proof_of(items: &[Got]) -> String {
    match items.last() {
        Some(Got::Msg { id, data }) if data["type"] == "lease" => id.clone(),
        other => panic!("no lease event last: {other:?}"),
    }
}

/// `[server]` with a lease of `secs` and no per-address limit (every
/// client of the test comes from 127.0.0.1).
fn leased(secs: u32, more: &str) -> String {
    format!("\n[server]\nstream_lease_s = {secs}\nmax_connections_per_address = 0\n{more}")
}

#[test]
fn a_lease_ends_with_a_proof_and_the_reconnect_resumes_exactly_as_a_proven_reader() {
    let dir = tempdir("sse-lease");
    let trace = opera_trace(&dir, 13);
    let cfg = config(&dir, 1, 4, &leased(1, ""));
    let run = run_board(&dir, &cfg, Some(&trace), &["--speed", "30"]);
    // Follow the whole game from lease to lease, as EventSource does.
    let mut client = Client::open(&run.addr, "/events", &[]);
    let mut all = Vec::new();
    let mut leases = 0;
    let mut used = Vec::new();
    loop {
        let items = client.until(30, |g| is_end(g) || is_lease(g));
        let standing = client.lease();
        if leases == 0 {
            assert_eq!(standing, "1 s; no proof");
        } else {
            assert_eq!(standing, "1 s; proof accepted: a proven reader");
        }
        assert!(
            !items.iter().any(|g| matches!(g, Got::Comment(_))),
            "resumed, not started again: {items:?}"
        );
        all.extend(
            msgs(&items)
                .into_iter()
                .filter(|(_, v)| v["type"] != "lease"),
        );
        if items.last().is_some_and(is_end) {
            break;
        }
        let proof = proof_of(&items);
        let (last, _) = proof.split_once('.').expect("LAST.PROOF");
        let had = all.last().map(|(id, _)| id.as_str());
        assert_eq!(Some(last), had, "the proof names the last message sent");
        assert!(client.ended_within(2000), "the stream ends with its lease");
        leases += 1;
        used.push(proof.clone());
        client = Client::open(&run.addr, "/events", &[("Last-Event-ID", &proof)]);
    }
    assert!(leases >= 2, "the game spans leases: {leases}");
    let stream = all[0].0.split('-').next().unwrap().to_owned();
    let n = numbers(&all, &stream);
    assert!(n.windows(2).all(|w| w[1] == w[0] + 1), "{n:?}");
    assert_eq!(plies(&all), (1..=33).collect::<Vec<_>>());
    assert_eq!(all.iter().filter(|(_, v)| v["type"] == "state").count(), 1);
    client.close();

    // A proof counts once; an altered one never; each still resumes.
    let reused = Client::open(&run.addr, "/events", &[("Last-Event-ID", &used[0])]);
    reused.until(10, |g| matches!(g, Got::Msg { .. }));
    assert_eq!(
        reused.lease(),
        "1 s; proof not accepted: the proof was used already, or forgotten"
    );
    let mut forged = used[1].clone();
    let flip = if forged.ends_with('0') { "1" } else { "0" };
    forged.replace_range(forged.len() - 1.., flip);
    let f = Client::open(&run.addr, "/events", &[("Last-Event-ID", &forged)]);
    let got = f.until(10, |g| matches!(g, Got::Msg { .. }));
    assert!(
        f.lease()
            .contains("proof not accepted: the proof does not match"),
        "{}",
        f.lease()
    );
    assert!(
        matches!(&got[..], [Got::Msg { data, .. }] if data["type"] != "state"),
        "resumed after the forged proof's id, not started again: {got:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_full_stream_cap_closes_an_unproven_stream_never_a_proven_one() {
    let dir = tempdir("sse-lease-cap");
    // A lease long enough that the proven stream outlives the test's steps
    // on a loaded machine.
    let cfg = config(&dir, 1, 4, &leased(6, "max_streams = 2\n"));
    let run = run_board(&dir, &cfg, None, &[]);
    // A proof from a first stream, read to its lease's end.
    let first = Client::open(&run.addr, "/events", &[]);
    let proof = proof_of(&first.until(10, is_lease));
    assert!(first.ended_within(2000));
    let unproven = Client::open(&run.addr, "/events", &[]);
    unproven.until(10, |g| matches!(g, Got::Msg { .. }));
    let proven = Client::open(&run.addr, "/events", &[("Last-Event-ID", &proof)]);
    let since = Instant::now();
    poll(10, "the proven stream's header", || {
        (!proven.lease().is_empty()).then_some(())
    });
    assert_eq!(proven.lease(), "6 s; proof accepted: a proven reader");
    // The cap (2) is full: a newcomer from another source closes the
    // unproven stream. (One from the same source would be refused: its
    // source holds no fewer unproven streams than the victim's,
    // admission's CLOSE_MARGIN.)
    let newcomer = Client::open_from([127, 0, 0, 2], &run.addr, "/events", &[]);
    newcomer.until(10, |g| matches!(g, Got::Msg { .. }));
    assert_eq!(newcomer.lease(), "6 s; no proof");
    assert!(unproven.ended_within(2000), "the unproven stream is closed");
    assert!(
        !proven.ended_within(300),
        "the proven stream is not closed for a newcomer ({:?} after it opened)",
        since.elapsed()
    );
    // Now the newcomer is the unproven one: the next, from a source
    // holding none, takes its place.
    let next = Client::open(&run.addr, "/events", &[]);
    next.until(10, |g| matches!(g, Got::Msg { .. }));
    assert!(newcomer.ended_within(2000));
    let open_for = since.elapsed();
    assert!(
        open_for > Duration::from_millis(5400) || !proven.ended_within(100),
        "the proven stream still open ({open_for:?} after it opened)"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_relay_follows_a_board_across_its_leases_without_gap_or_duplicate() {
    let dir = tempdir("sse-lease-relay");
    let trace = opera_trace(&dir, 14);
    let cfg = config(&dir, 1, 1, &leased(1, ""));
    let board = run_board(&dir, &cfg, Some(&trace), &["--speed", "30"]);
    let relay = spawn(&["relay", &format!("http://{}", board.addr)], &[], &dir);
    let out = Client::open(&relay.addr, "/events", &[]);
    let items = out.until(60, is_end);
    let got = msgs(&items);
    assert!(
        !got.iter().any(|(_, v)| v["type"] == "lease"),
        "a board's lease event is not forwarded"
    );
    // The relay's stream is its own (out-of-band ids): the moves count.
    let moves: Vec<u64> = got
        .iter()
        .filter(|(_, v)| v["type"] == "move")
        .map(|(_, v)| v["ply"].as_u64().unwrap())
        .collect();
    let state_moves = got
        .iter()
        .find(|(_, v)| v["type"] == "state" && v["game"] == "1.1")
        .map_or(0, |(_, v)| v["moves"].as_array().map_or(0, Vec::len) as u64);
    assert_eq!(
        moves,
        ((state_moves + 1)..=33).collect::<Vec<_>>(),
        "each move once, in order, after the state"
    );
    let first_move = got.iter().position(|(_, v)| v["type"] == "move").unwrap();
    assert!(
        !got[first_move..].iter().any(|(_, v)| v["type"] == "state"),
        "the relay resumed at each lease, never started again"
    );
    let log = std::fs::read_to_string(&relay.stderr).unwrap_or_default();
    assert!(
        !log.contains("the stream ended"),
        "no outage at a lease: {log}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
