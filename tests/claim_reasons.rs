//! Issue 40 point 7: reasons the arbiter can check. A rejected threefold
//! claim names the positions compared and what differs (§9.2 / 9.2.2:
//! the same player to move, the same pieces on the same squares, the same
//! possible moves: castling rights and en passant captures).

mod common;

use common::{of, replay_steps};
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
