//! `eboard event` (issue 15 item 4): a round's pairings read from a TRF-16
//! file and a CSV, the boards numbered as the pairing list prints them (a
//! round robin's by the Berger tables), bad files refused with their line,
//! the list printed and the boards' config files written. The boards that
//! take these pairings are `tests/event_boards.rs`.
//!
//! `tests/data/pairings-open-2026.trf` is a tournament written for this
//! test in the layout of FIDE's TRF-16 (columns as in the Handbook's
//! C.04 Annex 2 and FIDE's own example file, `docs/event.md`): nine
//! players, four rounds (round 4 paired, not yet played), a bye every
//! round, a forfeit in round 3, a half-point bye in round 4. Its pairings
//! follow the Dutch system's colour rules loosely; what is tested is the
//! board order of the published list, derived by hand below from the rule
//! (C.04.1 F.1: the higher player's score, the sum of scores, the higher
//! player's rank), which is what Swiss-Manager prints.

use crate::common;

use common::pairings::{TRF, TRF_FILE};
use common::*;
use eboard::event::{self, order_boards};

/// Each board of `round` as (White's start rank, Black's), in board order.
fn boards(round: u32) -> Vec<(u32, u32)> {
    let r = event::trf::read_round(TRF, "open.trf", round).unwrap();
    order_boards(&r.pairings)
        .iter()
        .map(|(_, p)| (p.white_rank, p.black_rank))
        .collect()
}

#[test]
fn trf_rounds_are_numbered_as_the_fide_rule_says() {
    // Round 1: every score 0; the higher player of each pairing is the one
    // with the smaller pairing number: 1, 2, 3, 4.
    assert_eq!(boards(1), [(1, 5), (6, 2), (3, 7), (8, 4)]);
    // Round 2, scores before it: 1, 4, 7, 9 have 1; 2, 6 have ½.
    // 7-1 (higher 1: 1 pt, sum 2), 4-9 (higher 4: 1 pt, sum 2: rank 4 after
    // rank 1), 2-3 (higher 2: ½, sum ½), 5-6 (higher 6: ½, sum ½: rank 6
    // after rank 2).
    assert_eq!(boards(2), [(7, 1), (4, 9), (2, 3), (5, 6)]);
    // Round 3: 1-2 (higher 1: 2 pts) first; 9-6 (higher 6: 1½, sum 3)
    // before 4-7 (higher 4: 1½, sum 2½): the sum comes before the rank.
    // 8-5 was forfeited (8 did not come), but it was paired, so it has a
    // board as Swiss-Manager prints it: higher 8 (1 pt, sum 1) last.
    assert_eq!(boards(3), [(1, 2), (9, 6), (4, 7), (8, 5)]);
    // Round 4 (paired, not played): 9-4 (higher 4: 2½, sum 5) before 6-1
    // (higher 1: 2½, sum 4) though player 1 ranks higher; then 2-8 (2),
    // 5-3 (1, sum 2).
    assert_eq!(boards(4), [(9, 4), (6, 1), (2, 8), (5, 3)]);

    let r3 = event::trf::read_round(TRF, "open.trf", 3).unwrap();
    let unplayed: Vec<(String, char, &str)> = r3
        .unplayed
        .iter()
        .map(|u| (u.player.name.clone().unwrap(), u.code, u.what))
        .collect();
    assert_eq!(
        unplayed,
        [("Christensen,Jonas".into(), 'U', "pairing-allocated bye")]
    );
    let forfeits: Vec<(u32, Option<&str>)> = order_boards(&r3.pairings)
        .iter()
        .map(|(n, p)| (*n, p.forfeit))
        .collect();
    assert_eq!(
        forfeits,
        [(1, None), (2, None), (3, None), (4, Some("0-1"))]
    );
    // Without colours a forfeit has no board: reported from the winner's record.
    let no_colours = TRF
        .replace(
            "  0000 - U     5 w -     2 b",
            "  0000 - U     5 - -     2 b",
        )
        .replace("     8 b +     3 w", "     8 - +     3 w");
    let r3 = event::trf::read_round(&no_colours, "open.trf", 3).unwrap();
    assert_eq!(r3.pairings.len(), 3);
    assert_eq!(
        (
            r3.unplayed[1].code,
            r3.unplayed[1].what,
            r3.unplayed[1].player.name.as_deref()
        ),
        ('+', "forfeit win", Some("Eriksen,Peter"))
    );
    // Both forfeited: 0-0 on its board.
    let double = TRF.replace("     8 b +     3 w", "     8 b -     3 w");
    let r3 = event::trf::read_round(&double, "open.trf", 3).unwrap();
    assert_eq!(order_boards(&r3.pairings)[3].1.forfeit, Some("0-0"));
    let r4 = event::trf::read_round(TRF, "open.trf", 4).unwrap();
    assert_eq!(r4.event.as_deref(), Some("Eboard Open 2026"));
    assert_eq!(r4.unplayed.len(), 1);
    assert_eq!(
        (r4.unplayed[0].code, r4.unplayed[0].what),
        ('H', "half-point bye")
    );
    assert_eq!(r4.unplayed[0].line, 19);
    // The players as the boards get them.
    let a = event::assignments(&r4, None, Some("90+30"));
    assert_eq!(a[0].game(), "4.1");
    let w = &a[0].white;
    assert_eq!(w.name.as_deref(), Some("Iversen,Emil"));
    assert_eq!(
        (w.fide_id, w.rating, w.title.as_deref()),
        (Some(1400009), Some(1900), None)
    );
    let b = &a[0].black;
    assert_eq!(
        (
            b.title.as_deref(),
            b.federation.as_deref(),
            b.fide_id,
            b.rating
        ),
        (Some("WGM"), Some("NOR"), Some(1500004), Some(2350))
    );
    assert_eq!(a[1].black.title.as_deref(), Some("GM"));
    assert!(event::trf::read_round(TRF, "open.trf", 5)
        .unwrap_err()
        .to_string()
        .contains("round 5 has no pairings"));
}

