//! The daemon's configuration file (TOML): the event, the game on this
//! board (round, board number, players), the rules, the transmission delay,
//! the arbiter's token and the devices.
//!
//! Length: the TOML sections, their syntactic checks and their tests (a
//! sixth of the file) belong together; the conversion into each consumer's
//! settings is in `app::settings`.
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
//! and what is allowed.
//!
//! This module turns the TOML into its own section structs and checks what
//! it can see in the text alone; it depends on [`crate::model`] only. The
//! sections become each consumer's settings (the MQTT broker, the lichess
//! target, the clock device, the arbiter's game settings) at start-up in
//! [`crate::app::settings`], which reads the files they name (`ca_file`) and
//! names this file, the line and the key in its errors
//! ([`Config::error_at`]).

use crate::model::{ClockStartAt, Edition, Lang, Mode, Player, Sensing, Supervision, WordChoice};
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

/// `[voice]`: one audio output per listener (Appendix E: the announcements
/// in each player's headphones; `docs/voice.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoiceConfig {
    /// White's output.
    pub white: Option<ListenerConfig>,
    /// Black's output.
    pub black: Option<ListenerConfig>,
    /// The arbiter's output: hears every announcement.
    pub arbiter: Option<ListenerConfig>,
}

/// `[voice.white]` and the others: one listener's output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListenerConfig {
    /// The ALSA device (`aplay -D`), e.g. `plughw:CARD=Headset,DEV=0`;
    /// absent: the default device.
    pub device: Option<String>,
    /// `both` (default), `left` or `right`: a stereo pair shared by both
    /// players is split left and right.
    pub channel: Option<String>,
    /// Words per minute (espeak-ng `-s`, 80..=450; default 175).
    pub speed: Option<u32>,
    /// Volume in per cent, 0..=200 (default 100).
    pub volume: Option<u32>,
    /// espeak-ng voice variant added to the game's voice (`f3`, `m2`, …).
    pub variant: Option<String>,
}

/// `[mqtt]`: the broker the public feed is published to (see `docs/mqtt.md`).
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MqttConfig {
    /// `mqtt://host[:port]` (or `tcp://`; plain TCP, port default 1883) or
    /// `mqtts://host[:port]` (TLS, port default 8883); no credentials.
    pub url: String,
    /// The first topic level, default `eboard`.
    pub topic_prefix: Option<String>,
    /// The MQTT username (absent: no login).
    pub username: Option<String>,
    /// The password; `EBOARD_MQTT_PASSWORD` wins when set and not empty.
    pub password: Option<String>,
    /// A PEM file of extra trusted CA certificates for `mqtts://` (the
    /// webpki roots are always trusted), relative to the working directory.
    pub ca_file: Option<String>,
    /// Take the round, the players and the time control from the retained
    /// `{prefix}/{event}/board/{board}/config` that `eboard event`
    /// publishes (`docs/event.md`); `[game] board` is this table's number.
    pub board_config: Option<bool>,
    /// With `board_config`: how long start-up waits for it, seconds
    /// (0..=600, default 10); none by then: the file's `[game]`.
    pub board_config_wait: Option<u64>,
    /// The Ed25519 public keys (64 hex digits each) whose signed rulings
    /// this board takes on `{prefix}/{event}/board/{board}/command`
    /// (`docs/event.md`); absent or empty: no command channel.
    pub command_keys: Option<Vec<String>>,
    /// How far a ruling's issue time may be from the board's clock,
    /// seconds (1..=3600, default 60).
    pub command_window: Option<u64>,
    /// Also publish the board's undelayed arbiter channel (what
    /// `/arbiter/events` serves) on `{prefix}/{event}/board/{board}/
    /// arbiter/…` for the console's relay (`docs/mqtt.md`, "The arbiter
    /// channel"); default false. Needs `mqtts://` (or a broker on this
    /// host) and a `username`, checked at start-up.
    pub arbiter_channel: Option<bool>,
}

impl std::fmt::Debug for MqttConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MqttConfig")
            .field("url", &self.url)
            .field("topic_prefix", &self.topic_prefix)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("ca_file", &self.ca_file)
            .field("board_config", &self.board_config)
            .field("board_config_wait", &self.board_config_wait)
            .field("command_keys", &self.command_keys)
            .field("command_window", &self.command_window)
            .field("arbiter_channel", &self.arbiter_channel)
            .finish()
    }
}

