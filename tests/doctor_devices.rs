//! `eboard doctor` on the board's devices: a full disk (a free-space
//! threshold above what there is), a calibration file with a dead sensor,
//! and the audio outputs (a test played on each, the missing player
//! named). The configuration's checks are `tests/doctor.rs`.

use crate::common;

use common::doctor::{doctor, row};
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[test]
fn a_full_disk_fails() {
    let dir = tempdir("doctor-disk");
    let cfg = config(&dir, 1, 1, "");
    // More than any disk here has: the journal's disk counts as full.
    let (code, v, _) = doctor(&dir, &cfg, &["--min-free-mb", "1000000000"]);
    assert_eq!(code, 1, "{v}");
    let (status, detail) = row(&v, "disk");
    assert_eq!(status, "fail");
    assert!(detail.contains("need 1000000000 MB"), "{detail}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_dead_sensor_in_the_calibration_fails() {
    let dir = tempdir("doctor-cal");
    let root = env!("CARGO_MANIFEST_DIR");
    let cal_text =
        std::fs::read_to_string(format!("{root}/calibration/virtual-mcp3008-hall.toml")).unwrap();
    let good = dir.join("good.toml");
    std::fs::write(&good, &cal_text).unwrap();
    let dead = dir.join("dead.toml");
    std::fs::write(
        &dead,
        cal_text.replace(
            "issues = []",
            "issues = [{ sensor = 12, square = \"e2\", kind = \"stuck\", detail = \"reads 1023 with and without a piece\" }]",
        ),
    )
    .unwrap();
    let hw = format!("{root}/hw/mcp3008-hall.toml");
    let board = |cal: &Path| {
        format!(
            "\n[board]\nsource = \"hw\"\nsensing = \"colour\"\nhw = \"{hw}\"\ncalibration = \"{}\"\n",
            cal.display()
        )
    };
    let cfg = config(&dir, 1, 1, &board(&good));
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "sensors");
    // Every square tested (the middle-ranks step), but `ok` only for what
    // was checked: this build (no Pi backend) did not read the bus.
    assert_eq!(status, "warn", "{detail}");
    assert!(
        detail.contains("calibration healthy on all 64 squares")
            && detail.contains("the bus was NOT read"),
        "{detail}"
    );
    assert_eq!(code, 0, "a warning is not a failure: {v}");
    // A calibration made before the middle-ranks step: the 32 squares
    // empty in the initial position were never tested with a piece.
    let old = dir.join("old.toml");
    let ranks_3_to_6: Vec<String> = (3..=6)
        .flat_map(|r| "abcdefgh".chars().map(move |f| format!("\"{f}{r}\"")))
        .collect();
    std::fs::write(
        &old,
        cal_text.replace(
            "untested = []",
            &format!("untested = [{}]", ranks_3_to_6.join(", ")),
        ),
    )
    .unwrap();
    let cfg = config(&dir, 1, 1, &board(&old));
    let (_, v, _) = doctor(&dir, &cfg, &[]);
    let (status, detail) = row(&v, "sensors");
    assert_eq!(status, "warn", "{detail}");
    assert!(
        detail.contains("calibration healthy on 32 squares")
            && detail.contains("32 never tested with a piece (a3 b3 ")
            && detail.contains(" h6)")
            && detail.contains("eboard calibrate"),
        "{detail}"
    );
    let cfg = config(&dir, 1, 1, &board(&dead));
    let (code, v, _) = doctor(&dir, &cfg, &[]);
    assert_eq!(code, 1, "{v}");
    let (status, detail) = row(&v, "sensors");
    assert_eq!(status, "fail");
    assert!(
        detail.contains("Stuck sensor 12 (e2)") && detail.contains("dead.toml"),
        "{detail}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `eboard doctor` on the audio alone, with `envs` set.
fn doctor_audio(dir: &Path, cfg: &Path, envs: &[(&str, &str)]) -> (String, String) {
    let jd = dir.join("var");
    let mut cmd = eboard_command();
    cmd.args(["doctor", "--config", cfg.to_str().unwrap()])
        .args(["--journal-dir", jd.to_str().unwrap(), "--json"]);
    for c in ["time", "sensors", "clock", "mqtt", "lichess", "disk"] {
        cmd.args(["--skip", c]);
    }
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json ({:?}): {e}: {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    row(&v, "audio")
}

#[test]
fn the_audio_check_plays_a_test_on_each_output_and_names_the_missing_player() {
    // Issue 29: each configured output gets a short test (here ALSA's file
    // plugin, one WAV per device); without aplay the check fails naming
    // its package, alsa-utils.
    let have = |p: &str| Command::new(p).arg("--version").output().is_ok();
    if !have("espeak-ng") || !have("aplay") {
        skip_or_fail_under_ci("espeak-ng or aplay (alsa-utils) is not installed");
        return;
    }
    let dir = tempdir("doctor-audio");
    let alsa = common::voice::wav_outputs(&dir);
    let cfg = dir.join("board.toml");
    std::fs::write(
        &cfg,
        "[event]\nname = \"DM\"\nrules = \"fide-2009\"\nspeak = true\n\
         [game]\nboard = 1\nvi_player = \"b\"\n\
         [voice.white]\ndevice = \"white\"\n[voice.black]\ndevice = \"black\"\n\
         [voice.arbiter]\ndevice = \"arbiter\"\n",
    )
    .unwrap();
    let (status, detail) = doctor_audio(&dir, &cfg, &[("ALSA_CONFIG_PATH", &alsa)]);
    assert_eq!(status, "ok", "{detail}");
    for name in ["white", "black", "arbiter"] {
        assert!(detail.contains(&format!("{name} on {name}")), "{detail}");
        let f = dir.join(format!("{name}.wav"));
        let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
        assert!(len > 10_000, "{name}: {len} bytes of test audio");
    }
    // A device that does not exist fails the check, named.
    std::fs::write(
        &cfg,
        "[event]\nname = \"DM\"\nrules = \"fide-2009\"\nspeak = true\n\
         [game]\nboard = 1\nvi_player = \"b\"\n\
         [voice.white]\ndevice = \"white\"\n[voice.black]\ndevice = \"nosuchcard\"\n",
    )
    .unwrap();
    let (status, detail) = doctor_audio(&dir, &cfg, &[("ALSA_CONFIG_PATH", &alsa)]);
    assert_eq!(status, "fail", "{detail}");
    assert!(detail.contains("black on nosuchcard"), "{detail}");
    // No aplay on the PATH (espeak-ng alone): the package is named.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let espeak = Command::new("sh")
        .args(["-c", "command -v espeak-ng"])
        .output()
        .unwrap();
    let espeak = String::from_utf8_lossy(&espeak.stdout).trim().to_owned();
    std::os::unix::fs::symlink(&espeak, bin.join("espeak-ng")).unwrap();
    let (status, detail) = doctor_audio(&dir, &cfg, &[("PATH", bin.to_str().unwrap())]);
    assert_eq!(status, "fail", "{detail}");
    assert!(detail.contains("alsa-utils"), "{detail}");
}
