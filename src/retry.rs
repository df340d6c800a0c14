//! Retrying the uplinks: one backoff policy ([`Backoff`]) and one rule for
//! what an outage says in the log ([`Outage`]), shared by the four loops
//! that reach another machine: the MQTT uplink ([`crate::mqtt::publish`]),
//! the MQTT relay ([`crate::mqtt::relay`]), the lichess push
//! ([`crate::broadcast::lichess_push`]) and the HTTP relay's event-stream
//! reconnect ([`crate::broadcast::relay`]).
//!
//! Neither sleeps nor reads a clock: a loop asks [`Backoff::next_wait`] how
//! long to wait and waits with its own timer (`tokio::time::sleep`), so the
//! policy is tested without time passing ([`Backoff::next_wait_with`] takes
//! the random draw as an argument, [`Backoff::seeded`] draws from a seeded
//! generator so a whole retry sequence is reproducible).
//!
//! Depends on nothing of the product: it is at the bottom of
//! docs/dev/architecture.md's map. It must not depend on `mqtt` or
//! `broadcast` (whose loops use it), on `config` or on any other module.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// Exponential backoff with a cap and jitter: the first wait is `min`, each
/// further one twice the one before, at most `max`; a success
/// ([`Backoff::reset`]) starts again from `min`.
///
/// Jitter spreads the reconnections of many boards after a broker or
/// network outage: each wait is shortened by a random part of at most
/// `jitter` of it, so it lies in `(1 − jitter) × base ..= base`. A wait is
/// therefore never longer than the un-jittered one (nor than `max`), and
/// never shorter than `(1 − jitter) × min`.
#[derive(Debug, Clone, PartialEq)]
pub struct Backoff {
    min: Duration,
    max: Duration,
    jitter: f64,
    /// The un-jittered wait the next failure gets.
    next: Duration,
    /// The draws of the jitter when seeded ([`Backoff::seeded`]); else the
    /// thread's generator.
    rng: Option<ChaCha8Rng>,
}

/// The jitter of [`Backoff::new`]: waits are 75–100 % of the doubling base.
pub const DEFAULT_JITTER: f64 = 0.25;

impl Backoff {
    /// Waits from `min` doubling up to `max` (`max` below `min` is taken as
    /// `min`), with [`DEFAULT_JITTER`].
    pub fn new(min: Duration, max: Duration) -> Backoff {
        Backoff {
            min,
            max: max.max(min),
            jitter: DEFAULT_JITTER,
            next: min,
            rng: None,
        }
    }

    /// The same with the jitter drawn from a generator seeded with `seed`
    /// (tests: the same seed gives the same waits), not the thread's.
    pub fn seeded(mut self, seed: u64) -> Backoff {
        self.rng = Some(ChaCha8Rng::seed_from_u64(seed));
        self
    }

    /// The same with `fraction` of jitter (clamped to 0.0..=1.0; 0: none).
    pub fn with_jitter(mut self, fraction: f64) -> Backoff {
        self.jitter = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self
    }

    /// The wait before the next attempt, after a failure (jittered by a
    /// random draw); the one after it doubles, up to the cap.
    pub fn next_wait(&mut self) -> Duration {
        let unit = match &mut self.rng {
            Some(r) => r.random::<f64>(),
            None => rand::random::<f64>(),
        };
        self.next_wait_with(unit)
    }

    /// [`Backoff::next_wait`] with the random draw given: `unit` in
    /// `0.0..1.0` (outside it is clamped) takes that part of the jitter off.
    pub fn next_wait_with(&mut self, unit: f64) -> Duration {
        let base = self.next;
        self.next = base.saturating_mul(2).min(self.max);
        let unit = if unit.is_finite() {
            unit.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let factor = 1.0 - self.jitter * unit;
        Duration::try_from_secs_f64(base.as_secs_f64() * factor).map_or(base, |w| w.min(base))
    }

    /// A success: the next failure waits `min` again.
    pub fn reset(&mut self) {
        self.next = self.min;
    }

    /// The un-jittered wait the next failure gets.
    pub fn base(&self) -> Duration {
        self.next
    }
}

/// What an outage says in the log: a failure once (again only when the
/// reason changes, not at every retry), and its end once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outage {
    reported: Option<String>,
}

