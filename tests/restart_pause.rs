//! A restart of a board that follows a live game (issue 25, point 3, "also
//! after a downtime pause"), through the real binary with records on its
//! standard input (not a recording: what the board does not read while it
//! is down is lost to it).
//!
//! - On the same boot the downtime is measured on `CLOCK_BOOTTIME` from the
//!   last heartbeat (its `boot_id` and `boottime_ms`), whatever the wall
//!   clock did: charged to the player on move, and the game goes on with no
//!   pause (docs/clock.md, "A restart").
//! - After another boot with a wall clock that cannot measure the gap, the
//!   board pauses the clocks itself (`eboard (downtime)`) and that pause
//!   holds until the arbiter resumes: "Dommeren bestemmer hvornår partiet
//!   genoptages" (2009 §6.12c, seed 002; 2023 6.11.3 "The arbiter shall
//!   decide when the game restarts"). A press meanwhile is shown to him.

use crate::common;

use common::*;
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::ChildStdin;

fn send(stdin: &mut ChildStdin, lines: &[String]) {
    for l in lines {
        writeln!(stdin, "{l}").unwrap();
    }
    stdin.flush().unwrap();
}

fn events(journal: &Path) -> Vec<Value> {
    std::fs::read_to_string(eboard::journal::events_path(journal))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// A board with 600+0, 1. e4 completed at 1 s, killed during Black's think
/// once a heartbeat with the boot clock is journaled; its journal's start
/// then moved an hour back (a wall clock that jumped, as on a Pi without a
/// real-time clock).
fn killed_during_blacks_think(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = tempdir(name);
    // A clock device that ran through the downtime (a DGT 3000 on its
    // batteries, `[clock] runs_while_down`): the board's own clock is
    // `own_clock` below.
    let cfg = config(&dir, 1, 3, "\n[clock]\nruns_while_down = true\n");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, text.replace("5400+30", "600+0")).unwrap();
    let journal = dir.join("j.jsonl");
    let args = ["--journal", journal.to_str().unwrap(), "--delay", "0"];
    let (mut run, mut stdin) = run_stdin(&dir, &cfg, &args);
    send(
        &mut stdin,
        &[
            r#"{"trace": 1}"#.into(),
            r#"{"t": 500, "lift": "e2"}"#.into(),
            r#"{"t": 700, "place": "e4"}"#.into(),
            r#"{"t": 1000, "press": "w"}"#.into(),
        ],
    );
    poll(
        30,
        "e4 and a heartbeat with the boot clock after it",
        || {
            let ev = events(&journal);
            let moved = ev.iter().any(|e| e["type"] == "move");
            let beat = ev.iter().any(|e| {
                e["type"] == "heartbeat"
                    && e["t"].as_u64() >= Some(3_000)
                    && e["boot_id"].is_string()
                    && e["boottime_ms"].is_u64()
            });
            (moved && beat).then_some(())
        },
    );
    run.kill();
    drop(stdin);
    shift_journal_start(&journal, 3_600_000);
    (dir, journal)
}

fn downtime_of(run: &Running) -> Value {
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    let msgs = arbiter.until(20, |v| v["kind"] == "downtime");
    msgs.last().unwrap().1.clone()
}

fn moves(journal: &Path) -> Vec<Value> {
    events(journal)
        .into_iter()
        .filter(|e| e["type"] == "move")
        .collect()
}

