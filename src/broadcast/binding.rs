//! The HTTP relay's sources bound to their tables (issue 41 §2,
//! `docs/relay-integrity.md`): each board URL may report only its own
//! table's game. A URL is given its table on the command line
//! (`3.2=http://…`: game 3.2; `2=http://…`: table 2, the rounds followed),
//! or, given bare, is bound to the table of the first game it reports
//! (a table no other URL holds). Its game changes only to a later round at
//! that table (`--round` given: to another round followed). A game is
//! taken once its snapshot (`/boards.json`, `/arbiter/state`) has passed
//! [`crate::broadcast::bound`]'s checks — the table, the round, the size,
//! and the pairing's players when the relay knows the pairings — and a
//! stream message of it only then: the messages of a game not yet vetted
//! wait (at most [`MAX_HELD`]) for its snapshot. Everything else is
//! dropped, logged at warn and alerted (`uplink_alert`, rate-limited,
//! [`Refusals`]); a board URL serving board 2's game publishes nothing,
//! alerts nothing and is told no ruling for board 2.
//!
//! Transport-free: the HTTP relay ([`super::relay`]) asks, and publishes
//! what it is told to.

use super::bound::{check_players, Pairings, Refusals, Scope, MAX_GAMES, MAX_MESSAGE};
use super::public::Snapshot;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::time::Instant;

/// The most stream messages of a not-yet-vetted game held per source
/// (the board's first messages of a new game, until the relay has read
/// the game's snapshot, a few seconds at most: one a ply).
pub const MAX_HELD: usize = 256;

/// The most bytes of such held messages per source: 1 MiB (an events
/// message is 1.7 KB on average, measured, `docs/mqtt.md`); past it the
/// oldest go first (the game's snapshot covers them).
pub const MAX_HELD_BYTES: usize = 1024 * 1024;

/// The largest `/boards.json` (`/arbiter/state`) read from one board:
/// 1 MiB, four times [`MAX_MESSAGE`]; a board serves its own game (the
/// Opera Game's snapshot is 3.2 KB, measured).
pub const MAX_SNAPSHOTS_BODY: usize = 4 * MAX_MESSAGE;

/// Where the refusals' alerts go: the console's channel or its queue.
pub type AlertSink = Arc<dyn Fn(Arc<str>) + Send + Sync>;

/// What a board URL is configured to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// Nothing given: the table of the first game it reports.
    Any,
    /// `N=URL`: table N, in the rounds followed.
    Board(u32),
    /// `R.N=URL`: game R.N only.
    Game(u32, u32),
}

/// Splits a relay's board argument into its table and its URL:
/// `3.2=http://h:8080` (game 3.2), `2=http://h:8080` (table 2),
/// `http://h:8080` (any: the first game it reports).
pub fn split_source(arg: &str) -> Result<(Table, &str), String> {
    let arg = arg.trim();
    let Some((table, url)) = arg.split_once('=').filter(|(t, _)| !t.contains(':')) else {
        return Ok((Table::Any, arg));
    };
    let positive = |s: &str| s.parse::<u32>().ok().filter(|n| *n >= 1);
    let t = match table.split_once('.') {
        Some((r, b)) => positive(r).zip(positive(b)).map(|(r, b)| Table::Game(r, b)),
        None => positive(table).map(Table::Board),
    };
    match t {
        Some(t) => Ok((t, url.trim())),
        None => Err(format!(
            "{arg}: before '=' give the board's table (2=URL) or game (3.2=URL), numbers from 1"
        )),
    }
}

/// The checks a relay applies to its sources, and where refusals go.
#[derive(Clone)]
pub struct Bind {
    /// The rounds and boards followed (`--round`, `--boards`).
    pub scope: Scope,
    /// The event's pairings, when the relay knows them (`[arbiter] pairings`).
    pub pairings: Option<Pairings>,
    /// Where a refusal's alert goes (`None`: the warn line only).
    pub alert: Option<AlertSink>,
    /// The refusals so far (shared by the public and the arbiter's feeds:
    /// one forgery seen on both is alerted once).
    pub refusals: Arc<Mutex<Refusals>>,
}

