//! The console's one state on a server (a board daemon or a relay): the
//! accounts and their sessions, the alert queue, the rulings the round
//! report lists, the store of ruling ids, the round's pairings and, on a
//! relay, the way to the boards. Fed from the arbiter's channel
//! ([`Console::spawn_feed`]); kept across a restart in [`ConsoleFiles`]
//! ([`Console::keep`]).

use super::access::Accounts;
use super::alerts::AlertQueue;
use super::command_ids::{repeated, Claim, CommandIds};
use super::forward::Forwarder;
use super::kept::{AckLog, ConsoleFiles, Damage, OwnAlertLog, SessionFile};
use super::report::RulingLog;
use super::wall_clock::unix_ms;
use crate::broadcast::delay::Channel;
use serde_json::{json, Value};
use std::sync::Arc;

/// The console's side of a server.
#[derive(Debug)]
pub struct Console {
    /// The accounts and their sessions.
    pub accounts: Accounts,
    /// The alert queue.
    pub alerts: AlertQueue,
    /// The undelayed channel shown (the board's arbiter channel, or the
    /// relay's merge of every board's).
    pub channel: Arc<Channel>,
    /// On a relay: where rulings go.
    pub forward: Option<Arc<Forwarder>>,
    /// The rulings the channel carried, applied and refused (the round
    /// report's, [`super::report`]).
    pub rulings: RulingLog,
    /// The round's pairings as the pairing program wrote them (TRF-16,
    /// `[arbiter] pairings`): `GET /console/results.trf` writes the
    /// results into it ([`super::results`]).
    pub pairings: Option<std::path::PathBuf>,
    ids: Arc<CommandIds>,
    /// The event's time zone (`[event] time_zone`): every wall time the
    /// console's page and the round report show is in it.
    pub zone: crate::config::zone::EventZone,
    /// The event's head the round report prints (name, place, date, rate
    /// of play, chief arbiter: the server's `[event]`).
    pub head: super::report::norm::EventHead,
}

impl Console {
    /// A console over `channel` for `accounts`; `forward`: a relay's.
    pub fn new(
        accounts: Accounts,
        channel: Arc<Channel>,
        forward: Option<Arc<Forwarder>>,
    ) -> Console {
        Console {
            accounts,
            alerts: AlertQueue::new(),
            rulings: Default::default(),
            channel,
            forward,
            pairings: None,
            ids: Arc::new(CommandIds::in_memory()),
            zone: crate::config::zone::EventZone::system(),
            head: Default::default(),
        }
    }

    /// The console with the round's pairings file (TRF-16).
    pub fn with_pairings(mut self, trf: Option<std::path::PathBuf>) -> Console {
        self.pairings = trf;
        self
    }

    /// The console showing its times in `zone` (default: the machine's).
    pub fn with_time_zone(mut self, zone: crate::config::zone::EventZone) -> Console {
        self.zone = zone;
        self
    }

    /// The console with the event's head for the round report.
    pub fn with_event_head(mut self, head: super::report::norm::EventHead) -> Console {
        self.head = head;
        self
    }

    /// The event's zone as the page takes it (issue 40 §9: every time
    /// 24-hour in it): `time_zone`, the name `Intl.DateTimeFormat` takes
    /// (null for a zone without one), `time_zone_name`, the name shown,
    /// and `utc_offset_min`, its offset at `now_ms` (minutes east of UTC),
    /// for a browser that does not know the name.
    pub fn zone_json(&self, now_ms: u64) -> Value {
        json!({
            "time_zone": self.zone.browser_name(),
            "time_zone_name": self.zone.name(),
            "utc_offset_min": self.zone.offset_min(now_ms),
        })
    }

    /// The console with the board's store of ruling ids (shared with its
    /// MQTT command channel; in memory by default).
    pub fn with_command_ids(mut self, ids: Arc<CommandIds>) -> Console {
        self.ids = ids;
        self
    }

    /// Feeds the alert queue from the channel, on `rt`, until the channel closes.
    pub fn spawn_feed(self: &Arc<Self>, rt: &tokio::runtime::Handle) {
        let me = self.clone();
        let mut rx = me.channel.events.subscribe();
        // Alerts raised before anyone listened (a downtime at start).
        for m in me.channel.backlog() {
            me.alerts.take(&m.json, unix_ms());
            me.rulings.take(&m.json, unix_ms());
        }
        rt.spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match rx.recv().await {
                    Ok(m) => {
                        me.alerts.take(&m.json, unix_ms());
                        me.rulings.take(&m.json, unix_ms());
                    }
                    Err(RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "console: alert feed fell behind");
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        });
    }

    /// Claims command `id`: `Err` with the first reply when it was seen
    /// (by either way in, [`repeated`]), or 503 when it cannot be kept.
    pub(super) fn claim(&self, id: &str) -> Result<(), (u16, Value)> {
        match self.ids.claim(id) {
            Ok(Claim::New) => Ok(()),
            Ok(Claim::Seen(outcome)) => Err(repeated(id, &outcome)),
            Err(e) => {
                tracing::error!(id, "ruling: cannot keep its id: {e}");
                Err((
                    503,
                    json!({"error": format!("cannot keep command id {id} ({e}): not applied")}),
                ))
            }
        }
    }

    /// Stores the reply of command `id` (a refusal forgets the id: it may be sent again).
    pub(super) fn done(&self, id: &str, reply: Option<(u16, Value)>) {
        let outcome = match reply {
            Some((status, v)) => {
                json!({"status": "applied", "via": "http", "http": status, "reply": v})
            }
            None => Value::Null,
        };
        if let Err(e) = self.ids.record(id, outcome) {
            tracing::error!(id, "ruling: cannot keep what came of it: {e}");
        }
    }

    /// Keeps the console's acknowledgements and sessions in `files` from now
    /// on, taking what they hold (sessions open at `now_ms`, Unix ms); the
    /// damage set aside, for the caller to alert. Errors: a file cannot be
    /// read or written (named).
    pub fn keep(&self, files: &ConsoleFiles, now_ms: u64) -> Result<Vec<Damage>, String> {
        let mut damage = Vec::new();
        let (log, acks, d) = AckLog::open(&files.acks)?;
        damage.extend(d);
        let n_acks = acks.len();
        self.alerts.keep_acks(log, acks);
        if let Some(path) = &files.relay_alerts {
            let (log, own, d) = OwnAlertLog::open(path)?;
            damage.extend(d);
            self.alerts.keep_own(log, own, now_ms);
        }
        if let Some(path) = &files.relay_rulings {
            let (log, kept, d) = OwnAlertLog::open(path)?;
            damage.extend(d);
            self.rulings.keep(log, kept);
        }
        let (file, sessions, d) = SessionFile::open(&files.sessions)?;
        damage.extend(d);
        let n_sessions = self.accounts.keep_sessions(file, sessions, now_ms)?;
        tracing::info!(
            acks = %files.acks.display(),
            sessions = %files.sessions.display(),
            acknowledgements = n_acks,
            open_sessions = n_sessions,
            "console: acknowledgements and sessions kept across restarts"
        );
        Ok(damage)
    }
}
