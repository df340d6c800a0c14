//! A restart's downtime: how long the daemon was down (measured on the
//! kernel's boot-time clock when it is the same boot, else on a trusted wall
//! clock, else not at all), what the running clock is charged, and whether
//! the clocks must wait for the arbiter.
//!
//! The Laws: "If the game needs to be interrupted, the arbiter shall stop
//! the clocks" and "The arbiter decides when the game restarts" (2009
//! §6.12a/c, seed 002: "Dommeren bestemmer hvornår partiet genoptages";
//! 2001 §6.13c; 2023 6.11.1, 6.11.3). A restart is such an interruption
//! unless the board can show that nothing was lost: then the game simply
//! goes on, the downtime charged to the player on move as his clock would
//! have run, and the arbiter is told. Otherwise the board pauses the clocks
//! itself ([`DOWNTIME_AUTHOR`]) and that pause holds, like the arbiter's,
//! until his `resume` (docs/clock.md, "A restart").

use super::board_loop::BoardLoop;
use super::heartbeat::heartbeat_line;
pub use super::heartbeat::BootClock;
use super::round_clock::RoundClock;
use crate::broadcast::delay::Feed;
use crate::config::Config;
use crate::journal;
use crate::model::{BoardId, IrregularityKind};
use crate::trace::{ArbiterAction, DowntimeCharge, Event, EventKind, Record, RecordKind};
use serde_json::Value;

/// The author of the pause the daemon journals when a restart's downtime
/// cannot be shown harmless; it holds until the arbiter's `resume`.
pub const DOWNTIME_AUTHOR: &str = crate::arbiter::DOWNTIME_AUTHOR;

/// The longest downtime (wall ms) after which the game goes on without the
/// arbiter, when the downtime is measured: a restart by systemd's watchdog
/// (`WatchdogSec=30s`: a hung loop is killed up to 30 s after its last
/// ping, started again `RestartSec=2s` later, and resumes its journal)
/// or after a crash, a `systemctl restart`, an upgrade. 30 s, the bound
/// before, was shorter than the watchdog alone: every watchdog restart
/// stopped the clocks. A longer downtime is charged as measured, then the
/// clocks wait for the arbiter.
pub const QUICK_RESTART_MS: u64 = 60_000;

/// How a restart's downtime was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// The same boot as the last heartbeat: `CLOCK_BOOTTIME` gives the
    /// downtime exactly, whatever the wall clock did.
    BootTime,
    /// Another boot (or no heartbeat with a boot clock): the wall clock,
    /// synchronised (or kept, `[clock] wall_clock = "rtc"`), moved forward
    /// by at most [`QUICK_RESTART_MS`].
    WallClock,
    /// Nothing measures it: the round goes on from the journal's last time.
    Unmeasured,
}

impl Measure {
    /// The name in the `downtime` irregularity (`measured_by`).
    pub fn name(self) -> &'static str {
        match self {
            Measure::BootTime => "boottime",
            Measure::WallClock => "wall_clock",
            Measure::Unmeasured => "none",
        }
    }
}

/// How a resumed game's round time goes on.
#[derive(Debug, Clone, Copy)]
pub struct Resume {
    /// The round clock from now on.
    pub clock: RoundClock,
    /// The journal's last round time (records, events, heartbeats), ms.
    pub last_t: u64,
    /// Wall ms between the journal's last time and now (negative: the wall
    /// clock went back).
    pub wall_gap_ms: i64,
    /// How the downtime was measured.
    pub measure: Measure,
    /// The kernel's word on the time's synchronisation (None: not asked, `rtc`).
    pub synchronised: Option<bool>,
    /// Damaged lines of the events file ([`ResumeFacts::events_damaged`]);
    /// more than 0: the downtime was not measured.
    pub events_damaged: usize,
}

impl Resume {
    /// The downtime charged to the running clock, wall ms (0 unmeasured).
    pub fn charged_wall_ms(&self) -> u64 {
        let round = self.clock.now_ms().saturating_sub(self.last_t);
        (round as f64 / self.clock.speed().max(1e-9)) as u64
    }
}