/// `TRF` with line `n` (1-based) changed by `f`.
fn with_line(n: usize, f: impl Fn(&str) -> String) -> String {
    TRF.lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == n { f(l) } else { l.to_owned() })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn bad_trf_lines_are_named_with_line_and_columns() {
    // Line 13 is player 1. Its start rank is not a number.
    let t = with_line(13, |l| format!("001 abcd{}", &l[8..]));
    let e = event::read_round(&t, "open.trf", 4).unwrap_err();
    assert_eq!(e.line, Some(13));
    assert!(
        e.to_string()
            .starts_with("open.trf:13: start rank (columns 5-8): \"abcd\""),
        "{e}"
    );
    // A title TRF does not know.
    let t = with_line(16, |l| format!("{}  x{}", &l[..10], &l[13..]));
    let e = event::read_round(&t, "open.trf", 4).unwrap_err();
    assert_eq!(
        (e.line, e.field.as_str()),
        (Some(16), "title (columns 11-13)"),
        "{e}"
    );
    // Player 1's round-4 opponent changed to 2: 2 is paired against 8.
    let t = with_line(13, |l| l.replace("     6 b", "     2 b"));
    let e = event::read_round(&t, "open.trf", 4).unwrap_err();
    assert_eq!(e.line, Some(13), "{e}");
    assert!(
        e.to_string()
            .contains("opponent 2 (line 14) is paired against 8"),
        "{e}"
    );
    // A colour both players have.
    let t = with_line(21, |l| l.replace("     4 w", "     4 b"));
    let e = event::read_round(&t, "open.trf", 4).unwrap_err();
    assert!(
        e.to_string()
            .contains("colour 'b' but opponent 9 (line 21) has 'b'"),
        "{e}"
    );
    // An unknown result code.
    let t = with_line(13, |l| l.replace("     5 w 1", "     5 w X"));
    let e = event::read_round(&t, "open.trf", 1).unwrap_err();
    assert_eq!(
        (e.line, e.field.as_str()),
        (Some(13), "round 1 result (column 99)"),
        "{e}"
    );
    // Names beyond ASCII keep their columns (counted in characters).
    let t = TRF.replace("Holm,Anders", "Hølm,Änders");
    let r = event::read_round(&t, "open.trf", 4).unwrap();
    let a = event::assignments(&r, None, None);
    assert_eq!(a[2].black.name.as_deref(), Some("Hølm,Änders"));
    assert_eq!(a[2].black.fide_id, Some(1400008));
    // The same start rank twice.
    let t = format!("{TRF}{}\n", TRF.lines().nth(12).unwrap());
    let e = event::read_round(&t, "open.trf", 4).unwrap_err();
    assert!(
        e.to_string().contains("also the start rank of line 13"),
        "{e}"
    );
}

