//! One completed move of the game record, as the arbiter keeps it (the
//! state's moves, the PGN's and the feeds' source).

use shakmaty::Color;

/// One completed move of the game record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    /// SAN with check or mate suffix.
    pub san: String,
    /// UCI.
    pub uci: String,
    /// Who moved.
    pub by: Color,
    /// Trace time of completion, ms.
    pub t: u64,
    /// The mover's remaining time after the move (increment included), ms,
    /// when a clock runs.
    pub clock_ms: Option<u64>,
    /// Both clocks (white, black) as they stood once the move was
    /// completed, ms, when a clock runs: what an E2.8 rewind to this move
    /// sets them back to.
    pub clocks: Option<(u64, u64)>,
    /// An illegal move that stood (rapid or blitz, no claim before the
    /// opponent's next move: 2009 A4c / B3c); `san` then holds `Ng1-g3`.
    pub illegal: bool,
}
