//! Readings that fit several moves (issue 13 §3): never a silent guess.
//!
//! With occupancy sensing and a slow scan, a capture whose target square
//! never read empty fits every capture by the same piece: the board alone
//! does not tell them apart ([`Recognition::Move::tied`]). At such a press
//! the game is **held**: one copy of the game goes on per candidate (a
//! [`Branch`]), each fed every later input, their decisions kept back.
//! Later evidence settles it:
//!
//! - a reading under which a later input is an illegal move, a touch-move
//!   breach or an irregularity fails (the opponent's next move is only
//!   legal after one of the candidates; the squares lifted next belong to
//!   pieces only one reading puts there); colour and identity sensing are
//!   already used by recognition;
//! - when exactly one reading stands, the game goes on from it: its
//!   decisions are released in order, with their own times;
//! - if two or more still stand at the next completed move (or none does),
//!   an `ambiguous_move` alert names the candidates and the article that
//!   defines a move made (2009 §4.6, 2001 / 2023 4.7); the arbiter's `choose` record picks one (the game
//!   continues from it, the moves after it read again under it).
//!
//! A state read from a guess thus never produces a penalty: the decisions
//! of a reading are released only once the reading is settled.
//!
//! [`Recognition::Move::tied`]: crate::recognize::Recognition::Move

use super::announce::{Decision, Decisions};
use super::Arbiter;
use crate::recognize::{recognize, Recognition};
use crate::trace::{ArbiterAction, By, Event, EventKind, MoveChoice, Record, RecordKind};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, Move, Position};

/// One reading of a held press: the game as it goes on after that candidate.
#[derive(Debug, Clone)]
pub(super) struct Branch {
    /// The candidate move.
    mv: Move,
    /// The game under this reading.
    game: Box<Arbiter>,
    /// Its decisions since the press, kept back.
    out: Decisions,
    /// A later input was an illegal move, a touch-move breach or an
    /// irregularity under this reading.
    failed: bool,
    /// The squares this reading takes as displaced pieces (2023 7.4.1,
    /// 2009 §7.3); empty for a reading of the board as it stands.
    displaced: Bitboard,
    /// The decisions of the held press itself under this reading: not
    /// later evidence (its own `displaced` notice is no objection).
    own: usize,
}

/// A press held because the board fits several moves.
#[derive(Debug, Clone)]
pub(super) struct Held {
    /// Who pressed.
    by: Color,
    /// The 1-based half-move number of the held move.
    ply: u32,
    /// The position before it.
    before: Chess,
    /// One per candidate, in move-generation order.
    branches: Vec<Branch>,
    /// The `ambiguous_move` alert was raised.
    alerted: bool,
    /// The readings differ in the pieces they take as displaced (2023
    /// 7.4.1): asked at once, the squares to put right depend on it.
    displaced: bool,
}

/// Whether a decision objects to the play under a reading.
fn objects(d: &Decision) -> bool {
    matches!(
        d,
        Decision::Event(Event {
            kind: EventKind::IllegalMove { .. }
                | EventKind::TouchMove { .. }
                | EventKind::Irregularity { .. },
            ..
        })
    )
}

fn moves_in(out: &Decisions) -> usize {
    out.as_slice()
        .iter()
        .filter(|d| {
            matches!(
                d,
                Decision::Event(Event {
                    kind: EventKind::Move { .. },
                    ..
                })
            )
        })
        .count()
}

fn uci(mv: Move) -> String {
    UciMove::from_move(mv, CastlingMode::Standard).to_string()
}

impl Arbiter {
    /// Whether a reading is held for later evidence or the arbiter.
    pub fn ambiguity_held(&self) -> bool {
        self.held.is_some()
    }

