//! `eboard`: the command line. The data's way: a trace, a simulated game or
//! (later) the sensors → [`eboard::controller::Controller`] (board state →
//! arbiter → clock) → events, PGN and the terminal view.

use clap::{Parser, Subcommand, ValueEnum};
use eboard::arbiter::GameConfig;
use eboard::config::{Config, SourceKind};
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
        /// Also serve the live page and the feeds on ADDR (e.g. 127.0.0.1:8080)
        /// and keep serving after the game until Ctrl-C.
        #[arg(long, value_name = "ADDR")]
        listen: Option<String>,
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
    Relay {
        /// The board daemons' base URLs (http://host:port).
        #[arg(required_unless_present = "mqtt")]
        urls: Vec<String>,
        /// Follow the boards through this MQTT broker (mqtt://host:port) instead.
        #[arg(long, value_name = "URL")]
        mqtt: Option<String>,
        /// With --mqtt: only this event (its name as in the boards' config; default: every event).
        #[arg(long, value_name = "NAME")]
        event: Option<String>,
        /// With --mqtt: the first topic level.
        #[arg(long, value_name = "PREFIX", default_value = eboard::mqtt::DEFAULT_PREFIX)]
        topic_prefix: String,
        /// A configuration file whose [lichess] section makes the relay push
        /// the merged PGN to a lichess broadcast round.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Address to serve on.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
        listen: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
            output,
        } => cmd_simulate(
            &game,
            game_number,
            seed,
            sensing.into(),
            frames,
            output.as_deref(),
        ),
        Command::Demo {
            speed,
            seed,
            sensing,
            pgn,
            game,
            listen,
        } => cmd_demo(
            speed,
            seed,
            sensing.into(),
            &pgn,
            game.as_deref(),
            listen.as_deref(),
        ),
        Command::Run {
            config,
            listen,
            delay,
            journal,
            trace,
            speed,
        } => cmd_run(&config, &listen, delay, journal, trace.as_deref(), speed),
        Command::Relay {
            urls,
            mqtt,
            event,
            topic_prefix,
            config,
            listen,
        } => cmd_relay(
            urls,
            mqtt.as_deref(),
            event,
            topic_prefix,
            config.as_deref(),
            &listen,
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("eboard: {e}");
            ExitCode::from(2)
        }
    }
}

fn read_trace(path: &Path) -> Result<Trace, String> {
    let shown = path.display();
    if path == Path::new("-") {
        Trace::read(std::io::stdin().lock()).map_err(|e| format!("<stdin>: {e}"))
    } else {
        let f = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
        Trace::read(BufReader::new(f)).map_err(|e| format!("{shown}: {e}"))
    }
}

