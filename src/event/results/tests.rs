use super::*;
use crate::model::Player;

const TRF: &str = include_str!("../../../tests/data/pairings-open-2026.trf");

fn game(board: u32, w: u64, b: u64, result: &str, status: &str) -> GameResult {
    GameResult {
        event: None,
        round: 4,
        board,
        white: Player {
            fide_id: Some(w),
            ..Player::default()
        },
        black: Player {
            fide_id: Some(b),
            ..Player::default()
        },
        result: result.into(),
        status: Some(status.into()),
        reason: None,
    }
}

#[test]
fn results_go_into_the_rounds_column_and_read_back() {
    // Round 4 of the file: 9-4 (Iversen-Dahl), 6-1, 2-8, 5-3, 7 has a bye.
    let results = [
        game(1, 1400009, 1500004, "1/2-1/2", "confirmed"),
        game(2, 1400006, 1400001, "0-1", "corrected"),
        game(3, 1500002, 1400008, "1-0", "provisional"),
        game(4, 1400005, 1400003, "1-0", "forfeit"),
    ];
    let w = write_trf(TRF, "p.trf", 4, &results).unwrap();
    assert_eq!(w.written, ["4.1", "4.2", "4.4"]);
    assert_eq!(w.skipped.len(), 1);
    assert!(w.skipped[0].1.contains("provisional"), "{:?}", w.skipped);
    let line = |rank: &str| {
        w.text
            .lines()
            .find(|l| l.starts_with("001") && l[4..8].trim() == rank)
            .unwrap()
            .to_owned()
    };
    // Columns 92 + 30 = 122..=129 hold round 4: opponent, colour, result.
    assert_eq!(&line("9")[121..129], "   4 w =");
    assert_eq!(&line("4")[121..129], "   9 b =");
    assert_eq!(&line("1")[121..129], "   6 b 1");
    assert_eq!(&line("6")[121..129], "   1 w 0");
    assert_eq!(&line("5")[121..129], "   3 w +");
    assert_eq!(&line("3")[121..129], "   5 b -");
    assert_eq!(line("2")[121..].trim_end(), "   8 w", "provisional: blank");
    // Points brought up to date (columns 81-84).
    assert_eq!(&line("1")[80..84], " 3.5");
    assert_eq!(&line("9")[80..84], " 3.0");
    assert_eq!(&line("3")[80..84], " 1.0");
    assert_eq!(&line("5")[80..84], " 2.0");
    // Our own reader takes the file back: round 5 would score them so.
    let back = crate::event::trf::read_round(&w.text, "out.trf", 4).unwrap();
    assert_eq!(back.pairings.len(), 4);
    let codes: Vec<(u32, char)> = crate::event::trf::round_entries(&w.text, "out.trf", 4)
        .unwrap()
        .iter()
        .map(|e| (e.rank, e.result))
        .collect();
    assert_eq!(
        codes,
        [
            (1, '1'),
            (2, ' '),
            (3, '-'),
            (4, '='),
            (5, '+'),
            (6, '0'),
            (7, 'H'),
            (8, ' '),
            (9, '=')
        ]
    );
    let again = write_trf(&w.text, "p.trf", 4, &results).unwrap();
    assert_eq!(again.text, w.text, "writing twice changes nothing");
}

#[test]
fn a_game_paired_otherwise_in_the_file_is_refused_by_name() {
    let wrong = [game(1, 1500004, 1400009, "1-0", "confirmed")];
    let e = write_trf(TRF, "p.trf", 4, &wrong).unwrap_err();
    assert!(e.message.contains("board 4.1"), "{e:?}");
    assert!(e.line.is_some());
    let absent = [game(1, 999, 1400009, "1-0", "confirmed")];
    let e = write_trf(TRF, "p.trf", 4, &absent).unwrap_err();
    assert!(e.message.contains("not both players"), "{e:?}");
}

