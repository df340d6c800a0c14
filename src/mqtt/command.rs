//! Rulings over MQTT, authenticated end to end (issue 15 item 2,
//! `docs/event.md`, "Rulings over MQTT"): the console (or `eboard rule`)
//! signs a ruling with its Ed25519 key; the board verifies the signature
//! against the public keys of its config (`[mqtt] command_keys`), so a
//! broker user who may publish on the topic cannot rule. A ruling carries
//! an id and the time it was issued: the board refuses one issued outside
//! its window (`[mqtt] command_window`) and answers an id it has seen
//! (kept in a file beside its journal, `crate::console::command_ids`,
//! the store `POST /arbiter/command` uses too) as a duplicate,
//! without applying it again.
//!
//! Topics of board `N` (the table's number, as the board's config topic):
//! `{prefix}/{event}/board/{N}/command` (QoS 1, not retained) and the
//! board's answers on `{prefix}/{event}/board/{N}/reply` (QoS 1).
//!
//! The signed bytes are [`DOMAIN`], the event's topic level (its slug,
//! [`crate::mqtt::slug`]) and a newline, then the ruling as compact JSON
//! with every object's keys sorted (serde_json's map): `{"action", "arbiter",
//! "board", "body", "id", "issued_ms", "round"?}`, `body` an object (`{}` when the
//! action has none), `round` only when the ruling names its game's round. The event is signed, not sent: a ruling taken from
//! one event's topic is not valid on another's. The message is that object plus `"sig"`: the 64-byte
//! signature in lower-case hex.

use ring::signature::{Ed25519KeyPair, KeyPair, UnparsedPublicKey, ED25519};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the signed bytes start with (no other eboard signature can be
/// taken for a ruling).
pub const DOMAIN: &[u8] = b"eboard-ruling-v1\n";

/// The default window, seconds: a ruling issued longer ago (or further
/// ahead, a console's clock running fast) than this is refused.
pub const DEFAULT_WINDOW_S: u64 = 60;

/// The longest ruling id, characters.
pub const MAX_ID: usize = 128;

/// A ruling as the console sends it: `{board, action, body, arbiter, id}`
/// and the Unix time in ms it was issued.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ruling {
    /// The board (table) number it is for.
    pub board: u32,
    /// The round of the game it was made for (the console's `round.board`):
    /// a board that now plays another round's game refuses it (issue 24.1:
    /// a ruling for game 3.4 is not applied to table 4's game 4.4). Signed
    /// when present; absent in rulings of older consoles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// The arbiter API's action (`restore`, `clock`, `result`, …).
    pub action: String,
    /// The action's body (`{"white_ms": …}`), `{}` when it has none.
    #[serde(default)]
    pub body: Value,
    /// The arbiter who rules: journaled as the ruling's author.
    pub arbiter: String,
    /// Unique per ruling (the console's): the key of idempotency.
    pub id: String,
    /// When it was issued, Unix ms.
    pub issued_ms: u64,
}

/// A ruling with its signature: the message on the command topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signed {
    /// The ruling.
    #[serde(flatten)]
    pub ruling: Ruling,
    /// The Ed25519 signature of [`canonical`], hex.
    pub sig: String,
}

