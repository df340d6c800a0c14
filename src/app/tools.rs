//! The offline commands: `eboard replay` (a trace through the controller),
//! `eboard simulate` (a PGN game into a trace), `eboard announce` (a move's
//! spoken announcement) and `eboard calibrate` (a board's sensors).

use super::{read_trace, view::describe, write_to, Anyhow};
use crate::controller;
use crate::trace::Sensing;
use anyhow::{anyhow, bail, Context};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a simulated board senses (the command line's spelling of
/// [`Sensing`]: occupancy, colour, identity). The variants have no doc
/// comments: clap would print them as a long list in `--help`.
#[derive(Copy, Clone, Debug, clap::ValueEnum)]
#[allow(missing_docs)]
pub enum SensingArg {
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

/// The arguments of `eboard replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
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
}

/// The arguments of `eboard simulate`.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
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
}

/// The arguments of `eboard calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
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
    /// Do not calibrate: show the board as the sensors read it now, over
    /// and over (each square's sensor, raw value and state), to find a
    /// miswired or dead square by putting a piece on it.
    #[arg(long)]
    watch: bool,
    /// With --watch: the calibration to read the values by (orientation;
    /// a colour board's thresholds).
    #[arg(long, value_name = "FILE", requires = "watch")]
    calibration: Option<PathBuf>,
    /// With --watch: stop after N frames (default: until Ctrl-C).
    #[arg(long, value_name = "N", requires = "watch")]
    frames: Option<u64>,
    /// With --watch: the time between frames, ms.
    #[arg(long, value_name = "MS", default_value_t = 500, requires = "watch")]
    interval_ms: u64,
}

/// The arguments of `eboard announce`.
#[derive(Debug, clap::Args)]
pub struct AnnounceArgs {
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

/// `eboard replay`: the trace through the controller; the event stream
/// (`--json`) or one line per decision on standard output, the PGN to
/// `--pgn`.
pub fn replay(args: ReplayArgs) -> anyhow::Result<()> {
    let ReplayArgs {
        trace: path,
        rules,
        mode,
        json,
        pgn,
    } = args;
    let (path, pgn) = (path.as_path(), pgn.as_deref());
    let trace = read_trace(path)?;
    let rules = rules
        .as_deref()
        .map(str::parse::<crate::model::Edition>)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--rules: {e}"))?;
    let mode = mode
        .as_deref()
        .map(str::parse::<crate::model::Mode>)
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
        write_to(p, &crate::broadcast::write_pgn(&game))?;
    }
    Ok(())
}

/// `eboard simulate`: game `--game-number` of the PGN file as a sensor
/// trace, to `--output` or standard output.
pub fn simulate(args: SimulateArgs) -> anyhow::Result<()> {
    let SimulateArgs {
        game: path,
        game_number: number,
        seed,
        sensing,
        frames,
        scan_ms,
        output,
    } = args;
    let (path, sensing) = (path.as_path(), Sensing::from(sensing));
    let shown = || path.display().to_string();
    let text = std::fs::read_to_string(path).with_context(shown)?;
    let games = crate::pgn::read_games(&text).anyhow().with_context(shown)?;
    let game = games.get(number.saturating_sub(1)).with_context(|| {
        format!(
            "{}: --game-number {number}: the file has {} game(s)",
            path.display(),
            games.len()
        )
    })?;
    let opts = crate::sim::SimOptions {
        seed,
        sensing,
        frames,
    };
    let mut trace = crate::sim::simulate(game, &opts)
        .anyhow()
        .with_context(shown)?;
    if let Some(ms) = scan_ms {
        trace.records = crate::sim::sample_frames(std::mem::take(&mut trace.records), ms);
    }
    let mut buf = Vec::new();
    trace.write(&mut buf).anyhow()?;
    match output {
        Some(p) => std::fs::write(&p, &buf).with_context(|| p.display().to_string()),
        None => std::io::stdout().write_all(&buf).context("stdout"),
    }
}

