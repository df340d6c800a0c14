//! The public SSE stream's response (`GET /events`): its lease and its
//! end with the lease's proof (`super::lease`, issue 26 §3), its closing
//! when the stream cap needs its place, and its place under the cap
//! ([`super::admission`]). The arbiter's stream uses the same response,
//! without ticket and lease.
//!
//! The body is written here, not by axum's `Sse` (issue 42 §7): a
//! published message arrives framed once for every client ([`Msg::sse`]),
//! and each stream copies those shared bytes into its own buffer; the
//! keep-alive comment comes on a fixed period instead of a timer reset at
//! every message.
//!
//! **One wake-up, one write.** A stream's waiting (its channel, its lease,
//! its closing for a newcomer, the keep-alive) is one long-lived future,
//! the [`pump`], that appends every event it can take without waiting to
//! the stream's buffer; hyper gets the whole buffer as one body frame (one
//! HTTP chunk, one `writev`), however many messages queued up while the
//! stream's task waited for a core. hyper polls a body again after each
//! frame and once more after its flush (`hyper::proto::h1::dispatch`,
//! `poll_loop`): the pump's waker ([`Flag`]) records whether anything it
//! waits on fired since it last returned `Pending`, and when nothing did
//! the body answers `Pending` without polling it, so a wake-up locks the
//! channel's shared waiter list (`tokio::sync::broadcast`'s `tail`, one
//! for the 1,000 streams of a relay) once, not three times.
//!
//! [`Msg::sse`]: crate::broadcast::delay::Msg::sse

use super::admission::{Slot, StreamTicket};
use super::subscription::{Item, Subscription};
use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::task::AtomicWaker;
use http_body::Frame;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

/// How often an open stream gets a keep-alive comment (`:` and an empty
/// line, which no `EventSource` dispatches): as axum's `KeepAlive`'s
/// default, so a proxy's idle timeout (nginx's 60 s) never closes a
/// stream of a quiet game. Sent on this period whatever else was sent.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The most bytes of events one body frame carries: past it the pump
/// lets hyper write before it takes more (a reconnecting client's states
/// and backlog, or a stream that fell far behind, go out in frames of
/// about this size).
const FRAME_BYTES: usize = 64 * 1024;

/// A public SSE stream's lease: when it ends, and the proofs.
struct Lease {
    ends: Pin<Box<tokio::time::Sleep>>,
    slot: Arc<Slot>,
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

/// The bytes a stream has ready for its next body frame.
type Outbox = Arc<Mutex<Vec<u8>>>;

/// A stream's events, appended to `out` as they come; returns when the
/// stream ends: the feed closed, the client lagged, it was closed to
/// admit another, or its lease ended (after the lease's own event:
/// `event: lease`, `id:` the proof, `retry:` in ms).
async fn pump(
    mut sub: Subscription,
    ticket: Option<StreamTicket>,
    mut lease: Option<Lease>,
    mut keep_alive: tokio::time::Interval,
    out: Outbox,
) {
    let push = |bytes: &[u8]| {
        let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
        o.extend_from_slice(bytes);
        o.len()
    };
    // One registration for the stream's whole life (not one per message).
    let closed = closed(&ticket);
    tokio::pin!(closed);
    loop {
        let ready = tokio::select! {
            biased;
            () = &mut closed => {
                tracing::debug!("unproven SSE stream closed to admit another");
                return;
            }
            () = lease_ends(&mut lease) => {
                if let Some(l) = &lease {
                    let proof = l.slot.leases().issue(sub.last_id(), std::time::Instant::now());
                    push(format!(
                        "event: {}\nid: {proof}\nretry: {}\ndata: {{\"type\":\"lease\"}}\n\n",
                        super::lease::LEASE_EVENT,
                        super::lease::LEASE_RETRY.as_millis()
                    ).as_bytes());
                }
                return;
            }
            item = sub.next_item() => match item {
                None => return,
                // A comment is one line (`Subscription` writes them).
                Some(Item::Comment(c)) => {
                    push(format!(": {}\n\n", c.replace(['\r', '\n'], " ")).as_bytes())
                }
                Some(Item::Message { sse, .. }) => push(sse.as_bytes()),
            },
            _ = keep_alive.tick() => push(b":\n\n"),
        };
        if ready >= FRAME_BYTES {
            // Let hyper write this frame first (the yield wakes the task
            // again at once).
            tokio::task::yield_now().await;
        }
    }
}

/// The pump's waker: notes that something the pump waits on fired, then
/// wakes the connection's task.
#[derive(Default)]
struct Flag {
    fired: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.fired.store(true, Ordering::Release);
        self.task.wake();
    }
}

/// An SSE stream's body: its [`pump`]'s events, one frame per wake-up.
struct SseBody {
    pump: Pin<Box<dyn Future<Output = ()> + Send>>,
    out: Outbox,
    flag: Arc<Flag>,
    /// [`SseBody::flag`] as a waker.
    waker: Waker,
    /// The pump returned `Pending` and nothing it waits on fired since:
    /// polling it again would find nothing.
    idle: bool,
    /// The pump returned: the stream ends once `out` is written.
    ended: bool,
}

impl http_body::Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if !this.ended {
            this.flag.task.register(cx.waker());
            let fired = this.flag.fired.swap(false, Ordering::AcqRel);
            if !this.idle || fired {
                let mut inner = Context::from_waker(&this.waker);
                this.ended = this.pump.as_mut().poll(&mut inner).is_ready();
                this.idle = !this.ended;
            }
        }
        let frame = {
            let mut o = this.out.lock().unwrap_or_else(|e| e.into_inner());
            (!o.is_empty()).then(|| Bytes::from(std::mem::take(&mut *o)))
        };
        match frame {
            Some(bytes) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
            None if this.ended => Poll::Ready(None),
            None => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        // `out` is taken whenever the pump is polled: empty once it ended.
        self.ended
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
    let out: Outbox = Arc::default();
    let flag = Arc::new(Flag::default());
    let body = SseBody {
        pump: Box::pin(pump(sub, ticket, lease, keep_alive, out.clone())),
        out,
        waker: Waker::from(flag.clone()),
        flag,
        idle: false,
        ended: false,
    };
    // The headers of axum's `Sse` (the WHATWG's `text/event-stream`).
    let mut r = (
        [
            (axum::http::header::CONTENT_TYPE, "text/event-stream"),
            (axum::http::header::CACHE_CONTROL, "no-cache"),
        ],
        Body::new(body),
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

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
