//! Tests of [`super::Subscription`] and [`super::GameFilter`]: a slow
//! reader dropped, the backlog once, one game's messages, the game
//! channel cap, the filter's errors.

use super::*;
use crate::broadcast::delay::CHANNEL_CAPACITY;

#[tokio::test]
async fn a_reader_that_falls_behind_is_dropped_and_the_sender_never_waits() {
    let ch = Channel::new();
    let mut slow = Subscription::new(&ch, GameFilter::default());
    let mut fast = Subscription::new(&ch, GameFilter::default());
    for i in 0..(CHANNEL_CAPACITY + 10) {
        ch.publish(i as u64 + 1, None, &[Arc::from(format!("{{\"n\":{i}}}"))]);
        if i < 5 {
            assert!(fast.next().await.is_some());
        }
    }
    assert!(slow.next().await.is_none(), "dropped");
}

#[tokio::test]
async fn the_backlog_reaches_a_late_reader_once() {
    let ch = Channel::with_backlog();
    ch.publish(0, None, &[Arc::from("{\"kind\":\"downtime\"}")]);
    let mut late = Subscription::new(&ch, GameFilter::default());
    ch.publish(1, None, &[Arc::from("{\"n\":1}")]);
    assert_eq!(
        late.next().await.as_deref(),
        Some("{\"kind\":\"downtime\"}")
    );
    assert_eq!(late.next().await.as_deref(), Some("{\"n\":1}"));
}

#[tokio::test]
async fn a_client_of_one_game_gets_that_game_and_the_alerts_about_no_game() {
    let ch = Channel::new();
    let q = FilterQuery {
        game: Some("1.2".into()),
        round: None,
    };
    let mut one = Subscription::new(&ch, q.filter().unwrap());
    let round2 = FilterQuery {
        game: None,
        round: Some("2".into()),
    };
    let mut r2 = Subscription::new(&ch, round2.filter().unwrap());
    for m in [
        r#"{"type":"move","game":"1.1","ply":1}"#,
        r#"{"type":"move","game":"1.2","ply":1}"#,
        r#"{"type":"move","game":"2.1","ply":1}"#,
        r#"{"kind":"downtime"}"#,
        r#"{"type":"clock","game":"1.12","white_ms":1}"#,
        r#"{"type":"clock","game":"1.2","white_ms":2}"#,
    ] {
        ch.publish(0, None, &[Arc::from(m)]);
    }
    drop(ch);
    let mut got = Vec::new();
    while let Some(m) = one.next().await {
        got.push(m.to_string());
    }
    assert_eq!(
        got,
        [
            r#"{"type":"move","game":"1.2","ply":1}"#,
            r#"{"kind":"downtime"}"#,
            r#"{"type":"clock","game":"1.2","white_ms":2}"#,
        ]
    );
    assert_eq!(
        r2.next().await.as_deref(),
        Some(r#"{"type":"move","game":"2.1","ply":1}"#)
    );
    assert_eq!(r2.next().await.as_deref(), Some(r#"{"kind":"downtime"}"#));
    assert_eq!(r2.next().await, None);
}

#[tokio::test]
async fn past_the_game_channel_cap_a_follower_reads_the_whole_channel_filtered() {
    use crate::broadcast::delay::MAX_GAME_CHANNELS;
    let ch = Channel::new();
    let held: Vec<_> = (0..MAX_GAME_CHANNELS as u32)
        .map(|b| ch.subscribe_game((9, b)).expect("under the cap"))
        .collect();
    assert!(ch.subscribe_game((1, 1)).is_none(), "the cap holds");
    let one = GameFilter {
        round: Some(1),
        board: Some(1),
    };
    let mut sub = Subscription::new(&ch, one);
    ch.publish(0, None, &[Arc::from(r#"{"type":"move","game":"1.2"}"#)]);
    ch.publish(0, None, &[Arc::from(r#"{"type":"move","game":"1.1"}"#)]);
    assert_eq!(
        sub.next().await.as_deref(),
        Some(r#"{"type":"move","game":"1.1"}"#)
    );
    // Readers gone: their channels are pruned for a new game.
    drop(held);
    assert!(ch.subscribe_game((1, 1)).is_some());
}

#[test]
fn bad_filters_name_the_parameter() {
    for (game, round, says) in [
        (Some("1-2"), None, "game=1-2: give the game as round.board"),
        (Some("x.1"), None, "game=x.1"),
        (None, Some("one"), "round=one: give the round number"),
    ] {
        let q = FilterQuery {
            game: game.map(Into::into),
            round: round.map(Into::into),
        };
        let e = q.filter().unwrap_err();
        assert!(e.contains(says), "{e}");
    }
    assert_eq!(
        FilterQuery::default().filter().unwrap(),
        GameFilter::default()
    );
}
