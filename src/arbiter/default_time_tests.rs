//! A no-show's forfeit and the default time (2023 6.7.1; 2009 §6.6a with
//! DSU 004 §11; 2001 §6.7): refused before it passes, with the time it
//! passes; possible once it has; the arbiter's explicit decision before it
//! only with his reason.

use super::*;

fn with_default(edition: crate::model::Edition, default_time_ms: Option<u64>) -> Arbiter {
    let header = crate::trace::Header {
        boards: vec![BoardId::Main],
        time_control: Some("5400+30".into()),
        rules: Some(edition),
        default_time_ms,
        ..crate::trace::Header::default()
    };
    Arbiter::new(GameConfig::from_header(&header, None, None).unwrap())
}

fn forfeit_with(t: u64, action: ArbiterAction, reason: Option<&str>) -> Record {
    rec(
        t,
        RecordKind::Arbiter {
            action,
            author: Some("IA Hansen".into()),
            expect: None,
            reason: reason.map(str::to_owned),
        },
    )
}

/// The arbiter enters Black's no-show as a forfeit (1-0) at round time
/// `t` ms, without a reason: the decisions.
fn white_forfeit(a: &mut Arbiter, t: u64) -> Vec<Decision> {
    feed(
        a,
        &[forfeit_with(t, ArbiterAction::Forfeit(WHITE_WON), None)],
    )
}

const WHITE_WON: Forfeit = Forfeit::Won(KnownOutcome::Decisive {
    winner: Color::White,
});

#[test]
fn a_forfeit_before_the_dsu_default_time_is_refused_with_when_it_passes() {
    use crate::model::Edition;
    // fide-2009 (Danish): 15 min, DSU 004 §11; the session starts at round
    // time 0 (White's clock runs from the start). White is present and
    // moves; Black is absent.
    let mut a = with_default(Edition::Fide2009, None);
    feed(&mut a, &play(60_000, Color::White, Square::E2, Square::E4));
    let st = a.default_time_state();
    assert_eq!(
        (st.ms, st.source, st.article, st.started_t, st.passes_t),
        (900_000, "DSU 004 §11", "6.6a", Some(0), Some(900_000))
    );
    let d = white_forfeit(&mut a, 600_000);
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 409, "{reason}");
    assert!(
        reason.starts_with("too early for a forfeit: the default time of 15 min (DSU 004 §11) passes at round time 0:15:00")
            && reason.contains("in 0:05:00")
            && reason.ends_with("; 6.6a"),
        "{reason}"
    );
    assert!(a.outcome().is_none(), "nothing decided");
    assert!(a.rulings().is_empty(), "no ruling given");
    // Once it has passed: the forfeit stands, as before.
    let d = white_forfeit(&mut a, 900_000);
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.outcome().unwrap().reason, EndReason::Forfeit);
    let (_, effect) = applied(&d).unwrap();
    assert_eq!(effect, "the game is entered as a forfeit, 1-0, confirmed");
}

#[test]
fn the_events_default_time_wins_and_2023_has_none_unless_specified() {
    use crate::model::Edition;
    // 2023 6.7.1: not specified, zero: a forfeit at once.
    let mut a = with_default(Edition::Fide2023, None);
    assert_eq!(a.default_time().ms, 0);
    let d = feed(
        &mut a,
        &[forfeit_with(1_000, ArbiterAction::Forfeit(WHITE_WON), None)],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    // The event's regulations: 30 min under 2023, 0 under the DSU profile.
    let mut b = with_default(Edition::Fide2023, Some(1_800_000));
    let d = feed(
        &mut b,
        &[forfeit_with(1_000, ArbiterAction::Forfeit(WHITE_WON), None)],
    );
    let (reason, _) = refused(&d).expect("refused");
    assert!(
        reason.contains(
            "the default time of 30 min (the event's regulations) passes at round time 0:30:00"
        ) && reason.ends_with("; 6.7.1"),
        "{reason}"
    );
    let mut c = with_default(Edition::Fide2009, Some(0));
    let d = feed(
        &mut c,
        &[forfeit_with(1_000, ArbiterAction::Forfeit(WHITE_WON), None)],
    );
    assert_eq!(refused(&d), None, "{d:?}");
}

#[test]
fn the_session_starts_with_whites_clock_and_the_arbiter_may_decide_before_it() {
    // The clocks wait for the start (`arbiter_or_press`), 10 min default.
    let header = crate::trace::Header {
        boards: vec![BoardId::Main],
        time_control: Some("5400+30".into()),
        default_time_ms: Some(600_000),
        ..crate::trace::Header::default()
    };
    let mut cfg = GameConfig::from_header(&header, None, None).unwrap();
    cfg.clock_start_at = ClockStartAt::ArbiterOrPress;
    let mut a = Arbiter::new(cfg);
    // Not started: refused, saying so.
    let d = white_forfeit(&mut a, 60_000);
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 409);
    assert!(
        reason.contains("the session has not started on this board"),
        "{reason}"
    );
    assert_eq!(a.default_time_state().passes_t, None);
    // Black presses at the arbiter's word at 2 min: White's clock runs,
    // the session started then; the default time passes at 12 min.
    feed(&mut a, &[press(120_000, Color::Black)]);
    assert_eq!(a.default_time_state().passes_t, Some(720_000));
    let black_won = Forfeit::Won(KnownOutcome::Decisive {
        winner: Color::Black,
    });
    let d = feed(
        &mut a,
        &[forfeit_with(
            300_000,
            ArbiterAction::Forfeit(black_won),
            None,
        )],
    );
    let (reason, _) = refused(&d).expect("refused");
    assert!(
        reason.contains("passes at round time 0:12:00")
            && reason.contains("White's clock first running at 0:02:00")
            && reason.contains("in 0:07:00"),
        "{reason}"
    );
    // The arbiter's decision before it: only with his reason (422), then
    // applied and said so.
    let early = ArbiterAction::ForfeitBeforeDefaultTime(black_won);
    let d = feed(&mut a, &[forfeit_with(310_000, early.clone(), Some("  "))]);
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 422, "{reason}");
    assert!(reason.contains("give its reason"), "{reason}");
    let d = feed(
        &mut a,
        &[forfeit_with(
            320_000,
            early,
            Some("White withdrew from the tournament by telephone"),
        )],
    );
    assert_eq!(refused(&d), None, "{d:?}");
    let (article, effect) = applied(&d).unwrap();
    assert_eq!(article, "6.7.1");
    assert_eq!(
        effect,
        "the game is entered as a forfeit, 0-1, confirmed; decided by the arbiter before the \
         default time of 10 min (the event's regulations) passed (at round time 0:12:00) — \
         reason: White withdrew from the tournament by telephone"
    );
    assert_eq!(a.outcome().unwrap().result.as_str(), "0-1");
}

