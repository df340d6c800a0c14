//! The MQTT uplink with a real broker (Debian's `mosquitto`, started by the
//! test on a free loopback port): boards publishing, relays serving, the
//! broker killed and restarted mid-game, a board killed and restarted from
//! its journal, MQTT over TLS with passwords (a refused password, an
//! untrusted certificate); and the lichess push against a local fake
//! endpoint, over plain HTTP and over TLS.
//!
//! The TLS tests make their own CA (rcgen) and a certificate it signs for
//! 127.0.0.1 and localhost.
//!
//! Without `mosquitto` the broker tests are skipped with a message, unless
//! `CI` is set (then they fail).
//!
//! Length: one broker set-up serves every uplink case (publishing, relays,
//! outages, restarts, credentials); split, each file would repeat it.

use crate::common;

use common::lichess::*;
use common::mosquitto::*;
use common::tls::{serve_https, test_pki};
use common::*;
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, Mutex};

fn board_args(cfg: &Path, trace: &Path, journal: &Path, speed: &str) -> Vec<String> {
    run_args(cfg, Some(trace), Some(journal), &["--speed", speed])
}

fn moves_in(pgn: &str) -> usize {
    pgn.matches("[%clk").count()
}

/// The board's final PGN (the game over).
fn final_pgn(addr: &str) -> String {
    poll(90, "the game's end at the board", || {
        let p = get(addr, "/games.pgn");
        p.contains("[Result \"1-0\"]").then_some(p)
    })
}

/// The game `game` as a stream client rebuilds it until the game ends:
/// the plies of the move messages, a `state` message resetting to its
/// moves (as the live page does).
fn plies_until_end(stream: &SseReader, game: &str) -> Vec<u64> {
    let msgs = stream.until(90, |v| v["type"] == "game_end" && v["game"] == game);
    let mut plies = Vec::new();
    for (_, v) in msgs.iter().filter(|(_, v)| v["game"] == game) {
        if v["type"] == "state" {
            let n = v["moves"].as_array().unwrap().len() as u64;
            plies = (1..=n).collect();
        } else if v["type"] == "move" {
            plies.push(v["ply"].as_u64().unwrap());
        }
    }
    plies
}

