//! The articles under which the arbiter declares a result himself (issue
//! 40.6): a loss for a rules infraction (a phone, misconduct, persistent
//! refusal, the penalty "declare the game lost"), a forfeit, illegal moves,
//! a flag, a resignation or a draw the board did not see. Each article
//! says what the result must be and what the game's end is called (the
//! `game_end` reason, the PGN `Termination`), per edition, from the seed
//! texts:
//!
//! - 2023 11.3.2.2: "If it is evident that a player has such a device on
//!   their person in the playing venue, the player shall lose the game. The
//!   opponent shall win." (`fide-2023.md` §2.8, S3); 11.5 (distracting or
//!   annoying the opponent), 11.7 (persistent refusal: "the arbiter shall
//!   decide the score of the opponent"), 12.9.6 (the penalty "declaring
//!   the game to be lost").
//! - 2009 §12.3b: "Hvis et sådant udstyr forårsager en lyd, skal spilleren
//!   tabe partiet. Modstanderen skal vinde. Hvis modstanderen imidlertid
//!   ikke kan vinde ved nogen mulig rækkefølge af lovlige træk, skal hans
//!   score være remis." (seed 002; 2009-NO §12.3b, seed 003); §12.6
//!   (disturbing the opponent, punished under §12.7 / §13.4), §12.8
//!   ("Partiet er tabt for en spiller som vedholdende nægter at følge FIDEs
//!   regler for skak"), §13.4d ("Erklære partiet for tabt").
//! - 2001 has no article on phones (seed 000): §12.5 (disturbing the
//!   opponent, punished under §12.6 / §13.4), §12.7 (persistent refusal),
//!   §13.4d.
//!
//! The arbiter's plain decision (2009 / 2001 §13.1, 2023 12.1) stays the
//! article of a result declared without one.

use super::{Edition, Profile};

/// What a result declared under an article is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclaredGround {
    /// The arbiter's decision (2009 / 2001 §13.1, 2023 12.1): any result;
    /// PGN `Termination "adjudication"`.
    Decision,
    /// A loss for a rules infraction (a device, misconduct, persistent
    /// refusal, the penalty of declaring the game lost): a win for the
    /// opponent; PGN `Termination "rules infraction"`. `draw_if_no_mate`:
    /// the opponent who cannot win by any legal sequence scores a draw
    /// (2009 §12.3b), a score (0-½) a board result cannot carry.
    Infraction {
        /// 2009 §12.3b's exception.
        draw_if_no_mate: bool,
    },
    /// A game not played: the default time (2023 6.7.1, 2009 §6.6a, 2001
    /// §6.7); entered as a forfeit.
    Forfeit,
    /// The last illegal move (2023 7.5.5, 2009 / 2001 §7.4b, the rapid
    /// and blitz claims A.5.2 / A4c / B3c / C3): a win for the opponent, a
    /// draw when he cannot mate where the profile has that exception.
    IllegalMoves,
    /// A flag (2023 / 2009 6.9, 2001 §6.10; the claims A.5.3 / A4d / B3a /
    /// B6 / C2): a win for the opponent, a draw when he cannot mate.
    Time,
    /// A resignation the board did not see (2023 5.1.2, 2009 / 2001 §5.1b).
    Resignation,
    /// A draw agreed (2023 5.2.3, 2009 / 2001 §5.2c).
    Agreement,
    /// A threefold repetition claim upheld (2023 9.2.2, 2009 / 2001 §9.2b).
    Threefold,
    /// A fifty-move claim upheld (2023 9.3.2, 2009 / 2001 §9.3b).
    FiftyMoves,
    /// 2023 A.5.4 (rapid A.5, blitz B.3): an illegal position (both kings
    /// in check, a pawn on the furthest rank) still on the board once the
    /// next move is completed: "he/she declares a draw"; PGN `Termination
    /// "adjudication"`. Declared only while the position on the board is
    /// such a position.
    IllegalPosition,
}

impl DeclaredGround {
    /// The PGN standard's `Termination` value (PGN spec 9.8.1): "rules
    /// infraction" for a loss for an infraction (also a forfeit and
    /// illegal moves), "time forfeit" for a flag, "adjudication" for the
    /// arbiter's plain decision, "normal" for the others.
    pub fn termination(self) -> &'static str {
        match self {
            DeclaredGround::Infraction { .. }
            | DeclaredGround::Forfeit
            | DeclaredGround::IllegalMoves => "rules infraction",
            DeclaredGround::Time => "time forfeit",
            DeclaredGround::Decision | DeclaredGround::IllegalPosition => "adjudication",
            _ => "normal",
        }
    }

    /// Whether the result declared must be a win (1-0 or 0-1), a draw
    /// (1/2-1/2), or either (`None`).
    pub fn wants_win(self) -> Option<bool> {
        match self {
            DeclaredGround::Decision => None,
            DeclaredGround::Infraction { .. }
            | DeclaredGround::Forfeit
            | DeclaredGround::IllegalMoves
            | DeclaredGround::Time
            | DeclaredGround::Resignation => Some(true),
            DeclaredGround::Agreement
            | DeclaredGround::Threefold
            | DeclaredGround::FiftyMoves
            | DeclaredGround::IllegalPosition => Some(false),
        }
    }
}

/// One article the arbiter may declare a result under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclaredArticle {
    /// The article, as the profile cites it (`11.3.2.2`).
    pub article: &'static str,
    /// What it is about, in words (English, for the console's list).
    pub what: &'static str,
    /// What the result is.
    pub ground: DeclaredGround,
}

