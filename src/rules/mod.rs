//! Rule profiles: every difference between the editions of the FIDE Laws
//! that the controller acts on, as data (`../shared/rules/digest.md` §1–§3,
//! diff table D1–D60, and `../shared/rules/fide-2023.md`).
//!
//! A [`Profile`] is built once per game from its name and the mode; the
//! arbiter reads its fields and never asks which edition it is.
//!
//! Depends on `model` and `clock` (time controls, for the mode's
//! classification), the modules below it in docs/dev/architecture.md's map.
//! It must not depend on `trace`, `arbiter` (which reads the profile),
//! `voice`, `config` or anything above them.

pub use crate::model::{Edition, Mode, Supervision};

mod appendix;
mod completion;
mod declared;
mod default_time;
pub use declared::{DeclaredArticle, DeclaredGround};
pub use default_time::DefaultTime;

/// Who acts on a completed illegal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalMoveRule {
    /// The arbiter intervenes unasked (§7.4 / 7.5.5): the controller proposes
    /// the ruling at the press.
    Arbiter,
    /// Only the opponent's claim before his own next move counts; the penalty
    /// is §7.4's (2009 A4c).
    ClaimPenalty,
    /// Only the opponent's claim counts, and a valid claim wins (a draw when
    /// the claimant cannot mate): 2009 B3c, 2001 C3.
    ClaimWins,
}

/// The consequence of an incorrect draw claim (§9.5b / 9.5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WrongClaim {
    /// Time added to the opponent, ms.
    OpponentBonus(u64),
    /// 2001 §9.5b: +3 min to the opponent and the claimant's time cut
    /// (over 2 min left: by half, at most 3 min; 1–2 min: to 1 min; under 1 min: unchanged).
    BonusAndCut,
}

/// The article numbers the arbiter cites, per edition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Articles {
    /// Checkmate ends the game.
    pub checkmate: &'static str,
    /// Stalemate ends the game.
    pub stalemate: &'static str,
    /// A dead position ends the game.
    pub dead_position: &'static str,
    /// Resignation.
    pub resignation: &'static str,
    /// Draw by agreement.
    pub agreement: &'static str,
    /// A completed illegal move and the position reinstated (2009 / 2001
    /// §7.4a, 2023 7.5.1): the `illegal_move` event's `article` and the
    /// arbiter's `restore`.
    pub illegal_move: &'static str,
    /// The penalty of a completed illegal move: two minutes to the
    /// opponent, or the game lost (2009 §7.4b "Efter brugen af § 7.4 a.
    /// skal dommeren give modstanderen to ekstra minutter … Hvis samme
    /// spiller udfører et tredje ulovligt træk, skal dommeren erklære
    /// partiet tabt for ham", seed 002; 2009-NO §7.4b, seed 003; 2001
    /// §7.4b, seed 000; 2023 7.5.5). The `illegal_move` event's
    /// `penalty_article` and the `game_end` of `illegal_moves`; where a
    /// claim wins (2009 B3c, 2001 C3) the claim's article instead
    /// ([`Profile::article_illegal_penalty`]).
    pub illegal_penalty: &'static str,
    /// A promotion not completed at the press (pawn left on the last rank).
    pub incomplete_promotion: &'static str,
    /// The clock pressed without a move.
    pub press_without_move: &'static str,
    /// Loss on time / draw when the opponent cannot mate.
    pub time: &'static str,
    /// The flag is considered fallen.
    pub flag: &'static str,
    /// Promotion choice (the piece not sensed).
    pub promotion: &'static str,
    /// Wrong initial position.
    pub initial_position: &'static str,
    /// The board placed contrary to §2.1 (turned 90°).
    pub board_orientation: &'static str,
    /// The game started with colours reversed (for the board: set up turned
    /// 180°, White at the end the wiring gives Black).
    pub colours_reversed: &'static str,
    /// The arbiter's decisions and penalties (result declared, clocks set).
    pub arbiter: &'static str,
    /// Threefold repetition claim on the position on the board ("netop er
    /// fremkommet og den spiller, som kræver remis, er i trækket": 2009 /
    /// 2001 §9.2b, seeds 002 / 000; 2009-NO §9.2 b), seed 003; 2023
    /// 9.2.2). The claim on a written move is §9.2a / 9.2.1
    /// ([`Profile::article_written_claim`]).
    pub threefold: &'static str,
    /// Fifty-move claim on the moves played (2009 / 2001 §9.3b, 2023
    /// 9.3.2); on a written move §9.3a / 9.3.1.
    pub fifty_moves: &'static str,
    /// Incorrect draw claim.
    pub wrong_claim: &'static str,
    /// Fivefold repetition (automatic, 2023 9.6.1). Never cited before
    /// 2023 (`Profile::automatic_fivefold` false): there the claim's
    /// article (§9.2b) stands in.
    pub fivefold: &'static str,
    /// 75 moves (automatic, 2023 9.6.2); before 2023 never cited (§9.3b).
    pub seventy_five_moves: &'static str,
    /// j'adoube: only the player on move adjusts.
    pub adjust: &'static str,
    /// Displaced or knocked-over pieces.
    pub displaced: &'static str,
    /// Rapid/blitz illegal move with inadequate supervision (claim).
    pub illegal_claim: &'static str,
    /// Rapid/blitz flag with inadequate supervision (claim).
    pub flag_claim: &'static str,
    /// Both flags fallen.
    pub both_flags: &'static str,
    /// Quickplay finish claim (§10.2).
    pub quickplay: &'static str,
    /// The five seconds per move introduced on the request of the player
    /// having the move with less than two minutes (2023 Guidelines III.4);
    /// before 2023 there is no such rule and the quickplay finish's article
    /// (§10.2) is cited for the refusal.
    pub increment_request: &'static str,
    /// A draw offer lapses when the opponent touches a piece with the
    /// intention of moving or capturing it (2001 §9.1a, 2009 §9.1b(1),
    /// 2023 9.1.2.1).
    pub draw_offer_lapses: &'static str,
    /// Blind and visually impaired players: the clock is started only after
    /// the move is made and announced (2001 F2.3, 2009 E2.3, 2023 D.2.4).
    pub vi_clock_after_announcement: &'static str,
    /// Blind and visually impaired players: the two boards differ (2001
    /// F2.7, 2009 E2.7, 2023 D.2.9).
    pub vi_boards_differ: &'static str,
}

