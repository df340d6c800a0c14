//! The store-and-forward queue of the MQTT uplink: every message to publish
//! is appended to a file (and `fsync`ed) before it is sent, and stays there
//! until the broker acknowledges it (PUBACK). It survives broker and
//! network outages and daemon restarts: a restarted daemon resends what was
//! not acknowledged and skips what it had already queued (the sequence
//! number is the key, so a resend is idempotent for the consumers).
//!
//! The file is text, one entry a line, tab-separated:
//!
//! - `E seq events-json snapshot-json` a queued message (`snapshot-json`
//!   empty when the message carries no snapshot);
//! - `A seq` the broker acknowledged `seq`;
//! - `N seq` every message up to `seq` was queued (written on compaction).
//!
//! Every line ends with its checksum, a last field `crc32c=<8 hex>`, the
//! CRC-32C of the bytes before its tab ([`crate::disk::checksum`], issue
//! 41). In a file whose lines carry checksums, a line whose checksum fails
//! or is missing is damage (a bad byte that may have left a line that
//! parses): its message is queued again from the journal's replay as a cut
//! one is, its number (which may be the changed byte) not believed alone:
//! the numbers between its neighbours are claimed too. A file written
//! before checksums (no line with a good one) is read as before, and the
//! compaction at opening writes it anew with checksums.
//!
//! Every line is built whole and written with one `write` call; a failed or
//! short write is cut off again and retried, in order, before the next line
//! ([`crate::disk::RecordFile`]): the file never holds a part of a line in
//! its middle. A failing disk loses the restart safety, not the messages
//! (they stay in memory).
//!
//! On opening, the file is read bounded (a line of at most
//! [`MAX_QUEUE_LINE`]) and compacted (written
//! anew, then renamed over): only the unacknowledged entries and the
//! high-water mark stay; a torn last line (a crash while writing) is
//! dropped. A line cut short in the middle (a disk that failed under an
//! older eboard, a bad byte) is detected, never skipped silently: its
//! message (by its sequence number, or the gap it leaves among the numbers
//! that must follow each other) is re-queued when the journal's replay
//! regenerates it ([`Outbox::lost`], [`Outbox::requeue`]), logged as a
//! warning at opening and as it is recovered. A whole record that follows a
//! cut one on the same line is read. The file is compacted again when
//! every entry is acknowledged and [`COMPACT_AFTER`] lines were written.

use crate::disk::checksum::{self, Check};
use crate::disk::{os_opener, Health, Opener, RecordFile};
use read::{
    bounded_lines, cut_seq, parse_line, take, trailing_record, trailing_sealed, QLine, ReadState,
};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// Lines written before an emptied queue's file is compacted.
pub const COMPACT_AFTER: usize = 4096;

/// One queued message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The events topic's payload (JSON).
    pub events: String,
    /// The retained snapshot topic's payload (JSON), when the message carries one.
    pub snapshot: Option<String>,
}

/// The longest queue line read, bytes (512 KiB): an events message and a
/// snapshot with room to spare; a longer line is damage, and only this much
/// of it is held.
pub const MAX_QUEUE_LINE: usize = 512 * 1024;

/// The queue: in memory, and in its file when it has one.
pub struct Outbox {
    path: Option<PathBuf>,
    file: Option<RecordFile>,
    opener: Opener,
    entries: BTreeMap<u64, Entry>,
    last_seq: u64,
    lines: usize,
    /// Messages whose line was cut: re-queued when regenerated.
    lost: BTreeSet<u64>,
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbox")
            .field("path", &self.path)
            .field("last_seq", &self.last_seq)
            .field("pending", &self.entries.len())
            .field("lost", &self.lost)
            .finish()
    }
}

fn err(path: &Path, what: &str, e: std::io::Error) -> String {
    format!("{}: {what}: {e}", path.display())
}

impl Outbox {
    /// A queue in memory only (a daemon without a journal): it survives
    /// outages, not restarts.
    pub fn memory() -> Outbox {
        Outbox {
            path: None,
            file: None,
            opener: os_opener(),
            entries: BTreeMap::new(),
            last_seq: 0,
            lines: 0,
            lost: BTreeSet::new(),
        }
    }

    /// Opens (or creates) the queue file at `path` and compacts it.
    pub fn open(path: &Path) -> Result<Outbox, String> {
        Outbox::open_with(path, os_opener())
    }

