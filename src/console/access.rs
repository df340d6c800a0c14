//! Who may use the arbiter's side: per-arbiter accounts, login sessions and
//! the failed-authentication back-off (`docs/console.md`, security model).
//!
//! - An [`Account`] has a name, a [`Role`] and a secret: a bearer token
//!   (at least 128 random bits, [`check_token`]) or an argon2id hash (PHC
//!   string, `$argon2id$v=19$…`) of a pass phrase.
//! - `POST /console/login` with the name and the secret opens a
//!   [`Session`] (a random 256-bit id in an `HttpOnly`, `SameSite=Strict`
//!   cookie) that expires after the configured time (wall-clock Unix ms,
//!   so a session kept across a restart keeps its end). Sessions are held
//!   by the SHA-256 of their id, never the id itself; with a sessions file
//!   ([`Accounts::keep_sessions`], [`super::kept::SessionFile`]) they
//!   survive a restart of the server.
//! - Failed authentications are counted per client source (IPv4 address,
//!   IPv6 address; each IPv6 /64 with more free) and, for a login naming
//!   an account, per account
//!   ([`super::backoff`]): the first [`FREE_FAILURES`] are free, then each
//!   further failure blocks the source (the account) twice as long as the
//!   one before (1 s, 2 s, 4 s, … at most [`MAX_BLOCK`], an account at
//!   most [`ACCOUNT_MAX_BLOCK`]); a blocked one gets 429 with
//!   `Retry-After`. A login is charged before its secret is checked and
//!   refunded when right. A login naming an account is held back by that
//!   account's count only ([`Accounts::login_blocked`]), so that someone
//!   behind the arbiter's address (a venue's NAT, a proxy) who fails with
//!   other names or tokens cannot keep him out; guessing at his pass
//!   phrase is bounded by his account's count, from any address. An open
//!   session and a right bearer token (at least 128 random bits: nothing
//!   to guess) are taken even from a blocked source.
//! - The argon2id checks are slow and take about 19 MiB each: at most
//!   [`MAX_CHECKS`] run at once ([`Accounts::check_permit`]), one login
//!   per source is in flight at a time.
//!
//! Time is passed in (`now`: an `Instant` for the blocks, Unix ms for the
//! sessions), so sessions and blocks are tested without waiting.
//!
//! The accounts, their sessions (kept or not) and the back-off are one
//! model behind one set of locks; its tests are in `access_tests.rs`.

use super::backoff::BackOff;
use super::kept::{KeptSession, SessionFile};
pub use super::role::Role;
pub use super::token::{check_token, new_token, MIN_TOKEN_BITS, MIN_TOKEN_GUESSES_LOG10, MIN_WORD};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use rand::RngCore;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use super::backoff::{
    source_key, LoginAttempt, NotNow, ACCOUNT_MAX_BLOCK, DEVICE_COOKIE, FREE_FAILURES, MAX_BLOCK,
    MAX_TRACKED,
};
/// The most slow secret checks (argon2id, about 19 MiB each) run at once,
/// process-wide (issue 26 §1). One: with two, 50 addresses × 32 kept-alive
/// logins peaked at 63–65 MB over idle (sampled every 200 ms), at the 64 MB
/// budget; a check takes tens of milliseconds, and a login waits up to 2 s
/// for the permit (docs/server.md, "Logins and the failed-authentication
/// back-off").
pub const MAX_CHECKS: usize = 1;
/// The default session lifetime (12 h: a long round day).
pub const DEFAULT_SESSION: Duration = Duration::from_secs(12 * 3600);
/// The session cookie's name.
pub const COOKIE: &str = "eboard_session";
/// The most sessions kept at once (the oldest are dropped first).
pub const MAX_SESSIONS: usize = 1024;

/// How an account proves itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Secret {
    /// A bearer token (also the login secret).
    Token(String),
    /// An argon2 hash (PHC string) of the login secret.
    Hash(String),
}

/// One account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The arbiter's name (journaled as the author of his rulings).
    pub name: String,
    /// What he may do.
    pub role: Role,
    /// His secret.
    pub secret: Secret,
}

/// A logged-in session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The account's name.
    pub name: String,
    /// The account's role.
    pub role: Role,
    /// When it ends, Unix ms.
    pub expires_unix_ms: u64,
}