#[test]
fn a_quick_restart_on_the_same_boot_is_charged_and_needs_no_pause() {
    let (dir, journal) = killed_during_blacks_think("samboot");
    let cfg = dir.join("board3.toml");
    let args = ["--journal", journal.to_str().unwrap(), "--delay", "0"];
    let (run, mut stdin) = run_stdin(&dir, &cfg, &args);
    let d = downtime_of(&run);
    // The wall clock says an hour; the boot clock measures the restart.
    assert_eq!(d["measured_by"], "boottime", "{d}");
    assert_eq!(d["clocks_stopped"], false, "{d}");
    assert!(d["wall_gap_ms"].as_i64().unwrap() > 3_500_000, "{d}");
    assert!(d["downtime_ms"].as_u64().unwrap() < 10_000, "{d}");
    let until = d["until_t"].as_u64().unwrap();
    send(
        &mut stdin,
        &[
            r#"{"trace": 1}"#.into(),
            format!(r#"{{"t": {}, "lift": "e7"}}"#, until + 100),
            format!(r#"{{"t": {}, "place": "e5"}}"#, until + 200),
            format!(r#"{{"t": {}, "press": "b"}}"#, until + 300),
        ],
    );
    poll(
        20,
        "e5 completed at Black's press, no resume needed",
        || (moves(&journal).len() == 2).then_some(()),
    );
    assert!(
        !events(&journal)
            .iter()
            .any(|e| e["kind"] == "press_during_pause"),
        "no pause"
    );
    // Black is charged his whole think, the downtime included.
    let last_clock = events(&journal)
        .into_iter()
        .rfind(|e| e["type"] == "clock")
        .unwrap();
    let black = last_clock["black_ms"].as_u64().unwrap();
    assert!(black <= 600_000 - (until - 1_000), "{last_clock}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unmeasured_restart_holds_the_clocks_until_the_arbiter_resumes() {
    let (dir, journal) = killed_during_blacks_think("otherboot");
    // Another boot: the heartbeats' boot is not this one.
    let ev = eboard::journal::events_path(&journal);
    let text = std::fs::read_to_string(&ev).unwrap();
    let text: String = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["type"] == "heartbeat" {
                v["boot_id"] = Value::from("00000000-0000-0000-0000-000000000000");
            }
            sealed_event_line(&v)
        })
        .collect();
    std::fs::write(&ev, text).unwrap();

    let cfg = dir.join("board3.toml");
    let args = ["--journal", journal.to_str().unwrap(), "--delay", "0"];
    let (run, mut stdin) = run_stdin(&dir, &cfg, &args);
    let d = downtime_of(&run);
    assert_eq!(d["measured_by"], "none", "{d}");
    assert_eq!(d["clocks_stopped"], true, "{d}");
    assert!(d["downtime_ms"].as_u64().unwrap() < 10_000, "no hour: {d}");
    let until = d["until_t"].as_u64().unwrap();
    send(
        &mut stdin,
        &[
            r#"{"trace": 1}"#.into(),
            format!(r#"{{"t": {}, "lift": "e7"}}"#, until + 100),
            format!(r#"{{"t": {}, "place": "e5"}}"#, until + 200),
            format!(r#"{{"t": {}, "press": "b"}}"#, until + 300),
        ],
    );
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    let shown = arbiter.until(20, |v| v["kind"] == "press_during_pause");
    let press = &shown.last().unwrap().1;
    assert!(press["article"].is_string(), "{press}");
    // The press was decided and not applied: no move.
    assert_eq!(moves(&journal).len(), 1, "held: {:?}", moves(&journal));
    let (status, body) = request(&run.addr, "POST", "/arbiter/resume", &[ARBITER_AUTH], "");
    assert_eq!(status, 200, "{body}");
    // The press after the resume completes the move on the board.
    send(
        &mut stdin,
        &[format!(r#"{{"t": {}, "press": "b"}}"#, until + 400)],
    );
    poll(20, "e5 completed after the arbiter's resume", || {
        (moves(&journal).len() == 2).then_some(())
    });
    let journaled = std::fs::read_to_string(&journal).unwrap();
    assert!(journaled.contains("eboard (downtime)"), "{journaled}");
    std::fs::remove_dir_all(&dir).ok();
}

// ---- Held-out cases (issue 25, point 8): a restart during a long think is
// measured from the moment the daemon stopped (its last heartbeat), never
// rewinds the round, and charges the player on move as his clock would
// have run (2009 §6.7a: the time until the press is his thinking time);
// what cannot be measured waits for the arbiter (§6.12c / 6.11.3). Pure
// decisions of `eboard::app::downtime`, no binary. ------------------------

mod think {
    use eboard::app::downtime::{
        clocks_wait_for_arbiter, resume_round, BootClock, Measure, ResumeFacts,
    };

    /// Black has thought since 5.6 s; the last heartbeat was journaled at
    /// 47.6 s of round time (42 s into his think) on boot `a` at boot-clock
    /// 1 000 s; round time 0 was Unix ms 10 000 000.
    const HB_T: u64 = 47_600;
    const EPOCH: u64 = 10_000_000;

    fn facts(now: Option<BootClock>, wall_after_hb: i64, sync: Option<bool>) -> ResumeFacts {
        ResumeFacts {
            last_t: HB_T,
            heartbeat: Some((
                HB_T,
                BootClock {
                    boot_id: "a".into(),
                    boottime_ms: 1_000_000,
                },
            )),
            boot_now: now,
            epoch: EPOCH,
            now_unix: (EPOCH as i64 + HB_T as i64 + wall_after_hb) as u64,
            speed: 1.0,
            synchronised: sync,
            events_damaged: 0,
        }
    }

    fn boot(id: &str, ms: u64) -> Option<BootClock> {
        Some(BootClock {
            boot_id: id.into(),
            boottime_ms: ms,
        })
    }

    fn near(now: u64, want: u64) -> bool {
        (want..want + 1_000).contains(&now)
    }

    #[test]
    fn a_reboot_with_a_synchronised_clock_20_s_after_the_heartbeat_is_charged_and_goes_on() {
        let r = resume_round(&facts(boot("b", 30_000), 20_000, Some(true)));
        assert_eq!(r.measure, Measure::WallClock);
        assert!(
            near(r.clock.now_ms(), HB_T + 20_000),
            "{}",
            r.clock.now_ms()
        );
        assert!(!clocks_wait_for_arbiter(
            r.measure,
            r.charged_wall_ms(),
            false
        ));
    }

    #[test]
    fn the_same_boot_never_rewinds_when_the_wall_clock_stepped_back() {
        // Restarted 1.5 s after the heartbeat; NTP stepped the wall clock an
        // hour back meanwhile.
        let r = resume_round(&facts(boot("a", 1_001_500), -3_600_000, Some(true)));
        assert_eq!(r.measure, Measure::BootTime);
        assert!(near(r.clock.now_ms(), HB_T + 1_500), "{}", r.clock.now_ms());
        assert!(!clocks_wait_for_arbiter(
            r.measure,
            r.charged_wall_ms(),
            false
        ));
    }

    #[test]
    fn after_a_reboot_the_wall_clock_measures_up_to_the_quick_bound_only() {
        // Another boot, a synchronised wall clock: 59 s after the heartbeat
        // is measured, charged, and the game goes on; 61 s is beyond what
        // the wall clock is trusted for after a reboot (a clock set at
        // boot): not measured, the round from its last time, held for the
        // arbiter, who sets the clocks (2009 §6.13 / 2023 7.1).
        let r = resume_round(&facts(boot("b", 40_000), 59_000, Some(true)));
        assert_eq!(r.measure, Measure::WallClock);
        assert!(
            near(r.clock.now_ms(), HB_T + 59_000),
            "{}",
            r.clock.now_ms()
        );
        assert!(!clocks_wait_for_arbiter(
            r.measure,
            r.charged_wall_ms(),
            false
        ));
        let r = resume_round(&facts(boot("b", 40_000), 61_000, Some(true)));
        assert_eq!(r.measure, Measure::Unmeasured);
        assert!(near(r.clock.now_ms(), HB_T), "{}", r.clock.now_ms());
        assert!(clocks_wait_for_arbiter(
            r.measure,
            r.charged_wall_ms(),
            false
        ));
    }

    #[test]
    fn an_unmeasurable_restart_keeps_the_round_and_waits_for_the_arbiter() {
        // Another boot and a wall clock that went back (no RTC): nothing
        // measures the gap; the round goes on from its last time (never
        // before the heartbeat, so nothing public is withdrawn), nothing is
        // charged, and only the arbiter restarts the clocks.
        for (wall, sync) in [(-50_000, Some(true)), (10_000, Some(false))] {
            let r = resume_round(&facts(boot("b", 20_000), wall, sync));
            assert_eq!(r.measure, Measure::Unmeasured, "{wall} {sync:?}");
            assert!(near(r.clock.now_ms(), HB_T), "{}", r.clock.now_ms());
            assert!(clocks_wait_for_arbiter(
                r.measure,
                r.charged_wall_ms(),
                false
            ));
            // A recording is never held: its records carry their times.
            assert!(!clocks_wait_for_arbiter(
                r.measure,
                r.charged_wall_ms(),
                true
            ));
        }
    }
}

/// Issue 40.4: a power cut on a board whose clock is the daemon itself
/// (`[clock] runs_while_down = false`, the default of the built-in clock
/// and of the clock engine alone, `simulated`): the
/// clock died with the board, so nobody's time ran. On return the clocks
/// stand where they stood when the board went down, nobody is charged,
/// and the `downtime` alert names how long, whose clock ran and that the
/// clock stopped with it; the arbiter's `downtime` ruling then charges it
/// to the player on move (2023 7.1), and an undo gives it back. Through
/// the real binary killed with SIGKILL, the downtime lengthened on the
/// journal's boot clock as in `restart_moments.rs`.
mod own_clock {

    use crate::common::*;
    use serde_json::Value;
    use std::io::Write;
    use std::path::Path;

    fn events(journal: &Path) -> Vec<Value> {
        std::fs::read_to_string(eboard::journal::events_path(journal))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    fn of(journal: &Path, ty: &str) -> Vec<Value> {
        events(journal)
            .into_iter()
            .filter(|e| e["type"] == ty)
            .collect()
    }

    /// The journal's heartbeats moved `ms` back on the boot clock: the
    /// restart on the same boot measures a downtime `ms` longer.
    fn down_longer(journal: &Path, ms: u64) {
        let ev = eboard::journal::events_path(journal);
        let text: String = std::fs::read_to_string(&ev)
            .unwrap()
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                if v["type"] == "heartbeat" {
                    if let Some(b) = v["boottime_ms"].as_u64() {
                        v["boottime_ms"] = Value::from(b.saturating_sub(ms));
                    }
                }
                sealed_event_line(&v)
            })
            .collect();
        std::fs::write(&ev, text).unwrap();
    }

    fn post(addr: &str, action: &str, body: &str) -> Value {
        let (status, reply) = request(
            addr,
            "POST",
            &format!("/arbiter/{action}"),
            &[ARBITER_AUTH],
            body,
        );
        assert_eq!(status, 200, "{action} {body}: {reply}");
        serde_json::from_str(&reply).unwrap()
    }

    #[test]
    fn a_power_cut_on_the_boards_own_clock_charges_nobody_until_the_arbiter_does() {
        let dir = tempdir("ownclock");
        // No `[clock]` section: the clock engine in the daemon (the default
        // `simulated` device, as on a board without a clock device) is the
        // board's own clock, `runs_while_down = false` by default.
        let cfg = config(&dir, 1, 3, "");
        let journal = dir.join("j.jsonl");
        let args = ["--journal", journal.to_str().unwrap(), "--delay", "0"];
        let (mut run, mut stdin) = run_stdin(&dir, &cfg, &args);
        for l in [
            r#"{"trace": 1}"#,
            r#"{"t": 0, "lift": "e2"}"#,
            r#"{"t": 0, "place": "e4"}"#,
            r#"{"t": 0, "press": "w"}"#,
        ] {
            writeln!(stdin, "{l}").unwrap();
        }
        stdin.flush().unwrap();
        // e4 completed and a heartbeat with the boot clock 2 s into Black's think.
        let t_w = poll(20, "e4", || {
            of(&journal, "move").first().and_then(|m| m["t"].as_u64())
        });
        poll(30, "a heartbeat after e4", || {
            of(&journal, "heartbeat")
                .iter()
                .any(|h| h["t"].as_u64() >= Some(t_w + 2_000) && h["boottime_ms"].is_u64())
                .then_some(())
        });
        run.kill();
        drop(stdin);
        // The power was off three minutes.
        down_longer(&journal, 180_000);
        let (run, mut stdin) = run_stdin(&dir, &cfg, &args);
        writeln!(stdin, r#"{{"trace": 1}}"#).unwrap();
        stdin.flush().unwrap();
        let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
        let d = arbiter
            .until(20, |v| v["kind"] == "downtime")
            .last()
            .unwrap()
            .1
            .clone();
        // The alert: how long, whose clock ran, the clock stopped with the board.
        let (since, until) = (
            d["since_t"].as_u64().unwrap(),
            d["until_t"].as_u64().unwrap(),
        );
        assert!(until - since >= 180_000, "{d}");
        assert_eq!(d["downtime_ms"], until - since, "{d}");
        assert_eq!(d["running"], "b", "{d}");
        assert_eq!(d["clock_ran"], false, "{d}");
        assert_eq!(d["clocks_stopped"], true, "{d}");
        assert_eq!(d["charged"], Value::Null, "nobody charged: {d}");
        // The clocks stand where they stood when the board went down.
        let st = board_state(&run.addr);
        let clock = &st["clock"];
        assert_eq!(clock["running"], Value::Null, "{st}");
        let black = clock["black_ms"].as_u64().unwrap();
        assert_eq!(black, 5_430_000 - (since - t_w), "{st}");
        // The console's matter: what waits for Resume.
        assert_eq!(st["downtime"]["charge"], "nobody", "{st}");
        assert_eq!(st["downtime"]["clocks_stopped"], true, "{st}");
        let open = st["open"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["t"] == until)
            .unwrap_or_else(|| panic!("the downtime is open: {st}"))
            .clone();
        assert!(
            open["summary"].as_str().unwrap().contains("down 0:03:"),
            "{open}"
        );
        // The arbiter charges it to the player on move.
        let r = post(&run.addr, "downtime", r#"{"charge": "mover"}"#);
        let seq = poll(10, "the downtime ruling", || {
            board_state(&run.addr)["rulings"].as_array().and_then(|rs| {
                rs.iter()
                    .rfind(|r| r["action"] == "downtime" && r["author"] != "eboard (downtime)")
                    .cloned()
            })
        });
        let charged = board_state(&run.addr)["clock"]["black_ms"]
            .as_u64()
            .unwrap();
        assert_eq!(charged, black - (until - since), "{r} {seq}");
        // An undo gives it back.
        post(
            &run.addr,
            "undo",
            &format!(r#"{{"ruling": {}}}"#, seq["seq"]),
        );
        let back = poll(10, "the undo", || {
            let b = board_state(&run.addr)["clock"]["black_ms"].as_u64()?;
            (b != charged).then_some(b)
        });
        assert_eq!(back, black);
        drop(run);
        std::fs::remove_dir_all(&dir).ok();
    }
}
