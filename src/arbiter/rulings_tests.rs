//! Rulings bound to what the arbiter saw (issue 24): refused with a reason
//! when stale, decided, impossible or without effect; the open matters
//! worded by effect; undo; the articles per profile. Forfeits in
//! `forfeit_tests.rs`; draw claims overruled in `overrule_tests.rs`.

use super::*;
use crate::model::{ClaimKind, EndReason, KnownOutcome, Score};
use crate::rules::RulingArticles;
use crate::trace::{ArbiterAction, EventRef, Expect, Forfeit};
use shakmaty::Square;

fn ruled(t: u64, action: ArbiterAction, expect: Option<Expect>) -> Record {
    rec(
        t,
        RecordKind::Arbiter {
            action,
            author: Some("IA Hansen".into()),
            expect,
            reason: None,
        },
    )
}

fn seen(ply: u32, event: Option<(&str, u64)>) -> Option<Expect> {
    Some(Expect {
        ply,
        event: event.map(|(k, t)| EventRef {
            kind: k.to_owned(),
            t,
        }),
        result: None,
    })
}

/// The `ruling_refused` of `d`: (reason, status).
fn refused(d: &[Decision]) -> Option<(String, u16)> {
    refusal(d).map(|(reason, status, _)| (reason, status))
}

/// The ruling refused among `d`: its reason, status and article.
pub(super) fn refusal(d: &[Decision]) -> Option<(String, u16, Option<&'static str>)> {
    d.iter().find_map(|d| match d {
        Decision::Event(Event {
            kind:
                EventKind::RulingRefused {
                    reason,
                    status,
                    article,
                    ..
                },
            ..
        }) => Some((reason.clone(), *status, *article)),
        _ => None,
    })
}

/// The ruling applied among `d`: its article and effect.
pub(super) fn applied(d: &[Decision]) -> Option<(&'static str, String)> {
    d.iter().find_map(|d| match d {
        Decision::Event(Event {
            kind: EventKind::Ruling {
                article, effect, ..
            },
            ..
        }) => Some((*article, effect.clone())),
        _ => None,
    })
}

fn claim(t: u64, kind: ClaimKind, by: Color) -> Record {
    rec(
        t,
        RecordKind::Claim {
            kind,
            by,
            intended: None,
        },
    )
}

#[test]
fn nothing_is_ruled_on_a_confirmed_game_and_impossible_rulings_say_why() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &[rec(2_000, RecordKind::Resign(Color::Black))]);
    let d = feed(
        &mut a,
        &[ruled(3_000, ArbiterAction::Confirm(None), seen(1, None))],
    );
    assert_eq!(refused(&d), None);
    // +2 min on a finished and confirmed game.
    let d = feed(
        &mut a,
        &[ruled(
            4_000,
            ArbiterAction::SetClock {
                white_ms: 600_000,
                black_ms: 720_000,
                moves: None,
            },
            seen(1, None),
        )],
    );
    let (reason, status) = refused(&d).expect("refused");
    assert!(
        reason.starts_with("the game is over and its result confirmed"),
        "{reason}"
    );
    assert_eq!(status, 409);
    // Resume on a forfeited game.
    let mut f = game(Some("5400+30"));
    let win = Forfeit::Won(KnownOutcome::Decisive {
        winner: Color::White,
    });
    feed(
        &mut f,
        &[ruled(1_000, ArbiterAction::Forfeit(win), seen(0, None))],
    );
    let d = feed(
        &mut f,
        &[ruled(2_000, ArbiterAction::Resume, seen(0, None))],
    );
    assert_eq!(refused(&d).map(|r| r.1), Some(409), "{d:?}");
    // A position that is no legal one, and a position already standing.
    let mut p = game(None);
    feed(&mut p, &play(1_000, Color::White, Square::E2, Square::E4));
    let d = feed(
        &mut p,
        &[ruled(
            2_000,
            ArbiterAction::SetPosition("8/8/8/8/8/8/8/8 w - - 0 1".into()),
            None,
        )],
    );
    let (reason, status) = refused(&d).expect("refused");
    assert!(reason.contains("not a legal position"), "{reason}");
    assert_eq!(status, 422);
    let now = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let d = feed(
        &mut p,
        &[ruled(3_000, ArbiterAction::SetPosition(now.into()), None)],
    );
    assert_eq!(
        refused(&d),
        Some(("the position is already restored".to_owned(), 422))
    );
    // Restore with nothing to restore.
    let d = feed(&mut p, &[ruled(4_000, ArbiterAction::Restore, None)]);
    assert_eq!(
        refused(&d),
        Some(("the position is already restored".to_owned(), 422))
    );
    assert!(p.rulings().is_empty());
}

