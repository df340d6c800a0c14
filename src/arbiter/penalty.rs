//! The penalty a ruling gave, read back from its decisions (issue 24.7:
//! the arbiter's `accept` of an illegal move cites the penalty's article,
//! 2009 / 2001 §7.4b, 2023 7.5.5, not the reinstatement's §7.4a / 7.5.1).

use super::Decision;
use crate::trace::{Event, EventKind};

/// The first `illegal_move` event among `ds`: its penalty as text (`+2 min
/// to black`, `game lost`, `draw`) and the penalty's article; `None` when
/// the decisions hold no illegal move.
pub(super) fn given(ds: &[Decision]) -> Option<(String, &'static str)> {
    ds.iter().find_map(|d| match d {
        Decision::Event(Event {
            kind:
                EventKind::IllegalMove {
                    penalty,
                    penalty_article,
                    ..
                },
            ..
        }) => Some((penalty.to_string(), *penalty_article)),
        _ => None,
    })
}
