//! What the events file (`JOURNAL.events`) said: the round time of its
//! last line, the epoch of the last untrusted resume, the last heartbeat (a
//! restart's downtime is measured from them, `app::downtime`), and every
//! event in order ([`for_each_event`], the rotation's `standing`).
//!
//! Every line this version writes carries its checksum, the last key
//! `"crc32c"` ([`crate::disk::checksum::seal_json`], as the records file's
//! lines, `docs/journal.md`). Read here, a line whose checksum fails is
//! **damage**: never read as data, said at warn, and every reader decides
//! as if it were absent ([`EventsRead::damaged`] tells the caller so). An
//! events file in which no line carries a checksum (written before them)
//! is read as it is, said once at warn; in a file where some line carries
//! one, a line without one (its checksum's own bytes changed) is damage
//! too.

use super::{events_path, read};
use crate::disk::checksum::{self, Check};
use serde_json::Value;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// What reading an events file found besides its events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventsRead {
    /// The lines (1-based) whose checksum failed, or that carry none in a
    /// file whose other lines do: damage, not read.
    pub damaged: Vec<usize>,
    /// No line of the file carries a checksum (written before them, or
    /// empty): its lines were read as they are.
    pub unsealed: bool,
}

/// Calls `f` with every event of the events file of `journal`, in order:
/// each line's JSON object, its checksum checked and the key removed.
/// Damaged lines ([`EventsRead::damaged`]) and lines that are not JSON
/// objects are passed over; nothing when the file cannot be read.
pub fn for_each_event(journal: &Path, mut f: impl FnMut(Value)) -> EventsRead {
    let path = events_path(journal);
    let Ok(file) = File::open(&path) else {
        return EventsRead {
            damaged: Vec::new(),
            unsealed: true,
        };
    };
    // Each line with its check; `None`: longer than a line can be.
    let mut lines: Vec<Option<(Vec<u8>, Check)>> = Vec::new();
    read::for_each_line_bytes(BufReader::new(file), |l| {
        lines.push(l.map(|b| (b.to_vec(), checksum::check_json(b))));
    });
    let sealed = lines
        .iter()
        .any(|l| l.as_ref().is_some_and(|(_, c)| *c != Check::Missing));
    let mut out = EventsRead {
        damaged: Vec::new(),
        unsealed: !sealed,
    };
    for (n, l) in lines.iter().enumerate() {
        let json: Option<Vec<u8>> = match l {
            Some((l, Check::Good { .. })) => checksum::unseal_json(l),
            Some((l, Check::Missing)) if !sealed => Some(l.clone()),
            _ if !sealed => None,
            _ => {
                out.damaged.push(n + 1);
                None
            }
        };
        if let Some(v) = json.and_then(|j| serde_json::from_slice::<Value>(&j).ok()) {
            f(v);
        }
    }
    say(&path, &out);
    out
}

/// Logs what a read found, once per file, line and process: each damaged
/// line at warn, an unsealed file at warn.
fn say(path: &Path, read: &EventsRead) {
    static SAID: std::sync::Mutex<Vec<(PathBuf, usize)>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    let mut first = |line: usize| {
        let key = (path.to_owned(), line);
        let new = !said.contains(&key);
        if new {
            said.push(key);
        }
        new
    };
    for line in read.damaged.iter().copied().filter(|&l| first(l)) {
        tracing::warn!(
            file = %path.display(),
            line,
            "events file: line {line} fails its checksum (a changed byte): damage, not read; \
             decided as if the line were absent"
        );
    }
    if read.unsealed && file_has_bytes(path) && first(0) {
        tracing::warn!(
            file = %path.display(),
            "events file written before checksums: read as it is; a changed byte in it \
             cannot be found"
        );
    }
}

fn file_has_bytes(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
}

/// Whether the events file of `journal` carries checksums (some line has
/// one) or is empty or absent: what a resumed journal's new event lines
/// follow (an older file goes on without, so it stays readable as one).
pub(super) fn sealed_or_new(journal: &Path) -> bool {
    let path = events_path(journal);
    if !file_has_bytes(&path) {
        return true;
    }
    let Ok(file) = File::open(&path) else {
        return true;
    };
    let mut any = false;
    read::for_each_line_bytes(BufReader::new(file), |l| {
        any |= l.is_some_and(|b| checksum::check_json(b) != Check::Missing);
    });
    any
}

/// What reading the events file of `journal` finds besides its events
/// (its damaged lines: a caller that measures from the file, the downtime,
/// does not trust a measurement a damaged line may have changed).
pub fn events_read(journal: &Path) -> EventsRead {
    for_each_event(journal, |_| {})
}

/// The round time of the last line of an events file (for the downtime).
pub fn last_event_t(journal: &Path) -> Option<u64> {
    last_event_u64(journal, "t")
}

/// The Unix time of round time 0 set by the last resume whose wall clock
/// could not be trusted (the `epoch_unix_ms` of the last `downtime` event
/// carrying one in the events file), ms; `None`: the header's start holds.
pub fn last_epoch(journal: &Path) -> Option<u64> {
    last_event_u64(journal, "epoch_unix_ms")
}

/// The last `heartbeat` line of `journal`'s events file (`docs/journal.md`):
/// round time `t`, and, from this version on, `boot_id` and `boottime_ms`
/// (the kernel's boot and its boot-time clock when `t` was journaled) —
/// what a restart measures its downtime with (`app::downtime`).
pub fn last_heartbeat(journal: &Path) -> Option<Value> {
    let mut found = None;
    for_each_event(journal, |v| {
        if v["type"] == "heartbeat" {
            found = Some(v);
        }
    });
    found
}

/// The number under `key` in the last event of `journal`'s events file
/// that has one.
fn last_event_u64(journal: &Path, key: &str) -> Option<u64> {
    let mut found = None;
    for_each_event(journal, |v| {
        if let Some(n) = v.get(key).and_then(Value::as_u64) {
            found = Some(n);
        }
    });
    found
}
