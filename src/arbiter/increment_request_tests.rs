//! 2023 Guidelines III.4: the five seconds introduced on request
//! (`increment_request.rs`): agreed, the draw offer accepted, refused where
//! Guidelines III do not apply, stale, undone.

use super::rulings_tests::applied as ruling;
use super::rulings_tests::refusal as refused;
use super::*;
use crate::model::{Edition, Mode};
use crate::trace::{Expect, IncrementRequest};

fn game_in(edition: Edition, mode: Mode, tc: &str) -> Arbiter {
    let header = Header {
        boards: vec![BoardId::Main],
        time_control: Some(tc.into()),
        rules: Some(edition),
        mode: Some(mode),
        ..Header::default()
    };
    Arbiter::new(GameConfig::from_header(&header, None, None).expect("valid header"))
}

/// After 1. f3 e5 (Black thinks 799 s) 2. g4, Black is to move with 100 s
/// left at 802 000 ms (15 min, rapid under 2023).
fn black_short_of_time(edition: Edition, mode: Mode, tc: &str) -> Arbiter {
    let mut a = game_in(edition, mode, tc);
    feed(&mut a, &play(1_000, Color::White, Square::F2, Square::F3));
    feed(&mut a, &play(800_000, Color::Black, Square::E7, Square::E5));
    feed(&mut a, &play(801_000, Color::White, Square::G2, Square::G4));
    a
}

fn request(t: u64, by: Color, delay: bool, accepted: bool, ply: Option<u32>) -> Record {
    rec(
        t,
        RecordKind::Arbiter {
            action: ArbiterAction::Increment(IncrementRequest {
                by,
                delay,
                accepted,
            }),
            author: Some("IA Hansen".into()),
            expect: ply.map(|ply| Expect {
                ply,
                event: None,
                result: None,
            }),
            reason: None,
        },
    )
}

#[test]
fn iii4_agreed_gives_both_five_seconds_per_move_and_the_opponent_two_minutes() {
    let mut a = black_short_of_time(Edition::Fide2023, Mode::Rapid, "900");
    let before = a.clock().expect("clock").remaining_at(802_000);
    assert!(before.1 < 120_000, "{before:?}");
    let standing = a.increment_request_standing().expect("III.4 applies");
    assert_eq!((standing.by, standing.under_ms), ("b", 120_000));
    assert_eq!(standing.time_control, ("900".into(), "900+5".into()));
    assert_eq!(standing.delay_time_control, "900d5");
    let d = feed(
        &mut a,
        &[request(802_000, Color::Black, false, false, Some(3))],
    );
    let (article, effect) = ruling(&d).expect("applied");
    assert_eq!(article, "III.4");
    assert!(effect.contains("900 → 900+5"), "{effect}");
    assert!(effect.contains("White gets two extra minutes"), "{effect}");
    let c = a.clock().expect("clock");
    assert_eq!(
        c.remaining_at(802_000),
        (before.0 + 120_000, before.1),
        "two minutes to White"
    );
    assert_eq!(c.time_control().to_string(), "900+5");
    // Black presses 1 s later: 5 s credited; then White's press too.
    feed(&mut a, &play(803_000, Color::Black, Square::D7, Square::D5));
    let c = a.clock().expect("clock");
    assert_eq!(c.remaining_at(803_002).1, before.1 - 1_002 + 5_000);
    feed(&mut a, &play(804_000, Color::White, Square::H2, Square::H3));
    let c = a.clock().expect("clock");
    assert_eq!(
        c.remaining_at(804_002).0,
        before.0 + 120_000 - 1_000 + 5_000
    );
    // Introduced once: a second request is refused.
    feed(&mut a, &play(805_000, Color::Black, Square::A7, Square::A6));
    feed(&mut a, &play(806_000, Color::White, Square::H3, Square::H4));
    let d = feed(
        &mut a,
        &[request(806_500, Color::Black, false, false, None)],
    );
    let (reason, status, _) = refused(&d).expect("refused");
    assert_eq!(status, 422);
    assert!(
        reason.contains("already introduced by ruling #1"),
        "{reason}"
    );
    assert!(a.increment_request_standing().is_none());
}

