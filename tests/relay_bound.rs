//! Issue 41 §2, the rest: every message bound to its source on the HTTP
//! relay too, and the game id of the pairing on both relays
//! (`docs/relay-integrity.md`).
//!
//! - **A board URL serving another table's game**: the relay is told
//!   `1=URL_A 2=URL_B`; the board at URL A is configured as board 2 (other
//!   players, an illegal move): nothing of it reaches the relay's feeds or
//!   console, an `uplink_alert` names URL A and board 2, and board 2's own
//!   game (URL B, the Opera Game) is the one served.
//! - **The pairing's players, HTTP**: with `[arbiter] pairings` (a TRF-16
//!   pairing round 1: board 1 Morphy–Karl, board 2 Mallory–Trent), two
//!   bare board URLs whose boards both say Morphy–Karl: game 1.1 is taken,
//!   game 1.2 refused with an alert naming both pairs of players.
//! - **The pairing's players, MQTT**: the same pairings and the same two
//!   boards through mosquitto and the ACL of `docs/mqtt.md`.
//! - **A flooding board URL**: a 64 MB `/boards.json` and 1,000 stream
//!   messages of 200 KB; the relay's RSS stays within 64 MB of what it was
//!   and the real board beside it is served.

use crate::common;

use common::console::*;
use common::mosquitto::{board_mqtt, docs_broker};
use common::round::*;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A TRF-16 `001` record (FIDE Handbook C.04 Annex 2): start rank `rank`,
/// `name`, FIDE id `fide`, paired in round 1 with `opp` as `colour`, no
/// result yet.
fn player_record(rank: u32, name: &str, fide: u64, opp: u32, colour: char) -> String {
    format!(
        "001 {rank:>4} m  g {name:<33} 2500 DEN {fide:>11} 1990/01/01  0.0 {rank:>4}  {opp:>4} {colour}  "
    )
}

/// `DIR/pairings.trf`: round 1, board 1 Morphy–Karl (the players of
/// `common::config`'s boards, FIDE 9000001 and 9000002), board 2
/// Mallory–Trent.
fn pairings_trf(dir: &Path) -> PathBuf {
    let p = dir.join("pairings.trf");
    let lines = [
        "012 DM 2026".to_owned(),
        player_record(1, "Morphy,Paul", 9000001, 2, 'w'),
        player_record(2, "Karl,Duke", 9000002, 1, 'b'),
        player_record(3, "Mallory,Eve", 9000003, 4, 'w'),
        player_record(4, "Trent,Tom", 9000004, 3, 'b'),
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

/// The relay's `uplink_alert`s whose error contains `words`.
fn refusals(addr: &str, auth: (&str, &str), words: &str) -> Vec<Value> {
    console_alerts(addr, auth, "uplink_alert", None)
        .into_iter()
        .filter(|a| a["event"]["error"].as_str().unwrap_or("").contains(words))
        .collect()
}

/// The games (`round.board`) in the public `/boards.json` at `addr`.
fn public_games(addr: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(&get(addr, "/boards.json")).unwrap_or(Value::Null);
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|s| format!("{}.{}", s["info"]["round"], s["info"]["board"]))
                .collect()
        })
        .unwrap_or_default()
}

/// A board of round 1 at `table` in `DIR/NAME`, with the relay's account,
/// playing `trace` (made in its directory) at speed 60.
fn board(
    dir: &Path,
    name: &str,
    table: u32,
    players: Option<(&str, &str)>,
    trace: impl Fn(&Path) -> PathBuf,
) -> Running {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    let cfg = config(&d, 1, table, &format!("\n{}", relay_account()));
    if let Some((white, black)) = players {
        let text = std::fs::read_to_string(&cfg)
            .unwrap()
            .replace("Morphy, Paul", white)
            .replace("fide_id = 9000001", "fide_id = 9000003")
            .replace("Karl, Duke", black)
            .replace("fide_id = 9000002", "fide_id = 9000004");
        std::fs::write(&cfg, text).unwrap();
    }
    let t = trace(&d);
    run_board(&d, &cfg, Some(&t), &["--speed", "60"])
}

