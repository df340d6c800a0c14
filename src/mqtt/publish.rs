//! The board's uplink: the public updates (after the transmission delay)
//! numbered, queued on disk ([`Outbox`]) and published to the broker,
//! QoS 1, at most [`WINDOW`] unacknowledged at a time, in order. A lost
//! connection is retried after [`RETRY_MIN`] doubling to [`RETRY_MAX`]
//! (with jitter: [`crate::retry::Backoff`]);
//! on every (re)connection everything not yet acknowledged is sent again,
//! and the latest snapshot is published again retained (a broker that
//! restarted without persistence has lost it).
//!
//! A refused login or a refused TLS certificate is reported (in the log,
//! once per reason: [`crate::retry::Outage`], and in
//! [`UplinkStatus::problem`]) and retried like a lost broker:
//! the queue is kept, and everything goes out once the broker takes the
//! connection (e.g. after its password file is fixed).
//!
//! Sequence numbers are the index of each public message in the board's
//! stream. A restarted daemon replays its journal, which regenerates the
//! same stream: the messages up to [`Outbox::last_seq`] were queued before
//! and are skipped, so nothing is lost and nothing is queued twice.
//!
//! The same uplink carries the board's undelayed arbiter channel when
//! `[mqtt] arbiter_channel` is on ([`super::arbiter`]): a second instance
//! with its own topics and queue file, which also takes out-of-band
//! messages ([`start_with_out_of_band`]: alerts a replay does not
//! regenerate), kept in memory until acknowledged, and a retained topic's
//! latest payload ([`Extra::Retained`]: the board's alert list), published
//! again on every reconnection.
//!
//! With a [`super::status::Presence`] ([`start_with_presence`]: the public
//! uplink of a board) the connection carries the board's will and
//! publishes its retained status: online on every CONNACK, offline
//! ("stopped") on a clean stop, before DISCONNECT
//! ([`super::status::stop_cleanly`]).

use super::outbox::{Entry, Outbox};
use super::status::{Events, PresenceRun, PresenceStop};
use super::{wire_json, BoardTopics, BrokerAddr};
use crate::broadcast::public::Update;
use crate::retry::{Backoff, Outage};
use rumqttc::{
    AsyncClient, ConnectReturnCode, ConnectionError, Event, MqttOptions, Outgoing, Packet, QoS,
};
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

/// The most events messages unacknowledged on a connection.
pub const WINDOW: usize = 32;
/// The most out-of-band messages kept unacknowledged (in memory); older
/// ones are dropped, with a warning, when the broker stays away longer.
pub const OUT_OF_BAND_MAX: usize = 1024;
/// The most updates queued with one `fsync`.
pub const GROUP_MAX: usize = 256;
/// The first wait before reconnecting to the broker.
pub const RETRY_MIN: Duration = Duration::from_millis(100);
/// The longest wait before reconnecting to the broker.
pub const RETRY_MAX: Duration = Duration::from_secs(2);
/// MQTT keep-alive: a silent broker is taken for lost after about 1.5× this.
pub const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// What the uplink has done, for tests and the operator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UplinkStatus {
    /// Connected to the broker now.
    pub connected: bool,
    /// Highest sequence number queued.
    pub queued: u64,
    /// Messages queued but not yet acknowledged.
    pub pending: usize,
    /// Connections made (the first one included).
    pub connections: u64,
    /// Why the last attempt to reach the broker failed (`None` once connected).
    pub problem: Option<LinkProblem>,
    /// Messages found cut short in the queue file when it was opened
    /// ([`Outbox::lost`]), queued again as the journal's replay regenerates
    /// them.
    pub cut_at_open: usize,
}

/// Why the broker could not be reached (the message in the log says more).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkProblem {
    /// The broker refused the username and password (or their absence).
    Credentials,
    /// The broker's TLS certificate is not trusted (or not valid for its name).
    Certificate,
    /// Anything else: no route, refused, lost, timed out.
    Network,
}

