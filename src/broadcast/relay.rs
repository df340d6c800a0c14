//! The relay: one event's feed merged from many board daemons.
//!
//! For each board daemon (its base URL) the relay follows the public event
//! stream (`/events`) and forwards every message at once to its own
//! stream; after each message (and every [`REFRESH`] anyway) it reads the
//! board's snapshots (`/boards.json`) into its view, which serves the
//! merged `/games.pgn` and LiveChess tree, boards in (round, board) order.
//! The daemons have already applied the transmission delay; the relay adds
//! none. A daemon that cannot be reached is retried after [`RETRY_MIN`]
//! doubling up to [`RETRY_MAX`] ([`Backoff`]), reported once per reason
//! ([`Outage`]).
//!
//! The event stream is read with `eventsource-stream` over reqwest's byte
//! stream ([`event_data`]): a UTF-8 character split between two chunks
//! arrives whole, and an event larger than [`MAX_EVENT`] ends the stream.
//! On reconnecting, the relay sends the board the id of the last message it
//! had (`Last-Event-ID`, as a browser does): the board sends what the relay
//! missed, so a board lost for a moment leaves no gap and no message twice
//! ([`crate::server::subscription::Subscription::resume`]).
//!
//! A board's public stream ends after a lease (`crate::server::lease`,
//! docs/server.md) with an `event: lease` whose id is a proof: the relay
//! forwards nothing of it, keeps the id and reconnects at once, without
//! an outage reported, so it stays a proven reader of the board.
//!
//! Every board URL is bound to its table ([`super::binding`], issue 41):
//! what it serves of another table's game, of a game whose players are not
//! the pairing's, or beyond the caps is dropped and alerted, never
//! published nor taken as the forwarding table's board.

pub use super::binding::Bind;
use super::binding::{Binding, Table, MAX_SNAPSHOTS_BODY};
use super::delay::Channel;
pub use super::event_stream::{event_data, events, MAX_EVENT};
use super::public::Snapshot;
use crate::retry::{Backoff, Outage};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// How often a board's snapshots are read when its stream is quiet.
pub const REFRESH: Duration = Duration::from_secs(5);
/// The first wait before reconnecting to a board daemon.
pub const RETRY_MIN: Duration = Duration::from_millis(500);
/// The longest wait before reconnecting to a board daemon.
pub const RETRY_MAX: Duration = Duration::from_secs(5);
/// The longest a snapshot read may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Checks a board daemon's base URL (`http://host:port` or
/// `https://host:port`, no trailing slash kept; a `#sha256=…` pin is not
/// part of it, see [`board_pin`]).
pub fn base_url(url: &str) -> Result<String, String> {
    let u = super::binding::split_source(url)?.1;
    let u = u
        .split_once('#')
        .map_or(u, |(b, _)| b)
        .trim_end_matches('/');
    let scheme_len = if u.starts_with("http://") {
        "http://".len()
    } else if u.starts_with("https://") {
        "https://".len()
    } else {
        0
    };
    if scheme_len == 0 || u.len() <= scheme_len {
        return Err(format!(
            "{url}: give a board daemon's base URL, e.g. http://192.168.1.21:8080 or \
             https://192.168.1.21:8080#sha256=FINGERPRINT (docs/server.md)"
        ));
    }
    Ok(u.to_owned())
}

/// The certificate pin of a board URL: `https://host:port#sha256=AB:CD:…`
/// (the fingerprint the board prints at start; the fragment is never sent).
/// `None` when the URL has none.
pub fn board_pin(url: &str) -> Result<Option<[u8; 32]>, String> {
    let Some((_, fragment)) = super::binding::split_source(url)?.1.split_once('#') else {
        return Ok(None);
    };
    let Some(print) = fragment.strip_prefix("sha256=") else {
        return Err(format!("{url}: after '#' give sha256=FINGERPRINT"));
    };
    crate::tls::parse_pin(print)
        .map(Some)
        .map_err(|e| format!("{url}: {e}"))
}