/// One rule profile: an edition combined with a mode. Every behavioural
/// difference is a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    /// The edition.
    pub edition: Edition,
    /// The mode.
    pub mode: Mode,
    /// Articles cited in events.
    pub articles: Articles,
    /// The completed illegal move by the same player that loses the game
    /// (2001/2009: the 3rd, §7.4b; 2023: the 2nd, 7.5.5).
    pub illegal_moves_to_lose: u32,
    /// Time added to the opponent for an illegal move that does not lose, ms
    /// (2 min; 2023 rapid and blitz: 1 min, A.4.2/B.3).
    pub illegal_move_bonus_ms: u64,
    /// Whether the Nth illegal move is a draw instead of a loss when the
    /// opponent cannot mate by any legal sequence (2009 §7.4b, 2023 7.5.5; not 2001).
    pub illegal_loss_draw_exception: bool,
    /// Whether a press with no move made counts as an illegal move (2023 7.5.3).
    pub press_without_move_is_illegal: bool,
    /// The supervision level (rapid and blitz; standard is always adequate).
    pub supervision: Supervision,
    /// §4 articles.
    pub touch: TouchArticles,
    /// Who acts on a completed illegal move.
    pub illegal_rule: IllegalMoveRule,
    /// Where only a claim counts ([`IllegalMoveRule::ClaimPenalty`]), the
    /// arbiter still intervenes unasked when both kings are in check or a
    /// promotion is incomplete: 2009 A4c, "Dog skal dommeren om muligt
    /// gribe ind, dersom begge konger står i skak eller en
    /// bondeforvandling ikke er fuldført" (seed 002). Not in blitz (2009
    /// B3b: "§10.2 og A4c gælder ikke"), not in 2001 (B and C have no such
    /// clause).
    pub illegal_positions_ruled_unasked: bool,
    /// Whether a piece released on a square as (part of) a legal move binds
    /// the move replacing an illegal one, besides the touches: 2009 §7.4a
    /// "§ 4.3 og § 4.6 gælder for det træk der erstatter det ulovlige træk"
    /// (seed 002), 2023 7.5.1 "Articles 4.3 and 4.7 apply to the move
    /// replacing the illegal move"; 2001 §7.4a names 4.3 only ("4.3 gælder
    /// for det træk der erstatter det ulovlige træk", seed 000).
    pub release_binds_replacement: bool,
    /// Whether a flag fall ends the game only on the opponent's claim
    /// (2009 A4d1, 2001 B6/C: the arbiter is silent).
    pub flag_needs_claim: bool,
    /// Whether both flags fallen draws the game on a player's claim (2009
    /// A4d3 "Hvis begge vinger er faldet som beskrevet i 1 og 2, skal
    /// dommeren erklære partiet remis": a flag counts as fallen only when a
    /// player validly points it out (A4d1), the claimant stopping the
    /// clocks (A4d2); seed 002, 2009-NO seed 003; blitz through B3a; 2001
    /// B8 with B6's "anses for faldet, når en af spillerne med rette påpeger
    /// dette", seed 000). Never drawn unclaimed: the game goes on until a
    /// claim (either player's) or the arbiter's own ruling (A4d1 "han må
    /// gøre dette hvis begge vinger er faldet").
    pub both_flags_draw: bool,
    /// The consequence of a wrong threefold / fifty-move claim.
    pub wrong_claim: WrongClaim,
    /// Fivefold repetition and 75 moves draw automatically (2023 9.6).
    pub automatic_fivefold: bool,
    /// A resignation when the opponent cannot mate is a draw (2023 5.1.2).
    pub resignation_needs_mating_chance: bool,
    /// A second `promote` choice cannot replace the first (2009 §4.4d, 2023 4.4.4);
    /// in 2001 the piece is fixed only at release.
    pub promotion_locked_at_first_choice: bool,
    /// Whether §10.2 claims exist in this mode: not in blitz (2009 B3b with
    /// inadequate supervision, 2001 C4, 2023 III.2.2), but in 2009 blitz
    /// with adequate supervision (B2: the Laws apply).
    pub quickplay_claims: bool,
    /// Whether a player may ask for five seconds per move to be introduced
    /// (2023 Guidelines III.4): only under the 2023 Laws, and never in
    /// blitz (III.2.2: "only to standard chess and rapid chess games").
    pub increment_request: bool,
    /// A pawn moved to the last rank and not replaced at the press is
    /// replaced by a queen and the move stands (2023 7.5.2: "The pawn shall
    /// be replaced by a queen of the same colour as the pawn"; F34 of
    /// `fide-2023.md`); 2009 / 2001 §7.4a: an illegal move like any other,
    /// the position before it reinstated.
    pub unreplaced_pawn_becomes_queen: bool,
    /// The event setting `board_observes_illegal_moves` (`[event]`, the
    /// trace header's key of that name): under 2023 A.5.2 (rapid without
    /// adequate supervision; blitz through B.3) the board acts as the
    /// arbiter who observes a completed illegal move and applies 7.5.5 at
    /// the press ([`IllegalMoveRule::Arbiter`]). Off (the Laws' own
    /// default: "If the arbiter does not intervene, the opponent shall be
    /// entitled to claim … provided … the opponent has not made his/her
    /// next move"; with no claim and no intervention the move stands),
    /// the board alerts the arbiter and waits for his intervention or the
    /// opponent's claim ([`IllegalMoveRule::ClaimPenalty`]). Only
    /// [`Profile::board_observing_applies`] profiles read it.
    pub board_observes_illegal_moves: bool,
    /// Whether a completed illegal move the board does not rule is alerted
    /// to the arbiter at once (`irregularity` `illegal_move_unclaimed`):
    /// 2023 A.5.2 "If the arbiter observes an action taken under Article
    /// 7.5.1 … he/she shall act according to Article 7.5.5, provided the
    /// opponent has not made his/her next move" — the arbiter may still
    /// intervene, so he is told. Not under 2009 A4c ("Kun efter en sådan
    /// påstand skal dommeren træffe en afgørelse", seed 002), B3c or 2001
    /// C3, where only the claim counts.
    pub unclaimed_illegal_alerted: bool,
    /// Whether the claimant's own adjustment (j'adoube, §4.2) ends his
    /// right to claim the opponent's breach of Article 4: 2001 §4.6 "En
    /// spiller mister sin ret til at fremsætte krav i anledning af
    /// modstanderens overtrædelse af 4.3 eller 4.4, når han selv med vilje
    /// har rørt en brik" (seed 000) and 2009-DK §4.7 "… så snart han selv
    /// med vilje rører en brik" (seed 002): an adjustment is a deliberate
    /// touch. Not 2009-NO §4.7 "etter at hun/han har rørt en brikke i den
    /// hensikt å gjøre et trekk" (seed 003) nor 2023 4.8 "touches a piece
    /// with the intention of moving or capturing it".
    pub adjustment_ends_touch_claim: bool,
}

