//! A round run as an arbiter runs it (issue 15, "Judged by": pairings in,
//! boards configured, every alert seen and ruled from one page, results
//! confirmed, nothing ruled by anyone without the right, all of it in the
//! journals and feeds), end to end with real processes and a real broker
//! set up as `docs/mqtt.md` says (no anonymous clients, a password file,
//! an ACL):
//!
//! 1. `eboard event` reads round 4 of `tests/data/pairings-open-2026.trf`
//!    and publishes the four boards' configurations as the organiser.
//! 2. An MQTT relay with the arbiters' console (an arbiter and a deputy,
//!    the console's signing key) follows the event; four boards start with
//!    a 15-minute broadcast delay and take their pairing from the broker:
//!    boards 1 and 3 play the Opera Game, board 2 an illegal move, board
//!    4's players do not come.
//! 3. From the relay's console: every board with its players; board 2's
//!    illegal move arrives long before the delay; the deputy's restore is
//!    refused; the arbiter's is applied on board 2 and journaled with his
//!    name; the alert is acknowledged (kept in the relay's state); board 4
//!    is entered as a forfeit; the results of boards 1 and 3 are confirmed.
//! 4. The relay's public PGN (after the delay) carries the pairing's
//!    players, the confirmed results and the forfeit; no journal has
//!    anything by the deputy.

use crate::common;

use common::console::*;
use common::mosquitto::{board_mqtt, docs_broker_round};
use common::round::*;
use common::*;
use serde_json::{json, Value};

const TRF: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/pairings-open-2026.trf"
);
/// The broadcast delay, seconds of round time (15 minutes; the boards run
/// at 50 times real time, so 18 s here).
const DELAY_S: &str = "900";
const SPEED: &str = "50";

/// The game of round `round` (`4.1`) in a PGN of several games.
fn game_of(pgn: &str, round: &str) -> Option<String> {
    let tag = format!("[Round \"{round}\"]");
    pgn.split("[Event ")
        .find(|g| g.contains(&tag))
        .map(str::to_owned)
}

/// One ruling through the console: (status, reply).
fn rule(relay: &str, cookie: &str, cmd: Value) -> (u16, Value) {
    let (s, _, b) = http(
        relay,
        "POST",
        "/arbiter/command",
        &[("Cookie", cookie)],
        &cmd.to_string(),
    );
    (s, serde_json::from_str(&b).unwrap_or(Value::Null))
}

/// Game `game`'s undelayed state at the console, once `ready` holds.
fn state_of(relay: &str, cookie: &str, game: &str, ready: impl Fn(&Value) -> bool) -> Value {
    poll(60, &format!("the state of {game}"), || {
        console_state(relay, ("Cookie", cookie), game).filter(|st| ready(st))
    })
}

/// The console's open alert of `kind` on `game`, once it is there.
fn alert(relay: &str, cookie: &str, kind: &str, game: &str) -> Value {
    console_alert(relay, ("Cookie", cookie), kind, game)
}

