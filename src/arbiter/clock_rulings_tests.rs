//! Issue 40: the `downtime` ruling (2023 7.1: the daemon's record stops the
//! clocks charged to nobody; the arbiter charges the mover, gives it back,
//! undoes) and the `time_control` ruling's refusals (6.10.2).

use super::rulings_tests::applied as ruling;
use super::rulings_tests::refusal as refused;
use super::*;
use crate::trace::DowntimeCharge;

fn by(t: u64, action: ArbiterAction, author: &str) -> Record {
    rec(
        t,
        RecordKind::Arbiter {
            action,
            author: Some(author.into()),
            expect: None,
            reason: None,
        },
    )
}

fn downtime(charge: DowntimeCharge, ms: Option<u64>) -> ArbiterAction {
    ArbiterAction::Downtime { charge, ms }
}

/// After 1. e4 at `5400`, the board down from 11 000 ms for three
/// minutes, its own clock stopped with it; also both clocks when it went
/// down, ms.
fn after_a_power_cut() -> (Arbiter, (u64, u64)) {
    let header = Header {
        boards: vec![BoardId::Main],
        time_control: Some("5400".into()),
        ..Header::default()
    };
    let mut a = Arbiter::new(GameConfig::from_header(&header, None, None).expect("header"));
    feed(&mut a, &play(400, Color::White, Square::E2, Square::E4));
    let at_cut = a.clock().expect("clock").remaining_at(11_000);
    let d = feed(
        &mut a,
        &[by(
            11_000,
            downtime(DowntimeCharge::Nobody, Some(180_000)),
            crate::arbiter::DOWNTIME_AUTHOR,
        )],
    );
    let (article, effect) = ruling(&d).expect("the daemon's record applies");
    assert_eq!(article, "7.1", "2023 7.1 by default");
    assert!(effect.contains("down 0:03:00"), "{effect}");
    assert!(effect.contains("charged to nobody"), "{effect}");
    (a, at_cut)
}

#[test]
fn a_downtime_on_the_boards_own_clock_stops_the_clocks_and_charges_nobody() {
    let (a, at_cut) = after_a_power_cut();
    let c = a.clock().expect("clock");
    assert_eq!(c.running(), None, "stopped");
    // Black's clock ran before the cut; not the three minutes after it.
    assert_eq!(c.remaining_at(191_000), at_cut);
    let s = a.downtime_standing().expect("standing");
    assert_eq!(
        (s.by, s.ms, s.charge, s.clocks_stopped, s.clock_ran, s.t),
        ("b", 180_000, "nobody", true, false, 191_000)
    );
    // The open matter offers the charge to Black and the resume.
    let m = a.open().into_iter().find(|m| m.t == 191_000).expect("open");
    let actions: Vec<_> = m.rulings.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(actions, ["Charge to Black", "Resume"], "{m:?}");
}

#[test]
fn the_arbiter_charges_the_mover_and_an_undo_gives_it_back() {
    let (mut a, (w, b)) = after_a_power_cut();
    let d = feed(
        &mut a,
        &[by(200_000, downtime(DowntimeCharge::Nobody, None), "IA")],
    );
    let (why, status, _) = refused(&d).expect("already nobody's");
    assert_eq!(status, 422);
    assert!(why.contains("already charged to nobody"), "{why}");
    let d = feed(
        &mut a,
        &[by(201_000, downtime(DowntimeCharge::Mover, None), "IA")],
    );
    let (_, effect) = ruling(&d).expect("charged");
    assert!(effect.contains("charged to Black"), "{effect}");
    let c = a.clock().expect("clock");
    assert_eq!(c.remaining_at(201_000), (w, b - 180_000));
    assert_eq!(a.downtime_standing().expect("standing").charge, "mover");
    let seq = a.rulings().last().expect("ruling").seq;
    let d = feed(&mut a, &[by(202_000, ArbiterAction::Undo(seq), "IA")]);
    assert!(ruling(&d).is_some(), "{d:?}");
    let c = a.clock().expect("clock");
    assert_eq!(c.remaining_at(202_000), (w, b));
    assert_eq!(a.downtime_standing().expect("standing").charge, "nobody");
}

#[test]
fn no_downtime_no_charge_and_a_wrong_control_is_refused_in_words() {
    let header = Header {
        boards: vec![BoardId::Main],
        time_control: Some("5400".into()),
        ..Header::default()
    };
    let mut a = Arbiter::new(GameConfig::from_header(&header, None, None).expect("header"));
    feed(&mut a, &play(400, Color::White, Square::E2, Square::E4));
    let d = feed(
        &mut a,
        &[by(2_000, downtime(DowntimeCharge::Mover, None), "IA")],
    );
    let (why, status, _) = refused(&d).expect("refused");
    assert_eq!(status, 422);
    assert!(why.contains("no downtime is recorded"), "{why}");
    let tc = |control: &str, from_move: Option<u32>| ArbiterAction::TimeControl {
        control: control.into(),
        from_move,
        times: None,
    };
    for (t, action, words) in [
        (3_000, tc("5400", None), "already set to 5400"),
        (4_000, tc("5400+", None), "is no time control"),
        (5_000, tc("5400+30", Some(7)), "move 7 is still to come"),
    ] {
        let d = feed(&mut a, &[by(t, action, "IA")]);
        let (why, status, _) = refused(&d).expect("refused");
        assert_eq!(status, 422, "{why}");
        assert!(why.contains(words), "{why}");
    }
    // From move 1: White's move credited its 30 s now (the online
    // convention aside, over the board also the one due for his next).
    let d = feed(&mut a, &[by(6_000, tc("5400+30", Some(1)), "IA")]);
    let (article, effect) = ruling(&d).expect("applied");
    assert_eq!(article, "6.10.2");
    assert!(effect.contains("5400 → 5400+30"), "{effect}");
    assert_eq!(
        a.clock().expect("clock").time_control().to_string(),
        "5400+30"
    );
}