#[test]
fn boards_publish_through_a_broker_killed_mid_game_and_relays_serve_the_same_pgn() {
    let dir = tempdir("mqtt-broker");
    let Some(mut broker) = broker(&dir) else {
        return;
    };
    let mqtt = format!("[mqtt]\nurl = \"{}\"\n", broker.url());
    let relay = spawn(&["relay", "--mqtt", &broker.url()], &[], &dir);
    let stream = SseReader::open(&relay.addr, "/events", &[]);
    let mut boards = Vec::new();
    for b in [2u32, 1] {
        let d = dir.join(format!("b{b}"));
        std::fs::create_dir_all(&d).unwrap();
        let trace = opera_trace(&d, u64::from(b));
        let cfg = config(&d, 1, b, &mqtt);
        let args = board_args(&cfg, &trace, &d.join("j.jsonl"), "30");
        boards.push(spawn(&refs(&args), &[], &d));
    }
    // Mid-game: the broker goes away while the boards play on.
    poll(60, "moves at the relay", || {
        (moves_in(&get(&relay.addr, "/games.pgn")) >= 8).then_some(())
    });
    broker.kill();
    let before = moves_in(&get(&boards[1].addr, "/games.pgn"));
    poll(60, "moves made while the broker is away", || {
        (moves_in(&get(&boards[1].addr, "/games.pgn")) >= before + 6).then_some(())
    });
    let stalled = get(&relay.addr, "/games.pgn");
    broker.start();

    let board_pgn: String = boards.iter().rev().map(|b| final_pgn(&b.addr)).collect();
    let relay_pgn = poll(60, "the relay's PGN equal to the boards'", || {
        let p = get(&relay.addr, "/games.pgn");
        (p == board_pgn).then_some(p)
    });
    assert!(moves_in(&stalled) < moves_in(&relay_pgn));
    let rounds: Vec<&str> = relay_pgn
        .lines()
        .filter(|l| l.starts_with("[Round "))
        .collect();
    assert_eq!(rounds, ["[Round \"1.1\"]", "[Round \"1.2\"]"]);
    // The relay's stream: every move of each board once, in order (the
    // moves published while the relay was not yet subscribed again come
    // as a state message).
    let plies = plies_until_end(&stream, "1.1");
    assert_eq!(plies, (1..=33).collect::<Vec<u64>>());
    // The LiveChess tree from the same merge.
    let g: Value = serde_json::from_str(&get(&relay.addr, "/round-1/game-2.json")).unwrap();
    assert_eq!(g["moves"].as_array().unwrap().len(), 33);

    // A relay started after the games: the retained snapshots (published
    // again after the broker lost them) give it everything at once.
    let late = spawn(
        &["relay", "--mqtt", &broker.url(), "--event", "DM 2026"],
        &[],
        &dir,
    );
    poll(20, "the late relay's PGN", || {
        (get(&late.addr, "/games.pgn") == board_pgn).then_some(())
    });
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_board_killed_and_restarted_from_its_journal_loses_and_repeats_nothing() {
    let dir = tempdir("mqtt-board");
    let Some(broker) = broker(&dir) else {
        return;
    };
    let mqtt = format!(
        "[mqtt]\nurl = \"{}\"\ntopic_prefix = \"club/boards\"\n",
        broker.url()
    );
    let relay = spawn(
        &[
            "relay",
            "--mqtt",
            &broker.url(),
            "--topic-prefix",
            "club/boards",
        ],
        &[],
        &dir,
    );
    let stream = SseReader::open(&relay.addr, "/events", &[]);
    let trace = opera_trace(&dir, 5);
    let cfg = config(&dir, 2, 7, &mqtt);
    let journal = dir.join("j.jsonl");
    let args = board_args(&cfg, &trace, &journal, "30");
    let mut board = spawn(&refs(&args), &[], &dir);
    poll(60, "moves at the relay", || {
        (moves_in(&get(&relay.addr, "/games.pgn")) >= 10).then_some(())
    });
    board.kill();
    let queue = dir.join("j.jsonl.mqtt");
    assert!(queue.exists(), "the queue beside the journal");
    let board = spawn(&refs(&args), &[], &dir);
    let board_pgn = final_pgn(&board.addr);
    poll(60, "the relay's PGN equal to the board's", || {
        (get(&relay.addr, "/games.pgn") == board_pgn).then_some(())
    });
    let plies = plies_until_end(&stream, "2.7");
    assert_eq!(plies, (1..=33).collect::<Vec<u64>>(), "no loss, no repeat");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn config_errors_name_the_mqtt_and_lichess_keys() {
    let dir = tempdir("mqtt-config");
    let no_cert = dir.join("no-cert.pem");
    std::fs::write(&no_cert, "not a certificate\n").unwrap();
    let missing = dir.join("missing.pem");
    for (extra, key, says) in [
        (
            "[mqtt]\nurl = \"mqtts://h:70000\"\n".to_owned(),
            "mqtt.url",
            "1..=65535",
        ),
        (
            "[mqtt]\nurl = \"mqtts://u:pw@h\"\n".to_owned(),
            "mqtt.url",
            "logs",
        ),
        (
            "[mqtt]\nurl = \"mqtt://h\"\ntopic_prefix = \"a/#\"\n".to_owned(),
            "mqtt.topic_prefix",
            "",
        ),
        (
            format!(
                "[mqtt]\nurl = \"mqtts://h\"\nca_file = \"{}\"\n",
                missing.display()
            ),
            "mqtt.ca_file",
            "cannot read",
        ),
        (
            format!(
                "[mqtt]\nurl = \"mqtts://h\"\nca_file = \"{}\"\n",
                no_cert.display()
            ),
            "mqtt.ca_file",
            "no certificate",
        ),
        (
            "[mqtt]\nurl = \"mqtts://h\"\npassword = \"x\"\n".to_owned(),
            "mqtt.password",
            "username",
        ),
        (
            "[lichess]\nround_id = \"short\"\n".to_owned(),
            "lichess.round_id",
            "",
        ),
        (
            format!(
                "[lichess]\nround_id = \"AbCd1234\"\nca_file = \"{}\"\n",
                no_cert.display()
            ),
            "lichess.ca_file",
            "no certificate",
        ),
        (
            "[mqtt]\nurl = \"mqtt://h\"\nqos = 2\n".to_owned(),
            "mqtt.qos",
            "",
        ),
    ] {
        let cfg = config(&dir, 1, 1, &extra);
        // The line of the key in the file written.
        let text = std::fs::read_to_string(&cfg).unwrap();
        let name = key.rsplit('.').next().unwrap();
        let line = text
            .lines()
            .position(|l| l.starts_with(&format!("{name} =")))
            .unwrap()
            + 1;
        let out = eboard(&["run", "--config", cfg.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            err.contains(&format!("board1.toml:{line}: key '{key}'")),
            "{key} on line {line}: {err}"
        );
        assert!(err.contains(says), "{key}: says {says}: {err}");
        assert!(!err.contains("pw@"), "no credentials echoed: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_round_pgn_is_pushed_to_lichess_with_retries_and_only_when_changed() {
    let dir = tempdir("lichess");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (addr, received) = serve_fake_lichess(&rt, 2);

    let trace = opera_trace(&dir, 9);
    let cfg = config(
        &dir,
        1,
        1,
        &format!("[lichess]\nround_id = \"AbCd1234\"\nbase_url = \"http://{addr}\"\n"),
    );
    let board = run_board_with_env(
        &dir,
        &cfg,
        Some(&trace),
        &["--speed", "60"],
        &[("EBOARD_LICHESS_TOKEN", "lip_test")],
    );
    let pgn = final_pgn(&board.addr);
    poll(60, "the final PGN pushed", || {
        let r = received.lock().unwrap();
        r.calls.last().is_some_and(|c| c.3 == pgn).then_some(())
    });
    let r = received.lock().unwrap();
    assert!(r.calls.len() >= 3, "retried: {}", r.calls.len());
    for (id, auth, ctype, _) in &r.calls {
        assert_eq!(id, "AbCd1234");
        assert_eq!(auth, "Bearer lip_test");
        assert!(ctype.starts_with("text/plain"), "{ctype}");
    }
    // After the retries, every accepted push differs from the one before.
    for w in r.calls[2..].windows(2) {
        assert_ne!(w[0].3, w[1].3, "an unchanged PGN pushed again");
    }
    drop(r);
    drop(board);
    std::fs::remove_dir_all(&dir).ok();
}

/// The process's standard error so far.
fn stderr_of(r: &Running) -> String {
    std::fs::read_to_string(&r.stderr).unwrap_or_default()
}

/// Still running (not exited, not panicked).
fn alive(r: &mut Running) -> bool {
    r.child.try_wait().unwrap().is_none()
}

#[test]
fn boards_publish_over_tls_with_passwords_and_refusals_are_reported() {
    let dir = tempdir("mqtt-tls");
    let users = [
        ("relay", "relay-pw"),
        ("board1", "board1-pw"),
        ("board2", "the-old-one"),
    ];
    let Some((broker, pki)) = tls_broker(&dir, &users) else {
        return;
    };
    let passwd = dir.join("passwd");
    let port = broker.port;
    let ca = pki.ca.to_str().unwrap();
    // The relay: login by flag, password from the environment, CA by flag,
    // the broker by name (the certificate is checked against "localhost").
    let relay = spawn(
        &[
            "relay",
            "--mqtt",
            &format!("mqtts://localhost:{port}"),
            "--mqtt-username",
            "relay",
            "--mqtt-ca-file",
            ca,
        ],
        &[("EBOARD_MQTT_PASSWORD", "relay-pw")],
        &dir,
    );
    let board = |b: u32, mqtt: String, envs: &[(&str, &str)]| {
        let d = dir.join(format!("b{b}"));
        std::fs::create_dir_all(&d).unwrap();
        let trace = opera_trace(&d, u64::from(b));
        let cfg = config(&d, 1, b, &mqtt);
        let args = board_args(&cfg, &trace, &d.join("j.jsonl"), "30");
        (spawn(&refs(&args), envs, &d), d)
    };
    // Board 1: the right password, the test CA trusted.
    let (b1, _) = board(
        1,
        format!(
            "[mqtt]\nurl = \"mqtts://127.0.0.1:{port}\"\nusername = \"board1\"\npassword = \"board1-pw\"\nca_file = \"{ca}\"\n"
        ),
        &[],
    );
    // Board 2: EBOARD_MQTT_PASSWORD wins over the file's password, and the
    // broker does not know it yet.
    let (mut b2, d2) = board(
        2,
        format!(
            "[mqtt]\nurl = \"mqtts://127.0.0.1:{port}\"\nusername = \"board2\"\npassword = \"the-old-one\"\nca_file = \"{ca}\"\n"
        ),
        &[("EBOARD_MQTT_PASSWORD", "the-new-one")],
    );
    // Board 3: the right password, but the test CA is not trusted.
    mosquitto_passwd(&passwd, "board3", "board3-pw", false);
    broker.reload();
    let (mut b3, _) = board(
        3,
        format!(
            "[mqtt]\nurl = \"mqtts://127.0.0.1:{port}\"\nusername = \"board3\"\npassword = \"board3-pw\"\n"
        ),
        &[],
    );

    // The refused password: said once, clearly; the board plays on and queues.
    let said = poll(30, "board 2 reporting the refused credentials", || {
        let e = stderr_of(&b2);
        e.contains("refused the credentials of user \"board2\"")
            .then_some(e)
    });
    assert!(said.contains("EBOARD_MQTT_PASSWORD"), "{said}");
    assert!(
        !said.contains("the-new-one"),
        "no password in messages: {said}"
    );
    assert!(!said.contains("panicked"), "{said}");
    poll(60, "board 2 playing while refused", || {
        (moves_in(&get(&b2.addr, "/games.pgn")) >= 6).then_some(())
    });
    assert!(alive(&mut b2));
    let queue = std::fs::read_to_string(d2.join("j.jsonl.mqtt")).unwrap();
    assert!(
        queue.lines().filter(|l| l.starts_with("E\t")).count() >= 6,
        "board 2's messages kept queued: {queue}"
    );
    assert!(
        !queue.lines().any(|l| l.starts_with("A\t")),
        "none acknowledged: {queue}"
    );
    assert!(
        !get(&relay.addr, "/games.pgn").contains("[Round \"1.2\"]"),
        "nothing of board 2 got through"
    );
    assert_eq!(
        said.matches("refused the credentials").count(),
        1,
        "reported once, not once per retry: {said}"
    );

    // The untrusted certificate: said clearly, pointing to ca_file.
    let said = poll(30, "board 3 reporting the untrusted certificate", || {
        let e = stderr_of(&b3);
        e.contains("certificate is refused").then_some(e)
    });
    assert!(
        said.contains("UnknownIssuer") && said.contains("[mqtt] ca_file"),
        "{said}"
    );
    assert!(alive(&mut b3));
    drop(b3);

    // The broker learns board 2's new password: the queue goes out, nothing lost.
    mosquitto_passwd(&passwd, "board2", "the-new-one", false);
    broker.reload();
    let board_pgn = final_pgn(&b1.addr) + &final_pgn(&b2.addr);
    poll(60, "the relay's PGN equal to the boards'", || {
        (get(&relay.addr, "/games.pgn") == board_pgn).then_some(())
    });
    assert!(stderr_of(&b2).contains("mqtt: connected to 127.0.0.1"));
    drop((b1, b2, relay, broker));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_pgn_is_pushed_to_lichess_over_tls_trusting_only_the_ca_file() {
    let dir = tempdir("lichess-tls");
    let pki = test_pki(&dir);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let received = Arc::new(Mutex::new(Received::default()));
    let (port, failed) = serve_https(&rt, &pki, fake_lichess(received.clone(), 0));

    // Board 1 trusts the test CA (ca_file) and names the server "localhost";
    // board 2 does not trust it.
    let run = |b: u32, lichess: String, envs: &[(&str, &str)]| {
        let d = dir.join(format!("b{b}"));
        std::fs::create_dir_all(&d).unwrap();
        let trace = opera_trace(&d, u64::from(b));
        let cfg = config(&d, 1, b, &lichess);
        run_board_with_env(&d, &cfg, Some(&trace), &["--speed", "60"], envs)
    };
    let trusted = run(
        1,
        format!(
            "[lichess]\nround_id = \"TlsOk123\"\ntoken = \"lip_tls\"\nbase_url = \"https://localhost:{port}\"\nca_file = \"{}\"\n",
            pki.ca.display()
        ),
        &[],
    );
    let mut untrusted = run(
        2,
        format!("[lichess]\nround_id = \"NoCa1234\"\nbase_url = \"https://127.0.0.1:{port}\"\n"),
        &[("EBOARD_LICHESS_TOKEN", "lip_other")],
    );

    let pgn = final_pgn(&trusted.addr);
    poll(60, "the final PGN pushed over TLS", || {
        let r = received.lock().unwrap();
        r.calls
            .iter()
            .rev()
            .find(|c| c.0 == "TlsOk123")
            .is_some_and(|c| c.3 == pgn)
            .then_some(())
    });
    for (id, auth, ctype, _) in &received.lock().unwrap().calls {
        assert_eq!(id, "TlsOk123", "only the board trusting the CA got through");
        assert_eq!(auth, "Bearer lip_tls");
        assert!(ctype.starts_with("text/plain"), "{ctype}");
    }

    // The untrusted server: each attempt fails in the handshake, is
    // reported (once, saying why and what to do) and retried.
    poll(30, "the untrusted push retried", || {
        (failed.lock().unwrap().len() >= 2).then_some(())
    });
    let said = stderr_of(&untrusted);
    assert!(
        said.contains("lichess push: POST https://127.0.0.1:")
            && said.contains("certificate is refused")
            && said.contains("UnknownIssuer")
            && said.contains("[lichess] ca_file"),
        "{said}"
    );
    assert_eq!(said.matches("certificate is refused").count(), 1, "{said}");
    assert!(!said.contains("panicked"), "{said}");
    assert!(alive(&mut untrusted));
    assert!(get(&untrusted.addr, "/games.pgn").contains("[Round \"1.2\"]"));
    drop((trusted, untrusted));
    std::fs::remove_dir_all(&dir).ok();
}
