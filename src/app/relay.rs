//! `eboard relay`: one event's feed merged from many board daemons (their
//! base URLs, or an MQTT broker they publish to), boards in order: one
//! `/games.pgn`, one LiveChess tree, one event stream; with `[lichess]` the
//! merged PGN is pushed to a lichess broadcast round.

use super::settings;
use super::shutdown::Shutdown;
use super::{bind, close_runtime, reader_runtime, runtime, serve_until, Anyhow};
use crate::config::Config;
use crate::server::AppState;
use anyhow::{anyhow, bail, Context};
use std::path::PathBuf;
use std::time::Duration;

/// The arguments of `eboard relay`.
#[derive(Debug, clap::Args)]
pub struct RelayArgs {
    /// The board daemons' base URLs (http://host:port), each bound to its
    /// table: `2=URL` (table 2), `3.2=URL` (game 3.2 only), or bare (the
    /// table of the first game it reports; docs/relay-integrity.md).
    #[arg(required_unless_present_any = ["mqtt", "config"])]
    urls: Vec<String>,
    /// Follow the boards through this MQTT broker instead: mqtt://host[:port]
    /// (plain TCP, port 1883) or mqtts://host[:port] (TLS, port 8883); no
    /// credentials in the URL (default: the --config file's [mqtt] url,
    /// when no board URLs are given).
    #[arg(long, value_name = "URL")]
    mqtt: Option<String>,
    /// With --mqtt: the username to log in with (default: the --config
    /// file's [mqtt] username). The password comes from the environment
    /// variable EBOARD_MQTT_PASSWORD or the --config file's [mqtt] password
    /// (never from the command line, which other users can see).
    #[arg(long, value_name = "USER")]
    mqtt_username: Option<String>,
    /// With mqtts://: a PEM file of CA certificates to trust besides the
    /// built-in webpki roots (default: the --config file's [mqtt] ca_file).
    #[arg(long, value_name = "FILE")]
    mqtt_ca_file: Option<String>,
    /// With --mqtt: only this event (its name as in the boards' config; default: every event).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    /// Follow only these rounds (`--round 3`, `--round 3,4`; default:
    /// every round, the latest one per table). With --mqtt, messages of
    /// other rounds are not subscribed to; from board URLs they are
    /// dropped (issue 41, docs/relay-integrity.md).
    #[arg(long, value_name = "R", value_delimiter = ',')]
    round: Vec<u32>,
    /// Follow only tables 1..=N (default: every table).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    boards: Option<u32>,
    /// With --mqtt: the first topic level (default: the --config file's
    /// [mqtt] topic_prefix, else eboard).
    #[arg(long, value_name = "PREFIX")]
    topic_prefix: Option<String>,
    /// A configuration file: its [lichess] section makes the relay push the
    /// merged PGN to a lichess broadcast round; its [mqtt] section gives the
    /// broker, the login and the CA file (the flags win).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Address to serve on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: String,
    /// Where the console keeps its acknowledgements and sessions across a
    /// restart, and a made TLS certificate (created when missing, mode
    /// 0700; default: the --config file's [arbiter] state_dir, else
    /// nothing is kept). Under systemd: StateDirectory's /var/lib/….
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
}

