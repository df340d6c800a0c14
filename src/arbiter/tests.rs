//! The arbiter's phases and their transitions, driven record by record.

use super::*;
use crate::model::{EndReason, KnownOutcome, Lang, Score};
use crate::trace::{ArbiterAction, Forfeit, Header, QueryKind};
use shakmaty::{Piece, Square};

/// A one-board game under the default profile (standard play, fide-2023),
/// with the time control `tc` when given.
fn game(tc: Option<&str>) -> Arbiter {
    game_with(tc, None)
}

fn game_with(tc: Option<&str>, language: Option<Lang>) -> Arbiter {
    let header = Header {
        boards: vec![BoardId::Main],
        time_control: tc.map(str::to_owned),
        language,
        ..Header::default()
    };
    Arbiter::new(GameConfig::from_header(&header, None, None).expect("valid header"))
}

fn rec(t: u64, kind: RecordKind) -> Record {
    Record {
        t,
        board: BoardId::Main,
        kind,
    }
}

fn lift(t: u64, sq: Square) -> Record {
    rec(t, RecordKind::Lift(sq))
}

fn place(t: u64, sq: Square) -> Record {
    rec(
        t,
        RecordKind::Place {
            square: sq,
            color: None,
            piece: None,
        },
    )
}

fn press(t: u64, side: Color) -> Record {
    rec(t, RecordKind::Press(side))
}

/// Feeds the records; returns the events (announcements as decisions).
fn feed(a: &mut Arbiter, records: &[Record]) -> Vec<Decision> {
    let mut out = Decisions::new();
    for r in records {
        a.record(r, &mut out);
    }
    out.drain().collect()
}

fn events(d: &[Decision]) -> Vec<&'static str> {
    d.iter()
        .map(|d| match d {
            Decision::Event(e) => e.type_name(),
            Decision::Announce { .. } => "(announcement)",
        })
        .collect()
}

/// Plays `from`-`to` and presses the clock at `t`..`t+2`.
fn play(t: u64, side: Color, from: Square, to: Square) -> [Record; 3] {
    [lift(t, from), place(t + 1, to), press(t + 2, side)]
}

/// 1. f3 e5 2. g4, Black to move (Qh4 mates).
fn fools_mate_prelude(a: &mut Arbiter) {
    let mut recs = Vec::new();
    recs.extend(play(1_000, Color::White, Square::F2, Square::F3));
    recs.extend(play(2_000, Color::Black, Square::E7, Square::E5));
    recs.extend(play(3_000, Color::White, Square::G2, Square::G4));
    feed(a, &recs);
    assert_eq!(a.moves().len(), 3);
    assert_eq!(a.phase(), &Phase::Playing);
}

/// The fool's mate to its end: [`fools_mate_prelude`], then 2...Qh4#
/// made at 4,000–4,100 ms and pressed at 4,200.
fn fools_mate_pressed(a: &mut Arbiter) {
    fools_mate_prelude(a);
    feed(
        a,
        &[
            lift(4_000, Square::D8),
            place(4_100, Square::H4),
            press(4_200, Color::Black),
        ],
    );
}

#[test]
fn set_up_until_the_first_move_then_playing() {
    let mut a = game(None);
    assert_eq!(a.phase(), &Phase::Playing);
    assert_eq!(a.stage(), Stage::SetUp);
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    assert_eq!(a.moves().len(), 1);
    assert_eq!(a.stage(), Stage::Playing);
}

#[test]
fn a_mating_move_settles_then_ends_the_game() {
    let mut a = game(None);
    fools_mate_prelude(&mut a);
    feed(&mut a, &[lift(4_000, Square::D8), place(4_100, Square::H4)]);
    match a.phase() {
        Phase::Settling(p) => {
            assert_eq!(p.t, 4_100);
            assert_eq!(p.mv.to(), Square::H4);
            assert!(!p.promotion_assumed);
        }
        other => panic!("expected Settling, got {other:?}"),
    }
    assert_eq!(a.stage(), Stage::Settling);
    assert!(a.outcome().is_none());
    // Not yet: the settle time has not passed.
    let mut out = Decisions::new();
    a.advance(4_100 + DEFAULT_SETTLE_MS - 1, &mut out);
    assert!(matches!(a.phase(), Phase::Settling(_)));
    a.advance(4_100 + DEFAULT_SETTLE_MS, &mut out);
    let o = a.outcome().expect("ended");
    assert_eq!(a.phase(), &Phase::Ended(o));
    assert_eq!(a.stage(), Stage::Ended);
    assert_eq!(
        o.result,
        KnownOutcome::Decisive {
            winner: Color::Black
        }
    );
    assert_eq!(o.reason, EndReason::Checkmate);
    assert_eq!(o.t, 4_100 + DEFAULT_SETTLE_MS);
    let d: Vec<Decision> = out.drain().collect();
    assert_eq!(events(&d), ["move", "game_end"]);
}

