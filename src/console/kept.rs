//! What the arbiter's console keeps across a restart (issue 15,
//! `docs/console.md`, "Kept across a restart"): the acknowledgements of
//! alerts ([`AckLog`], append-only JSON lines) and the login sessions
//! ([`SessionFile`], the session id's SHA-256 only, mode 0600), in the
//! relay's state directory (`eboard relay --state-dir`, `[arbiter]
//! state_dir`) or beside a board's journal ([`ConsoleFiles`]).
//!
//! Every file here is read by [`read_lines`]: a torn last line (a crash in
//! the middle of a write) is cut off; a damaged or foreign line anywhere
//! else is never a panic and never a refusal to start: the file is set
//! aside as `FILE.damaged-<unix s>` (kept whole for the audit), a fresh
//! file with every good line takes its place, and the caller alerts the
//! arbiter ([`Damage::alert_json`], a `journal_alert` of problem `damaged`
//! naming the file and line), as the journal does (`docs/journal.md`).
//! Every line is written with its checksum (the last key `"crc32c"`,
//! [`crate::disk::checksum`], issue 41): a line whose checksum fails is
//! damage; a line without one (written before checksums) is read as it is.

use super::role::Role;
use crate::disk::checksum::{self, Check};
use crate::disk::write_private;
use crate::disk::{os_opener, Health, RecordFile};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The largest state file read, bytes (a larger one is foreign: set aside).
pub const MAX_FILE: u64 = 64 << 20;

/// The acknowledgements file in a relay's state directory.
pub const ACKS_FILE: &str = "console-acks.jsonl";
/// The sessions file in a relay's state directory.
pub const SESSIONS_FILE: &str = "console-sessions.jsonl";
/// The relay's own alerts (`board_offline`, `board_resumed`) in its state
/// directory ([`OwnAlertLog`]).
pub const RELAY_ALERTS_FILE: &str = "console-relay-alerts.jsonl";

/// The rulings (applied and refused) the relay's console saw, in its state
/// directory (the round report's; same line format as [`OwnAlertLog`]):
/// a refused ruling is known to the relay only from its event, so without
/// this file a relay restart would drop it from the round report.
pub const RELAY_RULINGS_FILE: &str = "console-rulings.jsonl";

/// Where a console keeps its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleFiles {
    /// The acknowledgements ([`AckLog`]).
    pub acks: PathBuf,
    /// The sessions ([`SessionFile`]).
    pub sessions: PathBuf,
    /// A relay's own alerts ([`OwnAlertLog`]); none for a board (it makes
    /// none).
    pub relay_alerts: Option<PathBuf>,
    /// A relay's log of the rulings its channel carried
    /// ([`RELAY_RULINGS_FILE`]); none for a board (its journal has them and
    /// regenerates their events at a restart).
    pub relay_rulings: Option<PathBuf>,
}

impl ConsoleFiles {
    /// A relay's: `DIR/console-acks.jsonl`, `DIR/console-sessions.jsonl`.
    pub fn in_dir(dir: &Path) -> ConsoleFiles {
        ConsoleFiles {
            acks: dir.join(ACKS_FILE),
            sessions: dir.join(SESSIONS_FILE),
            relay_alerts: Some(dir.join(RELAY_ALERTS_FILE)),
            relay_rulings: Some(dir.join(RELAY_RULINGS_FILE)),
        }
    }

    /// A board's, beside its journal: `JOURNAL.acks`, `JOURNAL.sessions`
    /// (as `JOURNAL.rulings`; they stay when the journal is rotated).
    pub fn beside(journal: &Path) -> ConsoleFiles {
        ConsoleFiles {
            acks: suffixed(journal, ".acks"),
            sessions: suffixed(journal, ".sessions"),
            relay_alerts: None,
            relay_rulings: None,
        }
    }
}