/// `eboard relay`: the boards' feeds (their HTTP streams, or their MQTT
/// topics) merged into one channel and served until SIGTERM or Ctrl-C; with
/// `[lichess]` in `--config`, the merged PGN is pushed there too.
pub fn relay(args: RelayArgs) -> anyhow::Result<()> {
    let RelayArgs {
        urls,
        mqtt,
        mqtt_username,
        mqtt_ca_file,
        event,
        topic_prefix,
        round,
        boards,
        config,
        listen,
        state_dir,
    } = args;
    let cfg = match &config {
        // Typed: a configuration error exits 78 (`main`), not restarted.
        Some(p) => Some(Config::load(p).map_err(anyhow::Error::new)?),
        None => None,
    };
    let shown = config
        .as_deref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let file_mqtt = cfg.as_ref().and_then(|c| c.mqtt.as_ref());
    // The broker: --mqtt, else the config's [mqtt] url when no board URLs are given.
    let url = match (&mqtt, file_mqtt) {
        (Some(u), _) => Some(u.clone()),
        (None, Some(m)) if urls.is_empty() => Some(m.url.clone()),
        _ => None,
    };
    let rt = runtime()?;
    let shutdown = Shutdown::new();
    shutdown
        .on_signals(rt.handle())
        .context("cannot install the SIGTERM/SIGINT handlers")?;
    let channel = std::sync::Arc::new(crate::broadcast::delay::Channel::new());
    // The arbiter's console: the config's accounts (none: the console
    // refuses every login) and, for the HTTP relay with a relay token, every
    // board's arbiter channel merged, rulings forwarded.
    let accounts = match &cfg {
        Some(c) => settings::console_accounts(c).anyhow()?,
        None => crate::console::access::Accounts::new(
            Vec::new(),
            crate::console::access::DEFAULT_SESSION,
            false,
        )
        .map_err(|e| anyhow!(e))?,
    };
    let relay_token = settings::relay_token(cfg.as_ref()).map_err(|e| anyhow!(e))?;
    // The MQTT relay's alerts from the boards' retained alert lists, for
    // the console's queue (`crate::mqtt::alert_list`).
    let (list_alerts, mut list_alerts_rx) = tokio::sync::mpsc::unbounded_channel();
    // The event's pairings: a table's game must be the pairing's (issue 41).
    let pairings_file = cfg
        .as_ref()
        .and_then(|c| c.arbiter.pairings.as_ref().map(PathBuf::from));
    let pairings = pairings_file.clone().map(pairings_of);
    // The HTTP relay's readers of the boards' public streams ([`reader_runtime`]).
    let mut readers = None;
    let console = match url {
        Some(url) => {
            if !urls.is_empty() {
                bail!("give either board URLs or --mqtt, not both");
            }
            let mut security = file_mqtt.map(settings::mqtt_security).unwrap_or_default();
            if let Some(u) = &mqtt_username {
                security.username = Some(u.clone());
            }
            if let Some(f) = &mqtt_ca_file {
                security.ca_file = Some(f.clone());
            }
            let broker = crate::mqtt::BrokerAddr::from_settings(
                &url,
                &security,
                std::env::var(crate::mqtt::PASSWORD_ENV).ok(),
            )
            .map_err(|(key, e)| {
                let flag = match key {
                    "url" => mqtt.as_ref().map(|_| "--mqtt"),
                    "username" => mqtt_username.as_ref().map(|_| "--mqtt-username"),
                    "ca_file" => mqtt_ca_file.as_ref().map(|_| "--mqtt-ca-file"),
                    _ => None,
                };
                match (flag, &cfg) {
                    (Some(f), _) => anyhow!("{f}: {e}"),
                    (None, Some(c)) => anyhow!("{}", c.error_at(&format!("mqtt.{key}"), e)),
                    (None, None) => anyhow!("[mqtt] {key}: {e}"),
                }
            })?;
            let prefix = topic_prefix
                .or_else(|| file_mqtt.and_then(|m| m.topic_prefix.clone()))
                .unwrap_or_else(|| crate::mqtt::DEFAULT_PREFIX.to_owned());
            crate::mqtt::check_prefix(&prefix).map_err(|e| anyhow!("--topic-prefix {e}"))?;
            tracing::info!("relay: following {broker}");
            // Rulings over the boards' signed command topic, when the
            // console has a signing key and knows the event.
            let ruling_key = cfg.as_ref().and_then(|c| c.arbiter.ruling_key.clone());
            let forward = match (ruling_key, &event) {
                (Some(path), Some(ev)) => {
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("[arbiter] ruling_key {path}"))?;
                    let key = crate::mqtt::command::SigningKey::from_seed_hex(&text)
                        .map_err(|e| anyhow!("[arbiter] ruling_key {path}: {e}"))?;
                    tracing::info!(public_key = %key.public_hex(), "relay: rulings signed and sent on the boards' command topics");
                    Some(std::sync::Arc::new(
                        crate::console::forward::Forwarder::with(super::rule::mqtt_forwarder(
                            broker.clone(),
                            prefix.clone(),
                            crate::mqtt::slug(Some(ev)),
                            key,
                        )),
                    ))
                }
                (Some(_), None) => {
                    bail!("[arbiter] ruling_key: give --event NAME (rulings are signed for one event)")
                }
                (None, _) => None,
            };
            // With accounts (someone can log in), the console's own channel:
            // the boards' arbiter channels where they publish them
            // (`[mqtt] arbiter_channel`), undelayed, the public feed for
            // the others (`crate::mqtt::relay`). Without, nothing undelayed
            // is followed. It rules through the signed command topics when
            // it has a key.
            let console_channel = (!accounts.is_empty())
                .then(|| std::sync::Arc::new(crate::broadcast::delay::Channel::with_backlog()));
            crate::mqtt::relay::start_with(
                rt.handle(),
                broker,
                prefix,
                event,
                crate::mqtt::relay::Outputs {
                    public: channel.clone(),
                    console: console_channel.clone(),
                    alerts: console_channel.as_ref().map(|_| list_alerts),
                    scope: crate::mqtt::relay::Scope {
                        rounds: round,
                        boards,
                    },
                    pairings,
                },
            )
            .anyhow()
            .context("--mqtt")?;
            crate::console::state::Console::new(
                accounts,
                console_channel.unwrap_or_else(|| channel.clone()),
                forward,
            )
        }
        None => {
            if mqtt_username.is_some() || mqtt_ca_file.is_some() || topic_prefix.is_some() {
                bail!("--mqtt-username, --mqtt-ca-file and --topic-prefix are for --mqtt");
            }
            if urls.is_empty() {
                bail!("{shown}: no [mqtt] section: give board URLs or --mqtt URL");
            }
            // Every board URL bound to its table; the refusals alerted on
            // the console (its channel with a relay token, else its queue).
            let arbiter_channel = relay_token
                .as_ref()
                .map(|_| std::sync::Arc::new(crate::broadcast::delay::Channel::with_backlog()));
            let alert: crate::broadcast::binding::AlertSink = match &arbiter_channel {
                Some(c) => {
                    let c = c.clone();
                    std::sync::Arc::new(move |a| c.publish(0, None, &[a]))
                }
                None => {
                    let tx = list_alerts.clone();
                    std::sync::Arc::new(move |a| {
                        let _ = tx.send(a);
                    })
                }
            };
            let bind = crate::broadcast::relay::Bind {
                scope: crate::broadcast::bound::Scope {
                    rounds: round,
                    boards,
                },
                pairings,
                alert: Some(alert),
                ..Default::default()
            };
            let r = readers.insert(reader_runtime()?);
            crate::broadcast::relay::start_bound(
                r.handle(),
                urls.clone(),
                channel.clone(),
                bind.clone(),
            )
            .anyhow()?;
            match relay_token {
                Some(token) => {
                    let arbiter = arbiter_channel.unwrap_or_default();
                    let fwd = std::sync::Arc::new(
                        crate::console::forward::Forwarder::new(
                            token.clone(),
                            crate::broadcast::relay::board_client(
                                &urls,
                                std::time::Duration::from_secs(5),
                            )
                            .map_err(|e| anyhow!(e))?,
                        )
                        .map_err(|e| anyhow!(e))?,
                    );
                    let table = fwd.clone();
                    crate::broadcast::relay::start_arbiter(
                        rt.handle(),
                        urls,
                        &token,
                        arbiter.clone(),
                        std::sync::Arc::new(move |game: &str, base: &str| {
                            table.set_board(game, base)
                        }),
                        bind,
                    )
                    .anyhow()?;
                    crate::console::state::Console::new(accounts, arbiter, Some(fwd))
                }
                None => {
                    tracing::info!("relay: no relay token ([arbiter] relay_token or EBOARD_RELAY_TOKEN): the console shows the public feed and rules nothing");
                    crate::console::state::Console::new(accounts, channel.clone(), None)
                }
            }
        }
    };
    let zone = match &cfg {
        Some(c) => c.time_zone(),
        None => crate::config::zone::EventZone::system(),
    };
    tracing::info!("relay: times in {}", zone.name());
    let console = std::sync::Arc::new(
        console
            .with_pairings(pairings_file)
            .with_time_zone(zone)
            .with_event_head(
                cfg.as_ref()
                    .map(crate::console::report::norm::EventHead::of)
                    .unwrap_or_default(),
            ),
    );
    console.spawn_feed(rt.handle());
    let fed = console.clone();
    rt.spawn(async move {
        while let Some(a) = list_alerts_rx.recv().await {
            fed.alerts.take(&a, crate::console::wall_clock::unix_ms());
        }
    });
    let state_dir = state_dir.or_else(|| {
        cfg.as_ref()
            .and_then(|c| c.arbiter.state_dir.as_ref().map(PathBuf::from))
    });
    keep_state(&console, state_dir.as_deref())?;
    if let Some(cfg) = &cfg {
        if let Some(target) = settings::lichess_target(cfg).anyhow()? {
            tracing::info!("pushing the PGN to {}", target.url());
            crate::broadcast::lichess_push::start(rt.handle(), target, channel.clone()).anyhow()?;
        }
    }
    let router = crate::server::router(AppState {
        public: channel,
        arbiter: None,
        console: Some(console),
    });
    let cert_dir = state_dir
        .as_deref()
        .or_else(|| config.as_deref().and_then(std::path::Path::parent))
        .map(|d| {
            if d.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                d
            }
        });
    let listening = super::settings::listening(cfg.as_ref(), cert_dir).anyhow()?;
    let signal = shutdown.signal();
    let served = rt.block_on(async {
        let l = bind(&listen, &listening).await?;
        serve_until(l, router, listening, signal).await
    });
    close_runtime(rt, Duration::from_millis(200));
    if let Some(r) = readers {
        close_runtime(r, Duration::from_millis(200));
    }
    served
}

