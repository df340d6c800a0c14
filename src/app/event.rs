//! `eboard event`: a round's pairings (TRF-16 or CSV, [`crate::event`])
//! into one [`BoardAssignment`] per board — printed as the pairing list,
//! published retained over MQTT (QoS 1) on each board's config topic
//! ([`crate::event::config_topic`]), and/or written as config files
//! (`board-N.toml`: the assignment as a fragment for `eboard run
//! --pairing`, or, with `--base`, a whole config per board). See
//! `docs/event.md`.

use super::Anyhow;
use crate::config::Config;
use crate::event::{self, fmt_score, BoardAssignment, RoundPairings};
use crate::mqtt::{self, BrokerAddr};
use anyhow::{anyhow, bail, Context};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long `eboard event` waits for the broker to acknowledge every
/// retained configuration.
pub const PUBLISH_WAIT: Duration = Duration::from_secs(15);

/// The arguments of `eboard event`.
#[derive(Debug, clap::Args)]
pub struct EventArgs {
    /// The pairing file: FIDE's TRF-16 (Swiss-Manager, Vega: "export TRF")
    /// or a CSV with a header row (docs/event.md).
    pub file: PathBuf,
    /// The round to set up.
    #[arg(long, value_name = "N")]
    pub round: u32,
    /// The event's name (default: the TRF's 012 line). The boards' topics
    /// carry it, so it must be the boards' [event] name.
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// The time control every board is set to, in eboard's syntax
    /// (docs/clock.md, e.g. 40/5400+30:1800+30; default: each board's own).
    #[arg(long, value_name = "TC")]
    pub time_control: Option<String>,
    /// The round's scheduled start, RFC 3339 with its offset
    /// (2026-11-26T15:00:00+01:00): every board's default time counts from
    /// it (2023 6.7.1, DSU 004 §11; default: each board's own [event]
    /// session_start, else when White's clock first runs).
    #[arg(long, value_name = "TIME")]
    pub session_start: Option<String>,
    /// Publish each board's configuration retained to this MQTT broker:
    /// mqtt://host[:port] or mqtts://host[:port] (default: the --config
    /// file's [mqtt] url, if given).
    #[arg(long, value_name = "URL")]
    pub mqtt: Option<String>,
    /// With --mqtt: the username (the password comes from
    /// EBOARD_MQTT_PASSWORD or the --config file's [mqtt] password).
    #[arg(long, value_name = "USER")]
    pub mqtt_username: Option<String>,
    /// With mqtts://: a PEM file of extra CA certificates to trust.
    #[arg(long, value_name = "FILE")]
    pub mqtt_ca_file: Option<String>,
    /// The first topic level (default: the --config file's, else eboard).
    #[arg(long, value_name = "PREFIX")]
    pub topic_prefix: Option<String>,
    /// A configuration file whose [mqtt] section gives the broker, login
    /// and CA file (the flags win).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The number of boards (tables) in the hall: the retained
    /// configuration of every board beyond this round's games is cleared,
    /// so no board starts with an earlier round's players.
    #[arg(long, value_name = "N")]
    pub boards: Option<u32>,
    /// How the boards are numbered: swiss (FIDE's order for publishing Swiss
    /// pairings: score, sum of scores, rank) or berger (a round robin's, the
    /// Berger table's order; docs/event.md). Default: berger when the TRF's
    /// 092 line says round robin, else swiss (with a warning when the round
    /// looks like a round of the Berger table).
    #[arg(long, value_name = "ORDER", value_parser = ["swiss", "berger"])]
    pub board_order: Option<String>,
    /// Write each board's configuration into this directory as
    /// board-N.toml (for boards without a broker: `eboard run --pairing`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// With --out: write whole configuration files, this file with each
    /// board's [event] name and time control and [game] set.
    #[arg(long, value_name = "FILE", requires = "out")]
    pub base: Option<PathBuf>,
}