impl LinkProblem {
    /// The kind of `e`.
    pub fn of(e: &ConnectionError) -> LinkProblem {
        match e {
            ConnectionError::ConnectionRefused(
                ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized,
            ) => LinkProblem::Credentials,
            _ if crate::tls::certificate_problem(e).is_some() => LinkProblem::Certificate,
            _ => LinkProblem::Network,
        }
    }
}

/// What to publish for one board.
pub struct Uplink {
    /// The broker (address, TLS, login: [`BrokerAddr::options`]).
    pub broker: BrokerAddr,
    /// The board's topics.
    pub topics: BoardTopics,
    /// The board's stream: the Unix time in ms its game started.
    pub epoch: u64,
    /// The MQTT client id (unique per board).
    pub client_id: String,
    /// The retained snapshot says that the board also publishes its
    /// arbiter channel (`"arbiter_channel": true`, [`super::Wire`]), so a
    /// relay that receives nothing there can tell that the broker keeps it
    /// away (its ACL) rather than that the board does not publish it.
    pub announce_arbiter: bool,
}

/// Opens the queue (`queue`: the file beside the journal; `None`: in
/// memory) and starts publishing the updates that come on the returned
/// sender, on `rt`. Errors: the queue cannot be opened, or the TLS set-up.
pub fn start(
    rt: &tokio::runtime::Handle,
    uplink: Uplink,
    queue: Option<&Path>,
) -> Result<(mpsc::UnboundedSender<Update>, watch::Receiver<UplinkStatus>), String> {
    start_inner(rt, uplink, queue, None, None)
}

/// [`start`], the connection carrying `presence`'s will, its status
/// published (module doc); the handle stops it cleanly.
pub fn start_with_presence(
    rt: &tokio::runtime::Handle,
    uplink: Uplink,
    queue: Option<&Path>,
    presence: super::status::Presence,
) -> Result<
    (
        mpsc::UnboundedSender<Update>,
        watch::Receiver<UplinkStatus>,
        PresenceStop,
    ),
    String,
> {
    let (run, stop) = super::status::presence(presence);
    let (tx, status) = start_inner(rt, uplink, queue, None, Some(run))?;
    Ok((tx, status, stop))
}

/// What else than the queued updates an uplink publishes
/// ([`start_with_out_of_band`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extra {
    /// A payload (events-topic JSON, complete) for the events topic.
    Message(String),
    /// The latest payload of a retained topic (e.g. the board's alert
    /// list, [`super::alert_list`]): it replaces the one before, is
    /// published retained, QoS 1, once connected and again on every
    /// reconnection (a broker restarted without persistence lost it).
    Retained {
        /// The topic.
        topic: String,
        /// The payload.
        payload: String,
    },
}

/// [`start`], and what comes on `out_of_band` is published too: each
/// [`Extra::Message`] on the events topic, QoS 1, kept in memory (at most
/// [`OUT_OF_BAND_MAX`]) until the broker acknowledges it and sent again
/// after a reconnection (not in the queue file, so a daemon stopped while
/// the broker is away loses them: the journal's events file has them);
/// the latest [`Extra::Retained`] as its variant says.
pub fn start_with_out_of_band(
    rt: &tokio::runtime::Handle,
    uplink: Uplink,
    queue: Option<&Path>,
    out_of_band: mpsc::UnboundedReceiver<Extra>,
) -> Result<(mpsc::UnboundedSender<Update>, watch::Receiver<UplinkStatus>), String> {
    start_inner(rt, uplink, queue, Some(out_of_band), None)
}

