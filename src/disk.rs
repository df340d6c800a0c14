//! Record-wise appending to a file that survives a failing disk: the
//! journal (`crate::journal`) and the MQTT queue (`crate::mqtt::outbox`)
//! write through [`RecordFile`].
//!
//! - Every record reaches the file whole or not at all: the whole line
//!   (newline included) is built first and given to one `write` call.
//! - A failed or short write (a full disk: `ENOSPC`, or what fitted of the
//!   record and then nothing) is cut off again: the file is truncated back
//!   to the end of the last whole record (`set_len`). The record stays in
//!   memory ([`RecordFile::waiting`]) and is written again, in order,
//!   before any later record; until then no later record is written, so
//!   the file is always a prefix of the records, never one with a hole.
//! - The state changes are reported ([`Health`]) so the owner can tell the
//!   arbiter once when the disk fails and once when it has recovered.
//!
//! The file operations go through [`AppendFile`], so tests inject faults
//! ([`FaultyFile`]: an `ENOSPC` at write N, short writes, a disk with a
//! byte budget that fills and empties) into the same code the daemon runs.
//! This module depends on nothing of the product.
//!
//! It must not depend on `journal` or `mqtt` (which write through it) or on
//! any other module: it is at the bottom of docs/dev/architecture.md's map.

pub mod checksum;

use std::collections::{BTreeSet, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The file operations of an append-only record file.
pub trait AppendFile: Send + std::fmt::Debug {
    /// One `write` call at the file's end (append mode): how many bytes of
    /// `buf` were written (fewer than `buf.len()` is a short write).
    fn write_once(&mut self, buf: &[u8]) -> io::Result<usize>;
    /// Truncates the file to `len` bytes (`ftruncate`).
    fn set_len(&mut self, len: u64) -> io::Result<()>;
    /// Flushes the file's data to the disk (`fdatasync`).
    fn sync(&mut self) -> io::Result<()>;
}

/// Opens a file for appending (created when missing); the daemon's is
/// [`os_opener`], a test's may inject faults ([`FaultyFile::opener`]).
pub type Opener = Arc<dyn Fn(&Path) -> io::Result<Box<dyn AppendFile>> + Send + Sync>;

/// The operating system's file, opened for appending.
#[derive(Debug)]
pub struct OsFile(File);

impl OsFile {
    /// Opens `path` for appending, creating it when missing.
    pub fn open(path: &Path) -> io::Result<OsFile> {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map(OsFile)
    }
}

impl AppendFile for OsFile {
    fn write_once(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match self.0.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => return r,
            }
        }
    }
    fn set_len(&mut self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.0.sync_data()
    }
}

/// The opener of the operating system's files ([`OsFile::open`]).
pub fn os_opener() -> Opener {
    Arc::new(|p: &Path| OsFile::open(p).map(|f| Box::new(f) as Box<dyn AppendFile>))
}

/// What a write left behind, for the owner to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    /// Everything is on the file.
    Written,
    /// The disk refused a record: `error` (with the file); `waiting`
    /// records are kept in memory; `first`: this is the first failure
    /// since the file was last whole (tell the arbiter now, not again).
    Failing {
        /// The error, naming the file.
        error: String,
        /// Records kept in memory, not yet on the file.
        waiting: usize,
        /// The first failure of an outage.
        first: bool,
    },
    /// The disk took the records again: `written` records that had waited
    /// are on the file now.
    Recovered {
        /// Records written that had waited.
        written: usize,
    },
}

/// An append-only file of records (lines), written whole or not at all.
#[derive(Debug)]
pub struct RecordFile {
    path: PathBuf,
    file: Box<dyn AppendFile>,
    /// The end of the last whole record on the file, bytes.
    end: u64,
    /// Records not yet on the file, in order.
    waiting: VecDeque<Vec<u8>>,
    /// The file may hold a part of a record after `end` (a truncation failed).
    torn: bool,
    /// The last failure, while failing.
    failing: Option<String>,
    /// Records written since waiting ones were (for [`Health::Recovered`]).
    dirty: bool,
}

impl RecordFile {
    /// Wraps `file` (at `path`), whose whole records end at byte `end`.
    pub fn new(path: &Path, file: Box<dyn AppendFile>, end: u64) -> RecordFile {
        RecordFile {
            path: path.to_owned(),
            file,
            end,
            waiting: VecDeque::new(),
            torn: false,
            failing: None,
            dirty: false,
        }
    }

