//! Who decides, per article (issue 40 point 1): for every decision the
//! board takes, whether the Laws take it without anyone (automatic), on a
//! player's claim, or by the arbiter, with its article, per profile; and
//! where the event may choose, the setting and the Laws' own default.
//! Shown by `eboard doctor` (`rules`) and in the board's state for the
//! console (`decisions`).

use super::{IllegalMoveRule, Profile};
use crate::model::{Edition, Mode};
use serde::Serialize;

/// Who takes a decision under the Laws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decider {
    /// The Laws decide without anyone (a mate, a dead position, 2023 9.6):
    /// the board applies it.
    Automatic,
    /// Only a player's claim counts; the board proposes its ruling on the
    /// claim (the arbiter can reverse it).
    Claim,
    /// The arbiter decides; where the board acts (the arbiter's eye on the
    /// clock, an illegal move where the event says so) the arbiter can
    /// reverse it, elsewhere the board proposes and waits.
    Arbiter,
}

impl Decider {
    /// `automatic`, `claim`, `arbiter`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decider::Automatic => "automatic",
            Decider::Claim => "claim",
            Decider::Arbiter => "arbiter",
        }
    }
}

/// One decision of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// What is decided (`checkmate`, `illegal_move`, `flag`, …).
    pub decision: &'static str,
    /// The article, per edition (`7.5.5`, `A.5.2`, `A4c`, …).
    pub article: &'static str,
    /// Who decides.
    pub by: Decider,
    /// What the board does, in words.
    pub board: &'static str,
    /// The event setting that chooses here, if any, and its value in force.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setting: Option<EventSetting>,
}

/// An event setting that chooses who decides ([`Decision::setting`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EventSetting {
    /// The `[event]` key (and trace header key).
    pub key: &'static str,
    /// Its value in force.
    pub on: bool,
    /// Whether that value is the Laws' own default.
    pub laws_default: bool,
}

fn d(decision: &'static str, article: &'static str, by: Decider, board: &'static str) -> Decision {
    Decision {
        decision,
        article,
        by,
        board,
        setting: None,
    }
}

