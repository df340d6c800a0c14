//! The voice tests' shared set-up (issue 29): a game through `eboard run`
//! with real espeak-ng and aplay, each listener's output captured at
//! real-time speed ([`super::paced`]); the journal read back and replayed;
//! instants of the capture turned into the trace's ms; the per-ear checks.
//! Used by `tests/voice_answers.rs`, `voice_ears.rs`, `voice_game.rs` and
//! (the board changes of a move) `vi_game.rs`.

use super::paced::{alsa_config, Heard, PacedSink};
use super::process::{run_board_with_env, Running};
use super::skip::skip_or_fail_under_ci;
use super::tempdir;
use serde_json::Value;
use shakmaty::{Chess, Move, Position, Square};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Whether espeak-ng and aplay (alsa-utils) are installed; without them
/// the test skips (fails under CI) with the reason.
pub fn speech_programs() -> bool {
    let have = |p: &str| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success() || !o.stdout.is_empty())
    };
    if have("espeak-ng") && have("aplay") {
        return true;
    }
    skip_or_fail_under_ci("espeak-ng or aplay (alsa-utils) is not installed");
    false
}

/// Signed milliseconds from `a` to `b`.
pub fn between(a: Instant, b: Instant) -> i64 {
    if b >= a {
        (b - a).as_millis() as i64
    } else {
        -((a - b).as_millis() as i64)
    }
}

