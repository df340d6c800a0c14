//! What the public gets of a decision the arbiter changed within the
//! transmission delay (issue 24 §5: "the PGN and feeds carry the final
//! result"): when the delay releases an update, the later updates of the
//! same game decided within the delay after it are already known (they
//! wait in the delay line behind it).
//!
//! - **Moves taken back.** If one of those no longer has a move the
//!   update shows (an undo that takes moves back, a position set, a
//!   restored illegal move), the update is withheld: its state, its `move`,
//!   `game_end` and `result_confirmed` messages and its `ruling`s never
//!   reach the public, which keeps the state it had until the take-back is
//!   released. Its other messages (an `illegal_move`, a `clock`) go out.
//! - **A result changed with no move between** (a correction, an undo, a
//!   result declared by mistake and withdrawn): the result of the update
//!   being released is an intermediate value, the public never sees it.
//!   The update carries the state that stands after the last such change
//!   (the same moves: nothing of the game is let out early, only the
//!   arbiter's decision on its result), and its result messages
//!   (`game_end`, `result_confirmed`, the `ruling`s) are left out, as is a
//!   later `undo` of a ruling the public never saw.
//!
//! Only the updates decided less than the delay after the released one are
//! looked at, so that a restarted daemon, whose replay of the journal
//! fills the delay line at once, releases the same messages as the live
//! run did (the stream ids stay the same).

use super::public::{Snapshot, Update};
use super::snapshot::RESULT_KEYS;
use serde_json::Value;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

/// The result as the public shows it: `result`, `result_status`, `reason`
/// of a snapshot's state (from its outline when it has one: the state's
/// text is not read).
fn result_of(s: &Snapshot) -> [Value; 3] {
    match &s.outline {
        Some(o) => o.result.clone(),
        None => RESULT_KEYS.map(|k| s.state.get(k).cloned().unwrap_or(Value::Null)),
    }
}

/// Whether two snapshots have the same moves: by their outlines (the
/// count and chained digest) when both have one, else by the UCIs read
/// from the states.
fn same_moves(a: &Snapshot, b: &Snapshot) -> bool {
    match (&a.outline, &b.outline) {
        (Some(x), Some(y)) => x.same_moves(y),
        _ => read_moves(a) == read_moves(b),
    }
}

/// Looks, snapshot after snapshot of one game, for a take-back of a move
/// that `a` shows.
struct TakeBack<'a> {
    a: &'a Snapshot,
    /// While the later snapshots seen link up to `a` by their outlines
    /// (each made by `a`'s publisher right after the one before): the
    /// last one's `seq` and the fewest plies kept on the way.
    chain: Option<(u64, usize)>,
    /// `a`'s moves read from its state, once the chain is broken.
    moves: Option<Vec<Value>>,
}

impl<'a> TakeBack<'a> {
    fn new(a: &'a Snapshot) -> TakeBack<'a> {
        TakeBack {
            a,
            chain: a.outline.as_ref().map(|_| (a.seq, usize::MAX)),
            moves: None,
        }
    }

    /// Whether `later` (the next snapshot of the game after the ones seen)
    /// no longer has every move `a` shows, or one of them was taken back
    /// on the way (then played again or not). By the outlines' low-water
    /// marks while they link (O(1), nothing copied: issue 28), else by the
    /// UCIs of the states.
    fn at(&mut self, later: &Snapshot) -> bool {
        if let (Some((seq, kept)), Some(x), Some(y)) = (self.chain, &self.a.outline, &later.outline)
        {
            if y.lineage == x.lineage && y.since == seq {
                let kept = kept.min(y.kept);
                self.chain = Some((later.seq, kept));
                return kept < x.plies;
            }
        }
        self.chain = None;
        let moves = self.moves.get_or_insert_with(|| read_moves(self.a));
        shared(moves, &read_moves(later)) < moves.len()
    }
}

/// The moves (UCI) of a snapshot's state.
fn read_moves(s: &Snapshot) -> Vec<Value> {
    s.state
        .get("moves")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|m| m.get("uci").cloned().unwrap_or(Value::Null))
                .collect()
        })
        .unwrap_or_default()
}

/// The game a snapshot is of.
fn game_of(s: &Snapshot) -> (u32, u32) {
    (s.info.round, s.info.board)
}

/// The message's `type` and, for a ruling, its `seq` and the ruling it
/// undoes (read from its effect, "ruling #N … undone").
fn kind_of(m: &str) -> (String, Option<u64>, Option<u64>) {
    let v: Value = serde_json::from_str(m).unwrap_or(Value::Null);
    let kind = v
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let seq = v.get("seq").and_then(Value::as_u64);
    let undoes = (v.get("action").and_then(Value::as_str) == Some("undo"))
        .then(|| v.get("effect").and_then(Value::as_str))
        .flatten()
        .and_then(|e| e.strip_prefix("ruling #"))
        .and_then(|e| e.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok());
    (kind, seq, undoes)
}

