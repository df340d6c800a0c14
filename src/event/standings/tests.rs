//! The standings computed by hand (`docs/event.md`, "Standings", has the
//! worked table of the 13-player file).

use super::*;

const OPEN: &str = include_str!("../../../tests/data/standings-open-2026.trf");
const PAIRINGS: &str = include_str!("../../../tests/data/pairings-open-2026.trf");
include!("../../../tests/data/standings-open-2026-by-hand.rs");

fn player(name: &str, fide_id: Option<u64>) -> Player {
    Player {
        name: Some(name.into()),
        fide_id,
        ..Player::default()
    }
}

/// Round 3's game on `board` as the feed shows it.
fn game(
    board: u32,
    white: Player,
    black: Player,
    result: &str,
    status: Option<&str>,
) -> GameResult {
    GameResult {
        event: Some("Eboard Standings Open 2026".into()),
        round: 3,
        board,
        white,
        black,
        result: result.into(),
        status: status.map(str::to_owned),
        reason: None,
    }
}

/// Start rank `n` of the 13-player file as the feed names him (the board
/// configs `eboard event` wrote: name and FIDE id from the file).
fn open(n: u32) -> Player {
    let (name, id) = match n {
        1 => ("Andersen,Mads", Some(1400001)),
        2 => ("Berg,Ola", Some(1500002)),
        3 => ("Christensen,Jonas", Some(1400003)),
        4 => ("Dahl,Ingrid", Some(1500004)),
        5 => ("Eriksen,Peter", Some(1400005)),
        6 => ("Frandsen,Lars", Some(1400006)),
        7 => ("Gundersen,Kari", Some(1500007)),
        8 => ("Holm,Anders", Some(1400008)),
        9 => ("Iversen,Emil", Some(1400009)),
        10 => ("Jensen,Sofie", Some(1400010)),
        12 => ("Lund,Mikkel", Some(1400012)),
        13 => ("Madsen,Freja", None),
        _ => ("Kristensen,Bo", Some(1400011)),
    };
    player(name, id)
}

/// Round 3 of the 13-player file, every game final: boards 1-6 are 2-6
/// ½-½ (corrected), 4-9 1-0, 1-8 1-0, 5-3 0-1 (corrected), 13-7 1-0 by
/// forfeit, 10-12 1-0; 11 has the pairing-allocated bye.
fn round_3() -> Vec<GameResult> {
    vec![
        game(1, open(2), open(6), "1/2-1/2", Some("corrected")),
        game(2, open(4), open(9), "1-0", Some("confirmed")),
        game(3, open(1), open(8), "1-0", Some("confirmed")),
        game(4, open(5), open(3), "0-1", Some("corrected")),
        game(5, open(13), open(7), "1-0", Some("forfeit")),
        game(6, open(10), open(12), "1-0", Some("confirmed")),
    ]
}

/// (rank, tied, start, points, BH, SB) of every row.
/// (rank, tied, start, points, first and second tie-break): the shape of
/// [`BY_HAND`].
fn table(s: &Standings) -> Vec<(u64, bool, u64, f64, f64, f64)> {
    s.rows
        .iter()
        .map(|r| {
            (
                u64::from(r.rank),
                r.tied,
                u64::from(r.start),
                r.points,
                r.tiebreaks[0],
                r.tiebreaks[1],
            )
        })
        .collect()
}