/// Keeps the console's acknowledgements and sessions in `dir` (created
/// mode 0700 when missing); without one they last this run only. Damaged
/// files are set aside and alerted in the console's queue (never on the
/// public feed the queue may be made from). Errors name the directory or
/// the file.
fn keep_state(
    console: &crate::console::state::Console,
    dir: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let Some(dir) = dir else {
        tracing::warn!("relay: no --state-dir ([arbiter] state_dir): the console's acknowledgements and sessions last this run only");
        return Ok(());
    };
    if !dir.exists() {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("--state-dir {}", dir.display()))?;
    }
    let now = super::daemon::unix_now_ms();
    let files = crate::console::kept::ConsoleFiles::in_dir(dir);
    for d in console.keep(&files, now).map_err(|e| anyhow!(e))? {
        console.alerts.take(&d.alert_json(), now);
    }
    Ok(())
}

/// The pairings in `file` (`[arbiter] pairings`, TRF-16 or CSV) as the
/// relay checks a table's game against them ([`crate::broadcast::bound`]):
/// read again when the file changes (its length or modification time),
/// per round. A round the file does not pair, or a file that cannot be
/// read, leaves the players unchecked (the round and board still are),
/// said once at warn.
fn pairings_of(file: PathBuf) -> crate::broadcast::bound::Pairings {
    use crate::broadcast::bound::Paired;
    type Stamp = Option<(u64, std::time::SystemTime)>;
    // Per round: the file's stamp when read, its boards (None: unpaired).
    type Cache = std::collections::HashMap<u32, (Stamp, Option<Vec<Paired>>)>;
    let cache: std::sync::Mutex<Cache> = std::sync::Mutex::default();
    crate::broadcast::bound::Pairings::new(move |round: u32, board: u32| {
        let stamp: Stamp = std::fs::metadata(&file)
            .ok()
            .and_then(|m| Some((m.len(), m.modified().ok()?)));
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        // A file gone stays read as gone (said once) until it is back.
        let fresh = cache.get(&round).is_some_and(|(s, _)| *s == stamp);
        if !fresh {
            let shown = file.display().to_string();
            let read = std::fs::read(&file)
                .map_err(|e| format!("{shown}: {e}"))
                .and_then(|bytes| {
                    let (text, _) = crate::event::results::decode_trf(bytes);
                    let mut r = crate::event::read_round(&text, &shown, round)
                        .map_err(|e| e.to_string())?;
                    // As `eboard event` numbers a round robin's boards.
                    if crate::event::berger::says_round_robin(&r) {
                        crate::event::berger::number_boards(&mut r, &shown)
                            .map_err(|e| e.to_string())?;
                    }
                    Ok(r)
                });
            let games = match read {
                Ok(r) if !r.pairings.is_empty() => Some(
                    crate::event::assignments(&r, None, None)
                        .into_iter()
                        .map(|a| Paired::Players(a.white, a.black))
                        .collect(),
                ),
                Ok(_) => None,
                Err(e) => {
                    tracing::warn!(
                        "relay: [arbiter] pairings: {e}: the players of round {round}'s games are not checked"
                    );
                    None
                }
            };
            cache.insert(round, (stamp, games));
        }
        match cache.get(&round).and_then(|(_, g)| g.as_ref()) {
            None => Paired::Unknown,
            Some(games) => games
                .get(board as usize - 1)
                .filter(|_| board >= 1)
                .cloned()
                .unwrap_or(Paired::NoBoard(games.len() as u32)),
        }
    })
}
