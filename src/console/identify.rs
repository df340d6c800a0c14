//! Who calls the console or the arbiter API, from the credentials a
//! request shows (the transport reads them: `crate::server::auth`): a
//! session of the console, an account's bearer token, the configured
//! `[arbiter] token`, or the visually impaired player's device token; each
//! compared in constant time, failures counted by the accounts' back-off
//! ([`super::access`]). A blocked source is refused only what it would
//! guess at: an open session and a right token are taken.

use super::board::{ArbiterAccess, PlayerDevice};
use super::refusal::{refuse, too_many, Refusal};
use super::role::{Role, Who};
use super::state::Console;
use super::wall_clock::unix_ms;
use std::net::IpAddr;
use std::time::Instant;
use subtle::ConstantTimeEq;

/// Who called: an arbiter's account (or the `[arbiter] token`), or the
/// visually impaired player's own device.
#[derive(Debug, Clone)]
pub enum Caller<'a> {
    /// An arbiter's account: his name and role (a relay acts on behalf of
    /// the arbiter its request names).
    Arbiter(Who),
    /// The player's device token: queries for his side only (E2.9d).
    Player(&'a PlayerDevice),
}

/// Who shows these credentials: `bearer` (the request's bearer token,
/// empty when none) or `session` (the console's session cookie, empty when
/// none), from `ip` at `now`: a session of the console, a token of an
/// account or of `[arbiter] token` (`access`), or the player device's token
/// (each compared in constant time). 404 without an arbiter API, 403 when
/// no account is configured, 401 for any other token (counted per source:
/// 429 once blocked, [`super::access`]).
pub fn identify<'a>(
    console: Option<&'a Console>,
    access: Option<&'a ArbiterAccess>,
    bearer: &str,
    session: &str,
    ip: IpAddr,
    now: Instant,
) -> Result<Caller<'a>, Refusal> {
    if access.is_none() && console.is_none() {
        return Err(refuse(404, "no arbiter API here"));
    }
    let accounts = console.map(|c| &c.accounts).filter(|a| !a.is_empty());
    let legacy = access.and_then(|a| a.token.as_deref());
    if accounts.is_none() && legacy.is_none() {
        return Err(refuse(
            403,
            "the arbiter API is off: no token configured ([arbiter] token, [[arbiter.accounts]] or EBOARD_ARBITER_TOKEN)",
        ));
    }
    // A blocked address is refused only what it would guess at: an open
    // session and a right token (at least 128 random bits) are taken, so
    // that someone failing behind the arbiter's address (a venue's NAT)
    // cannot keep him out (docs/console.md, "Security model").
    let blocked = accounts.and_then(|a| a.blocked(ip, now));
    let given = bearer;
    if !given.is_empty() {
        if let (Some(t), Some(a)) = (legacy, access) {
            if bool::from(given.as_bytes().ct_eq(t.as_bytes())) {
                return Ok(Caller::Arbiter(Who {
                    name: a.name.clone(),
                    role: Role::Arbiter,
                }));
            }
        }
        if let Some(acc) = accounts.and_then(|a| a.by_token(given)) {
            if let Some(a) = accounts {
                a.succeeded(ip);
            }
            return Ok(Caller::Arbiter(Who {
                name: acc.name.clone(),
                role: acc.role,
            }));
        }
        if let Some(p) = access.and_then(|a| a.player.as_ref()) {
            if bool::from(given.as_bytes().ct_eq(p.token.as_bytes())) {
                return Ok(Caller::Player(p));
            }
        }
        if let Some(wait) = blocked {
            return Err(too_many(wait));
        }
        tracing::warn!(client = %ip, "arbiter API: a wrong bearer token");
        if let Some(wait) = accounts.and_then(|a| a.failed(ip, now)) {
            tracing::warn!(client = %ip, block_s = wait.as_secs(), "arbiter API: failed authentications: address blocked");
            return Err(too_many(wait));
        }
    } else if let Some(a) = accounts {
        let id = session;
        if !id.is_empty() {
            if let Some(session) = a.session(id, unix_ms()) {
                return Ok(Caller::Arbiter(Who {
                    name: session.name,
                    role: session.role,
                }));
            }
        }
    }
    if let Some(wait) = blocked {
        return Err(too_many(wait));
    }
    Err(refuse(
        401,
        "a valid bearer token or a console session is needed",
    ))
}

impl Caller<'_> {
    /// The arbiter's account behind the call; the player's device is
    /// refused (403: it only asks, never acts as the arbiter).
    pub fn arbiter(self) -> Result<Who, Refusal> {
        match self {
            Caller::Arbiter(who) => Ok(who),
            Caller::Player(_) => Err(refuse(
                403,
                "the player's device may only ask (POST /arbiter/query), never act as the arbiter",
            )),
        }
    }
}

/// `who` may rule (`what`: the request, for the log): only the `arbiter`
/// role, and a relay on behalf of an arbiter; a deputy is refused (403,
/// logged: a deputy sees everything and rules nothing).
pub fn may_rule(who: Who, what: &str) -> Result<Who, Refusal> {
    if who.role == Role::Deputy {
        tracing::warn!(name = %who.name, what, "a deputy tried to rule: refused");
        return Err(refuse(
            403,
            &format!(
                "{} is a deputy: a deputy sees everything and rules nothing",
                who.name
            ),
        ));
    }
    Ok(who)
}
