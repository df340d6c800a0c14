//! The builder's kit (issue 43 §5): `hw/kit/` is what `eboard kit` makes
//! from `hw/*.toml` today, byte for byte, so the diagram and the parts
//! list a builder orders from cannot drift from the file the daemon reads;
//! and a board's config whose clock buttons sit on the design's lines is
//! refused, naming the key.

use crate::common;

use common::tempdir;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn designs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("hw"))
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".toml").map(str::to_owned)
        })
        .collect();
    names.sort();
    names
}

#[test]
fn every_design_has_its_kit_and_it_matches_the_toml() {
    let out = tempdir("kit");
    let names = designs();
    assert_eq!(names.len(), 5, "{names:?}");
    for name in &names {
        let run = Command::new(env!("CARGO_BIN_EXE_eboard"))
            .args(["kit", "--hw"])
            .arg(root().join("hw").join(format!("{name}.toml")))
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        for ext in ["svg", "md"] {
            let made = std::fs::read_to_string(out.join(format!("{name}.{ext}"))).unwrap();
            let kept = std::fs::read_to_string(root().join("hw/kit").join(format!("{name}.{ext}")))
                .unwrap_or_default();
            assert!(
                made == kept,
                "hw/kit/{name}.{ext} is not what hw/{name}.toml makes: run \
                 `eboard kit --hw hw/{name}.toml --out hw/kit` and commit it"
            );
        }
    }
    // hw/kit holds nothing else (a removed design's files go too).
    let mut kept: Vec<String> = std::fs::read_dir(root().join("hw/kit"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n != "README.md")
        .collect();
    kept.sort();
    let mut expected: Vec<String> = names
        .iter()
        .flat_map(|n| [format!("{n}.md"), format!("{n}.svg")])
        .collect();
    expected.sort();
    assert_eq!(kept, expected);
}

#[test]
fn a_clock_button_on_a_matrix_row_is_refused_naming_the_key() {
    let dir = tempdir("kit-clock");
    let config = dir.join("board.toml");
    std::fs::write(
        &config,
        "[game]\nround = 1\nboard = 1\n\n[clock]\ndevice = \"builtin\"\nwhite_pin = 17\nblack_pin = 27\n",
    )
    .unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_eboard"))
        .args(["kit", "--hw"])
        .arg(root().join("hw/gpio-matrix.toml"))
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{err}");
    assert!(
        err.contains("clock.white_pin") && err.contains("GPIO 17") && err.contains("row 6"),
        "{err}"
    );
    assert!(
        !dir.join("out/gpio-matrix.svg").exists(),
        "nothing written on an error"
    );
}