    /// Opens `path` with `opener`; its whole records end at byte `end`
    /// (anything after is cut off before the first write).
    pub fn open(path: &Path, opener: &Opener, end: u64) -> io::Result<RecordFile> {
        let file = opener(path)?;
        let mut f = RecordFile::new(path, file, end);
        f.torn = true;
        Ok(f)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The end of the last whole record on the file, bytes.
    pub fn len(&self) -> u64 {
        self.end
    }

    /// True when no record is on the file.
    pub fn is_empty(&self) -> bool {
        self.end == 0
    }

    /// Records kept in memory, not yet on the file (a failing disk).
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Appends `line` (one record: the whole line, its newline included)
    /// after the records still waiting, in order.
    pub fn append(&mut self, line: Vec<u8>) -> Health {
        debug_assert!(line.ends_with(b"\n"), "a record is a whole line");
        self.waiting.push_back(line);
        self.flush()
    }

    /// Writes the records still waiting (the disk may have recovered).
    pub fn retry(&mut self) -> Health {
        if self.waiting.is_empty() && self.failing.is_none() {
            return Health::Written;
        }
        self.flush()
    }

    /// Writes the waiting records, one `write` each, in order; stops at the
    /// first that does not go whole, cutting its part off again.
    fn flush(&mut self) -> Health {
        let before = self.waiting.len();
        let was_failing = self.failing.is_some();
        while let Some(rec) = self.waiting.front() {
            if self.torn {
                if let Err(e) = self.file.set_len(self.end) {
                    return self.failed(format!("cannot cut a torn record off: {e}"), was_failing);
                }
                self.torn = false;
            }
            match self.file.write_once(rec) {
                Ok(n) if n == rec.len() => {
                    self.end += n as u64;
                    self.waiting.pop_front();
                }
                r => {
                    let why = match r {
                        Ok(n) => format!("short write ({n} of {} bytes)", rec.len()),
                        Err(e) => e.to_string(),
                    };
                    // What went of the record is cut off again.
                    self.torn = true;
                    if let Err(e) = self.file.set_len(self.end) {
                        tracing::error!(
                            file = %self.path.display(),
                            "cannot cut a part-written record off ({e}); retried before the next write"
                        );
                    } else {
                        self.torn = false;
                    }
                    return self.failed(why, was_failing);
                }
            }
        }
        self.dirty = true;
        if was_failing {
            self.failing = None;
            Health::Recovered { written: before }
        } else {
            Health::Written
        }
    }

    fn failed(&mut self, why: String, was_failing: bool) -> Health {
        let error = format!("{}: {why}", self.path.display());
        self.failing = Some(error.clone());
        Health::Failing {
            error,
            waiting: self.waiting.len(),
            first: !was_failing,
        }
    }

    /// Flushes what was written to the disk (`fdatasync`); errors name the file.
    pub fn sync(&mut self) -> Result<(), String> {
        if !self.dirty {
            return Ok(());
        }
        self.file
            .sync()
            .map_err(|e| format!("{}: cannot sync: {e}", self.path.display()))?;
        self.dirty = false;
        Ok(())
    }
}

/// One injected fault of a [`FaultyFile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The write fails with `ENOSPC` and writes nothing.
    NoSpace,
    /// The write writes this many bytes and reports a short count.
    Short(usize),
    /// The write fails with `EIO` after writing this many bytes.
    IoAfter(usize),
}

/// What a [`FaultyFile`] does, shared with the test that drives it (the
/// disk can fill and empty while the file is in use).
#[derive(Debug, Default)]
pub struct FaultPlan {
    /// Writes made so far (0-based: the next write is number `writes`).
    pub writes: u64,
    /// Faults at given write numbers.
    pub at: Vec<(u64, Fault)>,
    /// Bytes the disk still takes (`None`: unlimited): a write is cut to
    /// what fits (a short write), and with nothing left fails `ENOSPC`.
    pub space: Option<u64>,
    /// Write numbers that failed (for the test's checks).
    pub failed: BTreeSet<u64>,
    /// Truncations that fail with `EIO` while set.
    pub refuse_set_len: bool,
}

/// A real file with injected faults ([`FaultPlan`]): for tests.
#[derive(Debug)]
pub struct FaultyFile {
    inner: OsFile,
    plan: Arc<Mutex<FaultPlan>>,
}

impl FaultyFile {
    /// An opener of faulty files sharing `plan`.
    pub fn opener(plan: Arc<Mutex<FaultPlan>>) -> Opener {
        Arc::new(move |p: &Path| {
            Ok(Box::new(FaultyFile {
                inner: OsFile::open(p)?,
                plan: plan.clone(),
            }) as Box<dyn AppendFile>)
        })
    }
}

fn enospc() -> io::Error {
    io::Error::from_raw_os_error(libc::ENOSPC)
}

impl AppendFile for FaultyFile {
    fn write_once(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut plan = self.plan.lock().unwrap_or_else(|p| p.into_inner());
        let n = plan.writes;
        plan.writes += 1;
        let fault = plan.at.iter().find(|(w, _)| *w == n).map(|(_, f)| *f);
        let fits = plan.space.map_or(buf.len(), |s| buf.len().min(s as usize));
        let r = match fault {
            Some(Fault::NoSpace) => Err(enospc()),
            Some(Fault::Short(k)) => self.inner.write_once(&buf[..k.min(buf.len())]),
            Some(Fault::IoAfter(k)) => self
                .inner
                .write_once(&buf[..k.min(buf.len())])
                .and(Err(io::Error::from_raw_os_error(libc::EIO))),
            None if fits == 0 && !buf.is_empty() => Err(enospc()),
            None => self.inner.write_once(&buf[..fits]),
        };
        if let (Some(s), Ok(k)) = (plan.space.as_mut(), &r) {
            *s -= (*k as u64).min(*s);
        }
        if !matches!(&r, Ok(k) if *k == buf.len()) {
            plan.failed.insert(n);
        }
        r
    }
    fn set_len(&mut self, len: u64) -> io::Result<()> {
        let mut plan = self.plan.lock().unwrap_or_else(|p| p.into_inner());
        if plan.refuse_set_len {
            return Err(io::Error::from_raw_os_error(libc::EIO));
        }
        // What is cut off is free again.
        let cur = self.inner.0.metadata()?.len();
        if let Some(s) = plan.space.as_mut() {
            *s += cur.saturating_sub(len);
        }
        self.inner.set_len(len)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()
    }
}