/// The HTTP client a relay reaches its boards with: the boards' pinned
/// certificates of `urls` accepted ([`crate::tls::pinned_client_config`]),
/// other HTTPS servers checked against the webpki roots.
pub fn board_client(urls: &[String], connect_timeout: Duration) -> Result<reqwest::Client, String> {
    let mut pins = Vec::new();
    for u in urls {
        if let Some(p) = board_pin(u)? {
            pins.push(p);
        }
    }
    let tls = crate::tls::pinned_client_config(&pins)?;
    reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .use_preconfigured_tls((*tls).clone())
        .build()
        .map_err(|e| format!("relay: {}", crate::tls::error_chain(&e)))
}

/// Which of a board's feeds is followed: the public one, or the arbiter's
/// (undelayed, with the relay's token).
#[derive(Clone)]
struct Feed {
    /// The stream's path (`/events`, `/arbiter/events`).
    events: &'static str,
    /// The snapshots' path (`/boards.json`, `/arbiter/state`).
    snapshots: &'static str,
    /// The bearer token (the arbiter's feed).
    token: Option<Arc<str>>,
    /// Told each game a board plays (the relay's forwarding table).
    on_game: Option<OnGame>,
    /// The games each board plays, for its offline alerts.
    games: Arc<std::sync::Mutex<Vec<String>>>,
    /// Every source's table ([`super::binding`]), shared by the feed's sources.
    binding: Arc<Binding>,
}

/// Told `(game "round.board", base URL)` for each game a board's snapshots show.
pub type OnGame = Arc<dyn Fn(&str, &str) + Send + Sync>;

/// Starts following `urls` into `out` on `rt`, each URL bound to the
/// first table it reports ([`start_bound`] with no scope, no pairings and
/// the refusals logged only).
pub fn start(
    rt: &tokio::runtime::Handle,
    urls: Vec<String>,
    out: Arc<Channel>,
) -> Result<(), String> {
    start_bound(rt, urls, out, Bind::default())
}

/// Starts following `urls` (each `URL`, `N=URL` or `R.N=URL`:
/// [`super::binding::split_source`]) into `out` on `rt`, every source
/// bound to its table under `bind`.
pub fn start_bound(
    rt: &tokio::runtime::Handle,
    urls: Vec<String>,
    out: Arc<Channel>,
    bind: Bind,
) -> Result<(), String> {
    let binding = Arc::new(binding(&urls, bind)?.public());
    spawn_all(rt, urls, out, || Feed {
        events: "/events",
        snapshots: "/boards.json",
        token: None,
        on_game: None,
        games: Arc::default(),
        binding: binding.clone(),
    })
}

/// The bindings of `urls` under `bind`.
fn binding(urls: &[String], bind: Bind) -> Result<Binding, String> {
    let mut sources: Vec<(String, Table)> = Vec::new();
    for u in urls {
        let (table, _) = super::binding::split_source(u)?;
        sources.push((base_url(u)?, table));
    }
    Binding::new(bind, &sources)
}

/// Starts following the arbiter's channel of each of `urls` (`GET
/// /arbiter/events` and `/arbiter/state`, undelayed, with the relay's
/// `token`) into `out` on `rt`: the console's merged channel. `on_game` is
/// told which board plays which game; a board that cannot be followed gives
/// one `{"type": "board_offline", "game", "base", "reason"}` message per
/// outage, and `{"type": "board_resumed", …}` when it is followed again.
/// Every source is bound to its table under `bind`, as in [`start_bound`]:
/// `on_game` is told only the games a board may report.
pub fn start_arbiter(
    rt: &tokio::runtime::Handle,
    urls: Vec<String>,
    token: &str,
    out: Arc<Channel>,
    on_game: OnGame,
    bind: Bind,
) -> Result<(), String> {
    let binding = Arc::new(binding(&urls, bind)?);
    let token: Arc<str> = Arc::from(token);
    spawn_all(rt, urls, out, || Feed {
        events: "/arbiter/events",
        snapshots: "/arbiter/state",
        token: Some(token.clone()),
        on_game: Some(on_game.clone()),
        games: Arc::default(),
        binding: binding.clone(),
    })
}

