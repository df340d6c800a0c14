//! The board's side of `eboard event` while it runs: its config topic
//! followed ([`watch`]), an assignment for another game refused and
//! alerted, never applied to the game in progress; and the restart that
//! takes one when the game has not begun, or has ended with its result
//! confirmed ([`Restart`], [`restart`]). Split from `pairing.rs` (what
//! start-up takes).

use super::{alert, journaled_game, parse_message};
use crate::app::settings::MqttUplink;
use crate::broadcast::delay::Channel;
use crate::event::BoardAssignment;
use anyhow::anyhow;
use std::sync::Arc;
use std::time::Duration;

/// How a board that has not begun its game takes a new assignment: it
/// stops (the `shutdown`, `requested` set) and starts again as the same
/// process ([`restart`]), which takes it at start-up.
pub struct Restart {
    /// The journal: its game has begun once it has a record.
    pub journal: std::path::PathBuf,
    /// The process's stop.
    pub shutdown: crate::app::shutdown::Shutdown,
    /// Set before the stop: `eboard run` then restarts instead of ending.
    pub requested: Arc<std::sync::atomic::AtomicBool>,
    /// The journal is rotated per game (`--journal-dir`): a game that has
    /// ended and whose result the arbiter has confirmed (DSU 004 §15) is
    /// archived at the restart, so the board may take the next round.
    pub rotates: bool,
}

impl Restart {
    /// Whether this board's game has ended with its result confirmed, and
    /// the restart will archive it ([`Restart::rotates`]).
    fn finished(&self) -> bool {
        // The arbiter confirmed (or corrected, or entered a forfeit), and
        // did not withdraw it since (`journal::standing`).
        self.rotates && {
            let s = crate::journal::standing(&self.journal);
            s.result.is_some() && s.confirmed
        }
    }

    /// Takes assignment `a`: says so to the arbiter (`what` the pairing is,
    /// `why` it is taken now) and stops the board so that `eboard run`
    /// restarts into it.
    fn take(
        &self,
        arbiter: &Channel,
        current: &BoardAssignment,
        a: &BoardAssignment,
        what: &str,
        why: &str,
    ) {
        alert(
            arbiter,
            &current.game(),
            &format!(
                "{what}: game {} ({} - {})",
                a.game(),
                a.white.name.as_deref().unwrap_or("?"),
                a.black.name.as_deref().unwrap_or("?"),
            ),
            why,
        );
        self.requested
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.shutdown.trigger();
    }
}

/// How often a refused pairing is looked at again (the game may have ended
/// and its result been confirmed since).
const RECHECK: Duration = Duration::from_secs(1);

/// Starts this program again in this process (`exec`, the same arguments,
/// environment and process id: systemd and a supervisor see the same
/// service); returns only when that fails, with why.
pub fn restart() -> anyhow::Error {
    use std::os::unix::process::CommandExt;
    tracing::info!("restarting to take the new pairing");
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return anyhow!("cannot restart to take the new pairing: {e}"),
    };
    let e = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .exec();
    anyhow!("cannot restart to take the new pairing: {e}")
}

/// Follows this board's config topic while the board runs: an assignment
/// other than `current` (the game being played) is refused and alerted,
/// never applied; but when the journal has no record yet (the game has not
/// begun) and `restart` is given, the board restarts to take it.
pub fn watch(
    rt: &tokio::runtime::Handle,
    uplink: &MqttUplink,
    topic: String,
    current: BoardAssignment,
    refused: Option<BoardAssignment>,
    arbiter: Arc<Channel>,
    restart: Option<Restart>,
) -> Result<(), String> {
    use rumqttc::{AsyncClient, Event, Packet, QoS};
    let id = format!("eboard-config-{:x}", rand::random::<u32>());
    let options = uplink.broker.options(id)?;
    let broker = uplink.broker.clone();
    rt.spawn(async move {
        let (client, mut el) = AsyncClient::new(options, 8);
        // One refused at start-up was alerted then.
        let mut last_refused = refused;
        let mut outage = crate::retry::Outage::default();
        let mut recheck = tokio::time::interval(RECHECK);
        loop {
            // A pairing refused during the game is taken once the game has
            // ended and its result is confirmed.
            let polled = tokio::select! {
                p = el.poll() => p,
                _ = recheck.tick() => {
                    if let (Some(a), Some(r)) = (&last_refused, &restart) {
                        if a.board == current.board && r.finished() {
                            r.take(
                                &arbiter,
                                &current,
                                a,
                                "the next pairing for this board",
                                "taking it: this board's game has ended and its result is confirmed; the board restarts with it",
                            );
                            return;
                        }
                    }
                    continue;
                }
            };
            match polled {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    outage.recovered();
                    if let Err(e) = client.try_subscribe(topic.clone(), QoS::AtLeastOnce) {
                        tracing::warn!("pairing: cannot subscribe to {topic}: {e}");
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) if p.topic == topic => {
                    match parse_message(&p.payload) {
                        Ok(Some(a)) if !a.same_game(&current) => {
                            if last_refused.as_ref().is_some_and(|l| l.same_game(&a)) {
                                continue;
                            }
                            if a.board != current.board {
                                alert(
                                    &arbiter,
                                    &current.game(),
                                    &format!(
                                        "{topic}: a pairing for board {}, this is board {}",
                                        a.board, current.board
                                    ),
                                    "ignored",
                                );
                                last_refused = Some(a);
                                continue;
                            }
                            let begun = restart.as_ref().is_none_or(|r| {
                                journaled_game(&r.journal).is_none_or(|(_, records)| records > 0)
                                    && !r.finished()
                            });
                            if let (false, Some(r)) = (begun, &restart) {
                                r.take(
                                    &arbiter,
                                    &current,
                                    &a,
                                    "a new pairing for this board",
                                    "taking it: game not begun, or ended with its result confirmed; the board restarts with it",
                                );
                                return;
                            }
                            alert(
                                &arbiter,
                                &current.game(),
                                &format!(
                                    "a new pairing for this board: game {} ({} - {}); game {} is this board's game",
                                    a.game(),
                                    a.white.name.as_deref().unwrap_or("?"),
                                    a.black.name.as_deref().unwrap_or("?"),
                                    current.game()
                                ),
                                "not applied: players and time control are never changed during a game; taken when this game has ended and the arbiter has confirmed its result (with --journal-dir), or restart the board after it",
                            );
                            last_refused = Some(a);
                        }
                        Ok(_) => {}
                        Err(e) => alert(&arbiter, &current.game(), &format!("{topic}: {e}"), "ignored"),
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    let why = broker.explain(&e);
                    if outage.failed(&why) {
                        tracing::warn!("pairing: broker {broker}: {why}; retrying");
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    });
    Ok(())
}
