//! Appendix E: a visually impaired player on a tactile board beside the
//! main board. His move is made when the tactile board shows it and is
//! announced before he may start the clock (E2.3); each player copies the
//! opponent's move on his own board, and boards that settle differing are
//! reported (E2.7).

use super::announce::{Announcement, Decisions};
use super::{square_list, Arbiter};
use crate::model::IrregularityKind;
use crate::recognize::{recognize, Recognition};
use crate::trace::{Event, EventKind};
use shakmaty::{Bitboard, Color, Move, Position};

/// How long the tactile board must show the visually impaired player's
/// move before its announcement starts, ms.
pub const ANNOUNCE_SETTLE_MS: u64 = 300;

/// The visually impaired player's move, made on the tactile board and
/// announced (E2.3).
#[derive(Debug, Clone)]
pub(super) struct Announced {
    pub(super) mv: Move,
    /// When the board showed it, ms.
    pub(super) t: u64,
    /// When its announcement started (E2.3c), ms; `None` before it is
    /// spoken. Where the controller follows the speech
    /// ([`Arbiter::set_speech_tracked`]) the move counts as announced only
    /// when its words have been played.
    pub(super) heard_at: Option<u64>,
}

impl Arbiter {
    /// Whether the move being played (not yet completed) has been announced
    /// already: the visually impaired player's move, announced once the
    /// tactile board shows it (E2.3). The controller says a draw offer
    /// after the move it goes with (§9.1.2) and needs to know whether that
    /// move's words are still to come.
    pub fn move_announced_before_completion(&self) -> bool {
        self.turn
            .announced
            .as_ref()
            .is_some_and(|a| a.heard_at.is_some())
    }

    /// Whether `side` is the visually impaired player of a two-board game.
    pub(super) fn plays_tactile(&self, side: Color) -> bool {
        self.cfg.header.vi_player == Some(side) && self.boards.len() > 1
    }

    /// Whether the end of each announcement is reported
    /// ([`Arbiter::move_announcement_played`], by the controller that
    /// renders them): the E2.3 press check then waits for it.
    pub fn set_speech_tracked(&mut self, tracked: bool) {
        self.speech_tracked = tracked;
    }

    /// Appendix E2.3: the visually impaired player's move is made when the
    /// tactile board shows it; it is then announced, and only then may the
    /// clock be started. A move shown again differently after its
    /// announcement is flagged to the arbiter; a promotion whose piece is
    /// neither sensed nor named is not announced: the player is asked.
    pub(super) fn watch_vi_move(&mut self, t: u64, out: &mut Decisions) {
        let side = self.pos.turn();
        if !self.plays_tactile(side) {
            return;
        }
        let bi = self.mi();
        let shown = match recognize(&self.pos, &self.reading(bi), self.turn.promote) {
            Recognition::Move {
                mv,
                missing: 0,
                promotion_assumed,
                ..
            } => Some((mv, promotion_assumed)),
            _ => None,
        };
        let was = self.turn.announced.clone();
        if let Some(a) = was.as_ref().filter(|a| a.heard_at.is_some()) {
            if shown.is_none() && self.still_shows(bi, &a.mv) {
                // His announced move stands, with his opponent's reply
                // (made before his press, §1.1 / 2023 1.3) copied on top of
                // it (E2.1): his move was not moved; the press reads both
                // (`unpressed.rs`).
                return;
            }
            if shown.as_ref().is_none_or(|(mv, _)| *mv != a.mv) {
                let mut squares = Bitboard::from(a.mv.to());
                if let Some(from) = a.mv.from() {
                    squares.add(from);
                }
                out.push(Event {
                    t,
                    kind: EventKind::Irregularity {
                        kind: IrregularityKind::MovedAfterAnnouncement,
                        article: self.cfg.profile.article_vi_move_made(),
                        squares: square_list(squares),
                    },
                });
            }
        }
        match shown {
            Some((mv, true)) => {
                self.turn.announced = None;
                self.ask_promotion_piece(side, &mv, t, out);
            }
            Some((mv, false)) => {
                if was.as_ref().is_none_or(|a| a.mv != mv) {
                    self.turn.announced = Some(Announced {
                        mv,
                        t,
                        heard_at: None,
                    });
                }
            }
            None => self.turn.announced = None,
        }
    }

