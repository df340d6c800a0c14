//! The relay's way to the boards: each ruling of the relay's console goes
//! to the board daemon that plays its game (`POST /arbiter/command` with
//! the relay's own token, over the boards' pinned certificates), or
//! through another way given to it ([`SendRuling`]: the MQTT relay's
//! signed command topic, `crate::app::relay`). The board's answer is
//! returned as it gave it.

use super::refusal::{refuse, Refusal};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// The longest a forwarded ruling may take at the board.
pub const FORWARD_TIMEOUT: Duration = Duration::from_secs(8);

/// Another way for a relay's rulings to reach the boards (over MQTT:
/// `crate::app::relay`, signed): given the game (`round.board`) and the
/// command (`{board, action, body, arbiter, id}`), the board's answer as
/// the HTTP way gives it (status, body), or why it could not be sent.
pub type SendRuling = Arc<
    dyn Fn(
            String,
            Value,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<(u16, Value), String>> + Send>,
        > + Send
        + Sync,
>;

/// The relay's way to the boards: the board daemon that plays each game, and
/// the relay's own token for them (an account of role `relay` on each board);
/// or a [`SendRuling`] (the MQTT relay's signed command topic).
pub struct Forwarder {
    client: reqwest::Client,
    token: String,
    boards: RwLock<HashMap<String, String>>,
    other: Option<SendRuling>,
}

impl std::fmt::Debug for Forwarder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Forwarder")
            .field("boards", &self.boards)
            .field("other", &self.other.is_some())
            .finish_non_exhaustive()
    }
}

impl Forwarder {
    /// A forwarder with the relay's `token`, reaching the boards with
    /// `client` (their pinned certificates accepted:
    /// `crate::broadcast::relay::board_client`).
    pub fn new(token: String, client: reqwest::Client) -> Result<Forwarder, String> {
        Ok(Forwarder {
            client,
            token,
            boards: RwLock::new(HashMap::new()),
            other: None,
        })
    }

    /// A forwarder that hands every ruling to `send`.
    pub fn with(send: SendRuling) -> Forwarder {
        Forwarder {
            client: reqwest::Client::new(),
            token: String::new(),
            boards: RwLock::new(HashMap::new()),
            other: Some(send),
        }
    }

    /// The relay's token for the boards.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Records that `base` plays the game `game` (`round.board`).
    pub fn set_board(&self, game: &str, base: &str) {
        let mut b = self.boards.write().unwrap_or_else(|e| e.into_inner());
        if b.get(game).map(String::as_str) != Some(base) {
            b.insert(game.to_owned(), base.to_owned());
        }
    }

    fn base(&self, game: &str) -> Option<String> {
        let b = self.boards.read().unwrap_or_else(|e| e.into_inner());
        b.get(game).cloned()
    }

    /// Sends `command` to the board that plays its `board`; the board's
    /// status and reply.
    pub(super) async fn send(&self, game: &str, command: &Value) -> Result<(u16, Value), Refusal> {
        if let Some(send) = &self.other {
            return send(game.to_owned(), command.clone())
                .await
                .map_err(|e| refuse(502, &format!("board {game}: {e}")));
        }
        let Some(base) = self.base(game) else {
            return Err(refuse(
                404,
                &format!("board {game}: no board daemon of this relay plays it"),
            ));
        };
        let resp = self
            .client
            .post(format!("{base}/arbiter/command"))
            .bearer_auth(&self.token)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(serde_json::to_vec(command).unwrap_or_default())
            .timeout(FORWARD_TIMEOUT)
            .send()
            .await
            .map_err(|e| {
                refuse(
                    502,
                    &format!("board {game} ({base}): {}", crate::tls::error_chain(&e)),
                )
            })?;
        let status = resp.status().as_u16();
        let body = resp
            .bytes()
            .await
            .map_err(|e| refuse(502, &format!("board {game} ({base}): {e}")))?;
        let v = serde_json::from_slice(&body)
            .unwrap_or_else(|_| json!({"error": String::from_utf8_lossy(&body)}));
        Ok((status, v))
    }
}
