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

use crate::disk::{os_opener, Health, Opener, RecordFile};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
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

/// One line of the queue file, parsed whole.
#[derive(Debug, PartialEq)]
enum QLine {
    E(u64, Entry),
    A(u64),
    N(u64),
}

/// Parses a whole queue line (without its newline); `None`: cut or damaged.
fn parse_line(line: &[u8]) -> Option<QLine> {
    let line = std::str::from_utf8(line).ok()?;
    let mut parts = line.splitn(4, '\t');
    let kind = parts.next()?;
    let seq_text = parts.next()?;
    if seq_text.is_empty() || !seq_text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seq = seq_text.parse::<u64>().ok()?;
    let json_ok =
        |s: &str| serde_json::from_str::<serde_json::Value>(s).is_ok_and(|v| v.is_object());
    match (kind, parts.next(), parts.next()) {
        ("E", Some(events), Some(snap))
            if json_ok(events) && (snap.is_empty() || json_ok(snap)) =>
        {
            Some(QLine::E(
                seq,
                Entry {
                    events: events.to_owned(),
                    snapshot: (!snap.is_empty()).then(|| snap.to_owned()),
                },
            ))
        }
        ("A", None, None) => Some(QLine::A(seq)),
        ("N", None, None) => Some(QLine::N(seq)),
        _ => None,
    }
}

/// What the lines read so far say.
#[derive(Default)]
struct ReadState {
    entries: BTreeMap<u64, Entry>,
    last_seq: u64,
    high_water: u64,
    acked: BTreeSet<u64>,
    lost: BTreeSet<u64>,
    prev_e: u64,
}

/// Takes in one whole line.
fn take(q: QLine, st: &mut ReadState) {
    match q {
        QLine::E(seq, e) => {
            st.last_seq = st.last_seq.max(seq);
            st.prev_e = st.prev_e.max(seq);
            st.lost.remove(&seq);
            st.entries.insert(seq, e);
        }
        QLine::A(seq) => {
            st.acked.insert(seq);
            st.entries.remove(&seq);
        }
        QLine::N(seq) => {
            st.last_seq = st.last_seq.max(seq);
            st.high_water = st.high_water.max(seq);
        }
    }
}

/// The sequence number a cut `E` line still shows (`E\t<seq>\t…`).
fn cut_seq(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"E\t")?;
    let end = rest.iter().position(|b| *b == b'\t')?;
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

/// A whole record that follows a cut one on the same line (the cut one's
/// newline lost): the last `E\t`/`A\t` from which the rest parses.
fn trailing_record(line: &[u8]) -> Option<QLine> {
    (1..line.len())
        .rev()
        .filter(|&i| matches!(&line[i..], [b'E' | b'A', b'\t', ..]))
        .find_map(|i| parse_line(&line[i..]))
}