impl Default for Bind {
    fn default() -> Self {
        Bind {
            scope: Scope::default(),
            pairings: None,
            alert: None,
            refusals: Arc::new(Mutex::new(Refusals::new("http"))),
        }
    }
}

/// One source's binding.
#[derive(Debug, Default)]
struct Bound {
    /// Its table, once configured or first reported.
    board: Option<u32>,
    /// Its games taken (vetted by their snapshots), oldest first: one
    /// (the latest round) without `--round`.
    games: Vec<(u32, u32)>,
    /// Messages of games not yet vetted, in their order.
    held: VecDeque<((u32, u32), Arc<str>)>,
}

/// What the relay does with a source's snapshots ([`Binding::snapshots`]).
#[derive(Debug, Default)]
pub struct Taken {
    /// The snapshots to publish.
    pub snapshots: Vec<Snapshot>,
    /// The games that left (an earlier round at the table): forgotten.
    pub forget: Vec<(u32, u32)>,
    /// Held messages, now vetted: to publish after the snapshots.
    pub release: Vec<Arc<str>>,
}

/// The bindings of one feed's sources (the public feed, or the arbiter's).
pub struct Binding {
    bind: Bind,
    /// Per base URL: its configured table and its binding.
    sources: Mutex<Sources>,
    /// Games that left their table and are still shown ([`Binding::keep_retired`]).
    retired: std::sync::atomic::AtomicUsize,
    /// Whether a game's snapshot shows every message of the feed up to
    /// its round time (the public feed: [`Binding::public`]); then the
    /// held messages it shows are not sent again.
    covers: bool,
}

/// Per base URL its configured table and binding; per table the URL that
/// holds it.
type Sources = (HashMap<String, (Table, Bound)>, HashMap<u32, String>);

impl Binding {
    /// The bindings of `sources` (base URL, configured table) under
    /// `bind`; an error names two URLs given the same table, or one URL
    /// given twice.
    pub fn new(bind: Bind, sources: &[(String, Table)]) -> Result<Binding, String> {
        let mut map = HashMap::new();
        let mut boards: HashMap<u32, String> = HashMap::new();
        for (base, table) in sources {
            let mut b = Bound::default();
            if let Table::Board(n) | Table::Game(_, n) = *table {
                if let Some(other) = boards.insert(n, base.clone()) {
                    return Err(format!(
                        "{base} and {other} are both given table {n}: one URL per table"
                    ));
                }
                b.board = Some(n);
            }
            if map.insert(base.clone(), (*table, b)).is_some() {
                return Err(format!("{base} is given twice"));
            }
        }
        Ok(Binding {
            bind,
            sources: Mutex::new((map, boards)),
            retired: std::sync::atomic::AtomicUsize::new(0),
            covers: false,
        })
    }

    /// This binding for the public feed (`/events`, `/boards.json`): a
    /// game's public snapshot shows every public message up to its round
    /// time `t` (the board's publisher builds it after each decision,
    /// `broadcast::public`), so of the messages held for it only those
    /// after it are sent on; a page applying an older `move` after the
    /// snapshot would step back to it, an older `illegal_move` would be
    /// marked twice. Not for the arbiter's feed: an alert is an event of
    /// his channel that his `/arbiter/state` need not show.
    pub fn public(mut self) -> Binding {
        self.covers = true;
        self
    }

    fn lock(&self) -> MutexGuard<'_, Sources> {
        self.sources.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Refuses for `why` what `base` sent: the warn line (or debug) and
    /// the rate-limited alert.
    fn refuse(&self, base: &str, why: &str) {
        let alert = self
            .bind
            .refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .refuse(base, why, Instant::now());
        if let (Some(a), Some(sink)) = (alert, &self.bind.alert) {
            sink(a);
        }
    }

    /// Refuses `base`'s `path` (`/boards.json`, `/arbiter/state`): over
    /// [`MAX_SNAPSHOTS_BODY`].
    pub fn refuse_body(&self, base: &str, path: &str) {
        self.refuse(
            base,
            &format!(
                "its {path} is over {MAX_SNAPSHOTS_BODY} bytes (a board's own game's snapshot is a few KB): not read"
            ),
        );
    }

