//! The interface contract of `../shared/spec/trace-format.md`: sensor traces
//! in (JSON Lines), the event stream out.
//!
//! The contract's one codec, in one module: the records' types here, their
//! reading in `parse.rs` and `reader.rs`, their writing in `write.rs`, the
//! events in `event.rs`.
//!
//! A trace is an optional header line (it has the key `"trace"`) followed by
//! records, one JSON object a line, each with `t` in milliseconds since the
//! start of the trace (non-decreasing). Unknown fields are ignored; an
//! unknown record kind, a missing or decreasing `t`, or a malformed value is
//! an error naming the line (1-based) and the key.
//!
//! This module knows nothing of the Laws or of hardware: it only turns text
//! into [`Record`]s and [`Event`]s into text.
//!
//! Depends on `model` and `clock` (the header's time control), the modules
//! below it in docs/dev/architecture.md's map. It must not depend on
//! `rules`, `arbiter`, `journal`, `broadcast` or anything above them: every
//! layer reads and writes the contract through it.

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

pub mod alert_types;
mod event;
mod expect;
mod hot;
mod parse;
mod parse_clock;
mod parse_header;
use parse_header::parse_header;
mod penalty_ref;
mod reader;
#[cfg(test)]
mod tests;
mod write;
pub use event::*;
pub use expect::{EventRef, Expect, ANSWERABLE as ANSWERABLE_EVENTS, EXAMPLE as EXPECT_EXAMPLE};
pub use parse::*;
pub use reader::*;
pub use write::*;

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
    /// Extension: the event's default time, ms after the start of the
    /// session (2023 6.7.1, 2009 §6.6a, 2001 §6.7: a player arriving later
    /// loses by forfeit); absent: the profile's
    /// ([`crate::rules::DefaultTime::of`]). Key `default_time_ms`.
    pub default_time_ms: Option<u64>,
    /// Extension: the round's scheduled start, round ms (negative: before
    /// round time 0, the round's clock started after it): the default time
    /// counts from it (2023 6.6 / 6.7.1, DSU 004 §11 "the round's announced
    /// start"); absent: from when White's clock first runs. The daemon
    /// writes it from `[event] session_start` (RFC 3339) on its own wall
    /// clock, so a replay decides by the trace's times as the board did.
    /// Key `session_start_ms`.
    pub session_start_ms: Option<i64>,
    /// Extension: the event setting `board_observes_illegal_moves` (2023
    /// A.5.2 / B.3: the board rules a completed illegal move at the press
    /// as the arbiter observing it; absent or `false`: the Laws' default,
    /// it alerts the arbiter and waits for his intervention or the
    /// opponent's claim before the opponent's next move;
    /// [`crate::rules::Profile::with_board_observing`]).
    pub board_observes_illegal_moves: Option<bool>,
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
    /// Extension: a forfeit the arbiter decides before the event's default
    /// time has passed (the absent player withdrew, or sent word he will not
    /// come; 2023 6.7.1 leaves the default time to "the regulations of an
    /// event or the arbiter"): `{"arbiter": "forfeit", "result": "1-0",
    /// "before_default_time": true, "reason": "…"}`; the reason is
    /// required. A plain `forfeit` before the default time is refused.
    ForfeitBeforeDefaultTime(Forfeit),
    /// Extension: withdraw ruling number `seq` of the board's history, as a
    /// new ruling that reverses its effect (issue 24.5):
    /// `{"arbiter": "undo", "ruling": 3}`.
    Undo(u32),
    /// Extension: uphold a draw claim the board held for the arbiter
    /// (`claim_held`: it does not hold on the board, but a move written on
    /// the scoresheet could make it correct, 2009 §9.2a / §9.3a, 2023
    /// 9.2.1 / 9.3.1): the game is drawn without the move being made.
    /// `{"arbiter": "uphold", "move": "g1f3"}`: the written move (UCI or
    /// SAN), one that makes the claim correct; `None` when exactly one does.
    Uphold(Option<String>),
    /// Extension: reject a draw claim the board held (`claim_held`): the
    /// wrong claim's cost is applied (2009 §9.5b, 2001 §9.5b, 2023 9.5.3)
    /// and play goes on; `{"arbiter": "reject", "move": "e1e2"}` names
    /// the move written, which must then be made (the piece counts as
    /// touched, Article 4).
    Reject(Option<String>),
    /// Extension: Appendix E2.8 (2001 F2.8, 2023 D.2.9): the boards and the
    /// scoresheets differ; the game goes back to ply N (completed
    /// half-moves), the clocks to what they showed when it was completed:
    /// `{"arbiter": "rewind", "ply": 20}`.
    Rewind(u32),
    /// Extension: 2023 Guidelines III.4, the player having the move with
    /// less than two minutes asks for five seconds per move for both
    /// players, which is a draw offer: `{"arbiter": "increment", "by":
    /// "b"}` (the offer refused and the arbiter agreeing: from then on
    /// both clocks credit 5 s per move, the opponent gets two extra
    /// minutes); `"mode": "delay"` for a 5 s delay instead of the
    /// cumulative increment (U7: the text names no mode); `"offer":
    /// "accepted"`: the opponent accepted the offer, the game is drawn.
    Increment(IncrementRequest),
    /// Extension (issue 40.5): the clock was set with the wrong time
    /// control; the arbiter installs the right one (2023 6.10.2: "If the
    /// arbiter finds the clock setting wrong … the arbiter shall install
    /// the correct setting and adjust the times and move-counter, if
    /// necessary"; 2009 §6.10b, 2001 §6.14): `{"arbiter": "time_control",
    /// "control": "5400+30"}`, in the config's syntax
    /// ([`crate::clock::TimeControl::parse`]). From the next press on
    /// every press credits the new control's bonus; the moves completed
    /// stay counted, so the next period comes at the new control's move.
    /// `"from_move": N` (a move number not after the current one): the
    /// control counts from move N, each player credited now the increments
    /// the new control would have given his moves since; `"white_ms"` /
    /// `"black_ms"` (both): set the times in the same ruling instead.
    TimeControl {
        /// The right control, as the arbiter wrote it (validated).
        control: String,
        /// The move number it counts from (`None`: from the next press).
        from_move: Option<u32>,
        /// Both times set in the same ruling (White, Black), ms.
        times: Option<(u64, u64)>,
    },
    /// Extension (issue 40.4): who is charged the time the board was down
    /// (2023 7.1, 2009 §6.13, 2001 §6.14: the arbiter sets the clocks by
    /// his best judgement after an interruption; 2023 6.11, 2009 §6.12:
    /// the arbiter decides when the game restarts). Journaled by the
    /// daemon on its restart with the downtime `ms` (the clocks stopped;
    /// charged to nobody at the outage's start when the clock was the
    /// board's own, to the player on move at its end when the clock
    /// device ran through it); given by the arbiter without `ms`:
    /// `{"arbiter": "downtime", "charge": "mover"}` takes the last
    /// downtime off the clock of the player whose clock ran,
    /// `"nobody"` gives it back.
    Downtime {
        /// Whom the downtime is charged to.
        charge: DowntimeCharge,
        /// The downtime, ms (round time): only in the daemon's own record.
        ms: Option<u64>,
    },
    /// Extension (issue 40.6): the arbiter declares the result under an
    /// article of the profile's list (`Profile::declared_articles`: 2023
    /// 11.3.2.2 a phone, 11.5 / 11.7 / 12.9.6 misconduct, 6.7.1 default
    /// time, 7.5.5 illegal moves, 6.9 a flag, 5.1.2 resignation, 9.2.2 /
    /// 9.3.2 claims …) with his reason: `{"arbiter": "result", "result":
    /// "0-1", "article": "11.3.2.2", "reason": "…"}`. Confirmed by that
    /// act (no provisional result, DSU 004 §15). An article not in the
    /// profile's list is refused (422) with the list.
    DeclareResult {
        /// The result.
        result: KnownOutcome,
        /// The article, as the arbiter gave it.
        article: String,
    },
    /// Extension: withdraw a penalty the board gave for an illegal move
    /// (2023 7.5.5, 2009 §7.4b): the time given to the opponent and the
    /// offender's illegal-move count, or the game lost (or drawn) by it,
    /// which then goes on. `{"arbiter": "withdraw"}`: the illegal move the
    /// ruling's `expect.event` names, else the last penalty given;
    /// `"event": {"type": "illegal_move", "t": T}` names it, `"ruling":
    /// SEQ` names the ruling that gave it (an `accept`).
    Withdraw(PenaltyRef),
    /// Extension: an illegal move re-classified as a legal move beside
    /// pieces displaced (knocked over) and put back by the player (2023
    /// 7.4.1, 2009 §7.3): its penalty withdrawn, the legal move completed
    /// as at the press: `{"arbiter": "displaced"}` (the move the board
    /// read), `"uci": "c3d5"` names it; `"event"` as for `withdraw`.
    Displaced {
        /// The illegal move re-classified.
        penalty: PenaltyRef,
        /// The legal move played (UCI); `None`: the board's reading.
        uci: Option<String>,
    },
}

