//! Rulings over MQTT, authenticated end to end (issue 15 item 2), with a
//! real broker (mosquitto): a ruling signed by the console's key is applied
//! and journaled with the arbiter's name; the same id again is a duplicate
//! (also after the board restarts); an unsigned, a forged (another key),
//! an altered and a stale (outside the window) ruling are refused and
//! logged at warn. The broker lets anyone publish: the board's check is
//! the only one.

use crate::common;

use common::console::*;
use common::*;
use serde_json::Value;
use std::path::Path;

fn rule(args: &[&str]) -> (Option<i32>, Value, String) {
    let o = eboard(args);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let v = serde_json::from_str(out.trim()).unwrap_or(Value::Null);
    (
        o.status.code(),
        v,
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

/// The journal's arbiter records authored by `who`.
fn authored(journal: &Path, who: &str) -> Vec<Value> {
    std::fs::read_to_string(journal)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["author"] == who)
        .collect()
}

/// Publishes `payload` on `topic` and returns the first reply on `reply`.
fn raw_publish(port: u16, topic: &str, reply: &str, payload: String) -> Value {
    use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
    let (client, mut conn) = Client::new(MqttOptions::new("test-raw", "127.0.0.1", port), 8);
    let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut payload = Some(payload);
    while std::time::Instant::now() < end {
        match conn.recv_timeout(std::time::Duration::from_secs(1)) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {
                client.subscribe(reply, QoS::AtLeastOnce).unwrap();
            }
            Ok(Ok(Event::Incoming(Packet::SubAck(_)))) => {
                if let Some(p) = payload.take() {
                    client.publish(topic, QoS::AtLeastOnce, false, p).unwrap();
                }
            }
            Ok(Ok(Event::Incoming(Packet::Publish(p)))) => {
                return serde_json::from_slice(&p.payload).unwrap();
            }
            _ => {}
        }
    }
    panic!("no reply on {reply}");
}

/// The retained message on `topic`, if the broker holds one (waits at most 2 s).
fn retained(port: u16, topic: &str) -> Option<Value> {
    use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
    let (client, mut conn) = Client::new(MqttOptions::new("test-retained", "127.0.0.1", port), 8);
    let end = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while std::time::Instant::now() < end {
        match conn.recv_timeout(std::time::Duration::from_millis(200)) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {
                client.subscribe(topic, QoS::AtLeastOnce).unwrap();
            }
            Ok(Ok(Event::Incoming(Packet::Publish(p)))) => {
                let _ = client.disconnect();
                return serde_json::from_slice(&p.payload).ok();
            }
            _ => {}
        }
    }
    None
}

