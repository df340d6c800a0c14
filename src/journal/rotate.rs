//! The journal rotated per game in a journal directory (`eboard run
//! --journal-dir DIR`, the service's `/var/lib/eboard`): a finished game's
//! journal moves to `DIR/games/`, the newest [`KEEP_GAMES`] kept.

use super::events::for_each_event;
use super::{events_path, io_err, scan_file, JournalError};
use serde_json::Value;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The current game's journal in a journal directory (`eboard run
/// --journal-dir DIR`): `DIR/board.jsonl`.
pub const CURRENT: &str = "board.jsonl";

/// Where finished games go in a journal directory: `DIR/games/`.
pub const ARCHIVE: &str = "games";

/// Archived games kept by default (a game's journal is tens of kB,
/// `docs/service.md`).
pub const KEEP_GAMES: usize = 50;

/// Whether the game of `journal` has ended ([`standing`]: a `game_end`
/// event that no later `undo` withdrew), its events file undamaged: a
/// game whose events file has a damaged line is not taken as ended (the
/// line may have been an `undo`), so it is never archived on that word;
/// it is resumed, its records replayed (`docs/journal.md`).
pub fn game_ended(journal: &Path) -> bool {
    let s = standing(journal);
    s.result.is_some() && s.damaged == 0
}

/// Whether the events file of `journal` holds an event of type `kind`
/// (`game_end`, `result_confirmed`, …); false when there is none.
pub fn has_event(journal: &Path, kind: &str) -> bool {
    last_event(journal, kind).is_some()
}

/// The last event of type `kind` in the events file of `journal` (its JSON
/// object), `None` when there is none or the file cannot be read.
pub fn last_event(journal: &Path, kind: &str) -> Option<Value> {
    let mut found = None;
    for_each_event(journal, |v| {
        if v.get("type").and_then(Value::as_str) == Some(kind) {
            found = Some(v);
        }
    });
    found
}

/// Where a journaled game stands as its events say, the arbiter's undos
/// counted: a forfeit or a result the arbiter gave and then withdrew
/// (`undo`, `docs/console.md`) leaves the game in progress again, a
/// confirmation withdrawn leaves the result provisional (DSU 004 §15).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Standing {
    /// The result of the game's end (`1-0`, `0-1`, `1/2-1/2`, `0-0`; `?`
    /// when the event names none); `None` while the game goes on.
    pub result: Option<String>,
    /// The arbiter confirmed it (a `result_confirmed` event not undone),
    /// and no line of the events file is damaged: a damaged line (its
    /// checksum fails, `docs/journal.md`) may have been the confirmation
    /// or its `undo`, so the result is then taken as not confirmed (the
    /// arbiter confirms again).
    pub confirmed: bool,
    /// The events file's damaged lines (checksum failed), read as absent
    /// and said at warn; 0 when it is whole.
    pub damaged: usize,
}

/// [`Standing`] of the game of `journal`, read from its events file. A
/// ruling's events (its `game_end`, its `result_confirmed`) come before its
/// own `ruling` event and share its round time `t`; an `undo` of ruling #N
/// (its effect: "ruling #N … undone", as `broadcast::settle` reads it)
/// brings back the standing from before ruling #N's events. A damaged
/// line is read as absent, and then the result is not confirmed
/// ([`Standing::confirmed`]).
pub fn standing(journal: &Path) -> Standing {
    let mut now = Standing::default();
    // The standing before the events of the record being read: taken when
    // the round time moves on and after each ruling.
    let mut mark = now.clone();
    let mut last_t: Option<u64> = None;
    let mut before: std::collections::HashMap<u64, Standing> = Default::default();
    let read = for_each_event(journal, |v| {
        let t = v.get("t").and_then(Value::as_u64);
        if t != last_t {
            mark = now.clone();
            last_t = t;
        }
        match v.get("type").and_then(Value::as_str) {
            Some("game_end") => {
                now.result = Some(
                    v.get("result")
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                        .to_owned(),
                );
                now.confirmed = false;
            }
            Some("result_confirmed") => {
                if let Some(r) = v.get("result").and_then(Value::as_str) {
                    now.result = Some(r.to_owned());
                }
                now.confirmed = true;
            }
            Some("ruling") => {
                if v.get("action").and_then(Value::as_str) == Some("undo") {
                    if let Some(b) = undone_seq(&v).and_then(|n| before.get(&n)) {
                        now = b.clone();
                    }
                }
                if let Some(seq) = v.get("seq").and_then(Value::as_u64) {
                    before.insert(seq, mark.clone());
                }
                mark = now.clone();
            }
            Some("ruling_refused") => mark = now.clone(),
            _ => {}
        }
    });
    now.damaged = read.damaged.len();
    if now.damaged > 0 {
        now.confirmed = false;
    }
    now
}

/// The ruling an `undo` ruling event withdrew, from its effect ("ruling #N
/// (confirm) undone: …").
fn undone_seq(v: &Value) -> Option<u64> {
    v.get("effect")?
        .as_str()?
        .strip_prefix("ruling #")?
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// The result of the ended game of `journal` (`1-0`, `0-1`, `1/2-1/2`,
/// `0-0`) when the arbiter has not confirmed it yet, or confirmed it and
/// withdrew the confirmation ([`standing`]; DSU regulations 004 §15: a
/// result is provisional until then); `None` for a game in progress
/// (also one whose forfeit or result was undone) or confirmed.
pub fn unconfirmed_result(journal: &Path) -> Option<String> {
    let s = standing(journal);
    s.result.filter(|_| !s.confirmed)
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
    recover_rotation(dir)?;
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

/// Finishes a rotation a kill cut between its two renames ([`rotate`]
/// moves the records, then the events): `dir/board.jsonl.events` left
/// without `dir/board.jsonl` goes to the one archived game of `dir/games/`
/// that has no events file. When no archived game, or more than one, lacks
/// its events, which game they belong to is not guessed: they are kept as
/// `board.jsonl.events.orphan-<unix s>`, at warn. Called at every start of
/// a journal directory (`eboard run --journal-dir`) before the journal is
/// read, and by [`rotate`]. Returns where the events went, `None` when
/// there was nothing to recover. Errors name the file.
pub fn recover_rotation(dir: &Path) -> Result<Option<PathBuf>, JournalError> {
    let current = dir.join(CURRENT);
    let ev = events_path(&current);
    if current.exists() || !ev.exists() {
        return Ok(None);
    }
    let games = dir.join(ARCHIVE);
    let mut lacking: Vec<PathBuf> = match std::fs::read_dir(&games) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .filter(|p| !events_path(p).exists())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(io_err(&games)(e)),
    };
    lacking.sort();
    let to = match &lacking[..] {
        [one] => {
            let to = events_path(one);
            tracing::warn!(
                "{} was left behind by a rotation cut short (a kill between its two renames): \
                 moved to its game, {}",
                ev.display(),
                to.display()
            );
            to
        }
        _ => {
            let to = super::sibling(&ev, &format!(".orphan-{}", super::files::unix_s()));
            tracing::warn!(
                "{} has no journal beside it and {} archived game(s) lack their events ({}): \
                 which game it belongs to is not guessed; kept as {}",
                ev.display(),
                lacking.len(),
                lacking
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                to.display()
            );
            to
        }
    };
    std::fs::rename(&ev, &to).map_err(io_err(&ev))?;
    for d in [dir, games.as_path()] {
        if let Ok(f) = File::open(d) {
            let _ = f.sync_all();
        }
    }
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
