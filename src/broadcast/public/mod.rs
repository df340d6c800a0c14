//! The public view of one game: what spectators may see, built after each
//! decision of the controller as a [`Snapshot`] (PGN, LiveChess JSON and the
//! live page's state), and the split of the event stream into the public
//! feed and the arbiter's channel.
//!
//! Public: `move`, `clock`, `flag`, `game_end`, and the illegal move as
//! played (`illegal_move`, with `played`) with its correction
//! (`position_restored`): a broadcast must never stall on an illegal move,
//! so the feed carries it as a marked comment on the last legal move and
//! corrects the comment when the position is reinstated. Everything else
//! (touches, irregularities, claims, announcements, draw offers) goes to the
//! arbiter only (§13.7a: irregularities are reported to the arbiter).
//! The rulings of [`PUBLIC_RULINGS`] are public with what they did in the
//! board's words, never with the arbiter's own reason (issue 42 §5:
//! `public_text`); the PGN says a forfeit or a correction in fixed words
//! (`parts::confirmation_words`).
//!
//! Every message carries `"game": "round.board"`. For blind spectators
//! (Appendix E's words, issue 14) each `move` also carries `spoken`, the
//! move as the announcement says it, and `lang`, the event's language; the
//! state carries `lang` and each move's `spoken` too. The words are the
//! voice's phrase grammar ([`crate::voice::move_phrase`]), read-only.

pub(super) use super::arbiter_view::arbiter_fields;
pub use super::arbiter_view::stage_name;
use super::arbiter_view::timeless;
use super::feed_moves::FeedMoves;
pub use super::game_info::{GameInfo, TRIAL_TAG};
use super::json::{object_with_array, Json};
use super::livechess;
use super::parts::Parts;
pub use super::parts::{result_status, IllegalMark};
use super::pgn_live::LivePgn;
use super::snapshot::Outline;
pub use super::snapshot::Snapshot;
use crate::arbiter::Arbiter;
use crate::model::{Edition, Lang};
use crate::trace::{color_str, Event, EventKind};
use crate::voice::{Vocabulary, VoiceOptions};
use serde_json::{Map, Value};
use shakmaty::Position;
use std::sync::Arc;

mod state;

/// What one decision publishes.
#[derive(Debug, Clone)]
pub struct Update {
    /// Publication order.
    pub seq: u64,
    /// Round time of the decision, ms.
    pub t: u64,
    /// The new public state, when it changed.
    pub snapshot: Option<Arc<Snapshot>>,
    /// The arbiter's state of the same moment (the public one with the
    /// arbiter's fields: `open`, `rulings`, …, [`arbiter_state`]); `None`
    /// beside a public one: it serves both; `None` without: neither changed.
    pub arbiter_snapshot: Option<Arc<Snapshot>>,
    /// Public messages (JSON, one line each).
    pub public: Vec<Arc<str>>,
    /// The arbiter's messages: every event.
    pub arbiter: Vec<Arc<str>>,
}

/// Builds the public view of one game as its decisions come.
#[derive(Debug, Clone)]
pub struct Publisher {
    info: GameInfo,
    marks: Vec<IllegalMark>,
    seq: u64,
    /// The words of the moves, once the game's settings are seen.
    voice: Option<Vocabulary>,
    /// The moves published so far, their spoken words and feed entries
    /// (made once per ply).
    moves: FeedMoves,
    /// The PGN's movetext so far (wrapped once per ply).
    pgn: LivePgn,
    /// The completed plies of the last snapshot: a move taken back without
    /// a public event (a touch-move claim upheld) changes the snapshot too.
    shown_plies: usize,
    /// This publisher's number in the process ([`Outline::lineage`]).
    lineage: u64,
    /// The `seq` of the last public snapshot (0: none yet).
    last_public: u64,
    /// The arbiter's state members of his last snapshot but the time of
    /// reading ([`timeless`]): an event only he sees sends his snapshot
    /// again only when they changed.
    arbiter_seen: Option<Map<String, Value>>,
}

