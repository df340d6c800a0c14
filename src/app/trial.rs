//! Trial mode's journal (`[board] source = "trial"`, docs/service.md): a
//! trial game is never resumed as a real one, nor a real game played into
//! by a trial. With `--journal-dir DIR` (the service), a trial's journal is
//! marked by the file `DIR/board.jsonl.trial`; when the board starts with
//! another source, a marked journal (ended or not) is set aside into
//! `DIR/trials/trial-UNIXMS/` before anything reads it, and a real game
//! begins. A trial over a real game's unfinished journal is refused as a
//! configuration error (exit 78: no restart loop).

use crate::config::ConfigFileError;
use crate::journal::{game_ended, CURRENT};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// The mark of a trial's journal in the journal directory.
pub const TRIAL_MARK: &str = "board.jsonl.trial";

/// Where set-aside trial journals go in the journal directory.
pub const TRIALS: &str = "trials";

/// Makes the journal directory `dir` fit the run: `trial` (the source is
/// trial mode) marks a new or trial journal, and refuses a real game's
/// unfinished one (`config_file` is named in that error, key
/// `board.source`); otherwise a trial's journal is set aside. Returns where
/// a trial's journal was moved, when it was.
pub fn prepare(dir: &Path, trial: bool, config_file: &str) -> anyhow::Result<Option<PathBuf>> {
    let current = dir.join(CURRENT);
    let mark = dir.join(TRIAL_MARK);
    let marked = mark.exists();
    if trial {
        if current.exists() && !marked && !game_ended(&current) {
            return Err(anyhow::Error::new(ConfigFileError {
                file: config_file.to_owned(),
                line: None,
                key: "board.source".into(),
                message: format!(
                    "\"trial\" over {}, the journal of a real game in progress: trial mode \
                     would play into it; finish or move that game (docs/journal.md), or set \
                     source = \"hw\"",
                    current.display()
                ),
            }));
        }
        std::fs::create_dir_all(dir).with_context(|| format!("--journal-dir {}", dir.display()))?;
        std::fs::write(&mark, "trial mode: this journal is not a real game\n")
            .with_context(|| mark.display().to_string())?;
        return Ok(None);
    }
    if !marked {
        return Ok(None);
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let to = dir.join(TRIALS).join(format!("trial-{now:013}"));
    std::fs::create_dir_all(&to).with_context(|| to.display().to_string())?;
    for entry in std::fs::read_dir(dir).with_context(|| dir.display().to_string())? {
        let path = entry.with_context(|| dir.display().to_string())?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_file() && name.starts_with(CURRENT) && name != TRIAL_MARK {
            std::fs::rename(&path, to.join(name)).with_context(|| path.display().to_string())?;
        }
    }
    std::fs::remove_file(&mark).with_context(|| mark.display().to_string())?;
    Ok(Some(to))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("eboard-trial-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_trial_journal_is_set_aside_when_a_real_game_starts() {
        let d = dir("aside");
        assert_eq!(prepare(&d, true, "c.toml").unwrap(), None);
        assert!(d.join(TRIAL_MARK).exists());
        std::fs::write(d.join(CURRENT), "{}\n").unwrap();
        std::fs::write(d.join("board.jsonl.events"), "{}\n").unwrap();
        // A restart in trial mode resumes it.
        assert_eq!(prepare(&d, true, "c.toml").unwrap(), None);
        assert!(d.join(CURRENT).exists());
        // The real board: the trial's files moved, the mark gone.
        let to = prepare(&d, false, "c.toml").unwrap().expect("moved");
        assert!(to.join(CURRENT).exists() && to.join("board.jsonl.events").exists());
        assert!(!d.join(CURRENT).exists() && !d.join(TRIAL_MARK).exists());
        assert_eq!(prepare(&d, false, "c.toml").unwrap(), None);
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_trial_over_a_real_game_in_progress_is_a_config_error() {
        let d = dir("real");
        std::fs::write(d.join(CURRENT), "{}\n").unwrap();
        let e = prepare(&d, true, "c.toml").unwrap_err();
        let c = e
            .downcast_ref::<ConfigFileError>()
            .expect("a config error: exit 78");
        assert_eq!(c.key, "board.source");
        assert!(c.to_string().contains("real game in progress"), "{c}");
        assert!(!d.join(TRIAL_MARK).exists());
        std::fs::remove_dir_all(&d).ok();
    }
}