fn spawn_all(
    rt: &tokio::runtime::Handle,
    urls: Vec<String>,
    out: Arc<Channel>,
    feed: impl Fn() -> Feed,
) -> Result<(), String> {
    let bases = urls
        .iter()
        .map(|u| base_url(u))
        .collect::<Result<Vec<_>, _>>()?;
    let client = board_client(&urls, FETCH_TIMEOUT)?;
    for base in bases {
        let notify = Arc::new(Notify::new());
        let f = feed();
        rt.spawn(refresher(
            client.clone(),
            base.clone(),
            out.clone(),
            notify.clone(),
            f.clone(),
        ));
        rt.spawn(follow(client.clone(), base, out.clone(), notify, f));
    }
    Ok(())
}

/// Reads a board's snapshots whenever told (coalesced) or every [`REFRESH`].
async fn refresher(
    client: reqwest::Client,
    base: String,
    out: Arc<Channel>,
    notify: Arc<Notify>,
    feed: Feed,
) {
    loop {
        match fetch_boards(&client, &base, &feed).await {
            Ok(list) => {
                let taken = feed.binding.snapshots(&base, list);
                if let Some(f) = &feed.on_game {
                    for s in &taken.snapshots {
                        f(&s.info.id(), &base);
                    }
                }
                *feed.games.lock().unwrap_or_else(|e| e.into_inner()) =
                    feed.binding.games_of(&base);
                for game in taken.forget {
                    // The console keeps a table's earlier game (its result
                    // may still be confirmed), as the MQTT relay's does;
                    // the public feeds follow the table's latest.
                    if feed.token.is_none() || !feed.binding.keep_retired() {
                        out.forget(game);
                    }
                }
                for s in taken.snapshots {
                    out.publish(0, Some(Arc::new(s)), &[]);
                }
                for m in taken.release {
                    out.publish(0, None, &[m]);
                }
            }
            Err(e) => tracing::info!(%base, error = %e, "relay: snapshots not read"),
        }
        let _ = tokio::time::timeout(REFRESH, notify.notified()).await;
    }
}

async fn fetch_boards(
    client: &reqwest::Client,
    base: &str,
    feed: &Feed,
) -> Result<Vec<Snapshot>, String> {
    let mut req = client
        .get(format!("{base}{}", feed.snapshots))
        .timeout(FETCH_TIMEOUT);
    if let Some(t) = &feed.token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("HTTP {}", resp.status()));
    }
    // At most MAX_SNAPSHOTS_BODY, counted as it comes (issue 41).
    let mut resp = resp;
    let mut bytes = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| e.to_string())? {
        if bytes.len() + chunk.len() > MAX_SNAPSHOTS_BODY {
            feed.binding.refuse_body(base, feed.snapshots);
            return Err(format!(
                "{} over {MAX_SNAPSHOTS_BODY} bytes",
                feed.snapshots
            ));
        }
        bytes.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&bytes).map_err(|e| e.to_string())
}

/// Follows a board's event stream, forwarding each message.
async fn follow(
    client: reqwest::Client,
    base: String,
    out: Arc<Channel>,
    notify: Arc<Notify>,
    feed: Feed,
) {
    let mut backoff = Backoff::new(RETRY_MIN, RETRY_MAX);
    let mut outage = Outage::default();
    let mut offline = false;
    let mut link = Link {
        backoff: &mut backoff,
        outage: &mut outage,
        last_event_id: None,
        outages: 0,
        since: 0,
    };
    loop {
        let why = match stream_once(
            &client,
            &base,
            &out,
            &notify,
            &mut link,
            &feed,
            &mut offline,
        )
        .await
        {
            // The lease ended as designed: back at once with its proof.
            Ok(true) => continue,
            Ok(false) => "the stream ended".to_owned(),
            Err(e) => e,
        };
        if link.outage.failed(&why) {
            tracing::warn!("relay: board daemon {base}: {why}; retrying");
        }
        if feed.token.is_some() && !offline {
            offline = true;
            link.outages += 1;
            link.since = now_unix_ms();
            board_status(
                &out,
                &feed,
                &base,
                "board_offline",
                Some(&why),
                (link.outages, link.since),
            );
        }
        tokio::time::sleep(link.backoff.next_wait()).await;
        notify.notify_one();
    }
}

