//! A fake of lichess's broadcast push endpoint (`POST
//! /api/broadcast/round/{id}/push`, as lila's `RelayPush` takes it) on a
//! port of 127.0.0.1, recording every call: the lichess push of a board
//! (`mqtt.rs`, over HTTP and TLS) and of a relay (`public_reasons.rs`).

use super::header_text;
use std::sync::{Arc, Mutex};

/// What the fake lichess endpoint received.
#[derive(Default)]
pub struct Received {
    /// Every call: (round id, `Authorization`, `Content-Type`, body).
    pub calls: Vec<(String, String, String, String)>,
}

/// A fake lichess broadcast push endpoint recording every call (round id,
/// `Authorization`, `Content-Type`, body); the first `fail_first` calls
/// get 503 (the uplink must retry).
pub fn fake_lichess(received: Arc<Mutex<Received>>, fail_first: usize) -> axum::Router {
    use axum::extract::{Path as UrlPath, State};
    use axum::http::{HeaderMap, StatusCode};
    axum::Router::new()
        .route(
            "/api/broadcast/round/{id}/push",
            axum::routing::post(
                move |State(r): State<Arc<Mutex<Received>>>,
                      UrlPath(id): UrlPath<String>,
                      headers: HeaderMap,
                      body: String| async move {
                    let mut r = r.lock().unwrap();
                    let h = |k: &str| header_text(&headers, k);
                    r.calls
                        .push((id, h("authorization"), h("content-type"), body));
                    if r.calls.len() <= fail_first {
                        (StatusCode::SERVICE_UNAVAILABLE, "busy".to_owned())
                    } else {
                        (StatusCode::OK, "{\"games\":[]}".to_owned())
                    }
                },
            ),
        )
        .with_state(received)
}

/// [`fake_lichess`] served over plain HTTP on 127.0.0.1 by `rt`: its
/// address (`127.0.0.1:PORT`) and what it receives.
pub fn serve_fake_lichess(
    rt: &tokio::runtime::Runtime,
    fail_first: usize,
) -> (std::net::SocketAddr, Arc<Mutex<Received>>) {
    let received = Arc::new(Mutex::new(Received::default()));
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let app = fake_lichess(received.clone(), fail_first);
    rt.spawn(async move { axum::serve(listener, app).await });
    (addr, received)
}
