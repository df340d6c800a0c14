//! Session 18's held-out cases for points 2 and 4: a 2001 blitz claim, a
//! draw claim and an illegal move claimed after the claimant touched a
//! piece.

use crate::common::heldout::{case, game, hdr, run};
use serde_json::json;

/// White's bishop e2 is pinned by the rook e7: Be2-d3 leaves the king in check.
const PINNED: &str = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";

const BD3: &str = "1000 lift e2\n1200 place d3 B\n1500 press w\n";

/// White touches the knight g1, puts it back and plays e4 (§4.3a breach).
const KNIGHT_THEN_E4: &str =
    "1000 lift g1\n1200 place g1\n2000 lift e2\n2200 place e4\n2500 press w\n";

/// Point 2: 2001 blitz. C3 (seed 000): "Et ulovligt træk er fuldført, når
/// modstanderens ur er sat i gang. Modstanderen har imidlertid ret til at
/// kræve gevinst, før han selv trækker"; C2 "Partiet skal følge reglerne
/// for hurtigskak som beskrevet i tillæg B, undtagen hvor de ændres af
/// nedennævnte regler"; B5b "En spiller mister sin ret til at gøre noget
/// krav gældende i anledning af 7.2, 7.3 eller 7.5 (ulovlige stillinger og
/// træk) når han selv har rørt en brik som anført i 4.3" (7.4, the illegal
/// move, is not among its numbers; C3 sets the illegal move's window
/// itself); §4.6 "En spiller mister sin ret til at fremsætte krav i
/// anledning af modstanderens overtrædelse af 4.3 eller 4.4, når han selv
/// med vilje har rørt en brik"; B5a "Turneringslederen skal kun dømme i
/// henhold til 4 (rørt brik), hvis den ene eller begge spillere beder om
/// det".
#[test]
fn s18_point_2_a_2001_blitz_claim_after_touching_a_piece() {
    let blitz = |fen: &str| game(fen, "blitz", "180", "inadequate");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    run(vec![
        // C3: holding his king, he has not moved.
        case(
            "18-2a C3 the illegal move claimed while holding a piece",
            "fide-2001",
            blitz(PINNED),
            format!("{BD3}2000 lift e8\n2300 claim illegal_move b"),
            &[
                "claim.upheld=true",
                "game_end.result=0-1",
                "game_end.article=C3",
            ],
            &[],
        ),
        // C3: his rook touched and set back on its square: no move.
        case(
            "18-2b C3 the illegal move claimed after a piece touched and set back",
            "fide-2001",
            blitz(PINNED),
            format!("{BD3}2000 lift e7\n2200 place e7 r\n2600 claim illegal_move b"),
            &["claim.upheld=true", "game_end.result=0-1"],
            &[],
        ),
        // C3 "Har modstanderen udført et træk, kan et ulovligt træk ikke
        // rettes": his Kd8 made and released (3 s) before the claim.
        case(
            "18-2c C3 the illegal move claimed after his own move made",
            "fide-2001",
            blitz(PINNED),
            format!("{BD3}2000 lift e8\n2200 place d8 k\n5500 claim illegal_move b"),
            &["claim.upheld=false"],
            &["game_end", "illegal_move"],
        ),
        // §4.6 through B / C: the touch-move claim is lost once he touched.
        case(
            "18-2d 2001 4.6 the touch-move claim in blitz after touching",
            "fide-2001",
            blitz(start),
            format!("{KNIGHT_THEN_E4}3000 lift e7\n3300 claim touch_move b"),
            &["claim.upheld=false", "claim.article=4.6"],
            &["claim.upheld=true"],
        ),
        // B5a: asked for, the arbiter rules §4.
        case(
            "18-2e 2001 B5a the touch-move claim in blitz before touching",
            "fide-2001",
            blitz(start),
            format!("{KNIGHT_THEN_E4}3000 claim touch_move b"),
            &["claim.upheld=true", "touch_move.article=4.3a"],
            &[],
        ),
    ]);
}

/// The moves 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8: the initial position the
/// third time, White to move.
const SHUFFLE: &str = "1000 mv g1f3 w\n2000 mv g8f6 b\n3000 mv f3g1 w\n4000 mv f6g8 b\n\
                       5000 mv g1f3 w\n6000 mv g8f6 b\n7000 mv f3g1 w\n8000 mv f6g8 b\n";

