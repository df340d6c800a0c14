//! Golden answers to the visually impaired player's queries (E2.9d,
//! `queries.rs`): the moves made, the clocks, the time (both joined), the
//! last move (its departure and the piece taken), a piece's squares.

use super::*;

#[test]
fn query_moves_made() {
    assert_eq!(
        moves_made_phrase(45, &voc(Lang::Da, Edition::Fide2009)),
        "22 træk spillet, sort i trækket"
    );
    assert_eq!(
        moves_made_phrase(40, &voc(Lang::Nb, Edition::Fide2009No)),
        "20 trekk spilt, hvit i trekket"
    );
    assert_eq!(
        moves_made_phrase(2, &voc(Lang::De, Edition::Fide2023)),
        "1 Zug gespielt, Weiß am Zug"
    );
    assert_eq!(
        moves_made_phrase(0, &voc(Lang::En, Edition::Fide2023)),
        "0 moves played, White to move"
    );
}

#[test]
fn query_clocks() {
    assert_eq!(
        clocks_phrase(5_345_999, 1_800_000, &voc(Lang::Da, Edition::Fide2009)),
        "Tid tilbage: hvid 1 time 29 minutter og 5 sekunder, sort 30 minutter"
    );
    assert_eq!(
        clocks_phrase(59_000, 120_000, &voc(Lang::Nb, Edition::Fide2009No)),
        "Tid igjen: hvit 59 sekunder, svart 2 minutter"
    );
    assert_eq!(
        clocks_phrase(3_600_000, 7_201_000, &voc(Lang::De, Edition::Fide2023)),
        "Restzeit: Weiß 1 Stunde, Schwarz 2 Stunden und 1 Sekunde"
    );
    assert_eq!(
        clocks_phrase(61_999, 500, &voc(Lang::En, Edition::Fide2023)),
        "Time left: White 1 minute and 1 second, Black 0 seconds"
    );
}

#[test]
fn query_last_move() {
    let pos = after("e4 e5 Nf3");
    let mv = san_to_move(&pos, "Nc6").unwrap();
    assert_eq!(
        last_move_phrase(Some((&pos, &mv)), &voc(Lang::Da, Edition::Fide2009)),
        "Sidste træk, sort: springer fra Bodil otte til Cecilie seks"
    );
    assert_eq!(
        last_move_phrase(Some((&pos, &mv)), &voc(Lang::Nb, Edition::Fide2009No)),
        "Siste trekk, svart: Springer fra Bella acht til Cæsar sechs"
    );
    assert_eq!(
        last_move_phrase(Some((&pos, &mv)), &voc(Lang::De, Edition::Fide2023)),
        "Letzter Zug, Schwarz: Springer von Bella acht nach Cäsar sechs"
    );
    assert_eq!(
        last_move_phrase(None, &voc(Lang::Da, Edition::Fide2009)),
        "Intet træk endnu"
    );
    assert_eq!(
        last_move_phrase(None, &voc(Lang::En, Edition::Fide2023)),
        "No move yet"
    );
}

#[test]
fn query_piece_squares() {
    let start = Chess::default();
    assert_eq!(
        piece_squares_phrase(
            &start,
            Color::White,
            Role::Knight,
            &voc(Lang::Da, Edition::Fide2009)
        ),
        "Hvid: springer Bodil et og Gustav et"
    );
    assert_eq!(
        piece_squares_phrase(
            &start,
            Color::Black,
            Role::Queen,
            &voc(Lang::De, Edition::Fide2023)
        ),
        "Schwarz: Dame David acht"
    );
    assert_eq!(
        piece_squares_phrase(
            &start,
            Color::White,
            Role::Pawn,
            &voc(Lang::Nb, Edition::Fide2009No)
        ),
        "Hvit: Bauer Anna zwei, Bella zwei, Cæsar zwei, David zwei, Eva zwei, \
         Felix zwei, Gustav zwei og Hector zwei"
    );
    let bare = from_fen(KINGS);
    let da = voc(Lang::Da, Edition::Fide2009);
    let de = voc(Lang::De, Edition::Fide2023);
    assert_eq!(
        piece_squares_phrase(&bare, Color::White, Role::Queen, &da),
        "Hvid: ingen dronning"
    );
    assert_eq!(
        piece_squares_phrase(&bare, Color::White, Role::Queen, &de),
        "Weiß: keine Dame"
    );
    assert_eq!(
        piece_squares_phrase(&bare, Color::Black, Role::Rook, &de),
        "Schwarz: kein Turm"
    );
    assert_eq!(
        piece_squares_phrase(
            &bare,
            Color::Black,
            Role::King,
            &voc(Lang::En, Edition::Fide2023)
        ),
        "Black: König Eva acht"
    );
}

#[test]
fn query_time_joins_moves_and_clocks() {
    let da = voc(Lang::Da, Edition::Fide2009);
    assert_eq!(time_phrase(45, None, &da), moves_made_phrase(45, &da));
    assert_eq!(
        time_phrase(45, Some((59_000, 120_000)), &da),
        format!(
            "{}. {}",
            moves_made_phrase(45, &da),
            clocks_phrase(59_000, 120_000, &da)
        )
    );
}

#[test]
fn the_last_move_on_demand_gives_its_departure_and_the_piece_taken() {
    let pos = after("e4 d5");
    let mv = san_to_move(&pos, "exd5").unwrap();
    assert_eq!(
        last_move_phrase(Some((&pos, &mv)), &voc(Lang::Da, Edition::Fide2009)),
        "Sidste træk, hvid: bonde fra Erik fire til Dora fem, slår bonde"
    );
    let pos = after("e4 e5 Bc4 Nc6");
    let mv = san_to_move(&pos, "Bxf7+").unwrap();
    assert_eq!(
        last_move_phrase(Some((&pos, &mv)), &voc(Lang::De, Edition::Fide2023)),
        "Letzter Zug, Weiß: Läufer von Cäsar vier nach Felix sieben, schlägt Bauer, Schach"
    );
    let pos = from_fen(EN_PASSANT);
    let mv = san_to_move(&pos, "exd6").unwrap();
    assert_eq!(
        last_move_phrase(Some((&pos, &mv)), &voc(Lang::En, Edition::Fide2023)),
        "Last move, White: Bauer from Eva fünf to David sechs, takes Bauer en passant"
    );
    let pos = from_fen(CASTLING);
    let mv = san_to_move(&pos, "O-O").unwrap();
    assert_eq!(
        last_move_phrase(Some((&pos, &mv)), &voc(Lang::Da, Edition::Fide2009)),
        "Sidste træk, hvid: kort rokade"
    );
}
