//! The failed-authentication back-off and the login admission (issue 26
//! §1–§2; `docs/console.md`, "Security model").
//!
//! - **Who is counted.** A *source*: an IPv4 address or an IPv6 /64 (one
//!   host's privacy addresses, or one customer's prefix, count once —
//!   the same key as the listener's per-address connection limit,
//!   [`source_key`]); and, for a login naming an account, that *account*.
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
//! - **One login in flight per source**: a second one while the first is
//!   checked gets 429 (`Retry-After: 1`).
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
/// The most sources whose failures are remembered (the oldest evicted first).
pub const MAX_TRACKED: usize = 4096;

/// The key a client address is counted under: the IPv4 address, or the /64
/// of an IPv6 address (IPv4-mapped addresses count as IPv4).
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
        self.count = self.count.saturating_add(1);
        self.last = now;
        if self.count <= FREE_FAILURES {
            return None;
        }
        let doubling = (self.count - FREE_FAILURES - 1).min(16);
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
    accounts: HashMap<String, Failures>,
    /// SHA-256 of the device cookie's value → the device.
    devices: HashMap<String, Device>,
}

impl Table {
    /// The entry of `source`, made (evicting the oldest when full).
    fn source(&mut self, source: IpAddr, now: Instant) -> &mut Failures {
        if !self.sources.contains_key(&source) && self.sources.len() >= MAX_TRACKED {
            if let Some(oldest) = self
                .sources
                .iter()
                .min_by_key(|(_, f)| f.last)
                .map(|(k, _)| *k)
            {
                self.sources.remove(&oldest);
            }
        }
        self.sources
            .entry(source)
            .or_insert_with(|| Failures::new(now))
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
    in_flight: Arc<Mutex<HashSet<IpAddr>>>,
}

/// Why a login may not start now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotNow {
    /// Blocked for this long (the account's block, or the source's for a
    /// name of no account).
    Blocked(Duration),
    /// Another login from the same source is being checked.
    InFlight,
}

/// A login under way: charged as a failure ([`BackOff::begin_login`]);
/// [`LoginAttempt::succeeded`] refunds it. Dropped unresolved (a timeout,
/// the client gone), the charge stays. Holds the source's one login slot.
#[derive(Debug)]
pub struct LoginAttempt {
    in_flight: Arc<Mutex<HashSet<IpAddr>>>,
    source: IpAddr,
    account: Option<String>,
    /// The known device it came from (its cookie's SHA-256), charged
    /// instead of the account.
    device: Option<String>,
    /// The block this attempt's charge started, if any: what a failure answers.
    pub block: Option<Duration>,
}

impl Drop for LoginAttempt {
    fn drop(&mut self) {
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.source);
    }
}

