//! The phrases beside the moves: the draw offer, the game's end, the
//! on-demand queries (E2.9d) and the two boards differing (E2.7). All words
//! here are our design (see the parent module's doc); an arbiter must
//! approve them (E2.9).

use super::{move_words, push_check_or_mate, sentence, Lang, Vocabulary};
use crate::model::{EndReason, KnownOutcome};
use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, Square};

/// Who plays on this board, said before the game to a player who cannot
/// read the pairing list (issue 15 item 4): the round, the board and both
/// players, each name `Surname, Given` said as `Given Surname`, e.g.
/// `Runde 3, bræt 2. Hvid: Bent Larsen. Sort: Curt Hansen.`
pub fn pairing_phrase(
    round: u32,
    board: u32,
    white: &str,
    black: &str,
    voc: &Vocabulary,
) -> String {
    let spoken = |n: &str| match n.split_once(',') {
        Some((last, first)) if !first.trim().is_empty() => {
            format!("{} {}", first.trim(), last.trim())
        }
        _ => n.trim().to_owned(),
    };
    let (w, b) = (
        sentence(voc.colour(Color::White).to_owned()),
        sentence(voc.colour(Color::Black).to_owned()),
    );
    let (r, bd) = match voc.lang {
        Lang::Da => ("Runde", "bræt"),
        Lang::Nb => ("Runde", "brett"),
        Lang::De => ("Runde", "Brett"),
        Lang::En => ("Round", "board"),
    };
    format!(
        "{r} {round}, {bd} {board}. {w}: {}. {b}: {}.",
        spoken(white),
        spoken(black)
    )
}

/// A draw offer (§9.1b; recorded "(=)", Appendix C13): e.g. `Hvid tilbyder remis`.
pub fn draw_offer_phrase(by: Color, voc: &Vocabulary) -> String {
    let c = voc.colour(by);
    sentence(match voc.lang {
        Lang::Da => format!("{c} tilbyder remis"),
        Lang::Nb => format!("{c} tilbyr remis"),
        Lang::De => format!("{c} bietet Remis an"),
        Lang::En => format!("{c} offers a draw"),
    })
}

