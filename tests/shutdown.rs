//! SIGTERM mid-game: `eboard run` on a real game of `../shared/data` (TWIC
//! 1599), stopped by SIGTERM while the game is going on, must exit 0 within
//! 2 s, and its journal replayed (`eboard replay J`) must give exactly the
//! moves the daemon reported (its `move N: SAN` log lines): nothing lost,
//! nothing invented. Once from a recorded trace (`--trace`, read ahead of
//! its time), once from standard input kept open by the producer (a read
//! that waits must not hold up the stop).
//!
//! Synchronisation is on the daemon's output lines only; no sleeps. Skips
//! with a printed reason when `../shared/data` is absent; under CI (`CI`
//! set) that is a failure. Self-contained: no helper of `tests/common`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The longest the stop may take, from SIGTERM to the exit.
const STOP_WITHIN: Duration = Duration::from_secs(2);

/// The game of the TWIC file played (1-based) and the move after which
/// SIGTERM is sent (ply).
const GAME: usize = 3;
const STOP_AFTER_PLY: usize = 12;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_eboard")
}

/// A fresh directory for one test.
fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("eboard-shutdown-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The trace of the real game, or `None` (printed) when the data is absent.
fn real_game_trace() -> Option<eboard::trace::Trace> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pgn/twic1599_1110games.pgn");
    let Ok(text) = std::fs::read_to_string(&path) else {
        if std::env::var_os("CI").is_some() {
            panic!("{} absent under CI", path.display());
        }
        println!("skipped: {} absent", path.display());
        return None;
    };
    let games = eboard::pgn::read_games(&text).unwrap();
    let game = &games[GAME - 1];
    assert!(game.moves.len() > STOP_AFTER_PLY + 10, "a game long enough");
    let opts = eboard::sim::SimOptions {
        seed: 12,
        sensing: eboard::trace::Sensing::Occupancy,
        frames: false,
    };
    Some(eboard::sim::simulate(game, &opts).unwrap())
}

/// The daemon's standard error, line by line, on a channel (closed at its
/// exit).
fn lines_of(child: &mut Child) -> Receiver<String> {
    let err = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// `move N: SAN` in a log line: (N, SAN).
fn reported_move(line: &str) -> Option<(usize, String)> {
    let rest = &line[line.find(" move ")? + 6..];
    let (ply, san) = rest.split_once(": ")?;
    Some((ply.trim().parse().ok()?, san.trim().to_owned()))
}

/// Reads lines until the daemon reports the move of `ply`; every line read
/// goes to `log`, every move to `moves`.
fn until_ply(rx: &Receiver<String>, ply: usize, log: &mut Vec<String>, moves: &mut Vec<String>) {
    let end = Instant::now() + Duration::from_secs(120);
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                if let Some((n, san)) = reported_move(&line) {
                    assert_eq!(n, moves.len() + 1, "moves reported in order: {line}");
                    moves.push(san);
                }
                log.push(line);
                if moves.len() >= ply {
                    return;
                }
            }
            Err(RecvTimeoutError::Timeout) => panic!("no move {ply} in time: {log:#?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the daemon ended early: {log:#?}"),
        }
    }
}

/// Sends SIGTERM, reads the rest of the output (its end is the exit) and
/// waits: the exit status and how long the stop took.
fn terminate(
    child: &mut Child,
    rx: &Receiver<String>,
    log: &mut Vec<String>,
    moves: &mut Vec<String>,
) -> (std::process::ExitStatus, Duration) {
    let sent = Instant::now();
    // SAFETY: kill(2) on our own child's pid.
    let r = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(r, 0, "kill: {}", std::io::Error::last_os_error());
    let limit = sent + STOP_WITHIN + Duration::from_secs(10);
    loop {
        match rx.recv_timeout(limit.saturating_duration_since(Instant::now())) {
            Ok(line) => {
                if let Some((n, san)) = reported_move(&line) {
                    assert_eq!(n, moves.len() + 1, "moves reported in order: {line}");
                    moves.push(san);
                }
                log.push(line);
            }
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                panic!("no exit after SIGTERM: {log:#?}");
            }
        }
    }
    let status = child.wait().unwrap();
    (status, sent.elapsed())
}

