//! `eboard`: the command line. It parses the arguments (clap) and calls the
//! composition root, [`eboard::app`], which wires each command; the last
//! line of a failed command is its error with the context (at priority err
//! under systemd), and exit 2, or 78 (EX_CONFIG) for a configuration error
//! or a journal of another game, which no restart can fix.

use clap::{CommandFactory, Parser, Subcommand};
use eboard::app;
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

#[derive(Subcommand)]
enum Command {
    /// Replay a sensor trace (JSON Lines of sensor records, as `eboard simulate` and a board's journal write them) through the controller.
    Replay(app::ReplayArgs),
    /// Turn a PGN game into a sensor trace with a physical model of players' hands.
    Simulate(app::SimulateArgs),
    /// Play a famous master game (Morphy's Opera Game, Paris 1858) through the
    /// whole pipeline in real time, printing each move as it is recognised.
    Demo(app::DemoArgs),
    /// Print the spoken announcement of a move (Appendix E) and, if asked,
    /// speak it or write it as a WAV file with espeak-ng.
    Announce(app::AnnounceArgs),
    /// Calibrate a board's sensors: empty board → baselines; initial position
    /// and one lifted pawn → orientation and thresholds. Reports stuck, weak
    /// and noisy sensors.
    Calibrate(app::CalibrateArgs),
    /// A board design's builder's kit from its hw/*.toml: the wiring
    /// diagram (NAME.svg: the Pi's header, every chip pin, every square's
    /// sensor line) and the builder's sheet (NAME.md: parts, 3.3 V power
    /// budget, Pi models, the built-in clock's wiring) (hw/kit/).
    Kit(app::KitArgs),
    /// The board daemon: records from a trace (or standard input) through
    /// the controller, journaled, broadcast over HTTP (feeds, live page,
    /// arbiter API).
    Run(app::RunArgs),
    /// One event's feed merged from many board daemons (their base URLs,
    /// or an MQTT broker they publish to), boards in order: one /games.pgn,
    /// one LiveChess tree, one event stream.
    Relay(app::RelayArgs),
    /// Set up a round from its pairings (FIDE TRF-16 from Swiss-Manager or
    /// Vega, or a CSV): boards numbered as the pairing says, each board's
    /// round, players and time control published retained over MQTT and/or
    /// written as config files (docs/event.md).
    Event(app::EventArgs),
    /// Write a round's results (the console's /console/results.csv) into
    /// the round's column of the pairings' TRF-16 file, for Swiss-Manager
    /// or Vega: 1 = 0 for games played, + - for forfeits; only the results
    /// the arbiter confirmed (docs/event.md).
    Results(app::ResultsArgs),
    /// Send a board a ruling over MQTT, signed with the console's Ed25519
    /// key (the board verifies it against [mqtt] command_keys), and print
    /// the board's reply; or make a key (--keygen) (docs/event.md).
    Rule(app::RuleArgs),
    /// Check what round 1 would otherwise find out: the config, the
    /// sensors against their calibration, the clock device, the broker and
    /// lichess with the credentials, the journal's disk, the system time's
    /// synchronisation, the audio for a visually impaired player. Exit 1
    /// when a check fails.
    Doctor(app::DoctorArgs),
    /// Print a fresh token of 256 random bits (64 hex digits) for the
    /// config (`[arbiter] token`, an account's `token`, `relay_token`); with
    /// --hash, read a pass phrase from standard input and print its argon2id
    /// hash for an account's `secret_hash` (docs/console.md).
    Token {
        /// Hash the pass phrase read from standard input instead.
        #[arg(long)]
        hash: bool,
    },
    /// Write the man pages (clap_mangen: eboard.1 and one page a command,
    /// eboard-run.1, …) into DIR/man1, eboard.toml.5 (every config key)
    /// into DIR/man5 and the shell completions
    /// (clap_complete: bash, zsh, fish) into DIR/completions; the Debian
    /// package installs them (docs/service.md).
    #[command(hide = true)]
    Generate {
        /// The output directory.
        dir: std::path::PathBuf,
    },
}

