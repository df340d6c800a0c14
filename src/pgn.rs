//! PGN input: games with their tags, the main line's moves (SAN as written,
//! with the `[%clk h:mm:ss]` clock of each move) and the result.
//!
//! Parsing is done by `pgn-reader`; every game's moves are then played with
//! shakmaty from the initial position or the `FEN` tag, so a game returned
//! here is legal standard chess. Variations are skipped. A game that cannot
//! be played (an illegal or null move, UCI movetext, a bad FEN, a variant)
//! is an error naming the game (1-based) and the ply (1-based), never a panic.
//!
//! Depends on nothing of the product: it is at the bottom of
//! docs/dev/architecture.md's map. It must not depend on `sim` or `arbiter`
//! (which read games through it), on `broadcast` (PGN output is
//! `broadcast::pgn`) or on any other module.

use pgn_reader::{Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, KnownOutcome, Position};
use std::fmt;
use std::ops::ControlFlow;

/// One game of a PGN file: the main line only.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PgnGame {
    /// The tag pairs in file order (`("White", "Larsen, Bent")`).
    pub tags: Vec<(String, String)>,
    /// The main line's moves, first ply first.
    pub moves: Vec<PgnMove>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`: the movetext's termination marker,
    /// else the `Result` tag, else `*`.
    pub result: String,
}

/// One ply of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnMove {
    /// Standard algebraic notation as in the file, with its `+`/`#` suffix
    /// (castling written `O-O`, `O-O-O`).
    pub san: String,
    /// The mover's remaining time in ms after this move, from a
    /// `[%clk h:mm:ss(.f)]` comment following the move.
    pub clk_ms: Option<u64>,
}

impl PgnGame {
    /// The value of the first tag called `name` (case-sensitive, as PGN tags are).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The start position: the `FEN` tag if present, else the initial position.
    /// Errors (without game number, `game` = 0) for a non-standard `Variant`
    /// or an unusable FEN.
    pub fn start_position(&self) -> Result<Chess, PgnError> {
        start_position(self, 0)
    }
}

/// A game that could not be read: the 1-based game number in the file, the
/// 1-based ply when a move is at fault, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game}{}: {message}", ply_suffix(*.ply))]
pub struct PgnError {
    /// 1-based number of the game in the file.
    pub game: usize,
    /// 1-based ply of the failing move, if a move is at fault.
    pub ply: Option<usize>,
    /// What is wrong.
    pub message: String,
}

fn ply_suffix(ply: Option<usize>) -> String {
    ply.map(|p| format!(", ply {p}")).unwrap_or_default()
}

/// Reads every game of a PGN text (a UTF-8 byte order mark and blank lines
/// inside tag sections are accepted). The first bad game is an error.
pub fn read_games(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    let (games, errors) = read_impl(text, true);
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(games),
    }
}

/// Reads every game of a PGN text, keeping the good games and returning the
/// errors of the bad ones (game numbers count all games of the file).
pub fn read_games_lenient(text: &str) -> (Vec<PgnGame>, Vec<PgnError>) {
    read_impl(text, false)
}

fn read_impl(text: &str, stop_at_error: bool) -> (Vec<PgnGame>, Vec<PgnError>) {
    let mut reader = Reader::new(text.as_bytes());
    let mut visitor = Collector;
    let mut games = Vec::new();
    let mut errors = Vec::new();
    let mut number = 0usize;
    loop {
        let raw = match reader.read_game(&mut visitor) {
            Ok(Some(raw)) => raw,
            Ok(None) => break,
            Err(e) => {
                // A syntax error the reader cannot recover from: stop here.
                errors.push(PgnError {
                    game: number + 1,
                    ply: None,
                    message: format!("unreadable PGN: {e}"),
                });
                break;
            }
        };
        number += 1;
        match finish_game(raw, number) {
            Ok(g) => games.push(g),
            Err(e) => {
                errors.push(e);
                if stop_at_error {
                    break;
                }
            }
        }
    }
    (games, errors)
}

/// What the visitor collects before the moves are checked.
struct RawGame {
    tags: Vec<(String, String)>,
    moves: Vec<(SanPlus, Option<u64>)>,
    outcome: Option<Outcome>,
}

struct Collector;

