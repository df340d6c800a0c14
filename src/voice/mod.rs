//! Spoken announcements for visually impaired players: the phrase grammar
//! per language and rule profile, and ([`tts`]) the speech adapter.
//!
//! Source: FIDE Laws 2009 Appendix E (2001: Appendix F; 2023: Appendix D),
//! article E2.1 in the Danish text (seed 002, `../shared/rules/digest.md`
//! §2.16) and the Norwegian text (seed 003, digest §4); the differences
//! between the editions are the digest's rows D51–D55.
//!
//! What the appendix fixes, and what is our design:
//! - **From the source:** the names of the files (Anna, Bodil …), the rank
//!   numbers (Danish or German; Norwegian: German), the piece names, the
//!   castling words, and that the promoted piece is named. E2.1 says the
//!   names replace "the corresponding letter in algebraic notation", so a
//!   move is announced as its Appendix C (short algebraic) notation is
//!   written: piece, the departure file or rank only when the notation needs
//!   it (C10; a pawn capture names its file, C11), the destination square.
//!   Saying every departure square is an option ([`VoiceOptions::from_square`]).
//! - **Ours** (the corpus gives no words for them; digest §2.16 ⚠): the
//!   word order, the words for "captures", "check", "mate", "en passant",
//!   the pawn's name being said (the appendix lists it among the pieces), the
//!   draw offer, the game's end, the on-demand queries (E2.9d) and the
//!   Norwegian rank words (en … åtte) of the Scandinavian option, which the
//!   Norwegian text does not list. An arbiter must approve them (E2.9).
//!
//! Every phrase is built from tables without I/O; a move phrase takes a few
//! microseconds (`cargo bench --bench voice`), far below the millisecond the
//! daemon allows before the speech starts.

pub mod tts;

use crate::model::{EndReason, KnownOutcome};
use crate::rules::Edition;
use shakmaty::san::{San, SanError};
use shakmaty::{Bitboard, CastlingSide, Chess, Color, File, Move, Position, Rank, Role, Square};
use std::fmt;

pub use crate::model::Lang;

/// Which word list a part of the vocabulary takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// The language's own words (Danish et … otte, konge …; Norwegian and
    /// English: our addition).
    National,
    /// The German words of the appendix (eins … acht; König …; Lange/Kurze Rochade).
    German,
}

/// Choices the appendix leaves open. `Default` gives each language's
/// default under its edition (see [`Vocabulary::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VoiceOptions {
    /// Danish list only: the names in brackets in E2.1 (Bella, Cesar, David,
    /// Eva, Felix, Hector) instead of Bodil, Cecilie, Dora, Erik, Frederik,
    /// Henrik. The other lists have no alternatives.
    pub alternative_files: bool,
    /// The rank numbers; `None` takes the default.
    pub ranks: Option<Words>,
    /// The piece names and castling words; `None` takes the default.
    pub pieces: Option<Words>,
    /// Say the departure square of every move (long algebraic), not only
    /// where Appendix C needs it.
    pub from_square: bool,
}

impl VoiceOptions {
    /// Norwegian E2.1's last sentence: "between Scandinavian players,
    /// Scandinavian words and expressions are used instead" — national
    /// ranks, pieces and castling words.
    pub fn scandinavian() -> VoiceOptions {
        VoiceOptions {
            ranks: Some(Words::National),
            pieces: Some(Words::National),
            ..VoiceOptions::default()
        }
    }
}

/// The connecting words of one language (all our design, see the module doc).
struct Lexicon {
    captures: &'static str,
    check: &'static str,
    mate: &'static str,
    en_passant: &'static str,
    white: &'static str,
    black: &'static str,
    and: &'static str,
}

const DA: Lexicon = Lexicon {
    captures: "slår",
    check: "skak",
    mate: "skakmat",
    en_passant: "en passant",
    white: "hvid",
    black: "sort",
    and: "og",
};
const NB: Lexicon = Lexicon {
    captures: "slår",
    check: "sjakk",
    mate: "sjakkmatt",
    en_passant: "en passant",
    white: "hvit",
    black: "svart",
    and: "og",
};
const DE: Lexicon = Lexicon {
    captures: "schlägt",
    check: "Schach",
    mate: "Schachmatt",
    en_passant: "en passant",
    white: "Weiß",
    black: "Schwarz",
    and: "und",
};
const EN: Lexicon = Lexicon {
    captures: "takes",
    check: "check",
    mate: "checkmate",
    en_passant: "en passant",
    white: "White",
    black: "Black",
    and: "and",
};

