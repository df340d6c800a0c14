//! The DGT driver over a real pseudo-terminal: the driver opens the slave
//! side by its path (as it opens `/dev/ttyACM0`), and a fake DGT board with
//! a DGT 3000 runs in a thread on the master side, answering as the
//! protocol notes say the device does (`src/clock/dgt/mod.rs` module docs).
//!
//! No sleeps: the driver's reads time out after 10 ms, the fake waits with
//! `poll(2)`, and every wait has a deadline.
//!
//! Length: one fake board-and-clock and every conversation with it
//! (PicoChess's handshake, END after SETNRUN, garbled times); split, each
//! file would carry its own copy of the fake.

use eboard::clock::device::{ClockDevice, ClockDeviceError, ClockFace, ClockInput};
use eboard::clock::dgt::{DgtClock, DgtConfig};
use shakmaty::Color;
use std::ffi::CStr;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// A pty pair: the master for the fake, the slave's path for the driver.
/// The test keeps a slave fd open so the master never sees a hang-up.
struct Pty {
    master: File,
    _slave: File,
    path: String,
}

fn openpty() -> Pty {
    let (mut m, mut s) = (-1, -1);
    // SAFETY: out-pointers to two ints; name, termios and winsize are null.
    let rc = unsafe {
        libc::openpty(
            &mut m,
            &mut s,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // openpty(3) sets no close-on-exec: the daemons and browsers other tests
    // of this process start (tests/suite.rs) would inherit both ends.
    for fd in [m, s] {
        // SAFETY: fcntl on the two descriptors openpty just returned.
        let rc = unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        assert_eq!(rc, 0, "FD_CLOEXEC: {}", std::io::Error::last_os_error());
    }
    let mut buf = [0 as libc::c_char; 128];
    // SAFETY: buf is writable for its length.
    let rc = unsafe { libc::ttyname_r(s, buf.as_mut_ptr(), buf.len()) };
    assert_eq!(rc, 0, "ttyname_r");
    // SAFETY: ttyname_r wrote a NUL-terminated string into buf.
    let path = unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned();
    // Raw mode on the line (the driver sets it too when it opens the port).
    // SAFETY: termios is plain data filled by tcgetattr.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        assert_eq!(libc::tcgetattr(s, &mut t), 0);
        libc::cfmakeraw(&mut t);
        assert_eq!(libc::tcsetattr(s, libc::TCSANOW, &t), 0);
    }
    // SAFETY: both fds are fresh from openpty and owned from here on.
    Pty {
        master: unsafe { File::from_raw_fd(m) },
        _slave: unsafe { File::from_raw_fd(s) },
        path,
    }
}

/// How the fake misbehaves.
#[derive(Clone, Copy, Default)]
struct Script {
    /// Clock commands whose ack is lost (the first N).
    drop_acks: usize,
    /// Garbage bytes before every answer.
    garbage: bool,
    /// The clock is switched off and the board says nothing at all.
    silent: bool,
}

/// What the test tells the fake to do as the players.
enum Act {
    Lever {
        right_down: bool,
    },
    Button {
        code: u8,
    },
    /// Close the master side (the cable is pulled).
    Unplug,
    /// Send these bytes as they are (a garbled message).
    Raw(Vec<u8>),
}

#[derive(Default)]
struct Log {
    board_cmds: Vec<u8>,
    clock_frames: Vec<Vec<u8>>,
}

struct Fake {
    tx: Option<Sender<Act>>,
    log: Arc<Mutex<Log>>,
    handle: Option<JoinHandle<()>>,
}

impl Fake {
    fn act(&self, a: Act) {
        self.tx.as_ref().unwrap().send(a).unwrap();
    }
    fn clock_frames(&self) -> Vec<Vec<u8>> {
        self.log.lock().unwrap().clock_frames.clone()
    }
    fn board_cmds(&self) -> Vec<u8> {
        self.log.lock().unwrap().board_cmds.clone()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn bcd(v: u8) -> u8 {
    (v / 10) << 4 | (v % 10)
}

/// Encodes a clock ack the way the board does: the inverse of the bit
/// shuffle in dgtbrd.h (b3 and b6 carry the 0x0a marker and the high bits).
fn ack_message(ack0: u8, ack1: u8, ack2: u8, ack3: u8) -> Vec<u8> {
    let b3 = 0x0a | ((ack2 & 0x80) >> 3) | ((ack3 & 0x80) >> 2);
    let b6 = 0x0a | ((ack0 & 0x80) >> 3) | ((ack1 & 0x80) >> 2);
    vec![
        0x8d,
        0x00,
        0x0a,
        b3,
        ack0 & 0x7f,
        ack1 & 0x7f,
        b6,
        ack2 & 0x7f,
        ack3 & 0x7f,
        0x00,
    ]
}

struct FakeState {
    left: [u8; 3],
    right: [u8; 3],
    lever_right_down: bool,
    acks_to_drop: usize,
}

fn times_message(st: &FakeState) -> Vec<u8> {
    let status = 0x01 | if st.lever_right_down { 0x02 } else { 0x00 };
    vec![
        0x8d,
        0x00,
        0x0a,
        st.right[0],
        bcd(st.right[1]),
        bcd(st.right[2]),
        st.left[0],
        bcd(st.left[1]),
        bcd(st.left[2]),
        status,
    ]
}

const GARBAGE: [u8; 9] = [0x00, 0x55, 0x7f, 0x8d, 0x00, 0x0a, 0x01, 0xff, 0x13];

fn spawn_fake(master: File, script: Script) -> Fake {
    let (tx, rx) = channel();
    let log = Arc::new(Mutex::new(Log::default()));
    let log2 = log.clone();
    let handle = std::thread::spawn(move || fake_main(master, script, rx, log2));
    Fake {
        tx: Some(tx),
        log,
        handle: Some(handle),
    }
}

fn fake_main(mut master: File, script: Script, rx: Receiver<Act>, log: Arc<Mutex<Log>>) {
    let mut st = FakeState {
        left: [0, 5, 0],
        right: [0, 5, 0],
        lever_right_down: false,
        acks_to_drop: script.drop_acks,
    };
    let mut inbuf: Vec<u8> = Vec::new();
    let send = |master: &mut File, msg: &[u8]| {
        if script.silent {
            return;
        }
        let mut out = Vec::new();
        if script.garbage {
            out.extend_from_slice(&GARBAGE);
        }
        out.extend_from_slice(msg);
        let _ = master.write_all(&out);
    };
    loop {
        match rx.try_recv() {
            Ok(Act::Lever { right_down }) => {
                st.lever_right_down = right_down;
                send(&mut master, &times_message(&st));
            }
            Ok(Act::Button { code }) => {
                send(&mut master, &ack_message(0x10, 0x88, 0x05, code));
            }
            Ok(Act::Raw(bytes)) => send(&mut master, &bytes),
            Ok(Act::Unplug) | Err(TryRecvError::Disconnected) => return,
            Err(TryRecvError::Empty) => {}
        }
        let mut pfd = libc::pollfd {
            fd: master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, 10) };
        if n <= 0 || pfd.revents & libc::POLLIN == 0 {
            continue;
        }
        let mut buf = [0u8; 256];
        let got = match master.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        inbuf.extend_from_slice(&buf[..got]);
        // Cut the PC's bytes into board commands and 0x2b clock frames.
        while let Some(&first) = inbuf.first() {
            if first == 0x2b {
                if inbuf.len() < 2 || inbuf.len() < 2 + inbuf[1] as usize {
                    break;
                }
                let frame: Vec<u8> = inbuf.drain(..2 + inbuf[1] as usize).collect();
                log.lock().unwrap().clock_frames.push(frame.clone());
                let cmd = frame[3];
                if cmd == 0x0a && frame.len() == 12 {
                    st.left = [frame[4], frame[5], frame[6]];
                    st.right = [frame[7], frame[8], frame[9]];
                }
                if st.acks_to_drop > 0 {
                    st.acks_to_drop -= 1;
                    continue;
                }
                let ack2 = if cmd == 0x09 { 0x21 } else { 0x00 };
                send(&mut master, &ack_message(0x10, cmd, ack2, 0x00));
            } else {
                inbuf.remove(0);
                log.lock().unwrap().board_cmds.push(first);
                if first == 0x41 || first == 0x4b {
                    send(&mut master, &times_message(&st));
                }
                if first == 0x4d {
                    // DGT_MSG_VERSION: 0x93, length 5, version 1.2.
                    send(&mut master, &[0x93, 0x00, 0x05, 0x01, 0x02]);
                }
            }
        }
    }
}

fn config() -> DgtConfig {
    DgtConfig {
        white_on_left: true,
        ack_timeout_ms: 150,
        attempts: 3,
        keepalive_ms: 200,
        offline_after_ms: 1000,
        move_text_ms: 300,
        // The tests above count frames without it; END after SETNRUN has
        // its own test (`end_follows_setnrun_as_picochess_sends_it`).
        end_after_setnrun: false,
    }
}

type Port = Box<dyn serialport::SerialPort>;

struct Rig {
    clock: DgtClock<Port>,
    start: Instant,
    seen: Vec<ClockInput>,
}

impl Rig {
    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Polls until `pred` holds for a new input or `limit_ms` of real time
    /// pass; returns the matching input.
    fn until(&mut self, limit_ms: u64, pred: impl Fn(&ClockInput) -> bool) -> Option<ClockInput> {
        let end = self.now() + limit_ms;
        while self.now() < end {
            let now = self.now();
            let inputs = self.clock.poll(now).expect("poll");
            for i in inputs {
                self.seen.push(i.clone());
                if pred(&i) {
                    return Some(i);
                }
            }
        }
        None
    }

    /// Polls until no clock command waits for its ack.
    fn settle(&mut self, limit_ms: u64) {
        let end = self.now() + limit_ms;
        loop {
            let now = self.now();
            let inputs = self.clock.poll(now).expect("poll");
            self.seen.extend(inputs);
            if !self.clock.busy() {
                return;
            }
            assert!(now < end, "commands still waiting after {limit_ms} ms");
        }
    }

    fn offline_seen(&self) -> bool {
        self.seen
            .iter()
            .any(|i| matches!(i, ClockInput::Offline { .. }))
    }
}

fn rig(script: Script) -> (Rig, Fake, File) {
    let Pty {
        master,
        _slave: slave,
        path,
    } = openpty();
    // The fake owns the only master fd: when it ends, the line hangs up.
    let fake = spawn_fake(master, script);
    let clock = DgtClock::open(&path, config()).expect("open pty slave");
    (
        Rig {
            clock,
            start: Instant::now(),
            seen: Vec::new(),
        },
        fake,
        slave,
    )
}

fn face_black_runs(at_ms: u64) -> ClockFace {
    ClockFace {
        white_ms: 5_428_100,
        black_ms: 5_400_000,
        running: Some(Color::Black),
        at_ms,
    }
}

const SETNRUN_BYTES: [u8; 12] = [0x2b, 0x0a, 0x03, 0x0a, 1, 30, 29, 1, 30, 0, 0x02, 0x00];

fn is_press(by: Color) -> impl Fn(&ClockInput) -> bool {
    move |i| matches!(i, ClockInput::Press { by: b, .. } if *b == by)
}

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
