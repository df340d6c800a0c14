//! Tests of [`super::Admission`]: shares per source, the oldest idle
//! connection closed for a new one, the reserve entered only with
//! credentials, the stream caps.

use super::*;

fn limits(max: usize, per: usize, reserved: usize) -> Limits {
    Limits {
        max_connections: max,
        per_address: per,
        reserved,
        ..Limits::default()
    }
}

fn ip(i: u8) -> IpAddr {
    IpAddr::from([10, 0, 0, i])
}

#[test]
fn one_address_gets_its_share_and_no_more() {
    let a = Admission::new(limits(100, 3, 10));
    let x: IpAddr = "192.168.1.7".parse().unwrap();
    let y: IpAddr = "192.168.1.8".parse().unwrap();
    let held: Vec<_> = (0..3).map(|_| a.admit(x).unwrap()).collect();
    assert!(a.admit(x).is_none(), "a fourth from one address");
    assert!(a.admit(y).is_some(), "another address is still let in");
    drop(held);
    assert!(a.admit(x).is_some(), "slots come back when closed");
}

#[test]
fn ipv6_hosts_count_by_their_64_prefix() {
    let a = Admission::new(limits(100, 2, 10));
    let p1: IpAddr = "2001:db8:1:2::1".parse().unwrap();
    let p2: IpAddr = "2001:db8:1:2:aaaa::9".parse().unwrap();
    let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
    let _h = (a.admit(p1).unwrap(), a.admit(p2).unwrap());
    assert!(a.admit(p1).is_none());
    assert!(a.admit(other).is_some());
    let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
    let v4: IpAddr = "10.0.0.1".parse().unwrap();
    let _m = (a.admit(mapped).unwrap(), a.admit(v4).unwrap());
    assert!(
        a.admit(v4).is_none(),
        "IPv4-mapped counts as the IPv4 address"
    );
}

#[test]
fn a_full_house_closes_its_oldest_idle_connection_for_a_new_one() {
    let a = Admission::new(limits(10, 0, 3));
    // 7 public slots: the first two busy (a request, a stream), the rest idle.
    let held: Vec<_> = (0..7).map(|i| a.admit(ip(i)).unwrap()).collect();
    let _request = held[0].busy();
    let _stream = held[1].begin_stream().unwrap();
    let newcomer = a.admit(ip(100)).expect("an idle one makes room");
    assert_eq!(a.open().0, 7, "still 7 public slots counted");
    // The oldest idle one (the third) was told to close; the busy ones not.
    let told = |s: &Arc<Slot>| {
        let f = s.evicted();
        futures_util::pin_mut!(f);
        futures_util::FutureExt::now_or_never(f).is_some()
    };
    assert!(!told(&held[0]) && !told(&held[1]));
    assert!(told(&held[2]), "the oldest idle connection is closed");
    assert!(!told(&held[3]) && !told(&newcomer));
    // Its handle dropping later changes no count twice.
    let mut held = held;
    held.remove(2);
    assert_eq!(a.open().0, 7);
    // Only busy ones left: refused.
    let busy: Vec<_> = held.iter().map(|s| s.busy()).collect();
    let _n = newcomer.busy();
    assert!(a.admit(ip(101)).is_none(), "every public slot busy");
    drop((busy, _n, _request, _stream));
    drop(held);
    drop(newcomer);
    assert_eq!(a.open(), (0, 0, 0));
}

#[test]
fn the_reserve_is_entered_with_credentials_only_and_never_closed() {
    let a = Admission::new(limits(10, 0, 3));
    let arbiter = a.admit(ip(1)).unwrap();
    let crowd: Vec<_> = (2..8).map(|i| a.admit(ip(i)).unwrap()).collect();
    assert!(!arbiter.in_reserve(), "admitted as public");
    arbiter.credentials_shown();
    assert!(arbiter.in_reserve());
    assert_eq!(a.open(), (6, 1, 0), "its public slot freed");
    let one_more = a.admit(ip(9)).unwrap();
    assert_eq!(a.open(), (7, 1, 0));
    // Full: the newcomers take idle public slots, never the arbiter's.
    let later: Vec<_> = (10..30).map(|i| a.admit(ip(i)).unwrap()).collect();
    {
        let f = arbiter.evicted();
        futures_util::pin_mut!(f);
        assert!(futures_util::FutureExt::now_or_never(f).is_none());
    }
    assert_eq!(a.open(), (7, 1, 0));
    // The reserve holds at most `reserved`; past it a connection stays
    // public. (The newest three: the older ones of `later` were closed to
    // admit the newer.)
    let others: Vec<_> = later.iter().rev().take(3).collect();
    for s in &others {
        s.credentials_shown();
    }
    assert_eq!(a.open(), (5, 3, 0));
    assert!(!others[2].in_reserve());
    drop((crowd, one_more, later, arbiter));
    assert_eq!(a.open(), (0, 0, 0));
}

#[test]
fn streams_have_their_own_caps() {
    let mut l = limits(100, 10, 3);
    l.max_streams = 5;
    l.streams_per_address = 2;
    let a = Admission::new(l);
    let slots: Vec<_> = (0..8).map(|i| a.admit(ip(i / 3)).unwrap()).collect();
    let t0 = slots[0].begin_stream().unwrap();
    let _t1 = slots[1].begin_stream().unwrap();
    assert_eq!(
        slots[2].begin_stream().unwrap_err(),
        StreamRefusal::PerAddress(2)
    );
    let _t3 = slots[3].begin_stream().unwrap();
    let _t4 = slots[4].begin_stream().unwrap();
    let _t6 = slots[6].begin_stream().unwrap();
    assert_eq!(slots[7].begin_stream().unwrap_err(), StreamRefusal::Full(5));
    drop(t0);
    assert!(
        slots[7].begin_stream().is_ok(),
        "a closed stream frees its place"
    );
    assert!(StreamRefusal::Full(5).to_string().contains("/games.pgn"));
}

#[test]
fn without_a_per_address_limit_streams_have_none_either() {
    let mut l = limits(100, 0, 3);
    l.streams_per_address = 1;
    let a = Admission::new(l);
    let s = a.admit(ip(1)).unwrap();
    let _t: Vec<_> = (0..3).map(|_| s.begin_stream().unwrap()).collect();
}
