//! The interface contract of `../shared/spec/trace-format.md`: sensor traces
//! in (JSON Lines), the event stream out.
//!
//! Length: the contract's one codec — header, every record kind, every
//! event kind — kept in one file so that the contract is read in one place.
//!
//! A trace is an optional header line (it has the key `"trace"`) followed by
//! records, one JSON object a line, each with `t` in milliseconds since the
//! start of the trace (non-decreasing). Unknown fields are ignored; an
//! unknown record kind, a missing or decreasing `t`, or a malformed value is
//! an error naming the line (1-based) and the key.
//!
//! This module knows nothing of the Laws or of hardware: it only turns text
//! into [`Record`]s and [`Event`]s into text.

use serde::Serialize;
use serde_json::{Map, Value};
use shakmaty::{Color, Piece, Role, Square};
use std::fmt;
use std::io::BufRead;

pub use crate::model::color_str;
use crate::model::{
    parse_result, Edition, EndReason, IrregularityKind, KnownOutcome, Lang, Mode, Penalty, Score,
    Supervision, UnknownName, WordChoice,
};
pub use crate::model::{BoardId, ClaimKind, QueryKind, Sensing};
use crate::model::{MAX_CLOCK_MS, MAX_TRACE_MS};
use std::str::FromStr;

mod expect;
mod hot;
pub use expect::{EventRef, Expect, ANSWERABLE as ANSWERABLE_EVENTS, EXAMPLE as EXPECT_EXAMPLE};

/// The trace header (first line, has the key `trace`). Every key but `trace`
/// is optional; unknown keys are ignored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Header {
    /// The format version (`1`).
    pub version: u64,
    /// What the sensors tell (default occupancy).
    pub sensing: Sensing,
    /// The sensed boards, `main` first (default `["main"]`).
    pub boards: Vec<BoardId>,
    /// Rule profile (`fide-2001`, `fide-2009`, `fide-2009-no`, `fide-2023`).
    pub rules: Option<Edition>,
    /// `standard`, `rapid` or `blitz`.
    pub mode: Option<Mode>,
    /// Time control in the contract's extended PGN syntax; absent: no clock runs.
    pub time_control: Option<String>,
    /// Start position; absent: the initial position.
    pub start_fen: Option<String>,
    /// White player's name ("Surname, Given").
    pub white: Option<String>,
    /// Black player's name.
    pub black: Option<String>,
    /// Event name (PGN `Event`).
    pub event: Option<String>,
    /// Round (PGN `Round`, e.g. `3.1`).
    pub round: Option<String>,
    /// Announcement language: `da`, `nb` (also written `no`), `de`, `en`.
    pub language: Option<Lang>,
    /// With two boards: the colour of the visually impaired player.
    pub vi_player: Option<Color>,
    /// Extension: the site (PGN `Site`).
    pub site: Option<String>,
    /// Extension: `adequate` or `inadequate` arbiter supervision (rapid, blitz).
    pub supervision: Option<Supervision>,
    /// Extension: the date (PGN `Date`, `YYYY.MM.DD`).
    pub date: Option<String>,
    /// Extension: the announcements' words (E2.1's last sentence):
    /// `appendix` (default), `national` (also `scandinavian`) or `german`.
    pub words: Option<WordChoice>,
}

/// What the arbiter says through an `arbiter` record. The contract names
/// `restore`; the others are documented extensions (docs/trace-extensions.md),
/// so that every action of the arbiter API is a trace record and a journal
/// replays it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArbiterAction {
    /// Accept the controller's proposal in force (restore the position, apply the penalty).
    Restore,
    /// Accept the pending proposal (same as `restore` where a position is to be restored).
    Accept,
    /// Overrule the pending proposal: nothing happens, the game goes on.
    Overrule,
    /// Declare the result: `{"arbiter": "result", "result": "1-0"}`.
    SetResult(KnownOutcome),
    /// Set both clocks, ms (§6.10b / §6.13): `{"arbiter": "clock", "white_ms": …, "black_ms": …}`.
    SetClock {
        /// White's time, ms.
        white_ms: u64,
        /// Black's time, ms.
        black_ms: u64,
        /// The clock's move counter (§6.10b / 2023 6.10.2): the moves White
        /// has completed (Black's count follows from the player on move),
        /// so the next period arrives at the right move; `None`: unchanged.
        moves: Option<u32>,
    },
    /// Set up a position (FEN): an earlier position of the game (the moves
    /// after it are taken back, §7), or a new start before the first move:
    /// `{"arbiter": "position", "fen": "…"}`.
    SetPosition(String),
    /// Stop both clocks (§6.12).
    Pause,
    /// Restart the clock of the player on move.
    Resume,
    /// Extension: pick one reading of a held press after an
    /// `ambiguous_move` alert (UCI of one candidate):
    /// `{"arbiter": "choose", "uci": "d1d5"}`.
    Choose(String),
    /// Extension: confirm the game's result (DSU regulations 004 §15: the
    /// result stays provisional until the arbiter has it), optionally
    /// correcting it: `{"arbiter": "confirm"}` or `{"arbiter": "confirm",
    /// "result": "0-1"}`.
    /// `"0-0"` (both lost: 2023 11.8, 2009 §12.9, 2001 §12.8, both players
    /// guilty; or a forfeit found to be a double forfeit) is taken as a
    /// correction with the arbiter's reason.
    Confirm(Option<Score>),
    /// Extension: a game not played (a no-show, Laws 6.6a / 2023 6.7.1;
    /// DSU 004): the result entered as a forfeit, confirmed at once:
    /// `{"arbiter": "forfeit", "result": "1-0"}`; `"0-0"` for a double
    /// forfeit (neither player came). Also after the present player's
    /// first move (the normal sequence: he starts the clock and moves).
    Forfeit(Forfeit),
    /// Extension: withdraw ruling number `seq` of the board's history, as a
    /// new ruling that reverses its effect (issue 24.5):
    /// `{"arbiter": "undo", "ruling": 3}`.
    Undo(u32),
    /// Extension: Appendix E2.8 (2001 F2.8, 2023 D.2.9): the boards and the
    /// scoresheets differ; the game goes back to ply N (completed
    /// half-moves), the clocks to what they showed when it was completed:
    /// `{"arbiter": "rewind", "ply": 20}`.
    Rewind(u32),
}

