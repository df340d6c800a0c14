//! The relay: one event's feed merged from many board daemons.
//!
//! For each board daemon (its base URL) the relay follows the public event
//! stream (`/events`) and forwards every message at once to its own
//! stream; after each message (and every [`REFRESH`] anyway) it reads the
//! board's snapshots (`/boards.json`) into its view, which serves the
//! merged `/games.pgn` and LiveChess tree, boards in (round, board) order.
//! The daemons have already applied the transmission delay; the relay adds
//! none. A daemon that cannot be reached is retried every [`RETRY`].

use super::delay::Channel;
use super::public::Snapshot;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// How often a board's snapshots are read when its stream is quiet.
pub const REFRESH: Duration = Duration::from_secs(5);
/// How long to wait before reconnecting to a board daemon.
pub const RETRY: Duration = Duration::from_secs(2);
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
    loop {
        if let Err(e) = stream_once(&client, &base, &out, &notify).await {
            tracing::info!(%base, error = %e, "relay: stream ended");
        }
        tokio::time::sleep(RETRY).await;
        notify.notify_one();
    }
}

async fn stream_once(
    client: &reqwest::Client,
    base: &str,
    out: &Channel,
    notify: &Notify,
) -> Result<(), String> {
    let mut resp = client
        .get(format!("{base}/events"))
        .header("accept", "text/event-stream")
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let mut buf = String::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| e.to_string())? {
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            if data.is_empty() {
                continue; // a keep-alive comment
            }
            let msg: Arc<str> = Arc::from(data.join("\n"));
            out.publish(0, None, &[msg]);
            notify.notify_one();
        }
        if buf.len() > 1 << 20 {
            return Err("a message over 1 MiB".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        assert_eq!(base_url("http://h:1/").unwrap(), "http://h:1");
        assert!(base_url("h:1").is_err());
        assert!(base_url("https://").is_err());
    }
}