impl Profile {
    /// The articles a result may be declared under, in this profile (the
    /// console's list; `docs/console.md`, "Declare result"): the arbiter's
    /// plain decision first, then the infractions, the forfeit, illegal
    /// moves, the flag, resignation and the draws. Each article once.
    pub fn declared_articles(&self) -> Vec<DeclaredArticle> {
        use DeclaredGround as G;
        let a = &self.articles;
        let d = |article, what, ground| DeclaredArticle {
            article,
            what,
            ground,
        };
        let infraction = G::Infraction {
            draw_if_no_mate: false,
        };
        let mut v = match self.edition {
            Edition::Fide2023 => vec![
                d("12.1", "the arbiter's decision", G::Decision),
                d(
                    "11.3.2.2",
                    "an electronic device (a phone) on the player in the venue: he loses",
                    infraction,
                ),
                d(
                    "11.5",
                    "distracting or annoying the opponent: the game declared lost (12.9.6)",
                    infraction,
                ),
                d(
                    "11.7",
                    "persistent refusal to comply with the Laws: he loses",
                    infraction,
                ),
                d("12.9.6", "penalty: the game declared lost", infraction),
                d("6.7.1", "default time: the player absent loses", G::Forfeit),
            ],
            Edition::Fide2009 | Edition::Fide2009No => vec![
                d("13.1", "the arbiter's decision", G::Decision),
                d(
                    "12.3b",
                    "a mobile phone or other device made a sound: he loses",
                    G::Infraction {
                        draw_if_no_mate: true,
                    },
                ),
                d(
                    "12.6",
                    "distracting or annoying the opponent: the game declared lost (13.4d)",
                    infraction,
                ),
                d(
                    "12.8",
                    "persistent refusal to comply with the Laws: he loses",
                    infraction,
                ),
                d("13.4d", "penalty: the game declared lost", infraction),
                d("6.6a", "default time: the player absent loses", G::Forfeit),
            ],
            Edition::Fide2001 => vec![
                d("13.1", "the arbiter's decision", G::Decision),
                d(
                    "12.5",
                    "distracting or annoying the opponent (a phone among them): the game declared lost (13.4d)",
                    infraction,
                ),
                d(
                    "12.7",
                    "persistent refusal to comply with the Laws: he loses",
                    infraction,
                ),
                d("13.4d", "penalty: the game declared lost", infraction),
                d("6.7", "default time: the player absent loses", G::Forfeit),
            ],
        };
        // The appendices' claims (rapid / blitz without adequate
        // supervision: 2023 A.5.2 / A.5.3, 2009 A4c / A4d / B3, 2001 B / C)
        // where they are not the Laws' own articles (7.5.1, 6.8).
        let mut more = vec![
            d(
                a.illegal_penalty,
                "illegal moves: the last one loses",
                G::IllegalMoves,
            ),
            d(a.time, "a flag fell: the opponent wins", G::Time),
        ];
        if a.illegal_claim != a.illegal_move {
            more.push(d(
                a.illegal_claim,
                "an illegal move claimed by the opponent: the claim's penalty loses",
                G::IllegalMoves,
            ));
        }
        if a.flag_claim != a.flag {
            more.push(d(
                a.flag_claim,
                "a flag claimed: the claimant wins",
                G::Time,
            ));
        }
        more.extend([
            d(a.resignation, "a player resigned", G::Resignation),
            d(a.agreement, "a draw agreed", G::Agreement),
            d(a.threefold, "threefold repetition claimed", G::Threefold),
            d(a.fifty_moves, "fifty moves claimed", G::FiftyMoves),
        ]);
        if let Some(art) = self.article_illegal_position_draw() {
            more.push(d(
                art,
                "an illegal position (both kings in check, a pawn on the furthest rank) still on \
                 the board after the next move: drawn",
                G::IllegalPosition,
            ));
        }
        for m in more {
            if !v.iter().any(|x| x.article == m.article) {
                v.push(m);
            }
        }
        v
    }

    /// The declared article `article` of this profile, if it is one.
    pub fn declared_article(&self, article: &str) -> Option<DeclaredArticle> {
        let want = article.trim().trim_start_matches('§').trim();
        self.declared_articles()
            .into_iter()
            .find(|d| d.article.eq_ignore_ascii_case(want))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Mode;

    #[test]
    fn each_edition_has_its_phone_article_and_no_article_twice() {
        let p23 = Profile::new(Edition::Fide2023, Mode::Standard);
        let phone = p23.declared_article("11.3.2.2").expect("2023 phone");
        assert_eq!(phone.ground.termination(), "rules infraction");
        assert_eq!(
            Profile::new(Edition::Fide2009, Mode::Standard)
                .declared_article("§12.3b")
                .map(|d| d.ground),
            Some(DeclaredGround::Infraction {
                draw_if_no_mate: true
            })
        );
        assert!(Profile::new(Edition::Fide2001, Mode::Standard)
            .declared_article("12.3b")
            .is_none());
        assert!(p23.declared_article("12.3b").is_none());
        for e in [
            Edition::Fide2001,
            Edition::Fide2009,
            Edition::Fide2009No,
            Edition::Fide2023,
        ] {
            for m in [Mode::Standard, Mode::Rapid, Mode::Blitz] {
                let l = Profile::new(e, m).declared_articles();
                for (i, x) in l.iter().enumerate() {
                    assert!(
                        !l[..i].iter().any(|y| y.article == x.article),
                        "{e:?} {m:?}: {} twice",
                        x.article
                    );
                }
            }
        }
        assert_eq!(
            Profile::new(Edition::Fide2023, Mode::Rapid)
                .declared_article("A.5.2")
                .map(|d| d.ground),
            Some(DeclaredGround::IllegalMoves)
        );
    }
}
