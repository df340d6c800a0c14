//! Occupancy frames from lift/place records: the whole board as a scanner
//! reads it (`frame` records of the trace format, squares a1=0 as bits).

use super::record;
use crate::trace::{Record, RecordKind};
use shakmaty::Square;

/// Replaces lift/place records by full occupancy frames: one frame at t = 0
/// with `initial`, then one after every change (a scanner faster than any
/// hand sees each lift and placement on its own, even when the compressed
/// timing of a fast game puts several at the same millisecond). Other
/// records keep their place.
pub(super) fn to_frames(records: Vec<Record>, initial: u64) -> Vec<Record> {
    let mut out = Vec::with_capacity(records.len() + 1);
    out.push(record(0, RecordKind::Frame(initial)));
    let mut occ = initial;
    for r in records {
        let bit = |sq: Square| 1u64 << u32::from(sq);
        match r.kind {
            RecordKind::Lift(sq) => occ &= !bit(sq),
            RecordKind::Place { square, .. } => occ |= bit(square),
            _ => {
                out.push(r);
                continue;
            }
        }
        out.push(record(r.t, RecordKind::Frame(occ)));
    }
    out
}

/// A slow scanner over a frames trace: the board is read every `scan_ms`
/// ms (instants `0, scan_ms, 2·scan_ms, …`) and when a non-sensor record
/// (a press, a claim, …) arrives, as the daemon reads the board before it
/// decides. Each read that differs from the previous one becomes one frame
/// at the read's time, so a lift and a placement inside one interval are
/// merged (a capture's target square may never read empty). Frames within
/// an interval are replaced by the state at its end; other records keep
/// their place. `scan_ms = 0` returns the records unchanged.
pub fn sample_frames(records: Vec<Record>, scan_ms: u64) -> Vec<Record> {
    if scan_ms == 0 {
        return records;
    }
    let mut out = Vec::with_capacity(records.len());
    // The state as the hardware has it, and as last read.
    let mut state: Option<u64> = None;
    let mut shown: Option<u64> = None;
    let mut next_read = 0u64;
    let read = |t: u64, state: Option<u64>, shown: &mut Option<u64>, out: &mut Vec<Record>| {
        if let Some(s) = state {
            if *shown != Some(s) {
                *shown = Some(s);
                out.push(record(t, RecordKind::Frame(s)));
            }
        }
    };
    for r in records {
        // The reads due before this record.
        while next_read < r.t && state.is_some() {
            read(next_read, state, &mut shown, &mut out);
            next_read += scan_ms;
        }
        if next_read < r.t {
            next_read = r.t.div_ceil(scan_ms) * scan_ms;
        }
        match r.kind {
            RecordKind::Frame(bits) => {
                state = Some(bits);
                // The scanner's first read is the board before any hand.
                if shown.is_none() {
                    read(r.t, state, &mut shown, &mut out);
                    next_read = r.t + scan_ms;
                }
            }
            _ => {
                read(r.t, state, &mut shown, &mut out);
                out.push(r);
            }
        }
    }
    // The read after the last change.
    let last_t = out.last().map_or(0, |r| r.t);
    while next_read < last_t {
        next_read += scan_ms;
    }
    read(next_read, state, &mut shown, &mut out);
    out
}
