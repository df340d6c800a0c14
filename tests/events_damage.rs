//! The events file's checksums (issue 41, "Integrity end to end"): a real
//! game's events file (`JOURNAL.events`), written by the daemon's journal
//! writer, one byte changed in each line in turn; each time, what a restart
//! decides from the file — the rotation's standing (the result, confirmed
//! or not, the game ended or not: `journal::standing`, `game_ended`) and
//! the downtime (how it is measured and from what: `app::downtime::facts`,
//! `resume_round`) — is compared with what it decides with that line
//! missing. A change is
//!
//! - **found** when the restart decides as with the line missing, on the
//!   safe side where the line may have been decisive (the result not
//!   confirmed, the game not taken as ended, the downtime not measured: the
//!   clocks wait for the arbiter) — what a checksum that fails gives;
//! - **as absent** when it decides exactly as with the line missing (a line
//!   no longer JSON, passed over);
//! - **unchanged** when it decides as with the file intact;
//! - **silent** otherwise: a different decision nobody is told of.
//!
//! In-process (the journal's writer and readers, as `journal_damage.rs`),
//! from its real games (`journal_damage::real_traces`). Skips with a
//! printed reason when `../shared/data` is absent (a failure under CI).

use crate::journal_damage::{decide, real_traces, tempdir};
use eboard::app::downtime::{facts, resume_round, BootClock, Measure};
use eboard::journal::{events_path, game_ended, standing, Journal};
use std::path::Path;

/// Round time 0 of the journal, Unix ms.
const EPOCH0: u64 = 1_700_000_000_000;
/// Round time 0 after the untrusted resume in the middle of the game.
const EPOCH1: u64 = 1_700_000_400_000;
/// The boot of the second half, and of the restart.
const BOOT: &str = "boot-b";
/// Boot "b"'s clock at round time 0 of its heartbeats, ms.
const BOOT_B_MS: u64 = 1_000_000;
/// Records of the game journaled (its opening: each resume reads the file
/// several times, at opt-level 0).
const RECORDS: usize = 120;

/// What a restart decides from the events file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decision {
    /// The rotation's standing: the result, confirmed, ended.
    result: Option<String>,
    confirmed: bool,
    ended: bool,
    /// The downtime: how it is measured (`Measure::name`) and from what:
    /// the heartbeat's (t, boot-clock ms) on the boot clock, (epoch,
    /// last t) on the wall clock, (last t, 0) unmeasured.
    measure: &'static str,
    from: (u64, u64),
    /// The journal's last round time, ms.
    last_t: u64,
}

impl Decision {
    /// The same decision on the safe side of a line that may have been
    /// decisive: the result not confirmed, the game not ended (resumed),
    /// the downtime not measured.
    fn safe(&self) -> Decision {
        Decision {
            confirmed: false,
            ended: false,
            measure: Measure::Unmeasured.name(),
            from: (self.last_t, 0),
            ..self.clone()
        }
    }
}

/// The restart's decision, `after_ms` after the last record on boot "b"'s
/// clock and the wall clock alike.
fn decision(journal: &Path, last_record_t: u64, after_ms: u64) -> Decision {
    let now_unix = EPOCH1 + last_record_t + after_ms;
    let s = standing(journal);
    let mut f = facts(journal, last_record_t, EPOCH0, now_unix, 1.0, Some(true));
    f.boot_now = Some(BootClock {
        boot_id: BOOT.into(),
        boottime_ms: BOOT_B_MS + last_record_t + after_ms,
    });
    let r = resume_round(&f);
    let from = match r.measure {
        Measure::BootTime => {
            let (t, b) = f.heartbeat.clone().unwrap();
            (t, b.boottime_ms)
        }
        Measure::WallClock => (f.epoch, f.last_t),
        Measure::Unmeasured => (f.last_t, 0),
    };
    Decision {
        result: s.result,
        confirmed: s.confirmed,
        ended: game_ended(journal),
        measure: r.measure.name(),
        from,
        last_t: f.last_t,
    }
}

/// A heartbeat line as the board loop writes it (`docs/journal.md`).
fn heartbeat(t: u64, boot: &str, boottime_ms: u64) -> String {
    serde_json::json!({"type": "heartbeat", "t": t, "boot_id": boot, "boottime_ms": boottime_ms})
        .to_string()
}

