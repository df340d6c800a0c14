//! The journal: a crash-safe, append-only record of one game, so the daemon
//! can resume it after a crash and the arbiter can audit every decision.
//!
//! Two files:
//!
//! - `JOURNAL` (e.g. `board1.jsonl`) is a trace in the contract's format:
//!   the header first (with the extension key `journal`:
//!   `{"version": 2, "started_at_unix_ms": …}`: the journal format's
//!   version ([`JOURNAL_VERSION`]; absent in journals written before it,
//!   read as version 0, the same lines) and the Unix time of round time 0,
//!   which the reader of the contract ignores), then every record the controller was
//!   fed — from the board and from the arbiter API (`arbiter` records with
//!   `author`) — at its round time. `eboard replay JOURNAL` replays the game.
//! - `JOURNAL.events` (e.g. `board1.jsonl.events`) holds the decisions: the
//!   event stream, one JSON object a line, as `eboard replay --json` prints
//!   it, plus the daemon's own events (`irregularity` of kind `downtime`,
//!   heartbeats), each line with its checksum as the last key `"crc32c"`
//!   (on disk only; its readers check it and take it off, `events.rs`).
//!   The records stay a pure trace; the events never need to be parsed back
//!   (replaying the records gives them again).
//!
//! The header's `journal` object also carries the game's id (`game_id`,
//! 128 random bits in hex, made when the game started). With the header's
//! event, round (`round.board`), players and time control it is the
//! game's identity: a journal of another game than the configuration's is
//! refused ([`JournalError::OtherGame`], [`identity`]), never mixed.
//!
//! What survives what (`docs/journal.md`):
//! - Each line is built whole and written with one `write` call
//!   ([`crate::disk::RecordFile`]), so a killed process leaves whole lines;
//!   both files are flushed to disk (`fsync`) after every completed move
//!   and every arbiter action.
//! - A failed or short write (a full disk) is cut off again; the line
//!   waits in memory and is written, in order, before the next one or at
//!   the next retry; the arbiter is alerted once when the disk fails and
//!   once when it recovers ([`Alert`]). The game never stops for the disk.
//! - A torn last line (power cut) is reported and cut off when the journal
//!   is reopened; nothing before it is lost.
//! - Every records line carries its checksum (`"crc32c"`, from version
//!   [`CHECKSUMS_FROM`]): a line whose checksum fails (a bad byte that
//!   left valid JSON) is damage, the last line's too.
//! - A damaged line before the last one (a bad byte, a half-written record
//!   of an older eboard) ends what is resumed: the file is set aside as
//!   `JOURNAL.damaged-<unix s>` and the game resumed from the records
//!   before it, with an alert naming the line.
//! - Every line is read bounded ([`crate::trace::MAX_LINE_BYTES`]).
//!
//! Depends on `trace` (the records and events it keeps are the contract's)
//! and `disk`, the modules below it in docs/dev/architecture.md's map. It
//! must not depend on `arbiter` or `controller`, on `config`, `mqtt`,
//! `server` or `app` (which opens and feeds it).

use crate::disk::{os_opener, Health, Opener, RecordFile};
use crate::trace::{header_json, Header, Record, TraceError};
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

pub mod alert;
mod events;
mod files;
pub mod identity;
pub mod read;
mod rotate;

pub use alert::Alert;
pub use events::{
    events_read, for_each_event, last_epoch, last_event_t, last_heartbeat, EventsRead,
};
use files::{file_len, repair_events, set_aside, sync_dir, unix_s};
pub use read::{read_journal, scan, Damage, Recovered, Scan};
pub use rotate::{
    game_ended, has_event, last_event, recover_rotation, rotate, standing, unconfirmed_result,
    Standing, ARCHIVE, CURRENT, KEEP_GAMES,
};

/// The journal format this build writes (`journal.version` in the
/// header) and the newest it reads. Version 0 is a journal written before
/// the key existed (the same lines, read the same way); version 2 adds a
/// checksum to every line of the records file ([`CHECKSUMS_FROM`]). A
/// journal of a newer version is refused with a message rather than
/// misread (a downgrade during a game; `docs/service.md`).
pub const JOURNAL_VERSION: u64 = 2;