/// `path` with `suffix` appended to its name (`board.jsonl.acks`).
pub fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// A damaged or foreign state file found on start, set aside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// The file.
    pub file: PathBuf,
    /// Its first bad line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub error: String,
    /// Where the whole file went.
    pub set_aside: PathBuf,
    /// Good lines kept in the fresh file.
    pub kept: usize,
    /// Bad lines (not kept; they are in the file set aside).
    pub bad: usize,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {} ({} bad line(s) set aside with the whole file as {}; {} good line(s) kept)",
            self.file.display(),
            self.line,
            self.error,
            self.bad,
            self.set_aside.display(),
            self.kept
        )
    }
}

impl Damage {
    /// The arbiter's alert: `{"type": "journal_alert", "problem":
    /// "damaged", "file", "line", "error", "set_aside", "records_kept",
    /// "lines_set_aside", "action"}` (`docs/trace-extensions.md`).
    pub fn alert_json(&self) -> String {
        json!({
            "type": "journal_alert",
            "problem": "damaged",
            "file": self.file.display().to_string(),
            "line": self.line,
            "error": self.error,
            "set_aside": self.set_aside.display().to_string(),
            "records_kept": self.kept,
            "lines_set_aside": self.bad,
            "action": "the good lines are kept and used; the damaged file is kept for the audit \
                       (what its bad lines held is not used: check it)",
        })
        .to_string()
    }
}

/// What [`read_lines`] found.
#[derive(Debug)]
pub struct Read<T> {
    /// The good lines, parsed, in order.
    pub items: Vec<T>,
    /// The end of the last whole line, bytes (a torn tail is after it).
    pub end: u64,
    /// The damage set aside, if any.
    pub damage: Option<Damage>,
}

fn now_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Reads the JSON-lines file `path` (absent: nothing), each line parsed by
/// `parse`. A last line without its newline is torn (a crash while it was
/// written): left out, and cut off by the next write. Any other line that
/// is not UTF-8, not JSON or not `parse`'s is damage: the file is moved to
/// `FILE.damaged-<unix s>` and a fresh one with the good lines written in
/// its place (mode 0600 when `private`). Errors: the file cannot be read,
/// set aside or written again (naming it).
pub fn read_lines<T>(
    path: &Path,
    private: bool,
    parse: impl Fn(&Value) -> Result<T, String>,
) -> Result<Read<T>, String> {
    use std::io::Read as _;
    let cannot = |what: &str, e: std::io::Error| format!("cannot {what} {}: {e}", path.display());
    let mut bytes = Vec::new();
    match std::fs::File::open(path) {
        Ok(f) => {
            f.take(MAX_FILE + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| cannot("read", e))?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Read {
                items: Vec::new(),
                end: 0,
                damage: None,
            })
        }
        Err(e) => return Err(cannot("open", e)),
    }
    let mut items = Vec::new();
    let mut good: Vec<&[u8]> = Vec::new();
    let mut first: Option<(usize, String)> = None;
    let mut bad = 0;
    let mut end = 0u64;
    if bytes.len() as u64 > MAX_FILE {
        first = Some((
            1,
            format!("larger than {MAX_FILE} bytes: not a file of eboard's"),
        ));
        bad = 1;
    } else {
        let mut start = 0;
        let mut n = 0;
        while start < bytes.len() {
            n += 1;
            let Some(len) = bytes[start..].iter().position(|b| *b == b'\n') else {
                tracing::warn!(
                    file = %path.display(),
                    line = n,
                    "a torn last line (a write cut short): left out"
                );
                break;
            };
            let line = &bytes[start..start + len];
            start += len + 1;
            end = start as u64;
            let unsealed = match checksum::check_json(line) {
                Check::Good { .. } => checksum::unseal_json(line),
                Check::Bad => None,
                Check::Missing => Some(line.to_vec()),
            };
            let parsed = unsealed
                .ok_or_else(|| "its checksum (crc32c) fails: the line was changed".to_owned())
                .and_then(|l| String::from_utf8(l).map_err(|e| format!("not UTF-8: {e}")))
                .and_then(|s| serde_json::from_str::<Value>(&s).map_err(|e| e.to_string()))
                .and_then(|v| parse(&v));
            match parsed {
                Ok(x) => {
                    items.push(x);
                    good.push(line);
                }
                Err(e) => {
                    bad += 1;
                    if first.is_none() {
                        first = Some((n, e));
                    }
                }
            }
        }
    }
    let Some((line, error)) = first else {
        return Ok(Read {
            items,
            end,
            damage: None,
        });
    };
    let mut set_aside = suffixed(path, &format!(".damaged-{}", now_s()));
    let mut k = 1;
    while set_aside.exists() {
        set_aside = suffixed(path, &format!(".damaged-{}-{k}", now_s()));
        k += 1;
    }
    std::fs::rename(path, &set_aside).map_err(|e| cannot("set aside", e))?;
    let mut text = Vec::new();
    for l in &good {
        text.extend_from_slice(l);
        text.push(b'\n');
    }
    replace(path, &text, private)?;
    let damage = Damage {
        file: path.to_owned(),
        line,
        error,
        set_aside,
        kept: good.len(),
        bad,
    };
    tracing::error!("{damage}");
    Ok(Read {
        end: text.len() as u64,
        items,
        damage: Some(damage),
    })
}

