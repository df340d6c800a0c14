//! One article table (issue 25, point 7): every decision the board takes
//! cites an article from `eboard::rules::Profile`, per edition and mode.
//! This table is written from the seeds (000 = 2001-DK, 002 = 2009-DK) and
//! `../shared/rules/fide-2023.md`; a change of any article in the code, or a
//! decision kind added without its row here, fails it.

use crate::common;

use common::heldout::{case, hdr, run};
use eboard::rules::{Edition, IllegalMoveRule, Mode, Profile, Supervision};
use serde_json::json;

/// (decision, 2001, 2009 / 2009-NO, 2023) in standard play, each written
/// from the text: seed 000 (2001-DK), seed 002 (2009-DK; seed 003, 2009-NO,
/// numbers them alike) and `fide-2023.md` (§0.3's map, §2.x).
const STANDARD: [(&str, &str, &str, &str); 42] = [
    ("checkmate", "5.1a", "5.1a", "5.1.1"),
    ("stalemate", "5.2a", "5.2a", "5.2.1"),
    ("dead_position", "5.2b", "5.2b", "5.2.2"),
    ("resignation", "5.1b", "5.1b", "5.1.2"),
    ("agreement", "5.2c", "5.2c", "5.2.3"),
    // "Hvis det under et parti opdages at der er gjort / fuldført et
    // ulovligt træk, skal stillingen … genskabes": the move and its
    // reinstatement; 2023 7.5.1.
    ("illegal_move", "7.4a", "7.4a", "7.5.1"),
    // "Efter brugen af § 7.4 a. skal dommeren give modstanderen to ekstra
    // minutter …; … et tredje ulovligt træk … tabt": 2023 7.5.5.
    ("illegal_penalty", "7.4b", "7.4b", "7.5.5"),
    ("incomplete_promotion", "7.4a", "7.4a", "7.5.2"),
    ("press_without_move", "6.8a", "6.7a", "7.5.3"),
    ("time", "6.10", "6.9", "6.9"),
    ("flag", "6.9", "6.8", "6.8"),
    ("promotion", "3.7e", "4.4d", "4.4.4"),
    ("initial_position", "7.1a", "7.1a", "7.2.1"),
    ("board_orientation", "7.1b", "7.1b", "7.2.2"),
    ("colours_reversed", "7.2", "7.2", "7.3"),
    ("arbiter", "13.4", "13.4", "12.9"),
    // §9.2b "netop er fremkommet og den spiller, som kræver remis, er i
    // trækket"; §9.3b "de sidste 50 træk er udført"; 2023 9.2.2 / 9.3.2.
    ("threefold", "9.2b", "9.2b", "9.2.2"),
    ("fifty_moves", "9.3b", "9.3b", "9.3.2"),
    ("wrong_claim", "9.5b", "9.5b", "9.5.3"),
    // No automatic draw before 2023: never cited there (the claim's article).
    ("fivefold", "9.2b", "9.2b", "9.6.1"),
    ("seventy_five_moves", "9.3b", "9.3b", "9.6.2"),
    ("adjust", "4.2", "4.2", "4.2.1"),
    ("displaced", "7.3", "7.3", "7.4.1"),
    // The Competitive Rules' own: a claim of an illegal move is §7.4a /
    // 7.5.1, of a flag §6.9 (2001) / §6.8 / 6.8; both flags 2001 §6.12
    // ("skal partiet fortsætte"), 2009 §6.11b, 2023 III.3.1.
    ("illegal_claim", "7.4a", "7.4a", "7.5.1"),
    ("flag_claim", "6.9", "6.8", "6.8"),
    ("both_flags", "6.12", "6.11b", "III.3.1"),
    ("quickplay", "10.2", "10.2", "III.5"),
    ("draw_offer_lapses", "9.1a", "9.1b(1)", "9.1.2.1"),
    ("vi_clock_after_announcement", "F2.3", "E2.3", "D.2.4"),
    ("vi_boards_differ", "F2.7", "E2.7", "D.2.9"),
    // Issue 25: the board's own decisions beyond `Articles`.
    ("pause_holds", "6.13c", "6.12c", "6.11.3"),
    ("board_turned", "2.1", "2.1", "2.1"),
    ("ambiguous_move", "4.7", "4.6", "4.7"),
    ("touch_released", "4.7", "4.6", "4.7"),
    ("touch_claim_lost", "4.6", "4.7", "4.8"),
    ("completion", "6.8a", "6.7a", "6.2.1"),
    // Issue 24: a draw claim on a move written and not made (upheld).
    ("written_threefold", "9.2a", "9.2a", "9.2.1"),
    ("written_fifty_moves", "9.3a", "9.3a", "9.3.1"),
    // The daemon's downtime: the arbiter sets the clocks after an
    // irregularity (2001 §6.14, 2009 §6.13 "Hvis der opstår en
    // uregelmæssighed … skal dommeren stille tiden på uret efter sit bedste
    // skøn", 2023 7.1); not a penalty.
    ("downtime", "6.14", "6.13", "7.1"),
    ("vi_rewind", "F2.8", "E2.8", "D.2.9"),
    // 2001 §9.5b "det meddelte træk skal udføres"; 2009 / 2023 bind only
    // the piece (§4): none.
    ("announced_move_binds", "9.5b", "-", "-"),
    ("adjust_clock_running", "-", "-", "6.2.5"),
];

