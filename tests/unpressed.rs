//! A move made and not pressed (issue 25): the opponent, who has the move
//! once it is made (2009 §1.1, 2023 1.3), replies; the board follows the
//! game from what stands on it, the clocks do what the real clock does
//! (the first player's runs on; the second player's press on a clock not
//! running changes nothing), and nothing is ruled. The texts and the
//! readings chosen: `docs/profiles.md`, "A move not pressed".

use crate::common;

use common::{false_alarm, of, replay_steps, sans, shared_pgn_dir_or_skip};
use eboard::controller::replay;
use eboard::pgn::read_games;
use eboard::sim::{simulate, SimOptions};
use eboard::trace::{EventKind, RecordKind, Sensing};
use serde_json::{json, Value};
use shakmaty::Color;

const PROFILES: [&str; 4] = ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"];

fn last_clock(ev: &[Value]) -> (u64, u64) {
    let c = of(ev, "clock");
    let c = c.last().expect("a clock event");
    (
        c["white_ms"].as_u64().unwrap(),
        c["black_ms"].as_u64().unwrap(),
    )
}

fn assert_nothing_ruled(ev: &[Value], what: &str) {
    for ty in ["illegal_move", "irregularity", "touch_move", "game_end"] {
        assert!(of(ev, ty).is_empty(), "{what}: {ty} in {ev:#?}");
    }
}

/// Both clocks at the start of `5400+30` over the board: base + increment.
const START: u64 = 5_430_000;
/// White's clock after his press at 5.6 s, his clock having run since 0.
const W_END: u64 = START - 5_600 + 30_000;
/// Black's after his press at 7.6 s, his clock having run since 5.6 s.
const B_END: u64 = START - 2_000 + 30_000;

/// White's e4 made and not pressed; Black's e5 made and pressed (White's
/// clock runs on); White's Nf3 made and pressed; Black's Nc6.
const E4_UNPRESSED: &str = "
    1000 lift e2
    1300 place e4
    3100 lift e7
    3300 place e5
    3600 press b
    5100 lift g1
    5300 place f3
    5600 press w
    7000 mv b8c6 b";

#[test]
fn a_reply_to_a_move_not_pressed_is_followed_in_every_profile() {
    {
        for rules in PROFILES {
            let what = rules;
            let h = json!({"trace": 1, "time_control": "5400+30"});
            let ev = replay_steps(h, E4_UNPRESSED, rules);
            assert_nothing_ruled(&ev, what);
            assert_eq!(sans(&ev), ["e4", "e5", "Nf3", "Nc6"], "{what}: {ev:#?}");
            // Both moves are taken at Black's press.
            let moves = of(&ev, "move");
            assert_eq!(moves[0]["t"], 3600, "{what}");
            assert_eq!(moves[1]["t"], 3600, "{what}");
            assert_eq!(moves[1]["by"], "b", "{what}");
            // The real clock: White's ran from 0 to his press at 5.6 s
            // (then +30 s); Black's press at 3.6 s did nothing, so his
            // clock first ran from 5.6 s to 7.6 s, then +30 s.
            assert_eq!(last_clock(&ev), (W_END, B_END), "{what}");
            // Black's press changed no clock: White's still ran.
            let at_b: Vec<_> = of(&ev, "clock")
                .into_iter()
                .filter(|c| c["t"] == 3600)
                .collect();
            assert!(!at_b.is_empty(), "{what}");
            assert!(
                at_b.iter()
                    .all(|c| c["white_ms"] == START - 3_600 && c["black_ms"] == START),
                "{what}: {at_b:?}"
            );
        }
    }
}

/// Neither player pressed: 1. e4, 1… e5, then 2. Nf3 and White's press.
#[test]
fn two_moves_not_pressed_then_a_press_are_three_moves() {
    let steps = "
        1000 lift e2
        1300 place e4
        3100 lift e7
        3300 place e5
        5100 lift g1
        5300 place f3
        5600 press w
        7000 mv b8c6 b";
    for rules in PROFILES {
        let h = json!({"trace": 1, "time_control": "5400+30"});
        let ev = replay_steps(h, steps, rules);
        assert_nothing_ruled(&ev, rules);
        assert_eq!(sans(&ev), ["e4", "e5", "Nf3", "Nc6"], "{rules}: {ev:#?}");
        assert_eq!(last_clock(&ev), (W_END, B_END), "{rules}");
    }
}

