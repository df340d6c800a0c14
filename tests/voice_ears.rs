//! Issue 29: Appendix E through the real speaker, listened to per ear.
//! Real espeak-ng, real aplay, and each listener's output captured at
//! real-time speed as a sound card plays it ([`common::paced`]): when each
//! ear hears a phrase, and when the move counts as announced.

mod common;

use common::paced::{alsa_config, Heard, PacedSink};
use common::voice::{
    assert_spoken_in_his_ear, between, quiet_for, replayed_events, speech_programs, spread_ms,
    PacedGame,
};
use common::{poll, tempdir, vi_e4_e5, vi_header, TraceBuilder};
use eboard::voice::output::Utterance;
use eboard::voice::tts::Espeak;
use eboard::voice::Lang;
use serde_json::Value;
use std::time::{Duration, Instant};

fn ms(d: Duration) -> i64 {
    d.as_millis() as i64
}

#[test]
fn every_listener_hears_a_phrase_at_once() {
    // Three outputs (White, Black, the arbiter), each its own device read
    // at the sample rate: the phrase starts in the three ears together.
    if !speech_programs() {
        return;
    }
    let dir = tempdir("ears-parallel");
    let sinks: Vec<PacedSink> = ["white", "black", "arbiter"]
        .iter()
        .map(|n| PacedSink::start(&dir, n))
        .collect();
    let conf = alsa_config(&dir, &sinks.iter().collect::<Vec<_>>());
    // Only this test of the binary sets it; the daemon's test passes its own.
    std::env::set_var("ALSA_CONFIG_PATH", conf);
    let r = common::voice::routing_by_name();
    let u = Utterance {
        text: "Ulovligt træk af hvid. 2 minutter lagt til sorts tid. Ret stillingen på Erik to",
        ssml: None,
        lang: Lang::Da,
        to: None,
    };
    let asked = Instant::now();
    let len = r.play(&Espeak::new(), &u).unwrap();
    let returned = Instant::now();
    let heard: Vec<Heard> = poll(10, "the phrase in every ear", || {
        let h: Vec<Heard> = sinks
            .iter()
            .filter_map(|s| s.heard(0).first().copied())
            .collect();
        (h.len() == 3).then_some(h)
    });
    let spread = spread_ms(&heard.iter().map(|h| h.start).collect::<Vec<_>>());
    let ends: Vec<i64> = heard.iter().map(|h| between(asked, h.end)).collect();
    let starts: Vec<i64> = heard.iter().map(|h| between(asked, h.start)).collect();
    println!(
        "parallel: audio {len:?}; starts after the call (white, black, arbiter) {starts:?} ms, \
         ends {ends:?} ms, returned {} ms",
        ms(returned - asked)
    );
    assert!(
        spread <= 150,
        "the ears heard the phrase {spread} ms apart (starts {starts:?} ms): the outputs play \
         one after another"
    );
    // Each ear heard the whole phrase (none cut off), at the sample rate.
    for h in &heard {
        let d = ms(h.end - h.start);
        assert!(
            d >= ms(len) * 7 / 10 && d <= ms(len) + 100,
            "a phrase of {len:?} played in {d} ms"
        );
    }
    // The call returns when the last has played (a small device buffer).
    let last_end = heard.iter().map(|h| h.end).max().unwrap();
    assert!(
        between(last_end, returned) > -200,
        "returned {} ms before the end",
        between(returned, last_end)
    );
}

#[test]
fn e2_3_his_move_counts_as_announced_when_his_own_output_has_played_it() {
    // A two-board game through `eboard run` with real speech: Black on the
    // tactile board hears at 400 words a minute, the arbiter's output at
    // 80. Black presses about half a second after his move's words ended in
    // his own ear, while the arbiter's output is still playing them: that is
    // no irregularity (E2.3), and the journal's `spoken` record for him is
    // his output's, before his press.
    if !speech_programs() {
        return;
    }
    let config = "[event]\nname = \"DM\"\nrules = \"fide-2009\"\nspeak = true\n\
         [game]\nboard = 1\nvi_player = \"b\"\n\
         [voice.white]\ndevice = \"white\"\n\
         [voice.black]\ndevice = \"black\"\nspeed = 400\n\
         [voice.arbiter]\ndevice = \"arbiter\"\nspeed = 80\n";
    let tb_text = TraceBuilder::with_header(vi_header("300+0"))
        .steps(&vi_e4_e5(5500))
        .text();
    let mut game = PacedGame::start("ears-e23", &["white", "black", "arbiter"], config, &tb_text);
    let (white, black, arbiter) = (game.sink("white"), game.sink("black"), game.sink("arbiter"));
    // Black's press is in the journal, and every output has said e5.
    let records = poll(40, "Black's press and the e5 phrase everywhere", || {
        let r = game.records();
        let pressed = r.iter().any(|v| v["press"] == "b");
        // Every output has said e5 and been quiet for a second since (the
        // stretches measured whole).
        let said = [white, black, arbiter]
            .iter()
            .all(|s| s.heard(0).len() >= 2 && quiet_for(s, 1000));
        (pressed && said).then_some(r)
    });
    // Per ear: when each output played e5 (its second stretch of sound).
    let e5_in = |s: &PacedSink| s.heard(0)[1];
    let (w, b, a) = (e5_in(white), e5_in(black), e5_in(arbiter));
    let log = game.stop();
    let events = replayed_events(&records);
    let e5 = events
        .iter()
        .find(|e| e["type"] == "announce" && e["text"] == "Bonde Erik fem")
        .unwrap_or_else(|| panic!("e5 announced: {events:#?}"));
    let n = e5["n"].as_u64().unwrap();
    let press_t = 5500i64;
    // In trace ms (the journal's `started_at_unix_ms` is round time 0).
    let trace_ms = |i| game.trace_ms(&records, i);
    println!(
        "e5 at t {} (trace ms): white {}..{}, black {}..{}, arbiter {}..{}; \
         press {press_t}",
        e5["t"],
        trace_ms(w.start),
        trace_ms(w.end),
        trace_ms(b.start),
        trace_ms(b.end),
        trace_ms(a.start),
        trace_ms(a.end)
    );
    assert!(
        press_t - trace_ms(b.end) >= 200,
        "the press should come at least 200 ms after the phrase ended in his ear \
         (ended at {} ms): the machine is too slow for this trace",
        trace_ms(b.end)
    );
    // The arbiter's output (80 wpm) still plays e5 at the press: a move
    // counted as announced after the slowest output (main before issue 29)
    // is flagged here — checked by building the daemon with its per-ear
    // report reverted to one report after every output: this test fails
    // with `clock_started_before_announcement` (docs/dev/voice-notes.md).
    assert!(
        trace_ms(a.end) > press_t + 500,
        "the arbiter's output should still be playing at the press (ended {} ms)",
        trace_ms(a.end)
    );
    // No irregularity against him.
    let irregular: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "irregularity")
        .collect();
    assert!(
        irregular.is_empty(),
        "a press after the phrase ended in his ear was flagged: {irregular:#?}\n{log}"
    );
    // The journal's report of his hearing comes from his output: before his
    // press, after his ear's end (less the output's buffer).
    assert_spoken_in_his_ear(&records, n, "b", trace_ms(b.end), press_t);
    // The three outputs started e5 together.
    let spread = spread_ms(&[w.start, b.start, a.start]);
    assert!(
        spread <= 200,
        "e5 started {spread} ms apart in the three ears"
    );
}
