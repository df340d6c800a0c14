//! Held-out Laws cases, session 16 (issue 25, "Judged by"): a fourth set,
//! written from the texts only (seeds 000 = 2001-DK, 002 = 2009-DK, 003 =
//! 2009-NO; `../shared/rules/fide-2023.md` for 2023) before the arbiter's
//! code was read, on paths sessions 12–14 did not try: an illegal move in
//! the final period of a multi-period control; castling through, out of
//! and into check; an en passant one move too late; a promotion to a piece
//! of the wrong colour; the 2023 Guidelines III.4 request (five seconds)
//! granted, accepted as a draw and refused for each of its conditions;
//! 5.2.3 once both players moved; a board turned 180° at move 15; a flag
//! in a multi-period control at the move that brings the next period; two
//! pauses; an Appendix E copy of a castling with the rook left behind.
//! Each case quotes the text that decides it; where a text is open, the
//! reading taken is in docs/dev/profiles-notes.md ("Held-out cases, session 16").
//! Run through the real binary by `tests/common/heldout.rs`, in parallel.
//!
//! Point 1 (illegal moves, castling, en passant, promotion, the final
//! period) is here; point 5 (the five seconds on request) in `rows.rs`;
//! points 3 and 4 (a period's flags, two pauses) in `clocks.rs`; points 2
//! and 6 (a board turned, an Appendix E copy) in `boards.rs`.

#[path = "cases16/boards.rs"]
mod boards;
#[path = "cases16/clocks.rs"]
mod clocks;
#[path = "cases16/rows.rs"]
mod rows;

use crate::common::heldout::{case, game, hdr, run, E4E5};
use serde_json::json;

/// Point 1 and 7: an illegal move in the final period of `1/60:60`:
/// White's 2. Ng1-g3 (no knight move, §3.6). 2009 §6.2b "Opsparet tid fra
/// én tidsperiode tillægges den næste": Black's 59 s + 60 s = 119 s; then
/// 2009 §7.4b "skal dommeren give modstanderen to ekstra minutter" (2001
/// §7.4b the same words; 2023 7.5.5 "the arbiter shall give two minutes
/// extra time to his/her opponent"): 239 s.
#[test]
fn s16_point_1_an_illegal_move_in_the_final_period() {
    let std = || {
        hdr(
            "1/60:60",
            json!({"mode": "standard", "sensing": "identity"}),
        )
    };
    let ng3 = format!("{E4E5}3000 lift g1\n3200 place g3 N\n3500 press w");
    run(vec![
        case(
            "16-1a 2009 7.4b an illegal move in the second period",
            "fide-2009",
            std(),
            ng3.clone(),
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.4a",
                "illegal_move.penalty=+2 min to black",
                "clock.black_ms=239000",
            ],
            &["move.ply=3", "game_end"],
        ),
        case(
            "16-1b 2023 7.5.5 an illegal move in the second period",
            "fide-2023",
            std(),
            ng3.clone(),
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.5.1",
                "illegal_move.penalty=+2 min to black",
                "clock.black_ms=239000",
            ],
            &["move.ply=3", "game_end"],
        ),
        case(
            "16-1c 2001 7.4b an illegal move in the second period",
            "fide-2001",
            std(),
            ng3,
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.4a",
                "illegal_move.penalty=+2 min to black",
                "clock.black_ms=239000",
            ],
            &["move.ply=3", "game_end"],
        ),
    ]);
}

/// White may castle short (FEN `K`), but the rook f8 attacks f1, the
/// square the king passes; Black can mate (a rook).
const THROUGH: &str = "4kr2/8/8/8/8/8/8/4K2R w K - 0 1";

/// White's king e1 in check from the rook e5.
const OUT_OF: &str = "4k3/8/8/4r3/8/8/8/4K2R w K - 0 1";

/// The rook g8 attacks g1, the square the king goes to.
const INTO: &str = "4k1r1/8/8/8/8/8/8/4K2R w K - 0 1";

const OO: &str = "1000 lift e1\n1200 place g1 K\n1400 lift h1\n1600 place f1 R\n2000 press w\n";

