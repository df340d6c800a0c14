//! When the MQTT relay asks the broker again for the boards' retained
//! messages ([`super::relay`]): a broker drops QoS 1 messages for a
//! subscriber whose queue is full (mosquitto's `max_queued_messages`, 1000
//! by default), e.g. when a hundred boards resend what they queued during
//! the broker's outage at once. A message lost so at the end of a board's
//! stream (its game's end, its result) leaves no gap that a later message
//! would show, and nothing of that board comes after it: the relay would
//! show the game running for good. The boards' retained snapshots hold
//! their latest state, and a SUBSCRIBE to the same filters has the broker
//! send them again without interrupting the flow (MQTT 3.1.1 §3.8.4:
//! "Any existing retained messages matching the Topic Filter MUST be
//! re-sent, but the flow of publications MUST NOT be interrupted").
//!
//! The relay subscribes again [`REFRESH_AFTER`] after each connection and
//! after each gap it had to skip (messages lost), the waits doubling, so
//! that one of them comes after the burst that overflowed the queue; a
//! consumer takes what it had already once (a snapshot by its sequence
//! number).

use std::time::Duration;
use tokio::time::Instant;

/// The waits between the subscriptions made again, from the moment
/// [`Refresh::arm`] is called (2 s, then 4 s, … : the last one about 2
/// minutes after it).
pub const REFRESH_AFTER: [Duration; 6] = [
    Duration::from_secs(2),
    Duration::from_secs(4),
    Duration::from_secs(8),
    Duration::from_secs(16),
    Duration::from_secs(32),
    Duration::from_secs(64),
];

/// The schedule of the subscriptions made again.
#[derive(Debug, Default)]
pub struct Refresh {
    /// The next one and its index in [`REFRESH_AFTER`]; `None`: none due.
    next: Option<(Instant, usize)>,
}

impl Refresh {
    /// Starts the schedule anew at `now` (a connection made).
    pub fn start(&mut self, now: Instant) {
        self.next = Some((now + REFRESH_AFTER[0], 0));
    }

    /// Starts the schedule at `now` (messages found missing); a schedule
    /// under way goes on as it is.
    pub fn arm(&mut self, now: Instant) {
        if self.next.is_none() {
            self.next = Some((now + REFRESH_AFTER[0], 0));
        }
    }

    /// Whether a subscription is to be made again at `now` (then the next
    /// one is scheduled, if any is left).
    pub fn due(&mut self, now: Instant) -> bool {
        match self.next {
            Some((at, i)) if at <= now => {
                self.next = REFRESH_AFTER.get(i + 1).map(|d| (now + *d, i + 1));
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_then_stops_and_starts_again_when_armed() {
        let t0 = Instant::now();
        let mut r = Refresh::default();
        assert!(!r.due(t0 + Duration::from_secs(999)), "not armed");
        r.arm(t0);
        assert!(!r.due(t0 + Duration::from_millis(1999)));
        let mut t = t0;
        for d in REFRESH_AFTER {
            // Armed again meanwhile: the schedule goes on as it is.
            r.arm(t);
            t += d;
            assert!(!r.due(t - Duration::from_millis(1)));
            assert!(r.due(t), "due {d:?} after the one before");
        }
        assert!(!r.due(t + Duration::from_secs(999)), "the schedule is over");
        r.arm(t);
        assert!(r.due(t + REFRESH_AFTER[0]), "armed again");
        // A connection starts it anew.
        let t = t + REFRESH_AFTER[0];
        assert!(!r.due(t + REFRESH_AFTER[1] - Duration::from_millis(1)));
        r.start(t);
        assert!(!r.due(t + REFRESH_AFTER[0] - Duration::from_millis(1)));
        assert!(r.due(t + REFRESH_AFTER[0]));
    }
}
