//! Why the console refused a request: a status (the HTTP status code the
//! server answers with, and the `http` field of a ruling's reply over
//! MQTT) and the reason in words. The console decides the status; the
//! transport (`crate::server`) only writes it out.

use std::time::Duration;

/// A refused request: the status (an HTTP status code: 401, 403, 404, 409,
/// 422, 428, 429, 503, …), why, and when to come back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The status code.
    pub status: u16,
    /// Why, in words (the reply's `"error"`).
    pub message: String,
    /// When to try again, whole seconds (`Retry-After`); `None`: not said.
    pub retry_after_s: Option<u64>,
}

/// A refusal with `status` (an HTTP status code) and `message`.
pub fn refuse(status: u16, message: &str) -> Refusal {
    Refusal {
        status,
        message: message.to_owned(),
        retry_after_s: None,
    }
}

impl Refusal {
    /// The same refusal, to be tried again after `s` seconds.
    pub fn retry_after(mut self, s: u64) -> Refusal {
        self.retry_after_s = Some(s);
        self
    }
}

/// 429 with its wait (whole seconds, rounded up): too many failed
/// authentications from the caller's source or for the account.
pub fn too_many(wait: Duration) -> Refusal {
    let s = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    refuse(
        429,
        &format!("too many failed authentications from this address: retry in {s} s"),
    )
    .retry_after(s)
}
