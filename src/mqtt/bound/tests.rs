use super::*;
use crate::broadcast::public::{GameInfo, Snapshot};
use serde_json::json;
use tokio::time::Instant;

/// A message on a table's topic: `seq`, `epoch`, the message `msg` and a
/// snapshot of game `snap` (round, board) when given.
fn wire(seq: u64, epoch: u64, msg: Option<Value>, snap: Option<(u32, u32)>) -> Wire {
    let snapshot = snap.map(|(round, board)| Snapshot {
        seq,
        t: 0,
        info: GameInfo::bare(round, board),
        pgn: Default::default(),
        game: json!({}).into(),
        pairing: json!({}),
        state: json!({}).into(),
        outline: None,
    });
    Wire {
        seq,
        epoch,
        t: 0,
        msg,
        snapshot,
        arbiter_channel: false,
        oob: None,
        boot: None,
    }
}

#[test]
fn a_message_is_taken_only_about_its_topics_game() {
    let flag = |g: &str| Some(json!({"type": "flag", "game": g}));
    // Board 1's topic, round 1.
    assert_eq!(
        check_wire(&wire(3, 5, flag("1.1"), Some((1, 1))), Some(1), 1),
        Ok(())
    );
    assert_eq!(
        check_wire(
            &wire(3, 5, Some(json!({"type": "state"})), None),
            Some(1),
            1
        ),
        Ok(())
    );
    let e = check_wire(&wire(3, 5, flag("1.2"), None), Some(1), 1).unwrap_err();
    assert!(e.contains("game 1.2 (board 2), not board 1's"), "{e}");
    let e = check_wire(&wire(3, 5, flag("2.1"), None), Some(1), 1).unwrap_err();
    assert!(e.contains("round 2"), "{e}");
    let e = check_wire(&wire(3, 5, None, Some((1, 2))), Some(1), 1).unwrap_err();
    assert!(
        e.contains("snapshot is of game 1.2, not of game 1.1"),
        "{e}"
    );
    let e = check_wire(&wire(3, 5, None, Some((4, 1))), Some(1), 1).unwrap_err();
    assert!(e.contains("4.1"), "{e}");
    // The arbiter channel's topic names the table only: the round comes
    // from the snapshot when there is one.
    assert_eq!(
        check_wire(&wire(3, 5, flag("4.1"), Some((4, 1))), None, 1),
        Ok(())
    );
    assert!(check_wire(&wire(3, 5, flag("3.1"), Some((4, 1))), None, 1).is_err());
    assert!(check_wire(&wire(3, 5, flag("4.2"), None), None, 1).is_err());
    assert!(check_wire(&wire(3, 5, flag("x"), None), None, 1).is_err());
}

#[test]
fn no_game_from_the_future_and_no_sequence_beyond_a_real_games() {
    let now = 1_764_000_000_000;
    assert_eq!(
        check_numbers(&wire(1, now + 60_000, None, None), now),
        Ok(())
    );
    let e = check_numbers(&wire(1, u64::MAX, None, None), now).unwrap_err();
    assert!(e.contains("in the future"), "{e}");
    assert!(check_numbers(&wire(1, now + EPOCH_AHEAD_MS + 1, None, None), now).is_err());
    assert_eq!(check_numbers(&wire(MAX_SEQ, now, None, None), now), Ok(()));
    let e = check_numbers(&wire(1_000_000, now, None, None), now).unwrap_err();
    assert!(e.contains("1000000"), "{e}");
}

#[test]
fn refusals_are_alerted_once_per_topic_and_window_and_within_a_burst() {
    let mut r = Refusals::new("mqtt");
    let t0 = Instant::now();
    let a = r.refuse("eboard/x/1/1/events", "why", t0).unwrap();
    let v: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(
        (v["type"].as_str(), v["refused"].as_u64()),
        (Some("uplink_alert"), Some(1))
    );
    assert!(v.get("game").is_none(), "{v}");
    assert!(r.refuse("eboard/x/1/1/events", "why", t0).is_none());
    assert!(r.refuse("eboard/x/1/1/events", "why", t0).is_none());
    // A flood over many topics: at most the burst.
    let n = (0..1000)
        .filter_map(|i| r.refuse(&format!("eboard/x/1/{i}/snapshot"), "junk", t0))
        .count();
    assert_eq!(n, REFUSAL_BURST as usize - 1);
    // The next window: the first topic again, with its count.
    let later = t0 + REFUSAL_EVERY;
    let a = r.refuse("eboard/x/1/1/events", "why", later).unwrap();
    let v: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["refused"], 3, "{v}");
    assert!(v["held"].as_u64().unwrap() > 900, "{v}");
}

#[test]
fn the_scope_narrows_the_subscriptions() {
    let all = Scope::default();
    assert_eq!(
        public_filters(&all, "e/dm"),
        ["e/dm/+/+/events", "e/dm/+/+/snapshot"]
    );
    assert!(all.has_board(700) && all.has_round(9) && !all.has_board(0));
    let s = Scope {
        rounds: vec![3],
        boards: Some(2),
    };
    assert_eq!(
        public_filters(&s, "e/dm"),
        [
            "e/dm/3/1/events",
            "e/dm/3/1/snapshot",
            "e/dm/3/2/events",
            "e/dm/3/2/snapshot"
        ]
    );
    assert!(s.has_board(2) && !s.has_board(3) && s.has_round(3) && !s.has_round(4));
    let r = Scope {
        rounds: vec![3, 4],
        boards: None,
    };
    assert_eq!(public_filters(&r, "e/dm").len(), 4);
    assert_eq!(public_filters(&r, "e/dm")[3], "e/dm/4/+/snapshot");
}