/// How many first moves `a` and `b` share.
fn shared(a: &[Value], b: &[Value]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The delay line's memory of what it kept from the public: the rulings
/// (by `seq`) whose messages were left out.
#[derive(Debug)]
pub struct Settler {
    hidden: HashSet<u64>,
    /// The delay, round ms: how far after an update the look-ahead goes.
    window_ms: u64,
}

impl Default for Settler {
    /// A look-ahead over every later update (no window).
    fn default() -> Settler {
        Settler::new(u64::MAX)
    }
}

impl Settler {
    /// A settler for a delay line of `delay_ms` (round ms): it looks at the
    /// updates decided less than `delay_ms` after the one it releases.
    pub fn new(delay_ms: u64) -> Settler {
        Settler {
            hidden: HashSet::new(),
            window_ms: delay_ms,
        }
    }

    /// `u`, about to be released, as the public gets it, given the updates
    /// already decided after it (`later`, in order): withheld when later
    /// updates within the delay take back a move it shows; its result
    /// replaced by the one that stands when a later update changes it with
    /// no move between (the module's doc).
    pub fn settle(&mut self, mut u: Update, later: &VecDeque<Update>) -> Update {
        let end = u.t.saturating_add(self.window_ms);
        let within = || later.iter().take_while(move |l| l.t < end);
        let taken_back = u.snapshot.as_ref().is_some_and(|snap| {
            let game = game_of(snap);
            let mut look = TakeBack::new(snap);
            within()
                .filter_map(|l| l.snapshot.as_ref())
                .filter(|s| game_of(s) == game)
                .any(|s| look.at(s))
        });
        if taken_back {
            if let Some(snap) = &u.snapshot {
                tracing::info!(
                    game = %snap.info.id(),
                    "moves taken back within the delay are not published"
                );
            }
            let hidden = &mut self.hidden;
            u.public.retain(|m| match kind_of(m) {
                (k, seq, _) if k == "ruling" => {
                    hidden.extend(seq);
                    false
                }
                (k, _, _) => {
                    !["state", "move", "game_end", "result_confirmed"].contains(&k.as_str())
                }
            });
            u.snapshot = None;
            return u;
        }
        let superseding = u.snapshot.as_ref().and_then(|snap| {
            let game = game_of(snap);
            let mut last: Option<&Arc<Snapshot>> = None;
            for s in within().filter_map(|l| l.snapshot.as_ref()) {
                if game_of(s) != game {
                    continue;
                }
                if !same_moves(s, snap) {
                    break;
                }
                last = Some(s);
            }
            last.filter(|l| result_of(l) != result_of(snap)).cloned()
        });
        if let Some(stands) = superseding {
            tracing::info!(
                game = %stands.info.id(),
                "an intermediate result within the delay is not published"
            );
            let state: Arc<str> = stands.state.shared();
            let mut public = Vec::new();
            for m in u.public.drain(..) {
                match kind_of(&m) {
                    (k, _, _) if k == "state" => public.push(state.clone()),
                    (k, seq, _) if k == "ruling" => {
                        self.hidden.extend(seq);
                    }
                    (k, _, _) if k == "game_end" || k == "result_confirmed" => {}
                    _ => public.push(m),
                }
            }
            u.public = public;
            u.snapshot = Some(stands);
            return u;
        }
        // An undo of a ruling the public never saw is not shown either.
        let hidden = &mut self.hidden;
        u.public.retain(|m| match kind_of(m) {
            (k, seq, Some(n)) if k == "ruling" && hidden.contains(&n) => {
                hidden.extend(seq);
                false
            }
            _ => true,
        });
        u
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadcast::public::GameInfo;
    use crate::broadcast::snapshot::Outline;
    use serde_json::json;

    fn update(
        t: u64,
        moves: &[&str],
        result: &str,
        status: Option<&str>,
        msgs: &[Value],
    ) -> Update {
        let state = json!({
            "type": "state",
            "moves": moves.iter().map(|m| json!({"uci": m})).collect::<Vec<_>>(),
            "result": result,
            "result_status": status,
            "reason": null,
        });
        let info = GameInfo::bare(1, 2);
        Update {
            seq: t,
            t,
            snapshot: Some(Arc::new(Snapshot {
                seq: t,
                t,
                info,
                pgn: format!("[Result \"{result}\"]").into(),
                game: Value::Null.into(),
                pairing: Value::Null,
                state: state.into(),
                // As the publisher's snapshots have it (linked to the
                // update made before), or as one read from elsewhere.
                outline: OUTLINED.get().then(|| outline(t, moves, result, status)),
            })),
            arbiter_snapshot: None,
            public: msgs.iter().map(|m| Arc::from(m.to_string())).collect(),
            arbiter: Vec::new(),
        }
    }

    thread_local! {
        /// Whether [`update`]'s snapshots carry an outline.
        static OUTLINED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        /// The last outlined snapshot made: its `seq` and moves.
        static PREV: std::cell::RefCell<Option<(u64, Vec<String>)>> =
            const { std::cell::RefCell::new(None) };
    }

    /// The outline the publisher gives snapshot `seq` showing `moves`, made
    /// right after the last one [`update`] made (its moves kept up to the
    /// first that differs).
    fn outline(seq: u64, moves: &[&str], result: &str, status: Option<&str>) -> Outline {
        let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        let (since, kept) = PREV.with_borrow(|p| match p {
            Some((s, prev)) => (*s, shared_prefix(prev, &moves)),
            None => (0, 0),
        });
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&moves, &mut h);
        let o = Outline {
            plies: moves.len(),
            last: std::hash::Hasher::finish(&h),
            kept,
            since,
            lineage: 1,
            result: [json!(result), json!(status), Value::Null],
        };
        PREV.set(Some((seq, moves)));
        o
    }

    fn shared_prefix(a: &[String], b: &[String]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }

    /// Runs `case` on snapshots with outlines and without.
    fn both(case: fn()) {
        for outlined in [true, false] {
            OUTLINED.set(outlined);
            PREV.set(None);
            case();
        }
    }

    #[test]
    fn a_correction_undone_within_the_delay_is_never_public() {
        both(correction_undone);
    }

    #[test]
    fn a_result_before_a_move_is_not_superseded_by_a_later_game() {
        both(result_before_a_move);
    }

    fn correction_undone() {
        let draw = update(
            1,
            &["e2e4", "e7e5"],
            "1/2-1/2",
            Some("provisional"),
            &[json!({"type": "game_end", "result": "1/2-1/2"})],
        );
        let wrong = update(
            2,
            &["e2e4", "e7e5"],
            "1-0",
            Some("corrected"),
            &[
                json!({"type": "result_confirmed", "result": "1-0"}),
                json!({"type": "ruling", "action": "confirm", "seq": 1, "effect": "1/2-1/2 corrected to 1-0"}),
            ],
        );
        let undo = update(
            3,
            &["e2e4", "e7e5"],
            "1/2-1/2",
            Some("provisional"),
            &[
                json!({"type": "ruling", "action": "undo", "seq": 2, "effect": "ruling #1 (confirm) undone: 1-0 → 1/2-1/2"}),
            ],
        );
        let mut queue: VecDeque<Update> = [draw, wrong, undo].into_iter().collect();
        let mut s = Settler::default();
        let mut out = Vec::new();
        while let Some(u) = queue.pop_front() {
            out.push(s.settle(u, &queue));
        }
        // The draw stands: published as it is.
        assert!(out[0].snapshot.as_ref().unwrap().pgn.contains("1/2-1/2"));
        assert_eq!(out[0].public.len(), 1);
        // The 1-0 never reaches the public, nor the undo of it.
        for u in &out[1..] {
            let s = u.snapshot.as_ref().unwrap();
            assert!(!s.pgn.contains("1-0"), "{}", s.pgn);
            assert!(
                u.public.iter().all(|m| !m.contains("1-0")),
                "{:?}",
                u.public
            );
        }
        assert!(out[1].public.is_empty() && out[2].public.is_empty());
    }

    fn result_before_a_move() {
        // Declared by mistake, withdrawn, then play goes on: the result is
        // not published; a later move's update stops the look-ahead.
        let declared = update(
            1,
            &["e2e4"],
            "1-0",
            None,
            &[json!({"type": "game_end", "result": "1-0"})],
        );
        let undone = update(2, &["e2e4"], "*", None, &[]);
        let moved = update(3, &["e2e4", "e7e5"], "*", None, &[json!({"type": "move"})]);
        let queue: VecDeque<Update> = [undone, moved].into_iter().collect();
        let out = Settler::default().settle(declared, &queue);
        assert_eq!(out.snapshot.as_ref().unwrap().state["result"], "*");
        assert!(out.public.is_empty());
    }

    #[test]
    fn moves_and_a_result_an_undo_takes_back_within_the_delay_are_never_public() {
        both(moves_taken_back);
    }

    #[test]
    fn a_move_taken_back_and_played_again_within_the_delay_is_withheld() {
        // The outlines' low-water mark: the later snapshot shows the same
        // moves, but the second was taken back on the way (kept 1 of 2).
        OUTLINED.set(true);
        PREV.set(None);
        let shown = update(1, &["e2e4", "e7e5"], "*", None, &[json!({"type": "move"})]);
        let mut again = update(2, &["e2e4", "e7e5"], "*", None, &[]);
        let snap = Arc::get_mut(again.snapshot.as_mut().unwrap()).unwrap();
        snap.outline.as_mut().unwrap().kept = 1;
        let out = Settler::new(60_000).settle(shown.clone(), &[again.clone()].into());
        assert!(out.snapshot.is_none() && out.public.is_empty(), "{out:?}");
        // Not linked (another publisher): the states are read, and they
        // show every move, so nothing is withheld.
        let snap = Arc::get_mut(again.snapshot.as_mut().unwrap()).unwrap();
        snap.outline.as_mut().unwrap().lineage = 2;
        let out = Settler::new(60_000).settle(shown, &[again].into());
        assert_eq!(out.public.len(), 1);
        assert!(out.snapshot.is_some());
    }

    #[test]
    fn a_take_back_after_an_unlinked_snapshot_is_found_in_the_states() {
        OUTLINED.set(true);
        PREV.set(None);
        let shown = update(1, &["e2e4", "e7e5"], "*", None, &[json!({"type": "move"})]);
        let mut other = update(2, &["e2e4", "e7e5"], "*", None, &[]);
        let snap = Arc::get_mut(other.snapshot.as_mut().unwrap()).unwrap();
        snap.outline.as_mut().unwrap().since = 99;
        let back = update(3, &["e2e4"], "*", None, &[]);
        let out = Settler::new(60_000).settle(shown, &[other, back].into());
        assert!(out.snapshot.is_none() && out.public.is_empty(), "{out:?}");
    }

    fn moves_taken_back() {
        // A position set at ply 2, two moves, a provisional 1-0 on the board,
        // then the arbiter undoes the position ruling: the moves after it
        // and the 1-0 are taken back within the delay.
        let before = update(1, &["e2e4", "e7e5"], "*", None, &[json!({"type": "move"})]);
        let third = update(
            2,
            &["e2e4", "e7e5", "f1c4"],
            "*",
            None,
            &[json!({"type": "move"}), json!({"type": "clock"})],
        );
        let ended = update(
            3,
            &["e2e4", "e7e5", "f1c4", "g8f6"],
            "1-0",
            Some("provisional"),
            &[
                json!({"type": "move"}),
                json!({"type": "game_end", "result": "1-0"}),
                json!({"type": "ruling", "action": "confirm", "seq": 2, "effect": "1-0 confirmed"}),
            ],
        );
        let undone = update(4, &["e2e4", "e7e5"], "*", None, &[]);
        let mut queue: VecDeque<Update> = [before, third, ended, undone].into_iter().collect();
        let mut s = Settler::new(60_000);
        let mut out = Vec::new();
        while let Some(u) = queue.pop_front() {
            out.push(s.settle(u, &queue));
        }
        assert_eq!(out[0].public.len(), 1, "the moves that stand go out");
        for u in &out[1..3] {
            assert!(u.snapshot.is_none(), "withheld: {:?}", u.snapshot);
            assert!(
                u.public
                    .iter()
                    .all(|m| !m.contains("move") && !m.contains("1-0") && !m.contains("state")),
                "{:?}",
                u.public
            );
        }
        assert_eq!(out[1].public.len(), 1, "the clock message goes out");
        let last = out[3].snapshot.as_ref().unwrap();
        assert_eq!(last.state["result"], "*");
        assert_eq!(read_moves(last).len(), 2);
        // The ruling withheld: an undo of it is not shown either.
        let undo = update(
            5,
            &["e2e4", "e7e5"],
            "*",
            None,
            &[
                json!({"type": "ruling", "action": "undo", "seq": 3, "effect": "ruling #2 (confirm) undone"}),
            ],
        );
        assert!(s.settle(undo, &VecDeque::new()).public.is_empty());
        // A take-back decided after the delay does not reach back: what the
        // live run released is released again after a restart.
        let ended = update(
            10,
            &["e2e4", "e7e5"],
            "0-1",
            None,
            &[json!({"type": "game_end"})],
        );
        let late: VecDeque<Update> = [update(10 + 60_000, &["e2e4"], "*", None, &[])].into();
        let out = Settler::new(60_000).settle(ended, &late);
        assert_eq!(out.snapshot.as_ref().unwrap().state["result"], "0-1");
        assert_eq!(out.public.len(), 1);
    }
}
