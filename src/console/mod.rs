//! The arbiter's console as a domain (`docs/console.md`), served alike by a
//! board daemon and by a relay (over HTTP: `crate::server`; the relay's
//! rulings to the boards over HTTP or signed MQTT).
//!
//! It owns:
//! - who may use the arbiter's side: accounts, roles, login sessions and
//!   the failed-authentication back-off ([`access`], [`backoff`],
//!   [`role`], [`identify`], [`login`]);
//! - the alert queue and its acknowledgements ([`alerts`]);
//! - what is kept across a restart ([`kept`]);
//! - a ruling whichever way it comes in: its parsing, its checks and its
//!   refusals ([`ruling`], [`refusal`]), its command id applied once
//!   ([`command_ids`], [`command_task`]), the way to a board's loop
//!   ([`board`]) and, on a relay, to the boards ([`forward`]);
//! - the round's paperwork: the round report ([`report`]) and the results
//!   written into the pairings' TRF-16 ([`results`]);
//! - the one [`state::Console`] that holds them on a server.
//!
//! It depends on the model below it: the event stream's types
//! (`crate::trace`), the channels (`crate::broadcast::delay`), the event's
//! results (`crate::event`), the disk (`crate::disk`), TLS
//! (`crate::tls`, the relay's client to the boards), the civil dates
//! of `crate::config::instant` and the event's time zone of
//! `crate::config::zone` (the page's and the report's wall times), and the
//! config's `[event]` (the report's head, `report::norm`). It must not depend on
//! the HTTP transport (`crate::server`: axum, requests, cookies,
//! responses), on `crate::mqtt` or on `crate::app`: they use it. Its
//! statuses are numbers ([`refusal::Refusal`]), which the transport writes
//! out.
//!
//! Inside, each file uses only files below it (no circle): `role`,
//! `refusal`, `wall_clock`, `backoff` and `token` at the bottom; `kept` over them;
//! `access`, `alerts`, `command_ids`, `forward`, `board` and `report` over
//! those; `state` over all of these; `identify`, `login`, `command_task`,
//! `results` over `state`; `ruling` at the top.

pub mod access;
pub mod alerts;
pub mod backoff;
pub mod board;
pub mod command_ids;
pub mod command_task;
pub mod forward;
pub mod identify;
pub mod kept;
pub mod login;
pub mod refusal;
pub mod report;
pub mod results;
pub mod role;
pub mod ruling;
pub mod state;
pub mod token;
pub mod wall_clock;
