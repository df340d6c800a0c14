//! The default time (a no-show's forfeit), per edition: how long after the
//! start of the session a player may arrive at the board and still play,
//! and which text says so when the event's regulations are silent.
//!
//! Sources (`../shared/seeds`, `../shared/rules`):
//!
//! - 2001 §6.7 (seed 000): "Partiet skal erklæres for tabt for den spiller
//!   som ankommer til skakbrættet mere end én time efter den annoncerede
//!   spilletids begyndelse, medmindre andet fremgår af turneringens
//!   reglement eller turneringslederen beslutter noget andet": one hour.
//! - 2009 §6.6a (seed 002) sets 0 minutes "unless the regulations of the
//!   event say otherwise"; the DSU regulations (seed 004, "Reglement for DM
//!   og koordinerede turneringer" §11) say otherwise: arriving "senere end
//!   15 minutter efter rundens annoncerede starttidspunkt vil medføre tab af
//!   partiet, med mindre dommeren i force majeure situationer bestemmer
//!   anderledes": 15 minutes (the Danish profile `fide-2009`).
//! - 2009, Norwegian text (seed 003 §6.6): in Norway 60 minutes unless the
//!   invitation says otherwise (`fide-2009-no`).
//! - 2023 6.7.1 (`rules/fide-2023.md` §12; the FIDE Laws in force today):
//!   the regulations of an event specify the default time in advance; if
//!   they do not, it is zero; a player arriving after it loses "unless the
//!   arbiter decides otherwise".
//!
//! An event's own regulations (its invitation) win: the config key
//! `event.default_time_min` (`eboard.toml(5)`).

use super::Edition;

/// The default time an edition's texts give when the event's regulations
/// say nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultTime {
    /// The default time, ms after the start of the session.
    pub ms: u64,
    /// Where it comes from, in words (`"DSU 004 §11"`, `"6.7.1"`).
    pub source: &'static str,
}

impl DefaultTime {
    /// The default time of `edition` when the event's regulations are
    /// silent: 2001 60 min (§6.7); 2009 Danish 15 min (DSU 004 §11 over
    /// §6.6a); 2009 Norwegian 60 min (NSF, §6.6); 2023 zero (6.7.1).
    pub fn of(edition: Edition) -> DefaultTime {
        const MIN: u64 = 60_000;
        match edition {
            Edition::Fide2001 => DefaultTime {
                ms: 60 * MIN,
                source: "2001 §6.7",
            },
            Edition::Fide2009 => DefaultTime {
                ms: 15 * MIN,
                source: "DSU 004 §11",
            },
            Edition::Fide2009No => DefaultTime {
                ms: 60 * MIN,
                source: "NSF, §6.6",
            },
            Edition::Fide2023 => DefaultTime {
                ms: 0,
                source: "6.7.1: none specified",
            },
        }
    }

    /// The default time `ms` the event's regulations give (the config's
    /// `event.default_time_min`).
    pub fn of_event(ms: u64) -> DefaultTime {
        DefaultTime {
            ms,
            source: "the event's regulations",
        }
    }

    /// The default time in words: `15 min`, `1 h`, `0 min`, `90 s`.
    pub fn words(&self) -> String {
        match self.ms {
            ms if ms % 3_600_000 == 0 && ms > 0 => format!("{} h", ms / 3_600_000),
            ms if ms % 60_000 == 0 => format!("{} min", ms / 60_000),
            ms => format!("{} s", ms.div_ceil(1_000)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_edition_as_the_texts_give_it() {
        let got: Vec<(u64, &str)> = [
            Edition::Fide2001,
            Edition::Fide2009,
            Edition::Fide2009No,
            Edition::Fide2023,
        ]
        .into_iter()
        .map(|e| {
            let d = DefaultTime::of(e);
            (d.ms / 60_000, d.source)
        })
        .collect();
        assert_eq!(
            got,
            [
                (60, "2001 §6.7"),
                (15, "DSU 004 §11"),
                (60, "NSF, §6.6"),
                (0, "6.7.1: none specified")
            ]
        );
        assert_eq!(DefaultTime::of(Edition::Fide2001).words(), "1 h");
        assert_eq!(DefaultTime::of(Edition::Fide2009).words(), "15 min");
        assert_eq!(DefaultTime::of_event(90_000).words(), "90 s");
    }
}