/// The game's end: the result (`None`: not known, said as "the game is
/// over") and why (`None`: not said), e.g. `Hvid vinder, mat` (articles
/// §5, §6.9, §7.4b, §9). The reasons without words of their own (both flags,
/// the arbiter's decision, §10.2) are left out.
pub fn game_end_phrase(
    result: Option<KnownOutcome>,
    reason: Option<EndReason>,
    voc: &Vocabulary,
) -> String {
    let l = voc.lang;
    let head = match result {
        Some(KnownOutcome::Decisive { winner }) => {
            let c = voc.colour(winner);
            match l {
                Lang::Da => format!("{c} vinder"),
                Lang::Nb => format!("{c} vinner"),
                Lang::De => format!("{c} gewinnt"),
                Lang::En => format!("{c} wins"),
            }
        }
        Some(KnownOutcome::Draw) => match l {
            Lang::Da | Lang::Nb => "remis",
            Lang::De => "Remis",
            Lang::En => "draw",
        }
        .to_owned(),
        None => match l {
            Lang::Da => "partiet er slut",
            Lang::Nb => "partiet er slutt",
            Lang::De => "die Partie ist beendet",
            Lang::En => "the game is over",
        }
        .to_owned(),
    };
    let why: Option<[&str; 4]> = reason.and_then(|reason| match reason {
        EndReason::Checkmate => Some(["mat", "matt", "Schachmatt", "checkmate"]),
        EndReason::Stalemate => Some(["pat", "patt", "Patt", "stalemate"]),
        EndReason::DeadPosition => Some([
            "død stilling",
            "død stilling",
            "tote Stellung",
            "dead position",
        ]),
        EndReason::Resignation => Some(["opgivet", "oppgitt", "Aufgabe", "resignation"]),
        EndReason::Agreement => Some([
            "efter aftale",
            "etter avtale",
            "nach Vereinbarung",
            "by agreement",
        ]),
        EndReason::Time => Some(["på tid", "på tid", "durch Zeitüberschreitung", "on time"]),
        EndReason::TimeVsInsufficientMaterial => Some([
            "tiden er overskredet, men modstanderen kan ikke sætte mat",
            "tiden er ute, men motstanderen kan ikke sette matt",
            "Zeit überschritten, aber der Gegner kann nicht mattsetzen",
            "flag fell, but the opponent cannot checkmate",
        ]),
        EndReason::IllegalMoves => Some([
            "ulovlige træk",
            "ulovlige trekk",
            "regelwidrige Züge",
            "illegal moves",
        ]),
        EndReason::Threefold => Some([
            "trefold gentagelse",
            "trekkgjentakelse",
            "dreifache Stellungswiederholung",
            "threefold repetition",
        ]),
        EndReason::FiftyMoves => Some([
            "50-træksreglen",
            "50-trekksregelen",
            "50-Züge-Regel",
            "fifty-move rule",
        ]),
        EndReason::Fivefold => Some([
            "femfold gentagelse",
            "femdobbel trekkgjentakelse",
            "fünffache Stellungswiederholung",
            "fivefold repetition",
        ]),
        EndReason::SeventyFiveMoves => Some([
            "75-træksreglen",
            "75-trekksregelen",
            "75-Züge-Regel",
            "seventy-five-move rule",
        ]),
        EndReason::BothFlags
        | EndReason::ArbiterDecision
        | EndReason::Forfeit
        | EndReason::InsufficientLosingChances
        | EndReason::RulesInfraction => None,
    });
    sentence(match why {
        Some(w) => {
            let i = match l {
                Lang::Da => 0,
                Lang::Nb => 1,
                Lang::De => 2,
                Lang::En => 3,
            };
            format!("{head}, {}", w[i])
        }
        None => head,
    })
}

/// On-demand query E2.9d: the number of moves completed. `plies` counts
/// half-moves made since the game's start position; a move is completed
/// when both players have made it. E.g. `23 træk spillet, sort i trækket`.
pub fn moves_made_phrase(plies: u32, voc: &Vocabulary) -> String {
    let n = plies / 2;
    let c = voc.colour(if plies.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    });
    sentence(match voc.lang {
        Lang::Da => format!("{n} træk spillet, {c} i trækket"),
        Lang::Nb => format!("{n} trekk spilt, {c} i trekket"),
        Lang::De => format!(
            "{n} {} gespielt, {c} am Zug",
            plural(n.into(), "Zug", "Züge")
        ),
        Lang::En => format!(
            "{n} {} played, {c} to move",
            plural(n.into(), "move", "moves")
        ),
    })
}

fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// A duration in ms said in hours, minutes and seconds (whole seconds,
/// rounded down as a clock shows them), e.g. `1 time 29 minutter og 5
/// sekunder`; zero parts are left out, and less than a second is `0 sekunder`.
pub fn duration_phrase(ms: u64, voc: &Vocabulary) -> String {
    let s = ms / 1000;
    let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
    let units: [(&str, &str); 3] = match voc.lang {
        Lang::Da => [
            ("time", "timer"),
            ("minut", "minutter"),
            ("sekund", "sekunder"),
        ],
        Lang::Nb => [
            ("time", "timer"),
            ("minutt", "minutter"),
            ("sekund", "sekunder"),
        ],
        Lang::De => [
            ("Stunde", "Stunden"),
            ("Minute", "Minuten"),
            ("Sekunde", "Sekunden"),
        ],
        Lang::En => [
            ("hour", "hours"),
            ("minute", "minutes"),
            ("second", "seconds"),
        ],
    };
    let mut parts = Vec::with_capacity(3);
    for (v, (one, many)) in [h, m, sec].into_iter().zip(units) {
        if v > 0 {
            parts.push(format!("{v} {}", plural(v, one, many)));
        }
    }
    match parts.split_last() {
        None => format!("0 {}", units[2].1),
        Some((last, [])) => last.clone(),
        // No commas inside: the clock phrase separates the players with one.
        Some((last, init)) => format!("{} {} {last}", init.join(" "), voc.lex.and),
    }
}

