//! The game a journal belongs to: its identity (event, round and board,
//! players, time control, from the header; a game id made when the game
//! started) compared with the configuration's, so a journal of another
//! game is refused rather than resumed and mixed with the new one.

use crate::trace::Header;
use std::path::Path;

/// How one key of the header is read.
type Key = fn(&Header) -> Option<&str>;

/// The header keys that name a game, and how each is read.
const KEYS: [(&str, Key); 5] = [
    ("event", |h| h.event.as_deref()),
    ("round", |h| h.round.as_deref()),
    ("white", |h| h.white.as_deref()),
    ("black", |h| h.black.as_deref()),
    ("time_control", |h| h.time_control.as_deref()),
];

/// The differences between the game of a journal (`journal`) and the
/// game the configuration describes (`config`), one text a key
/// (`round: journal "3.1", config "4.1"`); empty: the same game. A key the
/// configuration leaves unset is no difference (the journal's value holds,
/// as when the game was started); `round` is round and board (`3.1`).
pub fn differences(journal: &Header, config: &Header) -> Vec<String> {
    let shown = |v: Option<&str>| v.map_or("(unset)".to_owned(), |s| format!("{s:?}"));
    KEYS.iter()
        .filter_map(|(key, get)| {
            let (j, c) = (get(journal), get(config));
            (c.is_some() && j != c)
                .then(|| format!("{key}: journal {}, config {}", shown(j), shown(c)))
        })
        .collect()
}

/// A new game's id: 128 random bits in hex.
pub fn new_game_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// What to tell the organiser when `path` holds another game's journal.
pub fn refusal(path: &Path, differences: &[String], game_id: Option<&str>) -> String {
    let p = path.display();
    format!(
        "{p} is the journal of another game{} ({}): it is not resumed and not mixed with \
         the configured game. Move it away (e.g. `mv {p} {p}.old` and its `.events` and \
         `.mqtt` files alike) to start the configured game, or start with the configuration \
         of its game to resume it",
        game_id
            .map(|g| format!(" (game id {g})"))
            .unwrap_or_default(),
        differences.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(round: &str, white: Option<&str>) -> Header {
        Header {
            event: Some("DM".into()),
            round: Some(round.into()),
            white: white.map(str::to_owned),
            time_control: Some("90+30".into()),
            ..Header::default()
        }
    }

    #[test]
    fn the_same_game_has_no_difference() {
        assert!(differences(&h("3.1", Some("A, B")), &h("3.1", Some("A, B"))).is_empty());
        // The config leaves the player unset: the journal's holds.
        assert!(differences(&h("3.1", Some("A, B")), &h("3.1", None)).is_empty());
    }

    #[test]
    fn another_round_or_player_is_named() {
        let d = differences(&h("3.1", Some("A, B")), &h("4.1", Some("C, D")));
        assert_eq!(
            d,
            [
                "round: journal \"3.1\", config \"4.1\"",
                "white: journal \"A, B\", config \"C, D\""
            ]
        );
        let d = differences(&h("3.1", None), &h("3.1", Some("C, D")));
        assert_eq!(d, ["white: journal (unset), config \"C, D\""]);
        let m = refusal(Path::new("/var/lib/eboard/board.jsonl"), &d, Some("ab"));
        assert!(
            m.contains("mv /var/lib/eboard/board.jsonl") && m.contains("game id ab"),
            "{m}"
        );
    }
}
