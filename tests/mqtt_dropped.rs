//! The MQTT relay converges on the boards' games after the broker dropped
//! messages for it: a real mosquitto whose queue per subscriber holds one
//! message (`max_queued_messages 1`, one in flight: the overflow that a
//! hundred boards resending their queues at once cause with the default
//! 1000), two board daemons in this process (journal and MQTT queue on
//! disk) and an `eboard relay --mqtt` process.
//!
//! The broker is killed mid-game; both games end in a draw by agreement
//! while it is away, so the boards queue the rest of their games, the
//! result among it. The broker comes back with the boards' login refused:
//! the relay is subscribed first (a probe message it logs shows it), then
//! the relay is frozen (SIGSTOP) and the boards let in (SIGHUP): they
//! resend everything at once, and the broker drops all but two messages
//! for the relay, the games' ends among them; thawed (SIGCONT, within its
//! keep-alive, so it stays connected), the relay gets nothing more of
//! those boards: only the retained snapshots hold their results. The
//! relay must show both games as the boards do (`1/2-1/2`, every move),
//! and tell its stream's readers (a `state` message after the gap).
//!
//! Skips with a printed reason without `mosquitto`; under CI (`CI` set)
//! that is a failure.

use crate::common;

use common::mosquitto::{broker_with_queue, mosquitto_passwd};
use common::round::{in_process_board, runtime};
use common::*;
use eboard::config::MqttConfig;
use eboard::daemon::Daemon;

/// Round ms per wall ms: a game of 36 plies takes about 8 s.
const SPEED: f64 = 30.0;
/// 18 moves each, then a draw offered and accepted (the simulated hands).
const DRAWN: &str = "[Event \"?\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 \
4. O-O Nxe4 5. Re1 Nd6 6. Nxe5 Be7 7. Bf1 Nxe5 8. Rxe5 O-O 9. d4 Bf6 10. Re1 Re8 11. c3 Rxe1 \
12. Qxe1 Ne8 13. Bf4 d6 14. Nd2 Bf5 15. Qe2 c6 16. Re1 d5 17. Nf3 Nd6 18. Bxd6 Qxd6 1/2-1/2\n";

/// A board's events topic that no board publishes: the relay logs the
/// probe it gets there as not understood.
const PROBE: &str = "eboard/open-2026/1/99/events";

fn moves_in(pgn: &str) -> usize {
    pgn.matches("[%clk").count()
}

/// Publishes a probe (not JSON) on [`PROBE`] as the relay's user, QoS 1,
/// and waits for the broker's PUBACK.
fn probe(port: u16) {
    use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut o = MqttOptions::new(format!("probe-{n}"), "127.0.0.1", port);
    o.set_credentials("relay", "relay-pw");
    let (client, mut conn) = Client::new(o, 8);
    client
        .publish(PROBE, QoS::AtLeastOnce, false, "probe")
        .unwrap();
    for ev in conn.iter() {
        match ev {
            Ok(Event::Incoming(Packet::PubAck(_))) => return,
            Ok(_) => {}
            Err(e) => panic!("the probe's connection: {e}"),
        }
    }
}

/// Sends `signal` to the relay process.
fn signal(relay: &Running, signal: libc::c_int) {
    // SAFETY: kill(2) on the relay process this test started.
    let rc = unsafe { libc::kill(relay.child.id() as libc::pid_t, signal) };
    assert_eq!(rc, 0, "signal {signal} to the relay");
}

