//! The pieces of a board's [`Snapshot`] and its whole build: the PGN's
//! extras, the illegal moves' comment, the result's status and the pairing
//! ([`Parts`]), shared by the publisher's move-by-move build and by
//! [`rebuilt`], the whole build from every move of the game that the
//! publisher's output is tested against, byte for byte (issue 28).

use super::feed_moves::state_entry;
use super::json::Json;
use super::livechess;
use super::pgn::{write_pgn_with, PgnExtras};
use super::public::{
    arbiter_fields, result_status, GameInfo, IllegalMark, Publisher, Snapshot, TRIAL_TAG,
};
use crate::arbiter::Arbiter;
use crate::clock::fmt_shown;
use serde_json::{Map, Value};

/// What a snapshot's outputs share: the PGN's extras, the public comment on
/// illegal moves, the result's status, the pairing entry.
pub(super) struct Parts {
    /// The PGN's tags and comments.
    pub extras: PgnExtras,
    /// The illegal moves' comment (LiveChess `comment`).
    pub comment: Option<String>,
    /// The result's status ([`result_status`]).
    pub status: Option<&'static str>,
    /// The LiveChess pairing entry.
    pub pairing: Value,
    trial: bool,
}

impl Parts {
    pub(super) fn of(info: &GameInfo, marks: &[IllegalMark], game: &Arbiter, t: u64) -> Parts {
        let result = game.outcome().map_or("*", |o| o.result.as_str());
        let mut tags: Vec<(String, String)> = Vec::new();
        if info.trial {
            tags.push((TRIAL_TAG.0.into(), TRIAL_TAG.1.into()));
        }
        for (side, pl) in [("White", &info.white), ("Black", &info.black)] {
            if let Some(id) = pl.fide_id {
                tags.push((format!("{side}FideId"), id.to_string()));
            }
            if let Some(title) = &pl.title {
                tags.push((format!("{side}Title"), title.clone()));
            }
            if let Some(fed) = &pl.federation {
                tags.push((format!("{side}Fed"), fed.clone()));
            }
            if let Some(elo) = pl.rating {
                tags.push((format!("{side}Elo"), elo.to_string()));
            }
        }
        let status = result_status(game);
        if let Some(st) = status {
            // Our own tag: the `Result` is the board's until confirmed.
            tags.push(("ResultStatus".into(), st.into()));
        }
        if let Some((w, b)) = game.clock().map(|c| c.remaining_at(t)) {
            // As the clock shows them: rounded up to the second, as `[%clk]`.
            tags.push(("WhiteClock".into(), fmt_shown(w)));
            tags.push(("BlackClock".into(), fmt_shown(b)));
        }
        let mut comments: Vec<(usize, String)> =
            marks.iter().map(|m| (m.after_ply, m.comment())).collect();
        // A control changed mid-game (2023 III.4): said where it happened
        // (the `TimeControl` tag keeps the game's, docs/broadcast.md).
        if let Some(ch) = game.time_control_change() {
            comments.push((ch.ply as usize, ch.comment()));
        }
        // A corrected result or a forfeit keeps the arbiter's reason in the
        // record.
        if let Some(c) = game.confirmation().filter(|c| c.corrected || c.forfeit) {
            if let Some(why) = &c.reason {
                let what = if c.forfeit {
                    "forfeit entered by the arbiter"
                } else {
                    "result corrected by the arbiter to"
                };
                comments.push((
                    game.moves().len(),
                    format!("{what} {}: {why}", c.result.as_str()),
                ));
            }
        }
        let extras = PgnExtras {
            round: Some(info.id()),
            tags,
            comments,
        };
        let comment = (!marks.is_empty()).then(|| {
            marks
                .iter()
                .map(IllegalMark::comment)
                .collect::<Vec<_>>()
                .join(" / ")
        });
        let mut pairing = livechess::pairing_json(info, result, game.outcome().is_none());
        let mut parts = Parts {
            extras,
            comment,
            status,
            pairing: Value::Null,
            trial: info.trial,
        };
        if let Value::Object(m) = &mut pairing {
            parts.extend_chess(m);
        }
        parts.pairing = pairing;
        parts
    }