#[test]
fn the_arbiters_early_forfeit_round_trips_through_the_journal() {
    let rec = forfeit_with(
        5,
        ArbiterAction::ForfeitBeforeDefaultTime(Forfeit::Double),
        Some("both withdrew"),
    );
    let v = crate::trace::record_json(&rec);
    assert_eq!(v["before_default_time"], true, "{v}");
    assert_eq!(v["result"], "0-0", "{v}");
    let back = crate::trace::parse_record(v.as_object().unwrap(), 1).unwrap();
    assert_eq!(back, rec);
    let plain = serde_json::json!({"t": 5, "arbiter": "forfeit", "result": "1-0", "before_default_time": "yes"});
    let e = crate::trace::parse_record(plain.as_object().unwrap(), 3).unwrap_err();
    assert!(e.to_string().contains("before_default_time"), "{e}");
}

#[test]
fn the_default_time_counts_from_the_rounds_scheduled_start() {
    use crate::model::Edition;
    // DSU 004 §11: 15 min after "the round's announced start". The round
    // was scheduled 5 min before this board's round time 0 (the daemon
    // started late); the clocks wait for the arbiter or the first press
    // (`arbiter_or_press`), and White's clock never runs: the default time
    // still passes at round time 0:10:00, not 15 min after a press.
    let header = crate::trace::Header {
        boards: vec![BoardId::Main],
        time_control: Some("5400+30".into()),
        rules: Some(Edition::Fide2009),
        session_start_ms: Some(-300_000),
        ..crate::trace::Header::default()
    };
    let mut cfg = GameConfig::from_header(&header, None, None).unwrap();
    cfg.clock_start_at = ClockStartAt::ArbiterOrPress;
    let mut a = Arbiter::new(cfg.clone());
    let st = a.default_time_state();
    assert_eq!(
        (st.started_t, st.scheduled, st.passes_t),
        (Some(-300_000), true, Some(600_000))
    );
    let d = white_forfeit(&mut a, 540_000);
    let (reason, status) = refused(&d).expect("refused");
    assert_eq!(status, 409, "{reason}");
    assert!(
        reason.contains("passes at round time 0:10:00")
            && reason.contains("the round's scheduled start (0:05:00 before round time 0")
            && reason.contains("in 0:01:00"),
        "{reason}"
    );
    let d = white_forfeit(&mut a, 600_000);
    assert_eq!(refused(&d), None, "{d:?}");
    assert_eq!(a.outcome().unwrap().result.as_str(), "1-0");
    // White's first press at 2 min does not move the session's start:
    // Black, absent, loses at 0:10:00 (not at 0:17:00).
    let mut b = Arbiter::new(cfg);
    feed(&mut b, &[press(120_000, Color::Black)]);
    feed(&mut b, &play(180_000, Color::White, Square::E2, Square::E4));
    assert_eq!(b.default_time_state().passes_t, Some(600_000));
    let d = white_forfeit(&mut b, 600_000);
    assert_eq!(refused(&d), None, "{d:?}");
    // The header carries it through a journal and a replay.
    let v = crate::trace::header_json(&header);
    assert_eq!(v["session_start_ms"], -300_000, "{v}");
    let back = crate::trace::Trace::parse(&format!("{v}\n")).unwrap();
    assert_eq!(back.header.session_start_ms, Some(-300_000));
    let mut bad = v.clone();
    bad["session_start_ms"] = "15:00".into();
    let e = crate::trace::Trace::parse(&format!("{bad}\n")).unwrap_err();
    assert!(e.to_string().contains("session_start_ms"), "{e}");
}

// The article of a refused ruling (issue 24.9's round report); here, not
// in `rulings_tests.rs` (over 600 lines), with the same helpers.
#[path = "refused_article_tests.rs"]
mod refused_article_tests;
