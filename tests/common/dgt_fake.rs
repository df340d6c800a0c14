//! A fake DGT board with a DGT 3000 on the master side of a real
//! pseudo-terminal, answering as the protocol notes say the device does
//! (`src/clock/dgt/mod.rs` module docs), and the rig that opens the DGT
//! driver on the slave side by its path (as it opens `/dev/ttyACM0`): the
//! set-up of `tests/clock_dgt_pty.rs` and `tests/clock_dgt_faults.rs`.
//!
//! No sleeps: the driver's reads time out after 10 ms, the fake waits with
//! `poll(2)`, and every wait has a deadline.

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
pub struct Pty {
    pub master: File,
    pub _slave: File,
    pub path: String,
}

pub fn openpty() -> Pty {
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
pub struct Script {
    /// Clock commands whose ack is lost (the first N).
    pub drop_acks: usize,
    /// Garbage bytes before every answer.
    pub garbage: bool,
    /// The clock is switched off and the board says nothing at all.
    pub silent: bool,
}

/// What the test tells the fake to do as the players.
pub enum Act {
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
pub struct Log {
    pub board_cmds: Vec<u8>,
    pub clock_frames: Vec<Vec<u8>>,
}

pub struct Fake {
    pub tx: Option<Sender<Act>>,
    pub log: Arc<Mutex<Log>>,
    pub handle: Option<JoinHandle<()>>,
}

impl Fake {
    pub fn act(&self, a: Act) {
        self.tx.as_ref().unwrap().send(a).unwrap();
    }
    pub fn clock_frames(&self) -> Vec<Vec<u8>> {
        self.log.lock().unwrap().clock_frames.clone()
    }
    pub fn board_cmds(&self) -> Vec<u8> {
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

pub fn bcd(v: u8) -> u8 {
    (v / 10) << 4 | (v % 10)
}

/// Encodes a clock ack the way the board does: the inverse of the bit
/// shuffle in dgtbrd.h (b3 and b6 carry the 0x0a marker and the high bits).
pub fn ack_message(ack0: u8, ack1: u8, ack2: u8, ack3: u8) -> Vec<u8> {
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

pub struct FakeState {
    pub left: [u8; 3],
    pub right: [u8; 3],
    pub lever_right_down: bool,
    pub acks_to_drop: usize,
}

pub fn times_message(st: &FakeState) -> Vec<u8> {
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

pub const GARBAGE: [u8; 9] = [0x00, 0x55, 0x7f, 0x8d, 0x00, 0x0a, 0x01, 0xff, 0x13];

pub fn spawn_fake(master: File, script: Script) -> Fake {
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

pub fn fake_main(mut master: File, script: Script, rx: Receiver<Act>, log: Arc<Mutex<Log>>) {
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

pub fn config() -> DgtConfig {
    DgtConfig {
        white_on_left: true,
        ack_timeout_ms: 150,
        attempts: 3,
        keepalive_ms: 200,
        offline_after_ms: 1000,
        move_text_ms: 300,
        // The tests count frames without it; END after SETNRUN has
        // its own test (`end_follows_setnrun_as_picochess_sends_it`).
        end_after_setnrun: false,
    }
}

pub type Port = Box<dyn serialport::SerialPort>;

pub struct Rig {
    pub clock: DgtClock<Port>,
    pub start: Instant,
    pub seen: Vec<ClockInput>,
}

impl Rig {
    pub fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Polls until `pred` holds for a new input or `limit_ms` of real time
    /// pass; returns the matching input.
    pub fn until(
        &mut self,
        limit_ms: u64,
        pred: impl Fn(&ClockInput) -> bool,
    ) -> Option<ClockInput> {
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
    pub fn settle(&mut self, limit_ms: u64) {
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

    pub fn offline_seen(&self) -> bool {
        self.seen
            .iter()
            .any(|i| matches!(i, ClockInput::Offline { .. }))
    }
}

pub fn rig(script: Script) -> (Rig, Fake, File) {
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

pub fn face_black_runs(at_ms: u64) -> ClockFace {
    ClockFace {
        white_ms: 5_428_100,
        black_ms: 5_400_000,
        running: Some(Color::Black),
        at_ms,
    }
}

pub const SETNRUN_BYTES: [u8; 12] = [0x2b, 0x0a, 0x03, 0x0a, 1, 30, 29, 1, 30, 0, 0x02, 0x00];

pub fn is_press(by: Color) -> impl Fn(&ClockInput) -> bool {
    move |i| matches!(i, ClockInput::Press { by: b, .. } if *b == by)
}
