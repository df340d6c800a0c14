//! eboard: an electronic chessboard daemon.
//!
//! The data's way through the program, one module each:
//! sensors ([`board`]: what each square shows, debounce, lift/place history)
//! → move recognition ([`recognize`]) → the arbiter ([`arbiter`], with the
//! rule profiles of [`rules`]) → the clock ([`clock`]) and the outputs
//! ([`broadcast`]: PGN; [`trace`]: the event stream). The [`controller`] is
//! the one code path for the live daemon, the demo and `eboard replay`;
//! time is injected as the records' `t`. [`sim`] is the physical model of
//! players' hands that turns a PGN game ([`pgn`]) into a trace.

pub mod arbiter;
pub mod board;
pub mod broadcast;
pub mod clock;
pub mod config;
pub mod controller;
pub mod daemon;
pub mod journal;
pub mod mqtt;
pub mod pgn;
pub mod recognize;
pub mod rules;
pub mod server;
pub mod sim;
pub mod trace;
