//! The journal: a crash-safe, append-only record of one game, so the daemon
//! can resume it after a crash and the arbiter can audit every decision.
//!
//! Two files:
//!
//! - `JOURNAL` (e.g. `board1.jsonl`) is a trace in the contract's format:
//!   the header first (with the extension key `journal`:
//!   `{"version": 1, "started_at_unix_ms": …}`: the journal format's
//!   version ([`JOURNAL_VERSION`]; absent in journals written before it,
//!   read as version 0, the same lines) and the Unix time of round time 0,
//!   which the reader of the contract ignores), then every record the controller was
//!   fed — from the board and from the arbiter API (`arbiter` records with
//!   `author`) — at its round time. `eboard replay JOURNAL` replays the game.
//! - `JOURNAL.events` (e.g. `board1.jsonl.events`) holds the decisions: the
//!   event stream, one JSON object a line, as `eboard replay --json` prints
//!   it, plus the daemon's own events (`irregularity` of kind `downtime`).
//!   The records stay a pure trace; the events never need to be parsed back
//!   (replaying the records gives them again).
//!
//! Each line is written with one `write` call, so a killed process leaves
//! whole lines; both files are flushed to disk (`fsync`) after every
//! completed move and every arbiter action. A torn last line (power cut)
//! is reported and cut off when the journal is reopened; nothing before it
//! is lost. A malformed line before the last one is an error.

use crate::trace::{header_json, Header, Line, Record, TraceError, TraceReader};
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The journal format this build writes (`journal.version` in the
/// header) and the newest it reads. Version 0 is a journal written before
/// the key existed (the same lines, read the same way). A journal of a
/// newer version is refused with a message rather than misread (a
/// downgrade during a game; `docs/service.md`).
pub const JOURNAL_VERSION: u64 = 1;

/// The sibling file holding the events of `journal`.
pub fn events_path(journal: &Path) -> PathBuf {
    let mut s = journal.as_os_str().to_owned();
    s.push(".events");
    PathBuf::from(s)
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
    /// Every record, in order.
    pub records: Vec<Record>,
    /// A torn last line that was dropped: its line number and the error.
    pub torn: Option<TraceError>,
    /// The length in bytes of the good part (where appending resumes).
    pub good_len: usize,
}

/// Reads a journal's text. Only the last line may be malformed (torn): it
/// is reported in [`Recovered::torn`] and left out; an error anywhere else
/// names its line. `Ok(None)`: no header survived (an empty journal).
pub fn read_journal(text: &str) -> Result<Option<Recovered>, TraceError> {
    // Byte offset of each line's start, to cut a torn line off.
    let mut starts = vec![0usize];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let last_content = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, _)| i + 1)
        .last();
    let mut reader = TraceReader::new(text.as_bytes());
    let mut header: Option<Header> = None;
    let mut records = Vec::new();
    let mut torn = None;
    let mut good_len = text.len();
    while let Some(line) = reader.next_line() {
        match line {
            Ok(Line::Header(h)) => header = Some(h),
            Ok(Line::Record(r)) => {
                if header.is_none() {
                    return Err(TraceError {
                        line: reader.line(),
                        message: "a journal starts with its header".into(),
                    });
                }
                records.push(r)
            }
            Err(e) if Some(e.line) == last_content => {
                good_len = starts.get(e.line - 1).copied().unwrap_or(text.len());
                torn = Some(e);
                break;
            }
            Err(e) => return Err(e),
        }
    }
    let Some(header) = header else {
        return Ok(None);
    };
    let ext = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<Value>(l.trim_start_matches('\u{feff}')).ok())
        .and_then(|mut v| v.get_mut("journal").map(Value::take));
    let started_at_unix_ms = ext
        .as_ref()
        .and_then(|j| j.get("started_at_unix_ms")?.as_u64());
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
    Ok(Some(Recovered {
        header,
        started_at_unix_ms,
        version,
        records,
        torn,
        good_len,
    }))
}

