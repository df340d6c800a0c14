//! The daemon drives the clock device (issue 4): the device's presses
//! complete the moves made on the board (§6.7a), and the controller streams
//! the times after every completed move and the last move to the device.

use eboard::clock::device::{ClockDevice, ClockDeviceError, ClockFace, ClockInput};
use eboard::clock::simulated::{Shown, SimulatedClock};
use eboard::config::Config;
use eboard::daemon::{Daemon, RunOptions};
use eboard::trace::{BoardId, Event, EventKind, Record, RecordKind};
use shakmaty::{Color, Square};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// The simulated device, shared so the test can look at what it was shown.
struct Shared(Arc<Mutex<SimulatedClock>>);

impl ClockDevice for Shared {
    fn name(&self) -> &str {
        "shared simulated clock"
    }
    fn poll(&mut self, now_ms: u64) -> Result<Vec<ClockInput>, ClockDeviceError> {
        self.0.lock().unwrap().poll(now_ms)
    }
    fn set_times(&mut self, now_ms: u64, face: ClockFace) -> Result<(), ClockDeviceError> {
        self.0.lock().unwrap().set_times(now_ms, face)
    }
    fn show_move(&mut self, now_ms: u64, text: &str) -> Result<(), ClockDeviceError> {
        self.0.lock().unwrap().show_move(now_ms, text)
    }
    fn stop(&mut self, now_ms: u64) -> Result<(), ClockDeviceError> {
        self.0.lock().unwrap().stop(now_ms)
    }
    fn is_online(&self) -> bool {
        true
    }
}

fn rec(t: u64, kind: RecordKind) -> Record {
    Record {
        t,
        board: BoardId::Main,
        kind,
    }
}

#[test]
fn presses_on_the_device_complete_moves_and_the_device_shows_the_times() {
    let mut cfg = Config::default();
    cfg.event.time_control = Some("300+2".into());
    let clock = Arc::new(Mutex::new(SimulatedClock::new()));
    clock.lock().unwrap().press(Color::White, 1_600);
    clock.lock().unwrap().press(Color::Black, 3_600);
    // The board: 1. e4 e5, no presses in the records (the clock has them).
    let records = vec![
        rec(1_000, RecordKind::Lift(Square::E2)),
        rec(
            1_300,
            RecordKind::Place {
                square: Square::E4,
                color: None,
                piece: None,
            },
        ),
        rec(3_000, RecordKind::Lift(Square::E7)),
        rec(
            3_300,
            RecordKind::Place {
                square: Square::E5,
                color: None,
                piece: None,
            },
        ),
        rec(20_000, RecordKind::Lift(Square::G1)),
    ];
    let (tx, rx) = mpsc::channel::<Event>();
    let tx = Mutex::new(tx);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let daemon = Daemon::start(
        RunOptions {
            config: cfg,
            delay_s: 0,
            journal: None,
            source: Box::new(records.into_iter().map(Ok)),
            source_header: None,
            source_is_recording: true,
            speed: 20.0,
            on_event: Some(Box::new(move |e: &Event| {
                let _ = tx.lock().unwrap().send(e.clone());
            })),
            clock_device: Some(Box::new(Shared(clock.clone()))),
            source_is_live: false,
        },
        rt.handle(),
    )
    .unwrap();
    let mut moves = Vec::new();
    let mut clocks = Vec::new();
    while moves.len() < 2 {
        let e = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("events within 20 s");
        match e.kind {
            EventKind::Move { san, .. } => moves.push(san),
            EventKind::Clock { white_ms, black_ms } => clocks.push((white_ms, black_ms)),
            _ => {}
        }
    }
    assert_eq!(moves, ["e4", "e5"]);
    // Wait for the second clock event, decided with the move.
    while clocks.len() < 2 {
        if let EventKind::Clock { white_ms, black_ms } =
            rx.recv_timeout(Duration::from_secs(20)).unwrap().kind
        {
            clocks.push((white_ms, black_ms));
        }
    }
    let c = clock.lock().unwrap();
    // Before move 1 the device was set to the start: 5:02 each over the
    // board (base + increment), White's clock running.
    match c.shown().first() {
        Some(Shown::Times { face, .. }) => assert_eq!(
            (face.white_ms, face.black_ms, face.running),
            (302_000, 302_000, Some(Color::White))
        ),
        other => panic!("first shown: {other:?}"),
    }
    assert_eq!(c.last_move(), Some("e5"));
    let face = c.face().expect("times shown");
    assert_eq!((face.white_ms, face.black_ms), clocks[1]);
    assert_eq!(face.running, Some(Color::White));
    // The press times came from the device: White used 1.6 s, Black 2.0 s
    // (+2 s each); over the board both clocks started at 5:02 (base + increment).
    assert_eq!(clocks[0], (302_000 - 1_600 + 2_000, 302_000));
    assert_eq!(
        clocks[1],
        (302_000 - 1_600 + 2_000, 302_000 - 2_000 + 2_000)
    );
    drop(daemon);
}

#[test]
fn the_vi_players_device_asks_for_the_time_through_the_api_channel() {
    let mut cfg = Config::default();
    cfg.event.time_control = Some("5400+30".into());
    cfg.event.language = Some(eboard::model::Lang::Da);
    cfg.game.vi_player = Some("b".into());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let daemon = Daemon::start(
        RunOptions {
            config: cfg,
            delay_s: 0,
            journal: None,
            source: Box::new(std::iter::empty()),
            source_header: None,
            source_is_recording: false,
            speed: 1.0,
            on_event: None,
            clock_device: None,
            source_is_live: true,
        },
        rt.handle(),
    )
    .unwrap();
    let (reply, rx) = tokio::sync::oneshot::channel();
    let cmd = eboard::daemon::ArbiterCommand {
        kind: RecordKind::Query {
            what: eboard::trace::QueryKind::Time,
            by: Color::Black,
            piece: None,
            author: None,
        },
        reply,
    };
    rt.block_on(async {
        daemon.commands.send(cmd).await.unwrap();
        let r = tokio::time::timeout(Duration::from_secs(10), rx)
            .await
            .unwrap()
            .unwrap();
        let ann: Vec<&Event> = r
            .events
            .iter()
            .filter(|e| e.type_name() == "announce")
            .collect();
        assert_eq!(ann.len(), 1, "{:?}", r.events);
        match &ann[0].kind {
            EventKind::Announce { text, lang, .. } => {
                assert_eq!(lang.as_str(), "da");
                // The time left first (issue 29), then the moves made.
                assert!(text.starts_with("Tid tilbage: "), "{text}");
                assert!(text.contains("0 træk spillet"), "{text}");
                // Over the board the clock shows 1:30:30 before move 1.
                assert!(
                    text.contains("sort 1 time 30 minutter og 30 sekunder"),
                    "{text}"
                );
            }
            _ => unreachable!(),
        }
    });
}
