//! The journal's files on disk: set aside when damaged, the events file's
//! torn tail cut off, lengths.

use super::{events_path, io_err, mqtt_arbiter_path, mqtt_path, sibling, JournalError};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Seconds since the Unix epoch (names of the files set aside).
pub(super) fn unix_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `path.damaged-<unix s>` (with `-n` when taken).
pub(super) fn aside_name(path: &Path) -> PathBuf {
    let stamp = unix_s();
    let mut to = sibling(path, &format!(".damaged-{stamp}"));
    let mut n = 1;
    while to.exists() {
        to = sibling(path, &format!(".damaged-{stamp}-{n}"));
        n += 1;
    }
    to
}

pub(super) fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// Moves `path` and its events and MQTT queue files aside
/// (`path.damaged-<unix s>`, `….events`, `….mqtt`, `….mqtt-arbiter`);
/// returns the new name.
pub(super) fn set_aside(path: &Path) -> Result<PathBuf, JournalError> {
    let to = aside_name(path);
    std::fs::rename(path, &to).map_err(io_err(path))?;
    for (from, dest) in [
        (events_path(path), events_path(&to)),
        (mqtt_path(path), mqtt_path(&to)),
        (mqtt_arbiter_path(path), mqtt_arbiter_path(&to)),
    ] {
        if from.exists() {
            std::fs::rename(&from, &dest).map_err(io_err(&from))?;
        }
    }
    sync_dir(path);
    Ok(to)
}

pub(super) fn file_len(path: &Path) -> Result<u64, JournalError> {
    match std::fs::metadata(path) {
        Ok(m) => Ok(m.len()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Cuts a torn last line off an events file (read from its end, bounded).
pub(super) fn repair_events(p: &Path) -> Result<(), JournalError> {
    let mut f = match OpenOptions::new().read(true).write(true).open(p) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(p)(e)),
    };
    let len = f.metadata().map_err(io_err(p))?.len();
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    let keep = loop {
        if end == 0 {
            break 0;
        }
        let n = (end.min(buf.len() as u64)) as usize;
        f.seek(SeekFrom::Start(end - n as u64)).map_err(io_err(p))?;
        f.read_exact(&mut buf[..n]).map_err(io_err(p))?;
        if end == len && buf[n - 1] == b'\n' {
            return Ok(());
        }
        if let Some(i) = buf[..n].iter().rposition(|b| *b == b'\n') {
            break end - n as u64 + i as u64 + 1;
        }
        end -= n as u64;
    };
    tracing::warn!(file = %p.display(), "torn last line of the events file dropped");
    f.set_len(keep).map_err(io_err(p))?;
    Ok(())
}
