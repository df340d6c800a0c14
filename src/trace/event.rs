//! The event stream out (`spec/trace-format.md`, "Events", and the
//! extensions of docs/trace-extensions.md): [`Event`], [`EventKind`], [`By`].

use super::*;

/// One candidate of an `ambiguous_move` alert.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveChoice {
    /// UCI (castling as king to its destination).
    pub uci: String,
    /// SAN with check or mate suffix.
    pub san: String,
    /// Extension: the squares this reading takes as displaced pieces
    /// (knocked over or displaced beside the move, 2023 7.4.1, 2009 §7.3),
    /// a1 first; absent when the reading has none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub displaced: Vec<String>,
}

/// `w` / `b` in the event stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct By(pub Color);

impl Serialize for By {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(color_str(self.0))
    }
}

impl fmt::Display for By {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(color_str(self.0))
    }
}

/// One event of the output stream: the controller's decision at trace time `t` (ms).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// Trace time in ms at which the controller decided.
    pub t: u64,
    /// The event proper; serialised with its `type`.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// The event types of the contract, plus documented extensions
/// (`promotion_assumed`, `draw_offer`, `position_restored`, `setup`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A piece was lifted by the player on move (§4.3), or a peg left its hole (E2.2).
    Touch {
        /// The player on move.
        by: By,
        /// The square the piece left.
        square: String,
        /// FEN letter of the piece (upper case white).
        piece: String,
        /// The board (`main` / `tactile`).
        board: &'static str,
    },
    /// A move completed (§6.7a) or made when it ends the game.
    Move {
        /// 1-based half-move number.
        ply: u32,
        /// Who moved.
        by: By,
        /// Standard algebraic notation with check/mate suffix.
        san: String,
        /// UCI (castling as king to its destination, e1g1).
        uci: String,
        /// FEN after the move (en passant square only when legal).
        fen: String,
    },
    /// Extension: the promotion piece was not sensed nor chosen; a queen was assumed.
    PromotionAssumed {
        /// The promoting player.
        by: By,
        /// The promotion square.
        square: String,
        /// The piece assumed (FEN letter).
        piece: String,
    },
    /// An illegal move was completed.
    IllegalMove {
        /// The offender.
        by: By,
        /// The article applied (`7.4a`, `7.5.1`, ...).
        article: &'static str,
        /// This player's completed illegal moves so far.
        count: u32,
        /// `+2 min to black`, `game lost`, `draw`, or `none` (a value,
        /// written as text).
        penalty: Penalty,
        /// Extension: the article of the penalty (2009 / 2001 §7.4b, 2023
        /// 7.5.5; where a claim wins, 2009 B3c / 2001 C3), while `article`
        /// is the illegal move's and the reinstatement's (§7.4a / 7.5.1).
        penalty_article: &'static str,
        /// Squares where the board differs from the position to reinstate.
        squares: Vec<String>,
    },
    /// The move made breaks §4.
    TouchMove {
        /// The offender.
        by: By,
        /// `4.3a`, `4.3b`, `4.3c`, `4.4b`, ...
        article: &'static str,
        /// The touched square whose obligation was broken.
        touched: String,
        /// The move played (UCI), as the contract has it.
        played: String,
        /// Extension: the move played in SAN, from the position where it was
        /// made (`docs/trace-extensions.md`): what the arbiter reads (the
        /// console, the round report); UCI is for programs.
        san: String,
    },
    /// An irregularity for the arbiter.
    Irregularity {
        /// `wrong_initial_position`, `displaced`, `clock_pressed_without_move`, ...
        kind: IrregularityKind,
        /// The article.
        article: &'static str,
        /// The squares concerned.
        squares: Vec<String>,
    },
    /// The controller's ruling proposal on a claim.
    Claim {
        /// The claimant.
        by: By,
        /// What was claimed.
        kind: ClaimKind,
        /// Whether the claim is upheld.
        upheld: bool,
        /// What follows.
        consequence: String,
        /// The article.
        article: &'static str,
    },
    /// Extension (`docs/trace-extensions.md`): a draw claim the board does
    /// not decide. It does not hold on the board and names no written
    /// move, but the move the claimant wrote on his scoresheet could make
    /// it correct (2009/2001 §9.2a, §9.3a; 2023 9.2.1, 9.3.1): it is held
    /// for the arbiter, the clocks stopped (§9.5 / 9.5.1), no penalty
    /// given or announced until he rules (`uphold` / `reject`).
    ClaimHeld {
        /// The claimant.
        by: By,
        /// `threefold` or `fifty_moves`.
        kind: ClaimKind,
        /// The legal moves after which the claim would be correct.
        candidates: Vec<MoveChoice>,
        /// The article of the claim (9.2, 9.3).
        article: &'static str,
    },
    /// Extension: a draw offer was made (§9.1).
    DrawOffer {
        /// Who offers.
        by: By,
    },
    /// The player on move may claim a draw.
    DrawClaimable {
        /// `threefold` or `fifty_moves`.
        kind: ClaimKind,
        /// The article.
        article: &'static str,
    },
    /// Both clocks, after every completed move and every adjustment (ms).
    Clock {
        /// White's remaining time in ms.
        white_ms: u64,
        /// Black's remaining time in ms.
        black_ms: u64,
    },
    /// A player's time ran out (§6.8).
    Flag {
        /// Whose flag fell.
        by: By,
    },
    /// A spoken announcement (Appendix E).
    Announce {
        /// The phrase.
        text: String,
        /// `da`, `nb`, `de`, `en`.
        lang: Lang,
        /// Extension: the announcement's number in the game, from 1 (a
        /// `spoken` record names it when it has finished playing).
        n: u64,
        /// Extension: the player it is for (an answer on demand, a repeat);
        /// absent: both players.
        #[serde(skip_serializing_if = "Option::is_none")]
        to: Option<By>,
        /// Extension: the phrase as SSML for `espeak-ng -m` when it mixes
        /// languages (each word in the voice of its language).
        #[serde(skip_serializing_if = "Option::is_none")]
        ssml: Option<String>,
        /// Extension: how long it takes to say, ms (estimated from the text,
        /// `docs/voice.md`).
        ms: u64,
    },
    /// Extension: the board shows the position to reinstate again (§7).
    PositionRestored {
        /// FEN of the reinstated position.
        fen: String,
    },
    /// Extension: set-up guidance before the first move (§7.1a / 7.2.1):
    /// what the main board lacks to show the start position, reported each
    /// time it changes; all three empty once the board shows it (the game
    /// starts).
    Setup {
        /// Squares that should hold a piece and are empty.
        missing: Vec<String>,
        /// Squares that hold a piece and should be empty.
        extra: Vec<String>,
        /// Squares holding a piece of the wrong colour or kind (as sensed).
        misplaced: Vec<String>,
    },
    /// Extension: a press whose board fits several legal moves, still open
    /// at the next completed move (or left unexplained by every reading):
    /// the game is held until the arbiter picks one (`choose`).
    AmbiguousMove {
        /// Who made the move.
        by: By,
        /// The 1-based half-move number of the ambiguous move.
        ply: u32,
        /// The moves that explain what the board showed, in move-generation order.
        candidates: Vec<MoveChoice>,
        /// The article (the arbiter's decisions).
        article: &'static str,
    },
    /// Extension: the arbiter confirmed the game's result (DSU regulations
    /// 004 §15); until then it is provisional. `corrected`: the arbiter
    /// gave another result than the board's; `forfeit`: the game was not
    /// played (a no-show).
    ResultConfirmed {
        /// The result that stands: `1-0`, `0-1`, `1/2-1/2`, or `0-0` (a
        /// double forfeit: both lost).
        result: Score,
        /// The board's result was replaced.
        corrected: bool,
        /// Entered as a forfeit.
        forfeit: bool,
        /// The article (the arbiter's decisions).
        article: &'static str,
    },
    /// Extension: an arbiter's ruling as the board applied it, with the
    /// name of the arbiter who gave it (an `arbiter` record with an author).
    Ruling {
        /// The action (`restore`, `accept`, `result`, `confirm`, …).
        action: &'static str,
        /// The arbiter who ruled.
        author: String,
        /// The article the ruling applies (`crate::rules::RulingArticles`).
        article: &'static str,
        /// Its number in the board's ruling history, from 1 (the same after
        /// a restart: the journal is replayed).
        seq: u32,
        /// What it did, in words ("White 1:20:00 → 0:01:20").
        effect: String,
        /// The alert it answered (`expect.event`), if any.
        answers: Option<EventRef>,
        /// Where the arbiter's own words begin in `effect` (a byte offset:
        /// `" — reason: …"` to its end), when the ruling carried a reason.
        /// Not serialised: the journal, the arbiter's channel and the round
        /// report keep the whole effect; the public feeds show it up to
        /// here only (issue 42 §5, `broadcast::public`).
        #[serde(skip)]
        reason_at: Option<usize>,
    },
    /// Extension (issue 24.1): an arbiter's ruling the board refused, and
    /// why: the state it was made from no longer holds (409), or it is
    /// impossible or would change nothing (422). Journaled as refused: the
    /// record stays in the journal, this event says it was not applied.
    RulingRefused {
        /// The action.
        action: &'static str,
        /// The arbiter who ruled, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        author: Option<String>,
        /// Why, in words ("the claim was decided three moves ago").
        reason: String,
        /// 409 (the state moved on, already decided, the game over and its
        /// result confirmed) or 422 (impossible, or no effect).
        status: u16,
        /// The article the refusal is about: the matter's (the claim, the
        /// illegal move, the ruling to undo), else the ruling asked for's
        /// (`crate::rules::RulingArticles`, per profile); absent when the
        /// ruling names no matter the board knows.
        #[serde(skip_serializing_if = "Option::is_none")]
        article: Option<&'static str>,
    },
    /// The game is over.
    GameEnd {
        /// `1-0`, `0-1`, `1/2-1/2`; extension: `0-0` (a double forfeit,
        /// reason `forfeit`: both lost; `docs/trace-extensions.md`).
        result: Score,
        /// `checkmate`, `stalemate`, `dead_position`, `resignation`, ...
        reason: EndReason,
        /// The article.
        article: &'static str,
        /// Extension (issue 40.6): the arbiter declared this result
        /// himself (`arbiter: result`), confirmed by that act: a
        /// `result_confirmed` follows and no result waits for
        /// confirmation. Written only when true.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        declared: bool,
    },
}

impl Event {
    /// The event as one JSON line (no newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// The contract's `type` name.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            EventKind::Touch { .. } => "touch",
            EventKind::Move { .. } => "move",
            EventKind::PromotionAssumed { .. } => "promotion_assumed",
            EventKind::IllegalMove { .. } => "illegal_move",
            EventKind::TouchMove { .. } => "touch_move",
            EventKind::Irregularity { .. } => "irregularity",
            EventKind::Claim { .. } => "claim",
            EventKind::DrawOffer { .. } => "draw_offer",
            EventKind::DrawClaimable { .. } => "draw_claimable",
            EventKind::ClaimHeld { .. } => "claim_held",
            EventKind::Clock { .. } => "clock",
            EventKind::Flag { .. } => "flag",
            EventKind::Announce { .. } => "announce",
            EventKind::PositionRestored { .. } => "position_restored",
            EventKind::Setup { .. } => "setup",
            EventKind::AmbiguousMove { .. } => "ambiguous_move",
            EventKind::GameEnd { .. } => "game_end",
            EventKind::ResultConfirmed { .. } => "result_confirmed",
            EventKind::Ruling { .. } => "ruling",
            EventKind::RulingRefused { .. } => "ruling_refused",
        }
    }
}
