//! The set-up before the first move (§7.1a / 2023 7.2.1): the main board is
//! compared with the start position until it shows it. While it does not,
//! the missing, extra and misplaced squares are reported as guidance (a
//! `setup` event, and spoken in a game that announces) each time they
//! change, and lifts are not touches. The game starts when the board shows
//! the start position, or when the first move is completed.
//!
//! A first reading that differs from the start position only by one or two
//! pieces in a hand (a daemon reading its first scan while the first piece
//! is lifted, or set down on the way), or only by a legal first move
//! already made, is a lift: the hand is followed as usual. If a move is then
//! completed with such a square still wrong, the position was never right. A wrong initial
//! position is raised only when a move is completed from a position that
//! was never right, naming the squares where it was wrong.

use super::announce::{Announcement, Decisions};
use super::hand::Turn;
use super::{square_list, Arbiter, CompletedMove, Completion};
use crate::board::{Change, SensedBoard};
use crate::model::IrregularityKind;
use crate::recognize::{effect, recognize, Recognition};
use crate::trace::{Event, EventKind};
use shakmaty::{Bitboard, Board, Color, Position};

/// Where the set-up stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum SetUp {
    /// No reading of the main board yet.
    Unseen,
    /// The first reading differed from the start position only on these
    /// squares, by pieces in a hand or a first move made: a lift. The hand is followed; the position counts
    /// as right unless a move is completed with these squares still wrong.
    Lifted(Bitboard),
    /// The board has not shown the start position yet: the last guidance
    /// given.
    Guiding(Guidance),
    /// The board showed the start position, or a move was completed.
    Done,
}

/// What the board lacks to show the start position.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Guidance {
    /// Squares that should hold a piece and are empty.
    pub missing: Bitboard,
    /// Squares that hold a piece and should be empty.
    pub extra: Bitboard,
    /// Squares that hold a piece of the wrong colour or kind (as far as the
    /// board senses colour or identity).
    pub misplaced: Bitboard,
}

impl Guidance {
    /// What `sensed` lacks to show `start`.
    pub fn between(sensed: &SensedBoard, start: &Board) -> Guidance {
        let occ = sensed.occupied();
        let want = start.occupied();
        Guidance {
            missing: want & !occ,
            extra: occ & !want,
            misplaced: sensed.differences(start) & occ & want,
        }
    }

    /// Whether the board shows the start position.
    pub fn is_empty(&self) -> bool {
        (self.missing | self.extra | self.misplaced).is_empty()
    }

    /// Every square to put right.
    pub fn squares(&self) -> Bitboard {
        self.missing | self.extra | self.misplaced
    }

    /// Whether only one or two pieces are missing, at least one of them the
    /// mover's (`side`), and at most one piece stands on a square that should
    /// be empty: pieces in a hand, or set down on the way, a move being made.
    pub(super) fn in_hand(&self, start: &Board, side: Color) -> bool {
        let n = self.missing.count();
        self.extra.count() <= 1
            && self.misplaced.is_empty()
            && (1..=2).contains(&n)
            && !(self.missing & start.by_color(side)).is_empty()
    }
}

impl SetUp {
    /// Whether the set-up is over.
    pub(super) fn is_done(&self) -> bool {
        matches!(self, SetUp::Done)
    }
}

impl Arbiter {
    /// Watches the set-up on the main board before `changes` are applied
    /// (at `t`). Returns `true` while the board is being set up: the changes
    /// are then applied by this method and not followed as the hand.
    ///
    /// Only a reading of the board is compared with the start position at
    /// first: a frame, or a piece sensed on a square already occupied (a
    /// colour or identity reading, which no hand can make). A first lift, or
    /// a piece set on an empty square, is a hand on a board that showed the
    /// start position.
    ///
    /// A reading that shows the start position turned (or, at first, turned
    /// with pieces in a hand) takes the board as turned (`orientation.rs`):
    /// `changes` are then rewritten into the game's squares.
    pub(super) fn watch_setup(
        &mut self,
        changes: &mut Vec<Change>,
        frame: bool,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        if self.setup.is_done() {
            return false;
        }
        let occupied = self.boards[0].sensed.occupied();
        let reading = frame
            || changes
                .iter()
                .any(|ch| matches!(ch, Change::Place(sq, _, _) if occupied.contains(*sq)));
        if !self.moves.is_empty() {
            self.setup = SetUp::Done;
            return false;
        }
        let mut probe = self.boards[0].sensed.clone();
        for ch in changes.iter() {
            probe.apply(*ch, t);
        }
        let start = self.pos.board().clone();
        let g = Guidance::between(&probe, &start);
        match self.setup.clone() {
            SetUp::Done => false,
            SetUp::Lifted(_) => {
                if g.is_empty() {
                    self.setup = SetUp::Done;
                }
                false
            }
            SetUp::Unseen => {
                let side = self.pos.turn();
                if !reading {
                    // A lift, or a piece set on an empty square: a hand on
                    // a board that showed the start position (the
                    // contract: it does at t = 0).
                    self.setup = SetUp::Done;
                    false
                } else if g.is_empty() {
                    self.setup = SetUp::Done;
                    false
                } else if g.in_hand(&start, side)
                    || matches!(
                        recognize(&self.pos, &probe, self.turn.promote),
                        Recognition::Move { .. }
                    )
                {
                    // Pieces in hand, or the first move already made.
                    tracing::debug!(squares = ?square_list(g.squares()), "first reading: a lift");
                    self.setup = SetUp::Lifted(g.squares());
                    false
                } else if let Some(o) = self.turn_fitting(&probe, true) {
                    // §7.1b / 7.2.2, §7.2 / 7.3: set up turned.
                    self.take_as_turned(o, &probe, changes, t, out);
                    false
                } else {
                    let g = self.best_guidance(&probe);
                    self.setup = SetUp::Guiding(g);
                    self.guide(g, t, out);
                    self.apply_setup_changes(changes, t);
                    true
                }
            }
            SetUp::Guiding(last) => {
                self.apply_setup_changes(changes, t);
                if g.is_empty() {
                    // The game starts: the board shows the start position.
                    self.setup = SetUp::Done;
                    self.boards[0].sensed.reset_to(&start);
                    self.setup_log = Some(Vec::new());
                    self.turn = Turn::default();
                    self.guide(g, t, out);
                } else if let Some(o) = self.turn_fitting(&probe, false) {
                    // §7.1b / 7.2.2, §7.2 / 7.3: set up turned. The
                    // players are told the board now shows the start.
                    self.take_as_turned(o, &probe, changes, t, out);
                    self.guide(Guidance::default(), t, out);
                    return false;
                } else {
                    let g = self.best_guidance(&probe);
                    if g != last {
                        self.setup = SetUp::Guiding(g);
                        self.guide(g, t, out);
                    }
                }
                true
            }
        }
    }

