//! The MQTT relay's console takes its alerts from the boards' undelayed
//! arbiter channel (issue 15, the item left open in session 5), with a real
//! broker (mosquitto) that has a password file and an ACL file, as
//! `docs/mqtt.md` ("The arbiter channel") tells an organiser to write them.
//!
//! Three `eboard run` boards with a broadcast delay of 900 s: boards 1 and 2
//! publish their arbiter channel (`[mqtt] arbiter_channel = true`), board 3
//! does not. Board 1 plays 1. e4, boards 2 and 3 an illegal e2-e5, four
//! seconds into their games. An `eboard relay --mqtt … --event` logged in
//! as the ACL's `console` user has board 2's illegal move in its
//! `/console/alerts` within seconds, naming the game, and board 1's move in
//! its console's (undelayed) view, while its public PGN and `/events` do
//! not have them; it never gets board 3's (no arbiter channel: only the
//! delayed public feed). The arbiter restores board 2 through the relay
//! (signed command topic): journaled with his name, and the `ruling`
//! comes back on the console's stream at once; a ruling for a game the
//! relay does not follow is refused there (404), and one signed for
//! another round's game at the same table is refused by the board (409).
//! A subscriber as the
//! `spectator` user to `#` gets the public topics and nothing of the
//! arbiter topics; a relay with console accounts logged in as `spectator`
//! says at warn and in its console that the announced channel does not
//! reach it (never silently).

use crate::common;

use common::console::*;
use common::mosquitto::{board_mqtt, docs_broker};
use common::round::*;
use common::*;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The broadcast delay of every board, seconds (15 minutes).
const DELAY_S: &str = "900";

