//! When a draw claim in the quickplay finish may be made at all (issue 25,
//! held-out cases): 2001 / 2009 §10.2 (seeds 000, 002: "Hvis spilleren som
//! er i trækket har mindre end to minutter tilbage på sit ur, kan han kræve
//! remis før hans vinge falder"), §10.1 ("den sidste fase af et parti når
//! alle resterende træk skal udføres på begrænset tid"); 2023 Guidelines
//! III.5 (the player having the move, less than two minutes, before the
//! flag falls), III.1 (the quickplay finish) and III.2.2 (only "standard and
//! rapid games without increment"; `../shared/rules/fide-2023.md` §2.14);
//! no §10.2 in blitz (2009 B3b, 2001 C4; 2023 III.2.2).
//!
//! A claim that meets these conditions is referred to the arbiter (he
//! judges "normal means"); one that does not is no claim under the article
//! and is refused with the condition it misses, never referred.

use super::Arbiter;
use crate::clock::Bonus;
use crate::model::Edition;
use shakmaty::{Color, Position};

/// Less than this on the claimant's clock, ms (§10.2 / III.5: two minutes).
const QUICKPLAY_MS: u64 = 120_000;

impl Arbiter {
    /// Why `by`'s claim at `t` (ms) is no §10.2 / III.5 claim, in words with
    /// the article; `None` when it is one (referred to the arbiter).
    pub(super) fn quickplay_refusal(&self, by: Color, t: u64) -> Option<String> {
        let p = self.cfg.profile;
        let article = p.articles.quickplay;
        if !p.quickplay_claims {
            let why = match p.edition {
                Edition::Fide2001 => "C4",
                Edition::Fide2023 => "III.2.2",
                Edition::Fide2009 | Edition::Fide2009No => "B3b",
            };
            return Some(format!("not available in blitz ({why})"));
        }
        let Some(c) = self.clock.as_ref() else {
            return Some(format!("no clock runs: no quickplay finish ({article})"));
        };
        if by != self.pos.turn() {
            return Some(format!(
                "only the player having the move may claim ({article})"
            ));
        }
        if c.moves_to_control(by).is_some() {
            return Some(format!(
                "not a quickplay finish: moves remain before the next time control ({})",
                if p.edition == Edition::Fide2023 {
                    "III.1"
                } else {
                    "10.1"
                }
            ));
        }
        // III.2.2 "without increment"; the Glossary's increment is time
        // added before each move "in either delay or cumulative mode"
        // (`fide-2023.md` §2.5, U3), so a US or Bronstein delay is one too
        // (held-out 18-1c; before session 18 only a Fischer increment was).
        // `+0` adds nothing: no increment (issue 40).
        let bonus = c
            .time_control()
            .period_for(c.moves_done(by))
            .1
            .bonus
            .in_effect();
        if p.edition == Edition::Fide2023 {
            match bonus {
                Bonus::None => {}
                Bonus::Increment(_) => {
                    return Some(
                        "Guidelines III apply only to games without increment (III.2.2)".into(),
                    )
                }
                Bonus::UsDelay(d) | Bonus::Bronstein(d) => {
                    return Some(format!(
                        "Guidelines III apply only to games without increment (III.2.2): the \
                         period has a delay of {d} ms, an increment in delay mode (Glossary)"
                    ))
                }
            }
        }
        let (w, b) = c.remaining_at(t);
        let left = if by == Color::White { w } else { b };
        if left == 0 || c.is_flagged(by) {
            return Some(format!("the claimant's flag has fallen ({article})"));
        }
        if left >= QUICKPLAY_MS {
            return Some(format!(
                "the claimant has two minutes or more on his clock ({} ms; {article}: less than two minutes)",
                left
            ));
        }
        None
    }
}
