//! Start-up: the config's sections become each consumer's settings — the
//! arbiter's [`GameConfig`] (through the game's [`Header`]), the feed's
//! [`GameInfo`], the clock's [`DeviceSpec`], the MQTT broker
//! ([`BrokerAddr`]) and the lichess target ([`PushTarget`]). This is where
//! the files the config names are read (`ca_file`) and the environment's
//! secrets looked up; every error names the config file, the key's line
//! and the key, as the config's own parse errors do
//! (`board.toml:4: key 'mqtt.ca_file': …`).
//!
//! Only this module and the rest of [`crate::app`] see both the config and
//! the consumers (the dependency rule of `docs/dev/architecture.md`).

use crate::arbiter::GameConfig;
use crate::broadcast::lichess_push::{self, PushTarget};
use crate::broadcast::public::GameInfo;
use crate::clock::open::DeviceSpec;
use crate::clock::TimeControl;
use crate::config::{ClockDevice, Config, ConfigFileError, MqttConfig};
use crate::model::{BoardId, ClockStartAt, Player};
use crate::mqtt::{self, BrokerAddr};
use crate::trace::Header;

/// What `eboard run` needs from the config beyond the game itself, resolved
/// (files read, secrets looked up) before anything starts.
#[derive(Debug, Clone)]
pub struct Startup {
    /// The clock device to open.
    pub clock: DeviceSpec,
    /// The MQTT uplink, when the config has `[mqtt]`.
    pub mqtt: Option<MqttUplink>,
    /// The lichess push, when the config has `[lichess]`.
    pub lichess: Option<PushTarget>,
}

/// The broker a board publishes to and the first topic level.
#[derive(Debug, Clone)]
pub struct MqttUplink {
    /// The broker with its login and extra trusted roots.
    pub broker: BrokerAddr,
    /// The first topic level (default [`mqtt::DEFAULT_PREFIX`]).
    pub prefix: String,
    /// `[mqtt] arbiter_channel`: the undelayed arbiter channel is published
    /// too ([`mqtt::arbiter`]); checked against the broker
    /// ([`mqtt::arbiter::check_broker`]).
    pub arbiter_channel: bool,
}

impl Startup {
    /// Checks and resolves `cfg`'s consumers' settings: the game settings
    /// (rules, mode, time control, start position), the MQTT broker (its
    /// URL, login and `ca_file`, read), the lichess target (`ca_file` read,
    /// the token) and the clock device.
    pub fn resolve(cfg: &Config) -> Result<Startup, ConfigFileError> {
        let mqtt = mqtt_uplink(cfg)?;
        let lichess = lichess_target(cfg)?;
        game_config(cfg, None)?;
        let clock = clock_device(cfg)?;
        // Weak tokens and bad accounts stop the start here.
        console_accounts(cfg)?;
        Ok(Startup {
            clock,
            mqtt,
            lichess,
        })
    }
}

/// The trace header of `cfg`'s game: the config's settings, with `base`
/// (a recorded trace's header) filling in what the config leaves unset.
pub fn game_header(cfg: &Config, base: Option<&Header>) -> Header {
    let b = base.cloned().unwrap_or_else(|| Header {
        version: 1,
        boards: vec![BoardId::Main],
        ..Header::default()
    });
    let e = &cfg.event;
    let g = &cfg.game;
    let or = |a: &Option<String>, b: Option<String>| a.clone().or(b);
    Header {
        version: 1,
        sensing: cfg.board.sensing.map(Into::into).unwrap_or(b.sensing),
        boards: if g.vi_player.is_some() || cfg.board.tactile_hw.is_some() {
            vec![BoardId::Main, BoardId::Tactile]
        } else {
            b.boards.clone()
        },
        rules: e.rules.or(b.rules),
        mode: e.mode.or(b.mode),
        time_control: or(&e.time_control, b.time_control),
        start_fen: or(&g.start_fen, b.start_fen),
        white: or(&g.white.name, b.white),
        black: or(&g.black.name, b.black),
        event: or(&e.name, b.event),
        round: Some(cfg.round_board()),
        language: e.language.or(b.language),
        vi_player: match g.vi_player.as_deref() {
            Some("w") => Some(shakmaty::Color::White),
            Some("b") => Some(shakmaty::Color::Black),
            _ => b.vi_player,
        },
        site: or(&e.site, b.site),
        date: or(&e.date, b.date),
        supervision: e.supervision.or(b.supervision),
        words: g.words.or(b.words),
        default_time_ms: e
            .default_time_min
            .map(|min| min.saturating_mul(60_000))
            .or(e.regulations.map(|r| r.default_time().0))
            .or(b.default_time_ms),
        // Round time needs the round's clock: [`session_start_ms`] (the
        // daemon, at the game's start); a recording keeps its own.
        session_start_ms: b.session_start_ms,
        board_observes_illegal_moves: e
            .board_observes_illegal_moves
            .or(b.board_observes_illegal_moves),
    }
}