/// Point 2, a second set: the draw claim after a touch. 2001 §9.4 (seed
/// 000) "Hvis en spiller udfører et træk uden at have gjort krav på remis i
/// henhold til 9.2 eller 9.3, har han mistet retten til at kræve remis ved
/// dette træk" (a move made, not a touch); 2009 §9.4 (seed 002) "Hvis en
/// spiller rører en brik som beskrevet i § 4.3 uden at have gjort krav på
/// remis, mister han retten …"; 2023 9.4 the same as 2009. Blitz: 2001 C4
/// and 2009 B3b exclude §10.2 only. And C3 with the claimant holding the
/// offender's own piece (Black lifts White's bishop).
#[test]
fn s18_point_2_draw_claims_after_a_touch_in_blitz() {
    let blitz = |tc: &str| hdr(tc, json!({"mode": "blitz", "supervision": "inadequate"}));
    let touched = format!("{SHUFFLE}9000 lift g1\n9400 claim threefold w");
    run(vec![
        case(
            "18-2f 2001 9.4 the threefold claim while holding the knight",
            "fide-2001",
            blitz("180"),
            touched.clone(),
            &["claim.upheld=true", "game_end.reason=threefold"],
            &[],
        ),
        case(
            "18-2g 2009 9.4 the threefold claim lost by the touch",
            "fide-2009",
            blitz("180+2"),
            touched.clone(),
            &["claim.upheld=false"],
            &["game_end"],
        ),
        case(
            "18-2h 2023 9.4 the threefold claim lost by the touch",
            "fide-2023",
            blitz("180+2"),
            touched,
            &["claim.upheld=false"],
            &["game_end"],
        ),
        case(
            "18-2i 2001 9.2b the threefold claim before the touch",
            "fide-2001",
            blitz("180"),
            format!("{SHUFFLE}9000 claim threefold w"),
            &["claim.upheld=true", "game_end.reason=threefold"],
            &[],
        ),
        case(
            "18-2j C3 the claim while holding the offender's piece",
            "fide-2001",
            game(PINNED, "blitz", "180", "inadequate"),
            format!("{BD3}2000 lift d3\n2400 claim illegal_move b"),
            &[
                "claim.upheld=true",
                "game_end.result=0-1",
                "game_end.article=C3",
            ],
            &[],
        ),
    ]);
}

/// Point 4: the claimant touches a piece (his own, or sets it down without
/// its release) and then claims White's illegal Bd3. 2009 B3c (seed 002):
/// "Modstanderen har ret til at kræve gevinst før han har udført sit eget
/// træk"; 2009-NO B3c (seed 003): "Motstanderen har da rett til å kreve
/// seier før hun/han utfører et trekk"; 2001 C3: "før han selv trækker".
/// No text ends the window at a touch (2009 §4.7 / 2001 §4.6 take away
/// the claims of §4.3 / §4.4 only); "udført" is made (2009 §4.6: a piece
/// released on its square), so his king set down and not yet released
/// leaves him in time.
#[test]
fn s18_point_4_an_illegal_move_claimed_after_the_claimant_touched_a_piece() {
    let blitz = |tc: &str| game(PINNED, "blitz", tc, "inadequate");
    let mut cases = Vec::new();
    for (rules, tc, art) in [
        ("fide-2009", "180+2", "game_end.article=B3c"),
        ("fide-2009-no", "180+2", "game_end.article=B3c"),
        ("fide-2001", "180", "game_end.article=C3"),
    ] {
        cases.push(case(
            "18-4a B3c / C3 claimed while holding his rook",
            rules,
            blitz(tc),
            format!("{BD3}2000 lift e7\n2400 claim illegal_move b"),
            &["claim.upheld=true", "game_end.result=0-1", art],
            &[],
        ));
        cases.push(case(
            "18-4b B3c / C3 claimed with his king set down, not released",
            rules,
            blitz(tc),
            format!("{BD3}2000 lift e8\n2200 place f8 k\n2700 claim illegal_move b"),
            &["claim.upheld=true", "game_end.result=0-1", art],
            &[],
        ));
        cases.push(case(
            "18-4c B3c / C3 claimed after his move made, before his press",
            rules,
            blitz(tc),
            format!("{BD3}2000 lift e8\n2200 place f8 k\n6000 claim illegal_move b"),
            &["claim.upheld=false"],
            &["game_end", "illegal_move"],
        ));
    }
    run(cases);
}

/// Point 4, a second set: the claimant lifts the offender's piece (no
/// move of his made) in 2009-NO and 2009 blitz; and in 2009 rapid
/// without adequate supervision (A4c "før kravstilleren selv udfører sit
/// træk"), holding his king: §7.4, two minutes.
#[test]
fn s18_point_4_more_touches_before_the_claim() {
    run(vec![
        case(
            "18-4d B3c claimed while holding the offender's bishop",
            "fide-2009-no",
            game(PINNED, "blitz", "180+2", "inadequate"),
            format!("{BD3}2000 lift d3\n2400 claim illegal_move b"),
            &[
                "claim.upheld=true",
                "game_end.result=0-1",
                "game_end.article=B3c",
            ],
            &[],
        ),
        case(
            "18-4e A4c claimed with his king set down, not released",
            "fide-2009",
            game(PINNED, "rapid", "1500+10", "inadequate"),
            format!("{BD3}2000 lift e8\n2200 place f8 k\n2700 claim illegal_move b"),
            &[
                "claim.upheld=true",
                "illegal_move.article=A4c",
                "illegal_move.penalty=+2 min to black",
            ],
            &["game_end"],
        ),
    ]);
}
