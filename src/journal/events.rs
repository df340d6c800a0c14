//! What the events file (`JOURNAL.events`) said last: the round time of
//! its last line, the epoch of the last untrusted resume, the last
//! heartbeat (a restart's downtime is measured from them, `app::downtime`).
//! The file carries no checksum (`docs/journal.md`, "Not covered").

use super::{events_path, read};
use serde_json::Value;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

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
    let f = File::open(events_path(journal)).ok()?;
    let mut found = None;
    read::for_each_line(BufReader::new(f), |l| {
        if !l.contains("\"heartbeat\"") {
            return;
        }
        if let Some(v) = serde_json::from_str::<Value>(l)
            .ok()
            .filter(|v| v["type"] == "heartbeat")
        {
            found = Some(v);
        }
    });
    found
}

/// The number under `key` in the last line of `journal`'s events file that
/// has one.
fn last_event_u64(journal: &Path, key: &str) -> Option<u64> {
    let f = File::open(events_path(journal)).ok()?;
    let mut found = None;
    read::for_each_line(BufReader::new(f), |l| {
        if let Some(n) = serde_json::from_str::<Value>(l)
            .ok()
            .and_then(|v| v.get(key)?.as_u64())
        {
            found = Some(n);
        }
    });
    found
}
