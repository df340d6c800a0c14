//! One board on its journal, started, killed with SIGKILL and started
//! again, and the journal edits that stand for what a longer downtime, a
//! new boot or a stepped wall clock leave behind: the rig of
//! `tests/restart_moments.rs` (docs/dev/journal-notes.md, "Restarts at
//! rarer moments").

use super::*;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ChildStdin;

/// One board on its journal: started, killed, started again.
pub struct Board {
    dir: PathBuf,
    cfg: PathBuf,
    pub journal: PathBuf,
    speed: String,
    delay: String,
    run: Option<(Running, ChildStdin)>,
}

impl Board {
    /// A board with time control `tc`, round time at `speed` round ms per
    /// wall ms, a public delay of `delay` s.
    pub fn new(name: &str, tc: &str, speed: u32, delay: u32) -> Board {
        let dir = tempdir(name);
        // A clock device that ran through the downtime (a DGT 3000 on its
        // batteries, `[clock] runs_while_down`): the player on move used
        // the time. The board's own clock is `restart_pause.rs` (`own_clock`).
        let cfg = config(&dir, 1, 3, "\n[clock]\nruns_while_down = true\n");
        let text = std::fs::read_to_string(&cfg).unwrap();
        std::fs::write(&cfg, text.replace("5400+30", tc)).unwrap();
        let journal = dir.join("j.jsonl");
        let mut b = Board {
            dir,
            cfg,
            journal,
            speed: speed.to_string(),
            delay: delay.to_string(),
            run: None,
        };
        b.start();
        b.send(&[r#"{"trace": 1}"#]);
        b
    }

    pub fn start(&mut self) {
        let args = [
            "--journal",
            self.journal.to_str().unwrap(),
            "--speed",
            &self.speed,
            "--delay",
            &self.delay,
        ];
        self.run = Some(run_stdin(&self.dir, &self.cfg, &args));
    }

    /// SIGKILL, then the journal as the downtime left it (`edit`), then a
    /// start on it; the header line a live source begins with.
    pub fn kill_and_restart(&mut self, edit: impl FnOnce(&Path)) {
        if let Some((mut run, stdin)) = self.run.take() {
            run.kill();
            drop(stdin);
        }
        edit(&self.journal);
        self.start();
        self.send(&[r#"{"trace": 1}"#]);
    }

    pub fn addr(&self) -> &str {
        &self.run.as_ref().unwrap().0.addr
    }

    pub fn send(&mut self, lines: &[&str]) {
        let stdin = &mut self.run.as_mut().unwrap().1;
        for l in lines {
            writeln!(stdin, "{l}").unwrap();
        }
        stdin.flush().unwrap();
    }

    /// Lifts `from` and places on `to` (the time is the arrival's).
    pub fn make(&mut self, from: &str, to: &str) {
        let l = format!(r#"{{"t": 0, "lift": "{from}"}}"#);
        let p = format!(r#"{{"t": 0, "place": "{to}"}}"#);
        self.send(&[&l, &p]);
    }

    pub fn press(&mut self, by: &str) {
        self.send(&[&format!(r#"{{"t": 0, "press": "{by}"}}"#)]);
    }

    pub fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(eboard::journal::events_path(&self.journal))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    pub fn of(&self, ty: &str) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|e| e["type"] == ty)
            .collect()
    }

    pub fn irregularities(&self, kind: &str) -> Vec<Value> {
        self.of("irregularity")
            .into_iter()
            .filter(|e| e["kind"] == kind)
            .collect()
    }

    /// Waits for `n` moves in the events file; the last one.
    pub fn moves(&self, n: usize) -> Value {
        poll(20, &format!("{n} moves"), || {
            let m = self.of("move");
            (m.len() >= n).then(|| m[n - 1].clone())
        })
    }

    /// Waits for a heartbeat at round time `t` or later.
    pub fn heartbeat_from(&self, t: u64) {
        poll(30, &format!("a heartbeat from {t} ms"), || {
            self.of("heartbeat")
                .iter()
                .any(|h| h["t"].as_u64() >= Some(t))
                .then_some(())
        });
    }

    /// The last `clock` event: (white ms, black ms, t).
    pub fn last_clock(&self) -> (u64, u64, u64) {
        let c = self.of("clock").pop().expect("a clock event");
        (
            c["white_ms"].as_u64().unwrap(),
            c["black_ms"].as_u64().unwrap(),
            c["t"].as_u64().unwrap(),
        )
    }

    /// The clock event at `t`.
    pub fn clock_at(&self, t: u64) -> (u64, u64) {
        let c = self
            .of("clock")
            .into_iter()
            .rfind(|c| c["t"] == t)
            .unwrap_or_else(|| panic!("no clock at {t}: {:#?}", self.events()));
        (
            c["white_ms"].as_u64().unwrap(),
            c["black_ms"].as_u64().unwrap(),
        )
    }

    /// The `downtime` irregularity of the latest start.
    pub fn downtime(&self) -> Value {
        let arbiter = SseReader::open(self.addr(), "/arbiter/events", &[ARBITER_AUTH]);
        let msgs = arbiter.until(20, |v| v["kind"] == "downtime");
        msgs.last().unwrap().1.clone()
    }

    pub fn arbiter(&self, action: &str) {
        let (status, body) = request(
            self.addr(),
            "POST",
            &format!("/arbiter/{action}"),
            &[ARBITER_AUTH],
            "",
        );
        assert_eq!(status, 200, "{action}: {body}");
    }

    /// The arbiter's state (`/arbiter/state`).
    pub fn state(&self) -> Value {
        let (s, body) = request(self.addr(), "GET", "/arbiter/state", &[ARBITER_AUTH], "");
        assert_eq!(s, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    /// The round time the running daemon has reached (its last heartbeat
    /// or event), waiting until it is at least `t`.
    pub fn reach(&self, t: u64) {
        self.heartbeat_from(t);
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        if let Some((mut run, _)) = self.run.take() {
            run.kill();
        }
        if !std::thread::panicking() {
            std::fs::remove_dir_all(&self.dir).ok();
        }
    }
}

/// The journal's heartbeats moved `ms` back on the boot clock: the restart
/// on the same boot measures a downtime `ms` longer.
pub fn down_longer(ms: u64) -> impl FnOnce(&Path) {
    move |journal| {
        edit_events(journal, |v| {
            if v["type"] == "heartbeat" {
                if let Some(b) = v["boottime_ms"].as_u64() {
                    v["boottime_ms"] = Value::from(b.saturating_sub(ms));
                }
            }
        })
    }
}

/// Another boot came between: the heartbeats' boot is not this one.
pub fn other_boot(journal: &Path) {
    edit_events(journal, |v| {
        if v["type"] == "heartbeat" {
            v["boot_id"] = Value::from("00000000-0000-0000-0000-000000000000");
        }
    })
}

/// The wall clock stepped by `ms` (negative: back) while the daemon was
/// down: round time 0 is that much off on the new wall clock.
pub fn wall_stepped(journal: &Path, ms: i64) {
    shift_journal_start(journal, ms);
    edit_events(journal, |v| {
        if let Some(e) = v["epoch_unix_ms"].as_i64() {
            v["epoch_unix_ms"] = Value::from(e - ms);
        }
    });
}

pub fn edit_events(journal: &Path, mut f: impl FnMut(&mut Value)) {
    let ev = eboard::journal::events_path(journal);
    let text = std::fs::read_to_string(&ev).unwrap();
    let text: String = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            f(&mut v);
            sealed_event_line(&v)
        })
        .collect();
    std::fs::write(&ev, text).unwrap();
}

/// 1. e4 completed; the time Black's clock started.
pub fn e4(b: &mut Board) -> u64 {
    b.make("e2", "e4");
    b.press("w");
    b.moves(1)["t"].as_u64().unwrap()
}

// ---- 1. A kill during a pause ------------------------------------------