/// Point 1: castling through, out of and into check (issue 25 names "a
/// castling through check"). 2009 §3.8b(2) "Rokaden er forhindret
/// midlertidigt c. hvis feltet som kongen står på, eller som den skal
/// passere, eller som den skal flyttes til, er truet af en eller flere af
/// modstanderens brikker" (2001 §3.8b(2) "som den skal krydse"; 2023
/// 3.8.2.2.1 the same).
#[test]
fn s16_point_1_castling_through_out_of_and_into_check() {
    let quiet = ["illegal_move", "game_end"];
    run(vec![
        // Standard play: 2009 §7.4a "skal stillingen umiddelbart før
        // uregelmæssigheden genskabes", §7.4b two minutes.
        case(
            "16-1d 2009 7.4a castling through check",
            "fide-2009",
            game(THROUGH, "standard", "5400+30", "adequate"),
            OO,
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.4a",
                "illegal_move.penalty=+2 min to black",
            ],
            &["move.san=O-O", "game_end"],
        ),
        case(
            "16-1e 2023 7.5.1 castling through check",
            "fide-2023",
            game(THROUGH, "standard", "5400+30", "adequate"),
            OO,
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.5.1",
                "illegal_move.penalty=+2 min to black",
            ],
            &["move.san=O-O", "game_end"],
        ),
        // 2009-NO B3c "Motstanderen har rett til å kreve gevinst før han
        // har utført sitt eget trekk": Black (a rook) wins.
        case(
            "16-1f B3c castling through check claimed",
            "fide-2009-no",
            game(THROUGH, "blitz", "180+2", "inadequate"),
            format!("{OO}2500 claim illegal_move b"),
            &["claim.upheld=true", "game_end.result=0-1", "game_end.article=B3c"],
            &[],
        ),
        // 2001 C3 "Modstanderen har imidlertid ret til at kræve gevinst,
        // før han selv trækker".
        case(
            "16-1g C3 castling through check claimed",
            "fide-2001",
            game(THROUGH, "blitz", "180", "inadequate"),
            format!("{OO}2500 claim illegal_move b"),
            &["claim.upheld=true", "game_end.result=0-1", "game_end.article=C3"],
            &[],
        ),
        // 2009 A4c "Kun efter en sådan påstand skal dommeren træffe en
        // afgørelse": unclaimed, Black replies Rf7 and White plays Kh2 from
        // the board's position (king g1, rook f1).
        case(
            "16-1h A4c castling through check unclaimed stands",
            "fide-2009",
            game(THROUGH, "rapid", "1500+10", "inadequate"),
            format!(
                "{OO}3000 lift f8\n3200 place f7 r\n3500 press b\n4000 lift g1\n4200 place h2 K\n4500 press w"
            ),
            &["move.san=Rf7", "move.san=Kh2", "move.ply=3"],
            &quiet,
        ),
        // Out of check (§3.8b(2)c "feltet som kongen står på"), standard.
        case(
            "16-1i 2009-NO 7.4a castling out of check",
            "fide-2009-no",
            game(OUT_OF, "standard", "5400+30", "adequate"),
            OO,
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.4a",
                "illegal_move.penalty=+2 min to black",
            ],
            &["move.san=O-O", "game_end"],
        ),
        // Into check in unsupervised rapid, 2023: A.5.2 "If the arbiter
        // observes an action taken under Article 7.5.1, 7.5.2, 7.5.3 or
        // 7.5.4, he/she shall act according to Article 7.5.5" (the board
        // observes it at the press, as session 12's 1f); A.3: one minute.
        case(
            "16-1j 2023 A.5.2 castling into check",
            "fide-2023",
            game(INTO, "rapid", "1500+10", "inadequate"),
            OO,
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.5.1",
                "illegal_move.penalty=+1 min to black",
            ],
            &["move.san=O-O", "game_end"],
        ),
    ]);
}

