//! Held-out Laws cases, session 18 (issue 25, "The Laws' rarer paths"): a
//! sixth set, written from the texts (seeds 000 = 2001-DK, 002 = 2009-DK,
//! 003 = 2009-NO; `../shared/rules/fide-2023.md` for 2023): 2023
//! Guidelines III.4 / III.5 and 2009 §10.2 with a delay in the final
//! period; a 2001 blitz claim after the claimant touched a piece; a pawn
//! left unpromoted on the last rank in blitz; an illegal move claimed after
//! the claimant touched a piece; the flags of `40/5400:1800+30`; Appendix E
//! (E2.3c, E2.8) in 2009 and 2023; castling through, out of and into check
//! by Black in every profile. The readings chosen are in docs/dev/profiles-notes.md
//! ("Held-out cases, session 18").
//!
//! Points 3 and 7 (a pawn on the last rank, castling by Black) are here;
//! point 1 (Guidelines III.4 / III.5 and §10.2 with a delay) in `rows.rs`;
//! points 2 and 4 (claims after the claimant touched a piece) in
//! `claims.rs`; point 5 (the flags of `40/5400:1800+30`) in `clocks.rs`;
//! point 6 (Appendix E) in `boards.rs`.

#[path = "cases18/boards.rs"]
mod boards;
#[path = "cases18/claims.rs"]
mod claims;
#[path = "cases18/clocks.rs"]
mod clocks;
#[path = "cases18/rows.rs"]
mod rows;

use crate::common::heldout::{case, game, hdr, run, Case};
use serde_json::json;

/// White's pawn a7 takes the knight b8 and stays a pawn.
const CAP_FEN: &str = "1nr1k3/P7/8/8/8/8/8/4K3 w - - 0 1";

const AXB8: &str = "1000 lift b8\n1100 lift a7\n1300 place b8 P\n1600 press w\n";

const REPLY: &str = "3000 lift e8\n3200 place d7 k\n3500 press b\n";

/// White's 2. Ke2, then Black's rook takes the pawn on b8.
const AND_RXB8: &str = "5000 lift e1\n5200 place e2 K\n5500 press w\n\
                        6000 lift b8\n6100 lift c8\n6300 place b8 r\n6600 press b\n";

/// Black's pawn a2 goes to a1 and stays a pawn (his rook h8 keeps the
/// position alive: a pawn on a1 can never move); White replies Kd2.
const DOWN_FEN: &str = "4k2r/8/8/8/8/8/p7/4K3 b - - 0 1";

const A1: &str = "1000 lift a2\n1200 place a1 p\n1500 press b\n\
                  3000 lift e1\n3200 place d2 K\n3500 press w\n";

/// Point 3: 2009 B3c (seed 002) "Så snart modstanderen har udført sit eget
/// træk, kan et ulovligt træk ikke rettes medmindre der opnås indbyrdes
/// enighed om dette uden dommerens indblanding"; B3b "§10.2 og A4c gælder
/// ikke" (no unasked ruling of an incomplete promotion in blitz); 2009-NO
/// B3c (seed 003) "Når motstanderen selv har utført et trekk, kan det
/// ulovlige trekket ikke gjøres om"; 2001 C3 "Har modstanderen udført et
/// træk, kan et ulovligt træk ikke rettes". Unclaimed, the capture a7xb8
/// without promotion stands; the game goes on from the board (the pawn
/// on b8 is taken by the rook). 2023 B.3 imports A.5.2 ("If the arbiter
/// observes an action taken under Article 7.5.1, 7.5.2 …, he/she shall
/// act according to Article 7.5.5") and 7.5.2 "the pawn shall be replaced
/// by a queen of the same colour": ruled at the press, +1 min (A.3).
#[test]
fn s18_point_3_an_unclaimed_pawn_left_on_the_last_rank_in_blitz() {
    let blitz = |fen: &str, tc: &str| game(fen, "blitz", tc, "inadequate");
    let mut cases: Vec<Case> = Vec::new();
    for (rules, tc) in [
        ("fide-2009", "180+2"),
        ("fide-2009-no", "180+2"),
        ("fide-2001", "180"),
    ] {
        cases.push(case(
            "18-3a B3c / C3 a capture without promotion stands unclaimed",
            rules,
            blitz(CAP_FEN, tc),
            format!("{AXB8}{REPLY}{AND_RXB8}"),
            &[
                "move.san=Kd7",
                "move.san=Ke2",
                "move.san=Rxb8",
                "move.ply=4",
            ],
            &["illegal_move", "game_end"],
        ));
        cases.push(case(
            "18-3b B3c / C3 claimed after the reply: not corrected",
            rules,
            blitz(CAP_FEN, tc),
            format!("{AXB8}{REPLY}4000 claim illegal_move b"),
            &["claim.upheld=false", "move.san=Kd7"],
            &["illegal_move", "game_end"],
        ));
        cases.push(case(
            "18-3c B3c / C3 Black's pawn on a1 stands unclaimed",
            rules,
            blitz(DOWN_FEN, tc),
            format!("{A1}5000 lift e8\n5200 place e7 k\n5500 press b\n"),
            &["move.san=Kd2", "move.san=Ke7"],
            &["illegal_move", "game_end"],
        ));
    }
    cases.push(case(
        "18-3d 2023 B.3 7.5.2 the pawn becomes a queen at the press",
        "fide-2023",
        blitz(CAP_FEN, "180+2"),
        AXB8,
        &[
            "illegal_move.article=7.5.2",
            "illegal_move.penalty=+1 min to black",
            "move.san~b8=Q",
        ],
        &["game_end"],
    ));
    run(cases);
}