impl Profile {
    /// The table of decisions of this profile: who decides each, under
    /// which article, and what the board does.
    pub fn decisions(&self) -> Vec<Decision> {
        use Decider::*;
        let a = self.articles;
        let mut v = vec![
            d(
                "checkmate",
                a.checkmate,
                Automatic,
                "ends the game at the move; the arbiter can cancel it (withdraw)",
            ),
            d(
                "stalemate",
                a.stalemate,
                Automatic,
                "ends the game at the move; the arbiter can cancel it (withdraw)",
            ),
            d(
                "dead_position",
                a.dead_position,
                Automatic,
                "ends the game at the move; the arbiter can cancel it (withdraw)",
            ),
        ];
        if self.automatic_fivefold {
            v.push(d(
                "fivefold",
                a.fivefold,
                Automatic,
                "ends the game at the move; the arbiter can cancel it (withdraw)",
            ));
            v.push(d(
                "seventy_five_moves",
                a.seventy_five_moves,
                Automatic,
                "ends the game at the move; the arbiter can cancel it (withdraw)",
            ));
        }
        v.push(d(
            "threefold",
            a.threefold,
            Claim,
            "rules on the claim; the arbiter can overrule",
        ));
        v.push(d(
            "fifty_moves",
            a.fifty_moves,
            Claim,
            "rules on the claim; the arbiter can overrule",
        ));
        v.push(d(
            "wrong_claim",
            a.wrong_claim,
            Arbiter,
            "gives the penalty of a rejected draw claim; the arbiter can overrule",
        ));
        // 2009 §6.8 / 2023 6.8: "A flag is considered to have fallen when
        // the arbiter observes the fact or when either player has made a
        // valid claim"; 2009 A4d1 / 2001 B6: only a player's claim.
        v.push(if self.flag_needs_claim {
            d(
                "flag",
                a.flag_claim,
                Claim,
                "shows the flag to the arbiter; the game ends on a claim or his ruling",
            )
        } else {
            d(
                "flag",
                a.flag,
                Arbiter,
                "calls the flag as the arbiter observing the clock; the arbiter can cancel it \
                 with the clocks (withdraw)",
            )
        });
        let observing = self.board_observing_applies().then_some(EventSetting {
            key: "board_observes_illegal_moves",
            on: self.board_observes_illegal_moves,
            laws_default: !self.board_observes_illegal_moves,
        });
        v.push(match self.illegal_rule {
            IllegalMoveRule::Arbiter => Decision {
                setting: observing,
                ..d(
                    "illegal_move",
                    a.illegal_penalty,
                    Arbiter,
                    "rules at the press as the arbiter's eye; the arbiter can reverse it",
                )
            },
            IllegalMoveRule::ClaimPenalty if self.unclaimed_illegal_alerted => Decision {
                setting: observing,
                ..d(
                    "illegal_move",
                    a.illegal_claim,
                    Claim,
                    "alerts the arbiter, rules on the opponent's claim or the arbiter's \
                     intervention before the opponent's next move; otherwise it stands",
                )
            },
            IllegalMoveRule::ClaimPenalty | IllegalMoveRule::ClaimWins => d(
                "illegal_move",
                a.illegal_claim,
                Claim,
                "rules on the opponent's claim before his next move; otherwise it stands",
            ),
        });
        if self.illegal_positions_ruled_unasked {
            v.push(d(
                "both_kings_in_check_or_incomplete_promotion",
                a.illegal_claim,
                Arbiter,
                "rules at the press, as the arbiter intervening unasked",
            ));
        }
        if let Some(art) = self.article_illegal_position_draw() {
            v.push(Decision {
                setting: observing,
                ..d(
                    "illegal_position_after_the_next_move",
                    art,
                    Arbiter,
                    if self.board_observes_illegal_moves {
                        "declares the draw as the arbiter's eye once the next move is \
                         completed; the arbiter can withdraw it"
                    } else {
                        "alerts the arbiter once the next move is completed with the position \
                         still illegal; he declares the draw"
                    },
                )
            });
        }
        v.push(d(
            "touch_move",
            self.touch.claim_lost,
            Claim,
            "shows the breach; rules on the opponent's claim",
        ));
        if self.quickplay_claims {
            v.push(d(
                "quickplay_finish",
                a.quickplay,
                Arbiter,
                "refers the claim to the arbiter, clocks stopped",
            ));
        }
        if self.increment_request {
            v.push(d(
                "increment_request",
                a.increment_request,
                Arbiter,
                "refers the request to the arbiter",
            ));
        }
        let arbiter = [
            (
                "displaced",
                a.displaced,
                "alerts; the player restores the pieces",
            ),
            (
                "initial_position",
                a.initial_position,
                "alerts; the arbiter sets the position",
            ),
            (
                "board_orientation",
                a.board_orientation,
                "alerts; the arbiter rules",
            ),
            (
                "clock_pressed_without_move",
                a.press_without_move,
                if self.press_without_move_is_illegal {
                    "an illegal move (as illegal_move)"
                } else {
                    "alerts; the arbiter rules"
                },
            ),
            (
                "vi_clock_before_announcement",
                a.vi_clock_after_announcement,
                "alerts; the arbiter rules",
            ),
            (
                "vi_boards_differ",
                a.vi_boards_differ,
                "alerts; the arbiter rules",
            ),
            ("penalties", a.arbiter, "only the arbiter gives them"),
        ];
        for (decision, article, board) in arbiter {
            v.push(d(decision, article, Arbiter, board));
        }
        v
    }

    /// The table in one line per decision, for `eboard doctor`: `flag 6.8
    /// arbiter — calls the flag …`.
    pub fn decisions_words(&self) -> String {
        let mut s = format!(
            "{} {}{}",
            self.edition.name(),
            self.mode.as_str(),
            if self.mode == Mode::Standard || self.edition == Edition::Fide2001 {
                String::new()
            } else {
                format!(", {} supervision", self.supervision.as_str())
            }
        );
        for x in self.decisions() {
            s.push_str(&format!(
                "; {} {} by {}",
                x.decision.replace('_', " "),
                x.article,
                x.by.as_str()
            ));
            if let Some(e) = x.setting {
                s.push_str(&format!(
                    " ([event] {} = {}{}: {})",
                    e.key,
                    e.on,
                    if e.laws_default {
                        ", the Laws' default"
                    } else {
                        ""
                    },
                    x.board
                ));
            }
        }
        s
    }
}