/// The bytes signed: [`DOMAIN`], `event` (the topic's event level) and a
/// newline, and the ruling's canonical JSON.
pub fn canonical(event: &str, r: &Ruling) -> Vec<u8> {
    let body = match &r.body {
        Value::Null => Value::Object(Default::default()),
        b => b.clone(),
    };
    // serde_json's map keeps its keys sorted: one text for one ruling.
    let mut v = serde_json::json!({
        "action": r.action,
        "arbiter": r.arbiter,
        "board": r.board,
        "body": body,
        "id": r.id,
        "issued_ms": r.issued_ms,
    });
    if let Some(round) = r.round {
        v["round"] = Value::from(round);
    }
    let mut out = DOMAIN.to_vec();
    out.extend_from_slice(event.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(v.to_string().as_bytes());
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

/// A signing key: its 32-byte Ed25519 seed.
pub struct SigningKey(Ed25519KeyPair);

impl SigningKey {
    /// The key of `seed` (32 bytes, hex in a key file).
    pub fn from_seed_hex(text: &str) -> Result<SigningKey, String> {
        let seed = unhex(text)
            .filter(|s| s.len() == 32)
            .ok_or("a signing key is 64 hex digits (an Ed25519 seed)")?;
        Ed25519KeyPair::from_seed_unchecked(&seed)
            .map(SigningKey)
            .map_err(|e| format!("not an Ed25519 seed: {e}"))
    }

    /// A new key from 32 random bytes: (the key, its seed in hex).
    pub fn generate() -> (SigningKey, String) {
        let seed: [u8; 32] = rand::random();
        let text = hex(&seed);
        let key = SigningKey(
            Ed25519KeyPair::from_seed_unchecked(&seed).expect("any 32 bytes are an Ed25519 seed"),
        );
        (key, text)
    }

    /// The public key, hex (what a board's `[mqtt] command_keys` lists).
    pub fn public_hex(&self) -> String {
        hex(self.0.public_key().as_ref())
    }

    /// `r` signed for the event whose topic level is `event`.
    pub fn sign(&self, event: &str, r: Ruling) -> Signed {
        let sig = hex(self.0.sign(&canonical(event, &r)).as_ref());
        Signed { ruling: r, sig }
    }
}

/// A public key from its hex (64 digits).
pub fn parse_public_key(text: &str) -> Result<[u8; 32], String> {
    let v = unhex(text)
        .filter(|v| v.len() == 32)
        .ok_or_else(|| format!("\"{text}\": an Ed25519 public key is 64 hex digits"))?;
    let mut k = [0u8; 32];
    k.copy_from_slice(&v);
    Ok(k)
}

/// Why a ruling is refused before it is applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Not a ruling message (its JSON).
    Malformed(String),
    /// For another board.
    OtherBoard(u32),
    /// Not signed by any configured key (unsigned, forged, or altered).
    BadSignature,
    /// Issued outside the window: (age ms, negative ahead).
    OutsideWindow(i64),
    /// An id longer than [`MAX_ID`] or empty.
    BadId,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Malformed(e) => write!(f, "not a ruling: {e}"),
            Refused::OtherBoard(b) => write!(f, "for board {b}, not this one"),
            Refused::BadSignature => f.write_str(
                "not signed by a key of [mqtt] command_keys (unsigned, forged or altered)",
            ),
            Refused::OutsideWindow(age) if *age < 0 => {
                write!(f, "issued {} ms in the future: outside the window", -age)
            }
            Refused::OutsideWindow(age) => write!(f, "issued {age} ms ago: outside the window"),
            Refused::BadId => write!(f, "its id must be 1..={MAX_ID} characters"),
        }
    }
}

/// Reads and verifies a command message for board `board` of the event
/// whose topic level is `event` at Unix time `now_ms`: the ruling when it
/// is signed by one of `keys` and issued within `window_ms` of now.
pub fn verify(
    payload: &[u8],
    event: &str,
    board: u32,
    keys: &[[u8; 32]],
    now_ms: u64,
    window_ms: u64,
) -> Result<Ruling, (Option<String>, Refused)> {
    let s: Signed = serde_json::from_slice(payload)
        .map_err(|e| (id_of(payload), Refused::Malformed(e.to_string())))?;
    let id = Some(s.ruling.id.clone());
    if s.ruling.id.is_empty() || s.ruling.id.chars().count() > MAX_ID {
        return Err((None, Refused::BadId));
    }
    let sig = unhex(&s.sig).ok_or((id.clone(), Refused::BadSignature))?;
    let msg = canonical(event, &s.ruling);
    let signed = keys.iter().any(|k| {
        UnparsedPublicKey::new(&ED25519, k)
            .verify(&msg, &sig)
            .is_ok()
    });
    if !signed {
        return Err((id, Refused::BadSignature));
    }
    if s.ruling.board != board {
        return Err((id, Refused::OtherBoard(s.ruling.board)));
    }
    let age = now_ms as i64 - s.ruling.issued_ms as i64;
    if age.unsigned_abs() > window_ms {
        return Err((id, Refused::OutsideWindow(age)));
    }
    Ok(s.ruling)
}

fn id_of(payload: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(payload).ok()?;
    v.get("id")?
        .as_str()
        .map(|s| s.chars().take(MAX_ID).collect())
}

