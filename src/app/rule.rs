//! `eboard rule`: a ruling sent to one board over MQTT, signed with the
//! console's Ed25519 key ([`crate::mqtt::command`]), and the board's reply
//! printed (exit 0: applied or a duplicate of one; 1: refused or
//! rejected); `--keygen FILE` makes a key. What the arbiter's console does
//! for each ruling, for an arbiter without one and for the tests.

use crate::mqtt::command::{topics, Ruling, SigningKey};
use crate::mqtt::{self, BrokerAddr};
use anyhow::{anyhow, bail, Context};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The arguments of `eboard rule`.
#[derive(Debug, clap::Args)]
pub struct RuleArgs {
    /// Write a new signing key (its seed, hex) to FILE, readable by its
    /// owner only, and print its public key for the boards' [mqtt]
    /// command_keys.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["key", "mqtt"])]
    pub keygen: Option<PathBuf>,
    /// The signing key file (from --keygen).
    #[arg(long, value_name = "FILE", requires_all = ["mqtt", "board", "action", "arbiter"])]
    pub key: Option<PathBuf>,
    /// The broker: mqtt://host[:port] or mqtts://host[:port] (the password
    /// from EBOARD_MQTT_PASSWORD).
    #[arg(long, value_name = "URL")]
    pub mqtt: Option<String>,
    /// With --mqtt: the username.
    #[arg(long, value_name = "USER")]
    pub mqtt_username: Option<String>,
    /// With mqtts://: a PEM file of extra CA certificates to trust.
    #[arg(long, value_name = "FILE")]
    pub mqtt_ca_file: Option<String>,
    /// The first topic level (default eboard).
    #[arg(long, value_name = "PREFIX", default_value = mqtt::DEFAULT_PREFIX)]
    pub topic_prefix: String,
    /// The event's name (as in the boards' config).
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// The board (table) number.
    #[arg(long, value_name = "N")]
    pub board: Option<u32>,
    /// The round of the game the ruling is for (its `round.board` is
    /// ROUND.N): a board that now plays another round's game refuses it.
    /// Give it: without it the board takes the ruling for whatever game it
    /// plays now.
    #[arg(long, value_name = "ROUND")]
    pub round: Option<u32>,
    /// The action, as the arbiter API's: accept, overrule, restore, result,
    /// confirm, forfeit, clock, position, pause, resume, undo, rewind,
    /// choose, uphold, reject (a draw claim the board held, `claim_held`),
    /// increment (2023 Guidelines III.4: '{"by": "b"}', five seconds
    /// per move for both and two minutes to the opponent).
    #[arg(long, value_name = "ACTION")]
    pub action: Option<String>,
    /// The action's JSON body, e.g. '{"result": "1-0"}'.
    #[arg(long, value_name = "JSON")]
    pub body: Option<String>,
    /// What the ruling was made from (required by the board), e.g.
    /// '{"ply": 23, "event": {"type": "claim", "t": 81234}}': the board's
    /// `ply` (and the alert answered) as its state shows them.
    #[arg(long, value_name = "JSON")]
    pub expect: Option<String>,
    /// The arbiter who rules (journaled as the author).
    #[arg(long, value_name = "NAME")]
    pub arbiter: Option<String>,
    /// The ruling's id (default: a new random one); the same id again is
    /// answered as a duplicate, not applied twice.
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// The issue time, Unix ms (default: now). For tests of the window.
    #[arg(long, value_name = "MS", hide = true)]
    pub issued_ms: Option<u64>,
    /// How long to wait for the board's reply, seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub wait: u64,
}