#[test]
fn signed_rulings_are_applied_once_and_nothing_else_is() {
    let dir = tempdir("rulings");
    let Some(sb) = signed_board(&dir, "command_window = 60\n") else {
        return;
    };
    let (broker, url, key, cfg) = (&sb.broker, sb.url.clone(), sb.key.clone(), sb.cfg.clone());
    let (forger, _) = console_key(&dir, "forger.key");
    let trace = opera_trace(&dir, 2);
    let journal = dir.join("j.jsonl");
    let j = journal.to_str().unwrap();
    let board = run_board(&dir, &cfg, Some(&trace), &["--journal", j]);
    board.wait_log(
        20,
        "rulings: signed commands on eboard/dm-2026/board/2/command",
    );
    let send = |key: &Path, id: &str, action: &str, arbiter: &str, extra: &[&str]| {
        let mut a = rule_args(key, &url, 2, action, arbiter, id);
        a.extend(extra.iter().map(|x| x.to_string()));
        rule(&refs(&a))
    };

    // Signed by the console: applied, journaled with the arbiter's name;
    // its effect said in words beside the reply's JSON.
    let (code, reply, err) = send(&key, "r-1", "pause", "Hansen, IA", &[]);
    assert_eq!(code, Some(0), "{reply} {err}");
    assert_eq!(reply["status"], "applied", "{reply}");
    assert!(
        err.contains("applied on board 2 (ruling #1: both clocks stopped at"),
        "{err}"
    );
    assert_eq!(reply["arbiter"], "Hansen, IA");
    let recs = authored(&journal, "Hansen, IA");
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert_eq!(recs[0]["arbiter"], "pause");

    // The same id again: a duplicate, acknowledged, not applied twice.
    let (code, reply, err) = send(&key, "r-1", "pause", "Hansen, IA", &[]);
    assert_eq!(code, Some(0));
    assert!(err.contains("not applied again"), "{err}");
    assert_eq!(reply["status"], "duplicate", "{reply}");
    assert_eq!(reply["outcome"]["status"], "applied");
    assert_eq!(authored(&journal, "Hansen, IA").len(), 1);

    // Another key: refused.
    let (code, reply, _) = send(&forger, "r-2", "pause", "Hansen, IA", &[]);
    assert_eq!(code, Some(1));
    assert_eq!(reply["status"], "refused", "{reply}");
    assert!(
        reply["reason"].as_str().unwrap().contains("not signed"),
        "{reply}"
    );
    // Issued ten minutes ago: outside the window.
    let old = (unix_ms() - 600_000).to_string();
    let (code, reply, _) = send(&key, "r-3", "pause", "Hansen, IA", &["--issued-ms", &old]);
    assert_eq!(code, Some(1));
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("outside the window"),
        "{reply}"
    );
    // A bad body, signed: rejected (and kept: the same id is a duplicate).
    let (code, reply, _) = send(
        &key,
        "r-4",
        "pause",
        "Hansen, IA",
        &["--body", "{\"minutes\": 5}"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(reply["status"], "rejected", "{reply}");
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("unknown key 'minutes'"),
        "{reply}"
    );

    // Without `expect` (what the ruling was made from): rejected, 428.
    let mut bare = rule_args(&key, &url, 2, "resume", "Refused, IA", "r-8");
    bare.truncate(bare.len() - 2);
    let (code, reply, _) = rule(&refs(&bare));
    assert_eq!(code, Some(1));
    assert_eq!(
        (reply["status"].as_str(), reply["code"].as_u64()),
        (Some("rejected"), Some(428)),
        "{reply}"
    );
    assert!(
        reply["reason"].as_str().unwrap().contains("expect"),
        "{reply}"
    );
    // Impossible: the board itself refuses it with the reason (422), as
    // the HTTP way does; journaled as refused, never given.
    let (code, reply, _) = send(
        &key,
        "r-9",
        "position",
        "Refused, IA",
        &["--body", r#"{"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}"#],
    );
    assert_eq!(code, Some(1), "{reply}");
    assert_eq!(
        (reply["status"].as_str(), reply["code"].as_u64()),
        (Some("refused"), Some(422)),
        "{reply}"
    );
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("not a legal position"),
        "{reply}"
    );
    assert_eq!(reply["refused"]["type"], "ruling_refused", "{reply}");
    assert_eq!(authored(&journal, "Refused, IA").len(), 1);

    // Straight to the broker: unsigned, and signed but altered (the name).
    let topic = "eboard/dm-2026/board/2/command";
    let reply_topic = "eboard/dm-2026/board/2/reply";
    let now = unix_ms();
    let unsigned = serde_json::json!({"board": 2, "action": "resume", "body": {}, "arbiter": "Broker User", "id": "r-5", "issued_ms": now});
    let r = raw_publish(broker.port, topic, reply_topic, unsigned.to_string());
    assert_eq!(
        (r["id"].as_str(), r["status"].as_str()),
        (Some("r-5"), Some("refused")),
        "{r}"
    );
    let signed = eboard::mqtt::command::SigningKey::from_seed_hex(
        &std::fs::read_to_string(&forger).unwrap(),
    )
    .unwrap()
    .sign(
        "dm-2026",
        eboard::mqtt::command::Ruling {
            board: 2,
            round: None,
            action: "resume".into(),
            body: Value::Null,
            arbiter: "Hansen, IA".into(),
            id: "r-6".into(),
            issued_ms: now,
        },
    );
    let mut altered = serde_json::to_value(&signed).unwrap();
    altered["arbiter"] = "Broker User".into();
    let r = raw_publish(broker.port, topic, reply_topic, altered.to_string());
    assert_eq!(r["status"], "refused", "{r}");
    assert!(authored(&journal, "Broker User").is_empty());
    let log = std::fs::read_to_string(&board.stderr).unwrap();
    assert!(
        log.contains("WARN") && log.contains("ruling refused: not signed"),
        "{log}"
    );
    assert!(
        log.contains("ruling refused: issued") && log.contains("outside the window"),
        "{log}"
    );
    assert!(
        log.contains("ruling seen before: not applied again"),
        "{log}"
    );

    // No reply (here: no board 7; a board away, a broker restarted): the
    // words say that it may have been applied and name the id to send it
    // again with, since a new id could apply it twice (ia12).
    let mut none = rule_args(&key, &url, 7, "pause", "Hansen, IA", "r-none");
    none.extend(["--wait".to_owned(), "1".to_owned()]);
    let (code, _, err) = rule(&refs(&none));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("no reply from the board")
            && err.contains("the ruling was sent")
            && err.contains("send it again with --id r-none"),
        "{err}"
    );

    // The board away (killed: the broker publishes its will, retained
    // offline): a ruling is not sent to it (its clean session would lose
    // it), and the words say so: not sent, so not applied (ia17 incident
    // 3; before: "the ruling was sent: the board may have applied it or
    // not" after the whole wait).
    drop(board);
    let status_topic = "eboard/dm-2026/board/2/status";
    poll(20, "the board's retained status offline", || {
        (retained(broker.port, status_topic)?["status"] == "offline").then_some(())
    });
    let (code, reply, err) = send(&key, "r-off", "resume", "Hansen, IA", &["--wait", "2"]);
    assert_eq!(code, Some(2), "{reply} {err}");
    assert!(
        err.contains("the board is offline (connection lost")
            && err.contains("the ruling was not sent, so it was not applied")
            && err.contains("--id r-off"),
        "{err}"
    );
    // A restarted board still knows r-1.
    let again = run_board(&dir, &cfg, None, &["--journal", j]);
    again.wait_log(20, "rulings: signed commands");
    let (code, reply, err) = send(&key, "r-1", "pause", "Hansen, IA", &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(reply["status"], "duplicate", "{reply}");
    assert_eq!(authored(&journal, "Hansen, IA").len(), 1);
    // The ruling held while the board was away was never taken: sent
    // again with its id now, it is applied (not a duplicate).
    let (code, reply, err) = send(&key, "r-off", "resume", "Hansen, IA", &[]);
    assert_eq!(code, Some(0), "{reply} {err}");
    assert_eq!(reply["status"], "applied", "{reply}");
    // And a new ruling from the console is taken after the restart.
    let (code, reply, _) = send(&key, "r-7", "pause", "Jensen, FA", &[]);
    assert_eq!(code, Some(0), "{reply}");
    assert_eq!(authored(&journal, "Jensen, FA")[0]["arbiter"], "pause");
}

