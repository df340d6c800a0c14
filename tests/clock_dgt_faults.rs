//! The DGT driver over a real pseudo-terminal when the line or the clock
//! fails: acks lost and retried, garbage between frames skipped, a clock
//! switched off going offline in time, a port unplugged, a garbled time
//! message pressing nothing. The fake board-and-clock and the rig are
//! `tests/common/dgt_fake.rs`; the ordinary conversation is
//! `tests/clock_dgt_pty.rs`.

use crate::common;

use common::dgt_fake::*;
use eboard::clock::device::{ClockDevice, ClockDeviceError, ClockInput};
use shakmaty::Color;

/// Lost acks: the driver resends the same command and carries on.
#[test]
fn lost_acks_are_retried() {
    let script = Script {
        drop_acks: 2,
        ..Script::default()
    };
    let (mut r, fake, _pty) = rig(script);
    r.settle(3000);
    let version = vec![0x2b, 0x03, 0x03, 0x09, 0x00];
    assert_eq!(fake.clock_frames(), vec![version.clone(); 3]);
    let now = r.now();
    r.clock.set_times(now, face_black_runs(now)).unwrap();
    r.settle(3000);
    let frames = fake.clock_frames();
    assert_eq!(frames.len(), 4, "SETNRUN acked at once: {frames:?}");
    assert_eq!(frames[3], SETNRUN_BYTES.to_vec());
    let st = r.clock.stats();
    assert_eq!(st.resends, 2);
    assert_eq!(st.acked, 2);
    assert_eq!(st.given_up, 0);
    assert!(!r.offline_seen(), "{:?}", r.seen);
    assert!(r.clock.is_online());
}

/// Garbage between frames: the driver resyncs on the next message byte and
/// loses nothing.
#[test]
fn garbage_between_frames_is_skipped() {
    let script = Script {
        garbage: true,
        ..Script::default()
    };
    let (mut r, fake, _pty) = rig(script);
    r.settle(3000);
    let now = r.now();
    r.clock.set_times(now, face_black_runs(now)).unwrap();
    r.settle(3000);
    fake.act(Act::Lever { right_down: true });
    assert!(r.until(2000, is_press(Color::Black)).is_some());
    let st = r.clock.stats();
    assert_eq!(st.resends, 0, "{st:?}");
    assert_eq!(st.acked, 2);
    assert!(st.discarded_bytes >= 2 * GARBAGE.len() as u64 - 2, "{st:?}");
    assert!(!r.offline_seen(), "{:?}", r.seen);
}

/// A clock that is switched off: bounded retries, then offline within the
/// ack timeout budget, and the driver keeps working without hanging.
#[test]
fn switched_off_clock_goes_offline_in_time() {
    let script = Script {
        silent: true,
        ..Script::default()
    };
    let (mut r, fake, _pty) = rig(script);
    let t0 = r.now();
    let off = r
        .until(3000, |i| matches!(i, ClockInput::Offline { .. }))
        .expect("offline reported");
    let budget = 3 * 150;
    match &off {
        ClockInput::Offline {
            t_ms,
            reason: ClockDeviceError::NoAck {
                command, attempts, ..
            },
        } => {
            assert_eq!(*command, "VERSION");
            assert_eq!(*attempts, 3);
            assert!(*t_ms >= t0 + budget, "too early: {t_ms}");
            assert!(*t_ms <= t0 + budget + 400, "too late: {t_ms}");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(!r.clock.is_online());
    // Commands still go out, with bounded retries, and poll never blocks.
    let now = r.now();
    r.clock.set_times(now, face_black_runs(now)).unwrap();
    r.settle(3000);
    let frames = fake.clock_frames();
    assert_eq!(frames.len(), 6, "{frames:?}");
    assert!(frames[3..].iter().all(|f| f == &SETNRUN_BYTES.to_vec()));
    assert!(fake.board_cmds().contains(&0x41), "keep-alive sent");
    let offline_events = r
        .seen
        .iter()
        .filter(|i| matches!(i, ClockInput::Offline { .. }))
        .count();
    assert_eq!(offline_events, 1, "{:?}", r.seen);
    assert_eq!(r.clock.stats().given_up, 2);
}

/// Pulling the cable (the master side closes): a typed error, no panic.
#[test]
fn unplugged_port_is_an_error() {
    let (mut r, fake, _pty) = rig(Script::default());
    r.settle(2000);
    fake.act(Act::Unplug);
    drop(fake);
    let deadline = r.now() + 2000;
    let err = loop {
        let now = r.now();
        assert!(now < deadline, "no error after unplugging");
        match r.clock.poll(now) {
            Ok(inputs) => r.seen.extend(inputs),
            Err(e) => break e,
        }
    };
    eprintln!("unplugged: {err}");
    assert!(matches!(err, ClockDeviceError::Io { .. }), "{err}");
    assert!(!r.clock.is_online());
}

/// A garbled time message presses nothing: its digits decode, but a time
/// went up (7 h where 1:30 was) or fell by more than an hour, and its
/// lever bit is flipped. A real press afterwards still counts.
#[test]
fn a_garbled_time_message_presses_nothing() {
    let (mut r, fake, _pty) = rig(Script::default());
    assert!(r
        .until(2000, |i| matches!(i, ClockInput::Online { .. }))
        .is_some());
    r.settle(2000);
    let now = r.now();
    r.clock.set_times(now, face_black_runs(now)).unwrap();
    r.settle(2000);
    assert!(r
        .until(2000, |i| matches!(
            i,
            ClockInput::Shown {
                white_ms: 5_429_000,
                ..
            }
        ))
        .is_some());
    // Right (Black) 1:30:00, left (White) 1:30:29; lever up on the right.
    // Garbled: right 7:30:00 with the lever down on the right (status 0x03).
    let garbled_up = vec![0x8d, 0x00, 0x0a, 0x07, 0x30, 0x00, 0x01, 0x30, 0x29, 0x03];
    // Garbled: left 0:00:29 (a fall of 1:30), lever down on the right.
    let garbled_down = vec![0x8d, 0x00, 0x0a, 0x01, 0x30, 0x00, 0x00, 0x00, 0x29, 0x03];
    // Between them the real clock, lever unchanged.
    let real = vec![0x8d, 0x00, 0x0a, 0x01, 0x29, 0x59, 0x01, 0x30, 0x29, 0x01];
    for msg in [garbled_up, real.clone(), garbled_down, real] {
        fake.act(Act::Raw(msg));
        let seen_before = r.seen.len();
        let deadline = r.now() + 300;
        while r.now() < deadline {
            let now = r.now();
            r.seen.extend(r.clock.poll(now).unwrap());
        }
        assert!(r.seen.len() >= seen_before);
    }
    let presses: Vec<_> = r
        .seen
        .iter()
        .filter(|i| matches!(i, ClockInput::Press { .. }))
        .collect();
    assert!(presses.is_empty(), "a garbled message pressed: {presses:?}");
    assert_eq!(
        r.clock.stats().implausible_times,
        2,
        "{:?}",
        r.clock.stats()
    );
    // The real lever still works.
    fake.act(Act::Lever { right_down: true });
    assert!(r.until(2000, is_press(Color::Black)).is_some());
}
