//! One article table (issue 25, point 7): every decision the board takes
//! cites an article from `eboard::rules::Profile`, per edition and mode.
//! This table is written from the seeds (000 = 2001-DK, 002 = 2009-DK) and
//! `../shared/rules/fide-2023.md`; a change of any article in the code, or a
//! decision kind added without its row here, fails it.

use eboard::rules::{Edition, Mode, Profile, Supervision};

/// (decision, 2001, 2009 / 2009-NO, 2023) in standard play.
const STANDARD: [(&str, &str, &str, &str); 35] = [
    ("checkmate", "5.1a", "5.1a", "5.1.1"),
    ("stalemate", "5.2a", "5.2a", "5.2.1"),
    ("dead_position", "5.2b", "5.2b", "5.2.2"),
    ("resignation", "5.1b", "5.1b", "5.1.2"),
    ("agreement", "5.2c", "5.2c", "5.2.3"),
    ("illegal_move", "7.4a", "7.4a", "7.5.1"),
    ("incomplete_promotion", "7.4a", "7.4a", "7.5.2"),
    ("press_without_move", "6.8a", "6.7a", "7.5.3"),
    ("time", "6.10", "6.9", "6.9"),
    ("flag", "6.9", "6.8", "6.8"),
    ("promotion", "3.7e", "4.4d", "4.4.4"),
    ("initial_position", "7.1a", "7.1a", "7.2.1"),
    ("board_orientation", "7.1b", "7.1b", "7.2.2"),
    ("colours_reversed", "7.2", "7.2", "7.3"),
    ("arbiter", "13.4", "13.4", "12.9"),
    ("threefold", "9.2", "9.2", "9.2"),
    ("fifty_moves", "9.3", "9.3", "9.3"),
    ("wrong_claim", "9.5b", "9.5b", "9.5.3"),
    ("fivefold", "9.2", "9.2", "9.6.1"),
    ("seventy_five_moves", "9.3", "9.3", "9.6.2"),
    ("adjust", "4.2", "4.2", "4.2.1"),
    ("displaced", "7.3", "7.3", "7.4.1"),
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
        other => panic!("no decision kind {other}"),
    }
}

#[test]
fn every_decision_cites_its_editions_article_in_standard_play() {
    for (kind, e01, e09, e23) in STANDARD {
        for (edition, want) in [
            (Edition::Fide2001, e01),
            (Edition::Fide2009, e09),
            (Edition::Fide2009No, e09),
            (Edition::Fide2023, e23),
        ] {
            let p = Profile::new(edition, Mode::Standard);
            assert_eq!(article(&p, kind), want, "{kind} in {edition:?}");
        }
    }
}

#[test]
fn the_appendix_articles_per_mode() {
    // (edition, mode, illegal_claim, flag_claim, both_flags)
    let rows = [
        (Edition::Fide2001, Mode::Rapid, "7.4", "B6", "B8"),
        (Edition::Fide2001, Mode::Blitz, "C3", "C2", "B8"),
        (Edition::Fide2009, Mode::Rapid, "A4c", "A4d", "A4d3"),
        (Edition::Fide2009, Mode::Blitz, "B3c", "B3a", "B3a"),
        (Edition::Fide2009No, Mode::Rapid, "A4c", "A4d", "A4d3"),
        (Edition::Fide2009No, Mode::Blitz, "B3c", "B3a", "B3a"),
        (Edition::Fide2023, Mode::Rapid, "A.5.2", "A.5.3", "III.3.1"),
        (Edition::Fide2023, Mode::Blitz, "A.5.2", "A.5.3", "III.3.1"),
    ];
    for (edition, mode, claim, flag, both) in rows {
        for s in [Supervision::Adequate, Supervision::Inadequate] {
            let p = Profile::with_supervision(edition, mode, s);
            assert_eq!(article(&p, "illegal_claim"), claim, "{edition:?} {mode:?}");
            assert_eq!(article(&p, "flag_claim"), flag, "{edition:?} {mode:?}");
            assert_eq!(article(&p, "both_flags"), both, "{edition:?} {mode:?}");
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
