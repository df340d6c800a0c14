//! An event set up from its pairings (issue 15 item 4, `docs/event.md`):
//! a round's pairings read from the file the pairing program writes —
//! FIDE's Tournament Report File, TRF-16 ([`trf`]), as Swiss-Manager and
//! Vega export it, or a plain CSV ([`csv`]) — numbered into boards as the
//! pairing says ([`order_boards`]: FIDE Swiss board order), and turned into
//! one [`BoardAssignment`] per board: what a board daemon needs to know of
//! its game (round, board number, players, time control). `eboard event`
//! (`app::event`) sends the assignments over MQTT (retained, one topic per
//! board: [`config_topic`]) or writes them as config files; a board daemon
//! applies its own before the game starts.
//!
//! This module reads and checks text only; it depends on the model (the
//! [`Player`]) and the config's title list.
//!
//! Depends on `model`, `clock` (time controls) and `config` (the title
//! list, RFC 3339 times), the modules below it in
//! docs/dev/architecture.md's map. It must not depend on `mqtt`, `server`
//! or `app` (which send, serve and write the assignments) or on anything
//! else above it.

pub mod berger;
pub mod csv;
pub mod results;
pub mod standings;
pub mod trf;

use crate::model::Player;
use serde::{Deserialize, Serialize};

/// What a board gets of its game: the JSON of its retained MQTT topic
/// ([`config_topic`]) and, as TOML, the fragment file `board-N.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardAssignment {
    /// The event's name (the topic's `{event}` level is its slug).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The round, from 1.
    pub round: u32,
    /// The board number, from 1, as the pairing list prints it.
    pub board: u32,
    /// White: name (`Surname, Given`), FIDE id, title, federation, rating.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// The time control in eboard's syntax (`docs/clock.md`, e.g.
    /// `40/5400+30:1800+30`); absent: the board's own config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<String>,
    /// The round's scheduled start, RFC 3339 with its offset
    /// (`2026-11-26T15:00:00+01:00`): the board's `[event] session_start`,
    /// from which the default time counts (2023 6.7.1, DSU 004 §11);
    /// absent: the board's own config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_start: Option<String>,
}

impl BoardAssignment {
    /// `round.board` (the PGN `Round` tag a broadcast writes).
    pub fn game(&self) -> String {
        format!("{}.{}", self.round, self.board)
    }

    /// Whether `other` is the same game (round, board, players, time
    /// control): a board given the same assignment twice has nothing to do.
    pub fn same_game(&self, other: &BoardAssignment) -> bool {
        self.round == other.round
            && self.board == other.board
            && self.white == other.white
            && self.black == other.black
            && self.time_control == other.time_control
            && self.session_start == other.session_start
    }

    /// Checks what a config would check of the same values (the board
    /// applies it as its `[game]`): round and board from 1, titles of
    /// [`crate::config::TITLES`], three-letter federations, positive FIDE
    /// ids, no control character in any text (a newline, an escape, a
    /// bidirectional override: [`crate::model::text`]; issue 41 §3). The
    /// error names the field (`white.title`, `black.name`).
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.round == 0 {
            return Err(("round".into(), "rounds count from 1".into()));
        }
        if self.board == 0 {
            return Err(("board".into(), "boards count from 1".into()));
        }
        for (side, p) in [("white", &self.white), ("black", &self.black)] {
            check_player(p).map_err(|(f, m)| (format!("{side}.{f}"), m))?;
        }
        for (field, text) in [
            ("event", &self.event),
            ("time_control", &self.time_control),
            ("session_start", &self.session_start),
        ] {
            if let Some(Err(c)) = text.as_deref().map(crate::model::text::check_text) {
                return Err((field.to_owned(), c.to_string()));
            }
        }
        if let Some(tc) = &self.time_control {
            crate::clock::TimeControl::parse(tc)
                .map_err(|e| ("time_control".to_owned(), format!("\"{tc}\": {e}")))?;
        }
        if let Some(s) = &self.session_start {
            crate::config::instant::parse_rfc3339(s)
                .map_err(|e| ("session_start".to_owned(), e))?;
        }
        Ok(())
    }
}

/// Checks one player's fields: (field, message) on the first bad one.
pub fn check_player(p: &Player) -> Result<(), (&'static str, String)> {
    // Names and text are data, never structure (issue 41 §3): no control
    // character in any text field, whichever way the player came in.
    for (field, text) in [
        ("name", &p.name),
        ("title", &p.title),
        ("federation", &p.federation),
    ] {
        if let Some(Err(c)) = text.as_deref().map(crate::model::text::check_text) {
            return Err((field, c.to_string()));
        }
    }
    if let Some(t) = &p.title {
        if !crate::config::TITLES.contains(&t.as_str()) {
            return Err((
                "title",
                format!("\"{t}\": allowed are {}", crate::config::TITLES.join(", ")),
            ));
        }
    }
    if p.fide_id == Some(0) {
        return Err(("fide_id", "a FIDE id is a positive number".into()));
    }
    if let Some(f) = &p.federation {
        if f.len() != 3 || !f.chars().all(|c| c.is_ascii_uppercase()) {
            return Err((
                "federation",
                format!("\"{f}\": three capital letters (DEN, NOR, ...)"),
            ));
        }
    }
    if let Some(r) = p.rating {
        if !(1..=3500).contains(&r) {
            return Err(("rating", format!("{r}: a rating is 1..=3500")));
        }
    }
    Ok(())
}