/// `[lichess]`: the lichess broadcast round the PGN is pushed to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LichessConfig {
    /// The broadcast round's id (8 letters and digits).
    pub round_id: String,
    /// The OAuth token (scope `study:write`); `EBOARD_LICHESS_TOKEN` wins.
    pub token: Option<String>,
    /// Default `https://lichess.org`; `http://` for a local test server.
    pub base_url: Option<String>,
    /// A PEM file of extra trusted CA certificates (a TLS-inspecting
    /// proxy's, a test server's); the webpki roots are always trusted.
    pub ca_file: Option<String>,
}

/// `[event]`: what every game of the event shares.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventConfig {
    /// The event's name (PGN `Event`).
    pub name: Option<String>,
    /// Where (PGN `Site`).
    pub site: Option<String>,
    /// The country (LiveChess `country`, e.g. `DEN`).
    pub country: Option<String>,
    /// The event's web site (LiveChess `website`).
    pub website: Option<String>,
    /// The round's date, `YYYY.MM.DD` (PGN `Date`).
    pub date: Option<String>,
    /// Rule profile name.
    pub rules: Option<Edition>,
    /// `standard`, `rapid` or `blitz`.
    pub mode: Option<Mode>,
    /// PGN TimeControl as FIDE events write it (`40/5400+30:1800+30`).
    pub time_control: Option<String>,
    /// Transmission delay of every public feed, seconds (`--delay` wins).
    pub delay: Option<u64>,
    /// Announcement language: `da`, `nb` (also `no`), `de`, `en`.
    pub language: Option<Lang>,
    /// Arbiter supervision in rapid and blitz: `adequate` or `inadequate`.
    pub supervision: Option<Supervision>,
    /// Speak the announcements (Appendix E) on the sound device with espeak-ng.
    pub speak: Option<bool>,
}

/// `[game]`: this board's game.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSection {
    /// Round number, from 1.
    #[serde(default = "one")]
    pub round: u32,
    /// Board number in the round, from 1.
    #[serde(default = "one")]
    pub board: u32,
    /// The start position when not the initial one (FEN).
    pub start_fen: Option<String>,
    /// White.
    #[serde(default)]
    pub white: Player,
    /// Black.
    #[serde(default)]
    pub black: Player,
    /// Appendix E: the visually impaired player's colour (`w` or `b`), who
    /// plays on the tactile board of `[board] tactile_hw`.
    pub vi_player: Option<String>,
    /// The announcements' words for this game (E2.1's last sentence):
    /// `appendix` (default), `national` (also `scandinavian`) or `german`.
    pub words: Option<WordChoice>,
}

fn one() -> u32 {
    1
}

impl Default for GameSection {
    fn default() -> Self {
        GameSection {
            round: 1,
            board: 1,
            start_fen: None,
            white: Player::default(),
            black: Player::default(),
            vi_player: None,
            words: None,
        }
    }
}

/// `[arbiter]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArbiterConfig {
    /// Who holds the token (journaled as the author of every action).
    pub name: Option<String>,
    /// The bearer token of the arbiter API (`EBOARD_ARBITER_TOKEN` wins):
    /// one account of role `arbiter` named `name`. At least 128 random bits.
    pub token: Option<String>,
    /// `[[arbiter.accounts]]`: one per arbiter (`docs/console.md`).
    #[serde(default)]
    pub accounts: Vec<AccountConfig>,
    /// How long a console session lasts, seconds (default 43200: 12 h).
    pub session_s: Option<u64>,
    /// Mark the console's session cookie `Secure` (set it when the console
    /// is served over HTTPS, directly or behind a TLS proxy).
    pub secure_cookie: Option<bool>,
    /// The relay's token for the boards' arbiter API (`eboard relay`;
    /// `EBOARD_RELAY_TOKEN` wins): each board has it as an account of role
    /// `relay`.
    pub relay_token: Option<String>,
    /// The console's signing key (the seed file `eboard rule --keygen`
    /// writes): an MQTT relay (`eboard relay --mqtt … --event NAME`) signs
    /// each ruling with it and publishes it on the board's command topic
    /// (`docs/mqtt.md`, the boards' `[mqtt] command_keys`).
    pub ruling_key: Option<String>,
    /// Where `eboard relay` keeps its console's acknowledgements and
    /// sessions across a restart (`--state-dir` wins; `docs/console.md`,
    /// "Kept across a restart"). A board keeps them beside its journal.
    pub state_dir: Option<String>,
    /// The round's pairings file as the pairing program wrote it (TRF-16,
    /// the file `eboard event` read): the console serves the round's
    /// confirmed results written into it, `GET /console/results.trf`
    /// (`docs/console.md`, "The round's paperwork"). Read at each request.
    pub pairings: Option<String>,
}