/// The first journal version whose every records line carries its
/// checksum (`"crc32c"`, [`crate::disk::checksum`], issue 41): a line
/// whose checksum fails, or that has none, ends what is resumed (damage,
/// never a different game). Older journals are resumed as they are, said
/// once at warn (a changed byte in them cannot be found).
pub const CHECKSUMS_FROM: u64 = 2;

/// The sibling file holding the events of `journal`.
pub fn events_path(journal: &Path) -> PathBuf {
    sibling(journal, ".events")
}

/// The MQTT queue beside `journal` (`JOURNAL.mqtt`, `crate::mqtt::outbox`).
pub fn mqtt_path(journal: &Path) -> PathBuf {
    sibling(journal, ".mqtt")
}

/// The MQTT queue of the arbiter's channel beside `journal`
/// (`JOURNAL.mqtt-arbiter`, `crate::mqtt::arbiter`).
pub fn mqtt_arbiter_path(journal: &Path) -> PathBuf {
    sibling(journal, ".mqtt-arbiter")
}

fn sibling(journal: &Path, suffix: &str) -> PathBuf {
    let mut s = journal.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The exit status of `eboard run` refusing a journal of another game:
/// 78 (`EX_CONFIG` of sysexits.h); the unit's `RestartPreventExitStatus=78`
/// keeps systemd from restarting it in a loop (the organiser moves the
/// file, then starts the service).
pub const EXIT_OTHER_GAME: u8 = 78;

/// How long round time waits between two retries of records a failing
/// disk refused, when no new record comes, ms.
pub const RETRY_EVERY_MS: u64 = 1_000;

/// A journal open for appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    records: RecordFile,
    events: RecordFile,
    /// Alerts for the arbiter not yet taken ([`Journal::take_alerts`]).
    alerts: Vec<Alert>,
    /// The round time of the next retry of waiting records, ms.
    next_retry_t: u64,
    /// The game's id (`journal.game_id` in the header).
    game_id: Option<String>,
    /// Records lines carry their checksum (a journal of version
    /// [`CHECKSUMS_FROM`] on; an older one resumed goes on without).
    checksummed: bool,
    /// Events lines carry their checksum (a new game's events file, or a
    /// resumed one whose lines have them; an older one goes on without).
    events_sealed: bool,
}

/// Why a journal cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// A journal this eboard cannot read (written by a newer version).
    #[error("{path}: {source}")]
    Malformed {
        /// The file.
        path: String,
        /// The error naming the line.
        source: TraceError,
    },
    /// The journal is of another game than the configuration's: refused,
    /// never mixed ([`identity::refusal`] says which file to move).
    #[error("{message}")]
    OtherGame {
        /// The journal.
        path: String,
        /// The keys that differ (`round: journal "3.1", config "4.1"`).
        differences: Vec<String>,
        /// The full message for the organiser.
        message: String,
    },
}