fn start_inner(
    rt: &tokio::runtime::Handle,
    uplink: Uplink,
    queue: Option<&Path>,
    out_of_band: Option<mpsc::UnboundedReceiver<Extra>>,
    presence: Option<PresenceRun>,
) -> Result<(mpsc::UnboundedSender<Update>, watch::Receiver<UplinkStatus>), String> {
    let mut options = uplink.broker.options(uplink.client_id.clone())?;
    if let Some(p) = &presence {
        options.set_last_will(p.presence.will());
    }
    let outbox = match queue {
        Some(p) => Outbox::open(p)?,
        None => Outbox::memory(),
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let cut_at_open = outbox.lost().len();
    let (status_tx, status_rx) = watch::channel(UplinkStatus {
        queued: outbox.last_seq(),
        pending: outbox.pending(),
        cut_at_open,
        ..Default::default()
    });
    rt.spawn(run(
        uplink,
        options,
        outbox,
        rx,
        out_of_band,
        status_tx,
        presence,
    ));
    Ok((tx, status_rx))
}

/// A new connection: its client and its events. The event loop runs in
/// its own task, not in the uplink's `select!`: rumqttc's `EventLoop::poll`
/// is not cancel-safe while it connects (a poll dropped after the CONNACK
/// drops the new connection), and a connection dropped without DISCONNECT
/// makes the broker publish the board's will (offline). The task ends
/// after an error, or when `Events` is dropped (the connection with it).
fn connection(o: &MqttOptions) -> (AsyncClient, Events) {
    let (client, mut el) = AsyncClient::new(o.clone(), 2 * WINDOW + 8);
    let (tx, rx) = mpsc::channel(4 * WINDOW);
    tokio::spawn(async move {
        loop {
            let ev = el.poll().await;
            let end = ev.is_err();
            if tx.send(ev).await.is_err() || end {
                return;
            }
        }
    });
    (client, rx)
}

/// What a publish request handed to the client was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    /// The queued message of this sequence number.
    Message(u64),
    /// The retained snapshot.
    Snapshot,
    /// The out-of-band message of this number (this run's).
    OutOfBand(u64),
    /// The latest [`Extra::Retained`].
    Retained,
    /// The board's status ([`super::status`]).
    Status,
}

/// Numbers the public messages of updates as they come.
struct Numbering {
    next: u64,
    epoch: u64,
    /// `,"arbiter_channel":true` in the retained snapshot ([`Uplink::announce_arbiter`]).
    announce: &'static str,
    skip_through: u64,
    /// Messages at or below `skip_through` whose queue line was cut: queued
    /// again as they are regenerated ([`Outbox::lost`]).
    lost: std::collections::BTreeSet<u64>,
    /// The latest snapshot's sequence number and payload (also of skipped messages).
    latest_snapshot: Option<(u64, String)>,
}

impl Numbering {
    /// The entries of `u` still to queue.
    fn entries(&mut self, u: &Update) -> Vec<(u64, Entry)> {
        let snap_json = u
            .snapshot
            .as_ref()
            .and_then(|s| serde_json::to_string(s.as_ref()).ok());
        let mut out = Vec::new();
        let n = u.public.len().max(usize::from(snap_json.is_some()));
        for i in 0..n {
            let seq = self.next;
            self.next += 1;
            let last = i + 1 == n;
            let snap = if last { snap_json.as_deref() } else { None };
            let msg = u.public.get(i).map(|m| m.as_ref());
            let snapshot_payload = snap.map(|s| {
                format!(
                    "{{\"seq\":{seq},\"epoch\":{},\"t\":{}{},\"snapshot\":{s}}}",
                    self.epoch, u.t, self.announce
                )
            });
            if let Some(s) = &snapshot_payload {
                self.latest_snapshot = Some((seq, s.clone()));
            }
            if seq <= self.skip_through && !self.lost.contains(&seq) {
                continue;
            }
            out.push((
                seq,
                Entry {
                    events: wire_json(seq, self.epoch, u.t, msg, snap),
                    snapshot: snapshot_payload,
                },
            ));
        }
        out
    }
}

