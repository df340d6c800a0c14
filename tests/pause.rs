//! A pause holds (issue 25, point 3): after the arbiter's `pause` a player's
//! press starts no clock and completes no move; it is shown to the arbiter
//! (`press_during_pause`). So too the daemon's own pause after a restart it
//! cannot show harmless (`author` `eboard (downtime)`, docs/clock.md, "A
//! restart"): it holds until the arbiter's resume.
//! Only the arbiter's `resume` restarts the clock: 2009 §6.12c "Dommeren
//! bestemmer hvornår partiet genoptages" (seed 002), 2001 §6.13c (seed 000,
//! "Turneringslederen bestemmer hvornår partiet genoptages"), 2023 6.11.3.

use crate::common;

use common::{of, replay_events, TraceBuilder};
use serde_json::{json, Value};

const ALL: [(&str, &str); 4] = [
    ("fide-2001", "6.13c"),
    ("fide-2009", "6.12c"),
    ("fide-2009-no", "6.12c"),
    ("fide-2023", "6.11.3"),
];

/// The game: White's e4 completed at 1600; the clocks paused at 2000 by
/// `author`; Black plays e5 and presses at 4000 (and again at 5000);
/// resumed at 10000; Black presses at 11000.
fn paused_game(author: Option<&str>) -> TraceBuilder {
    let pause = match author {
        Some(a) => json!({"t": 2000, "arbiter": "pause", "author": a}),
        None => json!({"t": 2000, "arbiter": "pause"}),
    };
    TraceBuilder::with_header(json!({"trace": 1, "time_control": "300+2"}))
        .steps("1000 mv e2e4 w")
        .record(pause)
        .steps("3000 lift e7\n3300 place e5\n4000 press b\n5000 press w")
        .record(json!({"t": 10000, "arbiter": "resume", "author": "IA Hansen"}))
        .steps("11000 press b")
}

fn clocks_at(ev: &[Value], t: u64) -> Vec<(u64, u64)> {
    of(ev, "clock")
        .iter()
        .filter(|c| c["t"] == t)
        .map(|c| {
            (
                c["white_ms"].as_u64().unwrap(),
                c["black_ms"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_press_during_the_arbiters_pause_is_shown_not_applied() {
    for (rules, article) in ALL {
        let ev = replay_events(&paused_game(Some("IA Hansen")), rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 2, "{rules}: both presses shown: {ev:#?}");
        for (i, t) in [4000, 5000].into_iter().enumerate() {
            assert_eq!(irr[i]["kind"], "press_during_pause", "{rules}");
            assert_eq!(irr[i]["article"], article, "{rules}");
            assert_eq!(irr[i]["t"], t, "{rules}");
        }
        // No move and no clock at the presses during the pause.
        let moves = of(&ev, "move");
        assert_eq!(moves.len(), 2, "{rules}: {ev:#?}");
        assert_eq!(
            moves[1]["t"], 11000,
            "{rules}: e5 completed after the resume"
        );
        assert!(clocks_at(&ev, 4000).is_empty(), "{rules}");
        assert!(clocks_at(&ev, 5000).is_empty(), "{rules}");
        // White: 302 s - 1.6 s + 2 s. Black's clock ran 1600..2000 and
        // 10000..11000 only: 302 s - 1.4 s + 2 s.
        let after = clocks_at(&ev, 11000);
        assert_eq!(after, [(302_400, 302_600)], "{rules}: {ev:#?}");
        // The pause and the resume each give both clocks as they stop and
        // restart (the resume used to give none): Black's ran 1600..2000.
        assert_eq!(clocks_at(&ev, 2000), [(302_400, 301_600)], "{rules}");
        assert_eq!(clocks_at(&ev, 10000), [(302_400, 301_600)], "{rules}");
    }
}

#[test]
fn the_daemons_downtime_pause_holds_until_the_arbiter_resumes() {
    // The daemon's own pause (a downtime it could not measure) is the
    // interruption of 2009 §6.12a / 2023 6.11.1; "The arbiter decides when
    // the game restarts" (§6.12c / 6.11.3): a player's press cannot.
    for (rules, article) in ALL {
        let ev = replay_events(&paused_game(Some("eboard (downtime)")), rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 2, "{rules}: both presses shown: {ev:#?}");
        for i in &irr {
            assert_eq!(i["kind"], "press_during_pause", "{rules}");
            assert_eq!(i["article"], article, "{rules}");
        }
        let moves = of(&ev, "move");
        assert_eq!(moves.len(), 2, "{rules}: {ev:#?}");
        assert_eq!(
            moves[1]["t"], 11000,
            "{rules}: e5 completed after the resume"
        );
        assert!(clocks_at(&ev, 4000).is_empty(), "{rules}");
        assert_eq!(clocks_at(&ev, 11000), [(302_400, 302_600)], "{rules}");
    }
}

#[test]
fn a_downtime_pause_with_no_resume_holds_for_good() {
    // Without the arbiter nothing starts the clocks again: no move, no flag.
    for (rules, _) in ALL {
        let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "60+0"}))
            .steps("1000 mv e2e4 w")
            .record(json!({"t": 2000, "arbiter": "pause", "author": "eboard (downtime)"}))
            .steps("3000 lift e7\n3300 place e5\n4000 press b\n100000 press b\n200000 press w");
        let ev = replay_events(&b, rules);
        assert_eq!(of(&ev, "move").len(), 1, "{rules}: {ev:#?}");
        assert!(of(&ev, "flag").is_empty(), "{rules}");
        assert_eq!(of(&ev, "irregularity").len(), 3, "{rules}");
    }
}

#[test]
fn no_flag_falls_while_the_pause_holds() {
    // Over 3 min paused with 60 s on the clocks: no flag while the clocks stand, whatever
    // the players press.
    for (rules, _) in ALL {
        let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "60+0"}))
            .steps("1000 mv e2e4 w")
            .record(json!({"t": 2000, "arbiter": "pause"}))
            .steps("3000 lift e7\n3300 place e5\n4000 press b\n200000 press b\n200500 press w");
        let ev = replay_events(&b, rules);
        assert!(of(&ev, "flag").is_empty(), "{rules}: {ev:#?}");
        assert!(of(&ev, "game_end").is_empty(), "{rules}");
        assert_eq!(of(&ev, "move").len(), 1, "{rules}");
        assert_eq!(of(&ev, "irregularity").len(), 3, "{rules}");
    }
}