    /// Before a record is processed: a press whose board fits several
    /// moves starts a hold. Returns true when the record was taken.
    pub(super) fn hold_if_ambiguous(&mut self, rec: &Record, out: &mut Decisions) -> bool {
        let RecordKind::Press(side) = rec.kind else {
            return false;
        };
        if self.forced.is_some()
            || self.ended()
            || side != self.pos.turn()
            || self.phase.is_restoring()
        {
            return false;
        }
        let candidates: Vec<(Move, Bitboard)> =
            match recognize(&self.pos, &self.boards[self.mi()].sensed, self.turn.promote) {
                Recognition::Move { mv, tied, .. } if !tied.is_empty() => std::iter::once(mv)
                    .chain(tied)
                    .map(|m| (m, Bitboard::EMPTY))
                    .collect(),
                // A legal move beside displaced pieces, read several ways
                // with as many squares displaced (2023 7.4.1): never a
                // penalty, nor a reading, on a guess.
                Recognition::NoLegalMove { .. } => self.displaced_readings(self.mi()),
                _ => return false,
            };
        if candidates.len() < 2 {
            return false;
        }
        let displaced = candidates.iter().any(|(_, x)| !x.is_empty());
        let snapshot = self.clone();
        let mut branches = Vec::with_capacity(candidates.len());
        for (mv, extra) in candidates {
            let mut game = Box::new(snapshot.clone());
            game.forced = Some(mv);
            let mut bout = Decisions::new();
            game.record(rec, &mut bout);
            if displaced && game.forced.is_some() {
                // The press took another path than the displaced pieces
                // (the moves made since the last press, a board set up
                // turned): not this hold's.
                return false;
            }
            game.forced = None;
            let own = if displaced { bout.len() } else { 0 };
            branches.push(Branch {
                mv,
                game,
                out: bout,
                failed: false,
                displaced: extra,
                own,
            });
        }
        tracing::info!(
            t = rec.t,
            candidates = ?branches.iter().map(|b| uci(b.mv)).collect::<Vec<_>>(),
            displaced,
            "press held: the board fits several moves"
        );
        self.held = Some(Box::new(Held {
            by: side,
            ply: self.moves.len() as u32 + 1,
            before: self.pos.clone(),
            branches,
            alerted: false,
            displaced,
        }));
        self.settle_held(rec.t, false, out);
        true
    }

    /// A record while a reading is held: the arbiter's `choose` picks one;
    /// anything else goes to every reading.
    pub(super) fn record_held(&mut self, rec: &Record, out: &mut Decisions) {
        if let RecordKind::Arbiter {
            action: ArbiterAction::Choose(u),
            ..
        } = &rec.kind
        {
            self.choose(u, rec.t, out);
            return;
        }
        self.feed_held(rec.t, false, out, |g, o| g.record(rec, o));
    }

    /// Time passes while a reading is held.
    pub(super) fn advance_held(&mut self, t: u64, out: &mut Decisions) {
        self.feed_held(t, false, out, |g, o| g.advance(t, o));
    }

    /// The end of input while a reading is held.
    pub(super) fn finish_held(&mut self, t: u64, out: &mut Decisions) {
        self.feed_held(t, true, out, |g, o| g.finish(t, o));
    }

    fn feed_held(
        &mut self,
        t: u64,
        at_end: bool,
        out: &mut Decisions,
        f: impl Fn(&mut Arbiter, &mut Decisions),
    ) {
        if let Some(h) = self.held.as_mut() {
            for b in h.branches.iter_mut() {
                f(&mut b.game, &mut b.out);
            }
        }
        self.settle_held(t, at_end, out);
    }