/// The SAN moves of the journal, replayed by `eboard replay J --pgn -`.
fn journal_moves(journal: &Path) -> Vec<String> {
    let out = Command::new(bin())
        .args(["replay", journal.to_str().unwrap(), "--pgn", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "replay of the journal: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pgn = String::from_utf8(out.stdout).unwrap();
    let movetext = pgn.split_once("\n\n").map_or("", |(_, m)| m);
    let mut moves = Vec::new();
    let mut comment = false;
    for token in movetext.split_whitespace() {
        if comment || token.starts_with('{') {
            comment = !token.ends_with('}');
            continue;
        }
        let san = token.rsplit('.').next().unwrap_or("");
        if san.is_empty() || ["*", "1-0", "0-1", "1/2-1/2"].contains(&san) {
            continue;
        }
        moves.push(san.to_owned());
    }
    moves
}

fn config(dir: &Path) -> PathBuf {
    let cfg = dir.join("board.toml");
    std::fs::write(
        &cfg,
        "[event]\nname = \"Shutdown test\"\n\n[game]\nround = 1\nboard = 1\n",
    )
    .unwrap();
    cfg
}

fn daemon(dir: &Path, journal: &Path, extra: &[&str], stdin: Stdio) -> Child {
    let cfg = config(dir);
    Command::new(bin())
        .args(["run", "--config", cfg.to_str().unwrap()])
        .args(["--journal", journal.to_str().unwrap()])
        .args(["--listen", "127.0.0.1:0", "--speed", "50"])
        .args(extra)
        .env("RUST_LOG", "info")
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start eboard run")
}

fn check_stop(status: std::process::ExitStatus, took: Duration, log: &[String]) {
    assert!(status.success(), "exit 0 after SIGTERM: {status}: {log:#?}");
    assert!(
        took < STOP_WITHIN,
        "stopped in {took:?}, more than {STOP_WITHIN:?}: {log:#?}"
    );
    println!("SIGTERM to exit: {took:?}");
}

#[test]
fn sigterm_mid_game_from_a_trace_loses_and_invents_nothing() {
    let Some(trace) = real_game_trace() else {
        return;
    };
    let dir = tempdir("trace");
    let trace_path = dir.join("game.jsonl");
    let mut f = std::fs::File::create(&trace_path).unwrap();
    trace.write(&mut f).unwrap();
    drop(f);
    let journal = dir.join("journal.jsonl");
    let mut child = daemon(
        &dir,
        &journal,
        &["--trace", trace_path.to_str().unwrap()],
        Stdio::null(),
    );
    let rx = lines_of(&mut child);
    let (mut log, mut moves) = (Vec::new(), Vec::new());
    until_ply(&rx, STOP_AFTER_PLY, &mut log, &mut moves);
    let before = moves.clone();
    let (status, took) = terminate(&mut child, &rx, &mut log, &mut moves);
    check_stop(status, took, &log);
    // Records decided while stopping are reported too, after the ones seen.
    assert_eq!(moves[..before.len()], before[..]);
    assert!(moves.len() < trace.records.len());
    assert_eq!(
        journal_moves(&journal),
        moves,
        "the journal's game is the reported one: {log:#?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sigterm_while_standard_input_waits_loses_and_invents_nothing() {
    let Some(trace) = real_game_trace() else {
        return;
    };
    // The records up to White's or Black's press completing move
    // STOP_AFTER_PLY; the producer keeps the pipe open after them.
    let presses: Vec<usize> = trace
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.kind, eboard::trace::RecordKind::Press(_)))
        .map(|(i, _)| i)
        .collect();
    let cut = presses[STOP_AFTER_PLY - 1] + 1;
    let mut text = Vec::new();
    trace.write(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let input: String = text
        .lines()
        .take(1 + cut)
        .map(|l| format!("{l}\n"))
        .collect();

    let dir = tempdir("stdin");
    let journal = dir.join("journal.jsonl");
    let mut child = daemon(&dir, &journal, &[], Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let rx = lines_of(&mut child);
    let (mut log, mut moves) = (Vec::new(), Vec::new());
    until_ply(&rx, STOP_AFTER_PLY, &mut log, &mut moves);
    let (status, took) = terminate(&mut child, &rx, &mut log, &mut moves);
    drop(stdin);
    check_stop(status, took, &log);
    // Every record written was read and decided: exactly these moves.
    let expected: Vec<String> = trace_sans(&trace, STOP_AFTER_PLY);
    assert_eq!(moves, expected, "{log:#?}");
    assert_eq!(journal_moves(&journal), moves, "{log:#?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The first `n` moves of the game the trace was made from, in SAN, as the
/// replay of the whole trace decides them.
fn trace_sans(trace: &eboard::trace::Trace, n: usize) -> Vec<String> {
    let (game, _) = eboard::controller::replay(trace, None, None).unwrap();
    game.moves().iter().take(n).map(|m| m.san.clone()).collect()
}
