//! A ruling whose request was dropped keeps its outcome under its id.

use super::super::access::Accounts;
use super::super::console::{command, Console};
use super::super::{ActionReply, AppState, ArbiterAccess, ArbiterCommand};
use crate::broadcast::delay::Channel;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, Extensions, HeaderMap, HeaderValue};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

const TOKEN: &str = "a-test-token-of-the-arbiter-0123456789abcdef";

fn state(commands: mpsc::Sender<ArbiterCommand>) -> Arc<AppState> {
    let channel = Arc::new(Channel::new());
    let accounts = Accounts::new(vec![], Duration::from_secs(3600), false).unwrap();
    Arc::new(AppState {
        public: Arc::new(Channel::new()),
        arbiter: Some(ArbiterAccess {
            channel: channel.clone(),
            token: Some(TOKEN.into()),
            name: "IA Holm".into(),
            commands,
            player: None,
        }),
        console: Some(Arc::new(Console::new(accounts, channel, None))),
    })
}

/// `POST /arbiter/command` with `id`, as the handler runs it: (status, body).
async fn send(s: &Arc<AppState>, id: &str) -> (u16, Value) {
    let mut h = HeaderMap::new();
    let bearer = HeaderValue::from_str(&format!("Bearer {TOKEN}")).unwrap();
    h.insert(header::AUTHORIZATION, bearer);
    let body = json!({"action": "pause", "id": id, "expect": {"ply": 0}}).to_string();
    let r = command(State(s.clone()), h, Extensions::new(), Bytes::from(body)).await;
    let status = r.status().as_u16();
    let bytes = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[tokio::test]
async fn a_ruling_whose_client_went_is_answered_with_its_outcome_under_its_id() {
    let (tx, mut board_loop) = mpsc::channel(4);
    let s = state(tx);
    // The client sends the ruling; the board loop takes it and is slow.
    let first = tokio::spawn({
        let s = s.clone();
        async move { send(&s, "r-gone").await }
    });
    let taken = tokio::time::timeout(Duration::from_secs(5), board_loop.recv())
        .await
        .expect("the board loop got the ruling")
        .unwrap();
    // The client goes (a relay that gave up): its handler is dropped.
    first.abort();
    assert!(first.await.unwrap_err().is_cancelled());
    // The board applies it after all.
    taken
        .reply
        .send(ActionReply {
            t: 4_000,
            events: vec![],
        })
        .unwrap();
    // The same id, sent again: its outcome, once it is kept (never "pending" for good).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let (status, v) = loop {
        let (status, v) = send(&s, "r-gone").await;
        if v["outcome"] != "pending" || tokio::time::Instant::now() > deadline {
            break (status, v);
        }
        tokio::task::yield_now().await;
    };
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (v["t"].as_u64(), v["repeated"].as_bool()),
        (Some(4_000), Some(true)),
        "{v}"
    );
    assert_eq!(v["id"], "r-gone");
    // Applied once: the board loop never got it a second time.
    assert!(board_loop.try_recv().is_err());
}
