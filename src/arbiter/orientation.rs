//! A board set up turned. A Hall board's squares are fixed by its wiring
//! (and its calibration, `crate::sensors::calibration`); the players set
//! the pieces up as they sit. So a board put on the table turned shows the
//! start position turned, and every later square would be read wrongly.
//!
//! - **Turned 90°** (the dark corner square at the players' right, contrary
//!   to §2.1): the home ranks lie along the a/b and g/h files. §7.1b (2001,
//!   2009) / 2023 7.2.2: the game continues, the position transferred to a
//!   correctly placed board. eboard transfers it by remapping the squares:
//!   `board_orientation` is raised with the profile's article and play goes
//!   on.
//! - **Turned 180°**: no rule of placement is broken (the light corner is
//!   still at the right, §2.1); White's pieces stand at the end the
//!   board's wiring gives Black. The board cannot know who sits where, so
//!   it does not say the colours are reversed (§7.2; 2023 7.3 would have
//!   the game discontinued with fewer than ten moves by both): it raises
//!   `board_turned` with §2.1, remaps the squares so the record is right,
//!   and the arbiter decides.
//!
//! Seen from occupancy alone a start position and its half turn are the
//! same (Identity and Rot180, Rot90 and Rot270). The board is read as
//! turned the first way that fits, and this is said (a warn log line and
//! the irregularity). The first press whose board shows no legal move that
//! way but a legal move the other way settles it: the changes since the
//! set-up, logged as sensed, are replayed under the half turn. With colour
//! or identity sensing the set-up reading already tells the ways apart.

use super::announce::Decisions;
use super::hand::Turn;
use super::setup::{Guidance, SetUp};
use super::Arbiter;
use crate::board::{Change, Orientation, SensedBoard};
use crate::model::IrregularityKind;
use crate::recognize::{recognize, Recognition};
use crate::trace::{Event, EventKind};
use shakmaty::{Bitboard, Board, Position};

/// The turns a board can stand in on the table (no mirror: a board cannot
/// be set down mirrored), the way as wired first.
pub(super) const TURNS: [Orientation; 4] = [
    Orientation::Identity,
    Orientation::Rot180,
    Orientation::Rot90,
    Orientation::Rot270,
];

/// How many squares a set-up reading must show wrong as wired, and right
/// turned, for the board to be taken as turned: a turned start position
/// puts 32 squares wrong (16 on a half turn sensing colour only where the
/// colours differ, every piece when sensed); a set-up with a few pieces
/// misplaced, or the first squares of a colour reading, stay guidance.
pub(super) const TURN_EVIDENCE: usize = 8;

/// `board` as the sensors of a board turned by `o` see it (sensed square
/// `s` shows the game's square `o.apply(s)`).
pub(super) fn as_sensed(o: Orientation, board: &Board) -> Board {
    o.inverse().apply_board(board)
}

/// A bitboard of sensed squares as the game's squares under `o`.
fn to_game(o: Orientation, bb: Bitboard) -> Bitboard {
    Bitboard(o.apply_bits(bb.0))
}

impl Guidance {
    /// The guidance with its squares named as the game's squares on a board
    /// turned by `o` (the squares the players see).
    pub(super) fn turned(self, o: Orientation) -> Guidance {
        Guidance {
            missing: to_game(o, self.missing),
            extra: to_game(o, self.extra),
            misplaced: to_game(o, self.misplaced),
        }
    }
}

impl Arbiter {
    /// At the set-up, with the main board reading `probe` (sensed squares,
    /// the board not yet taken as turned): the turn, other than as wired,
    /// under which the board shows the start position, or shows it but for
    /// pieces in a hand when `in_hand` (a first reading), and which the
    /// reading tells apart from the board as wired.
    pub(super) fn turn_fitting(&self, probe: &SensedBoard, in_hand: bool) -> Option<Orientation> {
        let start = self.pos.board();
        let side = self.pos.turn();
        let as_wired = Guidance::between(probe, start);
        TURNS[1..].iter().copied().find(|&o| {
            let seen = as_sensed(o, start);
            let g = Guidance::between(probe, &seen);
            // A reading that cannot tell the turn from the board as wired
            // (occupancy alone and a half turn), or tells it by a few
            // squares only (a colour board's first squares read, a set-up
            // with a few pieces wrong), decides nothing: the first move
            // does (`try_turned_board`).
            as_wired.squares().count() >= TURN_EVIDENCE
                && g != as_wired
                && (g.is_empty() || (in_hand && g.in_hand(&seen, side)))
        })
    }