/// Point 3, a second set: 2023 rapid without adequate supervision (A.5.2
/// with 7.5.2, A.3 one minute) and 2009 blitz with adequate supervision
/// (B2 "gælder Turneringsreglerne": §7.4a at once, two minutes).
#[test]
fn s18_point_3_the_pawn_where_the_board_rules() {
    run(vec![
        case(
            "18-3e 2023 A.5.2 7.5.2 rapid: the pawn becomes a queen",
            "fide-2023",
            game(CAP_FEN, "rapid", "1500+10", "inadequate"),
            AXB8,
            &[
                "illegal_move.article=7.5.2",
                "illegal_move.penalty=+1 min to black",
                "move.san~b8=Q",
            ],
            &["game_end"],
        ),
        case(
            "18-3f 2009 B2 supervised blitz: 7.4a at the press",
            "fide-2009",
            game(CAP_FEN, "blitz", "180+2", "adequate"),
            AXB8,
            &[
                "illegal_move.article=7.4a",
                "illegal_move.penalty=+2 min to black",
            ],
            &["move.san=axb8", "game_end"],
        ),
    ]);
}

/// Black may castle short (FEN `k`), but the rook f1 attacks f8 / the rook
/// e1 checks e8 / the rook g1 attacks g8; the long castling through d8.
const THROUGH: &str = "4k2r/8/8/8/8/8/8/K4R2 b k - 0 1";

const OUT_OF: &str = "4k2r/8/8/8/8/8/8/K3R3 b k - 0 1";

const INTO: &str = "4k2r/8/8/8/8/8/8/K5R1 b k - 0 1";

const LONG_THROUGH: &str = "r3k3/8/8/8/8/8/8/3R3K b q - 0 1";

const OO: &str = "1000 lift e8\n1200 place g8 k\n1400 lift h8\n1600 place f8 r\n2000 press b\n";

const OOO: &str = "1000 lift e8\n1200 place c8 k\n1400 lift a8\n1600 place d8 r\n2000 press b\n";

/// Point 7: 2009 §3.8b (seed 002) "Rokaden er forhindret midlertidigt:
/// (1) hvis det felt, hvor kongen står, eller det felt, som den skal
/// passere, eller det felt, som den skal besætte, er angrebet af en eller
/// flere af modstanderens brikker" (2001 §3.8b the same; 2023 3.8.2.2.1).
/// Standard: 2009 / 2001 §7.4a "skal stillingen umiddelbart før
/// uregelmæssigheden genskabes", §7.4b "to ekstra minutter"; 2023 7.5.1 /
/// 7.5.5. Blitz: 2009 B3c, 2001 C3 the claim wins (White can mate with his
/// rook); 2023 B.3 → A.5.2 ruled at the press, A.3 one minute.
#[test]
fn s18_point_7_castling_through_out_of_and_into_check_by_black() {
    let mut cases = Vec::new();
    for (what, fen, steps) in [
        ("through", THROUGH, OO),
        ("out of", OUT_OF, OO),
        ("into", INTO, OO),
        ("long through", LONG_THROUGH, OOO),
    ] {
        let san = if steps == OO {
            "move.san=O-O"
        } else {
            "move.san=O-O-O"
        };
        for (rules, art) in [
            ("fide-2001", "illegal_move.article=7.4a"),
            ("fide-2009", "illegal_move.article=7.4a"),
            ("fide-2009-no", "illegal_move.article=7.4a"),
            ("fide-2023", "illegal_move.article=7.5.1"),
        ] {
            cases.push(case(
                match what {
                    "through" => "18-7a standard castling through check",
                    "out of" => "18-7b standard castling out of check",
                    "into" => "18-7c standard castling into check",
                    _ => "18-7d standard long castling through check",
                },
                rules,
                game(fen, "standard", "5400+30", "adequate"),
                steps,
                &[
                    "illegal_move.by=b",
                    art,
                    "illegal_move.penalty=+2 min to white",
                ],
                &[san, "game_end"],
            ));
        }
        for (rules, tc, art) in [
            ("fide-2001", "180", "game_end.article=C3"),
            ("fide-2009", "180+2", "game_end.article=B3c"),
            ("fide-2009-no", "180+2", "game_end.article=B3c"),
        ] {
            cases.push(case(
                match what {
                    "through" => "18-7e blitz castling through check claimed",
                    "out of" => "18-7f blitz castling out of check claimed",
                    "into" => "18-7g blitz castling into check claimed",
                    _ => "18-7h blitz long castling through check claimed",
                },
                rules,
                game(fen, "blitz", tc, "inadequate"),
                format!("{steps}2500 claim illegal_move w"),
                &["claim.upheld=true", "game_end.result=1-0", art],
                &[],
            ));
        }
        cases.push(case(
            "18-7i 2023 blitz castling against 3.8.2.2 ruled at the press",
            "fide-2023",
            game(fen, "blitz", "180+2", "inadequate"),
            steps,
            &[
                "illegal_move.by=b",
                "illegal_move.article=7.5.1",
                "illegal_move.penalty=+1 min to white",
            ],
            &[san, "game_end"],
        ));
    }
    run(cases);
}

