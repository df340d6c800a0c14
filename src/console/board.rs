//! A board's arbiter side: the way to its board loop ([`ArbiterAccess`]:
//! its undelayed channel, the configured token, the visually impaired
//! player's device), the action handed to the loop ([`ArbiterCommand`])
//! and what the loop answered ([`ActionReply`], [`reply_of`]). The HTTP
//! API, the console's one ruling request, speech input and the MQTT
//! command channel all reach the board loop this one way.

use super::refusal::{refuse, Refusal};
use crate::broadcast::delay::Channel;
use crate::trace::{Event, EventKind, RecordKind};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// An arbiter action from the API, with the reply channel: what the
/// server hands to the board loop ([`crate::app::daemon`]).
#[derive(Debug)]
pub struct ArbiterCommand {
    /// What the arbiter does: an `arbiter` record, or a query (E2.9d) from
    /// the visually impaired player's device.
    pub kind: RecordKind,
    /// The decisions it led to.
    pub reply: oneshot::Sender<ActionReply>,
}

/// What an arbiter action led to.
#[derive(Debug, Clone)]
pub struct ActionReply {
    /// Round time of the action, ms.
    pub t: u64,
    /// The events it produced.
    pub events: Vec<Event>,
}

/// The arbiter's access to a board.
#[derive(Debug, Clone)]
pub struct ArbiterAccess {
    /// The undelayed channel.
    pub channel: Arc<Channel>,
    /// The bearer token; `None`: the API refuses everything.
    pub token: Option<String>,
    /// Who holds the token (journaled as the author).
    pub name: String,
    /// The board loop.
    pub commands: mpsc::Sender<ArbiterCommand>,
    /// The visually impaired player's own device, when configured: its
    /// token may only ask (E2.9d) and repeat his announcements.
    pub player: Option<PlayerDevice>,
}

/// The visually impaired player's own device (Appendix E2.9d): a token with
/// rights limited to queries for his side; never the arbiter's actions.
#[derive(Debug, Clone)]
pub struct PlayerDevice {
    /// The device's bearer token (not empty).
    pub token: String,
    /// The player's name (journaled as the author of his queries).
    pub name: String,
    /// His colour (the game's `vi_player`).
    pub side: shakmaty::Color,
}

/// The arbiter token: `EBOARD_ARBITER_TOKEN` when set and not empty, else the config's.
pub fn arbiter_token(configured: Option<&str>) -> Option<String> {
    std::env::var("EBOARD_ARBITER_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
        .or_else(|| configured.filter(|t| !t.is_empty()).map(str::to_owned))
}

/// The player device's token: `EBOARD_PLAYER_TOKEN` when set and not empty, else the config's.
pub fn player_token(configured: Option<&str>) -> Option<String> {
    std::env::var("EBOARD_PLAYER_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
        .or_else(|| configured.filter(|t| !t.is_empty()).map(str::to_owned))
}

/// Feeds `kind` (an action named `name`, authored by `author`) to the board
/// loop and waits for its decisions: 200 with `{"t", "action", "author",
/// "events"}` when applied; the board's refusal's status (409 or 422) with
/// `{"error": reason, "refused": the ruling_refused event, …}` when the
/// board refused it (issue 24.1).
pub async fn apply(
    access: &ArbiterAccess,
    kind: RecordKind,
    name: &str,
    author: &str,
) -> Result<(u16, Value), Refusal> {
    let (reply, rx) = tokio::sync::oneshot::channel();
    let cmd = ArbiterCommand { kind, reply };
    if access.commands.send(cmd).await.is_err() {
        return Err(refuse(503, "the board loop has stopped"));
    }
    match tokio::time::timeout(Duration::from_secs(5), rx).await {
        Ok(Ok(r)) => Ok(reply_of(r.t, name, author, &r.events)),
        _ => Err(refuse(503, "the board loop did not answer")),
    }
}

/// The reply to a ruling the board answered (`events`: its decisions at
/// round time `t`): `(200, {"t", "action", "author", "events"})` when
/// applied, `(409 | 422, {…, "error": reason, "refused": event})` when the
/// board refused it.
pub fn reply_of(t: u64, name: &str, author: &str, events: &[Event]) -> (u16, Value) {
    let mut v = json!({
        "t": t,
        "action": name,
        "author": author,
        "events": events.iter().map(|e| serde_json::to_value(e).unwrap_or(Value::Null)).collect::<Vec<_>>(),
    });
    let refused = events.iter().find_map(|e| match &e.kind {
        EventKind::RulingRefused { reason, status, .. } => Some((e, reason, *status)),
        _ => None,
    });
    match refused {
        Some((e, reason, status)) => {
            v["error"] = Value::from(reason.as_str());
            v["refused"] = serde_json::to_value(e).unwrap_or(Value::Null);
            (status, v)
        }
        None => (200, v),
    }
}