impl Profile {
    /// The profile for an edition and mode, with the default supervision
    /// (inadequate in rapid and blitz, the usual case).
    pub fn new(edition: Edition, mode: Mode) -> Profile {
        Profile::with_supervision(edition, mode, Supervision::default())
    }

    /// The profile for an edition, mode and supervision level.
    pub fn with_supervision(edition: Edition, mode: Mode, supervision: Supervision) -> Profile {
        // The 2009 numbering; 2001 differs only where it renumbered §6 and
        // in its rapid/blitz appendices (B, C instead of A, B).
        let articles_2009 = Articles {
            checkmate: "5.1a",
            stalemate: "5.2a",
            dead_position: "5.2b",
            resignation: "5.1b",
            agreement: "5.2c",
            illegal_move: "7.4a",
            illegal_penalty: "7.4b",
            incomplete_promotion: "7.4a",
            press_without_move: "6.7a",
            time: "6.9",
            flag: "6.8",
            promotion: "4.4d",
            initial_position: "7.1a",
            board_orientation: "7.1b",
            colours_reversed: "7.2",
            arbiter: "13.4",
            threefold: "9.2b",
            fifty_moves: "9.3b",
            wrong_claim: "9.5b",
            fivefold: "9.2b",
            seventy_five_moves: "9.3b",
            adjust: "4.2",
            displaced: "7.3",
            illegal_claim: if mode == Mode::Blitz { "B3c" } else { "A4c" },
            flag_claim: if mode == Mode::Blitz { "B3a" } else { "A4d" },
            both_flags: match mode {
                Mode::Standard => "6.11b",
                Mode::Rapid => "A4d3",
                Mode::Blitz => "B3a",
            },
            quickplay: "10.2",
            increment_request: "10.2",
            draw_offer_lapses: "9.1b(1)",
            vi_clock_after_announcement: "E2.3",
            vi_boards_differ: "E2.7",
        };
        let articles = match edition {
            Edition::Fide2001 => Articles {
                press_without_move: "6.8a",
                time: "6.10",
                flag: "6.9",
                promotion: "3.7e",
                illegal_claim: if mode == Mode::Blitz { "C3" } else { "7.4a" },
                flag_claim: if mode == Mode::Blitz { "C2" } else { "B6" },
                both_flags: if mode == Mode::Standard { "6.12" } else { "B8" },
                draw_offer_lapses: "9.1a",
                // 2001: the blind and visually impaired are Appendix F.
                vi_clock_after_announcement: "F2.3",
                vi_boards_differ: "F2.7",
                ..articles_2009
            },
            Edition::Fide2009 | Edition::Fide2009No => articles_2009,
            Edition::Fide2023 => Articles {
                checkmate: "5.1.1",
                stalemate: "5.2.1",
                dead_position: "5.2.2",
                resignation: "5.1.2",
                agreement: "5.2.3",
                illegal_move: "7.5.1",
                illegal_penalty: "7.5.5",
                incomplete_promotion: "7.5.2",
                press_without_move: "7.5.3",
                time: "6.9",
                flag: "6.8",
                promotion: "4.4.4",
                initial_position: "7.2.1",
                board_orientation: "7.2.2",
                // Changed in 2017: fewer than ten moves by both → new game.
                colours_reversed: "7.3",
                arbiter: "12.9",
                threefold: "9.2.2",
                fifty_moves: "9.3.2",
                wrong_claim: "9.5.3",
                fivefold: "9.6.1",
                seventy_five_moves: "9.6.2",
                adjust: "4.2.1",
                displaced: "7.4.1",
                illegal_claim: "A.5.2",
                flag_claim: "A.5.3",
                both_flags: "III.3.1",
                quickplay: "III.5",
                increment_request: "III.4",
                draw_offer_lapses: "9.1.2.1",
                // 2023: the blind and visually disabled are Appendix D.
                vi_clock_after_announcement: "D.2.4",
                vi_boards_differ: "D.2.9",
            },
        };
        let (illegal_moves_to_lose, illegal_move_bonus_ms) = match (edition, mode) {
            (Edition::Fide2023, Mode::Standard) => (2, 120_000),
            (Edition::Fide2023, _) => (2, 60_000),
            _ => (3, 120_000),
        };
        let supervision = if mode == Mode::Standard {
            Supervision::Adequate
        } else {
            supervision
        };
        let loose = supervision == Supervision::Inadequate;
        // Under the Competitive Rules (standard play; rapid and blitz with
        // adequate supervision: 2009 A3 / B2, 2023 A.4 / B.2) a claim of an
        // illegal move or of a flag, and both flags, cite the Laws' own
        // articles, not the appendices' (2001 has no supervision levels:
        // its B and C apply to every rapid and blitz game).
        let competitive = mode == Mode::Standard || (edition != Edition::Fide2001 && !loose);
        let articles = if competitive {
            Articles {
                illegal_claim: articles.illegal_move,
                flag_claim: articles.flag,
                both_flags: match edition {
                    Edition::Fide2001 => "6.12",
                    Edition::Fide2023 => "III.3.1",
                    Edition::Fide2009 | Edition::Fide2009No => "6.11b",
                },
                ..articles
            }
        } else {
            articles
        };
        let illegal_rule = match (edition, mode) {
            (_, Mode::Standard) => IllegalMoveRule::Arbiter,
            // 2001 rapid: §7.4 through B2.
            (Edition::Fide2001, Mode::Rapid) => IllegalMoveRule::Arbiter,
            (Edition::Fide2001, Mode::Blitz) => IllegalMoveRule::ClaimWins,
            // 2023 A.5.2 / B.3: the arbiter who observes it applies 7.5.5,
            // else the opponent may claim before his own next move, else it
            // stands: the board waits (the event may make it the arbiter's
            // eye, `with_board_observing`). A.4 / B.2: 7.5.5 at the press.
            (Edition::Fide2023, _) if loose => IllegalMoveRule::ClaimPenalty,
            (Edition::Fide2023, _) => IllegalMoveRule::Arbiter,
            (_, Mode::Rapid) if loose => IllegalMoveRule::ClaimPenalty,
            (_, Mode::Blitz) if loose => IllegalMoveRule::ClaimWins,
            _ => IllegalMoveRule::Arbiter,
        };
        let flag_needs_claim = mode != Mode::Standard
            && match edition {
                Edition::Fide2001 => true,
                Edition::Fide2023 => false,
                _ => loose,
            };
        let wrong_claim = match (edition, mode) {
            (Edition::Fide2001, _) => WrongClaim::BonusAndCut,
            (Edition::Fide2023, Mode::Standard) => WrongClaim::OpponentBonus(120_000),
            (Edition::Fide2023, _) => WrongClaim::OpponentBonus(60_000),
            _ => WrongClaim::OpponentBonus(180_000),
        };
        Profile {
            edition,
            mode,
            articles,
            illegal_moves_to_lose,
            illegal_move_bonus_ms,
            illegal_loss_draw_exception: edition != Edition::Fide2001,
            press_without_move_is_illegal: edition == Edition::Fide2023,
            supervision,
            touch: match edition {
                Edition::Fide2001 => TouchArticles::FIDE_2001,
                Edition::Fide2023 => TouchArticles::FIDE_2023,
                _ => TouchArticles::FIDE_2009,
            },
            illegal_rule,
            release_binds_replacement: edition != Edition::Fide2001,
            // 2023 has no such clause in A.5.2: A.5.4 instead (the arbiter
            // waits for the next move, `article_illegal_position_draw`).
            illegal_positions_ruled_unasked: illegal_rule == IllegalMoveRule::ClaimPenalty
                && matches!(edition, Edition::Fide2009 | Edition::Fide2009No),
            flag_needs_claim,
            both_flags_draw: flag_needs_claim && edition != Edition::Fide2023,
            wrong_claim,
            automatic_fivefold: edition == Edition::Fide2023,
            resignation_needs_mating_chance: edition == Edition::Fide2023,
            promotion_locked_at_first_choice: edition != Edition::Fide2001,
            // 2009 B2: adequately supervised blitz follows the Laws, §10.2
            // included; B3b, 2001 C4 and 2023 III.2.2 exclude it.
            quickplay_claims: mode != Mode::Blitz
                || (matches!(edition, Edition::Fide2009 | Edition::Fide2009No) && !loose),
            unreplaced_pawn_becomes_queen: edition == Edition::Fide2023,
            increment_request: edition == Edition::Fide2023 && mode != Mode::Blitz,
            board_observes_illegal_moves: false,
            unclaimed_illegal_alerted: illegal_rule == IllegalMoveRule::ClaimPenalty
                && edition == Edition::Fide2023,
            adjustment_ends_touch_claim: matches!(edition, Edition::Fide2001 | Edition::Fide2009),
        }
    }

