//! What the public gets of a result the arbiter changed within the
//! transmission delay (issue 24 §5: "the PGN and feeds carry the final
//! result"): when the delay releases an update, every later update of the
//! same game is already decided (it waits in the delay line behind it). If
//! one of those changes the game's result with no move between (a
//! correction, an undo, a result declared by mistake and withdrawn), the
//! result of the update being released is an intermediate value: the
//! public never sees it. The update then carries the state that stands
//! after the last such change (the same moves: nothing of the game is let
//! out early, only the arbiter's decision on its result), and its result
//! messages (`game_end`, `result_confirmed`, the `ruling`s) are left out,
//! as is a later `undo` of a ruling the public never saw.

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

/// Whether two snapshots have the same moves: by their outlines (number
/// and digest) when both have one, else by the UCIs read from the states.
fn same_moves(a: &Snapshot, b: &Snapshot) -> bool {
    match (&a.outline, &b.outline) {
        (Some(x), Some(y)) => x.moves == y.moves,
        _ => read_moves(a) == read_moves(b),
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

/// The delay line's memory of what it kept from the public: the rulings
/// (by `seq`) whose messages were left out.
#[derive(Debug, Default)]
pub struct Settler {
    hidden: HashSet<u64>,
}

impl Settler {
    /// `u`, about to be released, as the public gets it, given the updates
    /// already decided after it (`later`, in order).
    pub fn settle(&mut self, mut u: Update, later: &VecDeque<Update>) -> Update {
        let superseding = u.snapshot.as_ref().and_then(|snap| {
            let game = game_of(snap);
            let mut last: Option<&Arc<Snapshot>> = None;
            for s in later.iter().filter_map(|l| l.snapshot.as_ref()) {
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
        let info = GameInfo {
            round: 1,
            board: 2,
            event: None,
            site: None,
            country: None,
            website: None,
            date: None,
            mode: crate::model::Mode::default(),
            time_control: None,
            white: crate::model::Player::default(),
            black: crate::model::Player::default(),
            started_at_unix_ms: 0,
            speed: 1.0,
            delay_ms: 0,
            trial: false,
        };
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
                // As the publisher's snapshots have it, or as one read from elsewhere.
                outline: OUTLINED.get().then(|| Outline {
                    moves: (moves.len(), {
                        let mut h = std::collections::hash_map::DefaultHasher::new();
                        std::hash::Hash::hash(moves, &mut h);
                        std::hash::Hasher::finish(&h)
                    }),
                    result: [json!(result), json!(status), Value::Null],
                }),
            })),
            arbiter_snapshot: None,
            public: msgs.iter().map(|m| Arc::from(m.to_string())).collect(),
            arbiter: Vec::new(),
        }
    }

    thread_local! {
        /// Whether [`update`]'s snapshots carry an outline.
        static OUTLINED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Runs `case` on snapshots with outlines and without.
    fn both(case: fn()) {
        for outlined in [true, false] {
            OUTLINED.set(outlined);
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
        let mut queue: VecDeque<Update> = [undone, moved].into_iter().collect();
        let out = Settler::default().settle(declared, &queue);
        assert_eq!(out.snapshot.as_ref().unwrap().state["result"], "*");
        assert!(out.public.is_empty());
        // A result that stands is published even when moves follow a take-back.
        let ended = update(
            4,
            &["e2e4", "e7e5"],
            "0-1",
            None,
            &[json!({"type": "game_end"})],
        );
        queue.clear();
        queue.push_back(update(5, &["e2e4"], "*", None, &[]));
        let out = Settler::default().settle(ended, &queue);
        assert_eq!(out.snapshot.as_ref().unwrap().state["result"], "0-1");
        assert_eq!(out.public.len(), 1);
    }
}
