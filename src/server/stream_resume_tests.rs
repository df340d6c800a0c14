//! `Last-Event-ID` resume of [`super::Subscription`]: exactly the rest,
//! the same ids after a restart, a comment and the states for an id it
//! cannot resume from, nothing the delay holds.

use super::*;

fn journaled(ch: &Channel, from: u32, to: u32) {
    for i in from..=to {
        let m = format!(r#"{{"type":"move","game":"1.1","ply":{i}}}"#);
        ch.publish_journaled(u64::from(i), None, &[Arc::from(m)]);
    }
}

/// The items a subscription has now (the channel is dropped after).
async fn drain(mut sub: Subscription) -> Vec<Item> {
    let mut got = Vec::new();
    while let Ok(Some(i)) = tokio::time::timeout(Duration::from_millis(50), sub.next_item()).await {
        got.push(i);
    }
    got
}

fn ids(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            Item::Message { id, .. } => id.to_string(),
            Item::Comment(c) => format!(": {c}"),
        })
        .collect()
}

#[tokio::test]
async fn a_client_that_reconnects_with_its_last_id_gets_exactly_the_rest() {
    let ch = Channel::new();
    ch.set_stream("1700");
    journaled(&ch, 1, 3);
    ch.publish(0, None, &[Arc::from(r#"{"type":"alert"}"#)]);
    journaled(&ch, 4, 6);
    let all = ids(&drain(Subscription::resume(
        &ch,
        GameFilter::default(),
        Some("1700-0"),
    ))
    .await);
    let boot = all[3].split('-').nth(2).unwrap().to_owned();
    assert_eq!(
        all,
        [
            "1700-1".to_owned(),
            "1700-2".into(),
            "1700-3".into(),
            format!("1700-3-{boot}-1"),
            "1700-4".into(),
            "1700-5".into(),
            "1700-6".into(),
        ]
    );
    for (i, last) in all.iter().enumerate() {
        let rest = drain(Subscription::resume(&ch, GameFilter::default(), Some(last))).await;
        assert_eq!(ids(&rest), all[i + 1..], "after {last}");
    }
    // A client of another game gets the alert about no game only.
    let other = GameFilter {
        round: Some(2),
        board: Some(1),
    };
    let rest = drain(Subscription::resume(&ch, other, Some("1700-2"))).await;
    assert_eq!(ids(&rest), all[3..4]);
}

#[tokio::test]
async fn a_restarted_channel_gives_the_regenerated_messages_the_same_ids() {
    let before = Channel::new();
    before.set_stream("1700");
    journaled(&before, 1, 5);
    before.publish(0, None, &[Arc::from(r#"{"kind":"alert"}"#)]);
    let had = ids(&drain(Subscription::resume(
        &before,
        GameFilter::default(),
        Some("1700-0"),
    ))
    .await);
    // The replay: the same journaled messages, then a downtime report.
    let after = Channel::new();
    after.set_stream("1700");
    journaled(&after, 1, 5);
    after.publish(0, None, &[Arc::from(r#"{"kind":"downtime"}"#)]);
    journaled(&after, 6, 7);
    let now = ids(&drain(Subscription::resume(
        &after,
        GameFilter::default(),
        Some("1700-0"),
    ))
    .await);
    assert_eq!(now[..5], had[..5]);
    // From the last journaled message, or an alert of the run before:
    // this run's downtime and what follows, nothing twice.
    for last in [&had[4], &had[5]] {
        let rest = ids(&drain(Subscription::resume(
            &after,
            GameFilter::default(),
            Some(last),
        ))
        .await);
        assert_eq!(rest, now[5..], "after {last}");
    }
}

#[tokio::test]
async fn an_unknown_future_or_too_old_id_gets_a_comment_and_the_states() {
    let ch = Channel::new();
    ch.set_stream("1700");
    journaled(&ch, 1, (crate::broadcast::delay::RESUME_WINDOW + 2) as u32);
    for (last, why) in [
        ("1700-99999", "not published"),
        ("1699-3", "another stream"),
        ("1700a-3", "another stream"),
        ("zz", "not an id"),
        ("1700-1", "older than the last 1024"),
    ] {
        let got = drain(Subscription::resume(&ch, GameFilter::default(), Some(last))).await;
        match &got[..] {
            [Item::Comment(c)] => assert!(c.contains(why), "{last}: {c}"),
            other => panic!("{last}: {other:?}"),
        }
    }
    // The oldest kept message's predecessor is still resumable.
    let got = drain(Subscription::resume(
        &ch,
        GameFilter::default(),
        Some("1700-2"),
    ))
    .await;
    assert_eq!(got.len(), crate::broadcast::delay::RESUME_WINDOW);
}

#[tokio::test]
async fn the_public_stream_resumes_with_nothing_the_delay_holds() {
    use crate::broadcast::delay::Feed;
    use crate::broadcast::public::Update;
    use std::sync::atomic::{AtomicU64, Ordering};
    let now = Arc::new(AtomicU64::new(0));
    let n = now.clone();
    let feed = Feed::start(
        &tokio::runtime::Handle::current(),
        1000,
        Arc::new(move || n.load(Ordering::SeqCst)),
        1.0,
    );
    feed.set_epoch(1700);
    let update = |t: u64, ply: u32| Update {
        seq: u64::from(ply),
        t,
        snapshot: None,
        public: vec![Arc::from(format!(r#"{{"type":"move","ply":{ply}}}"#))],
        arbiter: vec![Arc::from(format!(r#"{{"type":"move","ply":{ply}}}"#))],
        arbiter_snapshot: None,
    };
    feed.publish(update(0, 1));
    let released = async {
        while feed.public.start(None).event_id.as_ref() != "1700-1" {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    now.store(1000, Ordering::SeqCst);
    tokio::time::timeout(Duration::from_secs(5), released)
        .await
        .expect("released");
    feed.publish(update(2000, 2));
    feed.publish(update(2000, 3));
    let arbiter = ids(&drain(Subscription::resume(
        &feed.arbiter,
        GameFilter::default(),
        Some("1700a-0"),
    ))
    .await);
    assert_eq!(arbiter, ["1700a-1", "1700a-2", "1700a-3"]);
    // Ids ahead of the public stream (its own, or the arbiter's):
    // a comment and the public state, nothing held by the delay.
    for last in ["1700-3", "1700a-1"] {
        let got = drain(Subscription::resume(
            &feed.public,
            GameFilter::default(),
            Some(last),
        ))
        .await;
        assert!(matches!(&got[..], [Item::Comment(_)]), "{last}: {got:?}");
    }
    assert!(drain(Subscription::resume(
        &feed.public,
        GameFilter::default(),
        Some("1700-1")
    ))
    .await
    .is_empty());
}

#[tokio::test]
async fn an_id_not_yet_published_is_waited_for_then_resumed_from() {
    let ch = Arc::new(Channel::new());
    ch.set_stream("1700");
    journaled(&ch, 1, 2);
    let publisher = ch.clone();
    let waiting = tokio::spawn(async move {
        let sub = Subscription::resume_waiting(
            &publisher,
            GameFilter::default(),
            Some("1700-3"),
            Duration::from_secs(30),
        )
        .await;
        drain(sub).await
    });
    tokio::task::yield_now().await;
    journaled(&ch, 3, 4);
    let got = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("resumed once published")
        .unwrap();
    assert_eq!(ids(&got), ["1700-4"]);
    // Never published: the states after the wait.
    let got = drain(
        Subscription::resume_waiting(
            &ch,
            GameFilter::default(),
            Some("1700-9"),
            Duration::from_millis(20),
        )
        .await,
    )
    .await;
    assert!(matches!(&got[..], [Item::Comment(_)]), "{got:?}");
}