/// `[[arbiter.accounts]]`: one arbiter's account.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountConfig {
    /// The arbiter's name (journaled as the author of his rulings).
    pub name: String,
    /// `arbiter` (rules; the default), `deputy` (sees, rules nothing) or
    /// `relay` (a relay ruling on behalf of a named arbiter).
    pub role: Option<String>,
    /// The argon2id hash (PHC string) of his pass phrase (`eboard token --hash`).
    pub secret_hash: Option<String>,
    /// Or a token (at least 128 random bits): bearer token and login secret.
    pub token: Option<String>,
}

/// `[server]`: the HTTP listener of `eboard run` and `eboard relay`
/// (`docs/server.md`; the defaults are `server::listener::Limits`').
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Connections served at once (default 4096, lowered to the process's
    /// file-descriptor limit).
    pub max_connections: Option<usize>,
    /// Connections from one address (an IPv6 /64) at once; 0: no limit
    /// (behind a reverse proxy on the same host). Default 32.
    pub max_connections_per_address: Option<usize>,
    /// Of `max_connections`, the last ones kept for connections that showed
    /// the arbiter's credentials (default 64).
    pub reserved_connections: Option<usize>,
    /// Public streams (`/events`, `/ws`) at once (default 1024, at most a
    /// quarter of `max_connections`).
    pub max_streams: Option<usize>,
    /// Public streams from one address (an IPv6 /64) at once (default 4;
    /// 0: no limit, as with `max_connections_per_address = 0`).
    pub max_streams_per_address: Option<usize>,
    /// Seconds a WebSocket client has to answer a ping (default 10).
    pub stream_deadline_s: Option<u64>,
    /// Seconds a client has for a request head, also between requests on a
    /// kept-alive connection and for a TLS handshake (default 10).
    pub idle_timeout_s: Option<u64>,
    /// Seconds a client may leave the server's bytes unread before it is
    /// closed (default 30).
    pub write_timeout_s: Option<u64>,
    /// `auto` (default: a self-signed certificate made on first start and
    /// kept), `files` (`tls_cert` and `tls_key`), or `off` (plain HTTP only:
    /// the arbiter's routes then answer on loopback only).
    pub tls: Option<String>,
    /// The certificate chain (PEM) with `tls = "files"`.
    pub tls_cert: Option<String>,
    /// Its private key (PEM) with `tls = "files"`.
    pub tls_key: Option<String>,
}

/// `[player]`: the visually impaired player's own device (Appendix E2.9d):
/// its token may ask for information (`POST /arbiter/query`) and repeat
/// his announcements, never act as the arbiter. Needs `[game] vi_player`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerDeviceConfig {
    /// The player's name (journaled as the author of his queries).
    pub name: Option<String>,
    /// The device's bearer token (`EBOARD_PLAYER_TOKEN` wins).
    pub token: Option<String>,
}

/// Where the board's records come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// A recorded trace (`--trace FILE`) or JSON lines on standard input.
    #[default]
    Trace,
    /// The sensor hardware (wired by the board drivers).
    Hw,
    /// Trial mode, for trying a board (or the Debian package) without
    /// sensors: simulated hands play a master game on a virtual board, read
    /// by the real drivers over a simulated bus (`eboard demo`'s records,
    /// at the wall clock's pace). Every feed marks the game as a trial
    /// (PGN tag `Trial`, `"trial": true` in the JSON state, the live
    /// page's banner) so that it is never taken for a real game. A
    /// `--trace FILE` given to `eboard run` replaces it.
    Trial,
}