/// E2.1 Danish list, primary names.
const FILES_DA: [&str; 8] = [
    "Anna", "Bodil", "Cecilie", "Dora", "Erik", "Frederik", "Gustav", "Henrik",
];
/// E2.1 Danish list, the alternatives in brackets.
const FILES_DA_ALT: [&str; 8] = [
    "Anna", "Bella", "Cesar", "David", "Eva", "Felix", "Gustav", "Hector",
];
/// E2.1 Norwegian list (Cæsar with æ).
const FILES_NB: [&str; 8] = [
    "Anna", "Bella", "Cæsar", "David", "Eva", "Felix", "Gustav", "Hector",
];
/// The FIDE (English) text's list (2009 E2.1, 2023 D.2.1).
const FILES_FIDE: [&str; 8] = [
    "Anna", "Bella", "Cesar", "David", "Eva", "Felix", "Gustav", "Hector",
];

const RANKS_DE: [&str; 8] = [
    "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht",
];
const RANKS_DA: [&str; 8] = ["et", "to", "tre", "fire", "fem", "seks", "syv", "otte"];
/// Our addition: the Norwegian text lists no Norwegian rank words (digest §4 ⚠).
const RANKS_NB: [&str; 8] = ["en", "to", "tre", "fire", "fem", "seks", "sju", "åtte"];
/// Our addition.
const RANKS_EN: [&str; 8] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight",
];

/// Pieces in the order pawn, knight, bishop, rook, queen, king.
const PIECES_DE: [&str; 6] = ["Bauer", "Springer", "Läufer", "Turm", "Dame", "König"];
const PIECES_DA: [&str; 6] = ["bonde", "springer", "løber", "tårn", "dronning", "konge"];
/// Seed 003, C3 and the body text.
const PIECES_NB: [&str; 6] = ["bonde", "springer", "løper", "tårn", "dronning", "konge"];
const PIECES_EN: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

/// (short, long) castling.
const CASTLE_DE: (&str, &str) = ("Kurze Rochade", "Lange Rochade");
const CASTLE_DA: (&str, &str) = ("kort rokade", "lang rokade");
const CASTLE_EN: (&str, &str) = ("short castling", "long castling");

/// The words of one announcement profile: a language under an edition with
/// the options applied. Built once per game.
#[derive(Clone)]
pub struct Vocabulary {
    lang: Lang,
    edition: Edition,
    options: VoiceOptions,
    files: &'static [&'static str; 8],
    ranks: &'static [&'static str; 8],
    pieces: &'static [&'static str; 6],
    castle: (&'static str, &'static str),
    lex: &'static Lexicon,
}

impl fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vocabulary")
            .field("lang", &self.lang)
            .field("edition", &self.edition)
            .field("options", &self.options)
            .finish()
    }
}