/// Every topic a client logged in as `user` receives on `#`, as it comes.
fn sniff(port: u16, user: &str, password: &str) -> Arc<Mutex<Vec<String>>> {
    use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
    let mut o = MqttOptions::new(format!("sniff-{user}"), "127.0.0.1", port);
    o.set_credentials(user, password);
    let (client, mut conn) = Client::new(o, 64);
    let topics = Arc::new(Mutex::new(Vec::new()));
    let seen = topics.clone();
    std::thread::spawn(move || {
        for ev in conn.iter() {
            match ev {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    let _ = client.subscribe("#", QoS::AtLeastOnce);
                }
                Ok(Event::Incoming(Packet::SubAck(s))) => {
                    seen.lock()
                        .unwrap()
                        .push(format!("SUBACK {:?}", s.return_codes));
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    seen.lock().unwrap().push(p.topic.clone());
                }
                Ok(_) => {}
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    });
    topics
}

/// `GET path` with the arbiter's bearer token: (status, JSON body).
fn arbiter_get(addr: &str, path: &str) -> (u16, Value) {
    get_json(addr, path, ("Authorization", &console_bearer()))
}

/// The console's alerts of `kind` about `game`.
fn alerts(addr: &str, kind: &str, game: Option<&str>) -> Vec<Value> {
    console_alerts(addr, ("Authorization", &console_bearer()), kind, game)
}

fn log_of(r: &Running) -> String {
    std::fs::read_to_string(&r.stderr).unwrap_or_default()
}

#[test]
fn the_mqtt_relays_console_gets_the_arbiter_channel_before_the_delay() {
    let dir = tempdir("mqtt-console");
    // The ACL of `docs/mqtt.md` for tables 1..=3 of `dm-2026`.
    let spectator_acl = "user spectator\n\
         topic read eboard/dm-2026/+/+/events\n\
         topic read eboard/dm-2026/+/+/snapshot\n";
    let Some(broker) = docs_broker(&dir, &[1, 2, 3], &["spectator"], spectator_acl) else {
        return;
    };
    let url = broker.url();
    let spectator = sniff(broker.port, "spectator", "spectator-pw");

    // The console's relay, subscribed before the boards play.
    let (key, pk) = console_key(&dir, "console.key");
    let relay_toml = format!("{}{}", ruling_key(&key), token_account());
    let relay = MqttRelay::new(&dir, "relay", &url, "console", &relay_toml).start();
    // A relay with a console but the spectators' login: the ACL keeps the
    // arbiter topics from it.
    let denied = MqttRelay::new(&dir, "denied", &url, "spectator", &relay_toml).start();
    for r in [&relay, &denied] {
        r.wait_log(20, "relay: subscribed to");
    }
    assert!(
        log_of(&relay).contains("eboard/dm-2026/board/+/arbiter/#"),
        "{}",
        log_of(&relay)
    );
    let relay_public = SseReader::open(&relay.addr, "/events", &[]);
    let bearer = console_bearer();
    let console_stream = SseReader::open(
        &relay.addr,
        "/arbiter/events",
        &[("Authorization", bearer.as_str())],
    );

    // The boards: 1 plays 1. e4, 2 and 3 an illegal e2-e5, at 4 s.
    let started = Instant::now();
    let mqtt = |n: u32| {
        let keys = format!("arbiter_channel = {}\ncommand_keys = [\"{pk}\"]\n", n != 3);
        board_mqtt(&url, n, &keys)
    };
    let mut round = Round::start_each(&dir, 3, mqtt, |t| {
        let b = TraceBuilder::new().header("time_control", TIME_CONTROL);
        let b = if t.n == 1 {
            b.mv(4_000, "e2e4", "w")
        } else {
            b.lift(4_000, "e2").place(4_200, "e5").press(4_400, "w")
        };
        let trace = write_trace(&t.dir, "moves", &b);
        t.start(
            Some(&trace),
            &refs(&t.journaled("1", &["--delay", DELAY_S])),
        )
    });
    let journals: Vec<_> = round.tables.iter().map(|t| t.journal.clone()).collect();
    let boards = &mut round.boards;
    // Board 2's own arbiter channel, to time the relay's alert against.
    let board_bearer = format!("Bearer {ARBITER_TOKEN}");
    let b2 = SseReader::open(
        &boards[1].addr,
        "/arbiter/events",
        &[("Authorization", board_bearer.as_str())],
    );
    for (n, b) in boards.iter().enumerate().take(2) {
        let log = log_of(b);
        assert!(
            log.contains(&format!(
                "the arbiter channel (undelayed) is published on eboard/dm-2026/board/{}/arbiter/events",
                n + 1
            )),
            "{log}"
        );
    }

    // Board 2's illegal move at the relay's console: seconds, not 15 minutes.
    let alert = poll(
        60,
        "board 1.2's illegal move in the relay's console",
        || alerts(&relay.addr, "illegal_move", Some("1.2")).pop(),
    );
    let after = started.elapsed();
    let at_board = b2
        .until(10, |m| m["type"] == "illegal_move")
        .last()
        .unwrap()
        .0;
    let latency = alert["unix_ms"].as_u64().unwrap() as i64 - at_board as i64;
    println!(
        "illegal move of board 1.2 in the MQTT relay's console {} ms after the boards started \
         (the move at 4.4 s round time; broadcast delay {DELAY_S} s), {latency} ms after it \
         reached a reader of the board's own /arbiter/events",
        after.as_millis()
    );
    assert!(after < Duration::from_secs(60), "{after:?}");
    assert!(latency < 5_000, "{latency} ms");
    assert_eq!(alert["event"]["game"], "1.2", "{alert}");
    assert!(alert["ack"].is_null(), "{alert}");

    // Board 1's move is in the console's undelayed view, not in the public feeds.
    let state = poll(20, "1. e4 in the console's view", || {
        let (s, v) = arbiter_get(&relay.addr, "/arbiter/state");
        (s == 200 && v.to_string().contains("e2e4")).then_some(v)
    });
    assert!(
        state.as_array().unwrap().len() >= 3,
        "every board shown: {state}"
    );
    let pgn = get(&relay.addr, "/games.pgn");
    assert!(pgn.contains("[Round \"1.1\"]"), "{pgn}");
    assert!(
        !pgn.contains("1. e4"),
        "the public PGN waits out the delay: {pgn}"
    );
    let public: Vec<Value> = relay_public.rx.try_iter().map(|(_, v)| v).collect();
    assert!(
        !public
            .iter()
            .any(|m| m["type"] == "illegal_move" || m["type"] == "move"),
        "the public stream waits out the delay: {public:?}"
    );

    // Board 3 (no arbiter channel) had its illegal move too (its own
    // arbiter channel has it); checked at the relay at the end, seconds later.
    let b3 = SseReader::open(
        &boards[2].addr,
        "/arbiter/events",
        &[("Authorization", board_bearer.as_str())],
    );
    b3.until(30, |m| m["type"] == "illegal_move");
    let b3_illegal = Instant::now();
    assert!(
        log_of(&relay).contains("board 1.3 of dm-2026 does not publish its arbiter channel"),
        "{}",
        log_of(&relay)
    );

    // The arbiter rules from the alert through the relay (signed command topic).
    let cmd = json!({"board": "1.2", "action": "restore", "id": "mqtt-console-restore-1",
        "expect": {"ply": 0}});
    let (s, body) = console_command(&relay.addr, ("Authorization", &bearer), &cmd);
    assert_eq!(s, 200, "{body}");
    let restores: Vec<Value> = std::fs::read_to_string(&journals[1])
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["arbiter"] == "restore")
        .collect();
    assert_eq!(restores.len(), 1, "{restores:?}");
    assert_eq!(restores[0]["author"], "IA Hansen");
    let ruling = console_stream.until(20, |m| m["type"] == "ruling" && m["game"] == "1.2");
    let ruling = &ruling.last().unwrap().1;
    assert_eq!(ruling["author"], "IA Hansen", "{ruling}");
    assert_eq!(ruling["action"], "restore", "{ruling}");
    let public: Vec<Value> = relay_public.rx.try_iter().map(|(_, v)| v).collect();
    assert!(!public.iter().any(|m| m["type"] == "ruling"), "{public:?}");

    // A ruling for a game this relay does not follow (round 2's game at
    // table 2, seen on an old page or another relay's): refused at the
    // relay with the games it does follow, never sent to table 2.
    let other = json!({"board": "2.2", "action": "pause", "id": "mqtt-console-other-round",
        "expect": {"ply": 0}});
    let (s, body) = console_command(&relay.addr, ("Authorization", &bearer), &other);
    assert_eq!(s, 404, "{body}");
    assert!(
        body.contains("this relay follows no game 2.2") && body.contains("1.2"),
        "{body}"
    );
    // Signed for round 2 and sent to table 2 itself (`eboard rule`), which
    // plays round 1's game: refused by the board (409), journaled as
    // nothing; the same ruling for round 1 is applied.
    let rule = |action: &str, round: &str, id: &str| {
        let mut args = console::rule_args(&key, &url, 2, action, "IA Hansen", id);
        args.extend(["--mqtt-username", "console", "--round", round].map(str::to_owned));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        eboard_command()
            .args(&args)
            .env("EBOARD_MQTT_PASSWORD", "console-pw")
            .output()
            .unwrap()
    };
    let wrong = rule("pause", "2", "mqtt-console-round-2");
    let out = String::from_utf8_lossy(&wrong.stdout);
    assert!(!wrong.status.success(), "{out}");
    assert!(
        out.contains("\"code\":409")
            && out.contains("made for game 2.2; board 2 now plays game 1.2: not applied"),
        "{out} {}",
        String::from_utf8_lossy(&wrong.stderr)
    );
    let pauses = || {
        std::fs::read_to_string(&journals[1])
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"arbiter\":\"pause\""))
            .count()
    };
    assert_eq!(pauses(), 0, "a ruling for another round is not journaled");
    let right = rule("pause", "1", "mqtt-console-round-1");
    assert!(
        right.status.success(),
        "{}",
        String::from_utf8_lossy(&right.stdout)
    );
    assert_eq!(pauses(), 1);
    let resumed = rule("resume", "1", "mqtt-console-round-1-resume");
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stdout)
    );
    // Read off the console's stream up to the resume, before the restart.
    console_stream.until(20, |m| m["type"] == "ruling" && m["action"] == "resume");

    // Board 2 killed and restarted from its journal: its downtime (an
    // out-of-band alert, not in the journal's replay) reaches the console;
    // the replayed stream is not sent again (the queue's high-water mark),
    // so the console's stream has the illegal move and the ruling once.
    let queue = dir.join("b2").join("j.jsonl.mqtt-arbiter");
    assert!(
        std::fs::read_to_string(&queue)
            .unwrap()
            .contains("\"illegal_move\""),
        "the arbiter channel's queue beside the journal"
    );
    boards[1].kill();
    let t2 = &round.tables[1];
    boards[1] = t2.start(
        Some(&t2.dir.join("moves.jsonl")),
        &refs(&t2.journaled("1", &["--delay", DELAY_S])),
    );
    let downtime = poll(30, "board 1.2's downtime in the relay's console", || {
        alerts(&relay.addr, "irregularity", Some("1.2"))
            .into_iter()
            .find(|a| a["event"]["kind"] == "downtime")
    });
    assert!(
        downtime["event"]["downtime_ms"].as_u64().is_some(),
        "{downtime}"
    );
    let stream = console_stream.until(20, |m| m["kind"] == "downtime" && m["game"] == "1.2");
    let again = |ty: &str| {
        stream
            .iter()
            .filter(|(_, m)| m["type"] == ty && m["game"] == "1.2")
            .filter(|(_, m)| ty != "ruling" || m["author"] == "IA Hansen")
            .count()
    };
    assert_eq!(again("illegal_move"), 0, "sent before: {stream:?}");
    assert_eq!(again("ruling"), 0, "sent before: {stream:?}");
    assert_eq!(
        alerts(&relay.addr, "illegal_move", Some("1.2")).len(),
        1,
        "one alert"
    );

    // The relay logged in as the spectators' user: told, at warn and in its console.
    let missing = poll(30, "the missing arbiter channel alerted", || {
        let a = alerts(&denied.addr, "uplink_alert", Some("1.2"));
        (!a.is_empty()).then_some(a)
    });
    let why = missing[0]["event"]["error"].as_str().unwrap();
    assert!(
        why.contains("ACL") && why.contains("eboard/dm-2026/board/2/arbiter/#"),
        "{why}"
    );
    let log = log_of(&denied);
    assert!(
        log.contains("WARN")
            && log.contains("board 1.2 announces its arbiter channel, but nothing"),
        "{log}"
    );
    assert!(alerts(&denied.addr, "illegal_move", Some("1.2")).is_empty());
    assert!(alerts(&denied.addr, "uplink_alert", Some("1.3")).is_empty());

    // Board 3's illegal move, many seconds on: still not at the relay's
    // console (it would have come in about the time board 2's did).
    assert!(
        b3_illegal.elapsed() > Duration::from_secs(5),
        "{:?}",
        b3_illegal.elapsed()
    );
    assert!(
        alerts(&relay.addr, "illegal_move", Some("1.3")).is_empty(),
        "board 3 publishes no arbiter channel: its alert waits for the delay"
    );

    // The spectator's `#`: the public topics, never an arbiter topic.
    let seen = spectator.lock().unwrap().clone();
    assert!(
        seen.iter().any(|t| t == "eboard/dm-2026/1/2/snapshot"),
        "{seen:?}"
    );
    assert!(
        seen.iter().all(|t| !t.contains("/arbiter/")),
        "the ACL keeps the arbiter topics from spectators: {seen:?}"
    );
    // The console's own login does get them (the ACL is what keeps them apart).
    let console_sniff = sniff(broker.port, "console", "console-pw");
    poll(
        20,
        "the retained arbiter snapshot for the console user",
        || {
            console_sniff
                .lock()
                .unwrap()
                .iter()
                .any(|t| t == "eboard/dm-2026/board/2/arbiter/snapshot")
                .then_some(())
        },
    );
    std::fs::remove_dir_all(&dir).ok();
}
