//! Every time control at its flag (issue 25, point 4): eboard's clock engine
//! against an independent model written from the Laws and the glossary,
//! for every mode (no bonus, Fischer increment under both conventions, US
//! delay, Bronstein delay), one to three periods each in its own mode, the
//! next period's time arriving at the press of the period's last move, the
//! last period repeating when it has a move count.
//!
//! Properties: after every press both clocks equal the model's; the flag
//! time is the moment the clock shows zero (Fischer, Bronstein, no bonus:
//! the remaining time; US delay: the delay, then the remaining time); a
//! press at or after that moment credits nothing (the time stays at zero,
//! the flag stays fallen); through the arbiter, in standard play, a flag is
//! never followed by a completed move.

use crate::common;

use common::{of, replay_events, TraceBuilder};
use eboard::clock::{Bonus, Clock, ClockStart, Period, TimeControl};
use proptest::prelude::*;
use serde_json::json;
use shakmaty::Color;

/// The model: remaining time (ms, white, black), moves completed, flags.
struct Model {
    tc: TimeControl,
    rem: [i64; 2],
    moves: [u32; 2],
    flagged: [bool; 2],
}

impl Model {
    fn new(tc: &TimeControl) -> Model {
        let first = tc.periods[0];
        let credit = match (tc.start, first.bonus) {
            (ClockStart::BasePlusIncrement, Bonus::Increment(i)) => i as i64,
            _ => 0,
        };
        let base = first.time_ms as i64 + credit;
        Model {
            tc: tc.clone(),
            rem: [base, base],
            moves: [0, 0],
            flagged: [false, false],
        }
    }

    /// The period a player plays his move number `done + 1` in.
    fn period(&self, done: u32) -> Period {
        let mut first_move = 0u32;
        for (i, p) in self.tc.periods.iter().enumerate() {
            let last = i + 1 == self.tc.periods.len();
            match p.moves {
                Some(n) if !last && done >= first_move + n => first_move += n,
                _ => return *p,
            }
        }
        unreachable!("the last period always answers")
    }

    /// Whether completing move number `done` (1-based) starts a new period
    /// (its time is added): the end of every period with a move count, the
    /// last one's repetitions included.
    fn period_ends(&self, done: u32) -> bool {
        let mut end = 0u32;
        let periods = &self.tc.periods;
        for p in &periods[..periods.len() - 1] {
            end += p.moves.unwrap();
            if done == end {
                return true;
            }
        }
        match periods[periods.len() - 1].moves {
            Some(n) => done > end && (done - end).is_multiple_of(n),
            None => false,
        }
    }

    /// Time from the start of a think to the flag, ms.
    fn available(&self, side: usize) -> i64 {
        let extra = match self.period(self.moves[side]).bonus {
            Bonus::UsDelay(d) => d as i64,
            _ => 0,
        };
        self.rem[side].max(0) + extra
    }

    /// `side` thinks `dt` ms and presses.
    fn press(&mut self, side: usize, dt: u64) {
        let dt = dt as i64;
        let p = self.period(self.moves[side]);
        if self.flagged[side] || dt >= self.available(side) {
            self.flagged[side] = true;
            self.rem[side] = 0;
            self.moves[side] += 1;
            return;
        }
        match p.bonus {
            Bonus::UsDelay(d) => self.rem[side] -= (dt - d as i64).max(0),
            Bonus::Bronstein(d) => self.rem[side] += dt.min(d as i64) - dt,
            Bonus::Increment(i) if self.tc.start == ClockStart::Base => {
                self.rem[side] += i as i64 - dt
            }
            _ => self.rem[side] -= dt,
        }
        self.moves[side] += 1;
        if self.tc.start == ClockStart::BasePlusIncrement {
            if let Bonus::Increment(i) = self.period(self.moves[side]).bonus {
                self.rem[side] += i as i64;
            }
        }
        if self.period_ends(self.moves[side]) {
            self.rem[side] += self.period(self.moves[side]).time_ms as i64;
        }
    }
}

fn bonus() -> impl Strategy<Value = Bonus> {
    prop_oneof![
        Just(Bonus::None),
        (1u64..40).prop_map(|s| Bonus::Increment(s * 1000)),
        (1u64..40).prop_map(|s| Bonus::UsDelay(s * 1000)),
        (1u64..40).prop_map(|s| Bonus::Bronstein(s * 1000)),
    ]
}