/// `eboard event`: reads the round, prints the pairing list (boards, then
/// the players without a board and why), publishes and writes what is asked.
pub fn event(args: EventArgs) -> anyhow::Result<()> {
    let shown = args.file.display().to_string();
    let text = std::fs::read(&args.file).with_context(|| shown.clone())?;
    // TRF files of older programs are Windows-1252 (Latin-1 but for
    // 0x80-0x9F): read as such when not UTF-8.
    let (text, _) = event::results::decode_trf(text);
    let mut round = event::read_round(&text, &shown, args.round).anyhow()?;
    board_order(&mut round, args.board_order.as_deref(), &shown)?;
    if let Some(tc) = &args.time_control {
        crate::clock::TimeControl::parse(tc)
            .map_err(|e| anyhow!("--time-control \"{tc}\": {e}"))?;
    }
    if let Some(s) = &args.session_start {
        crate::config::instant::parse_rfc3339(s).map_err(|e| anyhow!("--session-start {e}"))?;
    }
    let mut boards =
        event::assignments(&round, args.event.as_deref(), args.time_control.as_deref());
    for a in &mut boards {
        a.session_start.clone_from(&args.session_start);
    }
    for a in &boards {
        a.check()
            .map_err(|(field, m)| anyhow!("{shown}: board {}: {field}: {m}", a.board))?;
    }
    // The list names players from the pairing file: no control character
    // of it reaches the arbiter's terminal (the readers refuse them; this
    // is the terminal's own guard, issue 41).
    print!(
        "{}",
        crate::model::text::escape_controls_but_newlines(&pairing_list(&round, &boards))
    );
    let cfg = match &args.config {
        Some(p) => Some(Config::load(p).anyhow()?),
        None => None,
    };
    let event_name = boards
        .first()
        .and_then(|a| a.event.clone())
        .or_else(|| cfg.as_ref().and_then(|c| c.event.name.clone()));
    if let Some(dir) = &args.out {
        write_files(dir, &boards, args.base.as_deref())?;
        println!("wrote {} board files to {}", boards.len(), dir.display());
    }
    if let Some((broker, prefix)) = broker(&args, cfg.as_ref())? {
        let slug = mqtt::slug(event_name.as_deref());
        let mut messages: Vec<(String, Vec<u8>)> = Vec::new();
        for a in &boards {
            let json = serde_json::to_vec(a).context("board configuration as JSON")?;
            messages.push((event::config_topic(&prefix, &slug, a.board), json));
        }
        let last = boards.iter().map(|a| a.board).max().unwrap_or(0);
        for b in last + 1..=args.boards.unwrap_or(0) {
            // An empty retained message clears the topic (MQTT 3.1.1 §3.3.1.3).
            messages.push((event::config_topic(&prefix, &slug, b), Vec::new()));
        }
        publish_retained(&broker, &messages)?;
        println!(
            "published {} board configurations to {broker} under {prefix}/{slug}/board/N/config",
            boards.len()
        );
    }
    Ok(())
}

/// Numbers a round robin's boards by the Berger table
/// ([`event::berger`]): with `--board-order berger`, or when the TRF's
/// `092` says round robin (unless `--board-order swiss`). A round that
/// fits a round of the table, everyone paired, in a file that does not say
/// what it is gets a warning naming the flag: Swiss numbering would send
/// every game of a round robin to another table.
fn board_order(round: &mut RoundPairings, flag: Option<&str>, shown: &str) -> anyhow::Result<()> {
    use crate::event::berger;
    if crate::event::berger_order(round, flag) {
        berger::number_boards(round, shown).anyhow()?;
        if flag.is_none() {
            tracing::info!(
                "{shown}: boards in the Berger table's order (the file's 092 line: \"{}\")",
                round.system.as_deref().unwrap_or("")
            );
        }
    } else if flag.is_none() {
        let everyone = round.pairings.len() as u32 == round.players / 2;
        if everyone && berger::fits(round) {
            tracing::warn!(
                "{shown}: round {} fits a round of the Berger table (a round robin) and the file does not say which system it is: the boards are numbered as a Swiss round's; give --board-order berger for a round robin, --board-order swiss to silence this",
                round.round
            );
        }
    }
    Ok(())
}