#[test]
fn a_round_from_its_pairings_to_confirmed_results_on_one_console() {
    let dir = tempdir("round");
    // The ACL of `docs/mqtt.md` for tables 1..=4 of round 4 of `dm-2026`,
    // with the organiser who publishes the pairings and the console's relay.
    let organiser_acl = "user organiser\ntopic write eboard/dm-2026/board/+/config\n";
    let Some(broker) = docs_broker_round(&dir, 4, &[1, 2, 3, 4], &["organiser"], organiser_acl)
    else {
        return;
    };
    let url = broker.url();

    // 1. Pairings in: the organiser publishes round 4.
    let out = eboard_command()
        .args(["event", TRF, "--round", "4", "--event", "DM 2026"])
        .args(["--time-control", "5400+30", "--mqtt", &url])
        .args(["--mqtt-username", "organiser"])
        .env("EBOARD_MQTT_PASSWORD", "organiser-pw")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("published 4 board configurations"),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // 2. The console's relay, then the boards.
    let (key, pk) = console_key(&dir, "console.key");
    let relay_toml = format!("{}{}", ruling_key(&key), arbiter_accounts(true));
    let relay = MqttRelay::new(&dir, "relay", &url, "console", &relay_toml).with_state();
    let relay_state = relay.dir.join("state");
    let relay = relay.start();
    let public = SseReader::open(&relay.addr, "/events", &[]);
    relay.wait_log(20, "relay: subscribed to");
    // The file says round 1 and other players: the pairing wins.
    let mqtt = |n: u32| {
        let keys = format!(
            "board_config = true\nboard_config_wait = 10\narbiter_channel = true\n\
             command_keys = [\"{pk}\"]\n"
        );
        board_mqtt(&url, n, &keys)
    };
    let round = Round::start_each(&dir, 4, mqtt, |t| {
        let trace = match t.n {
            1 | 3 => Some(opera_trace(&t.dir, u64::from(t.n))),
            2 => Some(illegal_trace(&t.dir, 12_000)),
            _ => None, // board 4: nobody comes
        };
        t.start(
            trace.as_deref(),
            &refs(&t.journaled(SPEED, &["--delay", DELAY_S])),
        )
    });
    let journals: Vec<_> = round.tables.iter().map(|t| t.journal.clone()).collect();

    // 3. One page: every board with the pairing's players.
    let r = relay.addr.as_str();
    let arbiter = login(r, "IA Hansen", SECRET);
    let deputy = login(r, "Deputy Dam", DEPUTY_SECRET);
    let games = poll(30, "the four boards at the console", || {
        console_states(r, ("Cookie", &arbiter)).filter(|games| games.len() == 4)
    });
    let players: Vec<(String, String, String)> = games
        .iter()
        .map(|g| {
            (
                g["game"].as_str().unwrap_or("").to_owned(),
                g["white"]["name"].as_str().unwrap_or("").to_owned(),
                g["black"]["name"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        players,
        [
            ("4.1", "Iversen,Emil", "Dahl,Ingrid"),
            ("4.2", "Frandsen,Lars", "Andersen,Mads"),
            ("4.3", "Berg,Ola", "Holm,Anders"),
            ("4.4", "Eriksen,Peter", "Christensen,Jonas"),
        ]
        .map(|(g, w, b)| (g.to_owned(), w.to_owned(), b.to_owned())),
        "the boards as the pairing numbered them"
    );

    // Board 2's illegal move at the console from the undelayed arbiter
    // channel: the public feed has it only after the delay (18 s here).
    let illegal = alert(r, &arbiter, "illegal_move", "4.2");
    assert!(illegal["ack"].is_null(), "{illegal}");
    let is_public_illegal = |v: &Value| v["type"] == "illegal_move" && v["game"] == "4.2";
    assert!(
        !public.rx.try_iter().any(|(_, v)| is_public_illegal(&v)),
        "the public feed had the illegal move before the console"
    );
    // The deputy cannot rule; the arbiter can.
    // The ruling names what the arbiter saw: the board's ply and the alert.
    let st = state_of(r, &arbiter, "4.2", |st| st["ply"].is_u64());
    let restore = json!({"board": "4.2", "action": "restore", "id": "round-4.2-restore",
        "expect": {"ply": st["ply"], "event": {"type": "illegal_move", "t": illegal["event"]["t"]}}});
    let (s, v) = rule(r, &deputy, restore.clone());
    assert_eq!(s, 403, "{v}");
    let (s, v) = rule(r, &arbiter, restore);
    assert_eq!(s, 200, "{v}");
    let (s, _, b) = http(
        r,
        "POST",
        "/console/ack",
        &[("Cookie", &arbiter)],
        &json!({"id": illegal["id"]}).to_string(),
    );
    assert_eq!(s, 200, "{b}");
    // Board 4: a no-show, entered as a forfeit.
    let forfeit = json!({"board": "4.4", "action": "forfeit", "body": {"result": "1-0"}, "id": "round-4.4-forfeit",
        "expect": {"ply": 0}});
    let (s, v) = rule(r, &arbiter, forfeit);
    assert_eq!(s, 200, "{v}");
    // Boards 1 and 3 end; their results confirmed from their alerts.
    for g in ["4.1", "4.3"] {
        let end = alert(r, &arbiter, "game_end", g);
        assert_eq!(end["event"]["result"], "1-0", "{end}");
        let st = state_of(r, &arbiter, g, |st| st["result"] == "1-0");
        let expect = json!({"ply": st["ply"], "result": "1-0",
            "event": {"type": "game_end", "t": end["event"]["t"]}});
        let (s, v) = rule(
            r,
            &arbiter,
            json!({"board": g, "action": "confirm", "id": format!("round-{g}-confirm"), "expect": expect}),
        );
        assert_eq!(s, 200, "{v}");
    }

    // 4. The feeds, after the delay: the illegal move, players, confirmed
    // results, the forfeit.
    let (public_at, _) = public.until(60, is_public_illegal).pop().unwrap();
    let console_at = illegal["unix_ms"].as_u64().unwrap();
    assert!(
        public_at >= console_at + 5_000,
        "the console had it {} ms before the public feed (the delay is 18 s)",
        public_at as i64 - console_at as i64
    );
    let pgn = poll(
        90,
        "the confirmed results in the relay's public PGN",
        || {
            let p = get(r, "/games.pgn");
            let done = ["4.1", "4.3", "4.4"].iter().all(|g| {
                game_of(&p, g).is_some_and(|x| {
                    x.contains("[ResultStatus \"confirmed\"]")
                        || x.contains("[ResultStatus \"forfeit\"]")
                })
            });
            done.then_some(p)
        },
    );
    let g1 = game_of(&pgn, "4.1").unwrap();
    assert!(g1.contains("[White \"Iversen,Emil\"]"), "{g1}");
    assert!(g1.contains("[Result \"1-0\"]") && g1.contains("[ResultStatus \"confirmed\"]"));
    let g4 = game_of(&pgn, "4.4").unwrap();
    assert!(g4.contains("[Result \"1-0\"]"), "{g4}");
    assert!(g4.contains("[ResultStatus \"forfeit\"]"), "{g4}");
    assert!(g4.contains("[Termination \"rules infraction\"]"), "{g4}");
    let g2 = game_of(&pgn, "4.2").unwrap();
    assert!(g2.contains("[Result \"*\"]"), "{g2}");

    // The journals: each ruling once, by the arbiter; nothing by the deputy.
    let by = |j: &std::path::PathBuf, action: &str| -> Vec<Value> {
        journal_records(j)
            .into_iter()
            .filter(|v| v["arbiter"] == action)
            .collect()
    };
    let restores = by(&journals[1], "restore");
    assert_eq!(restores.len(), 1, "{restores:?}");
    assert_eq!(restores[0]["author"], "IA Hansen");
    for (j, action) in [
        (&journals[0], "confirm"),
        (&journals[2], "confirm"),
        (&journals[3], "forfeit"),
    ] {
        let recs = by(j, action);
        assert_eq!(recs.len(), 1, "{}: {recs:?}", j.display());
        assert_eq!(recs[0]["author"], "IA Hansen");
    }
    for j in &journals {
        assert!(
            !std::fs::read_to_string(j).unwrap().contains("Deputy Dam"),
            "{}: nothing by the deputy",
            j.display()
        );
    }
    // The acknowledgement is kept in the relay's state.
    let acks = std::fs::read_to_string(relay_state.join("console-acks.jsonl")).unwrap();
    assert!(
        acks.contains("\"by\":\"IA Hansen\"") && acks.contains("illegal_move"),
        "{acks}"
    );
    drop(round);
    std::fs::remove_dir_all(&dir).ok();
}
