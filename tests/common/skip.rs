//! Tests that need something this machine may lack (a program, the game
//! corpus in `../shared`): without it they skip with a printed reason, and
//! under CI (`CI` set, where `.ci/run` installs everything) they fail.

use std::path::PathBuf;

/// Says why the calling test is skipped (`skipped: {missing}`), or panics
/// with that reason when `CI` is set. The caller then returns.
pub fn skip_or_fail_under_ci(missing: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{missing}: under CI (`CI` set) this test must run");
    }
    println!("skipped: {missing}");
}

/// `../shared/data/pgn` (the real games), or `None` after
/// [`skip_or_fail_under_ci`] when it is absent.
pub fn shared_pgn_dir_or_skip() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pgn");
    if dir.is_dir() {
        Some(dir)
    } else {
        skip_or_fail_under_ci(&format!(
            "{} is absent (fresh machine without ../shared)",
            dir.display()
        ));
        None
    }
}