/// The headline: the 13-player Swiss after round 3, by hand (C.07 2026):
/// a half-point bye followed by games (13, round 1: art. 16.2.3), a
/// zero-point bye followed by a game (12, round 2), forfeits in rounds 1
/// and 3 (6 and 13 won, 12 and 7 lost: the dummy capped by the scheduled
/// opponent's adjusted score, 16.4.1), a pairing-allocated bye (11, round
/// 3: capped at a draw times 3 rounds, 16.4.2). 1 and 6 are equal in
/// points, BH and SB: third place shared.
#[test]
fn thirteen_players_after_round_three_by_hand() {
    let ev = Event::read(OPEN, "open.trf", None).unwrap();
    assert_eq!((ev.round, ev.rounds, ev.round_robin), (3, Some(5), false));
    let boards: Vec<(u32, u32, u32)> = ev
        .boards
        .iter()
        .map(|g| (g.board, g.white, g.black))
        .collect();
    // FIDE's Swiss board order, as `eboard event` numbers them.
    assert_eq!(
        boards,
        [
            (1, 2, 6),
            (2, 4, 9),
            (3, 1, 8),
            (4, 5, 3),
            (5, 13, 7),
            (6, 10, 12)
        ]
    );
    let (s, warnings) = ev.standings(&round_3());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(s.event, "Eboard Standings Open 2026");
    assert_eq!((s.round, s.provisional), (3, false));
    assert!(s.unconfirmed.is_empty());
    assert_eq!(s.tiebreaks, [BH, SB]);
    assert_eq!(table(&s), BY_HAND);
    let first = &s.rows[0];
    assert_eq!(first.name, "Dahl,Ingrid");
    assert_eq!(first.title.as_deref(), Some("WGM"));
    assert_eq!(first.fed.as_deref(), Some("NOR"));
    assert_eq!((first.rating, first.fide_id), (Some(2350), Some(1500004)));
    let unrated = s.rows.iter().find(|r| r.start == 13).unwrap();
    assert_eq!(
        (unrated.rating, unrated.fide_id, &unrated.title),
        (None, None, &None)
    );
}

/// Provisional until every board's result is final; a provisional or
/// running game counts for nobody.
#[test]
fn provisional_until_every_result_of_the_round_is_final() {
    let ev = Event::read(OPEN, "open.trf", None).unwrap();
    let (s, _) = ev.standings(&[]);
    assert!(s.provisional);
    assert_eq!(s.unconfirmed, ["3.1", "3.2", "3.3", "3.4", "3.5", "3.6"]);
    let mut games = round_3();
    games[0].status = Some("provisional".into());
    games[3].result = "*".into();
    games[3].status = None;
    let (s, _) = ev.standings(&games);
    assert!(s.provisional);
    assert_eq!(s.unconfirmed, ["3.1", "3.4"]);
    let points = |start: u32| s.rows.iter().find(|r| r.start == start).unwrap().points;
    // 2 and 6 (board 1) and 5 and 3 (board 4) as after round 2; the others counted.
    assert_eq!(
        (points(2), points(6), points(5), points(3)),
        (2.0, 2.0, 1.0, 0.5)
    );
    assert_eq!((points(4), points(13), points(11)), (2.5, 1.5, 1.0));
}

