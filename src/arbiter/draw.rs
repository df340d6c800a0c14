//! Draw offers (§9.1): made, accepted (the game is drawn by agreement),
//! declined, lapsed by the opponent's touch, or declined by playing on (see
//! `Arbiter::complete`). A draw offer is a fact beside the game's phase: it
//! stands while the game goes on.
//!
//! When an offer lapses (2009 §9.1b(1), seed 002): "I begge tilfælde kan
//! tilbuddet ikke trækkes tilbage og gælder indtil modstanderen modtager det,
//! afslår det mundtligt, afslår det ved at røre en brik i den hensigt at
//! flytte eller slå den, eller partiet afsluttes på anden vis" (2001 §9.1a,
//! seed 000, the same words; 2023 9.1.2.1: "… rejects it by touching a piece
//! with the intention of moving or capturing it …"). A touch here is a lift
//! the arbiter counts as the player on move's touch (§4.3; not an
//! adjustment, §4.2): the offer then lapses, and an acceptance after it is
//! no agreement. The event stream shows the `touch` and nothing for the
//! late `accept` (no `game_end`); the lapse is logged with its article.

use super::announce::{Announcement, Decisions};
use super::Arbiter;
use crate::model::{EndReason, IrregularityKind, KnownOutcome};
use crate::recognize::{recognize, Recognition};
use crate::trace::{By, Event, EventKind};
use shakmaty::{Color, Position};

impl Arbiter {
    /// `side` offers a draw (§9.1b).
    pub(super) fn offer_draw(&mut self, side: Color, t: u64, out: &mut Decisions) {
        if self.ended() {
            return;
        }
        self.draw_offer = Some(side);
        self.last_offers[super::ci(side)] = Some(self.moves.len() as u32);
        out.push(Event {
            t,
            kind: EventKind::DrawOffer { by: By(side) },
        });
    }

    /// `side` accepts the opponent's offer: a draw by agreement (§5.2c / 9.1).
    ///
    /// 2023 5.2.3: "The game is drawn upon agreement between the two
    /// players during the game, provided both players have made at least
    /// one move." Before that the acceptance is no agreement: the offer
    /// stands, and the arbiter is shown why (`agreement_before_a_move_each`).
    pub(super) fn accept_draw(&mut self, side: Color, t: u64, out: &mut Decisions) {
        if self.draw_offer == Some(!side) {
            let p = self.cfg.profile;
            let article = p.articles.agreement;
            // *Made* (2023 1.3, 4.7), not completed: the move of the
            // player on move that stands on the board counts too (he offers
            // "after having made a move on the chessboard and before
            // pausing his/her own clock", 9.1.2.1).
            let made_now = matches!(
                recognize(&self.pos, &self.reading(self.mi()), self.turn.promote),
                Recognition::Move { missing: 0, .. }
            );
            let turn = self.pos.turn();
            let moved = |c: Color| self.moves.iter().any(|m| m.by == c) || (made_now && c == turn);
            if p.agreement_needs_a_move_each() && !(moved(Color::White) && moved(Color::Black)) {
                out.push(Event {
                    t,
                    kind: EventKind::Irregularity {
                        kind: IrregularityKind::AgreementBeforeAMoveEach,
                        article,
                        squares: Vec::new(),
                    },
                });
                return;
            }
            self.end(KnownOutcome::Draw, EndReason::Agreement, article, t, out);
        }
    }

    /// `side` declines the opponent's offer.
    pub(super) fn decline_draw(&mut self, side: Color, t: u64, out: &mut Decisions) {
        if self.draw_offer == Some(!side) {
            self.draw_offer = None;
            let what = Announcement::DrawOfferEnded {
                by: !side,
                lapsed: false,
            };
            self.announce(what, t, out);
        }
    }

    /// `by`, on move, touched a piece with the intention of moving or
    /// capturing it: the opponent's offer lapses (2001 §9.1a, 2009
    /// §9.1b(1), 2023 9.1.2.1).
    pub(super) fn lapse_offer_on_touch(&mut self, by: Color, t: u64, out: &mut Decisions) {
        if self.draw_offer == Some(!by) {
            self.draw_offer = None;
            let what = Announcement::DrawOfferEnded {
                by: !by,
                lapsed: true,
            };
            self.announce(what, t, out);
            tracing::info!(
                article = self.cfg.profile.articles.draw_offer_lapses,
                by = crate::model::side_name(by),
                "draw offer rejected by touching a piece"
            );
        }
    }

    /// `by` completed a move: an offer of the opponent is declined by
    /// playing on (§9.1).
    pub(super) fn decline_by_playing_on(&mut self, by: Color, t: u64, out: &mut Decisions) {
        if self.draw_offer == Some(!by) {
            self.draw_offer = None;
            let what = Announcement::DrawOfferEnded {
                by: !by,
                lapsed: false,
            };
            self.announce(what, t, out);
        }
    }
}