/// `eboard announce`: the move's announcement (Appendix E) on standard
/// output, spoken or written as WAV when asked.
pub fn announce(a: AnnounceArgs) -> anyhow::Result<()> {
    use crate::voice::{self, tts::Espeak, Lang, Vocabulary, VoiceOptions, Words};
    use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
    let lang: Lang = a
        .lang
        .parse()
        .ok()
        .with_context(|| format!("--lang {}: unknown language (da, nb, de or en)", a.lang))?;
    let edition: crate::model::Edition = a.rules.parse().ok().with_context(|| {
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
pub fn calibrate(args: CalibrateArgs) -> anyhow::Result<()> {
    let CalibrateArgs {
        hw,
        virtual_board,
        output,
        samples,
        watch,
        calibration,
        frames,
        interval_ms,
    } = args;
    let (hw, output) = (hw.as_path(), output.as_deref());
    use crate::sensors::{virtual_hw, HwDesign};
    let design = HwDesign::load(hw).anyhow()?;
    if watch {
        let cal = match &calibration {
            Some(p) => Some(crate::sensors::Calibration::load(p).anyhow()?),
            None => None,
        };
        let every = Duration::from_millis(interval_ms);
        return watch_sensors(&design, cal.as_ref(), virtual_board, frames, every);
    }
    let cal = if virtual_board {
        let opts = virtual_hw::VirtualOptions {
            calibration_samples: samples,
            ..Default::default()
        };
        virtual_hw::calibrate_virtual(&design, &opts)
    } else {
        #[cfg(feature = "rpi")]
        {
            let mut array = crate::sensors::rpi::open(&design).anyhow()?;
            use crate::sensors::calibration::{calibrate, TerminalOperator};
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

/// `eboard calibrate --watch`: frames of [`crate::sensors::watch::frame`]
/// on standard output, `every` apart, `frames` of them (none: until
/// Ctrl-C); the simulated board shows the initial position.
fn watch_sensors(
    design: &crate::sensors::HwDesign,
    cal: Option<&crate::sensors::Calibration>,
    virtual_board: bool,
    frames: Option<u64>,
    every: Duration,
) -> anyhow::Result<()> {
    use crate::sensors::{RawScan, SensorArray};
    fn run<A: SensorArray>(
        mut array: A,
        design: &crate::sensors::HwDesign,
        cal: Option<&crate::sensors::Calibration>,
        frames: Option<u64>,
        every: Duration,
    ) -> anyhow::Result<()> {
        array
            .init()
            .map_err(|e| anyhow::anyhow!("{}: bus init: {e:?}", design.shown()))?;
        let mut raw = RawScan::default();
        let mut n = 0u64;
        loop {
            array
                .read(&mut raw)
                .map_err(|e| anyhow::anyhow!("{}: bus read: {e:?}", design.shown()))?;
            n += 1;
            // The command's output for the user, not a log line.
            println!(
                "{} scan {n}\n{}",
                design.shown(),
                crate::sensors::watch::frame(design, cal, &raw)
            );
            if frames.is_some_and(|f| n >= f) {
                return Ok(());
            }
            std::thread::sleep(every);
        }
    }
    if virtual_board {
        use crate::sensors::virtual_hw::{VirtualBoard, VirtualOptions};
        let board = VirtualBoard::new(design, &VirtualOptions::default());
        board.show(crate::sensors::debounce::Sample::from_board(
            &shakmaty::Board::default(),
            true,
        ));
        return run(board.array(), design, cal, frames, every);
    }
    #[cfg(feature = "rpi")]
    {
        run(
            crate::sensors::rpi::open(design).anyhow()?,
            design,
            cal,
            frames,
            every,
        )
    }
    #[cfg(not(feature = "rpi"))]
    {
        let _ = run::<crate::sensors::virtual_hw::VirtualArray>;
        bail!(
            "{}: this build has no hardware backend: build with `--features rpi` on the Pi, or use --virtual",
            design.shown()
        );
    }
}
