//! The PGN of a live game kept move by move (issue 28): the movetext of the
//! moves already published is wrapped once and kept; each update writes the
//! header afresh (result, clocks), shares the kept lines (frozen chunks,
//! [`Chunks`], not copied) and wraps only the last move, the comments that may still change and the result. The text
//! is byte for byte [`write_pgn_with`](super::pgn::write_pgn_with)'s; the
//! kept lines are dropped and rebuilt whenever what they were made from
//! changed (a move taken back, a position set up, an illegal move's
//! comment on a kept move).

use super::pgn::{
    before_token, finish, move_tokens, stood_text, write_header, PgnExtras, Shape, Wrap,
};
use super::text::{Chunks, Text, TextBuilder};
use crate::arbiter::{Arbiter, PlayedMove};

/// What the kept lines start from.
#[derive(Debug, Clone, PartialEq)]
struct Key {
    /// The first move of the record.
    first: usize,
    /// The record's starting position.
    start: shakmaty::Chess,
    /// The comment before the first move.
    before: Option<String>,
}

/// The kept movetext of one game.
#[derive(Debug, Clone, Default)]
pub struct LivePgn {
    key: Option<Key>,
    /// The full lines of the kept movetext.
    done: Chunks,
    /// Its open line.
    wrap: Wrap,
    /// The moves `key.first..covered` are kept.
    covered: usize,
    /// The last kept move, to see that the kept ones are still the game's.
    last: Option<PlayedMove>,
    /// The comments on the kept moves (after `first + 1 ..= covered` moves).
    comments: Vec<(usize, String)>,
}

fn kept_comments(extras: &PgnExtras, first: usize, covered: usize) -> Vec<(usize, String)> {
    extras
        .comments
        .iter()
        .filter(|(at, _)| *at > first && *at <= covered)
        .cloned()
        .collect()
}

impl LivePgn {
    /// The game as PGN with `extras`, as `write_pgn_with(game, extras)`;
    /// `last_illegal`: the index of the last illegal move of `game`'s moves
    /// ([`super::feed_moves::FeedMoves::last_illegal`]).
    pub fn write(
        &mut self,
        game: &Arbiter,
        extras: &PgnExtras,
        last_illegal: Option<usize>,
    ) -> Text {
        let shape = Shape::with_last_illegal(game, last_illegal);
        let moves = game.moves();
        let key = Key {
            first: shape.first,
            start: shape.start.clone(),
            before: before_token(game, extras, &shape),
        };
        let covered = self.covered;
        let valid = self.key.as_ref() == Some(&key)
            && covered <= moves.len()
            && covered >= key.first
            && (covered == key.first || self.last.as_ref() == Some(&moves[covered - 1]))
            && self.comments == kept_comments(extras, key.first, covered);
        if !valid {
            self.done.clear();
            self.wrap = Wrap::default();
            self.covered = key.first;
            if let Some(b) = &key.before {
                self.wrap.push(b, self.done.open());
            }
            self.key = Some(key);
        }
        let first = shape.first;
        // Keep every move but the last (its comment may still change).
        let target = moves.len().saturating_sub(1);
        let mut tokens = Vec::new();
        while self.covered < target && !moves[self.covered].illegal {
            move_tokens(
                &shape,
                self.covered,
                &moves[self.covered],
                extras,
                &mut tokens,
            );
            for tok in tokens.drain(..) {
                self.wrap.push(&tok, self.done.open());
            }
            self.done.seal();
            self.covered += 1;
        }
        self.last = (self.covered > first).then(|| moves[self.covered - 1].clone());
        self.comments = kept_comments(extras, first, self.covered);

        let mut text =
            TextBuilder::with_capacity(self.done.pieces() + 1, 1024 + self.done.open_len());
        write_header(game, extras, &shape, text.open());
        text.push_chunks(&self.done);
        let out = text.open();
        let mut wrap = self.wrap.clone();
        let mut stood: Option<String> = None;
        for (i, m) in moves.iter().enumerate().skip(self.covered) {
            if let Some(text) = stood.as_mut() {
                text.push(' ');
                text.push_str(&m.san);
                continue;
            }
            if m.illegal {
                stood = Some(stood_text(m));
                continue;
            }
            move_tokens(&shape, i, m, extras, &mut tokens);
            for tok in tokens.drain(..) {
                wrap.push(&tok, out);
            }
        }
        finish(&shape, stood, &mut wrap, out);
        text.finish()
    }
}