    /// The guidance for the set-up reading `probe`: what the board lacks to
    /// show the start position the way it fits best (the fewest squares to
    /// put right; as wired on a tie, and as wired unless at least
    /// [`TURN_EVIDENCE`] squares are wrong so), in the squares the players
    /// see.
    pub(super) fn best_guidance(&self, probe: &SensedBoard) -> Guidance {
        let start = self.pos.board();
        let as_wired = Guidance::between(probe, start);
        if as_wired.squares().count() < TURN_EVIDENCE {
            return as_wired;
        }
        let mut best = as_wired;
        for o in TURNS[1..].iter().copied() {
            let g = Guidance::between(probe, &as_sensed(o, start)).turned(o);
            if g.squares().count() < best.squares().count() {
                best = g;
            }
        }
        best
    }

    /// Takes the main board as turned by `o` from now on, at the set-up,
    /// its reading being `probe` (sensed squares): the board shows the start
    /// position in the game's squares, `changes` become what differs from
    /// it (pieces in a hand), the set-up log restarts from them, and the
    /// irregularity is raised: `board_orientation` for a quarter turn
    /// (§7.1b / 7.2.2), `board_turned` for a half turn (§2.1).
    pub(super) fn take_as_turned(
        &mut self,
        o: Orientation,
        probe: &SensedBoard,
        changes: &mut Vec<Change>,
        t: u64,
        out: &mut Decisions,
    ) {
        let start = self.pos.board().clone();
        let mut board = SensedBoard::new(&start);
        board.bounce_ms = self.cfg.bounce_ms;
        *changes = board.frame_changes(o.apply_bits(probe.occupied().0));
        let back = o.inverse();
        self.setup_log = Some(
            changes
                .iter()
                .map(|ch| (t, back.apply_change(*ch)))
                .collect(),
        );
        self.boards[0].sensed = board;
        self.turned = o;
        self.turn = Turn::default();
        let wrong: Bitboard = changes
            .iter()
            .map(|ch| match ch {
                Change::Lift(sq) | Change::Place(sq, _, _) => *sq,
            })
            .collect();
        self.setup = if wrong.is_empty() {
            SetUp::Done
        } else {
            SetUp::Lifted(wrong)
        };
        tracing::warn!(
            turned = ?o,
            "the board shows the start position turned; its squares are remapped"
        );
        // At the set-up the reference is the board placed right.
        self.raise_turned(Orientation::Identity, o, t, out);
    }

