//! The journal rotated per game in a journal directory (`eboard run
//! --journal-dir DIR`, the service's `/var/lib/eboard`): a finished game's
//! journal moves to `DIR/games/`, the newest [`KEEP_GAMES`] kept.

use super::{events_path, io_err, read, scan_file, JournalError};
use serde_json::Value;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

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
    has_event(journal, "game_end")
}

/// Whether the events file of `journal` holds an event of type `kind`
/// (`game_end`, `result_confirmed`, …); false when there is none.
pub fn has_event(journal: &Path, kind: &str) -> bool {
    last_event(journal, kind).is_some()
}

/// The last event of type `kind` in the events file of `journal` (its JSON
/// object), `None` when there is none or the file cannot be read.
pub fn last_event(journal: &Path, kind: &str) -> Option<Value> {
    let f = File::open(events_path(journal)).ok()?;
    let mut found = None;
    read::for_each_line(BufReader::new(f), |l| {
        if let Ok(v) = serde_json::from_str::<Value>(l) {
            if v.get("type").and_then(Value::as_str) == Some(kind) {
                found = Some(v);
            }
        }
    });
    found
}

/// The result of the ended game of `journal` (`1-0`, `0-1`, `1/2-1/2`,
/// `0-0`) when the arbiter has not confirmed it yet (its events hold a
/// `game_end` and no `result_confirmed`; DSU regulations 004 §15: a result
/// is provisional until then); `None` for a game in progress or confirmed.
pub fn unconfirmed_result(journal: &Path) -> Option<String> {
    let end = last_event(journal, "game_end")?;
    if has_event(journal, "result_confirmed") {
        return None;
    }
    Some(
        end.get("result")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned(),
    )
}

/// The journal rotated per game: when the game of `dir/board.jsonl` has
/// ended ([`game_ended`]), the journal and its events file move to
/// `dir/games/game-<started_at_unix_ms>.jsonl` (and `.events`), so the next
/// start begins a new game; of the archived games only the newest `keep`
/// stay (older ones are removed, the disk use stays bounded). Returns the
/// archived journal's path, `None` when nothing was rotated. A game in
/// progress is never moved (it is resumed); a finished game whose result
/// awaits the arbiter's confirmation is not rotated by `eboard run` on a
/// board with an arbiter (it is resumed: [`unconfirmed_result`]), which
/// calls this only when the game is to go. Errors name the file.
pub fn rotate(dir: &Path, keep: usize) -> Result<Option<PathBuf>, JournalError> {
    let current = dir.join(CURRENT);
    if !current.exists() || !game_ended(&current) {
        return Ok(None);
    }
    let started = scan_file(&current)
        .ok()
        .flatten()
        .and_then(|s| s.recovered?.started_at_unix_ms)
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