/// The command and reply topics of board `board`.
pub fn topics(prefix: &str, event_slug: &str, board: u32) -> (String, String) {
    let base = format!("{prefix}/{event_slug}/board/{board}");
    (format!("{base}/command"), format!("{base}/reply"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ruling() -> Ruling {
        Ruling {
            board: 2,
            round: None,
            action: "clock".into(),
            body: serde_json::json!({"white_ms": 60000, "black_ms": 30000}),
            arbiter: "Hansen, IA".into(),
            id: "r-1".into(),
            issued_ms: 1_000_000,
        }
    }

    #[test]
    fn signed_rulings_verify_and_anything_else_is_refused() {
        let (key, _) = SigningKey::generate();
        let pk = parse_public_key(&key.public_hex()).unwrap();
        let msg = serde_json::to_vec(&key.sign("dm-2026", ruling())).unwrap();
        let r = verify(&msg, "dm-2026", 2, &[pk], 1_000_500, 60_000).unwrap();
        assert_eq!(r.arbiter, "Hansen, IA");
        // Another key.
        let (other, _) = SigningKey::generate();
        let forged = serde_json::to_vec(&other.sign("dm-2026", ruling())).unwrap();
        assert_eq!(
            verify(&forged, "dm-2026", 2, &[pk], 1_000_500, 60_000)
                .unwrap_err()
                .1,
            Refused::BadSignature
        );
        // Altered after signing: the arbiter's name.
        let mut s = key.sign("dm-2026", ruling());
        s.ruling.arbiter = "Someone".into();
        let altered = serde_json::to_vec(&s).unwrap();
        assert_eq!(
            verify(&altered, "dm-2026", 2, &[pk], 1_000_500, 60_000)
                .unwrap_err()
                .1,
            Refused::BadSignature
        );
        // Altered after signing: the round (a ruling made for game 3.2
        // passed off as one for 4.2), or a round added to one without.
        let mut s = key.sign(
            "dm-2026",
            Ruling {
                round: Some(3),
                ..ruling()
            },
        );
        s.ruling.round = Some(4);
        for r in [
            s.clone(),
            Signed {
                ruling: Ruling {
                    round: Some(4),
                    ..ruling()
                },
                sig: key.sign("dm-2026", ruling()).sig,
            },
        ] {
            assert_eq!(
                verify(
                    &serde_json::to_vec(&r).unwrap(),
                    "dm-2026",
                    2,
                    &[pk],
                    1_000_500,
                    60_000
                )
                .unwrap_err()
                .1,
                Refused::BadSignature
            );
        }
        let round = serde_json::to_vec(&key.sign(
            "dm-2026",
            Ruling {
                round: Some(3),
                ..ruling()
            },
        ))
        .unwrap();
        assert_eq!(
            verify(&round, "dm-2026", 2, &[pk], 1_000_500, 60_000)
                .unwrap()
                .round,
            Some(3)
        );
        // Unsigned.
        let mut v = serde_json::to_value(key.sign("dm-2026", ruling())).unwrap();
        v.as_object_mut().unwrap().remove("sig");
        let e = verify(
            v.to_string().as_bytes(),
            "dm-2026",
            2,
            &[pk],
            1_000_500,
            60_000,
        )
        .unwrap_err();
        assert!(matches!(e.1, Refused::Malformed(_)));
        assert_eq!(e.0.as_deref(), Some("r-1"));
        // Another board; too old; from the future.
        assert_eq!(
            verify(&msg, "dm-2026", 3, &[pk], 1_000_500, 60_000)
                .unwrap_err()
                .1,
            Refused::OtherBoard(2)
        );
        assert!(matches!(
            verify(&msg, "dm-2026", 2, &[pk], 1_070_000, 60_000)
                .unwrap_err()
                .1,
            Refused::OutsideWindow(70_000)
        ));
        assert!(matches!(
            verify(&msg, "dm-2026", 2, &[pk], 900_000, 60_000)
                .unwrap_err()
                .1,
            Refused::OutsideWindow(-100_000)
        ));
    }

    #[test]
    fn the_signed_text_is_canonical() {
        // Key order in the body does not change the bytes.
        let mut a = ruling();
        a.body = serde_json::from_str(r#"{"black_ms": 30000, "white_ms": 60000}"#).unwrap();
        assert_eq!(canonical("e", &a), canonical("e", &ruling()));
        let t = String::from_utf8(canonical("dm-2026", &ruling())).unwrap();
        assert_eq!(
            t,
            "eboard-ruling-v1\ndm-2026\n{\"action\":\"clock\",\"arbiter\":\"Hansen, IA\",\"board\":2,\"body\":{\"black_ms\":30000,\"white_ms\":60000},\"id\":\"r-1\",\"issued_ms\":1000000}"
        );
        let mut none = ruling();
        none.body = Value::Null;
        let mut empty = ruling();
        empty.body = serde_json::json!({});
        assert_eq!(canonical("e", &none), canonical("e", &empty));
        // Another event's ruling is not this one's.
        let (key, _) = SigningKey::generate();
        let pk = parse_public_key(&key.public_hex()).unwrap();
        let msg = serde_json::to_vec(&key.sign("other-event", ruling())).unwrap();
        assert_eq!(
            verify(&msg, "dm-2026", 2, &[pk], 1_000_000, 60_000)
                .unwrap_err()
                .1,
            Refused::BadSignature
        );
    }
}
