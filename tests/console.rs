//! The arbiter's console without a browser (issue 15): accounts, login,
//! session expiry, a deputy's refusal, the failed-login back-off and weak
//! tokens refused at start, on a board daemon; result confirmation,
//! correction and forfeits in the PGN (read by python-chess) and the JSON
//! feeds; the HTTP relay merging the boards' arbiter channels and
//! forwarding rulings with the arbiter's name.

use crate::common;

use common::pgn_tag as tag;

use common::console::*;
use common::round::Table;
use common::*;
use serde_json::{json, Value};
use std::path::Path;

const DEPUTY_TOKEN: &str = "d3b07384d113edec49eaa6238ad5ff00";

/// `[arbiter]` keys and accounts after the config's name and token.
fn accounts(extra: &str) -> String {
    format!(
        "{extra}\n[[arbiter.accounts]]\nname = \"IA Hansen\"\nsecret_hash = \"{}\"\n\n\
         [[arbiter.accounts]]\nname = \"Deputy Dam\"\nrole = \"deputy\"\ntoken = \"{DEPUTY_TOKEN}\"\n\n\
         [[arbiter.accounts]]\nname = \"Hall relay\"\nrole = \"relay\"\ntoken = \"{RELAY_TOKEN}\"\n",
        secret_hash(SECRET)
    )
}

/// Logs in; returns the `Cookie` header value (the cookie's attributes
/// checked: HttpOnly, SameSite=Strict, not Secure over plain HTTP).
fn login(addr: &str, name: &str, secret: &str) -> String {
    let cookie = login_set_cookie(addr, name, secret);
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    cookie.split(';').next().unwrap().to_owned()
}

