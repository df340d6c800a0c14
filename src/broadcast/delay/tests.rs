use super::*;
use crate::broadcast::public::Update;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

#[test]
fn an_alert_on_the_arbiters_channel_is_dated_when_it_is_published() {
    let arbiter = Channel::with_backlog();
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let alert: Arc<str> = Arc::from(r#"{"type":"journal_alert","problem":"damaged"}"#);
    let dated: Arc<str> = Arc::from(r#"{"type":"flag","t":5,"unix_ms":42}"#);
    arbiter.publish(0, None, &[alert.clone(), dated]);
    let got: Vec<serde_json::Value> = arbiter
        .backlog()
        .iter()
        .map(|m| serde_json::from_str(&m.json).unwrap())
        .collect();
    assert!(got[0]["unix_ms"].as_u64().unwrap() >= before, "{got:?}");
    assert_eq!(got[0]["problem"], "damaged");
    assert_eq!(got[1]["unix_ms"], 42, "a board's own stamp stays: {got:?}");
    // The public channel's messages are passed on as they are.
    let public = Channel::new();
    let mut rx = public.events.subscribe();
    public.publish(0, None, &[alert]);
    assert!(!rx.try_recv().unwrap().json.contains("unix_ms"));
}

#[tokio::test]
async fn the_tap_gets_an_update_only_when_the_public_does() {
    let now = Arc::new(AtomicU64::new(0));
    let n = now.clone();
    let (tap, mut tapped) = mpsc::unbounded_channel();
    let feed = Feed::start_tapped(
        &tokio::runtime::Handle::current(),
        1000,
        Arc::new(move || n.load(Ordering::SeqCst)),
        1.0,
        Some(tap),
    );
    feed.publish(Update {
        seq: 1,
        t: 0,
        snapshot: None,
        public: vec![Arc::from("{\"type\":\"move\"}")],
        arbiter: Vec::new(),
        arbiter_snapshot: None,
    });
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert!(tapped.try_recv().is_err(), "not before the delay");
    now.store(1000, Ordering::SeqCst);
    let u = tokio::time::timeout(Duration::from_secs(5), tapped.recv())
        .await
        .expect("released after the delay")
        .unwrap();
    assert_eq!(u.seq, 1);
}

/// A snapshot of game (`round`, `board`), nothing else in it.
fn bare(round: u32, board: u32) -> Arc<Snapshot> {
    Arc::new(Snapshot {
        seq: 1,
        t: 0,
        info: crate::broadcast::public::GameInfo::bare(round, board),
        pgn: Default::default(),
        game: serde_json::json!({}).into(),
        pairing: serde_json::json!({}),
        state: serde_json::json!({}).into(),
        outline: None,
    })
}

#[test]
fn a_forgotten_game_leaves_the_view_and_the_others_stay() {
    let ch = Channel::new();
    for (r, b) in [(1, 1), (1, 2), (2, 1)] {
        ch.publish(0, Some(bare(r, b)), &[]);
    }
    ch.forget((1, 1));
    ch.forget((7, 7)); // not there: nothing changes
    let games: Vec<(u32, u32)> = ch
        .view
        .borrow()
        .games
        .iter()
        .map(|s| (s.info.round, s.info.board))
        .collect();
    assert_eq!(games, [(1, 2), (2, 1)]);
}

#[test]
fn a_message_is_framed_once_as_the_server_sent_event_every_client_writes() {
    // WHATWG HTML §9.2.6: `id:`, one `data:` line per line, an empty line.
    assert_eq!(
        &*sse_event("b-1-2", r#"{"type":"move"}"#),
        "id: b-1-2\ndata: {\"type\":\"move\"}\n\n"
    );
    assert_eq!(&*sse_event("x", "a\nb"), "id: x\ndata: a\ndata: b\n\n");
    // Published: the frame names the message's own id and text.
    let ch = Channel::new();
    let mut rx = ch.events.subscribe();
    ch.publish(0, None, &[Arc::from(r#"{"game":"1.2"}"#)]);
    let m = rx.try_recv().unwrap();
    assert_eq!(
        &*m.sse,
        format!("id: {}\ndata: {}\n\n", m.event_id, m.json).as_str()
    );
}
