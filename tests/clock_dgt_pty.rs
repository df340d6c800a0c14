//! The DGT driver over a real pseudo-terminal, in the conversation the
//! device has: PicoChess's handshake, the times sent in the clock's
//! convention, the lever and the text; END after SETNRUN as PicoChess
//! sends it; a clock switched on late asked its version again. The fake
//! board-and-clock and the rig are `tests/common/dgt_fake.rs`; a faulty
//! line or clock is `tests/clock_dgt_faults.rs`.

use crate::common;

use common::dgt_fake::*;
use eboard::clock::device::{ClockDevice, ClockFace, ClockInput};
use eboard::clock::dgt::{DgtClock, DgtConfig};
use shakmaty::Color;
use std::time::Instant;

/// The normal conversation: handshake, set times, lever presses, a button,
/// move text and back to the times.
#[test]
fn handshake_times_lever_and_text() {
    let (mut r, fake, _pty) = rig(Script::default());
    assert!(r
        .until(2000, |i| matches!(i, ClockInput::Online { .. }))
        .is_some());
    r.settle(2000);
    assert_eq!(fake.board_cmds()[0], 0x4b, "UPDATE_NICE first");
    assert_eq!(fake.clock_frames()[0], vec![0x2b, 0x03, 0x03, 0x09, 0x00]);

    let now = r.now();
    r.clock.set_times(now, face_black_runs(now)).unwrap();
    r.settle(2000);
    assert_eq!(fake.clock_frames().last().unwrap(), &SETNRUN_BYTES.to_vec());
    // The fake now reports the times it was set to (left = White).
    assert!(r
        .until(2000, |i| matches!(
            i,
            ClockInput::Shown {
                white_ms: 5_429_000,
                black_ms: 5_400_000,
                ..
            }
        ))
        .is_some());

    fake.act(Act::Lever { right_down: true });
    assert!(r.until(2000, is_press(Color::Black)).is_some());
    fake.act(Act::Lever { right_down: false });
    assert!(r.until(2000, is_press(Color::White)).is_some());
    fake.act(Act::Button { code: 0x33 });
    assert!(r
        .until(2000, |i| matches!(
            i,
            ClockInput::Button {
                button: eboard::clock::device::ClockButton::PlayPause,
                ..
            }
        ))
        .is_some());

    let now = r.now();
    r.clock.show_move(now, "Nf3").unwrap();
    r.settle(2000);
    let frames = fake.clock_frames();
    assert_eq!(
        frames.last().unwrap(),
        &vec![0x2b, 0x0c, 0x03, 0x0c, b'N', b'f', b'3', b' ', b' ', b' ', b' ', b' ', 0x00, 0x00]
    );
    // After move_text_ms the times come back (END).
    let end = vec![0x2b, 0x03, 0x03, 0x03, 0x00];
    let deadline = r.now() + 2000;
    while fake.clock_frames().last() != Some(&end) {
        assert!(r.now() < deadline, "no END frame");
        let now = r.now();
        r.seen.extend(r.clock.poll(now).unwrap());
    }
    r.settle(2000);
    let presses = r
        .seen
        .iter()
        .filter(|i| matches!(i, ClockInput::Press { .. }))
        .count();
    assert_eq!(presses, 2, "{:?}", r.seen);
    assert!(!r.offline_seen(), "{:?}", r.seen);
    let st = r.clock.stats();
    assert_eq!(st.resends, 0);
    assert_eq!(st.given_up, 0);
    assert!(r.clock.is_online());
}

