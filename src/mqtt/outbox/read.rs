//! Reading the queue file back, bounded, telling whole lines from cut ones.

use super::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;

/// One line of the queue file, parsed whole.
#[derive(Debug, PartialEq)]
pub(super) enum QLine {
    E(u64, Entry),
    A(u64),
    N(u64),
}

/// Parses a whole queue line (without its newline); `None`: cut or damaged.
pub(super) fn parse_line(line: &[u8]) -> Option<QLine> {
    let line = std::str::from_utf8(line).ok()?;
    let mut parts = line.splitn(4, '\t');
    let kind = parts.next()?;
    let seq_text = parts.next()?;
    if seq_text.is_empty() || !seq_text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seq = seq_text.parse::<u64>().ok()?;
    let json_ok =
        |s: &str| serde_json::from_str::<serde_json::Value>(s).is_ok_and(|v| v.is_object());
    match (kind, parts.next(), parts.next()) {
        ("E", Some(events), Some(snap))
            if json_ok(events) && (snap.is_empty() || json_ok(snap)) =>
        {
            Some(QLine::E(
                seq,
                Entry {
                    events: events.to_owned(),
                    snapshot: (!snap.is_empty()).then(|| snap.to_owned()),
                },
            ))
        }
        ("A", None, None) => Some(QLine::A(seq)),
        ("N", None, None) => Some(QLine::N(seq)),
        _ => None,
    }
}

/// What the lines read so far say.
#[derive(Default)]
pub(super) struct ReadState {
    pub(super) entries: BTreeMap<u64, Entry>,
    pub(super) last_seq: u64,
    pub(super) high_water: u64,
    pub(super) acked: BTreeSet<u64>,
    pub(super) lost: BTreeSet<u64>,
    pub(super) prev_e: u64,
}

/// Takes in one whole line.
pub(super) fn take(q: QLine, st: &mut ReadState) {
    match q {
        QLine::E(seq, e) => {
            st.last_seq = st.last_seq.max(seq);
            st.prev_e = st.prev_e.max(seq);
            st.lost.remove(&seq);
            st.entries.insert(seq, e);
        }
        QLine::A(seq) => {
            st.acked.insert(seq);
            st.entries.remove(&seq);
        }
        QLine::N(seq) => {
            st.last_seq = st.last_seq.max(seq);
            st.high_water = st.high_water.max(seq);
        }
    }
}

/// The sequence number a cut `E` line still shows (`E\t<seq>\t…`).
pub(super) fn cut_seq(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"E\t")?;
    let end = rest.iter().position(|b| *b == b'\t')?;
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

/// A whole record that follows a cut one on the same line (the cut one's
/// newline lost): the last `E\t`/`A\t` from which the rest parses.
pub(super) fn trailing_record(line: &[u8]) -> Option<QLine> {
    (1..line.len())
        .rev()
        .filter(|&i| matches!(&line[i..], [b'E' | b'A', b'\t', ..]))
        .find_map(|i| parse_line(&line[i..]))
}

/// [`trailing_record`] in a file with checksums: the record from there on
/// only when its own checksum is good.
pub(super) fn trailing_sealed(line: &[u8]) -> Option<QLine> {
    (1..line.len())
        .rev()
        .filter(|&i| matches!(&line[i..], [b'E' | b'A', b'\t', ..]))
        .find_map(|i| parse_line(crate::disk::checksum::unseal_text(&line[i..])?))
}

/// Reads the lines of `input`, each at most `max` bytes (a longer one is
/// returned cut to `max`, flagged), with whether it ended with a newline.
pub(super) fn bounded_lines<R: BufRead>(
    mut input: R,
    max: usize,
    mut f: impl FnMut(&[u8], bool, bool),
) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let mut over = false;
        let newline = loop {
            let (used, nl) = {
                let avail = match input.fill_buf() {
                    Ok(b) => b,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => &[][..],
                };
                if avail.is_empty() {
                    break false;
                }
                let end = avail.iter().position(|&b| b == b'\n');
                let take = end.unwrap_or(avail.len());
                let room = max.saturating_sub(buf.len());
                over |= take > room;
                buf.extend_from_slice(&avail[..take.min(room)]);
                (end.map_or(take, |e| e + 1), end.is_some())
            };
            input.consume(used);
            if nl {
                break true;
            }
        };
        if buf.is_empty() && !newline && !over {
            return;
        }
        f(&buf, newline, over);
        if !newline {
            return;
        }
    }
}
