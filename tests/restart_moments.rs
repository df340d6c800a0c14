//! Restarts at rarer moments (issue 25, points 8 and 3), through the real
//! binary: a live board (records on its standard input, stamped on
//! arrival) killed with SIGKILL, as a watchdog or a power cut does, and
//! started again at once on the same journal. Where a moment needs a
//! longer downtime than a test can wait for, the journal's last heartbeat
//! is moved back on the boot clock (`boottime_ms`), which is exactly what a
//! longer downtime on the same boot leaves behind; a wall clock that
//! jumped is the journal's start moved (docs/dev/journal-notes.md, "Restarts at
//! rarer moments"). Session 16 adds a restart between two periods and a
//! heartbeat torn by a power cut.
//!
//! The board and its journal edits are `tests/common/restart.rs`.

use crate::common;

use common::restart::{down_longer, e4, other_boot, wall_stepped, Board};
use common::*;
use serde_json::Value;

#[test]
fn a_kill_during_the_arbiters_pause_keeps_the_game_paused() {
    let mut b = Board::new("arbpause", "5400+30", 1, 0);
    let t_w = e4(&mut b);
    b.arbiter("pause");
    let paused_at = poll(20, "the pause's clock", || {
        let (_, _, t) = b.last_clock();
        (t > t_w).then_some(t)
    });
    let held = b.clock_at(paused_at);
    b.reach(paused_at + 2_000);
    b.kill_and_restart(|_| {});
    let d = b.downtime();
    assert_eq!(d["measured_by"], "boottime", "{d}");
    // The game is still paused: Black's move and press are shown to the
    // arbiter, not applied, and no clock ran.
    b.make("e7", "e5");
    b.press("b");
    poll(20, "press_during_pause", || {
        (!b.irregularities("press_during_pause").is_empty()).then_some(())
    });
    assert_eq!(b.of("move").len(), 1, "held: no move during the pause");
    let (w, bl, _) = b.last_clock();
    assert_eq!((w, bl), held, "no time lost by either player");
    let s = b.state();
    assert_eq!(s[0]["state"]["stage"], "paused", "{s}");
    // The arbiter's resume, then Black's press: his clock ran from the
    // resume only.
    b.arbiter("resume");
    let resumed_at = poll(20, "the resume's clock", || {
        let (_, _, t) = b.last_clock();
        (t > paused_at).then_some(t)
    });
    b.press("b");
    let e5 = b.moves(2);
    let t = e5["t"].as_u64().unwrap();
    let (w2, b2) = b.clock_at(t);
    assert_eq!(w2, held.0, "White's clock stood");
    assert_eq!(b2, held.1 - (t - resumed_at) + 30_000, "Black: {e5}");
}

#[test]
fn a_kill_during_the_downtime_pause_keeps_it_until_the_arbiter_resumes() {
    let mut b = Board::new("dtpause", "5400+30", 1, 0);
    let t_w = e4(&mut b);
    b.reach(t_w + 2_000);
    // Another boot, not measured: the board pauses the clocks itself.
    b.kill_and_restart(other_boot);
    let d = b.downtime();
    assert_eq!(d["clocks_stopped"], true, "{d}");
    let until = d["until_t"].as_u64().unwrap();
    let held = b.clock_at(until);
    b.reach(until + 2_000);
    // Killed again before the arbiter resumed: the second restart is on
    // this boot (measured), but the game is still paused.
    b.kill_and_restart(|_| {});
    let d2 = b.downtime();
    assert_eq!(d2["measured_by"], "boottime", "{d2}");
    b.make("e7", "e5");
    b.press("b");
    poll(20, "press_during_pause", || {
        (!b.irregularities("press_during_pause").is_empty()).then_some(())
    });
    assert_eq!(b.of("move").len(), 1, "held across the second restart");
    let (w, bl, _) = b.last_clock();
    assert_eq!((w, bl), held, "no time lost by either player");
    b.arbiter("resume");
    b.press("b");
    b.moves(2);
}

// ---- 2. A kill inside a delay, a move made and not pressed -------------

/// Black thinks across the restart with his move on the board before the
/// kill; he presses `extra` ms of round time after the restart. His clock
/// is charged his think less the delay (US delay: the clock counts down
/// only after it; Bronstein: the time used up to it is given back; one
/// move, one formula), 2009 §6.2b / 2023 6.3.2.
fn think_across_a_restart_in_a_delay(tc: &str, extra: u64) {
    let mut b = Board::new("delay", tc, 2, 0);
    let t_w = e4(&mut b);
    let (_, black_before, _) = b.last_clock();
    b.make("e7", "e5");
    b.reach(t_w + 3_000);
    b.kill_and_restart(|_| {});
    let d = b.downtime();
    assert_eq!(d["clocks_stopped"], false, "{d}");
    let until = d["until_t"].as_u64().unwrap();
    assert!(b.of("move").len() == 1, "the move waits for its press");
    b.reach(until + extra);
    b.press("b");
    let e5 = b.moves(2);
    assert_eq!(e5["san"], "e5", "the move on the board: {e5}");
    let t = e5["t"].as_u64().unwrap();
    let think = t - t_w;
    let (_, black) = b.clock_at(t);
    assert_eq!(
        black,
        black_before - think.saturating_sub(10_000),
        "{tc}: a think of {think} ms"
    );
}