fn write_to(path: &Path, text: &str) -> Result<(), String> {
    if path == Path::new("-") {
        std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| format!("stdout: {e}"))
    } else {
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

fn cmd_replay(
    path: &Path,
    rules: Option<&str>,
    mode: Option<&str>,
    json: bool,
    pgn: Option<&Path>,
) -> Result<(), String> {
    let trace = read_trace(path)?;
    let (game, events) = controller::replay(&trace, rules, mode).map_err(|e| {
        if rules.is_some() || mode.is_some() {
            format!("{e}")
        } else {
            format!("{}: line 1: {e}", path.display())
        }
    })?;
    let mut out = std::io::stdout().lock();
    if json {
        for e in &events {
            writeln!(out, "{}", e.to_json()).map_err(|e| format!("stdout: {e}"))?;
        }
    } else if pgn.is_none_or(|p| p != Path::new("-")) {
        for e in &events {
            if let Some(line) = describe(e) {
                writeln!(out, "{line}").map_err(|e| format!("stdout: {e}"))?;
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
    output: Option<&Path>,
) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let games = eboard::pgn::read_games(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let game = games.get(number.saturating_sub(1)).ok_or_else(|| {
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
    let trace =
        eboard::sim::simulate(game, &opts).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut buf = Vec::new();
    trace.write(&mut buf).map_err(|e| e.to_string())?;
    match output {
        Some(p) => std::fs::write(p, &buf).map_err(|e| format!("{}: {e}", p.display())),
        None => std::io::stdout()
            .write_all(&buf)
            .map_err(|e| format!("stdout: {e}")),
    }
}

/// The built-in demo game.
const DEMO_PGN: &str = include_str!("data/opera-game.pgn");

fn cmd_demo(
    speed: f64,
    seed: u64,
    sensing: Sensing,
    pgn_path: &Path,
    game_file: Option<&Path>,
    listen: Option<&str>,
) -> Result<(), String> {
    if !(speed >= 0.0 && speed.is_finite()) {
        return Err(format!("--speed {speed}: give a factor of 0 or more"));
    }
    let text = match game_file {
        Some(p) => std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?,
        None => DEMO_PGN.to_owned(),
    };
    let games = eboard::pgn::read_games(&text).map_err(|e| format!("demo game: {e}"))?;
    let game = games.first().ok_or("demo game: no game in the file")?;
    let trace = eboard::sim::simulate(
        game,
        &eboard::sim::SimOptions {
            seed,
            sensing,
            frames: false,
        },
    )
    .map_err(|e| format!("demo game: {e}"))?;
    let cfg = GameConfig::from_header(&trace.header, None, None).map_err(|e| e.to_string())?;
    println!(
        "eboard demo: {} – {}, {} ({} records, {} sensing, speed ×{speed})",
        trace.header.white.as_deref().unwrap_or("?"),
        trace.header.black.as_deref().unwrap_or("?"),
        trace.header.event.as_deref().unwrap_or("?"),
        trace.records.len(),
        sensing.as_str(),
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

/// The runtime of the HTTP side.
fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

/// Binds `addr` and prints the address actually bound (port 0 picks one).
async fn bind(addr: &str) -> Result<tokio::net::TcpListener, String> {
    let l = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("--listen {addr}: {e}"))?;
    let a = l.local_addr().map_err(|e| e.to_string())?;
    println!("eboard: serving http://{a}/");
    Ok(l)
}

async fn serve_until_ctrl_c(
    listener: tokio::net::TcpListener,
    router: axum::Router,
) -> Result<(), String> {
    tokio::select! {
        r = eboard::server::serve(listener, router) => r.map_err(|e| e.to_string()),
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
) -> Result<(), String> {
    let cfg = Config::load(config_path).map_err(|e| e.to_string())?;
    if cfg.board.source == SourceKind::Hw {
        return Err(format!(
            "{}: [board] source = \"hw\": the hardware source is not wired in this build; use source = \"trace\" with --trace FILE or standard input",
            config_path.display()
        ));
    }
    let delay_s = delay.or(cfg.event.delay).unwrap_or(0);
    if delay_s > eboard::config::MAX_DELAY_S {
        return Err(format!(
            "--delay {delay_s}: the delay must be 0..={} seconds",
            eboard::config::MAX_DELAY_S
        ));
    }
    let src = TraceSource::open(trace.unwrap_or(Path::new("-")))?;
    let header = src.header.clone();
    let rt = runtime()?;
    let daemon = Daemon::start(
        RunOptions {
            config: cfg.clone(),
            delay_s,
            journal,
            source: Box::new(src),
            source_header: header,
            source_is_recording: trace.is_some(),
            speed,
            on_event: None,
        },
        rt.handle(),
    )?;
    for line in &daemon.report {
        eprintln!("eboard: {line}");
    }
    start_lichess_push(&rt, &cfg, config_path, &daemon.feed.public)?;
    let router = daemon_router(&daemon, &cfg);
    rt.block_on(async {
        let l = bind(listen).await?;
        serve_until_ctrl_c(l, router).await
    })
}

/// Starts pushing `public`'s PGN to lichess when `cfg` has `[lichess]`.
fn start_lichess_push(
    rt: &tokio::runtime::Runtime,
    cfg: &Config,
    config_path: &Path,
    public: &std::sync::Arc<eboard::broadcast::delay::Channel>,
) -> Result<(), String> {
    use eboard::broadcast::lichess_push;
    if let Some(l) = &cfg.lichess {
        let target = lichess_push::PushTarget::from_config(l)
            .map_err(|e| format!("{}: {e}", config_path.display()))?;
        eprintln!("eboard: pushing the PGN to {}", target.url());
        lichess_push::start(rt.handle(), target, public.clone())?;
    }
    Ok(())
}

fn cmd_relay(
    urls: Vec<String>,
    mqtt: Option<&str>,
    event: Option<String>,
    topic_prefix: String,
    config: Option<&Path>,
    listen: &str,
) -> Result<(), String> {
    let rt = runtime()?;
    let channel = std::sync::Arc::new(eboard::broadcast::delay::Channel::new());
    match mqtt {
        Some(url) => {
            if !urls.is_empty() {
                return Err("give either board URLs or --mqtt, not both".into());
            }
            let broker = eboard::mqtt::BrokerAddr::parse(url).map_err(|e| format!("--mqtt {e}"))?;
            eboard::mqtt::relay::start(rt.handle(), broker, topic_prefix, event, channel.clone())
                .map_err(|e| format!("--topic-prefix {e}"))?;
        }
        None => eboard::broadcast::relay::start(rt.handle(), urls, channel.clone())?,
    }
    if let Some(p) = config {
        let cfg = Config::load(p).map_err(|e| e.to_string())?;
        start_lichess_push(&rt, &cfg, p, &channel)?;
    }
    let router = eboard::server::router(AppState {
        public: channel,
        arbiter: None,
    });
    rt.block_on(async {
        let l = bind(listen).await?;
        serve_until_ctrl_c(l, router).await
    })
}

/// The demo through the daemon: served on `addr`, printed as it goes.
fn demo_served(trace: Trace, speed: f64, addr: &str, pgn_path: &Path) -> Result<(), String> {
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
        },
        rt.handle(),
    )?;
    let router = daemon_router(&daemon, &cfg);
    let mut done = daemon.done.clone();
    let arbiter_view = daemon.feed.arbiter.view.subscribe();
    rt.block_on(async {
        let l = bind(addr).await?;
        println!(
            "eboard demo: the live page is at http://{}/",
            l.local_addr().map_err(|e| e.to_string())?
        );
        let server = tokio::spawn(eboard::server::serve(l, router));
        let _ = done.wait_for(|d| *d).await;
        // The last decisions settle (a game-ending move made without a press).
        tokio::time::sleep(std::time::Duration::from_secs_f64(2.5 / speed)).await;
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
            r = server => r.map_err(|e| e.to_string())?.map_err(|e| e.to_string()),
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

fn ms_clock(ms: u64) -> String {
    let s = ms / 1000;
    format!(
        "{}:{:02}:{:02}.{}",
        s / 3600,
        (s / 60) % 60,
        s % 60,
        (ms % 1000) / 100
    )
}

/// A one-line human description of an event (None for the ones not shown).
fn describe(e: &Event) -> Option<String> {
    let t = format!("[{:>9}]", ms_clock(e.t));
    Some(match &e.kind {
        EventKind::Move { ply, by, san, .. } => {
            let no = (ply + 1) / 2;
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
