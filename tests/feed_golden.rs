//! The publisher builds a board's snapshot move by move (issue 28): the
//! PGN, the LiveChess game and the live page's state (public and the
//! arbiter's) must be byte for byte the whole build from every move
//! (`eboard::broadcast::rebuilt::rebuilt`) at every update of every game.
//! Over the real games of `../shared/data/pgn` (simulated with noisy hands
//! as in the corpus test), under every profile, with illegal moves (an
//! illegal move put on the board and taken back, one that stands in rapid
//! and blitz) injected into some, so the marks, the comments and the
//! record that starts after an illegal move that stood are covered too.

use crate::common;

use common::shared_pgn_dir_or_skip;
use eboard::arbiter::GameConfig;
use eboard::broadcast::public::{GameInfo, Publisher, Snapshot};
use eboard::broadcast::rebuilt::rebuilt;
use eboard::controller::Controller;
use eboard::model::{Edition, Mode, Player};
use eboard::sim::{simulate, SimOptions};
use eboard::trace::{Record, RecordKind, Sensing, Trace};
use shakmaty::{Color, Square};

fn info(trial: bool) -> GameInfo {
    GameInfo {
        round: 3,
        board: 7,
        event: Some("Golden \"Open\"".into()),
        site: None,
        country: None,
        website: None,
        date: Some("2026.11.26".into()),
        mode: Mode::Standard,
        time_control: None,
        white: Player {
            name: Some("Sørensen, Jens".into()),
            fide_id: Some(1_234_567),
            rating: Some(2345),
            ..Player::default()
        },
        black: Player {
            name: Some("Æbelø, Anne".into()),
            title: Some("WIM".into()),
            federation: Some("DEN".into()),
            ..Player::default()
        },
        started_at_unix_ms: 1_790_000_000_000,
        speed: 1.0,
        delay_ms: 0,
        trial,
    }
}

fn same(what: &str, got: &Snapshot, want: &Snapshot) -> Result<(), String> {
    let parts = [
        ("pgn", got.pgn.to_string(), want.pgn.to_string()),
        ("game", got.game.to_string(), want.game.to_string()),
        ("state", got.state.to_string(), want.state.to_string()),
        ("pairing", got.pairing.to_string(), want.pairing.to_string()),
        (
            "serialized",
            serde_json::to_string(got).unwrap(),
            serde_json::to_string(want).unwrap(),
        ),
    ];
    for (name, g, w) in parts {
        if g != w {
            return Err(format!("{what} {name} differs:\n got {g}\nwant {w}"));
        }
    }
    Ok(())
}

/// A state without what changes with the time of reading alone (`t`, the
/// clock's readings).
fn timeless(state: &serde_json::Value) -> serde_json::Value {
    let mut s = state.clone();
    if let Some(m) = s.as_object_mut() {
        m.remove("t");
        if let Some(c) = m.get_mut("clock").and_then(|c| c.as_object_mut()) {
            for k in ["white_ms", "black_ms", "unix_ms"] {
                c.remove(k);
            }
        }
    }
    s
}