#[test]
fn csv_pairings_and_their_errors() {
    let csv = "# round 2 of the club championship\n\
               Board;White;White FIDE id;White title;White federation;Black;Black rating\n\
               2;\"Hansen, Curt\";1400002;IM;DEN;\"Larsen, Bent\";2500\n\
               1;\"Berg, Ola\";;;NOR;\"Dahl, Ingrid\";\n\
               ;\"Holm, Anders\";;;;;\n";
    // The file has no round column: every row is the round's.
    let r = event::read_round(csv, "r2.csv", 2).unwrap();
    let a = event::assignments(&r, Some("Club 2026"), None);
    assert_eq!(a.len(), 2);
    assert_eq!(
        (a[0].board, a[0].white.name.as_deref()),
        (1, Some("Berg, Ola"))
    );
    assert_eq!(a[1].white.title.as_deref(), Some("IM"));
    assert_eq!(a[1].black.rating, Some(2500));
    assert_eq!(a[1].event.as_deref(), Some("Club 2026"));
    assert_eq!(r.unplayed[0].player.name.as_deref(), Some("Holm, Anders"));
    assert_eq!(r.unplayed[0].line, 5);

    // Without board numbers the rows' order is the board order; rows of
    // other rounds are skipped.
    let csv = "round,white,black\n1,A,B\n2,C,D\n2,E,F\n";
    let r = event::read_round(csv, "r.csv", 2).unwrap();
    let names: Vec<_> = event::assignments(&r, None, None)
        .iter()
        .map(|a| (a.board, a.white.name.clone().unwrap()))
        .collect();
    assert_eq!(names, [(1, "C".to_owned()), (2, "E".to_owned())]);

    for (text, line, field, says) in [
        (
            "white,blak\nA,B\n",
            Some(1),
            "column 2",
            "\"blak\" is not a column",
        ),
        (
            "round,white,black\n2,A,B\n",
            None,
            "",
            "no games of round 1",
        ),
        (
            "white,black,white_fide_id\nA,B,x\n",
            Some(2),
            "white_fide_id",
            "\"x\" is not a number",
        ),
        (
            "white,black,black_title\nA,B,Dr\n",
            Some(2),
            "black_title",
            "allowed are GM",
        ),
        (
            "white,black,board\nA,B,1\nC,D,1\n",
            Some(3),
            "board",
            "board 1 is also on line 2",
        ),
        (
            "white,black,board\nA,B,1\nC,D,\n",
            Some(3),
            "board",
            "give all or none",
        ),
        ("white,black\n\"A,B\n", Some(2), "", "quote is not closed"),
        ("white\nA\n", Some(1), "header", "no \"black\" column"),
    ] {
        let e = event::read_round(text, "r.csv", 1).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (line, field), "{text}: {e}");
        assert!(e.message.contains(says), "{text}: {e}");
    }
}

