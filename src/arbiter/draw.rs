//! Draw offers (§9.1): made, accepted (the game is drawn by agreement),
//! declined, or declined by playing on (see `Arbiter::complete`). A draw offer
//! is a fact beside the game's phase: it stands while the game goes on.

use super::announce::Decisions;
use super::Arbiter;
use crate::model::{EndReason, KnownOutcome};
use crate::trace::{By, Event, EventKind};
use shakmaty::Color;

impl Arbiter {
    /// `side` offers a draw (§9.1b).
    pub(super) fn offer_draw(&mut self, side: Color, t: u64, out: &mut Decisions) {
        if self.ended() {
            return;
        }
        self.draw_offer = Some(side);
        out.push(Event {
            t,
            kind: EventKind::DrawOffer { by: By(side) },
        });
    }

    /// `side` accepts the opponent's offer: a draw by agreement (§5.2c / 9.1).
    pub(super) fn accept_draw(&mut self, side: Color, t: u64, out: &mut Decisions) {
        if self.draw_offer == Some(!side) {
            let article = self.cfg.profile.articles.agreement;
            self.end(KnownOutcome::Draw, EndReason::Agreement, article, t, out);
        }
    }

    /// `side` declines the opponent's offer.
    pub(super) fn decline_draw(&mut self, side: Color) {
        if self.draw_offer == Some(!side) {
            self.draw_offer = None;
        }
    }

    /// `by` completed a move: an offer of the opponent is declined by
    /// playing on (§9.1).
    pub(super) fn decline_by_playing_on(&mut self, by: Color) {
        if self.draw_offer == Some(!by) {
            self.draw_offer = None;
        }
    }
}
