//! The uplink to a lichess broadcast round: the round's PGN (every game of
//! a public channel, as `/games.pgn` serves it) is POSTed to
//! `{base_url}/api/broadcast/round/{round_id}/push` (`Content-Type:
//! text/plain`, `Authorization: Bearer {token}`) whenever it changes.
//!
//! The whole PGN is sent each time, so a resend is idempotent; only the
//! latest PGN is ever sent (one that changed while a push was failing
//! replaces it). A failed push (network error, non-2xx status) is retried
//! after [`RETRY_MIN`], doubling up to [`RETRY_MAX`]. The channel is the
//! public (delayed) one, so the delay holds on this uplink too.
//!
//! This build's HTTP client has no TLS: an `https://` base URL is refused
//! at start (`lichess.org` needs a build with a TLS feature of `reqwest`).

use super::delay::Channel;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// The first wait after a failed push.
pub const RETRY_MIN: Duration = Duration::from_secs(1);
/// The longest wait between retries.
pub const RETRY_MAX: Duration = Duration::from_secs(60);
/// The longest one push may take.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// The most games lichess takes in one push.
pub const MAX_GAMES: usize = 100;
/// The default lichess server.
pub const DEFAULT_BASE_URL: &str = "https://lichess.org";

/// Where to push.
#[derive(Debug, Clone)]
pub struct PushTarget {
    /// `https://lichess.org` or a test server's `http://127.0.0.1:port`.
    pub base_url: String,
    /// The broadcast round's id.
    pub round_id: String,
    /// The OAuth token (scope `study:write`).
    pub token: String,
}

/// What the uplink has done, for tests and the operator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushStatus {
    /// Successful pushes.
    pub pushed: u64,
    /// Failed attempts.
    pub failures: u64,
    /// The PGN last accepted.
    pub last_pgn: Option<Arc<str>>,
    /// The last failure.
    pub last_error: Option<String>,
}

impl PushTarget {
    /// The target from `[lichess]`: the token from `EBOARD_LICHESS_TOKEN`
    /// when set and not empty, else the config's.
    pub fn from_config(c: &crate::config::LichessConfig) -> Result<PushTarget, String> {
        let token = std::env::var("EBOARD_LICHESS_TOKEN")
            .ok()
            .filter(|t| !t.is_empty())
            .or_else(|| c.token.clone().filter(|t| !t.is_empty()))
            .ok_or("[lichess]: no token: set token or EBOARD_LICHESS_TOKEN")?;
        let base_url = c
            .base_url
            .as_deref()
            .unwrap_or(DEFAULT_BASE_URL)
            .trim_end_matches('/')
            .to_owned();
        if !base_url.starts_with("http://") {
            return Err(format!(
                "[lichess] base_url {base_url}: this build pushes over plain http only (no TLS compiled in)"
            ));
        }
        Ok(PushTarget {
            base_url,
            round_id: c.round_id.clone(),
            token,
        })
    }

    /// The push endpoint.
    pub fn url(&self) -> String {
        format!(
            "{}/api/broadcast/round/{}/push",
            self.base_url, self.round_id
        )
    }
}

/// The PGN of `channel`'s games, as `/games.pgn` serves it.
fn round_pgn(channel: &Channel) -> Arc<str> {
    let view = channel.view.borrow().clone();
    let text: String = view
        .games
        .iter()
        .take(MAX_GAMES)
        .map(|g| g.pgn.as_str())
        .collect();
    Arc::from(text)
}

/// Starts pushing `channel`'s PGN to `target` on `rt`.
pub fn start(
    rt: &tokio::runtime::Handle,
    target: PushTarget,
    channel: Arc<Channel>,
) -> Result<watch::Receiver<PushStatus>, String> {
    let client = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .build()
        .map_err(|e| format!("lichess push: cannot make the HTTP client: {e}"))?;
    let (tx, rx) = watch::channel(PushStatus::default());
    rt.spawn(run(client, target, channel, tx));
    Ok(rx)
}

async fn push(client: &reqwest::Client, target: &PushTarget, pgn: &str) -> Result<(), String> {
    let r = client
        .post(target.url())
        .header("content-type", "text/plain; charset=utf-8")
        .bearer_auth(&target.token)
        .body(pgn.to_owned())
        .send()
        .await
        .map_err(|e| format!("POST {}: {e}", target.url()))?;
    let status = r.status();
    if status.is_success() {
        return Ok(());
    }
    let body = r.text().await.unwrap_or_default();
    Err(format!(
        "POST {}: HTTP {status}: {}",
        target.url(),
        body.chars().take(200).collect::<String>()
    ))
}

async fn run(
    client: reqwest::Client,
    target: PushTarget,
    channel: Arc<Channel>,
    status: watch::Sender<PushStatus>,
) {
    let mut view = channel.view.subscribe();
    let mut last: Option<Arc<str>> = None;
    let mut retry = RETRY_MIN;
    loop {
        view.mark_unchanged();
        let pgn = round_pgn(&channel);
        if !pgn.is_empty() && last.as_deref() != Some(&*pgn) {
            match push(&client, &target, &pgn).await {
                Ok(()) => {
                    retry = RETRY_MIN;
                    last = Some(pgn.clone());
                    status.send_modify(|s| {
                        s.pushed += 1;
                        s.last_pgn = Some(pgn);
                    });
                }
                Err(e) => {
                    tracing::warn!(error = %e, "lichess push failed");
                    status.send_modify(|s| {
                        s.failures += 1;
                        s.last_error = Some(e);
                    });
                    tokio::time::sleep(retry).await;
                    retry = (retry * 2).min(RETRY_MAX);
                    continue;
                }
            }
        }
        if view.changed().await.is_err() {
            return;
        }
    }
}