/// 2009 §6.12c "Dommeren bestemmer hvornår partiet genoptages" (2001
/// §6.13c, 2023 6.11.3): White's move made and not pressed, the arbiter
/// pauses; Black replies and presses during the pause: shown to the
/// arbiter, not applied. After the resume Black's press takes both moves;
/// White's clock, stopped during the pause, runs on.
#[test]
fn a_press_during_a_pause_after_a_move_not_pressed_waits_for_the_resume() {
    let steps = "
        1000 lift e2
        1300 place e4
        2000 arbiter pause
        3000 lift e7
        3300 place e5
        4000 press b
        10000 arbiter resume
        11000 press b";
    for (rules, article) in [
        ("fide-2001", "6.13c"),
        ("fide-2009", "6.12c"),
        ("fide-2009-no", "6.12c"),
        ("fide-2023", "6.11.3"),
    ] {
        let ev = common::replay_steps(json!({"trace": 1, "time_control": "5400+30"}), steps, rules);
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(irr[0]["kind"], "press_during_pause", "{rules}");
        assert_eq!(irr[0]["article"], article, "{rules}");
        let sans: Vec<&Value> = of(&ev, "move").iter().map(|m| &m["san"]).collect();
        assert_eq!(sans, [&json!("e4"), &json!("e5")], "{rules}: {ev:#?}");
        assert_eq!(of(&ev, "move")[0]["t"], 11000, "{rules}");
        // White's clock ran 0–2 s and 10–11 s; Black's never (5430 s:
        // 5400 + 30 over the board).
        let c = *of(&ev, "clock").last().unwrap();
        assert_eq!(c["white_ms"], 5_430_000 - 3_000, "{rules}: {c}");
        assert_eq!(c["black_ms"], 5_430_000, "{rules}: {c}");
    }
}