/// The publishers made so far in this process ([`Outline::lineage`]).
static LINEAGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The language the page and the spoken moves take: the game's announcement
/// language, else the profile's own (Danish for the Danish texts, Norwegian
/// for the Norwegian one, English for 2023).
pub fn spoken_lang(game: &Arbiter) -> Lang {
    let cfg = game.config();
    cfg.announcement_lang()
        .unwrap_or(match cfg.profile.edition {
            Edition::Fide2001 | Edition::Fide2009 => Lang::Da,
            Edition::Fide2009No => Lang::Nb,
            Edition::Fide2023 => Lang::En,
        })
}

fn is_public(e: &Event) -> bool {
    matches!(
        e.kind,
        EventKind::Move { .. }
            | EventKind::Clock { .. }
            | EventKind::Flag { .. }
            | EventKind::GameEnd { .. }
            | EventKind::IllegalMove { .. }
            | EventKind::PositionRestored { .. }
            | EventKind::ResultConfirmed { .. }
    ) || matches!(&e.kind, EventKind::Ruling { action, .. } if PUBLIC_RULINGS.contains(action))
}

/// The rulings the public feed shows with the arbiter's name (their effects
/// are public); the others (`overrule`, `accept` of a claim, `choose`) stay
/// on the arbiter's channel. `time_control` (6.10.2) and `downtime` (7.1)
/// change the clocks the public sees.
pub const PUBLIC_RULINGS: [&str; 13] = [
    "restore",
    "result",
    "confirm",
    "forfeit",
    "position",
    "clock",
    "pause",
    "resume",
    "rewind",
    "time_control",
    "downtime",
    "withdraw",
    "displaced",
];

/// The public text of the feed message `msg` of event `e`: a ruling's
/// `effect` without the arbiter's own words (issue 42 §5: his reason for a
/// forfeit, a correction or a declared result stays in the journal, his
/// channel and the round report; the public gets what the ruling did, in
/// the board's fixed words, and the PGN its `Termination`). Any other
/// message as it is.
fn public_text(e: &Event, msg: &Value) -> String {
    match (&e.kind, msg) {
        (
            EventKind::Ruling {
                effect,
                reason_at: Some(at),
                ..
            },
            Value::Object(m),
        ) => {
            let mut m = m.clone();
            // Never more than the board's words: an offset off a character
            // boundary (impossible: it is where the reason was appended)
            // shows none.
            let shown = effect.get(..*at).unwrap_or_default();
            m.insert("effect".into(), Value::from(shown));
            Value::Object(m).to_string()
        }
        _ => msg.to_string(),
    }
}

/// What the board shows of an illegal move, compared with the position.
fn played(game: &Arbiter) -> String {
    let pos = game.position().board();
    let diff = game.sensed().differences(pos);
    let vacated = diff & pos.occupied() & !game.sensed().occupied();
    let arrived = diff & !vacated;
    if vacated.count() == 1 && arrived.count() == 1 {
        let from = vacated.first().expect("one square");
        let to = arrived.first().expect("one square");
        let letter = pos
            .piece_at(from)
            .map(|p| p.role.upper_char())
            .filter(|c| *c != 'P')
            .map(String::from)
            .unwrap_or_default();
        format!("{letter}{from}-{to}")
    } else if diff.is_empty() {
        "a move".to_owned()
    } else {
        let sq: Vec<String> = diff.into_iter().map(|s| s.to_string()).collect();
        format!("a change on {}", sq.join(" "))
    }
}

impl Publisher {
    /// A publisher for the game described by `info`.
    pub fn new(info: GameInfo) -> Publisher {
        Publisher {
            info,
            marks: Vec::new(),
            seq: 0,
            voice: None,
            moves: FeedMoves::default(),
            pgn: LivePgn::default(),
            shown_plies: 0,
            lineage: LINEAGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
            last_public: 0,
            arbiter_seen: None,
        }
    }

    /// The game's info.
    pub fn info(&self) -> &GameInfo {
        &self.info
    }

