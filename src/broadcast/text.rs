//! A snapshot's texts made of shared pieces (issue 28): the PGN and the
//! JSON move lists of a long game are mostly what the last snapshot had,
//! so the publisher keeps the written part as frozen chunks ([`Chunks`])
//! and each snapshot's text ([`Text`]) is a list of pieces that shares
//! them: a new update writes only its own bytes (the header, the moves
//! since the last frozen chunk, the clocks), not the whole game again.
//!
//! A reader that wants the text whole ([`Text::as_str`]) gets it joined
//! once per snapshot, on first use; a writer can send the pieces as they
//! are ([`Text::pieces`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The size in bytes at which a [`Chunks`]' open piece is frozen and
/// shared by every later snapshot.
pub const CHUNK: usize = 2048;

/// An immutable text held as shared pieces; cloning it is one reference
/// count.
#[derive(Clone)]
pub struct Text(Arc<Inner>);

struct Inner {
    pieces: Vec<Arc<str>>,
    len: usize,
    /// The pieces joined, on first use.
    flat: OnceLock<Arc<str>>,
}

impl Default for Text {
    fn default() -> Text {
        Text::from(String::new())
    }
}

impl Text {
    fn of(pieces: Vec<Arc<str>>) -> Text {
        let len = pieces.iter().map(|p| p.len()).sum();
        let flat = OnceLock::new();
        if let [one] = pieces.as_slice() {
            let _ = flat.set(one.clone());
        }
        Text(Arc::new(Inner { pieces, len, flat }))
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.0.len
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.0.len == 0
    }

    /// The pieces, in order (their concatenation is the text).
    pub fn pieces(&self) -> impl Iterator<Item = &str> {
        self.0.pieces.iter().map(|p| &**p)
    }

    /// The text whole, as one shared string (joined once per text, on
    /// first use: the copy a reader of the whole text pays for).
    pub fn shared(&self) -> Arc<str> {
        self.0
            .flat
            .get_or_init(|| {
                let mut s = String::with_capacity(self.0.len);
                for p in self.pieces() {
                    s.push_str(p);
                }
                Arc::from(s)
            })
            .clone()
    }

    /// The text whole ([`Text::shared`]'s string).
    pub fn as_str(&self) -> &str {
        if self.0.flat.get().is_none() {
            self.shared();
        }
        self.0.flat.get().map_or("", |s| s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::of(vec![Arc::from(s)])
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::of(vec![Arc::from(s)])
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces().try_for_each(|p| f.write_str(p))
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        if Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        if self.len() != other.len() {
            return false;
        }
        // Piece by piece, without joining: shared pieces compare at once.
        let (mut a, mut b) = (self.0.pieces.iter(), other.0.pieces.iter());
        let (mut x, mut y): (&str, &str) = ("", "");
        loop {
            while x.is_empty() {
                match a.next() {
                    Some(p) => x = p,
                    None => break,
                }
            }
            while y.is_empty() {
                match b.next() {
                    Some(p) => y = p,
                    None => break,
                }
            }
            if x.is_empty() || y.is_empty() {
                return x.is_empty() && y.is_empty();
            }
            let n = x.len().min(y.len());
            if x.as_ptr() != y.as_ptr() && x.as_bytes()[..n] != y.as_bytes()[..n] {
                return false;
            }
            (x, y) = (&x[n..], &y[n..]);
        }
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.len() == other.len() && self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        String::deserialize(d).map(Text::from)
    }
}

/// Builds a [`Text`]: written bytes are gathered into one piece, shared
/// chunks are put in as they are.
#[derive(Default)]
pub struct TextBuilder {
    pieces: Vec<Arc<str>>,
    open: String,
}

impl TextBuilder {
    /// A builder with room for `pieces` pieces and `bytes` bytes of
    /// written text (fewer reallocations; issue 28).
    pub fn with_capacity(pieces: usize, bytes: usize) -> TextBuilder {
        TextBuilder {
            pieces: Vec::with_capacity(pieces),
            open: String::with_capacity(bytes),
        }
    }

    /// Appends written text.
    pub fn push_str(&mut self, s: &str) {
        self.open.push_str(s);
    }

    /// Appends a shared chunk (no copy).
    pub fn push_shared(&mut self, chunk: &Arc<str>) {
        if !self.open.is_empty() {
            // What follows the chunks gets as much room again.
            let room = String::with_capacity(self.open.capacity());
            self.pieces
                .push(Arc::from(std::mem::replace(&mut self.open, room)));
        }
        self.pieces.push(chunk.clone());
    }

    /// Appends `chunks`' text: its frozen chunks shared, its open piece
    /// copied.
    pub fn push_chunks(&mut self, chunks: &Chunks) {
        for c in &chunks.frozen {
            self.push_shared(c);
        }
        self.push_str(&chunks.open);
    }