/// Journals the opening of a real game with the daemon's writer: the
/// records, the events the arbiter decides from each, a heartbeat every 2 s
/// of round time (the last of each gap between records), an untrusted
/// restart in the middle (its `downtime` event with `epoch_unix_ms`, then
/// another boot), the game's end, its confirmation by the arbiter and the
/// ruling. Returns the last record's round time.
fn journal_game(p: &Path) -> Option<u64> {
    let traces = real_traces()?;
    let trace = &traces[0];
    let records = &trace.records[..RECORDS.min(trace.records.len())];
    let (mut j, _) = Journal::open(p, &trace.header, EPOCH0).unwrap();
    let mut c = eboard::controller::Controller::new(
        eboard::arbiter::GameConfig::from_header(&trace.header, None, None).unwrap(),
    );
    let mut last_hb = 0u64;
    let restart_at = records.len() / 2;
    for (i, r) in records.iter().enumerate() {
        let second_half = i >= restart_at;
        if i == restart_at {
            j.event(
                &serde_json::json!({"t": r.t, "type": "irregularity", "kind": "downtime",
                    "measured_by": "none", "clocks_stopped": true, "epoch_unix_ms": EPOCH1})
                .to_string(),
            )
            .unwrap();
            j.event(&heartbeat(r.t, BOOT, BOOT_B_MS + r.t)).unwrap();
            last_hb = r.t;
        }
        if r.t >= last_hb + 2_000 {
            let t = last_hb + (r.t - last_hb) / 2_000 * 2_000;
            let line = if second_half {
                heartbeat(t, BOOT, BOOT_B_MS + t)
            } else {
                heartbeat(t, "boot-a", 5_000_000 + t)
            };
            j.event(&line).unwrap();
            last_hb = t;
        }
        j.record(r).unwrap();
        let mut events = Vec::new();
        c.feed(r, &mut events);
        for e in &events {
            j.event(&e.to_json()).unwrap();
        }
    }
    let end = records.last().unwrap().t + 5_000;
    for line in [
        format!(r#"{{"t":{end},"type":"game_end","result":"1-0","reason":"resignation"}}"#),
        format!(
            r#"{{"t":{},"type":"result_confirmed","result":"1-0"}}"#,
            end + 3_000
        ),
        format!(
            r#"{{"t":{},"type":"ruling","action":"confirm","seq":1,"effect":"1-0 (resignation) confirmed"}}"#,
            end + 3_000
        ),
    ] {
        j.event(&line).unwrap();
    }
    j.sync().unwrap();
    drop(j);
    // The events are the arbiter's decisions of the real game.
    let (all, _) = decide(&trace.header, records);
    assert!(all.len() > 50, "a real game's events: {}", all.len());
    Some(records.last().unwrap().t)
}

/// The sweep (issue 41, "events"): every line of a real game's events file
/// (TWIC 1599 game 3's first 120 records: its events, heartbeats, a
/// restart's `downtime` event, the end and its confirmation) changed in
/// turn — a digit of its round time and the byte in its middle, by their
/// lowest bit, and every byte of the lines a restart decides from (the
/// last heartbeat, the `downtime` event, `game_end`, `result_confirmed`,
/// the ruling) — and a restart's decisions read from it: never a decision
/// that differs from the line missing without its being said (0 silent);
/// every change found.
#[test]
fn a_changed_byte_in_the_events_file_never_changes_a_restarts_decision_silently() {
    let dir = tempdir("events-sweep");
    let p = dir.join("j.jsonl");
    let Some(last_record_t) = journal_game(&p) else {
        return;
    };
    let started = std::time::Instant::now();
    let ev = events_path(&p);
    let bytes = std::fs::read(&ev).unwrap();
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut s = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            lines.push((s, i));
            s = i + 1;
        }
    }
    // A restart on the same boot 20 s after the last record, the wall
    // clock as far on.
    let after_ms = 20_000;
    let whole = decision(&p, last_record_t, after_ms);
    assert_eq!(
        (whole.result.as_deref(), whole.confirmed, whole.measure),
        (Some("1-0"), true, "boottime"),
        "the intact file: {whole:?}"
    );
    let decisive = |l: &[u8]| {
        let l = String::from_utf8_lossy(l);
        [
            "\"downtime\"",
            "\"game_end\"",
            "\"result_confirmed\"",
            "\"ruling\"",
        ]
        .iter()
        .any(|k| l.contains(k))
    };
    let last_hb = lines
        .iter()
        .rposition(|&(s, e)| String::from_utf8_lossy(&bytes[s..e]).contains("\"heartbeat\""))
        .unwrap();
    let (mut found, mut absent, mut unchanged) = (0usize, 0usize, 0usize);
    let mut silent: Vec<String> = Vec::new();
    // Silent changes by the changed line's type.
    let mut silent_by: std::collections::BTreeMap<String, usize> = Default::default();
    for (k, &(s, e)) in lines.iter().enumerate() {
        let mut without = bytes[..s].to_vec();
        without.extend_from_slice(&bytes[e + 1..]);
        std::fs::write(&ev, &without).unwrap();
        let missing = decision(&p, last_record_t, after_ms);
        let line = &bytes[s..e];
        let mut at: Vec<usize> = if decisive(line) || k == last_hb {
            (s..e).collect()
        } else {
            let t = line
                .windows(4)
                .position(|w| w == b"\"t\":")
                .map_or(s, |i| s + i + 4);
            vec![t, (s + e) / 2]
        };
        at.dedup();
        for pos in at {
            let mut b = bytes.clone();
            b[pos] ^= 0x01;
            std::fs::write(&ev, &b).unwrap();
            let d = decision(&p, last_record_t, after_ms);
            if d == missing.safe() && eboard::journal::events_read(&p).damaged == [k + 1] {
                found += 1;
            } else if d == missing {
                absent += 1;
            } else if d == whole {
                unchanged += 1;
            } else {
                let kind = serde_json::from_slice::<serde_json::Value>(line)
                    .ok()
                    .and_then(|v| Some(v["type"].as_str()?.to_owned()))
                    .unwrap_or_default();
                *silent_by.entry(kind).or_default() += 1;
                silent.push(format!(
                    "line {} byte {} ({:?}): {d:?}, the line missing: {missing:?}",
                    k + 1,
                    pos - s,
                    String::from_utf8_lossy(line)
                ));
            }
        }
    }
    let changes = found + absent + unchanged + silent.len();
    println!(
        "events-file sweep: {changes} changed bytes in {} lines ({} bytes) in {:?}: {found} found \
         (decided as without the line, on the safe side), {absent} as absent, {unchanged} \
         unchanged, {} silently different decisions {silent_by:?}",
        lines.len(),
        bytes.len(),
        started.elapsed(),
        silent.len()
    );
    assert!(
        silent.is_empty(),
        "{} of {changes} changed bytes silently changed a restart's decision: {:#?}",
        silent.len(),
        &silent[..silent.len().min(10)]
    );
    assert_eq!(found, changes, "every change found");
    std::fs::remove_dir_all(&dir).ok();
}