/// Wall time now, Unix ms.
fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Publishes the relay's own alert about board `base` (every game it plays,
/// or the base alone when none is known yet): `(outage, since)` names the
/// outage (its number in this run, and when it started, Unix ms); the
/// message is dated now (`unix_ms`).
fn board_status(
    out: &Channel,
    feed: &Feed,
    base: &str,
    kind: &str,
    why: Option<&str>,
    (outage, since): (u64, u64),
) {
    let games = feed.games.lock().map(|g| g.clone()).unwrap_or_default();
    let games: Vec<Option<String>> = if games.is_empty() {
        vec![None]
    } else {
        games.into_iter().map(Some).collect()
    };
    let msgs: Vec<Arc<str>> = games
        .into_iter()
        .map(|g| {
            Arc::from(
                serde_json::json!({
                    "type": kind, "game": g, "base": base,
                    "reason": why.map(|w| if kind == "board_offline" { offline_words(w) } else { w.to_owned() }),
                    "detail": why, "outage": outage, "since": since, "unix_ms": now_unix_ms()
                })
                .to_string(),
            )
        })
        .collect();
    out.publish(0, None, &msgs);
}

/// A `board_offline` alert's reason in an arbiter's words: what happened
/// to the link (from `why`, the HTTP client's error chain, which stays in
/// the alert's `detail` and in the relay's log at warn) and what to do.
/// The classes: the board refused the connection (switched off or
/// restarting), its stream broke off in the middle of a reply (a restart,
/// the Wi-Fi), no answer in time, the relay's credential refused (HTTP
/// 401/403), or another HTTP status.
pub(crate) fn offline_words(why: &str) -> String {
    let w = why.to_ascii_lowercase();
    let what = if w.contains("http 401") || w.contains("http 403") {
        return "the board refused the relay's credential (HTTP 401/403): check that the relay's \
                token for this board is the one in the board's config ([arbiter] relay); the board \
                plays on, its games are not followed meanwhile"
            .to_owned();
    } else if w.contains("refused") {
        "the board refused the connection: it is switched off, restarting, or its daemon stopped"
    } else if w.contains("timed out") || w.contains("timeout") {
        "the board did not answer in time: it is off the network or overloaded"
    } else if w.contains("decoding response body")
        || w.contains("error reading")
        || w.contains("reset")
        || w.contains("closed")
        || w.contains("stream ended")
        || w.contains("broken pipe")
        || w.contains("incomplete")
    {
        "the board's stream broke off in the middle of a reply: the board restarting, or the network"
    } else if w.contains("dns") || w.contains("resolve") || w.contains("unreachable") {
        "the relay cannot reach the board's address: the network, or the address in the relay's config"
    } else if let Some(at) = w.find("http ") {
        return format!(
            "the board answered the relay with {}: see the relay's log; the board may play on, its games are not followed meanwhile",
            &why[at..]
        );
    } else {
        "the relay lost the link to the board"
    };
    format!(
        "{what}. Its game goes on from its journal when it is back (the relay retries by itself); \
         if it is not back within a minute, check the board's power and network"
    )
}