/// On-demand query E2.9d: both clocks, the time each player has left in ms
/// (the clock's display), e.g. `Tid tilbage: hvid 1 time 29 minutter, sort
/// 1 time 30 minutter`.
pub fn clocks_phrase(white_ms: u64, black_ms: u64, voc: &Vocabulary) -> String {
    let (w, b) = (voc.colour(Color::White), voc.colour(Color::Black));
    let (wt, bt) = (
        duration_phrase(white_ms, voc),
        duration_phrase(black_ms, voc),
    );
    let head = match voc.lang {
        Lang::Da => "tid tilbage",
        Lang::Nb => "tid igjen",
        Lang::De => "Restzeit",
        Lang::En => "time left",
    };
    sentence(format!("{head}: {w} {wt}, {b} {bt}"))
}

/// On-demand query E2.9d "time": the moves made and, when a clock runs, both
/// clocks (`(white, black)` ms left), e.g. `23 træk spillet, sort i
/// trækket. Tid tilbage: hvid …, sort …`.
pub fn time_phrase(plies: u32, clocks: Option<(u64, u64)>, voc: &Vocabulary) -> String {
    let moves = moves_made_phrase(plies, voc);
    match clocks {
        Some((w, b)) => format!("{moves}. {}", clocks_phrase(w, b, voc)),
        None => moves,
    }
}

/// On-demand query: the last move, `mv` played in `pos_before` (its mover
/// is the side to move there), with its departure square and the piece it
/// captured (issue 29), e.g. `Sidste træk, sort: springer fra Gustav otte
/// til Frederik seks`. `None` (no move yet) says so.
pub fn last_move_phrase(last: Option<(&Chess, &Move)>, voc: &Vocabulary) -> String {
    let Some((pos, mv)) = last else {
        return sentence(
            match voc.lang {
                Lang::Da => "intet træk endnu",
                Lang::Nb => "ingen trekk ennå",
                Lang::De => "noch kein Zug",
                Lang::En => "no move yet",
            }
            .to_owned(),
        );
    };
    let c = voc.colour(pos.turn());
    let head = match voc.lang {
        Lang::Da => "sidste træk",
        Lang::Nb => "siste trekk",
        Lang::De => "letzter Zug",
        Lang::En => "last move",
    };
    sentence(format!("{head}, {c}: {}", move_words_long(pos, mv, voc)))
}

/// On-demand query: where the pieces of one kind stand, squares from a1 to
/// h8, e.g. `Hvid: springer Bodil et og Gustav et`, or `Hvid: ingen dronning`.
pub fn piece_squares_phrase(pos: &Chess, color: Color, role: Role, voc: &Vocabulary) -> String {
    let board = pos.board();
    pieces_on_phrase(
        color,
        role,
        board.by_color(color) & board.by_role(role),
        voc,
    )
}

/// As [`piece_squares_phrase`], with the squares given: the pieces of
/// `color` and `role` stand on `on` (empty: none on the board).
pub fn pieces_on_phrase(color: Color, role: Role, on: Bitboard, voc: &Vocabulary) -> String {
    let squares: Vec<String> = on.into_iter().map(|sq| voc.square(sq)).collect();
    let c = voc.colour(color);
    let p = voc.piece(role);
    sentence(if squares.is_empty() {
        match voc.lang {
            Lang::Da | Lang::Nb => format!("{c}: ingen {p}"),
            Lang::De if role == Role::Queen => format!("{c}: keine {p}"),
            Lang::De => format!("{c}: kein {p}"),
            Lang::En => format!("{c}: no {p}"),
        }
    } else {
        format!("{c}: {p} {}", voc.list(&squares))
    })
}

