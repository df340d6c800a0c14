//! A trace read line by line ([`TraceReader`]) or whole ([`Trace`]): the
//! header only first, `t` non-decreasing, blank lines skipped, a line's
//! length bounded.

use super::*;

/// One parsed line of a trace.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // the header comes once per trace
pub enum Line {
    /// The header (only as the first non-blank line).
    Header(Header),
    /// A record.
    Record(Record),
}

/// Reads a trace line by line, checking the contract: the header only first,
/// `t` non-decreasing. Blank lines are skipped.
#[derive(Debug)]
pub struct TraceReader<R> {
    input: R,
    line: usize,
    last_t: u64,
    seen_content: bool,
    pub(super) buf: Vec<u8>,
    /// The rest of an overlong line is being skipped (up to its newline).
    skipping: bool,
}

/// The longest trace line read, bytes (without its newline): 64 KiB. The
/// longest real line is a header with long player and event names, well
/// under 2 KiB; a longer line is an error naming it, and only this much of
/// it is ever held in memory (an endless line without a newline, on
/// standard input or in a file, cannot exhaust the memory).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How one bounded line read ended.
enum LineRead {
    /// The end of the input.
    End,
    /// A whole line is in the buffer.
    Whole,
    /// The line is longer than the limit: the buffer holds its start.
    TooLong,
}

/// Reads the next line of `input` into `buf` (without the newline), keeping
/// at most `max` bytes; with `skip`, first discards the rest of a line
/// already reported too long.
fn read_line_bounded<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
    skip: &mut bool,
) -> std::io::Result<LineRead> {
    buf.clear();
    let mut any = false;
    loop {
        let (used, newline) = {
            let avail = match input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                *skip = false;
                return Ok(if any { LineRead::Whole } else { LineRead::End });
            }
            let end = avail.iter().position(|&b| b == b'\n');
            let take = end.unwrap_or(avail.len());
            if !*skip {
                any = true;
                let room = max.saturating_sub(buf.len());
                buf.extend_from_slice(&avail[..take.min(room)]);
                if take > room {
                    // Over the limit: report now, skip the rest later.
                    let used = if end.is_some() { take + 1 } else { take };
                    *skip = end.is_none();
                    input.consume(used);
                    return Ok(LineRead::TooLong);
                }
            }
            (end.map_or(take, |e| e + 1), end.is_some())
        };
        input.consume(used);
        if newline {
            if *skip {
                *skip = false;
                continue;
            }
            return Ok(LineRead::Whole);
        }
    }
}

impl<R: BufRead> TraceReader<R> {
    /// Wraps a buffered reader.
    pub fn new(input: R) -> Self {
        TraceReader {
            input,
            line: 0,
            last_t: 0,
            seen_content: false,
            buf: Vec::new(),
            skipping: false,
        }
    }

    /// The 1-based number of the last line read.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The next header or record; `None` at the end of input.
    ///
    /// Errors: malformed JSON, unknown record kind, bad values, a header
    /// after the first line, `t` going backwards, unreadable input — each
    /// naming the line.
    pub fn next_line(&mut self) -> Option<Result<Line, TraceError>> {
        loop {
            self.line += 1;
            match read_line_bounded(
                &mut self.input,
                &mut self.buf,
                MAX_LINE_BYTES,
                &mut self.skipping,
            ) {
                Ok(LineRead::End) => return None,
                Ok(LineRead::Whole) => {}
                Ok(LineRead::TooLong) => {
                    return Some(err(
                        self.line,
                        format!("longer than {MAX_LINE_BYTES} bytes: not a trace record"),
                    ))
                }
                Err(e) => return Some(err(self.line, format!("cannot read: {e}"))),
            }
            // The common records straight from the bytes (ASCII only: the
            // text below would give the same record), no UTF-8 pass.
            if let Some(rec) = hot::plain(&self.buf) {
                self.seen_content = true;
                return Some(self.in_order(rec));
            }
            let buf = std::mem::take(&mut self.buf);
            let parsed = match std::str::from_utf8(&buf) {
                Err(e) => Some(err(self.line, format!("not UTF-8 text: {e}"))),
                Ok(text) => {
                    let trimmed = text.trim_start_matches('\u{feff}').trim();
                    (!trimmed.is_empty()).then(|| self.parse_text(trimmed))
                }
            };
            self.buf = buf;
            match parsed {
                Some(p) => return Some(p),
                None => continue,
            }
        }
    }

    fn parse_text(&mut self, text: &str) -> Result<Line, TraceError> {
        let line = self.line;
        if let Some(rec) = hot::parse(text) {
            self.seen_content = true;
            return self.in_order(rec);
        }
        let obj: Map<String, Value> = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(other) => return err(line, format!("expected a JSON object, found {other}")),
            Err(e) => return err(line, format!("malformed JSON: {e}")),
        };
        let first = !self.seen_content;
        self.seen_content = true;
        if obj.contains_key("trace") {
            if !first {
                return err(
                    line,
                    "a header (key 'trace') is only allowed on the first line",
                );
            }
            return parse_header(&obj, line).map(Line::Header);
        }
        let rec = parse_record(&obj, line)?;
        self.in_order(rec)
    }

    /// `rec` when its time is not before the previous record's.
    fn in_order(&mut self, rec: Record) -> Result<Line, TraceError> {
        let line = self.line;
        if rec.t < self.last_t {
            return err(
                line,
                format!(
                    "key 't': {} is earlier than the previous record's {}",
                    rec.t, self.last_t
                ),
            );
        }
        self.last_t = rec.t;
        Ok(Line::Record(rec))
    }
}

/// A whole trace in memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// The header, or the defaults when the trace has none.
    pub header: Header,
    /// The records in order.
    pub records: Vec<Record>,
}

impl Trace {
    /// Reads a whole trace. Errors name the line.
    pub fn read<R: BufRead>(mut input: R) -> Result<Trace, TraceError> {
        // Room for the records of what the input holds at hand (all of a
        // trace in memory; a buffer's worth of a file), at about 32 bytes a
        // line: fewer copies as the records grow (issue 28).
        let hint = input.fill_buf().map_or(0, |b| b.len() / 32);
        let mut reader = TraceReader::new(input);
        let mut trace = Trace {
            header: Header {
                version: 1,
                boards: vec![BoardId::Main],
                ..Header::default()
            },
            records: Vec::with_capacity(hint),
        };
        while let Some(line) = reader.next_line() {
            match line? {
                Line::Header(h) => trace.header = h,
                Line::Record(r) => trace.records.push(r),
            }
        }
        Ok(trace)
    }

    /// Parses a trace held in a string.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        Trace::read(text.as_bytes())
    }

    /// Writes the trace as JSON Lines (header first).
    pub fn write<W: std::io::Write>(&self, out: &mut W) -> std::io::Result<()> {
        writeln!(out, "{}", header_json(&self.header))?;
        for r in &self.records {
            writeln!(out, "{}", record_json(r))?;
        }
        Ok(())
    }

    /// Duration in ms: the time of the last record (0 when empty).
    pub fn duration_ms(&self) -> u64 {
        self.records.last().map_or(0, |r| r.t)
    }
}
