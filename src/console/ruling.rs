//! A ruling's domain, whichever way it came in (`POST /arbiter/{action}`,
//! the console's one ruling request `POST /arbiter/command`, the boards'
//! signed MQTT command topic, `eboard rule`): the body each action takes
//! and its parsing into the `arbiter` record ([`ruling_record`],
//! [`parse_ruling`]), who may rule ([`act`]: a deputy rules nothing, a
//! relay only on behalf of a named arbiter, the player's device only
//! asks), the command id applied once ([`command`]), and, on a relay, the
//! ruling forwarded to the board that plays its game. Every refusal names
//! what is wrong and carries its status ([`Refusal`]).
//!
//! | action | body | record |
//! |---|---|---|
//! | `accept` | – | `{"arbiter": "accept"}` |
//! | `overrule` | – | `{"arbiter": "overrule"}` |
//! | `restore` | – | `{"arbiter": "restore"}` |
//! | `result` | `{"result": "1-0"}` (`1-0`, `0-1`, `1/2-1/2`), optionally `"article": "11.3.2.2"` (one of the profile's declared articles, issue 40.6) and `"reason"`; confirmed at once | `{"arbiter": "result", …}` |
//! | `clock` | `{"white_ms": …, "black_ms": …}` | `{"arbiter": "clock", …}` |
//! | `position` | `{"fen": "…"}` | `{"arbiter": "position", …}` |
//! | `pause`, `resume` | – | `{"arbiter": "pause"}` / `"resume"` |
//! | `confirm` | – or `{"result": "0-1"}` (a correction) | `{"arbiter": "confirm", …}` (DSU 004 §15) |
//! | `forfeit` | `{"result": "1-0"}` (a no-show: before any move, or after the present player's first; `0-0`: neither came, before any move) | `{"arbiter": "forfeit", …}` |
//! | `undo` | `{"ruling": SEQ}` (reverses ruling SEQ of the history) | `{"arbiter": "undo", …}` |
//! | `rewind` | `{"ply": N}` (Appendix E2.8: back to ply N, the clocks as they stood then) | `{"arbiter": "rewind", …}` |
//! | `increment` | `{"by": "b"}`, optionally `"mode": "delay"`, `"offer": "accepted"` (2023 Guidelines III.4: five seconds per move for both, two extra minutes to the opponent; or the draw offer it is accepted) | `{"arbiter": "increment", …}` |
//! | `withdraw` | – (the illegal move `expect.event` names), or `{"event": {"type": "illegal_move", "t": T}}`, or `{"ruling": SEQ}` (the `accept` that gave it) | the penalty the board gave withdrawn: the opponent's minutes and the count, or the game lost by it (2023 7.5.5, 2009 §7.4b) |
//! | `withdraw` (a game end) | – from the `game_end` alert, or `{"event": {"type": "game_end", "t": T}}`; a flag's end also `"white_ms"`, `"black_ms"` (both: the clocks the game goes on with) | the game end the board declared alone (checkmate, stalemate, dead position: the move taken back; a flag; 2023 9.6) withdrawn, the game goes on (issue 40 §2) |
//! | `displaced` | as `withdraw`, optionally `"uci": "c3d5"` | the illegal move re-classified as displaced pieces (2023 7.4.1, 2009 §7.3): penalty withdrawn, the legal move kept |
//! | `uphold`, `reject` | – or `{"move": "g1f3"}` (the move written on the scoresheet, UCI or SAN) | a draw claim the board held (`claim_held`, §9.2a / 9.2.1): drawn without the move, or the wrong claim's cost and the written move to be made |
//!
//! Every body may carry `expect` (`{"ply", "event"?, "result"?}`: what the
//! ruling was made from, issue 24.1); here it is optional (checked against
//! the current state only), at `POST /arbiter/command` required (428).
//!
//! The reply: `{"t": round ms, "action": …, "author": …, "events": [the
//! decisions]}`; 409 or 422 with `"error"` (the reason in words) and
//! `"refused"` (the `ruling_refused` event) when the board refused it.

use super::board::{apply, ArbiterAccess};
use super::command_task::{apply_once, Ruling};
use super::identify::Caller;
use super::refusal::{refuse, Refusal};
use super::role::{Role, Who};
use super::state::Console;
use crate::trace::{parse_record_kind, RecordKind};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The longest command id, characters.
pub const MAX_ID: usize = 100;