/// The retained topic of board `board`'s assignment:
/// `{prefix}/{event}/board/{board}/config` (`{event}` slugged as the
/// board's other topics, [`crate::mqtt::slug`]). The board number is the
/// table's: it stays from round to round, the round is in the message.
pub fn config_topic(prefix: &str, event_slug: &str, board: u32) -> String {
    format!("{prefix}/{event_slug}/board/{board}/config")
}

/// A pairing of the round before it is numbered: the two players, their
/// scores before the round (tenths of a point) and their pairing numbers
/// (TRF start rank; CSV: none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pairing {
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// White's score before the round, tenths of a point.
    pub white_score: u32,
    /// Black's score before the round, tenths.
    pub black_score: u32,
    /// White's pairing number (start rank), from 1.
    pub white_rank: u32,
    /// Black's pairing number.
    pub black_rank: u32,
    /// The board number the file gives (CSV `board`), if any.
    pub board: Option<u32>,
    /// A game paired (so given a board) but already decided by forfeit in
    /// the file (TRF-16 `+`/`-`): `1-0`, `0-1`, or `0-0` (both forfeited).
    /// The board is configured as any other; the arbiter enters the
    /// forfeit at the console (`docs/event.md`).
    pub forfeit: Option<&'static str>,
    /// The file's line of the pairing (White's record), for reports.
    pub line: usize,
}

impl Pairing {
    /// The higher player of the pairing (C.04.3 A.2 order: the higher
    /// score, then the smaller pairing number): (score, rank).
    fn higher(&self) -> (u32, u32) {
        let w = (self.white_score, self.white_rank);
        let b = (self.black_score, self.black_rank);
        if (w.0, std::cmp::Reverse(w.1)) >= (b.0, std::cmp::Reverse(b.1)) {
            w
        } else {
            b
        }
    }
}

/// Why a player of the round has no board: the file's code and what it
/// means (TRF-16 result codes; CSV: a row without an opponent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unplayed {
    /// The player (for a forfeit: the one who scores the win).
    pub player: Player,
    /// The opponent of a forfeit (none for a bye).
    pub opponent: Option<Player>,
    /// The file's code (`U`, `H`, `F`, `Z`, `+`, `-`, or ` ` not paired).
    pub code: char,
    /// What it is, in words (`pairing-allocated bye`, `forfeit win`, …).
    pub what: &'static str,
    /// The file's line.
    pub line: usize,
}

/// A round's pairings as read from a file, in the file's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundPairings {
    /// The event's name, when the file has one (TRF `012`).
    pub event: Option<String>,
    /// The round.
    pub round: u32,
    /// The games to be played.
    pub pairings: Vec<Pairing>,
    /// Byes, forfeits without colours and players not paired: reported, no board.
    pub unplayed: Vec<Unplayed>,
    /// The file's time control text (TRF `122`), for the report only: it
    /// is free text (`90 min/40 moves + 30 min + 30 s/move`), not a
    /// control eboard could set.
    pub time_control_text: Option<String>,
    /// The number of players the file lists (TRF `001` records; CSV: the
    /// paired players), for a round robin's table ([`berger`]).
    pub players: u32,
    /// The type of tournament the file names (TRF `092`, e.g.
    /// "Individual: Round Robin"), if any.
    pub system: Option<String>,
}

/// The games in board order, numbered from 1: the file's board numbers
/// when every pairing has one (CSV `board`); otherwise FIDE's order for
/// publishing Swiss pairings (C.04.1 F.1 of the Handbook, "Swiss System
/// Based on Rating"; the order Swiss-Manager and Vega print): by the score
/// of the higher player of each pairing, then the sum of both scores, then
/// the rank (C.04.3 A.2: score, then pairing number) of the higher player,
/// each with descending priority. A pairing's higher player is the one
/// ranked higher by A.2.
pub fn order_boards(pairings: &[Pairing]) -> Vec<(u32, &Pairing)> {
    if !pairings.is_empty() && pairings.iter().all(|p| p.board.is_some()) {
        let mut v: Vec<(u32, &Pairing)> =
            pairings.iter().map(|p| (p.board.unwrap_or(0), p)).collect();
        v.sort_by_key(|(b, _)| *b);
        return v;
    }
    let mut v: Vec<&Pairing> = pairings.iter().collect();
    v.sort_by(|a, b| {
        let (ha, hb) = (a.higher(), b.higher());
        hb.0.cmp(&ha.0)
            .then((b.white_score + b.black_score).cmp(&(a.white_score + a.black_score)))
            .then(ha.1.cmp(&hb.1))
    });
    v.into_iter().zip(1u32..).map(|(p, n)| (n, p)).collect()
}