#[test]
fn a_kill_inside_a_us_delay_with_the_move_made_not_pressed() {
    think_across_a_restart_in_a_delay("3600d10", 0);
}

#[test]
fn a_kill_inside_a_bronstein_delay_pressed_after_it() {
    think_across_a_restart_in_a_delay("3600b10", 9_000);
}

// ---- 3. A kill just before a flag --------------------------------------

/// Black's clock would reach 0 during the downtime (61 min, a standard
/// game: the flag loses without a claim).
#[test]
fn a_flag_in_the_downtime_falls_exactly_at_zero_and_no_move_completes_after_it() {
    let mut b = Board::new("flag", "3660+0", 100, 0);
    let t_w = e4(&mut b);
    let (_, black_before, _) = b.last_clock();
    b.make("e7", "e5");
    b.reach(t_w + 10_000);
    // 40 s more downtime on the boot clock: 4,000 s of round time at
    // speed 100, more than Black's 3,660 s; within the quick bound.
    b.kill_and_restart(down_longer(40_000));
    let d = b.downtime();
    assert_eq!(d["clocks_stopped"], false, "{d}");
    let flag = poll(20, "Black's flag", || b.of("flag").pop());
    assert_eq!(flag["by"], "b", "{flag}");
    assert_eq!(
        flag["t"].as_u64().unwrap(),
        t_w + black_before,
        "at zero: {flag}"
    );
    let ended = poll(20, "the game's end", || b.of("game_end").pop());
    assert_eq!(ended["result"], "1-0", "{ended}");
    assert_eq!(ended["t"], flag["t"], "{ended}");
    // Black's press after the flag completes nothing.
    b.press("b");
    poll(20, "Black's press journaled", || {
        let text = std::fs::read_to_string(&b.journal).unwrap();
        (text.lines().filter(|l| l.contains("\"press\"")).count() == 2).then_some(())
    });
    assert_eq!(b.of("move").len(), 1, "{:#?}", b.of("move"));
    assert!(get(b.addr(), "/games.pgn").contains("1. e4"));
}

/// The same flag in a downtime longer than the quick bound (70 s on the
/// boot clock): the flag ended the game inside the downtime, so there is
/// no clock left to stop and nothing for the arbiter to resume.
#[test]
fn a_flag_in_a_long_downtime_ends_the_game_and_stops_no_clock_after_it() {
    let mut b = Board::new("longflag", "3660+0", 100, 0);
    let t_w = e4(&mut b);
    let (_, black_before, _) = b.last_clock();
    b.reach(t_w + 10_000);
    b.kill_and_restart(down_longer(70_000));
    let d = b.downtime();
    let flag = poll(20, "Black's flag", || b.of("flag").pop());
    assert_eq!(flag["t"].as_u64().unwrap(), t_w + black_before, "{flag}");
    let ended = poll(20, "the game's end", || b.of("game_end").pop());
    assert_eq!(ended["result"], "1-0", "{ended}");
    assert_eq!(d["clocks_stopped"], false, "the game had ended: {d}");
    assert_eq!(d["charged"]["by"], "b", "charged until his flag: {d}");
    assert_eq!(d["charged"]["black_ms"], 0, "{d}");
    let journal = std::fs::read_to_string(&b.journal).unwrap();
    assert!(!journal.contains("eboard (downtime)"), "{journal}");
    let s = b.state();
    assert_eq!(s[0]["state"]["stage"], "ended", "{s}");
}

// ---- 4. A long downtime, a wall clock that jumped ----------------------

