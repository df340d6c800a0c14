//! Tests of [`super`] (access.rs).

use super::*;

fn accounts(ttl: Duration) -> Accounts {
    Accounts::new(
        vec![
            Account {
                name: "IA Hansen".into(),
                role: Role::Arbiter,
                secret: Secret::Hash(hash_secret("correct horse").unwrap()),
            },
            Account {
                name: "Deputy".into(),
                role: Role::Deputy,
                secret: Secret::Token(new_token()),
            },
        ],
        ttl,
        false,
    )
    .unwrap()
}

#[test]
fn one_arbiter_may_have_a_token_and_a_pass_phrase_but_not_two_roles() {
    let token = new_token();
    let both = Accounts::new(
        vec![
            Account {
                name: "IA Hansen".into(),
                role: Role::Arbiter,
                secret: Secret::Token(token.clone()),
            },
            Account {
                name: "IA Hansen".into(),
                role: Role::Arbiter,
                secret: Secret::Hash(hash_secret("correct horse").unwrap()),
            },
        ],
        DEFAULT_SESSION,
        false,
    )
    .unwrap();
    assert!(both.verify("IA Hansen", &token).is_some());
    assert!(both.verify("IA Hansen", "correct horse").is_some());
    assert!(both.verify("IA Hansen", "wrong horse").is_none());
    let e = Accounts::new(
        vec![
            Account {
                name: "IA Hansen".into(),
                role: Role::Arbiter,
                secret: Secret::Token(token),
            },
            Account {
                name: "IA Hansen".into(),
                role: Role::Deputy,
                secret: Secret::Hash(hash_secret("x").unwrap()),
            },
        ],
        DEFAULT_SESSION,
        false,
    )
    .unwrap_err();
    assert!(
        e.starts_with("account 2 (\"IA Hansen\"): the name is also an account of role arbiter"),
        "{e}"
    );
}

#[test]
fn weak_tokens_are_refused_with_the_way_to_a_strong_one() {
    for weak in [
        "right-token",
        "t",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "0123456789abcdef0123456789abcde",
        "a very long pass phrase with spaces",
    ] {
        let e = check_token(weak).unwrap_err();
        assert!(e.contains("openssl rand -base64 32"), "{e}");
        assert!(e.contains("eboard token"), "{e}");
    }
    // Long enough for 128 bits, but patterned (issue 26 §4): a sequence
    // repeated, the alphabet, dictionary words, a keyboard walk.
    for patterned in [
        "0123456789abcdef0123456789abcdef",
        "ABCDEFGHIJKLMNOPQRSTUV",
        "CorrectHorseBatteryStaple1",
        "q1w2E3r4T5y6U7i8O9p0Aa",
        "correcthorsebatterystaplecorrecthorsebatterystaple1",
    ] {
        let e = check_token(patterned).unwrap_err();
        assert!(e.contains("not random"), "{patterned}: {e}");
        assert!(e.contains("eboard token"), "{e}");
        assert!(!e.contains(patterned), "the token is not echoed: {e}");
    }
    // Pass phrases: dictionary words with separators, long enough for
    // zxcvbn's ceiling (issue 41 §4).
    for phrase in [
        "correct-horse-battery-staple-purple-monkey-dishwasher",
        "correct_horse_battery_staple_orange_violin_window_garden",
        "CorrectHorseBatteryStaplePurpleMonkeyDishwasherLamp",
        "tree-7-house-3-river-9-cloud-5-stone-1-apple-8-music",
    ] {
        let e = check_token(phrase)
            .err()
            .unwrap_or_else(|| panic!("{phrase}: taken"));
        assert!(e.contains("pass phrase"), "{phrase}: {e}");
        assert!(e.contains("eboard token"), "{e}");
        assert!(!e.contains(phrase), "the token is not echoed: {e}");
    }
    // Random ones pass: `eboard token`'s, hex and base64 of 128 bits.
    for _ in 0..200 {
        check_token(&new_token()).unwrap();
        let mut b = [0u8; 16];
        rand::rng().fill_bytes(&mut b);
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        check_token(&hex).unwrap();
        let mut b = [0u8; 32];
        rand::rng().fill_bytes(&mut b);
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let b64: String = b
            .iter()
            .map(|x| alphabet[usize::from(x % 64)] as char)
            .collect();
        check_token(&b64).unwrap_or_else(|e| panic!("{b64}: {e}"));
    }
    check_token("d3b07384d113edec49eaa6238ad5ff00").unwrap();
    check_token("2n2kI0zdjtW6thq5lVAICw==").unwrap(); // openssl rand -base64 16
    check_token("n3zI8unl+cSyQO8nPbUSqWIQaEvSxmxpdPC4fDZgIxc=").unwrap();
    let e = Accounts::new(
        vec![Account {
            name: "x".into(),
            role: Role::Arbiter,
            secret: Secret::Token("right-token".into()),
        }],
        DEFAULT_SESSION,
        false,
    )
    .unwrap_err();
    assert!(
        e.starts_with("account 1 (\"x\"): the token is too weak"),
        "{e}"
    );
    let e = Accounts::new(
        vec![Account {
            name: "x".into(),
            role: Role::Arbiter,
            secret: Secret::Hash("plain".into()),
        }],
        DEFAULT_SESSION,
        false,
    )
    .unwrap_err();
    assert!(e.contains("not an argon2 PHC string"), "{e}");
}