    /// Whether the event setting `board_observes_illegal_moves` means
    /// anything for this profile: 2023 rapid without adequate supervision
    /// (A.5.2) and blitz through B.3. Elsewhere the Laws leave no choice:
    /// the arbiter rules at the press (standard play, A.4 / B.2, 2001
    /// rapid through B2) or only a claim counts (2009 A4c / B3c, 2001 C3).
    pub fn board_observing_applies(&self) -> bool {
        self.edition == Edition::Fide2023
            && self.mode != Mode::Standard
            && self.supervision == Supervision::Inadequate
    }

    /// The profile with the event setting `board_observes_illegal_moves`
    /// ([`Profile::board_observes_illegal_moves`]): on, where it applies
    /// ([`Profile::board_observing_applies`]), the board rules a completed
    /// illegal move at the press as the arbiter observing it (2023 A.5.2,
    /// first sentence); off, the Laws' default, it alerts and waits.
    pub fn with_board_observing(self, on: bool) -> Profile {
        if !self.board_observing_applies() {
            return self;
        }
        Profile {
            board_observes_illegal_moves: on,
            illegal_rule: if on {
                IllegalMoveRule::Arbiter
            } else {
                IllegalMoveRule::ClaimPenalty
            },
            unclaimed_illegal_alerted: !on,
            ..self
        }
    }

