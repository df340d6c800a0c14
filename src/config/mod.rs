//! The daemon's configuration file (TOML): the event, the game on this
//! board (round, board number, players), the rules, the transmission delay,
//! the arbiter's token and the devices.
//!
//! The module is split by concern: the TOML sections (`sections`), where
//! each key stands for errors (`located`), the checks serde cannot make
//! (`check`); the conversion into each consumer's settings is in
//! `app::settings`.
//!
//! ```toml
//! [event]
//! name = "DM 2026"
//! site = "Svendborg"
//! date = "2026.04.03"
//! rules = "fide-2009"              # fide-2001 | fide-2009 | fide-2009-no | fide-2023
//! mode = "standard"                # standard | rapid | blitz
//! time_control = "40/5400+30:1800+30"
//! delay = 900                      # transmission delay, seconds (0..=3600)
//! supervision = "inadequate"       # rapid and blitz (2023 A.4 / A.5)
//! board_observes_illegal_moves = false # 2023 A.5.2: the Laws' default, alert and wait
//! default_time_min = 15            # the default time (6.7.1; DSU 004 §11), minutes
//! session_start = "2026-04-03T15:00:00+02:00" # the round's scheduled start (RFC 3339):
//!                                  # the default time counts from it
//! time_zone = "Europe/Copenhagen"  # every wall time shown (console, report);
//!                                  # default: the machine's (/etc/localtime), else UTC
//!
//! [game]
//! round = 3
//! board = 1
//!
//! [game.white]
//! name = "Larsen, Bent"
//! fide_id = 1400000
//! title = "GM"
//! federation = "DEN"
//!
//! [game.black]
//! name = "Hansen, Curt"
//!
//! [arbiter]
//! name = "Chief arbiter"
//! token = "…"                      # or the environment variable EBOARD_ARBITER_TOKEN
//!
//! [player]                         # the VI player's own device: queries only (E2.9d)
//! name = "Larsen, Bent"
//! token = "…"                      # or the environment variable EBOARD_PLAYER_TOKEN
//!
//! [board]
//! source = "trace"                 # trace | hw | trial (simulated hands, no sensors)
//! sensing = "occupancy"            # occupancy | colour | identity
//!
//! [clock]
//! device = "simulated"             # simulated | dgt3000 | builtin
//! start_at = "arbiter_or_press"    # or round_start; default: arbiter_or_press on
//!                                  # the sensors, round_start for a recording / stdin
//! wall_clock = "ntp"               # or rtc: may a restart trust the wall clock (docs/clock.md)
//! runs_while_down = true           # the clock runs on while the daemon is down (default: true for dgt3000 only)
//!
//! [server]                         # optional: the HTTP listener (docs/server.md)
//! tls = "auto"                     # auto (self-signed, kept) | files | off
//! max_connections_per_address = 32 # 0: no per-address limit (behind a local proxy)
//!
//! [mqtt]                           # optional: publish the public feed to a broker
//! url = "mqtts://broker.example:8883" # mqtt:// (plain TCP, port 1883) or mqtts:// (TLS, 8883)
//! topic_prefix = "eboard"          # default eboard
//! username = "board1"              # optional login
//! password = "…"                   # or the environment variable EBOARD_MQTT_PASSWORD
//! ca_file = "/etc/eboard/ca.pem"   # optional: an extra trusted CA (PEM), mqtts:// only
//! board_config = true              # optional: round, players, time control from
//!                                  # `eboard event` (docs/event.md)
//! board_config_wait = 10           # seconds start-up waits for it (default 10)
//! command_keys = ["…64 hex…"]      # optional: Ed25519 keys whose signed rulings
//!                                  # this board takes over MQTT (docs/event.md)
//! command_window = 60              # seconds a ruling's issue time may be off
//! arbiter_channel = false          # true: also publish the undelayed arbiter channel
//!                                  # for the console's relay (mqtts:// and a login;
//!                                  # docs/mqtt.md, "The arbiter channel")
//!
//! [lichess]                        # optional: push the round's PGN to a lichess broadcast
//! round_id = "AbCd1234"
//! token = "…"                      # or the environment variable EBOARD_LICHESS_TOKEN
//! base_url = "https://lichess.org" # default
//! ca_file = "/etc/eboard/proxy-ca.pem" # optional: an extra trusted CA (PEM)
//! ```
//!
//! Relative file names (`ca_file`, `board.hw`, …) are taken from the
//! working directory.
//!
//! Unknown keys and bad values are errors naming the file, the line, the key
//! and what is allowed. No value takes a control character (a newline, a
//! tab, an escape, a bidirectional override: [`crate::model::text`]): a
//! name is data, never structure in the PGN, the page or a terminal.
//!
//! This module turns the TOML into its own section structs and checks what
//! it can see in the text alone; it depends on [`crate::model`] only. The
//! sections become each consumer's settings (the MQTT broker, the lichess
//! target, the clock device, the arbiter's game settings) at start-up in
//! [`crate::app::settings`], which reads the files they name (`ca_file`) and
//! names this file, the line and the key in its errors
//! ([`Config::error_at`]).
//!
//! In docs/dev/architecture.md's map it stands on `model` alone. It must
//! not depend on the parts it configures (`clock`, `voice`, `broadcast`,
//! `mqtt`, `server`, `sensors`, `journal`) nor on `app`, which depends on
//! it.