/// Replaces `path` by `bytes` at once (a new file renamed over it, synced;
/// mode 0600 when `private`). Errors name the file.
pub fn replace(path: &Path, bytes: &[u8], private: bool) -> Result<(), String> {
    let tmp = suffixed(path, ".new");
    let _ = std::fs::remove_file(&tmp);
    if private {
        write_private(&tmp, bytes)?;
    } else {
        std::fs::write(&tmp, bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    }
    std::fs::File::open(&tmp)
        .and_then(|f| f.sync_all())
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::File::open(dir).and_then(|f| f.sync_all());
    }
    Ok(())
}

/// One acknowledgement as kept: `{"alert", "game", "type", "event", "by",
/// "unix_ms"}`, the alert named by its content ([`super::alerts::alert_key`]).
#[derive(Debug, Clone, PartialEq)]
pub struct KeptAck {
    /// The alert's key: the SHA-256 of its message's canonical JSON, hex.
    pub alert: String,
    /// Who acknowledged it.
    pub by: String,
    /// When, Unix ms.
    pub unix_ms: u64,
}

fn text<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("key '{key}': missing or not text"))
}

fn number(v: &Value, key: &str) -> Result<u64, String> {
    v.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("key '{key}': missing or not a number"))
}

/// The acknowledgements, one line each, appended and synced one write per
/// line ([`RecordFile`]).
#[derive(Debug)]
pub struct AckLog {
    file: RecordFile,
}

impl AckLog {
    /// Opens (or starts) the file: the acknowledgements kept in it, and the
    /// damage set aside. Errors name the file.
    pub fn open(path: &Path) -> Result<(AckLog, Vec<KeptAck>, Option<Damage>), String> {
        let read = read_lines(path, false, |v| {
            Ok(KeptAck {
                alert: text(v, "alert")?.to_owned(),
                by: text(v, "by")?.to_owned(),
                unix_ms: number(v, "unix_ms")?,
            })
        })?;
        let file = RecordFile::open(path, &os_opener(), read.end)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        Ok((AckLog { file }, read.items, read.damage))
    }

    /// Appends one acknowledgement of `event` (the alert's message) and
    /// syncs it. Errors: the disk refused it (it waits in memory and is
    /// written before the next one).
    pub fn append(
        &mut self,
        key: &str,
        event: &Value,
        by: &str,
        unix_ms: u64,
    ) -> Result<(), String> {
        let line = json!({
            "alert": key,
            "game": event.get("game"),
            "type": event.get("type"),
            "event": event,
            "by": by,
            "unix_ms": unix_ms,
        });
        let mut bytes = checksum::seal_json(&line.to_string()).into_bytes();
        bytes.push(b'\n');
        match self.file.append(bytes) {
            Health::Failing { error, .. } => Err(error),
            _ => self.file.sync(),
        }
    }
}

