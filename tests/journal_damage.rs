//! A journal that survives damage (issue 18 §5), by fault injection in the
//! writer ([`eboard::disk::FaultyFile`]) and by cutting and corrupting the
//! file a real game left, never by hope:
//!
//! - a real game of `../shared/data` (TWIC 1599) journaled by the daemon's
//!   writer, the file cut at every write boundary and at two offsets inside
//!   every record (a crash), reopened: the resumed game is exactly the
//!   prefix (the same records; the events the arbiter decides from them are
//!   a prefix of the whole game's, so nothing wrong is published), and the
//!   rest of the game appended after the resume gives the whole game;
//! - a disk that fills mid-game (short writes, then `ENOSPC`) and empties:
//!   nothing torn, nothing lost, one alert each way;
//! - a corrupted byte in the middle: resumed up to the line before, the
//!   damaged file set aside;
//! - a journal of another game refused, an empty one warned.
//!
//! Skips with a printed reason when `../shared/data` is absent; under CI
//! (`CI` set) that is a failure.

use crate::common;

use common::shared_pgn_dir_or_skip;
use eboard::arbiter::GameConfig;
use eboard::controller::Controller;
use eboard::disk::{Fault, FaultPlan, FaultyFile};
use eboard::journal::{read_journal, Alert, Journal};
use eboard::trace::{Event, Header, Record, Trace};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Games of the TWIC file played (0-based).
const GAMES: [usize; 2] = [2, 17];