/// The same game with White pressing in time: the reference the two
/// readings above must not disturb (and a press by the player not on move
/// with nothing new on the board stays without effect).
#[test]
fn a_stray_press_by_the_player_not_on_move_changes_nothing() {
    let steps = "
        1000 mv e2e4 w
        2000 press w
        3000 mv e7e5 b";
    for rules in PROFILES {
        let ev = replay_steps(json!({"trace": 1, "time_control": "5400+30"}), steps, rules);
        assert_nothing_ruled(&ev, rules);
        assert_eq!(sans(&ev), ["e4", "e5"], "{rules}");
    }
}

/// A capture made and not pressed, recaptured: 1. e4 d5 2. exd5 (not
/// pressed) Qxd5 (pressed), then 3. Nc3.
#[test]
fn a_capture_not_pressed_and_the_recapture() {
    let steps = "
        1000 mv e2e4 w
        2000 mv d7d5 b
        3000 lift d5
        3100 lift e4
        3300 place d5
        4100 lift d8
        4300 place d5
        4600 press b
        6000 mv b1c3 w";
    for rules in PROFILES {
        let h = json!({"trace": 1, "time_control": "5400+30"});
        let ev = replay_steps(h, steps, rules);
        assert_nothing_ruled(&ev, rules);
        assert_eq!(
            sans(&ev),
            ["e4", "d5", "exd5", "Qxd5", "Nc3"],
            "{rules}: {ev:#?}"
        );
    }
}

/// The board fits several series: a pawn promoted and not pressed, on an
/// occupancy board (the piece unseen), the reply fitting every piece.
/// Nothing is applied and nothing is ruled; the arbiter is told.
#[test]
fn a_board_that_fits_several_series_is_held_and_the_arbiter_told() {
    let steps = "
        1000 lift a7
        1300 place a8
        3100 lift h7
        3300 place h6
        3600 press b";
    let fen = "7k/P6p/8/8/8/8/8/K7 w - - 0 1";
    for (rules, article) in [
        ("fide-2001", "6.8a"),
        ("fide-2009", "6.7a"),
        ("fide-2009-no", "6.7a"),
        ("fide-2023", "6.2.1"),
    ] {
        let h = json!({"trace": 1, "time_control": "5400+30", "start_fen": fen});
        let ev = replay_steps(h, steps, rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "unpressed_moves_unclear", "{rules}");
        assert_eq!(irr[0]["article"], article, "{rules}");
        assert!(of(&ev, "move").is_empty(), "{rules}: {ev:#?}");
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}");
    }
}

/// F19, 2023 6.2.1.2: "the player has made his/her next move, when his/her
/// previous move was not completed" completes it. Two moves in 60 s, then
/// 60 s: White's second move is made and not pressed, Black replies, and
/// White's third move stands made when his clock reaches zero. In 2023 his
/// second move was completed by the third: the control was reached, the
/// next period's time came, and no flag falls. In 2009 / 2001 only a press
/// completes a move (§6.7a / §6.8a): he completed one move, his flag falls.
#[test]
fn f19_a_move_completed_by_the_next_move_made_counts_at_the_control() {
    let base = "
        1000 mv e2e4 w
        2000 mv e7e5 b
        3100 lift g1
        3300 place f3
        4100 lift b8
        4300 place c6
        4600 press b";
    let third = "5100 lift f1\n5300 place c4";
    let h = json!({"trace": 1, "time_control": "2/60:60", "mode": "standard"});
    let later = "90000 query turn w";
    for rules in PROFILES {
        let steps = format!("{base}\n{third}\n{later}");
        let ev = replay_steps(h.clone(), &steps, rules);
        let flags = of(&ev, "flag");
        if rules == "fide-2023" {
            assert!(flags.is_empty(), "{rules}: {ev:#?}");
            assert!(of(&ev, "game_end").is_empty(), "{rules}: {ev:#?}");
        } else {
            assert_eq!(flags.len(), 1, "{rules}: {ev:#?}");
            assert_eq!(flags[0]["by"], "w", "{rules}");
        }
        // Without the third move made, his second is not completed in any
        // profile: the flag falls.
        let steps = format!("{base}\n{later}");
        let ev = replay_steps(h.clone(), &steps, rules);
        assert_eq!(of(&ev, "flag").len(), 1, "{rules} (no third move): {ev:#?}");
    }
}

