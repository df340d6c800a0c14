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
use shakmaty::{Bitboard, Board, Chess, Color, Move, Piece, Position, Role, Square};

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
    /// E2.7: the board of `owner` differs from the record on these
    /// squares (none: the boards agree again).
    BoardsDiffer {
        /// The player whose board it is.
        owner: Color,
        /// Where it differs (only where his copy of the record differs,
        /// never his own move's squares).
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
    /// the time each player has used and both clocks (white, black; ms).
    Time {
        /// Half-moves completed since the start position.
        plies: u32,
        /// `(white, black)` remaining, ms; `None` without a clock.
        clocks: Option<(u64, u64)>,
        /// `(white, black)` used (E2.9d: "the time used by both
        /// players"), ms: each side's thinking time from the moves'
        /// times (pauses by the arbiter included); `None` without a clock.
        used: Option<(u64, u64)>,
    },
    /// Asked: the whole position (both sides' pieces, in diagram order).
    Position(Board),
    /// Asked: the whole position rank by rank, eighth to first.
    PositionByRank(Board),
    /// Asked: one clock alone (a short answer).
    Clock {
        /// Whose clock.
        of: Color,
        /// The asker's own (`true`) or his opponent's.
        own: bool,
        /// The time left on it, ms; `None` without a clock.
        ms: Option<u64>,
    },
    /// Asked: whose move it is and the move number (`plies` half-moves
    /// made since the start position).
    Turn {
        /// Half-moves made.
        plies: u32,
    },
    /// Asked: the opponent's last draw offer.
    LastDrawOffer {
        /// The opponent (whose offer).
        by: Color,
        /// Half-moves made when he offered, and whether the offer still
        /// stands; `None`: he has offered none.
        offered: Option<(u32, bool)>,
    },
    /// E2.1 / E2.3: the visually impaired player's pawn stands on the last
    /// rank and no piece was named or sensed: he is asked which piece (the
    /// move is not announced with a piece assumed).
    PromotionPiece {
        /// Who promotes.
        by: Color,
        /// The promotion square.
        square: Square,
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
    /// The arbiter agreed to a III.4 request (2023 Guidelines III.4,
    /// `arbiter: increment`): five seconds per move for both players from
    /// now on, and two extra minutes to the opponent; said so that a
    /// player who cannot see the clock knows the control changed.
    IncrementIntroduced {
        /// The time added per move, ms (5 000).
        extra_ms: u64,
        /// A delay (the clock counts down only after it) rather than a
        /// cumulative increment.
        delay: bool,
        /// The opponent, awarded `awarded_ms`.
        awarded: Color,
        /// The time awarded, ms (two minutes).
        awarded_ms: u64,
    },
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

    /// Puts the decisions from index `from` on in time order (stable: the
    /// same time keeps the order they were taken in).
    pub(super) fn sort_tail_by_time(&mut self, from: usize) {
        if let Some(tail) = self.items.get_mut(from..) {
            tail.sort_by_key(|d| match d {
                Decision::Event(e) => e.t,
                Decision::Announce { t, .. } => *t,
            });
        }
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
    /// The positions of the game: the start, then the position after each
    /// completed move (`positions()[ply]` after ply `ply`; `moves().len() +
    /// 1` of them), an illegal move that stood included (the PGN writer
    /// starts the record after it).
    pub fn positions(&self) -> &[Chess] {
        &self.history
    }

    /// Each side's thinking time up to `t`, ms (white, black): the time
    /// between the completed moves, the side on move's running since the
    /// last one (White's clock starts at 0, §6.5).
    pub fn time_used(&self, t: u64) -> (u64, u64) {
        let mut used = [0u64; 2];
        let mut prev = 0;
        for m in &self.moves {
            used[super::ci(m.by)] += m.t.saturating_sub(prev);
            prev = m.t;
        }
        if !self.ended() {
            used[super::ci(self.pos.turn())] += t.saturating_sub(prev);
        }
        (used[0], used[1])
    }

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
                used: self.clock.as_ref().map(|_| self.time_used(t)),
            },
            QueryKind::Position => Announcement::Position(self.pos.board().clone()),
            QueryKind::PositionByRank => Announcement::PositionByRank(self.pos.board().clone()),
            QueryKind::Clock | QueryKind::OpponentClock => {
                let of = if what == QueryKind::Clock { by } else { !by };
                Announcement::Clock {
                    of,
                    own: of == by,
                    ms: self.clock.as_ref().map(|c| {
                        let (w, b) = c.remaining_at(t);
                        if of == Color::White {
                            w
                        } else {
                            b
                        }
                    }),
                }
            }
            QueryKind::MoveNumber | QueryKind::Turn => Announcement::Turn {
                plies: self.moves.len() as u32,
            },
            QueryKind::DrawOffer => Announcement::LastDrawOffer {
                by: !by,
                offered: self.last_offers[super::ci(!by)]
                    .map(|plies| (plies, self.draw_offer == Some(!by))),
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

    /// E2.3: the announcement of `mv` could not be played on the output of
    /// `by` (the daemon's speaker reported the output failing, an
    /// `unheard` record): the announcement never reached him, so his press
    /// is not a clock started before it (his own right to the
    /// announcement was not given; the arbiter is told instead).
    pub fn move_announcement_unheard(&mut self, mv: &Move, by: Color) {
        self.speech_unheard = Some((*mv, by));
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
