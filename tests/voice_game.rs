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
//! at 450 words a minute, 2 to 3.4 s a ply: about 80 s per language, the
//! four languages at once (one thread each in one test; see
//! [`a_whole_game_in_each_language_at_once`]).

mod common;

use common::paced::Heard;
use common::skip::shared_pgn_dir_or_skip;
use common::voice::{
    assert_spoken_in_his_ear, changes, quiet_for, replayed_events, speech_programs, stretches_ms,
    PacedGame,
};
use common::{poll, TraceBuilder};
use eboard::voice::tts::Espeak;
use eboard::voice::Lang;
use serde_json::{json, Value};
use shakmaty::san::San;
use shakmaty::{Chess, Position, Square};

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
        // wpm) have played in his ear (with room for a slow machine: 1 s
        // and more after they ended, measured at load ~10).
        let press = if white { t + 500 } else { t + 2500 };
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

fn whole_game(lang: Lang, rules: &str, results: [&str; 2]) {
    if !speech_programs() {
        return;
    }
    let Some(sans) = real_game() else { return };
    // Mate by the last mover: White when the plies are odd.
    let result_words = results[usize::from(sans.len() % 2 == 0)];
    let code = lang.code();
    let config = format!(
        "[event]\nname = \"DM\"\nrules = \"{rules}\"\nlanguage = \"{code}\"\nspeak = true\n\
             [game]\nboard = 1\nvi_player = \"b\"\n\
             [voice.white]\ndevice = \"white\"\nspeed = 450\n\
             [voice.black]\ndevice = \"black\"\nspeed = 450\n\
             [voice.arbiter]\ndevice = \"arbiter\"\nspeed = 450\n"
    );
    let (text, black_presses, last_press) = trace(&sans, code, rules);
    let mut game = PacedGame::start(
        &format!("game-{code}"),
        &["white", "black", "arbiter"],
        &config,
        &text,
    );
    // The game has ended and every output has been quiet for 2 s.
    let records = poll(150, "the game's end heard everywhere", || {
        let r = game.records();
        let ended = r.iter().filter(|v| v["spoken"].is_u64()).count() >= 3 * sans.len() / 2
            && r.iter().any(|v| v["t"].as_u64() >= Some(last_press))
            // Every phrase (the moves and the result) heard by both players.
            && ["w", "b"].iter().all(|by| {
                r.iter()
                    .filter(|v| v["spoken"].is_u64() && v["by"] == *by)
                    .count()
                    > sans.len()
            });
        let quiet = game.sinks.iter().all(|s| quiet_for(s, 2000));
        (ended && quiet).then_some(r)
    });
    let heard: Vec<(String, Vec<Heard>)> = game
        .sinks
        .iter()
        .map(|s| (s.name.clone(), s.heard(0)))
        .collect();
    let log = game.stop();
    let events = replayed_events(&records);
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
    let trace_ms = |i| game.trace_ms(&records, i);
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
    for (name, heard) in &heard {
        // Every phrase once, in order, none cut off: one stretch of sound
        // per announcement, each after its announcement, each as long as
        // its audio (less espeak-ng's silences).
        assert_eq!(
            heard.len(),
            groups.len(),
            "{code} {name}: {} stretches of sound for {} phrases: {:?}",
            heard.len(),
            groups.len(),
            stretches_ms(&game, &records, heard)
        );
        let mut delays = Vec::new();
        for (h, (t, len, texts)) in heard.iter().zip(&groups) {
            let (t, len, a) = (*t, *len, texts[0]);
            let (start, end) = (trace_ms(h.start), trace_ms(h.end));
            assert!(
                start >= t - 50,
                "{code} {name}: {:?} heard at {start}, announced at {t}",
                a["text"]
            );
            let d = end - start;
            assert!(
                d >= len * 6 / 10 && d <= len + 100 * texts.len() as i64,
                "{code} {name}: {:?} played {d} ms of {len} ms",
                a["text"]
            );
            delays.push(start - t);
        }
        delays.sort_unstable();
        report.push(format!(
            "{name}: start after the announcement median {} ms, max {} ms",
            delays[delays.len() / 2],
            delays.last().unwrap()
        ));
    }
    // E2.3 per ear: each of Black's moves counts as announced when his own
    // output has played it — its `spoken` record (by b) comes after his
    // ear's end (less the output's buffer) and before his press.
    let black = &heard[1].1;
    let mut margins = Vec::new();
    for (k, press) in black_presses.iter().enumerate() {
        let ply = 2 * k + 1;
        let n = said[ply]["n"].as_u64().unwrap();
        let ear_end = trace_ms(black[ply].end);
        assert_spoken_in_his_ear(&records, n, "b", ear_end, *press as i64);
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

/// The four languages at once, one thread each (named after the
/// language, which a failure's message names): the test waits on real
/// time, not the processor, so together they take one game's time (~90 s)
/// where the harness's two threads on CI's two cores took two (~176 s).
#[test]
fn a_whole_game_in_each_language_at_once() {
    let games: [(Lang, &str, [&str; 2]); 4] = [
        (
            Lang::Da,
            "fide-2009",
            ["Hvid vinder, mat", "Sort vinder, mat"],
        ),
        (
            Lang::Nb,
            "fide-2009-no",
            ["Hvit vinner, matt", "Svart vinner, matt"],
        ),
        (
            Lang::De,
            "fide-2023",
            ["Weiß gewinnt, Schachmatt", "Schwarz gewinnt, Schachmatt"],
        ),
        (
            Lang::En,
            "fide-2023",
            ["White wins, checkmate", "Black wins, checkmate"],
        ),
    ];
    let threads: Vec<_> = games
        .into_iter()
        .map(|(lang, rules, results)| {
            std::thread::Builder::new()
                .name(lang.code().to_owned())
                .spawn(move || whole_game(lang, rules, results))
                .unwrap()
        })
        .collect();
    let failed: Vec<String> = threads
        .into_iter()
        .filter_map(|t| {
            let name = t.thread().name().unwrap_or("?").to_owned();
            t.join().is_err().then_some(name)
        })
        .collect();
    assert!(
        failed.is_empty(),
        "the game failed in {failed:?} (each thread's message above)"
    );
}
