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

/// Whether `s` was told to close (to admit another).
fn told(s: &Arc<Slot>) -> bool {
    let f = s.evicted();
    futures_util::pin_mut!(f);
    futures_util::FutureExt::now_or_never(f).is_some()
}

#[test]
fn one_address_gets_its_share_and_no_more() {
    let a = Admission::new(limits(100, 3, 10));
    let x: IpAddr = "192.168.1.7".parse().unwrap();
    let y: IpAddr = "192.168.1.8".parse().unwrap();
    let held: Vec<_> = (0..3).map(|_| a.admit(x).unwrap()).collect();
    // A fourth closes the address's own oldest idle one (the arbiter
    // behind a NAT at its limit still gets in, issue 41 §1)…
    let fourth = a.admit(x).expect("its own oldest idle one makes room");
    assert!(told(&held[0]) && !told(&held[1]) && !told(&held[2]));
    assert_eq!(a.open().0, 3, "still its share");
    // …and when all of its own are busy it is refused.
    let busy: Vec<_> = held[1..]
        .iter()
        .chain([&fourth])
        .map(|s| s.busy())
        .collect();
    assert!(a.admit(x).is_none(), "a fifth while its three are busy");
    assert!(a.admit(y).is_some(), "another address is still let in");
    drop(busy);
    drop(held);
    assert!(a.admit(x).is_some(), "slots come back when closed");
}

/// A venue's Wi-Fi is one /64 (issue 41 §1): its hosts are counted one by
/// one (/128), the /64 as a whole against `per_prefix`.
#[test]
fn ipv6_hosts_count_by_their_128_and_the_64_has_a_budget() {
    let mut l = limits(100, 2, 10);
    l.per_prefix = 3;
    let a = Admission::new(l);
    let p1: IpAddr = "2001:db8:1:2::1".parse().unwrap();
    let p2: IpAddr = "2001:db8:1:2:aaaa::9".parse().unwrap();
    let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
    let h1 = (a.admit(p1).unwrap(), a.admit(p1).unwrap());
    let h2 = a
        .admit(p2)
        .expect("a neighbour on the /64 of a host at its limit");
    // The /64's budget: its oldest idle connection is closed for a fourth.
    let h3 = a.admit(p2).expect("the /64's oldest idle one makes room");
    assert!(told(&h1.0) && !told(&h1.1) && !told(&h2));
    let busy = (h1.1.busy(), h2.busy(), h3.busy());
    assert!(a.admit(p2).is_none(), "the /64's budget, all busy");
    assert!(a.admit(other).is_some(), "another /64");
    drop(busy);
    let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
    let v4: IpAddr = "10.0.0.1".parse().unwrap();
    let m = (a.admit(mapped).unwrap(), a.admit(v4).unwrap());
    let _busy = (m.0.busy(), m.1.busy());
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
    let _stream = held[1].begin_stream(false).unwrap();
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
    let t0 = slots[0].begin_stream(true).unwrap();
    let _t1 = slots[1].begin_stream(true).unwrap();
    assert_eq!(
        slots[2].begin_stream(true).unwrap_err(),
        StreamRefusal::PerAddress(2)
    );
    let _t3 = slots[3].begin_stream(true).unwrap();
    let _t4 = slots[4].begin_stream(true).unwrap();
    let _t6 = slots[6].begin_stream(true).unwrap();
    assert_eq!(
        slots[7].begin_stream(true).unwrap_err(),
        StreamRefusal::Full(5)
    );
    drop(t0);
    let t7 = slots[7].begin_stream(true);
    assert!(t7.is_ok(), "a closed stream frees its place");
    // Every stream proven: even an unproven newcomer is refused, no
    // reader is closed for it.
    assert_eq!(
        slots[2].begin_stream(false).unwrap_err(),
        StreamRefusal::Full(5)
    );
    assert!(StreamRefusal::Full(5).to_string().contains("/games.pgn"));
}

#[test]
fn without_a_per_address_limit_streams_have_none_either() {
    let mut l = limits(100, 0, 3);
    l.streams_per_address = 1;
    let a = Admission::new(l);
    let s = a.admit(ip(1)).unwrap();
    let _t: Vec<_> = (0..3).map(|_| s.begin_stream(false).unwrap()).collect();
}

/// Whether `t` was told to close (its stored permit resolves at once).
fn told_to_close(t: &StreamTicket) -> bool {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        tokio::time::timeout(Duration::from_millis(1), t.closed())
            .await
            .is_ok()
    })
}

