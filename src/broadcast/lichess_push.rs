//! The uplink to a lichess broadcast round: the round's PGN (every game of
//! a public channel, as `/games.pgn` serves it) is POSTed to
//! `{base_url}/api/broadcast/round/{round_id}/push` (`Content-Type:
//! text/plain`, `Authorization: Bearer {token}`) whenever it changes.
//!
//! The whole PGN is sent each time, so a resend is idempotent; only the
//! latest PGN is ever sent (one that changed while a push was failing
//! replaces it). lichess answers 200 with a verdict per game
//! ([`super::lichess_reply`]): every rejected game is an alert (to the
//! arbiter's channel when given, [`Options::alerts`], and in the log) and
//! is not sent again until the round changes; a network error, 408, 429 or
//! 5xx is retried after [`RETRY_MIN`], doubling up to [`RETRY_MAX`], with
//! jitter ([`crate::retry::Backoff`]) and at least the server's
//! `Retry-After`; 401, 403, 404 and a round with a source URL stop the push
//! for good (alerted). A game without player names is filled in from the
//! pairing or withheld, alerted; a round over [`MAX_BODY`] is split into
//! several pushes. Every request says `User-Agent: eboard/<version>`. The
//! channel is the public (delayed) one, so the delay holds on this uplink
//! too.
//!
//! `https://` is spoken with rustls (ring provider, [`crate::tls`]): the
//! server's certificate must chain to the webpki roots built into the
//! binary or to a certificate of `[lichess] ca_file` (for an organiser
//! behind a TLS-inspecting proxy, or a test server). A refused certificate
//! is a failed push like any other: reported in the log (once per reason:
//! [`crate::retry::Outage`]) and in
//! [`PushStatus::last_error`], saying why and naming `ca_file`, and retried.

use super::delay::Channel;
use super::lichess_reply::{prepare, verdict, Verdict};
pub use super::lichess_reply::{Rejection, Withheld, MAX_BODY, MAX_GAMES};
use crate::retry::{Backoff, Outage};
use rustls::pki_types::CertificateDer;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// The first wait after a failed push.
pub const RETRY_MIN: Duration = Duration::from_secs(1);
/// The longest wait between retries.
pub const RETRY_MAX: Duration = Duration::from_secs(60);
/// The longest one push may take.
pub const TIMEOUT: Duration = Duration::from_secs(10);
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
    /// Games and moves lichess took at the last push.
    pub games: usize,
    /// See `games`.
    pub moves: u64,
    /// The games lichess rejected at the last push (its per-game errors).
    pub rejected: Vec<Rejection>,
    /// The games not sent (no player names, too big).
    pub withheld: Vec<Withheld>,
    /// Why pushing stopped for good (a refused token, no such round, a
    /// round with a source URL).
    pub stopped: Option<String>,
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

/// How a push runs besides its target (tests shorten the waits and seed
/// the jitter).
#[derive(Debug, Clone)]
pub struct Options {
    /// Where alerts for the arbiter go (the daemon's undelayed channel);
    /// `None`: the log only (a relay has no arbiter).
    pub alerts: Option<Arc<Channel>>,
    /// The first wait after a failed push ([`RETRY_MIN`]).
    pub retry_min: Duration,
    /// The longest wait ([`RETRY_MAX`]).
    pub retry_max: Duration,
    /// Seeds the retry jitter (`None`: the thread's generator).
    pub jitter_seed: Option<u64>,
    /// The most bytes of one push ([`MAX_BODY`]).
    pub max_body: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            alerts: None,
            retry_min: RETRY_MIN,
            retry_max: RETRY_MAX,
            jitter_seed: None,
            max_body: MAX_BODY,
        }
    }
}

/// The `User-Agent` of every push: `eboard/<version>`.
pub const USER_AGENT: &str = concat!("eboard/", env!("CARGO_PKG_VERSION"));