/// Replays `trace` through a controller and a publisher, comparing every
/// update with the whole build; the number of updates compared.
fn check(trace: &Trace, rules: Edition, trial: bool) -> Result<(usize, usize), String> {
    let cfg =
        GameConfig::from_header(&trace.header, Some(rules), None).map_err(|e| e.to_string())?;
    let mut c = Controller::new(cfg);
    let mut p = Publisher::new(info(trial));
    let mut events = Vec::new();
    let (mut n, mut marked) = (0, 0);
    let first = p.snapshot_now(c.arbiter(), 0);
    let (want, want_arb) = rebuilt(&p, c.arbiter(), 0);
    same("first", first.snapshot.as_ref().unwrap(), &want)?;
    same(
        "first arbiter",
        first.arbiter_snapshot.as_ref().unwrap(),
        &want_arb,
    )?;
    let finish = trace.duration_ms();
    // The arbiter's last snapshot; the last public one's seq and moves.
    let mut arb_seen = first.arbiter_snapshot.clone().unwrap();
    let mut shown = (first.seq, Vec::new());
    for (i, r) in trace.records.iter().enumerate() {
        events.clear();
        c.feed(r, &mut events);
        let Some(u) = p.update(c.arbiter(), &events, r.t, false) else {
            continue;
        };
        let (want, want_arb) = rebuilt(&p, c.arbiter(), r.t);
        let at = format!("record {i} (t {}, ply {})", r.t, c.arbiter().moves().len());
        let Some(snap) = &u.snapshot else {
            // An event only the arbiter sees: his snapshot again when his
            // state changed in more than the time of reading, else none.
            match &u.arbiter_snapshot {
                Some(arb) => {
                    same(&at, arb, &want_arb)?;
                    arb_seen = arb.clone();
                }
                None if timeless(&arb_seen.state) != timeless(&want_arb.state) => {
                    return Err(format!("{at}: the arbiter's state changed, not sent"));
                }
                None => {}
            }
            continue;
        };
        marked += usize::from(!p.marks().is_empty());
        same(&at, snap, &want)?;
        same(&at, u.arbiter_snapshot.as_ref().unwrap(), &want_arb)?;
        arb_seen = u.arbiter_snapshot.clone().unwrap();
        // The outline links it to the public snapshot before: the moves
        // it says were kept are the same moves.
        let moves: Vec<String> = c.arbiter().moves().iter().map(|m| m.uci.clone()).collect();
        let o = snap.outline.as_ref().ok_or(format!("{at}: no outline"))?;
        let common = shown
            .1
            .iter()
            .zip(&moves)
            .take_while(|(a, b)| a == b)
            .count();
        if o.since != shown.0 || o.plies != moves.len() || o.kept > common {
            return Err(format!(
                "{at}: outline {o:?} after seq {}, {common} moves kept",
                shown.0
            ));
        }
        shown = (snap.seq, moves);
        n += 1;
    }
    events.clear();
    c.finish(finish, &mut events);
    if let Some(u) = p.update(c.arbiter(), &events, finish, true) {
        let (want, want_arb) = rebuilt(&p, c.arbiter(), finish);
        same("finish", u.snapshot.as_ref().unwrap(), &want)?;
        same(
            "finish arbiter",
            u.arbiter_snapshot.as_ref().unwrap(),
            &want_arb,
        )?;
        n += 1;
    }
    Ok((n, marked))
}

/// The records of `trace` with an illegal move by the side to move put in
/// before the record at `at`: the king of `color` from `from` to `to`,
/// pressed, then (`back`) taken back to `from`.
fn with_illegal(
    trace: &Trace,
    at: usize,
    color: Color,
    from: Square,
    to: Square,
    back: bool,
) -> Trace {
    let mut t = trace.clone();
    let t0 = t.records[at].t;
    let rec = |dt: u64, kind: RecordKind| Record {
        t: t0 + dt,
        board: eboard::trace::BoardId::Main,
        kind,
    };
    let place = |sq| RecordKind::Place {
        square: sq,
        color: None,
        piece: None,
    };
    let mut add = vec![
        rec(0, RecordKind::Lift(from)),
        rec(1, place(to)),
        rec(2, RecordKind::Press(color)),
    ];
    if back {
        add.push(rec(3, RecordKind::Lift(to)));
        add.push(rec(4, place(from)));
    }
    let shift = add.len() as u64 + 1;
    for r in &mut t.records[at..] {
        r.t += shift;
    }
    t.records.splice(at..at, add);
    t
}

