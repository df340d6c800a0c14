//! Claims and their reasons under each profile (issue 40 points 7 and 8):
//! the j'adoube adjustment and the right to claim a touch-move breach;
//! a rejected draw claim names the positions compared and what differs.

/// Issue 40 point 8: the right to claim a breach of Article 4 after the
/// claimant's own adjustment (j'adoube), per profile. 2001 §4.6 "En spiller
/// mister sin ret til at fremsætte krav … når han selv med vilje har rørt
/// en brik" (seed 000) and 2009-DK §4.7 "… så snart han selv med vilje
/// rører en brik" (seed 002): an adjustment is a deliberate touch, the right
/// is lost. 2009-NO §4.7 "etter at hun/han har rørt en brikke i den hensikt
/// å gjøre et trekk" (seed 003) and 2023 4.8 "touches a piece with the
/// intention of moving or capturing it": an adjustment does not end it.
mod jadoube {

    use crate::common::{of, replay_steps};
    use serde_json::json;

    /// Black touches his knight g8 and plays e7-e5 instead (4.3a / 4.3.1);
    /// White, on move, says j'adoube and adjusts his pawn d2, then claims.
    const STEPS: &str = "1000 mv e2e4 w\n3000 lift g8\n3300 place g8\n5000 mv e7e5 b\n\
                     6000 adjust w\n6100 lift d2\n6300 place d2\n7000 claim touch_move w";

    #[test]
    fn an_adjustment_ends_the_right_to_claim_only_where_a_deliberate_touch_does() {
        for (rules, upheld, article) in [
            ("fide-2001", false, "4.6"),
            ("fide-2009", false, "4.7"),
            ("fide-2009-no", true, "4.3a"),
            ("fide-2023", true, "4.3.1"),
        ] {
            let ev = replay_steps(json!({"trace": 1}), STEPS, rules);
            let claim = of(&ev, "claim");
            assert_eq!(claim.len(), 1, "{rules}: {ev:#?}");
            assert_eq!(claim[0]["upheld"], upheld, "{rules}: {ev:#?}");
            assert_eq!(claim[0]["article"], article, "{rules}: {ev:#?}");
        }
        // Without the adjustment the claim is upheld everywhere.
        let plain = STEPS.replace("6000 adjust w\n6100 lift d2\n6300 place d2\n", "");
        for rules in ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"] {
            let ev = replay_steps(json!({"trace": 1}), &plain, rules);
            assert_eq!(of(&ev, "claim")[0]["upheld"], true, "{rules}: {ev:#?}");
        }
    }
}

/// Issue 40 point 7: reasons the arbiter can check. A rejected threefold
/// claim names the positions compared and what differs (§9.2 / 9.2.2:
/// the same player to move, the same pieces on the same squares, the same
/// possible moves: castling rights and en passant captures).
mod rejected_claim_reasons {

    use crate::common::{of, replay_steps};
    use serde_json::json;

    /// The moves 1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Ke2 Ke7 5. Ke1 Ke8: the
    /// pieces after Black's first move stand a third time, but the kings have
    /// moved: no castling rights.
    const KINGS: &str = "1000 mv e2e4 w\n2000 mv e7e5 b\n3000 mv e1e2 w\n4000 mv e8e7 b\n\
                     5000 mv e2e1 w\n6000 mv e7e8 b\n7000 mv e1e2 w\n8000 mv e8e7 b\n\
                     9000 mv e2e1 w\n10000 mv e7e8 b\n11000 claim threefold w";

    #[test]
    fn a_rejected_threefold_claim_names_the_positions_and_the_castling_rights() {
        for (rules, article) in [("fide-2009", "9.2b"), ("fide-2023", "9.2.2")] {
            let ev = replay_steps(json!({"trace": 1}), KINGS, rules);
            let claim = of(&ev, "claim");
            assert_eq!(claim.len(), 1, "{rules}: {ev:#?}");
            assert_eq!(claim[0]["upheld"], false, "{rules}");
            let why = claim[0]["consequence"].as_str().unwrap();
            assert!(
                why.contains("stands for the second time (also after 3…Ke8)"),
                "{rules}: {why}"
            );
            assert!(
                why.contains("after 1…e5 the same pieces stood, not the same position")
                    && why.contains(
                        "White castling king-side with the rook h1 possible there, lost since"
                    )
                    && why.contains(
                        "Black castling queen-side with the rook a8 possible there, lost since"
                    ),
                "{rules}: {why}"
            );
            assert!(why.contains(&format!("({article})")), "{rules}: {why}");
        }
    }
}
