//! The public SSE stream's response (`GET /events`): its lease and its
//! end with the lease's proof (`super::lease`, issue 26 §3), its closing
//! when the stream cap needs its place, and its place under the cap
//! ([`super::admission`]). The arbiter's stream uses the same response,
//! without ticket and lease.
//!
//! The body is written here, not by axum's `Sse` (issue 42 §7): a
//! published message arrives framed once for every client ([`Msg::sse`]),
//! and each client's stream hands those shared bytes to hyper as they are
//! (no event built, no copy, per client and message); the keep-alive
//! comment comes on a fixed period instead of a timer reset at every
//! message.
//!
//! [`Msg::sse`]: crate::broadcast::delay::Msg::sse

use super::admission::{Slot, StreamTicket};
use super::subscription::{Item, Subscription};
use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

/// How often an open stream gets a keep-alive comment (`:` and an empty
/// line, which no `EventSource` dispatches): as axum's `KeepAlive`'s
/// default, so a proxy's idle timeout (nginx's 60 s) never closes a
/// stream of a quiet game. Sent on this period whatever else was sent.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A shared text as the bytes of a body frame (no copy).
struct Shared(Arc<str>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// A public SSE stream's lease: when it ends, and the proofs.
struct Lease {
    ends: std::pin::Pin<Box<tokio::time::Sleep>>,
    slot: Arc<Slot>,
}

/// A stream's state between two of its events.
struct SseState {
    sub: Subscription,
    ticket: Option<StreamTicket>,
    lease: Option<Lease>,
    /// The lease's last event was sent: the stream ends.
    ended: bool,
    /// The keep-alive's period ([`KEEP_ALIVE`]).
    keep_alive: tokio::time::Interval,
}

/// Resolves when `ticket`'s stream was closed to admit another; never
/// without a ticket.
pub(super) async fn closed(ticket: &Option<StreamTicket>) {
    match ticket {
        Some(t) => t.closed().await,
        None => std::future::pending().await,
    }
}

/// Resolves when the lease ends; never without one.
async fn lease_ends(lease: &mut Option<Lease>) {
    match lease {
        Some(l) => l.ends.as_mut().await,
        None => std::future::pending().await,
    }
}

/// The next event of a stream, as the bytes to write; `None` ends it: the
/// feed closed, the client lagged, it was closed to admit another, or its
/// lease ended (after the lease's own event: `event: lease`, `id:` the
/// proof, `retry:` in ms).
async fn next_event(st: &mut SseState) -> Option<Bytes> {
    if st.ended {
        return None;
    }
    tokio::select! {
        biased;
        () = closed(&st.ticket) => {
            tracing::debug!("unproven SSE stream closed to admit another");
            None
        }
        () = lease_ends(&mut st.lease) => {
            st.ended = true;
            let slot = &st.lease.as_ref()?.slot;
            let proof = slot.leases().issue(st.sub.last_id(), std::time::Instant::now());
            Some(Bytes::from(format!(
                "event: {}\nid: {proof}\nretry: {}\ndata: {{\"type\":\"lease\"}}\n\n",
                super::lease::LEASE_EVENT,
                super::lease::LEASE_RETRY.as_millis()
            )))
        }
        item = st.sub.next_item() => Some(match item? {
            // A comment is one line (`Subscription` writes them).
            Item::Comment(c) => Bytes::from(format!(": {}\n\n", c.replace(['\r', '\n'], " "))),
            Item::Message { sse, .. } => Bytes::from_owner(Shared(sse)),
        }),
        _ = st.keep_alive.tick() => Some(Bytes::from_static(b":\n\n")),
    }
}

/// An SSE response; `public`: readable by a page of any origin (CORS `*`).
/// The arbiter's channel is not: its page is served by the board itself, and
/// no other site's script may read it with a token it holds. Each message
/// carries its `id:`.
/// `ticket`: the stream's place under the listener's stream cap, held as
/// long as the stream runs; with it the stream has a lease (the
/// listener's [`stream_lease`](super::Limits::stream_lease) less up to a
/// tenth) and ends with the lease's proof, and the connection is closed
/// with it (`Connection: close`): its descriptor and slot are free at once.
pub(super) fn sse(sub: Subscription, public: bool, ticket: Option<StreamTicket>) -> Response {
    let lease = ticket.as_ref().map(|t| {
        let full = t.slot().limits().stream_lease;
        let cut = full.mul_f64(rand::random::<f64>() / 10.0);
        Lease {
            ends: Box::pin(tokio::time::sleep(full - cut)),
            slot: t.slot().clone(),
        }
    });
    let leased = lease.is_some();
    let mut keep_alive =
        tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
    keep_alive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let state = SseState {
        sub,
        ticket,
        lease,
        ended: false,
        keep_alive,
    };
    let stream = futures_util::stream::unfold(state, |mut st| async move {
        let event = next_event(&mut st).await?;
        Some((Ok::<_, Infallible>(event), st))
    });
    // The headers of axum's `Sse` (the WHATWG's `text/event-stream`).
    let mut r = (
        [
            (axum::http::header::CONTENT_TYPE, "text/event-stream"),
            (axum::http::header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response();
    if public {
        r.headers_mut().insert(
            axum::http::header::ACCESS_CONTROL_ALLOW_ORIGIN,
            axum::http::HeaderValue::from_static("*"),
        );
    }
    if leased {
        r.headers_mut().insert(
            axum::http::header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
    }
    r
}

/// A place for a public stream on the request's connection
/// ([`super::admission::Slot::begin_stream`]); `Ok(None)` for a request
/// not served by the listener; 503 with `Retry-After` past the stream caps.
/// `proven`: the client showed that it reads (a lease's proof).
#[allow(clippy::result_large_err)] // the refusal is the response itself
pub(super) fn stream_ticket(
    ext: &axum::http::Extensions,
    proven: bool,
) -> Result<Option<StreamTicket>, Response> {
    let Some(slot) = ext.get::<Arc<Slot>>() else {
        return Ok(None);
    };
    slot.begin_stream(proven).map(Some).map_err(|why| {
        tracing::debug!(%why, "stream refused");
        (
            StatusCode::SERVICE_UNAVAILABLE,
            [(axum::http::header::RETRY_AFTER, "10")],
            format!("{why}\n"),
        )
            .into_response()
    })
}

/// A public SSE stream's place, proven by the `Last-Event-ID`'s lease
/// proof when it holds a good one ([`super::lease`]; the proof is used up
/// only when the stream is let in), with the id to resume after and the
/// [`LEASE_HEADER`]'s value.
#[allow(clippy::result_large_err)] // the refusal is the response itself
pub(super) fn sse_ticket<'a>(
    ext: &axum::http::Extensions,
    last_event_id: Option<&'a str>,
) -> Result<SseAdmitted<'a>, Response> {
    use super::lease::Proof;
    let Some(slot) = ext.get::<Arc<Slot>>() else {
        // Not served by the listener: no lease; a proof's id still resumes.
        let last = last_event_id.map(|t| super::lease::split(t).map_or(t, |(l, _)| l));
        return Ok(SseAdmitted {
            ticket: None,
            last,
            note: None,
        });
    };
    let proof = match last_event_id {
        Some(t) => slot.leases().read(t, std::time::Instant::now()),
        None => Proof::None,
    };
    let last = proof.last(last_event_id);
    let taken = match &proof {
        Proof::Valid { nonce, .. } => slot.leases().take(*nonce).map(|at| (*nonce, at)),
        _ => None,
    };
    let ticket = match stream_ticket(ext, taken.is_some()) {
        Ok(t) => t,
        Err(r) => {
            if let Some((nonce, at)) = taken {
                slot.leases().restore(nonce, at);
            }
            return Err(r);
        }
    };
    let standing = match (&proof, taken) {
        (Proof::Valid { .. }, Some(_)) => "proof accepted: a proven reader".to_owned(),
        (Proof::Valid { .. }, None) => "proof not accepted: used already".to_owned(),
        (Proof::Refused { why, .. }, _) => format!("proof not accepted: {why}"),
        (Proof::None, _) => "no proof".to_owned(),
    };
    let secs = slot.limits().stream_lease.as_secs();
    let note = format!("{secs} s; {standing}");
    tracing::debug!(lease = %note, "public SSE stream");
    Ok(SseAdmitted {
        ticket,
        last,
        note: Some(note),
    })
}

/// A public SSE stream let in ([`sse_ticket`]).
pub(super) struct SseAdmitted<'a> {
    /// Its place under the stream cap (`None`: not served by the listener).
    pub ticket: Option<StreamTicket>,
    /// The id to resume after (a proof's `LAST`, or the plain id).
    pub last: Option<&'a str>,
    /// The [`LEASE_HEADER`]'s value (with a ticket).
    pub note: Option<String>,
}

/// The response header of a leased public SSE stream: the lease (s) and
/// what the `Last-Event-ID`'s proof counted for, e.g. `60 s; proof
/// accepted: a proven reader` (a page's `EventSource` does not see it; a
/// probe or a test does).
pub const LEASE_HEADER: &str = "eboard-lease";
