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
//!
//! Depends on `model` and `rules` (the edition's appendix) only; never on
//! `arbiter`, `controller` (which words the arbiter's announcements with
//! it), `config`, `broadcast`, `server` or `app` (docs/dev/architecture.md).

mod copies;
mod durations;
pub mod output;
mod phrases;
mod queries;
mod rulings;
mod ssml;
pub mod tts;

use crate::rules::Edition;
use shakmaty::san::{San, SanError};
use shakmaty::{CastlingSide, Chess, Color, File, Move, Position, Rank, Role, Square};
use std::fmt;

pub use crate::model::Lang;
pub use copies::board_differs_phrase;
pub use phrases::{
    boards_differ_phrase, clocks_phrase, draw_offer_phrase, duration_phrase, game_end_phrase,
    last_move_phrase, moves_made_phrase, pairing_phrase, piece_squares_phrase, pieces_on_phrase,
    setup_phrase, time_phrase,
};
pub use queries::{
    draw_offer_query_phrase, one_clock_phrase, position_by_rank_phrase, position_phrase,
    promotion_piece_question_phrase, time_used_phrase, turn_phrase,
};
pub use rulings::{
    ambiguous_move_phrase, claim_kind_words, claim_phrase, clock_paused_phrase,
    draw_claimable_phrase, draw_offer_end_phrase, flag_phrase, illegal_move_phrase,
    increment_introduced_phrase, irregularity_phrase, nothing_to_repeat_phrase, penalty_words,
    position_restored_phrase, promotion_question_phrase, touch_move_phrase,
};
pub use ssml::{escape as xml_escape, Segment};

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