/// What a resume knows at start-up.
#[derive(Debug, Clone)]
pub struct ResumeFacts {
    /// The journal's last round time (records and events), ms.
    pub last_t: u64,
    /// The last heartbeat: its round time and boot clock.
    pub heartbeat: Option<(u64, BootClock)>,
    /// This boot's clock now.
    pub boot_now: Option<BootClock>,
    /// Unix ms of round time 0 (the journal's start, or the epoch a
    /// previous resume set).
    pub epoch: u64,
    /// Unix ms now.
    pub now_unix: u64,
    /// Round ms per wall ms.
    pub speed: f64,
    /// The wall clock's synchronisation ([`wall_clock_synchronised`]).
    pub synchronised: Option<bool>,
    /// Lines of the events file whose checksum failed
    /// ([`journal::EventsRead::damaged`]): read as absent, and the
    /// heartbeat and the epoch are then not trusted to measure the
    /// downtime (the damaged line may have been the last of either, and an
    /// earlier one measures across an earlier, uncharged downtime): the
    /// round goes on from the journal's last time, the clocks wait for the
    /// arbiter (`docs/journal.md`).
    pub events_damaged: usize,
}

/// The round time of a resumed game: on the same boot as its last heartbeat
/// the heartbeat's round time plus the boot-time clock's advance since;
/// else on the wall clock when it moved forward by at most
/// [`QUICK_RESTART_MS`] and is not known unsynchronised; else the round
/// goes on from the journal's last time, whatever the wall clock says, so
/// the delay line still holds back every decision of the last `delay`
/// seconds and no clock is charged an unknown gap.
pub fn resume_round(f: &ResumeFacts) -> Resume {
    let speed = f.speed.max(1e-9);
    let last_wall = f.epoch as i128 + (f.last_t as f64 / speed) as i128;
    let wall_gap_ms =
        (f.now_unix as i128 - last_wall).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    let whole = f.events_damaged == 0;
    let same_boot = match (&f.heartbeat, &f.boot_now) {
        (Some((t, then)), Some(now))
            if whole && then.boot_id == now.boot_id && now.boottime_ms >= then.boottime_ms =>
        {
            let advance = ((now.boottime_ms - then.boottime_ms) as f64 * speed) as u64;
            Some(t.saturating_add(advance).max(f.last_t))
        }
        _ => None,
    };
    let plausible = whole && (0..=QUICK_RESTART_MS as i64).contains(&wall_gap_ms);
    let (clock, measure) = if let Some(now_round) = same_boot {
        (RoundClock::resume_at(now_round, speed), Measure::BootTime)
    } else if plausible && f.synchronised != Some(false) {
        let at = (f.now_unix.saturating_sub(f.epoch) as f64 * speed) as u64;
        (
            RoundClock::resume_with_epoch(at.max(f.last_t), f.epoch, speed),
            Measure::WallClock,
        )
    } else {
        (RoundClock::resume_at(f.last_t, speed), Measure::Unmeasured)
    };
    Resume {
        clock,
        last_t: f.last_t,
        wall_gap_ms,
        measure,
        synchronised: f.synchronised,
        events_damaged: f.events_damaged,
    }
}

/// Whether the clocks wait for the arbiter after a restart: not when the
/// board can show that nothing was lost — its source is a recording
/// (`recording`: every record carries its own time and is fed as recorded,
/// so the game does not depend on the daemon having been up), or the
/// downtime was measured and is at most [`QUICK_RESTART_MS`] (charged to
/// the player on move exactly as his clock would have run). Otherwise yes:
/// an unmeasured downtime, or a longer one (charged as measured, then
/// held for the arbiter, who decides when the game restarts).
pub fn clocks_wait_for_arbiter(measure: Measure, charged_wall_ms: u64, recording: bool) -> bool {
    if recording {
        return false;
    }
    match measure {
        Measure::Unmeasured => true,
        Measure::BootTime | Measure::WallClock => charged_wall_ms > QUICK_RESTART_MS,
    }
}

/// Whether the wall clock is synchronised, as far as a restart must ask
/// (`[clock] wall_clock`): `None` with `rtc` (trusted as kept), else the
/// kernel's word (adjtimex read-only; refused by a sandbox, systemd-timesyncd's
/// file: [`crate::service::checks::clock_synchronised`]); unknown counts as
/// not synchronised.
pub fn wall_clock_synchronised(config: &Config) -> Option<bool> {
    if config.clock.wall_clock.as_deref() == Some("rtc") {
        return None;
    }
    use crate::service::checks::{clock_synchronised, TIMESYNC_SYNCHRONIZED};
    Some(
        match clock_synchronised(std::path::Path::new(TIMESYNC_SYNCHRONIZED)) {
            Ok((synchronised, _)) => synchronised,
            Err(e) => {
                tracing::warn!("adjtimex: the time's synchronisation is unknown ({e})");
                false
            }
        },
    )
}