/// Starts pushing `channel`'s PGN to `target` on `rt` (alerts in the log
/// only; see [`start_with`]).
pub fn start(
    rt: &tokio::runtime::Handle,
    target: PushTarget,
    channel: Arc<Channel>,
) -> Result<watch::Receiver<PushStatus>, String> {
    start_with(rt, target, channel, Options::default())
}

/// Starts pushing `channel`'s PGN to `target` on `rt`, with `options`.
/// Errors: the HTTP client cannot be made (a bad `ca_file` certificate).
pub fn start_with(
    rt: &tokio::runtime::Handle,
    target: PushTarget,
    channel: Arc<Channel>,
    options: Options,
) -> Result<watch::Receiver<PushStatus>, String> {
    let client = client(&target, TIMEOUT).map_err(|e| format!("lichess push: {e}"))?;
    let (tx, rx) = watch::channel(PushStatus::default());
    rt.spawn(run(client, target, channel, tx, options));
    Ok(rx)
}

/// The HTTP client of every request to `target` (the push, `eboard
/// doctor`'s check): the built-in webpki roots and `[lichess] ca_file`'s,
/// [`USER_AGENT`], each request cut off after `timeout`. Called inside a
/// tokio runtime (reqwest's connector needs its reactor). Errors: a bad
/// `ca_file` certificate, a client that cannot be made.
pub fn client(target: &PushTarget, timeout: Duration) -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder()
        .timeout(timeout)
        .user_agent(USER_AGENT)
        .tls_built_in_root_certs(true);
    for der in &target.extra_roots {
        let cert =
            reqwest::Certificate::from_der(der).map_err(|e| format!("[lichess] ca_file: {e}"))?;
        builder = builder.add_root_certificate(cert);
    }
    builder.build().map_err(|e| {
        format!(
            "cannot make the HTTP client: {}",
            crate::tls::error_chain(&e)
        )
    })
}

/// Why `request` (`"POST https://…"`) got no answer, in words: a refused
/// TLS certificate names its cause and the remedy (`[lichess] ca_file`).
pub fn request_error(request: &str, e: &reqwest::Error) -> String {
    match crate::tls::certificate_problem(e) {
        Some(why) => format!(
            "{request}: the server's TLS certificate is refused: {why}; if it is signed by a \
             private CA (or a TLS-inspecting proxy's), give that CA's certificate (PEM) as \
             [lichess] ca_file ({})",
            crate::tls::error_chain(e)
        ),
        None => format!("{request}: {}", crate::tls::error_chain(e)),
    }
}

/// One POST; a transport failure is a [`Verdict::Retry`].
async fn push(client: &reqwest::Client, target: &PushTarget, pgn: &str) -> Verdict {
    let sent = client
        .post(target.url())
        .header("content-type", "text/plain; charset=utf-8")
        .bearer_auth(&target.token)
        .body(pgn.to_owned())
        .send()
        .await
        .map_err(|e| e.without_url()) // the message names it once, first
        .map_err(|e| request_error(&format!("POST {}", target.url()), &e));
    let r = match sent {
        Ok(r) => r,
        Err(why) => return Verdict::Retry { why, after: None },
    };
    let status = r.status().as_u16();
    let retry_after = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    match r.text().await {
        Ok(body) => verdict(status, retry_after.as_deref(), &body, &target.url()),
        Err(e) => Verdict::Retry {
            why: format!(
                "POST {}: HTTP {status}: the answer broke off: {e}",
                target.url()
            ),
            after: None,
        },
    }
}

/// Says `what` to the arbiter (when there is a channel for it) and in the
/// log: `{"type": "uplink_alert", "uplink": "lichess", "game"?, "error",
/// "action"}` (docs/trace-extensions.md).
fn alert(alerts: &Option<Arc<Channel>>, game: Option<&str>, error: &str, action: &str) {
    tracing::warn!(
        game = game.unwrap_or("-"),
        "lichess push: {error}; {action}"
    );
    if let Some(ch) = alerts {
        let mut m = serde_json::json!({
            "type": "uplink_alert",
            "uplink": "lichess",
            "error": error,
            "action": action,
        });
        if let Some(g) = game {
            m["game"] = g.into();
        }
        ch.publish(0, None, &[Arc::from(m.to_string())]);
    }
}