// ---- Held-out cases (issue 25, point 3), written from the seeds: 2009
// §6.12a/c (seed 002), 2001 §6.13a/c (seed 000), 2023 6.11.1 / 6.11.3
// ("The arbiter shall decide when the game restarts"). ----------------------

/// 2023 7.5.3 penalises a press "without making a move"; but while the
/// clocks are paused the press is no press of a running game: it is shown
/// (6.11.3), never an illegal move, in every edition.
#[test]
fn a_press_without_a_move_during_the_pause_is_no_illegal_move() {
    for (rules, article) in ALL {
        let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "300+2"}))
            .steps("1000 mv e2e4 w")
            .record(json!({"t": 2000, "arbiter": "pause"}))
            .steps("3000 press b\n3500 press w")
            .record(json!({"t": 10000, "arbiter": "resume"}))
            .steps("11000 lift e7\n11300 place e5\n11600 press b");
        let ev = replay_events(&b, rules);
        assert!(of(&ev, "illegal_move").is_empty(), "{rules}: {ev:#?}");
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 2, "{rules}: {ev:#?}");
        assert!(irr.iter().all(|i| i["kind"] == "press_during_pause"));
        assert!(irr.iter().all(|i| i["article"] == article), "{rules}");
        let m = of(&ev, "move");
        assert_eq!(m.len(), 2, "{rules}: {ev:#?}");
        assert_eq!(m[1]["t"], 11600, "{rules}");
    }
}

/// A second `pause` while the clocks stand is refused with its reason,
/// and the first pause still holds: a press after it is only shown.
#[test]
fn a_second_pause_is_refused_and_the_first_still_holds() {
    for (rules, _) in ALL {
        let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "300+2"}))
            .steps("1000 mv e2e4 w")
            .record(json!({"t": 2000, "arbiter": "pause"}))
            .record(json!({"t": 2500, "arbiter": "pause"}))
            .steps("3000 lift e7\n3300 place e5\n4000 press b");
        let ev = replay_events(&b, rules);
        let refused = of(&ev, "ruling_refused");
        assert_eq!(refused.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(refused[0]["action"], "pause", "{rules}");
        assert_eq!(refused[0]["status"], 422, "{rules}");
        assert!(!refused[0]["reason"].as_str().unwrap().is_empty());
        assert_eq!(of(&ev, "move").len(), 1, "{rules}: {ev:#?}");
        assert!(clocks_at(&ev, 4000).is_empty(), "{rules}");
        assert_eq!(of(&ev, "irregularity")[0]["kind"], "press_during_pause");
    }
}

/// The arbiter sets the clocks during the pause (2009 §6.10b / 2023
/// 6.10.2): the clocks take the times and stay stopped; the player's press
/// is still only shown; after the resume the clock of the player on move
/// runs from the time set.
#[test]
fn the_arbiters_clock_setting_during_the_pause_keeps_the_pause() {
    for (rules, _) in ALL {
        let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "300+2"}))
            .steps("1000 mv e2e4 w")
            .record(json!({"t": 2000, "arbiter": "pause", "author": "IA Hansen"}))
            .record(
                json!({"t": 2500, "arbiter": "clock", "white_ms": 200000, "black_ms": 100000,
                           "author": "IA Hansen"}),
            )
            .steps("3000 lift e7\n3300 place e5\n4000 press b")
            .record(json!({"t": 10000, "arbiter": "resume", "author": "IA Hansen"}))
            .steps("15000 press b");
        let ev = replay_events(&b, rules);
        let rulings: Vec<&Value> = of(&ev, "ruling").iter().map(|r| &r["action"]).collect();
        assert_eq!(rulings, ["pause", "clock", "resume"], "{rules}: {ev:#?}");
        assert!(clocks_at(&ev, 4000).is_empty(), "{rules}: {ev:#?}");
        assert_eq!(of(&ev, "irregularity").len(), 1, "{rules}");
        // Black's clock ran 10 s → 15 s only: 100 s - 5 s + 2 s.
        assert_eq!(
            clocks_at(&ev, 15000),
            [(200_000, 97_000)],
            "{rules}: {ev:#?}"
        );
    }
}

