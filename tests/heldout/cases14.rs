//! Held-out Laws cases, session 14 (issue 25, "Judged by"): a third set,
//! written from the texts only (seeds 000 = 2001-DK, 002 = 2009-DK, 003 =
//! 2009-NO; `../shared/rules/fide-2023.md` for 2023) by someone who did
//! not build the arbiter, on situations sessions 12 and 13 did not try.
//! Each case names the text that decides it and asserts the article of
//! every decision; where a text is open, the reading taken is in
//! docs/dev/profiles-notes.md ("Held-out cases, session 14"). Run through the real
//! binary by `tests/common/heldout.rs`, in parallel.
//!
//! Point 1 (unsupervised play) is here; point 2 (a board turned, the
//! `position` ruling) in `boards.rs`; points 3 and 4 (pauses, flags) in
//! `clocks.rs`; point 5 (2023 rows) in `rows.rs`; point 6 (Appendix E) in
//! `vi.rs`.

#[path = "cases14/boards.rs"]
mod boards;
#[path = "cases14/clocks.rs"]
mod clocks;
#[path = "cases14/rows.rs"]
mod rows;
#[path = "cases14/vi.rs"]
mod vi;

use crate::common::heldout::{case, game, run};

/// White's bishop e2 pinned by the rook e7 (Black can mate: a rook).
const PINNED: &str = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";
const BD3: &str = "1000 lift e2\n1200 place d3 B\n1500 press w\n";
/// A rook each: either side can mate.
const ROOKS: &str = "r3k3/8/8/8/8/8/8/R3K3 w - - 0 1";
/// White's Ra1-b2 (diagonal, §3.3), Black answers Ra8-b7 (diagonal).
const TWO_ILLEGAL: &str = "1000 lift a1\n1200 place b2 R\n1500 press w\n\
                           2000 lift a8\n2200 place b7 r\n2500 press b\n";
/// White may castle short (FEN `K`); his king goes to f1 and back first.
const KR: &str = "r3k3/8/8/8/8/8/8/4K2R w K - 0 1";
const KING_BACK_OO: &str = "1000 lift e1\n1200 place f1 K\n1500 press w\n\
                            2000 lift e8\n2200 place d8 k\n2500 press b\n\
                            3000 lift f1\n3200 place e1 K\n3500 press w\n\
                            4000 lift d8\n4200 place e8 k\n4500 press b\n\
                            5000 lift e1\n5200 place g1 K\n5400 lift h1\n5600 place f1 R\n6000 press w\n";
/// White's king g1 in check from the bishop d4; Rd8 "mates" Black (Ka8,
/// pawns a7 b7) and leaves White's own king in check: both kings in check.
const BOTH_CHECK: &str = "k7/pp6/8/8/3b4/8/8/3R2K1 w - - 0 1";
const RD8: &str = "1000 lift d1\n1300 place d8 R\n1600 press w\n";
/// A pawn on b7, Black with a rook.
const PROMO: &str = "4k3/1P6/8/8/8/r7/8/4K3 w - - 0 1";
/// The pawn pushed to b8 and left a pawn (no piece put in its place).
const B8_PAWN: &str = "1000 lift b7\n1300 place b8 P\n1600 press w\n";

