//! The game's settings ([`GameConfig`]): the rule profile, the time control,
//! the start position and the timing windows, from the trace header or the
//! daemon's config.

use crate::board::DEFAULT_BOUNCE_MS;
use crate::clock::TimeControl;
use crate::model::{ClockStartAt, Lang};
use crate::rules::{Edition, Mode, Profile, Supervision};
use crate::trace::{Header, Sensing};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

/// How long the board must stay unchanged before a move that ends the game
/// (mate, stalemate, dead position) counts as made without a clock press, ms.
/// Longer than a piece set down on the way and lifted again.
pub const DEFAULT_SETTLE_MS: u64 = 2_000;

/// The game's settings, from the trace header or the daemon's config.
#[derive(Debug, Clone)]
pub struct GameConfig {
    /// The rule profile (edition × mode).
    pub profile: Profile,
    /// What the main board senses.
    pub sensing: Sensing,
    /// The time control; `None`: no clock runs.
    pub time_control: Option<TimeControl>,
    /// The start position.
    pub start: Chess,
    /// The header (player names, event, round, ...), for the record.
    pub header: Header,
    /// Settle time for a game-ending move made without a press, ms.
    pub settle_ms: u64,
    /// Sensor bounce window, ms.
    pub bounce_ms: u64,
    /// Lifts closer than this count as simultaneous (§4.3c, §4.4c), ms.
    pub touch_window_ms: u64,
    /// A piece standing this long on a square counts as released there
    /// (§4.6 / 4.7; the hand is not sensed), ms.
    pub release_ms: u64,
    /// When White's clock first runs (§6.5); a trace's default is its
    /// `t = 0`.
    pub clock_start_at: ClockStartAt,
}

/// Default simultaneity window for touches, ms (digest §2.3: 150–300 ms).
pub const DEFAULT_TOUCH_WINDOW_MS: u64 = 200;

/// Default time after which a piece set down counts as released, ms.
pub const DEFAULT_RELEASE_MS: u64 = 2_000;

/// A bad game setting: which key, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ConfigError {
    /// The key (`rules`, `mode`, `time_control`, `start_fen`).
    pub key: &'static str,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl GameConfig {
    /// Builds the settings from a trace header; `rules`, `mode` and
    /// `supervision` override the header's (the command line wins).
    /// Defaults: `fide-2023`; the mode classified from the time control
    /// (standard without one); inadequate supervision in rapid and blitz.
    pub fn from_header(
        header: &Header,
        rules: Option<Edition>,
        mode: Option<Mode>,
    ) -> Result<GameConfig, ConfigError> {
        GameConfig::from_header_with(header, rules, mode, None)
    }

    /// As [`GameConfig::from_header`], with a supervision override.
    pub fn from_header_with(
        header: &Header,
        rules: Option<Edition>,
        mode: Option<Mode>,
        supervision: Option<Supervision>,
    ) -> Result<GameConfig, ConfigError> {
        let edition = rules.or(header.rules).unwrap_or_default();
        let time_control = match header.time_control.as_deref() {
            None | Some("-") | Some("?") | Some("") => None,
            Some(s) => Some(TimeControl::parse(s).map_err(|e| ConfigError {
                key: "time_control",
                message: e.to_string(),
            })?),
        };
        let mode = match mode.or(header.mode) {
            Some(m) => m,
            None => time_control
                .as_ref()
                .map_or(Mode::Standard, |tc| Profile::classify(edition, tc)),
        };
        let supervision = supervision.or(header.supervision).unwrap_or_default();
        let profile = Profile::with_supervision(edition, mode, supervision)
            .with_board_observing(header.board_observes_illegal_moves.unwrap_or(false));
        let start = match header.start_fen.as_deref() {
            None => Chess::default(),
            Some(f) => f
                .parse::<Fen>()
                .map_err(|e| ConfigError {
                    key: "start_fen",
                    message: format!("\"{f}\": {e}"),
                })?
                .into_position(CastlingMode::Standard)
                .map_err(|e| ConfigError {
                    key: "start_fen",
                    message: format!("\"{f}\": {e}"),
                })?,
        };
        Ok(GameConfig {
            profile,
            sensing: header.sensing,
            time_control,
            start,
            header: header.clone(),
            settle_ms: DEFAULT_SETTLE_MS,
            bounce_ms: DEFAULT_BOUNCE_MS,
            touch_window_ms: DEFAULT_TOUCH_WINDOW_MS,
            release_ms: DEFAULT_RELEASE_MS,
            clock_start_at: ClockStartAt::default(),
        })
    }
}

impl GameConfig {
    /// Whether the game has a tactile board beside the main board
    /// (Appendix E: a visually impaired player).
    pub fn two_boards(&self) -> bool {
        self.header.boards.len() > 1
    }

    /// The language moves are announced in, when they are: the header's
    /// `language`, or in a two-board game (Appendix E: every move is
    /// announced to both players) the language of the profile's text
    /// ([`profile_lang`]); `None`: nothing is announced.
    pub fn announcement_lang(&self) -> Option<Lang> {
        match self.header.language {
            Some(l) => Some(l),
            None if self.two_boards() => Some(profile_lang(self.profile.edition)),
            None => None,
        }
    }
}

/// The language of a profile's text, spoken when a game announces and sets
/// no language: `fide-2009-no` Norwegian (seed 003), `fide-2001` and
/// `fide-2009` Danish (seeds 000, 002), `fide-2023` English (the FIDE text
/// is the authentic one; its Appendix D words are the FIDE list and German
/// numbers, pieces and castling).
pub fn profile_lang(edition: crate::model::Edition) -> Lang {
    use crate::model::Edition;
    match edition {
        Edition::Fide2009No => Lang::Nb,
        Edition::Fide2001 | Edition::Fide2009 => Lang::Da,
        Edition::Fide2023 => Lang::En,
    }
}