/// The longest `reason` an `arbiter` record takes, in characters.
pub const MAX_REASON_CHARS: usize = 500;

/// The result of a forfeit (a game not played).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forfeit {
    /// One side won by forfeit (`1-0` / `0-1`, TRF `+`/`-`).
    Won(KnownOutcome),
    /// Neither player came: both lose (`0-0`, TRF `-`/`-`).
    Double,
}

impl Forfeit {
    /// `1-0`, `0-1` or `0-0`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Forfeit::Won(r) => r.as_str(),
            Forfeit::Double => "0-0",
        }
    }
}

impl ArbiterAction {
    /// The action names.
    pub const NAMES: [&'static str; 13] = [
        "restore", "accept", "overrule", "result", "clock", "position", "pause", "resume",
        "choose", "confirm", "forfeit", "undo", "rewind",
    ];

    /// The record's name for the action.
    pub fn as_str(&self) -> &'static str {
        match self {
            ArbiterAction::Restore => "restore",
            ArbiterAction::Accept => "accept",
            ArbiterAction::Overrule => "overrule",
            ArbiterAction::SetResult(_) => "result",
            ArbiterAction::SetClock { .. } => "clock",
            ArbiterAction::SetPosition(_) => "position",
            ArbiterAction::Pause => "pause",
            ArbiterAction::Resume => "resume",
            ArbiterAction::Choose(_) => "choose",
            ArbiterAction::Confirm(_) => "confirm",
            ArbiterAction::Forfeit(_) => "forfeit",
            ArbiterAction::Undo(_) => "undo",
            ArbiterAction::Rewind(_) => "rewind",
        }
    }
}

/// One record of a trace, without its time and board.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordKind {
    /// A piece left the square (a peg left its hole on the tactile board).
    Lift(Square),
    /// A piece arrived on the square; `color` from a colour-sensing board,
    /// `piece` from an identity-sensing board.
    Place {
        /// The square (a1 = 0).
        square: Square,
        /// Magnet polarity, when sensed.
        color: Option<Color>,
        /// The piece, when the board knows it.
        piece: Option<Piece>,
    },
    /// A full occupancy snapshot: bit i is square i (a1 = 0, h8 = 63).
    Frame(u64),
    /// The player pressed the clock (§6.7a).
    Press(Color),
    /// The promotion piece chosen outside the board (`q r b n`).
    Promote(Role),
    /// A player's claim.
    Claim {
        /// What is claimed.
        kind: ClaimKind,
        /// The claimant.
        by: Color,
    },
    /// A draw offer (§9.1).
    Offer(Color),
    /// A draw offer accepted.
    Accept(Color),
    /// A draw offer declined.
    Decline(Color),
    /// The player resigns (§5.1b).
    Resign(Color),
    /// The player declares j'adoube (§4.2) before the next lift.
    Adjust(Color),
    /// Extension (E2.9d): a player asks for information on demand — `time`
    /// (moves made and both clocks), `last_move`, or `piece` (where the
    /// pieces given by `piece`, a FEN letter, stand).
    Query {
        /// What is asked.
        what: QueryKind,
        /// Who asks.
        by: Color,
        /// For `piece`: which piece (colour and kind).
        piece: Option<Piece>,
        /// Who asked, for the journal (the player's device writes its
        /// holder's name), when known.
        author: Option<String>,
    },
    /// Extension (E2.3c): the announcement numbered `n` in the event stream
    /// (the `announce` event's `n`) has finished playing at this record's
    /// time: `{"t": …, "spoken": n, "by": "b"}`. `by`: the player whose own
    /// output has played it (each player's output reports on its own, so a
    /// move counts as announced when the player who must press has heard
    /// it, never when the slowest other listener has); absent: every output
    /// has played it (journals written before issue 29). Written by the
    /// daemon's speaker, so a replay of its journal times the announcements
    /// as they were heard.
    Spoken {
        /// The announcement's number (`announce.n`, from 1).
        n: u64,
        /// Whose output played it; `None`: all of them.
        by: Option<Color>,
    },
    /// The arbiter acts; `author` names who (the API's token holder), when known.
    Arbiter {
        /// What the arbiter does.
        action: ArbiterAction,
        /// Who, for the journal.
        author: Option<String>,
        /// What the ruling was made from (issue 24.1); `None`: checked
        /// against the current state only.
        expect: Option<Expect>,
        /// The arbiter's reason in words (a result declared, corrected or
        /// entered as a forfeit, issue 24.3): `"reason": "…"`, at most
        /// [`MAX_REASON_CHARS`] characters; kept in the ruling's effect, the
        /// history, the round report and the PGN.
        reason: Option<String>,
    },
}

/// One timed record of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Milliseconds since the start of the trace.
    pub t: u64,
    /// The board the record comes from (only lift, place and frame name one).
    pub board: BoardId,
    /// What happened.
    pub kind: RecordKind,
}

/// A malformed trace line: the 1-based line number and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TraceError {
    /// 1-based line number in the trace.
    pub line: usize,
    /// What is wrong, naming the key.
    pub message: String,
}

/// The record kinds of the contract, by their key.
pub const RECORD_KINDS: [&str; 14] = [
    "lift", "place", "frame", "press", "promote", "claim", "offer", "accept", "decline", "resign",
    "adjust", "arbiter", "query", "spoken",
];

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, TraceError> {
    Err(TraceError {
        line,
        message: message.into(),
    })
}

