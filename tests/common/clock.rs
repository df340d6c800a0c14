//! The independent clock model the clock tests compare eboard with.

/// A Fischer clock, independently of eboard: both sides start at
/// `start_ms` (the base for the online style, base + increment for a FIDE
/// event's clock), each press charges the time since the previous press
/// (trace time, ms) and adds `inc_ms`. `presses` are `(t, white)` in order;
/// returns (white, black) remaining after each press, ms.
pub fn fischer(start_ms: i64, inc_ms: i64, presses: &[(u64, bool)]) -> Vec<(i64, i64)> {
    let (mut w, mut b) = (start_ms, start_ms);
    let mut last = 0u64;
    let mut out = Vec::new();
    for &(t, white) in presses {
        let used = (t - last) as i64;
        last = t;
        if white {
            w += inc_ms - used;
        } else {
            b += inc_ms - used;
        }
        out.push((w, b));
    }
    out
}
