//! Rulings bound to what the arbiter saw (issue 24): refused with a reason
//! when stale, decided, impossible or without effect; the open matters
//! worded by effect; undo; the articles per profile. Forfeits in
//! `forfeit_tests.rs`.

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
fn a_rejected_claim_offers_only_overrule_which_upholds_it() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::G1, Square::F3));
    // Black claims a repetition that is not there: the board rejects it.
    feed(&mut a, &[claim(2_000, ClaimKind::Threefold, Color::Black)]);
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "claim")
        .expect("the claim is open");
    assert!(m.summary.contains("the board rejected it"), "{m:?}");
    assert_eq!(m.rulings.len(), 1, "{m:?}");
    assert_eq!(m.rulings[0].action, "overrule");
    assert!(
        m.rulings[0]
            .effect
            .starts_with("the board rejected the claim; overruling upholds it: the game is drawn"),
        "{m:?}"
    );
    // Overruling upholds it: a draw by repetition, not "nothing".
    let d = feed(
        &mut a,
        &[ruled(
            3_000,
            ArbiterAction::Overrule,
            seen(1, Some(("claim", 2_000))),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let o = a.outcome().expect("the claim upheld ends the game");
    assert_eq!(
        (o.result, o.reason),
        (Score::Game(KnownOutcome::Draw), EndReason::Threefold)
    );
    assert!(a.open().iter().all(|m| m.kind != "claim"));
}

#[test]
fn a_ruling_on_a_claim_decided_moves_ago_is_refused_and_so_on_replay() {
    let mut recs = Vec::new();
    recs.extend(play(1_000, Color::White, Square::G1, Square::F3));
    recs.push(claim(2_000, ClaimKind::Threefold, Color::Black));
    recs.extend(play(3_000, Color::Black, Square::G8, Square::F6));
    recs.extend(play(4_000, Color::White, Square::F3, Square::G1));
    recs.extend(play(5_000, Color::Black, Square::F6, Square::G8));
    recs.push(ruled(
        6_000,
        ArbiterAction::Overrule,
        seen(1, Some(("claim", 2_000))),
    ));
    let mut a = game(Some("5400+30"));
    let d = feed(&mut a, &recs);
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(reason, "the claim was decided three moves ago");
    assert_eq!(status, 409);
    assert!(a.outcome().is_none());
    assert!(
        a.rulings().is_empty(),
        "journaled as refused, never as given"
    );
    // The journal replayed: the same decision.
    let mut b = game(Some("5400+30"));
    assert_eq!(refused(&feed(&mut b, &recs)), Some((reason, status)));
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
    assert!(effect.starts_with("White 1:30:59 → 0:01:20"), "{effect}");
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

/// Found in the 4-board walk-through as an IA: a claim the board decided,
/// then the game ended by something later (two illegal moves there, a
/// resignation here) at the same ply. Overruling the claim would have
/// erased that result; the claim is no longer open, and overruling it is
/// refused as stale, with or without the alert named.
#[test]
fn a_claim_is_no_longer_open_once_something_later_ended_the_game() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::G1, Square::F3));
    feed(&mut a, &[claim(2_000, ClaimKind::Threefold, Color::Black)]);
    assert!(a.open().iter().any(|m| m.kind == "claim"));
    feed(&mut a, &[rec(5_000, RecordKind::Resign(Color::Black))]);
    assert_eq!(
        a.outcome().map(|o| o.result),
        Some(crate::model::Score::from(crate::model::win_for(
            Color::White
        )))
    );
    assert!(
        !a.open().iter().any(|m| m.kind == "claim"),
        "{:?}",
        a.open()
    );
    for expect in [seen(1, Some(("claim", 2_000))), None] {
        let d = feed(&mut a, &[ruled(6_000, ArbiterAction::Overrule, expect)]);
        let (reason, status) = refused(&d).expect("refused");
        assert_eq!(status, 409, "{reason}");
        assert!(applied(&d).is_none());
        assert_eq!(
            a.outcome().map(|o| o.result),
            Some(crate::model::Score::from(crate::model::win_for(
                Color::White
            )))
        );
    }
}