/// F4: between a move made and its press. 2009 §4.2 (and 2001 §4.2): only
/// the player having the move may adjust, and he has it once his
/// opponent's move is made (§1.1): Black may adjust. 2023 adds 6.2.5 "Only
/// the player whose clock is running is allowed to adjust the pieces":
/// Black's clock does not run yet, the arbiter is told (6.2.5). White, whose
/// move is made, may adjust in no profile (4.2 / 4.2.1).
#[test]
fn f4_adjusting_between_the_move_made_and_the_press() {
    let black_adjusts = "
        1000 lift e2
        1300 place e4
        1500 adjust b
        1600 lift d7
        1700 place d7
        2000 press w
        3000 mv e7e5 b";
    for (rules, article) in [
        ("fide-2001", None),
        ("fide-2009", None),
        ("fide-2009-no", None),
        ("fide-2023", Some("6.2.5")),
    ] {
        let ev = replay_steps(json!({"trace": 1}), black_adjusts, rules);
        let irr = of(&ev, "irregularity");
        match article {
            None => assert!(irr.is_empty(), "{rules}: {ev:#?}"),
            Some(a) => {
                assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
                assert_eq!(irr[0]["kind"], "adjust_by_player_not_on_move");
                assert_eq!(irr[0]["article"], a);
            }
        }
        assert_eq!(sans(&ev), ["e4", "e5"], "{rules}: {ev:#?}");
        assert!(of(&ev, "touch_move").is_empty(), "{rules}");
        // The adjusted pawn was no touch by White.
        assert!(
            of(&ev, "touch").iter().all(|t| t["square"] != "d7"),
            "{rules}: {ev:#?}"
        );
    }
    let white_adjusts = "
        1000 lift e2
        1300 place e4
        1500 adjust w
        1600 lift d2
        1700 place d2
        2000 press w";
    for (rules, article) in [
        ("fide-2001", "4.2"),
        ("fide-2009", "4.2"),
        ("fide-2009-no", "4.2"),
        ("fide-2023", "4.2.1"),
    ] {
        let ev = replay_steps(json!({"trace": 1}), white_adjusts, rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "adjust_by_player_not_on_move");
        assert_eq!(irr[0]["article"], article, "{rules}");
        assert_eq!(sans(&ev), ["e4"], "{rules}");
    }
    // Before his move is made he may adjust, as ever.
    let before = "
        500 adjust w
        600 lift d2
        700 place d2
        1000 mv e2e4 w";
    for rules in PROFILES {
        let ev = replay_steps(json!({"trace": 1}), before, rules);
        assert!(of(&ev, "irregularity").is_empty(), "{rules}: {ev:#?}");
        assert_eq!(sans(&ev), ["e4"], "{rules}");
    }
}

/// Real games from `../shared/data/pgn`, each with one press left out (the
/// press of White's 10th move, then of Black's 15th), replayed in every
/// profile and sensing mode: every move is recorded, nothing is ruled.
#[test]
fn real_games_with_one_press_left_out_replay_exactly() {
    let Some(dir) = shared_pgn_dir_or_skip() else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("lichess_db_2025-05_438games.pgn")).unwrap();
    let games = read_games(&text).unwrap();
    let mut replayed = 0;
    for (gi, game) in games
        .iter()
        .enumerate()
        .filter(|(_, g)| g.moves.len() > 40)
        .take(12)
    {
        for (vi, sensing) in [Sensing::Occupancy, Sensing::Colour, Sensing::Identity]
            .into_iter()
            .enumerate()
        {
            let opts = SimOptions {
                seed: (gi * 3 + vi) as u64,
                sensing,
                frames: false,
            };
            let full = simulate(game, &opts).expect("simulate");
            for skip in [18usize, 29] {
                let mut trace = full.clone();
                let press = trace
                    .records
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| matches!(r.kind, RecordKind::Press(_)))
                    .nth(skip)
                    .map(|(i, _)| i)
                    .expect("the press");
                trace.records.remove(press);
                for rules in PROFILES {
                    let what = format!("game {} {sensing:?} {rules} press {skip} left out", gi + 1);
                    let (arbiter, events) =
                        replay(&trace, Some(rules.parse().unwrap()), None).expect("config");
                    if let Some(e) = false_alarm(&events) {
                        panic!("{what}: {}", e.to_json());
                    }
                    // The reply's own pieces lifted (the records after the
                    // press left out, up to the next press) are touches of
                    // its player, who has the move (2009 §1.1, 2023 1.3).
                    let RecordKind::Press(presser) = full.records[press].kind else {
                        unreachable!()
                    };
                    let replier = !presser;
                    let next = trace.records[press..]
                        .iter()
                        .position(|r| matches!(r.kind, RecordKind::Press(_)))
                        .map_or(trace.records.len(), |i| press + i);
                    let lifts: Vec<u64> = trace.records[press..next]
                        .iter()
                        .filter(|r| matches!(r.kind, RecordKind::Lift(_)))
                        .map(|r| r.t)
                        .collect();
                    // The squares the presser set his pieces down on: a
                    // lift there (the moved piece taken) within the release
                    // time is read as his hand (docs/profiles.md).
                    let before = trace.records[..press]
                        .iter()
                        .rposition(|r| matches!(r.kind, RecordKind::Press(_)))
                        .unwrap_or(0);
                    let set_down: Vec<String> = trace.records[before..press]
                        .iter()
                        .filter_map(|r| match r.kind {
                            RecordKind::Place { square, .. } => Some(square.to_string()),
                            _ => None,
                        })
                        .collect();
                    let mut seen = 0;
                    for e in &events {
                        if let EventKind::Touch {
                            by, piece, square, ..
                        } = &e.kind
                        {
                            let own = piece.chars().all(|c| c.is_ascii_uppercase())
                                == (replier == Color::White);
                            if own && lifts.contains(&e.t) && !set_down.contains(square) {
                                assert_eq!(by.0, replier, "{what}: touch at {}", e.t);
                                seen += 1;
                            }
                        }
                    }
                    assert!(seen > 0, "{what}: no touch of the reply");
                    let got: Vec<&str> = arbiter.moves().iter().map(|m| m.san.as_str()).collect();
                    let want: Vec<&str> = game.moves.iter().map(|m| m.san.as_str()).collect();
                    // A game over by the Laws before its record ends
                    // (a dead position, 2023 9.6) stops there.
                    assert!(
                        want.starts_with(&got)
                            && (got.len() == want.len() || arbiter.outcome().is_some()),
                        "{what}: {} of {} plies, {:?}",
                        got.len(),
                        want.len(),
                        got.iter().zip(&want).position(|(a, b)| a != b)
                    );
                    assert!(got.len() > skip + 2, "{what}: stopped at {}", got.len());
                    replayed += 1;
                }
            }
        }
    }
    assert!(replayed >= 12 * 3 * 2 * 4, "{replayed} replays");
}

