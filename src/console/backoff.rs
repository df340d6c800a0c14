//! The failed-authentication back-off and the login admission (issue 26
//! §1–§2; `docs/console.md`, "Security model").
//!
//! - **Who is counted.** A *source*: an IPv4 address or an IPv6 host
//!   (/128, [`host_key`], the key of the listener's per-address connection
//!   limit); each IPv6 /64 as well ([`prefix_key`]), with
//!   [`PREFIX_FREE_FAILURES`] free: a venue's Wi-Fi is one /64, so one
//!   host guessing there blocks itself, not its neighbours (issue 41 §1),
//!   while an attacker holding a whole /64 and a fresh address for every
//!   guess gets [`PREFIX_FREE_FAILURES`] free guesses in all, then the /64
//!   is blocked like a source. And, for a login naming an account, that
//!   *account*.
//! - **Bounded memory.** At most [`MAX_TRACKED`] sources are remembered; a
//!   new one then evicts the source whose last failure is the oldest —
//!   never the whole table. Accounts are the configured ones only.
//! - **Penalty.** The first [`FREE_FAILURES`] are free, then each failure
//!   blocks the source (the account) twice as long as the one before (1 s,
//!   2 s, 4 s, …), a source at most [`MAX_BLOCK`], an account at most
//!   [`ACCOUNT_MAX_BLOCK`]: bounded, so that a guesser at the arbiter's
//!   account keeps him out of a *fresh* login for that long at most.
//! - **Counted before the check.** A login is charged as a failure when
//!   it starts ([`BackOff::begin_login`]) and refunded when it succeeds
//!   ([`LoginAttempt::succeeded`]); one that never finishes (timed out,
//!   the client gone) stays counted. Concurrent guesses therefore see the
//!   block as soon as the free ones are spent: at most `FREE_FAILURES + 1`
//!   checks start before an account is blocked, however many run at once.
//! - **One login in flight per source**, at most [`PREFIX_IN_FLIGHT`] per
//!   IPv6 /64: another while they are checked gets 429 (`Retry-After: 1`).
//! - **Known devices.** A successful login leaves a device cookie
//!   ([`DEVICE_COOKIE`], 256 random bits, held as its SHA-256, at most
//!   [`MAX_DEVICES`], the least recently used evicted). A login that
//!   presents the device cookie of the account it names is not held back
//!   by that account's block: someone guessing at the arbiter's pass
//!   phrase — even from his own address — cannot keep him out of a
//!   device he has logged in from before. Such a login is charged to the
//!   device instead: after [`FREE_FAILURES`] failures the device is
//!   forgotten. (OWASP's "device cookies" against account lock-out.)
//!
//! Time is passed in (`now`), so the blocks are tested without waiting.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Failed authentications per source (per account) before the back-off starts.
pub const FREE_FAILURES: u32 = 5;
/// The longest a source is blocked after failed authentications.
pub const MAX_BLOCK: Duration = Duration::from_secs(300);
/// The longest an account's logins are blocked after failed logins (the
/// bounded penalty: the arbiter's own fresh login waits at most this).
pub const ACCOUNT_MAX_BLOCK: Duration = Duration::from_secs(60);
/// The most sources whose failures are remembered (the oldest evicted
/// first); as many IPv6 /64s besides.
pub const MAX_TRACKED: usize = 4096;
/// Failed authentications from one IPv6 /64, its hosts together, before
/// the /64 is blocked: a venue's Wi-Fi of 12 hosts at [`FREE_FAILURES`]
/// each, not 2^64 of them.
pub const PREFIX_FREE_FAILURES: u32 = 64;
/// Logins checked at once from one IPv6 /64 (one per host).
pub const PREFIX_IN_FLIGHT: usize = 4;

/// The source a client address belongs to: the IPv4 address, or the /64
/// of an IPv6 address (IPv4-mapped addresses count as IPv4). A /64 is one
/// host's privacy addresses (RFC 8981) — or a whole venue's Wi-Fi, so
/// limits per host are counted per [`host_key`] and only a generous budget
/// per /64 ([`prefix_key`]).
pub fn source_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(a) => match a.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = a.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// The key of one host: the IPv4 address or the whole IPv6 address (/128);
/// IPv4-mapped addresses count as IPv4.
pub fn host_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(a) => a.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// The IPv6 /64 an address is in ([`source_key`]); `None` for IPv4 (and
/// IPv4-mapped) addresses, whose source is the host.
pub fn prefix_key(ip: IpAddr) -> Option<IpAddr> {
    match host_key(ip) {
        IpAddr::V6(_) => Some(source_key(ip)),
        IpAddr::V4(_) => None,
    }
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    blocked_until: Option<Instant>,
    /// The last failure (for oldest-first eviction).
    last: Instant,
}

