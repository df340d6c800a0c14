//! Rule profiles: every difference between the editions of the FIDE Laws
//! that the controller acts on, as data (`../shared/rules/digest.md` §1–§3,
//! diff table D1–D60, and `../shared/rules/fide-2023.md`).
//!
//! A [`Profile`] is built once per game from its name and the mode; the
//! arbiter reads its fields and never asks which edition it is.

pub use crate::model::{Edition, Mode, Supervision};

mod default_time;
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
    /// A completed illegal move.
    pub illegal_move: &'static str,
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
    /// Threefold repetition claim.
    pub threefold: &'static str,
    /// Fifty-move claim.
    pub fifty_moves: &'static str,
    /// Incorrect draw claim.
    pub wrong_claim: &'static str,
    /// Fivefold repetition (automatic, 2023).
    pub fivefold: &'static str,
    /// 75 moves (automatic, 2023).
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
    /// Whether both flags fallen draws the game (2009 A4d3 / B3a, 2001 B8 / C).
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
    /// A pawn moved to the last rank and not replaced at the press is
    /// replaced by a queen and the move stands (2023 7.5.2: "The pawn shall
    /// be replaced by a queen of the same colour as the pawn"; F34 of
    /// `fide-2023.md`); 2009 / 2001 §7.4a: an illegal move like any other,
    /// the position before it reinstated.
    pub unreplaced_pawn_becomes_queen: bool,
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
            incomplete_promotion: "7.4a",
            press_without_move: "6.7a",
            time: "6.9",
            flag: "6.8",
            promotion: "4.4d",
            initial_position: "7.1a",
            board_orientation: "7.1b",
            colours_reversed: "7.2",
            arbiter: "13.4",
            threefold: "9.2",
            fifty_moves: "9.3",
            wrong_claim: "9.5b",
            fivefold: "9.2",
            seventy_five_moves: "9.3",
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
                illegal_claim: if mode == Mode::Blitz { "C3" } else { "7.4" },
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
                threefold: "9.2",
                fifty_moves: "9.3",
                wrong_claim: "9.5.3",
                fivefold: "9.6.1",
                seventy_five_moves: "9.6.2",
                adjust: "4.2.1",
                displaced: "7.4.1",
                illegal_claim: "A.5.2",
                flag_claim: "A.5.3",
                both_flags: "III.3.1",
                quickplay: "III.5",
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
        let illegal_rule = match (edition, mode) {
            (_, Mode::Standard) => IllegalMoveRule::Arbiter,
            // 2001 rapid: §7.4 through B2.
            (Edition::Fide2001, Mode::Rapid) => IllegalMoveRule::Arbiter,
            (Edition::Fide2001, Mode::Blitz) => IllegalMoveRule::ClaimWins,
            // 2023 A.5.2: the arbiter who observes it applies 7.5.5; the board is his eye.
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
            illegal_positions_ruled_unasked: illegal_rule == IllegalMoveRule::ClaimPenalty
                && edition != Edition::Fide2001,
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

/// The articles of §4 in one edition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TouchArticles {
    /// Own piece touched: move the first that can move.
    pub own: &'static str,
    /// Opponent's piece touched: capture the first that can be captured.
    pub opponent: &'static str,
    /// Pieces of both colours touched.
    pub both: &'static str,
    /// King then rook: castle on that side.
    pub king_rook: &'static str,
    /// Rook then king: no castling on that side.
    pub rook_king: &'static str,
    /// Castling intended but illegal: another king move.
    pub castling_illegal: &'static str,
    /// Promotion piece final once it touched the square (absent in 2001).
    pub promotion_final: Option<&'static str>,
    /// A piece released on a square as a legal move cannot go elsewhere.
    pub released: &'static str,
    /// Losing the right to claim a §4 breach.
    pub claim_lost: &'static str,
}

impl TouchArticles {
    /// 2001 (seed 000).
    pub const FIDE_2001: TouchArticles = TouchArticles {
        own: "4.3a",
        opponent: "4.3b",
        both: "4.3c",
        king_rook: "4.4a",
        rook_king: "4.4b",
        castling_illegal: "4.4c",
        promotion_final: None,
        released: "4.7",
        claim_lost: "4.6",
    };
    /// 2009 (seeds 001/002/003).
    pub const FIDE_2009: TouchArticles = TouchArticles {
        own: "4.3a",
        opponent: "4.3b",
        both: "4.3c",
        king_rook: "4.4a",
        rook_king: "4.4b",
        castling_illegal: "4.4c",
        promotion_final: Some("4.4d"),
        released: "4.6",
        claim_lost: "4.7",
    };
    /// 2023.
    pub const FIDE_2023: TouchArticles = TouchArticles {
        own: "4.3.1",
        opponent: "4.3.2",
        both: "4.3.3",
        king_rook: "4.4.1",
        rook_king: "4.4.2",
        castling_illegal: "4.4.3",
        promotion_final: Some("4.4.4"),
        released: "4.7",
        claim_lost: "4.8",
    };
}