fn get_str<'a>(obj: &'a Map<String, Value>, key: &str, line: usize) -> Result<&'a str, TraceError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => err(
            line,
            format!("key '{key}': expected a string, found {other}"),
        ),
        None => err(line, format!("missing key '{key}'")),
    }
}

fn opt_str<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    line: usize,
) -> Result<Option<&'a str>, TraceError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => err(
            line,
            format!("key '{key}': expected a string, found {other}"),
        ),
    }
}

/// An optional key whose value is one of a [`crate::model`] enum's names.
fn opt_named<T: FromStr<Err = UnknownName>>(
    obj: &Map<String, Value>,
    key: &str,
    line: usize,
) -> Result<Option<T>, TraceError> {
    match opt_str(obj, key, line)? {
        None => Ok(None),
        Some(s) => s.parse().map(Some).map_err(|e: UnknownName| TraceError {
            line,
            message: format!("key '{key}': {e}"),
        }),
    }
}

/// A required key whose value is one of a [`crate::model`] enum's names.
fn get_named<T: FromStr<Err = UnknownName>>(
    obj: &Map<String, Value>,
    key: &str,
    line: usize,
) -> Result<T, TraceError> {
    get_str(obj, key, line)?
        .parse()
        .map_err(|e: UnknownName| TraceError {
            line,
            message: format!("key '{key}': {e}"),
        })
}

fn parse_color(s: &str, key: &str, line: usize) -> Result<Color, TraceError> {
    match s {
        "w" => Ok(Color::White),
        "b" => Ok(Color::Black),
        _ => err(
            line,
            format!("key '{key}': expected \"w\" or \"b\", found \"{s}\""),
        ),
    }
}

fn parse_square(s: &str, key: &str, line: usize) -> Result<Square, TraceError> {
    s.parse::<Square>().map_err(|_| TraceError {
        line,
        message: format!("key '{key}': \"{s}\" is not a square (a1..h8)"),
    })
}

/// Parses the header object of line 1.
fn parse_header(obj: &Map<String, Value>, line: usize) -> Result<Header, TraceError> {
    let version = match obj.get("trace") {
        Some(Value::Number(n)) => n.as_u64().ok_or_else(|| TraceError {
            line,
            message: format!("key 'trace': expected a positive integer, found {n}"),
        })?,
        Some(other) => {
            return err(
                line,
                format!("key 'trace': expected a number, found {other}"),
            )
        }
        None => return err(line, "missing key 'trace'"),
    };
    let mut h = Header {
        version,
        boards: vec![BoardId::Main],
        ..Header::default()
    };
    if let Some(s) = opt_named(obj, "sensing", line)? {
        h.sensing = s;
    }
    if let Some(v) = obj.get("boards") {
        let arr = v.as_array().ok_or_else(|| TraceError {
            line,
            message: format!("key 'boards': expected a list, found {v}"),
        })?;
        let mut boards = Vec::new();
        for b in arr {
            match b.as_str().map(str::parse::<BoardId>) {
                Some(Ok(id)) => boards.push(id),
                _ => {
                    return err(
                        line,
                        format!("key 'boards': {b} is not \"main\" or \"tactile\""),
                    )
                }
            }
        }
        if boards.first() != Some(&BoardId::Main) {
            return err(line, "key 'boards': the list must start with \"main\"");
        }
        h.boards = boards;
    }
    h.rules = opt_named(obj, "rules", line)?;
    h.mode = opt_named(obj, "mode", line)?;
    h.time_control = opt_str(obj, "time_control", line)?.map(str::to_owned);
    h.start_fen = opt_str(obj, "start_fen", line)?.map(str::to_owned);
    h.white = opt_str(obj, "white", line)?.map(str::to_owned);
    h.black = opt_str(obj, "black", line)?.map(str::to_owned);
    h.event = opt_str(obj, "event", line)?.map(str::to_owned);
    h.round = match obj.get("round") {
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => opt_str(obj, "round", line)?.map(str::to_owned),
    };
    h.language = opt_named(obj, "language", line)?;
    h.vi_player = match opt_str(obj, "vi_player", line)? {
        Some(s) => Some(parse_color(s, "vi_player", line)?),
        None => None,
    };
    h.site = opt_str(obj, "site", line)?.map(str::to_owned);
    h.supervision = opt_named(obj, "supervision", line)?;
    h.date = opt_str(obj, "date", line)?.map(str::to_owned);
    h.words = opt_named(obj, "words", line)?;
    Ok(h)
}

/// Parses one record object (not the header). `line` is 1-based, for errors.
pub fn parse_record(obj: &Map<String, Value>, line: usize) -> Result<Record, TraceError> {
    let t = match obj.get("t") {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(t) if t <= MAX_TRACE_MS => t,
            Some(_) => {
                return err(
                    line,
                    format!(
                    "key 't': {n} ms is past the latest trace time ({MAX_TRACE_MS} ms, 30 days)"
                ),
                )
            }
            None => {
                return err(
                    line,
                    format!("key 't': expected milliseconds as a non-negative integer, found {n}"),
                )
            }
        },
        Some(other) => {
            return err(
                line,
                format!("key 't': expected milliseconds as a number, found {other}"),
            )
        }
        None => {
            return err(
                line,
                "missing key 't' (milliseconds since the start of the trace)",
            )
        }
    };
    let (board, kind) = parse_kind(obj, line)?;
    Ok(Record { t, board, kind })
}

/// A record's content without its time (`{"arbiter": "result", "result":
/// "1-0"}`): the one parser of every record kind, used by the trace reader,
/// the journal and the arbiter API. The error names the key and what is
/// allowed.
pub fn parse_record_kind(obj: &Map<String, Value>) -> Result<(BoardId, RecordKind), String> {
    parse_kind(obj, 0).map_err(|e| e.message)
}

