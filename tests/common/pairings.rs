//! The pairing file of `eboard event`'s tests: `tests/data/pairings-open-2026.trf`,
//! a nine-player Swiss in FIDE's TRF-16 layout (its rounds and board order
//! are described in `tests/event.rs`), read by `tests/event.rs` and given
//! to the boards of `tests/event_boards.rs`.

/// The file's text.
pub const TRF: &str = include_str!("../data/pairings-open-2026.trf");

/// The file's path, for `eboard event`'s command line.
pub const TRF_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/pairings-open-2026.trf"
);