/// `[event] session_start` (the round's scheduled start, RFC 3339) in
/// round ms of a round clock whose time 0 is `started_at_unix_ms` running
/// at `speed` (negative: the round's clock started after it); `None` when
/// the config has none (the default time then counts from when White's
/// clock first runs). Checked when the config was read.
pub fn session_start_ms(cfg: &Config, started_at_unix_ms: u64, speed: f64) -> Option<i64> {
    let unix = crate::config::instant::parse_rfc3339(cfg.event.session_start.as_deref()?).ok()?;
    let limit = crate::model::MAX_TRACE_MS as f64;
    let round = (unix as f64 - started_at_unix_ms as f64) * speed;
    Some(round.clamp(-limit, limit) as i64)
}

/// The arbiter's settings of `cfg`'s game (with `base` as in
/// [`game_header`]); errors name the config key (`event.time_control`, …).
pub fn game_config(cfg: &Config, base: Option<&Header>) -> Result<GameConfig, ConfigFileError> {
    GameConfig::from_header(&game_header(cfg, base), None, None).map_err(|err| {
        let key = match err.key {
            "start_fen" => "game.start_fen",
            "rules" => "event.rules",
            "mode" => "event.mode",
            _ => "event.time_control",
        };
        cfg.error_at(key, err.message)
    })
}

/// When White's clock first runs (§6.5): the config's `clock.start_at`, or
/// for a board on its sensors (`live`) when the game is started (the
/// arbiter resumes the clocks or the first press: a board switched on
/// before the round costs no one time), and for a recording or standard
/// input at the daemon's start (their `t = 0`).
pub fn clock_start_at(cfg: &Config, live: bool) -> ClockStartAt {
    cfg.clock.start_at.unwrap_or(if live {
        ClockStartAt::ArbiterOrPress
    } else {
        ClockStartAt::RoundStart
    })
}

/// The feed's description of the game: `cfg`'s round, board, event and
/// players, with the game's header `h` filling in the names the config
/// leaves unset; round time 0 is `started_at_unix_ms`.
pub fn game_info(
    cfg: &Config,
    h: &Header,
    started_at_unix_ms: u64,
    speed: f64,
    delay_ms: u64,
) -> GameInfo {
    let h = h.clone();
    let named = |p: &Player, name: &Option<String>| Player {
        name: p.name.clone().or_else(|| name.clone()),
        ..p.clone()
    };
    GameInfo {
        round: cfg.game.round,
        board: cfg.game.board,
        event: h.event,
        site: h.site,
        country: cfg.event.country.clone(),
        website: cfg.event.website.clone(),
        date: h.date,
        mode: h.mode.unwrap_or_default(),
        // The feeds carry the PGN tag (the periods, without eboard's own
        // `@base` start suffix, which no consumer reads); text that does not
        // parse (validated before, see `game_config`) is passed on as is.
        time_control: h
            .time_control
            .map(|tc| TimeControl::parse(&tc).map_or(tc, |parsed| parsed.pgn_tag())),
        white: named(&cfg.game.white, &h.white),
        black: named(&cfg.game.black, &h.black),
        started_at_unix_ms,
        speed,
        delay_ms,
        trial: cfg.board.source == crate::config::SourceKind::Trial,
    }
}