/// The body keys each action takes (besides the record's own key); every
/// ruling also takes `expect` (what it was made from, issue 24.1).
fn body_keys(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "accept" | "overrule" | "restore" | "pause" | "resume" => &["expect"],
        "result" => &["result", "article", "reason", "expect"],
        "confirm" => &["result", "reason", "expect"],
        "forfeit" => &["result", "reason", "before_default_time", "expect"],
        "clock" => &["white_ms", "black_ms", "moves", "expect"],
        "position" => &["fen", "expect"],
        "undo" => &["ruling", "expect"],
        "rewind" => &["ply", "expect"],
        "increment" => &["by", "mode", "offer", "expect"],
        "query" => &["what", "by", "piece"],
        "choose" => &["uci", "expect"],
        "uphold" | "reject" => &["move", "expect"],
        // Issue 40: the right control installed (6.10.2), whom a downtime
        // is charged to (7.1; `ms` is the daemon's own record's only).
        "time_control" => &["control", "from_move", "white_ms", "black_ms", "expect"],
        "downtime" => &["charge", "expect"],
        "withdraw" => &[
            "event", "ruling", "white_ms", "black_ms", "reason", "expect",
        ],
        "displaced" => &["event", "ruling", "uci", "reason", "expect"],
        _ => return None,
    })
}

/// `POST /arbiter/{action}` with its JSON body, read by the trace codec's
/// one parser of record kinds ([`crate::trace::parse_record_kind`]): the
/// action becomes `{"arbiter": action, …body}`, a query `{"query": what,
/// "by": …, "piece": …}` (Appendix E2.9d, information on demand for the
/// visually impaired player; the answer is an `announce` event). Unknown
/// actions are 404, bad bodies 422 naming the key.
fn parse_request(action: &str, bytes: &[u8]) -> Result<RecordKind, Refusal> {
    let unprocessable = |m: &str| refuse(422, m);
    let Some(keys) = body_keys(action) else {
        return Err(refuse(
            404,
            "actions: accept, overrule, restore, result, confirm, forfeit, clock, position, pause, resume, undo, rewind, increment, query, choose, uphold, reject, time_control, downtime, withdraw, displaced",
        ));
    };
    let mut obj = if bytes.iter().all(u8::is_ascii_whitespace) {
        Map::new()
    } else {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                return Err(unprocessable(&format!(
                    "body: expected an object, found {other}"
                )))
            }
            Err(e) => return Err(unprocessable(&format!("body: {e}"))),
        }
    };
    if let Some(k) = obj.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(unprocessable(&format!(
            "body: unknown key '{k}'; {action} takes {}",
            if keys.is_empty() {
                "no body".to_owned()
            } else {
                keys.join(", ")
            }
        )));
    }
    // Names and text are data (issue 41 §3): a reason (or any text of the
    // body) is one line of printable characters; refused, naming the key.
    if let Some((key, c)) = obj.iter().find_map(|(k, v)| control_in(k, v)) {
        return Err(unprocessable(&format!(
            "key '{key}': {c}; a reason is one line of text"
        )));
    }
    if action == "query" {
        let what = obj.remove("what").unwrap_or(Value::Null);
        obj.insert("query".into(), what);
    } else {
        obj.insert("arbiter".into(), Value::from(action));
    }
    let (_, kind) = parse_record_kind(&obj)
        .map_err(|e| unprocessable(&e.replacen("key 'query'", "key 'what'", 1)))?;
    Ok(kind)
}

/// The first string of `value` (at `key`, objects and arrays searched
/// inside: `expect.event`) that holds a control character
/// ([`crate::model::text::is_control`]), with its dotted key.
fn control_in(key: &str, value: &Value) -> Option<(String, crate::model::text::ControlChar)> {
    match value {
        Value::String(s) => crate::model::text::check_text(s)
            .err()
            .map(|c| (key.to_owned(), c)),
        Value::Object(m) => m
            .iter()
            .find_map(|(k, v)| control_in(&format!("{key}.{k}"), v)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| control_in(&format!("{key}.{}", i + 1), v)),
        _ => None,
    }
}

