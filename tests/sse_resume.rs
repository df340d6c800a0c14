//! SSE `id:` and `Last-Event-ID` (issue 17 §3): a client that reconnects
//! with the id of the last message it read gets exactly the rest, on the
//! public stream and the arbiter's, also after a `kill -9` and a restart
//! of the daemon from its journal; an id ahead of the public stream gets
//! the states and nothing the delay holds; the relay resumes its boards.

mod common;

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
}

impl Client {
    fn open(addr: &str, path: &str, headers: &[(&str, &str)]) -> Client {
        let mut s = TcpStream::connect(addr).expect("connect");
        let mut req =
            format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).unwrap();
        let stream = s.try_clone().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(s);
            let mut line = String::new();
            let mut id = None;
            while r.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                let l = line.trim_end();
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
        Client { rx, stream }
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
    let args = [
        "--journal",
        journal.to_str().unwrap(),
        "--speed",
        "15",
        "--delay",
        "15",
    ];
    let mut run = run_board(&dir, &cfg, Some(&trace), &args);
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

    let run = run_board(&dir, &cfg, Some(&trace), &args);
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
