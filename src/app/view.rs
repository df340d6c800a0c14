//! The terminal view of a game: one line per decision (`eboard replay`,
//! the demo) and the board after each move (the demo).

use crate::trace::{Event, EventKind};

/// Prints a decision on standard output: a move with the board after it,
/// the others as one line (the ones [`describe`] shows).
pub(super) fn show(e: &Event) {
    if let EventKind::Move { fen, .. } = &e.kind {
        let line = describe(e).unwrap_or_default();
        println!("\n{}", crate::model::text::escape_controls(&line));
        print_board(fen);
    } else if let Some(line) = describe(e) {
        // A ruling's reason is the arbiter's text: shown, never acted on
        // by the terminal (issue 41).
        println!("{}", crate::model::text::escape_controls(&line));
    }
}

/// The placement of `fen` as eight rows of letters and dots, rank 8 first.
fn print_board(fen: &str) {
    let placement = fen.split(' ').next().unwrap_or("");
    for (i, rank) in placement.split('/').enumerate() {
        let mut row = String::new();
        for ch in rank.chars() {
            match ch.to_digit(10) {
                Some(n) => (0..n).for_each(|_| row.push_str(" .")),
                None => {
                    row.push(' ');
                    row.push(ch);
                }
            }
        }
        println!("  {} {row}", 8 - i);
    }
    println!("     a b c d e f g h");
}

/// `H:MM:SS.d`: the clock time with tenths of a second.
fn ms_clock(ms: u64) -> String {
    format!("{}.{}", crate::clock::fmt_hms(ms), ms % 1000 / 100)
}

/// A one-line human description of an event (None for the ones not shown).
pub(super) fn describe(e: &Event) -> Option<String> {
    let t = format!("[{:>9}]", ms_clock(e.t));
    Some(match &e.kind {
        EventKind::Move { ply, by, san, .. } => {
            let no = ply.div_ceil(2);
            let dots = if by.0.is_white() { "." } else { "..." };
            format!("{t} {no}{dots} {san}")
        }
        EventKind::Clock { white_ms, black_ms } => {
            format!(
                "{t}   clock  white {}  black {}",
                ms_clock(*white_ms),
                ms_clock(*black_ms)
            )
        }
        EventKind::GameEnd {
            result,
            reason,
            article,
            ..
        } => format!("{t} game over: {result} ({reason}, article {article})"),
        EventKind::IllegalMove {
            by,
            article,
            count,
            penalty,
            penalty_article,
            squares,
        } => format!(
            "{t} ILLEGAL MOVE by {by} (article {article}, #{count}): {penalty} ({penalty_article}); reinstate {}",
            squares.join(" ")
        ),
        EventKind::Irregularity {
            kind,
            article,
            squares,
        } => format!(
            "{t} irregularity {kind} (article {article}) {}",
            squares.join(" ")
        ),
        EventKind::PromotionAssumed { square, piece, .. } => {
            format!("{t} promotion on {square}: piece not sensed nor chosen, {piece} assumed")
        }
        EventKind::Flag { by } => format!("{t} flag fallen: {by}"),
        EventKind::DrawOffer { by } => format!("{t} draw offered by {by}"),
        EventKind::PositionRestored { .. } => format!("{t} position reinstated"),
        _ => return None,
    })
}
