//! The game's values that are not name lists: clock bounds, colours,
//! results and scores, durations, players, game ids, penalties.

use super::UnknownName;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use shakmaty::{Color, Square};
use std::fmt::{self, Display};
use std::str::FromStr;

use shakmaty::KnownOutcome;

/// The most time a clock may be set to or a period may give, ms: 24 h.
/// The longest controls of the Laws give some seven hours a game; a larger
/// value is an input error (named where it was read), never arithmetic that
/// wraps.
pub const MAX_CLOCK_MS: u64 = 24 * 3_600_000;

/// The latest trace time accepted, ms since the start of the trace: 30
/// days (a game with adjournments stays far below).
pub const MAX_TRACE_MS: u64 = 30 * 24 * 3_600_000;

/// The colour in the contract's spelling: `w` or `b`.
pub const fn color_str(c: Color) -> &'static str {
    match c {
        Color::White => "w",
        Color::Black => "b",
    }
}

/// Parses `w` / `b` (also `white` / `black`).
pub fn parse_color(s: &str) -> Result<Color, UnknownName> {
    match s {
        "w" | "white" => Ok(Color::White),
        "b" | "black" => Ok(Color::Black),
        _ => Err(UnknownName::new(s, &["w", "b"])),
    }
}

/// The colour's name in English prose (`white` / `black`).
pub const fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The win for `c` (`1-0` / `0-1`).
pub const fn win_for(c: Color) -> KnownOutcome {
    KnownOutcome::Decisive { winner: c }
}

/// Parses a result `1-0`, `0-1`, `1/2-1/2`.
pub fn parse_result(s: &str) -> Result<KnownOutcome, UnknownName> {
    s.parse()
        .map_err(|_| UnknownName::new(s, &["1-0", "0-1", "1/2-1/2"]))
}

/// serde for a [`KnownOutcome`] by its name (`1-0`, `0-1`, `1/2-1/2`):
/// `#[serde(with = "crate::model::serde_result")]`.
pub mod serde_result {
    use super::*;

    /// Writes the result's name.
    pub fn serialize<S: Serializer>(r: &KnownOutcome, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(r.as_str())
    }

    /// Reads a result's name.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<KnownOutcome, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        parse_result(&s).map_err(serde::de::Error::custom)
    }
}

/// A game's result as the arbiter records it: the game's outcome
/// (shakmaty's [`KnownOutcome`]: `1-0`, `0-1`, `1/2-1/2`), or both players
/// lost (`0-0`: a double forfeit, neither player came; TRF-16 `-`/`-`).
///
/// shakmaty's outcome has no `0-0`, nor has the PGN standard (Edwards 1994,
/// §8.2.6); lichess broadcasts read `[Result "0-0"]` as 0 points each
/// (lichess-org/lila#16081, scalachess `Outcome.pointsFromResult`), and
/// the feeds write it only there (`docs/console.md`, "Double forfeit").
/// Written by name (`as_str`, serde).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Score {
    /// The game's outcome: `1-0`, `0-1`, `1/2-1/2`.
    Game(KnownOutcome),
    /// Both players lost: `0-0` (a double forfeit).
    BothLost,
}

impl Score {
    /// `1-0`, `0-1`, `1/2-1/2` or `0-0`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Score::Game(r) => r.as_str(),
            Score::BothLost => "0-0",
        }
    }

    /// The game's outcome; `None` when both lost (no side won, no draw).
    pub const fn outcome(&self) -> Option<KnownOutcome> {
        match self {
            Score::Game(r) => Some(*r),
            Score::BothLost => None,
        }
    }

    /// Whether `c` won.
    pub fn won_by(&self, c: Color) -> bool {
        *self == Score::Game(win_for(c))
    }
}

impl From<KnownOutcome> for Score {
    fn from(r: KnownOutcome) -> Score {
        Score::Game(r)
    }
}

impl PartialEq<KnownOutcome> for Score {
    fn eq(&self, other: &KnownOutcome) -> bool {
        *self == Score::Game(*other)
    }
}

impl PartialEq<Score> for KnownOutcome {
    fn eq(&self, other: &Score) -> bool {
        *other == Score::Game(*self)
    }
}

impl Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Score {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A duration or a point on the round's clock, in milliseconds.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Millis(pub u64);

impl Millis {
    /// Whole seconds (rounded down).
    pub const fn secs(self) -> u64 {
        self.0 / 1000
    }
}

impl Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ms", self.0)
    }
}

impl From<u64> for Millis {
    fn from(ms: u64) -> Millis {
        Millis(ms)
    }
}

/// A player of a game as the broadcast names them (PGN tags `White`,
/// `WhiteFideId`, `WhiteTitle`; LiveChess pairings): every part optional.
/// The config's `[game.white]` / `[game.black]` deserialise into it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    /// `Surname, Given name` as PGN writes it.
    pub name: Option<String>,
    /// FIDE id.
    pub fide_id: Option<u64>,
    /// FIDE title (`GM`, `IM`, ...).
    pub title: Option<String>,
    /// Federation (three letters, `DEN`).
    pub federation: Option<String>,
    /// FIDE rating (PGN `WhiteElo`); absent: unrated or not given. Not
    /// serialised when absent (the feeds' JSON stays as it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
}

/// A game of an event: round and board (`3.1` = round 3, board 1), as the
/// broadcast topics and stream filters (`?game=R.B`) name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GameId {
    /// The round, from 1.
    pub round: u32,
    /// The board, from 1.
    pub board: u32,
}

impl Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.round, self.board)
    }
}

/// A game id that is not `R.B` with two whole numbers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a game (round.board, e.g. 3.1)")]
pub struct BadGameId(pub String);

impl FromStr for GameId {
    type Err = BadGameId;
    fn from_str(s: &str) -> Result<GameId, BadGameId> {
        let bad = || BadGameId(s.to_owned());
        let (r, b) = s.split_once('.').ok_or_else(bad)?;
        Ok(GameId {
            round: r.parse().map_err(|_| bad())?,
            board: b.parse().map_err(|_| bad())?,
        })
    }
}

/// What a ruling on an illegal move costs (event `illegal_move`, key
/// `penalty`): a value with its article, rendered to text only at the edge
/// (its `Display`: `+2 min to black`, `game lost`, `draw`, `none`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Penalty {
    /// Time added to the opponent of the offender (§7.4b / 7.5.5).
    TimeAdded {
        /// Who gets the time.
        to: Color,
        /// How much, ms.
        ms: u64,
    },
    /// The offender loses the game.
    GameLost,
    /// The game is drawn (the opponent cannot mate).
    Draw,
    /// Nothing (a claim too late, an overruled proposal).
    None,
}

impl Display for Penalty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Penalty::TimeAdded { to, ms } => {
                let secs = ms / 1000;
                if secs % 60 == 0 {
                    write!(f, "+{} min to {}", secs / 60, side_name(to))
                } else {
                    write!(f, "+{secs} s to {}", side_name(to))
                }
            }
            Penalty::GameLost => f.write_str("game lost"),
            Penalty::Draw => f.write_str("draw"),
            Penalty::None => f.write_str("none"),
        }
    }
}

impl Serialize for Penalty {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Squares in the contract's spelling (`e4`), in a1 = 0 order.
pub fn square_names(squares: impl IntoIterator<Item = Square>) -> Vec<String> {
    squares.into_iter().map(|s| s.to_string()).collect()
}
