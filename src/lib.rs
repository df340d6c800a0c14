//! eboard: an electronic chessboard daemon.
//!
//! The data's way through the program, one module each:
//! sensors ([`board`]) → board state → arbiter ([`arbiter`], move recognition
//! in [`recognize`], the rule profiles in [`rules`]) → clock ([`clock`]) and
//! outputs ([`pgn`] writer, the event stream of [`trace`]). The [`controller`]
//! wires them and is the one code path for the live daemon, the demo and
//! `eboard replay`; time is injected as the records' `t`.
//! [`sim`] is the physical model of players' hands that turns a PGN game
//! into a trace.

pub mod trace;