/// Black to move plays d7-d5 beside White's e5; White answers Ke2, Black
/// Ra7, and only then White takes en passant: 2009 §3.7d "Dette slag er kun
/// lovligt i trækket umiddelbart efter at bonden er flyttet frem" (2001
/// §3.7d "må kun ske i trækket efter at bonden er flyttet frem").
const LATE_EP_FEN: &str = "r3k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1";

const LATE_EP: &str = "1000 lift d7\n1200 place d5 p\n1500 press b\n2000 lift e1\n2200 place e2 K\n2500 press w\n\
                       3000 lift a8\n3200 place a7 r\n3500 press b\n4000 lift e5\n4100 lift d5\n4300 place d6 P\n4600 press w\n";

/// A pawn on b7 to promote; Black has a rook (he can mate).
const PROMO: &str = "4k3/1P6/8/8/8/r7/8/4K3 w - - 0 1";

/// The pawn replaced by a black queen.
const B8_BLACK_QUEEN: &str = "1000 lift b7\n1300 place b8 q\n1600 press w\n";

/// Point 1: an en passant one move too late; a promotion to a piece of
/// the opponent's colour.
#[test]
fn s16_point_1_late_en_passant_and_wrong_colour_promotion() {
    run(vec![
        case(
            "16-1k 2009 7.4a en passant one move too late",
            "fide-2009",
            game(LATE_EP_FEN, "standard", "5400+30", "adequate"),
            LATE_EP,
            &[
                "move.san=d5",
                "move.san=Ke2",
                "move.san=Ra7",
                "illegal_move.by=w",
                "illegal_move.article=7.4a",
                "illegal_move.penalty=+2 min to black",
            ],
            &["move.san=exd6", "game_end"],
        ),
        // 2001 C3 "Har modstanderen udført et træk, kan et ulovligt træk
        // ikke rettes": Black's Ra6 answers the illegal capture, it stands.
        case(
            "16-1l C3 en passant one move too late, unclaimed",
            "fide-2001",
            game(LATE_EP_FEN, "blitz", "180", "inadequate"),
            format!("{LATE_EP}5000 lift a7\n5200 place a6 r\n5500 press b"),
            &["move.san=Ra6", "move.ply=5"],
            &["illegal_move", "game_end"],
        ),
        // 2023 3.7.3.3 "exchanged as part of the same move for a new queen,
        // rook, bishop or knight of the same colour" (2009 §3.7e "af
        // bondens farve"): a black queen is no promotion. It is replaced
        // with a new piece, so not 7.5.2 ("does not replace the pawn with a
        // new piece", a queen then) but 7.5.1: the position before it.
        case(
            "16-1m 2023 7.5.1 promotion to the opponent's colour",
            "fide-2023",
            game(PROMO, "standard", "5400+30", "adequate"),
            B8_BLACK_QUEEN,
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.5.1",
                "illegal_move.penalty=+2 min to black",
            ],
            &["move.san~b8=Q", "game_end"],
        ),
        // 2001 C3: claimed before his own move, Black (a rook) wins.
        case(
            "16-1n C3 promotion to the opponent's colour claimed",
            "fide-2001",
            game(PROMO, "blitz", "180", "inadequate"),
            format!("{B8_BLACK_QUEEN}2500 claim illegal_move b"),
            &[
                "claim.upheld=true",
                "game_end.result=0-1",
                "game_end.article=C3",
            ],
            &[],
        ),
    ]);
}