/// Two minutes down on the same boot: charged to Black as measured, then
/// the clocks wait for the arbiter (longer than the quick bound); he is
/// told what was charged to whom.
#[test]
fn a_long_downtime_is_charged_to_the_player_on_move_and_the_arbiter_is_told() {
    let mut b = Board::new("long", "5400+30", 1, 0);
    let t_w = e4(&mut b);
    let (white_before, black_before, _) = b.last_clock();
    b.reach(t_w + 2_000);
    b.kill_and_restart(down_longer(120_000));
    let d = b.downtime();
    assert_eq!(d["measured_by"], "boottime", "{d}");
    assert_eq!(d["clocks_stopped"], true, "{d}");
    let until = d["until_t"].as_u64().unwrap();
    assert!(until >= t_w + 120_000, "{d}");
    let (w, bl) = b.clock_at(until);
    assert_eq!(w, white_before, "{d}");
    assert_eq!(bl, black_before - (until - t_w), "Black charged: {d}");
    // Told: whose clock ran through the downtime, and how much.
    assert_eq!(d["charged"]["by"], "b", "{d}");
    let since = d["since_t"].as_u64().unwrap();
    assert_eq!(d["charged"]["ms"], until - since, "{d}");
    assert_eq!(d["charged"]["white_ms"], w, "{d}");
    assert_eq!(d["charged"]["black_ms"], bl, "{d}");
}

/// Another boot, the wall clock stepped an hour forward meanwhile (NTP
/// after boot): not measured, held for the arbiter; nothing rewinds and
/// no move already public is withdrawn from the feeds.
#[test]
fn an_unmeasured_restart_after_a_wall_clock_step_withdraws_nothing_public() {
    let mut b = Board::new("jump", "5400+30", 1, 2);
    let t_w = e4(&mut b);
    // The move is public 2 s after its press; killed at once.
    poll(20, "e4 public", || {
        get(b.addr(), "/games.pgn").contains("1. e4").then_some(())
    });
    let events_before = SseReader::open(b.addr(), "/events", &[]);
    let state = events_before.until(10, |v| v["type"] == "state");
    assert!(state.last().unwrap().1["moves"][0]["san"] == "e4");
    b.kill_and_restart(|j| {
        other_boot(j);
        wall_stepped(j, 3_600_000);
    });
    // At once, and for as long as the round catches up: e4 stays public.
    let pgn = get(b.addr(), "/games.pgn");
    assert!(pgn.contains("1. e4"), "withdrawn after the restart: {pgn}");
    let sse = SseReader::open(b.addr(), "/events", &[]);
    let first = sse.until(10, |v| v["type"] == "state");
    let s = &first.last().unwrap().1;
    assert_eq!(s["moves"][0]["san"], "e4", "withdrawn on /events: {s}");
    let d = b.downtime();
    assert_eq!(d["measured_by"], "none", "{d}");
    assert_eq!(d["clocks_stopped"], true, "{d}");
    assert!(
        d["until_t"].as_u64().unwrap() >= t_w + 2_000,
        "no rewind: {d}"
    );
    for _ in 0..20 {
        let pgn = get(b.addr(), "/games.pgn");
        assert!(pgn.contains("1. e4"), "withdrawn after the restart: {pgn}");
    }
}

// ---- 5. An open alert across the restart -------------------------------

/// An illegal move waiting for its restore when the daemon is killed: after
/// the restart it is still open for the arbiter and ruled once.
#[test]
fn an_illegal_move_waiting_for_its_restore_is_still_open_after_the_restart() {
    let mut b = Board::new("illegal", "5400+30", 1, 0);
    e4(&mut b);
    // Black's bishop through his own pawn: illegal, pressed.
    b.make("f8", "b4");
    b.press("b");
    poll(20, "the illegal move", || b.of("illegal_move").pop());
    let before = poll(20, "the matter open", || {
        let s = b.state();
        (s[0]["state"]["open"]
            .as_array()
            .is_some_and(|o| !o.is_empty()))
        .then_some(s)
    });
    b.reach(b.of("illegal_move")[0]["t"].as_u64().unwrap() + 2_000);
    b.kill_and_restart(|_| {});
    b.downtime();
    let after = b.state();
    let open = |s: &Value| s[0]["state"]["open"].clone();
    assert_eq!(open(&after), open(&before), "the matter is still open");
    assert_eq!(open(&after)[0]["type"], "illegal_move", "{after}");
    assert_eq!(b.of("illegal_move").len(), 1, "ruled once");
    // The position restored on the board: the game goes on.
    b.make("b4", "f8");
    b.make("e7", "e5");
    b.press("b");
    b.moves(2);
    assert_eq!(b.of("illegal_move").len(), 1, "ruled once");
}

