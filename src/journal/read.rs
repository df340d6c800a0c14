//! Reading a journal back, bounded and byte-exact: every line at most
//! [`MAX_LINE_BYTES`] (the trace's limit; a longer line is damage, and only
//! that much of it is ever held), offsets counted on the raw bytes (a bad
//! byte never shifts where the good part ends).
//!
//! What a journal can hold after a crash or a damaged disk:
//! - whole records only: read back as they are;
//! - a torn last line (a write cut by a crash or a power cut): dropped, the
//!   records before it kept ([`Recovered::torn`]);
//! - a damaged line before the last one (a half-written record from a disk
//!   that filled and emptied, a bad byte): the records before it are kept,
//!   the damage and what follows it are reported ([`Recovered::damage`])
//!   for the caller to set aside ([`super::Journal::open`]).

use crate::disk::checksum::{self, Check};
use crate::trace::{Header, Line, Record, TraceError, TraceReader, MAX_LINE_BYTES};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::io::{BufRead, Read};
use std::rc::Rc;

use super::{CHECKSUMS_FROM, JOURNAL_VERSION};

/// The `journal` object of a header line, when the line is JSON.
fn journal_ext(line: &[u8]) -> Option<Value> {
    let l = std::str::from_utf8(line).ok()?;
    let mut v = serde_json::from_str::<Value>(l.trim_start_matches('\u{feff}').trim()).ok()?;
    v.get_mut("journal").map(Value::take)
}

/// A damaged line before the journal's last line.
#[derive(Debug, Clone, PartialEq)]
pub struct Damage {
    /// The damaged line's number (1-based) and what is wrong with it.
    pub error: TraceError,
    /// Where the damaged line starts: the end of the good part, bytes.
    pub offset: u64,
    /// Lines with content after the damaged one (set aside with it).
    pub lines_after: usize,
}

/// What a journal holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovered {
    /// The header.
    pub header: Header,
    /// Unix time in ms of round time 0.
    pub started_at_unix_ms: Option<u64>,
    /// The journal format's version (`journal.version`; 0 when absent).
    pub version: u64,
    /// The game's id (`journal.game_id`, made when the game started; absent
    /// in journals written before it).
    pub game_id: Option<String>,
    /// Every record, in order (up to the damage, when there is one).
    pub records: Vec<Record>,
    /// A torn last line that was dropped: its line number and the error.
    pub torn: Option<TraceError>,
    /// A damaged line before the last one: the records after it are not
    /// in [`Recovered::records`].
    pub damage: Option<Damage>,
    /// The length in bytes of the good part (where appending resumes).
    pub good_len: usize,
    /// The good part's last record lacks its newline (a write cut just
    /// before it): the newline is written first when appending resumes.
    pub needs_newline: bool,
}

/// What a scan of a journal found.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    /// The header and records; `None`: no header survived (an empty
    /// journal, or one damaged in its header).
    pub recovered: Option<Recovered>,
    /// Damage when no header survived (the whole file is to be set aside).
    pub headless_damage: Option<Damage>,
    /// The file's length, bytes.
    pub bytes: u64,
}

/// Why a journal with checksums stopped being read at a line.
#[derive(Debug, Clone)]
struct Failure {
    /// The line (1-based).
    line: usize,
    /// What is wrong with it.
    message: String,
    /// A last line cut before its end (a torn write), not damage.
    torn: bool,
}

/// The journal's bytes as the trace reader is to see them, the raw bytes
/// counted (`pos`: where the lines wholly read end; `last`: the last raw
/// byte read). With `on` (a journal with checksums, version 2) each line
/// is checked ([`checksum::check_json`]) and given without its checksum;
/// the first line that fails is an error (its [`Failure`] kept), and the
/// lines after it are given as they are, to be counted. Without `on`
/// (a journal written before checksums) every byte is given as it is.
struct Checked<R> {
    inner: R,
    on: bool,
    /// The line being given (checked, without its checksum).
    line: Vec<u8>,
    /// Bytes of `line` taken by the reader.
    given: usize,
    /// The raw end of `line`, bytes.
    line_end: u64,
    /// Raw lines read.
    lines: usize,
    pos: Rc<Cell<u64>>,
    last: Rc<Cell<Option<u8>>>,
    failure: Rc<RefCell<Option<Failure>>>,
}

