//! `eboard relay --mqtt`: every board of an event rebuilt from the broker
//! into one [`Channel`], which serves the same merged feeds as the HTTP
//! relay (`/games.pgn`, the LiveChess tree, `/events`), boards in
//! (round, board) order.
//!
//! Per board, the messages are taken in sequence order: duplicates (a
//! board's resend after an outage or a restart) are dropped, early ones
//! wait for the gap to fill, at most [`GAP_WAIT`] (a message published
//! while this relay was away never comes: the board's snapshot covers it).
//! The retained snapshot gives a relay that starts late the game at once.
//! When messages are skipped (published while this relay was not
//! subscribed, e.g. a broker restart that the board reconnected to first),
//! the stream gets the board's `state` message after the gap, so the
//! relay's clients resynchronise as after a reconnection.
//! A broker drops messages for a subscriber whose queue is full (a hundred
//! boards resending at once what they queued during its outage): the
//! relay subscribes again after each connection and each gap skipped, on
//! the schedule of [`super::refresh`], and the retained snapshots sent
//! again bring every board up to its latest state, its game's end among it
//! (a message lost at the end of a stream leaves no gap to see).
//! Relays share nothing: several can serve the same event side by side.
//!
//! With a console ([`Outputs::console`]) the relay also follows the
//! tables' arbiter channels ([`super::arbiter`]: undelayed, behind the
//! broker's ACL), rebuilt the same way (the same wire, the same dedupe and
//! order), into the console's channel: its board view and alert queue are
//! undelayed for every table whose arbiter channel arrives, and the public
//! stream stands in for the others. A table whose public snapshot
//! announces its arbiter channel but of which nothing arrives within
//! [`ARBITER_GRACE`] (the broker's ACL keeps it from this relay's user,
//! or the board's user may not write it: mosquitto drops such messages
//! silently), and a refused subscription (SUBACK 0x80), are logged at warn
//! and alerted on the console (`uplink_alert`), once. Each table's
//! retained alert list (`…/arbiter/alerts`, [`alert_list`]) goes into the
//! console's alert queue ([`Outputs::alerts`]): the alerts published while
//! this relay was away (started late, restarted, or subscribed again after
//! a broker restart).
//!
//! Every message is bound to its source ([`super::bound`], issue 41): a
//! table's messages are taken only about that table's game (the round and
//! board of a public topic, the board of an arbiter topic, and the round of
//! the table's game where it is known), only of the rounds and boards
//! followed ([`Scope`]; without rounds, the latest round per table, whose
//! earlier game leaves the view), up to [`bound::MAX_MESSAGE`] bytes, for
//! at most [`bound::MAX_GAMES`] games, of no game started in the future and
//! with no sequence number far ahead; the rest is dropped with a warn line
//! and an `uplink_alert` on the console (rate-limited, [`bound::Refusals`]).
//!
//! With a console the relay also follows the tables' status
//! ([`super::status`]: retained, the board's will): a board offline, and
//! back online after that, become `board_offline` / `board_resumed`
//! alerts on the console, as on the HTTP relay (not on the public feeds).

use super::alert_list;
use super::arbiter::{self, Follow};
pub use super::bound::Scope;
use super::bound::{self, Refusals};
use super::refresh::Refresh;
pub use super::stream::GAP_WAIT;
use super::stream::{BoardStream, Public};
use super::{BrokerAddr, Wire};
use crate::broadcast::delay::Channel;
use crate::retry::{Backoff, Outage};
use rumqttc::{AsyncClient, Event, Packet, QoS, SubscribeFilter, SubscribeReasonCode};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// How long after a table's public snapshot announced its arbiter channel
/// the relay waits for anything of it before it reports the channel
/// missing (the board's two connections come up within a second or two).
pub const ARBITER_GRACE: Duration = Duration::from_secs(10);
/// How many out-of-band arbiter messages per table the relay remembers to
/// drop their resends.
pub const OUT_OF_BAND_SEEN: usize = 1024;

