//! Issue 29, point 7: a whole real game per language through `eboard run`
//! with real espeak-ng and aplay, each listener's output (White, Black on
//! the tactile board, the arbiter) captured at real-time speed
//! ([`common::paced`]). Asserted per ear: every announcement heard, once,
//! in order, none cut off; Black's moves count as announced when his own
//! output has played them (E2.3, the journal's `spoken` record before his
//! press); no irregularity; the result said.
//!
//! The game: the first real game of `../shared/data` (lichess, May 2025)
//! ending in mate within 30 plies with castling and no promotion. Speech
//! at 450 words a minute, 2 to 3.9 s a ply: 70 to 90 s per language, the
//! four languages in parallel (one test each, `--test-threads 4`).

mod common;

use common::paced::{alsa_config, Heard, PacedSink};
use common::skip::{shared_pgn_dir_or_skip, skip_or_fail_under_ci};
use common::{poll, run_board_with_env, tempdir, TraceBuilder};
use eboard::voice::tts::Espeak;
use eboard::voice::Lang;
use serde_json::{json, Value};
use shakmaty::san::San;
use shakmaty::{Chess, Move, Position, Square};
use std::process::Command;
use std::time::Instant;

fn programs() -> bool {
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

/// The first game of the lichess file that ends in mate within 30 plies,
/// castles and promotes nowhere.
fn real_game() -> Option<Vec<String>> {
    let dir = shared_pgn_dir_or_skip()?;
    let text = std::fs::read_to_string(dir.join("lichess_db_2025-05_438games.pgn")).unwrap();
    let (games, _) = eboard::pgn::read_games_lenient(&text);
    games
        .into_iter()
        .map(|g| g.moves.into_iter().map(|m| m.san).collect::<Vec<_>>())
        .find(|m| {
            m.len() <= 30
                && m.last().is_some_and(|s| s.ends_with('#'))
                && m.iter().any(|s| s.starts_with("O-O"))
                && m.iter().all(|s| !s.contains('='))
        })
}

/// The board changes of `mv` as a hand makes them.
fn changes(pos: &Chess, mv: &Move) -> Vec<(&'static str, Square)> {
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

/// The two-board trace (Black on the tactile board) and Black's presses.
fn trace(sans: &[String], lang: &str, rules: &str) -> (String, Vec<u64>, u64) {
    let mut tb = TraceBuilder::with_header(json!({
        "trace": 1, "boards": ["main", "tactile"], "vi_player": "b",
        "language": lang, "rules": rules, "time_control": "5400+30"
    }));
    let push = |tb: TraceBuilder, t: u64, (k, sq): (&str, Square), board: &str| {
        tb.record(json!({"t": t, k: sq.to_string(), "board": board}))
    };
    let mut pos = Chess::default();
    let mut t = 1000;
    let mut black_presses = Vec::new();
    let mut last_press = 0;
    for (i, san) in sans.iter().enumerate() {
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        let white = i % 2 == 0;
        let (own, other, by) = if white {
            ("main", "tactile", "w")
        } else {
            ("tactile", "main", "b")
        };
        let ch = changes(&pos, &mv);
        for (k, c) in ch.iter().enumerate() {
            tb = push(tb, t + 100 * k as u64, *c, own);
        }
        // White's move is announced at his press; Black's once the tactile
        // board shows it, and he presses after its words (~0.6 s at 450
        // wpm) have played in his ear (with room for a slow machine).
        let press = if white { t + 500 } else { t + 3000 };
        tb = tb.press(press, by);
        last_press = press;
        if !white {
            black_presses.push(press);
        }
        let last = i + 1 == sans.len();
        if !last {
            for (k, c) in ch.iter().enumerate() {
                tb = push(tb, press + 200 + 100 * k as u64, *c, other);
            }
        }
        // The next move's words come more than a second after these.
        t = press + if white { 1500 } else { 900 };
        pos.play_unchecked(mv);
    }
    (tb.text(), black_presses, last_press)
}

fn journal(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

fn between(a: Instant, b: Instant) -> i64 {
    if b >= a {
        (b - a).as_millis() as i64
    } else {
        -((a - b).as_millis() as i64)
    }
}

fn whole_game(lang: Lang, rules: &str, results: [&str; 2]) {
    if !programs() {
        return;
    }
    let Some(sans) = real_game() else { return };
    // Mate by the last mover: White when the plies are odd.
    let result_words = results[usize::from(sans.len() % 2 == 0)];
    let code = lang.code();
    let dir = tempdir(&format!("game-{code}"));
    let sinks: Vec<PacedSink> = ["white", "black", "arbiter"]
        .iter()
        .map(|n| PacedSink::start(&dir, n))
        .collect();
    let alsa = alsa_config(&dir, &sinks.iter().collect::<Vec<_>>());
    let cfg = dir.join("board.toml");
    std::fs::write(
        &cfg,
        format!(
            "[event]\nname = \"DM\"\nrules = \"{rules}\"\nlanguage = \"{code}\"\nspeak = true\n\
             [game]\nboard = 1\nvi_player = \"b\"\n\
             [voice.white]\ndevice = \"white\"\nspeed = 450\n\
             [voice.black]\ndevice = \"black\"\nspeed = 450\n\
             [voice.arbiter]\ndevice = \"arbiter\"\nspeed = 450\n"
        ),
    )
    .unwrap();
    let (text, black_presses, last_press) = trace(&sans, code, rules);
    let tf = dir.join("game.jsonl");
    std::fs::write(&tf, text).unwrap();
    let j = dir.join("journal.jsonl");
    let (base, base_unix) = (Instant::now(), common::unix_ms() as i64);
    let run = run_board_with_env(
        &dir,
        &cfg,
        Some(&tf),
        &["--journal", j.to_str().unwrap()],
        &[("ALSA_CONFIG_PATH", alsa.as_str())],
    );
    // The game has ended and every output has been quiet for 2 s.
    let records = poll(150, "the game's end heard everywhere", || {
        let r = journal(&j);
        let ended = r.iter().filter(|v| v["spoken"].is_u64()).count() >= 3 * sans.len() / 2
            && r.iter().any(|v| v["t"].as_u64() >= Some(last_press))
            // Every phrase (the moves and the result) heard by both players.
            && ["w", "b"].iter().all(|by| {
                r.iter()
                    .filter(|v| v["spoken"].is_u64() && v["by"] == *by)
                    .count()
                    > sans.len()
            });
        let quiet = sinks.iter().all(|s| {
            s.heard(0)
                .last()
                .is_some_and(|h| Instant::now().saturating_duration_since(h.end).as_millis() > 2000)
        });
        (ended && quiet).then_some(r)
    });
    let log = std::fs::read_to_string(&run.stderr).unwrap();
    drop(run);
    let tr = eboard::trace::Trace::parse(
        &records
            .iter()
            .map(|v| v.to_string() + "\n")
            .collect::<String>(),
    )
    .unwrap();
    let (_, events) = eboard::controller::replay(&tr, None, None).unwrap();
    let events: Vec<Value> = events
        .iter()
        .map(|e| serde_json::from_str(&e.to_json()).unwrap())
        .collect();
    let said: Vec<&Value> = events.iter().filter(|e| e["type"] == "announce").collect();
    let moves = events.iter().filter(|e| e["type"] == "move").count();
    assert_eq!(moves, sans.len(), "{code}: every move made\n{log}");
    // No false irregularity, and the result said last.
    let irregular: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "irregularity" || e["type"] == "illegal_move")
        .collect();
    assert!(irregular.is_empty(), "{code}: {irregular:#?}\n{log}");
    let last = said.last().unwrap();
    assert_eq!(last["text"], result_words, "{code}: {said:#?}");
    assert_eq!(
        said.len(),
        sans.len() + 1,
        "{code}: one phrase a move and the result: {said:#?}"
    );
    let zero = records[0]["journal"]["started_at_unix_ms"]
        .as_i64()
        .unwrap();
    let trace_ms = |i: Instant| base_unix + between(base, i) - zero;
    // The real length of each phrase at 450 wpm, as the daemon renders it.
    let mut tts = Espeak::new();
    tts.speed_wpm = Some(450);
    let lengths: Vec<i64> = said
        .iter()
        .map(|a| {
            let syn = match a["ssml"].as_str() {
                Some(m) => tts.synthesize_ssml(m, lang),
                None => tts.synthesize(a["text"].as_str().unwrap(), lang),
            }
            .unwrap();
            syn.audio_length().as_millis() as i64
        })
        .collect();
    // Phrases announced together (the mating move and the result) play
    // back to back: one stretch of sound. Groups: (first t, total ms, texts).
    let mut groups: Vec<(i64, i64, Vec<&Value>)> = Vec::new();
    for (a, len) in said.iter().zip(&lengths) {
        let t = a["t"].as_i64().unwrap();
        match groups.last_mut() {
            Some(g) if t - g.0 < 500 => {
                g.1 += len;
                g.2.push(a);
            }
            _ => groups.push((t, *len, vec![a])),
        }
    }
    let mut report = Vec::new();
    for s in &sinks {
        let heard: Vec<Heard> = s.heard(0);
        // Every phrase once, in order, none cut off: one stretch of sound
        // per announcement, each after its announcement, each as long as
        // its audio (less espeak-ng's silences).
        assert_eq!(
            heard.len(),
            groups.len(),
            "{code} {}: {} stretches of sound for {} phrases: {:?}",
            s.name,
            heard.len(),
            groups.len(),
            heard
                .iter()
                .map(|h| (trace_ms(h.start), trace_ms(h.end)))
                .collect::<Vec<_>>()
        );
        let mut delays = Vec::new();
        for (h, (t, len, texts)) in heard.iter().zip(&groups) {
            let (t, len, a) = (*t, *len, texts[0]);
            let (start, end) = (trace_ms(h.start), trace_ms(h.end));
            assert!(
                start >= t - 50,
                "{code} {}: {:?} heard at {start}, announced at {t}",
                s.name,
                a["text"]
            );
            let d = end - start;
            assert!(
                d >= len * 6 / 10 && d <= len + 100 * texts.len() as i64,
                "{code} {}: {:?} played {d} ms of {len} ms",
                s.name,
                a["text"]
            );
            delays.push(start - t);
        }
        delays.sort_unstable();
        report.push(format!(
            "{}: start after the announcement median {} ms, max {} ms",
            s.name,
            delays[delays.len() / 2],
            delays.last().unwrap()
        ));
    }
    // E2.3 per ear: each of Black's moves counts as announced when his own
    // output has played it — its `spoken` record (by b) comes after his
    // ear's end (less the output's buffer) and before his press.
    let black = sinks[1].heard(0);
    let mut margins = Vec::new();
    for (k, press) in black_presses.iter().enumerate() {
        let ply = 2 * k + 1;
        let a = said[ply];
        let n = a["n"].as_u64().unwrap();
        let rec = records
            .iter()
            .find(|v| v["spoken"] == n && v["by"] == "b")
            .unwrap_or_else(|| panic!("{code}: no spoken record by b for {a}"));
        let rt = rec["t"].as_i64().unwrap();
        let ear_end = trace_ms(black[ply].end);
        assert!(
            rt >= ear_end - 150 && rt < *press as i64,
            "{code}: {a}: reported at {rt}, his ear's end {ear_end}, his press {press}"
        );
        margins.push(*press as i64 - ear_end);
    }
    println!(
        "{code}: {} plies, {} phrases; {}; Black pressed {}..{} ms after the words ended in \
         his ear",
        sans.len(),
        said.len(),
        report.join("; "),
        margins.iter().min().unwrap(),
        margins.iter().max().unwrap()
    );
}

#[test]
fn a_whole_game_in_danish() {
    whole_game(
        Lang::Da,
        "fide-2009",
        ["Hvid vinder, mat", "Sort vinder, mat"],
    );
}

#[test]
fn a_whole_game_in_norwegian() {
    whole_game(
        Lang::Nb,
        "fide-2009-no",
        ["Hvit vinner, matt", "Svart vinner, matt"],
    );
}

#[test]
fn a_whole_game_in_german() {
    whole_game(
        Lang::De,
        "fide-2023",
        ["Weiß gewinnt, Schachmatt", "Schwarz gewinnt, Schachmatt"],
    );
}

#[test]
fn a_whole_game_in_english() {
    whole_game(
        Lang::En,
        "fide-2023",
        ["White wins, checkmate", "Black wins, checkmate"],
    );
}
