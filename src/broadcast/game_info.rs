//! What a game's feed says about itself ([`GameInfo`]: the event, the round
//! and board, the players, the time line), and the mark of a trial game.

use crate::model::{Mode, Player};
use serde::{Deserialize, Serialize};

/// What a game's feed says about itself (the composition root,
/// [`crate::app`], fills it in from the config and the game's header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameInfo {
    /// Round number.
    pub round: u32,
    /// Board number.
    pub board: u32,
    /// Event name.
    pub event: Option<String>,
    /// Site.
    pub site: Option<String>,
    /// Country.
    pub country: Option<String>,
    /// Event web site.
    pub website: Option<String>,
    /// Date `YYYY.MM.DD`.
    pub date: Option<String>,
    /// `standard`, `rapid`, `blitz`.
    pub mode: Mode,
    /// PGN TimeControl text.
    pub time_control: Option<String>,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// Unix time in ms of round time 0.
    pub started_at_unix_ms: u64,
    /// Round ms per wall ms (1 but when a trace is replayed faster).
    pub speed: f64,
    /// The transmission delay of the public feed, round ms.
    pub delay_ms: u64,
    /// A trial game (`[board] source = "trial"`): simulated hands on a
    /// virtual board, not a real game. Marked in every feed: the PGN tag
    /// `Trial`, `"trial": true` in the state (and the LiveChess game), the
    /// live page's banner.
    #[serde(default)]
    pub trial: bool,
}

/// The PGN tag of a trial game ([`GameInfo::trial`]) and its value.
pub const TRIAL_TAG: (&str, &str) = (
    "Trial",
    "simulated hands on a virtual board (eboard trial mode), not a real game",
);

impl GameInfo {
    /// Game `round`.`board` with nothing else known: no event, no names,
    /// no time control, real-time speed, no delay, not a trial (a feed's
    /// reader before the game's first snapshot; the tests' games).
    pub fn bare(round: u32, board: u32) -> GameInfo {
        GameInfo {
            round,
            board,
            event: None,
            site: None,
            country: None,
            website: None,
            date: None,
            mode: crate::model::Mode::default(),
            time_control: None,
            white: crate::model::Player::default(),
            black: crate::model::Player::default(),
            started_at_unix_ms: 0,
            speed: 1.0,
            delay_ms: 0,
            trial: false,
        }
    }

    /// The info as it stands for `game`: a time control the arbiter
    /// installed (2023 6.10.2 "the arbiter shall install the correct
    /// setting", the `time_control` ruling, while it is not undone)
    /// replaces the configured one, in the config's syntax
    /// ([`crate::clock::TimeControl`]'s `Display`), so the LiveChess
    /// `tournament.json`'s `timecontrol` follows it as the PGN's does.
    pub fn for_game(&self, game: &crate::arbiter::Arbiter) -> GameInfo {
        let mut info = self.clone();
        if let Some(tc) = game.installed_time_control() {
            info.time_control = Some(tc.to_string());
        }
        info
    }

    /// `round.board`.
    pub fn id(&self) -> String {
        format!("{}.{}", self.round, self.board)
    }

    /// Unix time in ms of round time `t` (ms).
    pub fn unix_ms(&self, t: u64) -> u64 {
        self.started_at_unix_ms + (t as f64 / self.speed.max(1e-9)) as u64
    }
}