/// Whether `round`'s boards are numbered by the Berger table
/// ([`berger::number_boards`]) rather than FIDE's Swiss order
/// ([`order_boards`]): `flag` is `eboard event --board-order` (`swiss`,
/// `berger`); without it, when the file's `092` says round robin
/// ([`berger::says_round_robin`]). The one rule `eboard event` numbers the
/// boards by and the standings map the boards' games back by.
pub fn berger_order(round: &RoundPairings, flag: Option<&str>) -> bool {
    match flag {
        Some("swiss") => false,
        Some(_) => true,
        None => berger::says_round_robin(round),
    }
}

/// The boards of `round`: one assignment per game in board order
/// ([`order_boards`]), each with `event` and `time_control`.
pub fn assignments(
    round: &RoundPairings,
    event: Option<&str>,
    time_control: Option<&str>,
) -> Vec<BoardAssignment> {
    order_boards(&round.pairings)
        .into_iter()
        .map(|(board, p)| BoardAssignment {
            event: event.map(str::to_owned).or_else(|| round.event.clone()),
            round: round.round,
            board,
            white: p.white.clone(),
            black: p.black.clone(),
            time_control: time_control.map(str::to_owned),
            session_start: None,
        })
        .collect()
}

/// A score in tenths as the pairing list prints it (`2.5`).
pub fn fmt_score(tenths: u32) -> String {
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// A pairing file that cannot be read: the file, the 1-based line, the
/// field or columns, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default(), if field.is_empty() { String::new() } else { format!(": {field}") })]
pub struct PairingError {
    /// The file as given.
    pub file: String,
    /// The 1-based line (none: the whole file).
    pub line: Option<usize>,
    /// The field (`start rank (columns 5-8)`, `white_title`), or empty.
    pub field: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

/// Reads the pairings of `round` from `text`: TRF-16 when a line starts
/// with a record code (`001 `, `012 `), else CSV. `file` names it in errors.
pub fn read_round(text: &str, file: &str, round: u32) -> Result<RoundPairings, PairingError> {
    if trf::looks_like_trf(text) {
        trf::read_round(text, file, round)
    } else {
        csv::read_round(text, file, round)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(ws: u32, bs: u32, wr: u32, br: u32) -> Pairing {
        Pairing {
            white: Player::default(),
            black: Player::default(),
            white_score: ws,
            black_score: bs,
            white_rank: wr,
            black_rank: br,
            board: None,
            forfeit: None,
            line: 0,
        }
    }

    #[test]
    fn fide_board_order() {
        // Higher player's score first; then the sum; then the higher
        // player's pairing number.
        let v = [
            p(10, 10, 5, 6), // higher 10 (rank 5), sum 20
            p(20, 10, 9, 1), // higher 20 (rank 9), sum 30
            p(10, 0, 2, 7),  // higher 10 (rank 2), sum 10
            p(10, 10, 4, 3), // higher 10 (rank 3), sum 20
            p(0, 20, 8, 12), // higher 20 (rank 12), sum 20
        ];
        let order: Vec<(u32, u32)> = order_boards(&v)
            .iter()
            .map(|(n, q)| (*n, q.white_rank))
            .collect();
        assert_eq!(order, [(1, 9), (2, 8), (3, 4), (4, 5), (5, 2)]);
    }

    #[test]
    fn file_board_numbers_win() {
        let mut a = p(0, 0, 1, 2);
        a.board = Some(2);
        let mut b = p(10, 10, 3, 4);
        b.board = Some(1);
        let v = [a, b];
        let order: Vec<u32> = order_boards(&v).iter().map(|(_, q)| q.white_rank).collect();
        assert_eq!(order, [3, 1]);
    }

    #[test]
    fn assignment_checks_name_the_field() {
        let mut a = BoardAssignment {
            event: None,
            round: 1,
            board: 1,
            white: Player::default(),
            black: Player::default(),
            time_control: Some("90+30".into()),
            session_start: Some("2026-11-26T15:00:00+01:00".into()),
        };
        assert!(a.check().is_ok());
        a.black.title = Some("Dr".into());
        assert_eq!(a.check().unwrap_err().0, "black.title");
        a.black.title = None;
        a.time_control = Some("ninety".into());
        assert_eq!(a.check().unwrap_err().0, "time_control");
        a.time_control = None;
        a.session_start = Some("2026-11-26 15:00".into());
        let (field, why) = a.check().unwrap_err();
        assert_eq!(field, "session_start");
        assert!(why.contains("RFC 3339"), "{why}");
        // Issue 41: no control character in any text, named by field.
        a.session_start = None;
        a.black.name = Some("Karl\"]\n[Result \"0-1\"]".into());
        let (field, why) = a.check().unwrap_err();
        assert_eq!(field, "black.name");
        assert!(
            why.starts_with("U+000A (line feed) at character 7"),
            "{why}"
        );
        a.black.name = Some("Karl, Duke".into());
        a.event = Some("DM\u{1b}[2J".into());
        assert_eq!(a.check().unwrap_err().0, "event");
        a.event = None;
        a.white.federation = Some("D\u{202e}N".into());
        assert_eq!(a.check().unwrap_err().0, "white.federation");
    }
}