impl JournalError {
    /// The journal belongs to another game (refused; restarting does not help).
    pub fn is_other_game(&self) -> bool {
        matches!(self, JournalError::OtherGame { .. })
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
    move |source| JournalError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Reads `path` bounded ([`scan`]); `None`: no such file.
pub fn scan_file(path: &Path) -> Result<Option<Scan>, JournalError> {
    match File::open(path) {
        Ok(f) => scan(BufReader::new(f))
            .map(Some)
            .map_err(|source| JournalError::Malformed {
                path: path.display().to_string(),
                source,
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Refuses the journal at `path` when it is of another game than `config`
/// describes ([`identity::differences`]); a missing, empty or headless
/// journal is no conflict.
pub fn check_identity(path: &Path, config: &Header) -> Result<(), JournalError> {
    let Some(Scan {
        recovered: Some(rec),
        ..
    }) = scan_file(path)?
    else {
        return Ok(());
    };
    let differences = identity::differences(&rec.header, config);
    if differences.is_empty() || rec.records.is_empty() && rec.damage.is_none() {
        return Ok(());
    }
    Err(JournalError::OtherGame {
        path: path.display().to_string(),
        message: identity::refusal(path, &differences, rec.game_id.as_deref()),
        differences,
    })
}

impl Journal {
    /// Opens `path` on the operating system's files ([`Journal::open_with`]).
    pub fn open(
        path: &Path,
        header: &Header,
        started_at_unix_ms: u64,
    ) -> Result<(Journal, Option<Recovered>), JournalError> {
        Journal::open_with(path, header, started_at_unix_ms, &os_opener())
    }

    /// Opens `path` (its files opened by `opener`) for the game `header`
    /// describes:
    /// - a journal of that game is read back and returned with the journal:
    ///   a torn last line is cut off; a damaged line before the last one
    ///   ([`Recovered::damage`]) ends what is resumed: the damaged file (with
    ///   its events and MQTT queue) is moved to `path.damaged-<unix s>` and
    ///   a fresh journal holding the good part takes its place (an
    ///   [`Alert::Damaged`]);
    /// - a journal of another game is refused ([`JournalError::OtherGame`]);
    /// - a missing journal, or one without a record (an [`Alert::Empty`]),
    ///   or one damaged in its header (set aside, [`Alert::Damaged`]) is
    ///   started with `header`, `started_at_unix_ms` and a new game id.
    ///
    /// Errors: the file cannot be read or moved, a journal of a newer
    /// version, another game. A disk that refuses writes is no error: the
    /// records wait in memory ([`Journal::take_alerts`]).
    pub fn open_with(
        path: &Path,
        header: &Header,
        started_at_unix_ms: u64,
        opener: &Opener,
    ) -> Result<(Journal, Option<Recovered>), JournalError> {
        let scanned = scan_file(path)?;
        let mut alerts = Vec::new();
        let events = events_path(path);
        match scanned {
            Some(Scan {
                recovered: Some(rec),
                ..
            }) if !rec.records.is_empty() || rec.damage.is_some() => {
                let differences = identity::differences(&rec.header, header);
                if !differences.is_empty() {
                    return Err(JournalError::OtherGame {
                        path: path.display().to_string(),
                        message: identity::refusal(path, &differences, rec.game_id.as_deref()),
                        differences,
                    });
                }
                let checksummed = rec.version >= CHECKSUMS_FROM;
                if !checksummed {
                    tracing::warn!(
                        file = %path.display(),
                        "journal of format version {} (written before checksums): resumed as it \
                         is, and its lines go on without a checksum; a changed byte in it cannot \
                         be found (the next game's journal has them)",
                        rec.version
                    );
                }
                let mut j = match &rec.damage {
                    None => {
                        if (rec.good_len as u64) < file_len(path)? {
                            let f = OpenOptions::new()
                                .write(true)
                                .open(path)
                                .map_err(io_err(path))?;
                            f.set_len(rec.good_len as u64).map_err(io_err(path))?;
                            f.sync_all().map_err(io_err(path))?;
                        }
                        repair_events(&events)?;
                        Journal::on_files(
                            path,
                            opener,
                            rec.good_len as u64,
                            rec.game_id.clone(),
                            checksummed,
                        )?
                    }
                    Some(d) => {
                        let aside = set_aside(path)?;
                        File::create(&events).map_err(io_err(&events))?;
                        sync_dir(path);
                        alerts.push(Alert::Damaged {
                            file: path.to_owned(),
                            line: d.error.line,
                            error: d.error.message.clone(),
                            set_aside: aside.clone(),
                            records_kept: rec.records.len(),
                            lines_set_aside: d.lines_after + 1,
                        });
                        // The good part to the fresh journal in one write
                        // (whole or not at all); a disk still full keeps it
                        // in memory like any line it refuses.
                        File::create(path).map_err(io_err(path))?;
                        let mut good = Vec::with_capacity(rec.good_len);
                        File::open(&aside)
                            .and_then(|f| f.take(rec.good_len as u64).read_to_end(&mut good))
                            .map_err(io_err(&aside))?;
                        let mut j =
                            Journal::on_files(path, opener, 0, rec.game_id.clone(), checksummed)?;
                        j.put(false, good);
                        if let Err(e) = j.sync() {
                            tracing::error!("journal: {e}");
                        }
                        j
                    }
                };
                if rec.needs_newline {
                    j.put(false, b"\n".to_vec());
                }
                j.alerts.splice(0..0, alerts);
                for a in &j.alerts {
                    a.log();
                }
                Ok((j, Some(rec)))
            }
            other => {
                if let Some(s) = &other {
                    match &s.headless_damage {
                        Some(d) => {
                            let aside = set_aside(path)?;
                            alerts.push(Alert::Damaged {
                                file: path.to_owned(),
                                line: d.error.line,
                                error: d.error.message.clone(),
                                set_aside: aside,
                                records_kept: 0,
                                lines_set_aside: d.lines_after + 1,
                            });
                        }
                        None => alerts.push(Alert::Empty {
                            file: path.to_owned(),
                            bytes: s.bytes,
                        }),
                    }
                }
                // A queue left by an earlier game's stream (the new game's
                // stream starts at message 1 under a new epoch): moved
                // aside, or its high-water mark would swallow the new
                // game's first messages.
                for queue in [mqtt_path(path), mqtt_arbiter_path(path)] {
                    if queue.exists() {
                        let to = sibling(&queue, &format!(".old-{}", unix_s()));
                        std::fs::rename(&queue, &to).map_err(io_err(&queue))?;
                        tracing::warn!(
                            "the MQTT queue {} belongs to an earlier game's stream: moved to {}",
                            queue.display(),
                            to.display()
                        );
                    }
                }
                File::create(path).map_err(io_err(path))?;
                // An events file left without its game's records (a kill in
                // the middle of a rotation of an older eboard, a journal
                // removed by hand): kept beside, never emptied.
                if file_len(&events)? > 0 {
                    let to = sibling(&events, &format!(".orphan-{}", unix_s()));
                    std::fs::rename(&events, &to).map_err(io_err(&events))?;
                    tracing::warn!(
                        "the events file {} has no journal beside it: kept as {} (a new game \
                         starts)",
                        events.display(),
                        to.display()
                    );
                }
                File::create(&events).map_err(io_err(&events))?;
                let game_id = identity::new_game_id();
                let mut j = Journal::on_files(path, opener, 0, Some(game_id.clone()), true)?;
                let mut h = header_json(header);
                if let Value::Object(m) = &mut h {
                    m.insert(
                        "journal".into(),
                        serde_json::json!({
                            "version": JOURNAL_VERSION,
                            "started_at_unix_ms": started_at_unix_ms,
                            "game_id": game_id,
                        }),
                    );
                }
                j.write_line(false, &h.to_string())?;
                if let Err(e) = j.sync() {
                    tracing::error!("journal: {e}");
                }
                j.alerts.splice(0..0, alerts);
                for a in &j.alerts {
                    a.log();
                }
                Ok((j, None))
            }
        }
    }

    fn on_files(
        path: &Path,
        opener: &Opener,
        records_end: u64,
        game_id: Option<String>,
        checksummed: bool,
    ) -> Result<Journal, JournalError> {
        let events = events_path(path);
        let events_end = file_len(&events)?;
        let events_sealed = events::sealed_or_new(path);
        Ok(Journal {
            path: path.to_owned(),
            records: RecordFile::open(path, opener, records_end).map_err(io_err(path))?,
            events: RecordFile::open(&events, opener, events_end).map_err(io_err(&events))?,
            alerts: Vec::new(),
            next_retry_t: 0,
            game_id,
            checksummed,
            events_sealed,
        })
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The game's id (`None`: a journal written before ids).
    pub fn game_id(&self) -> Option<&str> {
        self.game_id.as_deref()
    }

    /// Records and events refused by the disk, waiting in memory.
    pub fn waiting(&self) -> usize {
        self.records.waiting() + self.events.waiting()
    }

    /// The alerts for the arbiter since the last call (logged already).
    pub fn take_alerts(&mut self) -> Vec<Alert> {
        std::mem::take(&mut self.alerts)
    }

    /// One line (the JSON and its newline) to the records or the events.
    fn put(&mut self, events: bool, line: Vec<u8>) {
        let f = if events {
            &mut self.events
        } else {
            &mut self.records
        };
        let h = f.append(line);
        self.noted(events, h);
    }

    fn noted(&mut self, events: bool, h: Health) {
        let file = if events {
            self.events.path()
        } else {
            self.records.path()
        }
        .to_owned();
        let alert = match h {
            Health::Written => return,
            Health::Failing {
                error,
                waiting,
                first,
            } => {
                if !first {
                    tracing::debug!("journal: still failing: {error} ({waiting} waiting)");
                    return;
                }
                Alert::WriteFailed {
                    file,
                    error,
                    waiting,
                }
            }
            Health::Recovered { written } => Alert::WriteRecovered { file, written },
        };
        alert.log();
        self.alerts.push(alert);
    }

    fn write_line(&mut self, events: bool, json: &str) -> Result<(), JournalError> {
        // The whole line first (with its checksum), then one write: whole
        // or not at all.
        let sealed;
        let seal = if events {
            self.events_sealed
        } else {
            self.checksummed
        };
        let json = if seal {
            sealed = crate::disk::checksum::seal_json(json);
            sealed.as_str()
        } else {
            json
        };
        let mut line = Vec::with_capacity(json.len() + 1);
        line.extend_from_slice(json.as_bytes());
        line.push(b'\n');
        self.put(events, line);
        Ok(())
    }

    /// Appends a record (the contract's JSON). A disk that refuses it is
    /// no error: the record waits in memory, an alert says so.
    pub fn record(&mut self, rec: &Record) -> Result<(), JournalError> {
        self.write_line(false, &crate::trace::record_json(rec).to_string())
    }

    /// Appends an event line (JSON text of one event, an object), its
    /// checksum as the last key `"crc32c"` on disk (not in the event
    /// stream: the readers of the file take it off, [`for_each_event`]).
    pub fn event(&mut self, json: &str) -> Result<(), JournalError> {
        self.write_line(true, json)
    }

    /// Writes the lines a failing disk refused, when round time `t` (ms)
    /// is [`RETRY_EVERY_MS`] past the last retry.
    pub fn retry_at(&mut self, t: u64) {
        if self.waiting() == 0 || t < self.next_retry_t {
            return;
        }
        self.next_retry_t = t.saturating_add(RETRY_EVERY_MS);
        let h = self.records.retry();
        self.noted(false, h);
        let h = self.events.retry();
        self.noted(true, h);
    }

    /// Flushes both files to disk (lines still waiting are tried first).
    pub fn sync(&mut self) -> Result<(), JournalError> {
        for events in [false, true] {
            let f = if events {
                &mut self.events
            } else {
                &mut self.records
            };
            let h = f.retry();
            self.noted(events, h);
        }
        let r = self.records.sync();
        let e = self.events.sync();
        r.and(e).map_err(|e| JournalError::Io {
            path: self.path.display().to_string(),
            source: std::io::Error::other(e),
        })
    }

    /// Closes the journal: synced, and the lines the disk never took are
    /// reported ([`Alert::LostAtClose`]).
    pub fn close(mut self) -> Vec<Alert> {
        if let Err(e) = self.sync() {
            tracing::error!("journal: {e}");
        }
        for events in [false, true] {
            let f = if events { &self.events } else { &self.records };
            if f.waiting() > 0 {
                let a = Alert::LostAtClose {
                    file: f.path().to_owned(),
                    lost: f.waiting(),
                };
                a.log();
                self.alerts.push(a);
            }
        }
        self.take_alerts()
    }
}

#[cfg(test)]
mod tests;