// ---- The articles of the arbiter's rulings (issue 24.7) ----------------

/// The article each kind of arbiter's ruling cites, per edition (digest
/// §2.5, diff table D17/D19/D20; `fide-2023.md` §0.3, §2.4; DSU regulations
/// 004 §11 and §15). The penalties article (`Articles::arbiter`) is cited
/// only where a ruling gives a penalty (an illegal move's time or loss).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RulingArticles {
    /// The arbiter stops the clocks (2009 §6.12a, 2001 §6.13a, 2023 6.11.1).
    pub pause: &'static str,
    /// The arbiter decides when play restarts (2009 §6.12c, 2001 §6.13c,
    /// 2023 6.11.3).
    pub resume: &'static str,
    /// The arbiter sets the clocks' times and move counter (2009 §6.10b,
    /// 2001 §6.14, 2023 6.10.2).
    pub clock: &'static str,
    /// A position reinstated (2009/2001 §7.5, 2023 7.6).
    pub position: &'static str,
    /// A game not played: the default time (2009 §6.6a, applied by DSU 004
    /// §11; 2001 §6.7; 2023 6.7.1).
    pub forfeit: &'static str,
    /// The result reported to the arbiter and confirmed (DSU 004 §15).
    pub confirm: &'static str,
    /// A result the arbiter declares (2009/2001 §13.1: the arbiter sees the
    /// Laws observed; 2023 12.1).
    pub result: &'static str,
    /// The game lost by both players, both found guilty (2009 §12.9 "Hvis
    /// begge spillere findes skyldige efter § 12.8, skal partiet erklæres
    /// tabt for begge spillere", seed 002; 2001 §12.8, seed 000; 2023
    /// 11.8): a result `0-0` the arbiter gives.
    pub both_lost: &'static str,
}

impl RulingArticles {
    /// The rulings' articles of `edition`.
    pub fn of(edition: Edition) -> RulingArticles {
        match edition {
            Edition::Fide2001 => RulingArticles {
                pause: "6.13a",
                resume: "6.13c",
                clock: "6.14",
                position: "7.5",
                forfeit: "6.7",
                confirm: "DSU 004 §15",
                result: "13.1",
                both_lost: "12.8",
            },
            Edition::Fide2009 | Edition::Fide2009No => RulingArticles {
                pause: "6.12a",
                resume: "6.12c",
                clock: "6.10b",
                position: "7.5",
                forfeit: "6.6a",
                confirm: "DSU 004 §15",
                result: "13.1",
                both_lost: "12.9",
            },
            Edition::Fide2023 => RulingArticles {
                pause: "6.11.1",
                resume: "6.11.3",
                clock: "6.10.2",
                position: "7.6",
                forfeit: "6.7.1",
                confirm: "DSU 004 §15",
                result: "12.1",
                both_lost: "11.8",
            },
        }
    }
}

impl Profile {
    /// A draw claim on a move written on the scoresheet and not made:
    /// 2001 / 2009 §9.2a ("vil fremkomme når han først noterer sit træk på
    /// sin noteringsliste og meddeler dommeren sin hensigt om at udføre
    /// dette træk", seed 002) and §9.3a for fifty moves (`fifty`); 2023
    /// 9.2.1 / 9.3.1. The claim's upholding cites it (`arbiter::written`).
    pub fn article_written_claim(&self, fifty: bool) -> &'static str {
        match (self.edition, fifty) {
            (Edition::Fide2023, false) => "9.2.1",
            (Edition::Fide2023, true) => "9.3.1",
            (_, false) => "9.2a",
            (_, true) => "9.3a",
        }
    }
}

// ---- end of the rulings' articles ----------------------------------------