impl<R: BufRead> Checked<R> {
    /// Reads, checks and holds the next raw line; false at the end.
    fn next_checked(&mut self) -> std::io::Result<bool> {
        let mut raw = Vec::new();
        let bound = (MAX_LINE_BYTES + SEAL_BYTES) as u64;
        (&mut self.inner)
            .take(bound + 1)
            .read_until(b'\n', &mut raw)?;
        if raw.is_empty() {
            return Ok(false);
        }
        self.lines += 1;
        let start = self.line_end;
        let newline = raw.last() == Some(&b'\n');
        let mut end = start + raw.len() as u64;
        let text = raw.strip_suffix(b"\n").unwrap_or(&raw);
        let line_no = self.lines;
        let fail = |message: String, torn: bool| Failure {
            line: line_no,
            message,
            torn,
        };
        let failure = if !newline && raw.len() as u64 > bound {
            // Over the bound: the rest of the line passed over, unread.
            end += skip_line(&mut self.inner)?;
            Some(fail(
                format!("longer than {MAX_LINE_BYTES} bytes: not a journal record"),
                false,
            ))
        } else {
            match checksum::check_json(text) {
                Check::Good { len } => {
                    self.line.clear();
                    self.line.extend_from_slice(&text[..len]);
                    self.line.push(b'}');
                    if newline {
                        self.line.push(b'\n');
                    }
                    None
                }
                Check::Bad => Some(fail(
                    "its checksum (crc32c) does not match its bytes: the line was changed \
                     on the disk (a bad byte)"
                        .into(),
                    false,
                )),
                // Cut before its end by a crash: the last line, no newline.
                Check::Missing if !newline => Some(fail(
                    "cut before its end (no checksum, no newline): a torn write".into(),
                    true,
                )),
                Check::Missing => Some(fail(
                    "it has no checksum (crc32c) where every line of this journal has one: \
                     the line was changed on the disk (a bad byte) or cut"
                        .into(),
                    false,
                )),
            }
        };
        self.line_end = end;
        self.given = 0;
        if let Some(f) = failure {
            // The rest is given as it is, to be counted.
            self.on = false;
            self.line.clear();
            self.pos.set(end);
            self.last.set(raw.last().copied());
            *self.failure.borrow_mut() = Some(f.clone());
            return Err(std::io::Error::other(f.message));
        }
        Ok(true)
    }
}

/// Bytes the checksum adds to a line (`,"crc32c":"…"`, 8 hex digits).
const SEAL_BYTES: usize = 32;

/// Reads and drops the rest of a line up to its newline; the bytes dropped.
fn skip_line<R: BufRead>(input: &mut R) -> std::io::Result<u64> {
    let mut n = 0u64;
    loop {
        let (used, done) = {
            let avail = input.fill_buf()?;
            if avail.is_empty() {
                return Ok(n);
            }
            match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (avail.len(), false),
            }
        };
        input.consume(used);
        n += used as u64;
        if done {
            return Ok(n);
        }
    }
}

impl<R: BufRead> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Checked<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if !self.on {
            return self.inner.fill_buf();
        }
        if self.given == self.line.len() && !self.next_checked()? {
            return Ok(&[]);
        }
        if !self.on {
            return self.inner.fill_buf();
        }
        Ok(&self.line[self.given..])
    }
    fn consume(&mut self, amt: usize) {
        if amt == 0 {
            return;
        }
        if !self.on {
            if let Ok(b) = self.inner.fill_buf() {
                if let Some(x) = b.get(amt - 1) {
                    self.last.set(Some(*x));
                }
            }
            self.inner.consume(amt);
            self.pos.set(self.pos.get() + amt as u64);
            return;
        }
        self.given = (self.given + amt).min(self.line.len());
        self.last.set(Some(self.line[self.given - 1]));
        if self.given == self.line.len() {
            self.pos.set(self.line_end);
        }
    }
}

/// Reads a journal's text ([`scan`] of a string); `Ok(None)`: no header
/// survived. Errors: a journal of a newer version.
pub fn read_journal(text: &str) -> Result<Option<Recovered>, TraceError> {
    scan(text.as_bytes()).map(|s| s.recovered)
}