mod check;
pub mod instant;
mod located;
mod sections;
#[cfg(test)]
mod tests;
pub mod zone;

pub use located::ConfigFileError;
pub use sections::*;

use located::{line_of, Located};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The largest transmission delay, seconds (lichess accepts up to an hour).
pub const MAX_DELAY_S: u64 = 3600;

/// The FIDE titles a player tag may carry.
pub const TITLES: [&str; 10] = [
    "GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM", "NM", "WNM",
];

/// The whole configuration file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The event.
    #[serde(default)]
    pub event: EventConfig,
    /// The game on this board.
    #[serde(default)]
    pub game: GameSection,
    /// The arbiter API.
    #[serde(default)]
    pub arbiter: ArbiterConfig,
    /// The visually impaired player's own device (E2.9d queries).
    #[serde(default)]
    pub player: PlayerDeviceConfig,
    /// Where the board's records come from.
    #[serde(default)]
    pub board: BoardConfig,
    /// The chess clock.
    #[serde(default)]
    pub clock: ClockConfig,
    /// Publishing to an MQTT broker (absent: not published).
    pub mqtt: Option<MqttConfig>,
    /// Pushing the round's PGN to a lichess broadcast (absent: not pushed).
    pub lichess: Option<LichessConfig>,
    /// Where each listener hears the announcements (`[voice.white]`,
    /// `[voice.black]`, `[voice.arbiter]`; see `docs/voice.md`).
    #[serde(default)]
    pub voice: VoiceConfig,
    /// The HTTP listener: connection limits and TLS (`docs/server.md`).
    #[serde(default)]
    pub server: ServerConfig,
    /// Where each key stands in the file, for errors found after parsing.
    #[serde(skip)]
    pub source: KeyLines,
}

/// The file a [`Config`] was read from and the 1-based line of each of its
/// dotted keys (`mqtt.ca_file` → 4): start-up errors about a value name
/// where it stands ([`Config::error_at`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyLines {
    /// The file as given (empty for a default config).
    pub file: String,
    /// Dotted key → line.
    pub lines: BTreeMap<String, usize>,
}

impl Config {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigFileError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigFileError {
            file: path.display().to_string(),
            line: None,
            key: String::new(),
            message: format!("cannot read: {e}"),
        })?;
        Config::parse(&text, &path.display().to_string())
    }

    /// Parses and checks configuration text; `file` names it in errors.
    /// No file it names is read here: that is start-up's business
    /// ([`crate::app::settings`]), whose errors name the key's line too.
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigFileError> {
        let located = Located::new(text);
        let mut cfg: Config = toml::from_str(text).map_err(|e| {
            let (line, key) = match e.span() {
                Some(span) => (
                    Some(line_of(text, span.start)),
                    located.key_at(span.start).unwrap_or_default(),
                ),
                None => (None, String::new()),
            };
            ConfigFileError {
                file: file.to_owned(),
                line,
                key,
                message: e.message().trim().to_owned(),
            }
        })?;
        // Names and text are data (issue 41 §3): no value takes a control
        // character; the file is refused, naming the line and the key.
        if let Some((key, line, c)) = located.control_in_strings() {
            return Err(ConfigFileError {
                file: file.to_owned(),
                line: Some(line),
                key,
                message: format!("{c}; remove it (a name cannot hold a new line, a tab, an escape or a bidirectional override)"),
            });
        }
        cfg.check().map_err(|(table, key, message)| {
            let key = if table.is_empty() {
                key.to_owned()
            } else {
                format!("{table}.{key}")
            };
            ConfigFileError {
                file: file.to_owned(),
                line: located.line_of_key(&key),
                key,
                message,
            }
        })?;
        cfg.source = KeyLines {
            file: file.to_owned(),
            lines: located.key_lines(),
        };
        Ok(cfg)
    }

    /// An error about the value of dotted `key` found after parsing (at
    /// start-up): it names this file and the key's line, as parse errors do.
    pub fn error_at(&self, key: &str, message: impl Into<String>) -> ConfigFileError {
        ConfigFileError {
            file: self.source.file.clone(),
            line: self.source.lines.get(key).copied(),
            key: key.to_owned(),
            message: message.into(),
        }
    }

    /// The file this config was read from (`config` for a default one).
    pub fn file(&self) -> &str {
        if self.source.file.is_empty() {
            "config"
        } else {
            &self.source.file
        }
    }

    /// The event's time zone (`[event] time_zone`, checked at load), else
    /// the machine's local zone, else UTC ([`zone::EventZone`]).
    pub fn time_zone(&self) -> zone::EventZone {
        match &self.event.time_zone {
            Some(n) => zone::EventZone::named(n).unwrap_or_else(|e| {
                tracing::error!("[event] time_zone: {e}; times are shown in the machine's zone");
                zone::EventZone::system()
            }),
            None => zone::EventZone::system(),
        }
    }

    /// `round.board`, as DGT and lichess write the PGN `Round` tag.
    pub fn round_board(&self) -> String {
        format!("{}.{}", self.game.round, self.game.board)
    }
}