/// The SHA-256 of a session id, hex: how sessions are held and kept.
pub fn session_hash(id: &str) -> String {
    ring::digest::digest(&ring::digest::SHA256, id.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The accounts, their sessions and the failure counts.
#[derive(Debug)]
pub struct Accounts {
    accounts: Vec<Account>,
    /// How long a session lasts.
    pub session_ttl: Duration,
    /// Whether the cookie is marked `Secure` (served over TLS).
    pub secure_cookie: bool,
    /// Session id's SHA-256 ([`session_hash`]) → the session.
    sessions: Mutex<HashMap<String, Session>>,
    backoff: BackOff,
    /// The slow checks' permits ([`MAX_CHECKS`]).
    checks: Arc<Semaphore>,
    kept: OnceLock<SessionFile>,
}

/// The argon2id hash (PHC string) of `secret` with a fresh salt, for the
/// config's `secret_hash`.
pub fn hash_secret(secret: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

impl Accounts {
    /// The accounts, checked: names not empty and unique, tokens strong
    /// ([`check_token`]), hashes readable PHC strings. The error names the
    /// account (its index and name).
    pub fn new(
        accounts: Vec<Account>,
        session_ttl: Duration,
        secure_cookie: bool,
    ) -> Result<Accounts, String> {
        for (i, a) in accounts.iter().enumerate() {
            let which = format!("account {} (\"{}\")", i + 1, a.name);
            if a.name.trim().is_empty() {
                return Err(format!("account {}: the name is empty", i + 1));
            }
            // One person may have two credentials of one role (a token for
            // scripts, a pass phrase for the console); one name in two roles
            // would make the journal's author ambiguous.
            if let Some(b) = accounts[..i]
                .iter()
                .find(|b| b.name == a.name && b.role != a.role)
            {
                return Err(format!(
                    "{which}: the name is also an account of role {} (the [arbiter] token's \
                     account is named by [arbiter] name); one name, one role",
                    b.role.as_str()
                ));
            }
            match &a.secret {
                Secret::Token(t) => check_token(t).map_err(|e| format!("{which}: {e}"))?,
                Secret::Hash(h) => {
                    PasswordHash::new(h).map_err(|e| {
                        format!("{which}: secret_hash is not an argon2 PHC string ({e}); make one with `eboard token --hash`")
                    })?;
                }
            }
        }
        Ok(Accounts {
            accounts,
            session_ttl,
            secure_cookie,
            sessions: Mutex::new(HashMap::new()),
            backoff: BackOff::default(),
            checks: Arc::new(Semaphore::new(MAX_CHECKS)),
            kept: OnceLock::new(),
        })
    }

    /// Keeps the sessions in `file` from now on, taking those it holds
    /// (`kept`) that are open at `now_ms` (Unix ms) and of an account that
    /// still exists with the same role; the file is written again without
    /// the others. Errors: the file cannot be written (named).
    pub fn keep_sessions(
        &self,
        file: SessionFile,
        kept: Vec<KeptSession>,
        now_ms: u64,
    ) -> Result<usize, String> {
        let mut s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        for k in kept {
            let known = self
                .by_name(&k.name)
                .is_some_and(|a| a.role == k.role && a.role != Role::Relay);
            if known && k.expires_unix_ms > now_ms && s.len() < MAX_SESSIONS {
                s.insert(
                    k.id_sha256,
                    Session {
                        name: k.name,
                        role: k.role,
                        expires_unix_ms: k.expires_unix_ms,
                    },
                );
            }
        }
        let n = s.len();
        save(&file, &s)?;
        let _ = self.kept.set(file);
        Ok(n)
    }

    fn save(&self, s: &HashMap<String, Session>) {
        if let Some(f) = self.kept.get() {
            if let Err(e) = save(f, s) {
                tracing::error!("console sessions: {e} (the sessions hold until the restart)");
            }
        }
    }

    /// Whether there is no account (the arbiter's side is off).
    pub fn is_empty(&self) -> bool {
        self.accounts.is_empty()
    }

    /// The account whose token is `token` (compared in constant time with
    /// every token account).
    pub fn by_token(&self, token: &str) -> Option<&Account> {
        if token.is_empty() {
            return None;
        }
        let mut found = None;
        for a in &self.accounts {
            if let Secret::Token(t) = &a.secret {
                if bool::from(t.as_bytes().ct_eq(token.as_bytes())) {
                    found = Some(a);
                }
            }
        }
        found
    }

    /// The account named `name`.
    pub fn by_name(&self, name: &str) -> Option<&Account> {
        self.accounts.iter().find(|a| a.name == name)
    }

    /// Checks `name`'s `secret` (the token, or the pass phrase against the
    /// argon2 hash; slow on purpose: run it off the async threads).
    pub fn verify(&self, name: &str, secret: &str) -> Option<&Account> {
        self.accounts
            .iter()
            .filter(|a| a.name == name)
            .find(|a| Self::matches(a, secret))
    }

    /// Whether `secret` is `a`'s.
    fn matches(a: &Account, secret: &str) -> bool {
        match &a.secret {
            Secret::Token(t) => bool::from(t.as_bytes().ct_eq(secret.as_bytes())),
            Secret::Hash(h) => PasswordHash::new(h)
                .map(|h| {
                    Argon2::default()
                        .verify_password(secret.as_bytes(), &h)
                        .is_ok()
                })
                .unwrap_or(false),
        }
    }

    /// Opens a session for `account` at `now_ms` (Unix ms); returns its
    /// id (kept only as its SHA-256; the sessions file written again).
    pub fn open_session(&self, account: &Account, now_ms: u64) -> String {
        let mut b = [0u8; 32];
        rand::rng().fill_bytes(&mut b);
        let id: String = b.iter().map(|x| format!("{x:02x}")).collect();
        let mut s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        s.retain(|_, v| v.expires_unix_ms > now_ms);
        if s.len() >= MAX_SESSIONS {
            if let Some(k) = s
                .iter()
                .min_by_key(|(_, v)| v.expires_unix_ms)
                .map(|(k, _)| k.clone())
            {
                s.remove(&k);
            }
        }
        let ttl = u64::try_from(self.session_ttl.as_millis()).unwrap_or(u64::MAX);
        s.insert(
            session_hash(&id),
            Session {
                name: account.name.clone(),
                role: account.role,
                expires_unix_ms: now_ms.saturating_add(ttl),
            },
        );
        self.save(&s);
        id
    }

    /// The session `id` when open at `now_ms` (Unix ms; an expired one is
    /// removed, from the file at the next login or logout).
    pub fn session(&self, id: &str, now_ms: u64) -> Option<Session> {
        let key = session_hash(id);
        let mut s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        match s.get(&key) {
            Some(v) if v.expires_unix_ms > now_ms => Some(v.clone()),
            Some(_) => {
                s.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Ends the session `id` (the sessions file written again).
    pub fn close_session(&self, id: &str) {
        let mut s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if s.remove(&session_hash(id)).is_some() {
            self.save(&s);
        }
    }

    /// How long `ip`'s source (IPv4 address, IPv6 address or its /64) is still blocked
    /// at `now`, if it is.
    pub fn blocked(&self, ip: IpAddr, now: Instant) -> Option<Duration> {
        self.backoff.blocked(ip, now)
    }

    /// The account a login names, when it may log in (not a relay's).
    fn login_account(&self, name: &str) -> Option<&Account> {
        self.accounts
            .iter()
            .find(|a| a.name == name && a.role != Role::Relay)
    }

    /// How long a login naming `name` from `ip` must still wait at `now`:
    /// an account's login waits only for that account's block, a login
    /// naming no account for the source's.
    pub fn login_blocked(&self, ip: IpAddr, name: &str, now: Instant) -> Option<Duration> {
        match self.login_account(name) {
            Some(a) => self.backoff.account_blocked(&a.name, now),
            None => self.blocked(ip, now),
        }
    }

    /// Counts a failed authentication from `ip` at `now`; returns the block
    /// it starts, if any.
    pub fn failed(&self, ip: IpAddr, now: Instant) -> Option<Duration> {
        self.backoff.failed(ip, now)
    }

    /// Counts a failed login naming `name` from `ip` at `now`, for the
    /// source and (when it names one) the account; returns the block the
    /// login now waits for ([`Accounts::login_blocked`]), if any.
    pub fn failed_login(&self, ip: IpAddr, name: &str, now: Instant) -> Option<Duration> {
        let by_address = self.failed(ip, now);
        match self.login_account(name) {
            Some(a) => self.backoff.failed_account(&a.name, now),
            None => by_address,
        }
    }

    /// Starts a login naming `name` from `ip` at `now`, charged as a
    /// failure before the secret is checked ([`BackOff::begin_login`]).
    /// `device` is the device cookie's value (empty: none).
    pub fn begin_login(
        &self,
        ip: IpAddr,
        name: &str,
        device: &str,
        now: Instant,
    ) -> Result<LoginAttempt, NotNow> {
        let account = self.login_account(name).map(|a| a.name.as_str());
        let device = (!device.is_empty()).then(|| session_hash(device));
        self.backoff
            .begin_login(ip, account, device.as_deref(), now)
    }

    /// A new device cookie's value for `account`, remembered at `now`
    /// ([`super::backoff`], "Known devices"): kept only as its SHA-256.
    pub fn new_device(&self, account: &str, now: Instant) -> String {
        let id = new_token();
        self.backoff
            .remember_device(&session_hash(&id), account, now);
        id
    }

    /// Whether the device cookie `device` is a known device of `account`.
    pub fn is_known_device(&self, device: &str, account: &str) -> bool {
        !device.is_empty() && self.backoff.is_known_device(&session_hash(device), account)
    }

    /// A login's charge refunded: it succeeded ([`LoginAttempt::succeeded`]).
    pub fn login_succeeded(&self, attempt: LoginAttempt) {
        attempt.succeeded(&self.backoff);
    }

    /// A login's charge refunded: it was not checked (the server busy).
    pub fn login_not_checked(&self, attempt: LoginAttempt) {
        attempt.not_checked(&self.backoff);
    }

    /// Whether checking `name`'s secret is slow (an argon2 hash: about
    /// 19 MiB and tens of ms on a Pi), so that it needs a
    /// [`Accounts::check_permit`].
    pub fn check_is_slow(&self, name: &str) -> bool {
        self.accounts
            .iter()
            .any(|a| a.name == name && matches!(a.secret, Secret::Hash(_)))
    }

    /// A permit to run one slow check: at most [`MAX_CHECKS`] at once
    /// process-wide; waits up to `wait` for one, `None` when the server is
    /// still busy then (the caller answers 503 with `Retry-After`).
    pub async fn check_permit(&self, wait: Duration) -> Option<OwnedSemaphorePermit> {
        match self.checks.clone().try_acquire_owned() {
            Ok(p) => Some(p),
            Err(_) => tokio::time::timeout(wait, self.checks.clone().acquire_owned())
                .await
                .ok()
                .and_then(Result::ok),
        }
    }

    /// A successful authentication from `ip`: its failures are forgotten,
    /// unless it is blocked (then someone else there is failing: a success
    /// behind the same address must not give him free tries again).
    pub fn succeeded(&self, ip: IpAddr) {
        self.backoff.succeeded(ip);
    }

    /// A successful login of account `name` from `ip`: the source's and
    /// the account's failures are forgotten, each unless it is blocked
    /// ([`Accounts::succeeded`]).
    pub fn succeeded_login(&self, ip: IpAddr, name: &str) {
        self.backoff.succeeded_login(ip, name);
    }

    /// The number of client sources whose failures are remembered.
    pub fn tracked_sources(&self) -> usize {
        self.backoff.tracked_sources()
    }
}

/// Writes the sessions open in `s` to `file`.
fn save(file: &SessionFile, s: &HashMap<String, Session>) -> Result<(), String> {
    let mut list: Vec<KeptSession> = s
        .iter()
        .map(|(k, v)| KeptSession {
            id_sha256: k.clone(),
            name: v.name.clone(),
            role: v.role,
            expires_unix_ms: v.expires_unix_ms,
        })
        .collect();
    list.sort_by_key(|s| s.expires_unix_ms);
    file.save(&list)
}

#[cfg(test)]
#[path = "access_tests.rs"]
mod tests;