/// The feed's board 2 shows other players than the pairing's (a board
/// given a wrong config): its result is not credited to anyone, a warning
/// names both pairs, and the game stays unconfirmed. A name without a
/// FIDE id is matched by name, spaces and case aside.
#[test]
fn a_board_with_other_players_is_left_out_and_said() {
    let ev = Event::read(OPEN, "open.trf", None).unwrap();
    let mut games = round_3();
    games[1].black = player("Iversen,Erik", Some(1400099));
    games[4].white = player("madsen, Freja", None);
    let (s, warnings) = ev.standings(&games);
    assert_eq!(s.unconfirmed, ["3.2"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("game 3.2")
            && warnings[0].contains("\"Iversen,Erik\" (FIDE id 1400099)")
            && warnings[0].contains("\"Iversen,Emil\" (FIDE id 1400009)"),
        "{warnings:?}"
    );
    let points = |start: u32| s.rows.iter().find(|r| r.start == start).unwrap().points;
    assert_eq!((points(4), points(9), points(13)), (1.5, 1.5, 1.5));
}

/// One `001` record of start rank `rank` with `blocks` (opponent, colour,
/// result) per round, columns as TRF-16 has them.
fn rec(rank: u32, name: &str, blocks: &[(u32, char, char)]) -> String {
    let mut l = format!(
        "001 {rank:>4} m    {name:<33} 2000 DEN {:>11} {:>10} {:>4} {rank:>4}",
        1_400_100 + rank,
        "",
        "0.0"
    );
    for &(o, c, r) in blocks {
        let o = if o == 0 {
            "0000".to_owned()
        } else {
            o.to_string()
        };
        l.push_str(&format!("  {o:>4} {c} {r}"));
    }
    l
}

/// Four players, two rounds, round 2 in the file: 2's zero-point bye in
/// the last round (art. 16.2.5) counts as a draw in 1's Buchholz (16.3.2)
/// but adds nothing to 2's own points; 4's pairing-allocated bye gives a
/// dummy capped at a draw times 2 rounds (16.4.2), below 4's own 1½.
#[test]
fn a_requested_bye_in_the_last_round_and_the_draw_cap_by_hand() {
    let text = [
        "012 Small".to_owned(),
        rec(1, "One,A", &[(2, 'w', '1'), (3, 'w', '1')]),
        rec(2, "Two,B", &[(1, 'b', '0'), (0, '-', 'Z')]),
        rec(3, "Three,C", &[(4, 'w', '='), (1, 'b', '0')]),
        rec(4, "Four,D", &[(3, 'b', '='), (0, '-', 'U')]),
    ]
    .join("\n");
    let ev = Event::read(&text, "small.trf", None).unwrap();
    assert_eq!(ev.round, 2);
    let (s, warnings) = ev.standings(&[]);
    assert!(warnings.is_empty(), "{warnings:?}");
    // Round 2's one game has its result in the file: final.
    assert!(!s.provisional, "{s:?}");
    assert_eq!(
        table(&s),
        [
            (1, false, 1, 2.0, 1.0, 1.0),
            (2, false, 4, 1.5, 1.5, 1.25),
            (3, false, 3, 0.5, 3.5, 0.75),
            (4, false, 2, 0.0, 2.0, 0.0),
        ]
    );
}

/// TRF-25's tie-break lists: `212` after its points, else `202`; the
/// first code eboard does not compute ends the list, with a warning;
/// a round robin without a list breaks ties by SB only.
#[test]
fn the_files_tiebreak_list() {
    // Round 1 of a round robin of four (Berger: 1-4, 2-3).
    let body = [
        rec(1, "One,A", &[(4, 'w', '1')]),
        rec(2, "Two,B", &[(3, 'w', '=')]),
        rec(3, "Three,C", &[(2, 'b', '=')]),
        rec(4, "Four,D", &[(1, 'b', '0')]),
    ]
    .join("\n");
    let read = |head: &str| Event::read(&format!("{head}\n{body}\n"), "t.trf", None).unwrap();
    assert_eq!(read("202 SB, BH").tiebreaks, [SB, BH]);
    assert_eq!(read("202 BH\n212 PTS SB").tiebreaks, [SB]);
    let ev = read("212 PTS SB BH/C1 BH");
    assert_eq!(ev.tiebreaks, [SB]);
    assert!(
        ev.notes[0].contains("t.trf:1") && ev.notes[0].contains("BH/C1"),
        "{:?}",
        ev.notes
    );
    let (s, warnings) = ev.standings(&[]);
    assert_eq!(warnings, ev.notes, "said with every standings");
    assert_eq!(s.rows[0].tiebreaks.len(), 1);
    assert_eq!(read("092 Individual: Round Robin").tiebreaks, [SB]);
    assert_eq!(read("XXR 9").rounds, Some(9));
    assert_eq!(read("132 26/11/27  26/11/28").rounds, Some(2));
    assert_eq!(read("").rounds, None);
    let ev = read("142 0");
    assert_eq!(ev.rounds, None);
    assert!(ev.notes[0].contains("record 142"), "{:?}", ev.notes);
}

/// Bad input: a game result without an opponent, an opponent who does not
/// name the player back: errors naming the line and the round's columns.
#[test]
fn a_cross_table_that_does_not_add_up_is_refused_naming_the_line() {
    let text = [
        rec(1, "One,A", &[(0, '-', '1')]),
        rec(2, "Two,B", &[(0, '-', 'U')]),
    ]
    .join("\n");
    let e = Event::read(&text, "t.trf", None).unwrap_err();
    assert_eq!(
        (e.line, e.field.as_str()),
        (Some(1), "round 1 (columns 92-99)")
    );
    let text = [
        rec(1, "One,A", &[(2, 'w', '1')]),
        rec(2, "Two,B", &[(3, 'b', '0')]),
        rec(3, "Three,C", &[(2, 'w', '1')]),
    ]
    .join("\n");
    let e = Event::read(&text, "t.trf", None).unwrap_err();
    assert!(e.to_string().starts_with("t.trf:1: round 1"), "{e}");
}

/// The project's pairings file of round 4 (Swiss-Manager's layout, with a
/// pairing-allocated bye, a half-point bye and a forfeit in round 3): the
/// points after round 3 are the file's own points column (81-84) for every
/// player; round 4's four boards are unconfirmed, 7's half-point bye of
/// round 4 already counts.
#[test]
fn the_pairings_file_of_round_four() {
    let ev = Event::read(PAIRINGS, "pairings-open-2026.trf", None).unwrap();
    // Its `132` has the dates of four rounds.
    assert_eq!((ev.round, ev.rounds), (4, Some(4)));
    let (s, _) = ev.standings(&[]);
    assert_eq!(s.unconfirmed, ["4.1", "4.2", "4.3", "4.4"]);
    for line in PAIRINGS.lines().filter(|l| l.starts_with("001")) {
        let start: u32 = line[4..8].trim().parse().unwrap();
        let file_points: f64 = line[80..84].trim().parse().unwrap();
        let row = s.rows.iter().find(|r| r.start == start).unwrap();
        let bye = if start == 7 { 0.5 } else { 0.0 };
        assert_eq!(row.points, file_points + bye, "start rank {start}");
    }
}

/// A round robin (`092 Individual: Round Robin`, the project's 6-player
/// file, round 3 paired): the boards as the Berger table numbers them
/// (`eboard event`'s order), Sonneborn-Berger only, the opponents' final
/// scores as they are (C.07 art. 15.2: no article 16). With 2-6 1-0, 3-1
/// 0-1 and 4-5 ½-½ every place is shared: 1 and 4 (2½, SB 1), 2 and 5
/// (2, SB 2¼), 3 and 6 (0, SB 0).
#[test]
fn a_round_robin_by_the_berger_table_and_sonneborn_berger() {
    let text = include_str!("../../../tests/data/round-robin-6.trf");
    let ev = Event::read(text, "round-robin-6.trf", None).unwrap();
    assert!(ev.round_robin);
    assert_eq!((ev.round, ev.tiebreaks.clone()), (3, vec![SB]));
    let boards: Vec<(u32, u32, u32)> = ev
        .boards
        .iter()
        .map(|g| (g.board, g.white, g.black))
        .collect();
    assert_eq!(boards, [(1, 2, 6), (2, 3, 1), (3, 4, 5)]);
    let rr = |n: u32| {
        let (name, id) = match n {
            1 => ("Rasmussen,Allan", 1_400_101),
            2 => ("Hansen,Sune Berg", 1_400_102),
            3 => ("Larsen,Ellen", 1_400_103),
            4 => ("Nielsen,Peter Heine", 1_400_104),
            5 => ("Olsen,Jens", 1_400_105),
            _ => ("Petersen,Kasper", 1_400_106),
        };
        player(name, Some(id))
    };
    let games = [
        game(1, rr(2), rr(6), "1-0", Some("confirmed")),
        game(2, rr(3), rr(1), "0-1", Some("confirmed")),
        game(3, rr(4), rr(5), "1/2-1/2", Some("confirmed")),
    ];
    let (s, warnings) = ev.standings(&games);
    assert!(warnings.is_empty() && !s.provisional, "{warnings:?} {s:?}");
    let got: Vec<(u32, bool, u32, f64, f64)> = s
        .rows
        .iter()
        .map(|r| (r.rank, r.tied, r.start, r.points, r.tiebreaks[0]))
        .collect();
    assert_eq!(
        got,
        [
            (1, true, 1, 2.5, 1.0),
            (1, true, 4, 2.5, 1.0),
            (3, true, 2, 2.0, 2.25),
            (3, true, 5, 2.0, 2.25),
            (5, true, 3, 0.0, 0.0),
            (5, true, 6, 0.0, 0.0),
        ]
    );
}
