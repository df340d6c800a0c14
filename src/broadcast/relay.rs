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
//! ([`crate::server::stream::Subscription::resume`]).

use super::delay::Channel;
use super::public::Snapshot;
use crate::retry::{Backoff, Outage};
use eventsource_stream::Eventsource;
use futures_util::{Stream, StreamExt};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// How often a board's snapshots are read when its stream is quiet.
pub const REFRESH: Duration = Duration::from_secs(5);
/// The first wait before reconnecting to a board daemon.
pub const RETRY_MIN: Duration = Duration::from_millis(500);
/// The longest wait before reconnecting to a board daemon.
pub const RETRY_MAX: Duration = Duration::from_secs(5);
/// The most bytes one event of a board's stream may take (a message with
/// its snapshot is a few KiB).
pub const MAX_EVENT: usize = 1 << 20;
/// The longest a snapshot read may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Checks a board daemon's base URL (`http://host:port`, no trailing slash kept).
pub fn base_url(url: &str) -> Result<String, String> {
    let u = url.trim().trim_end_matches('/');
    if !u.starts_with("http://") || u.len() <= "http://".len() {
        return Err(format!(
            "{url}: give a board daemon's base URL, e.g. http://192.168.1.21:8080"
        ));
    }
    Ok(u.to_owned())
}

/// Starts following `urls` into `out` on `rt`.
pub fn start(
    rt: &tokio::runtime::Handle,
    urls: Vec<String>,
    out: Arc<Channel>,
) -> Result<(), String> {
    let bases = urls
        .iter()
        .map(|u| base_url(u))
        .collect::<Result<Vec<_>, _>>()?;
    let client = reqwest::Client::builder()
        .connect_timeout(FETCH_TIMEOUT)
        .build()
        .map_err(|e| format!("relay: {e}"))?;
    for base in bases {
        let notify = Arc::new(Notify::new());
        rt.spawn(refresher(
            client.clone(),
            base.clone(),
            out.clone(),
            notify.clone(),
        ));
        rt.spawn(follow(client.clone(), base, out.clone(), notify));
    }
    Ok(())
}

/// Reads a board's snapshots whenever told (coalesced) or every [`REFRESH`].
async fn refresher(client: reqwest::Client, base: String, out: Arc<Channel>, notify: Arc<Notify>) {
    loop {
        match fetch_boards(&client, &base).await {
            Ok(list) => {
                for s in list {
                    out.publish(0, Some(Arc::new(s)), &[]);
                }
            }
            Err(e) => tracing::info!(%base, error = %e, "relay: snapshots not read"),
        }
        let _ = tokio::time::timeout(REFRESH, notify.notified()).await;
    }
}

async fn fetch_boards(client: &reqwest::Client, base: &str) -> Result<Vec<Snapshot>, String> {
    let resp = client
        .get(format!("{base}/boards.json"))
        .timeout(FETCH_TIMEOUT)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let bytes = resp.bytes().await.map_err(|e| e.to_string())?;
    serde_json::from_slice(&bytes).map_err(|e| e.to_string())
}

/// Follows a board's event stream, forwarding each message.
async fn follow(client: reqwest::Client, base: String, out: Arc<Channel>, notify: Arc<Notify>) {
    let mut backoff = Backoff::new(RETRY_MIN, RETRY_MAX);
    let mut outage = Outage::default();
    let mut link = Link {
        backoff: &mut backoff,
        outage: &mut outage,
        last_event_id: None,
    };
    loop {
        let why = match stream_once(&client, &base, &out, &notify, &mut link).await {
            Ok(()) => "the stream ended".to_owned(),
            Err(e) => e,
        };
        if link.outage.failed(&why) {
            tracing::warn!("relay: board daemon {base}: {why}; retrying");
        }
        tokio::time::sleep(link.backoff.next_wait()).await;
        notify.notify_one();
    }
}

/// What the relay keeps about its link to one board across reconnections.
struct Link<'a> {
    backoff: &'a mut Backoff,
    outage: &'a mut Outage,
    /// The id of the last message read from the board (sent back as
    /// `Last-Event-ID` on reconnecting).
    last_event_id: Option<String>,
}

/// One connection to a board's `/events`, forwarding until it ends.
async fn stream_once(
    client: &reqwest::Client,
    base: &str,
    out: &Channel,
    notify: &Notify,
    link: &mut Link<'_>,
) -> Result<(), String> {
    let mut req = client
        .get(format!("{base}/events"))
        .header("accept", "text/event-stream");
    if let Some(id) = &link.last_event_id {
        req = req.header("last-event-id", id);
    }
    let resp = req.send().await.map_err(|e| crate::tls::error_chain(&e))?;
    if !resp.status().is_success() {
        return Err(format!("GET {base}/events: HTTP {}", resp.status()));
    }
    link.backoff.reset();
    if link.outage.recovered() {
        tracing::info!("relay: following {base} again");
    }
    let mut events = std::pin::pin!(events(resp.bytes_stream()));
    while let Some(e) = events.next().await {
        let e = e?;
        if !e.id.is_empty() {
            link.last_event_id = Some(e.id);
        }
        if e.data.is_empty() {
            continue;
        }
        out.publish(0, None, &[Arc::from(e.data)]);
        notify.notify_one();
    }
    Ok(())
}

