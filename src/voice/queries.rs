//! The answers to the visually impaired player's own device (E2.9d, "on
//! request" only) beyond the time and the last move, and the question for a
//! promotion piece (E2.1 / E2.3). Our words, like the rest of the phrase
//! grammar; an arbiter must approve them (E2.9). Kept apart from
//! `phrases.rs` so the two grow independently.

use super::{clocks_phrase, duration_phrase, moves_made_phrase, sentence, Lang, Vocabulary};
use shakmaty::{Board, Color, Role, Square};
use shakmaty::{File, Rank};

/// The order a player reads a diagram in: king, queen, rooks, bishops,
/// knights, pawns.
const DIAGRAM_ORDER: [Role; 6] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// The whole position, White's pieces then Black's, each side in diagram
/// order (king, queen, rooks, bishops, knights, pawns) and each kind's
/// squares file by file (a to h, then rank), e.g. `Hvid: konge Gustav et,
/// tårn Anna et og Hans et, bonde Anna to. Sort: konge Erik otte.`
pub fn position_phrase(board: &Board, voc: &Vocabulary) -> String {
    let mut sides = Vec::with_capacity(2);
    for color in [Color::White, Color::Black] {
        let mut parts = Vec::new();
        for role in DIAGRAM_ORDER {
            let mut squares: Vec<Square> = (board.by_color(color) & board.by_role(role))
                .into_iter()
                .collect();
            if squares.is_empty() {
                continue;
            }
            squares.sort_by_key(|s| (s.file(), s.rank()));
            let named: Vec<String> = squares.iter().map(|s| voc.square(*s)).collect();
            parts.push(format!("{} {}", voc.piece(role), voc.list(&named)));
        }
        sides.push(format!(
            "{}.",
            sentence(format!("{}: {}", voc.colour(color), parts.join(", ")))
        ));
    }
    sides.join(" ")
}

/// The whole position rank by rank, from the eighth to the first (the
/// order a diagram is read top down), each rank's pieces file by file with
/// their colour; empty ranks are left out, e.g. `Række otte: sort konge
/// Erik. Række et: hvid konge Erik, hvid tårn Henrik.` (issue 29: the
/// order the player chooses; [`position_phrase`] is by piece).
pub fn position_by_rank_phrase(board: &Board, voc: &Vocabulary) -> String {
    let head = match voc.lang() {
        Lang::Da => "række",
        Lang::Nb => "rad",
        Lang::De => "Reihe",
        Lang::En => "rank",
    };
    let mut ranks = Vec::new();
    for rank in Rank::ALL.into_iter().rev() {
        let on: Vec<String> = File::ALL
            .into_iter()
            .filter_map(|file| {
                let sq = Square::from_coords(file, rank);
                board.piece_at(sq).map(|p| {
                    format!(
                        "{} {} {}",
                        voc.colour(p.color),
                        voc.piece(p.role),
                        voc.file(file)
                    )
                })
            })
            .collect();
        if !on.is_empty() {
            ranks.push(format!(
                "{}.",
                sentence(format!("{head} {}: {}", voc.rank(rank), on.join(", ")))
            ));
        }
    }
    ranks.join(" ")
}

/// One clock alone, a short answer (issue 29): the asker's own (`own`),
/// e.g. `Din tid: 1 time 29 minutter`, or his opponent's, `Hvid: 1 time 29
/// minutter`; `ms` the time left, `None` without a clock.
pub fn one_clock_phrase(of: Color, own: bool, ms: Option<u64>, voc: &Vocabulary) -> String {
    let Some(ms) = ms else {
        return sentence(
            match voc.lang() {
                Lang::Da => "intet ur",
                Lang::Nb => "ingen klokke",
                Lang::De => "keine Uhr",
                Lang::En => "no clock",
            }
            .to_owned(),
        );
    };
    let head = if own {
        match voc.lang() {
            Lang::Da | Lang::Nb => "din tid",
            Lang::De => "deine Zeit",
            Lang::En => "your time",
        }
    } else {
        voc.colour(of)
    };
    sentence(format!("{head}: {}", duration_phrase(ms, voc)))
}