/// What the relay keeps about its link to one board across reconnections.
struct Link<'a> {
    backoff: &'a mut Backoff,
    outage: &'a mut Outage,
    /// The id of the last message read from the board (sent back as
    /// `Last-Event-ID` on reconnecting).
    last_event_id: Option<String>,
    /// The board's outages so far, from 1, in its `board_offline` and
    /// `board_resumed` messages: the console's queue takes the same
    /// message twice as one alert, so a second outage must differ.
    outages: u64,
    /// When the current (or last) outage started, Unix ms: names it also
    /// across the relay's restarts (`since`).
    since: u64,
}

/// One connection to a board's event stream (`feed.events`), forwarding
/// until it ends: `Ok(true)` when it ended with its lease's event
/// (`crate::server::lease`), `Ok(false)` when it ended otherwise.
async fn stream_once(
    client: &reqwest::Client,
    base: &str,
    out: &Channel,
    notify: &Notify,
    link: &mut Link<'_>,
    feed: &Feed,
    offline: &mut bool,
) -> Result<bool, String> {
    let mut req = client
        .get(format!("{base}{}", feed.events))
        .header("accept", "text/event-stream");
    if let Some(t) = &feed.token {
        req = req.bearer_auth(t);
    }
    if let Some(id) = &link.last_event_id {
        req = req.header("last-event-id", id);
    }
    let resp = req.send().await.map_err(|e| crate::tls::error_chain(&e))?;
    if !resp.status().is_success() {
        return Err(format!("GET {base}{}: HTTP {}", feed.events, resp.status()));
    }
    link.backoff.reset();
    if link.outage.recovered() {
        tracing::info!("relay: following {base} again");
    }
    if *offline {
        *offline = false;
        board_status(
            out,
            feed,
            base,
            "board_resumed",
            None,
            (link.outages, link.since),
        );
    }
    let mut events = std::pin::pin!(events(resp.bytes_stream()));
    let mut leased = false;
    while let Some(e) = events.next().await {
        let e = e?;
        if !e.id.is_empty() {
            link.last_event_id = Some(e.id);
        }
        if e.event == super::event_id::LEASE_EVENT {
            leased = true;
            continue;
        }
        if e.data.is_empty() {
            continue;
        }
        if let Some(m) = feed.binding.message(base, Arc::from(e.data)) {
            out.publish(0, None, &[m]);
        }
        notify.notify_one();
    }
    Ok(leased)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_board_offline_reason_is_in_an_arbiters_words() {
        use super::offline_words;
        // ia16/ia17: the relay's first `board_offline` during a board
        // restart read "Transport error: error decoding response body".
        let cut = offline_words("error decoding response body: Transport error");
        assert!(
            cut.starts_with("the board's stream broke off in the middle of a reply")
                && cut.contains("if it is not back within a minute")
                && !cut.contains("Transport"),
            "{cut}"
        );
        let off = offline_words(
            "error sending request for url (http://127.0.0.1:9/events): client error (Connect): tcp connect error: Connection refused (os error 111)",
        );
        assert!(off.starts_with("the board refused the connection"), "{off}");
        let auth = offline_words("GET http://b/events: HTTP 401 Unauthorized");
        assert!(auth.contains("credential"), "{auth}");
        let other = offline_words("GET http://b/events: HTTP 500 Internal Server Error");
        assert!(other.contains("HTTP 500 Internal Server Error"), "{other}");
        assert!(offline_words("the stream ended").contains("broke off"));
    }

    use super::*;

    #[test]
    fn base_urls() {
        assert_eq!(base_url("http://h:1/").unwrap(), "http://h:1");
        let print = vec!["0A"; 32].join(":");
        let pinned = format!("https://h:8080/#sha256={print}");
        assert_eq!(base_url(&pinned).unwrap(), "https://h:8080");
        assert_eq!(board_pin(&pinned).unwrap(), Some([10u8; 32]));
        assert_eq!(board_pin("https://h:8080").unwrap(), None);
        assert!(board_pin("https://h:8080#md5=00")
            .unwrap_err()
            .contains("sha256="));
        assert!(base_url("ftp://h").is_err());
        assert!(base_url("h:1").is_err());
        assert!(base_url("https://").is_err());
    }
}