/// The clock device `[clock]` names; errors name the missing key.
pub fn clock_device(cfg: &Config) -> Result<DeviceSpec, ConfigFileError> {
    let c = &cfg.clock;
    let missing = |key: &str, why: &str| cfg.error_at(key, why);
    Ok(match c.device {
        ClockDevice::Simulated => DeviceSpec::Simulated,
        ClockDevice::Dgt3000 => DeviceSpec::Dgt3000 {
            port: c.port.clone().ok_or_else(|| {
                missing(
                    "clock.port",
                    "device = \"dgt3000\" needs the serial port, e.g. \"/dev/ttyACM0\"",
                )
            })?,
        },
        ClockDevice::Builtin => DeviceSpec::Builtin {
            white_pin: c.white_pin.ok_or_else(|| {
                missing(
                    "clock.white_pin",
                    "device = \"builtin\" needs White's button (BCM GPIO number)",
                )
            })?,
            black_pin: c.black_pin.ok_or_else(|| {
                missing(
                    "clock.black_pin",
                    "device = \"builtin\" needs Black's button (BCM GPIO number)",
                )
            })?,
            lcd_addr: c.lcd_address.unwrap_or(0x27),
        },
    })
}

/// `[mqtt]`'s login and trust keys as the MQTT client's settings.
pub fn mqtt_security(m: &MqttConfig) -> mqtt::Security {
    mqtt::Security {
        username: m.username.clone(),
        password: m.password.clone(),
        ca_file: m.ca_file.clone(),
    }
}

/// The broker of `[mqtt]` (its `ca_file` read, the password of
/// [`mqtt::PASSWORD_ENV`] winning) and the topic prefix; `None` without
/// `[mqtt]`.
pub fn mqtt_uplink(cfg: &Config) -> Result<Option<MqttUplink>, ConfigFileError> {
    let Some(m) = &cfg.mqtt else {
        return Ok(None);
    };
    let broker = BrokerAddr::from_settings(
        &m.url,
        &mqtt_security(m),
        std::env::var(mqtt::PASSWORD_ENV).ok(),
    )
    .map_err(|(key, e)| cfg.error_at(&format!("mqtt.{key}"), e))?;
    let prefix = match &m.topic_prefix {
        Some(p) => {
            mqtt::check_prefix(p).map_err(|e| cfg.error_at("mqtt.topic_prefix", e))?;
            p.clone()
        }
        None => mqtt::DEFAULT_PREFIX.to_owned(),
    };
    let arbiter_channel = m.arbiter_channel == Some(true);
    if arbiter_channel {
        mqtt::arbiter::check_broker(&broker)
            .map_err(|e| cfg.error_at("mqtt.arbiter_channel", e))?;
    }
    Ok(Some(MqttUplink {
        broker,
        prefix,
        arbiter_channel,
    }))
}

/// The lichess target of `[lichess]` (its `ca_file` read, the token of
/// `EBOARD_LICHESS_TOKEN` winning); `None` without `[lichess]`.
pub fn lichess_target(cfg: &Config) -> Result<Option<PushTarget>, ConfigFileError> {
    let Some(l) = &cfg.lichess else {
        return Ok(None);
    };
    let settings = lichess_push::Settings {
        round_id: l.round_id.clone(),
        token: l.token.clone(),
        base_url: l.base_url.clone(),
        ca_file: l.ca_file.clone(),
    };
    PushTarget::from_settings(&settings)
        .map(Some)
        .map_err(|e| cfg.error_at(&format!("lichess.{}", e.key), e.message))
}

