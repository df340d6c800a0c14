// The one copy of the by-hand standings of `standings-open-2026.trf`,
// read by the lib's tests (src/event/standings/tests.rs) and the
// integration tests (tests/common/standings.rs) with `include!`.

/// The standings after round 3 with every result final (boards 1-6: ½-½,
/// 1-0, 1-0, 0-1, 1-0 by forfeit, 1-0), computed by hand (FIDE C.07 2026,
/// art. 8.1, 9.1, 16): (rank, tied, start, points, BH, SB).
#[rustfmt::skip]
pub const BY_HAND: [(u64, bool, u64, f64, f64, f64); 13] = [
    (1, false, 4, 2.5, 5.5, 4.25),
    (2, false, 2, 2.5, 4.5, 3.25),
    (3, true, 1, 2.5, 4.0, 2.75),
    (3, true, 6, 2.5, 4.0, 2.75),
    (5, false, 9, 1.5, 5.5, 2.25),
    (6, false, 3, 1.5, 5.0, 1.75),
    (7, false, 13, 1.5, 3.5, 1.25),
    (8, false, 10, 1.5, 3.0, 0.25),
    (9, false, 8, 1.0, 6.0, 1.0),
    (10, false, 5, 1.0, 5.0, 1.0),
    (11, false, 11, 1.0, 3.0, 1.0),
    (12, false, 7, 0.5, 4.5, 0.75),
    (13, false, 12, 0.0, 1.5, 0.0),
];