/// Whose move it is and the number of the move being played (`plies` half
/// moves made since the start), e.g. `Sort i trækket, træk 12`.
pub fn turn_phrase(plies: u32, voc: &Vocabulary) -> String {
    let n = plies / 2 + 1;
    let c = voc.colour(if plies.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    });
    sentence(match voc.lang() {
        Lang::Da => format!("{c} i trækket, træk {n}"),
        Lang::Nb => format!("{c} i trekket, trekk {n}"),
        Lang::De => format!("{c} am Zug, Zug {n}"),
        Lang::En => format!("{c} to move, move {n}"),
    })
}

/// E2.9d "time": when a clock runs, the time left first (`left`, white
/// and black, ms), then the moves made and the time each player has used
/// (`used`).
pub fn time_used_phrase(
    plies: u32,
    used: Option<(u64, u64)>,
    left: Option<(u64, u64)>,
    voc: &Vocabulary,
) -> String {
    // The time left first: what the player asks the time for (issue 29).
    let mut out = match left {
        Some((w, b)) => format!(
            "{}. {}",
            clocks_phrase(w, b, voc),
            moves_made_phrase(plies, voc)
        ),
        None => moves_made_phrase(plies, voc),
    };
    if let Some((w, b)) = used {
        let head = match voc.lang() {
            Lang::Da => "tid brugt",
            Lang::Nb => "tid brukt",
            Lang::De => "verbrauchte Zeit",
            Lang::En => "time used",
        };
        out.push_str(&format!(
            ". {}",
            sentence(format!(
                "{head}: {} {}, {} {}",
                voc.colour(Color::White),
                duration_phrase(w, voc),
                voc.colour(Color::Black),
                duration_phrase(b, voc)
            ))
        ));
    }
    out
}

/// The opponent's (`by`) last draw offer: `None` if he made none, else the
/// half moves made when he offered, and whether the offer still stands.
pub fn draw_offer_query_phrase(
    by: Color,
    offered: Option<(u32, bool)>,
    voc: &Vocabulary,
) -> String {
    let c = voc.colour(by);
    let Some((plies, standing)) = offered else {
        return sentence(match voc.lang() {
            Lang::Da => format!("{c} har ikke tilbudt remis"),
            Lang::Nb => format!("{c} har ikke tilbudt remis"),
            Lang::De => format!("{c} hat kein Remis angeboten"),
            Lang::En => format!("{c} has not offered a draw"),
        });
    };
    let n = plies / 2 + 1;
    let (head, stands, lapsed) = match voc.lang() {
        Lang::Da => (
            format!("{c} tilbød remis i træk {n}"),
            "tilbuddet gælder",
            "tilbuddet gælder ikke længere",
        ),
        Lang::Nb => (
            format!("{c} tilbød remis i trekk {n}"),
            "tilbudet gjelder",
            "tilbudet gjelder ikke lenger",
        ),
        Lang::De => (
            format!("{c} hat im Zug {n} Remis angeboten"),
            "das Angebot steht",
            "das Angebot gilt nicht mehr",
        ),
        Lang::En => (
            format!("{c} offered a draw at move {n}"),
            "the offer stands",
            "the offer no longer stands",
        ),
    };
    sentence(format!(
        "{head}, {}",
        if standing { stands } else { lapsed }
    ))
}

