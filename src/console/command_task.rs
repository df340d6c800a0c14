//! One ruling of `POST /arbiter/command` applied and its outcome kept, as
//! a task of its own (issue 24.5, the same id answered with its outcome).
//!
//! The request's handler is a future that the server drops when the
//! client goes (a relay that gave up on the board after
//! [`super::forward::FORWARD_TIMEOUT`], a phone that lost the Wi-Fi). Were
//! the apply and the keeping of its outcome part of that future, a board
//! that applied the ruling after the client left would keep its id
//! `"pending"` for good ([`super::command_ids`]): every later send of the
//! same id answered 409 "being applied", the first outcome never given. So
//! the handler only starts [`apply_once`] and waits for it: the task takes
//! the board loop's answer and keeps it under the id whatever becomes of
//! the request.
//!
//! The board loop answers every ruling it takes, or drops it unapplied when
//! it stops; the task waits for that, not for a clock. The handler waits
//! [`ANSWER_WAIT`] and then answers 503 "no answer yet": the id stays
//! taken, so the same id sent again is applied at most once and answered
//! with its outcome once there is one.

use super::board::{reply_of, ArbiterAccess, ArbiterCommand};
use super::refusal::{refuse, Refusal};
use super::state::Console;
use crate::trace::RecordKind;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// How long a request waits for the board loop's answer before it answers
/// 503 (the ruling goes on in its task; its id keeps the outcome).
pub const ANSWER_WAIT: Duration = Duration::from_secs(5);

/// One ruling taken under `id`: what the board loop must apply, and what
/// the reply names (`action`, `author`, `board`).
#[derive(Debug)]
pub(super) struct Ruling {
    /// The `arbiter` record.
    pub kind: RecordKind,
    /// The action's name (`pause`, `restore`, …).
    pub action: String,
    /// The arbiter journaled as the author.
    pub author: String,
    /// The command id (already claimed in the console's id store).
    pub id: String,
    /// The game named by the request (`round.board`), echoed in the reply.
    pub board: Option<String>,
}

/// Applies `ruling` on the board loop of `access` in a task of its own and
/// keeps its outcome under its id in `console`'s store; waits up to
/// [`ANSWER_WAIT`] for it. The reply: the board's (200, or its refusal's
/// 409/422, with `id` and `board`); 503 when the loop has stopped (the id
/// forgotten: nothing was applied) or has not answered yet (the id kept:
/// send it again for the outcome).
pub(super) async fn apply_once(
    access: &ArbiterAccess,
    console: Arc<Console>,
    ruling: Ruling,
) -> Result<(u16, Value), Refusal> {
    let id = ruling.id.clone();
    let task = tokio::spawn(run(access.clone(), console, ruling));
    match tokio::time::timeout(ANSWER_WAIT, task).await {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(e)) => {
            tracing::error!(id, "ruling: its task failed: {e}");
            Err(refuse(
                500,
                &format!("command {id}: the ruling's task failed ({e}); send the same id again for its outcome"),
            ))
        }
        Err(_) => Err(refuse(
            503,
            &format!(
                "the board loop did not answer command {id} within {} s: it keeps the ruling under its id \
                 and applies it at most once; send the same id again for its outcome",
                ANSWER_WAIT.as_secs()
            ),
        )),
    }
}

/// The task: hands the ruling to the board loop, waits for its answer (no
/// clock: the loop answers, or drops it when it stops) and keeps it.
async fn run(
    access: ArbiterAccess,
    console: Arc<Console>,
    r: Ruling,
) -> Result<(u16, Value), Refusal> {
    let (reply, rx) = tokio::sync::oneshot::channel();
    let sent = access
        .commands
        .send(ArbiterCommand {
            kind: r.kind,
            reply,
        })
        .await;
    let answer = match sent {
        Ok(()) => rx.await.ok(),
        Err(_) => None,
    };
    let Some(a) = answer else {
        console.done(&r.id, None);
        return Err(refuse(
            503,
            "the board loop has stopped: the ruling was not applied",
        ));
    };
    let (status, mut v) = reply_of(a.t, &r.action, &r.author, &a.events);
    v["id"] = Value::from(r.id.clone());
    v["board"] = Value::from(r.board);
    console.done(&r.id, Some((status, v.clone())));
    Ok((status, v))
}

#[cfg(test)]
#[path = "command_task_tests.rs"]
mod tests;