impl Failures {
    fn new(now: Instant) -> Self {
        Failures {
            count: 0,
            blocked_until: None,
            last: now,
        }
    }

    /// Counts one failure at `now`; the block it starts (capped at `cap`).
    fn charge(&mut self, now: Instant, cap: Duration) -> Option<Duration> {
        self.charge_past(FREE_FAILURES, now, cap)
    }

    /// [`Failures::charge`] with `free` failures free.
    fn charge_past(&mut self, free: u32, now: Instant, cap: Duration) -> Option<Duration> {
        self.count = self.count.saturating_add(1);
        self.last = now;
        if self.count <= free {
            return None;
        }
        let doubling = (self.count - free - 1).min(16);
        let block = Duration::from_secs(1u64 << doubling).min(cap);
        self.blocked_until = Some(now + block);
        Some(block)
    }

    fn blocked(&self, now: Instant) -> Option<Duration> {
        self.blocked_until.filter(|u| *u > now).map(|u| u - now)
    }
}

/// The cookie naming a device an account has logged in from.
pub const DEVICE_COOKIE: &str = "eboard_device";
/// The most known devices remembered (the least recently used evicted first).
pub const MAX_DEVICES: usize = 1024;

/// A device an account logged in from.
#[derive(Debug, Clone)]
struct Device {
    account: String,
    /// Failed logins with this device's cookie since its last success.
    failures: u32,
    last: Instant,
}

#[derive(Debug, Default)]
struct Table {
    sources: HashMap<IpAddr, Failures>,
    /// IPv6 /64s, their hosts together ([`PREFIX_FREE_FAILURES`]).
    prefixes: HashMap<IpAddr, Failures>,
    accounts: HashMap<String, Failures>,
    /// SHA-256 of the device cookie's value → the device.
    devices: HashMap<String, Device>,
}

/// The entry of `key` in `map`, made (evicting the oldest when full).
fn tracked(map: &mut HashMap<IpAddr, Failures>, key: IpAddr, now: Instant) -> &mut Failures {
    if !map.contains_key(&key) && map.len() >= MAX_TRACKED {
        if let Some(oldest) = map.iter().min_by_key(|(_, f)| f.last).map(|(k, _)| *k) {
            map.remove(&oldest);
        }
    }
    map.entry(key).or_insert_with(|| Failures::new(now))
}

impl Table {
    /// The entry of `source`, made (evicting the oldest when full).
    fn source(&mut self, source: IpAddr, now: Instant) -> &mut Failures {
        tracked(&mut self.sources, source, now)
    }

    /// Charges a failure of host `source` at `now` to it and to its /64
    /// (`prefix`); the longer block started, if any.
    fn charge(&mut self, source: IpAddr, prefix: Option<IpAddr>, now: Instant) -> Option<Duration> {
        let host = self.source(source, now).charge(now, MAX_BLOCK);
        let net = prefix.and_then(|p| {
            tracked(&mut self.prefixes, p, now).charge_past(PREFIX_FREE_FAILURES, now, MAX_BLOCK)
        });
        host.max(net)
    }

    /// How long host `source` or its /64 is still blocked at `now`, if it is.
    fn blocked(&self, source: IpAddr, prefix: Option<IpAddr>, now: Instant) -> Option<Duration> {
        let host = self.sources.get(&source).and_then(|f| f.blocked(now));
        let net = prefix
            .and_then(|p| self.prefixes.get(&p))
            .and_then(|f| f.blocked(now));
        host.max(net)
    }

    fn account(&mut self, name: &str, now: Instant) -> &mut Failures {
        self.accounts
            .entry(name.to_owned())
            .or_insert_with(|| Failures::new(now))
    }
}

/// The failure counts of sources and accounts, and the logins in flight.
#[derive(Debug, Default)]
pub struct BackOff {
    table: Mutex<Table>,
    in_flight: Arc<Mutex<InFlight>>,
}

/// The logins being checked: per host, and how many per IPv6 /64.
#[derive(Debug, Default)]
struct InFlight {
    hosts: HashSet<IpAddr>,
    prefixes: HashMap<IpAddr, usize>,
}

