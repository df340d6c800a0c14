//! Names and text are data, never structure (issue 41 §3): the characters
//! that no name or one-line text of eboard takes, whichever way it came in
//! (the config file, a TRF-16 or CSV pairing, the MQTT board
//! configuration, the console's forms), and the one way each output shows
//! one that got in all the same.
//!
//! A control character is any of:
//! - C0 (U+0000–U+001F: newline, tab, escape, …) and DEL (U+007F), the
//!   ASCII controls (ECMA-48 / ISO 6429 §5; a terminal acts on ESC and
//!   the C1 CSI, PGN takes no newline or tab in a string token: the PGN
//!   standard, 1994-03-12, §7);
//! - C1 (U+0080–U+009F), the controls of ISO 6429 §5.3 (CSI U+009B, OSC
//!   U+009D: a terminal may take them as ESC sequences);
//! - the line and paragraph separators U+2028 / U+2029 (a new line to
//!   Unicode, and a line terminator in JavaScript source before ES2019);
//! - the bidirectional formatting characters (Unicode UAX #9 §2: LRE, RLE,
//!   PDF, LRO, RLO U+202A–U+202E; LRI, RLI, FSI, PDI U+2066–U+2069; the
//!   marks LRM, RLM U+200E, U+200F and ALM U+061C): a name with an override
//!   is shown in another order than it is written (CVE-2021-42574's
//!   "Trojan Source"), so an arbiter would read a name that is not the one
//!   stored.
//!
//! Depends on nothing of the product, as the rest of `model`.

use std::borrow::Cow;

/// Whether `c` is a control character in the sense of this module: C0,
/// DEL, C1, U+2028 / U+2029, or a bidirectional formatting character.
pub fn is_control(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{61c}'
    )
}

/// The character's code point and, for the common ones, its name:
/// `U+000A (line feed)`, `U+001B (escape)`.
pub fn describe(c: char) -> String {
    let name = match c {
        '\u{0}' => "null",
        '\t' => "tab",
        '\n' => "line feed",
        '\r' => "carriage return",
        '\u{1b}' => "escape",
        '\u{7f}' => "delete",
        '\u{9b}' => "control sequence introducer",
        '\u{9d}' => "operating system command",
        '\u{2028}' => "line separator",
        '\u{2029}' => "paragraph separator",
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => "bidirectional override",
        '\u{200e}' | '\u{200f}' | '\u{61c}' => "bidirectional mark",
        '\u{80}'..='\u{9f}' => "C1 control",
        _ => "control",
    };
    format!("U+{:04X} ({name})", c as u32)
}

/// A control character found in a text: which, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{} at character {at}: a name or text is one line of printable characters", describe(*.ch))]
pub struct ControlChar {
    /// The character.
    pub ch: char,
    /// Its 1-based position in the text, in characters.
    pub at: usize,
}

/// The first control character of `text` ([`is_control`]), if any.
pub fn check_text(text: &str) -> Result<(), ControlChar> {
    match text.chars().enumerate().find(|(_, c)| is_control(*c)) {
        Some((i, ch)) => Err(ControlChar { ch, at: i + 1 }),
        None => Ok(()),
    }
}

/// `text` with every control character replaced by `with` (borrowed when
/// there is none).
pub fn replace_controls(text: &str, with: char) -> Cow<'_, str> {
    if text.chars().any(is_control) {
        Cow::Owned(
            text.chars()
                .map(|c| if is_control(c) { with } else { c })
                .collect(),
        )
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` as a terminal may show it: every control character written as
/// an escape (`\n`, `\t`, `\u{1b}`), so that none reaches the terminal
/// (ECMA-48 §5); every other character, a backslash among them, as it is.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_control(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`escape_controls`] for text of several lines: its line feeds kept
/// (they are the output's own), every other control character escaped.
pub fn escape_controls_but_newlines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_control(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.split('\n')
            .map(|l| escape_controls(l).into_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_found_with_their_position() {
        assert_eq!(check_text("Larsen, Bent"), Ok(()));
        assert_eq!(check_text("Hølm, Änders – Ωmega"), Ok(()));
        let e = check_text("Morphy\n[Result \"0-1\"]").unwrap_err();
        assert_eq!((e.ch, e.at), ('\n', 7));
        assert!(e
            .to_string()
            .starts_with("U+000A (line feed) at character 7"));
        for c in [
            '\u{1b}', '\u{7f}', '\u{9b}', '\u{2028}', '\u{2029}', '\u{202e}', '\u{2067}', '\t',
        ] {
            assert!(check_text(&format!("a{c}b")).is_err(), "{c:?}");
        }
        // Printable neighbours are not controls.
        for c in [
            '\u{a0}', '\u{2010}', '\u{2030}', '\u{2065}', '\u{206a}', ' ',
        ] {
            assert!(check_text(&format!("a{c}b")).is_ok(), "{c:?}");
        }
    }

    #[test]
    fn replaced_and_escaped() {
        assert_eq!(replace_controls("a\nb\u{1b}c", ' '), "a b c");
        assert!(matches!(replace_controls("abc", ' '), Cow::Borrowed(_)));
        assert_eq!(
            escape_controls("\u{1b}]0;pwned\u{7}\u{1b}[2J Holm"),
            "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J Holm"
        );
        assert_eq!(escape_controls("a\tb\n"), "a\\tb\\n");
        assert_eq!(
            escape_controls_but_newlines("x\u{9b}1\ny\n"),
            "x\\u{9b}1\ny\n"
        );
    }
}