/// The facts of journal `path`'s resume (records recovered up to `last_record_t`).
pub fn facts(
    path: &std::path::Path,
    last_record_t: u64,
    started_at: u64,
    now_unix: u64,
    speed: f64,
    synchronised: Option<bool>,
) -> ResumeFacts {
    let heartbeat = journal::last_heartbeat(path)
        .and_then(|v| Some((v.get("t")?.as_u64()?, BootClock::of_heartbeat(&v)?)));
    ResumeFacts {
        last_t: last_record_t.max(journal::last_event_t(path).unwrap_or(0)),
        heartbeat,
        boot_now: BootClock::now(),
        epoch: journal::last_epoch(path).unwrap_or(started_at),
        now_unix,
        speed,
        synchronised,
        events_damaged: journal::events_read(path).damaged.len(),
    }
}

/// The resume told: the clocks stopped for the arbiter when they must wait
/// (journaled as the daemon's `downtime` record, so a later restart keeps
/// them stopped), the `downtime` irregularity on the arbiter's channel and
/// in the events file, a heartbeat with this run's boot clock, and the
/// lines of the start-up report.
///
/// A clock that does not run while the daemon is down (`runs_while_down`
/// false: the built-in clock, the daemon itself) stopped with it: nobody's
/// time ran (issue 40.4). The record is journaled at the outage's start,
/// `since`, charged to nobody, and the clocks wait for the arbiter, who
/// may charge it to the player on move (`{"arbiter": "downtime",
/// "charge": "mover"}`), set the clocks, or resume (2023 7.1 / 6.11, 2009
/// §6.13 / §6.12). A clock device that ran through it (a DGT clock on its
/// batteries) charged the player on move as it ran; the clocks wait for
/// the arbiter when the downtime cannot be shown harmless
/// ([`clocks_wait_for_arbiter`]), and he may give it back (`"charge":
/// "nobody"`).
pub(super) fn announce(
    board: &mut BoardLoop,
    feed: &Feed,
    resume: &Resume,
    torn_line: Option<usize>,
    recording: bool,
    article: &'static str,
    runs_while_down: bool,
) -> Vec<String> {
    let mut report = Vec::new();
    let since = resume.last_t;
    let now = resume.clock.now_ms().max(board.last_t);
    let downtime = now.saturating_sub(since);
    let charged = resume.charged_wall_ms();
    let ran_then = {
        let a = board.controller.arbiter();
        a.outcome().is_none() && a.clock().and_then(|c| c.running()).is_some()
    };
    // The board's own clock died with it: stopped where it stood.
    let stopped_with_board = !recording && !runs_while_down && ran_then;
    let downtime_record = |t: u64, charge: DowntimeCharge| Record {
        t,
        board: BoardId::Main,
        kind: RecordKind::Arbiter {
            action: ArbiterAction::Downtime {
                charge,
                ms: Some(downtime),
            },
            author: Some(DOWNTIME_AUTHOR.to_owned()),
            expect: None,
            reason: None,
        },
    };
    let running_side = |b: &BoardLoop, at: u64| {
        b.controller.arbiter().clock().and_then(|c| {
            let side = c.running()?;
            Some((side, c.remaining_at(at)))
        })
    };
    let (wait, charged_to, ran_side) = if stopped_with_board {
        let ran = running_side(board, since);
        board.record(downtime_record(since, DowntimeCharge::Nobody));
        // What else fell due meanwhile (no flag: the clocks stand).
        board.tick(now);
        (true, None, ran)
    } else {
        let charged_to = running_side(board, now);
        if !recording {
            // A live board: what fell due in the downtime falls first, at its
            // own time (a flag at the moment the charged clock showed zero,
            // §6.8 / 2023 6.8): a game it ended has no clock left to stop.
            // A recording's records due meanwhile come first; its loop fires
            // them in order.
            board.tick(now);
        }
        let arbiter = board.controller.arbiter();
        let running =
            arbiter.outcome().is_none() && arbiter.clock().is_some_and(|c| c.running().is_some());
        let wait = running && clocks_wait_for_arbiter(resume.measure, charged, recording);
        if wait {
            board.record(downtime_record(now, DowntimeCharge::Mover));
        }
        (wait, charged_to, charged_to)
    };
    let e = Event {
        t: now,
        kind: EventKind::Irregularity {
            kind: IrregularityKind::Downtime,
            article,
            squares: Vec::new(),
        },
    };
    let mut extra = vec![
        ("since_t", Value::from(since)),
        ("until_t", Value::from(now)),
        ("downtime_ms", Value::from(now.saturating_sub(since))),
    ];
    if let Some(line) = torn_line {
        extra.push(("torn_line", Value::from(line)));
    }
    extra.push(("wall_gap_ms", Value::from(resume.wall_gap_ms)));
    extra.push(("measured_by", Value::from(resume.measure.name())));
    extra.push(("clocks_stopped", Value::from(wait)));
    // Whose clock ran when the board went down, and whether the clock
    // device kept running through it (issue 40.4).
    extra.push((
        "running",
        ran_side.map_or(Value::Null, |(c, _)| {
            Value::from(crate::trace::color_str(c))
        }),
    ));
    extra.push(("clock_ran", Value::from(runs_while_down || recording)));
    // What the downtime cost whom (the arbiter sets the clocks from it,
    // 2009 §6.13 / 2023 7.1): the player whose clock ran through it, the
    // round ms charged to him, and both clocks as they stand at `until_t`.
    extra.push((
        "charged",
        charged_json(charged_to, now.saturating_sub(since)),
    ));
    if let Some(synced) = resume.synchronised {
        extra.push(("wall_clock_synchronised", Value::from(synced)));
    }
    if resume.events_damaged > 0 {
        // Why the downtime was not measured (`docs/journal.md`).
        extra.push(("events_damaged", Value::from(resume.events_damaged)));
    }
    if resume.measure != Measure::WallClock {
        // The round's time 0 as this run keeps it: a later restart
        // measured on the wall clock measures from it.
        extra.push((
            "epoch_unix_ms",
            Value::from(resume.clock.started_at_unix_ms()),
        ));
    }
    // When it happened (the console dates its alert so, also at a relay
    // that receives it later).
    extra.push(("unix_ms", Value::from(board.publisher.info().unix_ms(now))));
    let msg = board.publisher.message(&e, &extra);
    let boot = BootClock::now();
    if let Some(j) = board.journal.as_mut() {
        let _ = j.event(&msg);
        // This run's anchor at once: a restart before the first tick's
        // heartbeat measures from it, not from the run before.
        let _ = j.event(&heartbeat_line(now, boot.as_ref()));
        let _ = j.sync();
    }
    board.last_heartbeat_t = Some(now);
    feed.arbiter.publish(0, None, &[msg]);
    let name = |side: shakmaty::Color| match side {
        shakmaty::Color::White => "White",
        shakmaty::Color::Black => "Black",
    };
    let whom = match (charged_to, ran_side) {
        (Some((side, _)), _) => format!("charged to {}", name(side)),
        (None, Some((side, _))) => format!(
            "{}'s clock ran; the board's own clock stopped with it: charged to nobody",
            name(side)
        ),
        (None, None) => "no clock ran".to_owned(),
    };
    report.push(format!(
        "downtime {} ms (round time {since}..{now}, measured by {}, {whom}) reported to the arbiter",
        now.saturating_sub(since),
        resume.measure.name()
    ));
    if stopped_with_board {
        tracing::warn!(
            downtime_ms = downtime,
            "the board's own clock stopped with the board: nobody is charged; the clocks stay \
             stopped until the arbiter resumes them"
        );
        report.push(
            "the board's own clock stopped with the board: charged to nobody; clocks stopped \
             until the arbiter resumes them"
                .to_owned(),
        );
    } else if wait {
        let why = match resume.measure {
            Measure::Unmeasured => format!(
                "the downtime cannot be measured (another boot; wall clock gap {} ms not trusted)",
                resume.wall_gap_ms
            ),
            _ => format!("the downtime, {charged} ms, is longer than {QUICK_RESTART_MS} ms"),
        };
        tracing::warn!(
            wall_gap_ms = resume.wall_gap_ms,
            wall_clock_synchronised = ?resume.synchronised,
            "{why}: round time goes on from {now} ms, the clocks stay stopped until the arbiter resumes them"
        );
        report.push(format!(
            "{why}: not trusted: clocks stopped until the arbiter resumes them"
        ));
    }
    report
}

