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

use crate::trace::{Header, Line, Record, TraceError, TraceReader, MAX_LINE_BYTES};
use serde_json::Value;
use std::cell::Cell;
use std::io::{BufRead, Read};
use std::rc::Rc;

use super::JOURNAL_VERSION;

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

/// A [`BufRead`] that counts the bytes consumed.
struct Counted<R> {
    inner: R,
    pos: Rc<Cell<u64>>,
    last: Rc<Cell<Option<u8>>>,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos.set(self.pos.get() + n as u64);
        if n > 0 {
            self.last.set(Some(buf[n - 1]));
        }
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        if amt > 0 {
            if let Ok(b) = self.inner.fill_buf() {
                if let Some(x) = b.get(amt - 1) {
                    self.last.set(Some(*x));
                }
            }
        }
        self.inner.consume(amt);
        self.pos.set(self.pos.get() + amt as u64);
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
    // reader leaves out); bounded like every line.
    let mut first = Vec::new();
    let _ = input
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut first);
    let ext = std::str::from_utf8(&first)
        .ok()
        .and_then(|l| serde_json::from_str::<Value>(l.trim_start_matches('\u{feff}').trim()).ok())
        .and_then(|mut v| v.get_mut("journal").map(Value::take));
    let pos = Rc::new(Cell::new(0u64));
    let last = Rc::new(Cell::new(None));
    let mut reader = TraceReader::new(Counted {
        inner: std::io::Cursor::new(first).chain(input),
        pos: pos.clone(),
        last: last.clone(),
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
    let (torn, damage) = match bad {
        None => (None, None),
        Some(e) if lines_after == 0 => (Some(e), None),
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
pub fn for_each_line<R: BufRead>(mut input: R, mut f: impl FnMut(&str)) {
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
                    if !buf.is_empty() && !over {
                        if let Ok(s) = std::str::from_utf8(&buf) {
                            f(s);
                        }
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
        if !over {
            if let Ok(s) = std::str::from_utf8(&buf) {
                f(s);
            }
        }
    }
}
