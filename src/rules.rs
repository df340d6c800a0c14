//! Rule profiles: every difference between the editions of the FIDE Laws
//! that the controller acts on, as data (`../shared/rules/digest.md` §1–§3,
//! diff table D1–D60, and `../shared/rules/fide-2023.md`).
//!
//! A [`Profile`] is built once per game from its name and the mode; the
//! arbiter reads its fields and never asks which edition it is.

use std::fmt;

/// The playing mode (§ rapid: 2009 App. A, 2001 App. B; blitz: 2009 App. B, 2001 App. C).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Standard play (the Laws proper).
    #[default]
    Standard,
    /// Rapid play.
    Rapid,
    /// Blitz.
    Blitz,
}

impl Mode {
    /// Parses `standard`, `rapid`, `blitz`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "standard" => Some(Mode::Standard),
            "rapid" => Some(Mode::Rapid),
            "blitz" => Some(Mode::Blitz),
            _ => None,
        }
    }

    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Standard => "standard",
            Mode::Rapid => "rapid",
            Mode::Blitz => "blitz",
        }
    }
}

/// The editions of the Laws the product supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Edition {
    /// FIDE Laws as adopted in Denmark 2001 (seed 000).
    Fide2001,
    /// FIDE Laws 2009, Danish text (seeds 001/002).
    Fide2009,
    /// FIDE Laws 2009, Norwegian text (seed 003).
    Fide2009No,
    /// FIDE Laws in force since 1 January 2023 (the default for new events).
    #[default]
    Fide2023,
}

impl Edition {
    /// All editions with their profile names.
    pub const ALL: [(Edition, &'static str); 4] = [
        (Edition::Fide2001, "fide-2001"),
        (Edition::Fide2009, "fide-2009"),
        (Edition::Fide2009No, "fide-2009-no"),
        (Edition::Fide2023, "fide-2023"),
    ];

    /// Parses a profile name.
    pub fn parse(s: &str) -> Option<Edition> {
        Edition::ALL.iter().find(|(_, n)| *n == s).map(|(e, _)| *e)
    }

    /// The profile name.
    pub fn name(self) -> &'static str {
        Edition::ALL
            .iter()
            .find(|(e, _)| *e == self)
            .map(|(_, n)| *n)
            .unwrap_or("?")
    }
}

impl fmt::Display for Edition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The article numbers the arbiter cites, per edition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Articles {
    /// Checkmate ends the game.
    pub checkmate: &'static str,
    /// Stalemate ends the game.
    pub stalemate: &'static str,
    /// A dead position ends the game.
    pub dead_position: &'static str,
    /// Resignation.
    pub resignation: &'static str,
    /// Draw by agreement.
    pub agreement: &'static str,
    /// A completed illegal move.
    pub illegal_move: &'static str,
    /// A promotion not completed at the press (pawn left on the last rank).
    pub incomplete_promotion: &'static str,
    /// The clock pressed without a move.
    pub press_without_move: &'static str,
    /// Loss on time / draw when the opponent cannot mate.
    pub time: &'static str,
    /// The flag is considered fallen.
    pub flag: &'static str,
    /// Promotion choice (the piece not sensed).
    pub promotion: &'static str,
    /// Wrong initial position.
    pub initial_position: &'static str,
    /// The arbiter's decisions and penalties (result declared, clocks set).
    pub arbiter: &'static str,
}

/// One rule profile: an edition combined with a mode. Every behavioural
/// difference is a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    /// The edition.
    pub edition: Edition,
    /// The mode.
    pub mode: Mode,
    /// Articles cited in events.
    pub articles: Articles,
    /// The completed illegal move by the same player that loses the game
    /// (2001/2009: the 3rd, §7.4b; 2023: the 2nd, 7.5.5).
    pub illegal_moves_to_lose: u32,
    /// Time added to the opponent for an illegal move that does not lose, ms
    /// (2 min; 2023 rapid and blitz: 1 min, A.4.2/B.3).
    pub illegal_move_bonus_ms: u64,
    /// Whether the Nth illegal move is a draw instead of a loss when the
    /// opponent cannot mate by any legal sequence (2009 §7.4b, 2023 7.5.5; not 2001).
    pub illegal_loss_draw_exception: bool,
    /// Whether a press with no move made counts as an illegal move (2023 7.5.3).
    pub press_without_move_is_illegal: bool,
}