impl Visitor for Collector {
    type Tags = Vec<(String, String)>;
    type Movetext = RawGame;
    type Output = RawGame;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(RawGame {
            tags,
            moves: Vec::new(),
            outcome: None,
        })
    }

    fn san(&mut self, movetext: &mut RawGame, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        movetext.moves.push((san_plus, None));
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        movetext: &mut RawGame,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        if let (Some(ms), Some(last)) = (parse_clk(comment.as_bytes()), movetext.moves.last_mut()) {
            last.1 = Some(ms);
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, movetext: &mut RawGame, outcome: Outcome) -> ControlFlow<Self::Output> {
        movetext.outcome = Some(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: RawGame) -> Self::Output {
        movetext
    }
}

/// The `[%clk h:mm:ss(.f)]` value of a comment in ms (also `mm:ss`).
pub fn parse_clk(comment: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(comment);
    let start = text.find("[%clk")? + "[%clk".len();
    let rest = text[start..].trim_start();
    let end = rest.find(']')?;
    parse_clock_value(rest[..end].trim())
}

/// `h:mm:ss(.f)` or `mm:ss(.f)` in ms.
fn parse_clock_value(s: &str) -> Option<u64> {
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, f),
        None => (s, ""),
    };
    let parts: Vec<&str> = whole.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return None;
    }
    let mut secs: u64 = 0;
    for p in &parts {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        secs = secs.checked_mul(60)?.checked_add(p.parse::<u64>().ok()?)?;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut ms_frac = 0u64;
    let mut scale = 100u64;
    for b in frac.bytes().take(3) {
        ms_frac += u64::from(b - b'0') * scale;
        scale /= 10;
    }
    secs.checked_mul(1000)?.checked_add(ms_frac)
}

fn outcome_text(o: &Outcome) -> &'static str {
    match o {
        Outcome::Known(KnownOutcome::Decisive { winner }) => {
            if winner.is_white() {
                "1-0"
            } else {
                "0-1"
            }
        }
        Outcome::Known(KnownOutcome::Draw) => "1/2-1/2",
        Outcome::Unknown => "*",
    }
}

fn start_position(game: &PgnGame, number: usize) -> Result<Chess, PgnError> {
    let err = |message: String| PgnError {
        game: number,
        ply: None,
        message,
    };
    if let Some(v) = game.tag("Variant") {
        let lower = v.to_ascii_lowercase();
        if !matches!(
            lower.as_str(),
            "" | "standard" | "chess" | "normal" | "from position"
        ) {
            return Err(err(format!(
                "variant '{v}' is not supported (standard chess only)"
            )));
        }
    }
    match game.tag("FEN") {
        None => Ok(Chess::default()),
        Some(fen) => {
            let parsed = Fen::from_ascii(fen.trim().as_bytes())
                .map_err(|e| err(format!("bad FEN tag '{fen}': {e}")))?;
            parsed
                .into_position::<Chess>(CastlingMode::Standard)
                .map_err(|e| err(format!("FEN tag '{fen}' is not a legal position: {e}")))
        }
    }
}

/// Checks the moves by playing them and builds the game.
fn finish_game(raw: RawGame, number: usize) -> Result<PgnGame, PgnError> {
    let result = match &raw.outcome {
        Some(o) => outcome_text(o).to_owned(),
        None => raw
            .tags
            .iter()
            .find(|(k, _)| k == "Result")
            .map(|(_, v)| v.trim())
            .filter(|v| matches!(*v, "1-0" | "0-1" | "1/2-1/2" | "*"))
            .unwrap_or("*")
            .to_owned(),
    };
    let mut game = PgnGame {
        tags: raw.tags,
        moves: Vec::with_capacity(raw.moves.len()),
        result,
    };
    let mut pos = start_position(&game, number)?;
    for (i, (san_plus, clk_ms)) in raw.moves.into_iter().enumerate() {
        let text = san_plus.to_string();
        let m = san_plus.san.to_move(&pos).map_err(|e| PgnError {
            game: number,
            ply: Some(i + 1),
            message: if matches!(san_plus.san, shakmaty::san::San::Null) {
                format!("null move '{text}' is not supported")
            } else {
                format!("illegal SAN '{text}' ({e})")
            },
        })?;
        pos.play_unchecked(m);
        game.moves.push(PgnMove { san: text, clk_ms });
    }
    Ok(game)
}

