use super::*;

#[test]
fn time_controls_past_any_clock_are_errors_not_wrapping_arithmetic() {
    for (text, part) in [
        ("99999999999999999+0", "base time"),
        ("5400+86401", "increment"),
        ("4294967295/5400:1800", "move count"),
        ("0/5400:1800", "move count"),
    ] {
        let e = TimeControl::parse(text).unwrap_err();
        assert!(e.to_string().contains(part), "{text}: {e}");
    }
    assert!(TimeControl::parse("1000/86400+30:1800").is_ok());
}

#[test]
fn hms_text() {
    assert_eq!(fmt_hms(5_428_100), "1:30:28");
    assert_eq!(fmt_hms(59_999), "0:00:59");
    assert_eq!(fmt_hms(0), "0:00:00");
    assert_eq!(fmt_hms(36_000_000 + 61_000), "10:01:01", "hours not capped");
    assert_eq!(split_hms(MAX_DISPLAY_S), (9, 59, 59));
    assert_eq!(split_hms(3_599), (0, 59, 59));
}

#[test]
fn parses_and_prints_fide_controls() {
    for s in [
        "5400+30",
        "40/5400+30:1800+30",
        "40/6000+30:20/3000+30:900+30",
        "40/7200:20/3600:900+30",
        "300d5",
        "600b3",
        "180+0.5",
    ] {
        let tc = TimeControl::parse(s).unwrap();
        assert_eq!(tc.to_string(), s);
    }
    assert_eq!(
        TimeControl::parse("40/5400+30:1800+30").unwrap().periods[1],
        Period {
            moves: None,
            time_ms: 1_800_000,
            bonus: Bonus::Increment(30_000)
        }
    );
    for bad in ["", "abc", "0/300", "300:40/60", "5400+x", "40/"] {
        assert!(TimeControl::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn reads_the_prose_of_fide_broadcast_tags() {
    for (tag, want) in [
        ("15 min. + 10 s. per move", "900+10"),
        (
            "15 minutes + 10 seconds increment per move, starting from move 1",
            "900+10",
        ),
        ("90 min + 30 sec", "5400+30"),
        ("1 h + 30 s per move from move 1", "3600+30"),
        ("180+2", "180+2"),
        ("40/7200:20/3600:900+30", "40/7200:20/3600:900+30"),
    ] {
        assert_eq!(
            TimeControl::from_pgn_tag(tag).unwrap().to_string(),
            want,
            "{tag}"
        );
    }
    for bad in [
        "15 min + 10 s from move 41",
        "15 minutes",
        "15 parsecs + 10 s",
        "-",
        "?",
    ] {
        assert!(TimeControl::from_pgn_tag(bad).is_err(), "{bad}");
    }
}

#[test]
fn clock_start_suffix() {
    let otb = TimeControl::parse("900+10").unwrap();
    assert_eq!(otb.start, ClockStart::BasePlusIncrement);
    assert_eq!(TimeControl::parse("900+10@base+inc").unwrap(), otb);
    let online = TimeControl::parse("900+10@base").unwrap();
    assert_eq!(online.start, ClockStart::Base);
    assert_eq!(online.periods, otb.periods);
    for s in ["900+10@base", "40/5400+30:1800+30@base", "300d5@base"] {
        assert_eq!(TimeControl::parse(s).unwrap().to_string(), s);
    }
    assert_eq!(
        TimeControl::parse("900+10@base+inc").unwrap().to_string(),
        "900+10"
    );
    assert_eq!(online.pgn_tag(), "900+10");
    for bad in ["900+10@", "900+10@online", "@base", "900+10@base@base"] {
        assert!(TimeControl::parse(bad).is_err(), "{bad}");
    }
    let e = TimeControl::parse("900+10@fide").unwrap_err().to_string();
    assert!(e.contains("@fide") && e.contains("@base"), "{e}");
}

/// The example: "15 min + 10 s from move 1" shows 0:15:10 before
/// the first move and 0:15:18 after a 2-second first move (FWWRC 2024
/// broadcasts); online, 0:15:00 and 0:15:08.
#[test]
fn over_the_board_starts_with_the_increment() {
    let mut c = Clock::new(TimeControl::parse("900+10").unwrap());
    c.start(Color::White, 0);
    assert_eq!(c.remaining_at(0), (910_000, 910_000));
    c.press(Color::White, 2_000);
    assert_eq!(c.remaining_at(2_000), (918_000, 910_000));
    let mut o = Clock::new(TimeControl::parse("900+10@base").unwrap());
    o.start(Color::White, 0);
    assert_eq!(o.remaining_at(0), (900_000, 900_000));
    o.press(Color::White, 2_000);
    assert_eq!(o.remaining_at(2_000), (908_000, 900_000));
}

#[test]
fn contract_example_increment_from_move_one() {
    // Online style: the contract's example numbers.
    let mut c = Clock::new(TimeControl::parse("5400+30@base").unwrap());
    c.start(Color::White, 0);
    c.press(Color::White, 1900);
    assert_eq!(c.remaining_at(1900), (5_428_100, 5_400_000));
    assert_eq!(c.running(), Some(Color::Black));
    // Over the board: one increment more on each side, all game.
    let mut c = Clock::new(TimeControl::parse("5400+30").unwrap());
    c.start(Color::White, 0);
    c.press(Color::White, 1900);
    assert_eq!(c.remaining_at(1900), (5_458_100, 5_430_000));
    assert_eq!(c.running(), Some(Color::Black));
}

#[test]
fn danish_championship_control_adds_periods_at_moves_40_and_60() {
    for (text, first) in [
        ("40/6000+30:20/3000+30:900+30@base", 0),
        ("40/6000+30:20/3000+30:900+30", 30_000),
    ] {
        let mut c = Clock::new(TimeControl::parse(text).unwrap());
        c.start(Color::White, 0);
        let mut t = 0;
        for mv in 1..=61u64 {
            t += 10_000;
            c.press(Color::White, t);
            t += 10_000;
            c.press(Color::Black, t);
            let (w, b) = c.remaining_at(t);
            let mut expect = 6_000_000i64 + first + 20_000 * mv as i64;
            if mv >= 40 {
                expect += 3_000_000;
            }
            if mv >= 60 {
                expect += 900_000;
            }
            assert_eq!(w as i64, expect, "{text}: white after move {mv}");
            assert_eq!(b as i64, expect, "{text}: black after move {mv}");
        }
    }
}

/// "40/7200:20/3600:900+30" (World Championship 2023: +30 s from move
/// 61): over the board the increment for move 61 comes with the third
/// period's time at the press of move 60; online after move 61.
#[test]
fn increment_from_a_later_period() {
    for (text, at_start, after_60, after_61) in [
        (
            "40/7200:20/3600:900+30",
            7_200_000,
            900_000 + 30_000,
            30_000,
        ),
        ("40/7200:20/3600:900+30@base", 7_200_000, 900_000, 30_000),
    ] {
        let mut c = Clock::new(TimeControl::parse(text).unwrap());
        c.start(Color::White, 0);
        assert_eq!(c.remaining_at(0).0, at_start, "{text}");
        let mut t = 0;
        let mut w_before = 0;
        for mv in 1..=61u64 {
            w_before = c.remaining_at(t).0 as i64;
            t += 10_000;
            c.press(Color::White, t);
            let w = c.remaining_at(t).0 as i64;
            let gain = w - w_before + 10_000;
            match mv {
                40 => assert_eq!(gain, 3_600_000, "{text}"),
                60 => assert_eq!(gain, after_60, "{text}"),
                61 => assert_eq!(gain, after_61, "{text}"),
                _ => assert_eq!(gain, 0, "{text}: move {mv}"),
            }
            t += 10_000;
            c.press(Color::Black, t);
        }
        let _ = w_before;
    }
}

#[test]
fn delays() {
    // No delay is credited before move 1 under either convention.
    for text in ["300d5", "300b5", "300d5@base", "300b5@base"] {
        let c = Clock::new(TimeControl::parse(text).unwrap());
        assert_eq!(c.remaining_at(0), (300_000, 300_000), "{text}");
    }
    let mut us = Clock::new(TimeControl::parse("300d5").unwrap());
    us.start(Color::White, 0);
    assert_eq!(us.remaining_at(4_000).0, 300_000);
    us.press(Color::White, 8_000);
    assert_eq!(us.remaining_at(8_000).0, 297_000);
    let mut br = Clock::new(TimeControl::parse("300b5").unwrap());
    br.start(Color::White, 0);
    br.press(Color::White, 3_000);
    assert_eq!(br.remaining_at(3_000).0, 300_000);
    br.press(Color::Black, 11_000);
    assert_eq!(br.remaining_at(11_000).1, 297_000);
}

#[test]
fn flag_time_is_exact() {
    let mut c = Clock::new(TimeControl::parse("60+1@base").unwrap());
    c.start(Color::White, 0);
    c.press(Color::White, 10_000);
    assert_eq!(c.flag_time(), Some((Color::Black, 70_000)));
    let mut c = Clock::new(TimeControl::parse("60+1").unwrap());
    c.start(Color::White, 0);
    assert_eq!(c.flag_time(), Some((Color::White, 61_000)));
    c.press(Color::White, 10_000);
    assert_eq!(c.flag_time(), Some((Color::Black, 71_000)));
    let mut d = Clock::new(TimeControl::parse("60d5").unwrap());
    d.start(Color::White, 1_000);
    assert_eq!(d.flag_time(), Some((Color::White, 66_000)));
}

/// A clock shows the whole seconds left, truncated (issue 40 §9): with
/// 900 ms left it shows 0:00:00 while the flag has not fallen; the flag
/// falls when 0:00:00.0 is reached, not when 0:00:00 is first shown.
#[test]
fn the_last_second_shows_zero_and_the_flag_falls_at_zero() {
    let mut c = Clock::new(TimeControl::parse("60@base").unwrap());
    c.start(Color::White, 0);
    let t = 59_100;
    let (w, _) = c.remaining_at(t);
    assert_eq!(w, 900);
    assert_eq!(builtin::hms_text(w), "0:00:00");
    assert_eq!(fmt_hms(w), "0:00:00");
    assert_eq!(c.flag_time(), Some((Color::White, 60_000)), "not before 0");
    assert!(!c.is_flagged(Color::White));
    // 1:17:18.9 shows 1:17:18, as the DGT clock on the table showed it.
    assert_eq!(builtin::hms_text(4_638_900), "1:17:18");
    assert_eq!(fmt_hms(4_638_900), "1:17:18");
}

#[test]
fn a_stop_and_start_go_on_with_the_same_moves_delay() {
    // 3 s of White's move, stopped (the arbiter's pause), resumed at 10 s,
    // 4.6 s more: US delay charges 7.6 - 5 s once; the flag waits only for
    // the 2 s of delay left.
    let mut c = Clock::new(TimeControl::parse("300d5").unwrap());
    c.start(Color::White, 0);
    c.stop(3_000);
    c.start(Color::White, 10_000);
    assert_eq!(
        c.flag_time(),
        Some((Color::White, 10_000 + 2_000 + 300_000))
    );
    assert_eq!(c.remaining_at(14_600).0, 297_400);
    c.press(Color::White, 14_600);
    assert_eq!(c.remaining_at(14_600).0, 297_400);
    // Bronstein: 7.6 s used, 5 s given back at the press.
    let mut b = Clock::new(TimeControl::parse("300b5").unwrap());
    b.start(Color::White, 0);
    b.stop(3_000);
    assert_eq!(b.remaining_at(3_000).0, 297_000);
    b.start(Color::White, 10_000);
    b.press(Color::White, 14_600);
    assert_eq!(b.remaining_at(14_600).0, 297_400);
    // The opponent's move after the press starts afresh.
    assert_eq!(b.flag_time(), Some((Color::Black, 14_600 + 300_000)));
    // A stop and a start of the other side: a new move, its own delay.
    let mut d = Clock::new(TimeControl::parse("300d5").unwrap());
    d.start(Color::White, 0);
    d.stop(3_000);
    d.start(Color::Black, 3_000);
    assert_eq!(d.flag_time(), Some((Color::Black, 3_000 + 5_000 + 300_000)));
}

#[test]
fn a_setting_in_the_middle_of_a_move_keeps_the_delay_already_used() {
    // US delay 5 s: 3 s of White's move, then the arbiter sets 100 s each;
    // the move's delay has 2 s left: at 10 s, 5 s of main time are gone.
    let mut c = Clock::new(TimeControl::parse("300d5").unwrap());
    c.start(Color::White, 0);
    c.set(100_000, 100_000, 3_000);
    assert_eq!(c.remaining_at(4_000).0, 100_000);
    assert_eq!(c.flag_time(), Some((Color::White, 3_000 + 2_000 + 100_000)));
    assert_eq!(c.remaining_at(10_000).0, 95_000);
    c.press(Color::White, 10_000);
    assert_eq!(c.remaining_at(10_000).0, 95_000);
    // Bronstein 5 s: 3 s ran before the setting (in the times set); 5 s
    // after it, of which 2 s inside the move's delay are given back.
    let mut b = Clock::new(TimeControl::parse("300b5").unwrap());
    b.start(Color::White, 0);
    b.set(100_000, 100_000, 3_000);
    b.press(Color::White, 8_000);
    assert_eq!(b.remaining_at(8_000).0, 97_000);
    // Inside the delay after the setting: all of it given back.
    let mut b = Clock::new(TimeControl::parse("300b5").unwrap());
    b.start(Color::White, 0);
    b.set(100_000, 100_000, 1_000);
    b.press(Color::White, 3_000);
    assert_eq!(b.remaining_at(3_000).0, 100_000);
    // During a pause: the same move goes on after the resume.
    let mut p = Clock::new(TimeControl::parse("300d5").unwrap());
    p.start(Color::White, 0);
    p.stop(4_000);
    p.set(60_000, 60_000, 5_000);
    p.start(Color::White, 9_000);
    assert_eq!(p.flag_time(), Some((Color::White, 9_000 + 1_000 + 60_000)));
    // The next move has its own whole delay.
    p.press(Color::White, 9_500);
    assert_eq!(p.flag_time(), Some((Color::Black, 9_500 + 5_000 + 60_000)));
}

/// 2023 Guidelines III.4: the five seconds introduced mid-game. From the
/// change on, every press credits 5 s (cumulative, both players, the move
/// in progress included); the time used before it stays charged.
#[test]
fn an_increment_introduced_mid_game_credits_every_press_from_then_on() {
    let tc = TimeControl::parse("1800").unwrap();
    let mut c = Clock::new(tc.clone());
    c.start(Color::White, 0);
    c.press(Color::White, 10_000);
    c.press(Color::Black, 20_000);
    // White thinks 4 s, then the control changes; 3 s more, then he presses.
    let five = tc.with_last_bonus(Bonus::Increment(5_000));
    assert_eq!(five.to_string(), "1800+5");
    c.change_time_control(five, 24_000);
    assert_eq!(c.remaining_at(24_000), (1_786_000, 1_790_000));
    assert_eq!(c.running(), Some(Color::White));
    c.press(Color::White, 27_000);
    assert_eq!(
        c.remaining_at(27_000),
        (1_788_000, 1_790_000),
        "+5 s at the press"
    );
    c.press(Color::Black, 29_000);
    assert_eq!(c.remaining_at(29_000), (1_788_000, 1_793_000));
    // Changed back (an undo): no more credit.
    c.change_time_control(tc, 30_000);
    c.press(Color::White, 31_000);
    assert_eq!(c.remaining_at(31_000), (1_786_000, 1_793_000));
}

/// III.4 with the arbiter's choice of a delay (U7): a US delay of 5 s
/// counts for the move in progress from the change on, and the flag falls
/// that much later.
#[test]
fn a_delay_introduced_mid_move_counts_from_the_change() {
    let tc = TimeControl::parse("60").unwrap();
    let mut c = Clock::new(tc.clone());
    c.start(Color::White, 0);
    c.change_time_control(tc.with_last_bonus(Bonus::UsDelay(5_000)), 10_000);
    assert_eq!(c.remaining_at(10_000).0, 50_000);
    assert_eq!(c.remaining_at(14_000).0, 50_000, "within the delay");
    assert_eq!(c.remaining_at(16_000).0, 49_000);
    assert_eq!(c.flag_time(), Some((Color::White, 65_000)));
}
