//! The board's side of `eboard event` (`docs/event.md`): its game — round,
//! players, time control — taken from a [`BoardAssignment`] before the
//! game starts: a fragment file (`eboard run --pairing FILE`) or the
//! retained MQTT topic of its table (`[mqtt] board_config = true`).
//!
//! Never mixed: a journal that already holds a game (it is resumed) keeps
//! that game's round and players; an assignment for another game is then
//! refused, logged at warn and alerted to the arbiter
//! (`{"type": "pairing_alert", …}`). While the board runs it stays
//! subscribed: a different assignment arriving then (the next round
//! published during this one) is refused the same way, never applied to
//! the game in progress; the board takes it at its next start.
//!
//! This file holds what start-up takes (the fragment, the retained topic,
//! the journal's game, [`Taken`]); `pairing/watch.rs` the topic followed
//! while the board runs and the restart into a new pairing.

use super::settings::MqttUplink;
use crate::broadcast::delay::Channel;
use crate::config::Config;
use crate::event::{config_topic, BoardAssignment};
use crate::trace::Header;
use anyhow::{anyhow, Context};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod watch;
pub use watch::{restart, watch, Restart};

/// How long start-up waits for the retained configuration by default, s.
pub const DEFAULT_WAIT_S: u64 = 10;

/// Reads a `board-N.toml` fragment that `eboard event --out` wrote.
pub fn load_fragment(path: &Path) -> anyhow::Result<BoardAssignment> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).with_context(|| shown.clone())?;
    let a: BoardAssignment = toml::from_str(&text).map_err(|e| {
        let line = e
            .span()
            .map(|s| {
                format!(
                    ":{}",
                    text[..s.start.min(text.len())].matches('\n').count() + 1
                )
            })
            .unwrap_or_default();
        anyhow!("{shown}{line}: {}", e.message().trim())
    })?;
    a.check()
        .map_err(|(field, m)| anyhow!("{shown}: {field}: {m}"))?;
    Ok(a)
}

/// This board's config topic (`[game] board` is the table's number).
pub fn topic(cfg: &Config, prefix: &str) -> String {
    config_topic(
        prefix,
        &crate::mqtt::slug(cfg.event.name.as_deref()),
        cfg.game.board,
    )
}

/// Parses a retained configuration: `Ok(None)` for an empty (cleared) one.
pub fn parse_message(payload: &[u8]) -> Result<Option<BoardAssignment>, String> {
    if payload.is_empty() {
        return Ok(None);
    }
    let a: BoardAssignment =
        serde_json::from_slice(payload).map_err(|e| format!("not a board configuration: {e}"))?;
    a.check().map_err(|(f, m)| format!("{f}: {m}"))?;
    Ok(Some(a))
}

/// Waits up to `wait` for the retained configuration on `topic` at the
/// broker of `uplink`: `Ok(None)` when there is none (the broker answered
/// the subscription and nothing came within a second after it, or `wait`
/// passed).
pub fn fetch(
    uplink: &MqttUplink,
    topic: &str,
    wait: Duration,
) -> Result<Option<BoardAssignment>, String> {
    use rumqttc::{Event, Packet, QoS};
    let id = format!("eboard-config-{:x}", rand::random::<u32>());
    let options = uplink.broker.options(id)?;
    let (client, mut conn) = rumqttc::Client::new(options, 8);
    let start = Instant::now();
    let mut deadline = start + wait;
    let mut last_error = None;
    let found = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break None;
        }
        match conn.recv_timeout(left) {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {
                client
                    .try_subscribe(topic, QoS::AtLeastOnce)
                    .map_err(|e| format!("{topic}: {e}"))?;
            }
            Ok(Ok(Event::Incoming(Packet::SubAck(_)))) => {
                // A retained message follows the SUBACK at once.
                deadline = deadline.min(Instant::now() + Duration::from_secs(1));
            }
            Ok(Ok(Event::Incoming(Packet::Publish(p)))) if p.topic == topic => {
                break parse_message(&p.payload).map_err(|e| format!("{topic}: {e}"))?;
            }
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                last_error = Some(uplink.broker.explain(&e));
                std::thread::sleep(Duration::from_millis(200).min(left));
            }
            Err(_) => {}
        }
    };
    let _ = client.disconnect();
    match (found, last_error) {
        (None, Some(e)) => Err(format!("{}: {e}", uplink.broker)),
        (found, _) => Ok(found),
    }
}

