//! Which times of a DGT clock can be real, checked before the lever of the
//! same message is read: a garbled `BWTIME` whose digits still decode must
//! not register a clock press.
//!
//! Source: PicoChess (`JohanSjoblom/picochess`, `dgt/board.py`,
//! `_process_board_message`, `DGT_MSG_BWTIME`): a message with a time
//! *higher* than the last one is "strange" and its lever is not read; one
//! more than an hour higher is ignored altogether; the first reference is
//! 10 h, more than the clock shows. eboard differs in three points, each
//! to keep a press from a garbled message out while letting real changes
//! in:
//!
//! - a rise up to the times eboard itself sent (`SETNRUN`, e.g. after an
//!   increment or an arbiter's correction) is expected, not strange;
//! - a fall of more than an hour in one message (not explained by a
//!   `SETNRUN`) is strange too;
//! - a strange message is held; when the next message agrees with it (no
//!   rise over it, no fall over an hour), the clock really changed (its own
//!   buttons, a set-up eboard did not send) and both are taken, the second
//!   with its lever. A single garbled message is never taken.

/// The most a clock side may fall between two messages, ms.
pub const MAX_FALL_MS: u64 = 3_600_000;
/// The slack on a rise, ms (the clock shows whole seconds, eboard sends
/// them rounded up).
pub const SLACK_MS: u64 = 1_000;

/// The times last taken and the times last sent, per side (left, right).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimeFilter {
    taken: Option<(u64, u64)>,
    sent: Option<(u64, u64)>,
    held: Option<(u64, u64)>,
}

fn side_ok(new: u64, taken: u64, sent: Option<u64>) -> Result<(), String> {
    let ceiling = sent.map_or(taken, |s| s.max(taken)) + SLACK_MS;
    if new > ceiling {
        return Err(format!(
            "{new} ms after {taken} ms: a clock's time never goes up"
        ));
    }
    let fall_from = match sent {
        // After a SETNRUN the clock may show anything from its old times
        // down to what was sent: the fall counts from the nearer.
        Some(s) if s < taken => s,
        _ => taken,
    };
    if fall_from.saturating_sub(new) > MAX_FALL_MS {
        return Err(format!(
            "{new} ms after {taken} ms: a fall of more than an hour in one message"
        ));
    }
    Ok(())
}

impl TimeFilter {
    /// A `SETNRUN` was sent: the clock may show up to these times (ms).
    pub fn sent(&mut self, left_ms: u64, right_ms: u64) {
        self.sent = Some((left_ms, right_ms));
    }

    /// Whether the times of a message (ms) can be real; `Err` says why not
    /// (the message is then held, see the module docs).
    pub fn check(&mut self, left_ms: u64, right_ms: u64) -> Result<(), String> {
        let new = (left_ms, right_ms);
        let Some(taken) = self.taken else {
            self.take(new);
            return Ok(());
        };
        let verdict = side_ok(left_ms, taken.0, self.sent.map(|s| s.0))
            .and_then(|()| side_ok(right_ms, taken.1, self.sent.map(|s| s.1)));
        match verdict {
            Ok(()) => {
                self.take(new);
                Ok(())
            }
            Err(why) => {
                let agrees = self.held.is_some_and(|h| {
                    side_ok(left_ms, h.0, None).is_ok() && side_ok(right_ms, h.1, None).is_ok()
                });
                if agrees {
                    self.take(new);
                    return Ok(());
                }
                self.held = Some(new);
                Err(why)
            }
        }
    }

    fn take(&mut self, new: (u64, u64)) {
        self.taken = Some(new);
        self.held = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: u64 = 3_600_000;
    const M: u64 = 60_000;

    #[test]
    fn rises_and_big_falls_are_refused_once() {
        let mut f = TimeFilter::default();
        assert!(
            f.check(90 * M, 90 * M).is_ok(),
            "the first is the reference"
        );
        assert!(f.check(90 * M - 1000, 90 * M).is_ok(), "running down");
        let e = f.check(90 * M, 7 * H).unwrap_err();
        assert!(e.contains("never goes up"), "{e}");
        assert!(
            f.check(89 * M, 90 * M).is_ok(),
            "the garbled one is not taken"
        );
        assert!(f.check(89 * M, 90 * M + 15 * M).is_err(), "a 15 min rise");
        assert!(f.check(89 * M, 10 * M).is_err(), "a fall of 80 min");
        assert!(f.check(89 * M, 90 * M).is_ok());
    }

    #[test]
    fn what_eboard_sent_may_rise_and_a_repeated_change_is_real() {
        let mut f = TimeFilter::default();
        f.check(5 * M, 5 * M).unwrap();
        f.sent(90 * M + 29_000, 90 * M);
        assert!(f.check(90 * M + 29_000, 90 * M).is_ok(), "SETNRUN's times");
        assert!(f.check(90 * M + 30_500, 90 * M).is_err(), "above them");
        // The arbiter sets the clock by its own buttons: +30 min, seen twice.
        let mut f = TimeFilter::default();
        f.check(60 * M, 60 * M).unwrap();
        assert!(f.check(90 * M, 60 * M).is_err());
        assert!(
            f.check(90 * M - 1000, 60 * M).is_ok(),
            "agrees with the held one"
        );
        assert!(f.check(90 * M - 2000, 60 * M).is_ok());
        // SETNRUN lowering a side by 2 h (a correction) is no garbled fall.
        f.sent(90 * M, 0);
        assert!(f.check(90 * M, 0).is_ok());
    }
}