impl VoiceOptions {
    /// The options of a game's word choice (the header's or config's
    /// `words`): `appendix` the defaults, `national` the language's own
    /// words ([`VoiceOptions::scandinavian`]), `german` the German words.
    pub fn from_choice(choice: crate::model::WordChoice) -> VoiceOptions {
        use crate::model::WordChoice;
        match choice {
            WordChoice::Appendix => VoiceOptions::default(),
            WordChoice::National => VoiceOptions::scandinavian(),
            WordChoice::German => VoiceOptions {
                ranks: Some(Words::German),
                pieces: Some(Words::German),
                ..VoiceOptions::default()
            },
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
    /// "from" and "to" of a move said with its departure (a stutter-free
    /// C10 disambiguation, the last move on demand).
    from: &'static str,
    to: &'static str,
}

const DA: Lexicon = Lexicon {
    captures: "slår",
    check: "skak",
    // Seed 002, Appendix C13: "++ eller # mat".
    mate: "mat",
    en_passant: "en passant",
    white: "hvid",
    black: "sort",
    and: "og",
    from: "fra",
    to: "til",
};
const NB: Lexicon = Lexicon {
    captures: "slår",
    check: "sjakk",
    // Seed 003, Appendix C13: "++ eller # = matt".
    mate: "matt",
    en_passant: "en passant",
    white: "hvit",
    black: "svart",
    and: "og",
    from: "fra",
    to: "til",
};
const DE: Lexicon = Lexicon {
    captures: "schlägt",
    check: "Schach",
    mate: "Schachmatt",
    en_passant: "en passant",
    white: "Weiß",
    black: "Schwarz",
    and: "und",
    from: "von",
    to: "nach",
};
const EN: Lexicon = Lexicon {
    captures: "takes",
    check: "check",
    mate: "checkmate",
    en_passant: "en passant",
    white: "White",
    black: "Black",
    and: "and",
    from: "from",
    to: "to",
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
/// The German text's list (Anhang F2.1 / E2.1 as the DSB and the DBSB
/// publish it: "A-Anna B-Bella C-Cäsar D-David E-Eva F-Felix G-Gustav
/// H-Hector"; Cäsar with ä, Hector with c, see `docs/voice.md`).
const FILES_DE: [&str; 8] = [
    "Anna", "Bella", "Cäsar", "David", "Eva", "Felix", "Gustav", "Hector",
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
    /// - `de`: the German text's list (Anna, Bella, Cäsar … Hector), German
    ///   words (national = German).
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
            Lang::De => &FILES_DE,
            Lang::En => &FILES_FIDE,
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
                // C10's departure file said before the same file's square
                // would stutter ("Tårn Cecilie Cecilie tre"): said with
                // "from … to" instead ("Tårn fra Cecilie til Cecilie tre").
                _ if file == Some(mv.to().file()) && rank.is_none() && !capture => {
                    out.push(' ');
                    out.push_str(voc.lex.from);
                    out.push(' ');
                    out.push_str(voc.file(mv.to().file()));
                    out.push(' ');
                    out.push_str(voc.lex.to);
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
    push_check_or_mate(&mut out, pos, mv, voc);
    out
}

/// Appends ", check" or ", mate" (in `voc`'s words) to `out` when the legal
/// `mv` played in `pos` gives it; nothing for an illegal `mv`.
fn push_check_or_mate(out: &mut String, pos: &Chess, mv: &Move, voc: &Vocabulary) {
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

/// espeak-ng's default speed, words per minute (`-s`).
pub const DEFAULT_WPM: u32 = 175;

/// How long espeak-ng takes to say `text` (spoken as `voc` speaks it: its
/// German words with the German voice) at `wpm` words per minute, ms,
/// including the silence espeak-ng puts around it. Each word's length alone
/// at that speed (tables per language measured from espeak-ng 1.51 at 80 to
/// 450 wpm and interpolated between, `voice::durations`; a word not in them
/// from its letters), with per-language coefficients for the words'
/// joining, the pauses at punctuation and the voice switches, fitted to the
/// real length of real announcements: within 15 % of espeak-ng's audio on
/// held-out announcements (other games, other rulings) in da, nb, de and en
/// at 120, 175 and 300 wpm (`tests/voice_duration.rs`, `docs/voice.md`). A
/// replay without the speaker's `spoken` records times E2.3c with it.
pub fn speech_ms_estimate(text: &str, voc: &Vocabulary, wpm: u32) -> u64 {
    speech_ms_estimate_knowing(text, voc, wpm, &|_| true)
}

/// [`speech_ms_estimate`] as if only the words `known` (lower case) had
/// been measured: every other word is estimated from its letters, as a
/// word not in the table is. For the held-out test of the estimate
/// (`tests/voice_duration.rs`: the words first met in the held-out phrases
/// count as new); ms as [`speech_ms_estimate`].
pub fn speech_ms_estimate_knowing(
    text: &str,
    voc: &Vocabulary,
    wpm: u32,
    known: &dyn Fn(&str) -> bool,
) -> u64 {
    let fit = |lang: Lang| match lang {
        Lang::Da => &durations::DA,
        Lang::Nb => &durations::NB,
        Lang::De => &durations::DE,
        Lang::En => &durations::EN,
    };
    let own = fit(voc.lang());
    let segments = voc.segments(text);
    let (mut alone, mut words) = (0.0f64, 0.0f64);
    for seg in &segments {
        let table = fit(seg.lang);
        for w in seg
            .text
            .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\'' || c == '_'))
            .filter(|w| !w.is_empty())
        {
            alone += table.alone(&w.to_lowercase(), wpm, known);
            words += 1.0;
        }
    }
    let pauses = text.chars().filter(|c| ",.:;?".contains(*c)).count() as f64;
    let switches = segments.len().saturating_sub(1) as f64;
    let s = f64::from(DEFAULT_WPM) / f64::from(wpm.max(1));
    let c = &own.c;
    let ms = c[0]
        + c[1] * alone
        + c[6] * words
        + s * (c[2] * words + c[3] * pauses + c[4] * switches + c[5]);
    ms.max(0.0).round() as u64
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

#[cfg(test)]
mod tests;
