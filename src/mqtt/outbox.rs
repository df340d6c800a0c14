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
//! On opening, the file is compacted (written anew, then renamed over): only
//! the unacknowledged entries and the high-water mark stay; a torn last
//! line (a crash while writing) is dropped. It is compacted again when
//! every entry is acknowledged and [`COMPACT_AFTER`] lines were written.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
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

/// The queue: in memory, and in its file when it has one.
#[derive(Debug)]
pub struct Outbox {
    path: Option<PathBuf>,
    file: Option<File>,
    entries: BTreeMap<u64, Entry>,
    last_seq: u64,
    lines: usize,
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
            entries: BTreeMap::new(),
            last_seq: 0,
            lines: 0,
        }
    }

    /// Opens (or creates) the queue file at `path` and compacts it.
    pub fn open(path: &Path) -> Result<Outbox, String> {
        let mut entries = BTreeMap::new();
        let mut last_seq = 0u64;
        match File::open(path) {
            Ok(f) => {
                for line in BufReader::new(f).lines() {
                    let Ok(line) = line else { break }; // torn (not UTF-8): dropped
                    let mut parts = line.splitn(4, '\t');
                    let kind = parts.next().unwrap_or("");
                    let Some(seq) = parts.next().and_then(|s| s.parse::<u64>().ok()) else {
                        continue; // a torn last line
                    };
                    match kind {
                        "E" => {
                            let (Some(events), Some(snap)) = (parts.next(), parts.next()) else {
                                continue;
                            };
                            if serde_json::from_str::<serde_json::Value>(events).is_err()
                                || (!snap.is_empty()
                                    && serde_json::from_str::<serde_json::Value>(snap).is_err())
                            {
                                continue; // torn
                            }
                            last_seq = last_seq.max(seq);
                            entries.insert(
                                seq,
                                Entry {
                                    events: events.to_owned(),
                                    snapshot: (!snap.is_empty()).then(|| snap.to_owned()),
                                },
                            );
                        }
                        "A" => {
                            entries.remove(&seq);
                        }
                        "N" => last_seq = last_seq.max(seq),
                        _ => {}
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(path, "cannot read the MQTT queue", e)),
        }
        let mut o = Outbox {
            path: Some(path.to_owned()),
            file: None,
            entries,
            last_seq,
            lines: 0,
        };
        o.compact()?;
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
            OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(|e| err(&path, "cannot open", e))?,
        );
        self.lines = 1 + self.entries.len();
        Ok(())
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
        let mut text = String::new();
        for (seq, e) in items {
            debug_assert!(seq > self.last_seq);
            text.push_str(&line(seq, &e));
            self.last_seq = self.last_seq.max(seq);
            self.entries.insert(seq, e);
            self.lines += 1;
        }
        if let (Some(f), Some(p)) = (self.file.as_mut(), self.path.as_ref()) {
            f.write_all(text.as_bytes())
                .and_then(|_| f.sync_data())
                .map_err(|e| err(p, "cannot append to the MQTT queue", e))?;
        }
        Ok(())
    }

    /// The broker acknowledged `seq` (not synced: a lost acknowledgement
    /// only means one idempotent resend).
    pub fn ack(&mut self, seq: u64) -> Result<(), String> {
        if self.entries.remove(&seq).is_none() {
            return Ok(());
        }
        if let (Some(f), Some(p)) = (self.file.as_mut(), self.path.as_ref()) {
            f.write_all(format!("A\t{seq}\n").as_bytes())
                .map_err(|e| err(p, "cannot append to the MQTT queue", e))?;
            self.lines += 1;
        }
        if self.entries.is_empty() && self.lines >= COMPACT_AFTER {
            self.compact()?;
        }
        Ok(())
    }
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
}
