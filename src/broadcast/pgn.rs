//! The game in PGN (export format: the Seven Tag Roster, `TimeControl`,
//! `[%clk h:mm:ss]` after every move when a clock ran), with the extra tags
//! and comments a live broadcast adds ([`PgnExtras`]).

use crate::arbiter::Arbiter;
use crate::clock::fmt_shown;
use crate::model::EndReason;
use shakmaty::fen::Fen;
use shakmaty::{Color, EnPassantMode, Position};

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
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
    /// the first move), in order; `}` is replaced since PGN comments cannot
    /// hold it.
    pub comments: Vec<(usize, String)>,
}

/// The game as PGN (one game, export format, lines of at most 80 characters).
pub fn write_pgn(game: &Arbiter) -> String {
    write_pgn_with(game, &PgnExtras::default())
}

/// The game as PGN with a broadcast's extra tags and comments.
pub fn write_pgn_with(game: &Arbiter, extras: &PgnExtras) -> String {
    let cfg = game.config();
    let h = &cfg.header;
    let result = game.outcome().map_or("*", |o| o.result.as_str());
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
        ("Result", result.to_owned()),
    ];
    tags.push((
        "TimeControl",
        cfg.time_control
            .as_ref()
            .map_or("-".to_owned(), |tc| tc.pgn_tag()),
    ));
    if cfg.start != shakmaty::Chess::default() {
        tags.push(("SetUp", "1".into()));
        tags.push((
            "FEN",
            Fen::from_position(&cfg.start, EnPassantMode::Legal).to_string(),
        ));
    }
    if let Some(o) = game.outcome() {
        let term = match o.reason {
            EndReason::Time | EndReason::TimeVsInsufficientMaterial => "time forfeit",
            EndReason::IllegalMoves => "rules infraction",
            _ => "normal",
        };
        tags.push(("Termination", term.into()));
    }
    let mut out = String::new();
    for (k, v) in tags
        .iter()
        .map(|(k, v)| (*k, v.as_str()))
        .chain(extras.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    {
        out.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
    }
    out.push('\n');
    let mut tokens: Vec<String> = Vec::new();
    let start_black = cfg.start.turn() == Color::Black;
    let first_no = cfg.start.fullmoves().get();
    let mut stood: Option<String> = None;
    let comment_after = |n: usize| -> Vec<String> {
        extras
            .comments
            .iter()
            .filter(|(at, _)| *at == n)
            .map(|(_, c)| c.replace('}', ")"))
            .collect()
    };
    let before = comment_after(0);
    if !before.is_empty() {
        tokens.push(format!("{{{}}}", before.join(" ")));
    }
    for (i, m) in game.moves().iter().enumerate() {
        if let Some(text) = stood.as_mut() {
            // After an illegal move that stood no PGN reader can follow the
            // moves: they go into the comment.
            text.push(' ');
            text.push_str(&m.san);
            continue;
        }
        if m.illegal {
            stood = Some(format!(
                "illegal move {} by {} stood (no claim before the reply); then:",
                m.san,
                if m.by == Color::White {
                    "White"
                } else {
                    "Black"
                }
            ));
            continue;
        }
        let ply = i as u32 + u32::from(start_black);
        let no = first_no + ply / 2;
        if m.by == Color::White {
            tokens.push(format!("{no}."));
        } else if i == 0 {
            tokens.push(format!("{no}..."));
        }
        tokens.push(m.san.clone());
        // What the clock shows after the press: rounded up (docs/clock.md).
        let mut comment: Vec<String> = m
            .clock_ms
            .map(|ms| format!("[%clk {}]", fmt_shown(ms)))
            .into_iter()
            .collect();
        comment.extend(comment_after(i + 1));
        if !comment.is_empty() {
            tokens.push(format!("{{{}}}", comment.join(" ")));
        }
    }
    if let Some(text) = stood {
        tokens.push(format!("{{{}}}", text.replace('}', ")")));
    }
    tokens.push(result.to_owned());
    let mut line = String::new();
    for tok in tokens {
        if !line.is_empty() && line.len() + 1 + tok.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&tok);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::fmt_hms;

    #[test]
    fn clk_format() {
        assert_eq!(fmt_hms(5_428_100), "1:30:28");
        assert_eq!(fmt_hms(59_999), "0:00:59");
        assert_eq!(fmt_hms(0), "0:00:00");
        // [%clk] is what the clock shows: rounded up.
        assert_eq!(fmt_shown(5_428_100), "1:30:29");
        assert_eq!(fmt_shown(59_999), "0:01:00");
        assert_eq!(fmt_shown(0), "0:00:00");
    }
}