/// A journal open for appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    records: File,
    events: File,
    /// Bytes written since the last fsync.
    dirty: bool,
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
    /// A malformed line that is not the last one.
    #[error("{path}: {source}")]
    Malformed {
        /// The file.
        path: String,
        /// The error naming the line.
        source: TraceError,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
    move |source| JournalError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn open_append(path: &Path) -> Result<File, JournalError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_err(path))
}

impl Journal {
    /// Opens `path`: an existing journal is read back (its torn last line
    /// cut off) and returned with the journal; a missing or empty one is
    /// started with `header` and `started_at_unix_ms`.
    pub fn open(
        path: &Path,
        header: &Header,
        started_at_unix_ms: u64,
    ) -> Result<(Journal, Option<Recovered>), JournalError> {
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io_err(path)(e)),
        };
        let recovered = read_journal(&text).map_err(|source| JournalError::Malformed {
            path: path.display().to_string(),
            source,
        })?;
        let events = events_path(path);
        match recovered {
            Some(rec) => {
                if rec.good_len < text.len() {
                    let f = OpenOptions::new()
                        .write(true)
                        .open(path)
                        .map_err(io_err(path))?;
                    f.set_len(rec.good_len as u64).map_err(io_err(path))?;
                    f.sync_all().map_err(io_err(path))?;
                }
                let mut j = Journal {
                    path: path.to_owned(),
                    records: open_append(path)?,
                    events: open_append(&events)?,
                    dirty: false,
                };
                j.repair_events()?;
                if !text[..rec.good_len].ends_with('\n') && rec.good_len > 0 {
                    j.records.write_all(b"\n").map_err(io_err(path))?;
                }
                Ok((j, Some(rec)))
            }
            None => {
                let f = File::create(path).map_err(io_err(path))?;
                drop(f);
                File::create(&events).map_err(io_err(&events))?;
                let mut j = Journal {
                    path: path.to_owned(),
                    records: open_append(path)?,
                    events: open_append(&events)?,
                    dirty: false,
                };
                let mut h = header_json(header);
                if let Value::Object(m) = &mut h {
                    m.insert(
                        "journal".into(),
                        serde_json::json!({
                            "version": JOURNAL_VERSION,
                            "started_at_unix_ms": started_at_unix_ms,
                        }),
                    );
                }
                j.write_line(false, &h.to_string())?;
                j.sync()?;
                Ok((j, None))
            }
        }
    }

    /// Cuts a torn last line off the events file.
    fn repair_events(&mut self) -> Result<(), JournalError> {
        let p = events_path(&self.path);
        let text = std::fs::read(&p).map_err(io_err(&p))?;
        if text.is_empty() || text.ends_with(b"\n") {
            return Ok(());
        }
        let keep = text.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        tracing::warn!(file = %p.display(), "torn last line of the events file dropped");
        self.events.set_len(keep as u64).map_err(io_err(&p))?;
        self.events.seek(SeekFrom::End(0)).map_err(io_err(&p))?;
        Ok(())
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write_line(&mut self, events: bool, json: &str) -> Result<(), JournalError> {
        let mut line = String::with_capacity(json.len() + 1);
        line.push_str(json);
        line.push('\n');
        let (f, p) = if events {
            (&mut self.events, events_path(&self.path))
        } else {
            (&mut self.records, self.path.clone())
        };
        // One write per line: a killed process leaves whole lines.
        f.write_all(line.as_bytes()).map_err(io_err(&p))?;
        self.dirty = true;
        Ok(())
    }

    /// Appends a record (the contract's JSON).
    pub fn record(&mut self, rec: &Record) -> Result<(), JournalError> {
        self.write_line(false, &crate::trace::record_json(rec).to_string())
    }

    /// Appends an event line (JSON text of one event).
    pub fn event(&mut self, json: &str) -> Result<(), JournalError> {
        self.write_line(true, json)
    }

    /// Flushes both files to disk.
    pub fn sync(&mut self) -> Result<(), JournalError> {
        if self.dirty {
            self.records.sync_data().map_err(io_err(&self.path))?;
            let p = events_path(&self.path);
            self.events.sync_data().map_err(io_err(&p))?;
            self.dirty = false;
        }
        Ok(())
    }
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

/// The number under `key` in the last line of `journal`'s events file that
/// has one.
fn last_event_u64(journal: &Path, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(events_path(journal)).ok()?;
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| v.get(key)?.as_u64())
}