impl Outage {
    /// An attempt failed for `why`: true when that is news to report (the
    /// first failure, or a different reason than the one last reported).
    pub fn failed(&mut self, why: &str) -> bool {
        if self.reported.as_deref() == Some(why) {
            return false;
        }
        self.reported = Some(why.to_owned());
        true
    }

    /// An attempt succeeded: true when a failure had been reported (so the
    /// recovery is worth reporting too).
    pub fn recovered(&mut self) -> bool {
        self.reported.take().is_some()
    }

    /// The failure last reported, while the outage lasts.
    pub fn reason(&self) -> Option<&str> {
        self.reported.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn doubles_up_to_the_cap_and_resets() {
        let mut b = Backoff::new(MS(100), MS(1000)).with_jitter(0.0);
        let waits: Vec<_> = (0..7).map(|_| b.next_wait()).collect();
        assert_eq!(
            waits,
            [100, 200, 400, 800, 1000, 1000, 1000].map(MS),
            "doubling, capped"
        );
        b.reset();
        assert_eq!(b.next_wait(), MS(100));
        assert_eq!(b.base(), MS(200));
    }

    #[test]
    fn jitter_only_shortens_within_its_fraction() {
        let mut b = Backoff::new(MS(1000), MS(4000)).with_jitter(0.25);
        assert_eq!(b.next_wait_with(0.0), MS(1000), "no draw, no jitter");
        assert_eq!(b.next_wait_with(0.5), MS(1750), "2000 less 12.5 %");
        assert_eq!(b.next_wait_with(1.0), MS(3000), "4000 less 25 %");
        assert_eq!(b.next_wait_with(7.0), MS(3000), "draw clamped");
        assert_eq!(b.next_wait_with(f64::NAN), MS(4000), "a NaN draw: none");
        // Random draws stay in (1 − jitter) × base ..= base.
        let mut b = Backoff::new(MS(100), MS(100_000));
        for i in 0..40 {
            let base = b.base();
            let w = b.next_wait();
            assert!(
                w <= base && w >= base.mul_f64(0.75),
                "#{i}: {w:?} of {base:?}"
            );
        }
    }

    #[test]
    fn a_seeded_backoff_repeats_its_waits_and_they_differ() {
        let waits = |seed| {
            let mut b = Backoff::new(MS(1000), MS(60_000)).seeded(seed);
            (0..8).map(|_| b.next_wait()).collect::<Vec<_>>()
        };
        assert_eq!(waits(7), waits(7), "the same seed, the same waits");
        // A hundred boards recovering together do not retry in step.
        let firsts: std::collections::BTreeSet<_> = (0..100).map(|s| waits(s)[0]).collect();
        assert!(firsts.len() > 90, "{} distinct first waits", firsts.len());
        for w in waits(3) {
            assert!(w <= MS(60_000));
        }
        assert!(waits(3)[0] >= MS(750) && waits(3)[0] <= MS(1000));
    }

    #[test]
    fn odd_settings_are_tamed() {
        let mut b = Backoff::new(MS(500), MS(10)).with_jitter(f64::INFINITY);
        assert_eq!(
            (b.next_wait_with(0.9), b.next_wait_with(0.9)),
            (MS(500), MS(500))
        );
        let mut b = Backoff::new(Duration::MAX, Duration::MAX).with_jitter(-1.0);
        assert_eq!(b.next_wait(), Duration::MAX, "no overflow");
        assert_eq!(b.next_wait(), Duration::MAX);
        let mut b = Backoff::new(MS(100), MS(800)).with_jitter(2.0);
        assert_eq!(
            b.next_wait_with(1.0),
            Duration::ZERO,
            "jitter at most 100 %"
        );
    }

    #[test]
    fn an_outage_is_reported_once_per_reason() {
        let mut o = Outage::default();
        assert!(!o.recovered(), "nothing to recover from");
        assert!(o.failed("refused"));
        assert!(!o.failed("refused"), "the same reason again: quiet");
        assert!(o.failed("timed out"), "a new reason is news");
        assert_eq!(o.reason(), Some("timed out"));
        assert!(o.recovered());
        assert!(!o.recovered(), "once");
        assert!(o.failed("timed out"), "a new outage is news again");
    }
}