#[test]
fn undo_reverses_a_clock_ruling_and_a_correction_keeps_the_reason() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    let d = feed(
        &mut a,
        &[ruled(
            2_000,
            ArbiterAction::SetClock {
                white_ms: 80_000,
                black_ms: 5_400_000,
                moves: None,
            },
            seen(1, None),
        )],
    );
    let (_, effect) = applied(&d).expect("applied");
    // White has 1:30:58.998: the clock shows 1:30:58 (the whole seconds left).
    assert!(effect.starts_with("White 1:30:58 → 0:01:20"), "{effect}");
    let d = feed(
        &mut a,
        &[ruled(3_000, ArbiterAction::Undo(1), seen(1, None))],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let (w, _) = a.clock().unwrap().remaining_at(3_000);
    assert_eq!(w, 5_458_998);
    let r = a.rulings();
    assert_eq!((r[0].undone_by, r[1].undoes), (Some(2), Some(1)));
    // Undone twice: refused.
    let d = feed(
        &mut a,
        &[ruled(4_000, ArbiterAction::Undo(1), seen(1, None))],
    );
    assert_eq!(refused(&d).map(|r| r.1), Some(409));

    // A draw by agreement corrected to 1-0 and back keeps "agreement".
    let mut g = game(None);
    // A move each first: the 2023 profile (5.2.3) takes no agreement before.
    feed(&mut g, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut g, &play(1_500, Color::Black, Square::E7, Square::E5));
    feed(
        &mut g,
        &[
            rec(2_000, RecordKind::Offer(Color::Black)),
            rec(2_100, RecordKind::Accept(Color::White)),
        ],
    );
    assert_eq!(g.outcome().unwrap().reason, EndReason::Agreement);
    let white = KnownOutcome::Decisive {
        winner: Color::White,
    };
    let d = feed(
        &mut g,
        &[ruled(
            3_000,
            ArbiterAction::Confirm(Some(white.into())),
            seen(2, None),
        )],
    );
    assert_eq!(
        events(&d),
        ["result_confirmed", "ruling"],
        "one alert-free correction"
    );
    let d = feed(
        &mut g,
        &[ruled(
            4_000,
            ArbiterAction::Confirm(Some(Score::Game(KnownOutcome::Draw))),
            seen(2, None),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(g.outcome().unwrap().reason, EndReason::Agreement);
    assert!(!g.confirmation().unwrap().corrected);
    // Undo the last correction: back to 1-0, corrected.
    feed(
        &mut g,
        &[ruled(5_000, ArbiterAction::Undo(2), seen(2, None))],
    );
    assert_eq!(g.outcome().unwrap().result, white);
}

#[test]
fn every_ruling_cites_its_article_per_profile() {
    use crate::model::Edition;
    for (edition, name) in [
        (Edition::Fide2001, "fide-2001"),
        (Edition::Fide2009, "fide-2009"),
        (Edition::Fide2009No, "fide-2009-no"),
        (Edition::Fide2023, "fide-2023"),
    ] {
        let ra = RulingArticles::of(edition);
        let header = crate::trace::Header {
            boards: vec![BoardId::Main],
            time_control: Some("5400+30".into()),
            rules: Some(edition),
            // The forfeit at 1 s: no default time to wait for (its
            // refusal before it: `default_time_tests.rs`).
            default_time_ms: Some(0),
            ..crate::trace::Header::default()
        };
        let fresh = || Arbiter::new(GameConfig::from_header(&header, None, None).unwrap());
        let penalties = fresh().config().profile.articles.arbiter;
        let mut a = fresh();
        feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
        let mut cite = |t: u64, action: ArbiterAction| {
            let d = feed(&mut a, &[ruled(t, action, None)]);
            applied(&d).unwrap_or_else(|| panic!("{name}: {d:?}")).0
        };
        let table = [
            ("pause", cite(2_000, ArbiterAction::Pause), ra.pause),
            ("resume", cite(3_000, ArbiterAction::Resume), ra.resume),
            (
                "clock",
                cite(
                    4_000,
                    ArbiterAction::SetClock {
                        white_ms: 60_000,
                        black_ms: 60_000,
                        moves: Some(1),
                    },
                ),
                ra.clock,
            ),
            ("undo", cite(5_000, ArbiterAction::Undo(3)), ra.clock),
            (
                "position",
                cite(
                    6_000,
                    ArbiterAction::SetPosition(
                        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
                    ),
                ),
                ra.position,
            ),
            (
                "result",
                cite(7_000, ArbiterAction::SetResult(KnownOutcome::Draw)),
                ra.result,
            ),
            (
                "confirm",
                cite(8_000, ArbiterAction::Confirm(None)),
                ra.confirm,
            ),
        ];
        let mut b = fresh();
        let win = Forfeit::Won(KnownOutcome::Decisive {
            winner: Color::White,
        });
        let forfeit = applied(&feed(
            &mut b,
            &[ruled(1_000, ArbiterAction::Forfeit(win), None)],
        ))
        .unwrap()
        .0;
        for (kind, got, want) in table.into_iter().chain([("forfeit", forfeit, ra.forfeit)]) {
            assert_eq!(got, want, "{name}: {kind}");
            assert_ne!(got, penalties, "{name}: {kind} gives no penalty");
        }
        assert_eq!(ra.confirm, "DSU 004 §15");
    }
}

#[test]
fn a_pause_is_urgent_whatever_the_ply_but_never_on_a_finished_game() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(2_000, Color::Black, Square::E7, Square::E5));
    // The arbiter saw ply 0 (the board moved on twice since): a pause still holds.
    let d = feed(&mut a, &[ruled(3_000, ArbiterAction::Pause, seen(0, None))]);
    assert_eq!(refused(&d), None, "{d:?}");
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "6.11.1");
    assert!(effect.starts_with("both clocks stopped"), "{effect}");
    // A resume likewise, whatever the ply.
    let d = feed(
        &mut a,
        &[ruled(4_000, ArbiterAction::Resume, seen(1, None))],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    // The game ends (a resignation): a pause and a resume are refused, saying why.
    feed(&mut a, &[rec(5_000, RecordKind::Resign(Color::Black))]);
    let d = feed(&mut a, &[ruled(6_000, ArbiterAction::Pause, seen(2, None))]);
    let (reason, status) = refused(&d).expect("a pause on a finished game is refused");
    assert_eq!(status, 409);
    assert!(
        reason.starts_with("the game is over (1-0, resignation)"),
        "{reason}"
    );
    let d = feed(
        &mut a,
        &[ruled(7_000, ArbiterAction::Resume, seen(2, None))],
    );
    let (reason, status) = refused(&d).expect("a resume on a finished game is refused");
    assert_eq!(status, 409);
    assert!(
        reason.starts_with("the game is over (1-0, resignation)"),
        "{reason}"
    );
    // Confirmed: refused as every ruling on a confirmed game.
    feed(
        &mut a,
        &[ruled(8_000, ArbiterAction::Confirm(None), seen(2, None))],
    );
    let d = feed(
        &mut a,
        &[ruled(9_000, ArbiterAction::Resume, seen(2, None))],
    );
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 409);
    assert!(reason.contains("result confirmed"), "{reason}");
    assert_eq!(
        a.rulings().iter().map(|r| r.action).collect::<Vec<_>>(),
        ["pause", "resume", "confirm"],
        "the refused ones are no rulings given"
    );
}