/// The current game's journal in a journal directory (`eboard run
/// --journal-dir DIR`): `DIR/board.jsonl`.
pub const CURRENT: &str = "board.jsonl";

/// Where finished games go in a journal directory: `DIR/games/`.
pub const ARCHIVE: &str = "games";

/// Archived games kept by default (a game's journal is tens of kB,
/// `docs/service.md`).
pub const KEEP_GAMES: usize = 50;

/// Whether the game of `journal` has ended: its events file holds a
/// `game_end` event.
pub fn game_ended(journal: &Path) -> bool {
    std::fs::read_to_string(events_path(journal)).is_ok_and(|t| {
        t.lines().any(|l| {
            serde_json::from_str::<Value>(l)
                .is_ok_and(|v| v.get("type").and_then(Value::as_str) == Some("game_end"))
        })
    })
}

/// The journal rotated per game: when the game of `dir/board.jsonl` has
/// ended ([`game_ended`]), the journal and its events file move to
/// `dir/games/game-<started_at_unix_ms>.jsonl` (and `.events`), so the next
/// start begins a new game; of the archived games only the newest `keep`
/// stay (older ones are removed, the disk use stays bounded). Returns the
/// archived journal's path, `None` when nothing was rotated. A game in
/// progress is never moved (it is resumed). Errors name the file.
pub fn rotate(dir: &Path, keep: usize) -> Result<Option<PathBuf>, JournalError> {
    let current = dir.join(CURRENT);
    if !current.exists() || !game_ended(&current) {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&current).map_err(io_err(&current))?;
    let started = read_journal(&text)
        .ok()
        .flatten()
        .and_then(|r| r.started_at_unix_ms)
        .unwrap_or(0);
    let games = dir.join(ARCHIVE);
    std::fs::create_dir_all(&games).map_err(io_err(&games))?;
    let mut to = games.join(format!("game-{started:013}.jsonl"));
    let mut n = 1;
    while to.exists() {
        to = games.join(format!("game-{started:013}-{n}.jsonl"));
        n += 1;
    }
    // The records first (the game is in them; the events can be had again
    // by replaying them), then the events; the directories synced.
    std::fs::rename(&current, &to).map_err(io_err(&current))?;
    let ev = events_path(&current);
    if ev.exists() {
        std::fs::rename(&ev, events_path(&to)).map_err(io_err(&ev))?;
    }
    for d in [dir, games.as_path()] {
        File::open(d)
            .and_then(|f| f.sync_all())
            .map_err(io_err(d))?;
    }
    prune(&games, keep)?;
    Ok(Some(to))
}