#[test]
fn a_board_url_serving_another_tables_game_is_refused_and_alerted() {
    let dir = tempdir("relay-bound");
    // URL A is table 1's; its board says it is board 2, with other
    // players and an illegal move at 12 s.
    let forged = board(&dir, "a", 2, Some(("Mallory, Eve", "Trent, Tom")), |d| {
        illegal_trace(d, 12_000)
    });
    let real = board(&dir, "b", 2, None, |d| opera_trace(d, 2));
    let (url_a, url_b) = (
        format!("http://{}", forged.addr),
        format!("http://{}", real.addr),
    );
    let relay = HttpRelay::new(
        &dir,
        &arbiter_accounts(false),
        &[format!("1={url_a}"), format!("2={url_b}")],
    )
    .start();
    let r = relay.addr.as_str();
    let cookie = login(r, "IA Hansen", SECRET);
    let me = ("Cookie", cookie.as_str());
    let alert = poll(60, "the relay's alert about URL A", || {
        refusals(r, me, "board 2")
            .into_iter()
            .find(|a| a["event"]["base"] == url_a.as_str())
    });
    println!("{alert}");
    let why = alert["event"]["error"].as_str().unwrap();
    assert!(
        why.contains("game 1.2") && why.contains("not board 1's"),
        "{alert}"
    );
    assert!(alert["game"].is_null(), "filed under no game: {alert}");
    // Board 2's own game, to its end, and nothing of URL A's.
    let pgn = poll(60, "board 2's result at the relay", || {
        let p = get(r, "/games.pgn");
        p.contains("[Result \"1-0\"]").then_some(p)
    });
    assert!(
        pgn.contains("Morphy, Paul") && !pgn.contains("Mallory"),
        "{pgn}"
    );
    assert_eq!(public_games(r), ["1.2"]);
    let forged_state = get(&forged.addr, "/boards.json");
    assert!(
        forged_state.contains("Mallory"),
        "the forger plays: {forged_state}"
    );
    let states = console_states(r, me).unwrap_or_default();
    assert_eq!(states.len(), 1, "{states:?}");
    assert!(
        console_alerts(r, me, "illegal_move", Some("1.2")).is_empty(),
        "URL A's illegal move filed under board 2"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_http_relay_refuses_a_game_whose_players_are_not_the_pairings() {
    let dir = tempdir("relay-pairing");
    let trf = pairings_trf(&dir);
    // Both boards say Morphy–Karl: right at board 1, wrong at board 2.
    let one = board(&dir, "b1", 1, None, |d| opera_trace(d, 1));
    let two = board(&dir, "b2", 2, None, |d| opera_trace(d, 2));
    let accounts = format!(
        "pairings = \"{}\"\n\n{}",
        trf.display(),
        arbiter_accounts(false)
    );
    let relay = HttpRelay::new(&dir, &accounts, &board_urls(&[&one, &two])).start();
    let r = relay.addr.as_str();
    let cookie = login(r, "IA Hansen", SECRET);
    let me = ("Cookie", cookie.as_str());
    let alert = poll(60, "the relay's alert about game 1.2's players", || {
        refusals(r, me, "the pairings give").pop()
    });
    println!("{alert}");
    let why = alert["event"]["error"].as_str().unwrap();
    assert!(
        why.contains("game 1.2")
            && why.contains("\"Morphy, Paul\" (FIDE 9000001)")
            && why.contains("\"Mallory,Eve\" (FIDE 9000003)"),
        "{alert}"
    );
    assert_eq!(alert["event"]["base"], format!("http://{}", two.addr));
    poll(60, "game 1.1's result at the relay", || {
        get(r, "/games.pgn")
            .contains("[Result \"1-0\"]")
            .then_some(())
    });
    assert_eq!(public_games(r), ["1.1"]);
    let games: Vec<Value> = console_states(r, me).unwrap_or_default();
    assert!(games.iter().all(|g| g["game"] != "1.2"), "{games:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_mqtt_relay_refuses_a_game_whose_players_are_not_the_pairings() {
    let dir = tempdir("mqtt-pairing");
    let Some(broker) = docs_broker(&dir, &[1, 2], &[], "") else {
        return;
    };
    let url = broker.url();
    let trf = pairings_trf(&dir);
    let relay_toml = format!(
        "[arbiter]\npairings = \"{}\"\n\n{}",
        trf.display(),
        token_account()
    );
    let relay = MqttRelay::new(&dir, "relay", &url, "console", &relay_toml).start();
    relay.wait_log(20, "relay: subscribed to");
    let bearer = console_bearer();
    let me = ("Authorization", bearer.as_str());
    let _round = Round::start_each(
        &dir,
        2,
        |n| board_mqtt(&url, n, "arbiter_channel = true\n"),
        |t| {
            let trace = t.trace(TIME_CONTROL, &quiet_steps(2_000, 1_000, 6));
            t.start(Some(&trace), &refs(&t.journaled("1", &["--delay", "0"])))
        },
    );
    let alert = poll(60, "the relay's alert about game 1.2's players", || {
        refusals(&relay.addr, me, "the pairings give").pop()
    });
    println!("{alert}");
    let why = alert["event"]["error"].as_str().unwrap();
    assert!(
        why.contains("game 1.2") && why.contains("\"Mallory,Eve\" (FIDE 9000003)"),
        "{alert}"
    );
    assert!(
        alert["event"]["topic"]
            .as_str()
            .unwrap_or("")
            .contains("/2/")
            || alert["event"]["topic"]
                .as_str()
                .unwrap_or("")
                .contains("/board/2/"),
        "{alert}"
    );
    // Board 1's game is there, its moves coming; board 2's is not.
    poll(60, "game 1.1's moves at the relay's console", || {
        console_state(&relay.addr, me, "1.1").filter(|s| s["ply"].as_u64() >= Some(2))
    });
    assert_eq!(public_games(&relay.addr), ["1.1"]);
    assert!(console_state(&relay.addr, me, "1.2").is_none());
    std::fs::remove_dir_all(&dir).ok();
}

/// A fake board at `127.0.0.1:PORT` for the flood: `/boards.json` is
/// `junk_mb` MB of a JSON array that never closes, `/events` an SSE
/// stream of `events` messages of `pad` bytes each, naming game 1.1 (its
/// own table's, never vetted: held) and game 1.2 (another table's:
/// refused) in turn. Serves until the test ends.
fn flooding_board(
    junk_mb: usize,
    events: usize,
    pad: usize,
) -> (
    std::net::SocketAddr,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    use std::io::{BufRead, BufReader, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sent = done.clone();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut s) = conn else { continue };
            let sent = sent.clone();
            std::thread::spawn(move || {
                let mut line = String::new();
                let mut r = BufReader::new(s.try_clone().unwrap());
                if r.read_line(&mut line).is_err() {
                    return;
                }
                loop {
                    let mut h = String::new();
                    if r.read_line(&mut h).map_or(true, |n| n == 0) || h == "\r\n" {
                        break;
                    }
                }
                let chunk = vec![b' '; 1 << 20];
                if line.starts_with("GET /boards.json") {
                    let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n[");
                    for _ in 0..junk_mb {
                        if s.write_all(&chunk).is_err() {
                            return;
                        }
                    }
                } else if line.starts_with("GET /events") {
                    let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n");
                    let padding = "x".repeat(pad);
                    for i in 0..events {
                        let game = if i % 2 == 0 { "1.1" } else { "1.2" };
                        let m = format!(
                            "id: {i}\ndata: {{\"type\":\"move\",\"game\":\"{game}\",\"pad\":\"{padding}\"}}\n\n"
                        );
                        if s.write_all(m.as_bytes()).is_err() {
                            return;
                        }
                    }
                    sent.store(true, std::sync::atomic::Ordering::Relaxed);
                    // Open, silent: the relay keeps the connection.
                    let _ = r.read_line(&mut String::new());
                } else {
                    let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
                }
            });
        }
    });
    (addr, done)
}

/// A board URL flooding the relay: a 64 MB `/boards.json` and 1,000
/// stream messages of 200 KB (half of its own game, never vetted; half of
/// another table's): the relay reads 1 MiB of the body, holds at most
/// 1 MiB of the messages, refuses the rest with alerts, and serves a real
/// board beside it; its RSS stays within 64 MB of what it was.
#[test]
fn a_flooding_board_url_leaves_the_relays_memory_bounded() {
    let dir = tempdir("relay-flood");
    let real = board(&dir, "b2", 2, None, |d| opera_trace(d, 2));
    let (flood, sent) = flooding_board(64, 1_000, 200_000);
    let relay = HttpRelay::new(
        &dir,
        &arbiter_accounts(false),
        &[
            format!("1=http://{flood}"),
            format!("2=http://{}", real.addr),
        ],
    );
    let relay = relay.start();
    let r = relay.addr.as_str();
    let before = rss_kb(relay.child.id());
    let cookie = login(r, "IA Hansen", SECRET);
    let me = ("Cookie", cookie.as_str());
    let base = format!("http://{flood}");
    // One alert per source and 10 minutes: the first refusal's (the
    // body's or another table's message, whichever came first).
    let alert = poll(60, "the alert about the flooding board", || {
        refusals(r, me, "refused")
            .into_iter()
            .find(|a| a["event"]["base"] == base.as_str())
    });
    println!("{alert}");
    poll(60, "board 2's result at the relay", || {
        get(r, "/games.pgn")
            .contains("[Result \"1-0\"]")
            .then_some(())
    });
    // Until the 1,000 messages are sent (the relay reads as they go).
    let mut peak = 0;
    poll(120, "the flood sent to its end", || {
        peak = peak.max(rss_kb(relay.child.id()));
        sent.load(std::sync::atomic::Ordering::Relaxed)
            .then_some(())
    });
    peak = peak.max(rss_kb(relay.child.id()));
    let after = rss_kb(relay.child.id());
    println!(
        "a board URL flooding (64 MB /boards.json, 1,000 × 200 KB messages): relay RSS \
         {before} kB before, {after} kB after, peak {peak} kB"
    );
    assert_eq!(public_games(r), ["1.2"]);
    assert!(
        peak < before + 64 * 1024,
        "the relay's RSS grew from {before} kB to {peak} kB"
    );
    std::fs::remove_dir_all(&dir).ok();
}