#[test]
fn a_corrections_reason_stays_with_its_effect() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &[rec(2_000, RecordKind::Resign(Color::Black))]);
    let d = feed(
        &mut a,
        &[rec(
            3_000,
            RecordKind::Arbiter {
                action: ArbiterAction::Confirm(Some(Score::Game(KnownOutcome::Draw))),
                author: Some("IA Hansen".into()),
                expect: seen(1, None),
                reason: Some("the players agreed a draw before the resignation".into()),
            },
        )],
    );
    let (_, effect) = applied(&d).expect("applied");
    assert!(
        effect.ends_with("— reason: the players agreed a draw before the resignation"),
        "{effect}"
    );
    let c = a.confirmation().expect("confirmed");
    assert!(c.corrected);
    assert_eq!(
        c.reason.as_deref(),
        Some("the players agreed a draw before the resignation")
    );
}

#[test]
fn an_illegal_moves_alert_says_whose_clock_runs_while_it_is_set_back() {
    // ia14: in 2023 blitz the offender's clock runs while the position is
    // set back, and nothing said so; the arbiter who judges otherwise
    // (7.1) pauses.
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E5));
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "illegal_move")
        .expect("open");
    assert!(
        m.summary.ends_with(
            "the board waits for the position before it to be set up again, White's clock running"
        ),
        "{m:?}"
    );
}

// Undoing a restore; a result corrected to 0-0.
#[path = "undo_tests.rs"]
mod undo_tests;

// Draw claims on a move written and not made (§9.2a / 9.2.1), held claims.
#[path = "written_tests.rs"]
mod written_tests;

// A forfeit before the default time (6.7.1, DSU 004 §11).
#[path = "default_time_tests.rs"]
mod default_time_tests;

// A no-show's flag replaced by the forfeit (ia13).
#[path = "forfeit_flag_tests.rs"]
mod forfeit_flag_tests;

// Moves in the arbiter's words: SAN, never UCI.
#[path = "san_words_tests.rs"]
mod san_words_tests;

// Forfeits: a no-show after the present player's first move, a double forfeit.
#[path = "forfeit_tests.rs"]
mod forfeit_tests;

// Draw claims the board decided, overruled; their cost taken back.
#[path = "overrule_tests.rs"]
mod overrule_tests;

// A quickplay-finish claim referred to the arbiter (§10.2 / III.5).
#[path = "referred_tests.rs"]
mod referred_tests;