#[test]
fn iii4_the_draw_offer_accepted_draws_the_game() {
    let mut a = black_short_of_time(Edition::Fide2023, Mode::Standard, "5400");
    // 90 min standard: Black used 799 s, so he has more than two minutes.
    let d = feed(
        &mut a,
        &[request(802_000, Color::Black, false, true, Some(3))],
    );
    let (reason, status, article) = refused(&d).expect("refused");
    assert_eq!((status, article), (422, Some("III.4")));
    assert!(reason.contains("two minutes or more"), "{reason}");
    let mut a = black_short_of_time(Edition::Fide2023, Mode::Rapid, "900");
    let d = feed(
        &mut a,
        &[request(802_000, Color::Black, false, true, Some(3))],
    );
    assert!(ruling(&d).is_some(), "{d:?}");
    let o = a.outcome().expect("drawn");
    assert_eq!(
        (o.result, o.reason, o.article),
        (
            Score::Game(KnownOutcome::Draw),
            EndReason::Agreement,
            "III.4"
        )
    );
}

#[test]
fn iii4_is_refused_where_guidelines_iii_do_not_apply_or_the_ruling_is_stale() {
    /// Edition, mode, control, who asks, the ply seen, status, words.
    type Case = (
        Edition,
        Mode,
        &'static str,
        Color,
        Option<u32>,
        u16,
        &'static str,
    );
    let cases: [Case; 6] = [
        (
            Edition::Fide2009,
            Mode::Rapid,
            "900",
            Color::Black,
            Some(3),
            422,
            "no five seconds on request",
        ),
        (
            Edition::Fide2023,
            Mode::Blitz,
            "900",
            Color::Black,
            Some(3),
            422,
            "III.2.2",
        ),
        (
            Edition::Fide2023,
            Mode::Rapid,
            "900+10",
            Color::Black,
            Some(3),
            422,
            "III.2.2",
        ),
        (
            Edition::Fide2023,
            Mode::Rapid,
            "900",
            Color::White,
            Some(3),
            422,
            "only the player having the move",
        ),
        (
            Edition::Fide2023,
            Mode::Rapid,
            "20/900:900",
            Color::Black,
            Some(3),
            422,
            "not the final period",
        ),
        (
            Edition::Fide2023,
            Mode::Rapid,
            "900",
            Color::Black,
            Some(2),
            409,
            "the game has moved on",
        ),
    ];
    for (edition, mode, tc, by, ply, status, words) in cases {
        let mut a = black_short_of_time(edition, mode, tc);
        let d = feed(&mut a, &[request(802_000, by, false, false, ply)]);
        let (reason, st, _) = refused(&d).unwrap_or_else(|| panic!("{tc} {edition:?}: {d:?}"));
        assert_eq!(st, status, "{tc} {edition:?} {mode:?}: {reason}");
        assert!(reason.contains(words), "{tc} {edition:?}: {reason}");
        assert!(a.outcome().is_none());
    }
}

#[test]
fn iii4_undone_gives_the_control_and_the_times_back() {
    let mut a = black_short_of_time(Edition::Fide2023, Mode::Rapid, "900");
    let before = a.clock().expect("clock").remaining_at(802_000);
    feed(
        &mut a,
        &[request(802_000, Color::Black, true, false, Some(3))],
    );
    assert_eq!(
        a.clock().expect("clock").time_control().to_string(),
        "900d5"
    );
    let d = feed(
        &mut a,
        &[arbiter(802_500, ArbiterAction::Undo(1), Some("IA Hansen"))],
    );
    let (_, effect) = ruling(&d).expect("undone");
    assert!(effect.contains("back to 900"), "{effect}");
    let c = a.clock().expect("clock");
    assert_eq!(c.time_control().to_string(), "900");
    // The 500 ms within the delay were not charged; an undo by amounts
    // leaves them (docs/clock.md, "Five seconds on request").
    assert_eq!(c.remaining_at(802_500), before);
    assert_eq!(c.remaining_at(803_500), (before.0, before.1 - 1_000));
}