/// 2023 6.2.2: "the player must be allowed to pause his/her clock after
/// moving, even after the opponent has made his/her next move" (2009 §6.7a:
/// "En spiller skal altid have lov til at standse sit ur"). 1. e4 made, 1…
/// e5 made, then White presses: his move is completed, his clock stops and
/// Black's runs; e5 then waits for Black's press.
#[test]
fn a_press_after_the_reply_was_made_completes_the_first_move() {
    let steps = "
        1000 lift e2
        1300 place e4
        3100 lift e7
        3300 place e5
        3600 press w
        5600 press b
        7000 mv g1f3 w";
    for rules in PROFILES {
        let h = json!({"trace": 1, "time_control": "5400+30"});
        let ev = replay_steps(h, steps, rules);
        assert_nothing_ruled(&ev, rules);
        assert_eq!(sans(&ev), ["e4", "e5", "Nf3"], "{rules}: {ev:#?}");
        let moves = of(&ev, "move");
        assert_eq!(moves[0]["t"], 3600, "{rules}");
        assert_eq!(moves[1]["t"], 5600, "{rules}");
        // White's clock ran 0–3.6 s, Black's 3.6–5.6 s, White's 5.6–7.6 s.
        assert_eq!(
            last_clock(&ev),
            (
                START - 3_600 + 30_000 - 2_000 + 30_000,
                START - 2_000 + 30_000
            ),
            "{rules}"
        );
    }
}