    /// Whether game `(r, b)` may be `base`'s: `Ok(true)` yes, `Ok(false)`
    /// not followed (a round or table outside the scope, an earlier round
    /// than its latest: dropped at debug), else what did not match.
    fn fits(
        &self,
        base: &str,
        table: Table,
        bound: &Bound,
        boards: &HashMap<u32, String>,
        (r, b): (u32, u32),
    ) -> Result<bool, String> {
        let whose = |n: u32| match table {
            Table::Any => format!("board {n}'s, the first it reported"),
            _ => format!("board {n}'s, as the relay was told ({n}=URL)"),
        };
        if let Some(n) = bound.board {
            if b != n {
                return Err(format!(
                    "it names game {r}.{b} (board {b}), not {}",
                    whose(n)
                ));
            }
        } else if let Some(other) = boards.get(&b).filter(|o| *o != base) {
            return Err(format!(
                "it names game {r}.{b}, but board {b} is reported by {other}: two sources for one \
                 board, the arbiter decides (give each URL its board: {b}=URL)"
            ));
        }
        if let Table::Game(want, _) = table {
            if r != want {
                return Err(format!(
                    "it names game {r}.{b} (round {r}), not game {want}.{b}, the one the relay was told ({want}.{b}=URL)"
                ));
            }
        }
        if !self.bind.scope.has_board(b) || !self.bind.scope.has_round(r) {
            return Ok(false);
        }
        let latest = self.bind.scope.rounds.is_empty() && !matches!(table, Table::Game(..));
        if latest && bound.games.iter().any(|g| g.0 > r) {
            return Ok(false);
        }
        Ok(true)
    }

