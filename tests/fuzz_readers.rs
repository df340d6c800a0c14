//! Fuzzing the readers of untrusted or damaged input: the journal reader
//! (a crash can tear its last line), the daemon's config and the pairing
//! files of `eboard event` (TRF-16, CSV). No input may
//! make them panic; a journal cut anywhere loses nothing before the cut.

use crate::common;

use common::opera_game;
use eboard::config::Config;
use eboard::journal::read_journal;
use eboard::sim::{simulate, SimOptions};
use proptest::prelude::*;

fn journal_text() -> (String, usize) {
    let trace = simulate(&opera_game(), &SimOptions::default()).unwrap();
    let mut buf = Vec::new();
    trace.write(&mut buf).unwrap();
    (String::from_utf8(buf).unwrap(), trace.records.len())
}

const CONFIG: &str = r#"[event]
name = "DM"
date = "2026.04.03"
rules = "fide-2009"
time_control = "40/5400+30:1800+30"
delay = 900
[game]
round = 3
board = 1
[game.white]
name = "A, B"
fide_id = 1
title = "GM"
[arbiter]
token = "t"
[board]
source = "trace"
[clock]
device = "simulated"
"#;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_journal_cut_anywhere_keeps_every_whole_line(cut in 0usize..100_000) {
        let (text, n) = journal_text();
        let cut = cut % (text.len() + 1);
        let cut = (0..=cut).rev().find(|i| text.is_char_boundary(*i)).unwrap();
        let part = &text[..cut];
        let whole_lines = part.matches('\n').count();
        match read_journal(part) {
            Ok(Some(r)) => {
                // Whole record lines survive; a cut line may survive too
                // when what is left of it still parses.
                prop_assert!(r.records.len() + 1 >= whole_lines);
                prop_assert!(r.records.len() <= n);
            }
            Ok(None) => prop_assert!(whole_lines == 0),
            Err(e) => prop_assert!(false, "cut at {}: {}", cut, e),
        }
    }

    #[test]
    fn a_damaged_journal_never_panics(
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        tail in "\\PC{0,30}",
    ) {
        let (text, _) = journal_text();
        let mut bytes = text.into_bytes();
        for (at, b) in flips {
            let i = at % bytes.len();
            bytes[i] = b;
        }
        let mut s = String::from_utf8_lossy(&bytes).into_owned();
        s.push_str(&tail);
        let _ = read_journal(&s);
    }

    #[test]
    fn any_text_as_a_journal_never_panics(text in "\\PC{0,300}") {
        let _ = read_journal(&text);
    }

    #[test]
    fn the_config_reader_never_panics(
        flips in proptest::collection::vec((any::<usize>(), "[ -~\n]"), 0..6),
        junk in "\\PC{0,80}",
    ) {
        let _ = Config::parse(&junk, "junk.toml");
        let mut s: Vec<char> = CONFIG.chars().collect();
        for (at, c) in flips {
            let i = at % s.len();
            s[i] = c.chars().next().unwrap();
        }
        let s: String = s.into_iter().collect();
        if let Err(e) = Config::parse(&s, "board.toml") {
            prop_assert!(e.to_string().starts_with("board.toml"));
        }
    }

    #[test]
    fn the_pairing_readers_never_panic(
        flips in proptest::collection::vec((any::<usize>(), "[ -~\n]"), 0..8),
        junk in "\\PC{0,200}",
        round in 0u32..7,
    ) {
        let _ = eboard::event::read_round(&junk, "junk", round);
        let _ = eboard::event::csv::read_round(&junk, "junk.csv", round);
        let _ = eboard::event::trf::read_round(&junk, "junk.trf", round);
        for text in [TRF, CSV] {
            let mut s: Vec<char> = text.chars().collect();
            for (at, c) in &flips {
                let i = at % s.len();
                s[i] = c.chars().next().unwrap();
            }
            let s: String = s.into_iter().collect();
            if let Err(e) = eboard::event::read_round(&s, "round.txt", round) {
                prop_assert!(e.to_string().starts_with("round.txt"), "{}", e);
            }
        }
    }
}

const TRF: &str = include_str!("data/pairings-open-2026.trf");
const CSV: &str = "round,board,white,white_fide_id,white_title,black,black_rating\n\
                   4,1,\"Larsen, Bent\",1400000,GM,\"Hansen, Curt\",2400\n\
                   4,2,\"Berg, Ola\",,,\"Dahl, Ingrid\",\n";
