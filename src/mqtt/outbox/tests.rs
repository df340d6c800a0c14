//! The MQTT queue's unit tests.

use super::*;
use std::fs::OpenOptions;

fn entry(n: u64) -> Entry {
    Entry {
        events: format!("{{\"seq\":{n}}}"),
        snapshot: n.is_multiple_of(2).then(|| format!("{{\"s\":{n}}}")),
    }
}

#[test]
fn survives_a_restart_without_loss_or_duplicates() {
    let dir = std::env::temp_dir().join(format!("eboard-outbox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("j.mqtt");
    let _ = std::fs::remove_file(&p);
    let mut o = Outbox::open(&p).unwrap();
    o.append((1..=5).map(|n| (n, entry(n))).collect()).unwrap();
    o.ack(1).unwrap();
    o.ack(3).unwrap();
    drop(o);
    // A torn last line from a crash mid-write.
    let mut f = OpenOptions::new().append(true).open(&p).unwrap();
    f.write_all(b"E\t6\t{\"seq\":").unwrap();
    drop(f);
    let o = Outbox::open(&p).unwrap();
    assert_eq!(o.last_seq(), 5);
    let left: Vec<u64> = std::iter::successors(o.next_from(0), |(s, _)| o.next_from(s + 1))
        .map(|(s, _)| s)
        .collect();
    assert_eq!(left, [2, 4, 5]);
    assert_eq!(o.next_from(4).unwrap().1, &entry(4));
    let mut o = o;
    for s in [2, 4, 5] {
        o.ack(s).unwrap();
    }
    drop(o);
    let o = Outbox::open(&p).unwrap();
    assert_eq!((o.last_seq(), o.pending()), (5, 0));
    std::fs::remove_dir_all(&dir).ok();
}

fn queue_of(dir: &str, n: u64) -> (PathBuf, String) {
    let d = std::env::temp_dir().join(format!("eboard-outbox-{dir}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("j.mqtt");
    let mut o = Outbox::open(&p).unwrap();
    o.append((1..=n).map(|s| (s, entry(s))).collect()).unwrap();
    drop(o);
    let text = std::fs::read_to_string(&p).unwrap();
    (p, text)
}

fn pending(o: &Outbox) -> Vec<u64> {
    std::iter::successors(o.next_from(0), |(s, _)| o.next_from(s + 1))
        .map(|(s, _)| s)
        .collect()
}

#[test]
fn a_line_cut_in_the_middle_is_detected_and_queued_again() {
    // Message 100 of 344 cut short (its tail and newline lost): the
    // next record follows on the same line.
    let (p, text) = queue_of("cut", 344);
    let whole = line(100, &entry(100));
    let cut = &whole[..whole.len() / 2];
    std::fs::write(&p, text.replacen(&whole, cut, 1)).unwrap();
    let mut o = Outbox::open(&p).unwrap();
    assert_eq!(o.lost().iter().copied().collect::<Vec<_>>(), [100]);
    let left = pending(&o);
    assert_eq!(left.len(), 343, "message 101 read from the cut line");
    assert!(!left.contains(&100) && left.contains(&101));
    // The journal's replay regenerates it: queued again, on the file.
    o.requeue(100, entry(100)).unwrap();
    assert!(o.lost().is_empty());
    drop(o);
    let o = Outbox::open(&p).unwrap();
    assert_eq!(pending(&o), (1..=344).collect::<Vec<_>>());
}

#[test]
fn a_cut_line_of_unknown_number_queues_its_neighbours_gap_again() {
    let (p, text) = queue_of("unknown", 20);
    // Message 7's line cut in its number (`E\t`): a gap among numbers
    // that follow each other.
    let whole = line(7, &entry(7));
    std::fs::write(&p, text.replacen(&whole, "E\t\n", 1)).unwrap();
    let o = Outbox::open(&p).unwrap();
    assert_eq!(o.lost().iter().copied().collect::<Vec<_>>(), [7]);
    // After compaction (7 below the high-water mark), cut again: the
    // numbers between its neighbours are queued again.
    drop(o);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.starts_with("N\t20\tcrc32c="), "{text}");
    let whole = line(9, &entry(9));
    std::fs::write(&p, text.replacen(&whole, "E\t9", 1)).unwrap();
    let o = Outbox::open(&p).unwrap();
    assert_eq!(o.lost().iter().copied().collect::<Vec<_>>(), [9]);
    std::fs::write(
        &p,
        std::fs::read_to_string(&p)
            .unwrap()
            .replacen(&line(10, &entry(10)), "E\t1", 1),
    )
    .unwrap();
    let o = Outbox::open(&p).unwrap();
    // 10 cut to "E\t1": its number unknown; 7 and 9 (never requeued,
    // not on the file any more below the mark) are not claimed again,
    // 10 is (between 8 and 11).
    assert!(o.lost().contains(&10), "{:?}", o.lost());
}

#[test]
fn an_injected_enospc_keeps_the_messages_and_tears_no_line() {
    use crate::disk::{Fault, FaultPlan, FaultyFile};
    use std::sync::{Arc, Mutex};
    let d = std::env::temp_dir().join(format!("eboard-outbox-enospc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("j.mqtt");
    let plan = Arc::new(Mutex::new(FaultPlan {
        at: vec![(1, Fault::Short(7)), (2, Fault::NoSpace)],
        ..Default::default()
    }));
    let mut o = Outbox::open_with(&p, FaultyFile::opener(plan.clone())).unwrap();
    o.append(vec![(1, entry(1))]).unwrap();
    let e = o.append(vec![(2, entry(2)), (3, entry(3))]).unwrap_err();
    assert!(e.contains("No space") || e.contains("short"), "{e}");
    // Nothing torn on the file; all three in memory.
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.ends_with('\n') && !text.contains("\t2\t"), "{text}");
    assert_eq!(o.pending(), 3);
    o.append(vec![(4, entry(4))]).unwrap();
    drop(o);
    let o = Outbox::open(&p).unwrap();
    assert_eq!(pending(&o), [1, 2, 3, 4]);
}

/// A changed byte in any line of the queue (issue 41 §1): never a message
/// sent with other content, never one dropped unsaid. Each line, one byte
/// changed (a digit of its payload, its middle, its checksum), the queue
/// reopened: every message it gives is the one queued, and every message
/// pending before is pending still, or claimed lost, or above the queue's
/// last number (both queued again from the journal's replay).
#[test]
fn a_changed_byte_in_any_queue_line_never_sends_another_message() {
    let (p, _) = queue_of("flip", 30);
    let mut o = Outbox::open(&p).unwrap();
    for s in [3, 4, 10, 22] {
        o.ack(s).unwrap();
    }
    drop(o);
    let bytes = std::fs::read(&p).unwrap();
    let before = pending(&Outbox::open(&p).unwrap());
    std::fs::write(&p, &bytes).unwrap();
    let mut start = 0;
    let mut changes = 0;
    for end in (0..bytes.len()).filter(|&i| bytes[i] == b'\n') {
        let l = &bytes[start..end];
        let digit = l.iter().position(|b| b.is_ascii_digit()).map(|i| start + i);
        let payload = l.iter().rposition(|b| b.is_ascii_digit() && *b != b'0');
        for pos in [
            digit,
            payload.map(|i| start + i),
            Some((start + end) / 2),
            Some(end - 2),
        ]
        .into_iter()
        .flatten()
        {
            let mut b = bytes.clone();
            b[pos] ^= 0x01;
            std::fs::write(&p, &b).unwrap();
            let o = Outbox::open(&p).unwrap();
            for (s, e) in std::iter::successors(o.next_from(0), |(s, _)| o.next_from(s + 1)) {
                assert_eq!(e, &entry(s), "byte {pos}: message {s} changed");
            }
            for s in &before {
                assert!(
                    o.next_from(*s).is_some_and(|(n, _)| n == *s)
                        || o.lost().contains(s)
                        || *s > o.last_seq(),
                    "byte {pos}: message {s} dropped unsaid"
                );
            }
            changes += 1;
        }
        start = end + 1;
    }
    assert!(changes > 100, "{changes}");
}