/// Point 7, a second set: 2009 §7.4a "§ 4.3 og § 4.6 gælder for det træk
/// der erstatter det ulovlige træk" (2001 §7.4a "4.3 gælder …"; 2023 7.5.1
/// "Articles 4.3 and 4.7 apply to the move replacing the illegal move"):
/// the king touched first binds the replacement (§4.3a; §4.4c "skal
/// spilleren udføre et andet lovligt træk med kongen"); 2009 A4c claimed
/// (§7.4b, two minutes); 2001 rapid B2 (§7.4 ruled at the press); an
/// occupancy board.
#[test]
fn s18_point_7_after_the_illegal_castling() {
    let back = "3000 lift g8\n3200 place e8 k\n3400 lift f8\n3600 place h8 r\n";
    let mut cases = Vec::new();
    for (rules, castling_illegal) in [
        ("fide-2001", "touch_move.article=4.4c"),
        ("fide-2009", "touch_move.article=4.4c"),
        ("fide-2009-no", "touch_move.article=4.4c"),
        ("fide-2023", "touch_move.article=4.4.3"),
    ] {
        cases.push(case(
            "18-7j the rook moved instead of the king after the castling taken back",
            rules,
            game(THROUGH, "standard", "5400+30", "adequate"),
            format!("{OO}{back}5000 lift h8\n5200 place h7 r\n5500 press b"),
            &[
                "position_restored",
                castling_illegal,
                "touch_move.touched=e8",
                "touch_move.played=h8h7",
            ],
            &["game_end"],
        ));
        cases.push(case(
            "18-7k another king move after the castling taken back",
            rules,
            game(THROUGH, "standard", "5400+30", "adequate"),
            format!("{OO}{back}5000 lift e8\n5200 place d8 k\n5500 press b"),
            &["position_restored", "move.san=Kd8"],
            &["touch_move", "game_end"],
        ));
        cases.push(case(
            "18-7l castling out of check on an occupancy board",
            rules,
            hdr("5400+30", json!({"start_fen": OUT_OF, "mode": "standard"})),
            "1000 lift e8\n1200 place g8\n1400 lift h8\n1600 place f8\n2000 press b\n",
            &["illegal_move.by=b", "illegal_move.penalty=+2 min to white"],
            &["move.san=O-O", "irregularity.kind=displaced", "game_end"],
        ));
    }
    cases.push(case(
        "18-7m A4c castling into check claimed",
        "fide-2009-no",
        game(INTO, "rapid", "1500+10", "inadequate"),
        format!("{OO}2500 claim illegal_move w"),
        &[
            "claim.upheld=true",
            "illegal_move.article=A4c",
            "illegal_move.penalty=+2 min to white",
        ],
        &["game_end"],
    ));
    cases.push(case(
        "18-7n 2001 B2 rapid castling into check ruled at the press",
        "fide-2001",
        game(INTO, "rapid", "1500", "inadequate"),
        OO,
        &[
            "illegal_move.article=7.4a",
            "illegal_move.penalty=+2 min to white",
        ],
        &["move.san=O-O", "game_end"],
    ));
    run(cases);
}