/// The records of the journal at `path` as JSON (none while it is absent;
/// a line still being written is left out).
pub fn journal(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

/// The events of the journal's `records` replayed in process, as JSON.
pub fn replayed_events(records: &[Value]) -> Vec<Value> {
    let text: String = records.iter().map(|v| v.to_string() + "\n").collect();
    let tr = eboard::trace::Trace::parse(&text).unwrap();
    let (_, events) = eboard::controller::replay(&tr, None, None).unwrap();
    events
        .iter()
        .map(|e| serde_json::from_str(&e.to_json()).unwrap())
        .collect()
}

/// Whether `sink` has sounded and been silent for more than `ms` since.
pub fn quiet_for(sink: &PacedSink, ms: u64) -> bool {
    sink.heard(0).last().is_some_and(|h| {
        Instant::now().saturating_duration_since(h.end) > Duration::from_millis(ms)
    })
}

/// The largest gap between `instants`, ms (how far apart the ears heard).
pub fn spread_ms(instants: &[Instant]) -> i64 {
    let (lo, hi) = (instants.iter().min(), instants.iter().max());
    match (lo, hi) {
        (Some(lo), Some(hi)) => between(*lo, *hi),
        _ => 0,
    }
}

/// The board changes of `mv` in `pos`, in the order a hand makes them:
/// the captured piece off, the piece up and down (the rook after the king).
pub fn changes(pos: &Chess, mv: &Move) -> Vec<(&'static str, Square)> {
    match mv {
        Move::Castle { king, rook } => {
            let side = mv.castling_side().unwrap();
            let c = pos.turn();
            vec![
                ("lift", *king),
                ("place", side.king_to(c)),
                ("lift", *rook),
                ("place", side.rook_to(c)),
            ]
        }
        Move::EnPassant { from, to } => vec![
            ("lift", Square::from_coords(to.file(), from.rank())),
            ("lift", *from),
            ("place", *to),
        ],
        _ => {
            let mut v = Vec::new();
            if mv.is_capture() {
                v.push(("lift", mv.to()));
            }
            v.push(("lift", mv.from().unwrap()));
            v.push(("place", mv.to()));
            v
        }
    }
}

/// A two-board game through `eboard run` with one paced output per
/// listener: the daemon, its journal and the capture's clock.
pub struct PacedGame {
    /// First, so that it is dropped (the daemon killed) before the outputs.
    run: Option<Running>,
    /// The outputs, in the order given to [`PacedGame::start`].
    pub sinks: Vec<PacedSink>,
    /// The daemon's journal (`--journal`).
    pub journal: PathBuf,
    base: Instant,
    base_unix: i64,
}

impl PacedGame {
    /// Starts the paced outputs `outputs` (ALSA PCMs of those names, for the
    /// config's `[voice.*] device`s), writes `config` (board.toml) and the
    /// trace `trace`, and runs `eboard run --trace --journal` on them in a
    /// fresh directory named after `name`.
    pub fn start(name: &str, outputs: &[&str], config: &str, trace: &str) -> PacedGame {
        let dir = tempdir(name);
        let sinks: Vec<PacedSink> = outputs.iter().map(|n| PacedSink::start(&dir, n)).collect();
        let alsa = alsa_config(&dir, &sinks.iter().collect::<Vec<_>>());
        let cfg = dir.join("board.toml");
        std::fs::write(&cfg, config).unwrap();
        let tf = dir.join("game.jsonl");
        std::fs::write(&tf, trace).unwrap();
        let journal = dir.join("journal.jsonl");
        // Instants to Unix ms (the journal's header gives round time 0).
        let (base, base_unix) = (Instant::now(), super::unix_ms() as i64);
        let run = run_board_with_env(
            &dir,
            &cfg,
            Some(&tf),
            &["--journal", journal.to_str().unwrap()],
            &[("ALSA_CONFIG_PATH", alsa.as_str())],
        );
        PacedGame {
            run: Some(run),
            sinks,
            journal,
            base,
            base_unix,
        }
    }

    /// The output named `name`.
    pub fn sink(&self, name: &str) -> &PacedSink {
        self.sinks
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no output {name}"))
    }

    /// The daemon's address (`127.0.0.1:PORT`).
    pub fn addr(&self) -> &str {
        &self.run.as_ref().expect("the daemon runs").addr
    }

    /// The journal's records so far.
    pub fn records(&self) -> Vec<Value> {
        journal(&self.journal)
    }

    /// Stops the daemon; its standard error (the log).
    pub fn stop(&mut self) -> String {
        let run = self.run.take().expect("the daemon runs");
        let log = std::fs::read_to_string(&run.stderr).unwrap_or_default();
        drop(run);
        log
    }

    /// The instant `i` of the capture in the trace's ms, given the
    /// journal's `records` (round time 0 is its header's
    /// `started_at_unix_ms`).
    pub fn trace_ms(&self, records: &[Value], i: Instant) -> i64 {
        let zero = records[0]["journal"]["started_at_unix_ms"]
            .as_i64()
            .unwrap_or_else(|| panic!("header: {}", records[0]));
        self.base_unix + between(self.base, i) - zero
    }
}

/// E2.3 per ear: the move announced as `n` counts as announced when the
/// output of `by` (the player who must press) has played it — the
/// journal's `spoken` record for `n` by `by` comes after his ear's end
/// `ear_end` (less the output's buffer, 150 ms) and before his `press`
/// (trace ms). Returns the record's t.
pub fn assert_spoken_in_his_ear(
    records: &[Value],
    n: u64,
    by: &str,
    ear_end: i64,
    press: i64,
) -> i64 {
    let rec = records
        .iter()
        .find(|v| v["spoken"] == n && v["by"] == by)
        .unwrap_or_else(|| panic!("no spoken record for n {n} by {by}: {records:#?}"));
    let t = rec["t"].as_i64().unwrap();
    assert!(
        t >= ear_end - 150 && t < press,
        "n {n}: reported at {t}, his ear's end {ear_end}, his press {press}: {rec}"
    );
    t
}

/// The stretches of sound of `sink` in the trace's ms (for messages).
pub fn stretches_ms(game: &PacedGame, records: &[Value], heard: &[Heard]) -> Vec<(i64, i64)> {
    heard
        .iter()
        .map(|h| {
            (
                game.trace_ms(records, h.start),
                game.trace_ms(records, h.end),
            )
        })
        .collect()
}

/// The ALSA outputs `white`, `black` and `arbiter` as WAV files
/// `DIR/NAME.wav` (an asoundrc `DIR/asoundrc`): the value for
/// `ALSA_CONFIG_PATH`.
pub fn wav_outputs(dir: &Path) -> String {
    let mut conf = String::new();
    for name in ["white", "black", "arbiter"] {
        conf.push_str(&format!(
            "pcm.{name} {{\n type file\n slave.pcm \"null\"\n file \"{}\"\n format \"wav\"\n}}\n",
            dir.join(format!("{name}.wav")).display()
        ));
    }
    let rc = dir.join("asoundrc");
    std::fs::write(&rc, conf).unwrap();
    format!("/usr/share/alsa/alsa.conf:{}", rc.display())
}

/// Each listener on the ALSA device of its name: `white`, `black`,
/// `arbiter`.
pub fn routing_by_name() -> eboard::voice::output::Routing {
    use eboard::voice::output::{Listener, Routing};
    let dev = |d: &str| Listener {
        device: Some(d.into()),
        ..Listener::default()
    };
    Routing {
        white: dev("white"),
        black: dev("black"),
        arbiter: Some(dev("arbiter")),
    }
}
