//! The game's vocabulary as types, shared by every layer.
//!
//! Length: every enum of the vocabulary with its names, parsing and serde
//! in one place, one error form for all.
//!
//! Each value that crosses a module boundary — a result, why a game ended, an
//! irregularity, a claim, a penalty, a language, a mode, a rule profile —
//! is an enum here with its contract name (`as_str`, [`FromStr`],
//! [`Display`], serde by name), so that the trace codec, the config, the
//! arbiter API and the outputs parse and print it in one place. Names are the
//! ones of `../shared/spec/trace-format.md` and `docs/trace-extensions.md`.
//!
//! Results are shakmaty's [`KnownOutcome`] (`1-0`, `0-1`, `1/2-1/2`), with
//! [`serde_result`] to write them by name; a game's recorded result is a
//! [`Score`], which adds both players' loss (`0-0`, a double forfeit).
//!
//! This module depends on nothing of the product; everything else may
//! depend on it. It is the bottom of docs/dev/architecture.md's map: it
//! must not depend on `trace`, `config`, `arbiter` or any other module.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
pub use shakmaty::KnownOutcome;
use std::fmt::{self, Display};
use std::str::FromStr;

/// A value that is not one of the names a key allows: what was given and
/// what is allowed. Displays as `"x" is not one of a, b, c`, the form every
/// error of the config, the trace codec and the API uses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{given}\" is not one of {allowed}")]
pub struct UnknownName {
    /// The text given.
    pub given: String,
    /// The allowed names, comma-separated.
    pub allowed: String,
}

impl UnknownName {
    fn new(given: &str, names: &[&str]) -> UnknownName {
        UnknownName {
            given: given.to_owned(),
            allowed: names.join(", "),
        }
    }
}

/// Defines an enum of named values: `ALL`, `NAMES`, `as_str`, `FromStr`
/// (with aliases), `Display` and serde by name.
macro_rules! named {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $text:literal $(| $alias:literal)*
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The names, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The contract's name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The names, comma-separated (for error messages).
            pub fn names() -> String {
                $name::NAMES.join(", ")
            }
        }

        impl FromStr for $name {
            type Err = UnknownName;
            fn from_str(s: &str) -> Result<$name, UnknownName> {
                match s {
                    $($text $(| $alias)* => Ok($name::$variant),)+
                    _ => Err(UnknownName::new(s, $name::NAMES)),
                }
            }
        }

        impl Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

named! {
    /// Which sensed board a record comes from (the contract's `"board"` key).
    #[derive(Default)]
    pub enum BoardId {
        /// The instrumented board of the sighted player (default).
        #[default]
        Main = "main",
        /// The tactile peg board of a visually impaired player (2009 Appendix E).
        Tactile = "tactile",
    }
}

named! {
    /// When White's clock first runs (§6.5 / 2023 6.5: "at the time
    /// determined for the start of the game White's clock is started").
    /// Config key `clock.start_at`.
    #[derive(Default)]
    pub enum ClockStartAt {
        /// At round time 0: a trace's `t = 0` is the start of the game (the
        /// trace contract), the daemon's start for a recording or stdin.
        #[default]
        RoundStart = "round_start",
        /// When the game is started: the arbiter resumes the clocks, or the
        /// player not on move presses his clock before the first move (at the
        /// arbiter's word, starting his opponent's), or the first move is
        /// completed (White's clock then starts at his press). The set-up
        /// before costs no one time. The default for a board on its sensors.
        ArbiterOrPress = "arbiter_or_press",
    }
}

named! {
    /// What the board's sensors can tell about a square (header key `sensing`).
    #[derive(Default)]
    pub enum Sensing {
        /// A square is empty or occupied (Hall switches, reed switches).
        #[default]
        Occupancy = "occupancy",
        /// Linear Hall sensors: empty, a white piece or a black piece (magnet
        /// polarity). `color` is accepted as a spelling.
        Colour = "colour" | "color",
        /// The board knows each piece (RFID or coded magnets).
        Identity = "identity",
    }
}