impl Vocabulary {
    /// The vocabulary of `lang` under `edition`, with `options`.
    ///
    /// Defaults (E2.1; D51–D54):
    /// - `da`: the Danish list (Anna, Bodil, Cecilie …), Danish ranks and
    ///   pieces, "kort/lang rokade". German words are an option. The Danish
    ///   list is the DSU's national adaptation; it is kept under fide-2023
    ///   too (D.1 lets the organiser adapt the rules).
    /// - `nb`: the Norwegian list (Anna, Bella, Cæsar …), German ranks and
    ///   pieces, "Kurze/Lange Rochade", as 2009-NO E2.1 "skal" requires;
    ///   [`VoiceOptions::scandinavian`] switches to Norwegian words.
    /// - `de`: the FIDE list, German words (national = German).
    /// - `en`: the FIDE list with German ranks and pieces as the English
    ///   FIDE text has them; national = English words (our addition).
    pub fn new(lang: Lang, edition: Edition, options: VoiceOptions) -> Vocabulary {
        let (default_words, lex) = match lang {
            Lang::Da => (Words::National, &DA),
            Lang::Nb => (Words::German, &NB),
            Lang::De => (Words::German, &DE),
            Lang::En => (Words::German, &EN),
        };
        let files = match lang {
            Lang::Da if options.alternative_files => &FILES_DA_ALT,
            Lang::Da => &FILES_DA,
            Lang::Nb => &FILES_NB,
            Lang::De | Lang::En => &FILES_FIDE,
        };
        let national_ranks = match lang {
            Lang::Da => &RANKS_DA,
            Lang::Nb => &RANKS_NB,
            Lang::De => &RANKS_DE,
            Lang::En => &RANKS_EN,
        };
        let (national_pieces, national_castle) = match lang {
            Lang::Da => (&PIECES_DA, CASTLE_DA),
            Lang::Nb => (&PIECES_NB, CASTLE_DA),
            Lang::De => (&PIECES_DE, CASTLE_DE),
            Lang::En => (&PIECES_EN, CASTLE_EN),
        };
        let ranks = match options.ranks.unwrap_or(default_words) {
            Words::National => national_ranks,
            Words::German => &RANKS_DE,
        };
        let (pieces, castle) = match options.pieces.unwrap_or(default_words) {
            Words::National => (national_pieces, national_castle),
            Words::German => (&PIECES_DE, CASTLE_DE),
        };
        Vocabulary {
            lang,
            edition,
            options,
            files,
            ranks,
            pieces,
            castle,
            lex,
        }
    }

    /// The language.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The edition.
    pub fn edition(&self) -> Edition {
        self.edition
    }

    /// The options given.
    pub fn options(&self) -> VoiceOptions {
        self.options
    }

    /// Whether the edition makes the names binding: 2009-NO E2.1 "skal
    /// brukes" (D51); the Danish and FIDE texts recommend or suggest them.
    pub fn names_mandatory(&self) -> bool {
        self.edition == Edition::Fide2009No
    }

    /// The name of a file (E2.1), e.g. `Frederik`.
    pub fn file(&self, f: File) -> &'static str {
        self.files[f.to_usize()]
    }

    /// The number of a rank, counted from White (E2.1), e.g. `tre`.
    pub fn rank(&self, r: Rank) -> &'static str {
        self.ranks[r.to_usize()]
    }

    /// A square as said: file name and rank number, e.g. `Frederik tre`.
    pub fn square(&self, sq: Square) -> String {
        format!("{} {}", self.file(sq.file()), self.rank(sq.rank()))
    }

    /// A piece name (E2.1), e.g. `springer`.
    pub fn piece(&self, role: Role) -> &'static str {
        self.pieces[match role {
            Role::Pawn => 0,
            Role::Knight => 1,
            Role::Bishop => 2,
            Role::Rook => 3,
            Role::Queen => 4,
            Role::King => 5,
        }]
    }

    /// The castling words (E2.1), e.g. `kort rokade`.
    pub fn castling(&self, side: CastlingSide) -> &'static str {
        match side {
            CastlingSide::KingSide => self.castle.0,
            CastlingSide::QueenSide => self.castle.1,
        }
    }

    /// "White" or "black" in the language, as written mid-sentence.
    pub fn colour(&self, c: Color) -> &'static str {
        match c {
            Color::White => self.lex.white,
            Color::Black => self.lex.black,
        }
    }

    /// Joins `items` with commas and the language's "and" before the last.
    fn list(&self, items: &[String]) -> String {
        match items {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} {} {last}", init.join(", "), self.lex.and),
        }
    }
}

/// Upper-cases the first letter (phrases start a sentence).
fn sentence(mut s: String) -> String {
    if let Some(c) = s.chars().next() {
        if c.is_lowercase() {
            let upper: String = c.to_uppercase().collect();
            s.replace_range(..c.len_utf8(), &upper);
        }
    }
    s
}