fn article(p: &Profile, kind: &str) -> &'static str {
    let a = p.articles;
    match kind {
        "checkmate" => a.checkmate,
        "stalemate" => a.stalemate,
        "dead_position" => a.dead_position,
        "resignation" => a.resignation,
        "agreement" => a.agreement,
        "illegal_move" => a.illegal_move,
        "illegal_penalty" => p.article_illegal_penalty(false),
        "incomplete_promotion" => a.incomplete_promotion,
        "press_without_move" => a.press_without_move,
        "time" => a.time,
        "flag" => a.flag,
        "promotion" => a.promotion,
        "initial_position" => a.initial_position,
        "board_orientation" => a.board_orientation,
        "colours_reversed" => a.colours_reversed,
        "arbiter" => a.arbiter,
        "threefold" => a.threefold,
        "fifty_moves" => a.fifty_moves,
        "wrong_claim" => a.wrong_claim,
        "fivefold" => a.fivefold,
        "seventy_five_moves" => a.seventy_five_moves,
        "adjust" => a.adjust,
        "displaced" => a.displaced,
        "both_flags" => a.both_flags,
        "quickplay" => a.quickplay,
        "draw_offer_lapses" => a.draw_offer_lapses,
        "vi_clock_after_announcement" => a.vi_clock_after_announcement,
        "vi_boards_differ" => a.vi_boards_differ,
        "illegal_claim" => a.illegal_claim,
        "flag_claim" => a.flag_claim,
        "pause_holds" => p.article_pause_holds(),
        "board_turned" => p.article_board_turned(),
        "ambiguous_move" => p.article_ambiguous_move(),
        "touch_released" => p.touch.released,
        "touch_claim_lost" => p.touch.claim_lost,
        "completion" => p.article_completion(),
        "written_threefold" => p.article_written_claim(false),
        "written_fifty_moves" => p.article_written_claim(true),
        "downtime" => p.article_downtime(),
        "vi_rewind" => p.article_vi_rewind(),
        "announced_move_binds" => p.announced_move_binds().unwrap_or("-"),
        "adjust_clock_running" => p.article_adjust_clock_running().unwrap_or("-"),
        other => panic!("no decision kind {other}"),
    }
}

const EDITIONS: [Edition; 4] = [
    Edition::Fide2001,
    Edition::Fide2009,
    Edition::Fide2009No,
    Edition::Fide2023,
];

/// The appendix articles where the appendices govern (rapid and blitz
/// without adequate supervision; 2001 B / C in every rapid and blitz game):
/// (illegal_claim, flag_claim, both_flags, the penalty where a claim wins).
/// `None`: the Competitive Rules, the standard row.
fn appendix(edition: Edition, mode: Mode, s: Supervision) -> Option<[&'static str; 4]> {
    let loose = s == Supervision::Inadequate;
    match (edition, mode) {
        (_, Mode::Standard) => None,
        // 2001 B2 "Reglerne skal følge FIDEs regler …" (§7.4 in rapid), B6
        // (flag "anses for faldet, når en af spillerne med rette påpeger
        // dette"), B8 (both flags); C2 imports B, C3 "ret til at kræve
        // gevinst".
        (Edition::Fide2001, Mode::Rapid) => Some(["7.4a", "B6", "B8", "7.4b"]),
        (Edition::Fide2001, Mode::Blitz) => Some(["C3", "C2", "B8", "C3"]),
        // 2009 A4c / A4d (A4d3 both flags) with §7.4's penalty; B3a imports
        // A, B3c "ret til at kræve gevinst". A3 / B2: the Competitive Rules.
        (Edition::Fide2009 | Edition::Fide2009No, Mode::Rapid) if loose => {
            Some(["A4c", "A4d", "A4d3", "7.4b"])
        }
        (Edition::Fide2009 | Edition::Fide2009No, Mode::Blitz) if loose => {
            Some(["B3c", "B3a", "B3a", "B3c"])
        }
        // 2023 A.5.2 / A.5.3 (B.3 imports A.5), III.3.1; 7.5.5's penalty.
        (Edition::Fide2023, _) if loose => Some(["A.5.2", "A.5.3", "III.3.1", "7.5.5"]),
        _ => None,
    }
}