/// E2.7: the two boards show different positions on `squares`, e.g.
/// `Brætterne er forskellige på Erik fire og Erik tre`; no squares says they agree.
pub fn boards_differ_phrase(squares: &[Square], voc: &Vocabulary) -> String {
    let named: Vec<String> = squares.iter().map(|s| voc.square(*s)).collect();
    sentence(if named.is_empty() {
        match voc.lang {
            Lang::Da => "brætterne stemmer overens",
            Lang::Nb => "brettene stemmer overens",
            Lang::De => "die Bretter stimmen überein",
            Lang::En => "the boards agree",
        }
        .to_owned()
    } else {
        let head = match voc.lang {
            Lang::Da => "brætterne er forskellige på",
            Lang::Nb => "brettene er forskjellige på",
            Lang::De => "die Bretter unterscheiden sich auf",
            Lang::En => "the boards differ on",
        };
        format!("{head} {}", voc.list(&named))
    })
}

/// Set-up guidance before the first move: the squares where a piece is
/// missing, extra, or of the wrong colour or kind, e.g. `Missing on a7,
/// extra on e4.` (squares in the vocabulary's spelling); all empty says the
/// board is set up.
pub fn setup_phrase(
    missing: Bitboard,
    extra: Bitboard,
    misplaced: Bitboard,
    voc: &Vocabulary,
) -> String {
    let (missing_on, extra_on, wrong_on, ready) = match voc.lang {
        Lang::Da => (
            "mangler på",
            "overtallig på",
            "forkert brik på",
            "brættet er stillet op",
        ),
        Lang::Nb => (
            "mangler på",
            "til overs på",
            "feil brikke på",
            "brettet er satt opp",
        ),
        Lang::De => (
            "fehlt auf",
            "zu viel auf",
            "falsche Figur auf",
            "das Brett ist aufgebaut",
        ),
        Lang::En => (
            "missing on",
            "extra on",
            "wrong piece on",
            "the board is set up",
        ),
    };
    let parts: Vec<String> = [
        (missing, missing_on),
        (extra, extra_on),
        (misplaced, wrong_on),
    ]
    .into_iter()
    .filter(|(bb, _)| !bb.is_empty())
    .map(|(bb, head)| {
        let named: Vec<String> = bb.into_iter().map(|s| voc.square(s)).collect();
        format!("{head} {}", voc.list(&named))
    })
    .collect();
    sentence(if parts.is_empty() {
        ready.to_owned()
    } else {
        parts.join(", ")
    })
}

/// The words of a move with its departure square and the piece it
/// captured, not capitalised: the last move on demand (issue 29: the
/// origin square on demand, as lichess's blind mode gives it), e.g. Danish
/// `løber fra Frederik et til Bodil fem, slår springer`, `kort rokade`.
fn move_words_long(pos: &Chess, mv: &Move, voc: &Vocabulary) -> String {
    let (Some(from), false) = (mv.from(), mv.is_castle()) else {
        return move_words(pos, mv, voc);
    };
    let mut out = format!(
        "{} {} {} {} {}",
        voc.piece(mv.role()),
        voc.lex.from,
        voc.square(from),
        voc.lex.to,
        voc.square(mv.to())
    );
    if let Some(p) = mv.promotion() {
        out.push(' ');
        out.push_str(voc.piece(p));
    }
    if let Some(c) = mv.capture() {
        out.push_str(&format!(", {} {}", voc.lex.captures, voc.piece(c)));
        if mv.is_en_passant() {
            out.push(' ');
            out.push_str(voc.lex.en_passant);
        }
    }
    push_check_or_mate(&mut out, pos, mv, voc);
    out
}