/// The HTTP listener's limits and TLS (`[server]`, `docs/server.md`).
/// `cert_dir` is where a made certificate is kept (the journal's directory,
/// else the config file's); without one (a relay with no config) the
/// certificate is made for this process only. The limits are fitted to the
/// process's file-descriptor limit.
pub fn listening(
    cfg: Option<&Config>,
    cert_dir: Option<&std::path::Path>,
) -> Result<crate::server::Listening, ConfigFileError> {
    use crate::server::{certificate, Limits, Listening};
    use std::time::Duration;
    let default = crate::config::ServerConfig::default();
    let sv = cfg.map_or(&default, |c| &c.server);
    let at = |key: &str, message: String| match cfg {
        Some(c) => c.error_at(key, message),
        None => ConfigFileError {
            file: String::new(),
            line: None,
            key: key.to_owned(),
            message,
        },
    };
    let d = Limits::default();
    let limits = Limits {
        max_connections: sv.max_connections.unwrap_or(d.max_connections),
        per_address: sv.max_connections_per_address.unwrap_or(d.per_address),
        reserved: sv.reserved_connections.unwrap_or(d.reserved),
        max_streams: sv.max_streams.unwrap_or(d.max_streams),
        streams_per_address: sv.max_streams_per_address.unwrap_or(d.streams_per_address),
        stream_deadline: sv
            .stream_deadline_s
            .map_or(d.stream_deadline, |s| Duration::from_secs(s.max(1))),
        idle_timeout: sv
            .idle_timeout_s
            .map_or(d.idle_timeout, Duration::from_secs),
        write_timeout: sv
            .write_timeout_s
            .map_or(d.write_timeout, Duration::from_secs),
        stream_lease: sv
            .stream_lease_s
            .map_or(d.stream_lease, Duration::from_secs),
        per_prefix: d.per_prefix,
    };
    let (limits, fds) = limits.fitted_to_process();
    tracing::info!(
        max_connections = limits.max_connections,
        per_address = limits.per_address,
        reserved = limits.reserved,
        max_streams = limits.max_streams,
        streams_per_address = limits.streams_per_address,
        idle_timeout_s = limits.idle_timeout.as_secs(),
        write_timeout_s = limits.write_timeout.as_secs(),
        stream_lease_s = limits.stream_lease.as_secs(),
        per_prefix = limits.per_prefix,
        open_file_limit = fds,
        "HTTP limits"
    );
    let tls = match sv.tls.as_deref().unwrap_or("auto") {
        "off" => {
            tracing::warn!("[server] tls = \"off\": the arbiter's routes answer on loopback only");
            None
        }
        "files" => {
            let (Some(c), Some(k)) = (&sv.tls_cert, &sv.tls_key) else {
                return Err(at(
                    "server.tls",
                    "tls = \"files\" needs tls_cert and tls_key".into(),
                ));
            };
            Some(
                certificate::from_files(c.as_ref(), k.as_ref())
                    .map_err(|e| at("server.tls_cert", e))?,
            )
        }
        _ => match cert_dir {
            Some(dir) => {
                let (tls, made) = certificate::kept_in(dir).map_err(|e| at("server.tls", e))?;
                if made {
                    tracing::info!(dir = %dir.display(), fingerprint = %tls.fingerprint, "made a TLS certificate (self-signed; pin its fingerprint)");
                }
                Some(tls)
            }
            None => {
                let tls = certificate::ephemeral().map_err(|e| at("server.tls", e))?;
                tracing::warn!(fingerprint = %tls.fingerprint, "TLS certificate made for this run only (no directory to keep it: give --config)");
                Some(tls)
            }
        },
    };
    Ok(Listening { limits, tls })
}

/// The listeners' outputs of `[voice]` (`docs/voice.md`): each player's
/// device, channel, speed, volume and variant; the arbiter's, if set.
/// The values were checked when the config was read.
pub fn voice_routing(cfg: &Config) -> crate::voice::output::Routing {
    use crate::voice::output::{Channel, Listener, Routing};
    let listener = |l: &Option<crate::config::ListenerConfig>| {
        let l = l.clone().unwrap_or_default();
        Listener {
            device: l.device,
            channel: l
                .channel
                .as_deref()
                .and_then(|c| c.parse::<Channel>().ok())
                .unwrap_or_default(),
            speed_wpm: l.speed,
            volume_percent: l.volume.unwrap_or(100),
            variant: l.variant,
        }
    };
    Routing {
        white: listener(&cfg.voice.white),
        black: listener(&cfg.voice.black),
        arbiter: cfg
            .voice
            .arbiter
            .as_ref()
            .map(|_| listener(&cfg.voice.arbiter)),
    }
}

/// The speech rate the controller's estimate assumes: the slowest
/// player's configured speed (default 175 words per minute).
pub fn voice_wpm(cfg: &Config) -> u32 {
    [&cfg.voice.white, &cfg.voice.black]
        .into_iter()
        .filter_map(|l| l.as_ref().and_then(|l| l.speed))
        .min()
        .unwrap_or(crate::voice::DEFAULT_WPM)
}