// Issue 25 (the Laws' rarer paths): the articles of the board's own
// decisions beyond `Articles`, per edition, in one block.
impl Profile {
    /// The arbiter decides when a paused game restarts: a player's press
    /// while the clocks are paused is shown to him, not applied (2009
    /// §6.12c "Dommeren bestemmer hvornår partiet genoptages", seed 002;
    /// 2001 §6.13c, seed 000; 2023 6.11.3).
    pub fn article_pause_holds(&self) -> &'static str {
        match self.edition {
            Edition::Fide2001 => "6.13c",
            Edition::Fide2023 => "6.11.3",
            Edition::Fide2009 | Edition::Fide2009No => "6.12c",
        }
    }

    /// After an incorrect draw claim on a written move, whether the move
    /// announced itself must be made (`Some(article)`), not only one that
    /// keeps Article 4's obligation of its piece: 2001 §9.5b (seed 000)
    /// "Partiet skal herefter fortsætte og det meddelte træk skal udføres";
    /// 2009 §9.5b (seed 002) "skal dette træk udføres i henhold til § 4"
    /// and 2023 9.5.3 "in accordance with Articles 3 and 4" bind its piece
    /// only (`None`).
    pub fn announced_move_binds(&self) -> Option<&'static str> {
        match self.edition {
            Edition::Fide2001 => Some("9.5b"),
            _ => None,
        }
    }

    /// A board set up turned 180°: the light corner still at the players'
    /// right, so no rule of placement is broken (2001 / 2009 / 2023 2.1:
    /// "Skakbrættet skal anbringes mellem spillerne således, at det nærmeste
    /// hjørnefelt til højre for spilleren er hvidt"). The board reports what
    /// it sees with this article; whether the colours were reversed (§7.2,
    /// 2023 7.3) only the arbiter can tell.
    pub fn article_board_turned(&self) -> &'static str {
        "2.1"
    }

    /// A press whose board fits several legal moves (`ambiguous_move`):
    /// which move was *made* is the question, and the Laws' definition of a
    /// move made decides it (2009 §4.6, seed 002: "Trækket betragtes da som
    /// udført: a. ved et slag, når den slagne brik er fjernet fra brættet og
    /// spilleren har sat sin egen brik på det nye felt…"; 2001 §4.7, seed
    /// 000; 2023 4.7). Not 13.4 / 12.9, the penalties: nobody is penalised.
    pub fn article_ambiguous_move(&self) -> &'static str {
        match self.edition {
            Edition::Fide2001 | Edition::Fide2023 => "4.7",
            Edition::Fide2009 | Edition::Fide2009No => "4.6",
        }
    }

    /// Appendix E: the boards differ and the two scoresheets differ too:
    /// the game goes back to the move where they agree and the arbiter
    /// sets the clocks accordingly (2009 E2.8 "skal spillet føres tilbage
    /// til det træk hvor de er ens, og dommeren skal indstille urene
    /// tilsvarende", seed 002; 2001 F2.8, seed 000; 2023 D.2.9, whose one
    /// article holds both cases, `fide-2023.md` §2.13).
    pub fn article_vi_rewind(&self) -> &'static str {
        match self.edition {
            Edition::Fide2001 => "F2.8",
            Edition::Fide2023 => "D.2.9",
            Edition::Fide2009 | Edition::Fide2009No => "E2.8",
        }
    }

    /// A draw by agreement needs a move by each player: 2023 5.2.3 "…
    /// provided both players have made at least one move"; 2009 §5.2c and
    /// 2001 §5.2c have no such condition (F17 of `fide-2023.md`).
    pub fn agreement_needs_a_move_each(&self) -> bool {
        self.edition == Edition::Fide2023
    }

    /// The completion of a move: by the press (2009 §6.7a "Hans træk
    /// betragtes ikke som fuldført før dette er gjort", seed 002;
    /// 2001 §6.8a, seed 000; 2023 6.2.1, whose 6.2.1.2 adds "the player has
    /// made his/her next move, when his/her previous move was not
    /// completed"). Cited when the board cannot tell which moves were made
    /// after a move not pressed (`unpressed_moves_unclear`).
    pub fn article_completion(&self) -> &'static str {
        match self.edition {
            Edition::Fide2001 => "6.8a",
            Edition::Fide2023 => "6.2.1",
            Edition::Fide2009 | Edition::Fide2009No => "6.7a",
        }
    }

    /// 2023 6.2.1.2: a move not completed by a press is completed when the
    /// player has made his next move (F19 of `fide-2023.md`), so a move
    /// counts toward a time control from then on. 2009 §6.7a and 2001 §6.8a
    /// only know the press: the move counts at the player's next press
    /// (docs/profiles.md, "A move not pressed").
    pub fn next_move_completes_previous(&self) -> bool {
        self.edition == Edition::Fide2023
    }

    /// An illegal move made and not pressed, then the opponent's own move
    /// made: the illegal move stands, nobody may claim it and nothing is
    /// ruled unasked, where only a claim before the opponent's own move
    /// counts. 2009 A4c "… før kravstilleren selv udfører sit træk. Kun
    /// efter en sådan påstand skal dommeren træffe en afgørelse" and B3c "Så
    /// snart modstanderen har udført sit eget træk, kan et ulovligt træk
    /// ikke rettes" (seed 002; rapid and blitz with inadequate supervision);
    /// 2001 C3 "Har modstanderen udført et træk, kan et ulovligt træk ikke
    /// rettes" (seed 000, blitz); 2023 A.5.2 (rapid A.5, blitz B.3): the
    /// arbiter acts, or the opponent claims, "provided the opponent has not
    /// made his/her next move" — a move not pressed cannot be declared
    /// illegal before its press (7.5.1), so neither can act here.
    /// Elsewhere (standard play, 2001 rapid through B2, adequate
    /// supervision: 2009 A3 / B2, 2023 A.4 / B.2) §7.4a / 7.5.1 apply
    /// ([`Profile::illegal_ruled_when_made`]).
    pub fn unpressed_illegal_stands_after_reply(&self) -> bool {
        match self.illegal_rule {
            IllegalMoveRule::ClaimPenalty | IllegalMoveRule::ClaimWins => true,
            IllegalMoveRule::Arbiter => {
                self.edition == Edition::Fide2023
                    && self.mode != Mode::Standard
                    && self.supervision == Supervision::Inadequate
            }
        }
    }

    /// 2023 A.5.4 (rapid A.5, blitz B.3): "if the arbiter sees both kings
    /// in check, or a pawn standing on the furthest rank, he/she waits until
    /// the next move is completed. If an illegal position is still on the
    /// board, he/she declares a draw" (`fide-2023.md` §2.9). Reached only
    /// when an illegal move stood (one made and not pressed, replied to:
    /// a pressed one is ruled at its press, A.5.2). 2009 A4c has the arbiter
    /// intervene instead ([`Profile::illegal_positions_ruled_unasked`]);
    /// 2009 B3 / 2001 C have no such rule.
    pub fn article_illegal_position_draw(&self) -> Option<&'static str> {
        (self.edition == Edition::Fide2023 && self.unpressed_illegal_stands_after_reply())
            .then_some("A.5.4")
    }

    /// Where the arbiter rules illegal moves (§7.4a / 7.5.1), when an
    /// illegal move made and not pressed is ruled: 2001 §7.4a "Hvis det
    /// under et parti opdages at der er *gjort* et ulovligt træk" (seed 000:
    /// made) — at the first press that shows it; 2009 §7.4a "opdages at der
    /// er *fuldført* et ulovligt træk" (seed 002: completed, §6.7a: by the
    /// press) and 2023 7.5.1 "An illegal move is completed once the player
    /// has pressed his/her clock" — at the offender's own press.
    pub fn illegal_ruled_when_made(&self) -> bool {
        self.edition == Edition::Fide2001
    }

    /// Who may adjust (j'adoube) in the moment between a move made and its
    /// press: 2009 §4.2 "… må spilleren i trækket rette en eller flere
    /// brikker på deres felter", with §1.1 "at være i trækket" når hans
    /// modstanders træk er udført (seed 002; 2001 the same, seed 000): the
    /// opponent, who has the move; 2023 adds 6.2.5 "Only the
    /// player whose clock is running is allowed to adjust the pieces" to
    /// 4.2.1: then nobody (F4 of `fide-2023.md`).
    pub fn article_adjust_clock_running(&self) -> Option<&'static str> {
        (self.edition == Edition::Fide2023).then_some("6.2.5")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_differ_where_the_laws_do() {
        let p01 = Profile::parse("fide-2001", "standard").unwrap();
        let p09 = Profile::parse("fide-2009", "standard").unwrap();
        let p23 = Profile::parse("fide-2023", "standard").unwrap();
        let p23r = Profile::parse("fide-2023", "rapid").unwrap();
        assert_eq!(p01.illegal_moves_to_lose, 3);
        assert!(!p01.illegal_loss_draw_exception);
        assert!(p09.illegal_loss_draw_exception);
        assert_eq!(p23.illegal_moves_to_lose, 2);
        assert_eq!(p23r.illegal_move_bonus_ms, 60_000);
        assert_eq!(p23.articles.illegal_move, "7.5.1");
        assert_eq!(p09.articles.illegal_move, "7.4a");
        assert!(Profile::parse("fide-1999", "standard")
            .unwrap_err()
            .contains("fide-2023"));
        assert!(Profile::parse("fide-2009", "bullet")
            .unwrap_err()
            .contains("mode"));
    }
}