impl fmt::Display for PgnMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.san)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const DIR: &str = "/work/shared/data/pgn";

    fn read(name: &str) -> Option<String> {
        let p = Path::new(DIR).join(name);
        match std::fs::read(&p) {
            Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
            Err(e) => {
                eprintln!("skipping: {} not readable ({e})", p.display());
                None
            }
        }
    }

    #[test]
    fn clock_comments() {
        assert_eq!(parse_clk(b" [%clk 0:05:00] "), Some(300_000));
        assert_eq!(parse_clk(b"[%clk 1:30:02.5]"), Some(5_402_500));
        assert_eq!(parse_clk(b"[%eval 0.3] [%clk 0:00:07.25]"), Some(7_250));
        assert_eq!(parse_clk(b"[%clk 12:34]"), Some(754_000));
        assert_eq!(parse_clk(b"[%clk x]"), None);
        assert_eq!(parse_clk(b"nothing"), None);
    }

    #[test]
    fn small_game_with_clocks_bom_and_blank_tag_lines() {
        let text = "\u{feff}[Event \"T\"]\n\n[White \"A\"]\n[Result \"1-0\"]\n\n\
            1. e4 { [%clk 0:05:00] } 1... e5 { [%clk 0:04:58.5] } 2. Qh5 (2. Nf3 Nc6) Nc6 \
            3. Bc4 Nf6 4. Qxf7# 1-0\n";
        let games = read_games(text).unwrap();
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.tag("White"), Some("A"));
        assert_eq!(g.tag("Event"), Some("T"));
        assert_eq!(g.result, "1-0");
        let sans: Vec<&str> = g.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]);
        assert_eq!(g.moves[0].clk_ms, Some(300_000));
        assert_eq!(g.moves[1].clk_ms, Some(298_500));
        assert_eq!(g.moves[2].clk_ms, None);
    }

    #[test]
    fn errors_name_game_and_ply() {
        let text = "[Event \"1\"]\n\n1. e4 e5 *\n\n[Event \"2\"]\n\n1. e4 e5 2. Ke3 *\n\n\
            [Event \"3\"]\n\n1. d4 *\n";
        let e = read_games(text).unwrap_err();
        assert_eq!((e.game, e.ply), (2, Some(3)));
        assert!(
            e.to_string()
                .starts_with("game 2, ply 3: illegal SAN 'Ke3'"),
            "{e}"
        );
        let (good, bad) = read_games_lenient(text);
        assert_eq!(good.len(), 2);
        assert_eq!(bad.len(), 1);
        assert_eq!(good[1].tag("Event"), Some("3"));
    }

    #[test]
    fn fen_tag_and_variants() {
        let text = "[FEN \"4k3/P7/8/8/8/8/8/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. a8=Q+ Kd7 *\n\n\
            [Variant \"Chess960\"]\n[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\n9. g3 *\n";
        let (good, bad) = read_games_lenient(text);
        assert_eq!(good.len(), 1);
        assert_eq!(good[0].moves[0].san, "a8=Q+");
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].game, 2);
        assert!(bad[0].message.contains("Chess960"), "{}", bad[0]);
    }

    #[test]
    fn the_big_files_parse() {
        for (name, count) in [
            ("lichess_db_2025-05_438games.pgn", Some(438)),
            ("twic1599_1110games.pgn", Some(1110)),
            ("engine_threefold_188games.pgn", Some(188)),
            ("edge_cases.pgn", None),
        ] {
            let Some(text) = read(name) else { continue };
            let games = read_games(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            if let Some(n) = count {
                assert_eq!(games.len(), n, "{name}");
            }
            assert!(!games.is_empty(), "{name}");
        }
    }

    #[test]
    fn python_chess_fixtures_give_errors_not_panics() {
        for name in ["uci-moves.pgn", "anastasian-lewis.pgn"] {
            let Some(text) = read(&format!("python-chess/{name}")) else {
                continue;
            };
            let e = read_games(&text).expect_err(name);
            assert_eq!(e.game, 1, "{name}: {e}");
            assert!(e.ply.is_some(), "{name}: {e}");
            eprintln!("{name}: {e}");
        }
        // The others must not panic, whatever they contain.
        let dir = Path::new(DIR).join("python-chess");
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                if let Ok(bytes) = std::fs::read(entry.path()) {
                    let _ = read_games_lenient(&String::from_utf8_lossy(&bytes));
                }
            }
        }
        if let Some(text) = read("python-chess/utf8-bom.pgn") {
            let games = read_games(&text).unwrap();
            assert!(games.len() >= 2);
            assert_eq!(games[0].tag("Event"), Some("A"));
        }
        if let Some(text) = read("python-chess/chessbase-empty-line.pgn") {
            let games = read_games(&text).unwrap();
            assert_eq!(games[0].tag("Black"), Some("AlphaZero"));
            assert_eq!(games[0].result, "0-1");
        }
    }
}
