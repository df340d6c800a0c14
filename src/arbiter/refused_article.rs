//! The article of a ruling the board refused (issue 24.9: the round
//! report gives every ruling its article, the refused ones too): the
//! article of the matter the ruling was about when there is one (the
//! pending illegal move, the touch-move breach, the claim held or decided,
//! the ruling to undo), else the article of the ruling asked for (pause,
//! resume, clock, position, forfeit, result, confirmation, Appendix E's
//! rewind, the choice of an ambiguous move's reading) — the same
//! article the board would have cited had it applied it, from `rules` per
//! profile ([`RulingArticles`], [`crate::rules::Profile`]). Taken before
//! the ruling is tried, on the state the arbiter ruled on.

use super::Arbiter;
use crate::model::ClaimKind;
use crate::rules::RulingArticles;
use crate::trace::ArbiterAction;

impl Arbiter {
    /// The article `action` is about on the game as it stands (see the
    /// module's doc); `None` when it names no matter the board knows (an
    /// overrule with nothing to overrule, an undo of a ruling never given).
    pub(super) fn asked_article(&self, action: &ArbiterAction) -> Option<&'static str> {
        let a = self.cfg.profile.articles;
        let ra = RulingArticles::of(self.cfg.profile.edition);
        let claim = || {
            self.held_claim
                .as_ref()
                .map(|h| {
                    self.cfg
                        .profile
                        .article_written_claim(h.kind == ClaimKind::FiftyMoves)
                })
                .or_else(|| self.decided_claim.as_ref().map(|d| d.article))
        };
        Some(match action {
            ArbiterAction::Restore | ArbiterAction::Accept => {
                match (&self.pending_illegal, &self.pending_breach) {
                    (Some(pi), _) => pi.article,
                    (None, Some(pb)) if matches!(action, ArbiterAction::Accept) => {
                        pb.breach.article
                    }
                    _ if self.alerts.last().map(|x| x.kind) == Some("illegal_move") => {
                        a.illegal_move
                    }
                    _ => ra.position,
                }
            }
            ArbiterAction::Overrule => match (&self.pending_illegal, &self.pending_breach) {
                (Some(pi), _) => pi.article,
                (None, Some(pb)) if self.decided_claim.is_none() => pb.breach.article,
                _ => claim()?,
            },
            ArbiterAction::Uphold(_) | ArbiterAction::Reject(_) => claim()?,
            ArbiterAction::Confirm(_) => ra.confirm,
            ArbiterAction::Forfeit(_) | ArbiterAction::ForfeitBeforeDefaultTime(_) => ra.forfeit,
            ArbiterAction::SetResult(_) if self.both_flags_down() => a.both_flags,
            ArbiterAction::SetResult(r) => {
                self.flag_declared(*r, false).map_or(ra.result, |(_, x)| x)
            }
            ArbiterAction::DeclareResult { article, .. } => self
                .cfg
                .profile
                .declared_article(article)
                .map_or(ra.result, |d| d.article),
            ArbiterAction::SetClock { .. } => ra.clock,
            ArbiterAction::SetPosition(_) => ra.position,
            // Appendix E: back to where the two boards agree (E2.8, D.2.9).
            ArbiterAction::Rewind(_) => self.cfg.profile.article_vi_rewind(),
            ArbiterAction::Choose(_) => self.cfg.profile.article_ambiguous_move(),
            ArbiterAction::Increment(_) => a.increment_request,
            ArbiterAction::TimeControl { .. } => ra.clock,
            ArbiterAction::Downtime { .. } => self.cfg.profile.article_downtime(),
            ArbiterAction::Pause => ra.pause,
            ArbiterAction::Resume => ra.resume,
            ArbiterAction::Undo(n) => self.rulings.iter().find(|r| r.seq == *n)?.article,
            // The penalty's article (7.5.5 / §7.4b); the re-classification's 7.4.1 / §7.3.
            // A game end withdrawn: the article of the end it reverses
            // (a flag's: the clocks set).
            ArbiterAction::Withdraw(crate::trace::PenaltyRef::End { times: Some(_), .. }) => {
                ra.clock
            }
            ArbiterAction::Withdraw(crate::trace::PenaltyRef::End { .. }) => {
                self.outcome()?.article
            }
            ArbiterAction::Withdraw(_) => a.illegal_penalty,
            ArbiterAction::Displaced { .. } => a.displaced,
        })
    }
}
