//! Tests of [`super::BackOff`]: sources (hosts, IPv6 /64s), accounts,
//! logins in flight, known devices.

use super::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// A venue's Wi-Fi is one /64 (issue 41 §1): one host guessing there
/// blocks itself, not its neighbours; an attacker taking a fresh /128 of
/// his /64 for every guess gets PREFIX_FREE_FAILURES in all, then the /64
/// is blocked.
#[test]
fn an_ipv6_host_is_a_source_and_its_64_a_bounded_one() {
    let b = BackOff::default();
    let t0 = Instant::now();
    let guesser = ip("2001:db8:7:9::66");
    for _ in 0..FREE_FAILURES {
        assert_eq!(b.failed(guesser, t0), None);
    }
    assert!(b.failed(guesser, t0).is_some());
    assert!(b.blocked(guesser, t0).is_some());
    assert_eq!(b.blocked(ip("2001:db8:7:9::67"), t0), None, "his neighbour");
    // 1,495 guesses from one /64, each from its own address (issue 26).
    let blocks = (0..1495u32)
        .filter_map(|i| b.failed(ip(&format!("2001:db8:7:9:1::{:x}", i + 1)), t0))
        .count();
    assert_eq!(
        blocks,
        1495 - (PREFIX_FREE_FAILURES - FREE_FAILURES - 1) as usize
    );
    assert_eq!(b.blocked(ip("2001:db8:7:9:ffff::1"), t0), Some(MAX_BLOCK));
    assert_eq!(b.blocked(ip("2001:db8:7:a::1"), t0), None, "the next /64");
    b.failed(ip("::ffff:192.0.2.1"), t0);
    b.failed(ip("192.0.2.1"), t0);
    assert_eq!(host_key(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
    assert_eq!(prefix_key(ip("::ffff:192.0.2.1")), None);
    assert_eq!(source_key(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
    assert_eq!(
        prefix_key(ip("2001:db8:7:9::66")),
        Some(ip("2001:db8:7:9::"))
    );
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
        b.begin_login(nat, None, None, t0).unwrap_err(),
        NotNow::InFlight,
        "the same host"
    );
    // Its neighbours on the /64 (issue 41 §1), up to PREFIX_IN_FLIGHT.
    let neighbours: Vec<_> = (1..PREFIX_IN_FLIGHT)
        .map(|i| {
            b.begin_login(ip(&format!("2001:db8:1:2::6:{i}")), None, None, t0)
                .unwrap()
        })
        .collect();
    assert_eq!(
        b.begin_login(ip("2001:db8:1:2::7"), None, None, t0)
            .unwrap_err(),
        NotNow::InFlight,
        "PREFIX_IN_FLIGHT from one /64"
    );
    assert!(b.begin_login(ip("2001:db8:1:3::6"), None, None, t0).is_ok());
    drop(neighbours);
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
