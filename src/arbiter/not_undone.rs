//! Why a ruling is not undone, in words that say what to rule instead
//! (issue 24 §5): a pause, a resume, a promotion's choice and an undo are
//! not withdrawn by an undo. For an undo the words name the ruling it
//! undid, what that ruling did, and how to give it again (ia14: "rule
//! again instead" named no ruling).

use super::refusal::hms;
use super::rulings::RulingEntry;

/// The refusal's reason for an undo of `r`, a ruling whose kind is not
/// undone (`pause`, `resume`, `choose`, `undo`); `all` the board's rulings.
pub(super) fn reason(r: &RulingEntry, all: &[RulingEntry]) -> String {
    let head = format!("ruling #{} ({}) is not undone", r.seq, r.action);
    let instead = match r.action {
        "pause" => "resume the clocks instead".to_owned(),
        "resume" => "pause the clocks instead".to_owned(),
        "choose" => "set the position instead".to_owned(),
        "undo" => match r.undoes.and_then(|s| all.iter().find(|x| x.seq == s)) {
            Some(u) => format!(
                "it undid ruling #{} ({}, {}: {}); to have that again, {}",
                u.seq,
                u.action,
                u.article,
                u.effect,
                again(u)
            ),
            None => "rule again instead".to_owned(),
        },
        _ => "rule again instead".to_owned(),
    };
    format!("{head}: {instead}")
}

/// How to give ruling `u` again, in the console's words.
fn again(u: &RulingEntry) -> String {
    match u.action {
        "clock" => match u.clocks {
            Some(((wb, bb), (wa, ba))) => {
                let amount = |before: u64, after: u64| {
                    if after >= before {
                        format!("+{}", hms(after - before))
                    } else {
                        format!("-{}", hms(before - after))
                    }
                };
                let mut parts = Vec::new();
                if wa != wb {
                    parts.push(format!("White {}", amount(wb, wa)));
                }
                if ba != bb {
                    parts.push(format!("Black {}", amount(bb, ba)));
                }
                if parts.is_empty() {
                    "set the clocks again".to_owned()
                } else {
                    format!(
                        "set the clocks again by the same amounts: {} (the clocks have run since)",
                        parts.join(", ")
                    )
                }
            }
            None => "set the clocks again".to_owned(),
        },
        "confirm" => "confirm (or correct) the result again, as it did".to_owned(),
        "result" => "declare the result again, as it did".to_owned(),
        "forfeit" => "enter the forfeit again".to_owned(),
        "position" => "set the position again".to_owned(),
        "restore" | "accept" => "accept the board's proposal again".to_owned(),
        "overrule" => "overrule the board's decision again".to_owned(),
        "rewind" => "take the game back to that move again".to_owned(),
        "uphold" => "uphold the claim again".to_owned(),
        "reject" => "reject the claim again".to_owned(),
        _ => format!("give ruling #{} again", u.seq),
    }
}