fn parse_kind(obj: &Map<String, Value>, line: usize) -> Result<(BoardId, RecordKind), TraceError> {
    let mut kinds = RECORD_KINDS.iter().filter(|k| obj.contains_key(**k));
    let kind = match (kinds.next(), kinds.next()) {
        (Some(k), None) => *k,
        (Some(a), Some(b)) => {
            return err(line, format!("record has two kinds, '{a}' and '{b}'"));
        }
        (None, _) => {
            let keys: Vec<&str> = obj
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "t")
                .collect();
            return err(
                line,
                format!(
                    "unknown record kind (keys: {}); expected one of {}",
                    if keys.is_empty() {
                        "none".to_owned()
                    } else {
                        keys.join(", ")
                    },
                    RECORD_KINDS.join(", ")
                ),
            );
        }
    };
    let board = opt_named(obj, "board", line)?.unwrap_or_default();
    let by =
        |line| -> Result<Color, TraceError> { parse_color(get_str(obj, "by", line)?, "by", line) };
    let kind = match kind {
        "lift" => RecordKind::Lift(parse_square(get_str(obj, "lift", line)?, "lift", line)?),
        "place" => {
            let square = parse_square(get_str(obj, "place", line)?, "place", line)?;
            let piece = match opt_str(obj, "piece", line)? {
                Some(p) => {
                    let mut chars = p.chars();
                    match (chars.next().and_then(Piece::from_char), chars.next()) {
                        (Some(piece), None) => Some(piece),
                        _ => {
                            return err(
                                line,
                                format!(
                                "key 'piece': \"{p}\" is not a FEN piece letter (PNBRQK pnbrqk)"
                            ),
                            )
                        }
                    }
                }
                None => None,
            };
            let color = match opt_str(obj, "color", line)?.or(opt_str(obj, "colour", line)?) {
                Some(c) => Some(parse_color(c, "color", line)?),
                None => piece.map(|p| p.color),
            };
            if let (Some(c), Some(p)) = (color, piece) {
                if c != p.color {
                    return err(
                        line,
                        format!(
                            "keys 'color' and 'piece' disagree ({} vs {})",
                            color_str(c),
                            p.char()
                        ),
                    );
                }
            }
            RecordKind::Place {
                square,
                color,
                piece,
            }
        }
        "frame" => {
            let s = get_str(obj, "frame", line)?;
            if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
                return err(
                    line,
                    format!("key 'frame': expected 16 hex digits, found \"{s}\""),
                );
            }
            RecordKind::Frame(u64::from_str_radix(s, 16).map_err(|e| TraceError {
                line,
                message: format!("key 'frame': {e}"),
            })?)
        }
        "press" => RecordKind::Press(parse_color(get_str(obj, "press", line)?, "press", line)?),
        "promote" => {
            let s = get_str(obj, "promote", line)?;
            let role = match s.to_ascii_lowercase().as_str() {
                "q" => Role::Queen,
                "r" => Role::Rook,
                "b" => Role::Bishop,
                "n" => Role::Knight,
                _ => {
                    return err(
                        line,
                        format!("key 'promote': \"{s}\" is not one of q, r, b, n"),
                    )
                }
            };
            RecordKind::Promote(role)
        }
        "claim" => {
            let kind = get_named(obj, "claim", line)?;
            RecordKind::Claim {
                kind,
                by: by(line)?,
            }
        }
        "offer" | "accept" | "decline" => {
            let s = get_str(obj, kind, line)?;
            if s != "draw" {
                return err(line, format!("key '{kind}': \"{s}\" is not \"draw\""));
            }
            let by = by(line)?;
            match kind {
                "offer" => RecordKind::Offer(by),
                "accept" => RecordKind::Accept(by),
                _ => RecordKind::Decline(by),
            }
        }
        "resign" => RecordKind::Resign(parse_color(get_str(obj, "resign", line)?, "resign", line)?),
        "adjust" => RecordKind::Adjust(parse_color(get_str(obj, "adjust", line)?, "adjust", line)?),
        "query" => {
            let what = get_named(obj, "query", line)?;
            let piece = match opt_str(obj, "piece", line)? {
                Some(p) => Some(
                    p.chars()
                        .next()
                        .filter(|_| p.chars().count() == 1)
                        .and_then(Piece::from_char)
                        .ok_or_else(|| TraceError {
                            line,
                            message: format!("key 'piece': \"{p}\" is not a FEN piece letter"),
                        })?,
                ),
                None if what == QueryKind::Piece => {
                    return err(
                        line,
                        "key 'piece': a piece query names the piece (FEN letter)",
                    )
                }
                None => None,
            };
            RecordKind::Query {
                what,
                by: by(line)?,
                piece,
                author: opt_str(obj, "author", line)?.map(str::to_owned),
            }
        }
        "spoken" => RecordKind::Spoken {
            n: obj.get("spoken").and_then(Value::as_u64).ok_or_else(|| TraceError {
                line,
                message: "key 'spoken': expected the announcement's number n (a non-negative integer)"
                    .to_owned(),
            })?,
            by: match obj.get("by") {
                None => None,
                Some(_) => Some(by(line)?),
            },
        },
        "arbiter" => {
            let s = get_str(obj, "arbiter", line)?;
            let ms = |key: &str| -> Result<u64, TraceError> {
                let v = obj.get(key).ok_or_else(|| TraceError {
                    line,
                    message: format!("missing key '{key}' (milliseconds)"),
                })?;
                match v.as_u64() {
                    Some(ms) if ms <= MAX_CLOCK_MS => Ok(ms),
                    Some(_) => err(
                        line,
                        format!("key '{key}': {v} ms is more than a clock can be set to ({MAX_CLOCK_MS} ms, 24 h)"),
                    ),
                    None => err(
                        line,
                        format!("key '{key}': expected milliseconds (a non-negative integer), found {v}"),
                    ),
                }
            };
            let action = match s {
                "restore" => ArbiterAction::Restore,
                "accept" => ArbiterAction::Accept,
                "overrule" => ArbiterAction::Overrule,
                "result" => {
                    let r = get_str(obj, "result", line)?;
                    ArbiterAction::SetResult(parse_result(r).map_err(|e| TraceError {
                        line,
                        message: format!("key 'result': {e}"),
                    })?)
                }
                "clock" => ArbiterAction::SetClock {
                    white_ms: ms("white_ms")?,
                    black_ms: ms("black_ms")?,
                    moves: match obj.get("moves") {
                        None | Some(Value::Null) => None,
                        Some(v) => Some(v.as_u64().and_then(|n| u32::try_from(n).ok()).filter(|n| *n <= crate::clock::MAX_PERIOD_MOVES).ok_or_else(|| TraceError {
                            line,
                            message: format!("key 'moves': expected the moves White has completed (0 to {}), found {v}", crate::clock::MAX_PERIOD_MOVES),
                        })?),
                    },
                },
                "position" => {
                    let fen = get_str(obj, "fen", line)?;
                    if fen.parse::<shakmaty::fen::Fen>().is_err() {
                        return err(line, format!("key 'fen': \"{fen}\" is not a FEN"));
                    }
                    ArbiterAction::SetPosition(fen.to_owned())
                }
                "pause" => ArbiterAction::Pause,
                "resume" => ArbiterAction::Resume,
                "choose" => {
                    let uci = get_str(obj, "uci", line)?;
                    if uci.parse::<shakmaty::uci::UciMove>().is_err() {
                        return err(line, format!("key 'uci': \"{uci}\" is not a UCI move"));
                    }
                    ArbiterAction::Choose(uci.to_owned())
                }
                "confirm" => match opt_str(obj, "result", line)? {
                    Some("0-0" | "-/-") => ArbiterAction::Confirm(Some(Score::BothLost)),
                    Some(r) => ArbiterAction::Confirm(Some(Score::Game(parse_result(r).map_err(|e| {
                        TraceError {
                            line,
                            message: format!("key 'result': {e}"),
                        }
                    })?))),
                    None => ArbiterAction::Confirm(None),
                },
                "forfeit" => {
                    let r = get_str(obj, "result", line)?;
                    if r == "0-0" || r == "-/-" {
                        ArbiterAction::Forfeit(Forfeit::Double)
                    } else {
                        let result = parse_result(r).map_err(|e| TraceError {
                            line,
                            message: format!("key 'result': {e}"),
                        })?;
                        if result == KnownOutcome::Draw {
                            return err(
                                line,
                                "key 'result': a forfeit is won by one side (1-0 or 0-1), or lost by both (0-0)".to_owned(),
                            );
                        }
                        ArbiterAction::Forfeit(Forfeit::Won(result))
                    }
                }
                "undo" => {
                    let n = obj.get("ruling").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).filter(|n| *n >= 1);
                    ArbiterAction::Undo(n.ok_or_else(|| TraceError {
                        line,
                        message: "key 'ruling': expected the number (seq, from 1) of the ruling to undo".to_owned(),
                    })?)
                }
                "rewind" => {
                    let n = obj.get("ply").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
                    ArbiterAction::Rewind(n.ok_or_else(|| TraceError {
                        line,
                        message: "key 'ply': expected the ply (completed half-moves, from 0) to go back to".to_owned(),
                    })?)
                }
                _ => {
                    return err(
                        line,
                        format!(
                            "key 'arbiter': \"{s}\" is not one of {}",
                            ArbiterAction::NAMES.join(", ")
                        ),
                    )
                }
            };
            let author = opt_str(obj, "author", line)?.map(str::to_owned);
            let expect = match obj.get("expect") {
                None | Some(Value::Null) => None,
                Some(v) => Some(Expect::from_json(v).map_err(|message| TraceError { line, message })?),
            };
            let reason = match opt_str(obj, "reason", line)?.map(str::trim) {
                Some(r) if r.chars().count() > MAX_REASON_CHARS => {
                    return err(
                        line,
                        format!("key 'reason': {} characters; at most {MAX_REASON_CHARS}", r.chars().count()),
                    )
                }
                Some("") | None => None,
                Some(r) => Some(r.to_owned()),
            };
            RecordKind::Arbiter {
                action,
                author,
                expect,
                reason,
            }
        }
        other => return err(line, format!("unknown record kind '{other}'")),
    };
    Ok((board, kind))
}