/// The words of a move, not capitalised (check or mate only for a legal `mv`).
fn move_words(pos: &Chess, mv: &Move, voc: &Vocabulary) -> String {
    let mut out = String::with_capacity(48);
    match *mv {
        Move::Castle { king, rook } => {
            let side = if rook.file() > king.file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            out.push_str(voc.castling(side));
        }
        Move::Normal { .. } | Move::EnPassant { .. } | Move::Put { .. } => {
            out.push_str(voc.piece(mv.role()));
            let (file, rank, capture, promotion) = match San::from_move(pos, *mv) {
                San::Normal {
                    file,
                    rank,
                    capture,
                    promotion,
                    ..
                } => (file, rank, capture, promotion),
                _ => (None, None, mv.is_capture(), mv.promotion()),
            };
            match (voc.options.from_square, mv.from()) {
                (true, Some(from)) => {
                    out.push(' ');
                    out.push_str(&voc.square(from));
                }
                _ => {
                    if let Some(f) = file {
                        out.push(' ');
                        out.push_str(voc.file(f));
                    }
                    if let Some(r) = rank {
                        out.push(' ');
                        out.push_str(voc.rank(r));
                    }
                }
            }
            if capture {
                out.push(' ');
                out.push_str(voc.lex.captures);
            }
            out.push(' ');
            out.push_str(&voc.square(mv.to()));
            if mv.is_en_passant() {
                out.push(' ');
                out.push_str(voc.lex.en_passant);
            }
            if let Some(p) = promotion {
                out.push(' ');
                out.push_str(voc.piece(p));
            }
        }
    }
    if pos.is_legal(*mv) {
        let mut after = pos.clone();
        after.play_unchecked(*mv);
        if after.is_checkmate() {
            out.push_str(", ");
            out.push_str(voc.lex.mate);
        } else if after.is_check() {
            out.push_str(", ");
            out.push_str(voc.lex.check);
        }
    }
    out
}

/// The announcement of `mv` played in `pos_before` (E2.1): e.g. Danish
/// `Springer Frederik tre` (Nf3), `Bonde Erik slår Dora fem` (exd5),
/// `Bonde Erik otte dronning, skak` (e8=Q+), `Kort rokade`; Norwegian
/// default `Springer Felix drei`.
///
/// Check and mate are appended after a comma. An illegal `mv` is still
/// described (without check or mate); it never panics.
pub fn move_phrase(pos_before: &Chess, mv: &Move, voc: &Vocabulary) -> String {
    sentence(move_words(pos_before, mv, voc))
}

/// What is wrong with a move given in SAN.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SanInputError {
    /// Not written as standard algebraic notation.
    #[error("{0}: not a move in standard algebraic notation (e.g. Nf3, exd5, O-O, e8=Q)")]
    NotSan(String),
    /// Well formed, but no legal move in the position matches.
    #[error("{san}: illegal in the position ({side} to move)")]
    Illegal {
        /// The move as given.
        san: String,
        /// `white` or `black`.
        side: &'static str,
    },
    /// Several legal moves match.
    #[error("{0}: ambiguous in the position (name the departure file or rank)")]
    Ambiguous(String),
}

/// The legal move `san` (English letters, as PGN; `0-0` also accepted)
/// denotes in `pos`.
pub fn san_to_move(pos: &Chess, san: &str) -> Result<Move, SanInputError> {
    let text = san.trim().replace('0', "O");
    let parsed: San = text
        .parse()
        .map_err(|_| SanInputError::NotSan(san.to_owned()))?;
    parsed.to_move(pos).map_err(|e| match e {
        SanError::IllegalSan => SanInputError::Illegal {
            san: san.to_owned(),
            side: if pos.turn().is_white() {
                "white"
            } else {
                "black"
            },
        },
        SanError::AmbiguousSan => SanInputError::Ambiguous(san.to_owned()),
    })
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
/// over") and why (`None`: not said), e.g. `Hvid vinder, skakmat` (articles
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
        EndReason::Checkmate => Some(["skakmat", "sjakkmatt", "Schachmatt", "checkmate"]),
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
        | EndReason::InsufficientLosingChances => None,
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
/// is the side to move there), e.g. `Sidste træk, sort: springer Frederik
/// seks`. `None` (no move yet) says so.
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
    sentence(format!("{head}, {c}: {}", move_words(pos, mv, voc)))
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

#[cfg(test)]
mod tests;
