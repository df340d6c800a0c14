//! Held-out Laws cases, session 13 (issue 25, "Judged by"): a second set,
//! written from the texts only (seeds 000 = 2001-DK, 002 = 2009-DK, 003 =
//! 2009-NO; `../shared/rules/fide-2023.md` for 2023), by someone who did not
//! build the arbiter, on situations session 12's set does not hold. Each
//! case names the text that decides it; where a text is open, the reading
//! taken is in docs/dev/profiles-notes.md ("Held-out cases, session 13"). Run through
//! the real binary by `tests/common/heldout.rs`, in parallel.
//!
//! Point 1 (illegal moves) is here; point 5 (the 2023 rows) in `rows.rs`;
//! points 3 and 4 (pauses, flags) in `clocks.rs`; points 2 and 6 (a board
//! turned, Appendix E copies) in `boards.rs`.

#[path = "cases13/boards.rs"]
mod boards;
#[path = "cases13/clocks.rs"]
mod clocks;
#[path = "cases13/rows.rs"]
mod rows;

use crate::common::heldout::{case, game, hdr, run};
use serde_json::json;

/// White's pawn e5 beside Black's d5 that did not just make a double step
/// (no en passant square): exd6 is illegal (2009 §3.7d "umiddelbart efter
/// at den pågældende bonde er flyttet to felter"). Black has a rook: he can
/// mate (B3c's win, not the draw).
const EP: &str = "r3k3/8/8/3pP3/8/8/8/4K3 w - - 0 1";
const EXD6: &str = "1000 lift e5\n1100 lift d5\n1300 place d6 P\n1600 press w\n";
/// White without castling rights (king or rook moved before): O-O is
/// illegal (2009 §3.8b(1) "hvis kongen allerede har været flyttet").
const NO_RIGHTS: &str = "r3k3/8/8/8/8/8/8/4K2R w - - 0 1";
const OO: &str = "1000 lift e1\n1200 place g1 K\n1400 lift h1\n1600 place f1 R\n2000 press w\n";
/// White's bishop e2 pinned by the rook e7.
const PINNED: &str = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";
/// A pawn on b7 to promote, Black with a rook (he can mate).
const PROMO: &str = "4k3/1P6/8/8/8/r7/8/4K3 w - - 0 1";
/// White's rook against a lone king: Black can never mate.
const LONE: &str = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
/// Rb1-b8 jumps over the pawn b4 to a "mate" (Black's king h8, White's
/// king g6; Black's pawn a7 could still mate one day).
const JUMP_MATE: &str = "7k/p7/6K1/8/1P6/8/8/1R6 w - - 0 1";
const RB8: &str = "1000 lift b1\n1300 place b8\n1600 press w";
/// Rh8 mates; the knight a1 can move (b3, c2).
const TOUCH_MATE: &str = "k7/8/1K6/8/8/8/8/N6R w - - 0 1";
const TOUCHED_THEN_RH8: &str =
    "1000 lift a1\n1200 place a1\n2000 lift h1\n2300 place h8\n2600 press w\n3000 claim touch_move b";
/// Qc7 stalemates; the knight a1 can move.
const TOUCH_STALEMATE: &str = "k7/8/1K6/8/8/8/8/N1Q5 w - - 0 1";
const TOUCHED_THEN_QC7: &str =
    "1000 lift a1\n1200 place a1\n2000 lift c1\n2300 place c7\n2600 press w\n3000 claim touch_move b";
/// Rooks each: Black can mate.
const ROOKS: &str = "r3k3/8/8/8/8/8/8/R3K3 w - - 0 1";
/// Three presses of a rook moved diagonally, each put back.
const THREE: &str = "1000 lift a1\n1200 place b2\n1500 press w\n2000 lift b2\n2200 place a1\n\
                     3000 lift a1\n3200 place b2\n3500 press w\n4000 lift b2\n4200 place a1\n\
                     5000 lift a1\n5200 place b2\n5500 press w\n";
const E4: &str = "1000 lift e2\n1200 place e4\n1500 press w\n";