/// `eboard rule`: Ok(true) when the board applied it (or had applied it).
pub fn rule(args: RuleArgs) -> anyhow::Result<bool> {
    if let Some(path) = &args.keygen {
        let (key, seed) = SigningKey::generate();
        crate::disk::write_private(path, format!("{seed}\n").as_bytes())
            .map_err(|e| anyhow!("--keygen: {e}"))?;
        println!("{}", key.public_hex());
        return Ok(true);
    }
    let Some(key_path) = &args.key else {
        bail!("give --key FILE (or --keygen FILE to make one)");
    };
    let text = std::fs::read_to_string(key_path).with_context(|| key_path.display().to_string())?;
    let key =
        SigningKey::from_seed_hex(&text).map_err(|e| anyhow!("{}: {e}", key_path.display()))?;
    let url = args.mqtt.clone().unwrap_or_default();
    let security = mqtt::Security {
        username: args.mqtt_username.clone(),
        password: None,
        ca_file: args.mqtt_ca_file.clone(),
    };
    let broker = BrokerAddr::from_settings(&url, &security, std::env::var(mqtt::PASSWORD_ENV).ok())
        .map_err(|(k, e)| anyhow!("--mqtt {k}: {e}"))?;
    let body: serde_json::Value = match &args.body {
        Some(b) => serde_json::from_str(b).map_err(|e| anyhow!("--body: {e}"))?,
        None => serde_json::Value::Null,
    };
    let expect: Option<serde_json::Value> = match &args.expect {
        Some(e) => Some(serde_json::from_str(e).map_err(|e| anyhow!("--expect: {e}"))?),
        None => None,
    };
    let body = match expect {
        Some(e) => crate::console::ruling::body_with_expect(Some(&body), Some(&e)),
        None => body,
    };
    let board = args.board.unwrap_or(1);
    let ruling = Ruling {
        board,
        round: args.round,
        action: args.action.clone().unwrap_or_default(),
        body,
        arbiter: args.arbiter.clone().unwrap_or_default(),
        id: args
            .id
            .clone()
            .unwrap_or_else(|| format!("{:016x}", rand::random::<u64>())),
        issued_ms: args.issued_ms.unwrap_or_else(super::daemon::unix_now_ms),
    };
    let id = ruling.id.clone();
    let event = mqtt::slug(args.event.as_deref());
    let signed = key.sign(&event, ruling);
    let (command, reply) = topics(&args.topic_prefix, &event, board);
    let status = crate::mqtt::status::topic(&args.topic_prefix, Some(&event), board);
    let payload = serde_json::to_vec(&signed).context("the ruling as JSON")?;
    let answer = send_and_wait(
        &broker,
        Some(&status),
        &command,
        &reply,
        payload,
        &id,
        Duration::from_secs(args.wait),
    )
    .map_err(|e| {
        // Sent again with a new id, a ruling the board did apply (its
        // reply lost) would be applied twice: name the id to send again.
        anyhow!(
            "{e:#}; the ruling's id is {id}: send it again with --id {id} to learn its outcome \
             (a board applies an id once and answers it again with its first outcome), \
             never with a new id"
        )
    })?;
    println!("{answer}");
    tracing::info!("{}", summary(&answer));
    Ok(matches!(answer["status"].as_str(), Some("applied"))
        || (answer["status"] == "duplicate" && answer["outcome"]["status"] == "applied"))
}

