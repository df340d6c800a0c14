//! A round of boards from traces: each table in its own directory
//! `DIR/bN` with its config ([`super::config`], round 1, board N), its
//! trace written from the step language ([`super::TraceBuilder::steps`])
//! and, when asked, its journal `DIR/bN/j.jsonl`; [`Round::of_steps`]
//! starts one board a game. The relay over them: [`super::console`].

use super::console::journal_records;
use super::{config, refs, run_board, Running, TraceBuilder};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The time control of [`super::config`] (the event's).
pub const TIME_CONTROL: &str = "5400+30";

/// A trace `DIR/NAME.jsonl` of `steps` under the time control `tc` (the
/// config's: `eboard run` refuses a header that contradicts it).
pub fn steps_trace(dir: &Path, name: &str, tc: &str, steps: &str) -> PathBuf {
    write_trace(
        dir,
        name,
        &TraceBuilder::new().header("time_control", tc).steps(steps),
    )
}

/// `trace` written to `DIR/NAME.jsonl`.
pub fn write_trace(dir: &Path, name: &str, trace: &TraceBuilder) -> PathBuf {
    let p = dir.join(format!("{name}.jsonl"));
    std::fs::write(&p, trace.text()).unwrap();
    p
}

/// `count` quiet pawn moves (steps), one every `gap_ms` from `from_ms`,
/// White first: a game that goes on for minutes without a capture, a
/// check or a repetition (at most 32 moves).
pub fn quiet_steps(from_ms: u64, gap_ms: u64, count: usize) -> String {
    let moves = [
        "a2a3", "a7a6", "b2b3", "b7b6", "c2c3", "c7c6", "d2d3", "d7d6", "e2e3", "e7e6", "f2f3",
        "f7f6", "g2g3", "g7g6", "h2h3", "h7h6", "a3a4", "a6a5", "b3b4", "b6b5", "c3c4", "c6c5",
        "d3d4", "d6d5", "e3e4", "e6e5", "f3f4", "f6f5", "g3g4", "g6g5", "h3h4", "h6h5",
    ];
    moves[..count]
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let by = if i % 2 == 0 { "w" } else { "b" };
            format!("{} mv {m} {by}\n", from_ms + i as u64 * gap_ms)
        })
        .collect()
}

/// White's illegal move `from`-`to` at `at_ms` (steps): lifted, placed
/// 200 ms later, the clock pressed 200 ms after that; left on the board.
pub fn illegal_steps(at_ms: u64, from: &str, to: &str) -> String {
    format!(
        "{at_ms} lift {from}\n{} place {to}\n{} press w\n",
        at_ms + 200,
        at_ms + 400
    )
}

/// One table of a round: its directory `DIR/bN`, its config (round 1,
/// board `n`, `extra` after the arbiter's token) and where its journal
/// goes.
pub struct Table {
    pub n: u32,
    pub dir: PathBuf,
    pub cfg: PathBuf,
    pub journal: PathBuf,
}

