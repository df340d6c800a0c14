//! Issue 40 §2: a penalty the board gave for an illegal move, withdrawn by
//! the arbiter, leaves the public feeds: the PGN's illegal-move comment
//! and the state's `marks` go (after the broadcast delay, as every public
//! snapshot: the update carries them); an undo of the withdrawal brings
//! them back.

use eboard::arbiter::GameConfig;
use eboard::broadcast::public::{GameInfo, Publisher};
use eboard::controller::Controller;
use eboard::model::{Mode, Player};
use eboard::trace::{ArbiterAction, BoardId, Header, PenaltyRef, Record, RecordKind};
use shakmaty::{Color, Square};

fn info() -> GameInfo {
    GameInfo {
        round: 1,
        board: 2,
        event: Some("Withdrawn".into()),
        site: None,
        country: None,
        website: None,
        date: Some("2026.12.06".into()),
        mode: Mode::Standard,
        time_control: Some("5400+30".into()),
        white: Player::default(),
        black: Player::default(),
        started_at_unix_ms: 1_790_000_000_000,
        speed: 1.0,
        delay_ms: 900_000,
        trial: false,
    }
}

fn rec(t: u64, kind: RecordKind) -> Record {
    Record {
        t,
        board: BoardId::Main,
        kind,
    }
}

fn ruled(t: u64, action: ArbiterAction) -> Record {
    rec(
        t,
        RecordKind::Arbiter {
            action,
            author: Some("IA Hansen".into()),
            expect: None,
            reason: None,
        },
    )
}

#[test]
fn a_withdrawn_penalty_leaves_the_public_pgn_and_an_undo_brings_it_back() {
    let header = Header {
        boards: vec![BoardId::Main],
        time_control: Some("5400+30".into()),
        ..Header::default()
    };
    let cfg = GameConfig::from_header(&header, None, None).expect("header");
    let mut c = Controller::new(cfg);
    let mut p = Publisher::new(info());
    p.snapshot_now(c.arbiter(), 0);
    let mut pgn = String::new();
    let mut marks = serde_json::Value::Null;
    let mut step = |c: &mut Controller, p: &mut Publisher, r: Record| {
        let mut events = Vec::new();
        c.feed(&r, &mut events);
        if let Some(u) = p.update(c.arbiter(), &events, r.t, true) {
            if let Some(s) = u.snapshot {
                pgn = s.pgn.to_string();
                let state: serde_json::Value =
                    serde_json::from_str(&s.state.to_string()).expect("json");
                marks = state["marks"].clone();
            }
        }
        (pgn.clone(), marks.clone())
    };
    // 1. e2-e5: illegal, +2 min to Black, marked in the PGN.
    step(&mut c, &mut p, rec(1_000, RecordKind::Lift(Square::E2)));
    step(
        &mut c,
        &mut p,
        rec(
            1_100,
            RecordKind::Place {
                square: Square::E5,
                color: None,
                piece: None,
            },
        ),
    );
    let (pgn, marks) = step(&mut c, &mut p, rec(1_200, RecordKind::Press(Color::White)));
    assert!(pgn.contains("Illegal move by White"), "{pgn}");
    assert_eq!(marks.as_array().map(Vec::len), Some(1), "{marks}");
    assert_eq!(c.arbiter().illegal_counts(), (1, 0));
    // Withdrawn by the arbiter: no longer in the record.
    let (pgn, marks) = step(
        &mut c,
        &mut p,
        ruled(2_000, ArbiterAction::Withdraw(PenaltyRef::Answered)),
    );
    assert!(!pgn.contains("Illegal move"), "{pgn}");
    assert_eq!(marks.as_array().map(Vec::len), Some(0), "{marks}");
    assert_eq!(c.arbiter().illegal_counts(), (0, 0));
    // The withdrawal undone: marked again.
    let (pgn, _) = step(&mut c, &mut p, ruled(3_000, ArbiterAction::Undo(1)));
    assert!(pgn.contains("Illegal move by White"), "{pgn}");
    assert_eq!(c.arbiter().illegal_counts(), (1, 0));
}