pub(crate) fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("eboard-jdamage-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The real games' traces, with an identity in the header.
pub(crate) fn real_traces() -> Option<Vec<Trace>> {
    let dir = shared_pgn_dir_or_skip()?;
    let text = std::fs::read_to_string(dir.join("twic1599_1110games.pgn")).unwrap();
    let games = eboard::pgn::read_games(&text).unwrap();
    Some(
        GAMES
            .iter()
            .map(|&g| {
                let opts = eboard::sim::SimOptions {
                    seed: g as u64,
                    ..Default::default()
                };
                let mut t = eboard::sim::simulate(&games[g], &opts).unwrap();
                t.header.event = Some("TWIC 1599".into());
                t.header.round = Some(format!("{}.1", g + 1));
                t.header.white = Some("White, A".into());
                t.header.black = Some("Black, B".into());
                t.header.time_control = Some("5400+30".into());
                t
            })
            .collect(),
    )
}

/// The events the arbiter decides from `records` fed in order (as the
/// daemon's resume feeds a journal), and the SAN moves.
pub(crate) fn decide(header: &Header, records: &[Record]) -> (Vec<String>, Vec<String>) {
    let mut c = Controller::new(GameConfig::from_header(header, None, None).unwrap());
    let mut events: Vec<Event> = Vec::new();
    for r in records {
        c.feed(r, &mut events);
    }
    let sans = c
        .arbiter()
        .moves()
        .iter()
        .map(|m| m.san.to_string())
        .collect();
    (events.iter().map(Event::to_json).collect(), sans)
}

/// Journals `trace` with the daemon's writer; returns the records file's
/// bytes and the file's length after each write (the write boundaries).
fn journal_bytes(dir: &Path, trace: &Trace) -> (Vec<u8>, Vec<usize>) {
    let p = dir.join("whole.jsonl");
    let _ = std::fs::remove_file(&p);
    let (mut j, _) = Journal::open(&p, &trace.header, 1_700_000_000_000).unwrap();
    let mut ends = vec![std::fs::metadata(&p).unwrap().len() as usize];
    for r in &trace.records {
        j.record(r).unwrap();
        ends.push(std::fs::metadata(&p).unwrap().len() as usize);
    }
    j.sync().unwrap();
    (std::fs::read(&p).unwrap(), ends)
}

#[test]
fn a_crash_at_every_write_boundary_and_inside_every_record_resumes_the_prefix() {
    let Some(traces) = real_traces() else { return };
    let dir = tempdir("crash");
    let mut cuts_checked = 0usize;
    for trace in &traces {
        let (bytes, ends) = journal_bytes(&dir, trace);
        assert_eq!(ends.len(), trace.records.len() + 1);
        let (all_events, all_sans) = decide(&trace.header, &trace.records);
        assert!(all_sans.len() > 20, "a real game");
        // Every write boundary, and inside every record: after its first
        // byte, in its middle, just before its newline.
        let mut cuts: Vec<usize> = ends.clone();
        for w in ends.windows(2) {
            cuts.extend([w[0] + 1, (w[0] + w[1]) / 2, w[1] - 1]);
        }
        cuts.sort();
        cuts.dedup();
        let p = dir.join("j.jsonl");
        for cut in cuts {
            let _ = std::fs::remove_file(eboard::journal::events_path(&p));
            std::fs::write(&p, &bytes[..cut]).unwrap();
            // Records whole before the cut; one cut just before its
            // newline is whole too (its newline is written on resuming).
            let whole = ends.iter().filter(|&&e| e <= cut + 1).count() - 1;
            let (mut j, rec) = Journal::open(&p, &trace.header, 1).unwrap();
            let Some(rec) = rec else {
                // Only the header survived: a new game, said.
                assert_eq!(whole, 0, "cut at byte {cut}");
                let alerts = j.take_alerts();
                assert!(matches!(alerts[..], [Alert::Empty { .. }]), "{alerts:?}");
                continue;
            };
            assert_eq!(rec.records.len(), whole, "cut at byte {cut}");
            assert_eq!(rec.records[..], trace.records[..whole], "cut at byte {cut}");
            assert!(rec.damage.is_none(), "a crash is no damage (cut at {cut})");
            assert_eq!(rec.started_at_unix_ms, Some(1_700_000_000_000));
            // Nothing wrong is published: the decisions resumed are the
            // whole game's, up to the cut.
            let (events, sans) = decide(&trace.header, &rec.records);
            assert_eq!(events[..], all_events[..events.len()], "cut at byte {cut}");
            assert_eq!(sans[..], all_sans[..sans.len()]);
            // The game goes on after the resume: the whole game results.
            for r in &trace.records[whole..] {
                j.record(r).unwrap();
            }
            drop(j);
            let again = read_journal(&std::fs::read_to_string(&p).unwrap())
                .unwrap()
                .unwrap();
            assert_eq!(again.records, trace.records, "resumed at byte {cut}");
            cuts_checked += 1;
        }
    }
    println!("{cuts_checked} crash points checked");
    assert!(cuts_checked > 1000, "{cuts_checked}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_disk_that_fills_mid_game_and_empties_loses_and_tears_nothing() {
    let Some(traces) = real_traces() else { return };
    let trace = &traces[0];
    let dir = tempdir("full");
    let p = dir.join("j.jsonl");
    let plan = Arc::new(Mutex::new(FaultPlan::default()));
    let opener = FaultyFile::opener(plan.clone());
    let (mut j, _) = Journal::open_with(&p, &trace.header, 5, &opener).unwrap();
    let n = trace.records.len();
    let (full_at, free_at) = (n / 3, 2 * n / 3);
    let mut alerts = Vec::new();
    for (i, r) in trace.records.iter().enumerate() {
        if i == full_at {
            // 100 bytes left: what fits of one record, then ENOSPC.
            plan.lock().unwrap().space = Some(100);
        }
        if i == free_at {
            plan.lock().unwrap().space = None;
        }
        j.record(r).unwrap();
        j.retry_at(r.t);
        alerts.extend(j.take_alerts());
        // At every moment the file holds whole records, in order, a
        // prefix of the game.
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.ends_with('\n'), "torn after record {i}");
        let on_disk = read_journal(&text).unwrap().unwrap();
        assert!(on_disk.torn.is_none() && on_disk.damage.is_none());
        assert_eq!(on_disk.records[..], trace.records[..on_disk.records.len()]);
    }
    let failed = plan.lock().unwrap().failed.len();
    assert!(failed > 1, "the disk refused writes ({failed})");
    let kinds: Vec<&str> = alerts.iter().map(Alert::problem).collect();
    assert_eq!(kinds, ["write_failed", "write_recovered"], "{alerts:?}");
    assert_eq!(j.waiting(), 0);
    drop(j);
    let r = read_journal(&std::fs::read_to_string(&p).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(r.records, trace.records);
    let json = alerts[0].to_json(9);
    assert!(json.contains("\"type\":\"journal_alert\""), "{json}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn short_writes_and_failures_at_write_n_never_leave_a_hole() {
    let Some(traces) = real_traces() else { return };
    let trace = &traces[1];
    let dir = tempdir("writen");
    // Write 0 is the header; faults at records 10..13 and 40.
    for faults in [
        vec![(10, Fault::Short(3))],
        vec![
            (10, Fault::NoSpace),
            (11, Fault::IoAfter(5)),
            (12, Fault::Short(1)),
        ],
        vec![(40, Fault::IoAfter(0)), (41, Fault::NoSpace)],
    ] {
        let p = dir.join("j.jsonl");
        let _ = std::fs::remove_file(&p);
        let plan = Arc::new(Mutex::new(FaultPlan {
            at: faults.clone(),
            ..Default::default()
        }));
        let opener = FaultyFile::opener(plan.clone());
        let (mut j, _) = Journal::open_with(&p, &trace.header, 5, &opener).unwrap();
        for r in &trace.records {
            j.record(r).unwrap();
        }
        assert_eq!(j.waiting(), 0, "{faults:?}");
        drop(j);
        let r = read_journal(&std::fs::read_to_string(&p).unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(r.records, trace.records, "{faults:?}");
        assert_eq!(plan.lock().unwrap().failed.len(), faults.len());
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_corrupted_byte_mid_file_resumes_up_to_it_and_sets_the_file_aside() {
    let Some(traces) = real_traces() else { return };
    let trace = &traces[0];
    let dir = tempdir("byte");
    let (bytes, ends) = journal_bytes(&dir, trace);
    let (all_events, _) = decide(&trace.header, &trace.records);
    let p = dir.join("j.jsonl");
    // A bad byte (not UTF-8, then a JSON-breaking one) in record 100,
    // once with a torn last line too.
    for (bad, torn_tail) in [(0xffu8, false), (b'{', false), (0xffu8, true)] {
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.file_name().unwrap() != "whole.jsonl" {
                std::fs::remove_file(f).unwrap();
            }
        }
        let mut b = bytes.clone();
        let at = (ends[100] + ends[101]) / 2;
        b[at] = bad;
        if torn_tail {
            b.extend_from_slice(b"{\"t\":99999999,\"li");
        }
        std::fs::write(&p, &b).unwrap();
        let (mut j, rec) = Journal::open(&p, &trace.header, 1).unwrap();
        let rec = rec.unwrap();
        assert_eq!(rec.records[..], trace.records[..100]);
        let d = rec.damage.as_ref().unwrap();
        assert_eq!(
            d.offset as usize, ends[100],
            "cut at the damaged line's start"
        );
        let alerts = j.take_alerts();
        let Some(Alert::Damaged {
            line, set_aside, ..
        }) = alerts.first()
        else {
            panic!("{alerts:?}")
        };
        assert_eq!(*line, 102, "header + 100 records, then the damaged one");
        assert_eq!(std::fs::read(set_aside).unwrap(), b, "set aside as it was");
        assert_eq!(
            std::fs::read(&p).unwrap(),
            bytes[..ends[100]],
            "the good part"
        );
        let (events, _) = decide(&trace.header, &rec.records);
        assert_eq!(events[..], all_events[..events.len()]);
        drop(j);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_journal_of_another_game_is_refused_and_an_empty_one_warned() {
    let Some(traces) = real_traces() else { return };
    let dir = tempdir("other");
    let p = dir.join("j.jsonl");
    let (mut j, _) = Journal::open(&p, &traces[0].header, 1).unwrap();
    for r in &traces[0].records[..50] {
        j.record(r).unwrap();
    }
    drop(j);
    // The config of the other game (another round and players).
    let e = Journal::open(&p, &traces[1].header, 2).unwrap_err();
    assert!(e.is_other_game(), "{e}");
    let m = e.to_string();
    assert!(m.contains(&format!("mv {}", p.display())), "{m}");
    assert!(m.contains("round: journal \"3.1\", config \"18.1\""), "{m}");
    // Resumed by its own game's config.
    let (_, rec) = Journal::open(&p, &traces[0].header, 3).unwrap();
    assert_eq!(rec.unwrap().records.len(), 50);
    // Empty: a new game, said.
    std::fs::write(&p, b"").unwrap();
    let (mut j, rec) = Journal::open(&p, &traces[1].header, 4).unwrap();
    assert!(rec.is_none());
    assert_eq!(
        j.take_alerts()
            .iter()
            .map(Alert::problem)
            .collect::<Vec<_>>(),
        ["empty"]
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// What the resumes of a journal with one byte changed gave.
#[derive(Debug, Default)]
struct Sweep {
    /// The same game (header and every record).
    identical: usize,
    /// `damaged` at the changed line, the records before it kept.
    damaged: usize,
    /// Anything else: a different game, or damage at another line.
    silent: Vec<String>,
}

impl Sweep {
    /// Resumes (reads as `Journal::open` does) `bytes` with each of
    /// `flips` (byte offset, XOR mask) in turn; `starts[k]..ends[k]` is
    /// line k + 1 (0: the header).
    fn run(
        &mut self,
        bytes: &[u8],
        starts: &[usize],
        ends: &[usize],
        flips: impl Iterator<Item = (usize, u8)>,
    ) {
        let whole = eboard::journal::scan(bytes).unwrap().recovered.unwrap();
        for (pos, mask) in flips {
            let k = ends.iter().position(|&e| pos < e).unwrap();
            debug_assert!(pos >= starts[k]);
            let mut b = bytes.to_vec();
            b[pos] ^= mask;
            let what = format!("line {} byte {pos} ^ {mask:#04x}", k + 1);
            let s = match eboard::journal::scan(&b[..]) {
                Ok(s) => s,
                Err(e) => {
                    self.silent.push(format!("{what}: refused: {e}"));
                    continue;
                }
            };
            match (s.recovered, s.headless_damage) {
                (None, Some(d)) if k == 0 && d.error.line == 1 => self.damaged += 1,
                (Some(r), None) if r.damage.is_none() && r.torn.is_none() => {
                    if r.records == whole.records
                        && r.header == whole.header
                        && r.game_id == whole.game_id
                        && r.started_at_unix_ms == whole.started_at_unix_ms
                    {
                        self.identical += 1;
                    } else {
                        self.silent.push(format!("{what}: a different game"));
                    }
                }
                (Some(r), None)
                    if k > 0
                        && r.damage.as_ref().is_some_and(|d| d.error.line == k + 1)
                        && r.records[..] == whole.records[..k - 1]
                        && r.header == whole.header =>
                {
                    self.damaged += 1
                }
                (r, d) => self.silent.push(format!(
                    "{what}: {:?} {:?}",
                    r.map(|r| (r.records.len(), r.torn, r.damage)),
                    d
                )),
            }
        }
    }
}

/// Line k's start (0: the header) from the ends of the lines.
fn line_starts(ends: &[usize]) -> Vec<usize> {
    std::iter::once(0)
        .chain(ends[..ends.len() - 1].iter().copied())
        .collect()
}

/// The byte-flip sweep (issue 41 §5): a real game's journal (TWIC 1599,
/// game 3, 430 lines), one byte changed in every line in turn, each
/// resumed: the game is the same, or the damage is said at that line and
/// the game resumed from the records before it; never a silently
/// different game. The whole game: in every line a digit of its `t`
/// (`{"t":…`, the change that stays valid JSON) by its lowest bit; the
/// game's first 30 records: every byte, by bit 0, by bit 5 and whole
/// (`^ 0xff`). Then every 10th line through
/// `Journal::open`: the `damaged` alert names the line and the file set
/// aside is the file as it was. (Each resume reads the whole file, so
/// every byte of the whole game, 11 kB, would take minutes at opt-level 0.)
#[test]
fn a_changed_byte_in_any_line_is_found_never_a_different_game() {
    let Some(traces) = real_traces() else { return };
    let trace = &traces[0];
    let dir = tempdir("sweep");
    let started = std::time::Instant::now();
    let mut sweep = Sweep::default();
    // The game's first 30 records, every byte.
    let mut opening = trace.clone();
    opening.records.truncate(30);
    let (bytes, ends) = journal_bytes(&dir, &opening);
    let starts = line_starts(&ends);
    let flips = (0..bytes.len()).flat_map(|pos| [0x01u8, 0x20, 0xff].map(|m| (pos, m)));
    sweep.run(&bytes, &starts, &ends, flips);
    // The whole game, a digit of `t` a line.
    let (bytes, ends) = journal_bytes(&dir, trace);
    let starts = line_starts(&ends);
    let flips = starts.iter().map(|&s| (s + 5, 0x01u8));
    sweep.run(&bytes, &starts, &ends, flips);
    let changes = sweep.identical + sweep.damaged + sweep.silent.len();
    println!(
        "byte-flip sweep: {changes} changed bytes ({} lines of the opening every byte, {} lines \
         of the whole game) in {:?}: {} the same game, {} damaged at the line, {} silent",
        opening.records.len() + 1,
        ends.len(),
        started.elapsed(),
        sweep.identical,
        sweep.damaged,
        sweep.silent.len()
    );
    assert!(
        sweep.silent.is_empty(),
        "{} of {changes} changed bytes silently gave another game or hid the damage: {:#?}",
        sweep.silent.len(),
        &sweep.silent[..sweep.silent.len().min(20)]
    );
    assert!(sweep.damaged > ends.len(), "{sweep:?}");
    // Through the journal's opening: the alert, the file set aside whole.
    let p = dir.join("j.jsonl");
    let every_10th = (1..ends.len()).step_by(10).chain([ends.len() - 1]);
    for k in every_10th {
        let (s, e) = (starts[k], ends[k]);
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.file_name().unwrap() != "whole.jsonl" {
                std::fs::remove_file(f).unwrap();
            }
        }
        let mut b = bytes.clone();
        b[(s + e) / 2] ^= 0x01;
        std::fs::write(&p, &b).unwrap();
        let (mut j, rec) = Journal::open(&p, &trace.header, 1).unwrap();
        let rec = rec.unwrap();
        assert_eq!(rec.records[..], trace.records[..k - 1], "line {}", k + 1);
        let alerts = j.take_alerts();
        let Some(Alert::Damaged {
            line,
            set_aside,
            records_kept,
            ..
        }) = alerts.first()
        else {
            panic!("line {}: {alerts:?}", k + 1)
        };
        assert_eq!((*line, *records_kept), (k + 1, k - 1));
        assert_eq!(std::fs::read(set_aside).unwrap(), b, "set aside as it was");
        assert_eq!(std::fs::read(&p).unwrap(), bytes[..s], "the good part");
        drop(j);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The rotation killed between its two renames (issue 41 §5): the records
/// archived, the events file still beside where the records were (the
/// state on disk reproduced: a real rotation, its second rename undone).
/// The next start (the rotation's start-up call, then the journal opened
/// for the next game) finds both files of the archived game, the events
/// whole; a start that opens the journal without rotating (a board whose
/// arbiter confirms results) loses nothing either.
#[test]
fn a_kill_between_the_two_renames_of_a_rotation_loses_no_events_file() {
    let Some(traces) = real_traces() else { return };
    for rotate_first in [true, false] {
        let dir = tempdir(&format!("rotkill-{rotate_first}"));
        let cur = dir.join(eboard::journal::CURRENT);
        let (mut j, _) = Journal::open(&cur, &traces[0].header, 1_700_000_000_000).unwrap();
        for r in &traces[0].records {
            j.record(r).unwrap();
        }
        j.event(r#"{"t":9000,"type":"game_end","result":"1-0"}"#)
            .unwrap();
        drop(j);
        let events = std::fs::read(eboard::journal::events_path(&cur)).unwrap();
        let archived = eboard::journal::rotate(&dir, 5).unwrap().unwrap();
        // The kill: the events' rename never happened.
        std::fs::rename(
            eboard::journal::events_path(&archived),
            eboard::journal::events_path(&cur),
        )
        .unwrap();
        // The next start.
        if rotate_first {
            assert_eq!(eboard::journal::rotate(&dir, 5).unwrap(), None);
        }
        let (j, rec) = Journal::open(&cur, &traces[1].header, 1_700_000_900_000).unwrap();
        assert!(rec.is_none(), "a new game");
        drop(j);
        let kept: Vec<PathBuf> = [dir.clone(), dir.join(eboard::journal::ARCHIVE)]
            .iter()
            .flat_map(|d| std::fs::read_dir(d).unwrap())
            .map(|e| e.unwrap().path())
            .filter(|p| std::fs::read(p).is_ok_and(|b| b == events))
            .collect();
        assert_eq!(kept.len(), 1, "the events kept once: {kept:?}");
        if rotate_first {
            assert_eq!(kept[0], eboard::journal::events_path(&archived));
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