/// One parsed line of a trace.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // the header comes once per trace
pub enum Line {
    /// The header (only as the first non-blank line).
    Header(Header),
    /// A record.
    Record(Record),
}

/// Reads a trace line by line, checking the contract: the header only first,
/// `t` non-decreasing. Blank lines are skipped.
#[derive(Debug)]
pub struct TraceReader<R> {
    input: R,
    line: usize,
    last_t: u64,
    seen_content: bool,
    buf: Vec<u8>,
    /// The rest of an overlong line is being skipped (up to its newline).
    skipping: bool,
}

/// The longest trace line read, bytes (without its newline): 64 KiB. The
/// longest real line is a header with long player and event names, well
/// under 2 KiB; a longer line is an error naming it, and only this much of
/// it is ever held in memory (an endless line without a newline, on
/// standard input or in a file, cannot exhaust the memory).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How one bounded line read ended.
enum LineRead {
    /// The end of the input.
    End,
    /// A whole line is in the buffer.
    Whole,
    /// The line is longer than the limit: the buffer holds its start.
    TooLong,
}

/// Reads the next line of `input` into `buf` (without the newline), keeping
/// at most `max` bytes; with `skip`, first discards the rest of a line
/// already reported too long.
fn read_line_bounded<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
    skip: &mut bool,
) -> std::io::Result<LineRead> {
    buf.clear();
    let mut any = false;
    loop {
        let (used, newline) = {
            let avail = match input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                *skip = false;
                return Ok(if any { LineRead::Whole } else { LineRead::End });
            }
            let end = avail.iter().position(|&b| b == b'\n');
            let take = end.unwrap_or(avail.len());
            if !*skip {
                any = true;
                let room = max.saturating_sub(buf.len());
                buf.extend_from_slice(&avail[..take.min(room)]);
                if take > room {
                    // Over the limit: report now, skip the rest later.
                    let used = if end.is_some() { take + 1 } else { take };
                    *skip = end.is_none();
                    input.consume(used);
                    return Ok(LineRead::TooLong);
                }
            }
            (end.map_or(take, |e| e + 1), end.is_some())
        };
        input.consume(used);
        if newline {
            if *skip {
                *skip = false;
                continue;
            }
            return Ok(LineRead::Whole);
        }
    }
}

