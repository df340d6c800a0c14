//! Speech and the `announce` command (issue 6 item 7): espeak-ng writes a
//! WAV file for a phrase in every language, and sox (`sox FILE -n stat`)
//! must find it speech-length and not silent. Timings of the synthesis are
//! printed (`cargo test --test suite voice:: -- --nocapture`).
//!
//! Without espeak-ng or sox the speech tests skip with a printed reason,
//! except under CI (`CI` set), where they fail. Debian packages: `espeak-ng`
//! and `sox`.

use crate::common;

use common::skip_or_fail_under_ci;
use eboard::rules::Edition;
use eboard::voice::tts::{Espeak, TtsError};
use eboard::voice::{move_phrase, san_to_move, Lang, Vocabulary, VoiceOptions};
use shakmaty::Chess;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `program --version` runs; if not, skip (or fail under CI).
fn have(program: &str) -> bool {
    let ok = Command::new(program)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        skip_or_fail_under_ci(&format!(
            "{program} not installed (apt-get install -y espeak-ng sox)"
        ));
    }
    ok
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("eboard-voice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `sox FILE -n stat`: (length in seconds, RMS amplitude 0..1).
fn sox_stat(path: &Path) -> (f64, f64) {
    let out = Command::new("sox")
        .arg(path)
        .args(["-n", "stat"])
        .output()
        .expect("run sox");
    // sox writes the statistics to standard error.
    let text = String::from_utf8_lossy(&out.stderr);
    let field = |name: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split(':').nth(1))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("sox stat has no {name:?}:\n{text}"))
    };
    (field("Length (seconds)"), field("RMS     amplitude"))
}

fn phrase(lang: Lang, edition: Edition, san: &str) -> String {
    let pos = Chess::default();
    let voc = Vocabulary::new(lang, edition, VoiceOptions::default());
    move_phrase(&pos, &san_to_move(&pos, san).unwrap(), &voc)
}

#[test]
fn espeak_wav_is_speech_in_every_language() {
    if !have("espeak-ng") || !have("sox") {
        return;
    }
    let tts = Espeak::new();
    for (lang, edition) in [
        (Lang::Da, Edition::Fide2009),
        (Lang::Nb, Edition::Fide2009No),
        (Lang::De, Edition::Fide2023),
        (Lang::En, Edition::Fide2023),
    ] {
        let text = phrase(lang, edition, "Nf3");
        let wav = scratch(&format!("{lang}.wav"));
        tts.write_wav(&text, lang, &wav)
            .unwrap_or_else(|e| panic!("{lang}: {e}"));
        let (seconds, rms) = sox_stat(&wav);
        println!("{lang}: {text:?}: {seconds:.2} s, RMS {rms:.4}");
        assert!(seconds > 0.3, "{lang}: {seconds} s of audio");
        assert!(rms > 0.01, "{lang}: RMS amplitude {rms} (silence?)");
        let _ = std::fs::remove_file(&wav);
    }
}

#[test]
fn time_to_audio_start() {
    if !have("espeak-ng") {
        return;
    }
    let tts = Espeak::new();
    for &lang in Lang::ALL {
        let text = phrase(lang, Edition::Fide2023, "e4");
        let s = tts.synthesize(&text, lang).unwrap();
        let sound = s.first_sound.expect("some sound");
        println!(
            "{lang}: first byte {:.1} ms, first sound {:.1} ms, done {:.1} ms, audio {:.2} s",
            s.first_output.as_secs_f64() * 1e3,
            sound.as_secs_f64() * 1e3,
            s.total.as_secs_f64() * 1e3,
            s.audio_length().as_secs_f64()
        );
        assert!(s.audio_length().as_secs_f64() > 0.3);
        // Generous for a loaded CI machine; the figure is printed above.
        assert!(
            sound.as_secs_f64() < 2.0,
            "{lang}: {sound:?} to first sound"
        );
    }
}

#[test]
fn a_missing_espeak_is_a_clear_error() {
    let e = Espeak::with_program("/nonexistent/espeak-ng")
        .write_wav("Anna", Lang::Da, &scratch("never.wav"))
        .unwrap_err();
    assert!(matches!(e, TtsError::NotInstalled { .. }));
    assert_eq!(
        e.to_string(),
        "/nonexistent/espeak-ng is not installed: install it with `apt-get install espeak-ng`"
    );
}

/// `eboard ARGS`: (exit code, standard output, standard error).
fn eboard(args: &[&str]) -> (i32, String, String) {
    let out = common::eboard(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn announce_prints_the_phrase() {
    let ok = |args: &[&str], want: &str| {
        let (code, out, err) = eboard(args);
        assert_eq!(
            (code, out.as_str()),
            (0, format!("{want}\n").as_str()),
            "{args:?}: {err}"
        );
    };
    ok(
        &["announce", "--lang", "da", "--rules", "fide-2009", "Nf3"],
        "Springer Frederik tre",
    );
    ok(
        &["announce", "--lang", "nb", "--rules", "fide-2009-no", "Nf3"],
        "Springer Felix drei",
    );
    ok(
        &[
            "announce",
            "--lang",
            "nb",
            "--rules",
            "fide-2009-no",
            "--words",
            "national",
            "Nf3",
        ],
        "Springer Felix tre",
    );
    ok(
        &[
            "announce",
            "--lang",
            "de",
            "--moves",
            "1.f3 e5 2.g4",
            "Qh4#",
        ],
        "Dame Hector vier, Schachmatt",
    );
    ok(
        &[
            "announce",
            "--lang",
            "en",
            "--words",
            "national",
            "--fen",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
            "exd6",
        ],
        "Pawn Eva takes David six en passant",
    );
    ok(
        &[
            "announce",
            "--rules",
            "fide-2009",
            "--alt-names",
            "--from-square",
            "Nf3",
        ],
        "Springer Gustav et Felix tre",
    );
}

#[test]
fn announce_rejects_bad_input_in_one_line_with_exit_code_2() {
    let bad = |args: &[&str], want: &str| {
        let (code, out, err) = eboard(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    };
    bad(
        &["announce", "--lang", "xx", "Nf3"],
        "--lang xx: unknown language",
    );
    bad(
        &["announce", "--rules", "fide-1999", "Nf3"],
        "unknown rule profile",
    );
    bad(
        &["announce", "Zz9"],
        "Zz9: not a move in standard algebraic notation",
    );
    bad(
        &["announce", "Nf6"],
        "Nf6: illegal in the position (white to move)",
    );
    bad(
        &["announce", "--moves", "e4 e5 Ke3", "Nf3"],
        "--moves: move 3: Ke3: illegal",
    );
    bad(
        &["announce", "--fen", "not a fen", "e4"],
        "--fen: invalid FEN",
    );
}

#[test]
fn announce_writes_a_wav() {
    if !have("espeak-ng") || !have("sox") {
        return;
    }
    let wav = scratch("announce.wav");
    let (code, out, err) = eboard(&[
        "announce",
        "--lang",
        "da",
        "--rules",
        "fide-2009",
        "--wav",
        wav.to_str().unwrap(),
        "O-O",
        "--moves",
        "e4 e5 Nf3 Nc6 Bc4 Bc5",
    ]);
    assert_eq!((code, out.as_str()), (0, "Kort rokade\n"), "{err}");
    let (seconds, rms) = sox_stat(&wav);
    assert!(seconds > 0.3 && rms > 0.01, "{seconds} s, RMS {rms}");
    let _ = std::fs::remove_file(&wav);
}
