//! A game feed behind the delay.

use super::*;
use crate::broadcast::public::Update;
use crate::broadcast::settle::Settler;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// A public release waiting for the journal ([`Feed::journal_releases`]):
/// the delay line is about to show the public an update whose release time
/// is `t` (ms of round time: the update's own time plus the delay; only
/// with a delay), and waits until the journal holds a time at least that
/// late (`journaled` answered, or dropped). A restart whose downtime cannot
/// be measured goes on from the journal's last time (`app::downtime`): so
/// its delay line never withholds again what the public already had.
#[derive(Debug)]
pub struct Release {
    /// The round time (ms) of the release.
    pub t: u64,
    /// Answered once the journal holds `t`.
    pub journaled: oneshot::Sender<()>,
}

/// Where the delay line asks for its releases to be journaled.
type Releases = Arc<std::sync::Mutex<Option<mpsc::UnboundedSender<Release>>>>;

/// The arbiter's channel and the public one, with the delay line between
/// the board loop and the public.
#[derive(Debug)]
pub struct Feed {
    /// Undelayed: every event, for the arbiter.
    pub arbiter: Arc<Channel>,
    /// Delayed: the public feeds.
    pub public: Arc<Channel>,
    queue: mpsc::UnboundedSender<Update>,
    tap: Option<mpsc::UnboundedSender<Update>>,
    releases: Releases,
}

impl Feed {
    /// A feed whose public side trails by `delay_ms` of round time; `now`
    /// gives the round time (ms) and `speed` round ms per wall ms. The
    /// delay task runs on `rt`.
    pub fn start(
        rt: &tokio::runtime::Handle,
        delay_ms: u64,
        now: Arc<dyn Fn() -> u64 + Send + Sync>,
        speed: f64,
    ) -> Feed {
        Feed::start_tapped(rt, delay_ms, now, speed, None)
    }

    /// [`Feed::start`], and every update the public gets, when it gets it,
    /// also goes to `tap` (an uplink: MQTT), in order.
    pub fn start_tapped(
        rt: &tokio::runtime::Handle,
        delay_ms: u64,
        now: Arc<dyn Fn() -> u64 + Send + Sync>,
        speed: f64,
        tap: Option<mpsc::UnboundedSender<Update>>,
    ) -> Feed {
        let (queue, rx) = mpsc::unbounded_channel();
        let public = Arc::new(Channel::new());
        let releases = Releases::default();
        rt.spawn(run_delay(
            rx,
            public.clone(),
            delay_ms,
            now,
            speed,
            tap.clone(),
            releases.clone(),
        ));
        Feed {
            arbiter: Arc::new(Channel::with_backlog()),
            public,
            queue,
            tap,
            releases,
        }
    }

    /// From now on every release of the delay line to the public first
    /// waits for the journal to hold its round time ([`Release`]); the
    /// journaling side (the board loop) receives them here. Its receiver
    /// dropped, releases go out without waiting.
    pub fn journal_releases(&self) -> mpsc::UnboundedReceiver<Release> {
        let (tx, rx) = mpsc::unbounded_channel();
        *self.releases.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
        rx
    }

    /// Names the streams of a journaled game (before anything is
    /// published): `epoch` for the public channel, `epoch` and `a` for the
    /// arbiter's ([`super::event_id`]). The same epoch after a restart gives
    /// the regenerated messages the same ids.
    pub fn set_epoch(&self, epoch: u64) {
        self.public.set_stream(&epoch.to_string());
        self.arbiter.set_stream(&format!("{epoch}a"));
    }

    /// Publishes the game's start (no move yet, nothing to hide): to both
    /// audiences at once, so the public feeds exist from the first second.
    pub fn publish_start(&self, u: Update) {
        let arb = u.arbiter_snapshot.clone().or_else(|| u.snapshot.clone());
        self.arbiter.publish_journaled(u.seq, arb, &u.arbiter);
        if let Some(tap) = &self.tap {
            let _ = tap.send(u.clone());
        }
        self.public.publish_journaled(u.seq, u.snapshot, &u.public);
    }

    /// Publishes an update: to the arbiter now, to the public after the delay.
    pub fn publish(&self, u: Update) {
        let arb = u.arbiter_snapshot.clone().or_else(|| u.snapshot.clone());
        self.arbiter.publish_journaled(u.seq, arb, &u.arbiter);
        if u.snapshot.is_some() || !u.public.is_empty() {
            let _ = self.queue.send(u);
        }
    }
}

/// The delay line: each update goes out when `delay_ms` of round time have
/// passed since its decision, as [`Settler`] settles it against the updates
/// decided after it (an intermediate result is never released).
pub(super) async fn run_delay(
    mut rx: mpsc::UnboundedReceiver<Update>,
    out: Arc<Channel>,
    delay_ms: u64,
    now: Arc<dyn Fn() -> u64 + Send + Sync>,
    speed: f64,
    tap: Option<mpsc::UnboundedSender<Update>>,
    releases: Releases,
) {
    let mut waiting: VecDeque<Update> = VecDeque::new();
    let mut settler = Settler::new(delay_ms);
    let mut open = true;
    loop {
        if waiting.is_empty() {
            if !open {
                return;
            }
            match rx.recv().await {
                Some(u) => waiting.push_back(u),
                None => return,
            }
        }
        let due = waiting[0].t.saturating_add(delay_ms);
        loop {
            while let Ok(u) = rx.try_recv() {
                waiting.push_back(u);
            }
            let n = now();
            if n >= due {
                break;
            }
            let wall_ms = ((due - n) as f64 / speed.max(1e-9)).ceil() as u64;
            let sleep = tokio::time::sleep(Duration::from_millis(wall_ms.clamp(1, 1000)));
            if open {
                tokio::select! {
                    _ = sleep => {}
                    u = rx.recv() => match u {
                        Some(u) => waiting.push_back(u),
                        None => open = false,
                    },
                }
            } else {
                sleep.await;
            }
        }
        let Some(u) = waiting.pop_front() else {
            continue;
        };
        let u = settler.settle(u, &waiting);
        // What a restart must not withhold again: the update's release time
        // (its `t` plus the delay). Without a delay that is the update's
        // own time, which the journal holds already (the record decided
        // it): no round trip then.
        let journal = (delay_ms > 0)
            .then(|| releases.lock().unwrap_or_else(|e| e.into_inner()).clone())
            .flatten();
        if let Some(journal) = journal {
            let (journaled, done) = oneshot::channel();
            if journal.send(Release { t: due, journaled }).is_ok() {
                // Answered, or dropped by a board loop that has ended.
                let _ = done.await;
            }
        }
        if let Some(tap) = &tap {
            let _ = tap.send(u.clone());
        }
        out.publish_journaled(u.seq, u.snapshot, &u.public);
    }
}
