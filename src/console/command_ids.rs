//! The ids of the rulings a board has taken, one store for both ways in
//! (issue 15: replay-protected and idempotent): `POST /arbiter/command`
//! ([`super::console`]) and the signed MQTT command topic
//! (`crate::app::commands`). A ruling's id is taken once: the same id
//! again, by either way and after a restart of the board, is answered with
//! what came of it the first time and applied no second time.
//!
//! With a journal the ids are kept in `JOURNAL.rulings` (one JSON line
//! `{"id", "outcome"}` per change, appended with one write and synced
//! before the ruling is applied; [`crate::disk::RecordFile`]); without
//! one, in memory. The outcome is `"pending"` while the ruling is applied
//! (and for good when the board stopped in between: whether it was applied,
//! the journal says), then what came of it: `{"status": "applied", …}`,
//! `{"status": "rejected", "reason"}`; `null` forgets the id again (a
//! ruling the board refused over HTTP may be sent again). Damage is set
//! aside as for the console's files ([`super::kept::read_lines`]).

use super::kept::{read_lines, Damage};
use crate::disk::{os_opener, Health, RecordFile};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// What [`CommandIds::claim`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// A new id: now taken (kept as `"pending"`); apply the ruling, then
    /// [`CommandIds::record`] its outcome.
    New,
    /// Seen before: what came of it (`"pending"` while being applied, or
    /// when the board stopped in between).
    Seen(Value),
}

/// The store (shared by both ways in: `Arc<CommandIds>`).
#[derive(Debug)]
pub struct CommandIds {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    file: Option<RecordFile>,
    seen: HashMap<String, Value>,
}

impl CommandIds {
    /// In memory only (no journal).
    pub fn in_memory() -> CommandIds {
        CommandIds {
            inner: Mutex::new(Inner {
                file: None,
                seen: HashMap::new(),
            }),
        }
    }