/// The console's accounts (`docs/console.md`): `[arbiter] token` (or
/// `EBOARD_ARBITER_TOKEN`) as one account of role `arbiter` named
/// `[arbiter] name`, and every `[[arbiter.accounts]]`. Weak tokens, bad
/// hashes, unknown roles and one name in two roles are refused, naming the key.
pub fn console_accounts(cfg: &Config) -> Result<crate::console::access::Accounts, ConfigFileError> {
    use crate::console::access::{check_token, Account, Accounts, Role, Secret, DEFAULT_SESSION};
    let a = &cfg.arbiter;
    let mut accounts = Vec::new();
    if let Some(token) = crate::console::board::arbiter_token(a.token.as_deref()) {
        check_token(&token).map_err(|e| {
            if std::env::var("EBOARD_ARBITER_TOKEN").is_ok_and(|t| !t.is_empty()) {
                cfg.error_at("arbiter.token", format!("EBOARD_ARBITER_TOKEN: {e}"))
            } else {
                cfg.error_at("arbiter.token", e)
            }
        })?;
        accounts.push(Account {
            name: a.name.clone().unwrap_or_else(|| "arbiter".to_owned()),
            role: Role::Arbiter,
            secret: Secret::Token(token),
        });
    }
    for (i, x) in a.accounts.iter().enumerate() {
        let key = |k: &str| format!("arbiter.accounts.{}.{k}", i + 1);
        let role = match &x.role {
            Some(r) => r
                .parse()
                .map_err(|e: String| cfg.error_at(&key("role"), e))?,
            None => Role::Arbiter,
        };
        let secret = match (&x.secret_hash, &x.token) {
            (Some(h), None) => Secret::Hash(h.clone()),
            (None, Some(t)) => {
                check_token(t).map_err(|e| cfg.error_at(&key("token"), e))?;
                Secret::Token(t.clone())
            }
            _ => {
                return Err(cfg.error_at(
                    &key("name"),
                    format!(
                        "account \"{}\": give either secret_hash or token (one of them)",
                        x.name
                    ),
                ))
            }
        };
        accounts.push(Account {
            name: x.name.clone(),
            role,
            secret,
        });
    }
    let ttl = a
        .session_s
        .map_or(DEFAULT_SESSION, std::time::Duration::from_secs);
    if ttl.is_zero() {
        return Err(cfg.error_at("arbiter.session_s", "a session must last at least 1 second"));
    }
    let legacy = usize::from(crate::console::board::arbiter_token(a.token.as_deref()).is_some());
    Accounts::new(accounts, ttl, a.secure_cookie.unwrap_or(false)).map_err(|e| {
        // "account N …": N counts the [arbiter] token first when there is one.
        let n = e
            .strip_prefix("account ")
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
        match n.checked_sub(legacy) {
            Some(i) if i >= 1 => cfg.error_at(&format!("arbiter.accounts.{i}.name"), e),
            _ => cfg.error_at("arbiter.name", e),
        }
    })
}

/// The console accounts whose secrets a board's config carries (issue
/// 24.10, `docs/console.md`, "Where the secrets live"): every
/// `[[arbiter.accounts]]` of role `arbiter` or `deputy`, each as a warning
/// naming its key. A board needs only the relay's account (role `relay`)
/// and/or the console's public keys (`[mqtt] command_keys`); the arbiters'
/// accounts belong on the relay, whose console they log in to. Warned, not
/// refused: a board without a relay (one game, a club) is its own console
/// and needs them there.
pub fn console_secrets_on_board(cfg: &Config) -> Vec<String> {
    cfg.arbiter
        .accounts
        .iter()
        .enumerate()
        .filter(|(_, a)| a.role.as_deref().unwrap_or("arbiter") != "relay")
        .map(|(i, a)| {
            format!(
                "key 'arbiter.accounts.{}' (\"{}\", {}): a console account's {} on a board, where anyone \
                 with the SD card reads it; give the arbiters' accounts to the relay only and the board \
                 the relay's account (role relay) and/or [mqtt] command_keys (unless this board is its \
                 own console, with no relay)",
                i + 1,
                a.name,
                a.role.as_deref().unwrap_or("arbiter"),
                if a.token.is_some() { "token" } else { "secret_hash" }
            )
        })
        .collect()
}

/// The relay's token for the boards: `EBOARD_RELAY_TOKEN`, else `[arbiter]
/// relay_token`; checked for strength.
pub fn relay_token(cfg: Option<&Config>) -> Result<Option<String>, String> {
    let configured = cfg.and_then(|c| c.arbiter.relay_token.clone());
    let token = std::env::var("EBOARD_RELAY_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
        .or(configured.filter(|t| !t.is_empty()));
    if let Some(t) = &token {
        crate::console::access::check_token(t).map_err(|e| match cfg {
            Some(c) => c.error_at("arbiter.relay_token", e).to_string(),
            None => format!("EBOARD_RELAY_TOKEN: {e}"),
        })?;
    }
    Ok(token)
}

#[cfg(test)]
mod tests;