    /// [`Outbox::open`] with the file opened for appending by `opener`
    /// (tests inject faults). Errors: the file exists and cannot be read.
    pub fn open_with(path: &Path, opener: Opener) -> Result<Outbox, String> {
        let mut st = ReadState::default();
        // Damage whose number is unknown: (line, the E seq before it).
        let mut unknown: Vec<(usize, u64)> = Vec::new();
        let mut lines = Vec::new();
        match File::open(path) {
            Ok(f) => bounded_lines(BufReader::new(f), MAX_QUEUE_LINE, |l, nl, over| {
                lines.push((l.to_vec(), nl, over));
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(path, "cannot read the MQTT queue", e)),
        }
        let count = lines.len();
        // Lines with checksums (this version's file): every line must have
        // a good one.
        let sealed = lines
            .iter()
            .any(|(l, _, over)| !over && matches!(checksum::check_text(l), Check::Good { .. }));
        for (i, (line, newline, over)) in lines.into_iter().enumerate() {
            let n = i + 1;
            let last = n == count;
            let parsed = match (over, sealed) {
                (true, _) => None,
                (false, true) => checksum::unseal_text(&line).and_then(parse_line),
                (false, false) => parse_line(&line),
            };
            match parsed {
                // An `A`/`N` without its newline may have lost digits.
                Some(QLine::A(_) | QLine::N(_)) if !newline => {}
                Some(q) => take(q, &mut st),
                None if last && !newline => {
                    // A torn last line: a crash while writing; its message
                    // is regenerated by the journal's replay (above the
                    // high-water mark, or re-queued below).
                    if let Some(seq) = cut_seq(&line) {
                        st.lost.insert(seq);
                    }
                }
                None => {
                    let seq = cut_seq(&line);
                    tracing::warn!(
                        file = %path.display(),
                        "MQTT queue line {n} cut short{}{}: {}",
                        if sealed {
                            " or changed (its checksum fails)"
                        } else {
                            ""
                        },
                        seq.map(|s| format!(" (message {s})")).unwrap_or_default(),
                        if seq.is_some() {
                            "it is queued again from the journal's replay"
                        } else {
                            "the messages it may have held are queued again from the journal's replay"
                        }
                    );
                    if let Some(s) = seq {
                        st.lost.insert(s);
                    }
                    // A number read from a line whose checksum failed may
                    // be the changed byte: its neighbours' gap too.
                    if seq.is_none() || sealed {
                        unknown.push((n, st.prev_e));
                    }
                    let trailing = if sealed {
                        trailing_sealed(&line)
                    } else {
                        trailing_record(&line)
                    };
                    if let Some(q) = trailing {
                        take(q, &mut st);
                    }
                }
            }
        }
        let ReadState {
            entries,
            last_seq,
            high_water,
            acked,
            mut lost,
            ..
        } = st;
        // The numbers after the high-water mark follow each other: a gap
        // not acknowledged is a message whose line was cut.
        let gaps: Vec<u64> = (high_water + 1..=last_seq)
            .filter(|s| !entries.contains_key(s) && !acked.contains(s))
            .collect();
        lost.extend(gaps);
        // A cut line of unknown number below the high-water mark: every
        // number between its neighbours not queued (a resend is idempotent).
        for (_, before) in unknown {
            // No entry after it: up to the high-water mark itself (the
            // mark's own message may be the damaged line's).
            let after = entries
                .range(before + 1..)
                .next()
                .map_or(high_water + 1, |(s, _)| *s);
            lost.extend(
                (before + 1..after.min(high_water + 1)).filter(|s| !entries.contains_key(s)),
            );
        }
        lost.retain(|s| !entries.contains_key(s) && !acked.contains(s) && *s <= last_seq);
        if !lost.is_empty() {
            tracing::warn!(
                file = %path.display(),
                "MQTT queue: {} message(s) cut short ({}); queued again as the journal's replay \
                 regenerates them",
                lost.len(),
                fmt_seqs(&lost)
            );
        }
        let mut o = Outbox {
            path: Some(path.to_owned()),
            file: None,
            opener,
            entries,
            last_seq,
            lines: 0,
            lost,
        };
        if let Err(e) = o.compact() {
            // A disk that refuses the compaction: the queue goes on in
            // memory and in the file as it is (its damage read again on
            // the next start).
            tracing::error!("mqtt: {e}; the queue is kept in memory");
            let end = whole_len(path);
            o.file = RecordFile::open(path, &o.opener, end).ok();
        }
        Ok(o)
    }

    /// Writes the file anew with the unacknowledged entries only.
    fn compact(&mut self) -> Result<(), String> {
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        let tmp = path.with_extension("tmp");
        let mut text = sealed(&format!("N\t{}", self.last_seq));
        for (seq, e) in &self.entries {
            text.push_str(&line(*seq, e));
        }
        let mut f = File::create(&tmp).map_err(|e| err(&tmp, "cannot write", e))?;
        f.write_all(text.as_bytes())
            .and_then(|_| f.sync_all())
            .map_err(|e| err(&tmp, "cannot write", e))?;
        std::fs::rename(&tmp, &path).map_err(|e| err(&path, "cannot replace", e))?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        self.file = Some(
            RecordFile::open(&path, &self.opener, text.len() as u64)
                .map_err(|e| err(&path, "cannot open", e))?,
        );
        self.lines = 1 + self.entries.len();
        Ok(())
    }

    /// Messages whose line was found cut, not yet queued again.
    pub fn lost(&self) -> &BTreeSet<u64> {
        &self.lost
    }

    /// Queues again `seq`, whose line was found cut ([`Outbox::lost`]),
    /// regenerated by the journal's replay; written like [`Outbox::append`].
    pub fn requeue(&mut self, seq: u64, e: Entry) -> Result<(), String> {
        if !self.lost.remove(&seq) {
            return Ok(());
        }
        tracing::info!("mqtt: message {seq}, cut short in the queue, recovered and queued again");
        let text = line(seq, &e);
        self.entries.insert(seq, e);
        self.lines += 1;
        self.write(vec![text.into_bytes()], true)
    }

    /// Writes `lines` (one write each), synced when `sync`; an error only
    /// when the disk starts failing (the lines wait in memory and are
    /// retried before the next ones).
    fn write(&mut self, lines: Vec<Vec<u8>>, sync: bool) -> Result<(), String> {
        let Some(f) = self.file.as_mut() else {
            return Ok(());
        };
        let mut first_failure = None;
        for l in lines {
            match f.append(l) {
                Health::Failing {
                    error, first: true, ..
                } => first_failure = Some(error),
                Health::Recovered { written } => tracing::warn!(
                    "mqtt: the queue's disk takes lines again: {written} waiting line(s) written"
                ),
                _ => {}
            }
        }
        if sync && f.waiting() == 0 {
            f.sync()?;
        }
        match first_failure {
            Some(e) => Err(format!(
                "cannot append to the MQTT queue: {e}; the messages stay in memory and are \
                 written when the disk takes them"
            )),
            None => Ok(()),
        }
    }

    /// The highest sequence number ever queued (0: none).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// How many messages wait for the broker's acknowledgement.
    pub fn pending(&self) -> usize {
        self.entries.len()
    }

    /// The first unacknowledged entry at `from` or after.
    pub fn next_from(&self, from: u64) -> Option<(u64, &Entry)> {
        self.entries.range(from..).next().map(|(s, e)| (*s, e))
    }

    /// Queues `items` (sequence numbers above [`Outbox::last_seq`], rising),
    /// written and `fsync`ed before it returns. In memory even when the
    /// write fails (the error says so): a full disk loses the restart
    /// safety, not the messages.
    pub fn append(&mut self, items: Vec<(u64, Entry)>) -> Result<(), String> {
        if items.is_empty() {
            return Ok(());
        }
        let mut lines = Vec::with_capacity(items.len());
        for (seq, e) in items {
            debug_assert!(seq > self.last_seq);
            lines.push(line(seq, &e).into_bytes());
            self.last_seq = self.last_seq.max(seq);
            self.entries.insert(seq, e);
            self.lines += 1;
        }
        self.write(lines, true)
    }

    /// The broker acknowledged `seq` (not synced: a lost acknowledgement
    /// only means one idempotent resend).
    pub fn ack(&mut self, seq: u64) -> Result<(), String> {
        if self.entries.remove(&seq).is_none() {
            return Ok(());
        }
        self.lines += 1;
        self.write(vec![sealed(&format!("A\t{seq}")).into_bytes()], false)?;
        if self.entries.is_empty()
            && self.lines >= COMPACT_AFTER
            && self.file.as_ref().is_some_and(|f| f.waiting() == 0)
        {
            self.compact()?;
        }
        Ok(())
    }
}

/// The length of `path` up to the end of its last whole line.
fn whole_len(path: &Path) -> u64 {
    let Ok(f) = File::open(path) else {
        return 0;
    };
    let mut end = 0u64;
    let mut pos = 0u64;
    for b in BufReader::new(f).bytes() {
        let Ok(b) = b else { break };
        pos += 1;
        if b == b'\n' {
            end = pos;
        }
    }
    end
}

/// `1, 2, 5..9` for the log.
fn fmt_seqs(s: &BTreeSet<u64>) -> String {
    let v: Vec<u64> = s.iter().copied().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if j > i {
            format!("{}..{}", v[i], v[j])
        } else {
            v[i].to_string()
        });
        i = j + 1;
    }
    out.join(", ")
}

fn line(seq: u64, e: &Entry) -> String {
    sealed(&format!(
        "E\t{seq}\t{}\t{}",
        e.events,
        e.snapshot.as_deref().unwrap_or("")
    ))
}

/// `text` with its checksum field and newline.
fn sealed(text: &str) -> String {
    let mut s = checksum::seal_text(text);
    s.push('\n');
    s
}

mod read;
#[cfg(test)]
mod tests;