/// The header of the game a journal holds and how many records it has
/// (none: the game has not begun), if the journal exists.
pub fn journaled_game(journal: &Path) -> Option<(Header, usize)> {
    let text = std::fs::read_to_string(journal).ok()?;
    let rec = crate::journal::read_journal(&text).ok()??;
    Some((rec.header, rec.records.len()))
}

/// Moves a journal whose game never began (no records) out of the way,
/// with the files beside it (`.events`, `.mqtt`, `.mqtt-arbiter`, `.pairing.json`): each
/// renamed to `NAME.unplayed`, so the new game starts a journal of its own
/// instead of resuming another game's header.
pub fn set_aside(journal: &Path) -> Result<(), String> {
    let mut names = vec![journal.to_path_buf()];
    for ext in [".events", ".mqtt", ".mqtt-arbiter", ".pairing.json"] {
        let mut p = journal.as_os_str().to_owned();
        p.push(ext);
        names.push(p.into());
    }
    for p in names.into_iter().filter(|p| p.exists()) {
        let mut to = p.as_os_str().to_owned();
        to.push(".unplayed");
        std::fs::rename(&p, &to).map_err(|e| format!("cannot move {} aside: {e}", p.display()))?;
    }
    Ok(())
}

/// The file beside `journal` that keeps the assignment its game was
/// started with (`JOURNAL.pairing.json`): a resumed game gets its players
/// back whole, not only the names the journal's header has.
pub fn saved_path(journal: &Path) -> std::path::PathBuf {
    let mut p = journal.as_os_str().to_owned();
    p.push(".pairing.json");
    p.into()
}

/// Keeps `a` beside `journal` ([`saved_path`]); a failure is logged (the
/// game goes on; a restart would then know the names only).
pub fn save(journal: &Path, a: &BoardAssignment) {
    let p = saved_path(journal);
    let json = serde_json::to_string_pretty(a).unwrap_or_default();
    if let Err(e) = std::fs::write(&p, json) {
        tracing::warn!("pairing: cannot keep it in {}: {e}", p.display());
    }
}

/// The assignment kept beside `journal`, if any (and readable).
pub fn saved(journal: &Path) -> Option<BoardAssignment> {
    let text = std::fs::read(saved_path(journal)).ok()?;
    parse_message(&text).ok().flatten()
}

/// The journaled game of header `h` as an assignment: its round and board
/// (`r.b`), its players' names; the time control from `cfg` is left alone.
pub fn from_header(h: &Header, cfg: &Config) -> BoardAssignment {
    let (round, board) = h
        .round
        .as_deref()
        .and_then(crate::broadcast::delay::parse_game_id)
        .unwrap_or((cfg.game.round, cfg.game.board));
    let named = |n: &Option<String>| crate::model::Player {
        name: n.clone(),
        ..Default::default()
    };
    BoardAssignment {
        event: cfg.event.name.clone(),
        round,
        board,
        white: named(&h.white),
        black: named(&h.black),
        time_control: None,
        session_start: None,
    }
}

/// Why `a` is not the game the journal's `h` holds (`None`: it is).
pub fn conflict(h: &Header, a: &BoardAssignment) -> Option<String> {
    let same = h.round.as_deref() == Some(a.game().as_str())
        && h.white == a.white.name
        && h.black == a.black.name;
    (!same).then(|| {
        format!(
            "the journal holds game {} ({} - {}); the pairing is game {} ({} - {})",
            h.round.as_deref().unwrap_or("?"),
            h.white.as_deref().unwrap_or("?"),
            h.black.as_deref().unwrap_or("?"),
            a.game(),
            a.white.name.as_deref().unwrap_or("?"),
            a.black.name.as_deref().unwrap_or("?"),
        )
    })
}

