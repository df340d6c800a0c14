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
//!
//! ```
//! // White plays 1. e4 with a bounce on e4 and presses the clock
//! // (the example of ../shared/spec/trace-format.md).
//! let trace = eboard::trace::Trace::parse(
//!     r#"{"trace": 1, "time_control": "5400+30"}
//! {"t": 1000, "lift": "e2"}
//! {"t": 1400, "place": "e4"}
//! {"t": 1405, "lift": "e4"}
//! {"t": 1410, "place": "e4"}
//! {"t": 1900, "press": "w"}"#,
//! )
//! .unwrap();
//! let (game, events) = eboard::controller::replay(&trace, None, None).unwrap();
//! assert_eq!(game.moves()[0].san, "e4");
//! // Over the board (the default) the clock started at 1:30:30 (base +
//! // increment, as FIDE events run their clocks; docs/clock.md): 1.9 s
//! // used, + 30 s.
//! assert_eq!(game.moves()[0].clock_ms, Some(5_458_100));
//! assert_eq!(events.iter().filter(|e| e.type_name() == "move").count(), 1);
//!
//! // The online style (`@base`, what lichess records) starts at 1:30:00:
//! // the spec's example numbers.
//! let online = eboard::trace::Trace::parse(
//!     r#"{"trace": 1, "time_control": "5400+30@base"}
//! {"t": 1000, "lift": "e2"}
//! {"t": 1400, "place": "e4"}
//! {"t": 1900, "press": "w"}"#,
//! )
//! .unwrap();
//! let (game, _) = eboard::controller::replay(&online, None, None).unwrap();
//! assert_eq!(game.moves()[0].clock_ms, Some(5_428_100));
//! ```

pub mod app;
pub mod arbiter;
pub mod board;
pub mod broadcast;
pub mod clock;
pub mod config;
pub mod console;
pub mod controller;
pub mod disk;
pub mod event;
pub mod journal;
pub mod legal;
pub mod logging;
pub mod model;
pub mod mqtt;
pub mod pgn;
pub mod recognize;
pub mod retry;
pub mod rules;
pub mod sensors;
pub mod server;
pub mod service;
pub mod sim;
pub mod tls;
pub mod trace;
pub mod voice;

/// The board loop, where it has always been found ([`app::daemon`]).
pub use app::daemon;
