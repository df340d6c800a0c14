//! Issue 41 §2: the MQTT relay takes a table's messages only about that
//! table's game, follows only the rounds and boards it is given, caps what
//! it keeps, and is not frozen by one message from the future, with a
//! real mosquitto behind the password file and the ACL of `docs/mqtt.md`
//! (its generator's rules: a board writes only its own round's topics).
//!
//! - **Forged cross-table alerts**: with board 1's credentials, an illegal
//!   move and a flag for board 2 on board 1's arbiter topics (its events
//!   and its retained alert list), and board 1's public snapshot relabelled
//!   as board 2's: none of it reaches the console, the round report or the
//!   public PGN; the console has an alert about the forgery instead, naming
//!   the topic.
//! - **The junk-retained flood**: 2,000 retained junk snapshots under the
//!   event's topics (1,000 with board 1's credentials in other rounds, which
//!   the ACL drops, 980 from a login that may write the whole event's tree,
//!   in tables no game is played at) and 20 messages of 900 KB on a real
//!   game's topic: the relay given its round and boards (`--round 1
//!   --boards 2`) serves only the two real games, their moves still coming,
//!   and its RSS stays within 64 MB of what it was; a relay given neither
//!   keeps the 980 junk games a login that may write every table made
//!   (within its caps: no 900 KB message, at most 1,000 games), its RSS
//!   within 256 MB of what it was.
//! - **The epoch freeze**: a message with an epoch of 2^64−1 and one with a
//!   seq of 10^6 on board 1's topics: refused with an alert, and the board's
//!   next moves still reach the relay's public PGN and its console.

use crate::common;

use common::console::*;
use common::mosquitto::{board_mqtt, docs_broker, publish_as, retained_json};
use common::round::*;
use common::*;
use serde_json::{json, Value};

/// The console's header for `bearer`.
fn auth(bearer: &str) -> (&str, &str) {
    ("Authorization", bearer)
}

/// The relay's alerts about refused messages from `topic` (an
/// `uplink_alert` naming it).
fn refusals(addr: &str, bearer: &str, topic: &str) -> Vec<Value> {
    console_alerts(addr, auth(bearer), "uplink_alert", None)
        .into_iter()
        .filter(|a| a["event"]["topic"].as_str().unwrap_or("") == topic)
        .collect()
}

/// A round of `tables` boards, each playing `moves` quiet moves 1.5 s
/// apart from 2 s, at real speed, journaled, without a broadcast delay,
/// publishing to `url` (with their arbiter channel).
fn quiet_round(dir: &std::path::Path, url: &str, tables: usize, moves: usize) -> Round {
    Round::start_each(
        dir,
        tables,
        |n| board_mqtt(url, n, "arbiter_channel = true\n"),
        |t| {
            let trace = t.trace(TIME_CONTROL, &quiet_steps(2_000, 1_500, moves));
            t.start(Some(&trace), &refs(&t.journaled("1", &["--delay", "0"])))
        },
    )
}