/// An action of `POST /arbiter/{action}` (its JSON body `bytes`) by
/// `caller`: an arbiter's account rules (authored with its name), the
/// player's device asks. A deputy's ruling is refused (403, logged), and so
/// is a relay's here (it rules only on behalf of a named arbiter, through
/// [`command`]) and anything but a query for his own side from the
/// player's device. The reply as [`apply`] gives it.
pub async fn act(
    access: &ArbiterAccess,
    caller: &Caller<'_>,
    action: &str,
    bytes: &[u8],
) -> Result<(u16, Value), Refusal> {
    let author = match caller {
        Caller::Arbiter(who) if who.role == Role::Deputy && action != "query" => {
            tracing::warn!(name = %who.name, action, "a deputy tried to rule: refused");
            return Err(refuse(
                403,
                &format!(
                    "{} is a deputy: a deputy sees everything and rules nothing",
                    who.name
                ),
            ));
        }
        Caller::Arbiter(who) if who.role == Role::Relay => {
            return Err(refuse(
                403,
                "a relay rules only on behalf of a named arbiter: POST /arbiter/command with 'arbiter'",
            ));
        }
        Caller::Arbiter(who) => who.name.clone(),
        Caller::Player(p) => p.name.clone(),
    };
    if matches!(caller, Caller::Player(_)) && action != "query" {
        return Err(refuse(
            403,
            "the player's device may only ask (POST /arbiter/query), never act as the arbiter",
        ));
    }
    let (kind, name) = match parse_request(action, bytes) {
        Ok(RecordKind::Arbiter {
            action,
            expect,
            reason,
            ..
        }) => {
            let name = action.as_str();
            (
                RecordKind::Arbiter {
                    action,
                    author: Some(author.clone()),
                    expect,
                    reason,
                },
                name,
            )
        }
        Ok(RecordKind::Query {
            what, by, piece, ..
        }) => {
            if let Caller::Player(p) = caller {
                if by != p.side {
                    return Err(refuse(
                        403,
                        "the player's device asks for its own side only (body key 'by')",
                    ));
                }
            }
            let author = Some(author.clone());
            let query = RecordKind::Query {
                what,
                by,
                piece,
                author,
            };
            (query, "query")
        }
        Ok(other) => (other, "query"),
        Err(r) => return Err(r),
    };
    apply(access, kind, name, &author).await
}

/// The `arbiter` record of action `action` with its JSON `body` (the keys
/// [`body_keys`] allows, `expect` among them), authored by `author`: 404
/// for an unknown action, 422 naming the key; queries are not rulings
/// (422). `expect_required`: a request without `expect` is refused 428
/// with an example (the console, the relay, MQTT, `eboard rule`).
pub fn ruling_record(
    action: &str,
    body: &[u8],
    author: &str,
    expect_required: bool,
) -> Result<RecordKind, Refusal> {
    if action == "query" {
        return Err(refuse(
            422,
            "action 'query' is not a ruling: POST /arbiter/query",
        ));
    }
    match parse_request(action, body)? {
        RecordKind::Arbiter { expect: None, .. } if expect_required => {
            Err(refuse(428, &expect_missing()))
        }
        RecordKind::Arbiter {
            action,
            expect,
            reason,
            ..
        } => Ok(RecordKind::Arbiter {
            action,
            author: Some(author.to_owned()),
            expect,
            reason,
        }),
        _ => Err(refuse(422, "not a ruling")),
    }
}

/// Why a ruling without `expect` is refused (428), with an example.
pub fn expect_missing() -> String {
    format!(
        "key 'expect': a ruling names the state it was made from (the state's 'ply', and the alert it answers), e.g. \"expect\": {}",
        crate::trace::EXPECT_EXAMPLE
    )
}

/// `body` (an object or null) with `expect` added (the console's request
/// carries it beside the body; the record and MQTT carry it in the body).
pub fn body_with_expect(body: Option<&Value>, expect: Option<&Value>) -> Value {
    let mut b = match body {
        Some(Value::Object(m)) => Value::Object(m.clone()),
        Some(Value::Null) | None => Value::Object(Map::new()),
        Some(other) => other.clone(),
    };
    if let (Value::Object(m), Some(e)) = (&mut b, expect) {
        m.insert("expect".into(), e.clone());
    }
    b
}

/// A ruling's action and JSON body (`body`: an object, or null for none)
/// as the `arbiter` record of the same `POST /arbiter/{action}`, by the one
/// parser of this API ([`parse_request`]); the MQTT command channel's path
/// in (`docs/event.md`, "Rulings over MQTT"). `query` is not a ruling.
/// Errors say what is wrong with the action or the body.
pub fn parse_ruling(action: &str, body: &Value) -> Result<RecordKind, String> {
    if action == "query" {
        return Err("query is the player's device's, not a ruling".into());
    }
    let bytes = match body {
        Value::Null => Vec::new(),
        b => serde_json::to_vec(b).map_err(|e| e.to_string())?,
    };
    parse_request(action, &bytes).map_err(|r| r.message)
}

/// One ruling request: `{"board", "action", "body", "arbiter", "id",
/// "expect"}` (`docs/console.md`, "The ruling request").
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Command {
    /// The game, `round.board` (required at a relay; checked at a board).
    #[serde(default)]
    pub board: Option<String>,
    /// The action (`restore`, `confirm`, …; as `POST /arbiter/{action}`).
    pub action: String,
    /// Its body (as `POST /arbiter/{action}`); absent: none.
    #[serde(default)]
    pub body: Option<Value>,
    /// The arbiter ruling (required from a relay; else the session's).
    #[serde(default)]
    pub arbiter: Option<String>,
    /// A unique command id (idempotency).
    pub id: String,
    /// What the ruling was made from: `{"ply", "event"?, "result"?}`
    /// (issue 24.1); required (428 without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Value>,
}