/// ia16: White claims fifty moves the board cannot count (2023: rejected,
/// time to Black, 9.5.3) and his clock runs on while the arbiter comes to
/// read the scoresheet; his flag falls. The claim is no longer open to an
/// overrule from its own alert (the game is over), but if it was correct
/// the game was drawn when it was made (9.5.2): the refusal says so and
/// how to give it. ia18: the result's alert offers "The claim was
/// correct", which draws the game with the claim's reason and article,
/// confirms it, and takes the claim's cost (the time the board added to
/// Black's clock) back (a correction to 1/2-1/2 left it to him); undone,
/// the flag's 0-1 and the cost stand again.
#[test]
fn a_rejected_claim_overruled_after_the_claimants_flag_says_how_to_draw_the_game() {
    let mut a = game(Some("60"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(2_000, Color::Black, Square::E7, Square::E5));
    let black_before = a.clock().map(|c| c.remaining_at(2_500).1);
    feed(&mut a, &[claim(2_500, ClaimKind::FiftyMoves, Color::White)]);
    let black_rejected = a.clock().map(|c| c.remaining_at(2_500).1);
    assert!(black_rejected > black_before, "the claim's cost to Black");
    advance(&mut a, 62_000);
    let end = a.outcome().expect("White's flag");
    assert_eq!(end.reason, EndReason::Time);
    for expect in [seen(2, Some(("claim", 2_500))), None] {
        let d = feed(&mut a, &[ruled(63_000, ArbiterAction::Overrule, expect)]);
        let (reason, status) = refused(&d).expect("refused");
        assert_eq!(status, 409, "{reason}");
        assert!(
            reason.contains("if the claim was correct, the game was drawn when it was made")
                && reason.contains("rule \"The claim was correct\" on the result's alert")
                && reason.contains("(9.3.2)")
                && !reason.contains("  "),
            "{reason}"
        );
    }
    // The result's alert offers it, worded by its effect.
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "game_end")
        .expect("the result to confirm");
    let r = m
        .rulings
        .iter()
        .find(|r| r.action == "overrule")
        .expect("The claim was correct");
    assert_eq!(r.label, "The claim was correct: 1/2-1/2");
    assert!(
        r.effect
            .contains("found correct, the game was drawn when it was made")
            && r.effect.contains("0-1 → 1/2-1/2, corrected and confirmed")
            && r.effect.contains("taken back (Black -0:0"),
        "{}",
        r.effect
    );
    let from_end = seen(2, Some(("game_end", m.t)));
    let d = feed(
        &mut a,
        &[ruled(64_000, ArbiterAction::Overrule, from_end.clone())],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let (article, effect) = applied(&d).expect("applied");
    assert_eq!(article, "9.3.2");
    assert_eq!(effect, r.effect);
    let o = a.outcome().expect("drawn");
    assert_eq!(
        (o.result, o.reason),
        (Score::Game(KnownOutcome::Draw), EndReason::FiftyMoves)
    );
    let c = a.confirmation().expect("confirmed");
    assert!(c.corrected, "{c:?}");
    assert!(events(&d).contains(&"result_confirmed"), "{:?}", events(&d));
    assert_eq!(a.clock().map(|c| c.remaining_at(64_000).1), black_before);
    // Asked again: refused, the game confirmed.
    let d = feed(&mut a, &[ruled(65_000, ArbiterAction::Overrule, from_end)]);
    assert!(refused(&d).is_some(), "{d:?}");
    // Undone: the flag's 0-1 and the claim's cost stand again.
    let seq = a.rulings().last().map(|r| r.seq).expect("the ruling");
    let d = feed(&mut a, &[ruled(66_000, ArbiterAction::Undo(seq), None)]);
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(
        a.outcome().map(|o| (o.result, o.reason)),
        Some((end.result, end.reason))
    );
    assert!(a.confirmation().is_none());
    assert_eq!(a.clock().map(|c| c.remaining_at(66_000).1), black_rejected);
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

/// ia17 1.3: White's threefold claim rejected (2023 9.5.3: +2 min to
/// Black), then White's illegal Ng1-g4 raised (7.5.1: the position to be
/// restored), then the arbiter's "Overrule" asked from the claim's alert
/// before the illegal move. A correct claim drew the game when it was made
/// (9.5.2), before the illegal move: the game is drawn by repetition as of
/// the claim, the claim's cost taken back, and the illegal move's alert
/// closed with it (no live "Restore" on a finished game, no more 7.5.5
/// time to Black asked of the arbiter); the position recorded is the claim's. The
/// expect names the claim, so the overrule is the claim's, not a
/// let-stand of the illegal move. The clocks: exactly what the question
/// said, the claim's two minutes taken back from Black; the illegal
/// move's 7.5.5 two minutes, given when it was made, stay on the record
/// (the ruling says nothing of them, so it does not touch them).
#[test]
fn a_claim_upheld_after_an_illegal_move_was_raised_closes_the_illegal_moves_alert() {
    let mut a = game(Some("5400+30"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut a, &play(3_000, Color::Black, Square::E7, Square::E5));
    feed(&mut a, &[claim(4_000, ClaimKind::Threefold, Color::White)]);
    let black_after_claim = a.clock().map(|c| c.remaining_at(4_000).1);
    let d = feed(&mut a, &play(45_000, Color::White, Square::G1, Square::G4));
    assert!(events(&d).contains(&"illegal_move"), "{:?}", events(&d));
    let black_after_illegal = a.clock().map(|c| c.remaining_at(45_010).1);
    assert!(a.open().iter().any(|m| m.kind == "illegal_move"));
    let fen_before = a.pos.board().clone();
    let d = feed(
        &mut a,
        &[ruled(
            50_000,
            ArbiterAction::Overrule,
            seen(2, Some(("claim", 4_000))),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let (_, effect) = applied(&d).expect("applied");
    assert!(effect.contains("upheld"), "{effect}");
    let o = a.outcome().expect("drawn");
    assert_eq!(
        (o.result, o.reason),
        (Score::Game(KnownOutcome::Draw), EndReason::Threefold)
    );
    assert!(
        a.open()
            .iter()
            .all(|m| m.kind != "illegal_move" && m.kind != "claim"),
        "{:?}",
        a.open()
    );
    assert!(!a.restore_pending(), "nothing to restore on a drawn game");
    assert_eq!(
        a.pos.board(),
        &fen_before,
        "the position recorded is the claim's"
    );
    assert_eq!(a.moves().len(), 2);
    assert!(effect.contains("(Black -0:02:00)"), "{effect}");
    let now = a.clock().map(|c| c.remaining_at(50_000).1);
    assert_eq!(
        now,
        black_after_illegal.map(|b| b - 120_000),
        "the claim's +2:00 taken back from Black, nothing else"
    );
    assert_eq!(
        now, black_after_claim,
        "7.5.5's +2:00 in place of the claim's"
    );
}
