//! A hundred boards through one real broker: each board (a board daemon in
//! this process, journal and MQTT queue on disk) plays a different real
//! over-the-board game of `../shared/data` (TWIC 1599), published to a
//! mosquitto on loopback that is killed and restarted mid-round; two
//! `eboard relay --mqtt` processes serve the round. Each relay's
//! `/games.pgn` must be byte-identical to the boards' own PGNs in
//! (round, board) order, and a spectator following one game
//! (`/events?game=1.7`) gets that game's moves in order and nothing of the
//! other 99.
//!
//! Skips with a printed reason without `../shared/data` or `mosquitto`;
//! under CI (`CI` set) either absence is a failure. The broker is
//! `common::mosquitto`'s (max 10,000 queued messages per client).

use crate::common;

use common::mosquitto::broker;
use common::round::{in_process_board, runtime};
use common::*;
use eboard::config::MqttConfig;
use eboard::daemon::Daemon;
use std::path::PathBuf;

const BOARDS: u32 = 100;
/// Round ms per wall ms: the simulated games (about 30 min of round time
/// each) take a few seconds.
const SPEED: f64 = 400.0;

fn moves_in(pgn: &str) -> usize {
    pgn.matches("[%clk").count()
}

#[test]
fn a_hundred_boards_through_a_broker_killed_mid_round_and_two_relays_serve_their_pgn() {
    let data =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pgn/twic1599_1110games.pgn");
    let Ok(text) = std::fs::read_to_string(&data) else {
        return skip_or_fail_under_ci(&format!("{} is absent", data.display()));
    };
    let games = eboard::pgn::read_games(&text).expect("TWIC reads");
    let dir = tempdir("mqtt-100");
    let Some(mut broker) = broker(&dir) else {
        return;
    };
    let url = broker.url();
    let relay = spawn(
        &["relay", "--mqtt", &url, "--event", "Open 2026"],
        &[],
        &dir,
    );
    let follower = SseReader::open(&relay.addr, "/events?game=1.7", &[]);
    let (status, body) = request(&relay.addr, "GET", "/events?game=7", &[], "");
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("game=7: give the game as round.board"),
        "{body}"
    );

    let rt = runtime();
    let mut daemons = Vec::new();
    for b in 1..=BOARDS {
        let mqtt = MqttConfig {
            url: url.clone(),
            ..Default::default()
        };
        let d = in_process_board(&rt, &dir, &games[b as usize - 1], b, mqtt, SPEED);
        daemons.push(d);
    }
    let board_moves = |daemons: &[Daemon]| -> usize {
        daemons
            .iter()
            .map(|d| {
                let v = d.feed.public.view.borrow().clone();
                v.games.iter().map(|g| moves_in(&g.pgn)).sum::<usize>()
            })
            .sum()
    };

    // Mid-round: the broker goes away while the boards play on.
    poll(120, "500 moves at the relay", || {
        (moves_in(&get(&relay.addr, "/games.pgn")) >= 500).then_some(())
    });
    broker.kill();
    let before = board_moves(&daemons);
    poll(120, "300 moves made while the broker is away", || {
        (board_moves(&daemons) >= before + 300).then_some(())
    });
    let stalled = moves_in(&get(&relay.addr, "/games.pgn"));
    broker.start();

    // Every game over at its board: the boards' PGN, in (round, board)
    // order. Over means a result, not only the recording played out: game
    // 1.64 is a draw agreed before a move (TWIC), which 2023 5.2.3 does not
    // take, so White's flag falls later (0-1).
    poll(300, "every board's game over", || {
        daemons
            .iter()
            .all(|d| {
                *d.done.borrow() && d.feed.public.view.borrow().games[0].state["result"] != "*"
            })
            .then_some(())
    });
    let board_pgn: String = daemons
        .iter()
        .map(|d| {
            let v = d.feed.public.view.borrow().clone();
            assert_eq!(v.games.len(), 1);
            v.games[0].pgn.to_string()
        })
        .collect();
    assert_eq!(board_pgn.matches("[Event ").count(), BOARDS as usize);
    let relay_pgn = poll(120, "the relay's PGN equal to the boards'", || {
        let p = get(&relay.addr, "/games.pgn");
        (p == board_pgn).then_some(p)
    });
    println!(
        "{BOARDS} boards: {} moves in all; the relay had {stalled} when the broker came back",
        moves_in(&relay_pgn)
    );
    assert!(stalled < moves_in(&relay_pgn), "the outage was mid-round");
    // A second relay, started after the round: the retained snapshots
    // (published again after the broker lost them) give it every game.
    let late = spawn(&["relay", "--mqtt", &url], &[], &dir);
    poll(60, "the late relay's PGN equal to the boards'", || {
        (get(&late.addr, "/games.pgn") == board_pgn).then_some(())
    });

    // The follower of game 1.7: only that game, every ply once in order (a
    // `state` after the outage resets to the moves it holds).
    let plies_7 = {
        let v = daemons[6].feed.public.view.borrow().clone();
        v.games[0].state["moves"].as_array().unwrap().len() as u64
    };
    // Its end: the game_end message, or a state with the result when the
    // relay had to fetch the board's snapshot again (messages the broker
    // dropped for it).
    let msgs = follower.until(60, |v| {
        v["type"] == "game_end" || (v["type"] == "state" && v["result"] != "*")
    });
    let mut plies = Vec::new();
    for (_, v) in &msgs {
        assert_eq!(v["game"], "1.7", "another game's message: {v}");
        match v["type"].as_str() {
            Some("state") => plies = (1..=v["moves"].as_array().unwrap().len() as u64).collect(),
            Some("move") => plies.push(v["ply"].as_u64().unwrap()),
            _ => {}
        }
    }
    assert_eq!(plies, (1..=plies_7).collect::<Vec<u64>>());
    drop(daemons);
    std::fs::remove_dir_all(&dir).ok();
}