    /// Raises the irregularity for a board found turned by `o`, having
    /// been read turned `from`. Only a board placed contrary to §2.1 (a
    /// quarter turn: the light corner not at the players' right), or set
    /// right from one, is §7.1b / 7.2.2 (`board_orientation`); a half turn
    /// between two correct placements (the light corner at the right both
    /// ways) breaks no rule of placement and is reported as seen
    /// (`board_turned`, 2.1), also when it is turned back.
    fn raise_turned(&self, from: Orientation, o: Orientation, t: u64, out: &mut Decisions) {
        let a = self.cfg.profile.articles;
        let placed_right =
            |x: Orientation| matches!(x, Orientation::Identity | Orientation::Rot180);
        let (kind, article) = match o {
            _ if placed_right(from) && placed_right(o) && from != o => (
                IrregularityKind::BoardTurned,
                self.cfg.profile.article_board_turned(),
            ),
            _ => (IrregularityKind::BoardOrientation, a.board_orientation),
        };
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind,
                article,
                squares: Vec::new(),
            },
        });
    }

    /// At the first press, the main board showing no legal move the way it
    /// is read: if the changes since the set-up, read under one other turn
    /// (and only one), show a legal first move, the board is taken as turned
    /// that way from now on, and the irregularity raised for it — except
    /// when only the way of a quarter turn is settled (`board_orientation`
    /// was raised at the set-up). When several turns fit, nothing is taken
    /// (a warn line says so) and the press is judged as read. Returns
    /// whether the board was retaken.
    pub(super) fn try_turned_board(&mut self, t: u64, out: &mut Decisions) -> bool {
        let Some(log) = self.setup_log.clone() else {
            return false;
        };
        let from = self.turned;
        // The half turn first: what occupancy cannot tell apart.
        let order = [from.half_turn(), TURNS[2], TURNS[3], TURNS[0], TURNS[1]];
        let mut fits: Vec<(Orientation, SensedBoard)> = Vec::new();
        for o in order {
            if o == from || fits.iter().any(|(f, _)| *f == o) {
                continue;
            }
            let mut probe = SensedBoard::new(self.cfg.start.board());
            probe.bounce_ms = self.cfg.bounce_ms;
            for (ct, ch) in &log {
                probe.apply(o.apply_change(*ch), *ct);
            }
            if matches!(
                recognize(&self.pos, &probe, self.turn.promote),
                Recognition::Move { missing: 0, .. }
            ) {
                fits.push((o, probe));
            }
        }
        if fits.len() > 1 {
            tracing::warn!(
                turns = ?fits.iter().map(|(o, _)| *o).collect::<Vec<_>>(),
                "the first move fits the board turned several ways; none taken"
            );
            return false;
        }
        let Some((to, probe)) = fits.pop() else {
            return false;
        };
        self.turned = to;
        self.boards[0].sensed = probe;
        self.turn = Turn::default();
        tracing::warn!(
            from = ?from,
            to = ?to,
            "the first move fits the board only turned another way; its squares are remapped"
        );
        let quarter = |o: Orientation| matches!(o, Orientation::Rot90 | Orientation::Rot270);
        if to != Orientation::Identity && !(quarter(from) && quarter(to)) {
            self.raise_turned(from, to, t, out);
        }
        true
    }

    /// Mid-game (after the first completed move): the main board, as its
    /// sensors read it, shows the game's position under another turn only,
    /// by at least [`TURN_EVIDENCE`] squares that differ as it is read now
    /// (in occupancy, or in the colour sensed where the board senses it).
    /// The board was found placed wrongly and set right (or the other way
    /// round) with the position transferred to it: 2009 §7.1b (seed 002)
    /// "…skal partiet fortsætte, men stillingen skal overføres til et
    /// korrekt placeret bræt", 2001 §7.1b the same, 2023 7.2.2 "the game
    /// shall continue but the position reached must be transferred to a
    /// correctly placed chessboard". The square map follows the board, the
    /// game goes on from the transferred position (no move, no illegal move
    /// ruled for the transfer, the lifts of the transfer bind nobody, §4),
    /// and the arbiter is told (`board_orientation`, or `board_turned` for a
    /// half turn). Returns whether the map changed.
    pub(super) fn watch_transferred(&mut self, t: u64, out: &mut Decisions) -> bool {
        if self.setup_log.is_some() || self.ended() {
            return false;
        }
        let sensed = &self.boards[0].sensed;
        let board = self.pos.board();
        let occ = board.occupied();
        let now = sensed.occupied();
        let (known, white) = sensed.colors();
        // The evidence: the squares wrong as read now, by occupancy or, where
        // the board senses it, by colour (a half turn after 2. exd5 moves
        // two squares' occupancy but 30 pieces' colours).
        let wrong = (now ^ occ) | (known & now & occ & (white ^ board.white()));
        if wrong.count() < TURN_EVIDENCE {
            return false;
        }
        let back = self.turned.inverse();
        let raw = back.apply_bits(now.0);
        let (raw_known, raw_white) = (back.apply_bits(known.0), back.apply_bits(white.0));
        let fits: Vec<Orientation> = TURNS
            .iter()
            .copied()
            .filter(|&o| o != self.turned && Bitboard(o.apply_bits(raw)) == occ)
            .filter(|&o| {
                let k = Bitboard(o.apply_bits(raw_known));
                let w = Bitboard(o.apply_bits(raw_white));
                (k & (w ^ board.white())).is_empty()
            })
            .collect();
        let [to] = fits[..] else {
            return false;
        };
        tracing::warn!(
            from = ?self.turned,
            to = ?to,
            "the board shows the position transferred to a board turned otherwise; its squares are remapped"
        );
        let from = std::mem::replace(&mut self.turned, to);
        let pos = self.pos.clone();
        self.boards[0].sensed.reset_to(pos.board());
        self.boards[0].seen = pos.board().occupied();
        self.boards[0].synced = true;
        self.turn = Turn::default();
        self.cancel_pending_end();
        if self.phase().is_restoring() {
            self.check_restored(0, t, out);
        }
        self.raise_turned(from, to, t, out);
        true
    }
}
