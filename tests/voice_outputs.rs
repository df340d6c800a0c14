//! One audio output per listener (issue 14 item 6), with the real programs:
//! espeak-ng renders each player's audio, sox measures channel and level,
//! and aplay routes each device's audio through ALSA's `file` plugin (an
//! asoundrc in a temporary directory) to a WAV per device.

mod common;

use common::skip::skip_or_fail_under_ci;
use eboard::rules::Edition;
use eboard::voice::output::{Channel, Listener, Routing, Utterance};
use eboard::voice::tts::Espeak;
use eboard::voice::{Lang, Vocabulary, VoiceOptions};
use shakmaty::Color;
use std::path::Path;
use std::process::Command;

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success() || !o.stdout.is_empty())
}

/// sox's RMS amplitude (0 … 1) of channel `ch` (1 left, 2 right).
fn rms(path: &Path, ch: u32) -> f64 {
    let out = Command::new("sox")
        .arg(path)
        .args(["-n", "remix", &ch.to_string(), "stat"])
        .output()
        .expect("sox runs");
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines()
        .find(|l| l.starts_with("RMS     amplitude:"))
        .and_then(|l| l.split(':').nth(1))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no RMS amplitude in sox's output: {text}"))
}

fn soxi(path: &Path, flag: &str) -> String {
    let out = Command::new("soxi").arg(flag).arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn split_pair() -> Routing {
    Routing {
        white: Listener {
            device: Some("pair".into()),
            channel: Channel::Left,
            ..Listener::default()
        },
        black: Listener {
            device: Some("pair".into()),
            channel: Channel::Right,
            volume_percent: 50,
            ..Listener::default()
        },
        arbiter: None,
    }
}

#[test]
fn a_stereo_pair_split_left_and_right_carries_each_players_audio() {
    if !have("espeak-ng") || !have("sox") {
        skip_or_fail_under_ci("espeak-ng or sox is not installed");
        return;
    }
    let dir = common::tempdir("voice-out");
    let tts = Espeak::new();
    let r = split_pair();
    // An answer to Black alone: only the right channel carries it.
    let u = Utterance {
        text: "Sidste træk, hvid: springer Frederik tre",
        ssml: None,
        lang: Lang::Da,
        to: Some(Color::Black),
    };
    let audio = r.render(&tts, &u).unwrap();
    assert_eq!(audio.len(), 1, "one device");
    let f = dir.join("black.wav");
    audio[0].write(&f).unwrap();
    assert_eq!(soxi(&f, "-c"), "2");
    let (l, rr) = (rms(&f, 1), rms(&f, 2));
    assert!(l < 0.0005, "left (White) silent: {l}");
    assert!(rr > 0.02, "right (Black) speaks: {rr}");
    // To both: both channels, Black's at half White's level.
    let both = Utterance { to: None, ..u };
    let audio = r.render(&tts, &both).unwrap();
    let f = dir.join("both.wav");
    audio[0].write(&f).unwrap();
    let (l, rr) = (rms(&f, 1), rms(&f, 2));
    assert!(l > 0.02, "left speaks: {l}");
    let ratio = rr / l;
    assert!((0.45..0.55).contains(&ratio), "volume 50 %: ratio {ratio}");
    // The real length is the audio's: frames / rate, as soxi reads it.
    let secs: f64 = soxi(&f, "-D").parse().unwrap();
    let len = audio[0].length.as_secs_f64();
    assert!((secs - len).abs() < 0.01, "{secs} vs {len}");
    assert!(len > 1.0, "{len}");
}

#[test]
fn speed_and_voice_are_per_player() {
    if !have("espeak-ng") || !have("sox") {
        skip_or_fail_under_ci("espeak-ng or sox is not installed");
        return;
    }
    let tts = Espeak::new();
    let r = Routing {
        white: Listener {
            device: Some("white".into()),
            speed_wpm: Some(120),
            ..Listener::default()
        },
        black: Listener {
            device: Some("black".into()),
            speed_wpm: Some(240),
            variant: Some("f3".into()),
            ..Listener::default()
        },
        arbiter: None,
    };
    let u = Utterance {
        text: "Ulovligt træk af hvid. 2 minutter lagt til sorts tid",
        ssml: None,
        lang: Lang::Da,
        to: None,
    };
    let audio = r.render(&tts, &u).unwrap();
    assert_eq!(audio.len(), 2, "two devices");
    assert_eq!(audio[0].device.as_deref(), Some("white"));
    let (slow, fast) = (audio[0].length, audio[1].length);
    assert!(
        slow.as_secs_f64() > 1.5 * fast.as_secs_f64(),
        "120 wpm {slow:?} vs 240 wpm {fast:?}"
    );
}

#[test]
fn mixed_language_ssml_is_accepted_by_espeak_ng_and_switches_the_voice() {
    if !have("espeak-ng") {
        skip_or_fail_under_ci("espeak-ng is not installed");
        return;
    }
    let v = Vocabulary::new(Lang::Nb, Edition::Fide2009No, VoiceOptions::default());
    let text = "Springer Felix sieben";
    let ssml = v.ssml(text).expect("German words in a Norwegian game");
    // espeak-ng reads the document (-m) and reads "sieben" with German
    // rules: its phonemes (-x) are German z'i:b@n, not Norwegian s'i:;e:b@n.
    let phonemes = |input: &str, markup: bool| {
        let mut c = Command::new("espeak-ng");
        c.args(["-v", "nb", "-q", "-x"]);
        if markup {
            c.arg("-m");
        }
        let out = c.arg(input).output().unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let plain = phonemes(text, false);
    let mixed = phonemes(&ssml, true);
    assert!(plain.contains("s'i:;e:b@n"), "{plain}");
    assert!(mixed.contains("z'i:b@n"), "{mixed}");
    assert!(!mixed.contains("speak"), "markup not read aloud: {mixed}");
    // And it produces audio.
    let syn = Espeak::new().synthesize_ssml(&ssml, Lang::Nb).unwrap();
    assert!(
        syn.audio_length().as_secs_f64() > 0.8,
        "{:?}",
        syn.audio_length()
    );
}

#[test]
fn each_device_gets_its_audio_through_alsa() {
    if !have("espeak-ng") || !have("sox") || !have("aplay") {
        skip_or_fail_under_ci("espeak-ng, sox or aplay (alsa-utils) is not installed");
        return;
    }
    let dir = common::tempdir("voice-out");
    // Only this test of the binary runs aplay.
    std::env::set_var("ALSA_CONFIG_PATH", common::voice::wav_outputs(&dir));
    let r = common::voice::routing_by_name();
    let tts = Espeak::new();
    // An answer to White: White's device and the arbiter's, not Black's.
    let u = Utterance {
        text: "Time left: White 1 hour, Black 2 minutes",
        ssml: None,
        lang: Lang::En,
        to: Some(Color::White),
    };
    let len = r.play(&tts, &u).unwrap();
    let white = dir.join("white.wav");
    let arbiter = dir.join("arbiter.wav");
    assert!(white.exists() && arbiter.exists());
    assert!(
        !dir.join("black.wav").exists(),
        "Black heard White's answer"
    );
    assert!(rms(&white, 1) > 0.02);
    assert!(rms(&arbiter, 2) > 0.02, "the arbiter hears it");
    let secs: f64 = soxi(&white, "-D").parse().unwrap();
    assert!((secs - len.as_secs_f64()).abs() < 0.05, "{secs} vs {len:?}");
}