/// Reads a journal, bounded ([`MAX_LINE_BYTES`] a line): the records up to
/// the first damaged line, a torn last line dropped. The only error is a
/// journal written by a newer eboard (line 1); damage is reported, not an
/// error.
pub fn scan<R: BufRead>(mut input: R) -> Result<Scan, TraceError> {
    // The header's line, for its `journal` extension (which the contract's
    // reader leaves out) and whether the journal's lines carry checksums
    // (version 2 on); bounded like every line.
    let mut first = Vec::new();
    let _ = input
        .by_ref()
        .take((MAX_LINE_BYTES + SEAL_BYTES) as u64 + 1)
        .read_until(b'\n', &mut first);
    let first_text = first.strip_suffix(b"\n").unwrap_or(&first);
    let (ext, on) = match checksum::check_json(first_text) {
        Check::Good { .. } => (
            checksum::unseal_json(first_text).and_then(|h| journal_ext(&h)),
            true,
        ),
        // A header whose checksum fails: damage at line 1 (its version is
        // not to be believed).
        Check::Bad => (None, true),
        Check::Missing => {
            let ext = journal_ext(first_text);
            // A version with checksums without one: its checksum was
            // changed (a newer version than this eboard's is refused by
            // name below, whatever it carries).
            let on = ext
                .as_ref()
                .and_then(|j| j.get("version")?.as_u64())
                .is_some_and(|v| (CHECKSUMS_FROM..=JOURNAL_VERSION).contains(&v));
            (ext.filter(|_| !on), on)
        }
    };
    let pos = Rc::new(Cell::new(0u64));
    let last = Rc::new(Cell::new(None));
    let failure = Rc::new(RefCell::new(None));
    let mut reader = TraceReader::new(Checked {
        inner: std::io::Cursor::new(first).chain(input),
        on,
        line: Vec::new(),
        given: 0,
        line_end: 0,
        lines: 0,
        pos: pos.clone(),
        last: last.clone(),
        failure: failure.clone(),
    });
    let mut header: Option<Header> = None;
    let mut records = Vec::new();
    // The end of the last good line and whether it ended with a newline.
    let mut good_end = 0u64;
    let mut good_newline = true;
    let mut bad: Option<TraceError> = None;
    while let Some(line) = reader.next_line() {
        match line {
            Ok(Line::Header(h)) => header = Some(h),
            Ok(Line::Record(r)) if header.is_some() => records.push(r),
            Ok(Line::Record(_)) => {
                bad = Some(TraceError {
                    line: reader.line(),
                    message: "a journal starts with its header".into(),
                });
                break;
            }
            Err(e) => {
                bad = Some(e);
                break;
            }
        }
        good_end = pos.get();
        good_newline = last.get() == Some(b'\n');
    }
    // After a bad line: is it the last one (torn) or is there more (damage)?
    let mut lines_after = 0usize;
    if bad.is_some() {
        while reader.next_line().is_some() {
            lines_after += 1;
        }
    }
    let bytes = pos.get();
    // A line whose checksum failed: the error names what is wrong; a torn
    // one is torn, any other is damage, the last line's too (bit rot there
    // is no crash).
    let failed = failure.borrow_mut().take();
    let damaged_last = failed.as_ref().is_some_and(|f| !f.torn);
    if let Some(f) = failed {
        bad = Some(TraceError {
            line: f.line,
            message: f.message,
        });
    }
    let (torn, damage) = match bad {
        None => (None, None),
        Some(e) if lines_after == 0 && !damaged_last => (Some(e), None),
        Some(error) => (
            None,
            Some(Damage {
                error,
                offset: good_end,
                lines_after,
            }),
        ),
    };
    let Some(header) = header else {
        return Ok(Scan {
            recovered: None,
            headless_damage: damage,
            bytes,
        });
    };
    let (version, started_at_unix_ms, game_id) = header_ext(&ext)?;
    Ok(Scan {
        recovered: Some(Recovered {
            header,
            started_at_unix_ms,
            version,
            game_id,
            records,
            torn,
            damage,
            good_len: good_end as usize,
            needs_newline: !good_newline && good_end > 0,
        }),
        headless_damage: None,
        bytes,
    })
}

/// The `journal` extension of a header line: (version, start, game id).
pub(super) fn header_ext(
    ext: &Option<Value>,
) -> Result<(u64, Option<u64>, Option<String>), TraceError> {
    let started = ext
        .as_ref()
        .and_then(|j| j.get("started_at_unix_ms")?.as_u64());
    let game_id = ext
        .as_ref()
        .and_then(|j| j.get("game_id")?.as_str())
        .map(str::to_owned);
    let version = match ext.as_ref().and_then(|j| j.get("version")) {
        None => 0,
        Some(v) => match v.as_u64() {
            Some(n) if n <= JOURNAL_VERSION => n,
            _ => {
                return Err(TraceError {
                    line: 1,
                    message: format!(
                        "key 'journal.version': {v} is not a journal version this eboard reads \
                         (0..={JOURNAL_VERSION}); it was written by a newer eboard: finish the \
                         game with that version, or start a new journal"
                    ),
                })
            }
        },
    };
    Ok((version, started, game_id))
}

/// Calls `f` with every line of `input` (at most [`MAX_LINE_BYTES`] bytes;
/// a longer line, or one that is not UTF-8, is skipped), in order.
pub fn for_each_line<R: BufRead>(input: R, mut f: impl FnMut(&str)) {
    for_each_line_bytes(input, |l| {
        if let Some(s) = l.and_then(|b| std::str::from_utf8(b).ok()) {
            f(s);
        }
    });
}

/// Calls `f` with every line of `input`, in order, as bytes: `None` for a
/// line longer than [`MAX_LINE_BYTES`] (of which at most that much is
/// held), so a reader that checks every line can count it.
pub fn for_each_line_bytes<R: BufRead>(mut input: R, mut f: impl FnMut(Option<&[u8]>)) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let mut over = false;
        loop {
            let (used, done) = {
                let avail = match input.fill_buf() {
                    Ok(b) => b,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => return,
                };
                if avail.is_empty() {
                    if over {
                        f(None);
                    } else if !buf.is_empty() {
                        f(Some(&buf));
                    }
                    return;
                }
                let end = avail.iter().position(|&b| b == b'\n');
                let take = end.unwrap_or(avail.len());
                if !over {
                    if buf.len() + take > MAX_LINE_BYTES {
                        over = true;
                        buf.clear();
                    } else {
                        buf.extend_from_slice(&avail[..take]);
                    }
                }
                (end.map_or(take, |e| e + 1), end.is_some())
            };
            input.consume(used);
            if done {
                break;
            }
        }
        f((!over).then_some(&buf[..]));
    }
}