/// Point 1, a second set: castling out of check on an occupancy board and
/// claimed; the long castling through an attacked d1 and past an
/// attacked b1; an illegal move in the final period of unsupervised rapid;
/// the en passant taken in time.
#[test]
fn s16_point_1_more_castlings_and_the_final_period() {
    let oo_occ = "1000 lift e1\n1200 place g1\n1400 lift h1\n1600 place f1\n2000 press w\n";
    // O-O-O: the king to c1, the rook to d1.
    let ooo = "1000 lift e1\n1200 place c1 K\n1400 lift a1\n1600 place d1 R\n2000 press w\n";
    // The rook d8 attacks d1, the square the king passes.
    let d1_attacked = "3rk3/8/8/8/8/8/8/R3K3 w Q - 0 1";
    // The rook b8 attacks b1, which only the rook passes.
    let b1_attacked = "1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1";
    let ep_in_time = "1000 lift d7\n1200 place d5 p\n1500 press b\n2000 lift e5\n2100 lift d5\n2300 place d6 P\n2600 press w";
    let mut cases = vec![
        // 2023 3.8.2.2.1 (2009 §3.8b(2)c "feltet som kongen står på"):
        // out of check on an occupancy board, 7.5.1 and two minutes.
        case(
            "16-1o 2023 7.5.1 castling out of check, occupancy",
            "fide-2023",
            hdr("5400+30", json!({"start_fen": OUT_OF})),
            oo_occ,
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.5.1",
                "illegal_move.penalty=+2 min to black",
            ],
            &["move.san=O-O", "irregularity.kind=displaced", "game_end"],
        ),
        // B3c "Modstanderen har ret til at kræve gevinst før han har
        // udført sit eget træk": Black (a rook) wins.
        case(
            "16-1p B3c castling out of check claimed",
            "fide-2009",
            game(OUT_OF, "blitz", "180+2", "inadequate"),
            format!("{OO}2500 claim illegal_move b"),
            &[
                "claim.upheld=true",
                "game_end.result=0-1",
                "game_end.article=B3c",
            ],
            &["irregularity.kind=displaced"],
        ),
        case(
            "16-1q C3 castling out of check claimed",
            "fide-2001",
            game(OUT_OF, "blitz", "180", "inadequate"),
            format!("{OO}2500 claim illegal_move b"),
            &[
                "claim.upheld=true",
                "game_end.result=0-1",
                "game_end.article=C3",
            ],
            &["irregularity.kind=displaced"],
        ),
        // §3.8b(2)c "som den skal passere": d1 (2009-NO §3.8b(2) the same).
        case(
            "16-1r 2009-NO 7.4a long castling through check",
            "fide-2009-no",
            game(d1_attacked, "standard", "5400+30", "adequate"),
            ooo,
            &[
                "illegal_move.by=w",
                "illegal_move.article=7.4a",
                "illegal_move.penalty=+2 min to black",
            ],
            &["move.san=O-O-O", "game_end"],
        ),
        // A4 "Når overvågningen … er utilstrækkelig" (2023 A.5.2, A.3):
        // the final period of `1/600:600` in unsupervised rapid: Black's
        // 599 s + 600 s + one minute.
        case(
            "16-1s 2023 A.5.2 an illegal move in the final period of rapid",
            "fide-2023",
            hdr(
                "1/600:600",
                json!({"mode": "rapid", "supervision": "inadequate", "sensing": "identity",
                       "board_observes_illegal_moves": true}),
            ),
            format!("{E4E5}3000 lift g1\n3200 place g3 N\n3500 press w"),
            &[
                "illegal_move.by=w",
                "illegal_move.penalty=+1 min to black",
                "clock.black_ms=1259000",
            ],
            &["move.ply=3", "game_end"],
        ),
    ];
    for rules in ["fide-2023", "fide-2009"] {
        // §3.8b(2)c names only the king's squares: the rook passing the
        // attacked b1 is a legal O-O-O.
        cases.push(case(
            "16-1t long castling past an attacked b1 is legal",
            rules,
            game(b1_attacked, "standard", "5400+30", "adequate"),
            ooo,
            &["move.san=O-O-O"],
            &["illegal_move", "irregularity.kind=displaced"],
        ));
    }
    for rules in ["fide-2023", "fide-2001"] {
        // §3.7d "i trækket umiddelbart efter" (2023 3.7.3.1): in time.
        cases.push(case(
            "16-1u en passant right after the double step is legal",
            rules,
            game(LATE_EP_FEN, "standard", "5400+30", "adequate"),
            ep_in_time,
            &["move.san=exd6"],
            &["illegal_move", "irregularity.kind=displaced"],
        ));
    }
    run(cases);
}
