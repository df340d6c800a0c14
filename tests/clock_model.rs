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

mod common;

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
