//! Issue 40 point 8: the right to claim a breach of Article 4 after the
//! claimant's own adjustment (j'adoube), per profile. 2001 §4.6 "En spiller
//! mister sin ret til at fremsætte krav … når han selv med vilje har rørt
//! en brik" (seed 000) and 2009-DK §4.7 "… så snart han selv med vilje
//! rører en brik" (seed 002): an adjustment is a deliberate touch, the right
//! is lost. 2009-NO §4.7 "etter at hun/han har rørt en brikke i den hensikt
//! å gjøre et trekk" (seed 003) and 2023 4.8 "touches a piece with the
//! intention of moving or capturing it": an adjustment does not end it.

mod common;

use common::{of, replay_steps};
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