    /// The mode a time control falls in, per edition (2009 A1/B1: base +
    /// 60 × increment, rapid from 15 to under 60 min, blitz under 15; 2023
    /// A.1/B.1: blitz 10 min or less, rapid over 10 and under 60; 2001 B1/C1:
    /// the base time only, rapid 15–60 min, blitz under 15).
    pub fn classify(edition: Edition, tc: &crate::clock::TimeControl) -> Mode {
        let min = 60_000;
        match edition {
            Edition::Fide2001 => {
                let base = tc.periods[0].time_ms;
                if base < 15 * min {
                    Mode::Blitz
                } else if base <= 60 * min {
                    Mode::Rapid
                } else {
                    Mode::Standard
                }
            }
            Edition::Fide2023 => {
                let total = tc.classification_ms();
                if total <= 10 * min {
                    Mode::Blitz
                } else if total < 60 * min {
                    Mode::Rapid
                } else {
                    Mode::Standard
                }
            }
            _ => {
                let total = tc.classification_ms();
                if total < 15 * min {
                    Mode::Blitz
                } else if total < 60 * min {
                    Mode::Rapid
                } else {
                    Mode::Standard
                }
            }
        }
    }

    /// Parses a profile name and mode name; the error names the bad value
    /// and what is allowed.
    pub fn parse(edition: &str, mode: &str) -> Result<Profile, String> {
        let e: Edition = edition.parse().map_err(|e| format!("rules: {e}"))?;
        let m: Mode = mode.parse().map_err(|e| format!("mode: {e}"))?;
        Ok(Profile::new(e, m))
    }
}

impl Default for Profile {
    fn default() -> Self {
        Profile::new(Edition::default(), Mode::default())
    }
}

mod articles;
pub use articles::*;
mod decisions;
pub use decisions::*;

#[cfg(test)]
mod tests;
