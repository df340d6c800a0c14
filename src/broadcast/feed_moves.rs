//! The moves of a game as the feeds write them, kept move by move (issue
//! 28): each move's spoken words, its entry of the live page's state
//! (`{"by","clock_ms","san","spoken","uci"}`) and of the LiveChess game
//! (`"e4 5941"`) are written once, when the move is first published, and
//! appended to the arrays' text, kept as chunks that every later snapshot
//! shares ([`Chunks`]); a move taken back (or changed by a ruling) is
//! written again from there.

use super::text::Chunks;
use crate::arbiter::{Arbiter, PlayedMove};
use crate::trace::color_str;
use crate::voice::Vocabulary;
use serde_json::{json, Value};
use shakmaty::uci::UciMove;
use std::hash::{Hash, Hasher};

/// The words of ply `ply` (1-based) of `game` in `voc`'s language, when the
/// move is a legal one of the record.
fn spoken_move(game: &Arbiter, ply: usize, voc: &Vocabulary) -> Option<String> {
    let before = game.positions().get(ply.checked_sub(1)?)?;
    let m = game.moves().get(ply - 1).filter(|m| !m.illegal)?;
    let mv = m.uci.parse::<UciMove>().ok()?.to_move(before).ok()?;
    Some(crate::voice::move_phrase(before, &mv, voc))
}

/// One published move and its spoken words.
#[derive(Debug, Clone)]
struct Entry {
    played: PlayedMove,
    spoken: Option<String>,
}

/// The moves already written, with the arrays' text.
#[derive(Debug, Clone, Default)]
pub struct FeedMoves {
    entries: Vec<Entry>,
    /// The state's move objects, comma-separated (no brackets).
    state: Chunks,
    /// Where each move's object ends in `state`.
    state_ends: Vec<usize>,
    /// The LiveChess move strings, comma-separated (no brackets).
    chess: Chunks,
    /// Where each move's string ends in `chess`.
    chess_ends: Vec<usize>,
    /// The digest of the UCIs of the moves up to each one (kept to cut
    /// back to; never copied).
    digests: Vec<u64>,
    /// The fewest moves kept by a [`FeedMoves::sync`] since the last
    /// [`FeedMoves::take_kept`] (the low-water mark; 0 before the first).
    low: usize,
    /// The indices of the illegal moves kept (that stood), in order.
    illegal: Vec<usize>,
}

/// The state's entry of a move.
pub fn state_entry(m: &PlayedMove, spoken: Option<&str>) -> Value {
    json!({
        "san": m.san, "uci": m.uci, "by": color_str(m.by), "clock_ms": m.clock_ms,
        "spoken": spoken,
    })
}

/// The LiveChess entry of a move: SAN, a space, the mover's clock in whole
/// seconds after the move.
pub fn chess_entry(m: &PlayedMove) -> String {
    match m.clock_ms {
        Some(ms) => format!("{} {}", m.san, ms / 1000),
        None => m.san.clone(),
    }
}

impl FeedMoves {
    /// Brings the moves up to `game`'s: the moves kept are those up to the
    /// first that differs (checked at the last kept one; the whole list
    /// only when that one differs), each new one written once.
    pub fn sync(&mut self, game: &Arbiter, voc: &Vocabulary) {
        let moves = game.moves();
        let k = self.entries.len();
        let keep = if k <= moves.len() && (k == 0 || self.entries[k - 1].played == moves[k - 1]) {
            k
        } else {
            self.entries
                .iter()
                .zip(moves)
                .take_while(|(e, m)| e.played == **m)
                .count()
        };
        self.low = self.low.min(keep);
        while self.illegal.last().is_some_and(|&i| i >= keep) {
            self.illegal.pop();
        }
        self.entries.truncate(keep);
        self.state_ends.truncate(keep);
        self.chess_ends.truncate(keep);
        self.digests.truncate(keep);
        self.state
            .truncate(self.state_ends.last().copied().unwrap_or(0));
        self.chess
            .truncate(self.chess_ends.last().copied().unwrap_or(0));
        for (i, m) in moves.iter().enumerate().skip(keep) {
            let spoken = spoken_move(game, i + 1, voc);
            if i > 0 {
                self.state.push_str(",");
                self.chess.push_str(",");
            }
            self.state
                .push_str(&state_entry(m, spoken.as_deref()).to_string());
            self.chess
                .push_str(&Value::from(chess_entry(m)).to_string());
            self.state_ends.push(self.state.len());
            self.chess_ends.push(self.chess.len());
            self.state.seal();
            self.chess.seal();
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (self.digests.last(), &m.uci).hash(&mut h);
            self.digests.push(h.finish());
            if m.illegal {
                self.illegal.push(i);
            }
            self.entries.push(Entry {
                played: m.clone(),
                spoken,
            });
        }
    }

    /// The number of moves and the digest of all their UCIs (SipHash with
    /// fixed keys, chained move by move; 0 for no move): two games with the
    /// same count and digest have the same moves (a collision is a 2^-64
    /// chance). O(1): nothing is copied.
    pub fn digest(&self) -> (usize, u64) {
        (
            self.digests.len(),
            self.digests.last().copied().unwrap_or(0),
        )
    }

    /// The fewest moves every [`FeedMoves::sync`] kept since the last call
    /// (the first call: 0), capped at the moves now kept; starts the next
    /// count. A snapshot taken after each call knows that its first
    /// `take_kept()` moves are those of the snapshot before, unchanged in
    /// between, without comparing the moves (issue 28: the delay line's
    /// take-back check, [`super::settle`]).
    pub fn take_kept(&mut self) -> usize {
        let kept = self.low.min(self.entries.len());
        self.low = usize::MAX;
        kept
    }

    /// The index of the last illegal move kept (one that stood), as
    /// `game.moves().iter().rposition(|m| m.illegal)` after a
    /// [`FeedMoves::sync`] with `game`, in O(1).
    pub fn last_illegal(&self) -> Option<usize> {
        self.illegal.last().copied()
    }

    /// The spoken words of move `i` (0-based), when said.
    pub fn spoken(&self, i: usize) -> Option<&str> {
        self.entries.get(i).and_then(|e| e.spoken.as_deref())
    }

    /// The state's `moves` array's elements (no brackets), in chunks.
    pub fn state_items(&self) -> &Chunks {
        &self.state
    }

    /// The LiveChess game's `moves` array's elements (no brackets), in
    /// chunks.
    pub fn chess_items(&self) -> &Chunks {
        &self.chess
    }
}
