//! Both flags fallen where only a claim counts (2009 A4d3, 2001 B8; issue
//! 25, session 13): the game goes on until a player claims, and the
//! arbiter may declare the draw himself (2009 A4d1 "han må gøre dette hvis
//! begge vinger er faldet", seed 002). The matter offered to him is that
//! draw, never a win for either side (docs/profiles.md, "Both flags
//! fallen").

use super::matter::{OpenMatter, OpenRuling};
use super::Arbiter;
use serde_json::json;
use shakmaty::Color;

impl Arbiter {
    /// The open matter once both flags have fallen in a profile where both
    /// flags draw on a claim (`Profile::both_flags_draw`): the second flag's
    /// alert, with one ruling, the draw declared; `None` otherwise.
    pub(super) fn both_flags_open(&self) -> Option<OpenMatter> {
        if !self.both_flags_down() {
            return None;
        }
        let p = self.cfg.profile;
        let al = self.alerts.iter().rev().find(|a| a.kind == "flag")?;
        let article = p.articles.both_flags;
        Some(OpenMatter {
            kind: "flag",
            t: al.t,
            by: None,
            summary: format!(
                "both flags have fallen; the game goes on until a player claims (a draw, {article}) \
                 or the arbiter declares it"
            ),
            rulings: vec![OpenRuling {
                action: "result",
                body: json!({"result": "1/2-1/2"}),
                label: "Declare the draw".to_owned(),
                effect: format!("ends the game 1/2-1/2: both flags have fallen ({article})"),
            }],
        })
    }

    /// Whether both flags have fallen in a profile where that draws on a
    /// claim or the arbiter's declaration (`Profile::both_flags_draw`); the
    /// arbiter's 1/2-1/2 then is A4d3's / B8's draw (`flag_declared`).
    pub(super) fn both_flags_down(&self) -> bool {
        self.cfg.profile.both_flags_draw
            && [Color::White, Color::Black]
                .iter()
                .all(|c| self.flags.contains(c))
    }
}
