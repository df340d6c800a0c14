//! The uplink to a lichess broadcast round: the round's PGN (every game of
//! a public channel, as `/games.pgn` serves it) is POSTed to
//! `{base_url}/api/broadcast/round/{round_id}/push` (`Content-Type:
//! text/plain`, `Authorization: Bearer {token}`) whenever it changes.
//!
//! The whole PGN is sent each time, so a resend is idempotent; only the
//! latest PGN is ever sent (one that changed while a push was failing
//! replaces it). A failed push (network error, non-2xx status) is retried
//! after [`RETRY_MIN`], doubling up to [`RETRY_MAX`], with jitter
//! ([`crate::retry::Backoff`]). The channel is the
//! public (delayed) one, so the delay holds on this uplink too.
//!
//! `https://` is spoken with rustls (ring provider, [`crate::tls`]): the
//! server's certificate must chain to the webpki roots built into the
//! binary or to a certificate of `[lichess] ca_file` (for an organiser
//! behind a TLS-inspecting proxy, or a test server). A refused certificate
//! is a failed push like any other: reported in the log (once per reason:
//! [`crate::retry::Outage`]) and in
//! [`PushStatus::last_error`], saying why and naming `ca_file`, and retried.

use super::delay::Channel;
use crate::retry::{Backoff, Outage};
use rustls::pki_types::CertificateDer;
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
#[derive(Clone)]
pub struct PushTarget {
    /// `https://lichess.org` or a test server's `http(s)://127.0.0.1:port`.
    pub base_url: String,
    /// The broadcast round's id.
    pub round_id: String,
    /// The OAuth token (scope `study:write`).
    pub token: String,
    /// Trusted for `https://` besides the webpki roots (`ca_file`), DER.
    pub extra_roots: Vec<CertificateDer<'static>>,
}

impl std::fmt::Debug for PushTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushTarget")
            .field("base_url", &self.base_url)
            .field("round_id", &self.round_id)
            .field("token", &"…")
            .field("extra_roots", &self.extra_roots.len())
            .finish()
    }
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

/// The settings of a push: `[lichess]`'s keys as the composition root
/// ([`crate::app`]) hands them over.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// The broadcast round's id.
    pub round_id: String,
    /// The OAuth token (`EBOARD_LICHESS_TOKEN` wins when set and not empty).
    pub token: Option<String>,
    /// Default [`DEFAULT_BASE_URL`]; `http://` or `https://`.
    pub base_url: Option<String>,
    /// A PEM file of extra trusted CA certificates, for `https://` only.
    pub ca_file: Option<String>,
}

/// A [`Settings`] value that cannot make a target: the key (`base_url`,
/// `ca_file`, `token`) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[lichess] {key}: {message}")]
pub struct SettingsError {
    /// The key of `[lichess]`.
    pub key: &'static str,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl PushTarget {
    /// The target of `s`: `base_url` default [`DEFAULT_BASE_URL`],
    /// `http://` or `https://`; `ca_file` (https only) read — file I/O, so
    /// this is called at start-up; the token from `EBOARD_LICHESS_TOKEN`
    /// when set and not empty, else the settings'.
    pub fn from_settings(s: &Settings) -> Result<PushTarget, SettingsError> {
        let err = |key, message: String| SettingsError { key, message };
        let base_url = s
            .base_url
            .as_deref()
            .unwrap_or(DEFAULT_BASE_URL)
            .trim_end_matches('/')
            .to_owned();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(err(
                "base_url",
                format!("{base_url}: give http(s)://host, e.g. {DEFAULT_BASE_URL}"),
            ));
        }
        let extra_roots = match &s.ca_file {
            Some(f) if !base_url.starts_with("https://") => {
                return Err(err(
                    "ca_file",
                    format!("\"{f}\": a CA file is for TLS: base_url must be https://"),
                ))
            }
            Some(f) => {
                crate::tls::load_ca_file(std::path::Path::new(f)).map_err(|e| err("ca_file", e))?
            }
            None => Vec::new(),
        };
        let token = std::env::var("EBOARD_LICHESS_TOKEN")
            .ok()
            .filter(|t| !t.is_empty())
            .or_else(|| s.token.clone().filter(|t| !t.is_empty()))
            .ok_or_else(|| {
                err(
                    "token",
                    "none given: set token or EBOARD_LICHESS_TOKEN".into(),
                )
            })?;
        Ok(PushTarget {
            base_url,
            round_id: s.round_id.clone(),
            token,
            extra_roots,
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
    let mut builder = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .tls_built_in_root_certs(true);
    for der in &target.extra_roots {
        let cert = reqwest::Certificate::from_der(der)
            .map_err(|e| format!("lichess push: [lichess] ca_file: {e}"))?;
        builder = builder.add_root_certificate(cert);
    }
    let client = builder.build().map_err(|e| {
        format!(
            "lichess push: cannot make the HTTP client: {}",
            crate::tls::error_chain(&e)
        )
    })?;
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
        .map_err(|e| e.without_url()) // the message names it once, first
        .map_err(|e| match crate::tls::certificate_problem(&e) {
            Some(why) => format!(
                "POST {}: the server's TLS certificate is refused: {why}; if it is signed by a \
                 private CA (or a TLS-inspecting proxy's), give that CA's certificate (PEM) as \
                 [lichess] ca_file ({})",
                target.url(),
                crate::tls::error_chain(&e)
            ),
            None => format!("POST {}: {}", target.url(), crate::tls::error_chain(&e)),
        })?;
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
    let mut backoff = Backoff::new(RETRY_MIN, RETRY_MAX);
    let mut outage = Outage::default();
    loop {
        view.mark_unchanged();
        let pgn = round_pgn(&channel);
        if !pgn.is_empty() && last.as_deref() != Some(&*pgn) {
            match push(&client, &target, &pgn).await {
                Ok(()) => {
                    backoff.reset();
                    if outage.recovered() {
                        tracing::info!("lichess push: pushed to {}", target.url());
                    }
                    last = Some(pgn.clone());
                    status.send_modify(|s| {
                        s.pushed += 1;
                        s.last_pgn = Some(pgn);
                    });
                }
                Err(e) => {
                    let wait = backoff.next_wait();
                    if outage.failed(&e) {
                        tracing::warn!(
                            "lichess push: {e}; retrying (after {wait:.1?}, doubling up to {RETRY_MAX:?})"
                        );
                    }
                    status.send_modify(|s| {
                        s.failures += 1;
                        s.last_error = Some(e);
                    });
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
        }
        if view.changed().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_itself_over_https_is_accepted() {
        let c = Settings {
            round_id: "AbCd1234".into(),
            token: Some("lip_x".into()),
            ..Default::default()
        };
        let t = PushTarget::from_settings(&c).unwrap();
        assert_eq!(
            t.url(),
            "https://lichess.org/api/broadcast/round/AbCd1234/push"
        );
        assert!(
            !format!("{t:?}").contains("lip_x"),
            "the token is not printed"
        );
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        // The HTTP client with TLS can be made (no request is sent: the channel is empty).
        assert!(start(rt.handle(), t, Arc::new(Channel::new())).is_ok());
        let bad = Settings {
            base_url: Some("ftp://lichess.org".into()),
            ..c.clone()
        };
        assert!(PushTarget::from_settings(&bad).is_err());
        let missing = Settings {
            ca_file: Some("/nonexistent/ca.pem".into()),
            ..c
        };
        let e = PushTarget::from_settings(&missing).unwrap_err().to_string();
        assert!(
            e.contains("[lichess] ca_file") && e.contains("cannot read"),
            "{e}"
        );
    }
}