/// What the board senses (config spelling of [`Sensing`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SensingConfig {
    /// Empty or not.
    #[default]
    Occupancy,
    /// White, black or empty.
    Colour,
    /// The piece.
    Identity,
}

impl From<SensingConfig> for Sensing {
    fn from(s: SensingConfig) -> Sensing {
        match s {
            SensingConfig::Occupancy => Sensing::Occupancy,
            SensingConfig::Colour => Sensing::Colour,
            SensingConfig::Identity => Sensing::Identity,
        }
    }
}

/// `[board]`: the sensing hardware (validated and kept; the drivers use it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardConfig {
    /// `trace`, `hw` or `trial`.
    #[serde(default)]
    pub source: SourceKind,
    /// What the board senses; absent: the trace header's, else occupancy.
    pub sensing: Option<SensingConfig>,
    /// The hardware description file (needed with `source = "hw"`).
    pub hw: Option<String>,
    /// The calibration file.
    pub calibration: Option<String>,
    /// Appendix E: the tactile peg board's design file (a second sensor
    /// source; needs `[game] vi_player`).
    pub tactile_hw: Option<String>,
    /// The tactile board's calibration file.
    pub tactile_calibration: Option<String>,
}

/// The clock device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockDevice {
    /// The clock engine alone (presses come as records).
    #[default]
    Simulated,
    /// A DGT 3000 (needs `port`).
    Dgt3000,
    /// The board's own buttons and display.
    Builtin,
}

/// `[clock]` (validated and kept; the clock drivers use it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockConfig {
    /// Which clock.
    #[serde(default)]
    pub device: ClockDevice,
    /// Serial port or bus of the device.
    pub port: Option<String>,
    /// Built-in clock: White's button, BCM GPIO number.
    pub white_pin: Option<u8>,
    /// Built-in clock: Black's button, BCM GPIO number.
    pub black_pin: Option<u8>,
    /// Built-in clock: the LCD backpack's I2C address (default 0x27).
    pub lcd_address: Option<u8>,
    /// When White's clock first runs (§6.5): `round_start` (when the daemon
    /// starts) or `arbiter_or_press` (when the arbiter starts the clocks or
    /// the first press; the default for a board on its sensors).
    pub start_at: Option<ClockStartAt>,
    /// Whether the wall clock may measure a downtime on restart (issue 18
    /// §3, `docs/clock.md`): `ntp` (default: only when the kernel says the
    /// time is synchronised, adjtimex) or `rtc` (always: a real-time clock
    /// module or the hypervisor keeps the time though no NTP daemon
    /// disciplines the kernel). Either way a backward or implausible jump
    /// is never charged to a clock.
    pub wall_clock: Option<String>,
}

/// A configuration error: the file, the 1-based line (when known), the key
/// and what is wrong / allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default(),
    if key.is_empty() { String::new() } else { format!(": key '{key}'") })]
pub struct ConfigFileError {
    /// The file as given.
    pub file: String,
    /// 1-based line.
    pub line: Option<usize>,
    /// Dotted key (`event.delay`).
    pub key: String,
    /// What is wrong, and what is allowed.
    pub message: String,
}

/// 1-based line of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The document as toml itself parses it, with the span of every key and
/// value: where a dotted key stands, and which key an error's span falls in.
struct Located<'i> {
    text: &'i str,
    doc: Option<toml::Spanned<toml::de::DeTable<'i>>>,
}