/// Reads the lines of `input`, each at most `max` bytes (a longer one is
/// returned cut to `max`, flagged), with whether it ended with a newline.
fn bounded_lines<R: BufRead>(mut input: R, max: usize, mut f: impl FnMut(&[u8], bool, bool)) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let mut over = false;
        let newline = loop {
            let (used, nl) = {
                let avail = match input.fill_buf() {
                    Ok(b) => b,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => &[][..],
                };
                if avail.is_empty() {
                    break false;
                }
                let end = avail.iter().position(|&b| b == b'\n');
                let take = end.unwrap_or(avail.len());
                let room = max.saturating_sub(buf.len());
                over |= take > room;
                buf.extend_from_slice(&avail[..take.min(room)]);
                (end.map_or(take, |e| e + 1), end.is_some())
            };
            input.consume(used);
            if nl {
                break true;
            }
        };
        if buf.is_empty() && !newline && !over {
            return;
        }
        f(&buf, newline, over);
        if !newline {
            return;
        }
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
        for (i, (line, newline, over)) in lines.into_iter().enumerate() {
            let n = i + 1;
            let last = n == count;
            match (!over).then(|| parse_line(&line)).flatten() {
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
                        "MQTT queue line {n} cut short{}: {}",
                        seq.map(|s| format!(" (message {s})")).unwrap_or_default(),
                        if seq.is_some() {
                            "it is queued again from the journal's replay"
                        } else {
                            "the messages it may have held are queued again from the journal's replay"
                        }
                    );
                    match seq {
                        Some(s) => {
                            st.lost.insert(s);
                        }
                        None => unknown.push((n, st.prev_e)),
                    }
                    if let Some(q) = trailing_record(&line) {
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
            let after = entries
                .range(before + 1..)
                .next()
                .map_or(high_water, |(s, _)| *s);
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
        let mut text = format!("N\t{}\n", self.last_seq);
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
        self.write(vec![format!("A\t{seq}\n").into_bytes()], false)?;
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
    format!(
        "E\t{seq}\t{}\t{}\n",
        e.events,
        e.snapshot.as_deref().unwrap_or("")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    fn entry(n: u64) -> Entry {
        Entry {
            events: format!("{{\"seq\":{n}}}"),
            snapshot: n.is_multiple_of(2).then(|| format!("{{\"s\":{n}}}")),
        }
    }

    #[test]
    fn survives_a_restart_without_loss_or_duplicates() {
        let dir = std::env::temp_dir().join(format!("eboard-outbox-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("j.mqtt");
        let _ = std::fs::remove_file(&p);
        let mut o = Outbox::open(&p).unwrap();
        o.append((1..=5).map(|n| (n, entry(n))).collect()).unwrap();
        o.ack(1).unwrap();
        o.ack(3).unwrap();
        drop(o);
        // A torn last line from a crash mid-write.
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"E\t6\t{\"seq\":").unwrap();
        drop(f);
        let o = Outbox::open(&p).unwrap();
        assert_eq!(o.last_seq(), 5);
        let left: Vec<u64> = std::iter::successors(o.next_from(0), |(s, _)| o.next_from(s + 1))
            .map(|(s, _)| s)
            .collect();
        assert_eq!(left, [2, 4, 5]);
        assert_eq!(o.next_from(4).unwrap().1, &entry(4));
        let mut o = o;
        for s in [2, 4, 5] {
            o.ack(s).unwrap();
        }
        drop(o);
        let o = Outbox::open(&p).unwrap();
        assert_eq!((o.last_seq(), o.pending()), (5, 0));
        std::fs::remove_dir_all(&dir).ok();
    }

    fn queue_of(dir: &str, n: u64) -> (PathBuf, String) {
        let d = std::env::temp_dir().join(format!("eboard-outbox-{dir}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("j.mqtt");
        let mut o = Outbox::open(&p).unwrap();
        o.append((1..=n).map(|s| (s, entry(s))).collect()).unwrap();
        drop(o);
        let text = std::fs::read_to_string(&p).unwrap();
        (p, text)
    }

    fn pending(o: &Outbox) -> Vec<u64> {
        std::iter::successors(o.next_from(0), |(s, _)| o.next_from(s + 1))
            .map(|(s, _)| s)
            .collect()
    }

    #[test]
    fn a_line_cut_in_the_middle_is_detected_and_queued_again() {
        // Message 100 of 344 cut short (its tail and newline lost): the
        // next record follows on the same line.
        let (p, text) = queue_of("cut", 344);
        let whole = line(100, &entry(100));
        let cut = &whole[..whole.len() / 2];
        std::fs::write(&p, text.replacen(&whole, cut, 1)).unwrap();
        let mut o = Outbox::open(&p).unwrap();
        assert_eq!(o.lost().iter().copied().collect::<Vec<_>>(), [100]);
        let left = pending(&o);
        assert_eq!(left.len(), 343, "message 101 read from the cut line");
        assert!(!left.contains(&100) && left.contains(&101));
        // The journal's replay regenerates it: queued again, on the file.
        o.requeue(100, entry(100)).unwrap();
        assert!(o.lost().is_empty());
        drop(o);
        let o = Outbox::open(&p).unwrap();
        assert_eq!(pending(&o), (1..=344).collect::<Vec<_>>());
    }

    #[test]
    fn a_cut_line_of_unknown_number_queues_its_neighbours_gap_again() {
        let (p, text) = queue_of("unknown", 20);
        // Message 7's line cut in its number (`E\t`): a gap among numbers
        // that follow each other.
        let whole = line(7, &entry(7));
        std::fs::write(&p, text.replacen(&whole, "E\t\n", 1)).unwrap();
        let o = Outbox::open(&p).unwrap();
        assert_eq!(o.lost().iter().copied().collect::<Vec<_>>(), [7]);
        // After compaction (7 below the high-water mark), cut again: the
        // numbers between its neighbours are queued again.
        drop(o);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("N\t20\n"), "{text}");
        let whole = line(9, &entry(9));
        std::fs::write(&p, text.replacen(&whole, "E\t9", 1)).unwrap();
        let o = Outbox::open(&p).unwrap();
        assert_eq!(o.lost().iter().copied().collect::<Vec<_>>(), [9]);
        std::fs::write(
            &p,
            std::fs::read_to_string(&p)
                .unwrap()
                .replacen(&line(10, &entry(10)), "E\t1", 1),
        )
        .unwrap();
        let o = Outbox::open(&p).unwrap();
        // 10 cut to "E\t1": its number unknown; 7 and 9 (never requeued,
        // not on the file any more below the mark) are not claimed again,
        // 10 is (between 8 and 11).
        assert!(o.lost().contains(&10), "{:?}", o.lost());
    }

    #[test]
    fn an_injected_enospc_keeps_the_messages_and_tears_no_line() {
        use crate::disk::{Fault, FaultPlan, FaultyFile};
        use std::sync::{Arc, Mutex};
        let d = std::env::temp_dir().join(format!("eboard-outbox-enospc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("j.mqtt");
        let plan = Arc::new(Mutex::new(FaultPlan {
            at: vec![(1, Fault::Short(7)), (2, Fault::NoSpace)],
            ..Default::default()
        }));
        let mut o = Outbox::open_with(&p, FaultyFile::opener(plan.clone())).unwrap();
        o.append(vec![(1, entry(1))]).unwrap();
        let e = o.append(vec![(2, entry(2)), (3, entry(3))]).unwrap_err();
        assert!(e.contains("No space") || e.contains("short"), "{e}");
        // Nothing torn on the file; all three in memory.
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.ends_with('\n') && !text.contains("\t2\t"), "{text}");
        assert_eq!(o.pending(), 3);
        o.append(vec![(4, entry(4))]).unwrap();
        drop(o);
        let o = Outbox::open(&p).unwrap();
        assert_eq!(pending(&o), [1, 2, 3, 4]);
    }
}