impl Table {
    /// Table `n` of the round in `round_dir` (its directory made).
    pub fn new(round_dir: &Path, n: u32, extra: &str) -> Table {
        let dir = round_dir.join(format!("b{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = config(&dir, 1, n, extra);
        Table {
            n,
            journal: dir.join("j.jsonl"),
            dir,
            cfg,
        }
    }

    /// The config's event played under `tc`, with the `[event]` keys
    /// `more` (`rules = "fide-2009"\n`) after it.
    pub fn event(&self, tc: &str, more: &str) -> &Table {
        event_keys(&self.cfg, tc, more);
        self
    }

    /// The trace `DIR/bN/game.jsonl` of `steps` under `tc`.
    pub fn trace(&self, tc: &str, steps: &str) -> PathBuf {
        steps_trace(&self.dir, "game", tc, steps)
    }

    /// `eboard run` of this table on `trace`, with `args`.
    pub fn start(&self, trace: Option<&Path>, args: &[&str]) -> Running {
        run_board(&self.dir, &self.cfg, trace, args)
    }

    /// [`Table::start`] at `--speed SPEED`, with `--journal` when
    /// `journaled`.
    pub fn run(&self, trace: Option<&Path>, speed: &str, journaled: bool) -> Running {
        if journaled {
            self.start(trace, &refs(&self.journaled(speed, &[])))
        } else {
            self.start(trace, &["--speed", speed])
        }
    }

    /// The arguments `--journal J --speed SPEED` and `more` (`--delay 900`).
    pub fn journaled(&self, speed: &str, more: &[&str]) -> Vec<String> {
        let mut args = vec![
            "--journal".to_owned(),
            self.journal.to_str().unwrap().to_owned(),
            "--speed".to_owned(),
            speed.to_owned(),
        ];
        args.extend(more.iter().map(|a| (*a).to_owned()));
        args
    }

    /// The records of this table's journal.
    pub fn records(&self) -> Vec<Value> {
        journal_records(&self.journal)
    }
}

/// Sets the `[event]` time control of the config `cfg` (made by
/// [`super::config`]) to `tc` and adds the `[event]` keys `more` after it.
pub fn event_keys(cfg: &Path, tc: &str, more: &str) {
    let text = std::fs::read_to_string(cfg).unwrap().replacen(
        &format!("time_control = \"{TIME_CONTROL}\"\n"),
        &format!("time_control = \"{tc}\"\n{more}"),
        1,
    );
    std::fs::write(cfg, text).unwrap();
}

/// The boards of a round, started, and their tables.
pub struct Round {
    pub tables: Vec<Table>,
    pub boards: Vec<Running>,
}

impl Round {
    /// One board a game of `games` (steps under [`TIME_CONTROL`]), tables
    /// 1, 2, … in order, each config with `extra` (the accounts), at
    /// `--speed 1`, with its journal when `journaled`.
    pub fn of_steps(dir: &Path, extra: &str, games: &[&str], journaled: bool) -> Round {
        Round::start(dir, extra, games.len(), |t| {
            let trace = t.trace(TIME_CONTROL, games[t.n as usize - 1]);
            t.run(Some(&trace), "1", journaled)
        })
    }

    /// Tables 1..=`count` (configs with `extra`), each board started by
    /// `start`.
    pub fn start(
        dir: &Path,
        extra: &str,
        count: usize,
        start: impl FnMut(&Table) -> Running,
    ) -> Round {
        Round::start_each(dir, count, |_| extra.to_owned(), start)
    }

    /// [`Round::start`] with table N's config taking `extra(N)`.
    pub fn start_each(
        dir: &Path,
        count: usize,
        extra: impl Fn(u32) -> String,
        mut start: impl FnMut(&Table) -> Running,
    ) -> Round {
        let tables: Vec<Table> = (1..=count as u32)
            .map(|n| Table::new(dir, n, &extra(n)))
            .collect();
        let boards = tables.iter().map(&mut start).collect();
        Round { tables, boards }
    }

    /// The running boards, for [`super::console::relay_over`].
    pub fn boards(&self) -> Vec<&Running> {
        self.boards.iter().collect()
    }

    /// Table `n`'s journal records.
    pub fn records(&self, n: u32) -> Vec<Value> {
        self.tables[n as usize - 1].records()
    }
}

/// Board `board` of round 1 of "Open 2026" (5400+30) as an in-process
/// daemon on the runtime `rt`: `game` simulated with the seed `board`,
/// played as a recording at `speed`, journaled in `DIR/bN.jsonl`,
/// publishing to the broker `mqtt`.
pub fn in_process_board(
    rt: &tokio::runtime::Runtime,
    dir: &Path,
    game: &eboard::pgn::PgnGame,
    board: u32,
    mqtt: eboard::config::MqttConfig,
    speed: f64,
) -> eboard::daemon::Daemon {
    let trace = eboard::sim::simulate(
        game,
        &eboard::sim::SimOptions {
            seed: u64::from(board),
            ..Default::default()
        },
    )
    .unwrap();
    let mut cfg = eboard::config::Config::default();
    cfg.event.name = Some("Open 2026".into());
    cfg.event.time_control = Some(TIME_CONTROL.into());
    cfg.game.round = 1;
    cfg.game.board = board;
    cfg.mqtt = Some(mqtt);
    eboard::daemon::Daemon::start(
        eboard::daemon::RunOptions {
            config: cfg,
            delay_s: 0,
            journal: Some(dir.join(format!("b{board}.jsonl"))),
            source: Box::new(trace.records.into_iter().map(Ok)),
            source_header: Some(trace.header),
            source_is_recording: true,
            speed,
            on_event: None,
            clock_device: None,
            source_is_live: false,
        },
        rt.handle(),
    )
    .unwrap()
}

/// A multi-threaded tokio runtime of two workers, for in-process daemons.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The game of the PGN text `pgn` (tags and movetext) simulated into
/// `DIR/game.jsonl` with the seed `seed` (hands, clock presses, the end: a
/// resignation for a decisive result without mate, an offer and its
/// acceptance for a draw); its time control left to the config, as
/// [`super::opera_trace`] does.
pub fn pgn_trace(dir: &Path, pgn: &str, seed: u64) -> PathBuf {
    let game = eboard::pgn::read_games(pgn).unwrap().remove(0);
    let mut trace = eboard::sim::simulate(
        &game,
        &eboard::sim::SimOptions {
            seed,
            ..Default::default()
        },
    )
    .unwrap();
    trace.header.time_control = None;
    let p = dir.join("game.jsonl");
    let mut f = std::fs::File::create(&p).unwrap();
    trace.write(&mut f).unwrap();
    p
}