named! {
    /// The playing mode (rapid: 2009 App. A, 2001 App. B; blitz: 2009 App. B,
    /// 2001 App. C).
    #[derive(Default)]
    pub enum Mode {
        /// Standard play (the Laws proper).
        #[default]
        Standard = "standard",
        /// Rapid play.
        Rapid = "rapid",
        /// Blitz.
        Blitz = "blitz",
    }
}

named! {
    /// How closely the arbiter supervises a rapid or blitz game (2009 A3/A4,
    /// B2/B3; 2023 A.4/A.5, B.2/B.3). Standard play is always adequately
    /// supervised.
    #[derive(Default)]
    pub enum Supervision {
        /// One arbiter for at most three games (rapid), one per game (blitz):
        /// the Competition Rules apply.
        Adequate = "adequate",
        /// Otherwise (the usual club or open event).
        #[default]
        Inadequate = "inadequate",
    }
}

named! {
    /// The editions of the Laws the product supports: the rule profile names.
    #[derive(Default)]
    pub enum Edition {
        /// FIDE Laws as adopted in Denmark 2001 (seed 000).
        Fide2001 = "fide-2001",
        /// FIDE Laws 2009, Danish text (seeds 001/002).
        Fide2009 = "fide-2009",
        /// FIDE Laws 2009, Norwegian text (seed 003).
        Fide2009No = "fide-2009-no",
        /// FIDE Laws in force since 1 January 2023 (the default for new events).
        #[default]
        Fide2023 = "fide-2023",
    }
}

named! {
    /// The event's regulations besides the Laws (`[event] regulations`,
    /// issue 43 §4): they hold whatever the Laws' edition.
    pub enum Regulations {
        /// DSU's "Reglement for DM og koordinerede turneringer" (seed 004):
        /// §11, a player arriving "senere end 15 minutter efter rundens
        /// annoncerede starttidspunkt" loses the game (the default time is
        /// 15 minutes); §15, the winner, at a draw White, reports the result
        /// to the arbiter at once (results stay provisional until the
        /// arbiter confirms them).
        Dsu004 = "dsu-004",
    }
}

impl Regulations {
    /// The default time the regulations set, ms after the round's
    /// announced start, and their paragraph.
    pub fn default_time(self) -> (u64, &'static str) {
        match self {
            Regulations::Dsu004 => (15 * 60_000, "DSU 004 §11"),
        }
    }
}

impl Edition {
    /// The profile name (same as [`Edition::as_str`]).
    pub const fn name(self) -> &'static str {
        self.as_str()
    }
}

named! {
    /// Which words a game's announcements take for the ranks, the pieces
    /// and castling (E2.1). Norwegian E2.1's last sentence (seed 003):
    /// "Mellom skandinaviske spillere brukes i stedet skandinaviske ord og
    /// uttrykk"; the Danish text lists Danish words with German in brackets.
    #[derive(Default)]
    pub enum WordChoice {
        /// The profile's and language's default (Danish: Danish words;
        /// Norwegian, German, English: the German words of E2.1).
        #[default]
        Appendix = "appendix",
        /// The language's own words (a Norwegian game between Scandinavian
        /// players: Scandinavian words, en … åtte, konge …, kort rokade).
        National = "national" | "scandinavian",
        /// The German words (eins … acht, König …, Kurze / Lange Rochade).
        German = "german",
    }
}

named! {
    /// An announcement language (Appendix E2.1). `no` (Norwegian) is accepted
    /// as a spelling of `nb` everywhere: trace header, config and command line.
    pub enum Lang {
        /// Danish (seed 002, E2.1: the Danish list).
        Da = "da",
        /// Norwegian Bokmål (seed 003, E2.1: the Norwegian list).
        Nb = "nb" | "no",
        /// German (the FIDE list: Anna … Hector, eins … acht, König …).
        De = "de",
        /// English (the FIDE list with English connecting words).
        En = "en",
    }
}

impl Lang {
    /// The code (`da`, `nb`, `de`, `en`), as in the `announce` event.
    pub const fn code(self) -> &'static str {
        self.as_str()
    }
}

