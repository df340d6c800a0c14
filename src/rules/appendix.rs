//! The articles of the blind and visually impaired players' appendix that
//! are not the clock's (2001 F, 2009 E, 2023 D): which article a decision
//! about the announced move cites.

use super::Profile;
use crate::model::Edition;

impl Profile {
    /// The visually impaired player's move is made once announced, and a
    /// move made stands (a piece moved on after the announcement is a
    /// breach the arbiter is told of): 2009 E2.3 "Et træk er udført når …
    /// c. trækket er blevet meddelt" (seed 002; 2001 F2.3 the same, seed
    /// 000); 2023 D.2.3 ("made" when … D.2.3.3 the move has been
    /// announced), not D.2.4, which is only the clock's start
    /// (`fide-2023.md` §2.13).
    pub fn article_vi_move_made(&self) -> &'static str {
        match self.edition {
            Edition::Fide2001 => "F2.3",
            Edition::Fide2023 => "D.2.3",
            Edition::Fide2009 | Edition::Fide2009No => "E2.3",
        }
    }

    /// A promotion announced without its piece: 2009 E2.1 "Ved
    /// bondeforvandling skal spilleren nævne hvilken brik der er valgt"
    /// (seed 002; 2009-NO the same, seed 003); 2023 D.2.1 (on promotion
    /// the player must announce the chosen piece, `fide-2023.md` §2.13). 2001
    /// F2.1 (seed 000) has no such sentence, only "Trækkene skal meddeles
    /// tydeligt"; a move without its piece is not announced, so not made
    /// (F2.3c): F2.3.
    pub fn article_vi_promotion_piece(&self) -> &'static str {
        match self.edition {
            Edition::Fide2001 => "F2.3",
            Edition::Fide2023 => "D.2.1",
            Edition::Fide2009 | Edition::Fide2009No => "E2.1",
        }
    }
}