/// The player not on move presses during the pause (his clock was not
/// running): shown, and after the resume it is the clock of the player on
/// move that runs, as it ran before the pause.
#[test]
fn after_the_resume_the_clock_of_the_player_on_move_runs_whoever_pressed() {
    for author in [None, Some("eboard (downtime)")] {
        for (rules, _) in ALL {
            let pause = match author {
                Some(a) => json!({"t": 5000, "arbiter": "pause", "author": a}),
                None => json!({"t": 5000, "arbiter": "pause"}),
            };
            let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "300+2"}))
                .steps("1000 mv e2e4 w\n2000 mv e7e5 b")
                .record(pause)
                .steps("6000 press b\n7000 press b")
                .record(json!({"t": 20000, "arbiter": "resume"}))
                .steps("24000 mv g1f3 w");
            let ev = replay_events(&b, rules);
            assert_eq!(of(&ev, "irregularity").len(), 2, "{rules}: {ev:#?}");
            assert_eq!(of(&ev, "move").len(), 3, "{rules}: {ev:#?}");
            // White's clock: 302 - 1.6 + 2 after move 1, then ran 2.6 → 5
            // s and 20 → 24.6 s: 302.4 - 2.4 - 4.6 + 2 s.
            let c = *of(&ev, "clock").last().unwrap();
            assert_eq!(c["t"], 24600, "{rules}");
            assert_eq!(c["white_ms"], 297_400, "{rules} {author:?}: {c}");
        }
    }
}

/// A player may resign at any time (2009 §5.1b, 2023 5.1.2): the pause
/// holds the clocks, not the game; a resignation during it ends the game,
/// and the clocks stay stopped.
#[test]
fn a_resignation_during_the_pause_ends_the_game() {
    for (rules, _) in ALL {
        let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "300+2"}))
            .steps("1000 mv e2e4 w\n2000 mv e7e5 b")
            .record(json!({"t": 3000, "arbiter": "pause"}))
            .steps("4000 resign b\n5000 press w");
        let ev = replay_events(&b, rules);
        let end = of(&ev, "game_end");
        assert_eq!(end.len(), 1, "{rules}: {ev:#?}");
        assert_eq!(end[0]["reason"], "resignation", "{rules}");
        assert_eq!(end[0]["result"], "1-0", "{rules}");
        assert!(of(&ev, "flag").is_empty(), "{rules}");
    }
}

/// A pause in the middle of a move with a delay: the clock stops and goes
/// on where it stopped (2009 §6.12, 2023 6.11). The delay is the move's,
/// once (2023 6.3.2, the glossary's "delay"): US delay, 3 s of Black's
/// think before the pause and 4.6 s after are 7.6 s, charged 2.6 s — not a
/// second 5 s of delay after the resume; Bronstein, 7.6 s used and 5 s
/// given back at the press — not only the 4.6 s after the resume. Black
/// ends on 297.4 s either way.
#[test]
fn a_pause_during_a_delay_neither_gives_a_second_delay_nor_loses_the_first() {
    for tc in ["300d5", "300b5"] {
        for (rules, _) in ALL {
            let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": tc}))
                .steps("1000 mv e2e4 w")
                .record(json!({"t": 4600, "arbiter": "pause"}))
                .record(json!({"t": 10000, "arbiter": "resume"}))
                .steps("13000 lift e7\n13300 place e5\n14600 press b");
            let ev = replay_events(&b, rules);
            assert_eq!(of(&ev, "move").len(), 2, "{tc} {rules}: {ev:#?}");
            assert_eq!(
                clocks_at(&ev, 14600),
                [(300_000, 297_400)],
                "{tc} {rules}: {ev:#?}"
            );
        }
    }
}

/// Issue 40.4 / 40.5: the clock corrected by the arbiter. A time control
/// set wrong (without its increment) and installed right in the middle
/// of the game (2023 6.10.2, `time_control`): every later press credits
/// the increment, the PGN's `TimeControl` follows, the clocks of the moves
/// played before stay as they were; an undo gives the old control back.
mod time_control_corrected {

    use crate::common::trace::TraceBuilder;
    use eboard::broadcast::write_pgn;
    use eboard::controller::replay;
    use serde_json::json;

