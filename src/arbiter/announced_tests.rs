//! The move announced with an incorrect draw claim (issue 25): 2001 §9.5b
//! "det meddelte træk skal udføres" (seed 000) binds the move itself;
//! 2009 §9.5b "i henhold til § 4" (seeds 002, 003) and 2023 9.5.3
//! "in accordance with Articles 3 and 4" bind its piece only.

use super::*;
use crate::model::Edition;

fn in_profile(edition: Edition) -> Arbiter {
    let header = crate::trace::Header {
        boards: vec![BoardId::Main],
        time_control: Some("5400+30".into()),
        rules: Some(edition),
        ..crate::trace::Header::default()
    };
    Arbiter::new(GameConfig::from_header(&header, None, None).expect("valid header"))
}

fn breaches(d: &[Decision]) -> Vec<(&'static str, String)> {
    d.iter()
        .filter_map(|x| match x {
            Decision::Event(Event {
                kind:
                    EventKind::TouchMove {
                        article, touched, ..
                    },
                ..
            }) => Some((*article, touched.clone())),
            _ => None,
        })
        .collect()
}

/// Nh5 written and announced with a wrong threefold claim; the claimant
/// then plays the same knight to g4: a breach in 2001 only.
#[test]
fn the_announced_move_itself_binds_in_2001_its_piece_in_2009_and_2023() {
    for (edition, binds) in [
        (Edition::Fide2001, true),
        (Edition::Fide2009, false),
        (Edition::Fide2009No, false),
        (Edition::Fide2023, false),
    ] {
        let mut a = in_profile(edition);
        shuffle(&mut a);
        let d = feed(&mut a, &[written_claim(9_000, Color::Black, Some("f6h5"))]);
        assert!(a.outcome().is_none(), "{edition:?}: {d:?}");
        let d = feed(&mut a, &play(10_000, Color::Black, Square::F6, Square::G4));
        assert_eq!(a.ply(), 8, "{edition:?}: the move is completed: {d:?}");
        let b = breaches(&d);
        if binds {
            assert_eq!(b, [("9.5b", "f6".to_owned())], "{edition:?}: {d:?}");
        } else {
            assert!(b.is_empty(), "{edition:?}: §4 keeps only the piece: {d:?}");
        }
    }
}

/// 2001: the opponent's claim takes the other move back; the announced
/// move then completes without a breach, and binds no later move.
#[test]
fn in_2001_the_other_move_is_taken_back_on_a_claim_and_the_announced_one_stands() {
    let mut a = in_profile(Edition::Fide2001);
    shuffle(&mut a);
    feed(&mut a, &[written_claim(9_000, Color::Black, Some("f6h5"))]);
    // Another piece: a breach too (the announced move's square named).
    let d = feed(&mut a, &play(10_000, Color::Black, Square::E7, Square::E5));
    assert_eq!(breaches(&d), [("9.5b", "f6".to_owned())], "{d:?}");
    let d = feed(&mut a, &[claim(11_000, ClaimKind::TouchMove, Color::White)]);
    assert_eq!(a.ply(), 7, "taken back: {d:?}");
    // The pawn put back, the announced move made.
    let mut recs = vec![lift(12_000, Square::E5), place(12_100, Square::E7)];
    recs.extend(play(13_000, Color::Black, Square::F6, Square::H5));
    let d = feed(&mut a, &recs);
    assert_eq!(a.ply(), 8, "{d:?}");
    assert!(breaches(&d).is_empty(), "{d:?}");
    assert_eq!(a.moves().last().map(|m| m.san.as_str()), Some("Nh5"));
    // White's reply and Black's next move are free.
    let mut recs = play(14_000, Color::White, Square::G1, Square::F3).to_vec();
    recs.extend(play(15_000, Color::Black, Square::H5, Square::G3));
    let d = feed(&mut a, &recs);
    assert_eq!(a.ply(), 10, "{d:?}");
    assert!(breaches(&d).is_empty(), "{d:?}");
}