    /// Whether board `bi` still shows `mv` (from the last completed
    /// position) on every square it changed, whatever else changed since.
    fn still_shows(&self, bi: usize, mv: &Move) -> bool {
        let mut after = self.pos.clone();
        after.play_unchecked(*mv);
        let e = crate::recognize::effect(mv, self.pos.turn());
        let mut squares = e.vacated | e.cleared;
        for (sq, _) in e.filled.into_iter().flatten() {
            squares.add(sq);
        }
        (self.reading(bi).differences(after.board()) & squares).is_empty()
    }

    /// E2.1 / E2.3: the pawn stands on the last rank with no piece named or
    /// sensed: the player is asked which piece (once per square), the
    /// arbiter told; the move waits for the answer.
    pub(super) fn ask_promotion_piece(
        &mut self,
        side: Color,
        mv: &Move,
        t: u64,
        out: &mut Decisions,
    ) {
        let square = mv.to();
        if self.turn.promotion_asked == Some(square) {
            return;
        }
        self.turn.promotion_asked = Some(square);
        out.push(Event {
            t,
            kind: EventKind::Irregularity {
                kind: IrregularityKind::PromotionPieceUnnamed,
                article: self.cfg.profile.article_vi_promotion_piece(),
                squares: vec![square.to_string()],
            },
        });
        self.announce(Announcement::PromotionPiece { by: side, square }, t, out);
    }

    /// E2.3: the move shown on the tactile board for [`ANNOUNCE_SETTLE_MS`]
    /// before `t` is announced (once); without tracked speech it counts
    /// as announced when the announcement starts.
    pub(super) fn announce_settled_vi_move(&mut self, t: u64, out: &mut Decisions) {
        let Some(a) = self.turn.announced.clone().filter(|a| a.heard_at.is_none()) else {
            return;
        };
        let at = a.t + ANNOUNCE_SETTLE_MS;
        if t > at {
            let what = Announcement::Move {
                before: self.pos.clone(),
                mv: a.mv,
            };
            self.announce(what, at, out);
            if let Some(x) = self.turn.announced.as_mut() {
                x.heard_at = Some(at);
            }
        }
    }

    /// Whether `mv` was already announced as made on the tactile board.
    pub(super) fn announced_before_press(&self, mv: &Move) -> bool {
        self.turn
            .announced
            .as_ref()
            .is_some_and(|a| a.heard_at.is_some() && a.mv == *mv)
    }

    /// E2.3: the visually impaired player started the clock at `t` before
    /// his move `mv` was announced (or before its announcement was heard).
    pub(super) fn check_press_after_announcement(
        &self,
        side: Color,
        mv: &Move,
        t: u64,
        out: &mut Decisions,
    ) {
        let heard = self
            .turn
            .announced
            .as_ref()
            .and_then(|a| a.heard_at.filter(|_| a.mv == *mv))
            .is_some_and(|at| at <= t)
            // Where the controller follows the speech (`SpeechTiming`), the
            // move counts as announced when its words have been played.
            && (!self.speech_tracked || self.move_announced_at(mv).is_some_and(|end| end <= t));
        if self.plays_tactile(side) && !heard {
            // His own output failed to play it: the announcement never
            // reached him, he is not at fault; the arbiter is told so that
            // he announces the move himself (E2.3, Appendix E's right to
            // the announcement), not that the clock was started early.
            let unheard = self
                .speech_unheard
                .is_some_and(|(m, by)| m == *mv && by == side);
            out.push(Event {
                t,
                kind: EventKind::Irregularity {
                    kind: if unheard {
                        IrregularityKind::AnnouncementNotHeard
                    } else {
                        IrregularityKind::ClockStartedBeforeAnnouncement
                    },
                    article: self.cfg.profile.articles.vi_clock_after_announcement,
                    squares: vec![mv.to().to_string()],
                },
            });
        }
    }

    /// E2.7: once a board has been still for the settle time (no report
    /// while pieces are moving) and differs from the record as its owner's
    /// copy, the arbiter and both players are told whose board differs and
    /// on which squares, so it can be put right ([`Arbiter::copy_difference`]).
    pub(super) fn check_divergence(&mut self, t: u64, out: &mut Decisions) {
        for bi in 0..self.boards.len() {
            let Some(since) = self.boards[bi].unchecked_since else {
                continue;
            };
            let at = since + self.cfg.settle_ms;
            if t < at {
                continue;
            }
            self.boards[bi].unchecked_since = None;
            match self.copy_difference(bi) {
                Some(d) if d.is_empty() => self.boards_agree_again(bi, at, out),
                Some(d) => self.report_boards_differ(bi, d, at, out),
                None => {}
            }
        }
    }
}