    /// The `[%clk …]` comments of a PGN, in order.
    fn clks(pgn: &str) -> Vec<String> {
        pgn.split("[%clk ")
            .skip(1)
            .map(|s| s.split(']').next().unwrap_or("").to_owned())
            .collect()
    }

    fn secs(clk: &str) -> i64 {
        let p: Vec<f64> = clk.split(':').map(|x| x.parse().unwrap()).collect();
        (p[0] * 3600.0 + p[1] * 60.0 + p[2]).round() as i64
    }

    /// The moves e4 e5 Nf3 Nc6 at `5400` (no increment, each move 10 s),
    /// then `extra` (the ruling, at 41 s), then Bb5 a6 Ba4 Nf6, each 10 s.
    fn game(extra: &[serde_json::Value]) -> TraceBuilder {
        game_with(extra, &[])
    }

    /// [`game`] with `late` after 4. Ba4.
    fn game_with(extra: &[serde_json::Value], late: &[serde_json::Value]) -> TraceBuilder {
        let mut b = TraceBuilder::with_header(json!({"trace": 1, "time_control": "5400"}))
            .mv(0, "e2e4", "w")
            .mv(10_000, "e7e5", "b")
            .mv(20_000, "g1f3", "w")
            .mv(30_000, "b8c6", "b");
        for r in extra {
            b = b.record(r.clone());
        }
        b = b
            .mv(50_000, "f1b5", "w")
            .mv(60_000, "a7a6", "b")
            .mv(70_000, "b5a4", "w");
        for r in late {
            b = b.record(r.clone());
        }
        b.mv(80_000, "g8f6", "b")
    }

    fn install(t: u64) -> serde_json::Value {
        json!({"t": t, "arbiter": "time_control", "control": "5400+30", "author": "IA Hansen"})
    }

    #[test]
    fn an_increment_installed_after_move_2_credits_every_later_move_and_the_pgn_follows() {
        let (plain, _) = replay(&game(&[]).trace(), None, None).expect("config");
        let before = clks(&write_pgn(&plain));
        let (a, events) = replay(&game(&[install(41_000)]).trace(), None, None).expect("config");
        let applied: Vec<_> = events
            .iter()
            .map(|e| e.to_json())
            .filter(|j| j.contains("\"ruling\"") && j.contains("time_control"))
            .collect();
        assert_eq!(applied.len(), 1, "the ruling is applied: {events:?}");
        assert!(applied[0].contains("5400 → 5400+30"), "{}", applied[0]);
        let pgn = write_pgn(&a);
        assert!(pgn.contains("[TimeControl \"5400+30\"]"), "{pgn}");
        let after = clks(&pgn);
        assert_eq!(after.len(), 8, "{pgn}");
        // The moves played before the ruling keep their clocks.
        assert_eq!(after[..4], before[..4], "{pgn}");
        // Every later move is credited 30 s more than without the ruling.
        for i in 4..8 {
            let gained = secs(&after[i]) - secs(&before[i]);
            let presses = (i - 4) / 2 + 1;
            assert_eq!(
                gained,
                30 * presses as i64,
                "move {i}: {after:?} vs {before:?}"
            );
        }
    }

    #[test]
    fn the_installed_control_undone_gives_the_old_one_back() {
        let undo = json!({"t": 75_000, "arbiter": "undo", "ruling": 1, "author": "IA Hansen"});
        let (plain, _) = replay(&game(&[]).trace(), None, None).expect("config");
        // The undo after 4. Ba4, before 4... Nf6.
        let t = game_with(&[install(41_000)], &[undo]).trace();
        let (a, events) = replay(&t, None, None).expect("config");
        let undone = events
            .iter()
            .map(|e| e.to_json())
            .find(|j| j.contains("undone: time control back to 5400"));
        assert!(undone.is_some(), "{events:?}");
        let pgn = write_pgn(&a);
        assert!(pgn.contains("[TimeControl \"5400\"]"), "{pgn}");
        // After the undo the clocks are as if the control had never changed.
        let (w, b) = a.clock().unwrap().remaining_at(90_000);
        let (pw, pb) = plain.clock().unwrap().remaining_at(90_000);
        assert_eq!((w / 1000, b / 1000), (pw / 1000, pb / 1000));
    }
}