/// The arbiter's console of an MQTT relay rules a board through its signed
/// command topic (issue 15 item 1: "an MQTT command topic that the board
/// subscribes to"): applied and journaled with the arbiter's name; the same
/// id again is answered as repeated; a deputy cannot rule.
#[test]
fn the_mqtt_relays_console_rules_through_the_signed_command_topic() {
    let dir = tempdir("rulings-console");
    let Some(sb) = signed_board(&dir, "") else {
        return;
    };
    let (url, key, cfg) = (sb.url.clone(), sb.key.clone(), sb.cfg.clone());
    let journal = dir.join("j.jsonl");
    let board = run_board(&dir, &cfg, None, &["--journal", journal.to_str().unwrap()]);
    board.wait_log(
        20,
        "rulings: signed commands on eboard/dm-2026/board/2/command",
    );
    const ARBITER: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
    const DEPUTY: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
    let relay_cfg = dir.join("relay.toml");
    std::fs::write(
        &relay_cfg,
        format!(
            "[arbiter]\nruling_key = \"{}\"\n\n[[arbiter.accounts]]\nname = \"IA Hansen\"\ntoken = \"{ARBITER}\"\n\n\
             [[arbiter.accounts]]\nname = \"Deputy Dam\"\nrole = \"deputy\"\ntoken = \"{DEPUTY}\"\n",
            key.display()
        ),
    )
    .unwrap();
    let other = dir.join("relay");
    std::fs::create_dir_all(&other).unwrap();
    let relay = spawn(
        &[
            "relay",
            "--mqtt",
            &url,
            "--event",
            "DM 2026",
            "--config",
            relay_cfg.to_str().unwrap(),
        ],
        &[],
        &other,
    );
    let bearer = format!("Bearer {ARBITER}");
    let me = [("Authorization", bearer.as_str())];
    // The arbiter rules on a game his console shows: before the relay
    // follows game 1.2 a ruling for it is refused there (404).
    poll(20, "game 1.2 at the relay", || {
        let (s, body) = request(&relay.addr, "GET", "/arbiter/state", &me, "");
        let games: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        (s == 200
            && games.as_array().is_some_and(|g| {
                g.iter()
                    .any(|g| g["info"]["round"] == 1 && g["info"]["board"] == 2)
            }))
        .then_some(())
    });
    let cmd =
        serde_json::json!({"board": "1.2", "action": "pause", "expect": {"ply": 0}, "id": "mqtt-console-1"}).to_string();
    let (status, body) = request(&relay.addr, "POST", "/arbiter/command", &me, &cmd);
    assert_eq!(status, 200, "{body}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["author"], "IA Hansen", "{reply}");
    assert!(
        reply["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "ruling"),
        "{reply}"
    );
    let paused = authored(&journal, "IA Hansen");
    assert_eq!(paused.len(), 1, "{paused:?}");
    assert_eq!(paused[0]["arbiter"], "pause");
    // The same id again: answered, not applied twice.
    let (status, body) = request(&relay.addr, "POST", "/arbiter/command", &me, &cmd);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"repeated\":true"), "{body}");
    assert_eq!(authored(&journal, "IA Hansen").len(), 1);
    // A deputy rules nothing, over MQTT either.
    let deputy = format!("Bearer {DEPUTY}");
    let dep = [("Authorization", deputy.as_str())];
    let other_cmd =
        serde_json::json!({"board": "1.2", "action": "resume", "expect": {"ply": 0}, "id": "mqtt-console-2"}).to_string();
    assert_eq!(
        request(&relay.addr, "POST", "/arbiter/command", &dep, &other_cmd).0,
        403
    );
    assert!(authored(&journal, "Deputy Dam").is_empty());
    std::fs::remove_dir_all(&dir).ok();
}
