//! A login to the console (`docs/console.md`, "Security model"; issue 26
//! §1–§2): a name and a secret open a session, under the back-off
//! ([`super::backoff`]): charged before the check, one login in flight per
//! source, at most [`super::access::MAX_CHECKS`] argon2id checks at once
//! process-wide (503, to be tried again in 2 s, when they are all taken),
//! and a device id that lets the arbiter in while his account is blocked.
//! The transport writes the session and the device as cookies
//! (`crate::server`).

use super::access::{Account, NotNow};
use super::refusal::{refuse, too_many, Refusal};
use super::role::Role;
use super::state::Console;
use super::wall_clock::unix_ms;
use serde::Deserialize;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a login waits for a slot among the slow secret checks.
const CHECK_WAIT: Duration = Duration::from_secs(2);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Login {
    name: String,
    secret: String,
}

/// A login that succeeded.
#[derive(Debug, Clone)]
pub struct LoggedIn {
    /// The account (never a relay's: a relay does not log in).
    pub account: Account,
    /// The new session's id (the session cookie's value).
    pub session: String,
    /// How long the session lasts, s.
    pub ttl_s: u64,
    /// The device id to keep in the browser (the one it showed, when it is
    /// this account's; else a new one).
    pub device: String,
}

/// Logs in with `body` (`{"name", "secret"}`) from `ip`, whose browser
/// showed device id `device` (empty when none). Refusals: 422 for a bad
/// body, 401 for a wrong name or secret, 429 while blocked or while
/// another login from the source is checked, 503 while the secret checks
/// are all taken.
pub async fn log_in(
    console: &Arc<Console>,
    ip: IpAddr,
    device: &str,
    body: &[u8],
) -> Result<LoggedIn, Refusal> {
    let now = Instant::now();
    let l: Login = match serde_json::from_slice(body) {
        Ok(l) => l,
        Err(e) => {
            if let Some(wait) = console.accounts.blocked(ip, now) {
                return Err(too_many(wait));
            }
            return Err(refuse(
                422,
                &format!("body: {e} (expected {{\"name\": …, \"secret\": …}})"),
            ));
        }
    };
    let attempt = match console.accounts.begin_login(ip, &l.name, device, now) {
        Ok(a) => a,
        Err(NotNow::Blocked(wait)) => return Err(too_many(wait)),
        Err(NotNow::InFlight) => {
            return Err(refuse(
                429,
                "another login from this address is being checked: retry in 1 s",
            )
            .retry_after(1))
        }
    };
    let permit = if console.accounts.check_is_slow(&l.name) {
        match console.accounts.check_permit(CHECK_WAIT).await {
            Some(p) => Some(p),
            None => {
                console.accounts.login_not_checked(attempt);
                tracing::warn!(client = %ip, "console: login refused: the password checks are busy");
                return Err(refuse(
                    503,
                    "the server is busy checking other logins: retry in 2 s",
                )
                .retry_after(2));
            }
        }
    } else {
        None
    };
    let c = console.clone();
    let name = l.name.clone();
    let found = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        c.accounts
            .verify(&l.name, &l.secret)
            .filter(|a| a.role != Role::Relay)
            .cloned()
    })
    .await
    .ok()
    .flatten();
    let Some(account) = found else {
        tracing::warn!(client = %ip, name, "console: login failed");
        if let Some(wait) = attempt.block {
            tracing::warn!(client = %ip, name, block_s = wait.as_secs(), "console: failed logins: blocked (an account's logins from every address; a name of no account, this address)");
            return Err(too_many(wait));
        }
        return Err(refuse(401, "wrong name or secret"));
    };
    console.accounts.login_succeeded(attempt);
    let session = console.accounts.open_session(&account, unix_ms());
    let ttl_s = console.accounts.session_ttl.as_secs();
    let device = if console.accounts.is_known_device(device, &account.name) {
        device.to_owned()
    } else {
        console.accounts.new_device(&account.name, Instant::now())
    };
    tracing::info!(client = %ip, name = %account.name, role = account.role.as_str(), "console: logged in");
    Ok(LoggedIn {
        account,
        session,
        ttl_s,
        device,
    })
}
