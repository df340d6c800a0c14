//! A ruling's answer: refused, with its reason in words and an HTTP-style
//! status ([`STALE`] or [`IMPOSSIBLE`]), or applied, with its article and
//! effect in words; and the words the reasons and effects are made of
//! (clock times, moves ago). Shared by every action's checks.

/// HTTP-style status of a refusal: the state the ruling was made from no
/// longer holds (the game moved on, the matter was decided, the game is
/// over and its result confirmed).
pub const STALE: u16 = 409;
/// HTTP-style status of a refusal: the ruling is impossible, or would
/// change nothing.
pub const IMPOSSIBLE: u16 = 422;

/// A ruling refused: why, and [`STALE`] or [`IMPOSSIBLE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The reason in words.
    pub reason: String,
    /// 409 or 422.
    pub status: u16,
}

pub(super) fn stale(reason: impl Into<String>) -> Refusal {
    Refusal {
        reason: reason.into(),
        status: STALE,
    }
}

pub(super) fn impossible(reason: impl Into<String>) -> Refusal {
    Refusal {
        reason: reason.into(),
        status: IMPOSSIBLE,
    }
}

/// What an applied ruling did: its article and its effect in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Applied {
    pub(super) article: &'static str,
    pub(super) effect: String,
}

/// `H:MM:SS` as the clocks show it (the whole seconds left, truncated).
pub(super) use crate::clock::fmt_hms as hms;

/// "N moves" in words, for the reasons.
pub(super) fn moves_ago(n: u32) -> String {
    const WORDS: [&str; 11] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    let w = WORDS
        .get(n as usize)
        .map_or_else(|| n.to_string(), |w| (*w).to_owned());
    if n == 1 {
        format!("{w} move")
    } else {
        format!("{w} moves")
    }
}