fn touches(ev: &[Value]) -> Vec<(String, String)> {
    of(ev, "touch")
        .iter()
        .map(|t| {
            (
                t["square"].as_str().unwrap().to_owned(),
                t["by"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The `touch` events name the player who has the move on the board: once
/// White's move is made (not pressed), Black has it (2009 §1.1 "at være i
/// trækket" når hans modstanders træk er udført; 2023 1.3), so his lifts
/// are his touches (the contract's `touch`: "a piece of the player on move
/// was lifted").
#[test]
fn touches_after_a_move_not_pressed_name_the_player_who_has_the_move() {
    for rules in PROFILES {
        let h = json!({"trace": 1, "time_control": "5400+30"});
        let ev = replay_steps(h.clone(), E4_UNPRESSED, rules);
        let want = [("e2", "w"), ("e7", "b"), ("g1", "w"), ("b8", "b")];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(s, b)| (s.to_string(), b.to_string()))
            .collect();
        assert_eq!(touches(&ev), want, "{rules}");
        // A capture made and not pressed: White's lift of the pawn he takes
        // is his (§4.3b); Black's queen, lifted after White's pawn stood on
        // d5, is Black's.
        let steps = "
            1000 mv e2e4 w
            2000 mv d7d5 b
            3000 lift d5
            3100 lift e4
            3300 place d5
            4100 lift d8
            4300 place d5
            4600 press b";
        let ev = replay_steps(h.clone(), steps, rules);
        let t = touches(&ev);
        assert_eq!(
            t[2..],
            [
                ("d5".into(), "w".into()),
                ("e4".into(), "w".into()),
                ("d8".into(), "b".into())
            ],
            "{rules}: {t:?}"
        );
    }
}

// ---- Appendix E: two boards ------------------------------------------------
//
// E2.1 (seed 002): "Trækkene skal meddeles tydeligt, gentages af
// modstanderen og udføres på hans skakbræt": each player makes his own
// moves and copies his opponent's on his own board. A move made and not
// pressed, then replied to, is read on the presser's board and must agree
// with the other board; otherwise nothing is applied and the arbiter told.

fn two_boards(vi: &str) -> Value {
    json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": vi, "language": "da",
           "time_control": "5400+30"})
}

/// Black (visually impaired) copies White's e4, made and not pressed, and
/// replies e5 on the tactile board; his press takes both. He takes his time
/// (more than the boards' settle time): his correct copy of a move made
/// but not completed is no difference between the boards (E2.7).
#[test]
fn two_boards_a_reply_to_a_move_not_pressed_is_read_on_the_pressers_board() {
    let steps = "
        1000 lift e2
        1300 place e4
        3000 tactile lift e2
        3200 tactile place e4
        5400 tactile lift e7
        5600 tactile place e5
        8000 press b
        9000 lift e7
        9200 place e5
        10000 lift g1
        10200 place f3
        10500 press w";
    for rules in PROFILES {
        let ev = replay_steps(two_boards("b"), steps, rules);
        assert_nothing_ruled(&ev, rules);
        assert_eq!(sans(&ev), ["e4", "e5", "Nf3"], "{rules}: {ev:#?}");
        let moves = of(&ev, "move");
        assert_eq!(moves[1]["t"], 8000, "{rules}");
        // The real clock: White's ran from 0 to his press at 10.5 s.
        assert_eq!(last_clock(&ev), (START - 10_500 + 30_000, START), "{rules}");
    }
}

/// White (visually impaired) makes e4 on the tactile board (announced as
/// it stands, E2.3c) and does not press; Black copies it and replies on the
/// main board, saying his move (E2.1); White copies e5 and plays Nf3, then
/// presses: three moves, e4 announced once, his copy of the reply on top of
/// his announced move no "moved after its announcement".
#[test]
fn two_boards_the_vi_players_move_not_pressed_then_three_moves() {
    let steps = "
        1000 tactile lift e2
        1300 tactile place e4
        2000 lift e2
        2200 place e4
        2400 lift e7
        2600 place e5
        3000 tactile lift e7
        3200 tactile place e5
        4000 tactile lift g1
        4200 tactile place f3
        4500 press w";
    for rules in PROFILES {
        let ev = replay_steps(two_boards("w"), steps, rules);
        assert_nothing_ruled(&ev, rules);
        assert_eq!(sans(&ev), ["e4", "e5", "Nf3"], "{rules}: {ev:#?}");
        // One announcement a move: e4 when it stood (1.6 s), e5 and Nf3 at
        // the press.
        let said: Vec<u64> = of(&ev, "announce")
            .iter()
            .map(|a| a["t"].as_u64().unwrap())
            .collect();
        assert_eq!(said, [1600, 4500, 4500], "{rules}: {ev:#?}");
    }
}

/// The boards tell different games: White made e4 on the main board, Black
/// "copied" d2-d4 and replied e5 on the tactile board. No series fits both
/// boards: nothing is applied, the arbiter is told (never guessed).
#[test]
fn two_boards_that_tell_different_games_are_held_and_the_arbiter_told() {
    let steps = "
        1000 lift e2
        1300 place e4
        3000 tactile lift d2
        3200 tactile place d4
        3400 tactile lift e7
        3600 tactile place e5
        4000 press b";
    for (rules, article) in [
        ("fide-2001", "6.8a"),
        ("fide-2009", "6.7a"),
        ("fide-2009-no", "6.7a"),
        ("fide-2023", "6.2.1"),
    ] {
        let ev = replay_steps(two_boards("b"), steps, rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "unpressed_moves_unclear", "{rules}");
        assert_eq!(irr[0]["article"], article, "{rules}");
        assert!(of(&ev, "move").is_empty(), "{rules}: {ev:#?}");
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}");
    }
}