/// The times eboard sends follow the clock convention, and the clock then
/// shows them: over the board "15 min + 10 s from move 1" is 0:15:10 on both
/// sides before move 1 and 0:15:18 after White's 2-second first move (a DGT
/// 3000 in Fischer mode; docs/clock.md); online style (`@base`) 0:15:00 and
/// 0:15:08. The engine runs on injected time (the press at 2 s); the
/// driver, the line and the fake clock are real.
#[test]
fn sent_times_follow_the_clock_convention() {
    use eboard::clock::{Clock, TimeControl};
    for (tc, start, after) in [
        ("900+10", [0u8, 15, 10], [0u8, 15, 18]),
        ("900+10@base", [0, 15, 0], [0, 15, 8]),
    ] {
        let (mut r, fake, _pty) = rig(Script::default());
        assert!(r
            .until(2000, |i| matches!(i, ClockInput::Online { .. }))
            .is_some());
        r.settle(2000);
        // Set-up: the lever down on Black's side (White's clock to run).
        fake.act(Act::Lever { right_down: true });
        assert!(r.until(2000, is_press(Color::Black)).is_some());

        let mut engine = Clock::new(TimeControl::parse(tc).unwrap());
        engine.start(Color::White, 0);
        let face = |c: &Clock, engine_t: u64, at_ms: u64| {
            let (white_ms, black_ms) = c.remaining_at(engine_t);
            ClockFace {
                white_ms,
                black_ms,
                running: c.running(),
                at_ms,
            }
        };
        let setnrun = |l: [u8; 3], rt: [u8; 3], flags: u8| {
            vec![
                0x2b, 0x0a, 0x03, 0x0a, l[0], l[1], l[2], rt[0], rt[1], rt[2], flags, 0x00,
            ]
        };
        let secs = |h: [u8; 3]| (h[0] as u64 * 3600 + h[1] as u64 * 60 + h[2] as u64) * 1000;

        // Before move 1: both sides at the start, White (left) running.
        let now = r.now();
        r.clock.set_times(now, face(&engine, 0, now)).unwrap();
        r.settle(2000);
        assert_eq!(
            fake.clock_frames().last().unwrap(),
            &setnrun(start, start, 0x01),
            "{tc}: start"
        );
        let (w, b) = (secs(start), secs(start));
        assert!(
            r.until(
                2000,
                |i| matches!(i, ClockInput::Shown { white_ms, black_ms, .. }
                if *white_ms == w && *black_ms == b)
            )
            .is_some(),
            "{tc}: the clock shows the start times"
        );

        // White moves and presses: 2 s used on the engine's clock.
        fake.act(Act::Lever { right_down: false });
        assert!(r.until(2000, is_press(Color::White)).is_some(), "{tc}");
        engine.press(Color::White, 2_000);
        let now = r.now();
        r.clock.set_times(now, face(&engine, 2_000, now)).unwrap();
        r.settle(2000);
        assert_eq!(
            fake.clock_frames().last().unwrap(),
            &setnrun(after, start, 0x02),
            "{tc}: after 1. e4"
        );
        let (w, b) = (secs(after), secs(start));
        assert!(
            r.until(
                2000,
                |i| matches!(i, ClockInput::Shown { white_ms, black_ms, .. }
                if *white_ms == w && *black_ms == b)
            )
            .is_some(),
            "{tc}: the clock shows White's time with the increment"
        );
        assert!(!r.offline_seen(), "{tc}: {:?}", r.seen);
    }
}

/// PicoChess's start-up (`dgt/board.py`): UPDATE_NICE, the board's VERSION
/// (answered `0x93 0x00 0x05 major minor`), the clock's VERSION; and END
/// after every SETNRUN (`dgt/hw.py`, "needed for some(!) clocks").
#[test]
fn end_follows_setnrun_as_picochess_sends_it() {
    let Pty {
        master,
        _slave: _pty,
        path,
    } = openpty();
    let fake = spawn_fake(master, Script::default());
    let cfg = DgtConfig {
        end_after_setnrun: true,
        ..config()
    };
    let mut r = Rig {
        clock: DgtClock::open(&path, cfg).expect("open pty slave"),
        start: Instant::now(),
        seen: Vec::new(),
    };
    assert!(r
        .until(2000, |i| matches!(i, ClockInput::Online { .. }))
        .is_some());
    r.settle(2000);
    assert_eq!(
        &fake.board_cmds()[..2],
        &[0x4b, 0x4d],
        "UPDATE_NICE, SEND_VERSION"
    );
    let deadline = r.now() + 2000;
    while r.clock.stats().board_version.is_none() {
        assert!(r.now() < deadline, "the board's version never read");
        let now = r.now();
        r.seen.extend(r.clock.poll(now).unwrap());
    }
    assert_eq!(r.clock.stats().board_version, Some((1, 2)));
    let now = r.now();
    r.clock.set_times(now, face_black_runs(now)).unwrap();
    r.settle(2000);
    let frames = fake.clock_frames();
    let end = vec![0x2b, 0x03, 0x03, 0x03, 0x00];
    assert_eq!(
        frames[frames.len() - 2..],
        [SETNRUN_BYTES.to_vec(), end],
        "SETNRUN, then END once it is acked"
    );
    assert_eq!(r.clock.stats().given_up, 0);
}

/// A clock that did not answer VERSION at start (switched on late) is asked
/// again once its times arrive (PicoChess restarts the clock set-up then).
#[test]
fn a_late_clock_is_asked_its_version_again() {
    let script = Script {
        drop_acks: 3,
        ..Script::default()
    };
    let (mut r, fake, _pty) = rig(script);
    let version = vec![0x2b, 0x03, 0x03, 0x09, 0x00];
    let deadline = r.now() + 4000;
    while fake
        .clock_frames()
        .iter()
        .filter(|f| **f == version)
        .count()
        < 4
    {
        assert!(
            r.now() < deadline,
            "VERSION not asked again: {:?}",
            fake.clock_frames()
        );
        let now = r.now();
        r.seen.extend(r.clock.poll(now).unwrap());
    }
    r.settle(2000);
    assert_eq!(r.clock.stats().given_up, 1);
    assert!(r.clock.stats().acked >= 1, "{:?}", r.clock.stats());
    assert!(r.clock.is_online());
}
