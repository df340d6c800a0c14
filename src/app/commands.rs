//! A board's MQTT command channel (issue 15 item 2, `docs/event.md`,
//! "Rulings over MQTT"): signed rulings from `{prefix}/{event}/board/{N}/
//! command` verified ([`crate::mqtt::command::verify`]: the keys of
//! `[mqtt] command_keys`, the window), each id taken once
//! ([`CommandIds`], beside the journal, the store `POST /arbiter/command`
//! uses too: an id taken either way is a duplicate the other way), parsed by the arbiter API's own
//! parser ([`crate::console::ruling::parse_ruling`]) into the same `arbiter` record
//! as `POST /arbiter/…`, authored by the ruling's arbiter, and fed to the
//! board loop; every ruling's outcome is published on `…/reply`:
//! `{"id", "board", "status": "applied" | "duplicate" | "rejected" |
//! "refused", …}`. Refusals are logged at warn.

use super::daemon::unix_now_ms;
use super::settings::MqttUplink;
use crate::config::Config;
use crate::console::board::ArbiterCommand;
use crate::console::command_ids::{Claim, CommandIds};
use crate::mqtt::command::verify;
use crate::trace::RecordKind;
use anyhow::anyhow;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How long a ruling waits for the board loop's answer.
pub const LOOP_ANSWER: Duration = Duration::from_secs(5);

/// A board's command channel, resolved from its config.
pub struct CommandChannel {
    /// The broker.
    pub uplink: MqttUplink,
    /// `…/command`.
    pub command_topic: String,
    /// `…/reply`.
    pub reply_topic: String,
    /// This board's number.
    pub board: u32,
    /// The round of the game this board plays (its `round.board` is
    /// `round.board`): a ruling signed for another round is refused.
    pub round: u32,
    /// The event's topic level (signed with every ruling).
    pub event: String,
    /// The public keys whose rulings are taken.
    pub keys: Vec<[u8; 32]>,
    /// The window, ms.
    pub window_ms: u64,
    /// The ids seen (`JOURNAL.rulings`, or in memory without a journal),
    /// shared with the console's `POST /arbiter/command`.
    pub ids: Arc<CommandIds>,
}

/// The file of a board's ruling ids beside its journal: `JOURNAL.rulings`.
pub fn rulings_path(journal: &Path) -> PathBuf {
    crate::console::kept::suffixed(journal, ".rulings")
}

/// What came of one command message: the reply's JSON.
async fn handle(
    ch: &CommandChannel,
    commands: &mpsc::Sender<ArbiterCommand>,
    payload: &[u8],
    now_ms: u64,
) -> Value {
    let board = ch.board;
    let ruling = match verify(payload, &ch.event, board, &ch.keys, now_ms, ch.window_ms) {
        Ok(r) => r,
        Err((id, why)) => {
            tracing::warn!(id = id.as_deref().unwrap_or("-"), "ruling refused: {why}");
            return json!({"id": id, "board": board, "status": "refused", "reason": why.to_string()});
        }
    };
    let id = ruling.id.clone();
    // Taken (kept as pending) before it is applied: a board stopped in
    // between answers it as a duplicate, never applies it twice.
    match ch.ids.claim(&id) {
        Ok(Claim::New) => {}
        Ok(Claim::Seen(outcome)) => {
            tracing::warn!(id, "ruling seen before: not applied again (duplicate)");
            return json!({"id": id, "board": board, "status": "duplicate", "outcome": outcome});
        }
        Err(e) => {
            tracing::error!("rulings: {e}");
            return json!({"id": id, "board": board, "status": "refused", "reason": format!("cannot keep its id: {e}")});
        }
    }
    let rejected = |reason: String| {
        tracing::warn!(id, "ruling rejected: {reason}");
        let outcome = json!({"status": "rejected", "reason": reason});
        if let Err(e) = ch.ids.record(&id, outcome) {
            tracing::error!("rulings: {e}");
        }
        json!({"id": id, "board": board, "status": "rejected", "reason": reason})
    };
    // Made for the game the board plays now, or refused: a ruling the
    // console gave for game 3.4 is never applied to table 4's game 4.4
    // (issue 24.1; the round is signed).
    if let Some(round) = ruling.round.filter(|r| *r != ch.round) {
        let reason = format!(
            "this ruling was made for game {round}.{board}; board {board} now plays game {}.{board}: not applied",
            ch.round
        );
        tracing::warn!(id, "ruling rejected: {reason}");
        let outcome = json!({"status": "rejected", "code": 409, "reason": reason});
        if let Err(e) = ch.ids.record(&id, outcome) {
            tracing::error!("rulings: {e}");
        }
        return json!({"id": id, "board": board, "status": "rejected", "code": 409, "reason": reason});
    }
    let kind = match crate::console::ruling::parse_ruling(&ruling.action, &ruling.body) {
        Ok(RecordKind::Arbiter { expect: None, .. }) => {
            // Signed rulings name what they were made from (issue 24.1).
            let reason = crate::console::ruling::expect_missing();
            tracing::warn!(id, "ruling rejected: {reason}");
            let outcome = json!({"status": "rejected", "code": 428, "reason": reason});
            if let Err(e) = ch.ids.record(&id, outcome) {
                tracing::error!("rulings: {e}");
            }
            return json!({"id": id, "board": board, "status": "rejected", "code": 428, "reason": reason});
        }
        Ok(RecordKind::Arbiter {
            action,
            expect,
            reason,
            ..
        }) => RecordKind::Arbiter {
            action,
            author: Some(ruling.arbiter.clone()),
            expect,
            reason,
        },
        Ok(_) => return rejected(format!("{}: not a ruling", ruling.action)),
        Err(e) => return rejected(e),
    };
    let (reply, rx) = tokio::sync::oneshot::channel();
    if commands.send(ArbiterCommand { kind, reply }).await.is_err() {
        return json!({"id": id, "board": board, "status": "refused", "reason": "the board loop has stopped"});
    }
    let outcome = match tokio::time::timeout(LOOP_ANSWER, rx).await {
        Ok(Ok(r)) => {
            // The board's own decision: applied (200), or refused with
            // the reason (409 / 422), as the HTTP reply says it.
            let (code, v) =
                crate::console::board::reply_of(r.t, &ruling.action, &ruling.arbiter, &r.events);
            let mut o = json!({
                "status": if code == 200 { "applied" } else { "refused" },
                "code": code,
                "t": r.t,
                "action": ruling.action,
                "arbiter": ruling.arbiter,
                "events": v["events"],
            });
            if code != 200 {
                o["reason"] = v["error"].clone();
                o["refused"] = v["refused"].clone();
            }
            o
        }
        _ => json!({"status": "pending", "reason": "the board loop did not answer"}),
    };
    tracing::info!(
        id,
        arbiter = ruling.arbiter,
        action = ruling.action,
        status = %outcome["status"],
        "ruling answered"
    );
    if let Err(e) = ch.ids.record(&id, outcome.clone()) {
        tracing::error!("rulings: {e}");
    }
    let mut reply = outcome;
    reply["id"] = Value::from(id);
    reply["board"] = Value::from(board);
    reply
}