/// Why a login may not start now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotNow {
    /// Blocked for this long (the account's block, or the source's for a
    /// name of no account).
    Blocked(Duration),
    /// Another login from the same source (or [`PREFIX_IN_FLIGHT`] from
    /// its /64) is being checked.
    InFlight,
}

/// A login under way: charged as a failure ([`BackOff::begin_login`]);
/// [`LoginAttempt::succeeded`] refunds it. Dropped unresolved (a timeout,
/// the client gone), the charge stays. Holds the source's one login slot.
#[derive(Debug)]
pub struct LoginAttempt {
    in_flight: Arc<Mutex<InFlight>>,
    source: IpAddr,
    /// The IPv6 /64 of the source.
    prefix: Option<IpAddr>,
    account: Option<String>,
    /// The known device it came from (its cookie's SHA-256), charged
    /// instead of the account.
    device: Option<String>,
    /// The block this attempt's charge started, if any: what a failure answers.
    pub block: Option<Duration>,
}

impl Drop for LoginAttempt {
    fn drop(&mut self) {
        let mut f = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        f.hosts.remove(&self.source);
        if let Some(p) = self.prefix {
            if let Some(n) = f.prefixes.get_mut(&p) {
                *n -= 1;
                if *n == 0 {
                    f.prefixes.remove(&p);
                }
            }
        }
    }
}

impl BackOff {
    /// How long `ip`'s source is still blocked at `now`, if it is.
    pub fn blocked(&self, ip: IpAddr, now: Instant) -> Option<Duration> {
        let t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        t.blocked(host_key(ip), prefix_key(ip), now)
    }

    /// How long the account `name` is still blocked at `now`, if it is.
    pub fn account_blocked(&self, name: &str, now: Instant) -> Option<Duration> {
        let t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        t.accounts.get(name).and_then(|f| f.blocked(now))
    }

    /// Counts a failed authentication from `ip` at `now`; the block it
    /// starts, if any.
    pub fn failed(&self, ip: IpAddr, now: Instant) -> Option<Duration> {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        t.charge(host_key(ip), prefix_key(ip), now)
    }

    /// Counts a failed login of `account` (a configured account's name) at
    /// `now`; the block it starts, if any.
    pub fn failed_account(&self, account: &str, now: Instant) -> Option<Duration> {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        t.account(account, now).charge(now, ACCOUNT_MAX_BLOCK)
    }

    /// Starts a login from `ip` at `now` naming `account` (a configured
    /// account that may log in; `None`: a name of no such account), with
    /// the device cookie `device` (its SHA-256; `None`: none). It is
    /// refused while its account (for no account: its source) is blocked
    /// — unless the device is one the account has logged in from — or
    /// while another login of the source is in flight; else it is charged
    /// as a failure to the source and the account (the known device) at once.
    pub fn begin_login(
        &self,
        ip: IpAddr,
        account: Option<&str>,
        device: Option<&str>,
        now: Instant,
    ) -> Result<LoginAttempt, NotNow> {
        let (source, prefix) = (host_key(ip), prefix_key(ip));
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let known = match (account, device) {
            (Some(a), Some(d)) => t
                .devices
                .get(d)
                .is_some_and(|x| x.account == a && x.failures < FREE_FAILURES)
                .then(|| d.to_owned()),
            _ => None,
        };
        let blocked = match account {
            _ if known.is_some() => None,
            Some(a) => t.accounts.get(a).and_then(|f| f.blocked(now)),
            None => t.blocked(source, prefix, now),
        };
        if let Some(wait) = blocked {
            return Err(NotNow::Blocked(wait));
        }
        {
            let mut f = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
            let busy_prefix = prefix
                .is_some_and(|p| f.prefixes.get(&p).copied().unwrap_or(0) >= PREFIX_IN_FLIGHT);
            if busy_prefix || !f.hosts.insert(source) {
                return Err(NotNow::InFlight);
            }
            if let Some(p) = prefix {
                *f.prefixes.entry(p).or_insert(0) += 1;
            }
        }
        let by_source = t.charge(source, prefix, now);
        let block = match (&known, account) {
            (Some(d), _) => {
                if let Some(x) = t.devices.get_mut(d) {
                    x.failures += 1;
                    x.last = now;
                }
                None
            }
            (None, Some(a)) => t.account(a, now).charge(now, ACCOUNT_MAX_BLOCK),
            (None, None) => by_source,
        };
        Ok(LoginAttempt {
            in_flight: self.in_flight.clone(),
            source,
            prefix,
            account: known
                .is_none()
                .then(|| account.map(str::to_owned))
                .flatten(),
            device: known,
            block,
        })
    }