/// Through the real daemon: a board killed in a recorded game, a digit of
/// its last heartbeat's round time changed, restarted: the arbiter is told
/// (`journal_alert` `damaged` naming the events file and the line), the
/// downtime is not measured (`measured_by` `none`, `events_damaged` 1), and
/// the game goes on.
#[test]
fn a_resumed_daemon_tells_the_arbiter_of_a_damaged_events_line() {
    use crate::common::*;
    let dir = tempdir("events-daemon");
    let trace = opera_trace(&dir, 5);
    let cfg = config(&dir, 1, 5, "");
    let journal = dir.join("j.jsonl");
    let args = journal_speed_delay(&journal, "50", "0");
    let mut run = run_board(&dir, &cfg, Some(&trace), &refs(&args));
    let ev = events_path(&journal);
    poll(60, "moves and a heartbeat journaled", || {
        let text = std::fs::read_to_string(&ev).unwrap_or_default();
        (text.matches("\"type\":\"move\"").count() >= 4 && text.contains("\"heartbeat\""))
            .then_some(())
    });
    run.kill();
    drop(run);
    let text = std::fs::read_to_string(&ev).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let k = lines
        .iter()
        .rposition(|l| l.contains("\"heartbeat\""))
        .unwrap();
    let mut changed = lines[k].as_bytes().to_vec();
    let at = lines[k].find("\"t\":").unwrap() + 4;
    changed[at] ^= 0x01;
    let mut out: Vec<u8> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        out.extend_from_slice(if i == k { &changed } else { l.as_bytes() });
        out.push(b'\n');
    }
    std::fs::write(&ev, &out).unwrap();

    let run = run_board(&dir, &cfg, Some(&trace), &refs(&args));
    let arbiter = SseReader::open(&run.addr, "/arbiter/events", &[ARBITER_AUTH]);
    // The downtime irregularity, then the alerts of the journal's opening.
    let msgs = arbiter.until(20, |v| {
        v["type"] == "journal_alert" && v["problem"] == "damaged"
    });
    let alert = &msgs.last().unwrap().1;
    let downtime = msgs
        .iter()
        .map(|(_, v)| v)
        .find(|v| v["kind"] == "downtime")
        .unwrap_or_else(|| panic!("no downtime: {msgs:?}"));
    assert_eq!(downtime["measured_by"], "none", "{downtime}");
    assert_eq!(downtime["events_damaged"], 1, "{downtime}");
    assert!(
        alert["file"].as_str().unwrap().ends_with("j.jsonl.events"),
        "{alert}"
    );
    assert_eq!(alert["lines"], serde_json::json!([k + 1]), "{alert}");
    poll(60, "the game goes on after the restart", || {
        let text = std::fs::read_to_string(&ev).unwrap_or_default();
        (text.matches("\"type\":\"move\"").count()
            > lines
                .iter()
                .filter(|l| l.contains("\"type\":\"move\""))
                .count())
        .then_some(())
    });
    std::fs::remove_dir_all(&dir).ok();
}