/// Point 1: unsupervised play, claims at other moments than sessions 12
/// and 13, an illegal move answered by another, an illegal castling after
/// the king went and came back, an illegal "mate", a pawn not promoted.
#[test]
fn s14_point_1_unsupervised_play() {
    let blitz = |fen| game(fen, "blitz", "180+2", "inadequate");
    let rapid = |fen| game(fen, "rapid", "1500+10", "inadequate");
    let std = |fen| game(fen, "standard", "5400+30", "adequate");
    let quiet = ["illegal_move", "game_end"];
    run(vec![
        // 2009-NO B3c "Motstanderen har rett til å kreve gevinst før han
        // har utført sitt eget trekk": holding his king (touched, nothing
        // made, 2009 §4.6) Black is in time; he has a rook, so he wins.
        case(
            "14-1a B3c claim while holding a piece",
            "fide-2009-no",
            blitz(PINNED),
            format!("{BD3}2000 lift e8\n2300 claim illegal_move b"),
            &["claim.upheld=true", "illegal_move.article=B3c", "game_end.result=0-1", "game_end.article=B3c"],
            &[],
        ),
        // B3c with §4.6 ("Trækket betragtes da som udført … har sluppet
        // brikken"): his Kd8 released 2.8 s before the claim is his own
        // move made: too late, the illegal move stands.
        case(
            "14-1b B3c claim after his own move made, before his press",
            "fide-2009",
            blitz(PINNED),
            format!("{BD3}3000 lift e8\n3200 place d8 k\n6000 claim illegal_move b"),
            &["claim.upheld=false", "claim.article=B3c"],
            &quiet,
        ),
        // B3c: White's illegal Rb2 stands once Black made his own move (his
        // illegal Rb7 is a move of his); White's claim of Rb7, before his
        // own move, wins: he can mate.
        case(
            "14-1c B3c an illegal move answered by an illegal move, claimed",
            "fide-2009",
            blitz(ROOKS),
            format!("{TWO_ILLEGAL}3000 claim illegal_move w"),
            &[
                "claim.upheld=true",
                "illegal_move.by=b",
                "illegal_move.article=B3c",
                "game_end.result=1-0",
                "game_end.article=B3c",
            ],
            &["illegal_move.by=w", "game_end.result=0-1"],
        ),
        // 2009 A4c: the same in rapid: §7.4 for Black's move only, two
        // minutes to White.
        case(
            "14-1d A4c an illegal move answered by an illegal move, claimed",
            "fide-2009-no",
            rapid(ROOKS),
            format!("{TWO_ILLEGAL}3000 claim illegal_move w"),
            &[
                "claim.upheld=true",
                "illegal_move.by=b",
                "illegal_move.article=A4c",
                "illegal_move.penalty=+2 min to white",
                "illegal_move.count=1",
            ],
            &["illegal_move.by=w", "game_end"],
        ),
        // 2001 C3: "Modstanderen har imidlertid ret til at kræve gevinst,
        // før han selv trækker"; "Har modstanderen udført et træk, kan et
        // ulovligt træk ikke rettes" (White's own).
        case(
            "14-1e C3 an illegal move answered by an illegal move, claimed",
            "fide-2001",
            game(ROOKS, "blitz", "180", "inadequate"),
            format!("{TWO_ILLEGAL}3000 claim illegal_move w"),
            &["claim.upheld=true", "game_end.result=1-0", "game_end.article=C3"],
            &["illegal_move.by=w", "game_end.result=0-1"],
        ),
        // B3c: nobody claims either; White plays on from b2: both stand.
        case(
            "14-1f B3c two illegal moves unclaimed, the game goes on",
            "fide-2009-no",
            blitz(ROOKS),
            format!("{TWO_ILLEGAL}3000 lift b2\n3200 place b1 R\n3500 press w"),
            &["move.ply=3", "move.san=Rb1", "clock.t=3500"],
            &quiet,
        ),
        // 2009 §3.8b(1) "hvis kongen allerede har været flyttet": the king
        // went to f1 and came back, O-O is illegal (§7.4a, +2 min).
        case(
            "14-1g 2009 7.4a castling after the king came back",
            "fide-2009",
            std(KR),
            KING_BACK_OO,
            &["illegal_move.by=w", "illegal_move.article=7.4a", "illegal_move.penalty=+2 min to black"],
            &["move.san=O-O", "game_end"],
        ),
        // 2023 3.8.2.1.1 "the king has already moved" (7.5.1).
        case(
            "14-1h 2023 7.5.1 castling after the king came back",
            "fide-2023",
            std(KR),
            KING_BACK_OO,
            &["illegal_move.by=w", "illegal_move.article=7.5.1", "illegal_move.penalty=+2 min to black"],
            &["move.san=O-O", "game_end"],
        ),
        // B3c claimed before Black's move: Black (a rook) wins.
        case(
            "14-1i B3c castling after the king came back, claimed",
            "fide-2009",
            blitz(KR),
            format!("{KING_BACK_OO}6500 claim illegal_move b"),
            &["claim.upheld=true", "game_end.result=0-1", "game_end.article=B3c"],
            &[],
        ),
        // A4c "Kun efter en sådan påstand": unclaimed, the castling stands,
        // White's king plays on from g1.
        case(
            "14-1j A4c castling after the king came back, unclaimed",
            "fide-2009",
            rapid(KR),
            format!("{KING_BACK_OO}7000 lift e8\n7200 place e7 k\n7500 press b\n8000 lift g1\n8200 place h2 K\n8500 press w"),
            &["move.san=Ke7", "move.san=Kh2"],
            &quiet,
        ),
        // 2001 B2: rapid follows the Laws (§7.4a at the press).
        case(
            "14-1k 2001 B2 castling after the king came back, rapid",
            "fide-2001",
            game(KR, "rapid", "1500", "inadequate"),
            KING_BACK_OO,
            &["illegal_move.article=7.4a", "illegal_move.penalty=+2 min to black"],
            &["move.san=O-O", "game_end"],
        ),
        // 2009 A4c "Dog skal dommeren om muligt gribe ind, dersom begge
        // konger står i skak": Rd8 "mates" with White's own king still in
        // check; ruled unasked (the intervention is A4c's, §7.4's penalty),
        // and §5.1a's mate needs a legal move: no end.
        case(
            "14-1l A4c an illegal mate with both kings in check",
            "fide-2009",
            rapid(BOTH_CHECK),
            RD8,
            &["illegal_move.by=w", "illegal_move.article=A4c", "illegal_move.penalty=+2 min to black"],
            &["game_end"],
        ),
        // B3b "§10.2 og A4c gælder ikke": in blitz nothing unasked; Black's
        // claim before his move wins (B3c).
        case(
            "14-1m B3c an illegal mate with both kings in check, claimed",
            "fide-2009",
            blitz(BOTH_CHECK),
            format!("{RD8}2500 claim illegal_move b"),
            &["claim.upheld=true", "game_end.result=0-1", "game_end.article=B3c"],
            &["illegal_move.t=1600", "game_end.reason=checkmate"],
        ),
        case(
            "14-1n C3 an illegal mate with both kings in check, claimed",
            "fide-2001",
            game(BOTH_CHECK, "blitz", "180", "inadequate"),
            format!("{RD8}2500 claim illegal_move b"),
            &["claim.upheld=true", "game_end.result=0-1", "game_end.article=C3"],
            &["game_end.reason=checkmate"],
        ),
        // 2023 A.5.2 (the board observes: docs) and 5.1.1: +1 min (A.3).
        case(
            "14-1o 2023 A.5.2 an illegal mate with both kings in check",
            "fide-2023",
            rapid(BOTH_CHECK),
            RD8,
            &["illegal_move.article=7.5.1", "illegal_move.penalty=+1 min to black"],
            &["game_end"],
        ),
        case(
            "14-1p 2009-NO 7.4a an illegal mate, standard",
            "fide-2009-no",
            std(BOTH_CHECK),
            RD8,
            &["illegal_move.article=7.4a", "illegal_move.penalty=+2 min to black"],
            &["game_end"],
        ),
        // A4c "eller en bondeforvandling ikke er fuldført": ruled unasked.
        case(
            "14-1q A4c a pawn not promoted, ruled unasked",
            "fide-2009",
            rapid(PROMO),
            B8_PAWN,
            &["illegal_move.by=w", "illegal_move.article=A4c", "illegal_move.penalty=+2 min to black"],
            &["move", "game_end"],
        ),
        // B3b: not in blitz; Black's claim wins (B3c).
        case(
            "14-1r B3c a pawn not promoted, claimed",
            "fide-2009-no",
            blitz(PROMO),
            format!("{B8_PAWN}2500 claim illegal_move b"),
            &["claim.upheld=true", "game_end.result=0-1", "game_end.article=B3c"],
            &["illegal_move.t=1600"],
        ),
        // 2023 7.5.2 "the pawn shall be replaced by a queen" with A.5.2 and
        // A.3: the move stands as b8=Q, one minute to Black.
        case(
            "14-1s 2023 7.5.2 a pawn not promoted in unsupervised rapid",
            "fide-2023",
            rapid(PROMO),
            B8_PAWN,
            &["move.san~b8=Q", "illegal_move.article=7.5.2", "illegal_move.penalty=+1 min to black"],
            &["game_end"],
        ),
    ]);
}
