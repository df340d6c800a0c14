//! The relay's stream reader behind a proxy that splits every byte: a
//! board daemon's `/events` goes through a TCP proxy writing one byte per
//! segment (`TCP_NODELAY`, a pause after each), so every multi-byte UTF-8
//! character of a Danish name ("Sørensen", "Æbelø") arrives cut in pieces;
//! the relay must forward the names intact (issue 17: "S��rensen" was seen
//! behind such a proxy when each chunk was decoded on its own).

use eboard::broadcast::delay::Channel;
use futures_util::StreamExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const MESSAGES: [&str; 3] = [
    r#"{"type":"move","game":"1.1","white":"Sørensen, Jens","black":"Æbelø, Anne","san":"Nf3"}"#,
    r#"{"type":"move","game":"1.1","note":"ÆØÅ æøå ♞ — “quoted”"}"#,
    r#"{"type":"game_end","game":"1.1","result":"1-0"}"#,
];

/// A board daemon's two endpoints the relay reads: `/events` (the three
/// messages, CRLF line ends on the second, then the stream stays open)
/// and `/boards.json` (its game's snapshot, as a board serves it: the
/// relay takes a board URL's messages only about the game its snapshot
/// binds it to, issue 41).
async fn board() -> String {
    use axum::response::IntoResponse;
    let events = || async {
        let body = format!(
            ": hello\n\ndata: {}\n\ndata: {}\r\n\r\nevent: x\ndata: {}\n\n",
            MESSAGES[0], MESSAGES[1], MESSAGES[2]
        );
        let stream = futures_util::stream::iter([Ok::<_, std::io::Error>(body)])
            .chain(futures_util::stream::pending());
        (
            [("content-type", "text/event-stream")],
            axum::body::Body::from_stream(stream),
        )
            .into_response()
    };
    let app = axum::Router::new()
        .route("/events", axum::routing::get(events))
        .route(
            "/boards.json",
            axum::routing::get(|| async {
                let info = eboard::broadcast::public::GameInfo::bare(1, 1);
                serde_json::json!([{
                    "seq": 1, "t": 0, "info": info, "pgn": "", "game": {}, "pairing": {},
                    "state": {"type": "state", "game": "1.1", "round": 1, "board": 1}
                }])
                .to_string()
            }),
        );
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await });
    addr.to_string()
}

/// Copies `from` to `to` one byte per write, pausing after each so every
/// byte leaves as its own TCP segment; counts the writes.
async fn one_byte_at_a_time(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    writes: Arc<AtomicUsize>,
) {
    let mut buf = [0u8; 4096];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        for b in &buf[..n] {
            if to.write_all(std::slice::from_ref(b)).await.is_err() {
                return;
            }
            let _ = to.flush().await;
            writes.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_micros(300)).await;
        }
    }
}

/// A proxy to `upstream`: requests pass as they come, answers one byte at
/// a time.
async fn splitting_proxy(upstream: String, writes: Arc<AtomicUsize>) -> String {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = l.accept().await {
            let Ok(server) = TcpStream::connect(&upstream).await else {
                continue;
            };
            client.set_nodelay(true).unwrap();
            let (mut cr, cw) = client.into_split();
            let (sr, mut sw) = server.into_split();
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut cr, &mut sw).await;
            });
            tokio::spawn(one_byte_at_a_time(sr, cw, writes.clone()));
        }
    });
    addr.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_arrive_whole_through_a_proxy_splitting_every_byte() {
    let upstream = board().await;
    let writes = Arc::new(AtomicUsize::new(0));
    let proxy = splitting_proxy(upstream, writes.clone()).await;
    let out = Arc::new(Channel::new());
    let mut rx = out.events.subscribe();
    eboard::broadcast::relay::start(
        &tokio::runtime::Handle::current(),
        vec![format!("http://{proxy}")],
        out.clone(),
    )
    .unwrap();
    let mut got = Vec::new();
    while got.len() < MESSAGES.len() {
        let m = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("the relay forwards the board's messages within 30 s")
            .unwrap();
        got.push(m.json.to_string());
    }
    assert_eq!(got, MESSAGES, "every message, every character intact");
    assert!(
        !got.concat().contains('\u{FFFD}'),
        "no replacement character"
    );
    let event_bytes: usize = MESSAGES.iter().map(|m| m.len()).sum();
    assert!(
        writes.load(Ordering::Relaxed) > event_bytes,
        "the proxy wrote byte by byte: {} writes",
        writes.load(Ordering::Relaxed)
    );
}