/// The relay's own alerts (`board_offline` when it loses a board,
/// `board_resumed` when the board is back), one line each, `{"event":
/// the message, "unix_ms": when}`, appended and synced one write per line
/// ([`RecordFile`]): a relay restarted shows them again at their own time.
#[derive(Debug)]
pub struct OwnAlertLog {
    file: RecordFile,
}

impl OwnAlertLog {
    /// Opens (or starts) the file: the messages kept in it (oldest first,
    /// each with its time, Unix ms) and the damage set aside. Errors name
    /// the file.
    #[allow(clippy::type_complexity)]
    pub fn open(path: &Path) -> Result<(OwnAlertLog, Vec<(Value, u64)>, Option<Damage>), String> {
        let read = read_lines(path, false, |v| {
            let event = v
                .get("event")
                .filter(|e| e.get("type").and_then(Value::as_str).is_some())
                .ok_or_else(|| "key 'event': missing or not a message with a type".to_owned())?;
            Ok((event.clone(), number(v, "unix_ms")?))
        })?;
        let file = RecordFile::open(path, &os_opener(), read.end)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        Ok((OwnAlertLog { file }, read.items, read.damage))
    }

    /// Appends message `event` dated `unix_ms` and syncs it. Errors: the
    /// disk refused it (it waits in memory and is written before the next).
    pub fn append(&mut self, event: &Value, unix_ms: u64) -> Result<(), String> {
        let mut bytes =
            checksum::seal_json(&json!({"event": event, "unix_ms": unix_ms}).to_string())
                .into_bytes();
        bytes.push(b'\n');
        match self.file.append(bytes) {
            Health::Failing { error, .. } => Err(error),
            _ => self.file.sync(),
        }
    }
}

/// One session as kept: the SHA-256 of its id (never the id), the account
/// and its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptSession {
    /// SHA-256 of the session id (the cookie's value), hex.
    pub id_sha256: String,
    /// The account's name.
    pub name: String,
    /// Its role.
    pub role: Role,
    /// When it ends, Unix ms.
    pub expires_unix_ms: u64,
}

impl KeptSession {
    fn to_line(&self) -> String {
        let line = json!({
            "session_sha256": self.id_sha256,
            "name": self.name,
            "role": self.role.as_str(),
            "expires_unix_ms": self.expires_unix_ms,
        });
        checksum::seal_json(&line.to_string())
    }

    fn from_json(v: &Value) -> Result<KeptSession, String> {
        let id = text(v, "session_sha256")?;
        if id.len() != 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("key 'session_sha256': not a SHA-256 in hex".into());
        }
        Ok(KeptSession {
            id_sha256: id.to_owned(),
            name: text(v, "name")?.to_owned(),
            role: text(v, "role")?
                .parse()
                .map_err(|e| format!("key 'role': {e}"))?,
            expires_unix_ms: number(v, "expires_unix_ms")?,
        })
    }
}

/// The sessions file: the open sessions, one line each, the whole file
/// replaced at every login and logout (mode 0600).
#[derive(Debug)]
pub struct SessionFile {
    path: PathBuf,
}

