//! The game in PGN (export format: the Seven Tag Roster, `TimeControl`,
//! `[%clk h:mm:ss]` after every move when a clock ran), with the extra tags
//! and comments a live broadcast adds ([`PgnExtras`]).
//!
//! `TimeControl` is written as the PGN standard (§9.6.1) and its readers
//! take it ([`standard_time_control`]): whole seconds, `moves/seconds` and
//! `seconds+increment` periods joined by `:`. python-chess
//! (`chess.pgn.parse_time_control`) reads every such tag; lila
//! (`Clock.readPgnConfig`: one `init+inc`) reads a one-period tag and
//! takes no clock from a multi-period one (the game is still taken). A
//! delay (US or Bronstein) has no standard form: the standard tag then
//! carries the periods without it, and eboard's own tag
//! `EboardTimeControl` carries the whole control as eboard writes it
//! (`5400d5`, `@base`), only when it differs.
//!
//! After an illegal move that stood (rapid and blitz without a claim) no
//! reader can follow the moves from the start: the record then starts at
//! the position after it (`SetUp`, `FEN`), its moves legal from there, and
//! a first comment gives the ruling and the moves before it.

use crate::arbiter::Arbiter;
use crate::clock::{fmt_hms, TimeControl};
use crate::model::{EndReason, Score};
use shakmaty::fen::Fen;
use shakmaty::{Color, EnPassantMode, Position};

/// `v` as a tag value (a string token) holds it, between its quotes: a
/// backslash and a quote escaped with a backslash, and every control
/// character ([`crate::model::text::is_control`]) written as a space,
/// since "non-printing characters like newline and tab are not permitted
/// inside of strings" (the PGN standard, 1994-03-12, §7 "Tokens"; tag
/// pairs §8.1, the Seven Tag Roster §8.1.1). A name with a newline then
/// stays one tag and never forges another tag or game (issue 41). The
/// inputs refuse such names already; this is the writer's own guard.
pub fn tag_value(v: &str) -> String {
    crate::model::text::replace_controls(v, ' ')
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

/// `text` as a brace comment `{…}` holds it: a `}` (which would end the
/// comment, the PGN standard §5: brace comments do not nest and end at
/// the first `}`) written as `)`, and every control character as a space
/// (a comment is one token of the movetext's lines; a newline in it could
/// start a line with `%`, the standard's §6 escape, or a forged tag).
pub fn comment_text(text: &str) -> String {
    crate::model::text::replace_controls(text, ' ').replace('}', ")")
}

/// What a live broadcast adds to the game record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgnExtras {
    /// Replaces the header's `Round` (a broadcast writes `round.board`).
    pub round: Option<String>,
    /// Tags after the roster and `TimeControl` (`WhiteFideId`, `WhiteTitle`,
    /// `WhiteClock`, ...), in order.
    pub tags: Vec<(String, String)>,
    /// Comments placed after the given number of completed moves (0: before
    /// the first move), in order; `}` and control characters are replaced
    /// since PGN comments cannot hold them ([`comment_text`]).
    pub comments: Vec<(usize, String)>,
}

/// The game as PGN (one game, export format, lines of at most 80 characters).
pub fn write_pgn(game: &Arbiter) -> String {
    write_pgn_with(game, &PgnExtras::default())
}

/// The game as PGN with a broadcast's extra tags and comments (built whole;
/// a live feed builds the same text move by move, [`super::pgn_live`]).
pub fn write_pgn_with(game: &Arbiter, extras: &PgnExtras) -> String {
    let shape = Shape::of(game);
    let mut out = String::new();
    write_header(game, extras, &shape, &mut out);
    let mut tokens: Vec<String> = Vec::new();
    if let Some(before) = before_token(game, extras, &shape) {
        tokens.push(before);
    }
    let moves = game.moves();
    let mut stood: Option<String> = None;
    for (i, m) in moves.iter().enumerate().skip(shape.first) {
        if let Some(text) = stood.as_mut() {
            // Another illegal move that stood after the one the record
            // starts from cannot be: the record starts after the last.
            text.push(' ');
            text.push_str(&m.san);
            continue;
        }
        if m.illegal {
            stood = Some(stood_text(m));
            continue;
        }
        move_tokens(&shape, i, m, extras, &mut tokens);
    }
    let mut wrap = Wrap::default();
    for tok in tokens {
        wrap.push(&tok, &mut out);
    }
    finish(&shape, stood, &mut wrap, &mut out);
    out
}