#[test]
fn the_command_prints_the_list_and_writes_config_files() {
    let dir = tempdir("event-files");
    let out = dir.join("round4");
    let list = eboard_ok(&[
        "event",
        TRF_FILE,
        "--round",
        "4",
        "--time-control",
        "40/5400+30:1800+30",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        list.starts_with("Eboard Open 2026 round 4: 4 boards\n"),
        "{list}"
    );
    assert!(
        list.contains("   1  Iversen,Emil (1900) - WGM Dahl,Ingrid (2350)  [2.5 - 2.5]"),
        "{list}"
    );
    assert!(
        list.contains("   -  WFM Gundersen,Kari (2150): half-point bye (H), line 19"),
        "{list}"
    );
    let frag = std::fs::read_to_string(out.join("board-2.toml")).unwrap();
    assert!(
        frag.contains("round = 4") && frag.contains("board = 2"),
        "{frag}"
    );
    assert!(frag.contains("name = \"Andersen,Mads\""), "{frag}");

    // Whole configs from a base: each one the board's own.
    let base = config(&dir, 1, 1, "");
    let whole = dir.join("whole");
    eboard_ok(&[
        "event",
        TRF_FILE,
        "--round",
        "4",
        "--event",
        "DM 2026",
        "--out",
        whole.to_str().unwrap(),
        "--base",
        base.to_str().unwrap(),
    ]);
    let c = eboard::config::Config::load(&whole.join("board-3.toml")).unwrap();
    assert_eq!(c.round_board(), "4.3");
    assert_eq!(c.game.white.name.as_deref(), Some("Berg,Ola"));
    assert_eq!(c.game.black.fide_id, Some(1400008));
    assert_eq!(c.event.name.as_deref(), Some("DM 2026"));
    assert_eq!(
        c.arbiter.token.as_deref(),
        Some(ARBITER_TOKEN),
        "the base's other keys kept"
    );

    // Round 3's forfeit keeps its board, and the list says to enter it.
    let list = eboard_ok(&["event", TRF_FILE, "--round", "3"]);
    assert!(
        list.contains("   4  Holm,Anders (2050) - FM Eriksen,Peter (2300)  [1.0 - 0.0]  forfeit 0-1: enter it at the console (forfeit 0-1)"),
        "{list}"
    );

    // A bad file: the CLI's error names the file and line.
    let bad = dir.join("bad.trf");
    std::fs::write(&bad, with_line(13, |l| format!("001 abcd{}", &l[8..]))).unwrap();
    let o = eboard(&["event", bad.to_str().unwrap(), "--round", "4"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.trf:13: start rank (columns 5-8)"),
        "{err}"
    );
}

/// A round robin (`tests/data/round-robin-6.trf`: six players drawn 1-6,
/// round 3 paired after two played rounds) lands on the Berger table's
/// boards (FIDE Handbook C.05 Annex 1, round 3 for six: 2-6, 3-1, 4-5):
/// from the file's `092 Individual: Round Robin`, or with `--board-order
/// berger` when the file does not say; without either, the round is
/// numbered as a Swiss round (4-5 first: its higher player has the most
/// points) and a warning names the flag.
#[test]
fn a_round_robin_lands_on_the_berger_tables_boards() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/round-robin-6.trf");
    let list = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("   ") && l.contains(" - "))
            .map(|l| {
                let (w, b) = l.split_once(" - ").unwrap();
                let name = |s: &str| {
                    s.split(',')
                        .next()
                        .unwrap()
                        .split(' ')
                        .next_back()
                        .unwrap()
                        .to_owned()
                };
                format!(
                    "{}:{}-{}",
                    l.trim_start().split(' ').next().unwrap(),
                    name(w),
                    name(b)
                )
            })
            .collect()
    };
    let berger = ["1:Hansen-Petersen", "2:Larsen-Rasmussen", "3:Nielsen-Olsen"];
    let out = eboard_ok(&["event", file, "--round", "3"]);
    assert_eq!(list(&out), berger, "{out}");

    let dir = tempdir("event-rr");
    let unsaid = dir.join("rr.trf");
    let text = std::fs::read_to_string(file).unwrap();
    std::fs::write(&unsaid, text.replace("092 Individual: Round Robin\n", "")).unwrap();
    let unsaid = unsaid.to_str().unwrap();
    let out = eboard(&["event", unsaid, "--round", "3"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        list(&stdout),
        ["1:Nielsen-Olsen", "2:Larsen-Rasmussen", "3:Hansen-Petersen"],
        "{stdout}"
    );
    assert!(
        stderr.contains("fits a round of the Berger table")
            && stderr.contains("--board-order berger"),
        "{stderr}"
    );
    let out = eboard_ok(&["event", unsaid, "--round", "3", "--board-order", "berger"]);
    assert_eq!(list(&out), berger, "{out}");
    // A Swiss round is refused as a Berger round, naming the game.
    let open = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/pairings-open-2026.trf"
    );
    let out = eboard(&["event", open, "--round", "1", "--board-order", "berger"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("round robin (Berger table)") && stderr.contains("line "),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