named! {
    /// The kinds of claim a player can make (contract record `claim`, event
    /// `claim`; `threefold` and `fifty_moves` also in `draw_claimable`).
    pub enum ClaimKind {
        /// §4.7 (2009) / §4.6 (2001) / 4.8 (2023): the opponent broke touch-move.
        TouchMove = "touch_move",
        /// §7.4 / A4c / B3c: the opponent completed an illegal move.
        IllegalMove = "illegal_move",
        /// §9.2: threefold repetition.
        Threefold = "threefold",
        /// §9.3: fifty moves without capture or pawn move.
        FiftyMoves = "fifty_moves",
        /// §6.8 / A4d: the opponent's flag has fallen.
        Time = "time",
        /// §10.2: quickplay finish, no chance to win by normal means.
        InsufficientLosingChances = "insufficient_losing_chances",
    }
}

named! {
    /// What a player asks on demand (extension, Appendix E2.9d).
    pub enum QueryKind {
        /// The number of moves made, the time used and left on both clocks.
        Time = "time",
        /// The last move.
        LastMove = "last_move",
        /// Where a named piece stands.
        Piece = "piece",
        /// The whole position, both sides' pieces in diagram order (by piece).
        Position = "position",
        /// The whole position rank by rank, from the eighth to the first
        /// (issue 29: the order the player chooses).
        PositionByRank = "position_by_rank",
        /// The asker's own clock, alone (a short answer, issue 29).
        Clock = "clock",
        /// The opponent's clock, alone (a short answer, issue 29).
        OpponentClock = "opponent_clock",
        /// The number of the move being played (and whose move it is).
        MoveNumber = "move_number",
        /// Whose move it is (and the move number).
        Turn = "turn",
        /// The opponent's last draw offer, and whether it stands.
        DrawOffer = "draw_offer",
        /// The last announcement to the asker, again (issue 14: repeat-last).
        Repeat = "repeat",
    }
}

named! {
    /// Why the game ended (event `game_end`, key `reason`).
    pub enum EndReason {
        /// §5.1a: checkmate.
        Checkmate = "checkmate",
        /// §5.2a: stalemate.
        Stalemate = "stalemate",
        /// §5.2b: a dead position.
        DeadPosition = "dead_position",
        /// §5.1b: a player resigned.
        Resignation = "resignation",
        /// §5.2c / 9.1: draw by agreement.
        Agreement = "agreement",
        /// §6.9: a flag fell and the opponent can mate.
        Time = "time",
        /// §6.9: a flag fell, the opponent cannot mate by any legal sequence.
        TimeVsInsufficientMaterial = "time_vs_insufficient_material",
        /// §7.4b / 7.5.5: the second completed illegal move (or a blitz claim).
        IllegalMoves = "illegal_moves",
        /// §9.2: a correct threefold claim.
        Threefold = "threefold",
        /// §9.3: a correct fifty-move claim.
        FiftyMoves = "fifty_moves",
        /// 2023 9.6.1: the same position a fifth time.
        Fivefold = "fivefold",
        /// 2023 9.6.2: seventy-five moves without capture or pawn move.
        SeventyFiveMoves = "seventy_five_moves",
        /// Both flags fell and it cannot be told which first (2009 §6.9 / A4d).
        BothFlags = "both_flags",
        /// The arbiter declared the result.
        ArbiterDecision = "arbiter_decision",
        /// Extension: a game not played (a no-show), entered by the arbiter.
        Forfeit = "forfeit",
        /// §10.2: a quickplay-finish claim upheld.
        InsufficientLosingChances = "insufficient_losing_chances",
        /// Extension (issue 40.6): the arbiter declared the game lost for a
        /// rules infraction under its article (2023 11.3.2.2 a device,
        /// 11.5 / 11.7 / 12.9.6, 2009 §12.3b / §12.6 / §12.8 / §13.4d, 2001
        /// §12.5 / §12.7 / §13.4d); PGN `Termination "rules infraction"`.
        RulesInfraction = "rules_infraction",
    }
}

