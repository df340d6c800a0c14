//! What the journal tells the arbiter about its files: a disk that refuses
//! records and recovers, a damaged journal set aside, an empty journal.
//! Each is an event on the arbiter's channel (`journal_alert`, a documented
//! extension: `docs/trace-extensions.md`, "Journal alerts") and a log line.

use serde_json::{json, Value};
use std::path::PathBuf;

/// One thing the arbiter must know about the journal.
#[derive(Debug, Clone, PartialEq)]
pub enum Alert {
    /// The disk refused a record (full, failing): the game goes on, the
    /// records wait in memory and are written when the disk takes them.
    WriteFailed {
        /// The file.
        file: PathBuf,
        /// The error.
        error: String,
        /// Records waiting in memory.
        waiting: usize,
    },
    /// The disk takes records again: the waiting ones are written.
    WriteRecovered {
        /// The file.
        file: PathBuf,
        /// Records written that had waited.
        written: usize,
    },
    /// The journal was damaged before its last line: the game was resumed
    /// up to the last good record, the damaged file set aside.
    Damaged {
        /// The journal.
        file: PathBuf,
        /// The damaged line (1-based).
        line: usize,
        /// What is wrong with it.
        error: String,
        /// Where the damaged file (and its events) went.
        set_aside: PathBuf,
        /// Records resumed (before the damage).
        records_kept: usize,
        /// Lines set aside after the damaged one (not resumed).
        lines_set_aside: usize,
    },
    /// The journal existed but held no record (0 bytes, or only a header):
    /// a new game is started.
    Empty {
        /// The journal.
        file: PathBuf,
        /// Its length, bytes.
        bytes: u64,
    },
    /// Records that never reached the disk when the journal was closed.
    LostAtClose {
        /// The file.
        file: PathBuf,
        /// Records not written.
        lost: usize,
    },
    /// Lines of the events file (`JOURNAL.events`) whose checksum fails,
    /// found on start (problem `damaged` too): read as absent, nothing set
    /// aside (the game is resumed from its records); a result they may
    /// have confirmed is taken as not confirmed, the downtime as not
    /// measured (`docs/journal.md`).
    EventsDamaged {
        /// The events file.
        file: PathBuf,
        /// The damaged lines (1-based).
        lines: Vec<usize>,
    },
}

impl Alert {
    /// The problem's name (`problem` in the event).
    pub fn problem(&self) -> &'static str {
        match self {
            Alert::WriteFailed { .. } => "write_failed",
            Alert::WriteRecovered { .. } => "write_recovered",
            Alert::Damaged { .. } => "damaged",
            Alert::Empty { .. } => "empty",
            Alert::LostAtClose { .. } => "lost_at_close",
            Alert::EventsDamaged { .. } => "damaged",
        }
    }

    /// The event on the arbiter's channel at round time `t` (ms):
    /// `{"type": "journal_alert", "t", "problem", "file", …, "action"}`.
    pub fn to_json(&self, t: u64) -> String {
        let mut v = json!({"type": "journal_alert", "t": t, "problem": self.problem()});
        let mut put = |k: &str, x: Value| {
            v[k] = x;
        };
        match self {
            Alert::WriteFailed {
                file,
                error,
                waiting,
            } => {
                put("file", file.display().to_string().into());
                put("error", error.clone().into());
                put("waiting", (*waiting).into());
                put(
                    "action",
                    "the game goes on; the records not written are kept in memory and \
                     written when the disk takes them again (a crash before then loses them)"
                        .into(),
                );
            }
            Alert::WriteRecovered { file, written } => {
                put("file", file.display().to_string().into());
                put("written", (*written).into());
                put("action", "the journal is whole again".into());
            }
            Alert::Damaged {
                file,
                line,
                error,
                set_aside,
                records_kept,
                lines_set_aside,
            } => {
                put("file", file.display().to_string().into());
                put("line", (*line).into());
                put("error", error.clone().into());
                put("set_aside", set_aside.display().to_string().into());
                put("records_kept", (*records_kept).into());
                put("lines_set_aside", (*lines_set_aside).into());
                put(
                    "action",
                    "the game is resumed up to the last good record before the damage; \
                     check the position on the board against it and correct it with the \
                     arbiter API; the damaged file is kept for the audit"
                        .into(),
                );
            }
            Alert::Empty { file, bytes } => {
                put("file", file.display().to_string().into());
                put("bytes", (*bytes).into());
                put(
                    "action",
                    "the journal held no record: a new game is started".into(),
                );
            }
            Alert::LostAtClose { file, lost } => {
                put("file", file.display().to_string().into());
                put("lost", (*lost).into());
                put(
                    "action",
                    "the disk did not take them before the stop".into(),
                );
            }
            Alert::EventsDamaged { file, lines } => {
                put("file", file.display().to_string().into());
                put("line", lines.first().copied().unwrap_or(0).into());
                put("lines", lines.clone().into());
                put(
                    "action",
                    "lines of the events file fail their checksum: read as absent; the game is \
                     resumed from its records, a result is taken as not confirmed (confirm it \
                     again) and the downtime as not measured (check the clocks, then resume)"
                        .into(),
                );
            }
        }
        v.to_string()
    }

    /// Logs the alert at its level (error: a write failed or was lost,
    /// damage; warn: an empty journal, a recovery).
    pub fn log(&self) {
        match self {
            Alert::WriteFailed {
                file,
                error,
                waiting,
            } => tracing::error!(
                file = %file.display(),
                "journal: {error}; the game goes on, {waiting} record(s) kept in memory and retried"
            ),
            Alert::WriteRecovered { file, written } => tracing::warn!(
                file = %file.display(),
                "journal: the disk takes records again: {written} waiting record(s) written"
            ),
            Alert::Damaged {
                file,
                line,
                error,
                set_aside,
                records_kept,
                lines_set_aside,
            } => tracing::error!(
                file = %file.display(),
                "journal damaged at line {line} ({error}): resumed with the {records_kept} \
                 record(s) before it; the damaged file ({lines_set_aside} line(s) after the \
                 damage not resumed) moved to {}",
                set_aside.display()
            ),
            Alert::Empty { file, bytes } => tracing::warn!(
                file = %file.display(),
                "journal holds no record ({bytes} bytes): a new game is started"
            ),
            Alert::LostAtClose { file, lost } => tracing::error!(
                file = %file.display(),
                "journal: {lost} record(s) never reached the disk before the stop"
            ),
            Alert::EventsDamaged { file, lines } => tracing::warn!(
                file = %file.display(),
                "events file damaged at line(s) {lines:?} (checksum): read as absent; a result \
                 not confirmed again, the downtime not measured"
            ),
        }
    }
}