    /// A JSON message of the feed: the event with `"game": "r.b"`.
    pub fn message(&self, e: &Event, extra: &[(&str, Value)]) -> Arc<str> {
        Arc::from(self.message_value(e, extra).to_string())
    }

    fn message_value(&self, e: &Event, extra: &[(&str, Value)]) -> Value {
        let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("game".into(), Value::from(self.info.id()));
            for (k, x) in extra {
                m.insert((*k).into(), x.clone());
            }
        }
        v
    }

    /// Brings the spoken words of `game`'s moves up to date: a ply whose
    /// move changed (taken back, set up anew) is said again, a new one said
    /// once.
    fn refresh_spoken(&mut self, game: &Arbiter) {
        let voc = self.voice.get_or_insert_with(|| {
            Vocabulary::new(
                spoken_lang(game),
                game.config().profile.edition,
                VoiceOptions::default(),
            )
        });
        self.moves.sync(game, voc);
    }

    /// The state at round time `t` (the feed's first snapshot, or after a restart).
    pub fn snapshot_now(&mut self, game: &Arbiter, t: u64) -> Update {
        self.refresh_spoken(game);
        self.seq += 1;
        let (snap, arb) = self.snapshot(game, t, true);
        let (snap, arb) = (Arc::new(snap), Arc::new(arb));
        let state: Arc<str> = snap.state.shared();
        Update {
            seq: self.seq,
            t,
            snapshot: Some(snap),
            public: vec![state],
            arbiter: vec![arb.state.shared()],
            arbiter_snapshot: Some(arb),
        }
    }

    /// Publishes the decisions `events` taken at round time `t` on `game`
    /// (after they were applied). `forced`: the arbiter acted, so the state
    /// is sent again (a position set up takes moves back without a move
    /// event). `None` when nothing is to be published.
    pub fn update(
        &mut self,
        game: &Arbiter,
        events: &[Event],
        t: u64,
        forced: bool,
    ) -> Option<Update> {
        if events.is_empty() && !forced {
            return None;
        }
        let mut public = Vec::new();
        let mut arbiter = Vec::new();
        // A move taken back by a decision the public does not see (a claim
        // upheld) changes what the public is shown.
        let mut changed = forced || game.moves().len() != self.shown_plies;
        self.refresh_spoken(game);
        let lang = self.voice.as_ref().map(|v| v.lang().as_str());
        for e in events {
            let mut extra = Vec::new();
            match &e.kind {
                EventKind::Move { ply, .. } => {
                    for m in self.marks.iter_mut() {
                        m.corrected = true;
                    }
                    let said = (*ply as usize)
                        .checked_sub(1)
                        .and_then(|i| self.moves.spoken(i))
                        .map(str::to_owned);
                    if let (Some(words), Some(lang)) = (said, lang) {
                        extra.push(("spoken", Value::from(words)));
                        extra.push(("lang", Value::from(lang)));
                    }
                }
                EventKind::IllegalMove {
                    by,
                    article,
                    penalty,
                    penalty_article,
                    ..
                } => {
                    let p = played(game);
                    extra.push(("played", Value::from(p.clone())));
                    self.marks.push(IllegalMark {
                        after_ply: game.moves().len(),
                        by: color_str(by.0).to_owned(),
                        article: (*article).to_owned(),
                        penalty: penalty.to_string(),
                        penalty_article: (*penalty_article).to_owned(),
                        played: p,
                        corrected: false,
                        t: e.t,
                        withdrawn: false,
                    });
                }
                EventKind::PositionRestored { .. } => {
                    for m in self.marks.iter_mut() {
                        m.corrected = true;
                    }
                }
                _ => {}
            }
            let mut msg = self.message_value(e, &extra);
            if is_public(e) {
                changed = true;
                public.push(Arc::from(public_text(e, &msg)));
            }
            // The arbiter's copy says when it happened on the board (wall
            // time, Unix ms, from its round time): an alert shows that time,
            // also when a relay started later receives it (issue 24 §8).
            if let Value::Object(m) = &mut msg {
                m.insert("unix_ms".into(), Value::from(self.info.unix_ms(e.t)));
            }
            arbiter.push(Arc::from(msg.to_string()));
        }
        let n = game.moves().len();
        self.marks.retain(|m| m.after_ply <= n);
        // A penalty withdrawn (or given again by an undo) by the arbiter.
        for m in self.marks.iter_mut() {
            m.withdrawn = game.penalty_withdrawn(m.t);
        }
        if !changed {
            self.seq += 1;
            // The arbiter's state changes on what only he sees (a claim
            // decided, an alert opened or closed: `open`, `rulings`): his
            // snapshot is sent again when it did, the public's is not. A
            // touch changes nothing of it but the time of reading: nothing
            // is built (issue 28: it doubled the cost of a ply).
            let arbiter_snapshot = (!arbiter.is_empty() && self.arbiter_changed(game, t))
                .then(|| Arc::new(self.snapshot(game, t, false).1));
            return Some(Update {
                seq: self.seq,
                t,
                snapshot: None,
                public,
                arbiter,
                arbiter_snapshot,
            });
        }
        self.seq += 1;
        let (snap, arb) = self.snapshot(game, t, true);
        let (snap, arb) = (Arc::new(snap), Arc::new(arb));
        if forced {
            public.push(snap.state.shared());
            arbiter.push(arb.state.shared());
        }
        Some(Update {
            seq: self.seq,
            t,
            snapshot: Some(snap),
            public,
            arbiter,
            arbiter_snapshot: Some(arb),
        })
    }

    /// The public snapshot and the arbiter's at round time `t`, from the
    /// moves kept so far ([`FeedMoves`], [`LivePgn`]): the work per update
    /// does not grow with the game, the texts' kept parts being shared
    /// chunks, not copies (issue 28).
    /// Byte for byte [`super::rebuilt::rebuilt`]'s whole build. `public`:
    /// the public one is published (it gets the [`Outline`] that links it
    /// to the one before); else only the arbiter's is.
    fn snapshot(&mut self, game: &Arbiter, t: u64, public: bool) -> (Snapshot, Snapshot) {
        self.shown_plies = game.moves().len();
        let parts = Parts::of(&self.info, &self.marks, game, t);
        let pgn = self
            .pgn
            .write(game, &parts.extras, self.moves.last_illegal());
        let mut game_map = livechess::game_fields(game, &self.info, parts.comment.as_deref(), t);
        parts.extend_chess(&mut game_map);
        let game_json = Json::from_pieces(object_with_array(
            &game_map,
            "moves",
            self.moves.chess_items(),
        ));
        let mut state = self.state_fields(game, t, parts.status);
        let public_state =
            Json::from_pieces(object_with_array(&state, "moves", self.moves.state_items()));
        let outline = public.then(|| {
            let link = (self.moves.take_kept(), self.last_public, self.lineage);
            self.last_public = self.seq;
            Outline::of(&state, self.moves.digest(), link)
        });
        arbiter_fields(&mut state, game);
        let arbiter_state =
            Json::from_pieces(object_with_array(&state, "moves", self.moves.state_items()));
        let public = Snapshot {
            seq: self.seq,
            t,
            info: self.info.for_game(game),
            pgn,
            game: game_json,
            pairing: parts.pairing,
            state: public_state,
            outline,
        };
        let arbiter = Snapshot {
            state: arbiter_state,
            ..public.clone()
        };
        self.arbiter_seen = Some(timeless(state));
        (public, arbiter)
    }

    /// Whether the arbiter's state at `t` differs from his last snapshot's
    /// in more than the time of reading.
    fn arbiter_changed(&self, game: &Arbiter, t: u64) -> bool {
        let mut state = self.state_fields(game, t, result_status(game));
        arbiter_fields(&mut state, game);
        self.arbiter_seen.as_ref() != Some(&timeless(state))
    }

    /// The publication number of the last update.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The illegal moves the feed marks.
    pub fn marks(&self) -> &[IllegalMark] {
        &self.marks
    }

    /// The spoken words of move `i` (0-based), when said.
    pub fn spoken(&self, i: usize) -> Option<&str> {
        self.moves.spoken(i)
    }
}