    /// Applies set-up changes to the main board; its lifts are no touches.
    fn apply_setup_changes(&mut self, changes: &[Change], t: u64) {
        let b = &mut self.boards[0].sensed;
        for ch in changes {
            b.apply(*ch, t);
        }
        b.confirmed_lifts(t, true);
    }

    /// Reports the guidance `g` at `t` (empty: the board shows the start).
    fn guide(&mut self, g: Guidance, t: u64, out: &mut Decisions) {
        out.push(Event {
            t,
            kind: EventKind::Setup {
                missing: square_list(g.missing),
                extra: square_list(g.extra),
                misplaced: square_list(g.misplaced),
            },
        });
        self.announce(
            Announcement::SetUp {
                missing: g.missing,
                extra: g.extra,
                misplaced: g.misplaced,
            },
            t,
            out,
        );
    }

    /// Whether a press on the main board now completes a move from a
    /// position that may never have been right.
    /// After a first reading with pieces in hand, only when a square that
    /// reading showed wrong is still wrong (the piece never was in a hand).
    pub(super) fn setup_unsettled(&self) -> bool {
        if !self.moves.is_empty() {
            return false;
        }
        match self.setup {
            SetUp::Guiding(_) => true,
            SetUp::Lifted(squares) => {
                let wrong = self.boards[0].sensed.differences(self.pos.board());
                !(squares & wrong).is_empty()
            }
            SetUp::Unseen | SetUp::Done => false,
        }
    }

    /// §7.1a / 7.2.1: `side` pressed his clock with the main board showing
    /// no legal move from the start position, which it never showed. The
    /// move made is the legal move whose squares the hand changed and which
    /// leaves the fewest squares wrong; the irregularity names those
    /// squares, the move is completed, and the board is guided back to the
    /// position (the arbiter decides on the game). Without such a move the
    /// irregularity names every square to put right.
    ///
    /// Returns `false` (nothing done) after a first reading with pieces in
    /// hand when no legal move was made: the press is then judged as any
    /// other (an illegal move, a press without a move).
    pub(super) fn move_from_wrong_setup(
        &mut self,
        side: Color,
        t: u64,
        out: &mut Decisions,
    ) -> bool {
        let sensed = self.boards[0].sensed.clone();
        let (lifted, placed) = (sensed.lifted(), sensed.placed());
        // (wrong squares left, the destination's last placement, reversed).
        let mut best: Option<((u32, i64), shakmaty::Move, Bitboard)> = None;
        for mv in self.pos.legal_moves() {
            let e = effect(&mv, side);
            let filled: Bitboard = e.filled.iter().flatten().map(|(sq, _)| *sq).collect();
            let vacated = e.vacated | e.cleared;
            if !(vacated & !lifted).is_empty() || !(filled & !placed).is_empty() {
                continue;
            }
            let mut after = self.pos.clone();
            after.play_unchecked(mv);
            let residual = sensed.differences(after.board());
            let dest = e.filled[0].map_or(mv.to(), |(sq, _)| sq);
            let key = (
                residual.count() as u32,
                -i64::from(sensed.last_place_seq(dest)),
            );
            if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
                best = Some((key, mv, residual));
            }
        }
        let article = self.cfg.profile.articles.initial_position;
        let Some((_, mv, residual)) = best else {
            if matches!(self.setup, SetUp::Lifted(_)) {
                return false;
            }
            let g = Guidance::between(&sensed, self.pos.board());
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: IrregularityKind::WrongInitialPosition,
                    article,
                    squares: square_list(g.squares()),
                },
            });
            return true;
        };
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::WrongInitialPosition,
                article,
                squares: square_list(residual),
            },
        });
        let completed = CompletedMove {
            mv,
            how: Completion::Pressed,
            promotion_assumed: false,
        };
        self.complete(completed, t, out);
        if !self.ended() && self.mi() == 0 {
            // The board still shows the wrong squares: follow the sensors
            // and guide it back to the position.
            let pos = self.pos.clone();
            let b = &mut self.boards[0].sensed;
            *b = sensed;
            b.clear_history();
            let restore = !b.matches(pos.board());
            if !restore {
                b.reset_to(pos.board());
            }
            self.set_restoring(restore);
        }
        true
    }
}
