//! Session 14's held-out cases for point 5: rows of `fide-2023.md` §3
//! that no held-out case tried before (F4, F6, F7, F9, F11, F13, F18, F34,
//! F59), each against the 2009 and 2001 texts where they differ or where
//! the same rule has its own article.

use crate::common::heldout::{case, hdr, run};
use serde_json::json;

/// A pawn on b7 to promote; Black has a rook.
const PROMO: &str = "4k3/1P6/8/8/8/r7/8/4K3 w - - 0 1";
/// White may castle short.
const KR: &str = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
/// White's king takes Black's last piece: king against king.
const LAST_PIECE: &str = "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1";
/// The knight g1 touched and put back, then 1. e4 pressed.
const KNIGHT_THEN_E4: &str =
    "1000 lift g1\n1200 place g1\n2000 lift e2\n2200 place e4\n2500 press w\n";

#[test]
fn s14_point_5_rows_not_tried_before() {
    let std = || hdr("5400+30", json!({}));
    let fen = |f: &str| hdr("5400+30", json!({"start_fen": f}));
    let ident = |f: &str| hdr("5400+30", json!({"start_fen": f, "sensing": "identity"}));
    // §4.4d / 4.4.4: a queen put on b8, then a knight in its place.
    let queen_then_knight =
        "1000 lift b7\n1200 place b8 Q\n1500 lift b8\n1700 place b8 N\n2000 press w";
    // §4.4a / 4.4.1: king then rook touched, then a rook move.
    let king_rook_then_rh3 =
        "1000 lift e1\n1200 place e1\n1500 lift h1\n1700 place h1\n2000 lift h1\n2200 place h3\n2500 press w";
    // §4.4b / 4.4.2: rook then king touched, then castling.
    let rook_king_then_oo = "1000 lift h1\n1200 place h1\n1500 lift e1\n1700 place e1\n\
                             2000 lift e1\n2200 place g1\n2400 lift h1\n2600 place f1\n3000 press w";
    // §4.6b / 4.7.2: the king released on g1 (standing 3.3 s: the board
    // reads a release from the piece left standing, docs), then to f1.
    let released_g1 = "1000 lift e1\n1200 place g1\n4500 lift g1\n4700 place f1\n5000 press w";
    let kxd2 = "1000 lift d2\n1100 lift e1\n1300 place d2\n1600 press w";
    let mut cases = vec![
        // F9: 2009 §4.4d "er valget af den nye brik endeligt, når den nye
        // brik har berørt forvandlingsfeltet"; 2023 4.4.4 the same.
        case(
            "14-5a 2009 4.4d the promotion piece is final",
            "fide-2009",
            ident(PROMO),
            queen_then_knight,
            &["touch_move.article=4.4d"],
            &[],
        ),
        case(
            "14-5b 2023 4.4.4 the promotion piece is final",
            "fide-2023",
            ident(PROMO),
            queen_then_knight,
            &["touch_move.article=4.4.4"],
            &[],
        ),
        // 2001 §4.4 has no such sentence (a–c only); §4.7's release binds
        // the square, not the piece: b8=N is his move.
        case(
            "14-5c 2001 no 4.4d: the knight stands",
            "fide-2001",
            ident(PROMO),
            queen_then_knight,
            &["move.san=b8=N"],
            &["touch_move", "illegal_move"],
        ),
        // F6: "med vilje rører sin konge og et tårn, skal han rokere til
        // den side hvis det er lovligt" (2001 and 2009 §4.4a, 2023 4.4.1).
        case(
            "14-5d 2023 4.4.1 king and rook touched, a rook move",
            "fide-2023",
            fen(KR),
            king_rook_then_rh3,
            &["touch_move.article=4.4.1", "touch_move.touched=e1"],
            &[],
        ),
        case(
            "14-5e 2009-NO 4.4a king and rook touched, a rook move",
            "fide-2009-no",
            fen(KR),
            king_rook_then_rh3,
            &["touch_move.article=4.4a"],
            &[],
        ),
        case(
            "14-5f 2001 4.4a king and rook touched, a rook move",
            "fide-2001",
            fen(KR),
            king_rook_then_rh3,
            &["touch_move.article=4.4a"],
            &[],
        ),
        // F7: "rører et tårn og derefter sin konge, må han ikke rokere til
        // den side i dette træk" (§4.4b; 2023 4.4.2).
        case(
            "14-5g 2023 4.4.2 rook then king, then castling",
            "fide-2023",
            fen(KR),
            rook_king_then_oo,
            &["touch_move.article=4.4.2", "touch_move.played=e1g1"],
            &[],
        ),
        case(
            "14-5h 2009 4.4b rook then king, then castling",
            "fide-2009",
            fen(KR),
            rook_king_then_oo,
            &["touch_move.article=4.4b"],
            &[],
        ),
        // F11: 2009 §4.6b "Når spilleren har sluppet kongen … har spilleren
        // ikke længere ret til at udføre et andet træk end rokade"; 2023
        // 4.7.2 "only castling on that side is allowed".
        case(
            "14-5i 2009 4.6b the king released on g1 goes to f1",
            "fide-2009",
            fen(KR),
            released_g1,
            &["touch_move.article~4.6", "touch_move.played=e1f1"],
            &[],
        ),
        case(
            "14-5j 2023 4.7.2 the king released on g1 goes to f1",
            "fide-2023",
            fen(KR),
            released_g1,
            &["touch_move.article~4.7", "touch_move.played=e1f1"],
            &[],
        ),
    ];
    // F13: a claim of the knight touched, before and after the claimant
    // touched a piece of his own: 2023 4.8, 2009 §4.7, 2001 §4.6.
    for (rules, lost, breach) in [
        ("fide-2023", "claim.article=4.8", "touch_move.article=4.3.1"),
        ("fide-2009", "claim.article=4.7", "touch_move.article=4.3a"),
        ("fide-2001", "claim.article=4.6", "touch_move.article=4.3a"),
    ] {
        cases.push(case(
            "14-5k the touch-move claim lost once the claimant touched a piece",
            rules,
            std(),
            format!("{KNIGHT_THEN_E4}3000 lift e7\n3300 claim touch_move b"),
            &["claim.upheld=false", lost, breach],
            &["claim.upheld=true"],
        ));
        cases.push(case(
            "14-5l the touch-move claim before touching is upheld",
            rules,
            std(),
            format!("{KNIGHT_THEN_E4}3000 claim touch_move b"),
            &["claim.upheld=true", breach],
            &[],
        ));
    }
    // F18: 2023 5.2.2 "dead position … immediately ends the game"; 2009
    // and 2001 §5.2b the same under its own number.
    for (rules, art) in [
        ("fide-2023", "game_end.article=5.2.2"),
        ("fide-2009", "game_end.article=5.2b"),
        ("fide-2001", "game_end.article=5.2b"),
    ] {
        cases.push(case(
            "14-5m the last piece taken: a dead position",
            rules,
            fen(LAST_PIECE),
            kxd2,
            &[
                "game_end.reason=dead_position",
                "game_end.result=1/2-1/2",
                art,
            ],
            &[],
        ));
    }
    cases.extend([
        // F34: 2023 7.5.2 "the pawn shall be replaced by a queen": the move
        // stands as b8=Q+, two minutes to Black (7.5.5).
        case(
            "14-5n 2023 7.5.2 a pawn not promoted becomes a queen",
            "fide-2023",
            ident(PROMO),
            "1000 lift b7\n1300 place b8 P\n1600 press w",
            &[
                "move.san~b8=Q",
                "illegal_move.article=7.5.2",
                "illegal_move.penalty=+2 min to black",
            ],
            &["game_end"],
        ),
        // 2009 §7.4a "eller at kravene til en korrekt bondeforvandling ikke
        // er overholdt, skal stillingen umiddelbart før … genskabes".
        case(
            "14-5o 2009-NO 7.4a a pawn not promoted is taken back",
            "fide-2009-no",
            ident(PROMO),
            "1000 lift b7\n1300 place b8 P\n1600 press w",
            &[
                "illegal_move.article=7.4a",
                "illegal_move.penalty=+2 min to black",
            ],
            &["move"],
        ),
        // F59: A.3 "one minute instead of two" in every rapid game, also
        // under A.4 (adequate supervision): a wrong claim costs 1 min.
        case(
            "14-5p 2023 A.3 a wrong claim in supervised rapid",
            "fide-2023",
            hdr(
                "1500+10",
                json!({"mode": "rapid", "supervision": "adequate"}),
            ),
            "1000 claim threefold w",
            &[
                "claim.upheld=false",
                "claim.article=9.5.3",
                "clock.black_ms=1570000",
            ],
            &[],
        ),
        // F4: 2023 6.2.5 "Only the player whose clock is running is
        // allowed to adjust pieces": White's e4 made and not pressed, his
        // clock runs; Black's j'adoube is not allowed.
        case(
            "14-5q 2023 6.2.5 the opponent adjusts before the press",
            "fide-2023",
            std(),
            "1000 lift e2\n1200 place e4\n1400 adjust b\n1500 lift d7\n1600 place d7\n2000 press w",
            &[
                "irregularity.kind=adjust_by_player_not_on_move",
                "irregularity.article=6.2.5",
                "move.san=e4",
            ],
            &["touch_move", "illegal_move"],
        ),
        // 2009 §4.2 "må spilleren i trækket rette": White, after his press,
        // is not on move.
        case(
            "14-5r 2009 4.2 the player not on move adjusts",
            "fide-2009",
            std(),
            "1000 lift e2\n1200 place e4\n1500 press w\n2000 adjust w\n2100 lift d2\n2300 place d2",
            &[
                "irregularity.kind=adjust_by_player_not_on_move",
                "irregularity.article=4.2",
            ],
            &["touch_move", "illegal_move"],
        ),
    ]);
    run(cases);
}