/// A claim held for the arbiter when the daemon is killed (Black claims a
/// threefold repetition that is not there): after the restart the matter
/// is as it was, open once, ruled once.
#[test]
fn a_claim_held_for_the_arbiter_is_still_open_after_the_restart() {
    let mut b = Board::new("claim", "5400+30", 1, 0);
    e4(&mut b);
    b.send(&[r#"{"t": 0, "claim": "threefold", "by": "b"}"#]);
    let claim = poll(20, "the claim's decision", || b.of("claim").pop());
    let before = poll(20, "the state after the claim", || {
        let s = b.state();
        (s[0]["state"]["t"].as_u64() >= claim["t"].as_u64()).then_some(s)
    });
    b.reach(claim["t"].as_u64().unwrap() + 2_000);
    b.kill_and_restart(|_| {});
    b.downtime();
    let after = b.state();
    let open = |s: &Value| s[0]["state"]["open"].clone();
    assert_eq!(open(&after), open(&before), "the matter as it was: {after}");
    assert_eq!(b.of("claim").len(), 1, "decided once");
}

// ---- 6. A restart between the periods, a power cut in a heartbeat -------

/// A control of two periods (`2/600:300`: two moves in 10 min, then 5 min
/// for the rest, 2009 §6.1 / 2023 6.1): killed with Black's second move
/// on the board and not pressed, after White's second move brought him
/// his next period. After the restart the next period arrives for Black
/// at his second move, once, and White's added time is neither lost nor
/// added again by the replay of the journal.
#[test]
fn a_restart_before_the_move_that_ends_a_period_adds_the_next_period_once() {
    let mut b = Board::new("periods", "2/600:300", 1, 0);
    e4(&mut b);
    b.make("e7", "e5");
    b.press("b");
    let t2 = b.moves(2)["t"].as_u64().unwrap();
    let (w2, b2) = b.clock_at(t2);
    b.make("g1", "f3");
    b.press("w");
    let t3 = b.moves(3)["t"].as_u64().unwrap();
    let (w3, b3) = b.clock_at(t3);
    assert_eq!(
        w3,
        w2 - (t3 - t2) + 300_000,
        "White's second move: his next period ({w2} at {t2}, {w3} at {t3})"
    );
    assert_eq!(b3, b2);
    b.make("b8", "c6");
    b.reach(t3 + 2_000);
    b.kill_and_restart(|_| {});
    let d = b.downtime();
    assert_eq!(d["clocks_stopped"], false, "a quick restart: {d}");
    // The replay kept White's period.
    let (w_after, _, _) = b.last_clock();
    assert_eq!(w_after, w3, "White's clock after the replay");
    b.press("b");
    let t4 = b.moves(4)["t"].as_u64().unwrap();
    assert_eq!(b.moves(4)["san"], "Nc6");
    let (w4, b4) = b.clock_at(t4);
    assert_eq!(w4, w3, "White's clock stood while Black thought");
    assert_eq!(
        b4,
        b3 - (t4 - t3) + 300_000,
        "Black's second move (the downtime charged, his next period once): {b3} at {t3}, {b4} at {t4}"
    );
    // The next move of White runs on the second period alone.
    b.make("f1", "c4");
    b.press("w");
    let t5 = b.moves(5)["t"].as_u64().unwrap();
    assert_eq!(b.clock_at(t5).0, w4 - (t5 - t4), "no third period");
}

/// A power cut in the middle of a heartbeat's write: the events file's
/// last line is torn. The restart measures from the heartbeat before it
/// (two seconds earlier, the journal's interval), trusts it on the same
/// boot, charges Black his whole think and withdraws no public move.
#[test]
fn a_heartbeat_torn_by_a_power_cut_measures_from_the_one_before() {
    let mut b = Board::new("tornbeat", "5400+30", 1, 0);
    let t_w = e4(&mut b);
    let (white_before, black_before, _) = b.last_clock();
    b.reach(t_w + 4_000);
    poll(20, "e4 public", || {
        get(b.addr(), "/games.pgn").contains("1. e4").then_some(())
    });
    b.kill_and_restart(|j| {
        let ev = eboard::journal::events_path(j);
        let text = std::fs::read_to_string(&ev).unwrap();
        let last = text.trim_end().rsplit('\n').next().unwrap().to_owned();
        assert!(last.contains("heartbeat"), "the last line: {last}");
        let cut = text.trim_end().len() - last.len() / 2;
        std::fs::write(&ev, &text[..cut]).unwrap();
    });
    let d = b.downtime();
    assert_eq!(d["measured_by"], "boottime", "{d}");
    assert_eq!(d["clocks_stopped"], false, "{d}");
    let since = d["since_t"].as_u64().unwrap();
    assert!(
        since >= t_w + 2_000,
        "from the heartbeat before the torn one: {d}"
    );
    let until = d["until_t"].as_u64().unwrap();
    assert_eq!(d["charged"]["by"], "b", "{d}");
    assert_eq!(d["charged"]["white_ms"], white_before, "{d}");
    assert_eq!(
        d["charged"]["black_ms"],
        black_before - (until - t_w),
        "Black charged his think: {d}"
    );
    assert!(get(b.addr(), "/games.pgn").contains("1. e4"));
    b.make("e7", "e5");
    b.press("b");
    assert_eq!(b.moves(2)["san"], "e5");
}
