//! A login flood from many addresses against a real `eboard run` (issue
//! 26 §1–§2, the light version of `scripts/probe-logins.py`): 12 loopback
//! source addresses (127.0.0.2…, distinct sources to the daemon) × 8
//! concurrent logins with wrong pass phrases for the arbiter's account,
//! for 4 s. The daemon's memory stays within 64 MB of idle (argon2id checks
//! are one at a time), the account is blocked after 5 + 1 checks
//! however many run at once, and the arbiter — logged in before the
//! attack, from the attacker's own address — keeps working, and logs in
//! again from his device while his account is blocked.

use crate::common;

use common::console::*;
use common::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One HTTP/1.0 request from the loopback address `source`; the status and head.
fn from(
    source: [u8; 4],
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let target: SocketAddr = addr.parse().unwrap();
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    sock.bind(&SocketAddr::from((source, 0)).into()).unwrap();
    sock.connect(&target.into()).unwrap();
    let mut s: TcpStream = sock.into();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let req = http_request(addr, method, path, headers, body);
    if s.write_all(req.as_bytes()).is_err() {
        return (0, String::new());
    }
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let head = text.split("\r\n\r\n").next().unwrap_or("").to_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head)
}

/// The cookie `name=value` pairs a response head sets, joined for a `Cookie` header.
fn cookies(head: &str) -> String {
    head.lines()
        .filter_map(|l| l.strip_prefix("set-cookie: "))
        .filter_map(|c| c.split(';').next())
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn a_login_flood_neither_exhausts_memory_nor_locks_the_arbiter_out() {
    let dir = tempdir("login-flood");
    let accounts = format!(
        "[[arbiter.accounts]]\nname = \"IA Hansen\"\nsecret_hash = \"{}\"\n",
        secret_hash(SECRET)
    );
    let cfg = config(&dir, 1, 1, &accounts);
    let run = run_board(&dir, &cfg, None, &[]);
    let a = run.addr.clone();
    let nat = [127, 0, 0, 2];
    let good = serde_json::json!({"name": "IA Hansen", "secret": SECRET}).to_string();
    // He logs in before the attack, from the address the attacker will share.
    let (s, head) = from(nat, &a, "POST", "/console/login", &[], &good);
    assert_eq!(s, 200, "{head}");
    let jar = cookies(&head);
    assert!(
        jar.contains("eboard_session=") && jar.contains("eboard_device="),
        "{jar}"
    );
    let session = jar
        .split("; ")
        .find(|c| c.starts_with("eboard_session="))
        .unwrap()
        .to_owned();
    let idle = rss_kb(run.child.id());

    let stop = Arc::new(AtomicBool::new(false));
    let answers = Arc::new(Mutex::new(std::collections::BTreeMap::<u16, u32>::new()));
    let bad = serde_json::json!({"name": "IA Hansen", "secret": "a wrong guess"}).to_string();
    let mut threads = Vec::new();
    for source in 2..14u8 {
        for _ in 0..8 {
            let (stop, answers, a, bad) = (stop.clone(), answers.clone(), a.clone(), bad.clone());
            threads.push(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let (s, _) = from([127, 0, 0, source], &a, "POST", "/console/login", &[], &bad);
                    *answers.lock().unwrap().entry(s).or_default() += 1;
                }
            }));
        }
    }
    let started = Instant::now();
    let mut peak = idle;
    let mut served = 0;
    while started.elapsed() < Duration::from_secs(4) {
        peak = peak.max(rss_kb(run.child.id()));
        // His open session is never refused, from the attacker's address.
        let (s, head) = from(nat, &a, "GET", "/console/me", &[("Cookie", &session)], "");
        assert_eq!(s, 200, "his session during the flood: {head}");
        served += 1;
        std::thread::sleep(Duration::from_millis(50));
    }
    // His account is blocked by now; his device lets him log in again.
    let blocked = from(nat, &a, "POST", "/console/login", &[], &good);
    assert_eq!(blocked.0, 429, "without the device cookie: {}", blocked.1);
    let (s, head) = from(
        nat,
        &a,
        "POST",
        "/console/login",
        &[("Cookie", &jar)],
        &good,
    );
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    assert!(s == 200 || s == 429, "{head}");
    if s == 429 {
        // Another login of this source was being checked: once more.
        let (s, head) = from(
            nat,
            &a,
            "POST",
            "/console/login",
            &[("Cookie", &jar)],
            &good,
        );
        assert_eq!(
            s, 200,
            "his device's login while his account is blocked: {head}"
        );
    }
    let answers = answers.lock().unwrap().clone();
    println!(
        "idle {idle} kB, peak {peak} kB, his session served {served} times, logins {answers:?}"
    );
    assert!(peak < idle + 64 * 1024, "RSS {idle} kB → {peak} kB");
    let checked_wrong = answers.get(&401).copied().unwrap_or(0);
    // Charged before the check: the 5 free failures answer 401; the 6th
    // starts the block (429), and so does each check after a block ends.
    assert_eq!(
        checked_wrong, 5,
        "wrong pass phrases answered 401: {answers:?}"
    );
    assert!(answers.get(&429).copied().unwrap_or(0) > 100, "{answers:?}");
    std::fs::remove_dir_all(&dir).ok();
}