/// The pairing list as the arbiter reads it: one line per board (scores
/// before the round when the file has them), then the players without a
/// board and why.
pub fn pairing_list(round: &RoundPairings, boards: &[BoardAssignment]) -> String {
    let mut s = format!(
        "{} round {}: {} boards\n",
        boards
            .first()
            .and_then(|a| a.event.as_deref())
            .unwrap_or("event"),
        round.round,
        boards.len()
    );
    let name = |p: &crate::model::Player| {
        let mut n = p.name.clone().unwrap_or_else(|| "?".into());
        if let Some(t) = &p.title {
            n = format!("{t} {n}");
        }
        if let Some(r) = p.rating {
            n.push_str(&format!(" ({r})"));
        }
        n
    };
    let order = event::order_boards(&round.pairings);
    for (a, (_, p)) in boards.iter().zip(order) {
        let scores = if p.white_rank > 0 {
            format!(
                "  [{} - {}]",
                fmt_score(p.white_score),
                fmt_score(p.black_score)
            )
        } else {
            String::new()
        };
        let forfeit = match p.forfeit {
            Some(r) => format!("  forfeit {r}: enter it at the console (forfeit {r})"),
            None => String::new(),
        };
        s.push_str(&format!(
            "{:>4}  {} - {}{scores}{forfeit}\n",
            a.board,
            name(&a.white),
            name(&a.black)
        ));
    }
    for u in &round.unplayed {
        let against = u
            .opponent
            .as_ref()
            .map(|o| format!(" against {}", name(o)))
            .unwrap_or_default();
        s.push_str(&format!(
            "   -  {}: {} ({}){against}, line {}\n",
            name(&u.player),
            u.what,
            u.code,
            u.line
        ));
    }
    if let Some(tc) = &round.time_control_text {
        s.push_str(&format!("time control in the file: {tc}\n"));
    }
    s
}

/// The broker to publish to: the flags, else the `--config` file's [mqtt].
fn broker(args: &EventArgs, cfg: Option<&Config>) -> anyhow::Result<Option<(BrokerAddr, String)>> {
    let file = cfg.and_then(|c| c.mqtt.as_ref());
    let Some(url) = args.mqtt.clone().or_else(|| file.map(|m| m.url.clone())) else {
        return Ok(None);
    };
    let mut security = file.map(super::settings::mqtt_security).unwrap_or_default();
    if args.mqtt_username.is_some() {
        security.username = args.mqtt_username.clone();
    }
    if args.mqtt_ca_file.is_some() {
        security.ca_file = args.mqtt_ca_file.clone();
    }
    let broker = BrokerAddr::from_settings(&url, &security, std::env::var(mqtt::PASSWORD_ENV).ok())
        .map_err(|(key, e)| anyhow!("--mqtt {key}: {e}"))?;
    let prefix = args
        .topic_prefix
        .clone()
        .or_else(|| file.and_then(|m| m.topic_prefix.clone()))
        .unwrap_or_else(|| mqtt::DEFAULT_PREFIX.to_owned());
    mqtt::check_prefix(&prefix).map_err(|e| anyhow!("--topic-prefix: {e}"))?;
    Ok(Some((broker, prefix)))
}

