//! Trial mode (`[board] source = "trial"`, docs/service.md): a board
//! without sensors plays the demo's game with simulated hands through the
//! real drivers on a virtual bus, and every feed says it is a trial (the
//! PGN tag `Trial`, `"trial": true` in the state the live page embeds), so
//! that it is never taken for a real game; a `--trace` replaces it, and
//! then nothing is marked.

use crate::common;

use common::*;

#[test]
fn a_trial_board_plays_and_every_feed_marks_it() {
    let dir = tempdir("trial");
    let cfg = config(&dir, 1, 1, "\n[board]\nsource = \"trial\"\n");
    let board = run_board(&dir, &cfg, None, &["--speed", "40"]);
    let pgn = poll(60, "two moves of the trial game", || {
        let p = get(&board.addr, "/games.pgn");
        (p.contains("1. e4") && p.contains(" e5")).then_some(p)
    });
    assert!(
        pgn.contains(
            "[Trial \"simulated hands on a virtual board (eboard trial mode), not a real game\"]"
        ),
        "{pgn}"
    );
    // The config's players and event, the demo's moves (Morphy's Opera Game).
    assert!(
        pgn.contains("[White \"Morphy, Paul\"]") && pgn.contains("e5"),
        "{pgn}"
    );
    let page = get(&board.addr, "/");
    assert!(
        page.contains("\"trial\":true"),
        "the live page's state: {page}"
    );
    drop(board);

    // A recorded trace given on the command line is played instead: no mark.
    let dir2 = tempdir("trial-trace");
    let cfg2 = config(&dir2, 1, 1, "\n[board]\nsource = \"trial\"\n");
    let trace = opera_trace(&dir2, 3);
    let board = run_board(&dir2, &cfg2, Some(&trace), &["--speed", "40"]);
    let pgn = poll(60, "moves of the trace", || {
        let p = get(&board.addr, "/games.pgn");
        p.contains("1. e4").then_some(p)
    });
    assert!(!pgn.contains("[Trial "), "{pgn}");
    assert!(get(&board.addr, "/").contains("\"trial\":false"));
    drop(board);
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&dir2).ok();
}