fn time_control() -> impl Strategy<Value = TimeControl> {
    (
        prop::collection::vec((1u32..6, 5u64..120, bonus()), 1..4),
        any::<bool>(),
    )
        .prop_map(|(ps, online)| {
            let n = ps.len();
            let periods = ps
                .into_iter()
                .enumerate()
                .map(|(i, (moves, secs, bonus))| Period {
                    // The last period: sudden death or repeating.
                    moves: if i + 1 < n || moves.is_multiple_of(2) {
                        Some(moves)
                    } else {
                        None
                    },
                    time_ms: secs * 1000,
                    bonus,
                })
                .collect();
            let start = if online {
                ClockStart::Base
            } else {
                ClockStart::BasePlusIncrement
            };
            TimeControl { periods, start }
        })
}

fn side(i: usize) -> Color {
    if i == 0 {
        Color::White
    } else {
        Color::Black
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// eboard's clock equals the model at every press, and its flag time is
    /// the moment the model's clock shows zero.
    #[test]
    fn the_clock_engine_equals_the_model_in_every_mode(
        tc in time_control(),
        thinks in prop::collection::vec(0u64..90_000, 1..40),
    ) {
        let mut clock = Clock::new(tc.clone());
        let mut model = Model::new(&tc);
        clock.start(Color::White, 0);
        let mut t = 0u64;
        for (ply, dt) in thinks.into_iter().enumerate() {
            let s = ply % 2;
            let flag = clock.flag_time();
            if model.flagged[s] {
                prop_assert_eq!(flag, None, "ply {}: a fallen flag is reported once", ply);
            } else {
                let want = t + model.available(s) as u64;
                prop_assert_eq!(flag, Some((side(s), want)), "ply {} ({:?})", ply, tc);
                // At the flag the clock shows zero, a moment before not.
                let (w, b) = clock.remaining_at(want);
                prop_assert_eq!(if s == 0 { w } else { b }, 0);
                if want > t {
                    let (w, b) = clock.remaining_at(want - 1);
                    prop_assert!(if s == 0 { w } else { b } > 0, "ply {}: zero before the flag", ply);
                }
            }
            t += dt;
            clock.press(side(s), t);
            model.press(s, dt);
            let (w, b) = clock.remaining_at(t);
            prop_assert_eq!(
                (w as i64, b as i64),
                (model.rem[0].max(0), model.rem[1].max(0)),
                "ply {} after {} ms ({})", ply, dt, tc
            );
            prop_assert_eq!(clock.is_flagged(side(s)), model.flagged[s]);
            prop_assert_eq!(clock.moves_done(side(s)), model.moves[s]);
        }
    }

    /// Through the arbiter in standard play: a flag ends the game and no
    /// move is completed after it, whatever the mode (the Bronstein case of
    /// issue 25: a flag at the base time, the move then completed inside
    /// the delay).
    #[test]
    fn a_flag_is_never_followed_by_a_completed_move(
        secs in 1u64..20,
        delay in 1u64..20,
        mode in 0usize..4,
        over in 0u64..30_000,
    ) {
        let tc = match mode {
            0 => format!("{secs}"),
            1 => format!("{secs}+{delay}"),
            2 => format!("{secs}d{delay}"),
            _ => format!("{secs}b{delay}"),
        };
        // White thinks from 0 to the press at `press`.
        let avail = (secs + if mode == 1 { delay } else { 0 } + if mode == 2 { delay } else { 0 }) * 1000;
        let press = avail + over;
        let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": tc, "mode": "standard"}))
            .steps(&format!("500 lift e2\n700 place e4\n{press} press w"));
        let ev = replay_events(&b, "fide-2009");
        let flags = of(&ev, "flag");
        prop_assert_eq!(flags.len(), 1, "{}: {:?}", tc, ev);
        prop_assert_eq!(flags[0]["t"].as_u64(), Some(avail), "{}", tc);
        prop_assert!(of(&ev, "move").is_empty(), "{}: {:?}", tc, ev);
    }
}

#[test]
fn a_press_after_the_flag_credits_nothing_where_the_game_goes_on() {
    // 2009 rapid with inadequate supervision (A4d1: the flag counts only on
    // a claim): Black's flag falls at 901.5 s with 900b5 (Bronstein gives
    // back the time used only after the press); his press 3 s later
    // completes the move but his clock stays at zero (main before issue 25
    // showed 0:02 again).
    let b = TraceBuilder::with_header(json!({"trace": 1, "mode": "rapid",
        "time_control": "900b5", "supervision": "inadequate"}))
    .steps("1000 mv e2e4 w\n3000 lift e7\n3200 place e5\n904500 press b\n905000 claim time w");
    let ev = replay_events(&b, "fide-2009");
    let flags = of(&ev, "flag");
    assert_eq!(flags.len(), 1, "{ev:#?}");
    assert_eq!(flags[0]["t"], 901_600);
    let clocks = of(&ev, "clock");
    let last = clocks.iter().find(|c| c["t"] == 904_500).unwrap();
    assert_eq!(last["black_ms"], 0, "{ev:#?}");
    let claim = of(&ev, "claim");
    assert_eq!(claim[0]["upheld"], true, "the flag stays fallen: {ev:#?}");
}

// ---- Held-out cases (issue 25, point 4): flags mid-game in every mode,
// standard play, every edition (2009 §6.9 / 2023 6.9: the flag falls when
// the clock shows zero; 2023 6.3.2 and the glossary for the delays; §6.3 /
// 6.3.1 the periods count each player's own completed moves). ---------------

const EDITIONS: [&str; 4] = ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"];

/// Three quick moves (White presses at 1.6 s and 3.6 s, Black at 2.6 s),
/// then Black's Nf6-g8 set down at 12.3 s and pressed at `press`.
fn mid_game(tc: &str, press: u64, rules: &str) -> Vec<serde_json::Value> {
    let b = TraceBuilder::with_header(json!({"trace": 1, "time_control": tc, "mode": "standard"}))
        .steps(&format!(
            "1000 mv g1f3 w\n2000 mv g8f6 b\n3000 mv f3g1 w\n12000 lift f6\n12300 place g8\n{press} press b"
        ));
    replay_events(&b, rules)
}

/// `(flag time, moves, Black's time after his press)` of a run.
fn outcome(ev: &[serde_json::Value]) -> (Option<u64>, usize, Option<i64>) {
    let flag = of(ev, "flag").first().and_then(|f| f["t"].as_u64());
    let moves = of(ev, "move").len();
    let black = of(ev, "move")
        .get(3)
        .and_then(|_| of(ev, "clock").last().and_then(|c| c["black_ms"].as_i64()));
    (flag, moves, black)
}

/// Bronstein (`10b5`): the clock runs down during the move and the time
/// used (up to 5 s) comes back only at the press, so the flag falls when
/// the main time is spent: Black has 10 s from 3.6 s (his 1 s on move 1
/// given back), the flag at 13.6 s; a press at 13.7 s completes nothing
/// and the game is lost. At 13.5 s the move stands with 10 - 9.9 + 5 s.
#[test]
fn bronstein_mid_game_the_flag_falls_at_zero_and_no_move_follows() {
    for rules in EDITIONS {
        let ev = mid_game("10b5", 13_700, rules);
        assert_eq!(outcome(&ev), (Some(13_600), 3, None), "{rules}: {ev:#?}");
        let end = of(&ev, "game_end");
        assert_eq!(end[0]["result"], "1-0", "{rules}");
        assert_eq!(end[0]["reason"], "time", "{rules}");
        let ev = mid_game("10b5", 13_500, rules);
        assert_eq!(outcome(&ev), (None, 4, Some(5_100)), "{rules}: {ev:#?}");
    }
}

/// US delay (`10d5`): the main time starts only after 5 s of the move;
/// Black (10 s left, his first move inside the delay) flags at 3.6 + 5 +
/// 10 = 18.6 s. A press at 18.5 s leaves him 0.1 s; at 18.7 s nothing.
#[test]
fn us_delay_mid_game_the_flag_falls_after_the_delay_and_the_time() {
    for rules in EDITIONS {
        let b = |press: u64| mid_game("10d5", press, rules);
        let ev = b(18_700);
        assert_eq!(outcome(&ev), (Some(18_600), 3, None), "{rules}: {ev:#?}");
        let ev = b(18_500);
        assert_eq!(outcome(&ev), (None, 4, Some(100)), "{rules}: {ev:#?}");
    }
}

/// Two moves in 10 s, then 60 s (`2/10:60`): each player's own moves count
/// (§6.3 / 6.3.1). White completes his second move at 3.6 s and gets his
/// 60 s then (10 - 1.6 - 1 + 60 = 67.4 s); Black is still in his first
/// period, with 9 s from 3.6 s: his flag falls at 12.6 s, before his second
/// move, though White has reached the next control.
#[test]
fn multi_period_each_players_own_counter_brings_his_next_period() {
    for rules in EDITIONS {
        let ev = mid_game("2/10:60", 13_000, rules);
        assert_eq!(outcome(&ev), (Some(12_600), 3, None), "{rules}: {ev:#?}");
        let at = of(&ev, "clock")
            .into_iter()
            .find(|c| c["t"] == 3600)
            .unwrap()
            .clone();
        assert_eq!(at["white_ms"], 67_400, "{rules}: {at}");
        // Inside his time his second move brings his 60 s.
        let ev = mid_game("2/10:60", 12_500, rules);
        assert_eq!(outcome(&ev), (None, 4, Some(60_100)), "{rules}: {ev:#?}");
    }
}

/// Each period in its own mode (`2/10+1:60d5`): two moves with a 1 s
/// increment, then 60 s with a 5 s US delay. White's third move is in the
/// delayed period: from 4.6 s he has 69.4 s (11 - 1.6 + 1 - 1 + 60) and
/// the delay, so his flag falls at 4.6 + 5 + 69.4 = 79 s.
#[test]
fn multi_period_the_next_period_keeps_its_own_mode_at_the_flag() {
    for rules in EDITIONS {
        let run = |press: u64| {
            let b = TraceBuilder::with_header(
                json!({"trace": 1, "time_control": "2/10+1:60d5", "mode": "standard"}),
            )
            .steps(&format!(
                "1000 mv g1f3 w\n2000 mv g8f6 b\n3000 mv f3g1 w\n4000 mv f6g8 b\n\
                 70000 lift b1\n70300 place c3\n{press} press w"
            ));
            replay_events(&b, rules)
        };
        let ev = run(79_100);
        let flag: Vec<_> = of(&ev, "flag").iter().map(|f| f["t"].clone()).collect();
        assert_eq!(flag, [json!(79_000)], "{rules}: {ev:#?}");
        assert_eq!(of(&ev, "move").len(), 4, "{rules}");
        let ev = run(78_900);
        assert!(of(&ev, "flag").is_empty(), "{rules}: {ev:#?}");
        let last = *of(&ev, "clock").last().unwrap();
        assert_eq!(last["white_ms"], 100, "{rules}: {last}");
    }
}

// ---- The same flags through the real daemon (issue 25, point 4):
// `eboard run --trace` (the board loop, its deadlines and the journal), not
// the library's replay. -------------------------------------------------------

/// Runs `steps` through `eboard run --config … --trace …` at speed 25 under
/// `tc` and `rules` (standard play); returns the journaled events
/// (`JOURNAL.events`) once `done` holds of them (bounded, 40 s).
fn through_daemon(
    tc: &str,
    rules: &str,
    steps: &str,
    done: impl Fn(&[serde_json::Value]) -> bool,
) -> Vec<serde_json::Value> {
    let dir = common::tempdir("flag-daemon");
    let trace = dir.join("t.jsonl");
    std::fs::write(&trace, TraceBuilder::new().steps(steps).text()).unwrap();
    let cfg = common::config(&dir, 1, 1, "");
    common::event_keys(
        &cfg,
        tc,
        &format!("rules = \"{rules}\"\nmode = \"standard\"\n"),
    );
    let journal = dir.join("j.jsonl");
    let args = common::journal_speed_delay(&journal, "25", "0");
    let run = common::run_board(&dir, &cfg, Some(&trace), &common::refs(&args));
    let events = eboard::journal::events_path(&journal);
    let ev = common::poll(40, &format!("{tc} {rules}: the run's events"), || {
        let text = std::fs::read_to_string(&events).ok()?;
        let ev: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        done(&ev).then_some(ev)
    });
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
    ev
}

/// (time control, rules, steps, the flag's t or none, moves, the last
/// clock's (side, ms) when the move completes).
type FlagCase = (
    &'static str,
    &'static str,
    String,
    Option<u64>,
    usize,
    Option<(&'static str, u64)>,
);

/// Every mode at its flag through the daemon, as the library cases above
/// (their numbers): Bronstein `10b5`, US delay `10d5`, `2/10:60` (each
/// player's own counter), `2/10+1:60d5` (the next period in its own mode);
/// a press just after the flag completes nothing (game over), just before
/// it completes the move with the time the model gives. The runs go in
/// parallel (each its own process); about 5 s in all.
#[test]
fn every_time_control_at_its_flag_through_the_real_daemon() {
    const MID: &str =
        "1000 mv g1f3 w\n2000 mv g8f6 b\n3000 mv f3g1 w\n12000 lift f6\n12300 place g8\n";
    const LATE: &str = "1000 mv g1f3 w\n2000 mv g8f6 b\n3000 mv f3g1 w\n4000 mv f6g8 b\n\
                        70000 lift b1\n70300 place c3\n";
    // (time control, rules, steps, the flag's t or none, moves, the last
    // clock's (side, ms) when the move completes)
    let cases: Vec<FlagCase> = vec![
        (
            "10b5",
            "fide-2023",
            format!("{MID}13700 press b"),
            Some(13_600),
            3,
            None,
        ),
        (
            "10b5",
            "fide-2009",
            format!("{MID}13700 press b"),
            Some(13_600),
            3,
            None,
        ),
        (
            "10b5",
            "fide-2001",
            format!("{MID}13700 press b"),
            Some(13_600),
            3,
            None,
        ),
        (
            "10b5",
            "fide-2023",
            format!("{MID}13500 press b"),
            None,
            4,
            Some(("black_ms", 5_100)),
        ),
        (
            "10d5",
            "fide-2023",
            format!("{MID}18700 press b"),
            Some(18_600),
            3,
            None,
        ),
        (
            "10d5",
            "fide-2009",
            format!("{MID}18500 press b"),
            None,
            4,
            Some(("black_ms", 100)),
        ),
        (
            "2/10:60",
            "fide-2023",
            format!("{MID}13000 press b"),
            Some(12_600),
            3,
            None,
        ),
        (
            "2/10:60",
            "fide-2009-no",
            format!("{MID}12500 press b"),
            None,
            4,
            Some(("black_ms", 60_100)),
        ),
        (
            "2/10+1:60d5",
            "fide-2023",
            format!("{LATE}79100 press w"),
            Some(79_000),
            4,
            None,
        ),
        (
            "2/10+1:60d5",
            "fide-2001",
            format!("{LATE}78900 press w"),
            None,
            5,
            Some(("white_ms", 100)),
        ),
    ];
    let runs: Vec<_> = cases
        .into_iter()
        .map(|(tc, rules, steps, flag, moves, clock)| {
            std::thread::spawn(move || {
                let ev = through_daemon(tc, rules, &steps, |ev| {
                    if flag.is_some() {
                        !of(ev, "game_end").is_empty()
                    } else {
                        of(ev, "move").len() >= moves
                    }
                });
                (tc, rules, flag, moves, clock, ev)
            })
        })
        .collect();
    for r in runs {
        let (tc, rules, flag, moves, clock, ev) = r.join().expect("a run");
        let flags: Vec<u64> = of(&ev, "flag")
            .iter()
            .filter_map(|f| f["t"].as_u64())
            .collect();
        let played = of(&ev, "move");
        match flag {
            Some(at) => {
                assert_eq!(flags, [at], "{tc} {rules}: {ev:#?}");
                assert_eq!(played.len(), moves, "{tc} {rules}: no move after the flag");
                let end = of(&ev, "game_end");
                assert_eq!(end[0]["reason"], "time", "{tc} {rules}: {ev:#?}");
            }
            None => {
                let last = played[moves - 1]["t"].as_u64().unwrap();
                assert!(
                    flags.iter().all(|f| *f > last),
                    "{tc} {rules}: no flag before the move: {ev:#?}"
                );
                let (side, ms) = clock.unwrap();
                let c = of(&ev, "clock")
                    .into_iter()
                    .find(|c| c["t"].as_u64() == Some(last))
                    .unwrap_or_else(|| panic!("{tc} {rules}: a clock at {last}: {ev:#?}"));
                assert_eq!(c[side], ms, "{tc} {rules}: {c}");
            }
        }
    }
}
