//! `eboard`: the command line. The data's way: a trace, a simulated game or
//! (later) the sensors → [`eboard::controller::Controller`] (board state →
//! arbiter → clock) → events, PGN and the terminal view.

use anyhow::{anyhow, bail, Context};
use clap::{Parser, Subcommand, ValueEnum};
use eboard::arbiter::GameConfig;
use eboard::config::{Config, MqttConfig, SourceKind};
use eboard::controller::{self, Controller};
use eboard::daemon::{Daemon, RunOptions, TraceSource};
use eboard::server::{AppState, ArbiterAccess};
use eboard::trace::{Event, EventKind, Sensing, Trace};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "eboard",
    version,
    about = "Electronic chessboard daemon: Hall sensors → FIDE arbiter → clock, broadcast and voice"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Copy, Clone, ValueEnum)]
enum SensingArg {
    Occupancy,
    Colour,
    Identity,
}

impl From<SensingArg> for Sensing {
    fn from(s: SensingArg) -> Sensing {
        match s {
            SensingArg::Occupancy => Sensing::Occupancy,
            SensingArg::Colour => Sensing::Colour,
            SensingArg::Identity => Sensing::Identity,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Replay a sensor trace (JSON Lines, ../shared/spec/trace-format.md) through the controller.
    Replay {
        /// The trace file; `-` reads standard input.
        trace: PathBuf,
        /// Rule profile: fide-2001, fide-2009, fide-2009-no, fide-2023 (default: the header's, else fide-2023).
        #[arg(long)]
        rules: Option<String>,
        /// standard, rapid or blitz (default: the header's, else standard).
        #[arg(long)]
        mode: Option<String>,
        /// Print the event stream, one JSON object a line.
        #[arg(long)]
        json: bool,
        /// Write the game as PGN to FILE (`-` for standard output).
        #[arg(long, value_name = "FILE")]
        pgn: Option<PathBuf>,
    },
    /// Turn a PGN game into a sensor trace with a physical model of players' hands.
    Simulate {
        /// The PGN file.
        game: PathBuf,
        /// Which game of the file (1-based).
        #[arg(long, default_value_t = 1)]
        game_number: usize,
        /// Random seed: the same seed gives the same trace.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// What the simulated board senses.
        #[arg(long, value_enum, default_value = "occupancy")]
        sensing: SensingArg,
        /// Write occupancy frames instead of lift/place records.
        #[arg(long)]
        frames: bool,
        /// With --frames: read the board only every MS milliseconds (and at
        /// each press), as a slow or overloaded scanner does; changes inside
        /// one interval are merged.
        #[arg(long, value_name = "MS", requires = "frames")]
        scan_ms: Option<u64>,
        /// Output file (default: standard output).
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Play a famous master game (Morphy's Opera Game, Paris 1858) through the
    /// whole pipeline in real time, printing each move as it is recognised.
    Demo {
        /// Speed factor over real time (20 = twenty times faster; 0 = no waiting).
        #[arg(long, default_value_t = 20.0)]
        speed: f64,
        /// Random seed for the simulated hands.
        #[arg(long, default_value_t = 1858)]
        seed: u64,
        /// What the simulated board senses.
        #[arg(long, value_enum, default_value = "occupancy")]
        sensing: SensingArg,
        /// Where to leave the PGN.
        #[arg(long, default_value = "eboard-demo.pgn")]
        pgn: PathBuf,
        /// A PGN file to play instead of the built-in game (its first game).
        #[arg(long)]
        game: Option<PathBuf>,
        /// The board design whose drivers the simulated hands go through
        /// (a file in hw/; default: the built-in 74HC165 chain design).
        #[arg(long, value_name = "HW_TOML")]
        hw: Option<PathBuf>,
        /// Feed the simulated records straight to the controller, without
        /// the virtual bus and drivers.
        #[arg(long, conflicts_with = "hw")]
        direct: bool,
        /// Also serve the live page and the feeds on ADDR (e.g. 127.0.0.1:8080)
        /// and keep serving after the game until Ctrl-C.
        #[arg(long, value_name = "ADDR")]
        listen: Option<String>,
    },
    /// Print the spoken announcement of a move (Appendix E) and, if asked,
    /// speak it or write it as a WAV file with espeak-ng.
    Announce(AnnounceArgs),
    /// Calibrate a board's sensors: empty board → baselines; initial position
    /// and one lifted pawn → orientation and thresholds. Reports stuck, weak
    /// and noisy sensors.
    Calibrate {
        /// The board design (a file in hw/).
        #[arg(long, value_name = "HW_TOML")]
        hw: PathBuf,
        /// Run on the simulated board without prompts (tests and CI).
        #[arg(long = "virtual")]
        virtual_board: bool,
        /// Write the calibration here (default: standard output).
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Scans averaged per step.
        #[arg(long, default_value_t = 50)]
        samples: u32,
    },
    /// The board daemon: records from a trace (or standard input) through
    /// the controller, journaled, broadcast over HTTP (feeds, live page,
    /// arbiter API).
    Run {
        /// The configuration file (TOML).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Address to serve on.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
        listen: String,
        /// Transmission delay of every public feed, seconds (default: the config's, else 0).
        #[arg(long, value_name = "SECONDS")]
        delay: Option<u64>,
        /// The journal: resumed when it exists, else started.
        #[arg(long, value_name = "FILE")]
        journal: Option<PathBuf>,
        /// A recorded trace replayed at wall-clock pace (default: JSON lines on standard input).
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// Time factor for replaying a trace (2 = twice as fast; round time, clocks and delay scale with it).
        #[arg(long, default_value_t = 1.0)]
        speed: f64,
    },
    /// One event's feed merged from many board daemons (their base URLs,
    /// or an MQTT broker they publish to), boards in order: one /games.pgn,
    /// one LiveChess tree, one event stream.
    Relay(RelayArgs),
}

/// `eboard relay`'s arguments.
#[derive(clap::Args)]
struct RelayArgs {
    /// The board daemons' base URLs (http://host:port).
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
}

fn main() -> ExitCode {
    // Like any Unix filter: a closed pipe (`eboard replay … | head`) ends the
    // program quietly instead of failing a write.
    // SAFETY: setting a signal disposition to its default at start-up, before
    // any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    eboard::logging::init();
    let result = match cli.command {
        Command::Replay {
            trace,
            rules,
            mode,
            json,
            pgn,
        } => cmd_replay(
            &trace,
            rules.as_deref(),
            mode.as_deref(),
            json,
            pgn.as_deref(),
        ),
        Command::Simulate {
            game,
            game_number,
            seed,
            sensing,
            frames,
            scan_ms,
            output,
        } => cmd_simulate(
            &game,
            game_number,
            seed,
            sensing.into(),
            frames,
            scan_ms,
            output.as_deref(),
        ),
        Command::Demo {
            speed,
            seed,
            sensing,
            pgn,
            game,
            hw,
            direct,
            listen,
        } => cmd_demo(
            speed,
            seed,
            sensing.into(),
            &pgn,
            game.as_deref(),
            hw.as_deref(),
            direct,
            listen.as_deref(),
        ),
        Command::Announce(args) => cmd_announce(&args),
        Command::Calibrate {
            hw,
            virtual_board,
            output,
            samples,
        } => cmd_calibrate(&hw, virtual_board, output.as_deref(), samples),
        Command::Run {
            config,
            listen,
            delay,
            journal,
            trace,
            speed,
        } => cmd_run(&config, &listen, delay, journal, trace.as_deref(), speed),
        Command::Relay(args) => cmd_relay(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The CLI's own last word: the error with its context, one line.
            eprintln!("eboard: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The library's errors as anyhow errors of one message each: their text
/// names the cause already (`"{what}: {source}"`), so the chain is not
/// walked again; the command adds where (`with_context`).
trait Anyhow<T> {
    fn anyhow(self) -> anyhow::Result<T>;
}

impl<T, E: std::fmt::Display> Anyhow<T> for Result<T, E> {
    fn anyhow(self) -> anyhow::Result<T> {
        self.map_err(|e| anyhow!("{e}"))
    }
}

fn read_trace(path: &Path) -> anyhow::Result<Trace> {
    let shown = path.display();
    if path == Path::new("-") {
        Trace::read(std::io::stdin().lock())
            .anyhow()
            .context("<stdin>")
    } else {
        let f = std::fs::File::open(path).with_context(|| shown.to_string())?;
        Trace::read(BufReader::new(f))
            .anyhow()
            .with_context(|| shown.to_string())
    }
}

fn write_to(path: &Path, text: &str) -> anyhow::Result<()> {
    if path == Path::new("-") {
        std::io::stdout()
            .write_all(text.as_bytes())
            .context("stdout")
    } else {
        std::fs::write(path, text).with_context(|| path.display().to_string())
    }
}

fn cmd_replay(
    path: &Path,
    rules: Option<&str>,
    mode: Option<&str>,
    json: bool,
    pgn: Option<&Path>,
) -> anyhow::Result<()> {
    let trace = read_trace(path)?;
    let rules = rules
        .map(str::parse::<eboard::model::Edition>)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--rules: {e}"))?;
    let mode = mode
        .map(str::parse::<eboard::model::Mode>)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--mode: {e}"))?;
    let (game, events) = controller::replay(&trace, rules, mode)
        .anyhow()
        .map_err(|e| {
            if rules.is_some() || mode.is_some() {
                e // it names the option
            } else {
                e.context(format!("{}: line 1", path.display()))
            }
        })?;
    let mut out = std::io::stdout().lock();
    if json {
        for e in &events {
            writeln!(out, "{}", e.to_json()).context("stdout")?;
        }
    } else if pgn.is_none_or(|p| p != Path::new("-")) {
        for e in &events {
            if let Some(line) = describe(e) {
                writeln!(out, "{line}").context("stdout")?;
            }
        }
    }
    drop(out);
    if let Some(p) = pgn {
        write_to(p, &eboard::broadcast::write_pgn(&game))?;
    }
    Ok(())
}

fn cmd_simulate(
    path: &Path,
    number: usize,
    seed: u64,
    sensing: Sensing,
    frames: bool,
    scan_ms: Option<u64>,
    output: Option<&Path>,
) -> anyhow::Result<()> {
    let shown = || path.display().to_string();
    let text = std::fs::read_to_string(path).with_context(shown)?;
    let games = eboard::pgn::read_games(&text)
        .anyhow()
        .with_context(shown)?;
    let game = games.get(number.saturating_sub(1)).with_context(|| {
        format!(
            "{}: --game-number {number}: the file has {} game(s)",
            path.display(),
            games.len()
        )
    })?;
    let opts = eboard::sim::SimOptions {
        seed,
        sensing,
        frames,
    };
    let mut trace = eboard::sim::simulate(game, &opts)
        .anyhow()
        .with_context(shown)?;
    if let Some(ms) = scan_ms {
        trace.records = eboard::sim::sample_frames(std::mem::take(&mut trace.records), ms);
    }
    let mut buf = Vec::new();
    trace.write(&mut buf).anyhow()?;
    match output {
        Some(p) => std::fs::write(p, &buf).with_context(|| p.display().to_string()),
        None => std::io::stdout().write_all(&buf).context("stdout"),
    }
}

/// The built-in demo game.
const DEMO_PGN: &str = include_str!("data/opera-game.pgn");

/// The board design the demo's virtual board uses by default.
const DEMO_HW: &str = include_str!("../hw/hc165-chain.toml");

#[allow(clippy::too_many_arguments)] // one per command-line option
fn cmd_demo(
    speed: f64,
    seed: u64,
    sensing: Sensing,
    pgn_path: &Path,
    game_file: Option<&Path>,
    hw: Option<&Path>,
    direct: bool,
    listen: Option<&str>,
) -> anyhow::Result<()> {
    if !(speed >= 0.0 && speed.is_finite()) {
        bail!("--speed {speed}: give a factor of 0 or more");
    }
    let text = match game_file {
        Some(p) => std::fs::read_to_string(p).with_context(|| p.display().to_string())?,
        None => DEMO_PGN.to_owned(),
    };
    let games = eboard::pgn::read_games(&text)
        .anyhow()
        .context("demo game")?;
    let game = games.first().context("demo game: no game in the file")?;
    // The hands move pieces on a virtual board; its Hall sensors are read by
    // the real drivers over a simulated bus, calibrated, scanned at 100 Hz
    // and debounced into the records the controller gets from a real board.
    use eboard::sensors::{virtual_hw, HwDesign};
    let design = if direct {
        None
    } else {
        Some(match hw {
            Some(p) => HwDesign::load(p).anyhow()?,
            None => HwDesign::parse(DEMO_HW, "hw/hc165-chain.toml").anyhow()?,
        })
    };
    let sensing = design.as_ref().map_or(sensing, |d| d.sensing);
    let trace = eboard::sim::simulate(
        game,
        &eboard::sim::SimOptions {
            seed,
            sensing,
            frames: false,
        },
    )
    .anyhow()
    .context("demo game")?;
    let (trace, source) = match &design {
        None => (trace, "simulated records".to_owned()),
        Some(design) => {
            let opts = virtual_hw::VirtualOptions {
                seed,
                ..Default::default()
            };
            let records = virtual_hw::virtual_records(&trace, design, &opts)
                .anyhow()
                .with_context(|| design.name.clone())?;
            (
                Trace {
                    header: trace.header.clone(),
                    records,
                },
                format!("{} drivers on a virtual bus", design.name),
            )
        }
    };
    let cfg = GameConfig::from_header(&trace.header, None, None).anyhow()?;
    println!(
        "eboard demo: {} – {}, {} ({} records from {source}, {} sensing, speed ×{speed})",
        trace.header.white.as_deref().unwrap_or("?"),
        trace.header.black.as_deref().unwrap_or("?"),
        trace.header.event.as_deref().unwrap_or("?"),
        trace.records.len(),
        trace.header.sensing.as_str(),
    );
    if let Some(addr) = listen {
        return demo_served(trace, speed, addr, pgn_path);
    }
    let mut c = Controller::new(cfg);
    let start = std::time::Instant::now();
    let mut events = Vec::new();
    // The live loop: records arrive when their time comes on the (scaled)
    // wall clock; between records the controller is ticked so its timers run.
    let wall_ms = |t: u64| -> u64 {
        if speed == 0.0 {
            0
        } else {
            (t as f64 / speed) as u64
        }
    };
    for rec in &trace.records {
        loop {
            let elapsed = start.elapsed().as_millis() as u64;
            let due = wall_ms(rec.t);
            if elapsed >= due {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis((due - elapsed).min(50)));
            let now_t = (start.elapsed().as_millis() as f64 * speed) as u64;
            c.tick(now_t.min(rec.t), &mut events);
            show(&mut events);
        }
        c.feed(rec, &mut events);
        show(&mut events);
    }
    c.finish(trace.duration_ms(), &mut events);
    show(&mut events);
    let pgn = eboard::broadcast::write_pgn(c.arbiter());
    write_to(pgn_path, &pgn)?;
    println!("\nPGN written to {}", pgn_path.display());
    Ok(())
}

/// The arguments of `eboard announce`.
#[derive(clap::Args)]
struct AnnounceArgs {
    /// The move in SAN with English letters, as in PGN: Nf3, exd5, O-O, e8=Q.
    san: String,
    /// Language: da, nb, de, en.
    #[arg(long, default_value = "da")]
    lang: String,
    /// Rule profile: fide-2001, fide-2009, fide-2009-no, fide-2023.
    #[arg(long, default_value = "fide-2023")]
    rules: String,
    /// The position before --moves (FEN; default: the initial position).
    #[arg(long)]
    fen: Option<String>,
    /// The moves played before, in SAN separated by spaces ("e4 e5 Nf3").
    #[arg(long)]
    moves: Option<String>,
    /// Words for ranks, pieces and castling: default, national
    /// (nb: between Scandinavian players) or german.
    #[arg(long, default_value = "default")]
    words: String,
    /// Danish: the alternative file names (Bella, Cesar, David, Eva, Felix, Hector).
    #[arg(long)]
    alt_names: bool,
    /// Say the departure square of every move.
    #[arg(long)]
    from_square: bool,
    /// Write the announcement as speech to FILE (WAV).
    #[arg(long, value_name = "FILE")]
    wav: Option<PathBuf>,
    /// Speak it on the sound device.
    #[arg(long)]
    speak: bool,
}

fn cmd_announce(a: &AnnounceArgs) -> anyhow::Result<()> {
    use eboard::voice::{self, tts::Espeak, Lang, Vocabulary, VoiceOptions, Words};
    use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
    let lang: Lang = a
        .lang
        .parse()
        .ok()
        .with_context(|| format!("--lang {}: unknown language (da, nb, de or en)", a.lang))?;
    let edition: eboard::model::Edition = a.rules.parse().ok().with_context(|| {
        format!(
            "--rules {}: unknown rule profile (fide-2001, fide-2009, fide-2009-no or fide-2023)",
            a.rules
        )
    })?;
    let words = match a.words.as_str() {
        "default" => None,
        "national" => Some(Words::National),
        "german" => Some(Words::German),
        w => bail!("--words {w}: use default, national or german"),
    };
    let options = VoiceOptions {
        alternative_files: a.alt_names,
        ranks: words,
        pieces: words,
        from_square: a.from_square,
    };
    let mut pos = match &a.fen {
        None => Chess::default(),
        Some(f) => f
            .parse::<Fen>()
            .map_err(|e| anyhow!("--fen: invalid FEN ({e})"))?
            .into_position(CastlingMode::Standard)
            .map_err(|e| anyhow!("--fen: impossible position ({e})"))?,
    };
    // Move numbers ("1.", "12...e5") are skipped.
    let before = a.moves.as_deref().unwrap_or("");
    let tokens = before
        .split_whitespace()
        .map(|t| t.rsplit('.').next().unwrap_or(""))
        .filter(|t| !t.is_empty());
    for (i, t) in tokens.enumerate() {
        let mv = voice::san_to_move(&pos, t)
            .anyhow()
            .with_context(|| format!("--moves: move {}", i + 1))?;
        pos.play_unchecked(mv);
    }
    let mv = voice::san_to_move(&pos, &a.san).anyhow()?;
    let voc = Vocabulary::new(lang, edition, options);
    let phrase = voice::move_phrase(&pos, &mv, &voc);
    println!("{phrase}");
    let tts = Espeak::new();
    if let Some(path) = &a.wav {
        tts.write_wav(&phrase, lang, path)
            .anyhow()
            .with_context(|| format!("--wav {}", path.display()))?;
    }
    if a.speak {
        tts.speak(&phrase, lang).anyhow().context("--speak")?;
    }
    Ok(())
}

/// `eboard calibrate`: prompts on standard error, the file to `output`
/// (or standard output), the health report on standard error.
fn cmd_calibrate(
    hw: &Path,
    virtual_board: bool,
    output: Option<&Path>,
    samples: u32,
) -> anyhow::Result<()> {
    use eboard::sensors::{virtual_hw, HwDesign};
    let design = HwDesign::load(hw).anyhow()?;
    let cal = if virtual_board {
        let opts = virtual_hw::VirtualOptions {
            calibration_samples: samples,
            ..Default::default()
        };
        virtual_hw::calibrate_virtual(&design, &opts)
    } else {
        #[cfg(feature = "rpi")]
        {
            let mut array = eboard::sensors::rpi::open(&design).anyhow()?;
            use eboard::sensors::calibration::{calibrate, TerminalOperator};
            let mut op = TerminalOperator::new(std::io::stdin().lock(), std::io::stderr());
            calibrate(&mut array, &design, &mut op, samples)
        }
        #[cfg(not(feature = "rpi"))]
        {
            bail!(
                "{}: this build has no hardware backend: build with `--features rpi` on the Pi, or use --virtual",
                hw.display()
            );
        }
    }
    .anyhow()
    .with_context(|| hw.display().to_string())?;
    // The command's dialogue with the user (its report), not a log line.
    eprintln!(
        "{}: orientation {:?}; {}",
        design.shown(),
        cal.orientation,
        cal.health.describe().replace('\n', "\n  ")
    );
    let text = cal.to_toml();
    match output {
        Some(p) => {
            write_to(p, &text)?;
            // The command's dialogue with the user, not a log line.
            eprintln!("calibration written to {}", p.display());
            Ok(())
        }
        None => write_to(Path::new("-"), &text),
    }
}

/// The runtime of the HTTP side.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the runtime")
}

/// Binds `addr` and prints the address actually bound (port 0 picks one).
async fn bind(addr: &str) -> anyhow::Result<tokio::net::TcpListener> {
    let l = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("--listen {addr}"))?;
    let a = l.local_addr().with_context(|| format!("--listen {addr}"))?;
    println!("eboard: serving http://{a}/");
    Ok(l)
}

async fn serve_until_ctrl_c(
    listener: tokio::net::TcpListener,
    router: axum::Router,
) -> anyhow::Result<()> {
    tokio::select! {
        r = eboard::server::serve(listener, router) => r.anyhow(),
        _ = tokio::signal::ctrl_c() => Ok(()),
    }
}

fn daemon_router(d: &Daemon, cfg: &Config) -> axum::Router {
    eboard::server::router(AppState {
        public: d.feed.public.clone(),
        arbiter: Some(ArbiterAccess {
            channel: d.feed.arbiter.clone(),
            token: eboard::server::arbiter_token(cfg.arbiter.token.as_deref()),
            name: cfg
                .arbiter
                .name
                .clone()
                .unwrap_or_else(|| "arbiter".to_owned()),
            commands: d.commands.clone(),
        }),
    })
}

fn cmd_run(
    config_path: &Path,
    listen: &str,
    delay: Option<u64>,
    journal: Option<PathBuf>,
    trace: Option<&Path>,
    speed: f64,
) -> anyhow::Result<()> {
    let cfg = Config::load(config_path).anyhow()?;
    let shown = config_path.display().to_string();
    // The clock the controller drives: its presses complete moves; it is
    // shown the times and the last move.
    let spec = cfg.clock.spec(&shown).anyhow()?;
    let clock_device = match spec {
        eboard::clock::open::DeviceSpec::Simulated => None,
        ref s => Some(
            eboard::clock::open::open(s)
                .anyhow()
                .with_context(|| format!("{shown}: [clock]"))?,
        ),
    };
    let delay_s = delay.or(cfg.event.delay).unwrap_or(0);
    if delay_s > eboard::config::MAX_DELAY_S {
        bail!(
            "--delay {delay_s}: the delay must be 0..={} seconds",
            eboard::config::MAX_DELAY_S
        );
    }
    let live = cfg.board.source == SourceKind::Hw;
    let (source, header): (Box<dyn eboard::daemon::RecordSource>, _) = if live {
        (hw_source(&cfg, &shown)?, None)
    } else {
        let src = TraceSource::open(trace.unwrap_or(Path::new("-"))).anyhow()?;
        let header = src.header.clone();
        (Box::new(src), header)
    };
    let rt = runtime()?;
    let daemon = Daemon::start(
        RunOptions {
            config: cfg.clone(),
            delay_s,
            journal,
            source,
            source_header: header,
            source_is_recording: trace.is_some() && !live,
            speed,
            on_event: speaker(&cfg),
            clock_device,
            source_is_live: live,
        },
        rt.handle(),
    )
    .anyhow()?;
    for line in &daemon.report {
        tracing::info!("{line}");
    }
    start_lichess_push(&rt, &cfg, config_path, &daemon.feed.public)?;
    let router = daemon_router(&daemon, &cfg);
    rt.block_on(async {
        let l = bind(listen).await?;
        serve_until_ctrl_c(l, router).await
    })
}

/// With `[event] speak = true`: announcements are spoken by espeak-ng on a
/// thread of their own (the board loop never waits for the sound device).
fn speaker(cfg: &Config) -> Option<eboard::daemon::EventObserver> {
    if cfg.event.speak != Some(true) {
        return None;
    }
    let (tx, rx) = std::sync::mpsc::channel::<(String, eboard::model::Lang)>();
    std::thread::Builder::new()
        .name("eboard-speech".into())
        .spawn(move || {
            let tts = eboard::voice::tts::Espeak::new();
            for (text, lang) in rx {
                if let Err(e) = tts.speak(&text, lang) {
                    tracing::warn!("speech: {e}");
                }
            }
        })
        .ok()?;
    Some(Box::new(move |e: &Event| {
        if let EventKind::Announce { text, lang } = &e.kind {
            let _ = tx.send((text.clone(), *lang));
        }
    }))
}

/// The live board of `[board] source = "hw"`: the design and calibration
/// files the config names, scanned on the Pi (feature `rpi`).
fn hw_source(cfg: &Config, shown: &str) -> anyhow::Result<Box<dyn eboard::daemon::RecordSource>> {
    use eboard::sensors::{Calibration, HwDesign};
    let hw = cfg.board.hw.as_deref().with_context(|| {
        format!("{shown}: key 'board.hw': source = \"hw\" needs the board design file (hw/*.toml)")
    })?;
    let load = |hw: &str, cal: Option<&str>, key: &str| -> anyhow::Result<_> {
        let design = HwDesign::load(Path::new(hw))
            .anyhow()
            .with_context(|| format!("{shown}: key 'board.{key}'"))?;
        let calibration = match cal {
            Some(c) => Some(
                Calibration::load(Path::new(c))
                    .anyhow()
                    .with_context(|| format!("{shown}: calibration of 'board.{key}'"))?,
            ),
            None => None,
        };
        Ok((design, calibration))
    };
    let (design, calibration) = load(hw, cfg.board.calibration.as_deref(), "hw")?;
    let main = open_hw(design, calibration, shown)?;
    let Some(tactile) = cfg.board.tactile_hw.as_deref() else {
        return Ok(main);
    };
    // Appendix E: the tactile peg board is a second sensor source; its
    // design file names it `tactile`, so its records say so.
    let (design, calibration) = load(
        tactile,
        cfg.board.tactile_calibration.as_deref(),
        "tactile_hw",
    )?;
    let second = open_hw(design, calibration, shown)?;
    Ok(Box::new(eboard::daemon::merge_sources(vec![main, second])))
}

#[cfg(feature = "rpi")]
fn open_hw(
    design: eboard::sensors::HwDesign,
    calibration: Option<eboard::sensors::Calibration>,
    _shown: &str,
) -> anyhow::Result<Box<dyn eboard::daemon::RecordSource>> {
    use eboard::sensors::{live::LiveSource, Sample, Scanner, ScannerConfig};
    let config = ScannerConfig::default();
    let period = config.period_ms();
    let source = LiveSource::start(
        move || {
            let array = eboard::sensors::rpi::open(&design).map_err(|e| e.to_string())?;
            let start = shakmaty::Board::default();
            let initial = Sample::from_board(&start, design.is_analog());
            Scanner::new(array, &design, calibration.as_ref(), config, initial)
                .map_err(|e| e.to_string())
        },
        period,
    );
    Ok(Box::new(source))
}

#[cfg(not(feature = "rpi"))]
fn open_hw(
    design: eboard::sensors::HwDesign,
    _calibration: Option<eboard::sensors::Calibration>,
    shown: &str,
) -> anyhow::Result<Box<dyn eboard::daemon::RecordSource>> {
    bail!(
        "{shown}: key 'board.source': \"hw\" reads {} on the Raspberry Pi: build with --features rpi (see docs/hardware.md)",
        design.name
    )
}

/// Starts pushing `public`'s PGN to lichess when `cfg` has `[lichess]`.
fn start_lichess_push(
    rt: &tokio::runtime::Runtime,
    cfg: &Config,
    config_path: &Path,
    public: &std::sync::Arc<eboard::broadcast::delay::Channel>,
) -> anyhow::Result<()> {
    use eboard::broadcast::lichess_push;
    if let Some(l) = &cfg.lichess {
        let target = lichess_push::PushTarget::from_config(l)
            .anyhow()
            .with_context(|| config_path.display().to_string())?;
        tracing::info!("pushing the PGN to {}", target.url());
        lichess_push::start(rt.handle(), target, public.clone()).anyhow()?;
    }
    Ok(())
}

fn cmd_relay(args: RelayArgs) -> anyhow::Result<()> {
    let RelayArgs {
        urls,
        mqtt,
        mqtt_username,
        mqtt_ca_file,
        event,
        topic_prefix,
        config,
        listen,
    } = args;
    let cfg = match &config {
        Some(p) => Some(Config::load(p).anyhow()?),
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
    let channel = std::sync::Arc::new(eboard::broadcast::delay::Channel::new());
    match url {
        Some(url) => {
            if !urls.is_empty() {
                bail!("give either board URLs or --mqtt, not both");
            }
            let mut security = cfg
                .as_ref()
                .and_then(|c| c.mqtt.as_ref().map(MqttConfig::security))
                .unwrap_or_default();
            if let Some(u) = &mqtt_username {
                security.username = Some(u.clone());
            }
            if let Some(f) = &mqtt_ca_file {
                security.ca_file = Some(f.clone());
            }
            let broker = eboard::mqtt::BrokerAddr::from_config(
                &url,
                &security,
                std::env::var(eboard::mqtt::PASSWORD_ENV).ok(),
            )
            .map_err(|(key, e)| {
                let flag = match key {
                    "url" => mqtt.as_ref().map(|_| "--mqtt"),
                    "username" => mqtt_username.as_ref().map(|_| "--mqtt-username"),
                    "ca_file" => mqtt_ca_file.as_ref().map(|_| "--mqtt-ca-file"),
                    _ => None,
                };
                match flag {
                    Some(f) => anyhow!("{f}: {e}"),
                    None if config.is_some() => anyhow!("{shown}: [mqtt] {key}: {e}"),
                    None => anyhow!("[mqtt] {key}: {e}"),
                }
            })?;
            let prefix = topic_prefix
                .or_else(|| file_mqtt.and_then(|m| m.topic_prefix.clone()))
                .unwrap_or_else(|| eboard::mqtt::DEFAULT_PREFIX.to_owned());
            eboard::mqtt::check_prefix(&prefix).map_err(|e| anyhow!("--topic-prefix {e}"))?;
            tracing::info!("relay: following {broker}");
            eboard::mqtt::relay::start(rt.handle(), broker, prefix, event, channel.clone())
                .anyhow()
                .context("--mqtt")?;
        }
        None => {
            if mqtt_username.is_some() || mqtt_ca_file.is_some() || topic_prefix.is_some() {
                bail!("--mqtt-username, --mqtt-ca-file and --topic-prefix are for --mqtt");
            }
            if urls.is_empty() {
                bail!("{shown}: no [mqtt] section: give board URLs or --mqtt URL");
            }
            eboard::broadcast::relay::start(rt.handle(), urls, channel.clone()).anyhow()?
        }
    }
    if let (Some(cfg), Some(p)) = (&cfg, &config) {
        start_lichess_push(&rt, cfg, p, &channel)?;
    }
    let router = eboard::server::router(AppState {
        public: channel,
        arbiter: None,
    });
    rt.block_on(async {
        let l = bind(&listen).await?;
        serve_until_ctrl_c(l, router).await
    })
}

/// The demo through the daemon: served on `addr`, printed as it goes.
fn demo_served(trace: Trace, speed: f64, addr: &str, pgn_path: &Path) -> anyhow::Result<()> {
    let speed = if speed == 0.0 { 1000.0 } else { speed };
    let rt = runtime()?;
    let cfg = Config::default();
    let daemon = Daemon::start(
        RunOptions {
            config: cfg.clone(),
            delay_s: 0,
            journal: None,
            source: Box::new(trace.records.clone().into_iter().map(Ok)),
            source_header: Some(trace.header.clone()),
            source_is_recording: true,
            speed,
            on_event: Some(Box::new(|e: &Event| show(&mut vec![e.clone()]))),
            clock_device: None,
            source_is_live: false,
        },
        rt.handle(),
    )
    .anyhow()?;
    let router = daemon_router(&daemon, &cfg);
    let mut done = daemon.done.clone();
    let arbiter_view = daemon.feed.arbiter.view.subscribe();
    rt.block_on(async {
        let l = bind(addr).await?;
        println!(
            "eboard demo: the live page is at http://{}/",
            l.local_addr().context("the demo's address")?
        );
        let server = tokio::spawn(eboard::server::serve(l, router));
        // The trace has ended and every record was decided (a game-ending
        // move still settling counts as made at its end, as in replay).
        let _ = done.wait_for(|d| *d).await;
        let pgn: String = arbiter_view
            .borrow()
            .games
            .iter()
            .map(|g| g.pgn.clone())
            .collect();
        write_to(pgn_path, &pgn)?;
        println!(
            "\nPGN written to {}; serving until Ctrl-C",
            pgn_path.display()
        );
        tokio::select! {
            r = server => r.anyhow()?.anyhow(),
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}

/// Prints the decisions taken so far (moves with a board view) and clears them.
fn show(events: &mut Vec<Event>) {
    for e in events.drain(..) {
        if let EventKind::Move { fen, .. } = &e.kind {
            println!("\n{}", describe(&e).unwrap_or_default());
            print_board(fen);
        } else if let Some(line) = describe(&e) {
            println!("{line}");
        }
    }
}

fn print_board(fen: &str) {
    let placement = fen.split(' ').next().unwrap_or("");
    for (i, rank) in placement.split('/').enumerate() {
        let mut row = String::new();
        for ch in rank.chars() {
            match ch.to_digit(10) {
                Some(n) => (0..n).for_each(|_| row.push_str(" .")),
                None => {
                    row.push(' ');
                    row.push(ch);
                }
            }
        }
        println!("  {} {row}", 8 - i);
    }
    println!("     a b c d e f g h");
}

/// `H:MM:SS.d`: the clock time with tenths of a second.
fn ms_clock(ms: u64) -> String {
    format!("{}.{}", eboard::clock::fmt_hms(ms), ms % 1000 / 100)
}

/// A one-line human description of an event (None for the ones not shown).
fn describe(e: &Event) -> Option<String> {
    let t = format!("[{:>9}]", ms_clock(e.t));
    Some(match &e.kind {
        EventKind::Move { ply, by, san, .. } => {
            let no = ply.div_ceil(2);
            let dots = if by.0.is_white() { "." } else { "..." };
            format!("{t} {no}{dots} {san}")
        }
        EventKind::Clock { white_ms, black_ms } => {
            format!(
                "{t}   clock  white {}  black {}",
                ms_clock(*white_ms),
                ms_clock(*black_ms)
            )
        }
        EventKind::GameEnd {
            result,
            reason,
            article,
        } => format!("{t} game over: {result} ({reason}, article {article})"),
        EventKind::IllegalMove {
            by,
            article,
            count,
            penalty,
            squares,
        } => format!(
            "{t} ILLEGAL MOVE by {by} (article {article}, #{count}): {penalty}; reinstate {}",
            squares.join(" ")
        ),
        EventKind::Irregularity {
            kind,
            article,
            squares,
        } => format!(
            "{t} irregularity {kind} (article {article}) {}",
            squares.join(" ")
        ),
        EventKind::PromotionAssumed { square, piece, .. } => {
            format!("{t} promotion on {square}: piece not sensed nor chosen, {piece} assumed")
        }
        EventKind::Flag { by } => format!("{t} flag fallen: {by}"),
        EventKind::DrawOffer { by } => format!("{t} draw offered by {by}"),
        EventKind::PositionRestored { .. } => format!("{t} position reinstated"),
        _ => return None,
    })
}