impl<R: BufRead> TraceReader<R> {
    /// Wraps a buffered reader.
    pub fn new(input: R) -> Self {
        TraceReader {
            input,
            line: 0,
            last_t: 0,
            seen_content: false,
            buf: Vec::new(),
            skipping: false,
        }
    }

    /// The 1-based number of the last line read.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The next header or record; `None` at the end of input.
    ///
    /// Errors: malformed JSON, unknown record kind, bad values, a header
    /// after the first line, `t` going backwards, unreadable input — each
    /// naming the line.
    pub fn next_line(&mut self) -> Option<Result<Line, TraceError>> {
        loop {
            self.line += 1;
            match read_line_bounded(
                &mut self.input,
                &mut self.buf,
                MAX_LINE_BYTES,
                &mut self.skipping,
            ) {
                Ok(LineRead::End) => return None,
                Ok(LineRead::Whole) => {}
                Ok(LineRead::TooLong) => {
                    return Some(err(
                        self.line,
                        format!("longer than {MAX_LINE_BYTES} bytes: not a trace record"),
                    ))
                }
                Err(e) => return Some(err(self.line, format!("cannot read: {e}"))),
            }
            let buf = std::mem::take(&mut self.buf);
            let parsed = match std::str::from_utf8(&buf) {
                Err(e) => Some(err(self.line, format!("not UTF-8 text: {e}"))),
                Ok(text) => {
                    let trimmed = text.trim_start_matches('\u{feff}').trim();
                    (!trimmed.is_empty()).then(|| self.parse_text(trimmed))
                }
            };
            self.buf = buf;
            match parsed {
                Some(p) => return Some(p),
                None => continue,
            }
        }
    }

    fn parse_text(&mut self, text: &str) -> Result<Line, TraceError> {
        let line = self.line;
        if let Some(rec) = hot::parse(text) {
            self.seen_content = true;
            return self.in_order(rec);
        }
        let obj: Map<String, Value> = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(other) => return err(line, format!("expected a JSON object, found {other}")),
            Err(e) => return err(line, format!("malformed JSON: {e}")),
        };
        let first = !self.seen_content;
        self.seen_content = true;
        if obj.contains_key("trace") {
            if !first {
                return err(
                    line,
                    "a header (key 'trace') is only allowed on the first line",
                );
            }
            return parse_header(&obj, line).map(Line::Header);
        }
        let rec = parse_record(&obj, line)?;
        self.in_order(rec)
    }

    /// `rec` when its time is not before the previous record's.
    fn in_order(&mut self, rec: Record) -> Result<Line, TraceError> {
        let line = self.line;
        if rec.t < self.last_t {
            return err(
                line,
                format!(
                    "key 't': {} is earlier than the previous record's {}",
                    rec.t, self.last_t
                ),
            );
        }
        self.last_t = rec.t;
        Ok(Line::Record(rec))
    }
}

/// A whole trace in memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// The header, or the defaults when the trace has none.
    pub header: Header,
    /// The records in order.
    pub records: Vec<Record>,
}

impl Trace {
    /// Reads a whole trace. Errors name the line.
    pub fn read<R: BufRead>(input: R) -> Result<Trace, TraceError> {
        let mut reader = TraceReader::new(input);
        let mut trace = Trace {
            header: Header {
                version: 1,
                boards: vec![BoardId::Main],
                ..Header::default()
            },
            records: Vec::new(),
        };
        while let Some(line) = reader.next_line() {
            match line? {
                Line::Header(h) => trace.header = h,
                Line::Record(r) => trace.records.push(r),
            }
        }
        Ok(trace)
    }

    /// Parses a trace held in a string.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        Trace::read(text.as_bytes())
    }

    /// Writes the trace as JSON Lines (header first).
    pub fn write<W: std::io::Write>(&self, out: &mut W) -> std::io::Result<()> {
        writeln!(out, "{}", header_json(&self.header))?;
        for r in &self.records {
            writeln!(out, "{}", record_json(r))?;
        }
        Ok(())
    }

    /// Duration in ms: the time of the last record (0 when empty).
    pub fn duration_ms(&self) -> u64 {
        self.records.last().map_or(0, |r| r.t)
    }
}

/// The header as a JSON object (keys absent when unset).
pub fn header_json(h: &Header) -> Value {
    let mut m = Map::new();
    m.insert("trace".into(), Value::from(h.version.max(1)));
    m.insert("sensing".into(), Value::from(h.sensing.as_str()));
    m.insert(
        "boards".into(),
        Value::from(h.boards.iter().map(|b| b.as_str()).collect::<Vec<_>>()),
    );
    let opt: [(&str, Option<&str>); 13] = [
        ("rules", h.rules.map(Edition::as_str)),
        ("mode", h.mode.map(Mode::as_str)),
        ("time_control", h.time_control.as_deref()),
        ("start_fen", h.start_fen.as_deref()),
        ("white", h.white.as_deref()),
        ("black", h.black.as_deref()),
        ("event", h.event.as_deref()),
        ("site", h.site.as_deref()),
        ("supervision", h.supervision.map(Supervision::as_str)),
        ("date", h.date.as_deref()),
        ("round", h.round.as_deref()),
        ("language", h.language.map(Lang::as_str)),
        ("words", h.words.map(WordChoice::as_str)),
    ];
    for (k, v) in opt {
        if let Some(v) = v {
            m.insert(k.into(), Value::from(v));
        }
    }
    if let Some(c) = h.vi_player {
        m.insert("vi_player".into(), Value::from(color_str(c)));
    }
    Value::Object(m)
}