#[test]
fn accounts_sessions_deputies_and_the_back_off() {
    let dir = tempdir("console-access");
    let cfg = config(&dir, 1, 1, &accounts("session_s = 2"));
    let journal = dir.join("j.jsonl");
    let run = run_board(&dir, &cfg, None, &["--journal", journal.to_str().unwrap()]);
    let a = run.addr.as_str();

    // The page itself is public and sends no CORS header.
    let (status, head, page) = http(a, "GET", "/console", &[], "");
    assert_eq!(status, 200);
    assert!(page.contains("<label for=\"secret\""), "{page}");
    assert!(!head.to_lowercase().contains("access-control-allow-origin"));

    let cookie = login(a, "IA Hansen", SECRET);
    let me = [("Cookie", cookie.as_str())];
    let (s, _, b) = http(a, "GET", "/console/me", &me, "");
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(
        (v["name"].as_str(), v["role"].as_str()),
        (Some("IA Hansen"), Some("arbiter"))
    );
    // The zone the page writes its times in (issue 40 §9): without
    // `[event] time_zone`, the machine's.
    assert!(
        v["time_zone_name"].is_string() && v["utc_offset_min"].is_i64(),
        "{v}"
    );
    // No CORS on the arbiter's side.
    let (_, head, _) = http(a, "GET", "/arbiter/state", &me, "");
    assert!(
        !head.to_lowercase().contains("access-control-allow-origin"),
        "{head}"
    );

    // One ruling, sent twice with the same id: applied once, by his name.
    let cmd = json!({"board": "1.1", "action": "pause", "body": null, "expect": {"ply": 0}, "id": "cmd-1"}).to_string();
    let (s, _, b) = http(a, "POST", "/arbiter/command", &me, &cmd);
    assert_eq!(s, 200, "{b}");
    let first: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(first["author"], "IA Hansen");
    assert_eq!(first["id"], "cmd-1");
    let (s, _, b) = http(a, "POST", "/arbiter/command", &me, &cmd);
    assert_eq!(s, 200, "{b}");
    let again: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(again["repeated"], true);
    assert_eq!(again["t"], first["t"]);
    let pauses: Vec<Value> = journal_records(&journal)
        .into_iter()
        .filter(|r| r["arbiter"] == "pause")
        .collect();
    assert_eq!(pauses.len(), 1, "{pauses:?}");
    assert_eq!(pauses[0]["author"], "IA Hansen");
    // The wrong board is refused, naming the key.
    let other = json!({"board": "1.7", "action": "resume", "expect": {"ply": 0}, "id": "cmd-2"})
        .to_string();
    let (s, _, b) = http(a, "POST", "/arbiter/command", &me, &other);
    assert_eq!(s, 409, "{b}");
    assert!(b.contains("key 'board'"), "{b}");

    // A deputy sees everything and rules nothing (403, logged).
    let deputy = format!("Bearer {DEPUTY_TOKEN}");
    let dep = [("Authorization", deputy.as_str())];
    assert_eq!(http(a, "GET", "/arbiter/state", &dep, "").0, 200);
    assert_eq!(http(a, "GET", "/console/alerts", &dep, "").0, 200);
    assert_eq!(http(a, "POST", "/arbiter/resume", &dep, "").0, 403);
    let c3 = json!({"action": "resume", "expect": {"ply": 0}, "id": "cmd-3"}).to_string();
    let (s, _, b) = http(a, "POST", "/arbiter/command", &dep, &c3);
    assert_eq!(s, 403, "{b}");
    assert!(b.contains("deputy"), "{b}");
    // A relay's token rules only on behalf of a named arbiter.
    let relay = format!("Bearer {RELAY_TOKEN}");
    let rel = [("Authorization", relay.as_str())];
    assert_eq!(http(a, "POST", "/arbiter/resume", &rel, "").0, 403);
    let (s, _, b) = http(a, "POST", "/arbiter/command", &rel, &c3);
    assert_eq!(s, 422, "{b}");
    let stderr = std::fs::read_to_string(&run.stderr).unwrap();
    assert!(stderr.contains("a deputy tried to rule"), "{stderr}");

    // The session expires (2 s here).
    poll(15, "the session's end", || {
        (http(a, "GET", "/console/me", &me, "").0 == 401).then_some(())
    });
    assert_eq!(http(a, "POST", "/arbiter/command", &me, &other).0, 401);
    // Logging out ends a session at once.
    let cookie = login(a, "IA Hansen", SECRET);
    let me = [("Cookie", cookie.as_str())];
    assert_eq!(http(a, "GET", "/console/me", &me, "").0, 200);
    let (_, head, _) = http(a, "POST", "/console/logout", &me, "");
    assert!(head.contains("Max-Age=0"), "{head}");
    assert_eq!(http(a, "GET", "/console/me", &me, "").0, 401);

    // Failed logins: five free, then 429 with Retry-After, doubling. First
    // someone behind the arbiter's address (a venue's NAT) fails with a
    // name of no account: the address is counted.
    let open_session = login(a, "IA Hansen", SECRET);
    let kept = [("Cookie", open_session.as_str())];
    let nobody = json!({"name": "Nobody", "secret": "guess"}).to_string();
    for i in 0..5 {
        let (s, _, b) = http(a, "POST", "/console/login", &[], &nobody);
        assert_eq!(s, 401, "attempt {i}: {b}");
    }
    // Then at the arbiter's account: it has its own count (five free,
    // then 1 s), the address's goes on (blocked, doubling).
    let bad = json!({"name": "IA Hansen", "secret": "wrong"}).to_string();
    for i in 0..5 {
        let (s, _, b) = http(a, "POST", "/console/login", &[], &bad);
        assert_eq!(s, 401, "attempt {i}: {b}");
    }
    let (s, head, _) = http(a, "POST", "/console/login", &[], &bad);
    assert_eq!(s, 429);
    assert!(head.contains("retry-after: 1"), "{head}");
    // His account is blocked: even the right secret waits.
    let good = json!({"name": "IA Hansen", "secret": SECRET}).to_string();
    assert_eq!(http(a, "POST", "/console/login", &[], &good).0, 429);
    // The address is blocked (for half a minute by now): a name of no
    // account and a wrong token wait, but an open session and a right
    // token are taken (issue 24.10: nothing to guess there).
    assert_eq!(http(a, "POST", "/console/login", &[], &nobody).0, 429);
    let wrong = [("Authorization", "Bearer 0123456789abcdef0123456789abcdef")];
    assert_eq!(http(a, "GET", "/arbiter/state", &wrong, "").0, 429);
    assert_eq!(http(a, "GET", "/console/me", &kept, "").0, 200);
    assert_eq!(http(a, "GET", "/arbiter/state", &dep, "").0, 200);
    let stderr = std::fs::read_to_string(&run.stderr).unwrap();
    assert!(
        stderr.contains("WARN") && stderr.contains("login failed"),
        "{stderr}"
    );
    assert!(stderr.contains("failed logins: blocked"), "{stderr}");
    // Once his account's block is over he logs in with his secret from
    // the address that is still blocked.
    let head = poll(10, "his login from the blocked address", || {
        let (s, head, _) = http(a, "POST", "/console/login", &[], &good);
        (s == 200).then_some(head)
    });
    assert!(head.to_lowercase().contains("set-cookie"), "{head}");
    assert_eq!(
        http(a, "POST", "/console/login", &[], &nobody).0,
        429,
        "the address is still blocked"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn weak_tokens_are_refused_at_start_saying_how_to_make_one() {
    let dir = tempdir("console-weak");
    let cfg = config(&dir, 1, 1, "");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace(ARBITER_TOKEN, "right-token");
    std::fs::write(&cfg, text).unwrap();
    let out = eboard(&["run", "--config", cfg.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("board1.toml:23"), "{err}");
    assert!(err.contains("arbiter.token"), "{err}");
    assert!(err.contains("openssl rand -base64 32"), "{err}");
    assert!(err.contains("eboard token"), "{err}");
    // A patterned one, long enough for 128 bits (issue 26 §4).
    let cfg = config(&dir, 1, 4, "");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace(ARBITER_TOKEN, "0123456789abcdef0123456789abcdef");
    std::fs::write(&cfg, text).unwrap();
    let out = eboard(&["run", "--config", cfg.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("board4.toml:23"), "{err}");
    assert!(err.contains("arbiter.token"), "{err}");
    assert!(err.contains("not random"), "{err}");
    assert!(err.contains("eboard token"), "{err}");
    // An account's weak token: the error names its key and line.
    let cfg = config(
        &dir,
        1,
        2,
        "[[arbiter.accounts]]\nname = \"Deputy\"\nrole = \"deputy\"\ntoken = \"deputy\"\n",
    );
    let out = eboard(&["run", "--config", cfg.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("arbiter.accounts.1.token"), "{err}");
    assert!(err.contains("too weak"), "{err}");
    // The VI player's device token too (issue 18 §2: every token).
    let cfg = config(
        &dir,
        1,
        3,
        "[game]\nvi_player = \"w\"\n[player]\ntoken = \"player\"\n",
    );
    let text = std::fs::read_to_string(&cfg).unwrap();
    // The [game] table is already in the file: put vi_player there.
    let text = text
        .replacen("[game]\nvi_player = \"w\"\n", "", 1)
        .replacen("[game]\n", "[game]\nvi_player = \"w\"\n", 1);
    std::fs::write(&cfg, text).unwrap();
    let out = eboard(&["run", "--config", cfg.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("player.token") && err.contains("too weak"),
        "{err}"
    );
    // `eboard token` makes a good one.
    let t = eboard_ok(&["token"]);
    assert_eq!(t.trim().len(), 64, "{t}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn results_are_provisional_until_confirmed_corrected_or_forfeited() {
    let dir = tempdir("console-results");
    let d1 = dir.join("b1");
    let d2 = dir.join("b2");
    std::fs::create_dir_all(&d1).unwrap();
    std::fs::create_dir_all(&d2).unwrap();
    let trace = opera_trace(&d1, 11);
    let played = run_board(
        &d1,
        &config(&d1, 1, 1, ""),
        Some(&trace),
        &["--speed", "60"],
    );
    let empty = run_board(&d2, &config(&d2, 1, 2, ""), None, &[]);
    let auth = format!("Bearer {ARBITER_TOKEN}");
    let right = [("Authorization", auth.as_str())];

    // The board's result, provisional.
    let a = played.addr.as_str();
    let pgn = poll(60, "the game's end", || {
        let p = get(a, "/games.pgn");
        (tag(&p, "Result") == Some("1-0")).then_some(p)
    });
    assert_eq!(tag(&pgn, "ResultStatus"), Some("provisional"), "{pgn}");
    let g: Value = serde_json::from_str(&get(a, "/round-1/game-1.json")).unwrap();
    assert_eq!(g["resultStatus"], "provisional");
    let state = |addr: &str| -> Value {
        let v: Value = serde_json::from_str(&get(addr, "/boards.json")).unwrap();
        v[0]["state"].clone()
    };
    assert_eq!(state(a)["result_status"], "provisional");
    assert_eq!(state(a)["stage"], "ended");

    // Confirmed as it is.
    let (s, b) = request(a, "POST", "/arbiter/confirm", &right, "");
    assert_eq!(s, 200, "{b}");
    let pgn = poll(10, "the confirmation", || {
        let p = get(a, "/games.pgn");
        (tag(&p, "ResultStatus") == Some("confirmed")).then_some(p)
    });
    assert_eq!(tag(&pgn, "Result"), Some("1-0"));
    // Corrected: the arbiter's result replaces the board's everywhere.
    let (s, b) = request(
        a,
        "POST",
        "/arbiter/confirm",
        &right,
        r#"{"result": "1/2-1/2"}"#,
    );
    assert_eq!(s, 200, "{b}");
    let reply: Value = serde_json::from_str(&b).unwrap();
    let types: Vec<&str> = reply["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["type"].as_str())
        .collect();
    // One ruling: no second "result to confirm" (no `game_end`).
    assert_eq!(types, ["result_confirmed", "ruling"]);
    let pgn = poll(10, "the correction", || {
        let p = get(a, "/games.pgn");
        (tag(&p, "ResultStatus") == Some("corrected")).then_some(p)
    });
    assert_eq!(tag(&pgn, "Result"), Some("1/2-1/2"));
    assert!(pgn.trim_end().ends_with("1/2-1/2"), "{pgn}");
    let g: Value = serde_json::from_str(&get(a, "/round-1/game-1.json")).unwrap();
    assert_eq!(g["result"], "1/2-1/2");
    assert_eq!(g["resultStatus"], "corrected");
    assert_eq!(state(a)["result_status"], "corrected");

    // A no-show: entered as a forfeit, no moves, the standard's termination.
    let e = empty.addr.as_str();
    let (s, b) = request(
        e,
        "POST",
        "/arbiter/forfeit",
        &right,
        r#"{"result": "1/2-1/2"}"#,
    );
    assert_eq!(s, 422, "{b}");
    assert!(b.contains("1-0 or 0-1"), "{b}");
    let (s, b) = request(
        e,
        "POST",
        "/arbiter/forfeit",
        &right,
        r#"{"result": "0-1"}"#,
    );
    assert_eq!(s, 200, "{b}");
    let forfeit = poll(10, "the forfeit", || {
        let p = get(e, "/games.pgn");
        (tag(&p, "Result") == Some("0-1")).then_some(p)
    });
    assert_eq!(
        tag(&forfeit, "Termination"),
        Some("rules infraction"),
        "{forfeit}"
    );
    assert_eq!(tag(&forfeit, "ResultStatus"), Some("forfeit"), "{forfeit}");
    assert_eq!(state(e)["reason"], "forfeit");
    if python_chess().is_some() {
        let games = parse_pgn_with_python(&format!("{pgn}\n{forfeit}"));
        let games = games.as_array().unwrap();
        assert_eq!(games[0]["headers"]["Result"], "1/2-1/2");
        assert_eq!(games[0]["headers"]["ResultStatus"], "corrected");
        assert_eq!(games[0]["moves"].as_array().unwrap().len(), 33);
        assert_eq!(games[1]["headers"]["Result"], "0-1");
        assert_eq!(games[1]["headers"]["Termination"], "rules infraction");
        assert_eq!(games[1]["moves"].as_array().unwrap().len(), 0);
    } else {
        skip_or_fail_under_ci("python3 with python-chess is not installed");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_relay_merges_the_arbiter_channels_and_forwards_rulings() {
    let dir = tempdir("console-relay");
    let extra = accounts("");
    let mut boards = Vec::new();
    let mut journals = Vec::new();
    for b in [1u32, 2] {
        let t = Table::new(&dir, b, &extra);
        // At a fixed address: board 1 comes back there after an outage.
        let addr = free_loopback_addr();
        let args = run_args(&t.cfg, None, Some(&t.journal), &[]);
        let board = serving_at(&refs(&args), &addr, &t.dir);
        boards.push((board, args, t.dir.clone()));
        journals.push(t.journal.clone());
    }
    // The relay's config: the arbiters' accounts and the relay's token.
    let running: Vec<&Running> = boards.iter().map(|b| &b.0).collect();
    let relay = relay_over(&dir, &extra, &running);
    let r = relay.addr.as_str();
    let cookie = login(r, "IA Hansen", SECRET);
    let me = [("Cookie", cookie.as_str())];
    let games = poll(20, "both boards' arbiter state at the relay", || {
        let (s, _, b) = http(r, "GET", "/arbiter/state", &me, "");
        let v: Value = serde_json::from_str(&b).ok()?;
        (s == 200 && v.as_array()?.len() == 2).then_some(v)
    });
    assert_eq!(games[1]["state"]["game"], "1.2");
    assert_eq!(games[1]["state"]["stage"], "setup");

    // A ruling through the relay: journaled on board 2 with the arbiter's name.
    let cmd = json!({"board": "1.2", "action": "pause", "expect": {"ply": 0}, "id": "relay-1"})
        .to_string();
    let (s, _, b) = http(r, "POST", "/arbiter/command", &me, &cmd);
    assert_eq!(s, 200, "{b}");
    let reply: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(reply["author"], "IA Hansen");
    assert!(reply["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["type"] == "ruling" && e["author"] == "IA Hansen"));
    let recs = journal_records(&journals[1]);
    let pause = recs
        .iter()
        .find(|r| r["arbiter"] == "pause")
        .expect("journaled");
    assert_eq!(pause["author"], "IA Hansen");
    assert!(journal_records(&journals[0])
        .iter()
        .all(|r| r["arbiter"] != "pause"));
    let stderr = std::fs::read_to_string(&boards[1].0.stderr).unwrap();
    assert!(stderr.contains("ruling forwarded by a relay"), "{stderr}");
    // The same command again changes nothing.
    let (s, _, b) = http(r, "POST", "/arbiter/command", &me, &cmd);
    assert_eq!(s, 200, "{b}");
    assert!(b.contains("\"repeated\":true"), "{b}");
    assert_eq!(
        journal_records(&journals[1])
            .iter()
            .filter(|r| r["arbiter"] == "pause")
            .count(),
        1
    );
    // No such board; a deputy at the relay.
    let none = json!({"board": "1.9", "action": "pause", "expect": {"ply": 0}, "id": "relay-2"})
        .to_string();
    assert_eq!(http(r, "POST", "/arbiter/command", &me, &none).0, 404);
    let deputy = format!("Bearer {DEPUTY_TOKEN}");
    let dep = [("Authorization", deputy.as_str())];
    assert_eq!(http(r, "POST", "/arbiter/command", &dep, &cmd).0, 403);
    assert_eq!(http(r, "GET", "/console/alerts", &dep, "").0, 200);

    // A board that goes away is an alert; acknowledged by the arbiter.
    let of_board_1 = |kind: &'static str| {
        move || -> Vec<Value> {
            let (_, _, b) = http(r, "GET", "/console/alerts", &me, "");
            let v: Value = serde_json::from_str(&b).unwrap_or(Value::Null);
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter(|a| a["type"] == kind && a["game"] == "1.1")
                        .cloned()
                        .collect()
                })
                .unwrap_or_default()
        }
    };
    boards[0].0.kill();
    let alert = poll(20, "the offline alert", || {
        of_board_1("board_offline")().pop()
    });
    assert_eq!(alert["event"]["outage"], 1, "{alert}");
    // In an arbiter's words (what happened, what to do), the HTTP client's
    // own words kept as the detail (ia17).
    let reason = alert["event"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("the board")
            && reason.contains("within a minute")
            && !reason.contains("Transport"),
        "{alert}"
    );
    assert!(alert["event"]["detail"].is_string(), "{alert}");
    let ack = json!({"id": alert["id"]}).to_string();
    assert_eq!(http(r, "POST", "/console/ack", &dep, &ack).0, 403);
    let (s, _, b) = http(r, "POST", "/console/ack", &me, &ack);
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).unwrap();
    assert_eq!(v["ack"]["by"], "IA Hansen");
    // Back, then away again: a second outage is a new alert, not the
    // acknowledged first one again.
    let (_, args, d) = &boards[0];
    let addr = boards[0].0.addr.clone();
    boards[0].0 = spawn_at(&refs(args), &addr, d);
    // Back online closes the offline alert: no alert of its own.
    let closed = poll(30, "the offline alert closed by the board's return", || {
        of_board_1("board_offline")()
            .into_iter()
            .find(|a| a["resolved"].is_object())
    });
    assert!(
        closed["resolved"]["how"]
            .as_str()
            .unwrap()
            .starts_with("back online after"),
        "{closed}"
    );
    assert!(of_board_1("board_resumed")().is_empty());
    boards[0].0.kill();
    let offline = poll(30, "the second offline alert", || {
        let v = of_board_1("board_offline")();
        (v.len() == 2).then_some(v)
    });
    assert_eq!(
        offline[0]["event"]["outage"], 2,
        "newest first: {offline:?}"
    );
    assert!(offline[0]["ack"].is_null(), "{offline:?}");
    assert!(offline[0]["resolved"].is_null(), "{offline:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The SHA-256 fingerprint of the certificate a board made in `dir`, as it prints it.
fn fingerprint_in(dir: &Path) -> String {
    use rustls::pki_types::pem::PemObject;
    let pem = std::fs::read(dir.join("eboard-tls-cert.pem")).expect("the board's certificate");
    let der = rustls::pki_types::CertificateDer::from_pem_slice(&pem).unwrap();
    ring::digest::digest(&ring::digest::SHA256, &der)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

#[test]
fn the_relay_reaches_a_board_over_https_by_its_pinned_certificate() {
    let dir = tempdir("console-https");
    let extra = accounts("");
    let d = dir.join("b1");
    std::fs::create_dir_all(&d).unwrap();
    let cfg = config(&d, 1, 1, &extra);
    let j = d.join("j.jsonl");
    let board = run_board(&d, &cfg, None, &["--journal", j.to_str().unwrap()]);
    let print = fingerprint_in(&d);
    let relay_cfg = relay_config(&dir, &extra);
    // The board's own certificate pinned in its URL: TLS all the way.
    let pinned = format!("https://{}#sha256={print}", board.addr);
    let relay = spawn(
        &["relay", "--config", relay_cfg.to_str().unwrap(), &pinned],
        &[],
        &dir,
    );
    let r = relay.addr.as_str();
    let cookie = login(r, "IA Hansen", SECRET);
    let me = [("Cookie", cookie.as_str())];
    poll(20, "the board's arbiter state over HTTPS", || {
        let (s, _, b) = http(r, "GET", "/arbiter/state", &me, "");
        let v: Value = serde_json::from_str(&b).ok()?;
        (s == 200 && v.as_array()?.len() == 1).then_some(v)
    });
    let cmd =
        json!({"board": "1.1", "action": "pause", "expect": {"ply": 0}, "id": "tls-1"}).to_string();
    let (s, _, b) = http(r, "POST", "/arbiter/command", &me, &cmd);
    assert_eq!(s, 200, "{b}");
    assert!(journal_records(&j)
        .iter()
        .any(|r| r["arbiter"] == "pause" && r["author"] == "IA Hansen"));

    // Another pin: the board is never followed, and the relay says why.
    let wrong = format!("https://{}#sha256={}", board.addr, vec!["00"; 32].join(":"));
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let relay2 = spawn(
        &["relay", "--config", relay_cfg.to_str().unwrap(), &wrong],
        &[],
        &other,
    );
    let said = poll(20, "the certificate refused", || {
        let log = std::fs::read_to_string(&relay2.stderr).ok()?;
        log.to_lowercase().contains("certificate").then_some(log)
    });
    let c2 = login(&relay2.addr, "IA Hansen", SECRET);
    let (_, _, b) = http(
        &relay2.addr,
        "GET",
        "/arbiter/state",
        &[("Cookie", c2.as_str())],
        "",
    );
    assert!(!b.contains("\"1.1\""), "{b}\n{said}");
    std::fs::remove_dir_all(&dir).ok();
}
