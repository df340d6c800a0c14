//! A draw claim held for the arbiter (`claim_held`, `written.rs`) across a
//! move: possible only on a board without a clock (with one, holding the
//! claim stops both clocks and no move is completed until the arbiter
//! rules). The claim held means the game is stopped (2009 §9.5 / 2023
//! 9.5.1: the clocks stopped, the arbiter to rule): a move made meanwhile
//! does not withdraw it, and it is ruled on the position it was made in.
//! So the open matter says that it was overtaken and by which moves, and
//! offers the one ruling that can be applied now: the position set back to
//! the claim's (the moves since taken back, `position`); its Uphold and
//! Reject come back once the game stands there again. Never an Uphold or
//! Reject that could only be refused (409).

use super::matter::{ruling, OpenMatter};
use super::written::HeldClaim;
use super::Arbiter;
use serde_json::json;
use shakmaty::fen::Fen;
use shakmaty::EnPassantMode;

impl Arbiter {
    /// The held claim `h` as an open matter when moves were made since it.
    pub(super) fn held_overtaken(&self, h: &HeldClaim, what: &str, article: &str) -> OpenMatter {
        let who = if h.by == shakmaty::Color::White {
            "White"
        } else {
            "Black"
        };
        let since: Vec<&str> = self
            .moves
            .iter()
            .skip(h.ply as usize)
            .map(|m| m.san.as_str())
            .collect();
        let moves = since.join(" ");
        let mut rulings = Vec::new();
        if let Some(pos) = self.history.get(h.ply as usize) {
            let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
            rulings.push(ruling(
                "position",
                json!({ "fen": fen }),
                &format!("Set the position back to the claim's (take back {moves})"),
                format!(
                    "the moves made while the claim was held ({moves}) are taken back; the \
                     position of the claim stands again and the claim is ruled there \
                     (uphold or reject, {article})"
                ),
            ));
        }
        OpenMatter {
            kind: "claim_held",
            t: h.t,
            by: Some(crate::trace::color_str(h.by)),
            summary: format!(
                "{who}'s {what} claim, held for your ruling ({article}), was overtaken: {} \
                 made since ({moves}) while the game stood stopped for it; it can be ruled \
                 only on its own position: set the position back first",
                if since.len() == 1 {
                    "a move was"
                } else {
                    "moves were"
                }
            ),
            rulings,
        }
    }
}