/// A record as the contract's JSON object.
pub fn record_json(r: &Record) -> Value {
    let mut m = Map::new();
    m.insert("t".into(), Value::from(r.t));
    let by = |m: &mut Map<String, Value>, c: Color| {
        m.insert("by".into(), Value::from(color_str(c)));
    };
    match &r.kind {
        RecordKind::Lift(sq) => {
            m.insert("lift".into(), Value::from(sq.to_string()));
        }
        RecordKind::Place {
            square,
            color,
            piece,
        } => {
            m.insert("place".into(), Value::from(square.to_string()));
            if let Some(p) = piece {
                m.insert("piece".into(), Value::from(p.char().to_string()));
            } else if let Some(c) = color {
                m.insert("color".into(), Value::from(color_str(*c)));
            }
        }
        RecordKind::Frame(bits) => {
            m.insert("frame".into(), Value::from(format!("{bits:016x}")));
        }
        RecordKind::Press(c) => {
            m.insert("press".into(), Value::from(color_str(*c)));
        }
        RecordKind::Promote(role) => {
            m.insert("promote".into(), Value::from(role.char().to_string()));
        }
        RecordKind::Claim { kind, by: c } => {
            m.insert("claim".into(), Value::from(kind.as_str()));
            by(&mut m, *c);
        }
        RecordKind::Offer(c) => {
            m.insert("offer".into(), Value::from("draw"));
            by(&mut m, *c);
        }
        RecordKind::Accept(c) => {
            m.insert("accept".into(), Value::from("draw"));
            by(&mut m, *c);
        }
        RecordKind::Decline(c) => {
            m.insert("decline".into(), Value::from("draw"));
            by(&mut m, *c);
        }
        RecordKind::Resign(c) => {
            m.insert("resign".into(), Value::from(color_str(*c)));
        }
        RecordKind::Adjust(c) => {
            m.insert("adjust".into(), Value::from(color_str(*c)));
        }
        RecordKind::Query {
            what,
            by: c,
            piece,
            author,
        } => {
            m.insert("query".into(), Value::from(what.as_str()));
            by(&mut m, *c);
            if let Some(p) = piece {
                m.insert("piece".into(), Value::from(p.char().to_string()));
            }
            if let Some(a) = author {
                m.insert("author".into(), Value::from(a.as_str()));
            }
        }
        RecordKind::Spoken { n, by: who } => {
            m.insert("spoken".into(), Value::from(*n));
            if let Some(c) = who {
                by(&mut m, *c);
            }
        }
        RecordKind::Arbiter {
            action,
            author,
            expect,
            reason,
        } => {
            m.insert("arbiter".into(), Value::from(action.as_str()));
            if let Some(r) = reason {
                m.insert("reason".into(), Value::from(r.as_str()));
            }
            match action {
                ArbiterAction::SetResult(r) => {
                    m.insert("result".into(), Value::from(r.as_str()));
                }
                ArbiterAction::Confirm(Some(r)) => {
                    m.insert("result".into(), Value::from(r.as_str()));
                }
                ArbiterAction::Forfeit(f) => {
                    m.insert("result".into(), Value::from(f.as_str()));
                }
                ArbiterAction::Undo(n) => {
                    m.insert("ruling".into(), Value::from(*n));
                }
                ArbiterAction::Rewind(p) => {
                    m.insert("ply".into(), Value::from(*p));
                }
                ArbiterAction::SetClock {
                    white_ms,
                    black_ms,
                    moves,
                } => {
                    m.insert("white_ms".into(), Value::from(*white_ms));
                    m.insert("black_ms".into(), Value::from(*black_ms));
                    if let Some(n) = moves {
                        m.insert("moves".into(), Value::from(*n));
                    }
                }
                ArbiterAction::SetPosition(fen) => {
                    m.insert("fen".into(), Value::from(fen.as_str()));
                }
                ArbiterAction::Choose(uci) => {
                    m.insert("uci".into(), Value::from(uci.as_str()));
                }
                _ => {}
            }
            if let Some(e) = expect {
                m.insert("expect".into(), e.to_json());
            }
            if let Some(a) = author {
                m.insert("author".into(), Value::from(a.as_str()));
            }
        }
    }
    if r.board != BoardId::Main {
        m.insert("board".into(), Value::from(r.board.as_str()));
    }
    Value::Object(m)
}