#[test]
fn sessions_expire_on_the_injected_clock() {
    let acc = accounts(Duration::from_secs(60));
    let t0 = 1_700_000_000_000u64;
    assert!(acc.verify("IA Hansen", "wrong").is_none());
    assert!(acc.verify("Nobody", "correct horse").is_none());
    let a = acc.verify("IA Hansen", "correct horse").unwrap().clone();
    let id = acc.open_session(&a, t0);
    assert_eq!(id.len(), 64);
    let s = acc.session(&id, t0 + 59_000).unwrap();
    assert_eq!((s.name.as_str(), s.role), ("IA Hansen", Role::Arbiter));
    assert!(acc.session(&id, t0 + 60_000).is_none());
    // Gone for good once seen expired.
    assert!(acc.session(&id, t0).is_none());
    let id = acc.open_session(&a, t0);
    acc.close_session(&id);
    assert!(acc.session(&id, t0).is_none());
}

#[test]
fn sessions_are_kept_hashed_across_a_restart() {
    let dir = std::env::temp_dir().join(format!("eboard-sessions-{}", rand::random::<u32>()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("s.jsonl");
    let t0 = 1_700_000_000_000u64;
    let acc = accounts(Duration::from_secs(60));
    let (f, kept, _) = SessionFile::open(&p).unwrap();
    assert_eq!(acc.keep_sessions(f, kept, t0).unwrap(), 0);
    let a = acc.by_name("IA Hansen").unwrap().clone();
    let stays = acc.open_session(&a, t0);
    let leaves = acc.open_session(&a, t0);
    acc.close_session(&leaves);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(
        !text.contains(&stays),
        "the id itself is never kept: {text}"
    );
    assert!(text.contains(&session_hash(&stays)), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&p).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    // The restart: a new process, the same file.
    let again = accounts(Duration::from_secs(60));
    let (f, kept, _) = SessionFile::open(&p).unwrap();
    assert_eq!(again.keep_sessions(f, kept, t0 + 1000).unwrap(), 1);
    assert_eq!(
        again.session(&stays, t0 + 59_000).unwrap().name,
        "IA Hansen"
    );
    assert!(again.session(&leaves, t0 + 1000).is_none());
    assert!(again.session(&stays, t0 + 60_000).is_none());
    // Expired ones are not taken (and leave the file).
    let late = accounts(Duration::from_secs(60));
    let (f, kept, _) = SessionFile::open(&p).unwrap();
    assert_eq!(late.keep_sessions(f, kept, t0 + 60_000).unwrap(), 0);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failures_back_off_exponentially_per_address() {
    let acc = accounts(DEFAULT_SESSION);
    let ip: IpAddr = "192.0.2.7".parse().unwrap();
    let other: IpAddr = "192.0.2.8".parse().unwrap();
    let t0 = Instant::now();
    for _ in 0..FREE_FAILURES {
        assert_eq!(acc.failed(ip, t0), None);
    }
    assert_eq!(acc.blocked(ip, t0), None);
    assert_eq!(acc.failed(ip, t0), Some(Duration::from_secs(1)));
    assert_eq!(acc.failed(ip, t0), Some(Duration::from_secs(2)));
    assert_eq!(acc.failed(ip, t0), Some(Duration::from_secs(4)));
    assert_eq!(acc.blocked(ip, t0), Some(Duration::from_secs(4)));
    assert_eq!(acc.blocked(ip, t0 + Duration::from_secs(4)), None);
    assert_eq!(acc.blocked(other, t0), None);
    for _ in 0..30 {
        acc.failed(ip, t0);
    }
    assert_eq!(acc.blocked(ip, t0), Some(MAX_BLOCK));
    // A success behind a blocked address does not give free tries again.
    acc.succeeded(ip);
    assert_eq!(acc.blocked(ip, t0), Some(MAX_BLOCK));
    assert_eq!(acc.blocked(ip, t0 + MAX_BLOCK), None);
    // Below the block, a success forgets the count.
    acc.failed(other, t0);
    acc.succeeded(other);
    for _ in 0..FREE_FAILURES {
        assert_eq!(acc.failed(other, t0), None);
    }
}

/// Issue 24.10: someone behind the arbiter's address (a venue's NAT)
/// who fails with other names or tokens blocks the address, not the
/// arbiter's login; guessing at the arbiter's own account blocks that
/// account from every address.
#[test]
fn failed_logins_are_limited_per_account_as_well_as_per_address() {
    let acc = accounts(DEFAULT_SESSION);
    let nat: IpAddr = "192.0.2.7".parse().unwrap();
    let elsewhere: IpAddr = "198.51.100.1".parse().unwrap();
    let t0 = Instant::now();
    for _ in 0..=FREE_FAILURES {
        acc.failed_login(nat, "nobody", t0);
        acc.failed(nat, t0); // a wrong bearer token
    }
    assert!(acc.blocked(nat, t0).is_some(), "the address is blocked");
    assert!(acc.login_blocked(nat, "nobody", t0).is_some());
    assert_eq!(
        acc.login_blocked(nat, "IA Hansen", t0),
        None,
        "the arbiter's login from the same address is not held back"
    );
    // A wrong pass phrase for his account counts for the account.
    for _ in 0..FREE_FAILURES {
        assert_eq!(acc.failed_login(nat, "IA Hansen", t0), None);
    }
    assert_eq!(
        acc.failed_login(nat, "IA Hansen", t0),
        Some(Duration::from_secs(1))
    );
    assert!(acc.login_blocked(elsewhere, "IA Hansen", t0).is_some());
    assert_eq!(acc.login_blocked(elsewhere, "Deputy", t0), None);
    assert_eq!(acc.login_blocked(elsewhere, "nobody", t0), None);
    // A relay's account cannot log in: its name is counted as no account's.
    assert_eq!(acc.login_blocked(nat, "Relay", t0), acc.blocked(nat, t0));
    // His success (once the block is over) does not reset an account under attack.
    acc.succeeded_login(nat, "IA Hansen");
    assert_eq!(
        acc.failed_login(nat, "IA Hansen", t0 + Duration::from_secs(1)),
        Some(Duration::from_secs(2))
    );
}

#[test]
fn tokens_name_their_account() {
    let t = new_token();
    let acc = Accounts::new(
        vec![Account {
            name: "Relay".into(),
            role: Role::Relay,
            secret: Secret::Token(t.clone()),
        }],
        DEFAULT_SESSION,
        false,
    )
    .unwrap();
    assert_eq!(acc.by_token(&t).unwrap().role, Role::Relay);
    assert!(acc.by_token("").is_none());
    assert!(acc.by_token(&new_token()).is_none());
    assert_eq!(Role::Deputy.as_str().parse::<Role>(), Ok(Role::Deputy));
    assert!("chief"
        .parse::<Role>()
        .unwrap_err()
        .contains("arbiter, deputy, relay"));
}