/// Sets `a` into `cfg`: `[game] round`, `white`, `black`, and `[event]
/// time_control` when `a` has one. The board number must be this board's.
pub fn apply(cfg: &mut Config, a: &BoardAssignment) -> Result<(), String> {
    if a.board != cfg.game.board {
        return Err(format!(
            "the pairing is for board {}, this board is [game] board = {}",
            a.board, cfg.game.board
        ));
    }
    cfg.game.round = a.round;
    cfg.game.white = a.white.clone();
    cfg.game.black = a.black.clone();
    if let Some(tc) = &a.time_control {
        cfg.event.time_control = Some(tc.clone());
    }
    if let Some(s) = &a.session_start {
        cfg.event.session_start = Some(s.clone());
    }
    Ok(())
}

/// The game `cfg` describes, as an assignment (the game being played when
/// none was taken).
pub fn from_config(cfg: &Config) -> BoardAssignment {
    BoardAssignment {
        event: cfg.event.name.clone(),
        round: cfg.game.round,
        board: cfg.game.board,
        white: cfg.game.white.clone(),
        black: cfg.game.black.clone(),
        time_control: cfg.event.time_control.clone(),
        session_start: cfg.event.session_start.clone(),
    }
}

/// The pairing as the VI player hears it before the game (Appendix E: he
/// cannot read the pairing list), in the game's announcement language.
pub fn spoken(cfg: &Config, a: &BoardAssignment) -> Option<(String, crate::model::Lang)> {
    use crate::model::{Edition, Lang};
    let gc = super::settings::game_config(cfg, None).ok()?;
    let edition = gc.profile.edition;
    let lang = gc.announcement_lang().unwrap_or(match edition {
        Edition::Fide2001 | Edition::Fide2009 => Lang::Da,
        Edition::Fide2009No => Lang::Nb,
        Edition::Fide2023 => Lang::En,
    });
    let voc = crate::voice::Vocabulary::new(lang, edition, crate::voice::VoiceOptions::default());
    let text = crate::voice::pairing_phrase(
        a.round,
        a.board,
        a.white.name.as_deref().unwrap_or("?"),
        a.black.name.as_deref().unwrap_or("?"),
        &voc,
    );
    Some((text, lang))
}

/// An alert for the arbiter and the log: `{"type": "pairing_alert",
/// "game", "error", "action"}` on the arbiter's channel.
pub fn alert(arbiter: &Channel, game: &str, error: &str, action: &str) {
    tracing::warn!(game, "pairing: {error}; {action}");
    let m = serde_json::json!({
        "type": "pairing_alert",
        "game": game,
        "error": error,
        "action": action,
    });
    arbiter.publish(0, None, &[Arc::from(m.to_string())]);
}

/// What start-up took of `eboard event`'s assignments.
#[derive(Default)]
pub struct Taken {
    /// The assignment set into the config.
    pub applied: Option<crate::event::BoardAssignment>,
    /// One refused because the journal holds another game.
    pub refused: Option<crate::event::BoardAssignment>,
    /// Where `applied` came from.
    pub from: String,
    /// Alerts for the arbiter once the board runs: (game, error, action).
    pub notices: Vec<(String, String, String)>,
    /// The journal is rotated per game (`eboard run --journal-dir`), the
    /// newest N archived games kept: a finished game whose result the
    /// arbiter confirmed, resumed at start while it is the same game
    /// (`run::parts::journal_in`), is archived when another pairing is
    /// taken.
    pub rotate: Option<usize>,
}