/// `eboard token [--hash]`.
fn token(hash: bool) -> anyhow::Result<()> {
    use eboard::console::access::{hash_secret, new_token};
    if !hash {
        println!("{}", new_token());
        return Ok(());
    }
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let secret = line.trim_end_matches(['\r', '\n']);
    if secret.is_empty() {
        anyhow::bail!("standard input: give the pass phrase on one line");
    }
    println!("{}", hash_secret(secret).map_err(anyhow::Error::msg)?);
    Ok(())
}

fn main() -> ExitCode {
    // Large blocks (a password check's 19 MiB argon2 memory, a big PGN) go
    // straight to mmap and back to the system when freed. glibc's default
    // threshold rises after the first such free, after which every check
    // on another thread keeps its 19 MiB in that thread's arena: a login
    // flood then grows the board's memory by 19 MiB per worker (issue 26).
    // A fixed threshold keeps it where it is.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: an allocator setting, at start-up before any thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    let cli = Cli::parse();
    // The filters (`eboard replay … | head`) end quietly on a closed pipe,
    // like any Unix filter. Every other command keeps SIGPIPE ignored: the
    // daemon, the relay, `doctor` and `announce` write to aplay's and the
    // broker's pipes and sockets, and a player that exits early (no such
    // sound card) must be an error they report, never a signal that kills
    // the board mid-game.
    if matches!(
        cli.command,
        Command::Replay(_) | Command::Simulate(_) | Command::Demo(_) | Command::Results(_)
    ) {
        // SAFETY: setting a signal disposition to its default at start-up,
        // before any thread exists.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    eboard::logging::init();
    let result = match cli.command {
        Command::Replay(args) => app::replay(args),
        Command::Simulate(args) => app::simulate(args),
        Command::Demo(args) => app::demo(args),
        Command::Announce(args) => app::announce(args),
        Command::Calibrate(args) => app::calibrate(args),
        Command::Kit(args) => app::kit(args),
        Command::Run(args) => app::run(args),
        Command::Relay(args) => app::relay(args),
        Command::Event(args) => app::event(args),
        Command::Results(args) => app::results(args),
        Command::Rule(args) => match app::rule(args) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
        Command::Generate { dir } => generate(&dir),
        Command::Token { hash } => token(hash),
        Command::Doctor(args) => match app::doctor(args) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The CLI's own last word: the error with its context, one line;
            // under systemd at priority err (`journalctl -u eboard -p err`).
            eprintln!(
                "{}",
                eboard::logging::fatal_line(eboard::logging::LogStyle::of_this_process(), &e)
            );
            // A configuration error or a journal of another game:
            // restarting cannot help until the organiser fixes it (exit 78,
            // EX_CONFIG: the units' RestartPreventExitStatus=78).
            let config = e
                .downcast_ref::<eboard::config::ConfigFileError>()
                .is_some();
            let other_game = e
                .downcast_ref::<eboard::journal::JournalError>()
                .is_some_and(|j| j.is_other_game());
            if config || other_game {
                return ExitCode::from(eboard::journal::EXIT_OTHER_GAME);
            }
            ExitCode::from(2)
        }
    }
}

/// `eboard generate DIR`: the man pages and shell completions of this CLI.
fn generate(dir: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context;
    let man = dir.join("man1");
    let man5 = dir.join("man5");
    let comp = dir.join("completions");
    for d in [&man, &man5, &comp] {
        std::fs::create_dir_all(d).with_context(|| d.display().to_string())?;
    }
    // eboard.toml(5): every config key (written from src/config.rs; tests/docs.rs
    // checks that none is missing).
    let page = man5.join("eboard.toml.5");
    std::fs::write(&page, include_str!("../pkg/eboard.toml.5"))
        .with_context(|| page.display().to_string())?;
    let cmd = Cli::command();
    // eboard.1 and eboard-SUBCOMMAND.1 for each visible subcommand.
    clap_mangen::generate_to(cmd.clone(), &man).with_context(|| man.display().to_string())?;
    let mut cmd = cmd;
    for shell in [
        clap_complete::Shell::Bash,
        clap_complete::Shell::Zsh,
        clap_complete::Shell::Fish,
    ] {
        clap_complete::generate_to(shell, &mut cmd, "eboard", &comp)
            .with_context(|| comp.display().to_string())?;
    }
    Ok(())
}
