//! The MQTT uplink with a real broker (Debian's `mosquitto`, started by the
//! test on a free loopback port): boards publishing, relays serving, the
//! broker killed and restarted mid-game, a board killed and restarted from
//! its journal; and the lichess push against a local fake endpoint.
//!
//! Without `mosquitto` the broker tests are skipped with a message, unless
//! `CI` is set (then they fail).

mod common;

use common::*;
use serde_json::Value;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A mosquitto process on 127.0.0.1:`port` (no persistence: a restart
/// loses the retained messages, which the boards publish again).
struct Broker {
    child: Option<Child>,
    port: u16,
    conf: PathBuf,
}

fn mosquitto() -> Option<PathBuf> {
    ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// The broker, or `None` (skipped) when mosquitto is not installed.
fn broker(dir: &Path) -> Option<Broker> {
    let Some(_) = mosquitto() else {
        if std::env::var_os("CI").is_some() {
            panic!("mosquitto is not installed (apt-get install mosquitto)");
        }
        eprintln!("SKIPPED: mosquitto is not installed (apt-get install mosquitto)");
        return None;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let conf = dir.join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!("listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 10000\n"),
    )
    .unwrap();
    let mut b = Broker {
        child: None,
        port,
        conf,
    };
    b.start();
    Some(b)
}

impl Broker {
    fn start(&mut self) {
        let child = Command::new(mosquitto().unwrap())
            .arg("-c")
            .arg(&self.conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mosquitto");
        self.child = Some(child);
        let port = self.port;
        poll(10, "mosquitto listening", || {
            TcpStream::connect(("127.0.0.1", port)).ok()
        });
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.kill();
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn board_args(cfg: &Path, trace: &Path, journal: &Path, speed: &str) -> Vec<String> {
    [
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
        "--journal",
        journal.to_str().unwrap(),
        "--speed",
        speed,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
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
        boards.push(spawn(&strs(&args), &[], &d));
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
    let mut board = spawn(&strs(&args), &[], &dir);
    poll(60, "moves at the relay", || {
        (moves_in(&get(&relay.addr, "/games.pgn")) >= 10).then_some(())
    });
    board.kill();
    let queue = dir.join("j.jsonl.mqtt");
    assert!(queue.exists(), "the queue beside the journal");
    let board = spawn(&strs(&args), &[], &dir);
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
    for (extra, key) in [
        ("[mqtt]\nurl = \"mqtts://h:8883\"\n", "mqtt.url"),
        (
            "[mqtt]\nurl = \"mqtt://h\"\ntopic_prefix = \"a/#\"\n",
            "mqtt.topic_prefix",
        ),
        ("[lichess]\nround_id = \"short\"\n", "lichess.round_id"),
        ("[mqtt]\nurl = \"mqtt://h\"\nqos = 2\n", "mqtt.qos"),
    ] {
        let cfg = config(&dir, 1, 1, extra);
        let out = Command::new(env!("CARGO_BIN_EXE_eboard"))
            .args(["run", "--config", cfg.to_str().unwrap()])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(err.contains(&format!("key '{key}'")), "{key}: {err}");
        assert!(err.contains("board1.toml:"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// What the fake lichess endpoint received.
#[derive(Default)]
struct Received {
    calls: Vec<(String, String, String, String)>,
}

#[test]
fn the_round_pgn_is_pushed_to_lichess_with_retries_and_only_when_changed() {
    use axum::extract::{Path as UrlPath, State};
    use axum::http::{HeaderMap, StatusCode};
    use std::sync::{Arc, Mutex};
    let dir = tempdir("lichess");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let received = Arc::new(Mutex::new(Received::default()));
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new()
        .route(
            "/api/broadcast/round/{id}/push",
            axum::routing::post(
                |State(r): State<Arc<Mutex<Received>>>,
                 UrlPath(id): UrlPath<String>,
                 headers: HeaderMap,
                 body: String| async move {
                    let mut r = r.lock().unwrap();
                    let h = |k: &str| {
                        headers
                            .get(k)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("")
                            .to_owned()
                    };
                    r.calls
                        .push((id, h("authorization"), h("content-type"), body));
                    // The first two attempts fail: the uplink retries.
                    if r.calls.len() <= 2 {
                        (StatusCode::SERVICE_UNAVAILABLE, "busy".to_owned())
                    } else {
                        (StatusCode::OK, "{\"games\":[]}".to_owned())
                    }
                },
            ),
        )
        .with_state(received.clone());
    rt.spawn(async move { axum::serve(listener, app).await });

    let trace = opera_trace(&dir, 9);
    let cfg = config(
        &dir,
        1,
        1,
        &format!("[lichess]\nround_id = \"AbCd1234\"\nbase_url = \"http://{addr}\"\n"),
    );
    let board = spawn(
        &[
            "run",
            "--config",
            cfg.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
            "--speed",
            "60",
        ],
        &[("EBOARD_LICHESS_TOKEN", "lip_test")],
        &dir,
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