/// Point 1: illegal moves of other kinds than session 12's, under each
/// mode and supervision, the claim at each moment.
#[test]
fn s13_point_1_illegal_moves_each_mode_and_moment() {
    let blitz = |fen| game(fen, "blitz", "180+2", "inadequate");
    let rapid = |fen| game(fen, "rapid", "1500+10", "inadequate");
    run(vec![
        // 2009 B3c: "Så snart modstanderen har udført sit eget træk, kan et
        // ulovligt træk ikke rettes": the en passant that was not allowed
        // stands, the game goes on from the board.
        case(
            "13-1a B3c illegal en passant unclaimed stands",
            "fide-2009",
            blitz(EP),
            format!("{EXD6}3000 lift e8\n3200 place f7 k\n3500 press b\n5000 lift e1\n5200 place e2 K\n5500 press w"),
            // The clocks ran as pressed: White 182 − 1.6 + 2 s, Black
            // 182 − 1.9 + 2 s, White again 182.4 − 2 + 2 s.
            &["move.san=Kf7", "move.san=Ke2", "clock.black_ms=182100", "clock.white_ms=182400"],
            &["illegal_move", "game_end"],
        ),
        // 2009-NO B3c: "Motstanderen har rett til å kreve gevinst" before
        // his own move.
        case(
            "13-1b B3c illegal en passant claimed in time",
            "fide-2009-no",
            blitz(EP),
            format!("{EXD6}2500 claim illegal_move b"),
            &["claim.upheld=true", "illegal_move.article=B3c", "game_end.result=0-1"],
            &[],
        ),
        // B3c: the right is the opponent's ("Modstanderen har ret til at
        // kræve gevinst"); the offender's own claim is nothing.
        case(
            "13-1c B3c the offender's own claim",
            "fide-2009",
            blitz(EP),
            format!("{EXD6}2500 claim illegal_move w"),
            &["claim.upheld=false"],
            &["illegal_move", "game_end"],
        ),
        // B3c: "Et ulovligt træk er fuldført når modstanderens ur er sat i
        // gang": before White's press there is nothing to claim; after it,
        // the claim wins.
        case(
            "13-1d B3c a claim before the press, then after it",
            "fide-2009",
            blitz(EP),
            "1000 lift e5\n1100 lift d5\n1300 place d6 P\n1500 claim illegal_move b\n2000 press w\n2500 claim illegal_move b",
            &["claim.upheld=false", "claim.upheld=true", "game_end.result=0-1"],
            &[],
        ),
        // 2001 C3: "Har modstanderen udført et træk, kan et ulovligt træk
        // ikke rettes."
        case(
            "13-1e C3 claim after the reply",
            "fide-2001",
            game(EP, "blitz", "180", "inadequate"),
            format!("{EXD6}3000 lift e8\n3200 place f7 k\n3500 press b\n4000 claim illegal_move b"),
            &["claim.upheld=false", "move.san=Kf7"],
            &["illegal_move", "game_end"],
        ),
        // 2001 C3: "Modstanderen har imidlertid ret til at kræve gevinst,
        // før han selv trækker" (castling without the right, §3.8).
        case(
            "13-1f C3 castling without the right claimed",
            "fide-2001",
            game(NO_RIGHTS, "blitz", "180", "inadequate"),
            format!("{OO}2500 claim illegal_move b"),
            &["game_end.result=0-1", "game_end.article=C3"],
            &[],
        ),
        // 2009 A4c: "Kun efter en sådan påstand skal dommeren træffe en
        // afgørelse": unclaimed, the castling stands; White's king plays on
        // from g1.
        case(
            "13-1g A4c castling without the right unclaimed",
            "fide-2009",
            rapid(NO_RIGHTS),
            format!("{OO}4000 lift e8\n4200 place d7 k\n4500 press b\n6000 lift g1\n6200 place h2 K\n6500 press w"),
            &["move.san=Kd7", "move.san=Kh2"],
            &["illegal_move", "game_end"],
        ),
        // A4c with §7.4b: claimed in time, two minutes to the claimant.
        case(
            "13-1h A4c castling without the right claimed",
            "fide-2009-no",
            rapid(NO_RIGHTS),
            format!("{OO}2500 claim illegal_move b"),
            &["claim.upheld=true", "illegal_move.article=A4c", "illegal_move.penalty=+2 min to black"],
            &["game_end"],
        ),
        // 2001 B2: "Reglerne skal følge FIDEs regler for skakspillet" (no
        // claim rule in 2001 rapid): §7.4a/b at the press.
        case(
            "13-1i 2001 B2 rapid ruled at the press",
            "fide-2001",
            rapid(NO_RIGHTS),
            OO,
            &["illegal_move.article=7.4a", "illegal_move.penalty=+2 min to black"],
            &["move.san=O-O", "game_end"],
        ),
        // 2023 A.4: "the Competitive Rules of Play shall apply", A.3: one
        // minute instead of two.
        case(
            "13-1j 2023 A.4 supervised rapid",
            "fide-2023",
            game(NO_RIGHTS, "rapid", "1500+10", "adequate"),
            OO,
            &["illegal_move.article=7.5.1", "illegal_move.penalty=+1 min to black"],
            &["move.san=O-O"],
        ),
        // 2009 B2: "gælder Turneringsreglerne og A2": §7.4 at the press.
        case(
            "13-1k 2009 B2 supervised blitz",
            "fide-2009",
            game(NO_RIGHTS, "blitz", "180+2", "adequate"),
            OO,
            &["illegal_move.article=7.4a", "illegal_move.penalty=+2 min to black"],
            &["move.san=O-O", "game_end"],
        ),
        // 2009-NO A4c: the pinned piece moved and not claimed: the move
        // stands, White then steps out of the check.
        case(
            "13-1l A4c pinned piece unclaimed",
            "fide-2009-no",
            rapid(PINNED),
            "1000 lift e2\n1200 place d3 B\n1500 press w\n3000 lift e8\n3200 place d8 k\n3500 press b\n\
             5000 lift e1\n5200 place f1 K\n5500 press w",
            &["move.uci=e8d8", "move.san=Kf1"],
            &["illegal_move", "game_end"],
        ),
        // §3.7e "erstattes … af en ny dronning, tårn, løber eller springer
        // af samme farve": a king is none of them (§7.4a, +2 min).
        case(
            "13-1m 2009 promotion to a king",
            "fide-2009",
            hdr("5400+30", json!({"start_fen": PROMO, "sensing": "identity"})),
            "1000 lift b7\n1300 place b8 K\n1600 press w",
            &["illegal_move.article=7.4a", "illegal_move.penalty=+2 min to black"],
            &["move"],
        ),
        // 2023 3.7.3.1 "a new queen, rook, bishop or knight of the same
        // colour": a king is an illegal move (7.5.1), not 7.5.2's pawn
        // left unreplaced that becomes a queen.
        case(
            "13-1n 2023 promotion to a king",
            "fide-2023",
            hdr("5400+30", json!({"start_fen": PROMO, "sensing": "identity"})),
            "1000 lift b7\n1300 place b8 K\n1600 press w",
            &["illegal_move.article=7.5.1", "illegal_move.penalty=+2 min to black"],
            &["move"],
        ),
        // §3.7e "af samme farve": a black queen for White's pawn.
        case(
            "13-1o 2009-NO promotion to the opponent's colour",
            "fide-2009-no",
            hdr("5400+30", json!({"start_fen": PROMO, "sensing": "identity"})),
            "1000 lift b7\n1300 place b8 q\n1600 press w",
            &["illegal_move.article=7.4a"],
            &["move"],
        ),
        // 2001 C3: promotion to a king claimed before the reply: Black has
        // a rook, so he wins.
        case(
            "13-1p C3 promotion to a king claimed",
            "fide-2001",
            game(PROMO, "blitz", "180", "inadequate"),
            "1000 lift b7\n1300 place b8 K\n1600 press w\n2500 claim illegal_move b",
            &["game_end.result=0-1"],
            &[],
        ),
        // §3.7e: the player's choice, given off the board (the clock's
        // button): a knight.
        case(
            "13-1q 2009 promotion chosen off the board",
            "fide-2009",
            hdr("5400+30", json!({"start_fen": PROMO})),
            "1000 lift b7\n1300 place b8\n1400 promote n\n1600 press w",
            &["move.san=b8=N"],
            &["illegal_move", "promotion_assumed"],
        ),
        // §1.1 "Spillerne skal skiftevis flytte én brik"; a move of the
        // opponent's pawn by White is no move of his: §7.4a, +2 min.
        // (A colour-sensing board: on an occupancy board a first move from
        // the seventh rank is a board turned 180°, 2.1.)
        case(
            "13-1r 2009 a move of the opponent's piece",
            "fide-2009",
            hdr("5400+30", json!({"sensing": "colour"})),
            "1000 lift e7\n1200 place e5 b\n1500 press w",
            &["illegal_move.by=w", "illegal_move.article=7.4a", "illegal_move.penalty=+2 min to black"],
            &["move"],
        ),
        case(
            "13-1s 2023 a move of the opponent's piece at ply 2",
            "fide-2023",
            hdr("5400+30", json!({})),
            "1000 mv e2e4 w\n2000 mv e7e5 b\n3000 lift d7\n3200 place d6\n3500 press w",
            &["illegal_move.by=w", "illegal_move.article=7.5.1", "illegal_move.penalty=+2 min to black"],
            &["move.ply=3"],
        ),
        // 2009 §7.4b: the third illegal move loses, "Partiet er dog remis
        // hvis … modstanderen ikke ville kunne sætte spilleren mat".
        case(
            "13-1t 2009 7.4b third illegal move against a lone king",
            "fide-2009",
            hdr("5400+30", json!({"start_fen": LONE})),
            THREE,
            &["illegal_move.count=3", "game_end.result=1/2-1/2"],
            &["game_end.result=0-1"],
        ),
        case(
            "13-1u 2009-NO 7.4b third illegal move against a lone king",
            "fide-2009-no",
            hdr("5400+30", json!({"start_fen": LONE})),
            THREE,
            &["game_end.result=1/2-1/2"],
            &["game_end.result=0-1"],
        ),
        // 2001 §7.4b: "skal turneringslederen erklære partiet tabt for ham"
        // (no draw clause in 2001).
        case(
            "13-1v 2001 7.4b third illegal move against a lone king",
            "fide-2001",
            hdr("5400+30", json!({"start_fen": LONE})),
            THREE,
            &["game_end.result=0-1"],
            &["game_end.result=1/2-1/2"],
        ),
        // 2023 7.5.5: the second loses, "however, the game is drawn if …
        // the opponent cannot checkmate".
        case(
            "13-1w 2023 7.5.5 second illegal move against a lone king",
            "fide-2023",
            hdr("5400+30", json!({"start_fen": LONE})),
            THREE,
            &["illegal_move.count=2", "game_end.result=1/2-1/2"],
            &["game_end.result=0-1", "illegal_move.count=3"],
        ),
        // 2023 A.4 + 7.5.3 + A.3: a press without a move in supervised
        // rapid, one minute.
        case(
            "13-1x 2023 7.5.3 rapid supervised",
            "fide-2023",
            hdr("1500+10", json!({"mode": "rapid", "supervision": "adequate"})),
            format!("{E4}2500 press b"),
            &["illegal_move.article=7.5.3", "illegal_move.penalty=+1 min to white"],
            &[],
        ),
        // 2023 B.2 + 7.5.3 + 7.5.5: the second press without a move loses
        // (whatever B.2's minutes are, U4).
        case(
            "13-1y 2023 7.5.3 twice in supervised blitz",
            "fide-2023",
            hdr("180+2", json!({"mode": "blitz", "supervision": "adequate"})),
            format!("{E4}2500 press b\n3000 press b"),
            &["game_end.result=1-0", "game_end.reason=illegal_moves"],
            &[],
        ),
        // 2009 §7.4b counts the illegal moves ruled "Efter brugen af § 7.4
        // a."; the first stood unclaimed (A4c), so the second, claimed in
        // time, is his first: +2 min, count 1.
        case(
            "13-1za A4c a second illegal move claimed counts one",
            "fide-2009",
            rapid(ROOKS),
            "1000 lift a1\n1200 place b2\n1500 press w\n3000 lift e8\n3200 place d8 k\n3500 press b\n\
             5000 lift b2\n5200 place c3 R\n5500 press w\n6000 claim illegal_move b",
            &["claim.upheld=true", "illegal_move.count=1", "illegal_move.penalty=+2 min to black"],
            &["illegal_move.count=2", "game_end"],
        ),
        // B3c: three illegal moves, none claimed: each stands once Black
        // replied; nothing ruled, no loss (§7.4b counts only rulings).
        case(
            "13-1zb B3c three illegal moves unclaimed",
            "fide-2009-no",
            blitz(ROOKS),
            "1000 lift a1\n1200 place b2\n1500 press w\n3000 lift e8\n3200 place d8 k\n3500 press b\n\
             5000 lift b2\n5200 place c3 R\n5500 press w\n7000 lift d8\n7200 place e8 k\n7500 press b\n\
             9000 lift c3\n9200 place d4 R\n9500 press w\n11000 lift e8\n11200 place f7 k\n11500 press b",
            &["move.ply=6"],
            &["illegal_move", "game_end"],
        ),
        // A4c: "Dog skal dommeren om muligt gribe ind, dersom begge konger
        // står i skak": Bb5+ leaves White's own king in check too.
        case(
            "13-1zc A4c both kings in check ruled unasked",
            "fide-2009",
            rapid(PINNED),
            "1000 lift e2\n1200 place b5 B\n1500 press w",
            &["illegal_move.by=w", "illegal_move.penalty=+2 min to black"],
            &["move.san=Bb5+"],
        ),
        // B3b: "§10.2 og A4c gælder ikke": in blitz nothing unasked.
        case(
            "13-1zd B3b both kings in check not ruled unasked",
            "fide-2009",
            blitz(PINNED),
            "1000 lift e2\n1200 place b5 B\n1500 press w",
            &["clock.t=1500"],
            &["illegal_move", "game_end"],
        ),
        // 2009 §5.1a "Dette afslutter straks partiet, forudsat at det træk
        // der satte mat var et lovligt træk" (2001 §5.1a the same; 2023
        // 5.1.1 "in accordance with Article 3 and Articles 4.2 – 4.7"): the
        // rook that jumps over its pawn to "mate" ends nothing; §7.4a.
        case(
            "13-1ze 2009 5.1a an illegal move that mates",
            "fide-2009",
            hdr("5400+30", json!({"start_fen": JUMP_MATE})),
            RB8,
            &["illegal_move.article=7.4a", "illegal_move.penalty=+2 min to black"],
            &["game_end"],
        ),
        case(
            "13-1zf 2001 5.1a an illegal move that mates",
            "fide-2001",
            hdr("5400+30", json!({"start_fen": JUMP_MATE})),
            RB8,
            &["illegal_move.article=7.4a"],
            &["game_end"],
        ),
        case(
            "13-1zg 2023 5.1.1 an illegal move that mates",
            "fide-2023",
            hdr("5400+30", json!({"start_fen": JUMP_MATE})),
            RB8,
            &["illegal_move.article=7.5.1", "illegal_move.penalty=+2 min to black"],
            &["game_end"],
        ),
        // B3c: the "mate" ended nothing, so Black may claim. (Win or draw
        // is open: from the position on the board Black has no legal move
        // at all, from the one before it his pawn could mate; docs.)
        case(
            "13-1zh B3c an illegal move that mates, claimed",
            "fide-2009",
            game(JUMP_MATE, "blitz", "180+2", "inadequate"),
            format!("{RB8}\n2500 claim illegal_move b"),
            &["claim.upheld=true", "game_end.reason=illegal_moves"],
            &["game_end.reason=checkmate"],
        ),
        // 2023 5.1.1: a mate that breaks 4.3 (the knight a1 touched, the
        // rook moved) does not end the game; Black's claim (4.8) is in
        // time.
        case(
            "13-1zi 2023 5.1.1 a mate that breaks touch-move",
            "fide-2023",
            hdr("5400+30", json!({"start_fen": TOUCH_MATE})),
            TOUCHED_THEN_RH8,
            &["touch_move.touched=a1", "claim.upheld=true"],
            &["game_end.reason=checkmate"],
        ),
        // 2009 §5.1a asks only a legal move (§3.10 "når alle de relevante
        // krav i §3 er opfyldt"): the mate ends the game at once.
        case(
            "13-1zj 2009 5.1a a mate that breaks touch-move ends the game",
            "fide-2009",
            hdr("5400+30", json!({"start_fen": TOUCH_MATE})),
            TOUCHED_THEN_RH8,
            &["game_end.reason=checkmate", "game_end.result=1-0"],
            &["claim.upheld=true"],
        ),
        case(
            "13-1zk 2001 5.1a a mate that breaks touch-move ends the game",
            "fide-2001",
            hdr("5400+30", json!({"start_fen": TOUCH_MATE})),
            TOUCHED_THEN_RH8,
            &["game_end.reason=checkmate", "game_end.result=1-0"],
            &["claim.upheld=true"],
        ),
        // 2023 5.2.1 (the same proviso as 5.1.1): the stalemate by the
        // queen after the knight was touched does not end the game; 2009
        // §5.2a "forudsat at det træk der frembragte patstillingen var et
        // lovligt træk" does.
        case(
            "13-1zl 2023 5.2.1 a stalemate that breaks touch-move",
            "fide-2023",
            hdr("5400+30", json!({"start_fen": TOUCH_STALEMATE})),
            TOUCHED_THEN_QC7,
            &["touch_move.touched=a1", "claim.upheld=true"],
            &["game_end.reason=stalemate"],
        ),
        case(
            "13-1zm 2009 5.2a a stalemate that breaks touch-move ends the game",
            "fide-2009",
            hdr("5400+30", json!({"start_fen": TOUCH_STALEMATE})),
            TOUCHED_THEN_QC7,
            &["game_end.reason=stalemate", "game_end.result=1/2-1/2"],
            &["claim.upheld=true"],
        ),
        // The same mate left unpressed for 5 s: 2009 §6.7a counts a move
        // that ends the game as completed when made ("med mindre trækket
        // afslutter partiet"); in 2023 this one ends nothing (5.1.1), so
        // it waits for White's press, and Black's claim after it is in time.
        case(
            "13-1zn 2023 5.1.1 a touch-move mate pressed late",
            "fide-2023",
            hdr("5400+30", json!({"start_fen": TOUCH_MATE})),
            "1000 lift a1\n1200 place a1\n2000 lift h1\n2300 place h8\n7300 press w\n8000 claim touch_move b",
            &["claim.upheld=true"],
            &["game_end"],
        ),
        case(
            "13-1zo 2009 5.1a a touch-move mate pressed late",
            "fide-2009",
            hdr("5400+30", json!({"start_fen": TOUCH_MATE})),
            "1000 lift a1\n1200 place a1\n2000 lift h1\n2300 place h8\n7300 press w\n8000 claim touch_move b",
            &["game_end.reason=checkmate", "game_end.result=1-0"],
            &["claim.upheld=true", "game_end.t=7300"],
        ),
        // 2009 A4c / §6.7a: a press without a move is no illegal move
        // before 2023.
        case(
            "13-1z 2009 rapid a press without a move",
            "fide-2009",
            hdr("1500+10", json!({"mode": "rapid", "supervision": "inadequate"})),
            format!("{E4}2500 press b"),
            &["irregularity.kind=clock_pressed_without_move"],
            &["illegal_move"],
        ),
    ]);
}