impl Profile {
    /// The profile for an edition and mode.
    pub fn new(edition: Edition, mode: Mode) -> Profile {
        let articles = match edition {
            Edition::Fide2001 => Articles {
                checkmate: "5.1a",
                stalemate: "5.2a",
                dead_position: "5.2b",
                resignation: "5.1b",
                agreement: "5.2c",
                illegal_move: "7.4a",
                incomplete_promotion: "7.4a",
                press_without_move: "6.8a",
                time: "6.10",
                flag: "6.9",
                promotion: "3.7e",
                initial_position: "7.1a",
                arbiter: "13.4",
            },
            Edition::Fide2009 | Edition::Fide2009No => Articles {
                checkmate: "5.1a",
                stalemate: "5.2a",
                dead_position: "5.2b",
                resignation: "5.1b",
                agreement: "5.2c",
                illegal_move: "7.4a",
                incomplete_promotion: "7.4a",
                press_without_move: "6.7a",
                time: "6.9",
                flag: "6.8",
                promotion: "4.4d",
                initial_position: "7.1a",
                arbiter: "13.4",
            },
            Edition::Fide2023 => Articles {
                checkmate: "5.1.1",
                stalemate: "5.2.1",
                dead_position: "5.2.2",
                resignation: "5.1.2",
                agreement: "5.2.3",
                illegal_move: "7.5.1",
                incomplete_promotion: "7.5.2",
                press_without_move: "7.5.3",
                time: "6.9",
                flag: "6.8",
                promotion: "4.4.4",
                initial_position: "7.2.1",
                arbiter: "12.9",
            },
        };
        let (illegal_moves_to_lose, illegal_move_bonus_ms) = match (edition, mode) {
            (Edition::Fide2023, Mode::Standard) => (2, 120_000),
            (Edition::Fide2023, _) => (2, 60_000),
            _ => (3, 120_000),
        };
        Profile {
            edition,
            mode,
            articles,
            illegal_moves_to_lose,
            illegal_move_bonus_ms,
            illegal_loss_draw_exception: edition != Edition::Fide2001,
            press_without_move_is_illegal: edition == Edition::Fide2023,
        }
    }

    /// Parses a profile name and mode name; the error names the bad value
    /// and what is allowed.
    pub fn parse(edition: &str, mode: &str) -> Result<Profile, String> {
        let e = Edition::parse(edition).ok_or_else(|| {
            format!(
                "rules: \"{edition}\" is not one of {}",
                Edition::ALL
                    .iter()
                    .map(|(_, n)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        let m = Mode::parse(mode)
            .ok_or_else(|| format!("mode: \"{mode}\" is not one of standard, rapid, blitz"))?;
        Ok(Profile::new(e, m))
    }
}

impl Default for Profile {
    fn default() -> Self {
        Profile::new(Edition::default(), Mode::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_differ_where_the_laws_do() {
        let p01 = Profile::parse("fide-2001", "standard").unwrap();
        let p09 = Profile::parse("fide-2009", "standard").unwrap();
        let p23 = Profile::parse("fide-2023", "standard").unwrap();
        let p23r = Profile::parse("fide-2023", "rapid").unwrap();
        assert_eq!(p01.illegal_moves_to_lose, 3);
        assert!(!p01.illegal_loss_draw_exception);
        assert!(p09.illegal_loss_draw_exception);
        assert_eq!(p23.illegal_moves_to_lose, 2);
        assert_eq!(p23r.illegal_move_bonus_ms, 60_000);
        assert_eq!(p23.articles.illegal_move, "7.5.1");
        assert_eq!(p09.articles.illegal_move, "7.4a");
        assert!(Profile::parse("fide-1999", "standard")
            .unwrap_err()
            .contains("fide-2023"));
        assert!(Profile::parse("fide-2009", "bullet")
            .unwrap_err()
            .contains("mode"));
    }
}