    /// Takes what `base` may report of its `list` (one board's
    /// `/boards.json` or `/arbiter/state`); the rest is refused.
    pub fn snapshots(&self, base: &str, list: Vec<Snapshot>) -> Taken {
        let mut taken = Taken::default();
        let mut refused: Vec<String> = Vec::new();
        {
            let mut guard = self.lock();
            let (sources, boards) = &mut *guard;
            let kept: usize = sources.values().map(|(_, b)| b.games.len()).sum();
            let Some((table, bound)) = sources.get_mut(base) else {
                return taken;
            };
            for s in list {
                let game = (s.info.round, s.info.board);
                let checked = self
                    .fits(base, *table, bound, boards, game)
                    .and_then(|fits| {
                        if !fits {
                            return Ok(false);
                        }
                        if let Some(p) = &self.bind.pairings {
                            let paired = p.of(game.0, game.1);
                            check_players(&paired, game, &s.info.white, &s.info.black)?;
                        }
                        let size = serde_json::to_vec(&s).map_or(0, |v| v.len());
                        if size > MAX_MESSAGE {
                            return Err(format!(
                                "its snapshot of game {}.{} is {size} bytes, more than the {MAX_MESSAGE} taken (a real game's is a few KB)",
                                game.0, game.1
                            ));
                        }
                        if !bound.games.contains(&game) && kept >= MAX_GAMES {
                            return Err(format!("this relay keeps {MAX_GAMES} games already"));
                        }
                        Ok(true)
                    });
                match checked {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::debug!(base, game = %s.info.id(), "relay: a game not followed");
                        continue;
                    }
                    Err(why) => {
                        // Its held messages go with it.
                        bound.held.retain(|(g, _)| *g != game);
                        refused.push(why);
                        continue;
                    }
                }
                if bound.board.is_none() {
                    tracing::info!(base, board = game.1, "relay: the board's URL is bound to table {} (the first game it reported, {})", game.1, s.info.id());
                    bound.board = Some(game.1);
                    boards.insert(game.1, base.to_owned());
                }
                if !bound.games.contains(&game) {
                    let latest = self.bind.scope.rounds.is_empty();
                    if latest {
                        for old in bound.games.drain(..) {
                            tracing::info!(
                                base,
                                "relay: board {} plays game {} now: game {}.{} leaves",
                                game.1,
                                s.info.id(),
                                old.0,
                                old.1
                            );
                            taken.forget.push(old);
                        }
                    }
                    bound.games.push(game);
                }
                let (now, later): (Vec<_>, Vec<_>) =
                    bound.held.drain(..).partition(|(g, _)| *g == game);
                bound.held = later.into();
                let (held, before) = (now.len(), taken.release.len());
                taken.release.extend(
                    now.into_iter()
                        .map(|(_, m)| m)
                        .filter(|m| !self.covers || time_of(m).is_none_or(|t| t > s.t)),
                );
                if taken.release.len() - before < held {
                    tracing::debug!(base, game = %s.info.id(), "relay: held messages its public snapshot shows already, not sent");
                }
                taken.snapshots.push(s);
            }
            // Held messages of a game that left are not waited for.
            let games = bound.games.clone();
            bound
                .held
                .retain(|(g, _)| !games.iter().any(|k| k.1 == g.1 && k.0 > g.0));
        }
        for why in refused {
            self.refuse(base, &why);
        }
        taken
    }

    /// What to publish of stream message `msg` from `base`: itself when it
    /// is of a game taken (or of none), the message held when its game may
    /// become `base`'s (its snapshot decides), nothing when refused.
    pub fn message(&self, base: &str, msg: Arc<str>) -> Option<Arc<str>> {
        if msg.len() > MAX_MESSAGE {
            self.refuse(
                base,
                &format!(
                    "a message of {} bytes, more than the {MAX_MESSAGE} taken",
                    msg.len()
                ),
            );
            return None;
        }
        let Some(game) = super::delay::game_of(&msg) else {
            if msg.contains("\"game\"") && game_named(&msg) {
                self.refuse(base, "it names a game that is not a game id (round.board)");
                return None;
            }
            return Some(msg);
        };
        let why = {
            let mut guard = self.lock();
            let (sources, boards) = &mut *guard;
            let (table, bound) = sources.get_mut(base)?;
            if bound.games.contains(&game) {
                return Some(msg);
            }
            match self.fits(base, *table, bound, boards, game) {
                Ok(true) => {
                    let mut bytes: usize = bound.held.iter().map(|(_, m)| m.len()).sum();
                    while bound.held.len() >= MAX_HELD || bytes + msg.len() > MAX_HELD_BYTES {
                        let Some((_, m)) = bound.held.pop_front() else {
                            break;
                        };
                        bytes -= m.len();
                        tracing::debug!(
                            base,
                            "relay: a held message dropped (its game's snapshot covers it)"
                        );
                    }
                    bound.held.push_back((game, msg));
                    return None;
                }
                Ok(false) => {
                    tracing::debug!(base, game = %format!("{}.{}", game.0, game.1), "relay: a message of a game not followed");
                    return None;
                }
                Err(why) => why,
            }
        };
        self.refuse(base, &why);
        None
    }

    /// Whether a game that left its table (an earlier round) may stay in
    /// view (the console's): at most [`MAX_GAMES`] in a run, so a board
    /// counting rounds up cannot fill the relay.
    pub fn keep_retired(&self) -> bool {
        self.retired
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            < MAX_GAMES
    }

    /// The games `base` reports now (taken), as `round.board`.
    pub fn games_of(&self, base: &str) -> Vec<String> {
        self.lock().0.get(base).map_or_else(Vec::new, |(_, b)| {
            b.games.iter().map(|(r, b)| format!("{r}.{b}")).collect()
        })
    }
}

/// A message's round time `t` (ms, the trace contract's), when it has one.
fn time_of(msg: &str) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct TimeOf {
        #[serde(default)]
        t: Option<u64>,
    }
    serde_json::from_str::<TimeOf>(msg).ok()?.t
}

/// Whether `msg` has a top-level `"game"` that is not null.
fn game_named(msg: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(msg)
        .ok()
        .and_then(|v| v.get("game").map(|g| !g.is_null()))
        .unwrap_or(false)
}

#[cfg(test)]
#[path = "binding_tests.rs"]
mod tests;