#[test]
fn the_snapshot_built_move_by_move_is_the_whole_build() {
    let Some(dir) = shared_pgn_dir_or_skip() else {
        return;
    };
    let files = [
        ("lichess_db_2025-05_438games.pgn", 438),
        ("twic1599_1110games.pgn", 120),
        ("engine_threefold_188games.pgn", 60),
        ("edge_cases.pgn", usize::MAX),
    ];
    let profiles = [
        Edition::Fide2023,
        Edition::Fide2009,
        Edition::Fide2009No,
        Edition::Fide2001,
    ];
    let (mut games, mut updates, mut illegal, mut marked) = (0, 0, 0, 0);
    for (file, take) in files {
        let text = std::fs::read_to_string(dir.join(file)).expect("corpus file");
        for (i, g) in eboard::pgn::read_games(&text)
            .expect("PGN")
            .iter()
            .enumerate()
            .take(take)
        {
            let opts = SimOptions {
                seed: i as u64,
                sensing: Sensing::Occupancy,
                frames: false,
            };
            let Ok(trace) = simulate(g, &opts) else {
                continue;
            };
            let rules = profiles[i % profiles.len()];
            let mut run = |t: &Trace, trial: bool| match check(t, rules, trial) {
                Ok((n, m)) => {
                    updates += n;
                    marked += m;
                }
                Err(e) => panic!("{file} game {} ({rules:?}): {e}", i + 1),
            };
            run(&trace, i % 5 == 0);
            games += 1;
            // Every fifth game again with an illegal king move in the middle:
            // taken back (a mark, then corrected) or left to stand.
            if i % 5 == 1 {
                let presses: Vec<usize> = trace
                    .records
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| matches!(r.kind, RecordKind::Press(_)))
                    .map(|(k, _)| k + 1)
                    .collect();
                if presses.len() > 12 {
                    let at = presses[presses.len() / 2];
                    // The side to move after an even number of presses.
                    let white = (presses.len() / 2).is_multiple_of(2);
                    let (color, from) = if white {
                        (Color::White, Square::A1)
                    } else {
                        (Color::Black, Square::A8)
                    };
                    let to = if white { Square::A4 } else { Square::A5 };
                    if at < trace.records.len() {
                        run(
                            &with_illegal(&trace, at, color, from, to, i % 10 == 1),
                            false,
                        );
                        illegal += 1;
                    }
                }
            }
        }
    }
    assert!(games > 600, "only {games} games compared");
    assert!(updates > 50_000, "only {updates} updates compared");
    assert!(
        marked > 200,
        "only {marked} updates with an illegal move marked"
    );
    eprintln!(
        "{games} games ({illegal} with an illegal move), {updates} updates ({marked} with a mark): byte for byte"
    );
}

/// Issue 40 §2: a penalty the board gave for an illegal move, withdrawn by
/// the arbiter, leaves the public feeds: the PGN's illegal-move comment
/// and the state's `marks` go (after the broadcast delay, as every public
/// snapshot: the update carries them); an undo of the withdrawal brings
/// them back.
mod withdrawn_penalty {

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

    /// A board at 5400+30 and its publisher (the snapshot taken at 0),
    /// with the last public PGN and `marks` (none yet).
    fn published() -> (Controller, Publisher, (String, serde_json::Value)) {
        let header = Header {
            boards: vec![BoardId::Main],
            time_control: Some("5400+30".into()),
            ..Header::default()
        };
        let cfg = GameConfig::from_header(&header, None, None).expect("header");
        let c = Controller::new(cfg);
        let mut p = Publisher::new(info());
        p.snapshot_now(c.arbiter(), 0);
        (c, p, (String::new(), serde_json::Value::Null))
    }

    /// Feeds `r`; the public PGN and the state's `marks` of the last
    /// snapshot (kept in `last` between snapshots).
    fn step(
        c: &mut Controller,
        p: &mut Publisher,
        last: &mut (String, serde_json::Value),
        r: Record,
    ) -> (String, serde_json::Value) {
        let mut events = Vec::new();
        c.feed(&r, &mut events);
        if let Some(u) = p.update(c.arbiter(), &events, r.t, true) {
            if let Some(s) = u.snapshot {
                let state: serde_json::Value =
                    serde_json::from_str(&s.state.to_string()).expect("json");
                *last = (s.pgn.to_string(), state["marks"].clone());
            }
        }
        last.clone()
    }