    /// Our extension of the LiveChess tree: the result's status, the trial.
    pub(super) fn extend_chess(&self, m: &mut Map<String, Value>) {
        if let Some(st) = self.status {
            m.insert("resultStatus".into(), Value::from(st));
        }
        if self.trial {
            m.insert("trial".into(), Value::from(true));
        }
    }
}

/// What the delay line ([`super::settle`]) compares between two snapshots
/// of a game, kept beside the texts so that it reads no state (issue 28:
/// parsing a 1,000-ply state per update cost more than building it), in a
/// size that does not grow with the game: the moves (their count, the
/// chained digest of all their UCIs, and how many of them the publisher
/// kept unchanged since its previous snapshot) and the state's `result`,
/// `result_status` and `reason`.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    /// The completed plies the snapshot shows.
    pub plies: usize,
    /// The digest of the UCIs of all those plies, chained move by move
    /// ([`super::feed_moves::FeedMoves::digest`]; 0 for none): two equal
    /// `(plies, last)` mean the same moves, but for a 2^-64 chance.
    pub last: u64,
    /// The plies of the publisher's previous snapshot (`since`) that every
    /// update in between kept unchanged (the low-water mark of the moves
    /// kept, [`super::feed_moves::FeedMoves::take_kept`]): a move it showed
    /// beyond them was taken back or changed on the way, even if played
    /// again since. At most `plies`.
    pub kept: usize,
    /// The `seq` of that previous snapshot (0: none).
    pub since: u64,
    /// The publisher that made it (unique within the process): `kept` and
    /// `since` link only snapshots of one publisher.
    pub lineage: u64,
    /// The state's `result`, `result_status`, `reason`.
    pub result: [Value; 3],
}

impl Outline {
    /// The outline of a state whose members are `state` (without `moves`),
    /// the other members as [`Outline`]'s.
    pub(super) fn of(
        state: &Map<String, Value>,
        (plies, last): (usize, u64),
        (kept, since, lineage): (usize, u64, u64),
    ) -> Outline {
        Outline {
            plies,
            last,
            kept,
            since,
            lineage,
            result: RESULT_KEYS.map(|k| state.get(k).cloned().unwrap_or(Value::Null)),
        }
    }

    /// Whether the two outlines show the same moves.
    pub fn same_moves(&self, other: &Outline) -> bool {
        (self.plies, self.last) == (other.plies, other.last)
    }
}

/// The state's members that say the result, as the public shows it.
pub(super) const RESULT_KEYS: [&str; 3] = ["result", "result_status", "reason"];

/// The public snapshot and the arbiter's at round time `t` built whole from
/// every move of `game` (the PGN by [`write_pgn_with`], the LiveChess game
/// by [`livechess::game_json`], the state with a `moves` array of every
/// move): what the publisher's last update gave, byte for byte, when
/// called right after it with the same `game` and `t`. Its cost grows with
/// the game; for tests and benches.
pub fn rebuilt(p: &Publisher, game: &Arbiter, t: u64) -> (Snapshot, Snapshot) {
    let info = p.info();
    let parts = Parts::of(info, p.marks(), game, t);
    let pgn = write_pgn_with(game, &parts.extras);
    let mut game_json = livechess::game_json(game, info, parts.comment.as_deref(), t);
    if let Value::Object(m) = &mut game_json {
        parts.extend_chess(m);
    }
    let mut state = p.state_fields(game, t, parts.status);
    let moves: Vec<Value> = game
        .moves()
        .iter()
        .enumerate()
        .map(|(i, m)| state_entry(m, p.spoken(i)))
        .collect();
    state.insert("moves".into(), Value::from(moves));
    let mut arbiter_state = state.clone();
    arbiter_fields(&mut arbiter_state, game);
    let public = Snapshot {
        seq: p.seq(),
        t,
        info: info.clone(),
        pgn: pgn.into(),
        game: Json::from(game_json),
        pairing: parts.pairing,
        state: Json::from(Value::Object(state)),
        outline: None,
    };
    let arbiter = Snapshot {
        state: Json::from(Value::Object(arbiter_state)),
        ..public.clone()
    };
    (public, arbiter)
}
