//! When a move that produces a mate, a stalemate or a dead position ends
//! the game at once.

use super::Profile;
use crate::model::Edition;

impl Profile {
    /// The game ends at the move producing the checkmate (stalemate, dead
    /// position) only if that move also kept Articles 4.2–4.7 (touch-move,
    /// release): 2023 5.1.1 "provided that the move producing the
    /// checkmate position was in accordance with Article 3 and Articles
    /// 4.2 – 4.7" (5.2.1 and 5.2.2 the same, `fide-2023.md` §2.3). 2009
    /// and 2001 §5.1a / §5.2a / §5.2b (seeds 002, 000) ask only "et lovligt
    /// træk", which §3.10 defines by Article 3 alone: false there, the
    /// move ends the game whatever its §4 breach.
    pub fn game_end_needs_article_4(&self) -> bool {
        self.edition == Edition::Fide2023
    }
}