async fn run(
    client: reqwest::Client,
    target: PushTarget,
    channel: Arc<Channel>,
    status: watch::Sender<PushStatus>,
    options: Options,
) {
    let mut view = channel.view.subscribe();
    let mut last: Option<String> = None;
    let mut backoff = Backoff::new(options.retry_min, options.retry_max);
    if let Some(seed) = options.jitter_seed {
        backoff = backoff.seeded(seed);
    }
    let mut outage = Outage::default();
    // Each (game, reason) is alerted once, not at every push.
    let mut alerted: HashSet<(String, String)> = HashSet::new();
    let mut once = |game: &str, why: &str| alerted.insert((game.to_owned(), why.to_owned()));
    loop {
        view.mark_unchanged();
        let snaps = channel.view.borrow().clone();
        let prepared = prepare(&snaps.refs(), options.max_body);
        for w in &prepared.withheld {
            if once(&w.game, &w.why) {
                alert(
                    &options.alerts,
                    Some(&w.game),
                    &w.why,
                    "not pushed to lichess",
                );
            }
        }
        status.send_modify(|s| s.withheld = prepared.withheld.clone());
        let all: String = prepared.bodies.concat();
        if !all.is_empty() && last.as_deref() != Some(&all) {
            let mut retry = None;
            let mut rejected = Vec::new();
            let mut refused = None;
            let mut taken = (0, 0);
            for body in &prepared.bodies {
                match push(&client, &target, body).await {
                    Verdict::Accepted {
                        games,
                        moves,
                        rejected: r,
                    } => {
                        taken.0 += games;
                        taken.1 += moves;
                        rejected.extend(r);
                    }
                    Verdict::Retry { why, after } => {
                        retry = Some((why, after));
                        break;
                    }
                    Verdict::Refused { why } => refused = Some(why),
                    Verdict::Stop { why } => {
                        alert(&options.alerts, None, &why, "pushing stopped");
                        status.send_modify(|s| {
                            s.failures += 1;
                            s.stopped = Some(why.clone());
                            s.last_error = Some(why);
                        });
                        return;
                    }
                }
            }
            if let Some((why, after)) = retry {
                let wait = backoff.next_wait().max(after.unwrap_or_default());
                if outage.failed(&why) {
                    tracing::warn!(
                        "lichess push: {why}; retrying (after {wait:.1?}, doubling up to {:?})",
                        options.retry_max
                    );
                }
                status.send_modify(|s| {
                    s.failures += 1;
                    s.last_error = Some(why);
                });
                tokio::time::sleep(wait).await;
                continue;
            }
            backoff.reset();
            if outage.recovered() {
                tracing::info!("lichess push: pushed to {}", target.url());
            }
            for r in &rejected {
                let game = r.game.clone().unwrap_or_else(|| "?".into());
                let why = format!(
                    "lichess rejected game {game} ({} – {}): {}",
                    r.white.as_deref().unwrap_or("?"),
                    r.black.as_deref().unwrap_or("?"),
                    r.error
                );
                if once(&game, &r.error) {
                    alert(
                        &options.alerts,
                        r.game.as_deref(),
                        &why,
                        "lichess is asked again at the round's next change",
                    );
                }
            }
            if let Some(why) = &refused {
                if once("", why) {
                    alert(
                        &options.alerts,
                        None,
                        why,
                        "not sent again until the round changes",
                    );
                }
            }
            let pgn: Arc<str> = Arc::from(all.as_str());
            last = Some(all);
            status.send_modify(|s| {
                if let Some(why) = refused {
                    s.failures += 1;
                    s.last_error = Some(why);
                } else {
                    s.pushed += 1;
                    s.last_pgn = Some(pgn);
                }
                (s.games, s.moves) = taken;
                s.rejected = rejected;
            });
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
