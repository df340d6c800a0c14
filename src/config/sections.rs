//! The TOML sections of the configuration file, one struct each, with the
//! values serde checks as it reads them (`docs/config` keys in `eboard.toml(5)`).

use crate::model::{
    ClockStartAt, Edition, Lang, Mode, Player, Regulations, Sensing, Supervision, WordChoice,
};
use serde::Deserialize;

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
    /// 2023 A.5.2 (rapid without adequate supervision; blitz through
    /// B.3): `true`, the board rules a completed illegal move at the press
    /// as the arbiter observing it ("If the arbiter observes an action
    /// taken under Article 7.5.1 … he/she shall act according to Article
    /// 7.5.5"). Absent or `false`, the Laws' default: the board alerts the
    /// arbiter and waits for his intervention or the opponent's claim
    /// before the opponent's next move; with neither, the move stands.
    /// No effect elsewhere (docs/profiles.md, "Who decides").
    pub board_observes_illegal_moves: Option<bool>,
    /// The event's default time, minutes after the start of the session: a
    /// player arriving later loses by forfeit (2023 6.7.1, 2009 §6.6a,
    /// 2001 §6.7). Absent: the profile's (2023: 0; 2009 Danish: 15, DSU 004
    /// §11; 2009 Norwegian: 60; 2001: 60). A forfeit entered before it has
    /// passed is refused unless the arbiter decides so explicitly.
    pub default_time_min: Option<u64>,
    /// The event's regulations besides the Laws, whatever their edition:
    /// `"dsu-004"` (the Danish Chess Union's, seed 004) sets the default
    /// time to 15 minutes (§11; `default_time_min` still wins, as an
    /// invitation's own rule) and has results reported to the arbiter
    /// (§15). Absent: the Laws' edition's defaults.
    pub regulations: Option<Regulations>,
    /// The round's scheduled start, RFC 3339 with its offset
    /// (`"2026-11-26T15:00:00+01:00"`; a TOML date-time is taken too): the
    /// default time counts from it (2023 6.7.1: White's clock is started
    /// "at the scheduled start", 6.6; DSU 004 §11: "the round's announced
    /// start"). Absent: from when White's clock first runs on the board
    /// (the arbiter's start or the first press, `clock.start_at`), which
    /// is never earlier. A board's assignment (`eboard event
    /// --session-start`) sets it per round.
    #[serde(default, deserialize_with = "date_time")]
    pub session_start: Option<String>,
    /// Speak the announcements (Appendix E) on the sound device with espeak-ng.
    pub speak: Option<bool>,
    /// The event's time zone, an IANA name of the tz database
    /// (`"Europe/Copenhagen"`): every wall time the console and the round
    /// report show is in it ([`super::zone`]). Absent: the machine's local
    /// zone (`TZ`, `/etc/localtime`), else UTC.
    pub time_zone: Option<String>,
    /// The chief arbiter, as the round report names him for the norm file
    /// (`"IA Hansen, Peter (FIDE id 1401234)"`).
    pub chief_arbiter: Option<String>,
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
    /// Connections from one address (an IPv6 /128) at once; 0: no limit
    /// (behind a reverse proxy on the same host). Default 32.
    pub max_connections_per_address: Option<usize>,
    /// Of `max_connections`, the last ones kept for connections that showed
    /// the arbiter's credentials (default 64).
    pub reserved_connections: Option<usize>,
    /// Public streams (`/events`, `/ws`) at once (default 1024, at most a
    /// quarter of `max_connections`).
    pub max_streams: Option<usize>,
    /// Public streams from one address (an IPv6 /128) at once (default 4;
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
    /// Seconds a public SSE stream runs before it ends with its lease's
    /// proof and the client reconnects (default 60; `docs/server.md`,
    /// "SSE streams end after a lease").
    pub stream_lease_s: Option<u64>,
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
    /// Whether the clock keeps running while the daemon is down (a power
    /// cut, a crash; issue 40.4, `docs/clock.md`, "A restart"): a DGT 3000
    /// has its own batteries and does (default `true`); the built-in clock
    /// and the clock engine alone (`simulated`: the daemon keeps the time,
    /// the presses come as records) are the daemon itself and die with it
    /// (default `false`). When it does not, a restart stops the clocks and
    /// charges the downtime to nobody until the arbiter rules (2023 7.1).
    /// A recording replayed (`eboard run` on a trace file) brings its own
    /// times and is not concerned.
    pub runs_while_down: Option<bool>,
}

impl ClockConfig {
    /// [`ClockConfig::runs_while_down`] with the device's default.
    pub fn clock_runs_while_down(&self) -> bool {
        self.runs_while_down
            .unwrap_or(matches!(self.device, ClockDevice::Dgt3000))
    }
}

/// A date and time: a TOML string (checked as RFC 3339 by
/// `Config::check`) or a TOML offset date-time, kept as its RFC 3339 text.
fn date_time<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    use serde::de::Error;
    match Option::<toml::Value>::deserialize(d)? {
        None => Ok(None),
        Some(toml::Value::String(s)) => Ok(Some(s)),
        Some(toml::Value::Datetime(dt)) => Ok(Some(dt.to_string())),
        Some(other) => Err(D::Error::custom(format!(
            "expected a date and time with its offset, e.g. \"2026-11-26T15:00:00+01:00\", found a {}",
            other.type_str()
        ))),
    }
}