impl Taken {
    /// Sets `a` into `cfg` unless the journal holds another game (then it
    /// is refused and alerted); `Err` when it is not this board's.
    pub fn take(
        &mut self,
        cfg: &mut Config,
        a: crate::event::BoardAssignment,
        journal: Option<&Path>,
    ) -> Result<(), String> {
        if a.board != cfg.game.board {
            // Not this board's at all: an error, whatever the journal holds.
            return apply(cfg, &a);
        }
        if let Some((h, records)) = journal.and_then(journaled_game) {
            let why = conflict(&h, &a);
            if let (Some(why), 0, Some(j)) = (&why, records, journal) {
                // Another game's journal that never began: set aside.
                tracing::warn!(
                    "pairing: {why}; no record yet: the journal is set aside (*.unplayed)"
                );
                set_aside(j)?;
            } else if let (Some(why), Some(keep), Some(j)) = (
                &why,
                self.rotate.filter(|_| finished_and_confirmed(journal)),
                journal,
            ) {
                // The next pairing over a confirmed game: archived, taken.
                let dir = j.parent().unwrap_or(Path::new("."));
                if let Some(to) = crate::journal::rotate(dir, keep).map_err(|e| e.to_string())? {
                    tracing::info!(
                        "pairing: {why}; the journaled game has ended and its result is confirmed: its journal moved to {}",
                        to.display()
                    );
                }
            } else if let Some(why) = why {
                let action = match journal.and_then(crate::journal::unconfirmed_result) {
                    // Kept for its confirmation (`eboard run --journal-dir`).
                    Some(result) => format!(
                        "not applied yet: the journaled game ended {result} and its result is not confirmed (DSU 004 §15); the board takes this pairing once the arbiter has confirmed it"
                    ),
                    None => "not applied: the journaled game goes on with its players and time control (never mixed); start the next game with a new journal".into(),
                };
                self.notices
                    .push((h.round.clone().unwrap_or_default(), why, action));
                self.refused = Some(a);
                // The journaled game as it was assigned (its players'
                // FIDE ids, titles …), else its header's names alone.
                let kept = journal
                    .and_then(saved)
                    .filter(|s| conflict(&h, s).is_none())
                    .unwrap_or_else(|| from_header(&h, cfg));
                apply(cfg, &kept)?;
                self.from = "the journaled game".into();
                self.applied = Some(kept);
                return Ok(());
            }
        }
        apply(cfg, &a)?;
        if let Some(j) = journal {
            save(j, &a);
        }
        self.from = if self.applied.is_some() && self.refused.is_none() {
            "the broker's board configuration over the --pairing file".into()
        } else {
            "eboard event".into()
        };
        self.applied = Some(a);
        Ok(())
    }
}

/// Whether the game of `journal` has ended with its result confirmed (and
/// not withdrawn since: `journal::standing`).
fn finished_and_confirmed(journal: Option<&Path>) -> bool {
    journal.is_some_and(|j| {
        let s = crate::journal::standing(j);
        s.result.is_some() && s.confirmed
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Player;

    fn a(round: u32, board: u32, w: &str) -> BoardAssignment {
        BoardAssignment {
            event: Some("Open".into()),
            round,
            board,
            white: Player {
                name: Some(w.into()),
                fide_id: Some(1400001),
                title: Some("GM".into()),
                federation: Some("DEN".into()),
                rating: Some(2560),
            },
            black: Player {
                name: Some("Hansen, Curt".into()),
                ..Player::default()
            },
            time_control: Some("90+30".into()),
            session_start: Some("2026-11-26T15:00:00+01:00".into()),
        }
    }

    #[test]
    fn applied_only_to_its_own_board() {
        let mut c = Config::parse("[game]\nboard = 2\n", "b.toml").unwrap();
        apply(&mut c, &a(3, 2, "Larsen, Bent")).unwrap();
        assert_eq!(c.round_board(), "3.2");
        assert_eq!(c.game.white.rating, Some(2560));
        assert_eq!(c.event.time_control.as_deref(), Some("90+30"));
        assert_eq!(
            c.event.session_start.as_deref(),
            Some("2026-11-26T15:00:00+01:00")
        );
        let e = apply(&mut c, &a(3, 5, "x")).unwrap_err();
        assert!(e.contains("board 5") && e.contains("board = 2"), "{e}");
    }

    #[test]
    fn a_journaled_game_is_never_mixed() {
        let h = Header {
            round: Some("3.2".into()),
            white: Some("Larsen, Bent".into()),
            black: Some("Hansen, Curt".into()),
            ..Header::default()
        };
        assert!(conflict(&h, &a(3, 2, "Larsen, Bent")).is_none());
        let why = conflict(&h, &a(4, 2, "Berg, Ola")).unwrap();
        assert!(why.contains("3.2") && why.contains("4.2"), "{why}");
    }

    #[test]
    fn messages() {
        assert_eq!(parse_message(b"").unwrap(), None);
        assert!(parse_message(b"{").is_err());
        let json = serde_json::to_vec(&a(1, 1, "X")).unwrap();
        assert_eq!(parse_message(&json).unwrap().unwrap().round, 1);
        let mut bad = a(1, 1, "X");
        bad.white.federation = Some("Denmark".into());
        let e = parse_message(&serde_json::to_vec(&bad).unwrap()).unwrap_err();
        assert!(e.contains("white.federation"), "{e}");
    }
}