async fn run(
    uplink: Uplink,
    options: MqttOptions,
    mut outbox: Outbox,
    mut rx: mpsc::UnboundedReceiver<Update>,
    mut oob_rx: Option<mpsc::UnboundedReceiver<Extra>>,
    status: watch::Sender<UplinkStatus>,
    mut presence: Option<PresenceRun>,
) {
    let mut numbering = Numbering {
        next: 1,
        epoch: uplink.epoch,
        announce: if uplink.announce_arbiter {
            ",\"arbiter_channel\":true"
        } else {
            ""
        },
        skip_through: outbox.last_seq(),
        lost: outbox.lost().clone(),
        latest_snapshot: None,
    };
    let (mut client, mut el) = connection(&options);
    let mut connected = false;
    let mut rx_open = true;
    // Each publish request in the order handed to the client.
    let mut order: VecDeque<Sent> = VecDeque::new();
    let mut inflight: HashMap<u16, Sent> = HashMap::new();
    // Out-of-band messages not acknowledged, oldest first, and the last
    // one handed to the client on this connection.
    let mut oob: VecDeque<(u64, String)> = VecDeque::new();
    let mut oob_next = 1u64;
    let mut oob_sent = 0u64;
    let mut outstanding = 0usize;
    let mut next_send = 0u64;
    let mut backoff = Backoff::new(RETRY_MIN, RETRY_MAX);
    let mut reconnect_at: Option<Instant> = None;
    let mut connections = 0u64;
    let mut outage = Outage::default();
    let mut problem: Option<LinkProblem> = None;
    let mut snapshot_sent = false;
    // The latest retained extra (topic, payload), and whether it went out
    // on this connection.
    let mut retained: Option<(String, String)> = None;
    let mut retained_sent = false;
    loop {
        if connected {
            let latest = numbering.latest_snapshot.as_ref().map_or(0, |(s, _)| *s);
            while outstanding < WINDOW {
                let Some((seq, e)) = outbox.next_from(next_send) else {
                    break;
                };
                if client
                    .try_publish(
                        &uplink.topics.events,
                        QoS::AtLeastOnce,
                        false,
                        e.events.clone(),
                    )
                    .is_err()
                {
                    break;
                }
                order.push_back(Sent::Message(seq));
                outstanding += 1;
                next_send = seq + 1;
                // Only the latest snapshot is retained: older ones resent are skipped.
                if let (Some(s), true) = (&e.snapshot, seq == latest) {
                    if client
                        .try_publish(&uplink.topics.snapshot, QoS::AtLeastOnce, true, s.clone())
                        .is_ok()
                    {
                        order.push_back(Sent::Snapshot);
                        snapshot_sent = true;
                    }
                }
            }
            let from = oob_sent;
            for (id, payload) in oob.iter().filter(|(id, _)| *id > from) {
                if outstanding >= WINDOW
                    || client
                        .try_publish(
                            &uplink.topics.events,
                            QoS::AtLeastOnce,
                            false,
                            payload.clone(),
                        )
                        .is_err()
                {
                    break;
                }
                order.push_back(Sent::OutOfBand(*id));
                outstanding += 1;
                oob_sent = *id;
            }
            // The latest snapshot was acknowledged on an earlier connection:
            // sent again once everything before it is resent.
            if let Some((seq, s)) = &numbering.latest_snapshot {
                if !snapshot_sent
                    && outbox.next_from(next_send).is_none_or(|(n, _)| n > *seq)
                    && client
                        .try_publish(&uplink.topics.snapshot, QoS::AtLeastOnce, true, s.clone())
                        .is_ok()
                {
                    order.push_back(Sent::Snapshot);
                    snapshot_sent = true;
                }
            }
            if let (Some((topic, payload)), false) = (&retained, retained_sent) {
                if client
                    .try_publish(topic, QoS::AtLeastOnce, true, payload.clone())
                    .is_ok()
                {
                    order.push_back(Sent::Retained);
                    retained_sent = true;
                }
            }
        }
        status.send_if_modified(|s| {
            let new = UplinkStatus {
                connected,
                queued: outbox.last_seq(),
                pending: outbox.pending(),
                connections,
                problem,
                cut_at_open: s.cut_at_open,
            };
            std::mem::replace(s, new) != new
        });
        tokio::select! {
            u = rx.recv(), if rx_open => match u {
                Some(u) => {
                    // Group commit: what else is waiting goes in the same fsync.
                    let mut items = numbering.entries(&u);
                    for _ in 0..GROUP_MAX {
                        let Ok(u) = rx.try_recv() else { break };
                        items.extend(numbering.entries(&u));
                    }
                    // Messages found cut in the queue, regenerated now.
                    let (again, items): (Vec<_>, Vec<_>) =
                        items.into_iter().partition(|(seq, _)| *seq <= outbox.last_seq());
                    for (seq, e) in again {
                        numbering.lost.remove(&seq);
                        // Sent on this connection too (a resend of what
                        // follows it is idempotent for the consumers).
                        next_send = next_send.min(seq);
                        if let Err(e) = outbox.requeue(seq, e) {
                            tracing::error!("mqtt: {e}");
                        }
                    }
                    if let Err(e) = outbox.append(items) {
                        tracing::error!("mqtt: {e}");
                    }
                }
                None => rx_open = false,
            },
            m = async {
                match oob_rx.as_mut() {
                    Some(r) => r.recv().await,
                    None => std::future::pending().await,
                }
            } => match m {
                Some(Extra::Retained { topic, payload }) => {
                    retained = Some((topic, payload));
                    retained_sent = false;
                }
                Some(Extra::Message(payload)) => {
                    if oob.len() >= OUT_OF_BAND_MAX {
                        if let Some((id, _)) = oob.pop_front() {
                            tracing::warn!(
                                "mqtt: broker {}: out-of-band message {id} dropped unsent \
                                 (more than {OUT_OF_BAND_MAX} waiting)",
                                uplink.broker
                            );
                        }
                    }
                    oob.push_back((oob_next, payload));
                    oob_next += 1;
                }
                None => oob_rx = None,
            },
            r = async {
                match presence.as_mut() {
                    Some(p) => (&mut p.stop).await,
                    None => std::future::pending().await,
                }
            } => {
                let Some(p) = presence.take() else { continue };
                if r.is_ok() {
                    if connected {
                        super::status::stop_cleanly(&client, &mut el, &p, &uplink.broker, order.len())
                            .await;
                    }
                    // `p.done` is dropped: the daemon's stop goes on.
                    return;
                }
            }
            _ = async {
                match reconnect_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            } => {
                reconnect_at = None;
                (client, el) = connection(&options);
            }
            ev = async {
                match el.recv().await {
                    Some(ev) => ev,
                    // The task ended after an error it sent (never here).
                    None => std::future::pending().await,
                }
            }, if reconnect_at.is_none() => match ev {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    connected = true;
                    connections += 1;
                    backoff.reset();
                    if outage.recovered() {
                        tracing::info!("mqtt: connected to {}", uplink.broker);
                    }
                    problem = None;
                    order.clear();
                    inflight.clear();
                    outstanding = 0;
                    next_send = 0;
                    snapshot_sent = false;
                    retained_sent = false;
                    oob_sent = 0;
                    if let Some(p) = &presence {
                        let online = p.presence.online.clone();
                        match client.try_publish(&p.presence.topic, QoS::AtLeastOnce, true, online) {
                            Ok(()) => order.push_back(Sent::Status),
                            Err(e) => tracing::warn!("mqtt: the board's status not published: {e}"),
                        }
                    }
                }
                Ok(Event::Outgoing(Outgoing::Publish(pkid))) => {
                    if let Some(seq) = order.pop_front() {
                        inflight.insert(pkid, seq);
                    }
                }
                Ok(Event::Incoming(Packet::PubAck(a))) => {
                    match inflight.remove(&a.pkid) {
                        Some(Sent::Message(seq)) => {
                            outstanding = outstanding.saturating_sub(1);
                            if let Err(e) = outbox.ack(seq) {
                                tracing::error!("mqtt: {e}");
                            }
                        }
                        Some(Sent::OutOfBand(id)) => {
                            outstanding = outstanding.saturating_sub(1);
                            oob.retain(|(i, _)| *i != id);
                        }
                        Some(Sent::Snapshot | Sent::Retained | Sent::Status) | None => {}
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    let why = uplink.broker.explain(&e);
                    if outage.failed(&why) {
                        tracing::warn!(
                            "mqtt: broker {}: {why}; {} message(s) kept queued, retrying",
                            uplink.broker,
                            outbox.pending()
                        );
                    }
                    problem = Some(LinkProblem::of(&e));
                    connected = false;
                    reconnect_at = Some(Instant::now() + backoff.next_wait());
                }
            },
        }
    }
}