/// Whom a downtime is charged to ([`ArbiterAction::Downtime`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DowntimeCharge {
    /// The player whose clock was running when the board went down.
    Mover,
    /// Nobody: the clocks show what they showed when it went down.
    Nobody,
}

impl DowntimeCharge {
    /// `mover` or `nobody`.
    pub fn as_str(self) -> &'static str {
        match self {
            DowntimeCharge::Mover => "mover",
            DowntimeCharge::Nobody => "nobody",
        }
    }
}

/// Which penalty a `withdraw` or `displaced` ruling concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PenaltyRef {
    /// The illegal move the ruling's `expect.event` names, else the last
    /// penalty given and not withdrawn.
    #[default]
    Answered,
    /// The `illegal_move` event at this round time, ms.
    Event(u64),
    /// The penalty given by this ruling (its seq).
    Ruling(u32),
    /// Extension (issue 40 §2): the game end the board declared alone
    /// (checkmate, stalemate, a dead position, a flag, 2023 9.6), withdrawn:
    /// `"event": {"type": "game_end", "t": T}` and/or, for a flag, both
    /// `"white_ms"` and `"black_ms"`: the clocks the game goes on with.
    End {
        /// The `game_end` event's round time, ms, when named.
        t: Option<u64>,
        /// The clocks (White, Black) the game goes on with, ms.
        times: Option<(u64, u64)>,
    },
}

