//! Issue 7: the sensor drivers on the simulated bus, end to end.
//! Calibration of every hw design on a virtual board (orientation, faults),
//! and the virtual board reproducing whole games: trace from the physical
//! model → simulated bus → real driver → calibration thresholds → debounce
//! → records → controller replay gives the game's SAN.
//!
//! The real-game part skips with a printed reason when
//! `../shared/data/pgn` is absent; under CI (`CI` set) that is a failure.

use crate::common;

use common::{
    eboard_command, false_alarm, of, opera_game, output_ok, replay_steps, shared_pgn_dir_or_skip,
};
use eboard::controller::replay;
use eboard::pgn::{read_games, PgnGame};
use eboard::sensors::calibration::{IssueKind, Orientation};
use eboard::sensors::virtual_hw::{calibrate_virtual, scannable, Fault, VirtualBoard};
use eboard::sensors::{virtual_records, HwDesign, Sample, Scanner, ScannerConfig, VirtualOptions};
use eboard::sim::{simulate, SimOptions};
use eboard::trace::{Sensing, Trace};
use shakmaty::Position;
use std::path::{Path, PathBuf};

const DESIGNS: [&str; 5] = [
    "hc165-chain",
    "mcp23017-bank",
    "gpio-matrix",
    "mcp3008-hall",
    "tactile-matrix",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn design(name: &str) -> HwDesign {
    HwDesign::load(&root().join("hw").join(format!("{name}.toml"))).unwrap()
}

#[test]
fn every_hw_file_parses() {
    for name in DESIGNS {
        let d = design(name);
        assert_eq!(d.name, name);
        let mut seen = 0u64;
        for sq in d.map {
            seen |= 1 << sq as u32;
        }
        assert_eq!(seen, !0, "{name}: the map covers every square once");
    }
}

#[test]
fn virtual_calibration_is_healthy_and_finds_the_orientation() {
    for name in DESIGNS {
        let d = design(name);
        for turned in [
            Orientation::Identity,
            Orientation::Rot180,
            Orientation::FlipFiles,
            Orientation::Rot90,
        ] {
            let opts = VirtualOptions {
                turned,
                ..VirtualOptions::default()
            };
            let c = calibrate_virtual(&d, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(c.orientation, turned.inverse(), "{name} turned {turned:?}");
            assert!(c.health.is_healthy(), "{name}: {}", c.health.describe());
            assert!(c.health.untested.is_empty(), "{:?}", c.health.untested);
            assert_eq!(c.analog.is_some(), d.is_analog());
            // The file round-trips.
            let text = c.to_toml();
            let back: eboard::sensors::Calibration =
                toml::from_str(&text).expect("calibration file parses");
            assert_eq!(back, c);
        }
    }
}

#[test]
fn calibration_reports_stuck_weak_and_reversed_sensors() {
    // Sensor 12 = e2 on the rank-major ADC board; 50 = c7; 3 = d1.
    let d = design("mcp3008-hall");
    let opts = VirtualOptions {
        faults: vec![
            (50, Fault::Stuck(1023)),
            (3, Fault::Weak(0.3)),
            (1, Fault::Weak(-1.0)),
        ],
        ..VirtualOptions::default()
    };
    let c = calibrate_virtual(&d, &opts).unwrap();
    let squares =
        |k: IssueKind| -> Vec<String> { c.health.of(k).map(|i| i.square.clone()).collect() };
    assert_eq!(
        squares(IssueKind::Stuck),
        vec!["c7"],
        "{}",
        c.health.describe()
    );
    assert_eq!(
        squares(IssueKind::Weak),
        vec!["d1"],
        "{}",
        c.health.describe()
    );
    assert_eq!(
        squares(IssueKind::Reversed),
        vec!["b1"],
        "{}",
        c.health.describe()
    );

    // Digital: a switch stuck active (sensor 40 = a6, empty at the start)
    // and one stuck inactive under a piece (sensor 9 = b2).
    let d = design("hc165-chain");
    let opts = VirtualOptions {
        faults: vec![(40, Fault::Stuck(0)), (9, Fault::Stuck(1))],
        ..VirtualOptions::default()
    };
    let c = calibrate_virtual(&d, &opts).unwrap();
    let stuck: Vec<&str> = c
        .health
        .of(IssueKind::Stuck)
        .map(|i| i.square.as_str())
        .collect();
    assert_eq!(stuck, vec!["b2", "a6"], "{}", c.health.describe());
}

/// Issue 43 §5: the calibration tests all 64 squares. A dead switch under
/// d4 and a weak linear sensor under e5 (both empty in the initial
/// position, so never tested before the middle-ranks step) are reported,
/// and the ADC board's e5 gets thresholds from its own response.
#[test]
fn the_calibration_tests_the_squares_empty_in_the_initial_position() {
    let d = design("hc165-chain");
    let opts = VirtualOptions {
        faults: vec![(27, Fault::Stuck(1))], // d4, rank-major: a magnet never pulls it low
        ..VirtualOptions::default()
    };
    let c = calibrate_virtual(&d, &opts).unwrap();
    let stuck: Vec<String> = c
        .health
        .of(IssueKind::Stuck)
        .map(|i| format!("{} {}", i.square, i.detail))
        .collect();
    assert_eq!(
        stuck,
        vec!["d4 sees no magnet under a piece (ranks 3-6)"],
        "{}",
        c.health.describe()
    );
    assert!(c.health.untested.is_empty());

    let d = design("mcp3008-hall");
    let healthy = calibrate_virtual(&d, &VirtualOptions::default()).unwrap();
    let opts = VirtualOptions {
        faults: vec![(36, Fault::Weak(0.3))], // e5: a black piece in the middle step
        ..VirtualOptions::default()
    };
    let c = calibrate_virtual(&d, &opts).unwrap();
    let weak: Vec<&str> = c
        .health
        .of(IssueKind::Weak)
        .map(|i| i.square.as_str())
        .collect();
    assert_eq!(weak, vec!["e5"], "{}", c.health.describe());
    // Its own threshold: nearer the baseline than the healthy board's.
    let (a, h) = (c.analog.as_ref().unwrap(), healthy.analog.as_ref().unwrap());
    let gap = |cal: &eboard::sensors::calibration::AnalogCal| {
        (i32::from(cal.high[36]) - i32::from(cal.baseline[36])).abs()
            + (i32::from(cal.low[36]) - i32::from(cal.baseline[36])).abs()
    };
    assert!(
        gap(a) < gap(h),
        "weak e5's thresholds {} vs healthy {}",
        gap(a),
        gap(h)
    );
}

#[test]
fn mcp23017_without_pull_ups_reads_every_square_occupied() {
    // The simulated expander floats (reads 0) on pins without pull-ups:
    // without init() an active-low board would see magnets everywhere.
    use eboard::sensors::{RawScan, SensorArray};
    let d = design("mcp23017-bank");
    let board = VirtualBoard::new(&d, &VirtualOptions::default());
    let mut a = board.array();
    let mut raw = RawScan::default();
    a.read(&mut raw).unwrap();
    assert_eq!(raw.bits, 0);
    a.init().unwrap();
    a.read(&mut raw).unwrap();
    assert_eq!(raw.bits, !0, "pull-ups on, empty board: all high");
}

#[test]
fn runtime_health_reports_a_flickering_square() {
    let d = design("hc165-chain");
    let opts = VirtualOptions::default();
    let board = VirtualBoard::new(&d, &opts);
    let cal = calibrate_virtual(&d, &opts).unwrap();
    let mut s = Scanner::new(
        board.array(),
        &d,
        Some(&cal),
        ScannerConfig::default(),
        Sample::default(),
    )
    .unwrap();
    s.init().unwrap();
    let e4 = Sample {
        occupied: 1 << 28,
        white: 0,
    };
    for k in 0..20u64 {
        board.show(if k % 2 == 0 { e4 } else { Sample::default() });
        assert!(s.scan(k * 10).unwrap().is_empty());
    }
    let h = s.health(5);
    let noisy: Vec<&str> = h.of(IssueKind::Noisy).map(|i| i.square.as_str()).collect();
    assert_eq!(noisy, vec!["e4"]);
    s.clear_health();
    assert!(s.health(5).is_healthy());
}

/// Simulates `game`, runs it through the virtual board of `d` and replays
/// the records; returns the SAN moves and whether the replay raised a false
/// alarm.
fn through_virtual_board(game: &PgnGame, seed: u64, d: &HwDesign) -> Result<(), String> {
    let sensing = if d.is_analog() {
        Sensing::Colour
    } else {
        Sensing::Occupancy
    };
    let mut trace = simulate(
        game,
        &SimOptions {
            seed,
            sensing,
            frames: false,
        },
    )
    .map_err(|e| e.to_string())?;
    if d.board != eboard::trace::BoardId::Main {
        // The tactile board carries the same game (a one-board test of its sensing).
        for r in &mut trace.records {
            r.board = d.board;
        }
        trace.header.boards = vec![eboard::trace::BoardId::Main, d.board];
        trace.header.vi_player = Some(shakmaty::Color::Black);
    }
    through_with(game, &trace, d, &VirtualOptions::default())
}

fn through_with(
    game: &PgnGame,
    trace: &Trace,
    d: &HwDesign,
    opts: &VirtualOptions,
) -> Result<(), String> {
    if let Err(t) = scannable(trace, &opts.scanner) {
        return Err(format!(
            "{}: not scannable: a press at t = {t} ms follows the move too closely",
            d.name
        ));
    }
    let records = virtual_records(trace, d, opts).map_err(|e| e.to_string())?;
    let scanned = Trace {
        header: trace.header.clone(),
        records,
    };
    let (arbiter, events) = replay(&scanned, None, None).map_err(|e| e.to_string())?;
    if let Some(e) = false_alarm(&events) {
        return Err(format!("{}: false alarm {}", d.name, e.to_json()));
    }
    let got: Vec<&str> = arbiter.moves().iter().map(|m| m.san.as_str()).collect();
    let want: Vec<&str> = game.moves.iter().map(|m| m.san.as_str()).collect();
    // As in tests/corpus.rs: a game that reached a dead position is over by
    // the Laws even when the players went on.
    if arbiter
        .outcome()
        .is_some_and(|o| o.reason.as_str() == "dead_position")
        && want.starts_with(&got)
        && arbiter.position().is_insufficient_material()
    {
        return Ok(());
    }
    if got != want {
        let i = got.iter().zip(&want).take_while(|(a, b)| a == b).count();
        return Err(format!(
            "{}: SAN differs at ply {}: got {:?}, want {:?}",
            d.name,
            i + 1,
            got.get(i),
            want.get(i)
        ));
    }
    Ok(())
}

#[test]
fn every_scan_of_a_game_without_idle_skipping() {
    // 100 Hz over the whole game, noise on: the scans the idle skipping
    // leaves out must not change anything.
    let game = &opera_game();
    for name in ["mcp3008-hall", "gpio-matrix"] {
        let d = design(name);
        let sensing = if d.is_analog() {
            Sensing::Colour
        } else {
            Sensing::Occupancy
        };
        let trace = simulate(
            game,
            &SimOptions {
                seed: 3,
                sensing,
                frames: false,
            },
        )
        .unwrap();
        let all = VirtualOptions {
            skip_idle: false,
            ..VirtualOptions::default()
        };
        let a = virtual_records(&trace, &d, &all).unwrap();
        let b = virtual_records(&trace, &d, &VirtualOptions::default()).unwrap();
        assert_eq!(a, b, "{name}");
        through_with(game, &trace, &d, &all).unwrap();
    }
}

#[test]
fn virtual_board_reproduces_the_opera_game_on_every_design() {
    let game = &opera_game();
    for name in DESIGNS {
        if name == "tactile-matrix" {
            continue; // two-board games are the arbiter's business; see below
        }
        through_virtual_board(game, 1858, &design(name)).unwrap();
    }
}

#[test]
fn virtual_board_reproduces_real_games() {
    let Some(dir) = shared_pgn_dir_or_skip() else {
        return;
    };
    let file =
        std::env::var("EBOARD_SENSOR_PGN").unwrap_or_else(|_| "twic1599_1110games.pgn".to_owned());
    let text = std::fs::read_to_string(Path::new(&dir).join(&file)).unwrap();
    let games = read_games(&text).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    let mut skipped = 0;
    // A few games per design, spread over the file; EBOARD_SENSOR_GAMES=N
    // takes N per design for a longer run.
    let per: usize = std::env::var("EBOARD_SENSOR_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let step = (games.len() / per.max(1)).max(1);
    for (k, name) in DESIGNS
        .iter()
        .filter(|n| **n != "tactile-matrix")
        .enumerate()
    {
        let d = design(name);
        for g in games.iter().skip(k * 7).step_by(step).take(per) {
            n += 1;
            match through_virtual_board(g, 11 + n, &d) {
                Err(e) if e.contains("not scannable") => skipped += 1,
                Err(e) => failures.push(e),
                Ok(()) => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} failed ({skipped} not scannable):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(skipped < n, "every game unscannable: nothing tested");
    println!(
        "{file}: {} real games reproduced through the virtual boards, {skipped} not scannable (press within the debounce time)",
        n - skipped
    );
}

#[test]
fn calibrate_subcommand_writes_the_file_and_refuses_without_a_backend() {
    let out = std::env::temp_dir().join(format!("eboard-cal-{}.toml", std::process::id()));
    let hw = root().join("hw/mcp3008-hall.toml");
    let st = output_ok(
        eboard_command()
            .args(["calibrate", "--virtual", "--hw"])
            .arg(&hw)
            .arg("-o")
            .arg(&out),
    );
    let written = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).ok();
    assert!(String::from_utf8_lossy(&st.stderr).contains("all sensors healthy"));
    // The committed example is what the flow writes.
    let committed =
        std::fs::read_to_string(root().join("calibration/virtual-mcp3008-hall.toml")).unwrap();
    assert_eq!(written, committed);
    let c =
        eboard::sensors::Calibration::load(&root().join("calibration/virtual-mcp3008-hall.toml"))
            .unwrap();
    assert_eq!(c.design, "mcp3008-hall");

    let bad = eboard_command()
        .args(["calibrate", "--hw", "hw/nonexistent.toml", "--virtual"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("hw/nonexistent.toml"));
    if !cfg!(feature = "rpi") {
        let no_backend = eboard_command()
            .args(["calibrate", "--hw"])
            .arg(&hw)
            .output()
            .unwrap();
        assert!(!no_backend.status.success());
        assert!(String::from_utf8_lossy(&no_backend.stderr).contains("--features rpi"));
    }
}

/// Issue 25: a touch seen only through occupancy frames names the piece
/// actually lifted. White's knight takes on e5 inside one scan (the frames
/// see only g4 empty), is not pressed; 3 s later e5 empties: Black lifting
/// the knight to recapture (`Turn::placed` of the unseen capture,
/// `src/arbiter/frames.rs`). Its twin, the pawn taken off within the
/// release time while the knight is in the hand, is White's touch of the
/// pawn. Takes well under a second.
#[test]
fn a_touch_seen_only_through_frames_names_the_piece_lifted() {
    use serde_json::{json, Value};
    let header = json!({"trace": 1, "start_fen": "4k3/8/3p4/4p3/6N1/8/8/4K3 w - - 0 1",
        "time_control": "5400+30", "sensing": "occupancy"});
    let touches = |ev: &[Value]| -> Vec<(Value, Value, Value, Value)> {
        of(ev, "touch")
            .iter()
            .map(|x| {
                (
                    x["t"].clone(),
                    x["by"].clone(),
                    x["square"].clone(),
                    x["piece"].clone(),
                )
            })
            .collect()
    };
    let sans = |ev: &[Value]| -> Vec<String> {
        of(ev, "move")
            .iter()
            .map(|m| m["san"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    let unseen = "
        0 frame 1000081040000010
        1000 frame 1000081000000010
        4000 frame 1000080000000010
        4300 frame 1000000000000010
        4500 frame 1000001000000010
        5000 press b";
    for rules in ["fide-2001", "fide-2009", "fide-2023"] {
        let ev = replay_steps(header.clone(), unseen, rules);
        let t = touches(&ev);
        assert!(
            t.contains(&(json!(4000), json!("b"), json!("e5"), json!("N"))),
            "{rules}: {t:?}: {ev:#?}"
        );
        assert_eq!(sans(&ev), ["Nxe5", "dxe5"], "{rules}: {ev:#?}");
        assert!(of(&ev, "touch_move").is_empty(), "{rules}: {ev:#?}");
    }
    // The pawn taken off 0.5 s after the knight was lifted: White's touch
    // of Black's pawn (4.3b), the capture completed by White's press.
    let seen = "
        0 frame 1000081040000010
        1000 frame 1000081000000010
        1500 frame 1000080000000010
        1800 frame 1000081000000010
        2500 press w";
    let ev = replay_steps(header.clone(), seen, "fide-2023");
    let t = touches(&ev);
    assert!(
        t.contains(&(json!(1500), json!("w"), json!("e5"), json!("p"))),
        "{t:?}: {ev:#?}"
    );
    assert_eq!(sans(&ev), ["Nxe5"], "{ev:#?}");
}

/// `eboard calibrate --watch` (issue 43 §5): the live sensor view of the
/// simulated colour board in the initial position, read by its committed
/// calibration: two frames, each the 8 × 8 board with White's pieces on
/// ranks 1-2 and Black's on 7-8, each square naming its sensor.
#[test]
fn the_live_sensor_view_shows_each_square_with_its_sensor() {
    let hw = root().join("hw/mcp3008-hall.toml");
    let cal = root().join("calibration/virtual-mcp3008-hall.toml");
    let out = output_ok(
        eboard_command()
            .args([
                "calibrate",
                "--virtual",
                "--watch",
                "--frames",
                "2",
                "--interval-ms",
                "0",
                "--hw",
            ])
            .arg(&hw)
            .arg("--calibration")
            .arg(&cal),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches(" scan ").count(), 2, "{text}");
    let frame: Vec<&str> = text.lines().skip(2).take(8).collect();
    assert!(
        frame[0].trim_start().starts_with("8 ") && frame[0].matches('B').count() == 8,
        "{text}"
    );
    assert!(
        frame[7].trim_start().starts_with("1 ") && frame[7].matches('W').count() == 8,
        "{text}"
    );
    assert!(
        frame[7].contains("#0 ") && frame[0].contains("#63"),
        "{text}"
    );
    assert_eq!(frame[3].matches(" .").count(), 8, "{text}");
}