/// The `charged` member of the `downtime` irregularity: `{"by": "w"|"b",
/// "ms", "white_ms", "black_ms"}` — the player whose clock ran through the
/// downtime, the round ms charged to him (`ms`, the downtime itself) and
/// both clocks after it (ms); `null` when no clock ran (a pause, the set-up,
/// the restore of a position), so nobody was charged.
fn charged_json(running: Option<(shakmaty::Color, (u64, u64))>, downtime_ms: u64) -> Value {
    match running {
        Some((side, (white_ms, black_ms))) => serde_json::json!({
            "by": if side == shakmaty::Color::White { "w" } else { "b" },
            "ms": downtime_ms,
            "white_ms": white_ms,
            "black_ms": black_ms,
        }),
        None => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boot(id: &str, ms: u64) -> BootClock {
        BootClock {
            boot_id: id.to_owned(),
            boottime_ms: ms,
        }
    }

    fn facts(heartbeat: Option<(u64, BootClock)>, now: Option<BootClock>) -> ResumeFacts {
        ResumeFacts {
            last_t: 50_000,
            heartbeat,
            boot_now: now,
            epoch: 1_000_000,
            // The wall clock says an hour passed (a Pi without a clock).
            now_unix: 1_000_000 + 50_000 + 3_600_000,
            speed: 1.0,
            synchronised: Some(false),
            events_damaged: 0,
        }
    }

    #[test]
    fn the_same_boot_measures_the_downtime_on_the_boot_clock() {
        let r = resume_round(&facts(
            Some((49_000, boot("a", 700_000))),
            Some(boot("a", 735_000)),
        ));
        assert_eq!(r.measure, Measure::BootTime);
        // 49 s + 35 s: the heartbeat's time plus the boot clock's advance.
        let now = r.clock.now_ms();
        assert!((84_000..84_500).contains(&now), "{now}");
        assert!(r.wall_gap_ms > 3_000_000);
        assert!(!clocks_wait_for_arbiter(
            r.measure,
            r.charged_wall_ms(),
            false
        ));
    }

    #[test]
    fn a_long_measured_downtime_is_charged_then_held_for_the_arbiter() {
        let r = resume_round(&facts(
            Some((49_000, boot("a", 700_000))),
            Some(boot("a", 800_000)),
        ));
        assert_eq!(r.measure, Measure::BootTime);
        assert!(r.clock.now_ms() >= 149_000);
        assert!(clocks_wait_for_arbiter(
            r.measure,
            r.charged_wall_ms(),
            false
        ));
        // A recording loses nothing whatever the downtime.
        assert!(!clocks_wait_for_arbiter(
            r.measure,
            r.charged_wall_ms(),
            true
        ));
    }

    #[test]
    fn another_boot_with_an_unsynchronised_wall_clock_is_not_measured() {
        for (hb, now) in [
            (Some((49_000, boot("a", 700_000))), Some(boot("b", 5_000))),
            (None, Some(boot("b", 5_000))),
            (Some((49_000, boot("a", 700_000))), None),
            // The boot clock went back: not the same boot's.
            (Some((49_000, boot("a", 700_000))), Some(boot("a", 600_000))),
        ] {
            let r = resume_round(&facts(hb, now));
            assert_eq!(r.measure, Measure::Unmeasured);
            let t = r.clock.now_ms();
            assert!((50_000..50_500).contains(&t), "from the last time: {t}");
            assert!(clocks_wait_for_arbiter(
                r.measure,
                r.charged_wall_ms(),
                false
            ));
            assert!(!clocks_wait_for_arbiter(
                r.measure,
                r.charged_wall_ms(),
                true
            ));
        }
    }

    #[test]
    fn another_boot_with_a_trusted_wall_clock_is_measured_on_it() {
        let mut f = facts(Some((49_000, boot("a", 700_000))), Some(boot("b", 5_000)));
        f.now_unix = f.epoch + 50_000 + 20_000;
        f.synchronised = Some(true);
        let r = resume_round(&f);
        assert_eq!(r.measure, Measure::WallClock);
        assert!(!clocks_wait_for_arbiter(
            r.measure,
            r.charged_wall_ms(),
            false
        ));
        // Longer than a quick restart: not trusted by the wall clock.
        f.now_unix = f.epoch + 50_000 + QUICK_RESTART_MS + 1_000;
        assert_eq!(resume_round(&f).measure, Measure::Unmeasured);
    }
}
