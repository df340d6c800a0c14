//! The move announced with an incorrect draw claim, where the text makes
//! that move itself binding (2001 §9.5b, seed 000: "Partiet skal herefter
//! fortsætte og det meddelte træk skal udføres"). 2009 §9.5b ("i henhold
//! til § 4") and 2023 9.5.3 ("in accordance with Articles 3 and 4") bind
//! only its piece, which `written.rs` counts as touched; there nothing is
//! kept here (`Profile::announced_move_binds`).
//!
//! Another move completed instead is a breach reported as `touch_move`
//! with the article 9.5b, the announced move's square as `touched`:
//! claimable by the opponent like a §4 breach (the move taken back, the
//! obligation standing again), and shown to the arbiter who ruled the claim.

use super::touch::Breach;
use super::Arbiter;
use shakmaty::{Color, Move, Position};

/// A move that must be made at the ply it was announced at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AnnouncedMove {
    /// The claimant, who must make it.
    pub(super) by: Color,
    /// The move announced (legal in the position of `ply`).
    pub(super) mv: Move,
    /// The completed plies when it was announced: it binds the next move
    /// only, and again after that move is taken back.
    pub(super) ply: u32,
    /// The article that binds it (`Profile::announced_move_binds`).
    pub(super) article: &'static str,
}

impl Arbiter {
    /// Keeps `m`, announced by the player on move with a claim found
    /// incorrect, when the profile makes the move itself binding. Returns
    /// the article when it does.
    pub(super) fn bind_announced(&mut self, m: &Move) -> Option<&'static str> {
        let article = self.cfg.profile.announced_move_binds()?;
        self.announced = Some(AnnouncedMove {
            by: self.pos.turn(),
            mv: *m,
            ply: self.ply(),
            article,
        });
        Some(article)
    }

    /// The breach of completing `mv` while another announced move binds
    /// the player on move (2001 §9.5b).
    pub(super) fn announced_breach(&self, mv: &Move) -> Option<Breach> {
        let a = self.announced.as_ref()?;
        if a.ply != self.ply() || a.by != self.pos.turn() || a.mv == *mv {
            return None;
        }
        let touched = match a.mv {
            Move::Castle { king, .. } => king,
            _ => a.mv.from()?,
        };
        Some(Breach {
            article: a.article,
            touched,
        })
    }
}