/// The data of each event of a server-sent-events byte stream, however its
/// chunks are cut (inside a line, a `\r\n` or a UTF-8 character alike);
/// events without data (keep-alive comments) are skipped. Errors end the
/// stream: the transport's, text that is not UTF-8, or an event over
/// [`MAX_EVENT`] bytes (counted as they come, so a server cannot fill the
/// memory).
pub fn event_data<S, B, E>(bytes: S) -> impl Stream<Item = Result<String, String>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    events(bytes).map(|e| e.map(|e| e.data))
}

/// [`event_data`], each event whole: its `data` and the stream's last
/// `id` (WHATWG HTML §9.2.6: an event without `id:` keeps the one before).
pub fn events<S, B, E>(bytes: S) -> impl Stream<Item = Result<eventsource_stream::Event, String>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    let mut size = EventSize::default();
    bytes
        .map(move |chunk| {
            let chunk = chunk.map_err(|e| e.to_string())?;
            size.take(chunk.as_ref())?;
            Ok::<_, String>(chunk)
        })
        .eventsource()
        .map(|e| e.map_err(|e| e.to_string()))
}

/// The size of the event being received: bytes since the last blank line.
#[derive(Debug, Default)]
struct EventSize {
    since_blank: usize,
    after_lf: bool,
}

impl EventSize {
    /// Counts `chunk`; an error once the event is over [`MAX_EVENT`].
    fn take(&mut self, chunk: &[u8]) -> Result<(), String> {
        for &b in chunk {
            match b {
                b'\n' if self.after_lf => self.since_blank = 0,
                b'\n' => self.after_lf = true,
                b'\r' => {}
                _ => self.after_lf = false,
            }
            self.since_blank += 1;
        }
        if self.since_blank > MAX_EVENT {
            return Err(format!("an event over {MAX_EVENT} bytes"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The data of the events of `chunks`, read to the end or the first error.
    async fn read(chunks: Vec<Vec<u8>>) -> Vec<Result<String, String>> {
        let stream = futures_util::stream::iter(chunks.into_iter().map(Ok::<_, String>));
        let mut events = std::pin::pin!(event_data(stream));
        let mut got = Vec::new();
        while let Some(e) = events.next().await {
            let end = e.is_err();
            got.push(e);
            if end {
                break;
            }
        }
        got
    }

    #[tokio::test]
    async fn events_split_at_every_byte_arrive_whole() {
        let text = ": keep-alive\n\ndata: {\"white\":\"Sørensen, Jens\"}\n\n\
                    data:a\r\ndata: b\r\n\r\nevent: x\ndata: æøå ♞\n\n";
        let want: Vec<Result<String, String>> = vec![
            Ok("{\"white\":\"Sørensen, Jens\"}".into()),
            Ok("a\nb".into()),
            Ok("æøå ♞".into()),
        ];
        let bytes = text.as_bytes();
        let one_by_one = bytes.iter().map(|b| vec![*b]).collect();
        assert_eq!(read(one_by_one).await, want);
        // Every cut in two: no character is ever broken.
        for cut in 0..=bytes.len() {
            let two = vec![bytes[..cut].to_vec(), bytes[cut..].to_vec()];
            assert_eq!(read(two).await, want, "cut at byte {cut}");
        }
    }

    #[tokio::test]
    async fn oversized_events_and_bad_text_end_the_stream() {
        let big = vec![b'x'; MAX_EVENT];
        let got = read(vec![b"data: ok\n\ndata: ".to_vec(), big, b"\n\n".to_vec()]).await;
        assert_eq!(got[0], Ok("ok".to_owned()));
        let e = got.last().unwrap().as_ref().unwrap_err();
        assert!(e.contains("over 1048576 bytes"), "{e}");
        // Many small events add up to nothing.
        let many: Vec<Vec<u8>> = (0..20_000)
            .map(|_| vec![b'y'; 60])
            .map(|mut v| {
                v.splice(0..0, *b"data: ");
                v.extend_from_slice(b"\n\n");
                v
            })
            .collect();
        let got = read(many).await;
        assert_eq!(got.len(), 20_000);
        assert!(got.iter().all(|r| r.is_ok()));
        let got = read(vec![b"data: \xff\xfe\n\n".to_vec()]).await;
        assert!(got[0].is_err(), "{got:?}");
    }

    #[test]
    fn base_urls() {
        assert_eq!(base_url("http://h:1/").unwrap(), "http://h:1");
        assert!(base_url("h:1").is_err());
        assert!(base_url("https://").is_err());
    }
}
