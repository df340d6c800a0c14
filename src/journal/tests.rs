//! The journal's unit tests.

use super::*;
use std::io::Write;

const GOOD: &str = "{\"trace\":1,\"journal\":{\"started_at_unix_ms\":1700000000000}}\n{\"t\":10,\"lift\":\"e2\"}\n{\"t\":20,\"place\":\"e4\"}\n";

#[test]
fn reads_back_header_start_and_records() {
    let r = read_journal(GOOD).unwrap().unwrap();
    assert_eq!(r.started_at_unix_ms, Some(1_700_000_000_000));
    assert_eq!(r.records.len(), 2);
    assert!(r.torn.is_none());
    assert_eq!(r.good_len, GOOD.len());
}

#[test]
fn a_torn_last_line_is_reported_and_dropped() {
    let text = format!("{GOOD}{{\"t\":30,\"pre");
    let r = read_journal(&text).unwrap().unwrap();
    assert_eq!(r.records.len(), 2);
    assert_eq!(r.torn.as_ref().map(|e| e.line), Some(4));
    assert_eq!(r.good_len, GOOD.len());
}

#[test]
fn a_bad_line_in_the_middle_ends_what_is_resumed() {
    let text = GOOD.replace("{\"t\":10,\"lift\":\"e2\"}", "{\"t\":10,\"lift\"");
    let r = read_journal(&text).unwrap().unwrap();
    assert!(r.records.is_empty() && r.torn.is_none());
    let d = r.damage.unwrap();
    assert_eq!((d.error.line, d.lines_after), (2, 1));
    assert_eq!(d.offset as usize, GOOD.find("{\"t\":10").unwrap());
    assert_eq!(r.good_len, d.offset as usize);
}

#[test]
fn a_half_written_record_then_a_whole_one_on_the_same_line_is_damage() {
    // A transient disk-full of an older eboard: `{"lift":"c{"place":"c7",…}`.
    let text = format!(
        "{GOOD}{{\"t\":30,\"lift\":\"c{{\"t\":31,\"place\":\"c7\"}}\n{{\"t\":40,\"lift\":\"d2\"}}\n"
    );
    let r = read_journal(&text).unwrap().unwrap();
    assert_eq!(r.records.len(), 2);
    let d = r.damage.unwrap();
    assert_eq!(
        (d.error.line, d.lines_after, d.offset as usize),
        (4, 1, GOOD.len())
    );
}

#[test]
fn a_bad_byte_then_a_torn_last_line_cuts_at_the_bad_bytes_line() {
    // Not UTF-8 in line 3 (a flipped bit), then a torn last line: the cut
    // is at the raw byte offset of line 3, not shifted by a lossy decoding.
    let mut bytes = GOOD.as_bytes().to_vec();
    let at = GOOD.find("e4").unwrap();
    bytes[at] = 0xff;
    bytes.extend_from_slice(b"{\"t\":30,\"lift\":\"d2\"}\n{\"t\":40,\"pl");
    let s = scan(&bytes[..]).unwrap();
    let r = s.recovered.unwrap();
    assert_eq!(r.records.len(), 1);
    let d = r.damage.unwrap();
    assert_eq!(d.error.line, 3);
    assert!(d.error.message.contains("UTF-8"), "{}", d.error.message);
    assert_eq!(d.offset as usize, GOOD.find("{\"t\":20").unwrap());
    assert_eq!(s.bytes as usize, bytes.len());
}

#[test]
fn an_overlong_line_is_damage_read_bounded() {
    let long = format!("{{\"t\":15,\"lift\":\"{}\"}}\n", "x".repeat(200_000));
    let text = GOOD.replacen("{\"t\":20", &format!("{long}{{\"t\":20"), 1);
    let r = read_journal(&text).unwrap().unwrap();
    assert_eq!(r.records.len(), 1);
    let d = r.damage.unwrap();
    assert!(
        d.error.message.contains("longer than"),
        "{}",
        d.error.message
    );
}