impl<'i> Located<'i> {
    fn new(text: &'i str) -> Located<'i> {
        Located {
            text,
            doc: toml::de::DeTable::parse(text).ok(),
        }
    }

    /// Every dotted key of the document with its 1-based line.
    fn key_lines(&self) -> BTreeMap<String, usize> {
        fn walk(
            table: &toml::de::DeTable<'_>,
            prefix: &str,
            text: &str,
            out: &mut BTreeMap<String, usize>,
        ) {
            for (k, v) in table {
                let name = if prefix.is_empty() {
                    k.get_ref().to_string()
                } else {
                    format!("{prefix}.{}", k.get_ref())
                };
                out.insert(name.clone(), line_of(text, k.span().start));
                match v.get_ref() {
                    toml::de::DeValue::Table(t) => walk(t, &name, text, out),
                    // `[[x]]` tables: `x.1.key`, numbered from 1.
                    toml::de::DeValue::Array(a) => {
                        for (i, item) in a.iter().enumerate() {
                            if let toml::de::DeValue::Table(t) = item.get_ref() {
                                let n = format!("{name}.{}", i + 1);
                                out.insert(n.clone(), line_of(text, item.span().start));
                                walk(t, &n, text, out);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut out = BTreeMap::new();
        if let Some(doc) = &self.doc {
            walk(doc.get_ref(), "", self.text, &mut out);
        }
        out
    }

    /// The 1-based line of the dotted `key` (`event.delay`), when present.
    fn line_of_key(&self, key: &str) -> Option<usize> {
        let mut table = self.doc.as_ref()?.get_ref();
        let mut parts = key.split('.').peekable();
        while let Some(part) = parts.next() {
            let (k, v) = table.iter().find(|(k, _)| k.get_ref().as_ref() == part)?;
            if parts.peek().is_none() {
                return Some(line_of(self.text, k.span().start));
            }
            match v.get_ref() {
                toml::de::DeValue::Table(t) => table = t,
                _ => return None,
            }
        }
        None
    }

    /// The dotted key whose key or value holds byte offset `at` (the
    /// deepest such key), e.g. `event.rules` for an error in its value.
    fn key_at(&self, at: usize) -> Option<String> {
        // A table's own span is its header (`[clock]`), so its keys are
        // searched before the header.
        fn walk(table: &toml::de::DeTable<'_>, at: usize) -> Option<Vec<String>> {
            for (k, v) in table {
                let name = k.get_ref().to_string();
                if let toml::de::DeValue::Table(t) = v.get_ref() {
                    if let Some(mut inner) = walk(t, at) {
                        inner.insert(0, name);
                        return Some(inner);
                    }
                }
                let (ks, vs) = (k.span(), v.span());
                if ks.contains(&at) || vs.contains(&at) {
                    return Some(vec![name]);
                }
            }
            None
        }
        walk(self.doc.as_ref()?.get_ref(), at).map(|p| p.join("."))
    }
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

    /// Checks the values serde cannot: (table, key, message).
    fn check(&self) -> Result<(), (&'static str, &'static str, String)> {
        let e = &self.event;
        if let Some(d) = &e.date {
            let ok = d.len() == 10
                && d.char_indices().all(|(i, c)| {
                    if i == 4 || i == 7 {
                        c == '.'
                    } else {
                        c.is_ascii_digit() || c == '?'
                    }
                });
            if !ok {
                return Err((
                    "event",
                    "date",
                    format!("\"{d}\": write the date as YYYY.MM.DD (PGN), e.g. \"2026.04.03\""),
                ));
            }
        }
        if let Some(d) = e.delay {
            if d > MAX_DELAY_S {
                return Err((
                    "event",
                    "delay",
                    format!("{d} s: the delay must be 0..={MAX_DELAY_S} seconds"),
                ));
            }
        }
        if let Some(v) = &self.game.vi_player {
            if !["w", "b"].contains(&v.as_str()) {
                return Err(("game", "vi_player", format!("\"{v}\": allowed are w, b")));
            }
        }
        if self.board.tactile_hw.is_some() && self.game.vi_player.is_none() {
            return Err((
                "board",
                "tactile_hw",
                "a tactile board needs [game] vi_player, the colour who plays on it".into(),
            ));
        }
        if let Some(w) = &self.clock.wall_clock {
            if !["ntp", "rtc"].contains(&w.as_str()) {
                return Err((
                    "clock",
                    "wall_clock",
                    format!("\"{w}\": allowed are ntp, rtc"),
                ));
            }
        }
        let sv = &self.server;
        if let Some(t) = &sv.tls {
            if !["auto", "files", "off"].contains(&t.as_str()) {
                return Err((
                    "server",
                    "tls",
                    format!("\"{t}\": allowed are auto, files, off"),
                ));
            }
            if t == "files" && (sv.tls_cert.is_none() || sv.tls_key.is_none()) {
                return Err((
                    "server",
                    "tls",
                    "tls = \"files\" needs tls_cert and tls_key (PEM files)".into(),
                ));
            }
        }
        if (sv.tls_cert.is_some() || sv.tls_key.is_some()) && sv.tls.as_deref() != Some("files") {
            let key = if sv.tls_cert.is_some() {
                "tls_cert"
            } else {
                "tls_key"
            };
            return Err((
                "server",
                key,
                "set tls = \"files\" to serve this certificate".into(),
            ));
        }
        for (key, v, range) in [
            ("idle_timeout_s", sv.idle_timeout_s, 1..=600),
            ("write_timeout_s", sv.write_timeout_s, 1..=3600),
        ] {
            if let Some(v) = v {
                if !range.contains(&v) {
                    return Err((
                        "server",
                        key,
                        format!(
                            "{v}: allowed are {}..={} seconds",
                            range.start(),
                            range.end()
                        ),
                    ));
                }
            }
        }
        if let Some(0) = sv.max_connections {
            return Err(("server", "max_connections", "0: at least 1".into()));
        }
        if self.player.token.is_some() && self.game.vi_player.is_none() {
            return Err((
                "player",
                "token",
                "the player's device needs [game] vi_player, the colour who uses it".into(),
            ));
        }
        for (table, l) in [
            ("voice.white", &self.voice.white),
            ("voice.black", &self.voice.black),
            ("voice.arbiter", &self.voice.arbiter),
        ] {
            let Some(l) = l else { continue };
            if let Some(c) = &l.channel {
                if !["both", "left", "right"].contains(&c.as_str()) {
                    return Err((
                        table,
                        "channel",
                        format!("\"{c}\": allowed are both, left, right"),
                    ));
                }
            }
            if let Some(s) = l.speed {
                if !(80..=450).contains(&s) {
                    return Err((
                        table,
                        "speed",
                        format!("{s}: espeak-ng speaks 80..=450 words per minute"),
                    ));
                }
            }
            if let Some(v) = l.volume {
                if v > 200 {
                    return Err((
                        table,
                        "volume",
                        format!("{v}: the volume is 0..=200 per cent"),
                    ));
                }
            }
            if let Some(v) = &l.variant {
                if v.is_empty()
                    || !v
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    return Err((
                        table,
                        "variant",
                        format!("\"{v}\": a variant name such as f3 or m2"),
                    ));
                }
            }
        }
        if self.game.round == 0 {
            return Err(("game", "round", "rounds count from 1".into()));
        }
        if self.game.board == 0 {
            return Err(("game", "board", "boards count from 1".into()));
        }
        for (table, p) in [
            ("game.white", &self.game.white),
            ("game.black", &self.game.black),
        ] {
            if let Some(t) = &p.title {
                if !TITLES.contains(&t.as_str()) {
                    return Err((
                        table,
                        "title",
                        format!("\"{t}\": allowed are {}", TITLES.join(", ")),
                    ));
                }
            }
            if p.fide_id == Some(0) {
                return Err((table, "fide_id", "a FIDE id is a positive number".into()));
            }
            if let Some(f) = &p.federation {
                if f.len() != 3 || !f.chars().all(|c| c.is_ascii_uppercase()) {
                    return Err((
                        table,
                        "federation",
                        format!("\"{f}\": three capital letters (DEN, NOR, ...)"),
                    ));
                }
            }
        }
        if self.board.source == SourceKind::Hw && self.board.hw.is_none() {
            return Err((
                "board",
                "hw",
                "source = \"hw\" needs the hardware description file: hw = \"hw/….toml\"".into(),
            ));
        }
        if self.clock.device == ClockDevice::Dgt3000 && self.clock.port.is_none() {
            return Err((
                "clock",
                "port",
                "device = \"dgt3000\" needs its port, e.g. port = \"/dev/i2c-1\"".into(),
            ));
        }
        if let Some(w) = self.mqtt.as_ref().and_then(|m| m.board_config_wait) {
            if w > 600 {
                return Err((
                    "mqtt",
                    "board_config_wait",
                    format!("{w} s: start-up waits 0..=600 seconds"),
                ));
            }
        }
        if let Some(m) = &self.mqtt {
            for k in m.command_keys.iter().flatten() {
                if k.len() != 64 || !k.chars().all(|c| c.is_ascii_hexdigit()) {
                    return Err((
                        "mqtt",
                        "command_keys",
                        format!("\"{k}\": an Ed25519 public key is 64 hex digits (eboard rule --keygen prints one)"),
                    ));
                }
            }
            if let Some(w) = m.command_window {
                if !(1..=3600).contains(&w) {
                    return Err((
                        "mqtt",
                        "command_window",
                        format!("{w} s: the window is 1..=3600 seconds"),
                    ));
                }
            }
        }
        if let Some(l) = &self.lichess {
            if l.round_id.len() != 8 || !l.round_id.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err((
                    "lichess",
                    "round_id",
                    format!(
                        "\"{}\": a lichess round id is 8 letters and digits",
                        l.round_id
                    ),
                ));
            }
            if let Some(u) = &l.base_url {
                if !(u.starts_with("http://") || u.starts_with("https://")) {
                    return Err((
                        "lichess",
                        "base_url",
                        format!("\"{u}\": give http(s)://host, e.g. \"https://lichess.org\""),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `round.board`, as DGT and lichess write the PGN `Round` tag.
    pub fn round_board(&self) -> String {
        format!("{}.{}", self.game.round, self.game.board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appendix_e_and_clock_keys() {
        // The header and the clock device these keys make: app::settings' tests.
        let c = parse("[game]\nvi_player = \"b\"\n[board]\ntactile_hw = \"hw/tactile-matrix.toml\"\n[clock]\ndevice = \"dgt3000\"\nport = \"/dev/ttyACM0\"\n").unwrap();
        assert_eq!(c.game.vi_player.as_deref(), Some("b"));
        let e = parse("[board]\ntactile_hw = \"hw/tactile-matrix.toml\"\n").unwrap_err();
        assert_eq!(e.key, "board.tactile_hw");
        let e = parse("[game]\nvi_player = \"x\"\n").unwrap_err();
        assert!(e.to_string().contains("vi_player"), "{e}");
        let e = parse("[event]\nsupervision = \"some\"\n").unwrap_err();
        assert!(e.to_string().contains("supervision"), "{e}");
    }

    #[test]
    fn voice_outputs_per_listener() {
        let c = parse(
            "[game]\nwords = \"scandinavian\"\n\
             [voice.white]\ndevice = \"pair\"\nchannel = \"left\"\n\
             [voice.black]\ndevice = \"pair\"\nchannel = \"right\"\nspeed = 220\nvolume = 140\nvariant = \"f3\"\n\
             [voice.arbiter]\n",
        )
        .unwrap();
        assert_eq!(c.game.words, Some(WordChoice::National));
        let b = c.voice.black.as_ref().unwrap();
        assert_eq!(
            (b.speed, b.volume, b.variant.as_deref()),
            (Some(220), Some(140), Some("f3"))
        );
        assert!(c.voice.arbiter.is_some());
        let e = parse("[voice.white]\nchannel = \"middle\"\n").unwrap_err();
        assert_eq!(e.key, "voice.white.channel");
        assert_eq!(e.line, Some(2));
        assert!(e.to_string().contains("both, left, right"), "{e}");
        let e = parse("[voice.black]\nvolume = 300\n").unwrap_err();
        assert_eq!(e.key, "voice.black.volume");
        let e = parse("[voice.black]\nspeed = 10\n").unwrap_err();
        assert_eq!(e.key, "voice.black.speed");
        let e = parse("[voice.black]\nvariant = \"f3; rm\"\n").unwrap_err();
        assert_eq!(e.key, "voice.black.variant");
        assert!(
            parse("[voice.black]\nloudness = 3\n").is_err(),
            "unknown key"
        );
    }

    fn parse(text: &str) -> Result<Config, ConfigFileError> {
        Config::parse(text, "board.toml")
    }

    #[test]
    fn a_full_file_parses() {
        let c = parse(
            r#"
[event]
name = "DM 2026"
date = "2026.04.03"
rules = "fide-2009"
time_control = "40/5400+30:1800+30"
delay = 900

[game]
round = 3
board = 2

[game.white]
name = "Larsen, Bent"
fide_id = 1400000
title = "GM"

[arbiter]
token = "s3cret"

[board]
source = "hw"
hw = "hw/rev1.toml"

[clock]
device = "dgt3000"
port = "/dev/i2c-1"
"#,
        )
        .unwrap();
        assert_eq!(c.round_board(), "3.2");
        assert_eq!(c.event.delay, Some(900));
        assert_eq!(c.clock.device, ClockDevice::Dgt3000);
        assert_eq!(c.source.lines.get("game.white.title"), Some(&16));
        assert_eq!(c.error_at("clock.port", "x").line, Some(27));
    }

    #[test]
    fn mqtt_login_keys_parse_and_the_password_is_not_printed() {
        // The broker's URL, login and CA file are checked at start-up, with
        // these keys' lines: app::settings' tests.
        let c = parse("[mqtt]\nurl = \"mqtts://broker\"\nusername = \"b1\"\npassword = \"pw\"\n")
            .unwrap();
        assert_eq!(c.mqtt.as_ref().unwrap().url, "mqtts://broker");
        let m = c.mqtt.as_ref().unwrap();
        assert_eq!(m.username.as_deref(), Some("b1"));
        assert_eq!(m.password.as_deref(), Some("pw"));
        assert!(!format!("{c:?}").contains("pw"));
        assert_eq!(c.error_at("mqtt.password", "x").line, Some(4));
        let e = parse("[mqtt]\nurl = \"mqtt://broker\"\npasword = \"x\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(3), "mqtt.pasword"), "{e}");
        assert!(e.message.contains("password"), "lists the keys: {e}");
    }

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let e = parse("[event]\nname = \"x\"\n\n[clock]\ndevise = \"dgt3000\"\n").unwrap_err();
        assert_eq!(e.line, Some(5), "{e}");
        assert_eq!(e.key, "clock.devise", "{e}");
        assert!(e.message.contains("device"), "says what is allowed: {e}");
        assert!(e
            .to_string()
            .starts_with("board.toml:5: key 'clock.devise'"));
    }

    #[test]
    fn bad_enum_value_lists_the_allowed_ones() {
        let e = parse("[board]\nsource = \"usb\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(2), "board.source"), "{e}");
        assert!(
            e.message.contains("trace") && e.message.contains("hw"),
            "{e}"
        );
    }

    #[test]
    fn server_keys_are_checked_where_they_stand() {
        let e = parse("[event]\nname = \"x\"\n[server]\ntls = \"maybe\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(4), "server.tls"), "{e}");
        assert!(e.message.contains("auto, files, off"), "{e}");
        let e = parse("[server]\ntls = \"files\"\ntls_cert = \"c.pem\"\n").unwrap_err();
        assert_eq!(e.key, "server.tls", "{e}");
        let e = parse("[server]\ntls_key = \"k.pem\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(2), "server.tls_key"), "{e}");
        let e = parse("[server]\n\nidle_timeout_s = 0\n").unwrap_err();
        assert_eq!(
            (e.line, e.key.as_str()),
            (Some(3), "server.idle_timeout_s"),
            "{e}"
        );
        let c = parse("[server]\nmax_connections_per_address = 0\ntls = \"off\"\n").unwrap();
        assert_eq!(c.server.max_connections_per_address, Some(0));
    }

    #[test]
    fn semantic_errors_name_the_key_line() {
        let e = parse("[event]\nname = \"x\"\nrules = \"fide-1999\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(3), "event.rules"), "{e}");
        let e = parse("[event]\ndelay = 7200\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(2), "event.delay"), "{e}");
        let e = parse("[game.black]\ntitle = \"Dr\"\n").unwrap_err();
        assert_eq!(
            (e.line, e.key.as_str()),
            (Some(2), "game.black.title"),
            "{e}"
        );
        assert!(e.message.contains("GM"));
        let e = parse("[event]\ndelay = \"ten\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(2), "event.delay"), "{e}");
        // The player's device needs the game's VI player.
        let e = parse("[player]\nname = \"Karl\"\ntoken = \"t\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (Some(3), "player.token"), "{e}");
        let c = parse("[game]\nvi_player = \"b\"\n[player]\ntoken = \"t\"\n").unwrap();
        assert_eq!(c.player.token.as_deref(), Some("t"));
    }
}