/// The 2023 Guidelines III.4 request as the arbiter rules it
/// ([`ArbiterAction::Increment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IncrementRequest {
    /// The player who asked (he has the move).
    pub by: Color,
    /// A 5 s (US) delay instead of the cumulative increment.
    pub delay: bool,
    /// The opponent accepted the draw offer the request is.
    pub accepted: bool,
}

/// The longest `reason` an `arbiter` record takes, in characters.
pub const MAX_REASON_CHARS: usize = 500;

/// The longest `article` a declared result takes (`arbiter: result`), in characters.
pub const MAX_ARTICLE_CHARS: usize = 24;

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
    pub const NAMES: [&'static str; 20] = [
        "restore",
        "accept",
        "overrule",
        "result",
        "clock",
        "position",
        "pause",
        "resume",
        "choose",
        "confirm",
        "forfeit",
        "undo",
        "rewind",
        "uphold",
        "reject",
        "increment",
        "time_control",
        "downtime",
        "withdraw",
        "displaced",
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
            ArbiterAction::Forfeit(_) | ArbiterAction::ForfeitBeforeDefaultTime(_) => "forfeit",
            ArbiterAction::Undo(_) => "undo",
            ArbiterAction::Rewind(_) => "rewind",
            ArbiterAction::Uphold(_) => "uphold",
            ArbiterAction::Reject(_) => "reject",
            ArbiterAction::Increment(_) => "increment",
            ArbiterAction::TimeControl { .. } => "time_control",
            ArbiterAction::Downtime { .. } => "downtime",
            ArbiterAction::DeclareResult { .. } => "result",
            ArbiterAction::Withdraw(_) => "withdraw",
            ArbiterAction::Displaced { .. } => "displaced",
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
        /// Extension (`docs/trace-extensions.md`): the move the claimant
        /// wrote on his scoresheet and declared he intends to make, not
        /// made on the board (2009/2001 §9.2a, §9.3a; 2023 9.2.1, 9.3.1),
        /// UCI or SAN as given (key `move`); only for `threefold` and
        /// `fifty_moves`. `None`: the claim is on the position as it stands.
        intended: Option<String>,
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
    /// Extension (E2.3; 2023 D.2.4, 2001 F2.3): the announcement numbered
    /// `n` could not be played on the output of the player `by` (the
    /// device refused it, the speech program failed): `{"t": …, "unheard":
    /// n, "by": "b"}`. Written by the daemon's speaker when an output
    /// fails, beside its `speech_alert`, so that the press of a visually
    /// impaired player whose own announcement never reached him is not
    /// taken for a clock started before the announcement; a replay of the
    /// journal decides alike.
    Unheard {
        /// The announcement's number (`announce.n`, from 1).
        n: u64,
        /// Whose output failed to play it.
        by: Color,
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
pub const RECORD_KINDS: [&str; 15] = [
    "lift", "place", "frame", "press", "promote", "claim", "offer", "accept", "decline", "resign",
    "adjust", "arbiter", "query", "spoken", "unheard",
];

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, TraceError> {
    Err(TraceError {
        line,
        message: message.into(),
    })
}
