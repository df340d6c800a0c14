//! A sound card for the tests: audio captured at real-time speed, as a
//! device plays it (issue 29: files written as fast as the player can
//! write them hide what a listener hears and when).
//!
//! Each output is an ALSA PCM of `type file` whose file is a named pipe
//! (FIFO) read by [`PacedSink`]: the reader shrinks the pipe to one page
//! (4096 bytes, 23 ms of 16-bit stereo at 22 050 Hz), consumes the samples
//! at the sample rate and keeps at most [`AHEAD`] of them in hand, so the
//! player program blocks as it would on a sound card, and every sample is
//! stamped with the instant it "plays". The `null` plugin under the `file`
//! plugin only discards; the pacing is the reader's (ALSA's `file` plugin
//! into a plain file, as the older tests use, is not paced, and the `null`
//! plugin alone accepts audio as fast as it is written).
//!
//! What comes out: per channel, the stretches of sound ([`Heard`]), split
//! where the sound pauses for more than [`PAUSE`]. A player program
//! exits up to one pipe plus [`AHEAD`] (≈ 45 ms) before its last sample
//! plays here, as it does on a sound card with a buffer that size.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The sample rate the sinks play at (espeak-ng's voices: 22 050 Hz).
pub const RATE: u32 = 22_050;
/// Bytes per stereo 16-bit frame.
const FRAME: usize = 4;
/// How far ahead of the playing position the reader reads.
pub const AHEAD: Duration = Duration::from_millis(20);
/// A silence longer than this ends a stretch of sound (espeak-ng's pauses
/// inside one phrase, at a comma or a full stop, are shorter).
pub const PAUSE: Duration = Duration::from_millis(900);
/// A sample counts as sound from this magnitude (−40 dBFS).
const SOUND: i16 = 328;

/// One stretch of sound on a channel: when it started and ended playing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heard {
    /// The first sounding sample's instant.
    pub start: Instant,
    /// The instant after the last sounding sample.
    pub end: Instant,
}

#[derive(Default)]
struct Log {
    /// Per channel (left, right).
    heard: [Vec<Heard>; 2],
}

/// One paced output (see the module doc).
pub struct PacedSink {
    /// The ALSA PCM's name.
    pub name: String,
    fifo: PathBuf,
    log: Arc<Mutex<Log>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PacedSink {
    /// A FIFO `NAME.fifo` in `dir` read at the sample rate from now on.
    pub fn start(dir: &Path, name: &str) -> PacedSink {
        let fifo = dir.join(format!("{name}.fifo"));
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        let r = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
        assert_eq!(r, 0, "mkfifo {}", fifo.display());
        // Read and write: the open does not wait for a writer, the pipe
        // lives across the player's runs, and its size is set before any
        // audio arrives.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        // SAFETY: fcntl on an open descriptor.
        let size = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETPIPE_SZ, 4096) };
        assert!(size > 0, "F_SETPIPE_SZ");
        let log: Arc<Mutex<Log>> = Default::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (l, s) = (log.clone(), stop.clone());
        let thread = std::thread::spawn(move || read_paced(file, l, s));
        PacedSink {
            name: name.to_owned(),
            fifo,
            log,
            stop,
            thread: Some(thread),
        }
    }

    /// The asoundrc stanza of this output.
    pub fn alsa_conf(&self) -> String {
        format!(
            "pcm.{} {{\n type file\n slave.pcm \"null\"\n file \"{}\"\n format \"raw\"\n}}\n",
            self.name,
            self.fifo.display()
        )
    }

    /// The stretches of sound heard so far on `channel` (0 left, 1 right).
    pub fn heard(&self, channel: usize) -> Vec<Heard> {
        self.log.lock().unwrap().heard[channel].clone()
    }
}

impl Drop for PacedSink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// An asoundrc in `dir` defining `sinks`; the value for `ALSA_CONFIG_PATH`.
pub fn alsa_config(dir: &Path, sinks: &[&PacedSink]) -> String {
    let rc = dir.join("asoundrc");
    let conf: String = sinks.iter().map(|s| s.alsa_conf()).collect();
    std::fs::write(&rc, conf).unwrap();
    format!("/usr/share/alsa/alsa.conf:{}", rc.display())
}

fn read_paced(file: std::fs::File, log: Arc<Mutex<Log>>, stop: Arc<AtomicBool>) {
    use std::io::Read;
    let mut file = file;
    let fd = file.as_raw_fd();
    let per_sec = (RATE as usize * FRAME) as f64;
    // The instant the next byte read plays.
    let mut playhead = Instant::now();
    let mut buf = vec![0u8; 1024];
    let mut carry: Vec<u8> = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut pfd, 1, 20) };
        if ready <= 0 {
            continue;
        }
        let n = match file.read(&mut buf) {
            Ok(0) | Err(_) => continue,
            Ok(n) => n,
        };
        let now = Instant::now();
        // A device that ran dry starts again now (an underrun).
        if playhead < now {
            playhead = now;
        }
        carry.extend_from_slice(&buf[..n]);
        let frames = carry.len() / FRAME;
        {
            let mut l = log.lock().unwrap();
            for i in 0..frames {
                let at = playhead + Duration::from_secs_f64(i as f64 / f64::from(RATE));
                for ch in 0..2 {
                    let o = i * FRAME + ch * 2;
                    let s = i16::from_le_bytes([carry[o], carry[o + 1]]);
                    if s.unsigned_abs() >= SOUND.unsigned_abs() {
                        let end = at + Duration::from_secs_f64(1.0 / f64::from(RATE));
                        let h = &mut l.heard[ch];
                        match h.last_mut() {
                            Some(last) if at <= last.end + PAUSE => last.end = end,
                            _ => h.push(Heard { start: at, end }),
                        }
                    }
                }
            }
        }
        carry.drain(..frames * FRAME);
        playhead += Duration::from_secs_f64((frames * FRAME) as f64 / per_sec);
        // Keep no more than AHEAD in hand: the writer waits, as on a card.
        let hold = playhead.saturating_duration_since(Instant::now());
        if hold > AHEAD {
            std::thread::sleep(hold - AHEAD);
        }
    }
}
