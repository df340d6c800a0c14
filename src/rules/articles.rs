//! The articles of touches, rulings and the rarer decisions, per edition.

use super::*;
use crate::model::{Edition, Mode, Supervision};

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

impl Profile {
    /// The article of an illegal move's penalty (the `illegal_move` event's
    /// `penalty_article`, and the `game_end` of `illegal_moves`): §7.4b /
    /// 7.5.5 ([`Articles::illegal_penalty`]); where the opponent's claim
    /// wins the game (`claim_wins`: 2009 B3c "Modstanderen har ret til at
    /// kræve gevinst", seed 002; 2001 C3, seed 000) the claim's own article,
    /// whose penalty it is. 2009 A4c's claim is ruled with §7.4's penalty
    /// (7.4b). The reinstatement cites §7.4a / 7.5.1
    /// ([`Articles::illegal_move`]).
    pub fn article_illegal_penalty(&self, claim_wins: bool) -> &'static str {
        if claim_wins {
            self.articles.illegal_claim
        } else {
            self.articles.illegal_penalty
        }
    }

    /// The article of an illegal move ruled without a claim: `article`
    /// (§7.4a / 7.5.1 …), but where only a claim counts and the arbiter
    /// intervenes unasked (`intervenes`: both kings in check, a promotion
    /// not completed), the sentence that lets him: 2009 A4c "Dog skal
    /// dommeren om muligt gribe ind, dersom begge konger står i skak eller
    /// en bondeforvandling ikke er fuldført" (seed 002).
    pub fn article_illegal_ruled(&self, article: &'static str, intervenes: bool) -> &'static str {
        if intervenes {
            self.articles.illegal_claim
        } else {
            article
        }
    }

    /// The daemon's own downtime (`irregularity` kind `downtime`): the board
    /// was not watching, the clocks may be paused, and the arbiter sets
    /// their times by his best judgement: 2009 §6.13 "Hvis der opstår en
    /// uregelmæssighed … skal dommeren stille tiden på uret efter sit bedste
    /// skøn" (seed 002; 2009-NO §6.13, seed 003), 2001 §6.14
    /// (seed 000), 2023 7.1 (`fide-2023.md` §0.3: was 2009 §6.13). Not the
    /// penalties (13.4 / 12.9): nobody is penalised.
    pub fn article_downtime(&self) -> &'static str {
        match self.edition {
            Edition::Fide2001 => "6.14",
            Edition::Fide2023 => "7.1",
            Edition::Fide2009 | Edition::Fide2009No => "6.13",
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
