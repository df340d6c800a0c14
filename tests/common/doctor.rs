//! `eboard doctor --json` run for a test, and one row of its table: the
//! set-up of `tests/doctor.rs`, `tests/doctor_devices.rs` and
//! `tests/doctor_network.rs`.

use super::eboard;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// `eboard doctor --json` with the journal dir in `dir`; the time check is
/// left out (this machine's clock synchronisation is not the test's) and
/// the exit code and JSON are returned.
pub fn doctor(dir: &Path, cfg: &Path, extra: &[&str]) -> (i32, Value, Output) {
    let jd = dir.join("var");
    let mut args = vec![
        "doctor",
        "--config",
        cfg.to_str().unwrap(),
        "--journal-dir",
        jd.to_str().unwrap(),
        "--skip",
        "time",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = eboard(&args);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json: {e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v, out)
}

/// The row of `check`: (status, detail).
pub fn row(v: &Value, check: &str) -> (String, String) {
    let r = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["check"] == check)
        .unwrap_or_else(|| panic!("no row {check}: {v}"));
    (
        r["status"].as_str().unwrap().to_owned(),
        r["detail"].as_str().unwrap().to_owned(),
    )
}