/// Where the record starts and what its result is.
pub(super) struct Shape<'a> {
    /// The `Result` tag's value (`0-0` for a double forfeit).
    pub result: &'a str,
    /// The movetext's termination marker: the result, but `*` for a double
    /// forfeit, since a `0-0` there is read as castling (python-chess,
    /// scalachess's parser), and the PGN standard (§8.2.6) has no `0-0`
    /// (`docs/console.md`, "Double forfeit").
    pub termination: &'a str,
    /// What a `0-0` means, said before the movetext's `*`: a double
    /// forfeit, or a game the arbiter declared lost by both (2023 11.8).
    pub both_lost: &'static str,
    /// The last illegal move that stood, when the record starts after it.
    pub stood_at: Option<usize>,
    /// The first move of the record (index into the moves).
    pub first: usize,
    /// The record's starting position.
    pub start: &'a shakmaty::Chess,
    start_black: bool,
    first_no: u32,
}

impl<'a> Shape<'a> {
    pub(super) fn of(game: &'a Arbiter) -> Shape<'a> {
        Shape::with_last_illegal(game, game.moves().iter().rposition(|m| m.illegal))
    }

    /// [`Shape::of`] given the index of the last illegal move of `game`'s
    /// moves (the live PGN keeps it: the moves are not searched again at
    /// every update, issue 28).
    pub(super) fn with_last_illegal(game: &'a Arbiter, last_illegal: Option<usize>) -> Shape<'a> {
        let cfg = game.config();
        let moves = game.moves();
        // After an illegal move that stood the record starts after it.
        let stood_at = last_illegal.filter(|_| game.positions().len() == moves.len() + 1);
        let start = match stood_at {
            Some(k) => &game.positions()[k + 1],
            None => &cfg.start,
        };
        let result = game.outcome().map_or("*", |o| o.result.as_str());
        Shape {
            result,
            termination: if result == Score::BothLost.as_str() {
                "*"
            } else {
                result
            },
            both_lost: if game.confirmation().is_some_and(|c| !c.forfeit) {
                BOTH_LOST_COMMENT
            } else {
                DOUBLE_FORFEIT_COMMENT
            },
            stood_at,
            first: stood_at.map_or(0, |k| k + 1),
            start,
            start_black: start.turn() == Color::Black,
            first_no: start.fullmoves().get(),
        }
    }
}

/// The tag section and the empty line after it.
pub(super) fn write_header(game: &Arbiter, extras: &PgnExtras, shape: &Shape, out: &mut String) {
    let cfg = game.config();
    let h = &cfg.header;
    let or_q = |v: &Option<String>| {
        v.clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "?".into())
    };
    let mut tags: Vec<(&str, String)> = vec![
        ("Event", or_q(&h.event)),
        ("Site", or_q(&h.site)),
        (
            "Date",
            h.date.clone().unwrap_or_else(|| "????.??.??".into()),
        ),
        (
            "Round",
            extras.round.clone().unwrap_or_else(|| or_q(&h.round)),
        ),
        ("White", or_q(&h.white)),
        ("Black", or_q(&h.black)),
        ("Result", shape.result.to_owned()),
    ];
    // The control the game is played at: the one the arbiter installed
    // (6.10.2, `time_control`) or the configured one.
    let control = game.installed_time_control().or(cfg.time_control.as_ref());
    let standard_tc = control.map_or("-".to_owned(), standard_time_control);
    tags.push(("TimeControl", standard_tc.clone()));
    if let Some(tc) = control {
        let own = tc.to_string();
        if own != standard_tc {
            tags.push(("EboardTimeControl", own));
        }
    }
    if *shape.start != shakmaty::Chess::default() {
        tags.push(("SetUp", "1".into()));
        tags.push((
            "FEN",
            Fen::from_position(shape.start, EnPassantMode::Legal).to_string(),
        ));
    }
    if let Some(o) = game.outcome() {
        let term = match o.reason {
            EndReason::Time | EndReason::TimeVsInsufficientMaterial => "time forfeit",
            // A no-show: the PGN standard's "administratively adjudicated
            // as a loss" (docs/console.md, results).
            // A loss the arbiter declared for an infraction (a phone, 2023
            // 11.3.2.2; misconduct): the standard's "administratively
            // adjudicated as a loss due to a violation of a rule" (PGN
            // spec 9.8.1).
            EndReason::IllegalMoves | EndReason::Forfeit | EndReason::RulesInfraction => {
                "rules infraction"
            }
            // The arbiter decided the result (declared or corrected): the
            // standard's "result due to third party adjudication".
            EndReason::ArbiterDecision => "adjudication",
            _ => "normal",
        };
        tags.push(("Termination", term.into()));
    }
    for (k, v) in tags
        .iter()
        .map(|(k, v)| (*k, v.as_str()))
        .chain(extras.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    {
        out.push_str(&format!("[{k} \"{}\"]\n", tag_value(v)));
    }
    out.push('\n');
}

/// The comments placed after `n` completed moves.
pub(super) fn comment_after(extras: &PgnExtras, n: usize) -> Vec<String> {
    extras
        .comments
        .iter()
        .filter(|(at, _)| *at == n)
        .map(|(_, c)| comment_text(c))
        .collect()
}

fn side(c: Color) -> &'static str {
    if c == Color::White {
        "White"
    } else {
        "Black"
    }
}

/// The comment before the first move: the comments at 0 and, when the
/// record starts after an illegal move that stood, the moves before, the
/// ruling and the comments of that stretch.
pub(super) fn before_token(game: &Arbiter, extras: &PgnExtras, shape: &Shape) -> Option<String> {
    let cfg = game.config();
    let moves = game.moves();
    let mut before = comment_after(extras, 0);
    if let Some(k) = shape.stood_at {
        // The moves before, the ruling, and the comments of that stretch.
        let mut text = String::from("Moves before:");
        let start_black = cfg.start.turn() == Color::Black;
        for (i, m) in moves[..k].iter().enumerate() {
            let ply = i as u32 + u32::from(start_black);
            let no = cfg.start.fullmoves().get() + ply / 2;
            if m.by == Color::White {
                text.push_str(&format!(" {no}."));
            } else if i == 0 {
                text.push_str(&format!(" {no}..."));
            }
            text.push(' ');
            text.push_str(&m.san);
        }
        if k == 0 {
            text.push_str(" none");
        }
        let m = &moves[k];
        text.push_str(&format!(
            "; illegal move {} by {} stood (no claim before the reply); the game goes on \
             from the position after it (FEN)",
            m.san,
            side(m.by)
        ));
        if let Some(ms) = m.clock_ms {
            text.push_str(&format!(" [%clk {}]", fmt_hms(ms)));
        }
        before = vec![text];
        for n in 1..=shape.first {
            before.extend(comment_after(extras, n));
        }
    }
    (!before.is_empty()).then(|| format!("{{{}}}", comment_text(&before.join(" "))))
}

/// The start of the comment that swallows the moves after an illegal move
/// that stood in the middle of the record.
pub(super) fn stood_text(m: &crate::arbiter::PlayedMove) -> String {
    format!(
        "illegal move {} by {} stood (no claim before the reply); then:",
        m.san,
        side(m.by)
    )
}

/// The tokens of move `i` (a legal one of the record): its number when it
/// needs one, its SAN, its comment (`[%clk]` and the comments after it).
pub(super) fn move_tokens(
    shape: &Shape,
    i: usize,
    m: &crate::arbiter::PlayedMove,
    extras: &PgnExtras,
    tokens: &mut Vec<String>,
) {
    let ply = (i - shape.first) as u32 + u32::from(shape.start_black);
    let no = shape.first_no + ply / 2;
    if m.by == Color::White {
        tokens.push(format!("{no}."));
    } else if i == shape.first {
        tokens.push(format!("{no}..."));
    }
    tokens.push(m.san.clone());
    // What the clock shows after the press: the whole seconds left,
    // truncated (docs/clock.md, "What a clock shows").
    let mut comment: Vec<String> = m
        .clock_ms
        .map(|ms| format!("[%clk {}]", fmt_hms(ms)))
        .into_iter()
        .collect();
    comment.extend(comment_after(extras, i + 1));
    if !comment.is_empty() {
        tokens.push(format!("{{{}}}", comment.join(" ")));
    }
}

/// The movetext's lines: tokens joined by spaces in lines of at most 79
/// characters; full lines go to `out`, the open one stays.
#[derive(Debug, Clone, Default)]
pub(super) struct Wrap {
    /// The open line.
    pub line: String,
}

impl Wrap {
    /// Adds `tok`, moving the open line to `out` when `tok` does not fit.
    pub(super) fn push(&mut self, tok: &str, out: &mut String) {
        let line = &mut self.line;
        if !line.is_empty() && line.len() + 1 + tok.len() > 79 {
            out.push_str(line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(tok);
    }
}

/// The comment before a double forfeit's `*`: what the `Result` tag's `0-0`
/// means, for a reader that does not know it.
pub const DOUBLE_FORFEIT_COMMENT: &str = "{double forfeit: neither player came, both lost (0-0)}";

/// The comment before the `*` of a game the arbiter declared lost by both
/// players (both guilty: 2023 11.8, 2009 §12.9, 2001 §12.8).
pub const BOTH_LOST_COMMENT: &str = "{the game declared lost by both players (0-0)}";

/// The end of the movetext: the comment of an illegal move that stood in
/// the middle, the result, the open line and the empty line after the game.
pub(super) fn finish(shape: &Shape, stood: Option<String>, wrap: &mut Wrap, out: &mut String) {
    if let Some(text) = stood {
        wrap.push(&format!("{{{}}}", comment_text(&text)), out);
    }
    if shape.termination != shape.result {
        wrap.push(shape.both_lost, out);
    }
    wrap.push(shape.termination, out);
    out.push_str(&wrap.line);
    out.push_str("\n\n");
}

/// `tc` as the PGN standard's `TimeControl` (PGN spec §9.6.1: whole
/// seconds; `moves/seconds`, `seconds+increment`, periods joined by `:`),
/// which python-chess reads whole and lila reads when it is one period;
/// a delay (no standard form) is left out, the base kept.
pub fn standard_time_control(tc: &TimeControl) -> String {
    use crate::clock::Bonus;
    tc.periods
        .iter()
        .map(|p| {
            let mut s = String::new();
            if let Some(n) = p.moves {
                s.push_str(&format!("{n}/"));
            }
            s.push_str(&(p.time_ms / 1000).to_string());
            if let Bonus::Increment(i) = p.bonus {
                s.push_str(&format!("+{}", i / 1000));
            }
            s
        })
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_in_the_standard_form() {
        let std = |t: &str| standard_time_control(&TimeControl::parse(t).unwrap());
        assert_eq!(std("40/5400+30:1800+30"), "40/5400+30:1800+30");
        assert_eq!(
            std("40/6000+30:20/3000+30:900+30"),
            "40/6000+30:20/3000+30:900+30"
        );
        assert_eq!(std("900+10@base"), "900+10");
        assert_eq!(std("5400d5"), "5400", "no delay in the standard");
        assert_eq!(std("40/7200:3600b10"), "40/7200:3600");
        assert_eq!(std("300"), "300");
    }

    /// Issue 41: a tag value is one string token (PGN standard §7), a
    /// comment one brace comment (§5), whatever the text holds.
    #[test]
    fn tag_values_and_comments_hold_no_structure() {
        assert_eq!(
            tag_value("Morphy \"Paul\" \\\n[Result \"0-1\"]\t\u{1b}"),
            "Morphy \\\"Paul\\\" \\\\ [Result \\\"0-1\\\"]  "
        );
        assert_eq!(tag_value("Hølm, Änders"), "Hølm, Änders");
        assert_eq!(
            comment_text("flag fell}\n[Event \"x\"]\u{2028}"),
            "flag fell) [Event \"x\"] "
        );
    }

    #[test]
    fn clk_format() {
        assert_eq!(fmt_hms(5_428_100), "1:30:28");
        assert_eq!(fmt_hms(59_999), "0:00:59");
        assert_eq!(fmt_hms(0), "0:00:00");
        // [%clk] is what the clock shows: the whole seconds left, truncated
        // (issue 40 §9: 1:17:18.9 shows 1:17:18).
        assert_eq!(fmt_hms(4_638_900), "1:17:18");
        assert_eq!(fmt_hms(900), "0:00:00");
    }
}