/// Every kind of the table in every profile (edition × mode × supervision):
/// the standard row, or the appendix's where the appendices govern.
#[test]
fn every_decision_cites_its_editions_article_in_every_profile() {
    for (kind, e01, e09, e23) in STANDARD {
        for edition in EDITIONS {
            let std = match edition {
                Edition::Fide2001 => e01,
                Edition::Fide2023 => e23,
                Edition::Fide2009 | Edition::Fide2009No => e09,
            };
            for mode in [Mode::Standard, Mode::Rapid, Mode::Blitz] {
                for s in [Supervision::Adequate, Supervision::Inadequate] {
                    let p = Profile::with_supervision(edition, mode, s);
                    let want = match (appendix(edition, mode, s), kind) {
                        (Some(a), "illegal_claim") => a[0],
                        (Some(a), "flag_claim") => a[1],
                        (Some(a), "both_flags") => a[2],
                        _ => std,
                    };
                    assert_eq!(
                        article(&p, kind),
                        want,
                        "{kind} in {edition:?} {mode:?} {s:?}"
                    );
                    // The penalty of a claim (where a claim wins the game:
                    // 2009 B3c, 2001 C3; elsewhere §7.4b / 7.5.5).
                    let wins = p.illegal_rule == IllegalMoveRule::ClaimWins;
                    let penalty =
                        appendix(edition, mode, s).map_or(article(&p, "illegal_penalty"), |a| a[3]);
                    assert_eq!(
                        p.article_illegal_penalty(wins),
                        penalty,
                        "{edition:?} {mode:?} {s:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn no_decision_but_a_penalty_cites_the_penalties_article() {
    // 13.4 / 12.9 only where a penalty is given: not the illegal move's
    // penalty (§7.4b / 7.5.5 has its own), not the downtime, not the rulings.
    for edition in EDITIONS {
        for mode in [Mode::Standard, Mode::Rapid, Mode::Blitz] {
            let p = Profile::new(edition, mode);
            for (kind, ..) in STANDARD.iter().filter(|r| r.0 != "arbiter") {
                assert_ne!(
                    article(&p, kind),
                    p.articles.arbiter,
                    "{kind} in {edition:?}"
                );
            }
            let r = eboard::rules::RulingArticles::of(edition);
            for a in [
                r.pause, r.resume, r.clock, r.position, r.forfeit, r.confirm, r.result,
            ] {
                assert_ne!(a, p.articles.arbiter, "{edition:?}");
            }
        }
    }
}

#[test]
fn the_ambiguous_move_is_not_cited_as_a_penalty() {
    // Issue 25: `ambiguous_move` cited 13.4 / 12.9 (the penalties).
    for edition in [
        Edition::Fide2001,
        Edition::Fide2009,
        Edition::Fide2009No,
        Edition::Fide2023,
    ] {
        for mode in [Mode::Standard, Mode::Rapid, Mode::Blitz] {
            let p = Profile::new(edition, mode);
            assert_ne!(p.article_ambiguous_move(), p.articles.arbiter);
        }
    }
}

#[test]
fn the_touch_articles_per_edition() {
    // (kind, 2001, 2009 / 2009-NO, 2023): seed 000 §4.3–4.7, seed 002
    // §4.3–4.7, `fide-2023.md` §2.2 (4.3.1–4.8).
    let rows = [
        ("own", "4.3a", "4.3a", "4.3.1"),
        ("opponent", "4.3b", "4.3b", "4.3.2"),
        ("both", "4.3c", "4.3c", "4.3.3"),
        ("king_rook", "4.4a", "4.4a", "4.4.1"),
        ("rook_king", "4.4b", "4.4b", "4.4.2"),
        ("castling_illegal", "4.4c", "4.4c", "4.4.3"),
        ("promotion_final", "-", "4.4d", "4.4.4"),
    ];
    for (kind, e01, e09, e23) in rows {
        for (edition, want) in [
            (Edition::Fide2001, e01),
            (Edition::Fide2009, e09),
            (Edition::Fide2009No, e09),
            (Edition::Fide2023, e23),
        ] {
            for mode in [Mode::Standard, Mode::Rapid, Mode::Blitz] {
                let t = Profile::new(edition, mode).touch;
                let got = match kind {
                    "own" => t.own,
                    "opponent" => t.opponent,
                    "both" => t.both,
                    "king_rook" => t.king_rook,
                    "rook_king" => t.rook_king,
                    "castling_illegal" => t.castling_illegal,
                    _ => t.promotion_final.unwrap_or("-"),
                };
                assert_eq!(got, want, "{kind} in {edition:?} {mode:?}");
            }
        }
    }
}

#[test]
fn the_rulings_and_the_remaining_decisions_per_edition() {
    use eboard::rules::RulingArticles;
    // The arbiter's rulings (pause, resume, clock, position, forfeit,
    // result, both lost): 2001 §6.13a/c, 6.14, 7.5, 6.7, 13.1, 12.8 (seed
    // 000); 2009 §6.12a/c, 6.10b, 7.5, 6.6a, 13.1, 12.9 (seed 002); 2023
    // 6.11.1/3, 6.10.2, 7.6, 6.7.1, 12.1, 11.8.
    let rows = [
        (
            Edition::Fide2001,
            ["6.13a", "6.13c", "6.14", "7.5", "6.7", "13.1", "12.8"],
            "F2.8",
        ),
        (
            Edition::Fide2009,
            ["6.12a", "6.12c", "6.10b", "7.5", "6.6a", "13.1", "12.9"],
            "E2.8",
        ),
        (
            Edition::Fide2009No,
            ["6.12a", "6.12c", "6.10b", "7.5", "6.6a", "13.1", "12.9"],
            "E2.8",
        ),
        (
            Edition::Fide2023,
            ["6.11.1", "6.11.3", "6.10.2", "7.6", "6.7.1", "12.1", "11.8"],
            "D.2.9",
        ),
    ];
    for (edition, want, rewind) in rows {
        let r = RulingArticles::of(edition);
        let got = [
            r.pause,
            r.resume,
            r.clock,
            r.position,
            r.forfeit,
            r.result,
            r.both_lost,
        ];
        assert_eq!(got, want, "{edition:?}");
        assert_eq!(r.confirm, "DSU 004 §15", "{edition:?}");
        let p = Profile::new(edition, Mode::Standard);
        assert_eq!(p.article_vi_rewind(), rewind, "{edition:?}");
        // 2023 6.2.5: only the player whose clock runs may adjust (F4).
        let adjust = (edition == Edition::Fide2023).then_some("6.2.5");
        assert_eq!(p.article_adjust_clock_running(), adjust, "{edition:?}");
    }
}

#[test]
fn a_5_4_the_illegal_position_draw_only_under_2023_a_5_and_b_3() {
    // 2023 A.5.4 (rapid A.5, blitz B.3 imports it): "if the arbiter sees
    // both kings in check, or a pawn standing on the furthest rank, he/she
    // waits until the next move is completed. If an illegal position is
    // still on the board, he/she declares a draw." Not under A.4 / B.2
    // (adequate supervision), not in standard play; 2009 A4c has the
    // arbiter intervene instead, 2009 B3 / 2001 C have no such rule.
    for edition in [
        Edition::Fide2001,
        Edition::Fide2009,
        Edition::Fide2009No,
        Edition::Fide2023,
    ] {
        for mode in [Mode::Standard, Mode::Rapid, Mode::Blitz] {
            for s in [Supervision::Adequate, Supervision::Inadequate] {
                let p = Profile::with_supervision(edition, mode, s);
                let want = (edition == Edition::Fide2023
                    && mode != Mode::Standard
                    && s == Supervision::Inadequate)
                    .then_some("A.5.4");
                assert_eq!(
                    p.article_illegal_position_draw(),
                    want,
                    "{edition:?} {mode:?} {s:?}"
                );
            }
        }
    }
}

// Held-out cases, session 12 (issue 25), through the real binary.

/// Point 7: the article of each decision per edition (5.1a / 5.1.1, 5.2a /
/// 5.2.1, 5.2b / 5.2.2, 4.3a / 4.3.1).
#[test]
fn point_7_every_decision_cites_its_editions_article() {
    let mate = "1000 mv f2f3 w\n2000 mv e7e5 b\n3000 mv g2g4 w\n4000 mv d8h4 b";
    let stale = || {
        hdr(
            "5400+30",
            json!({"start_fen": "7k/8/6Q1/8/8/8/8/4K3 w - - 0 1"}),
        )
    };
    let dead = || {
        hdr(
            "5400+30",
            json!({"start_fen": "4k3/8/8/8/8/8/1B6/n3K3 w - - 0 1"}),
        )
    };
    let bxa1 = "1000 lift a1\n1100 lift b2\n1300 place a1\n1500 press w";
    let touch = "1000 lift g1\n1200 place g1\n2000 lift e2\n2200 place e4\n2500 press w";
    let std = || hdr("5400+30", json!({}));
    run(vec![
        case(
            "7a mate 2001",
            "fide-2001",
            std(),
            mate,
            &["game_end.article=5.1a"],
            &[],
        ),
        case(
            "7a mate 2023",
            "fide-2023",
            std(),
            mate,
            &["game_end.article=5.1.1"],
            &[],
        ),
        case(
            "7b stalemate 2009",
            "fide-2009",
            stale(),
            "1000 mv g6f7 w",
            &["game_end.reason=stalemate", "game_end.article=5.2a"],
            &[],
        ),
        case(
            "7b stalemate 2023",
            "fide-2023",
            stale(),
            "1000 mv g6f7 w",
            &["game_end.article=5.2.1"],
            &[],
        ),
        case(
            "7c dead 2009-NO",
            "fide-2009-no",
            dead(),
            bxa1,
            &["game_end.article=5.2b"],
            &[],
        ),
        case(
            "7c dead 2023",
            "fide-2023",
            dead(),
            bxa1,
            &["game_end.article=5.2.2"],
            &[],
        ),
        case(
            "7d touch 2009",
            "fide-2009",
            std(),
            touch,
            &["touch_move.article=4.3a"],
            &[],
        ),
        case(
            "7d touch 2023",
            "fide-2023",
            std(),
            touch,
            &["touch_move.article=4.3.1"],
            &[],
        ),
    ]);
}

/// Session 13: both flags fallen in rapid and blitz without adequate
/// supervision. 2009 A4d3 (seed 002; 003 the same) "Hvis begge vinger er
/// faldet som beskrevet i 1 og 2, skal dommeren erklære partiet remis": a
/// flag counts when a player validly points it out (A4d1) by stopping the
/// clocks (A4d2), so only a claim draws; 2001 B8 with B6's definition of a
/// fallen flag alike (reading: docs/profiles.md, "Both flags fallen").
#[test]
fn a4d3_both_flags_need_a_claim() {
    let rapid = |rules_sup: &str| hdr("900", json!({"mode": "rapid", "supervision": rules_sup}));
    let blitz = || hdr("180", json!({"mode": "blitz", "supervision": "inadequate"}));
    // Black's flag falls before his reply, White's 900 s after it.
    let both = "1000 mv f2f3 w\n902000 mv e7e5 b\n";
    let both_blitz = "1000 mv f2f3 w\n182000 mv e7e5 b\n";
    run(vec![
        case(
            "A4d3 both down, nobody claims: the game goes on",
            "fide-2009",
            rapid("inadequate"),
            format!("{both}1900000 lift d2\n1900200 place d2"),
            &["flag.by=b", "flag.by=w"],
            &["game_end"],
        ),
        case(
            "A4d3 a mate after both flags and before any claim stands",
            "fide-2009-no",
            rapid("inadequate"),
            format!("{both}1803000 mv g2g4 w\n1804000 mv d8h4 b"),
            &[
                "flag.by=w",
                "game_end.reason=checkmate",
                "game_end.result=0-1",
            ],
            &["game_end.reason=both_flags"],
        ),
        case(
            "A4d3 the player whose flag fell first claims: drawn",
            "fide-2009-no",
            rapid("inadequate"),
            format!("{both}1900000 claim time b"),
            &[
                "game_end.result=1/2-1/2",
                "game_end.reason=both_flags",
                "game_end.article=A4d3",
            ],
            &[],
        ),
        case(
            "B3a (A4d3 in blitz) a claim draws",
            "fide-2009",
            blitz(),
            format!("{both_blitz}400000 claim time w"),
            &["game_end.reason=both_flags", "game_end.article=B3a"],
            &[],
        ),
        case(
            "2001 B8 with B6: nobody claims, the game goes on",
            "fide-2001",
            rapid("inadequate"),
            format!("{both}1900000 lift d2\n1900200 place d2"),
            &["flag.by=w"],
            &["game_end"],
        ),
        case(
            "2001 B8 a claim draws",
            "fide-2001",
            rapid("inadequate"),
            format!("{both}1900000 claim time w"),
            &["game_end.reason=both_flags", "game_end.article=B8"],
            &[],
        ),
        case(
            "2009 A3 (adequate supervision): the first flag loses (§6.9)",
            "fide-2009",
            rapid("adequate"),
            both,
            &[
                "game_end.reason=time",
                "game_end.result=1-0",
                "game_end.article=6.9",
            ],
            &["game_end.reason=both_flags"],
        ),
    ]);
}
