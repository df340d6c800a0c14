//! Session 18's held-out cases for point 6: Appendix E (E2.3c, E2.8) in
//! 2009 and 2023.

use crate::common::heldout::{case, run};
use crate::common::trace::DRIFT;
use serde_json::{json, Value};

fn vi(by: &str) -> Value {
    json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": by, "language": "da",
           "time_control": "5400+30"})
}

/// Point 6: Appendix E in 2009 (seed 002) and 2023 (D). E2.3 "Et træk er
/// udført når: … c. trækket er blevet meddelt. Først derefter må
/// modstanderens ur startes" (2023 D.2.3); E2.8 "Hvis de to
/// noteringslister også er forskellige, skal spillet føres tilbage til det
/// træk hvor de er ens, og dommeren skal indstille urene tilsvarende"
/// (2023 D.2.9). The VI player Black copies 1. e4 on his tactile board and
/// plays e5 there (standing from 3.6 s): announced at 3.9 s, long before
/// his press. The rewind: back to the start (ply 0, where the copies
/// certainly agree; E2.8 lets the arbiter go back as far as the
/// scoresheets agree), the clocks as the time control started them.
#[test]
fn s18_point_6_appendix_e_in_2009_and_2023() {
    let own = "1000 lift e2\n1300 place e4\n1600 press w\n3000 tactile lift e2\n3200 tactile place e4\n\
               3400 tactile lift e7\n3600 tactile place e5\n8000 press b\n9000 lift e7\n9200 place e5\n";
    let mut cases = Vec::new();
    for (rules, rewind) in [("fide-2009", "E2.8"), ("fide-2023", "D.2.9")] {
        cases.push(case(
            "18-6a E2.3c the VI player Black's own move announced as it stands",
            rules,
            vi("b"),
            own,
            &["announce.t=3900", "move.san=e5", "move.t=8000"],
            &["irregularity", "illegal_move"],
        ));
        cases.push(case(
            "18-6b E2.8 the rewind to the start of the game",
            rules,
            vi("b"),
            format!("{DRIFT}\n25000 arbiter rewind ply=0 author=IA"),
            &[
                "ruling.action=rewind",
                if rewind == "E2.8" {
                    "ruling.article=E2.8"
                } else {
                    "ruling.article=D.2.9"
                },
                "clock.t=25000&white_ms=5430000&black_ms=5430000",
            ],
            &["ruling_refused"],
        ));
        cases.push(case(
            "18-6c E2.7 the copy differs: no illegal move, no displaced pieces",
            rules,
            vi("b"),
            DRIFT,
            &[
                "irregularity.kind=boards_differ",
                if rewind == "E2.8" {
                    "irregularity.article=E2.7"
                } else {
                    "irregularity.article=D.2.9"
                },
            ],
            &["irregularity.kind=displaced", "illegal_move"],
        ));
    }
    run(cases);
}

/// Point 6, a second set: E2.8 back to ply 1 (an earlier ply than the
/// last agreed, ply 2: the scoresheets may agree less far back), the
/// clocks as at White's press at 1.6 s (+30 s); E2.3a (2023 D.2.3.1) the
/// VI player Black's capture made once the taken piece is off his board.
#[test]
fn s18_point_6_more_appendix_e_in_2009_and_2023() {
    // 1. e4 d5 2. Nc3, the VI player Black's 2… dxe4 on his tactile board:
    // the pawn e4 lifted at 9 s, his pawn d5 in e4 at 9.6 s.
    let capture = "1000 lift e2\n1300 place e4\n1600 press w\n3000 tactile lift e2\n3200 tactile place e4\n\
                   3400 tactile lift d7\n3600 tactile place d5\n6000 press b\n6500 lift d7\n6700 place d5\n\
                   7000 lift b1\n7300 place c3\n7600 press w\n8000 tactile lift b1\n8200 tactile place c3\n\
                   9000 tactile lift e4\n9300 tactile lift d5\n9600 tactile place e4\n14000 press b";
    let mut cases = Vec::new();
    for (rules, art) in [
        ("fide-2009", "ruling.article=E2.8"),
        ("fide-2023", "ruling.article=D.2.9"),
    ] {
        cases.push(case(
            "18-6d E2.8 the rewind to an earlier ply than the last agreed",
            rules,
            vi("b"),
            format!("{DRIFT}\n25000 arbiter rewind ply=1 author=IA"),
            &[
                "ruling.action=rewind",
                art,
                "clock.t=25000&white_ms=5458400&black_ms=5430000",
            ],
            &["ruling_refused"],
        ));
        cases.push(case(
            "18-6e E2.3a the VI player Black's capture made on his board",
            rules,
            vi("b"),
            capture,
            &["announce.t=9900", "move.san=dxe4", "move.t=14000"],
            &["irregularity", "illegal_move"],
        ));
    }
    run(cases);
}