#[test]
fn a_lift_cancels_a_pending_end() {
    let mut a = game(None);
    fools_mate_prelude(&mut a);
    feed(&mut a, &[lift(4_000, Square::D8), place(4_100, Square::H4)]);
    assert!(a.phase().pending_end().is_some());
    // The queen was only set down on the way.
    feed(&mut a, &[lift(4_500, Square::H4)]);
    assert_eq!(a.phase(), &Phase::Playing);
    // Long after the first settle time, nothing has ended.
    let mut out = Decisions::new();
    a.advance(10_000, &mut out);
    assert_eq!(a.phase(), &Phase::Playing);
    assert!(a.outcome().is_none());
    // Set down again and pressed: the press completes the mate at once.
    let d = feed(
        &mut a,
        &[place(11_000, Square::H4), press(11_500, Color::Black)],
    );
    assert!(events(&d).contains(&"game_end"));
    assert_eq!(a.outcome().map(|o| o.t), Some(11_500));
}

#[test]
fn an_illegal_move_restores_then_play_goes_on() {
    let mut a = game(None);
    // 1. e2-e5 is illegal; standard play: the arbiter rules at once (§7.5).
    let d = feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E5));
    assert!(events(&d).contains(&"illegal_move"), "{:?}", events(&d));
    assert_eq!(a.phase(), &Phase::Restoring);
    assert!(a.restore_pending());
    assert_eq!(a.stage(), Stage::Restoring);
    // Lifts while restoring are not touches.
    let d = feed(&mut a, &[lift(2_000, Square::E5)]);
    assert!(!events(&d).contains(&"touch"));
    assert_eq!(a.phase(), &Phase::Restoring);
    let d = feed(&mut a, &[place(2_100, Square::E2)]);
    assert_eq!(events(&d), ["position_restored"]);
    assert_eq!(a.phase(), &Phase::Playing);
    // The game goes on from the position.
    feed(&mut a, &play(3_000, Color::White, Square::E2, Square::E4));
    assert_eq!(a.moves().len(), 1);
    assert_eq!(a.moves()[0].san, "e4");
}

#[test]
fn resignation_ends_and_later_input_is_ignored() {
    let mut a = game(None);
    feed(&mut a, &[rec(500, RecordKind::Resign(Color::White))]);
    let o = a.outcome().expect("ended");
    assert_eq!(o.reason, EndReason::Resignation);
    assert_eq!(a.phase(), &Phase::Ended(o));
    let d = feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    assert!(d.is_empty(), "{:?}", events(&d));
    assert!(a.moves().is_empty());
    // The first end stands.
    feed(&mut a, &[rec(2_000, RecordKind::Resign(Color::Black))]);
    assert_eq!(a.outcome(), Some(o));
}

#[test]
fn the_arbiters_take_back_reopens_an_ended_game() {
    let mut a = game(None);
    fools_mate_pressed(&mut a);
    assert!(a.phase().is_ended());
    // Back to the position after 1. f3 e5 (White to move); the board still
    // shows the mate: the pieces must be put back.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2".to_owned();
    let action = RecordKind::Arbiter {
        action: ArbiterAction::SetPosition(fen),
        author: None,
        expect: None,
        reason: None,
    };
    feed(&mut a, &[rec(5_000, action)]);
    assert_eq!(a.moves().len(), 2);
    assert!(a.outcome().is_none());
    assert_eq!(a.phase(), &Phase::Restoring);
}

#[test]
fn the_arbiters_pause_shows_as_paused() {
    let mut a = game(Some("300+2"));
    feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    assert_eq!(a.stage(), Stage::Playing);
    let pause = RecordKind::Arbiter {
        action: ArbiterAction::Pause,
        author: None,
        expect: None,
        reason: None,
    };
    feed(&mut a, &[rec(2_000, pause)]);
    assert_eq!(a.phase(), &Phase::Playing);
    assert_eq!(a.stage(), Stage::Paused);
    let resume = RecordKind::Arbiter {
        action: ArbiterAction::Resume,
        author: None,
        expect: None,
        reason: None,
    };
    feed(&mut a, &[rec(3_000, resume)]);
    assert_eq!(a.stage(), Stage::Playing);
}