/// Writes a secret to a new file readable and writable by its owner only
/// (mode 0600; an existing file is an error, never overwritten). Errors
/// name the file.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| format!("cannot write \"{}\": {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("eboard-disk-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A failing write's (first, waiting), none for any other health.
    fn failing(h: &Health) -> Option<(bool, usize)> {
        match h {
            Health::Failing { first, waiting, .. } => Some((*first, *waiting)),
            _ => None,
        }
    }

    fn line(n: usize) -> Vec<u8> {
        format!("{{\"record\":{n},\"pad\":\"{}\"}}\n", "x".repeat(n % 7)).into_bytes()
    }

    #[test]
    fn an_enospc_keeps_the_record_and_a_retry_writes_it_in_order() {
        let d = dir("enospc");
        let p = d.join("f");
        let plan = Arc::new(Mutex::new(FaultPlan {
            at: vec![
                (1, Fault::NoSpace),
                (2, Fault::Short(5)),
                (3, Fault::IoAfter(3)),
            ],
            ..Default::default()
        }));
        let mut f = RecordFile::open(&p, &FaultyFile::opener(plan.clone()), 0).unwrap();
        assert_eq!(f.append(line(0)), Health::Written);
        let h = f.append(line(1));
        assert_eq!(failing(&h), Some((true, 1)), "{h:?}");
        // Write 2 (short) and write 3 (EIO after 3 bytes) fail too: the
        // records wait, the file holds whole records only.
        let h = f.append(line(2));
        assert_eq!(failing(&h), Some((false, 2)), "{h:?}");
        assert_eq!(std::fs::read(&p).unwrap(), line(0));
        let h = f.retry();
        assert_eq!(failing(&h), Some((false, 2)), "{h:?}");
        assert_eq!(std::fs::read(&p).unwrap(), line(0));
        assert_eq!(f.retry(), Health::Recovered { written: 2 });
        let want: Vec<u8> = [line(0), line(1), line(2)].concat();
        assert_eq!(std::fs::read(&p).unwrap(), want);
        assert_eq!(f.len(), want.len() as u64);
        assert_eq!(plan.lock().unwrap().failed, BTreeSet::from([1, 2, 3]));
    }

    #[test]
    fn a_disk_that_fills_and_empties_loses_and_tears_nothing() {
        let d = dir("full");
        let p = d.join("f");
        let plan = Arc::new(Mutex::new(FaultPlan {
            space: Some(100),
            ..Default::default()
        }));
        let mut f = RecordFile::open(&p, &FaultyFile::opener(plan.clone()), 0).unwrap();
        let mut firsts = 0;
        for n in 0..20 {
            if let Health::Failing { first: true, .. } = f.append(line(n)) {
                firsts += 1;
            }
            // Whatever the disk took, the file is whole records.
            let text = std::fs::read(&p).unwrap();
            assert!(text.is_empty() || text.ends_with(b"\n"));
        }
        assert_eq!(firsts, 1, "one alert per outage");
        assert!(f.waiting() > 0);
        plan.lock().unwrap().space = None;
        assert!(matches!(f.append(line(20)), Health::Recovered { .. }));
        let want: Vec<u8> = (0..=20).flat_map(line).collect();
        assert_eq!(std::fs::read(&p).unwrap(), want);
    }

    #[test]
    fn a_failed_truncation_is_retried_before_the_next_write() {
        let d = dir("setlen");
        let p = d.join("f");
        let plan = Arc::new(Mutex::new(FaultPlan {
            at: vec![(1, Fault::Short(4))],
            refuse_set_len: true,
            ..Default::default()
        }));
        let mut f = RecordFile::open(&p, &FaultyFile::opener(plan.clone()), 0).unwrap();
        // The first write's truncation (of nothing) is refused too.
        assert!(matches!(f.append(line(0)), Health::Failing { .. }));
        plan.lock().unwrap().refuse_set_len = false;
        assert!(matches!(f.retry(), Health::Recovered { .. }));
        plan.lock().unwrap().refuse_set_len = true;
        assert!(matches!(f.append(line(1)), Health::Failing { .. }));
        // The 4 bytes of record 1 are still on the file: never written after.
        assert!(matches!(f.append(line(2)), Health::Failing { .. }));
        plan.lock().unwrap().refuse_set_len = false;
        assert!(matches!(f.retry(), Health::Recovered { .. }));
        let want: Vec<u8> = (0..=2).flat_map(line).collect();
        assert_eq!(std::fs::read(&p).unwrap(), want);
    }
}