/// The board's reply in one line of words: "applied on board 2 (ruling
/// #3): White 1:27:06 → 1:20:00 …", "refused (409): the game has moved
/// on …", "duplicate of an applied ruling …".
fn summary(answer: &serde_json::Value) -> String {
    let effects = |v: &serde_json::Value| -> String {
        v["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["type"] == "ruling")
            .map(|e| {
                format!(
                    "ruling #{}: {}",
                    e["seq"],
                    e["effect"].as_str().unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let board = &answer["board"];
    match answer["status"].as_str() {
        Some("applied") => format!("applied on board {board} ({})", effects(answer)),
        Some("duplicate") => format!(
            "board {board} had this id already: not applied again; its first outcome was {}",
            match answer["outcome"]["status"].as_str() {
                Some("applied") => format!("applied ({})", effects(&answer["outcome"])),
                Some(other) => format!(
                    "{other} ({}): {}",
                    answer["outcome"]["code"],
                    answer["outcome"]["reason"].as_str().unwrap_or("")
                ),
                None => "unknown (the board stopped while applying it: its journal says)".into(),
            }
        ),
        Some(status) => format!(
            "{status} by board {board} ({}): {}",
            answer["code"],
            answer["reason"].as_str().unwrap_or("no reason given")
        ),
        None => format!("board {board} answered {answer}"),
    }
}

/// The MQTT relay console's way to rule (issue 15 item 1): each ruling
/// `{board: "round.board", action, body, arbiter, id}` is signed with `key`
/// for `event` and published on the board's command topic under `prefix`;
/// the board's reply is turned into the HTTP way's answer: `applied` →
/// 200 with its events, `duplicate` → 200 marked `repeated`, `rejected` →
/// 422, `refused` → 403, anything else → 504.
pub(crate) fn mqtt_forwarder(
    broker: BrokerAddr,
    prefix: String,
    event: String,
    key: SigningKey,
) -> crate::console::forward::SendRuling {
    let key = std::sync::Arc::new(key);
    std::sync::Arc::new(move |game: String, command: serde_json::Value| {
        let (broker, prefix, event, key) =
            (broker.clone(), prefix.clone(), event.clone(), key.clone());
        Box::pin(async move {
            let (round, board): (u32, u32) = game
                .split_once('.')
                .and_then(|(r, b)| Some((r.parse().ok()?, b.parse().ok()?)))
                .ok_or_else(|| format!("\"{game}\" is not round.board"))?;
            // The round signed with it: table `board` applies it only while
            // it plays this game (issue 24.1).
            let ruling = Ruling {
                board,
                round: Some(round),
                action: command["action"].as_str().unwrap_or_default().to_owned(),
                body: crate::console::ruling::body_with_expect(
                    command.get("body"),
                    command.get("expect"),
                ),
                arbiter: command["arbiter"].as_str().unwrap_or_default().to_owned(),
                id: command["id"].as_str().unwrap_or_default().to_owned(),
                issued_ms: super::daemon::unix_now_ms(),
            };
            let id = ruling.id.clone();
            let signed = key.sign(&event, ruling);
            let (topic, reply) = topics(&prefix, &event, board);
            let status = crate::mqtt::status::topic(&prefix, Some(&event), board);
            let payload = serde_json::to_vec(&signed).map_err(|e| e.to_string())?;
            let answer = tokio::task::spawn_blocking(move || {
                send_and_wait(
                    &broker,
                    Some(&status),
                    &topic,
                    &reply,
                    payload,
                    &id,
                    Duration::from_secs(10),
                )
            })
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("{e:#}"))?;
            Ok(http_answer(&game, answer))
        })
    })
}

/// A board's MQTT reply as the HTTP ruling request answers (status, body).
fn http_answer(game: &str, answer: serde_json::Value) -> (u16, serde_json::Value) {
    use serde_json::json;
    let reason = answer["reason"].clone();
    match answer["status"].as_str() {
        Some("applied") => {
            let mut v = answer.clone();
            v["author"] = answer["arbiter"].clone();
            v["board"] = serde_json::Value::from(game);
            (200, v)
        }
        Some("duplicate") => {
            // The first outcome: taken over MQTT (`{"status": "applied",
            // "arbiter", …}`), or over HTTP (its reply kept in `reply`);
            // `"pending"` (the board stopped while applying it) or a
            // rejection is no success (never indexed as an object).
            let outcome = &answer["outcome"];
            let mut v = match outcome.get("reply") {
                Some(r) if r.is_object() => r.clone(),
                _ if outcome["status"] == "applied" => outcome.clone(),
                // Taken, and the board stopped before its outcome was
                // kept: applied or not, the board's history says.
                _ if outcome == "pending" => {
                    return (
                        409,
                        json!({"error": format!("command {} was being applied when the board stopped: whether it was, the board's ruling history says (look there before ruling again); it is never applied twice", answer["id"]), "repeated": true, "outcome": "pending"}),
                    )
                }
                _ => {
                    return (
                        409,
                        json!({"error": format!("command {} was taken before and not applied: {outcome}", answer["id"]), "repeated": true}),
                    )
                }
            };
            if v.get("author").is_none() {
                v["author"] = v["arbiter"].clone();
            }
            v["board"] = serde_json::Value::from(game);
            v["id"] = answer["id"].clone();
            v["repeated"] = serde_json::Value::Bool(true);
            (200, v)
        }
        Some("rejected") => (
            answer["code"].as_u64().map_or(422, |c| c as u16),
            json!({"error": reason}),
        ),
        // The board refused the ruling itself (409 / 422, the reason in
        // words); a refusal without a code is the command channel's (403).
        Some("refused") => match answer["code"].as_u64() {
            Some(code) => {
                let mut v = answer.clone();
                v["error"] = reason;
                v["author"] = answer["arbiter"].clone();
                v["board"] = serde_json::Value::from(game);
                (code as u16, v)
            }
            None => (403, json!({"error": reason})),
        },
        _ => (
            504,
            json!({"error": format!("the board answered {answer}")}),
        ),
    }
}

/// The board's retained status as last seen ([`crate::mqtt::status`]):
/// `Some((offline, words))`, `words` its reason and game
/// ("offline (connection lost; game 1.2)").
type Seen = Option<(bool, String)>;

/// What a status payload says: (offline, in words); `None` when it is not
/// a status.
fn status_words(payload: &[u8]) -> Seen {
    let v: serde_json::Value = serde_json::from_slice(payload).ok()?;
    let status = v["status"].as_str()?;
    let mut words = status.to_owned();
    let details: Vec<String> = [
        v["reason"].as_str().map(str::to_owned),
        v["game"].as_str().map(|g| format!("game {g}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !details.is_empty() {
        words = format!("{words} ({})", details.join("; "));
    }
    Some((status == "offline", words))
}

/// Subscribes to the board's retained `status` (its presence, when the
/// broker lets us read it) and to `reply`, publishes `payload` on
/// `command` (QoS 1) and waits for the reply with `id`.
///
/// A board whose retained status says offline when the subscriptions are
/// in place is not sent the ruling: its command channel is a clean
/// session, so a ruling published while it is away reaches no one and
/// would be lost, leaving the arbiter unsure whether it was applied. The
/// ruling is held until the board is back online (then sent) or `wait`
/// ends; then the error says it was **not sent** (so not applied), with
/// the board's status (ia17 incident 3). Without a status (a broker ACL
/// that hides it), the ruling is sent as before.
fn send_and_wait(
    broker: &BrokerAddr,
    status: Option<&str>,
    command: &str,
    reply: &str,
    payload: Vec<u8>,
    id: &str,
    wait: Duration,
) -> anyhow::Result<serde_json::Value> {
    use rumqttc::{Event, Packet, QoS};
    let options = broker
        .options(format!("eboard-rule-{:x}", rand::random::<u32>()))
        .map_err(|e| anyhow!("{broker}: {e}"))?;
    let (client, mut conn) = rumqttc::Client::new(options, 8);
    let deadline = Instant::now() + wait;
    let mut payload = Some(payload);
    // The SUBACKs still to come: the status's (retained messages follow
    // it, before the next SUBACK), then the reply's.
    let mut subacks = 0u8;
    let mut ready = false;
    let mut seen: Seen = None;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            if let (Some(_), Some((true, words))) = (&payload, &seen) {
                bail!(
                    "the board is {words}: the ruling was not sent, so it was not applied; \
                     send it again when the board is back online"
                );
            }
            bail!(
                "no reply from the board on {reply} within {} s ({})",
                wait.as_secs(),
                if payload.is_some() {
                    "the ruling was not sent: the broker did not take the subscription"
                } else {
                    "the ruling was sent: the board may have applied it or not"
                }
            );
        }
        match conn.recv_timeout(left) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {
                let first = status.unwrap_or(reply);
                client
                    .try_subscribe(first, QoS::AtLeastOnce)
                    .map_err(|e| anyhow!("{first}: {e}"))?;
            }
            Ok(Ok(Event::Incoming(Packet::SubAck(_)))) => {
                subacks += 1;
                if status.is_some() && subacks == 1 {
                    client
                        .try_subscribe(reply, QoS::AtLeastOnce)
                        .map_err(|e| anyhow!("{reply}: {e}"))?;
                } else {
                    ready = true;
                    if let Some((true, words)) = &seen {
                        tracing::warn!(
                            "the board is {words}: the ruling is held until it is back online"
                        );
                    }
                }
            }
            Ok(Ok(Event::Incoming(Packet::Publish(p)))) => {
                if Some(p.topic.as_str()) == status {
                    seen = status_words(&p.payload).or(seen);
                } else {
                    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&p.payload) else {
                        continue;
                    };
                    if v["id"] == id {
                        let _ = client.disconnect();
                        return Ok(v);
                    }
                }
            }
            Ok(Ok(_)) => {}
            Ok(Err(e)) => bail!(
                "{broker}: {} ({})",
                broker.explain(&e),
                if payload.is_some() {
                    "the ruling was not sent"
                } else {
                    "the ruling was sent: the board may have applied it or not"
                }
            ),
            Err(_) => {}
        }
        if ready && !matches!(seen, Some((true, _))) {
            if let Some(p) = payload.take() {
                client
                    .try_publish(command, QoS::AtLeastOnce, false, p)
                    .map_err(|e| anyhow!("{command}: {e}"))?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An id the board took and stopped before keeping its outcome: the
    /// relay's answer must not say "not applied" (the journal may have
    /// applied it); ia12's board restart with a ruling in flight.
    #[test]
    fn a_pending_duplicate_is_not_called_unapplied() {
        let (code, v) = http_answer(
            "5.3",
            json!({"id": "c-1", "board": 3, "status": "duplicate", "outcome": "pending"}),
        );
        assert_eq!(code, 409);
        let e = v["error"].as_str().unwrap();
        assert!(
            e.contains("was being applied when the board stopped") && !e.contains("not applied"),
            "{e}"
        );
    }

    /// The one line `eboard rule` writes beside the reply's JSON.
    #[test]
    fn the_summary_says_the_effect_or_the_reason() {
        let applied = json!({"board": 2, "status": "applied", "events": [
            {"type": "clock"},
            {"type": "ruling", "seq": 3, "effect": "White 1:27:06 → 1:20:00"}]});
        assert_eq!(
            summary(&applied),
            "applied on board 2 (ruling #3: White 1:27:06 → 1:20:00)"
        );
        let refused = json!({"board": 2, "status": "refused", "code": 409,
            "reason": "the game has moved on"});
        assert_eq!(
            summary(&refused),
            "refused by board 2 (409): the game has moved on"
        );
        let pending = json!({"board": 2, "status": "duplicate", "outcome": "pending"});
        assert!(summary(&pending).contains("the board stopped while applying it"));
    }
}