/// Where a relay's rebuilt streams go.
#[derive(Debug, Clone)]
pub struct Outputs {
    /// The public (delayed) channel: the merged feeds.
    pub public: Arc<Channel>,
    /// The console's channel (`None`: no console, and the arbiter topics
    /// are not followed): each table's arbiter channel where it arrives,
    /// the public stream of the other games, the relay's own alerts.
    pub console: Option<Arc<Channel>>,
    /// Where the alerts of the boards' retained alert lists go
    /// ([`super::alert_list`]: the console's alert queue, which takes the
    /// same message once), as JSON text; `None`: dropped. They do not go
    /// on the console's stream (its readers had them, or the queue shows
    /// them).
    pub alerts: Option<mpsc::UnboundedSender<Arc<str>>>,
    /// The rounds and boards followed (default: every round, the latest
    /// per table, and every table).
    pub scope: Scope,
    /// The event's pairings (`[arbiter] pairings`): a table's snapshot
    /// must name the pairing's players ([`bound::check_players`]); `None`:
    /// the round and board only.
    pub pairings: Option<bound::Pairings>,
}

/// The first wait before reconnecting to the broker.
pub const RETRY_MIN: Duration = Duration::from_millis(500);
/// The longest wait before reconnecting to the broker.
pub const RETRY_MAX: Duration = Duration::from_secs(5);

/// The relay's clock, Unix ms (for [`bound::check_numbers`]).
fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Splits `{prefix}/{event}/{round}/{board}/{kind}` into the board's key and the kind.
fn board_of<'a>(prefix: &str, topic: &'a str) -> Option<((String, u32, u32), &'a str)> {
    let rest = topic.strip_prefix(prefix)?.strip_prefix('/')?;
    let mut parts = rest.split('/');
    let (event, round, board, kind) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    Some((
        (event.to_owned(), round.parse().ok()?, board.parse().ok()?),
        kind,
    ))
}

/// One table's arbiter channel as rebuilt so far.
#[derive(Debug, Default)]
struct Table {
    stream: BoardStream,
    follow: Follow,
    /// The game (`r.b`) whose public snapshot announced it.
    game: Option<String>,
    /// Out-of-band messages seen, (epoch, boot, number), oldest first.
    seen: VecDeque<(u64, u64, u64)>,
}

impl Table {
    /// Whether out-of-band message `key` is new here (it is remembered).
    fn first_time(&mut self, key: (u64, u64, u64)) -> bool {
        if self.seen.contains(&key) {
            return false;
        }
        if self.seen.len() >= OUT_OF_BAND_SEEN {
            self.seen.pop_front();
        }
        self.seen.push_back(key);
        true
    }
}

/// Starts following the public topics of `event` (every event when
/// `None`; a name, made topic-safe) on `broker` into `out`, with no
/// console: [`start_with`].
pub fn start(
    rt: &tokio::runtime::Handle,
    broker: BrokerAddr,
    prefix: String,
    event: Option<String>,
    out: Arc<Channel>,
) -> Result<(), String> {
    start_with(
        rt,
        broker,
        prefix,
        event,
        Outputs {
            public: out,
            console: None,
            alerts: None,
            scope: Scope::default(),
            pairings: None,
        },
    )
}