/// E2.1 / E2.3: the question for the promotion piece, e.g. `Hvilken brik
/// på Erik otte?` (the move is announced once the piece is named).
pub fn promotion_piece_question_phrase(square: Square, voc: &Vocabulary) -> String {
    let sq = voc.square(square);
    match voc.lang() {
        Lang::Da => format!("Hvilken brik på {sq}?"),
        Lang::Nb => format!("Hvilken brikke på {sq}?"),
        Lang::De => format!("Welche Figur auf {sq}?"),
        Lang::En => format!("Which piece on {sq}?"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Edition;
    use crate::voice::VoiceOptions;
    use shakmaty::{Chess, Position};

    fn voc(lang: Lang) -> Vocabulary {
        let edition = match lang {
            Lang::Nb => Edition::Fide2009No,
            Lang::Da => Edition::Fide2009,
            _ => Edition::Fide2023,
        };
        Vocabulary::new(lang, edition, VoiceOptions::default())
    }

    #[test]
    fn each_language_answers_every_query() {
        let start = Chess::default();
        for (lang, position, turn, used, none, offered, question) in [
            (
                Lang::Da,
                "Hvid: konge Erik et, dronning Dora et",
                "Sort i trækket, træk 3",
                "Tid brugt: hvid 1 minut og 5 sekunder, sort 2 sekunder",
                "Sort har ikke tilbudt remis",
                "Sort tilbød remis i træk 2, tilbuddet gælder",
                "Hvilken brik på Erik otte?",
            ),
            (
                Lang::Nb,
                "Hvit: König Eva eins",
                "Svart i trekket, trekk 3",
                "Tid brukt: hvit 1 minutt og 5 sekunder, svart 2 sekunder",
                "Svart har ikke tilbudt remis",
                "Svart tilbød remis i trekk 2, tilbudet gjelder",
                "Hvilken brikke på",
            ),
            (
                Lang::De,
                "Weiß: König",
                "Schwarz am Zug, Zug 3",
                "Verbrauchte Zeit: Weiß 1 Minute und 5 Sekunden, Schwarz 2 Sekunden",
                "Schwarz hat kein Remis angeboten",
                "Schwarz hat im Zug 2 Remis angeboten, das Angebot steht",
                "Welche Figur auf",
            ),
            (
                Lang::En,
                "White: König Eva eins",
                "Black to move, move 3",
                "Time used: White 1 minute and 5 seconds, Black 2 seconds",
                "Black has not offered a draw",
                "Black offered a draw at move 2, the offer stands",
                "Which piece on",
            ),
        ] {
            let v = voc(lang);
            let p = position_phrase(start.board(), &v);
            assert!(p.starts_with(position), "{lang:?}: {p}");
            // White's side first, then Black's: the diagram's order.
            assert_eq!(p.matches(". ").count(), 1, "{lang:?}: {p}");
            assert_eq!(turn_phrase(5, &v), turn, "{lang:?}");
            let t = time_used_phrase(5, Some((65_000, 2_000)), Some((1_000, 2_000)), &v);
            assert!(t.contains(used), "{lang:?}: {t}");
            assert_eq!(draw_offer_query_phrase(Color::Black, None, &v), none);
            assert_eq!(
                draw_offer_query_phrase(Color::Black, Some((3, true)), &v),
                offered
            );
            let q = promotion_piece_question_phrase(Square::E8, &v);
            assert!(q.starts_with(question), "{lang:?}: {q}");
        }
    }

    #[test]
    fn short_answers_and_the_position_rank_by_rank() {
        let v = voc(Lang::Da);
        assert_eq!(
            one_clock_phrase(Color::Black, true, Some(65_000), &v),
            "Din tid: 1 minut og 5 sekunder"
        );
        assert_eq!(
            one_clock_phrase(Color::White, false, Some(3_600_000), &v),
            "Hvid: 1 time"
        );
        assert_eq!(one_clock_phrase(Color::White, false, None, &v), "Intet ur");
        assert_eq!(
            one_clock_phrase(Color::White, true, Some(2_000), &voc(Lang::De)),
            "Deine Zeit: 2 Sekunden"
        );
        let board: Board = "4k3/8/8/8/8/8/4P3/R3K3".parse().unwrap();
        assert_eq!(
            position_by_rank_phrase(&board, &v),
            "Række otte: sort konge Erik. Række to: hvid bonde Erik. \
             Række et: hvid tårn Anna, hvid konge Erik."
        );
        assert_eq!(
            position_by_rank_phrase(&board, &voc(Lang::Nb)),
            "Rad acht: svart König Eva. Rad zwei: hvit Bauer Eva. \
             Rad eins: hvit Turm Anna, hvit König Eva."
        );
        // The time left comes first in the time answer.
        let t = time_used_phrase(5, Some((65_000, 2_000)), Some((1_000, 2_000)), &v);
        assert!(t.starts_with("Tid tilbage: hvid 1 sekund"), "{t}");
    }
}