    /// Opens (or starts) `path`: the store and the damage set aside, if any.
    /// Errors name the file (it cannot be read or opened).
    pub fn open(path: &Path) -> Result<(CommandIds, Option<Damage>), String> {
        let read = read_lines(path, false, |v| {
            let id = v
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .ok_or("key 'id': missing or not text")?;
            let outcome = v.get("outcome").ok_or("key 'outcome': missing")?;
            Ok((id.to_owned(), outcome.clone()))
        })?;
        let mut seen = HashMap::new();
        for (id, outcome) in read.items {
            if outcome.is_null() {
                seen.remove(&id);
            } else {
                seen.insert(id, outcome);
            }
        }
        let file = RecordFile::open(path, &os_opener(), read.end)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        Ok((
            CommandIds {
                inner: Mutex::new(Inner {
                    file: Some(file),
                    seen,
                }),
            },
            read.damage,
        ))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What came of `id`, if it was seen.
    pub fn get(&self, id: &str) -> Option<Value> {
        self.lock().seen.get(id).cloned()
    }

    /// Takes `id` when it is new (kept as `"pending"`, synced, before the
    /// ruling is applied). Errors: the id cannot be kept (the disk): the
    /// ruling must not be applied.
    pub fn claim(&self, id: &str) -> Result<Claim, String> {
        let mut inner = self.lock();
        if let Some(v) = inner.seen.get(id) {
            return Ok(Claim::Seen(v.clone()));
        }
        inner.write(id, &Value::from("pending"))?;
        inner.seen.insert(id.to_owned(), Value::from("pending"));
        Ok(Claim::New)
    }

    /// Keeps what came of `id` (`null`: forgets it, it may be sent again).
    /// Errors: the disk (the outcome stays in memory).
    pub fn record(&self, id: &str, outcome: Value) -> Result<(), String> {
        let mut inner = self.lock();
        if outcome.is_null() {
            inner.seen.remove(id);
        } else {
            inner.seen.insert(id.to_owned(), outcome.clone());
        }
        inner.write(id, &outcome)
    }
}

/// The HTTP answer (status, body) to command `id` seen before, from what came of it
/// (`outcome`, [`CommandIds`]): the first reply with `"repeated": true`;
/// for a ruling taken over MQTT the reply made from its outcome; 409 while
/// it is applied (or when the board stopped while applying it) or when it
/// was rejected.
pub fn repeated(id: &str, outcome: &Value) -> (u16, Value) {
    let mut v = match outcome {
        Value::Object(o) if o.get("reply").is_some_and(Value::is_object) => {
            let status = o.get("http").and_then(Value::as_u64).unwrap_or(200);
            let mut v = o["reply"].clone();
            v["repeated"] = Value::Bool(true);
            return (u16::try_from(status).unwrap_or(200), v);
        }
        Value::Object(o) if o.get("status").and_then(Value::as_str) == Some("applied") => {
            let mut v = Value::Object(o.clone());
            v["author"] = o.get("arbiter").cloned().unwrap_or(Value::Null);
            v["via"] = Value::from("mqtt");
            v["id"] = Value::from(id);
            v["repeated"] = Value::Bool(true);
            return (200, v);
        }
        Value::String(p) if p == "pending" => json!({"error": format!(
            "command {id} is being applied, or was when the board stopped (whether it was: the journal's arbiter records)"
        )}),
        o => {
            json!({"error": format!("command {id} was not applied: {}", o.get("reason").and_then(Value::as_str).unwrap_or("rejected"))})
        }
    };
    v["outcome"] = outcome.clone();
    v["id"] = Value::from(id);
    v["repeated"] = Value::Bool(true);
    (409, v)
}

impl Inner {
    fn write(&mut self, id: &str, outcome: &Value) -> Result<(), String> {
        let Some(f) = &mut self.file else {
            return Ok(());
        };
        let mut line =
            crate::disk::checksum::seal_json(&json!({"id": id, "outcome": outcome}).to_string())
                .into_bytes();
        line.push(b'\n');
        match f.append(line) {
            Health::Failing { error, .. } => Err(error),
            _ => f.sync(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_repeated_id_is_answered_from_its_first_outcome_either_way() {
        let http = json!({"status": "applied", "via": "http", "http": 200, "reply": {"t": 5, "author": "A"}});
        let (s, v) = repeated("c-1", &http);
        assert_eq!(
            (s, v["t"].as_u64(), v["repeated"].as_bool()),
            (200, Some(5), Some(true))
        );
        let mqtt = json!({"status": "applied", "t": 7, "arbiter": "B", "events": []});
        let (s, v) = repeated("c-2", &mqtt);
        assert_eq!(
            (s, v["author"].as_str(), v["via"].as_str()),
            (200, Some("B"), Some("mqtt"))
        );
        let (s, v) = repeated("c-3", &Value::from("pending"));
        assert_eq!(s, 409);
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("when the board stopped"),
            "{v}"
        );
        let (s, v) = repeated("c-4", &json!({"status": "rejected", "reason": "bad body"}));
        assert_eq!(s, 409);
        assert!(v["error"].as_str().unwrap().contains("bad body"), "{v}");
        // Foreign shapes are answered, never a panic.
        for odd in [json!(5), json!({"reply": 3}), json!([1])] {
            assert_eq!(repeated("c-5", &odd).0, 409);
        }
    }

    #[test]
    fn ids_survive_a_restart_and_a_forgotten_one_is_new_again() {
        let dir = std::env::temp_dir().join(format!("eboard-ids-{}", rand::random::<u32>()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("j.jsonl.rulings");
        let (s, _) = CommandIds::open(&p).unwrap();
        assert_eq!(s.claim("r-1").unwrap(), Claim::New);
        assert_eq!(s.claim("r-1").unwrap(), Claim::Seen(Value::from("pending")));
        s.record("r-1", json!({"status": "applied"})).unwrap();
        assert_eq!(s.claim("r-2").unwrap(), Claim::New);
        s.record("r-2", Value::Null).unwrap();
        drop(s);
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        write!(f, "{{\"id\": \"torn").unwrap();
        let (s, damage) = CommandIds::open(&p).unwrap();
        assert!(damage.is_none());
        assert_eq!(s.get("r-1").unwrap()["status"], "applied");
        assert!(s.get("torn").is_none());
        assert_eq!(s.claim("r-2").unwrap(), Claim::New);
        // The torn tail was cut off before the new line.
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(!text.contains("torn"), "{text}");
        // A foreign line in the middle: set aside, named, the good ids kept.
        std::fs::write(
            &p,
            format!("{text}{{\"x\": 1}}\n{{\"id\": \"r-3\", \"outcome\": \"pending\"}}\n"),
        )
        .unwrap();
        let (s, damage) = CommandIds::open(&p).unwrap();
        let damage = damage.unwrap();
        assert_eq!(damage.line, text.lines().count() + 1);
        assert!(damage.error.contains("key 'id'"), "{}", damage.error);
        assert!(s.get("r-1").is_some() && s.get("r-3").is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