#[test]
fn a_record_without_its_newline_is_kept_and_the_newline_written_first() {
    let text = GOOD.trim_end();
    let r = read_journal(text).unwrap().unwrap();
    assert_eq!(r.records.len(), 2);
    assert!(r.needs_newline && r.torn.is_none());
    let dir = tmp("nonl");
    let p = dir.join("j.jsonl");
    std::fs::write(&p, text).unwrap();
    // GOOD names no event or round: a config that names none.
    let h = Header {
        version: 1,
        boards: vec![crate::trace::BoardId::Main],
        ..Header::default()
    };
    let (mut j, rec) = Journal::open(&p, &h, 0).unwrap();
    assert_eq!(rec.unwrap().records.len(), 2);
    j.record(&press(30)).unwrap();
    drop(j);
    let r = read_journal(&std::fs::read_to_string(&p).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(r.records.len(), 3);
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("eboard-journal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn header() -> Header {
    Header {
        version: 1,
        boards: vec![crate::trace::BoardId::Main],
        event: Some("DM".into()),
        round: Some("3.1".into()),
        ..Header::default()
    }
}

fn press(t: u64) -> Record {
    Record {
        t,
        board: crate::trace::BoardId::Main,
        kind: crate::trace::RecordKind::Press(shakmaty::Color::White),
    }
}

#[test]
fn a_damaged_journal_is_set_aside_and_resumed_up_to_the_damage() {
    let dir = tmp("damaged");
    let p = dir.join("j.jsonl");
    let h = header();
    let (mut j, _) = Journal::open(&p, &h, 7).unwrap();
    for t in [1, 2, 3] {
        j.record(&press(t)).unwrap();
        j.event(&format!("{{\"t\":{t},\"type\":\"clock\"}}"))
            .unwrap();
    }
    let id = j.game_id().unwrap().to_owned();
    drop(j);
    std::fs::write(mqtt_path(&p), "N\t0\n").unwrap();
    // Record 2 damaged in the middle.
    let text = std::fs::read_to_string(&p).unwrap();
    let damaged = text.replacen("{\"press\":\"w\",\"t\":2,", "{\"press\":\"w\",\"t", 1);
    assert_ne!(damaged, text);
    std::fs::write(&p, &damaged).unwrap();
    let (mut j, rec) = Journal::open(&p, &h, 99).unwrap();
    let rec = rec.unwrap();
    assert_eq!(rec.records, vec![press(1)]);
    assert_eq!(rec.started_at_unix_ms, Some(7));
    assert_eq!(j.game_id(), Some(id.as_str()));
    let alerts = j.take_alerts();
    let Some(Alert::Damaged {
        line,
        set_aside,
        records_kept,
        lines_set_aside,
        ..
    }) = alerts.first()
    else {
        panic!("{alerts:?}")
    };
    assert_eq!((*line, *records_kept, *lines_set_aside), (3, 1, 2));
    assert_eq!(std::fs::read_to_string(set_aside).unwrap(), damaged);
    assert!(events_path(set_aside).exists() && mqtt_path(set_aside).exists());
    assert!(
        !mqtt_path(&p).exists(),
        "the queue of the damaged stream went aside"
    );
    let v: Value = serde_json::from_str(&alerts[0].to_json(5)).unwrap();
    assert_eq!(
        (v["type"].as_str(), v["line"].as_u64()),
        (Some("journal_alert"), Some(3))
    );
    // The fresh journal holds the good part and goes on.
    j.record(&press(4)).unwrap();
    drop(j);
    let r = read_journal(&std::fs::read_to_string(&p).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(r.records, vec![press(1), press(4)]);
    assert!(r.damage.is_none());
}

#[test]
fn a_journal_of_another_game_is_refused_naming_the_file() {
    let dir = tmp("other");
    let p = dir.join("j.jsonl");
    let (mut j, _) = Journal::open(&p, &header(), 7).unwrap();
    j.record(&press(1)).unwrap();
    drop(j);
    let before = std::fs::read(&p).unwrap();
    let next_round = Header {
        round: Some("4.1".into()),
        ..header()
    };
    let e = Journal::open(&p, &next_round, 9).unwrap_err();
    assert!(e.is_other_game());
    let m = e.to_string();
    assert!(
        m.contains(&p.display().to_string()) && m.contains("round: journal \"3.1\""),
        "{m}"
    );
    assert!(check_identity(&p, &next_round).unwrap_err().is_other_game());
    check_identity(&p, &header()).unwrap();
    // Untouched.
    assert_eq!(std::fs::read(&p).unwrap(), before);
}

#[test]
fn an_empty_journal_starts_a_new_game_and_says_so() {
    let dir = tmp("empty");
    let p = dir.join("j.jsonl");
    std::fs::write(&p, "").unwrap();
    let (mut j, rec) = Journal::open(&p, &header(), 7).unwrap();
    assert!(rec.is_none());
    assert!(matches!(
        j.take_alerts()[..],
        [Alert::Empty { bytes: 0, .. }]
    ));
    drop(j);
    // Only a header: a new game too (another id).
    let first = read_journal(&std::fs::read_to_string(&p).unwrap())
        .unwrap()
        .unwrap();
    let (mut j, rec) = Journal::open(&p, &header(), 8).unwrap();
    assert!(rec.is_none());
    assert!(matches!(j.take_alerts()[..], [Alert::Empty { .. }]));
    assert_ne!(j.game_id(), first.game_id.as_deref());
    // A queue of an earlier stream goes aside (its high-water mark would
    // swallow the new game's first messages).
    std::fs::write(mqtt_path(&p), "N\t40\n").unwrap();
    std::fs::write(&p, "").unwrap();
    let _ = Journal::open(&p, &header(), 9).unwrap();
    assert!(!mqtt_path(&p).exists());
    // A missing journal is no alert.
    let (mut j, _) = Journal::open(&dir.join("new.jsonl"), &header(), 8).unwrap();
    assert!(j.take_alerts().is_empty());
}

#[test]
fn a_full_disk_loses_nothing_tears_nothing_and_alerts_once() {
    use crate::disk::{FaultPlan, FaultyFile};
    use std::sync::{Arc, Mutex};
    let dir = tmp("full");
    let p = dir.join("j.jsonl");
    let plan = Arc::new(Mutex::new(FaultPlan::default()));
    let (mut j, _) =
        Journal::open_with(&p, &header(), 7, &FaultyFile::opener(plan.clone())).unwrap();
    j.record(&press(1)).unwrap();
    let len = std::fs::metadata(&p).unwrap().len();
    // The disk fills: 10 bytes left (a short write, then ENOSPC).
    plan.lock().unwrap().space = Some(10);
    for t in 2..=5 {
        j.record(&press(t)).unwrap();
        j.retry_at(t * 1000);
    }
    assert_eq!(
        std::fs::metadata(&p).unwrap().len(),
        len,
        "no part of a record stays"
    );
    let alerts = j.take_alerts();
    assert!(
        matches!(alerts[..], [Alert::WriteFailed { waiting: 1, .. }]),
        "{alerts:?}"
    );
    assert_eq!(j.waiting(), 4);
    // The disk recovers: the retry writes them in order.
    plan.lock().unwrap().space = None;
    j.retry_at(100_000);
    assert!(matches!(
        j.take_alerts()[..],
        [Alert::WriteRecovered { written: 4, .. }]
    ));
    j.record(&press(6)).unwrap();
    drop(j);
    let r = read_journal(&std::fs::read_to_string(&p).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(r.records, (1..=6).map(press).collect::<Vec<_>>());
}

#[test]
fn a_journal_before_the_version_key_is_version_0() {
    // GOOD has no `journal.version`: written before it existed.
    assert_eq!(read_journal(GOOD).unwrap().unwrap().version, 0);
    let v1 = GOOD.replace("{\"started_at", "{\"version\":1,\"started_at");
    let r = read_journal(&v1).unwrap().unwrap();
    assert_eq!((r.version, r.records.len()), (1, 2));
    assert_eq!(r.started_at_unix_ms, Some(1_700_000_000_000));
}

#[test]
fn a_journal_of_a_newer_version_is_refused_by_name() {
    let v9 = GOOD.replace("{\"started_at", "{\"version\":9,\"started_at");
    let e = read_journal(&v9).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(
        e.message.contains("journal.version") && e.message.contains("newer"),
        "{e}"
    );
}

#[test]
fn an_empty_or_headless_journal_is_empty() {
    assert_eq!(read_journal("").unwrap(), None);
    assert_eq!(read_journal("{\"trace\":1,\"sens").unwrap(), None);
}

#[test]
fn open_append_reopen() {
    let dir = std::env::temp_dir().join(format!("eboard-journal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("j.jsonl");
    let _ = std::fs::remove_file(&p);
    let h = Header {
        version: 1,
        boards: vec![crate::trace::BoardId::Main],
        ..Header::default()
    };
    let (mut j, rec) = Journal::open(&p, &h, 42).unwrap();
    assert!(rec.is_none());
    let r = Record {
        t: 5,
        board: crate::trace::BoardId::Main,
        kind: crate::trace::RecordKind::Press(shakmaty::Color::White),
    };
    j.record(&r).unwrap();
    j.event("{\"t\":5,\"type\":\"clock\"}").unwrap();
    j.sync().unwrap();
    drop(j);
    // A torn tail.
    let mut f = OpenOptions::new().append(true).open(&p).unwrap();
    f.write_all(b"{\"t\":6,").unwrap();
    drop(f);
    let (_j, rec) = Journal::open(&p, &h, 0).unwrap();
    let rec = rec.unwrap();
    assert_eq!(rec.started_at_unix_ms, Some(42));
    assert_eq!(rec.version, JOURNAL_VERSION);
    assert_eq!(rec.records, vec![r]);
    assert!(rec.torn.is_some());
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(
        text.ends_with("}\n") && !text.contains("{\"t\":6,"),
        "{text}"
    );
    assert_eq!(last_event_t(&p), Some(5));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_finished_game_is_rotated_and_the_archive_bounded() {
    let dir = std::env::temp_dir().join(format!("eboard-rotate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cur = dir.join(CURRENT);
    let h = Header {
        version: 1,
        boards: vec![crate::trace::BoardId::Main],
        ..Header::default()
    };
    // A game in progress stays.
    let (mut j, _) = Journal::open(&cur, &h, 1_000).unwrap();
    j.event("{\"t\":5,\"type\":\"move\"}").unwrap();
    j.sync().unwrap();
    drop(j);
    assert_eq!(rotate(&dir, 2).unwrap(), None);
    assert!(cur.exists());
    assert_eq!(unconfirmed_result(&cur), None, "in progress");
    // Games that ended move to games/, the newest two kept.
    for start in [1_000u64, 2_000, 3_000] {
        if start > 1_000 {
            let (j, rec) = Journal::open(&cur, &h, start).unwrap();
            assert!(rec.is_none(), "a rotated journal starts anew");
            drop(j);
        }
        let mut f = OpenOptions::new()
            .append(true)
            .open(events_path(&cur))
            .unwrap();
        // Lines as this version writes them (sealed: the file's other
        // lines are).
        let sealed = |json: &str| crate::disk::checksum::seal_json(json) + "\n";
        f.write_all(sealed(r#"{"t":9,"type":"game_end","result":"1-0"}"#).as_bytes())
            .unwrap();
        if start == 1_000 {
            // Ended: provisional until the arbiter confirms (DSU 004 §15).
            assert_eq!(unconfirmed_result(&cur).as_deref(), Some("1-0"));
            f.write_all(sealed(r#"{"t":12,"type":"result_confirmed","result":"1-0"}"#).as_bytes())
                .unwrap();
            assert_eq!(unconfirmed_result(&cur), None, "confirmed");
        }
        drop(f);
        let to = rotate(&dir, 2).unwrap().unwrap();
        assert_eq!(to, dir.join(format!("games/game-{start:013}.jsonl")));
        assert!(!cur.exists() && !events_path(&cur).exists());
        assert!(game_ended(&to));
    }
    let mut left: Vec<_> = std::fs::read_dir(dir.join(ARCHIVE))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "game-0000000002000.jsonl",
            "game-0000000002000.jsonl.events",
            "game-0000000003000.jsonl",
            "game-0000000003000.jsonl.events"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_journal_on_a_disk_still_full_resumes_and_writes_when_it_can() {
    use crate::disk::{FaultPlan, FaultyFile};
    use std::sync::{Arc, Mutex};
    let dir = tmp("damagedfull");
    let p = dir.join("j.jsonl");
    let (mut j, _) = Journal::open(&p, &header(), 7).unwrap();
    for t in [1, 2, 3] {
        j.record(&press(t)).unwrap();
    }
    drop(j);
    let text = std::fs::read_to_string(&p).unwrap();
    let damaged = text.replacen("{\"press\":\"w\",\"t\":2,", "{\"pr", 1);
    std::fs::write(&p, &damaged).unwrap();
    let plan = Arc::new(Mutex::new(FaultPlan {
        space: Some(0),
        ..Default::default()
    }));
    let (mut j, rec) =
        Journal::open_with(&p, &header(), 9, &FaultyFile::opener(plan.clone())).unwrap();
    assert_eq!(rec.unwrap().records, vec![press(1)]);
    let kinds: Vec<&str> = j.take_alerts().iter().map(Alert::problem).collect();
    assert_eq!(kinds, ["damaged", "write_failed"]);
    assert_eq!(std::fs::metadata(&p).unwrap().len(), 0, "nothing torn");
    plan.lock().unwrap().space = None;
    j.record(&press(4)).unwrap();
    let kinds: Vec<&str> = j.take_alerts().iter().map(Alert::problem).collect();
    assert_eq!(kinds, ["write_recovered"]);
    drop(j);
    let r = read_journal(&std::fs::read_to_string(&p).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(r.records, vec![press(1), press(4)]);
    assert_eq!(r.started_at_unix_ms, Some(7));
}

#[test]
fn the_standing_counts_the_arbiters_undos() {
    let dir = tmp("standing");
    let cur = dir.join(CURRENT);
    let write = |lines: &[&str]| {
        std::fs::write(events_path(&cur), lines.join("\n") + "\n").unwrap();
        super::standing(&cur)
    };
    let forfeit = [
        r#"{"t":5,"type":"game_end","result":"1-0","reason":"forfeit"}"#,
        r#"{"t":5,"type":"result_confirmed","result":"1-0","forfeit":true}"#,
        r#"{"t":5,"type":"ruling","action":"forfeit","seq":1,"effect":"1-0 by forfeit, confirmed"}"#,
    ];
    let s = write(&forfeit);
    assert_eq!((s.result.as_deref(), s.confirmed), (Some("1-0"), true));
    // Undone: the game goes on (no end, nothing confirmed).
    let mut undone = forfeit.to_vec();
    undone.push(r#"{"t":9,"type":"ruling","action":"undo","seq":2,"effect":"ruling #1 (forfeit) undone: 1-0 (forfeit), forfeit → the game in progress"}"#);
    assert_eq!(write(&undone), Standing::default());
    assert!(!game_ended(&cur) && unconfirmed_result(&cur).is_none());
    // A board's end, confirmed, the confirmation undone: provisional.
    let confirmed = [
        r#"{"t":5,"type":"game_end","result":"1/2-1/2","reason":"agreement"}"#,
        r#"{"t":8,"type":"result_confirmed","result":"1/2-1/2"}"#,
        r#"{"t":8,"type":"ruling","action":"confirm","seq":1,"effect":"1/2-1/2 (agreement) confirmed"}"#,
        r#"{"t":9,"type":"ruling","action":"undo","seq":2,"effect":"ruling #1 (confirm) undone: the game as before it (1/2-1/2)"}"#,
    ];
    write(&confirmed);
    assert_eq!(unconfirmed_result(&cur).as_deref(), Some("1/2-1/2"));
    // An undo refused changes nothing.
    let mut refused = forfeit.to_vec();
    refused.push(r#"{"t":9,"type":"ruling_refused","action":"undo","reason":"…"}"#);
    assert!(write(&refused).confirmed);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_journal_written_before_checksums_resumes_and_goes_on_without() {
    let dir = tmp("legacy");
    let p = dir.join("j.jsonl");
    // Version 1, the header of `header()`: no line has a checksum.
    let mut h = crate::trace::header_json(&header());
    h["journal"] = serde_json::json!({"version": 1, "started_at_unix_ms": 5});
    std::fs::write(&p, format!("{h}\n{{\"t\":1,\"press\":\"w\"}}\n")).unwrap();
    let (mut j, rec) = Journal::open(&p, &header(), 9).unwrap();
    let rec = rec.unwrap();
    assert_eq!((rec.version, rec.records.len()), (1, 1));
    assert!(rec.damage.is_none() && j.take_alerts().is_empty());
    j.record(&press(2)).unwrap();
    drop(j);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(!text.contains("crc32c"), "one format a file: {text}");
    let r = read_journal(&text).unwrap().unwrap();
    assert_eq!(r.records, vec![press(1), press(2)]);
    // A new game's journal has them on every line.
    std::fs::remove_file(&p).unwrap();
    let (mut j, _) = Journal::open(&p, &header(), 9).unwrap();
    j.record(&press(1)).unwrap();
    drop(j);
    let text = std::fs::read_to_string(&p).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(text
        .lines()
        .all(|l| l.ends_with("\"}") && l.contains(",\"crc32c\":\"")));
    assert_eq!(
        read_journal(&text).unwrap().unwrap().version,
        JOURNAL_VERSION
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn events_lines_are_sealed_and_a_failing_one_is_read_as_absent() {
    let dir = tmp("events-crc");
    let p = dir.join("j.jsonl");
    let (mut j, _) = Journal::open(&p, &header(), 9).unwrap();
    j.record(&press(1)).unwrap();
    j.event(r#"{"t":5,"type":"game_end","result":"1-0"}"#)
        .unwrap();
    j.event(r#"{"t":8,"type":"result_confirmed","result":"1-0"}"#)
        .unwrap();
    drop(j);
    let ev = events_path(&p);
    let text = std::fs::read_to_string(&ev).unwrap();
    assert!(
        text.lines()
            .all(|l| crate::disk::checksum::unseal_json(l.as_bytes()).is_some()),
        "{text}"
    );
    // The readers take the key off.
    let v = last_event(&p, "game_end").unwrap();
    assert!(v.get("crc32c").is_none(), "{v}");
    assert_eq!(
        standing(&p),
        Standing {
            result: Some("1-0".into()),
            confirmed: true,
            damaged: 0
        }
    );
    // A changed digit in the confirmation: damage, not read; the result
    // not confirmed, the game not taken as ended (never archived on it).
    std::fs::write(&ev, text.replace("\"t\":8", "\"t\":9")).unwrap();
    let s = standing(&p);
    assert_eq!(
        (s.result.as_deref(), s.confirmed, s.damaged),
        (Some("1-0"), false, 1)
    );
    assert!(!game_ended(&p));
    assert_eq!(events_read(&p).damaged, vec![2]);
    assert_eq!(last_event_t(&p), Some(5));
    // An events file written before checksums: read as it is.
    std::fs::write(&ev, "{\"t\":5,\"type\":\"game_end\",\"result\":\"0-1\"}\n").unwrap();
    assert_eq!(unconfirmed_result(&p).as_deref(), Some("0-1"));
    assert!(events_read(&p).unsealed && game_ended(&p));
    // Resumed, its new lines go on without (one format a file).
    let (mut j, _) = Journal::open(&p, &header(), 9).unwrap();
    j.event(r#"{"t":7,"type":"result_confirmed","result":"0-1"}"#)
        .unwrap();
    drop(j);
    assert!(!std::fs::read_to_string(&ev).unwrap().contains("crc32c"));
    assert!(standing(&p).confirmed);
    std::fs::remove_dir_all(&dir).ok();
}
