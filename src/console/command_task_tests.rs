//! A ruling whose request was dropped keeps its outcome under its id.

use super::super::access::Accounts;
use super::super::board::{ActionReply, ArbiterAccess, ArbiterCommand};
use super::super::role::{Role, Who};
use super::super::ruling::command;
use super::super::state::Console;
use crate::broadcast::delay::Channel;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

const TOKEN: &str = "a-test-token-of-the-arbiter-0123456789abcdef";

/// A board's console and its arbiter side, the loop behind `commands`.
type Board = (Arc<Console>, ArbiterAccess);

fn state(commands: mpsc::Sender<ArbiterCommand>) -> Arc<Board> {
    let channel = Arc::new(Channel::new());
    let accounts = Accounts::new(vec![], Duration::from_secs(3600), false).unwrap();
    let access = ArbiterAccess {
        channel: channel.clone(),
        token: Some(TOKEN.into()),
        name: "IA Holm".into(),
        commands,
        player: None,
    };
    Arc::new((Arc::new(Console::new(accounts, channel, None)), access))
}

/// `POST /arbiter/command` with `id`, as its handler runs it: (status, body).
async fn send(s: &Arc<Board>, id: &str) -> (u16, Value) {
    let who = Who {
        name: "IA Holm".into(),
        role: Role::Arbiter,
    };
    let body = json!({"action": "pause", "id": id, "expect": {"ply": 0}}).to_string();
    match command(&s.0, Some(&s.1), &who, body.as_bytes()).await {
        Ok(reply) => reply,
        Err(r) => (r.status, json!({ "error": r.message })),
    }
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