/// `POST /arbiter/command`'s ruling (`bytes`: a [`Command`]) by `who`,
/// applied once per command id: on a board (`board`), checked against the
/// game it plays and handed to its loop ([`apply_once`]); on a relay,
/// forwarded to the board that plays `board` and answered with the board's
/// reply. A relay's account names the arbiter it rules for (never a
/// deputy); through a relay only an arbiter's account rules.
pub async fn command(
    console: &Arc<Console>,
    board: Option<&ArbiterAccess>,
    who: &Who,
    bytes: &[u8],
) -> Result<(u16, Value), Refusal> {
    let mut cmd: Command = serde_json::from_slice(bytes).map_err(|e| {
        refuse(
            422,
            &format!(
                "body: {e} (expected {{\"board\", \"action\", \"body\", \"arbiter\", \"id\", \"expect\"}})"
            ),
        )
    })?;
    if cmd.id.is_empty() || cmd.id.chars().count() > MAX_ID {
        return Err(refuse(
            422,
            &format!("key 'id': give a unique command id of 1 to {MAX_ID} characters"),
        ));
    }
    let author = match who.role {
        Role::Relay => {
            let name = cmd
                .arbiter
                .clone()
                .filter(|n| !n.trim().is_empty())
                .ok_or_else(|| {
                    refuse(
                        422,
                        "key 'arbiter': a relay rules on behalf of a named arbiter",
                    )
                })?;
            if console
                .accounts
                .by_name(&name)
                .is_some_and(|a| a.role == Role::Deputy)
            {
                tracing::warn!(relay = %who.name, name, "a relay forwarded a deputy's ruling: refused");
                return Err(refuse(
                    403,
                    &format!("{name} is a deputy: a deputy rules nothing"),
                ));
            }
            name
        }
        _ => who.name.clone(),
    };
    cmd.arbiter = Some(author.clone());
    let body = serde_json::to_vec(&body_with_expect(cmd.body.as_ref(), cmd.expect.as_ref()))
        .unwrap_or_default();
    match (board, &console.forward) {
        (Some(access), _) => {
            let view = console.channel.view.borrow().clone();
            if let Some(b) = &cmd.board {
                if !view.games.iter().any(|g| g.info.id() == *b) {
                    let here: Vec<String> = view.games.iter().map(|g| g.info.id()).collect();
                    return Err(refuse(
                        409,
                        &format!("key 'board': this board plays {}, not {b}", here.join(", ")),
                    ));
                }
            }
            let kind = ruling_record(&cmd.action, &body, &author, true)?;
            if let Err(first) = console.claim(&cmd.id) {
                tracing::info!(id = %cmd.id, "ruling: command id seen before: not applied again");
                return Ok(first);
            }
            if who.role == Role::Relay {
                tracing::info!(relay = %who.name, arbiter = %author, action = %cmd.action, id = %cmd.id, "ruling forwarded by a relay");
            }
            // Its own task: a client gone cannot leave the id pending.
            let ruling = Ruling {
                kind,
                action: cmd.action,
                author,
                id: cmd.id,
                board: cmd.board,
            };
            apply_once(access, console.clone(), ruling).await
        }
        (None, Some(fwd)) => {
            if who.role != Role::Arbiter {
                return Err(refuse(
                    403,
                    "only an arbiter's account rules through the relay",
                ));
            }
            let game = cmd
                .board
                .clone()
                .ok_or_else(|| refuse(422, "key 'board': give the game as round.board"))?;
            // A game this relay does not follow is no board's to rule: the
            // arbiter saw it elsewhere (another relay, an old page), or the
            // table has moved on to another round's game (issue 24.1).
            {
                let view = console.channel.view.borrow();
                if !view.games.iter().any(|g| g.info.id() == game) {
                    let mut here: Vec<String> = view.games.iter().map(|g| g.info.id()).collect();
                    here.sort();
                    return Err(refuse(
                        404,
                        &format!(
                            "key 'board': this relay follows no game {game} (it follows {}): not forwarded",
                            if here.is_empty() { "none yet".to_owned() } else { here.join(", ") }
                        ),
                    ));
                }
            }
            // Checked here too, so a bad request never leaves the relay.
            ruling_record(&cmd.action, &body, &author, true)?;
            tracing::info!(arbiter = %author, board = %game, action = %cmd.action, id = %cmd.id, "relay: forwarding a ruling");
            let v = serde_json::to_value(&cmd).unwrap_or_default();
            fwd.send(&game, &v).await
        }
        (None, None) => Err(refuse(404, "no board to rule here")),
    }
}