/// Removes all but the newest `keep` archived games of `games`.
fn prune(games: &Path, keep: usize) -> Result<(), JournalError> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(games)
        .map_err(io_err(games))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    names.sort();
    let extra = names.len().saturating_sub(keep);
    for p in names.into_iter().take(extra) {
        std::fs::remove_file(&p).map_err(io_err(&p))?;
        let _ = std::fs::remove_file(events_path(&p));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "{\"trace\":1,\"journal\":{\"started_at_unix_ms\":1700000000000}}\n{\"t\":10,\"lift\":\"e2\"}\n{\"t\":20,\"place\":\"e4\"}\n";

    #[test]
    fn reads_back_header_start_and_records() {
        let r = read_journal(GOOD).unwrap().unwrap();
        assert_eq!(r.started_at_unix_ms, Some(1_700_000_000_000));
        assert_eq!(r.records.len(), 2);
        assert!(r.torn.is_none());
        assert_eq!(r.good_len, GOOD.len());
    }

    #[test]
    fn a_torn_last_line_is_reported_and_dropped() {
        let text = format!("{GOOD}{{\"t\":30,\"pre");
        let r = read_journal(&text).unwrap().unwrap();
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.torn.as_ref().map(|e| e.line), Some(4));
        assert_eq!(r.good_len, GOOD.len());
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error() {
        let text = GOOD.replace("{\"t\":10,\"lift\":\"e2\"}", "{\"t\":10,\"lift\"");
        let e = read_journal(&text).unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn a_journal_before_the_version_key_is_version_0() {
        // GOOD has no `journal.version`: written before it existed.
        assert_eq!(read_journal(GOOD).unwrap().unwrap().version, 0);
        let v1 = GOOD.replace("{\"started_at", "{\"version\":1,\"started_at");
        let r = read_journal(&v1).unwrap().unwrap();
        assert_eq!((r.version, r.records.len()), (1, 2));
        assert_eq!(r.started_at_unix_ms, Some(1_700_000_000_000));
    }

    #[test]
    fn a_journal_of_a_newer_version_is_refused_by_name() {
        let v9 = GOOD.replace("{\"started_at", "{\"version\":9,\"started_at");
        let e = read_journal(&v9).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(
            e.message.contains("journal.version") && e.message.contains("newer"),
            "{e}"
        );
    }

    #[test]
    fn an_empty_or_headless_journal_is_empty() {
        assert_eq!(read_journal("").unwrap(), None);
        assert_eq!(read_journal("{\"trace\":1,\"sens").unwrap(), None);
    }

    #[test]
    fn open_append_reopen() {
        let dir = std::env::temp_dir().join(format!("eboard-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("j.jsonl");
        let _ = std::fs::remove_file(&p);
        let h = Header {
            version: 1,
            boards: vec![crate::trace::BoardId::Main],
            ..Header::default()
        };
        let (mut j, rec) = Journal::open(&p, &h, 42).unwrap();
        assert!(rec.is_none());
        let r = Record {
            t: 5,
            board: crate::trace::BoardId::Main,
            kind: crate::trace::RecordKind::Press(shakmaty::Color::White),
        };
        j.record(&r).unwrap();
        j.event("{\"t\":5,\"type\":\"clock\"}").unwrap();
        j.sync().unwrap();
        drop(j);
        // A torn tail.
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"{\"t\":6,").unwrap();
        drop(f);
        let (_j, rec) = Journal::open(&p, &h, 0).unwrap();
        let rec = rec.unwrap();
        assert_eq!(rec.started_at_unix_ms, Some(42));
        assert_eq!(rec.version, JOURNAL_VERSION);
        assert_eq!(rec.records, vec![r]);
        assert!(rec.torn.is_some());
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.ends_with("}\n") && !text.contains("{\"t\":6,"),
            "{text}"
        );
        assert_eq!(last_event_t(&p), Some(5));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_finished_game_is_rotated_and_the_archive_bounded() {
        let dir = std::env::temp_dir().join(format!("eboard-rotate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let cur = dir.join(CURRENT);
        let h = Header {
            version: 1,
            boards: vec![crate::trace::BoardId::Main],
            ..Header::default()
        };
        // A game in progress stays.
        let (mut j, _) = Journal::open(&cur, &h, 1_000).unwrap();
        j.event("{\"t\":5,\"type\":\"move\"}").unwrap();
        j.sync().unwrap();
        drop(j);
        assert_eq!(rotate(&dir, 2).unwrap(), None);
        assert!(cur.exists());
        // Games that ended move to games/, the newest two kept.
        for start in [1_000u64, 2_000, 3_000] {
            if start > 1_000 {
                let (j, rec) = Journal::open(&cur, &h, start).unwrap();
                assert!(rec.is_none(), "a rotated journal starts anew");
                drop(j);
            }
            let mut f = OpenOptions::new()
                .append(true)
                .open(events_path(&cur))
                .unwrap();
            f.write_all(b"{\"t\":9,\"type\":\"game_end\",\"result\":\"1-0\"}\n")
                .unwrap();
            drop(f);
            let to = rotate(&dir, 2).unwrap().unwrap();
            assert_eq!(to, dir.join(format!("games/game-{start:013}.jsonl")));
            assert!(!cur.exists() && !events_path(&cur).exists());
            assert!(game_ended(&to));
        }
        let mut left: Vec<_> = std::fs::read_dir(dir.join(ARCHIVE))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "game-0000000002000.jsonl",
                "game-0000000002000.jsonl.events",
                "game-0000000003000.jsonl",
                "game-0000000003000.jsonl.events"
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