/// One candidate of an `ambiguous_move` alert.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveChoice {
    /// UCI (castling as king to its destination).
    pub uci: String,
    /// SAN with check or mate suffix.
    pub san: String,
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
        /// The move played (UCI).
        played: String,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_contract_example() {
        let text = r#"{"trace": 1, "time_control": "5400+30"}
{"t": 1000, "lift": "e2"}
{"t": 1400, "place": "e4"}
{"t": 1405, "lift": "e4"}
{"t": 1410, "place": "e4"}
{"t": 1900, "press": "w"}
"#;
        let tr = Trace::parse(text).unwrap();
        assert_eq!(tr.header.time_control.as_deref(), Some("5400+30"));
        assert_eq!(tr.records.len(), 5);
        assert_eq!(tr.records[0].kind, RecordKind::Lift(Square::E2));
        assert_eq!(tr.records[4].kind, RecordKind::Press(Color::White));
    }

    #[test]
    fn every_record_kind_round_trips() {
        let text = r#"{"t":1,"lift":"a1","board":"tactile"}
{"t":2,"place":"e4","color":"w"}
{"t":3,"place":"e8","piece":"q"}
{"t":4,"frame":"000000000000ffff"}
{"t":5,"press":"b"}
{"t":6,"promote":"n"}
{"t":7,"claim":"threefold","by":"w"}
{"t":8,"offer":"draw","by":"w"}
{"t":9,"accept":"draw","by":"b"}
{"t":10,"decline":"draw","by":"b"}
{"t":11,"resign":"b"}
{"t":12,"adjust":"w"}
{"t":13,"arbiter":"restore"}
{"t":14,"arbiter":"clock","white_ms":60000,"black_ms":120000,"author":"IA Hansen"}
{"t":15,"arbiter":"result","result":"1/2-1/2"}
{"t":16,"arbiter":"position","fen":"8/8/8/8/8/8/8/K6k w - - 0 1"}
{"t":17,"arbiter":"pause"}
{"t":18,"query":"piece","by":"b","piece":"N"}
"#;
        let tr = Trace::parse(text).unwrap();
        assert_eq!(tr.records.len(), 18);
        let mut out = Vec::new();
        tr.write(&mut out).unwrap();
        let again = Trace::parse(std::str::from_utf8(&out).unwrap()).unwrap();
        assert_eq!(again.records, tr.records);
        assert_eq!(
            tr.records[2].kind,
            RecordKind::Place {
                square: Square::E8,
                color: Some(Color::Black),
                piece: Some(Piece::from_char('q').unwrap())
            }
        );
        assert_eq!(tr.records[0].board, BoardId::Tactile);
        assert_eq!(tr.records[3].kind, RecordKind::Frame(0xffff));
    }

    #[test]
    fn an_endless_line_is_an_error_naming_it_and_memory_stays_bounded() {
        // 20 MB without a newline (an endless line on stdin), then a good
        // record: line 1 is refused as soon as it passes the limit, the
        // record after it is read as line 2, and the reader never holds
        // more than the limit.
        let endless = std::io::Read::take(std::io::repeat(b'x'), 20_000_000);
        let rest = std::io::Read::chain(endless, &b"\n{\"t\":5,\"lift\":\"e2\"}\n"[..]);
        let mut r = TraceReader::new(std::io::BufReader::new(rest));
        let e = r.next_line().unwrap().unwrap_err();
        assert_eq!(e.line, 1, "{e}");
        assert!(e.message.contains("longer than 65536 bytes"), "{e}");
        assert!(
            r.buf.capacity() <= 2 * MAX_LINE_BYTES,
            "{}",
            r.buf.capacity()
        );
        match r.next_line() {
            Some(Ok(Line::Record(rec))) => assert_eq!((rec.t, r.line()), (5, 2)),
            other => panic!("{other:?}"),
        }
        assert!(r.next_line().is_none());
        // A line just at the limit is read (as what it is: bad JSON here).
        let text = format!("{}\n", " ".repeat(MAX_LINE_BYTES - 2) + "{}");
        let e = TraceReader::new(text.as_bytes())
            .next_line()
            .unwrap()
            .unwrap_err();
        assert!(e.message.contains("missing key 't'"), "{e}");
        // Bytes that are not UTF-8 name the line.
        let e = TraceReader::new(&b"{\"t\":1}\n\xff\xfe\n"[..]).next_line();
        assert!(e.is_some());
        let mut r = TraceReader::new(&b"\n\xff\xfe\n"[..]);
        let e = r.next_line().unwrap().unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("not UTF-8"), "{e}");
    }

    #[test]
    fn errors_name_the_line_and_key() {
        let cases = [
            ("{\"t\":1,\"jump\":\"e2\"}", 1, "unknown record kind"),
            (
                "{\"t\":1,\"lift\":\"e2\"}\n{\"t\":0,\"lift\":\"e4\"}",
                2,
                "earlier",
            ),
            ("{\"t\":1,\"lift\":\"e9\"}", 1, "'lift'"),
            ("{\"lift\":\"e2\"}", 1, "missing key 't'"),
            (
                "{\"t\":1,\"lift\":\"e2\"}\n\n{\"t\":1,\"press\":\"x\"}",
                3,
                "'press'",
            ),
            ("{\"t\":1,\"frame\":\"ffff\"}", 1, "16 hex digits"),
            ("{\"t\":1, \"lift\": ", 1, "malformed JSON"),
            ("{\"t\":1,\"lift\":\"e2\"}\n{\"trace\":1}", 2, "header"),
            ("{\"trace\":1,\"sensing\":\"sonar\"}", 1, "'sensing'"),
            ("{\"t\":1,\"claim\":\"ugly\",\"by\":\"w\"}", 1, "'claim'"),
            ("{\"t\":1,\"lift\":\"e2\",\"place\":\"e4\"}", 1, "two kinds"),
            (
                "{\"t\":1,\"arbiter\":\"clock\",\"white_ms\":5}",
                1,
                "'black_ms'",
            ),
            (
                "{\"t\":1,\"arbiter\":\"clock\",\"white_ms\":9223372036854775808,\"black_ms\":5}",
                1,
                "key 'white_ms': 9223372036854775808 ms is more than a clock",
            ),
            (
                "{\"t\":18446744073709551615,\"lift\":\"e2\"}",
                1,
                "key 't': 18446744073709551615 ms is past the latest",
            ),
            (
                "{\"t\":1,\"arbiter\":\"result\",\"result\":\"2-0\"}",
                1,
                "'result'",
            ),
            ("{\"t\":-5,\"lift\":\"e2\"}", 1, "'t'"),
        ];
        for (text, line, needle) in cases {
            let e = Trace::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.to_string().contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let tr = Trace::parse("{\"t\":1,\"lift\":\"e2\",\"sensor_id\":17,\"note\":\"x\"}").unwrap();
        assert_eq!(tr.records[0].kind, RecordKind::Lift(Square::E2));
    }

    #[test]
    fn events_serialise_with_type_after_t() {
        let e = Event {
            t: 1900,
            kind: EventKind::Clock {
                white_ms: 5_428_100,
                black_ms: 5_400_000,
            },
        };
        assert_eq!(
            e.to_json(),
            r#"{"t":1900,"type":"clock","white_ms":5428100,"black_ms":5400000}"#
        );
    }
}