/// Publishes `messages` retained at QoS 1 and waits for every
/// acknowledgement (at most [`PUBLISH_WAIT`]).
pub fn publish_retained(broker: &BrokerAddr, messages: &[(String, Vec<u8>)]) -> anyhow::Result<()> {
    use rumqttc::{Event, Outgoing, Packet, QoS};
    let client_id = format!("eboard-event-{:x}", rand::random::<u32>());
    let options = broker
        .options(client_id)
        .map_err(|e| anyhow!("{broker}: {e}"))?;
    let (client, mut conn) = rumqttc::Client::new(options, messages.len() + 8);
    let deadline = std::time::Instant::now() + PUBLISH_WAIT;
    let mut acked = 0usize;
    let mut sent = false;
    while acked < messages.len() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            bail!(
                "{broker}: {} of {} configurations acknowledged within {} s",
                acked,
                messages.len(),
                PUBLISH_WAIT.as_secs()
            );
        }
        match conn.recv_timeout(left) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) if !sent => {
                for (topic, payload) in messages {
                    client
                        .try_publish(topic.clone(), QoS::AtLeastOnce, true, payload.clone())
                        .map_err(|e| anyhow!("{topic}: {e}"))?;
                }
                sent = true;
            }
            Ok(Ok(Event::Incoming(Packet::PubAck(_)))) => acked += 1,
            Ok(Ok(Event::Outgoing(Outgoing::Disconnect))) => break,
            Ok(Ok(_)) => {}
            Ok(Err(e)) => bail!("{broker}: {}", broker.explain(&e)),
            Err(_) => {}
        }
    }
    let _ = client.disconnect();
    // Let the DISCONNECT go out.
    for _ in 0..4 {
        match conn.recv_timeout(Duration::from_millis(200)) {
            Ok(Ok(Event::Outgoing(Outgoing::Disconnect))) | Ok(Err(_)) | Err(_) => break,
            _ => {}
        }
    }
    Ok(())
}

/// Writes `board-N.toml` for each board into `dir`: the assignment as a
/// TOML fragment, or with `base` a whole config (the base's tables with
/// `[event] name`, `time_control` and `[game]` round, board and players
/// set), checked by the config's own reader before it is written.
fn write_files(dir: &Path, boards: &[BoardAssignment], base: Option<&Path>) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("--out {}", dir.display()))?;
    let base = match base {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| p.display().to_string())?;
            Config::parse(&text, &p.display().to_string()).anyhow()?;
            let table: toml::Table = text.parse().map_err(|e| anyhow!("{}: {e}", p.display()))?;
            Some(table)
        }
        None => None,
    };
    for a in boards {
        let path = dir.join(format!("board-{}.toml", a.board));
        let text = match &base {
            None => format!(
                "# eboard event: round {} board {} (eboard run --pairing {})\n{}",
                a.round,
                a.board,
                path.display(),
                toml::to_string(a).context("board configuration as TOML")?
            ),
            Some(t) => whole_config(t.clone(), a)?,
        };
        if base.is_some() {
            Config::parse(&text, &path.display().to_string()).anyhow()?;
        }
        std::fs::write(&path, text).with_context(|| path.display().to_string())?;
    }
    Ok(())
}

/// `base` with `a` set into it.
fn whole_config(mut t: toml::Table, a: &BoardAssignment) -> anyhow::Result<String> {
    use toml::Value;
    let table = |t: &mut toml::Table, k: &str| -> anyhow::Result<toml::Table> {
        match t.remove(k) {
            None => Ok(toml::Table::new()),
            Some(Value::Table(x)) => Ok(x),
            Some(_) => bail!("--base: [{k}] is not a table"),
        }
    };
    let mut ev = table(&mut t, "event")?;
    if let Some(n) = &a.event {
        ev.insert("name".into(), Value::String(n.clone()));
    }
    if let Some(tc) = &a.time_control {
        ev.insert("time_control".into(), Value::String(tc.clone()));
    }
    if let Some(s) = &a.session_start {
        ev.insert("session_start".into(), Value::String(s.clone()));
    }
    t.insert("event".into(), Value::Table(ev));
    let mut game = table(&mut t, "game")?;
    game.insert("round".into(), Value::Integer(i64::from(a.round)));
    game.insert("board".into(), Value::Integer(i64::from(a.board)));
    for (k, p) in [("white", &a.white), ("black", &a.black)] {
        let v = Value::try_from(p).context("a player as TOML")?;
        game.insert(k.into(), v);
    }
    t.insert("game".into(), Value::Table(game));
    toml::to_string(&t).context("the config as TOML")
}