#[test]
fn moves_are_announced_as_data_after_the_clock() {
    // Without a language nothing is announced.
    let mut a = game(Some("300+2"));
    let d = feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    assert_eq!(events(&d), ["touch", "move", "clock"]);

    let mut a = game_with(Some("300+2"), Some(Lang::Da));
    let d = feed(&mut a, &play(1_000, Color::White, Square::E2, Square::E4));
    assert_eq!(events(&d), ["touch", "move", "clock", "(announcement)"]);
    match &d[3] {
        Decision::Announce {
            t,
            what: Announcement::Move { before, mv },
            to: None,
        } => {
            assert_eq!(*t, 1_002);
            assert_eq!(before, &Chess::default());
            assert_eq!(mv.to(), Square::E4);
        }
        other => panic!("expected a move announcement, got {other:?}"),
    }
    // E2.9d queries answer with data.
    let q = RecordKind::Query {
        what: QueryKind::Piece,
        by: Color::Black,
        piece: Some(Piece {
            color: Color::White,
            role: Role::Knight,
        }),
        author: None,
    };
    let d = feed(&mut a, &[rec(2_000, q)]);
    match &d[..] {
        [Decision::Announce {
            what:
                Announcement::PieceSquares {
                    color: Color::White,
                    role: Role::Knight,
                    squares,
                },
            ..
        }] => assert_eq!(*squares, Bitboard::from(Square::B1) | Square::G1),
        other => panic!("expected a piece answer, got {other:?}"),
    }
}

/// A game whose clock waits for the start (§6.5, `arbiter_or_press`).
fn waiting_game(tc: &str) -> Arbiter {
    let header = Header {
        boards: vec![BoardId::Main],
        time_control: Some(tc.to_owned()),
        ..Header::default()
    };
    let mut cfg = GameConfig::from_header(&header, None, None).expect("valid header");
    cfg.clock_start_at = ClockStartAt::ArbiterOrPress;
    Arbiter::new(cfg)
}

fn advance(a: &mut Arbiter, t: u64) -> Vec<Decision> {
    let mut out = Decisions::new();
    a.advance(t, &mut out);
    out.drain().collect()
}

#[test]
fn a_board_switched_on_before_the_round_costs_no_one_time() {
    // 60+0, the board on for two minutes before the round: no flag, the
    // game in its set-up stage; Black presses at the arbiter's word at
    // 120 s, and White's clock runs from then: his flag falls at 180 s.
    let mut a = waiting_game("60");
    assert!(events(&advance(&mut a, 120_000)).is_empty());
    assert_eq!(a.stage(), Stage::SetUp);
    let d = feed(&mut a, &[press(120_000, Color::Black)]);
    assert_eq!(events(&d), ["clock"], "the start, no irregularity");
    assert_eq!(a.clock().and_then(|c| c.running()), Some(Color::White));
    assert!(events(&advance(&mut a, 179_000)).is_empty());
    assert!(events(&advance(&mut a, 180_001)).contains(&"flag"));

    // Or White's first move completes the start: his clock starts at his
    // press, so the set-up cost him nothing (60 s left, then Black's runs).
    let mut a = waiting_game("60");
    assert!(events(&advance(&mut a, 90_000)).is_empty());
    let d = feed(&mut a, &play(90_000, Color::White, Square::E2, Square::E4));
    assert!(events(&d).contains(&"move"), "{:?}", events(&d));
    let clock = d.iter().find_map(|d| match d {
        Decision::Event(Event {
            kind: EventKind::Clock { white_ms, .. },
            ..
        }) => Some(*white_ms),
        _ => None,
    });
    assert_eq!(clock, Some(60_000));

    // Or the arbiter starts the clocks (resume).
    let mut a = waiting_game("60");
    feed(
        &mut a,
        &[rec(
            30_000,
            RecordKind::Arbiter {
                action: ArbiterAction::Resume,
                author: None,
                expect: None,
                reason: None,
            },
        )],
    );
    assert!(events(&advance(&mut a, 90_001)).contains(&"flag"));

    // As wired for traces: White's clock runs from t = 0.
    let mut a = game(Some("60"));
    assert!(events(&advance(&mut a, 60_001)).contains(&"flag"));
}

