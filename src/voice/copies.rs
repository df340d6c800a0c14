//! Appendix E2.7 (2001 F2.7, 2023 D.2.9): a copy of the game gone wrong,
//! said as a person beside the boards would say it: whose board differs
//! and on which squares (only where his copy of the record differs), and
//! "the boards agree" as soon as it is put right. The words are ours (the
//! appendix gives none for this); the squares are E2.1's names
//! ([`Vocabulary::square`]: Anna, Bella, Cæsar … / Anna, Bodil, Cecilie …
//! with the rank words of the profile).

use super::{sentence, Lang, Vocabulary};
use shakmaty::{Color, Square};

/// The board of `owner` differs from the record on `squares`, e.g. Danish
/// `Sorts bræt afviger på Erik tre og Erik fire`, Norwegian `Svarts brett
/// avviker på Eva drei og Eva vier`, German `Das Brett von Schwarz weicht
/// auf Eva drei und Eva vier ab`, English `Black's board differs on …`; no
/// squares: the boards agree (`Brætterne stemmer overens`).
pub fn board_differs_phrase(owner: Color, squares: &[Square], voc: &Vocabulary) -> String {
    if squares.is_empty() {
        return super::boards_differ_phrase(&[], voc);
    }
    let named: Vec<String> = squares.iter().map(|s| voc.square(*s)).collect();
    let list = voc.list(&named);
    let white = owner == Color::White;
    sentence(match voc.lang {
        Lang::Da => format!(
            "{} bræt afviger på {list}",
            if white { "hvids" } else { "sorts" }
        ),
        Lang::Nb => format!(
            "{} brett avviker på {list}",
            if white { "hvits" } else { "svarts" }
        ),
        Lang::De => format!(
            "das Brett von {} weicht auf {list} ab",
            if white { "Weiß" } else { "Schwarz" }
        ),
        Lang::En => format!(
            "{} board differs on {list}",
            if white { "White's" } else { "Black's" }
        ),
    })
}
