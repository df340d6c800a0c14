//! What the arbiter decides, in order ([`Decisions`]): the contract's events
//! and the announcements to the players ([`Announcement`]).
//!
//! When to announce is a Law (Appendix E: every move to both players, E2.3
//! the visually impaired player's move once the tactile board shows it, E2.7
//! boards that differ, E2.9d information on demand) and is decided here. The
//! words, in the game's language, are presentation: the controller renders
//! each announcement into the contract's `announce` event at its place in
//! the stream (`crate::controller::phrase`).

use super::Arbiter;
use crate::trace::{Event, QueryKind};
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, Chess, Color, Move, Piece, Position, Role};

/// An announcement the Laws call for, as data; the controller puts it into
/// words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Announcement {
    /// A move, with the position it was played in (Appendix E: every move
    /// is announced to both players).
    Move {
        /// The position before the move.
        before: Chess,
        /// The move.
        mv: Move,
    },
    /// E2.7: the two boards differ on these squares.
    BoardsDiffer {
        /// Where they differ.
        squares: Bitboard,
    },
    /// Set-up guidance before the first move: the squares to put right
    /// (all empty: the board shows the start position).
    SetUp {
        /// Squares that should hold a piece and are empty.
        missing: Bitboard,
        /// Squares that hold a piece and should be empty.
        extra: Bitboard,
        /// Squares holding a piece of the wrong colour or kind.
        misplaced: Bitboard,
    },
    /// E2.9d, asked: the number of half-moves played and, when a clock runs,
    /// both clocks (white, black; ms left).
    Time {
        /// Half-moves completed since the start position.
        plies: u32,
        /// `(white, black)` remaining, ms; `None` without a clock.
        clocks: Option<(u64, u64)>,
    },
    /// Asked: the last move with the position it was played in; `None`
    /// before the first move (or after an illegal move that stood).
    LastMove(Option<(Chess, Move)>),
    /// Asked: where the pieces of one kind stand.
    PieceSquares {
        /// Their colour.
        color: Color,
        /// Their kind.
        role: Role,
        /// Where they stand (empty: none on the board).
        squares: Bitboard,
    },
    /// A draw offer ended without agreement (§9.1): declined, declined by
    /// playing on, or lapsed when the opponent touched a piece (2009
    /// §9.1b(1), 2023 9.1.2.1).
    DrawOfferEnded {
        /// Who had offered.
        by: Color,
        /// Lapsed by a touch (`true`), or declined (in words or by playing on).
        lapsed: bool,
    },
    /// The arbiter stopped the clocks (§6.12; `arbiter: pause`).
    ClockPaused,
    /// The arbiter restarted the clocks (`arbiter: resume`).
    ClockResumed,
    /// Asked (`query: repeat`): the last announcement to the asker, again.
    Repeat,
}

/// One decision of the arbiter: a contract event, or an announcement at
/// time `t` (ms) that the controller renders into an `announce` event.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// An event of the contract, final as it is.
    Event(Event),
    /// An announcement to put into words.
    Announce {
        /// Trace time, ms.
        t: u64,
        /// What to announce.
        what: Announcement,
        /// The one player it is for (an answer on demand); `None`: both.
        to: Option<Color>,
    },
}

/// The arbiter's decisions in the order they were taken (the order of the
/// event stream).
#[derive(Debug, Clone, Default)]
pub struct Decisions {
    items: Vec<Decision>,
}

impl Decisions {
    /// No decisions yet.
    pub fn new() -> Decisions {
        Decisions::default()
    }

    /// Appends a contract event.
    pub fn push(&mut self, e: Event) {
        self.items.push(Decision::Event(e));
    }

    /// Appends an announcement to both players at `t` (ms).
    pub fn announce(&mut self, t: u64, what: Announcement) {
        self.items.push(Decision::Announce { t, what, to: None });
    }

    /// Appends an announcement at `t` (ms) for the player `to` alone.
    pub fn announce_to(&mut self, t: u64, to: Color, what: Announcement) {
        self.items.push(Decision::Announce {
            t,
            what,
            to: Some(to),
        });
    }

    /// Appends a decision as it is.
    pub fn push_decision(&mut self, d: Decision) {
        self.items.push(d);
    }

    /// The decisions so far, in order.
    pub fn as_slice(&self) -> &[Decision] {
        &self.items
    }

    /// Takes the decisions out, in order, leaving none.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Decision> {
        self.items.drain(..)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.items.len()
    }
}

impl Arbiter {
    /// Whether this game announces (Appendix E, or a language given).
    pub(super) fn announces(&self) -> bool {
        self.cfg.announcement_lang().is_some()
    }

    /// Announces `what` at `t`, if this game announces.
    pub(super) fn announce(&self, what: Announcement, t: u64, out: &mut Decisions) {
        if self.announces() {
            out.announce(t, what);
        }
    }

    /// E2.9d: information on demand, spoken (never given unprompted).
    pub(super) fn query(
        &self,
        what: QueryKind,
        by: Color,
        piece: Option<Piece>,
        t: u64,
        out: &mut Decisions,
    ) {
        if !self.announces() {
            tracing::debug!(?what, ?by, "query in a game without announcements");
            return;
        }
        let answer = match what {
            QueryKind::Repeat => Announcement::Repeat,
            QueryKind::Time => Announcement::Time {
                plies: self.moves.len() as u32,
                clocks: self.clock.as_ref().map(|c| c.remaining_at(t)),
            },
            QueryKind::LastMove => {
                let n = self.history.len();
                let last = self
                    .moves
                    .last()
                    .filter(|m| !m.illegal && n >= 2)
                    .and_then(|m| {
                        let before = &self.history[n - 2];
                        m.uci
                            .parse::<UciMove>()
                            .ok()
                            .and_then(|u| u.to_move(before).ok())
                            .map(|mv| (before.clone(), mv))
                    });
                Announcement::LastMove(last)
            }
            QueryKind::Piece => match piece {
                Some(p) => {
                    let board = self.pos.board();
                    Announcement::PieceSquares {
                        color: p.color,
                        role: p.role,
                        squares: board.by_color(p.color) & board.by_role(p.role),
                    }
                }
                None => return,
            },
        };
        // The answer is for the player who asked (E2.9d).
        out.announce_to(t, by, answer);
    }

    /// E2.3c: the announcement of the move `mv` has finished playing at
    /// `t` (ms, trace time): the instant the move counts as announced. The
    /// controller reports it, from the speaker's `spoken` record or, in a
    /// replay without one, from the estimated length of the speech
    /// (`docs/voice.md`). The latest report stands.
    pub fn move_announcement_played(&mut self, mv: &Move, t: u64) {
        self.speech_played = Some((*mv, t));
    }

    /// E2.3c: when the announcement of `mv` finished playing, if it has
    /// (see [`Arbiter::move_announcement_played`]); `None` while it is
    /// still being spoken or was never announced.
    pub fn move_announced_at(&self, mv: &Move) -> Option<u64> {
        self.speech_played
            .as_ref()
            .filter(|(m, _)| m == mv)
            .map(|(_, t)| *t)
    }
}