fn arbiter(t: u64, action: ArbiterAction, author: Option<&str>) -> Record {
    rec(
        t,
        RecordKind::Arbiter {
            action,
            author: author.map(str::to_owned),
            expect: None,
            reason: None,
        },
    )
}

#[test]
fn a_result_is_provisional_until_the_arbiter_confirms_or_corrects_it() {
    let mut a = game(None);
    fools_mate_prelude(&mut a);
    feed(&mut a, &[lift(4_000, Square::D8), place(4_100, Square::H4)]);
    let mut out = Decisions::new();
    a.advance(4_100 + DEFAULT_SETTLE_MS, &mut out);
    let o = a.outcome().expect("checkmate ends the game");
    assert_eq!(a.confirmation(), None, "provisional after the board's end");
    // Confirming without a result keeps the board's.
    let d = feed(
        &mut a,
        &[arbiter(
            7_000,
            ArbiterAction::Confirm(None),
            Some("IA Hansen"),
        )],
    );
    assert_eq!(events(&d), ["result_confirmed", "ruling"]);
    assert_eq!(
        a.confirmation(),
        Some(&Confirmation {
            result: o.result,
            corrected: false,
            forfeit: false,
            reason: None,
        })
    );
    // A correction replaces the result (the arbiter's decision) and says so.
    let d = feed(
        &mut a,
        &[arbiter(
            8_000,
            ArbiterAction::Confirm(Some(Score::Game(KnownOutcome::Draw))),
            Some("IA Hansen"),
        )],
    );
    // One ruling: no second `game_end` (no second "result to confirm"
    // alert); the confirmation is announced.
    assert_eq!(events(&d), ["result_confirmed", "ruling"]);
    assert_eq!(a.outcome().unwrap().result, KnownOutcome::Draw);
    assert_eq!(a.outcome().unwrap().reason, EndReason::ArbiterDecision);
    assert!(a.confirmation().unwrap().corrected);
    let Decision::Event(e) = &d[1] else {
        panic!("{d:?}")
    };
    assert_eq!(
        e.kind,
        EventKind::Ruling {
            action: "confirm",
            author: "IA Hansen".into(),
            article: "DSU 004 §15",
            seq: 2,
            effect: "0-1 (checkmate) corrected to 1/2-1/2 (arbiter_decision), confirmed".into(),
            answers: None,
            reason_at: None,
        }
    );
}

#[test]
fn a_forfeit_before_the_opponents_first_move_and_confirmed_at_once() {
    let mut a = game(Some("5400+30"));
    let win = KnownOutcome::Decisive {
        winner: Color::White,
    };
    let win = Forfeit::Won(win);
    let d = feed(&mut a, &[arbiter(1_000, ArbiterAction::Forfeit(win), None)]);
    assert_eq!(events(&d), ["game_end", "result_confirmed"]);
    assert_eq!(a.outcome().unwrap().reason, EndReason::Forfeit);
    assert!(a.confirmation().unwrap().forfeit);
    // Once both players moved, a forfeit is refused (with the reason, no
    // irregularity); confirming with nothing to confirm too.
    let mut b = game(None);
    feed(&mut b, &play(1_000, Color::White, Square::E2, Square::E4));
    feed(&mut b, &play(2_000, Color::Black, Square::E7, Square::E5));
    let d = feed(&mut b, &[arbiter(3_000, ArbiterAction::Forfeit(win), None)]);
    assert_eq!(events(&d), ["ruling_refused"]);
    assert!(b.outcome().is_none());
    let d = feed(
        &mut b,
        &[arbiter(4_000, ArbiterAction::Confirm(None), None)],
    );
    assert_eq!(events(&d), ["ruling_refused"]);
    assert_eq!(b.confirmation(), None);
}

#[path = "rulings_tests.rs"]
mod rulings_tests;

#[path = "both_flags_tests.rs"]
mod both_flags_tests;

#[path = "increment_request_tests.rs"]
mod increment_request_tests;

#[path = "claim_reasons_tests.rs"]
mod claim_reasons_tests;
#[path = "clock_rulings_tests.rs"]
mod clock_rulings_tests;
#[path = "declared_tests.rs"]
mod declared_tests;
#[path = "displaced_tests.rs"]
mod displaced_tests;
#[path = "withdraw_end_tests.rs"]
mod withdraw_end_tests;
