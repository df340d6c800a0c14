//! A board's [`Snapshot`]: everything public about one game at one
//! moment (its PGN, LiveChess JSON and the live page's state), and its
//! [`Outline`], what the delay line compares between two snapshots without
//! reading their texts. Made by the publisher (`public/`) from the
//! [`Parts`](super::parts::Parts) of the game.

use super::game_info::GameInfo;
use super::json::Json;
use super::text::Text;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Everything public about one game at one moment.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Snapshot {
    /// Publication order within the feed.
    pub seq: u64,
    /// Round time of the decision, ms.
    pub t: u64,
    /// The game's info.
    pub info: GameInfo,
    /// The game in PGN (with `[%clk]`, `Round "r.b"`, player tags, clocks;
    /// in pieces shared with the snapshots before, [`Text`]).
    pub pgn: Text,
    /// LiveChess `game-M.json` (kept as its text, [`Json`]).
    pub game: Json,
    /// LiveChess pairing entry.
    pub pairing: Value,
    /// The live page's state message (`type: state`; kept as its text).
    pub state: Json,
    /// What the delay line compares between snapshots without reading the
    /// state's text (the publisher's own snapshots; `None` for one read
    /// from elsewhere). Not serialised, not compared.
    #[serde(skip)]
    pub outline: Option<Outline>,
}

impl PartialEq for Snapshot {
    fn eq(&self, o: &Snapshot) -> bool {
        (
            self.seq,
            self.t,
            &self.info,
            &self.pgn,
            &self.game,
            &self.pairing,
            &self.state,
        ) == (o.seq, o.t, &o.info, &o.pgn, &o.game, &o.pairing, &o.state)
    }
}

impl Snapshot {
    /// Whether the game goes on.
    pub fn live(&self) -> bool {
        self.game
            .get("live")
            .and_then(Value::as_bool)
            .unwrap_or(false)
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