    /// Looks at the readings after an input: one left standing is adopted;
    /// several at the next completed move (or at the end), or none, raise
    /// the alert.
    fn settle_held(&mut self, t: u64, at_end: bool, out: &mut Decisions) {
        let Some(h) = self.held.as_mut() else {
            return;
        };
        for b in h.branches.iter_mut() {
            let later = b.out.as_slice().get(b.own..).unwrap_or(&[]);
            if !b.failed && later.iter().any(objects) {
                tracing::debug!(candidate = %uci(b.mv), "reading fails on later evidence");
                b.failed = true;
            }
        }
        let standing: Vec<usize> = (0..h.branches.len())
            .filter(|&i| !h.branches[i].failed)
            .collect();
        if standing.len() == 1 {
            let i = standing[0];
            tracing::info!(chosen = %uci(h.branches[i].mv), "held reading settled by later evidence");
            self.adopt(i, out);
            return;
        }
        let next_completed = standing.iter().any(|&i| moves_in(&h.branches[i].out) >= 2);
        if h.alerted || !(standing.is_empty() || next_completed || at_end || h.displaced) {
            return;
        }
        h.alerted = true;
        let shown: Vec<&Branch> = if standing.is_empty() {
            h.branches.iter().collect()
        } else {
            standing.iter().map(|&i| &h.branches[i]).collect()
        };
        let candidates = shown
            .iter()
            .map(|b| MoveChoice {
                uci: uci(b.mv),
                san: SanPlus::from_move(h.before.clone(), b.mv).to_string(),
                displaced: crate::model::square_names(b.displaced),
            })
            .collect();
        out.push(Event {
            t,
            kind: EventKind::AmbiguousMove {
                by: By(h.by),
                ply: h.ply,
                candidates,
                article: self.cfg.profile.article_ambiguous_move(),
            },
        });
    }

    /// The arbiter picks the reading `u` (UCI) of the held press.
    fn choose(&mut self, u: &str, t: u64, out: &mut Decisions) {
        let Some(h) = self.held.as_ref() else {
            return;
        };
        match h.branches.iter().position(|b| uci(b.mv) == u) {
            Some(i) => {
                tracing::info!(chosen = u, t, "arbiter chose the held reading");
                self.adopt(i, out);
            }
            None => tracing::warn!(
                uci = u,
                candidates = ?h.branches.iter().map(|b| uci(b.mv)).collect::<Vec<_>>(),
                "choose: not one of the held readings; the game stays held"
            ),
        }
    }

    /// The game goes on from reading `i`: its decisions are released in order.
    fn adopt(&mut self, i: usize, out: &mut Decisions) {
        let Some(mut h) = self.held.take() else {
            return;
        };
        let b = h.branches.swap_remove(i);
        *self = *b.game;
        let mut kept = b.out;
        for d in kept.drain() {
            out.push_decision(d);
        }
    }
}

impl Arbiter {
    /// At the end of the input: a game-ending move the board may show but
    /// does not evidence (tied with other readings, or a capture whose
    /// target never read empty), so never completed without a press, is
    /// alerted to the arbiter rather than dropped silently or guessed.
    pub(super) fn alert_tied_game_end(&mut self, t: u64, out: &mut Decisions) {
        if self.ended() || self.phase.is_restoring() || self.phase.pending_end().is_some() {
            return;
        }
        let Recognition::Move {
            mv, tied, missing, ..
        } = recognize(&self.pos, &self.boards[self.mi()].sensed, self.turn.promote)
        else {
            return;
        };
        // Tied, or a capture whose target never read empty (the piece may
        // as well still be in the hand over it): not evidenced.
        if tied.is_empty() && !(missing > 0 && mv.is_capture()) {
            return;
        }
        let candidates: Vec<Move> = std::iter::once(mv).chain(tied).collect();
        let ends = |m: &Move| {
            let mut after = self.pos.clone();
            after.play_unchecked(*m);
            crate::legal::is_checkmate(&after)
                || crate::legal::is_stalemate(&after)
                || super::dead::is_dead_fast(&after)
        };
        if !candidates.iter().any(ends) {
            return;
        }
        out.push(Event {
            t,
            kind: EventKind::AmbiguousMove {
                by: By(self.pos.turn()),
                ply: self.moves.len() as u32 + 1,
                candidates: candidates
                    .iter()
                    .map(|m| MoveChoice {
                        uci: uci(*m),
                        san: SanPlus::from_move(self.pos.clone(), *m).to_string(),
                        displaced: Vec::new(),
                    })
                    .collect(),
                article: self.cfg.profile.article_ambiguous_move(),
            },
        });
    }
}
