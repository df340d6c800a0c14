//! Issue 40 point 7: a draw by the illegal-move rule (7.5.5: "the game is
//! drawn if the position is such that the opponent cannot checkmate the
//! player's king by any possible series of legal moves") says why mate is
//! impossible, where the arbiter confirms the result.

use super::*;

#[test]
fn a_7_5_5_draw_says_that_the_opponent_has_only_a_king() {
    // White (king and rook) moves his rook diagonally twice; Black has
    // only a king: the second illegal move draws (2023 7.5.5).
    let header = Header {
        boards: vec![BoardId::Main],
        start_fen: Some("4k3/8/8/8/8/8/R7/4K3 w - - 0 1".into()),
        ..Header::default()
    };
    let mut a = Arbiter::new(GameConfig::from_header(&header, None, None).expect("header"));
    feed(
        &mut a,
        &[
            lift(1_000, Square::A2),
            place(1_200, Square::B3),
            press(1_500, Color::White),
            lift(2_000, Square::B3),
            place(2_200, Square::A2),
            lift(3_000, Square::A2),
            place(3_200, Square::B3),
            press(3_500, Color::White),
        ],
    );
    let o = a.outcome().expect("the game ended");
    assert_eq!(o.result, Score::Game(KnownOutcome::Draw));
    assert_eq!(o.reason, EndReason::IllegalMoves);
    let open = a.open();
    let m = open
        .iter()
        .find(|m| m.kind == "game_end")
        .expect("the result to confirm");
    assert!(
        m.summary
            .contains("a draw, not a win: Black has only a king: no mate is possible with it"),
        "{m:?}"
    );
}
