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

use crate::common::heldout::{case, game, hdr, run, Case, E4E5};
use crate::common::trace::DRIFT;
use serde_json::{json, Value};

/// Point 1: 2023 Guidelines III.2.2 "The Guidelines below … shall only
/// apply to standard chess and rapid chess games without increment and not
/// to blitz games"; the Glossary (`fide-2023.md` §2.5, U3): "increment: an
/// amount of time (from 2 to 60 seconds) added from the start before each
/// move … in either delay or cumulative mode". So a final period with a US
/// delay (`900d5`) or a Bronstein delay (`900b5`) is a game *with*
/// increment: III.4 ("he/she may request that an increment extra five
/// seconds be introduced for both players") and III.5 (the claim) do not
/// apply. 2009 §10.2 (seed 002) "Hvis spilleren som er i trækket har mindre
/// end to minutter tilbage på sit ur, kan han kræve remis før hans vinge
/// falder" has no such condition: the claim is referred, and the 2009 Laws
/// have no five seconds on request at all. At 800 s White has about 100 s.
#[test]
fn s18_point_1_five_seconds_on_request_with_a_delay() {
    let tc = |tc: &str| hdr(tc, json!({"mode": "rapid"}));
    let asked = |extra: &str| format!("{E4E5}800000 arbiter increment by=w{extra} author=IA\n");
    let claim = format!("{E4E5}800000 claim insufficient_losing_chances w");
    let mut cases = Vec::new();
    for delay in ["900d5", "900b5"] {
        cases.push(case(
            "18-1a 2023 III.2.2 no five seconds where a delay is given",
            "fide-2023",
            tc(delay),
            asked(""),
            &[
                "ruling_refused.action=increment",
                "ruling_refused.reason~delay",
            ],
            &[
                "ruling.action=increment",
                "clock.black_ms=1019000",
                "game_end",
            ],
        ));
        cases.push(case(
            "18-1b 2023 III.2.2 the request as a delay asked in a delayed period",
            "fide-2023",
            tc(delay),
            asked(" mode=delay"),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment", "game_end"],
        ));
        cases.push(case(
            "18-1c 2023 III.2.2 no III.5 claim where a delay is given",
            "fide-2023",
            tc(delay),
            claim.clone(),
            &["claim.upheld=false", "claim.consequence~III.2.2"],
            &["claim.consequence~referred", "game_end"],
        ));
        cases.push(case(
            "18-1d 2009 10.2 the claim with a delay is referred",
            "fide-2009",
            tc(delay),
            claim.clone(),
            &["claim.consequence~referred"],
            &["game_end"],
        ));
        cases.push(case(
            "18-1e 2009 no five seconds on request with a delay",
            "fide-2009-no",
            tc(delay),
            asked(""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment"],
        ));
    }
    // III.4 without a delay, the arbiter choosing the delay (U7): the
    // opponent's two minutes (899 + 120 s).
    cases.push(case(
        "18-1f 2023 III.4 granted as a delay",
        "fide-2023",
        tc("900"),
        asked(" mode=delay"),
        &["ruling.action=increment", "clock.black_ms=1019000"],
        &["ruling_refused", "game_end"],
    ));
    run(cases);
}

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

/// The white rook's tour (files d–h, ranks 1–6: never a check, never a
/// repeated position), the white king's a1-a2 at move 30; Black's king
/// goes a8-b8-a8 … beside his rook b7 (he can mate: the flag loses).
const TOUR_FEN: &str = "k7/1r6/8/8/8/8/8/K6R w - - 0 1";
const TOUR: [&str; 42] = [
    "h1g1", "g1f1", "f1e1", "e1d1", "d1d2", "d2e2", "e2f2", "f2g2", "g2h2", "h2h3", "h3g3", "g3f3",
    "f3e3", "e3d3", "d3d4", "d4e4", "e4f4", "f4g4", "g4h4", "h4h5", "h5g5", "g5f5", "f5e5", "e5d5",
    "d5d6", "d6e6", "e6f6", "f6g6", "g6h6", "a1a2", "h6g6", "g6f6", "f6e6", "e6d6", "d6d5", "d5e5",
    "e5f5", "f5g5", "g5h5", "h5h4", "h4g4", "g4f4",
];

/// Moves 1 to `n` of both sides, each pair 2 s (White's `mv` at 2000·(k−1),
/// Black's 1 s later): after move 39 Black's press is at 77.6 s, White has
/// used 0.6 + 38 × 1 = 38.6 s, Black 39 s.
fn tour(n: usize) -> String {
    let mut s = String::new();
    for (k, w) in TOUR.iter().take(n).enumerate() {
        let t = 2000 * k as u64;
        let b = if k % 2 == 0 { "a8b8" } else { "b8a8" };
        s.push_str(&format!("{t} mv {w} w\n{} mv {b} b\n", t + 1000));
    }
    s
}

/// Point 5: `40/5400:1800+30` (docs/clock.md: 40 moves in 90 min, then
/// 30 min with 30 s per move from move 41, the increment for move 41
/// credited with the period at the press of move 40). 2009 §6.2a / 2023
/// 6.3.1 "a player must complete a minimum number of moves or all moves
/// in an allotted period of time and/or may be allocated an additional
/// amount of time after each move"; §6.9 (2023 6.9) "hvis en spiller ikke
/// har fuldført det foreskrevne antal træk inden for den tildelte tid, er
/// partiet tabt" (2001 §6.10). After move 39 White has 5 400 − 38.6 s =
/// 5 361.4 s: his flag falls at 77.6 + 5 361.4 = 5 439 s.
#[test]
fn s18_point_5_the_flags_of_40_5400_1800_30() {
    let tc = || {
        hdr(
            "40/5400:1800+30",
            json!({"start_fen": TOUR_FEN, "mode": "standard"}),
        )
    };
    let late = format!(
        "{}5439500 lift h5\n5439700 place h4\n5440000 press w\n5441000 claim time b\n",
        tour(39)
    );
    // Move 40 pressed with 0.4 s left: + 1 800 s + 30 s = 1 830.4 s; Black
    // replies in 1 s (Black: 5 400 − 39 s − 1 s +1 830 s).
    let in_time = format!(
        "{}5438100 lift h5\n5438300 place h4\n5438600 press w\n5439100 lift b8\n5439300 place a8\n5439600 press b\n",
        tour(39)
    );
    // Move 41: White's flag falls at 5 439.6 + 1 830.4 = 7 270 s.
    let second_flag = format!(
        "{in_time}7270500 lift h4\n7270700 place g4\n7271000 press w\n7272000 claim time b\n"
    );
    let second_in_time = format!(
        "{in_time}7268500 lift h4\n7268700 place g4\n7269000 press w\n7269500 lift a8\n7269700 place b8\n7270000 press b\n"
    );
    let mut cases = Vec::new();
    for rules in ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"] {
        cases.push(case(
            "18-5a the flag before the 40th move",
            rules,
            tc(),
            late.clone(),
            &["flag.t=5439000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=79"],
        ));
        cases.push(case(
            "18-5b the 40th move in time brings the second period",
            rules,
            tc(),
            in_time.clone(),
            &[
                "move.ply=79",
                "clock.t=5438600&white_ms=1830400",
                "clock.t=5439600&black_ms=7190000",
            ],
            &["flag", "game_end"],
        ));
        cases.push(case(
            "18-5c the flag in the second period",
            rules,
            tc(),
            second_flag.clone(),
            &["flag.t=7270000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=81"],
        ));
        cases.push(case(
            "18-5d move 41 in time: its 30 s",
            rules,
            tc(),
            second_in_time.clone(),
            &["move.ply=81", "clock.t=7269000&white_ms=31000"],
            &["flag", "game_end"],
        ));
    }
    run(cases);
}