named! {
    /// An irregularity for the arbiter (event `irregularity`, key `kind`).
    pub enum IrregularityKind {
        /// §7.1a / 2023 7.2.1: the initial position was wrong.
        WrongInitialPosition = "wrong_initial_position",
        /// §7.1b / 2023 7.2.2: the board is placed wrongly.
        BoardOrientation = "board_orientation",
        /// §7.2 / 2023 7.3: the game started with colours reversed. The
        /// board cannot know who sits where, so it never raises this itself
        /// (a board set up turned 180° is [`IrregularityKind::BoardTurned`]);
        /// kept for the arbiter's vocabulary.
        ColoursReversed = "colours_reversed",
        /// §2.1: the board was set up turned 180° (White's pieces at the end
        /// its wiring gives Black). No rule of placement is broken; the
        /// squares are remapped and the game goes on; the arbiter is told
        /// what the board sees and decides (never 2023 7.3 by itself).
        BoardTurned = "board_turned",
        /// §7.3 / 7.5: pieces displaced.
        Displaced = "displaced",
        /// Appendix E2.7: the two boards differ.
        BoardsDiffer = "boards_differ",
        /// §6.7 / 6.2: the clock was pressed without a move.
        ClockPressedWithoutMove = "clock_pressed_without_move",
        /// E2.3: the clock was started before the move was announced.
        ClockStartedBeforeAnnouncement = "clock_started_before_announcement",
        /// E2.3: the visually impaired player moved a piece again after his
        /// move was announced (the arbiter decides).
        MovedAfterAnnouncement = "moved_after_announcement",
        /// E2.3 / E2.1: a pawn reached the last rank on the tactile board
        /// with no piece named or sensed; the move cannot be announced
        /// until the player names it (he is asked; a `promote` record or
        /// the piece sensed answers).
        PromotionPieceUnnamed = "promotion_piece_unnamed",
        /// §4.2: j'adoube declared by the player not on move.
        AdjustByPlayerNotOnMove = "adjust_by_player_not_on_move",
        /// The arbiter set a position the game cannot take.
        ArbiterPositionRejected = "arbiter_position_rejected",
        /// The daemon was down for a while (resumed from its journal).
        Downtime = "downtime",
        /// A player pressed his clock while the clocks were paused (by the
        /// arbiter, or by the daemon after a downtime it could not measure):
        /// shown to the arbiter, not applied; only the arbiter restarts the
        /// game (2009 §6.12c, 2001 §6.13c, 2023 6.11.3).
        PressDuringPause = "press_during_pause",
        /// 2023 5.2.3: a draw agreed before both players made a move is no
        /// agreement (the offer stands; the arbiter is shown it).
        AgreementBeforeAMoveEach = "agreement_before_a_move_each",
        /// A press after a move made and not pressed: the board shows the
        /// opponent's move too, but fits more than one series of moves
        /// (§6.7a / 2023 6.2.1). Nothing is applied; the arbiter is told.
        UnpressedMovesUnclear = "unpressed_moves_unclear",
        /// 2023 A.5.2 (rapid without adequate supervision; blitz through
        /// B.3): a completed illegal move the board does not rule. The
        /// arbiter may apply 7.5.5 or the opponent claim, "provided the
        /// opponent has not made his/her next move"; otherwise it stands.
        IllegalMoveUnclaimed = "illegal_move_unclaimed",
        /// E2.3 (2023 D.2.4, 2001 F2.3): the visually impaired player
        /// started the clock after a move whose announcement his own output
        /// failed to play (an `unheard` record): not his fault, so not a
        /// [`IrregularityKind::ClockStartedBeforeAnnouncement`]; the press
        /// stands and the arbiter announces the move himself.
        AnnouncementNotHeard = "announcement_not_heard",
        /// 2023 A.5.4 (rapid A.5, blitz B.3): an illegal position (both
        /// kings in check, a pawn on the furthest rank) still on the board
        /// once the move after the illegal move that stood is completed;
        /// the arbiter declares the draw ("he/she declares a draw"). The
        /// board declares it itself only as the arbiter's eye (`[event]
        /// board_observes_illegal_moves`). `squares`: the kings in check or
        /// the pawns on the furthest rank.
        IllegalPosition = "illegal_position",
    }
}

pub mod text;
mod values;
pub use values::*;

#[cfg(test)]
mod tests;