impl SessionFile {
    /// Opens the file: the sessions in it and the damage set aside. A file
    /// readable by others is made 0600 (with a warning). Errors name the file.
    pub fn open(path: &Path) -> Result<(SessionFile, Vec<KeptSession>, Option<Damage>), String> {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(m) = std::fs::metadata(path) {
            if m.permissions().mode() & 0o077 != 0 {
                tracing::warn!(file = %path.display(), "the sessions file was readable by others: made 0600");
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                    .map_err(|e| format!("cannot make {} private: {e}", path.display()))?;
            }
        }
        let read = read_lines(path, true, KeptSession::from_json)?;
        Ok((
            SessionFile {
                path: path.to_owned(),
            },
            read.items,
            read.damage,
        ))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file by `sessions`. Errors name the file.
    pub fn save(&self, sessions: &[KeptSession]) -> Result<(), String> {
        let mut text = String::new();
        for s in sessions {
            text.push_str(&s.to_line());
            text.push('\n');
        }
        replace(&self.path, text.as_bytes(), true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("eboard-kept-{name}-{}", rand::random::<u32>()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn acks_are_kept_and_a_torn_tail_is_cut_off() {
        let d = dir("acks");
        let p = d.join(ACKS_FILE);
        let (mut log, kept, damage) = AckLog::open(&p).unwrap();
        assert!(kept.is_empty() && damage.is_none());
        let ev = json!({"type": "illegal_move", "game": "1.2", "t": 12400});
        log.append("k1", &ev, "IA Hansen", 1000).unwrap();
        drop(log);
        // A crash in the middle of the next line.
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        std::io::Write::write_all(&mut f, b"{\"alert\": \"k2\", \"by").unwrap();
        let (mut log, kept, damage) = AckLog::open(&p).unwrap();
        assert!(damage.is_none());
        assert_eq!(kept.len(), 1);
        assert_eq!(
            (kept[0].alert.as_str(), kept[0].by.as_str()),
            ("k1", "IA Hansen")
        );
        log.append("k3", &ev, "Other", 2000).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(!text.contains("k2"), "{text}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_damaged_file_is_set_aside_naming_the_line_and_the_good_lines_kept() {
        let d = dir("damaged");
        let p = d.join(SESSIONS_FILE);
        let good = KeptSession {
            id_sha256: "ab".repeat(32),
            name: "IA Hansen".into(),
            role: Role::Arbiter,
            expires_unix_ms: 5,
        };
        let text = format!(
            "{}\nnot json\n{{\"session_sha256\": \"x\"}}\n{}\n",
            good.to_line(),
            good.to_line()
        );
        std::fs::write(&p, &text).unwrap();
        let (_, kept, damage) = SessionFile::open(&p).unwrap();
        let damage = damage.unwrap();
        assert_eq!(kept.len(), 2);
        assert_eq!((damage.line, damage.kept, damage.bad), (2, 2, 2));
        assert!(
            damage.to_string().contains(&format!("{}:2:", p.display())),
            "{damage}"
        );
        // Nothing lost: the whole file is set aside.
        assert_eq!(std::fs::read_to_string(&damage.set_aside).unwrap(), text);
        let mode =
            std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&p).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o600);
        let v: Value = serde_json::from_str(&damage.alert_json()).unwrap();
        assert_eq!(
            (v["type"].as_str(), v["line"].as_u64()),
            (Some("journal_alert"), Some(2))
        );
        // The fresh file reads clean.
        let (_, again, none) = SessionFile::open(&p).unwrap();
        assert_eq!((again.len(), none), (2, None));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_changed_digit_in_a_kept_line_is_damage_not_another_ack() {
        let d = dir("flip");
        let p = d.join(ACKS_FILE);
        let (mut log, _, _) = AckLog::open(&p).unwrap();
        let ev = json!({"type": "illegal_move", "game": "1.2", "t": 12400});
        log.append("k1", &ev, "IA Hansen", 1000).unwrap();
        log.append("k2", &ev, "IA Hansen", 2000).unwrap();
        drop(log);
        let text = std::fs::read_to_string(&p).unwrap();
        // Bit rot: 2000 read as 3000 (one bit), still valid JSON.
        let changed = text.replacen("\"unix_ms\":2000", "\"unix_ms\":3000", 1);
        assert_ne!(changed, text);
        std::fs::write(&p, &changed).unwrap();
        let (_, kept, damage) = AckLog::open(&p).unwrap();
        let damage = damage.unwrap();
        assert_eq!((kept.len(), damage.line), (1, 2), "{damage}");
        assert!(damage.error.contains("checksum"), "{damage}");
        assert_eq!(std::fs::read_to_string(&damage.set_aside).unwrap(), changed);
        let _ = std::fs::remove_dir_all(&d);
    }
}