#[test]
fn a_side_game_whose_players_are_not_in_the_file_is_left_out_and_named() {
    // ia14: the relay followed a blitz side game under the same event name;
    // its players are not in the round's TRF. The round's own games are
    // written, the side game left out and named (it was a 422 for all).
    let mut side = game(5, 777, 778, "0-1", "confirmed");
    side.white.name = Some("Lyn, Lars".into());
    side.black.name = Some("Blitz, Bo".into());
    let mut other = game(6, 779, 780, "1-0", "provisional");
    other.white.name = Some("Lyn, Lise".into());
    let results = [game(1, 1400009, 1500004, "1-0", "confirmed"), side, other];
    let w = write_trf(TRF, "p.trf", 4, &results).unwrap();
    assert_eq!(w.written, ["4.1"]);
    assert!(w.skipped.is_empty(), "{:?}", w.skipped);
    // Not final either: still a game of no player of the file.
    assert_eq!(w.outside.len(), 2, "{:?}", w.outside);
    assert_eq!(w.outside[1].0, "4.6");
    assert_eq!(w.outside[0].0, "4.5");
    assert!(
        w.outside[0].1.contains("Lyn, Lars - Blitz, Bo")
            && w.outside[0].1.contains("neither player"),
        "{:?}",
        w.outside
    );
    let line = |rank: &str| {
        w.text
            .lines()
            .find(|l| l.starts_with("001") && l[4..8].trim() == rank)
            .unwrap()
            .to_owned()
    };
    assert_eq!(&line("9")[121..129], "   4 w 1");
    // The file is the pairings' file with 4.1 in it, nothing more.
    let only = write_trf(TRF, "p.trf", 4, &results[..1]).unwrap();
    assert_eq!(w.text, only.text);
}

#[test]
fn the_csv_reads_back_as_written() {
    let mut r = game(2, 1400006, 1400001, "0-0", "forfeit");
    r.white.name = Some("Frandsen, \"Lars\"".into());
    r.reason = Some("=cmd".into());
    let csv = to_csv(&[r.clone()]);
    assert!(csv.contains("'=cmd"), "{csv}");
    let back = read_csv(&csv, "r.csv").unwrap();
    assert_eq!(back, [r]);
    assert_eq!(r_codes("0-0", "forfeit"), Some(('-', '-')));
    assert_eq!(r_codes("0-0", "corrected"), Some(('0', '0')));
    assert_eq!(r_codes("1-0", "confirmed"), Some(('1', '0')));
    assert_eq!(r_codes("*", "confirmed"), None);
    let e = read_csv("round,board\r\n1,1\r\n", "r.csv").unwrap_err();
    assert!(e.message.contains("no column \"white\""), "{e:?}");
}

/// ia11's round 3: Dam's half-point bye (`0000 - H`) was in the
/// round's column with his points (0.0) not counting it; the results
/// file gave him 0.0 for 0.5 (a TRF checker sums the rounds). Points
/// that already count it stay.
#[test]
fn a_bye_of_the_round_counts_in_the_points_of_the_results_file() {
    let trf = "012 Test\n\
001    9 m  c Dam,Kasper                        2210 DEN     1400090 2007/09/09  0.0    9     4 w 0     2 b 0  0000 - H\n\
001   10 w    Holm,Sofie                        2150 DEN     1400100 2009/10/10  0.0   10     5 b 0     8 b 0  0000 - Z\n\
001   11 m    Counted,Already                   2100 DEN     1400110 2009/10/10  1.5   11     5 b 1     8 b 0  0000 - H\n";
    let w = write_trf(trf, "round3.trf", 3, &[]).unwrap();
    let points = |name: &str| {
        let l: Vec<char> = w
            .text
            .lines()
            .find(|l| l.contains(name))
            .unwrap()
            .chars()
            .collect();
        cols(&l, 81, 84)
    };
    assert_eq!(points("Dam,Kasper"), "0.5", "{}", w.text);
    assert_eq!(points("Holm,Sofie"), "0.0");
    assert_eq!(points("Counted,Already"), "1.5");
}

fn r_codes(result: &str, status: &str) -> Option<(char, char)> {
    game(1, 1, 2, result, status).trf_codes()
}

#[test]
fn the_round_is_the_one_round_of_the_games() {
    let mut g5 = game(2, 1, 2, "1-0", "confirmed");
    g5.round = 5;
    assert_eq!(the_round(&[]), Err(vec![]));
    assert_eq!(
        the_round(&[
            game(1, 1, 2, "1-0", "confirmed"),
            game(2, 3, 4, "0-1", "confirmed")
        ]),
        Ok(4)
    );
    assert_eq!(
        the_round(&[g5, game(1, 1, 2, "1-0", "confirmed")]),
        Err(vec![4, 5])
    );
}

/// A file that is not UTF-8 is Windows-1252 (issue 41): `š` (0x9A) is a
/// letter, not the C1 control Latin-1 has there, and the bytes go back as
/// they came, the unassigned 0x81 among them.
#[test]
fn windows_1252_files_read_and_written_back_byte_for_byte() {
    let bytes = b"001    1 m    Ba\x9aa,\x8aime \x81\xe6\n".to_vec();
    let (text, latin) = decode_trf(bytes.clone());
    assert!(latin);
    assert!(text.contains("Baša,Šime"), "{text:?}");
    assert!(text.contains('\u{81}') && text.contains('æ'));
    assert_eq!(encode_trf(text, true), bytes);
}
