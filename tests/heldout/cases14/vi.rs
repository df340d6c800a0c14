//! Session 14's held-out cases for point 6: Appendix E (2001 F, 2009 E,
//! 2023 D) with the visually impaired player White and Black: a capture
//! announced once made, the sighted player's wrong copy of the VI
//! player's move, the VI player's move announced as it stands after his
//! own wrong copy, the E2.8 rewind with the clocks as they were, a
//! promotion named, the clock started before the announcement.

use crate::common::heldout::{case, run};
use crate::common::trace::DRIFT;
use serde_json::{json, Value};

fn vi(by: &str, extra: Value) -> Value {
    let mut h = json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": by,
                       "language": "da", "time_control": "5400+30"});
    if let (Some(h), Some(e)) = (h.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            h.insert(k.clone(), v.clone());
        }
    }
    h
}

/// The VI player White's 1. e4 on the tactile board, announced at 1.6 s
/// (about 1 s of speech), pressed at 4 s.
const VI_E4: &str = "1000 tactile lift e2\n1300 tactile place e4\n4000 press w\n";

#[test]
fn s14_point_6_appendix_e_white_and_black() {
    // 1. e4 d5 copied right, then White's 2. exd5 on his tactile board:
    // the taken pawn off at 8 s, his pawn in its hole at 8.6 s.
    let capture = format!(
        "{VI_E4}4500 main lift e2\n4800 main place e4\n5000 main lift d7\n5300 main place d5\n6000 press b\n\
         7000 tactile lift d7\n7300 tactile place d5\n8000 tactile lift d5\n8300 tactile lift e4\n8600 tactile place d5\n12000 press w"
    );
    // The sighted Black copies 1. e4 to e3, then plays d5.
    let sighted = format!(
        "{VI_E4}4500 main lift e2\n4800 main place e3\n5000 main lift d7\n5300 main place d5\n6000 press b"
    );
    // White copies 1… e5 to e6, then plays 2. Nf3 (standing from 10.3 s).
    let own = "1000 tactile lift e2\n1300 tactile place e4\n5000 press w\n6000 main lift e2\n6300 main place e4\n\
               7000 main lift e7\n7300 main place e5\n8000 press b\n9000 tactile lift e7\n9300 tactile place e6\n\
               10000 tactile lift g1\n10300 tactile place f3\n12500 press w";
    let mut cases = Vec::new();
    // E2.3 "Et træk er udført når: a. i tilfælde af slag, når den slagne
    // brik er fjernet fra brættet hos den spiller som nu er i trækket b. …
    // c. trækket er blevet meddelt": exd5 announced as it stands.
    for rules in ["fide-2009-no", "fide-2001"] {
        cases.push(case(
            "14-6a E2.3a the VI player White's capture announced once made",
            rules,
            vi("w", json!({})),
            capture.clone(),
            &["announce.t=8900", "move.san=exd5", "move.t=12000"],
            &["irregularity", "illegal_move"],
        ));
    }
    // E2.7 (2023 D.2.9) on the sighted player's board: only e3 and e4.
    for (rules, art) in [
        ("fide-2009", "irregularity.article=E2.7"),
        ("fide-2023", "irregularity.article=D.2.9"),
    ] {
        cases.push(case(
            "14-6b E2.7 the sighted Black's wrong copy of the VI player's move",
            rules,
            vi("w", json!({})),
            sighted.clone(),
            &[
                "irregularity.kind=boards_differ",
                "irregularity.squares=[\"e3\",\"e4\"]",
                art,
                "move.san=d5",
            ],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
    }
    // E2.3c: his own Nf3, after his wrong copy, is announced as it stands
    // (10.3 s + 300 ms), not at his press.
    for (rules, art) in [
        ("fide-2001", "irregularity.article=F2.7"),
        ("fide-2023", "irregularity.article=D.2.9"),
    ] {
        cases.push(case(
            "14-6c E2.3c the VI player's move announced after his wrong copy",
            rules,
            vi("w", json!({})),
            own,
            &["announce.t=10600", "move.san=Nf3", "move.t=12500", art],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
    }
    // E2.8 "skal spillet føres tilbage til det træk hvor de er ens, og
    // dommeren skal indstille urene tilsvarende" (2001 F2.8, 2023 D.2.9):
    // back to ply 2, the clocks as at Black's press at 8 s (White 1.6 s
    // used, Black 6.4 s, +30 s each).
    for (rules, art) in [
        ("fide-2001", "ruling.article=F2.8"),
        ("fide-2009", "ruling.article=E2.8"),
        ("fide-2023", "ruling.article=D.2.9"),
    ] {
        cases.push(case(
            "14-6d E2.8 the rewind with the clocks as they were",
            rules,
            vi("b", json!({})),
            format!("{DRIFT}\n25000 arbiter rewind ply=2 author=IA"),
            &[
                "ruling.action=rewind",
                art,
                "clock.t=25000&white_ms=5458400&black_ms=5453600",
            ],
            &["ruling_refused"],
        ));
    }
    // E2.8 "føres tilbage": not forward; ply 5 is where the game stands.
    cases.push(case(
        "14-6e E2.8 a rewind to the current ply refused",
        "fide-2009-no",
        vi("b", json!({})),
        format!("{DRIFT}\n25000 arbiter rewind ply=5 author=IA"),
        &["ruling_refused.action=rewind", "ruling_refused.reason~ "],
        &["ruling.action=rewind"],
    ));
    // E2.1 "Ved bondeforvandling skal spilleren nævne hvilken brik der er
    // valgt" (2023 D.2.1): named 100 ms after the pawn stood (the board's
    // question at the placement is guidance: no text sets the moment), the
    // move is announced, then completed by the press.
    let pawn = "4k3/8/8/8/8/8/1p6/4K3 b - - 0 1";
    for rules in ["fide-2009", "fide-2023"] {
        cases.push(case(
            "14-6f E2.1 the VI player Black's promotion named",
            rules,
            vi("b", json!({"start_fen": pawn})),
            "1000 tactile lift b2\n1300 tactile place b1\n1400 promote q\n6000 press b",
            &["move.san~b1=Q", "move.t=6000"],
            &[
                "irregularity.kind=clock_started_before_announcement",
                "illegal_move",
            ],
        ));
    }
    // E2.3 "Først derefter må modstanderens ur startes" (2023 D.2.4 "only
    // then is the opponent's clock started"): Black's press 50 ms after his
    // e5 was placed, before it stood and was announced.
    let early = "1000 main lift e2\n1300 main place e4\n1800 press w\n2500 tactile lift e2\n2800 tactile place e4\n\
                 3500 tactile lift e7\n3800 tactile place e5\n3850 press b";
    for (rules, art) in [
        ("fide-2001", "irregularity.article=F2.3"),
        ("fide-2009", "irregularity.article=E2.3"),
        ("fide-2023", "irregularity.article=D.2.4"),
    ] {
        cases.push(case(
            "14-6g E2.3 the clock started before the announcement",
            rules,
            vi("b", json!({})),
            early,
            &["irregularity.kind=clock_started_before_announcement", art],
            &["illegal_move"],
        ));
    }
    run(cases);
}