impl BackOff {
    /// How long `ip`'s source is still blocked at `now`, if it is.
    pub fn blocked(&self, ip: IpAddr, now: Instant) -> Option<Duration> {
        let t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        t.sources.get(&source_key(ip)).and_then(|f| f.blocked(now))
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
        t.source(source_key(ip), now).charge(now, MAX_BLOCK)
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
        let source = source_key(ip);
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
            None => t.sources.get(&source).and_then(|f| f.blocked(now)),
        };
        if let Some(wait) = blocked {
            return Err(NotNow::Blocked(wait));
        }
        if !self
            .in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(source)
        {
            return Err(NotNow::InFlight);
        }
        let by_source = t.source(source, now).charge(now, MAX_BLOCK);
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
        let key = source_key(ip);
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
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_ipv6_64_is_one_source() {
        let b = BackOff::default();
        let t0 = Instant::now();
        // 1,495 guesses from one /64, each from its own address (issue 26).
        let blocks = (0..1495u32)
            .filter_map(|i| b.failed(ip(&format!("2001:db8:7:9::{:x}", i + 1)), t0))
            .count();
        assert_eq!(blocks, 1495 - FREE_FAILURES as usize);
        assert_eq!(b.blocked(ip("2001:db8:7:9:ffff::1"), t0), Some(MAX_BLOCK));
        assert_eq!(b.blocked(ip("2001:db8:7:a::1"), t0), None, "the next /64");
        b.failed(ip("::ffff:192.0.2.1"), t0);
        assert_eq!(b.tracked_sources(), 2, "IPv4-mapped counts as IPv4");
        assert_eq!(source_key(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
    }

    #[test]
    fn a_full_table_evicts_the_oldest_source_never_the_blocked_newcomers() {
        let b = BackOff::default();
        let t0 = Instant::now();
        let guesser = ip("198.51.100.9");
        for _ in 0..=FREE_FAILURES + 3 {
            b.failed(guesser, t0 + Duration::from_secs(1000));
        }
        assert!(b.blocked(guesser, t0 + Duration::from_secs(1000)).is_some());
        // Many more sources than the table holds, each older than the guesser's last failure.
        for i in 0..(MAX_TRACKED as u32 + 500) {
            let a = IpAddr::from((0x0a00_0000u32 + i).to_be_bytes());
            b.failed(a, t0 + Duration::from_millis(u64::from(i) / 8));
        }
        assert_eq!(b.tracked_sources(), MAX_TRACKED, "bounded, not wiped");
        assert!(
            b.blocked(guesser, t0 + Duration::from_secs(1000)).is_some(),
            "the most recent guesser is kept"
        );
        // The first sources (oldest) went; the last are kept.
        let last = IpAddr::from((0x0a00_0000u32 + MAX_TRACKED as u32 + 499).to_be_bytes());
        let first = IpAddr::from(0x0a00_0000u32.to_be_bytes());
        let t = t0 + Duration::from_secs(2000);
        for _ in 0..FREE_FAILURES {
            b.failed(last, t);
        }
        assert!(b.failed(last, t).is_some(), "its count was kept");
        for _ in 0..FREE_FAILURES {
            assert_eq!(b.failed(first, t), None, "its count was evicted");
        }
    }

    #[test]
    fn concurrent_logins_are_charged_before_the_check() {
        let b = BackOff::default();
        let t0 = Instant::now();
        // 32 logins at once from 32 addresses at one account: the charge
        // happens at the start, so only FREE_FAILURES + 1 may be checked.
        let mut started = Vec::new();
        let mut refused = 0;
        for i in 0..32u8 {
            match b.begin_login(IpAddr::from([192, 0, 2, i]), Some("IA Hansen"), None, t0) {
                Ok(a) => started.push(a),
                Err(NotNow::Blocked(_)) => refused += 1,
                Err(NotNow::InFlight) => panic!("distinct sources"),
            }
        }
        assert_eq!(started.len(), FREE_FAILURES as usize + 1);
        assert_eq!(refused, 32 - started.len());
        assert_eq!(started.last().unwrap().block, Some(Duration::from_secs(1)));
        // They all time out (dropped unresolved): still counted.
        drop(started);
        let t1 = t0 + Duration::from_secs(1);
        let a = b
            .begin_login(ip("192.0.2.200"), Some("IA Hansen"), None, t1)
            .unwrap();
        assert_eq!(a.block, Some(Duration::from_secs(2)), "the 7th failure");
    }

    #[test]
    fn one_login_in_flight_per_source_and_a_success_is_refunded() {
        let b = BackOff::default();
        let t0 = Instant::now();
        let nat = ip("2001:db8:1:2::5");
        let a = b.begin_login(nat, Some("IA Hansen"), None, t0).unwrap();
        assert_eq!(
            b.begin_login(ip("2001:db8:1:2::6"), None, None, t0)
                .unwrap_err(),
            NotNow::InFlight,
            "the same /64"
        );
        assert!(b.begin_login(ip("2001:db8:1:3::6"), None, None, t0).is_ok());
        a.succeeded(&b);
        // Refunded: five free failures again for the account.
        for _ in 0..FREE_FAILURES {
            let x = b.begin_login(nat, Some("IA Hansen"), None, t0).unwrap();
            assert_eq!(x.block, None);
        }
        let x = b.begin_login(nat, Some("IA Hansen"), None, t0).unwrap();
        assert_eq!(x.block, Some(Duration::from_secs(1)));
        drop(x);
        // The account's block is bounded.
        for k in 0..40u64 {
            let t = t0 + Duration::from_secs(1000 * (k + 1));
            drop(b.begin_login(nat, Some("IA Hansen"), None, t).unwrap());
        }
        let t = t0 + Duration::from_secs(41_000);
        assert_eq!(b.account_blocked("IA Hansen", t), None);
        let x = b.begin_login(nat, Some("IA Hansen"), None, t).unwrap();
        assert_eq!(x.block, Some(ACCOUNT_MAX_BLOCK));
        // A login not checked (busy) is refunded.
        x.not_checked(&b);
        assert!(b.account_blocked("IA Hansen", t).is_some());
    }

    /// The arbiter's device (he logged in from it before) is let in while
    /// someone behind his address keeps his account blocked; a stolen
    /// device cookie gets FREE_FAILURES guesses and is then forgotten.
    #[test]
    fn a_known_device_is_not_held_back_by_its_accounts_block() {
        let b = BackOff::default();
        let t0 = Instant::now();
        let nat = ip("192.0.2.7");
        b.remember_device("phone", "IA Hansen", t0);
        for _ in 0..=FREE_FAILURES + 4 {
            drop(b.begin_login(nat, Some("IA Hansen"), None, t0));
        }
        assert!(b.account_blocked("IA Hansen", t0).is_some());
        assert!(matches!(
            b.begin_login(nat, Some("IA Hansen"), None, t0),
            Err(NotNow::Blocked(_))
        ));
        assert!(matches!(
            b.begin_login(nat, Some("IA Hansen"), Some("someone's"), t0),
            Err(NotNow::Blocked(_))
        ));
        assert!(
            matches!(
                b.begin_login(nat, Some("Deputy"), Some("phone"), t0),
                Ok(LoginAttempt { block: None, .. })
            ),
            "another account's: counted as without a device"
        );
        let his = b
            .begin_login(nat, Some("IA Hansen"), Some("phone"), t0)
            .unwrap();
        assert_eq!(his.block, None);
        his.succeeded(&b);
        assert!(
            b.account_blocked("IA Hansen", t0).is_some(),
            "the guesser stays blocked"
        );
        // Guessing with the device cookie: five tries, then it is forgotten.
        for _ in 0..FREE_FAILURES {
            drop(
                b.begin_login(nat, Some("IA Hansen"), Some("phone"), t0)
                    .unwrap(),
            );
        }
        assert!(!b.is_known_device("phone", "IA Hansen"));
        assert!(matches!(
            b.begin_login(nat, Some("IA Hansen"), Some("phone"), t0),
            Err(NotNow::Blocked(_))
        ));
    }
}