    /// The text written so far, to append to in place (the PGN's wrapping
    /// writes into a `String`).
    pub fn open(&mut self) -> &mut String {
        &mut self.open
    }

    /// The text.
    pub fn finish(mut self) -> Text {
        if !self.open.is_empty() || self.pieces.is_empty() {
            self.pieces.push(Arc::from(self.open));
        }
        Text::of(self.pieces)
    }
}

/// An append-only text kept as frozen chunks (each at least [`CHUNK`]
/// bytes, shared by the snapshots made from it) and an open piece; it can
/// be cut back (a move taken back).
#[derive(Debug, Clone, Default)]
pub struct Chunks {
    frozen: Vec<Arc<str>>,
    /// The frozen chunks' total length.
    frozen_len: usize,
    open: String,
}

impl Chunks {
    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.frozen_len + self.open.len()
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of pieces a [`TextBuilder::push_chunks`] adds at most
    /// (the frozen chunks and the open one).
    pub fn pieces(&self) -> usize {
        self.frozen.len() + 1
    }

    /// The open piece's length in bytes.
    pub fn open_len(&self) -> usize {
        self.open.len()
    }

    /// The open piece, to append to (call [`Chunks::seal`] after a whole
    /// item is written).
    pub fn open(&mut self) -> &mut String {
        &mut self.open
    }

    /// Appends text.
    pub fn push_str(&mut self, s: &str) {
        self.open.push_str(s);
    }

    /// Freezes the open piece once it reaches [`CHUNK`] bytes: call it
    /// between items, so a cut back at an item's end stays cheap.
    pub fn seal(&mut self) {
        if self.open.len() >= CHUNK {
            self.frozen_len += self.open.len();
            self.frozen.push(Arc::from(std::mem::take(&mut self.open)));
        }
    }

    /// Cuts the text back to its first `len` bytes (a frozen chunk cut in
    /// the middle is opened again).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.frozen_len {
            self.open.truncate(len - self.frozen_len);
            return;
        }
        let mut open = String::new();
        while self.frozen_len > len {
            let Some(c) = self.frozen.pop() else { break };
            self.frozen_len -= c.len();
            open = c.to_string();
        }
        open.truncate(len - self.frozen_len);
        self.open = open;
    }

    /// Empties it.
    pub fn clear(&mut self) {
        self.frozen.clear();
        self.frozen_len = 0;
        self.open.clear();
    }

    /// The text whole (tests).
    pub fn joined(&self) -> String {
        let mut s: String = self.frozen.iter().map(|c| &**c).collect();
        s.push_str(&self.open);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cut_back_anywhere_keep_the_text() {
        let mut c = Chunks::default();
        let mut whole = String::new();
        let mut ends = Vec::new();
        for i in 0..2000 {
            let item = format!("{{\"n\":{i},\"pad\":\"{}\"}},", "x".repeat(i % 37));
            c.push_str(&item);
            c.seal();
            whole.push_str(&item);
            ends.push(whole.len());
        }
        assert!(c.frozen.len() > 10);
        assert_eq!(c.joined(), whole);
        for cut in [ends[1500], ends[700], 5, 0] {
            c.truncate(cut);
            whole.truncate(cut);
            assert_eq!(c.joined(), whole);
            assert_eq!(c.len(), whole.len());
            c.push_str("more,");
            whole.push_str("more,");
            assert_eq!(c.joined(), whole);
        }
    }

    #[test]
    fn a_text_of_shared_pieces_reads_and_compares_as_its_string() {
        let mut c = Chunks::default();
        for i in 0..500 {
            c.push_str(&format!("move {i}; "));
            c.seal();
        }
        let build = |head: &str, tail: &str| {
            let mut b = TextBuilder::default();
            b.push_str(head);
            b.push_chunks(&c);
            b.push_str(tail);
            b.finish()
        };
        let a = build("[", "]");
        let whole = format!("[{}]", c.joined());
        assert!(a.pieces().count() > 2);
        assert_eq!(a.len(), whole.len());
        assert_eq!(a.as_str(), whole);
        assert_eq!(a.to_string(), whole);
        assert_eq!(&*a.shared(), whole);
        assert_eq!(a, Text::from(whole.clone()));
        assert_eq!(Text::from(whole.clone()), a);
        assert_eq!(a, build("[", "]"));
        assert_ne!(a, build("[", ")"));
        assert_ne!(a, build("(", "]"));
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&whole).unwrap()
        );
        let back: Text = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(back, a);
        assert_eq!(TextBuilder::default().finish(), Text::from(""));
    }
}