#[test]
fn a_relay_whose_messages_the_broker_dropped_after_its_outage_shows_the_games_ends() {
    let dir = tempdir("mqtt-dropped");
    let passwd = dir.join("passwd");
    mosquitto_passwd(&passwd, "relay", "relay-pw", true);
    mosquitto_passwd(&passwd, "board", "board-pw", false);
    let conf = format!(
        "allow_anonymous false\npassword_file {}\nmax_inflight_messages 1\n",
        passwd.display()
    );
    let Some(mut broker) = broker_with_queue(&dir, &conf, 1) else {
        return;
    };
    let url = broker.url();
    let relay = spawn(
        &["relay", "--mqtt", &url, "--mqtt-username", "relay"],
        &[("EBOARD_MQTT_PASSWORD", "relay-pw")],
        &dir,
    );
    let follower = SseReader::open(&relay.addr, "/events?game=1.2", &[]);

    let game = &eboard::pgn::read_games(DRAWN).expect("the game reads")[0];
    let rt = runtime();
    let daemons: Vec<Daemon> = (1..=2u32)
        .map(|b| {
            let mqtt = MqttConfig {
                url: url.clone(),
                username: Some("board".into()),
                password: Some("board-pw".into()),
                ..Default::default()
            };
            in_process_board(&rt, &dir, game, b, mqtt, SPEED)
        })
        .collect();
    let state = |d: &Daemon| d.feed.public.view.borrow().games[0].state.clone();

    // Mid-game: the broker goes away, and both games end while it is away.
    poll(30, "two moves of each game at the relay", || {
        let p = get(&relay.addr, "/games.pgn");
        let games: Vec<&str> = p.split("[Event ").skip(1).collect();
        (games.len() == 2 && games.iter().all(|g| moves_in(g) >= 4)).then_some(())
    });
    broker.kill();
    poll(60, "both games drawn at their boards", || {
        daemons
            .iter()
            .all(|d| state(d)["result"] == "1/2-1/2")
            .then_some(())
    });
    let stalled = get(&relay.addr, "/games.pgn");
    assert!(!stalled.contains("1/2-1/2"), "{stalled}");
    for d in &daemons {
        let status = *d.mqtt.as_ref().expect("an uplink").borrow();
        assert!(!status.connected && status.pending > 20, "{status:?}");
    }

    // Back, the boards refused: the relay subscribes first.
    mosquitto_passwd(&passwd, "relay", "relay-pw", true);
    broker.start();
    poll(30, "the relay subscribed again", || {
        probe(broker.port);
        let log = std::fs::read_to_string(&relay.stderr).unwrap_or_default();
        log.contains("relay: message not understood").then_some(())
    });
    // The relay frozen, the boards let in: the broker takes their queues
    // and drops what the relay's queue cannot hold.
    signal(&relay, libc::SIGSTOP);
    let frozen = std::time::Instant::now();
    mosquitto_passwd(&passwd, "board", "board-pw", false);
    broker.reload();
    poll(30, "the boards' queues taken by the broker", || {
        daemons
            .iter()
            .all(|d| {
                let s = *d.mqtt.as_ref().unwrap().borrow();
                s.connected && s.pending == 0
            })
            .then_some(())
    });
    signal(&relay, libc::SIGCONT);
    assert!(
        frozen.elapsed() < std::time::Duration::from_secs(6),
        "the relay was frozen {:?}: past its keep-alive (5 s × 1.5) the broker \
         drops its connection, and its new subscription would have the \
         retained snapshots at once",
        frozen.elapsed()
    );

    let board_pgn: String = daemons
        .iter()
        .map(|d| d.feed.public.view.borrow().games[0].pgn.to_string())
        .collect();
    assert_eq!(board_pgn.matches("[Result \"1/2-1/2\"]").count(), 2);
    let relay_pgn = poll(30, "the relay's PGN equal to the boards'", || {
        let p = get(&relay.addr, "/games.pgn");
        (p == board_pgn).then_some(p)
    });
    assert!(moves_in(&stalled) < moves_in(&relay_pgn));
    // The stream's reader of game 1.2 is told the result too (the game's
    // end, or a state after the gap).
    let plies = state(&daemons[1])["moves"].as_array().unwrap().len();
    assert_eq!(plies, 36);
    let msgs = follower.until(30, |v| {
        v["type"] == "game_end" || (v["type"] == "state" && v["result"] == "1/2-1/2")
    });
    let last = &msgs.last().unwrap().1;
    assert_eq!(last["game"], "1.2", "{last}");
    if last["type"] == "state" {
        assert_eq!(last["moves"].as_array().unwrap().len(), plies, "{last}");
    }
    drop(daemons);
    std::fs::remove_dir_all(&dir).ok();
}
