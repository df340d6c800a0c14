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

use crate::common::heldout::{case, game, hdr, run, E4E5};
use serde_json::json;
use shakmaty::{uci::UciMove, Chess, Position, Square};

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

/// Point 5: 2023 Guidelines III.4, "If the player having the move has less
/// than two minutes left on his/her clock, he/she may request that an
/// increment extra five seconds be introduced for both players. This
/// constitutes the offer of a draw. If the offer refused, and the arbiter
/// agrees to the request, the clocks shall then be set with the extra
/// time; the opponent shall be awarded two extra minutes and the game
/// shall continue." After 1. e4 e5 White thinks from 2.5 s; at 800 s
/// (`900`) he has 898.5 − 797.5 = 101 s.
#[test]
fn s16_point_5_five_seconds_on_request() {
    let tc = |tc: &str, mode: &str| hdr(tc, json!({"mode": mode}));
    let asked = |t: u64, by: &str, extra: &str| {
        format!("{E4E5}{t} arbiter increment by={by}{extra} author=IA\n")
    };
    // Granted, then White's 2. Nf3 and Black's 2… Nc6 (2 s, +5 s).
    let granted = format!(
        "{}801000 lift g1\n801200 place f3\n801500 press w\n803000 lift b8\n803200 place c6\n803500 press b",
        asked(800_000, "w", "")
    );
    run(vec![
        // Black's 899 s + 120 s; his next move is credited five seconds.
        case(
            "16-5a 2023 III.4 granted: two minutes and five seconds",
            "fide-2023",
            tc("900", "rapid"),
            granted,
            &[
                "ruling.action=increment",
                "clock.black_ms=1019000",
                "clock.t=803500&black_ms=1022000",
            ],
            &["ruling_refused", "game_end"],
        ),
        // "This constitutes the offer of a draw": accepted, a draw.
        case(
            "16-5b 2023 III.4 the offer accepted",
            "fide-2023",
            tc("900", "rapid"),
            asked(800_000, "w", " offer=accepted"),
            &["game_end.result=1/2-1/2", "game_end.reason=agreement"],
            &["clock.black_ms=1019000"],
        ),
        // "the player having the move": Black is not.
        case(
            "16-5c 2023 III.4 asked by the player not on move",
            "fide-2023",
            tc("900", "rapid"),
            asked(800_000, "b", ""),
            &["ruling_refused.action=increment", "ruling_refused.reason~ "],
            &["ruling.action=increment", "game_end"],
        ),
        // III.2.2 "only to standard chess and rapid chess games without
        // increment and not to blitz games": blitz (300 s).
        case(
            "16-5d 2023 III.2.2 no five seconds in blitz",
            "fide-2023",
            tc("300", "blitz"),
            asked(200_000, "w", ""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment", "clock.black_ms=419000"],
        ),
        // III.2.2 "without increment": 900+10, White has 918.5 − 817.5 =
        // 101 s at 820 s.
        case(
            "16-5e 2023 III.2.2 no five seconds with an increment",
            "fide-2023",
            tc("900+10", "rapid"),
            asked(820_000, "w", ""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment"],
        ),
        // III.2.1 "The Guidelines below concerning the final period of the
        // game": `2/300:600`, White's second move is in the first period
        // (101 s left at 200 s).
        case(
            "16-5f 2023 III.2.1 not before the final period",
            "fide-2023",
            tc("2/300:600", "rapid"),
            asked(200_000, "w", ""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment"],
        ),
        // The rule is 2023's: the 2009 Laws know only the §10.2 claim.
        case(
            "16-5g 2009 no five seconds on request",
            "fide-2009",
            tc("900", "rapid"),
            asked(800_000, "w", ""),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment", "clock.black_ms=1019000"],
        ),
        // 5.2.3 "The game is drawn upon agreement between the two players
        // during the game, provided both players have made at least one
        // move": after 1. e4 e5 it holds.
        case(
            "16-5h 2023 5.2.3 an agreement once both moved",
            "fide-2023",
            tc("5400+30", "standard"),
            format!("{E4E5}3000 offer w\n3500 accept b"),
            &[
                "game_end.result=1/2-1/2",
                "game_end.reason=agreement",
                "game_end.article=5.2.3",
            ],
            &["irregularity.article=5.2.3"],
        ),
        // 9.1.2.1 (fide-2023.md §2.8: an offer "cannot be withdrawn. It
        // lapses on acceptance, oral rejection, rejection by touching a
        // piece … or the game ending"): Black offers before his first move,
        // plays e5; White accepts before touching a piece: both have moved.
        case(
            "16-5i 2023 5.2.3 an offer before Black's move accepted after it",
            "fide-2023",
            tc("5400+30", "standard"),
            "1000 lift e2\n1200 place e4\n1500 press w\n1800 offer b\n2000 lift e7\n2200 place e5\n2500 press b\n3000 accept w",
            &["game_end.result=1/2-1/2", "game_end.reason=agreement"],
            &["irregularity.article=5.2.3"],
        ),
    ]);
}

/// The sensor square under the game's square on a board turned 180°.
fn half(sq: Square) -> String {
    let (f, r) = (sq.file() as u32, sq.rank() as u32);
    Square::from_coords((7 - f).try_into().unwrap(), (7 - r).try_into().unwrap()).to_string()
}

/// Colour-sensing steps: `before` played on a board lying right (2 s a
/// ply from 1 s), at 70 s every piece lifted and set down on the board
/// turned 180° (the same game squares), then `after` from 90 s.
fn turned_180(before: &[&str], after: &[&str]) -> String {
    let mut pos = Chess::default();
    let mut s = String::new();
    let play = |s: &mut String, pos: &mut Chess, t: u64, uci: &str, turned: bool| {
        let at = |sq: Square| if turned { half(sq) } else { sq.to_string() };
        let m = uci.parse::<UciMove>().unwrap().to_move(pos).unwrap();
        let (from, to) = (m.from().unwrap(), m.to());
        let by = if pos.turn().is_white() { "w" } else { "b" };
        if pos.board().piece_at(to).is_some() {
            *s += &format!("{t} lift {}\n", at(to));
        }
        *s += &format!(
            "{} lift {}\n{} place {} {by}\n{} press {by}\n",
            t + 100,
            at(from),
            t + 300,
            at(to),
            t + 600
        );
        pos.play_unchecked(m);
    };
    for (i, uci) in before.iter().enumerate() {
        play(&mut s, &mut pos, 1000 + 2000 * i as u64, uci, false);
    }
    let occupied: Vec<Square> = pos.board().occupied().into_iter().collect();
    let mut t = 70_000;
    for sq in occupied.iter().rev() {
        s += &format!("{t} lift {sq}\n");
        t += 10;
    }
    for sq in &occupied {
        let c = if pos.board().color_at(*sq).is_some_and(|c| c.is_white()) {
            "w"
        } else {
            "b"
        };
        s += &format!("{t} place {} {c}\n", half(*sq));
        t += 10;
    }
    for (i, uci) in after.iter().enumerate() {
        play(&mut s, &mut pos, 90_000 + 2000 * i as u64, uci, true);
    }
    s
}

/// 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d3 d6 6. Nbd2 a6 7. a4 h6
/// 8. h3 Be6 9. Bxe6 fxe6 10. b4 Ba7 11. Qb3 Qd7 12. a5 Ne7 13. Nc4 Ng6
/// 14. Be3 Bxe3 15. Nxe3, Black to move; then 15… Qe7 16. Qb2 Rb8.
const FIFTEEN: [&str; 29] = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "c2c3", "g8f6", "d2d3", "d7d6", "b1d2", "a7a6",
    "a2a4", "h7h6", "h2h3", "c8e6", "c4e6", "f7e6", "b2b4", "c5a7", "d1b3", "d8d7", "a4a5", "c6e7",
    "d2c4", "e7g6", "c1e3", "a7e3", "c4e3",
];
const ON: [&str; 3] = ["d7e7", "b3b2", "a8b8"];

/// Point 2 and 5: a board turned 180° at move 15. 2009 §2.1 "Skakbrættet
/// anbringes mellem spillerne så det nærmeste hjørnefelt til højre for
/// hver spiller er hvidt" holds of a board turned 180°, so it is no §7.1b
/// (2023 7.2.2) board "placed contrary to Article 2.1"; the pieces stand
/// on their squares, each player's own in front of him, so it is no
/// "colours reversed" either (2009 §7.2, 2023 7.3 — and 2023 7.3 has the
/// game continue after ten moves anyway): the game goes on, no illegal
/// move, no 7.3.
#[test]
fn s16_point_2_a_board_turned_180_at_move_15() {
    let steps = turned_180(&FIFTEEN, &ON);
    let quiet = [
        "illegal_move",
        "touch_move",
        "game_end",
        "irregularity.article=7.3",
        "irregularity.kind=colours_reversed",
        "irregularity.kind=displaced",
    ];
    let mut cases = Vec::new();
    for rules in ["fide-2023", "fide-2009", "fide-2009-no", "fide-2001"] {
        cases.push(case(
            "16-2a a board turned 180° at move 15",
            rules,
            hdr("5400+30", json!({"sensing": "colour"})),
            steps.clone(),
            &[
                "move.san=Nxe3",
                "irregularity.kind=board_turned",
                "irregularity.article=2.1",
                "move.san=Qe7",
                "move.san=Qb2",
                "move.san=Rb8",
            ],
            &quiet,
        ));
    }
    run(cases);
}

/// Points 3 and 4: a flag in `3/20:60` at the move that brings the next
/// period, and two pauses.
#[test]
fn s16_points_3_4_period_flags_and_two_pauses() {
    let tc = |tc: &str| hdr(tc, json!({"mode": "standard"}));
    // White 1.5 s and 1 s on his first two moves: 17.5 s left from 4.5 s,
    // zero at 22 s. 2009 §6.3 "Umiddelbart efter at en vinge er faldet,
    // skal det kontrolleres om kravene i medfør af §6.2a er overholdt":
    // three moves were due in 20 s; the next period's 60 s arrive only
    // with the third (§6.2b "Opsparet tid fra én tidsperiode tillægges den
    // næste").
    let two = "1000 lift e2\n1200 place e4\n1500 press w\n2000 lift e7\n2200 place e5\n2500 press b\n\
               3000 lift g1\n3200 place f3\n3500 press w\n4000 lift b8\n4200 place c6\n4500 press b\n";
    let third = |press: u64| {
        format!("{two}21000 lift f1\n21300 place c4\n{press} press w\n25000 claim time b")
    };
    run(vec![
        // 2009 §6.9 "hvis en spiller ikke har fuldført det foreskrevne
        // antal træk inden for den tildelte tid, er partiet tabt".
        case(
            "16-4a 2009-NO 6.9 the flag at the third move of 3/20",
            "fide-2009-no",
            tc("3/20:60"),
            third(22_500),
            &["flag.t=22000", "flag.by=w", "game_end.result=0-1"],
            &["move.san=Bc4"],
        ),
        case(
            "16-4b 2001 6.10 the flag at the third move of 3/20",
            "fide-2001",
            tc("3/20:60"),
            third(22_500),
            &["flag.t=22000", "flag.by=w", "game_end.result=0-1"],
            &["move.san=Bc4"],
        ),
        // 1 ms before: the third move completes and the 60 s arrive.
        case(
            "16-4c 2023 6.3.1 the third move 1 ms before zero",
            "fide-2023",
            tc("3/20:60"),
            third(21_999),
            &["move.san=Bc4", "clock.t=21999&white_ms=60001"],
            &["flag", "game_end.result=0-1"],
        ),
        // 2009 §6.12a "skal dommeren standse urene", §6.12c "Dommeren
        // bestemmer hvornår partiet genoptages": two pauses; Black's move
        // made and pressed in the second completes only at his press after
        // the resume. Black's clock ran 1.5–2 s, 4–6 s and 9–9.5 s: 3 s.
        case(
            "16-3a 2009 6.12 a press in the second of two pauses",
            "fide-2009",
            hdr("5400+30", json!({})),
            "1000 lift e2\n1200 place e4\n1500 press w\n2000 arbiter pause\n4000 arbiter resume\n\
             6000 arbiter pause\n6200 lift e7\n6400 place e5\n6500 press b\n9000 arbiter resume\n9500 press b",
            &[
                "irregularity.kind=press_during_pause",
                "irregularity.article=6.12c",
                "move.t=9500",
                "clock.t=9500&black_ms=5457000",
            ],
            &["move.t=6500", "illegal_move"],
        ),
    ]);
}

/// Point 6: the VI player Black copies White's O-O with the king only (the
/// rook left on h1), then makes his own Ra7. 2009 E2.7 "Hvis der under
/// partiet opstår forskellige stillinger på de to skakbrætter": the boards
/// differ on f1 and h1 only (2023 D.2.9), never his own move's squares, and
/// it is no §7.3 / 7.4 displacement.
#[test]
fn s16_point_6_a_castling_copied_without_its_rook() {
    let vi = json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "b",
                    "language": "da", "time_control": "5400+30",
                    "start_fen": "r3k3/8/8/8/8/8/8/4K2R w K - 0 1"});
    let steps = "1000 main lift e1\n1200 main place g1\n1400 main lift h1\n1600 main place f1\n2000 press w\n\
                 2500 tactile lift e1\n2800 tactile place g1\n3500 tactile lift a8\n3800 tactile place a7\n6000 press b";
    let mut cases = Vec::new();
    for (rules, art) in [
        ("fide-2009", "irregularity.article=E2.7"),
        ("fide-2023", "irregularity.article=D.2.9"),
    ] {
        cases.push(case(
            "16-6a E2.7 a castling copied without its rook",
            rules,
            vi.clone(),
            steps,
            &[
                "move.san=O-O",
                "irregularity.kind=boards_differ",
                "irregularity.squares=[\"f1\",\"h1\"]",
                art,
                "move.san=Ra7",
            ],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
    }
    run(cases);
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

/// Point 5, a second set of III.4: "has less than two minutes left" —
/// with 201 s left it is refused; once the five seconds are introduced the
/// game has an increment (III.2.2 "without increment"): a second request
/// is refused and Black gets no second two minutes.
#[test]
fn s16_point_5_five_seconds_not_twice_nor_with_two_minutes() {
    let rapid = || hdr("900", json!({"mode": "rapid"}));
    let twice = format!(
        "{E4E5}800000 arbiter increment by=w author=IA\n801000 lift g1\n801200 place f3\n801500 press w\n\
         803000 lift b8\n803200 place c6\n803500 press b\n805000 arbiter increment by=w author=IA"
    );
    run(vec![
        case(
            "16-5j 2023 III.4 two minutes or more left",
            "fide-2023",
            rapid(),
            format!("{E4E5}700000 arbiter increment by=w author=IA"),
            &["ruling_refused.action=increment"],
            &["ruling.action=increment"],
        ),
        case(
            "16-5k 2023 III.4 a second request",
            "fide-2023",
            rapid(),
            twice,
            &[
                "ruling.action=increment",
                "clock.t=803500&black_ms=1022000",
                "ruling_refused.action=increment",
            ],
            &["clock.black_ms=1142000"],
        ),
    ]);
}
