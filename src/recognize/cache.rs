//! [`recognize`]: the board is read several times at one reading; the last
//! answers are kept per thread, keyed by everything recognition looks at,
//! so the same question is answered once (issue 28). The answering itself
//! is `super::explain`'s.

use super::explain::recognize_anew;
use super::Recognition;
use crate::board::{ReadingKey, SensedBoard};
use shakmaty::{Chess, Position, Role};
use std::cell::RefCell;

/// Recognises the move the board shows in `pos`. `promote` is a promotion
/// choice given outside the board since the last completed move.
///
/// The board is read several times at one reading (the end-of-game watch
/// after the last placement, then the press and its tie check): the last
/// answers are kept, keyed by everything recognition looks at
/// ([`SensedBoard::reading_key`], the position, `promote`), so the same
/// question is answered once (issue 28).
pub fn recognize(pos: &Chess, sensed: &SensedBoard, promote: Option<Role>) -> Recognition {
    let board = pos.board();
    if sensed.matches(board) {
        return Recognition::NoMove;
    }
    // The stamp first: the same stamp is the same reading without
    // comparing the readings themselves (issue 28).
    let stamp = sensed.stamp();
    let mut key = None;
    let hit = LAST.with_borrow(|seen| {
        seen.iter()
            .find(|a| {
                a.promote == promote
                    && (a.stamp == stamp
                        || a.key == *key.get_or_insert_with(|| sensed.reading_key()))
                    && a.pos == *pos
            })
            .map(|a| a.answer.clone())
    });
    if let Some(r) = hit {
        return r;
    }
    let r = recognize_anew(pos, sensed, promote);
    let answered = Answered {
        stamp,
        key: key.unwrap_or_else(|| sensed.reading_key()),
        pos: pos.clone(),
        promote,
        answer: r.clone(),
    };
    LAST.with_borrow_mut(|seen| {
        if seen.len() >= 2 {
            seen.swap(0, 1);
            seen[1] = answered;
        } else {
            seen.push(answered);
        }
    });
    r
}

/// A reading already answered.
struct Answered {
    /// The board's [`SensedBoard::stamp`] then.
    stamp: u64,
    /// The reading.
    key: ReadingKey,
    /// The position.
    pos: Chess,
    /// The promotion choice.
    promote: Option<Role>,
    /// The answer.
    answer: Recognition,
}

thread_local! {
    /// The last readings [`recognize`] answered.
    static LAST: RefCell<Vec<Answered>> = const { RefCell::new(Vec::new()) };
}