#[test]
fn a_full_stream_cap_closes_an_unproven_stream_of_the_busiest_source_first() {
    let mut l = limits(100, 0, 3);
    l.max_streams = 4;
    let a = Admission::new(l);
    let (spectator, attacker, reader) = (ip(1), ip(2), ip(3));
    let s = |k| a.admit(k).unwrap();
    let (ss, sa, sr) = (s(spectator), s(attacker), s(reader));
    let watching = ss.begin_stream(false).unwrap(); // the oldest
    let a1 = sa.begin_stream(false).unwrap();
    let a2 = sa.begin_stream(false).unwrap();
    let proven = sr.begin_stream(true).unwrap();
    assert!(proven.proven() && !watching.proven());
    // Full. The attacker's source holds the most unproven streams: his
    // own newcomer closes nothing (no source holds 2 more than his).
    assert_eq!(sa.begin_stream(false).unwrap_err(), StreamRefusal::Full(4));
    assert!(!told_to_close(&a1) && !told_to_close(&watching));
    // A proven newcomer is let in: the attacker's oldest goes (his source
    // holds the most), not the spectator's older stream, never the proven.
    let back = sr
        .begin_stream(true)
        .expect("an unproven stream makes room");
    assert!(told_to_close(&a1));
    assert!(!told_to_close(&watching) && !told_to_close(&proven));
    assert_eq!(a.open().2, 4);
    drop(a1); // its task ends: nothing counted twice
    assert_eq!(a.open().2, 4);
    // One unproven each now: a newcomer from a source holding none (a
    // fresh spectator) still gets in, closing the oldest of them.
    let fresh = a.admit(ip(4)).unwrap();
    let f1 = fresh.begin_stream(false).unwrap();
    assert!(told_to_close(&watching));
    drop(watching);
    // A WebSocket client that echoed a ping is proven: it is never closed.
    a2.prove();
    let next = ss.begin_stream(false).unwrap();
    assert!(told_to_close(&f1), "the only unproven stream");
    next.prove();
    drop(f1);
    assert_eq!(
        ss.begin_stream(false).unwrap_err(),
        StreamRefusal::Full(4),
        "every stream proven: refused"
    );
    drop((proven, a2, back, next));
    assert_eq!(a.open().2, 0);
}

#[test]
fn sources_holding_about_as_many_streams_do_not_close_each_others() {
    // The churn of issue 26: attackers' sources at the cap closed each
    // other's streams thousands of times a second. With the margin, a
    // newcomer closes another source's stream only when that source holds
    // 2 more unproven streams than its own, or its own holds none.
    let mut l = limits(100, 0, 3);
    l.max_streams = 6;
    let a = Admission::new(l);
    let (x, y) = (a.admit(ip(1)).unwrap(), a.admit(ip(2)).unwrap());
    let xs: Vec<_> = (0..4).map(|_| x.begin_stream(false).unwrap()).collect();
    let ys: Vec<_> = (0..2).map(|_| y.begin_stream(false).unwrap()).collect();
    // y holds 2, x 4 = 2 + 2: y's newcomer closes x's oldest.
    let y3 = y.begin_stream(false).expect("x holds 2 more");
    assert!(told_to_close(&xs[0]));
    // 3 and 3 now (x's closed stream's task has not ended yet: it no
    // longer counts): neither closes the other's.
    assert_eq!(x.begin_stream(false).unwrap_err(), StreamRefusal::Full(6));
    assert_eq!(y.begin_stream(false).unwrap_err(), StreamRefusal::Full(6));
    assert!(!xs[1..].iter().chain(&ys).any(told_to_close));
    // A spectator from a fresh address gets in, and his second stream too
    // (y holds 3 = 1 + 2), but not a third (each source then holds 2).
    let sp = a.admit(ip(9)).unwrap();
    let s1 = sp
        .begin_stream(false)
        .expect("a fresh source always gets in");
    assert!(
        told_to_close(&xs[1]),
        "the oldest of the busiest (x: 3 against y: 3)"
    );
    let s2 = sp.begin_stream(false).expect("y holds 3 = 1 + 2");
    assert!(told_to_close(&ys[0]));
    assert_eq!(sp.begin_stream(false).unwrap_err(), StreamRefusal::Full(6));
    drop((xs, ys, y3, s1, s2));
    assert_eq!(a.open().2, 0);
}

#[test]
fn over_its_limit_a_connection_is_on_probation_for_the_arbiters_credentials() {
    // 2 per address, 3 reserved.
    let a = Admission::new(limits(10, 2, 3));
    let held: Vec<_> = (0..2).map(|_| a.admit(ip(1)).unwrap()).collect();
    let busy: Vec<_> = held.iter().map(|s| s.busy()).collect();
    // Both busy: refused as public, let in on probation.
    assert!(a.admit(ip(1)).is_none());
    let arbiter = a.admit_probation(ip(1)).unwrap();
    assert!(arbiter.on_probation() && !arbiter.in_reserve());
    let spectator = a.admit_probation(ip(1)).unwrap();
    let third = a.admit_probation(ip(1)).unwrap();
    // The reserve's three free places are taken: a fourth closes the
    // oldest idle one on probation (the arbiter's, not yet busy).
    let _request = arbiter.busy();
    let fourth = a.admit_probation(ip(1)).unwrap();
    {
        let f = spectator.evicted();
        futures_util::pin_mut!(f);
        assert!(futures_util::FutureExt::now_or_never(f).is_some());
    }
    // Credentials: into the reserve, whatever the address holds.
    arbiter.credentials_shown();
    assert!(arbiter.in_reserve() && !arbiter.on_probation());
    assert_eq!(a.open(), (2, 1, 0));
    drop((spectator, third, fourth, busy, held, _request, arbiter));
    assert_eq!(a.open(), (0, 0, 0));
    // No reserve, no probation.
    let none = Admission::new(limits(10, 2, 0));
    assert!(none.admit_probation(ip(1)).is_none());
}