/// Starts following the command topic on `rt`, feeding verified rulings
/// to `commands` (the board loop's channel). Errors: the broker's options.
pub fn start(
    rt: &tokio::runtime::Handle,
    ch: CommandChannel,
    commands: mpsc::Sender<ArbiterCommand>,
) -> Result<(), String> {
    use rumqttc::{AsyncClient, Event, Packet, QoS};
    let id = format!("eboard-command-{}-{:x}", ch.board, rand::random::<u32>());
    let options = ch.uplink.broker.options(id)?;
    rt.spawn(async move {
        let (client, mut el) = AsyncClient::new(options, 16);
        let mut outage = crate::retry::Outage::default();
        loop {
            match el.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    if outage.recovered() {
                        tracing::info!("rulings: connected to {}", ch.uplink.broker);
                    }
                    if let Err(e) = client.try_subscribe(ch.command_topic.clone(), QoS::AtLeastOnce)
                    {
                        tracing::warn!("rulings: cannot subscribe to {}: {e}", ch.command_topic);
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) if p.topic == ch.command_topic => {
                    let reply = handle(&ch, &commands, &p.payload, unix_now_ms()).await;
                    if let Err(e) = client
                        .publish(
                            ch.reply_topic.clone(),
                            QoS::AtLeastOnce,
                            false,
                            reply.to_string(),
                        )
                        .await
                    {
                        tracing::warn!("rulings: cannot reply on {}: {e}", ch.reply_topic);
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    let why = ch.uplink.broker.explain(&e);
                    if outage.failed(&why) {
                        tracing::warn!("rulings: broker {}: {why}; retrying", ch.uplink.broker);
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    });
    Ok(())
}

/// The signed rulings' channel of `[mqtt] command_keys`, if any, taking
/// each id once in `ids` (the board's one store of ruling ids).
pub fn command_channel(
    cfg: &Config,
    up: Option<&MqttUplink>,
    ids: Arc<CommandIds>,
) -> anyhow::Result<Option<CommandChannel>> {
    let (Some(up), Some(m)) = (up, &cfg.mqtt) else {
        return Ok(None);
    };
    let keys = m
        .command_keys
        .iter()
        .flatten()
        .map(|k| crate::mqtt::command::parse_public_key(k))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow!("{}", cfg.error_at("mqtt.command_keys", e)))?;
    if keys.is_empty() {
        return Ok(None);
    }
    let event = crate::mqtt::slug(cfg.event.name.as_deref());
    let (command_topic, reply_topic) =
        crate::mqtt::command::topics(&up.prefix, &event, cfg.game.board);
    Ok(Some(CommandChannel {
        uplink: up.clone(),
        command_topic,
        reply_topic,
        board: cfg.game.board,
        round: cfg.game.round,
        event,
        keys,
        window_ms: m
            .command_window
            .unwrap_or(crate::mqtt::command::DEFAULT_WINDOW_S)
            * 1000,
        ids,
    }))
}