#[test]
fn board_ones_credentials_cannot_forge_board_twos_alerts() {
    let dir = tempdir("mqtt-forged");
    let Some(broker) = docs_broker(&dir, &[1, 2], &[], "") else {
        return;
    };
    let url = broker.url();
    let relay = MqttRelay::new(&dir, "relay", &url, "console", &token_account()).start();
    relay.wait_log(20, "relay: subscribed to");
    let bearer = console_bearer();
    let round = quiet_round(&dir, &url, 2, 8);
    poll(60, "both games in the relay's console", || {
        let two = console_state(&relay.addr, auth(&bearer), "1.2")
            .filter(|s| s["ply"].as_u64() >= Some(1))
            .and(console_state(&relay.addr, auth(&bearer), "1.1"));
        two.filter(|s| s["ply"].as_u64() >= Some(1))
    });
    let port = broker.port;
    let arbiter_snapshot =
        retained_json(port, "console", "eboard/dm-2026/board/1/arbiter/snapshot");
    let epoch = arbiter_snapshot["epoch"].as_u64().unwrap();
    // Board 1's public snapshot, relabelled as board 2's.
    let mut public = retained_json(port, "console", "eboard/dm-2026/1/1/snapshot");
    public["snapshot"]["info"]["board"] = json!(2);
    public["seq"] = json!(public["seq"].as_u64().unwrap() + 1);
    public["snapshot"]["seq"] = public["seq"].clone();

    // With board 1's credentials, within the ACL: its own topics.
    let events = "eboard/dm-2026/board/1/arbiter/events";
    let list = "eboard/dm-2026/board/1/arbiter/alerts";
    let forged_move = json!({"seq": 0, "oob": 1, "boot": 41, "epoch": epoch, "t": 9_000,
        "msg": {"type": "illegal_move", "game": "1.2", "t": 9_000, "color": "white",
                "uci": "e2e5", "article": "7.5.1"}});
    let forged_list = json!({"epoch": epoch, "kept": 64, "cut": 0,
        "alerts": [{"type": "flag", "game": "1.2", "t": 9_500, "color": "black"}]});
    publish_as(
        port,
        "board1",
        &[
            (events.into(), forged_move.to_string().into_bytes(), false),
            (list.into(), forged_list.to_string().into_bytes(), true),
            (
                "eboard/dm-2026/1/1/snapshot".into(),
                public.to_string().into_bytes(),
                true,
            ),
        ],
    );

    // An alert about each forgery, naming the topic and what did not match.
    for topic in [events, list, "eboard/dm-2026/1/1/snapshot"] {
        let a = poll(30, &format!("the relay's alert about {topic}"), || {
            refusals(&relay.addr, &bearer, topic).pop()
        });
        println!("{a}");
        let why = a["event"]["error"].as_str().unwrap();
        assert!(why.contains("1.2") || why.contains("board 2"), "{a}");
        assert!(a["event"]["game"].is_null(), "not filed under a game: {a}");
    }
    for kind in ["illegal_move", "flag"] {
        let got = console_alerts(&relay.addr, auth(&bearer), kind, Some("1.2"));
        assert!(got.is_empty(), "no forged {kind} for 1.2: {got:?}");
    }
    let (s, _, report) = http(
        &relay.addr,
        "GET",
        "/console/report.csv",
        &[auth(&bearer)],
        "",
    );
    assert_eq!(s, 200, "{report}");
    assert!(
        !report
            .lines()
            .any(|l| l.contains("1.2") && (l.contains("illegal") || l.contains("flag"))),
        "{report}"
    );
    let pgn = get(&relay.addr, "/games.pgn");
    assert_eq!(pgn.matches("[Round \"1.1\"]").count(), 1, "{pgn}");
    assert_eq!(pgn.matches("[Round \"1.2\"]").count(), 1, "{pgn}");
    drop(round);
    drop(relay);
    drop(broker);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_flood_of_retained_junk_leaves_the_relay_with_the_real_games() {
    let dir = tempdir("mqtt-junk");
    // A login that may write the whole event's tree: the ACL before issue
    // 41 gave every board every round of its table, a leaked organiser's
    // or a hand-written rule may give more.
    let Some(broker) = docs_broker(
        &dir,
        &[1, 2],
        &["junk"],
        "user junk\ntopic write eboard/dm-2026/#\n",
    ) else {
        return;
    };
    let url = broker.url();
    let relay = MqttRelay::new(&dir, "relay", &url, "console", "")
        .with_args(&["--round", "1", "--boards", "2"])
        .start();
    // A relay given neither: every round (the latest per table), every
    // table, within the caps.
    let every = MqttRelay::new(&dir, "every", &url, "console", "").start();
    relay.wait_log(20, "relay: subscribed to");
    every.wait_log(20, "relay: subscribed to");
    let round = quiet_round(&dir, &url, 2, 12);
    for r in [&relay, &every] {
        poll(60, "both games at the relay", || {
            let pgn = get(&r.addr, "/games.pgn");
            (pgn.matches("1. a3").count() == 2).then_some(())
        });
    }
    let before = rss_kb(relay.child.id());
    let every_before = rss_kb(every.child.id());
    let port = broker.port;
    let real = retained_json(port, "console", "eboard/dm-2026/1/1/snapshot");
    let junk = |r: u32, b: u32| {
        let mut j = real.clone();
        j["snapshot"]["info"]["round"] = json!(r);
        j["snapshot"]["info"]["board"] = json!(b);
        (
            format!("eboard/dm-2026/{r}/{b}/snapshot"),
            j.to_string().into_bytes(),
            true,
        )
    };
    let started = std::time::Instant::now();
    let by_board: Vec<_> = (2..=1001).map(|r| junk(r, 1)).collect();
    publish_as(port, "board1", &by_board);
    let by_junk: Vec<_> = (3..=982).map(|b| junk(1, b)).collect();
    publish_as(port, "junk", &by_junk);
    let mut big = real.clone();
    big["snapshot"]["pgn"] = json!(format!("{{{}}}", "x".repeat(900_000)));
    big["seq"] = json!(real["seq"].as_u64().unwrap() + 1);
    let big = big.to_string().into_bytes();
    let bigs: Vec<_> = (0..20)
        .map(|_| ("eboard/dm-2026/1/2/events".to_owned(), big.clone(), false))
        .collect();
    publish_as(port, "junk", &bigs);
    println!(
        "2,000 retained junk snapshots and 20 of 900 KB published in {} ms",
        started.elapsed().as_millis()
    );
    relay.wait_log(30, "bytes, more than");
    // The boards' last moves still come (6. f3 f6 at 18.5 s).
    poll(60, "the games' last moves at the relay", || {
        let pgn = get(&relay.addr, "/games.pgn");
        (pgn.matches(" f6 ").count() == 2).then_some(pgn)
    });
    let after = rss_kb(relay.child.id());
    println!("relay (--round 1 --boards 2) RSS before the flood {before} kB, after {after} kB");
    every.wait_log(30, "bytes, more than");
    let games = |addr: &str| -> usize {
        let v: Value = serde_json::from_str(&get(addr, "/boards.json")).unwrap();
        v.as_array().unwrap().len()
    };
    let every_games = poll(30, "the junk games at the relay given no scope", || {
        let n = games(&every.addr);
        (n == 982).then_some(n)
    });
    let every_after = rss_kb(every.child.id());
    let every_json = get(&every.addr, "/boards.json").len();
    println!(
        "relay (every round and table) RSS before the flood {every_before} kB, after {every_after} kB; \
         {every_games} games (980 of them junk at tables no game is played at), /boards.json {every_json} bytes"
    );
    assert!(!get(&every.addr, "/games.pgn").contains("xxxxxxxxxx"));
    assert!(
        every_after < every_before + 256 * 1024,
        "{every_before} kB -> {every_after} kB"
    );
    assert_eq!(games(&relay.addr), 2);
    let pgn = get(&relay.addr, "/games.pgn");
    assert_eq!(pgn.matches("[Round ").count(), 2, "{pgn}");
    let boards: Value = serde_json::from_str(&get(&relay.addr, "/boards.json")).unwrap();
    let text = boards.to_string();
    assert!(text.len() < 200_000, "{} bytes", text.len());
    assert!(!text.contains("xxxxxxxxxx"), "no junk padding kept");
    assert!(after < before + 64 * 1024, "{before} kB -> {after} kB");
    drop(round);
    drop(relay);
    drop(broker);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_message_from_the_future_does_not_freeze_a_board() {
    let dir = tempdir("mqtt-epoch");
    let Some(broker) = docs_broker(&dir, &[1], &[], "") else {
        return;
    };
    let url = broker.url();
    let relay = MqttRelay::new(&dir, "relay", &url, "console", &token_account()).start();
    relay.wait_log(20, "relay: subscribed to");
    let bearer = console_bearer();
    let round = quiet_round(&dir, &url, 1, 12);
    poll(60, "1. a3 at the relay", || {
        get(&relay.addr, "/games.pgn")
            .contains("1. a3")
            .then_some(())
    });
    let port = broker.port;
    let epoch = retained_json(port, "console", "eboard/dm-2026/1/1/snapshot")["epoch"]
        .as_u64()
        .unwrap();
    let msg = json!({"type": "clock", "game": "1.1", "t": 3_000});
    let wire = |seq: u64, epoch: u64| {
        json!({"seq": seq, "epoch": epoch, "t": 3_000, "msg": msg, "snapshot": null})
            .to_string()
            .into_bytes()
    };
    let public = "eboard/dm-2026/1/1/events";
    let arbiter = "eboard/dm-2026/board/1/arbiter/events";
    let mut forged = Vec::new();
    for topic in [public, arbiter] {
        forged.push((topic.to_owned(), wire(1, u64::MAX), false));
        forged.push((topic.to_owned(), wire(1_000_000, epoch), false));
    }
    publish_as(port, "board1", &forged);
    // The board's next moves still reach the relay (6. f3 f6 at 18.5 s).
    poll(60, "the game's last move in the relay's public PGN", || {
        get(&relay.addr, "/games.pgn")
            .contains(" f6 ")
            .then_some(())
    });
    poll(30, "the game's last move in the relay's console", || {
        console_state(&relay.addr, auth(&bearer), "1.1").filter(|s| s["ply"] == 12)
    });
    for topic in [public, arbiter] {
        let a = poll(30, &format!("the relay's alert about {topic}"), || {
            refusals(&relay.addr, &bearer, topic).pop()
        });
        println!("{a}");
    }
    drop(round);
    drop(relay);
    drop(broker);
    std::fs::remove_dir_all(&dir).ok();
}