fn vi(by: &str) -> Value {
    json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": by, "language": "da",
           "time_control": "5400+30"})
}

/// Point 6: Appendix E in 2009 (seed 002) and 2023 (D). E2.3 "Et træk er
/// udført når: … c. trækket er blevet meddelt. Først derefter må
/// modstanderens ur startes" (2023 D.2.3); E2.8 "Hvis de to
/// noteringslister også er forskellige, skal spillet føres tilbage til det
/// træk hvor de er ens, og dommeren skal indstille urene tilsvarende"
/// (2023 D.2.9). The VI player Black copies 1. e4 on his tactile board and
/// plays e5 there (standing from 3.6 s): announced at 3.9 s, long before
/// his press. The rewind: back to the start (ply 0, where the copies
/// certainly agree; E2.8 lets the arbiter go back as far as the
/// scoresheets agree), the clocks as the time control started them.
#[test]
fn s18_point_6_appendix_e_in_2009_and_2023() {
    let own = "1000 lift e2\n1300 place e4\n1600 press w\n3000 tactile lift e2\n3200 tactile place e4\n\
               3400 tactile lift e7\n3600 tactile place e5\n8000 press b\n9000 lift e7\n9200 place e5\n";
    let mut cases = Vec::new();
    for (rules, rewind) in [("fide-2009", "E2.8"), ("fide-2023", "D.2.9")] {
        cases.push(case(
            "18-6a E2.3c the VI player Black's own move announced as it stands",
            rules,
            vi("b"),
            own,
            &["announce.t=3900", "move.san=e5", "move.t=8000"],
            &["irregularity", "illegal_move"],
        ));
        cases.push(case(
            "18-6b E2.8 the rewind to the start of the game",
            rules,
            vi("b"),
            format!("{DRIFT}\n25000 arbiter rewind ply=0 author=IA"),
            &[
                "ruling.action=rewind",
                if rewind == "E2.8" {
                    "ruling.article=E2.8"
                } else {
                    "ruling.article=D.2.9"
                },
                "clock.t=25000&white_ms=5430000&black_ms=5430000",
            ],
            &["ruling_refused"],
        ));
        cases.push(case(
            "18-6c E2.7 the copy differs: no illegal move, no displaced pieces",
            rules,
            vi("b"),
            DRIFT,
            &[
                "irregularity.kind=boards_differ",
                if rewind == "E2.8" {
                    "irregularity.article=E2.7"
                } else {
                    "irregularity.article=D.2.9"
                },
            ],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
    }
    run(cases);
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

/// Point 1, a second set: a delay only in one period of `1/300…:900…`.
/// III.2.1 "The Guidelines below concerning the final period of the game
/// …"; III.4 "the player having the move has less than two minutes left"
/// — the five seconds change the final period's clock, so *reading
/// chosen*: what the final period adds decides (a delay in the first
/// period only does not make the final period one with increment). After
/// the moves 1. e4 e5 the second period has begun for both; at 1 102.5 s White has
/// about 100 s. And III.4 granted as a 5 s delay: White's 2. Nf3 1.5 s
/// after the ruling costs him nothing (U7: "the clock counts down only
/// after the delay"), Black's 2… Nc6 in 2 s neither.
#[test]
fn s18_point_1_a_delay_in_one_period_only() {
    let tc = |tc: &str| hdr(tc, json!({"mode": "rapid"}));
    let asked = |extra: &str| format!("{E4E5}1102500 arbiter increment by=w{extra} author=IA\n");
    run(vec![
        case(
            "18-1g 2023 III.2.1 a delay in the first period only: granted",
            "fide-2023",
            tc("1/300d5:900"),
            asked(""),
            &["ruling.action=increment"],
            &["ruling_refused", "game_end"],
        ),
        case(
            "18-1h 2023 III.2.2 a delay in the final period: refused",
            "fide-2023",
            tc("1/300:900d5"),
            asked(""),
            &["ruling_refused.action=increment", "ruling_refused.reason~III.2.2"],
            &["ruling.action=increment", "game_end"],
        ),
        case(
            "18-1i 2023 III.5 a delay in the final period: no claim",
            "fide-2023",
            tc("1/300:900b5"),
            format!("{E4E5}1102500 claim insufficient_losing_chances w"),
            &["claim.upheld=false", "claim.consequence~III.2.2"],
            &["claim.consequence~referred"],
        ),
        // Standard play (`3600d5`, one hour): at 3 500 s White has about
        // 100 s; III.2.2 names standard chess too.
        case(
            "18-1k 2023 III.2.2 standard play with a delay: refused",
            "fide-2023",
            hdr("3600d5", json!({"mode": "standard"})),
            format!("{E4E5}3500000 arbiter increment by=w author=IA\n"),
            &["ruling_refused.action=increment", "ruling_refused.reason~III.2.2"],
            &["ruling.action=increment", "game_end"],
        ),
        case(
            "18-1l 2023 III.4 standard play without a delay: granted",
            "fide-2023",
            hdr("3600", json!({"mode": "standard"})),
            format!("{E4E5}3500000 arbiter increment by=w author=IA\n"),
            &["ruling.action=increment", "clock.black_ms=3719000"],
            &["ruling_refused", "game_end"],
        ),
        case(
            "18-1m 2009 10.2 standard play with a delay: referred",
            "fide-2009",
            hdr("3600d5", json!({"mode": "standard"})),
            format!("{E4E5}3500000 claim insufficient_losing_chances w"),
            &["claim.consequence~referred"],
            &["game_end"],
        ),
        // Once the five seconds are introduced the game has an increment
        // (session 16's reading, 16-5k): no III.5 claim after them, as a
        // delay or cumulative.
        case(
            "18-1n 2023 III.2.2 no III.5 claim once a 5 s delay was introduced",
            "fide-2023",
            tc("900"),
            format!(
                "{E4E5}800000 arbiter increment by=w mode=delay author=IA\n\
                 800500 claim insufficient_losing_chances w"
            ),
            &["ruling.action=increment", "claim.consequence~III.2.2"],
            &["claim.consequence~referred"],
        ),
        case(
            "18-1o 2023 III.2.2 no III.5 claim once 5 s per move were introduced",
            "fide-2023",
            tc("900"),
            format!(
                "{E4E5}800000 arbiter increment by=w author=IA\n\
                 800500 claim insufficient_losing_chances w"
            ),
            &["ruling.action=increment", "claim.consequence~III.2.2"],
            &["claim.consequence~referred"],
        ),
        case(
            "18-1j 2023 III.4 granted as a delay: the next moves inside it",
            "fide-2023",
            tc("900"),
            format!(
                "{E4E5}800000 arbiter increment by=w mode=delay author=IA\n801000 lift g1\n801200 place f3\n\
                 801500 press w\n802000 lift b8\n802200 place c6\n803500 press b\n"
            ),
            &[
                "ruling.action=increment",
                "clock.t=801500&white_ms=101000&black_ms=1019000",
                "clock.t=803500&black_ms=1019000",
            ],
            &["ruling_refused", "game_end"],
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

/// Point 5, a second set: Black's flag before his 40th move (White has
/// pressed his 40th in time at 5 438.6 s; Black, 39 s used, falls at
/// 5 438.6 + 5 361 = 10 799.6 s; White can mate with his rook); the
/// second period with its own US delay (`1800d30`) or Bronstein delay
/// (`1800b30`), docs/clock.md "Periods and delays": no increment at move
/// 40's press (White 0.4 + 1 800 s), the delay counted from move 41. US
/// delay (2023 6.3.2 / 2009 §6.2b): the flag at 5 439.6 + 30 + 1 800.4 =
/// 7 270 s; Bronstein: at 5 439.6 + 1 800.4 = 7 240 s, the time used up to
/// 30 s given back at the press.
#[test]
fn s18_point_5_black_flag_and_delayed_second_periods() {
    let tc = |tc: &str| hdr(tc, json!({"start_fen": TOUR_FEN, "mode": "standard"}));
    let white_40 = format!(
        "{}5438100 lift h5\n5438300 place h4\n5438600 press w\n",
        tour(39)
    );
    let black_late = format!(
        "{white_40}10800000 lift b8\n10800200 place a8\n10800500 press b\n10801000 claim time w\n"
    );
    let both_40 = format!("{white_40}5439100 lift b8\n5439300 place a8\n5439600 press b\n");
    // White's 41st move pressed at `press`; Black claims the flag if it fell.
    let w41 = |press: u64, claim: bool| {
        let claim = if claim {
            format!("{} claim time b\n", press + 1000)
        } else {
            String::new()
        };
        format!(
            "{both_40}{} lift h4\n{} place g4\n{press} press w\n{claim}",
            press - 500,
            press - 300
        )
    };
    let mut cases = Vec::new();
    for rules in ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"] {
        // 2009 §6.7a "Hans træk betragtes ikke som fuldført før dette er
        // gjort" (2023 6.2.1): the 40th move made before zero, pressed after.
        cases.push(case(
            "18-5j the 40th move made in time, pressed after the flag",
            rules,
            tc("40/5400:1800+30"),
            format!(
                "{}5438500 lift h5\n5438700 place h4\n5439500 press w\n5440500 claim time b\n",
                tour(39)
            ),
            &["flag.t=5439000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=79", "clock.white_ms=1830000"],
        ));
        cases.push(case(
            "18-5e Black's flag before his 40th move",
            rules,
            tc("40/5400:1800+30"),
            black_late.clone(),
            &["flag.t=10799600", "flag.by=b", "game_end.result=1-0"],
            &["move.ply=80"],
        ));
        cases.push(case(
            "18-5f a US delay in the second period: move 41 inside it",
            rules,
            tc("40/5400:1800d30"),
            w41(7_269_000, false),
            &[
                "clock.t=5438600&white_ms=1800400",
                "clock.t=7269000&white_ms=1000",
                "move.ply=81",
            ],
            &["flag"],
        ));
        cases.push(case(
            "18-5g a US delay in the second period: the flag after it",
            rules,
            tc("40/5400:1800d30"),
            w41(7_271_000, true),
            &["flag.t=7270000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=81"],
        ));
        cases.push(case(
            "18-5h a Bronstein delay in the second period: the time given back",
            rules,
            tc("40/5400:1800b30"),
            w41(7_239_000, false),
            &["clock.t=7239000&white_ms=31000", "move.ply=81"],
            &["flag"],
        ));
        cases.push(case(
            "18-5i a Bronstein delay in the second period: the flag",
            rules,
            tc("40/5400:1800b30"),
            w41(7_241_000, true),
            &["flag.t=7240000", "flag.by=w", "game_end.result=0-1"],
            &["move.ply=81"],
        ));
    }
    run(cases);
}

/// Point 6, a second set: E2.8 back to ply 1 (an earlier ply than the
/// last agreed, ply 2: the scoresheets may agree less far back), the
/// clocks as at White's press at 1.6 s (+30 s); E2.3a (2023 D.2.3.1) the
/// VI player Black's capture made once the taken piece is off his board.
#[test]
fn s18_point_6_more_appendix_e_in_2009_and_2023() {
    // 1. e4 d5 2. Nc3, the VI player Black's 2… dxe4 on his tactile board:
    // the pawn e4 lifted at 9 s, his pawn d5 in e4 at 9.6 s.
    let capture = "1000 lift e2\n1300 place e4\n1600 press w\n3000 tactile lift e2\n3200 tactile place e4\n\
                   3400 tactile lift d7\n3600 tactile place d5\n6000 press b\n6500 lift d7\n6700 place d5\n\
                   7000 lift b1\n7300 place c3\n7600 press w\n8000 tactile lift b1\n8200 tactile place c3\n\
                   9000 tactile lift e4\n9300 tactile lift d5\n9600 tactile place e4\n14000 press b";
    let mut cases = Vec::new();
    for (rules, art) in [
        ("fide-2009", "ruling.article=E2.8"),
        ("fide-2023", "ruling.article=D.2.9"),
    ] {
        cases.push(case(
            "18-6d E2.8 the rewind to an earlier ply than the last agreed",
            rules,
            vi("b"),
            format!("{DRIFT}\n25000 arbiter rewind ply=1 author=IA"),
            &[
                "ruling.action=rewind",
                art,
                "clock.t=25000&white_ms=5458400&black_ms=5430000",
            ],
            &["ruling_refused"],
        ));
        cases.push(case(
            "18-6e E2.3a the VI player Black's capture made on his board",
            rules,
            vi("b"),
            capture,
            &["announce.t=9900", "move.san=dxe4", "move.t=14000"],
            &["irregularity", "illegal_move"],
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