    /// Remembers a device `account` logged in from at `now`, by its
    /// cookie's SHA-256 (the least recently used forgotten when full).
    pub fn remember_device(&self, device: &str, account: &str, now: Instant) {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        if !t.devices.contains_key(device) && t.devices.len() >= MAX_DEVICES {
            if let Some(oldest) = t
                .devices
                .iter()
                .min_by_key(|(_, d)| d.last)
                .map(|(k, _)| k.clone())
            {
                t.devices.remove(&oldest);
            }
        }
        t.devices.insert(
            device.to_owned(),
            Device {
                account: account.to_owned(),
                failures: 0,
                last: now,
            },
        );
    }

    /// Whether `device` (a cookie's SHA-256) is a known device of `account`.
    pub fn is_known_device(&self, device: &str, account: &str) -> bool {
        let t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        t.devices
            .get(device)
            .is_some_and(|d| d.account == account && d.failures < FREE_FAILURES)
    }

    /// A successful authentication from `ip`: its failures are forgotten,
    /// unless it is blocked (then someone else there is failing: a success
    /// behind the same source must not give him free tries again).
    pub fn succeeded(&self, ip: IpAddr) {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let key = host_key(ip);
        if t.sources
            .get(&key)
            .is_some_and(|f| f.count <= FREE_FAILURES)
        {
            t.sources.remove(&key);
        }
    }

    /// A successful login of `account` from `ip` (not through
    /// [`BackOff::begin_login`]): the failures of both are forgotten, each
    /// unless it is blocked.
    pub fn succeeded_login(&self, ip: IpAddr, account: &str) {
        self.succeeded(ip);
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        if t.accounts
            .get(account)
            .is_some_and(|f| f.count <= FREE_FAILURES)
        {
            t.accounts.remove(account);
        }
    }

    /// The number of sources remembered now.
    pub fn tracked_sources(&self) -> usize {
        self.table
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .sources
            .len()
    }
}

impl LoginAttempt {
    /// The login succeeded: its charge is refunded (to the source and the
    /// account), and below a block their failures are forgotten.
    pub fn succeeded(self, backoff: &BackOff) {
        let mut t = backoff.table.lock().unwrap_or_else(|e| e.into_inner());
        let refund = |f: &mut Failures| {
            f.count = f.count.saturating_sub(1);
            f.count <= FREE_FAILURES
        };
        if t.sources.get_mut(&self.source).is_some_and(refund) {
            t.sources.remove(&self.source);
        }
        if let Some(p) = self.prefix {
            if let Some(f) = t.prefixes.get_mut(&p) {
                f.count = f.count.saturating_sub(1);
            }
        }
        if let Some(a) = &self.account {
            if t.accounts.get_mut(a).is_some_and(refund) {
                t.accounts.remove(a);
            }
        }
        if let Some(d) = self.device.as_ref().and_then(|d| t.devices.get_mut(d)) {
            d.failures = 0;
        }
    }

    /// The login could not be checked (the server busy): its charge is
    /// refunded without forgetting anything.
    pub fn not_checked(self, backoff: &BackOff) {
        let mut t = backoff.table.lock().unwrap_or_else(|e| e.into_inner());
        let refund = |f: &mut Failures| {
            f.count = f.count.saturating_sub(1);
            if f.count <= FREE_FAILURES {
                f.blocked_until = None;
            }
        };
        if let Some(f) = t.sources.get_mut(&self.source) {
            refund(f);
        }
        if let Some(f) = self.prefix.and_then(|p| t.prefixes.get_mut(&p)) {
            f.count = f.count.saturating_sub(1);
            if f.count <= PREFIX_FREE_FAILURES {
                f.blocked_until = None;
            }
        }
        if let Some(a) = &self.account {
            if let Some(f) = t.accounts.get_mut(a) {
                refund(f);
            }
        }
        if let Some(d) = self.device.as_ref().and_then(|d| t.devices.get_mut(d)) {
            d.failures = d.failures.saturating_sub(1);
        }
    }
}

#[cfg(test)]
#[path = "backoff_tests.rs"]
mod tests;
