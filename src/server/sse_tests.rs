//! Tests of the SSE body ([`super::sse`]): the messages waiting for a
//! stream go out as one frame (one write), a long backlog in frames of
//! about [`super::FRAME_BYTES`], in order; the stream ends with its feed.

use super::*;
use crate::broadcast::delay::Channel;
use crate::server::subscription::GameFilter;
use http_body::Body as _;

/// The next frame's text; `None` when the stream ended.
async fn frame(body: &mut Body) -> Option<String> {
    let f = std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)).await?;
    let data = f.expect("no error").into_data().expect("a data frame");
    Some(String::from_utf8(data.to_vec()).expect("UTF-8"))
}

/// The `data:` lines of a frame.
fn data(frame: &str) -> Vec<&str> {
    frame
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect()
}

/// Issue 42 §7: a stream's task woken late (the relay's cores busy) finds
/// several messages waiting: they go out in one frame, one `writev`, not
/// one each.
#[tokio::test]
async fn the_messages_waiting_for_a_stream_go_out_in_one_frame() {
    let ch = Channel::new();
    let mut body = sse(Subscription::new(&ch, GameFilter::default()), true, None).into_body();
    for n in 1..=3 {
        ch.publish(n, None, &[Arc::from(format!("{{\"n\":{n}}}"))]);
    }
    let one = frame(&mut body).await.expect("a frame");
    assert_eq!(
        data(&one),
        ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"],
        "one frame: {one:?}"
    );
    assert!(one.ends_with("\n\n"), "whole events: {one:?}");
    ch.publish(4, None, &[Arc::from("{\"n\":4}")]);
    let two = frame(&mut body).await.expect("a frame");
    assert_eq!(data(&two), ["{\"n\":4}"]);
    drop(ch);
    assert_eq!(frame(&mut body).await, None, "the feed closed: the end");
}

/// A long backlog is not one huge frame: about [`FRAME_BYTES`] at a time,
/// every message once, in order.
#[tokio::test]
async fn a_long_backlog_goes_out_in_bounded_frames_in_order() {
    let ch = Channel::new();
    let mut body = sse(Subscription::new(&ch, GameFilter::default()), true, None).into_body();
    let pad = "x".repeat(1000);
    for n in 0..200u64 {
        ch.publish(
            n + 1,
            None,
            &[Arc::from(format!("{{\"n\":{n},\"pad\":\"{pad}\"}}"))],
        );
    }
    drop(ch);
    let (mut frames, mut seen) = (0, Vec::new());
    while let Some(f) = frame(&mut body).await {
        assert!(f.len() < FRAME_BYTES + 2048, "a frame of {} bytes", f.len());
        frames += 1;
        for d in data(&f) {
            let v: serde_json::Value = serde_json::from_str(d).expect("a whole message");
            seen.push(v["n"].as_u64().expect("n"));
        }
    }
    assert_eq!(seen, (0..200).collect::<Vec<u64>>());
    assert!(
        (3..=10).contains(&frames),
        "{frames} frames for about 210 KB"
    );
}