    #[test]
    fn a_withdrawn_penalty_leaves_the_public_pgn_and_an_undo_brings_it_back() {
        let (mut c, mut p, mut last) = published();
        let mut step = |c: &mut Controller, p: &mut Publisher, r: Record| step(c, p, &mut last, r);
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

    #[test]
    fn a_mate_the_arbiter_cancels_leaves_the_public_pgn_and_an_undo_brings_it_back() {
        let (mut c, mut p, mut last) = published();
        let mut step =
            |c: &mut Controller, p: &mut Publisher, r: Record| step(c, p, &mut last, r).0;
        // 1. f3 e5 2. g4 Qh4#, as the board read it.
        let moves = [
            (Square::F2, Square::F3, Color::White),
            (Square::E7, Square::E5, Color::Black),
            (Square::G2, Square::G4, Color::White),
            (Square::D8, Square::H4, Color::Black),
        ];
        let mut t = 1_000;
        for (from, to, side) in moves {
            step(&mut c, &mut p, rec(t, RecordKind::Lift(from)));
            let place = RecordKind::Place {
                square: to,
                color: None,
                piece: None,
            };
            step(&mut c, &mut p, rec(t + 100, place));
            step(&mut c, &mut p, rec(t + 200, RecordKind::Press(side)));
            t += 1_000;
        }
        let end = c.arbiter().outcome().expect("mate");
        let pgn = step(&mut c, &mut p, rec(t, RecordKind::Lift(Square::A7)));
        assert!(
            pgn.contains("Qh4#") && pgn.contains("[Result \"0-1\"]"),
            "{pgn}"
        );
        // The arbiter cancels the board's mate: the move and the result leave.
        let cancel = ArbiterAction::Withdraw(PenaltyRef::End {
            t: Some(end.t),
            times: None,
        });
        let pgn = step(&mut c, &mut p, ruled(t + 1_000, cancel));
        assert!(c.arbiter().outcome().is_none());
        assert!(!pgn.contains("Qh4") && !pgn.contains("0-1"), "{pgn}");
        assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
        // Undone: the mate and its result are back.
        let pgn = step(&mut c, &mut p, ruled(t + 2_000, ArbiterAction::Undo(1)));
        assert!(
            pgn.contains("Qh4#") && pgn.contains("[Result \"0-1\"]"),
            "{pgn}"
        );
    }

    #[test]
    fn the_livechess_tournament_follows_a_time_control_the_arbiter_installs() {
        let header = Header {
            boards: vec![BoardId::Main],
            time_control: Some("5400".into()),
            ..Header::default()
        };
        let cfg = GameConfig::from_header(&header, None, None).expect("header");
        let mut c = Controller::new(cfg);
        let mut p = Publisher::new(GameInfo {
            time_control: Some("5400".into()),
            ..info()
        });
        p.snapshot_now(c.arbiter(), 0);
        let step = |c: &mut Controller, p: &mut Publisher, r: Record| {
            let mut events = Vec::new();
            c.feed(&r, &mut events);
            p.update(c.arbiter(), &events, r.t, true)
                .and_then(|u| u.snapshot)
                .map(|s| {
                    let tournament = eboard::broadcast::livechess::tournament_json(&[&s]);
                    tournament["timecontrol"].clone()
                })
        };
        step(&mut c, &mut p, rec(1_000, RecordKind::Lift(Square::E2)));
        let place = RecordKind::Place {
            square: Square::E4,
            color: None,
            piece: None,
        };
        step(&mut c, &mut p, rec(1_100, place));
        let tc = step(&mut c, &mut p, rec(1_200, RecordKind::Press(Color::White)));
        assert_eq!(tc, Some(serde_json::json!("5400")));
        // 6.10.2: the clock was set wrong; the arbiter installs 5400+30.
        let install = ArbiterAction::TimeControl {
            control: "5400+30".into(),
            from_move: None,
            times: None,
        };
        let tc = step(&mut c, &mut p, ruled(2_000, install));
        assert_eq!(tc, Some(serde_json::json!("5400+30")));
        // Undone: the configured control again.
        let tc = step(&mut c, &mut p, ruled(3_000, ArbiterAction::Undo(1)));
        assert_eq!(tc, Some(serde_json::json!("5400")));
    }
}