/// Starts following `{prefix}/{event}/+/+/events` and `…/snapshot` (every
/// event when `event` is `None`; `event` is a name, made topic-safe) on
/// `broker` (its address, TLS and login: [`BrokerAddr::options`]) into
/// `out.public`, on `rt`; with `out.console`, also the tables' arbiter
/// channels (`{prefix}/{event}/board/+/arbiter/#`) into it, when the broker
/// is reached over TLS or on this host and with a login
/// ([`arbiter::check_broker`]; else a warn line and a console alert).
/// Errors: a bad prefix, or the TLS set-up. A broker that cannot be
/// reached, refuses the login or the certificate is reported in the log
/// (again when the reason changes: [`Outage`]) and retried after
/// [`RETRY_MIN`] doubling up to [`RETRY_MAX`] ([`Backoff`]).
pub fn start_with(
    rt: &tokio::runtime::Handle,
    broker: BrokerAddr,
    prefix: String,
    event: Option<String>,
    out: Outputs,
) -> Result<(), String> {
    super::check_prefix(&prefix)?;
    let level = event
        .as_deref()
        .map_or_else(|| "+".to_owned(), |e| super::slug(Some(e)));
    let mut filters = bound::public_filters(&out.scope, &format!("{prefix}/{level}"));
    let user = broker.login.as_ref().map(|l| l.username.clone());
    let arbiter_filter = arbiter::filter(&prefix, event.as_deref());
    if out.console.is_some() {
        filters.push(super::status::filter(&prefix, event.as_deref()));
    }
    let follow_arbiter = match &out.console {
        None => false,
        Some(console) => match arbiter::check_broker(&broker) {
            Ok(()) => {
                filters.push(arbiter_filter.clone());
                true
            }
            Err(why) => {
                tracing::warn!(
                    "relay: the boards' arbiter channels are not followed: {why}; the console's \
                     alerts come from the public feeds, after the broadcast delay"
                );
                console.publish(
                    0,
                    None,
                    &[arbiter::missing_alert(
                        None,
                        &arbiter_filter,
                        user.as_deref(),
                        &format!("not followed: {why}"),
                    )],
                );
                false
            }
        },
    };
    let client_id = format!(
        "eboard-relay-{}-{:x}",
        std::process::id(),
        rand::random::<u32>()
    );
    let o = broker.options(client_id)?;
    rt.spawn(async move {
        let (client, mut el) = AsyncClient::new(o, 16);
        let console = out.console.clone();
        let mut boards: HashMap<(String, u32, u32), BoardStream> = HashMap::new();
        let mut tables: HashMap<(String, u32), Table> = HashMap::new();
        // Games whose arbiter channel is received: their public stream
        // goes to the public channel only.
        let mut covered: HashSet<(String, u32, u32)> = HashSet::new();
        // Tables noted (info) as not publishing their arbiter channel.
        let mut not_published: HashSet<(String, u32)> = HashSet::new();
        let mut refused: HashSet<String> = HashSet::new();
        let mut presence = super::status::Tracker::default();
        let scope = out.scope.clone();
        let mut refusals = Refusals::new("mqtt");
        // The pairing's players, per game (public topics) and per table.
        let mut game_players = bound::Players::new(out.pairings.clone());
        let mut table_players = bound::Players::new(out.pairings.clone());
        // Without rounds given: the round followed per table, (event, board).
        let mut latest: HashMap<(String, u32), u32> = HashMap::new();
        let mut subscribed = false;
        // Connected now, and when to subscribe again (module doc).
        let mut connected = false;
        let mut refresh = Refresh::default();
        // The same SUBSCRIBE each time: its SUBACK reads the same, and the
        // retained messages come again (MQTT 3.1.1 §3.8.4), which every
        // consumer here takes once (a snapshot by its sequence number, a
        // status or an alert list by its content).
        let subscribe = |client: &AsyncClient| {
            let subs = filters.iter().map(|f| SubscribeFilter::new(f.clone(), QoS::AtLeastOnce));
            if let Err(e) = client.try_subscribe_many(subs) {
                tracing::error!("relay: cannot subscribe to {}: {e}", filters.join(", "));
            }
        };
        let mut tick = tokio::time::interval(GAP_WAIT / 4);
        let mut outage = Outage::default();
        let mut backoff = Backoff::new(RETRY_MIN, RETRY_MAX);
        let who = user.as_deref().unwrap_or("(anonymous)");
        loop {
            tokio::select! {
                ev = el.poll() => match ev {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        backoff.reset();
                        if outage.recovered() {
                            tracing::info!("relay: connected to {broker}");
                        }
                        connected = true;
                        subscribe(&client);
                        refresh.start(Instant::now());
                    }
                    Ok(Event::Incoming(Packet::SubAck(a))) => {
                        let granted: Vec<&str> = filters
                            .iter()
                            .zip(&a.return_codes)
                            .filter(|(_, c)| matches!(c, SubscribeReasonCode::Success(_)))
                            .map(|(f, _)| f.as_str())
                            .collect();
                        if !subscribed {
                            subscribed = true;
                            tracing::info!("relay: subscribed to {}", granted.join(", "));
                        }
                        for (f, code) in filters.iter().zip(&a.return_codes) {
                            if !matches!(code, SubscribeReasonCode::Failure) || !refused.insert(f.clone()) {
                                continue;
                            }
                            let why = format!(
                                "the broker refused the subscription to {f} (SUBACK 0x80: its ACL or an \
                                 auth plugin denies user {who})"
                            );
                            tracing::warn!("relay: {why}");
                            if let (Some(c), true) = (&console, *f == arbiter_filter) {
                                c.publish(0, None, &[arbiter::missing_alert(None, f, user.as_deref(), &why)]);
                            }
                        }
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        let now = Instant::now();
                        let now_ms = unix_now_ms();
                        let mut refuse = |why: &str| {
                            if let (Some(a), Some(c)) = (refusals.refuse(&p.topic, why, now), &console) {
                                c.publish(0, None, &[a]);
                            }
                        };
                        if p.payload.len() > bound::MAX_MESSAGE {
                            refuse(&format!(
                                "{} bytes, more than the {} taken from a table's topic (a real game's snapshot is a few KB)",
                                p.payload.len(),
                                bound::MAX_MESSAGE
                            ));
                            continue;
                        }
                        if let (Some(c), Some(table)) = (&console, super::status::table_of(&prefix, &p.topic)) {
                            if !scope.has_board(table.1) {
                                continue;
                            }
                            let named = serde_json::from_slice::<serde_json::Value>(&p.payload)
                                .ok()
                                .and_then(|v| v.get("game").and_then(|g| g.as_str()).map(str::to_owned));
                            if let Some(Err(why)) = named.map(|g| bound::check_game(&g, None, table.1)) {
                                refuse(&why);
                                continue;
                            }
                            if let Some(m) = presence.take(table, &p.topic, &p.payload) {
                                c.publish(0, None, &[m]);
                            }
                            continue;
                        }
                        if let (true, Some(c), Some((table, kind))) =
                            (follow_arbiter, &console, arbiter::table_of(&prefix, &p.topic))
                        {
                            if !scope.has_board(table.1) {
                                continue;
                            }
                            if kind == "alerts" {
                                if let Some(tx) = &out.alerts {
                                    let game_of = |epoch: u64| {
                                        tables
                                            .values()
                                            .find(|t| t.follow.announced.is_some_and(|(e, _)| e == epoch))
                                            .and_then(|t| t.game.clone())
                                    };
                                    let board = table.1;
                                    let check = |a: &serde_json::Value| match a.get("game").and_then(|g| g.as_str()) {
                                        Some(g) => bound::check_game(g, None, board),
                                        None => Ok(()),
                                    };
                                    let why = alert_list::feed(&p.payload, &p.topic, table.1, game_of, check, tx);
                                    if let Some(first) = why.first() {
                                        refuse(&format!("{} of its alerts: {first}", why.len()));
                                    }
                                }
                                continue;
                            }
                            let w = match serde_json::from_slice::<Wire>(&p.payload) {
                                Ok(w) => w,
                                Err(e) => {
                                    tracing::info!(topic = %p.topic, error = %e, "relay: message not understood");
                                    continue;
                                }
                            };
                            // The table's game, when its stream is of this one.
                            let known = tables.get(&table).and_then(|t| {
                                t.stream.snapshot.as_ref().filter(|_| t.stream.epoch() == w.epoch).map(|s| s.info.round)
                            });
                            let checked = bound::check_numbers(&w, now_ms)
                                .and_then(|()| bound::check_wire(&w, known, table.1))
                                .and_then(|()| table_players.check(&table, &w))
                                .and_then(|()| match tables.get(&table).and_then(|t| t.stream.too_far(&w)) {
                                    Some(why) if w.oob.is_none() => Err(why),
                                    _ => Ok(()),
                                })
                                .and_then(|()| {
                                    if tables.len() >= bound::MAX_GAMES && !tables.contains_key(&table) {
                                        Err(format!("this relay follows {} tables already", bound::MAX_GAMES))
                                    } else {
                                        Ok(())
                                    }
                                });
                            if let Err(why) = checked {
                                refuse(&why);
                                continue;
                            }
                            let round = w
                                .snapshot
                                .as_ref()
                                .map(|s| s.info.round)
                                .or_else(|| w.msg.as_ref().and_then(|m| m.get("game")?.as_str()).and_then(crate::broadcast::delay::parse_game_id).map(|g| g.0));
                            if round.is_some_and(|r| !scope.has_round(r)) {
                                tracing::debug!(topic = %p.topic, ?round, "relay: a round not followed");
                                continue;
                            }
                            let t = tables.entry(table.clone()).or_default();
                            if t.follow.received.is_none() {
                                tracing::info!("relay: table {} of {}: its arbiter channel is followed (undelayed, for the console)", table.1, table.0);
                            } else if t.follow.reported {
                                tracing::info!("relay: table {} of {}: its arbiter channel arrives now", table.1, table.0);
                                t.follow.reported = false;
                            }
                            t.follow.received = Some(t.follow.received.map_or(w.epoch, |r| r.max(w.epoch)));
                            match (w.oob, kind) {
                                (Some(n), _) => {
                                    // A resend (the board's, after an outage) is dropped.
                                    let new = t.first_time((w.epoch, w.boot.unwrap_or(0), n));
                                    if let (true, Some(m)) = (new, &w.msg) {
                                        c.publish(0, None, &[Arc::from(m.to_string())]);
                                    }
                                }
                                (None, "events" | "snapshot") => {
                                    let gap = t.stream.take(w, kind == "snapshot", c.as_ref(), now);
                                    if gap {
                                        refresh.arm(now);
                                    }
                                }
                                _ => {}
                            }
                            if let Some(s) = &t.stream.snapshot {
                                covered.insert((table.0.clone(), s.info.round, s.info.board));
                            }
                            continue;
                        }
                        let Some((key, kind)) = board_of(&prefix, &p.topic) else { continue };
                        let snapshot = match kind {
                            "events" => false,
                            "snapshot" => true,
                            _ => continue,
                        };
                        if !scope.has_board(key.2) || !scope.has_round(key.1) {
                            continue;
                        }
                        match serde_json::from_slice::<Wire>(&p.payload) {
                            Ok(w) => {
                                let table = (key.0.clone(), key.2);
                                let checked = bound::check_numbers(&w, now_ms)
                                    .and_then(|()| bound::check_wire(&w, Some(key.1), key.2))
                                    .and_then(|()| game_players.check(&key, &w))
                                    .and_then(|()| match boards.get(&key).and_then(|b| b.too_far(&w)) {
                                        Some(why) => Err(why),
                                        None => Ok(()),
                                    })
                                    .and_then(|()| {
                                        if boards.len() >= bound::MAX_GAMES && !boards.contains_key(&key) {
                                            Err(format!("this relay keeps {} games already", bound::MAX_GAMES))
                                        } else {
                                            Ok(())
                                        }
                                    });
                                if let Err(why) = checked {
                                    refuse(&why);
                                    continue;
                                }
                                if scope.rounds.is_empty() {
                                    // The latest round per table: an earlier
                                    // round's game is not followed, and leaves.
                                    let r = latest.entry(table.clone()).or_insert(key.1);
                                    if key.1 < *r {
                                        tracing::debug!(topic = %p.topic, "relay: an earlier round than the table's latest");
                                        continue;
                                    }
                                    if key.1 > *r {
                                        let old = std::mem::replace(r, key.1);
                                        tracing::info!("relay: board {} of {} plays round {} now: game {old}.{} leaves", key.2, key.0, key.1, key.2);
                                        boards.remove(&(key.0.clone(), old, key.2));
                                        out.public.forget((old, key.2));
                                        if let Some(c) = &console {
                                            if !covered.contains(&(key.0.clone(), old, key.2)) {
                                                c.forget((old, key.2));
                                            }
                                        }
                                    }
                                }
                                if snapshot && follow_arbiter {
                                    if w.arbiter_channel {
                                        let t = tables.entry(table).or_default();
                                        if t.follow.announced.is_none_or(|(e, _)| e < w.epoch) {
                                            t.follow.announced = Some((w.epoch, now));
                                            t.follow.reported = false;
                                            t.game = Some(format!("{}.{}", key.1, key.2));
                                        }
                                    } else if not_published.insert(table) {
                                        tracing::info!(
                                            "relay: board {}.{} of {} does not publish its arbiter channel \
                                             ([mqtt] arbiter_channel): its alerts reach the console after the broadcast delay",
                                            key.1, key.2, key.0
                                        );
                                    }
                                }
                                let sink = Public {
                                    public: &out.public,
                                    console: console.as_deref().filter(|_| !covered.contains(&key)),
                                };
                                if boards.entry(key).or_default().take(w, snapshot, &sink, now) {
                                    refresh.arm(now);
                                }
                            }
                            Err(e) => tracing::info!(topic = %p.topic, error = %e, "relay: message not understood"),
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        connected = false;
                        let why = broker.explain(&e);
                        if outage.failed(&why) {
                            tracing::warn!("relay: broker {broker}: {why}; retrying");
                        }
                        tokio::time::sleep(backoff.next_wait()).await;
                    }
                },
                _ = tick.tick() => {
                    let now = Instant::now();
                    for (key, b) in boards.iter_mut() {
                        let sink = Public {
                            public: &out.public,
                            console: console.as_deref().filter(|_| !covered.contains(key)),
                        };
                        if b.drain(&sink, now) {
                            refresh.arm(now);
                        }
                    }
                    let console_gap = console.as_deref().is_some_and(|c| {
                        tables.values_mut().fold(false, |gap, t| t.stream.drain(c, now) | gap)
                    });
                    if console_gap {
                        refresh.arm(now);
                    }
                    if connected && refresh.due(now) {
                        tracing::debug!("relay: subscribed again: the retained snapshots once more");
                        subscribe(&client);
                    }
                    let Some(c) = console.as_deref() else { continue };
                    for ((ev, n), t) in tables.iter_mut() {
                        if let Some(s) = &t.stream.snapshot {
                            covered.insert((ev.clone(), s.info.round, s.info.board));
                        }
                        if t.follow.overdue(now, ARBITER_GRACE) {
                            t.follow.reported = true;
                            let topic = format!("{prefix}/{ev}/board/{n}/arbiter/#");
                            let why = format!(
                                "board {} announces its arbiter channel, but nothing of it reached this relay \
                                 in {} s: the broker's ACL may keep user {who} from reading {topic}, or board \
                                 {n}'s user from writing it (mosquitto drops such messages silently)",
                                t.game.as_deref().unwrap_or("?"),
                                ARBITER_GRACE.as_secs()
                            );
                            tracing::warn!("relay: {why}");
                            c.publish(0, None, &[arbiter::missing_alert(t.game.as_deref(), &topic, user.as_deref(), &why)]);
                        }
                    }
                }
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_split() {
        assert_eq!(
            board_of("eboard", "eboard/dm-2026/3/12/events"),
            Some((("dm-2026".into(), 3, 12), "events"))
        );
        assert_eq!(board_of("eboard", "eboard/dm/x/1/events"), None);
        assert_eq!(board_of("eboard", "other/dm/1/1/events"), None);
    }
}
