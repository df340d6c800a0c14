//! A trace written back: the header and every record as the contract's
//! JSON (keys absent when unset), for journals and `eboard simulate`.

use super::*;

/// The header as a JSON object (keys absent when unset).
pub fn header_json(h: &Header) -> Value {
    let mut m = Map::new();
    m.insert("trace".into(), Value::from(h.version.max(1)));
    m.insert("sensing".into(), Value::from(h.sensing.as_str()));
    m.insert(
        "boards".into(),
        Value::from(h.boards.iter().map(|b| b.as_str()).collect::<Vec<_>>()),
    );
    let opt: [(&str, Option<&str>); 13] = [
        ("rules", h.rules.map(Edition::as_str)),
        ("mode", h.mode.map(Mode::as_str)),
        ("time_control", h.time_control.as_deref()),
        ("start_fen", h.start_fen.as_deref()),
        ("white", h.white.as_deref()),
        ("black", h.black.as_deref()),
        ("event", h.event.as_deref()),
        ("site", h.site.as_deref()),
        ("supervision", h.supervision.map(Supervision::as_str)),
        ("date", h.date.as_deref()),
        ("round", h.round.as_deref()),
        ("language", h.language.map(Lang::as_str)),
        ("words", h.words.map(WordChoice::as_str)),
    ];
    for (k, v) in opt {
        if let Some(v) = v {
            m.insert(k.into(), Value::from(v));
        }
    }
    if let Some(c) = h.vi_player {
        m.insert("vi_player".into(), Value::from(color_str(c)));
    }
    if let Some(ms) = h.default_time_ms {
        m.insert("default_time_ms".into(), Value::from(ms));
    }
    if let Some(ms) = h.session_start_ms {
        m.insert("session_start_ms".into(), Value::from(ms));
    }
    if let Some(b) = h.board_observes_illegal_moves {
        m.insert("board_observes_illegal_moves".into(), Value::from(b));
    }
    Value::Object(m)
}

/// A record as the contract's JSON object.
pub fn record_json(r: &Record) -> Value {
    let mut m = Map::new();
    m.insert("t".into(), Value::from(r.t));
    let by = |m: &mut Map<String, Value>, c: Color| {
        m.insert("by".into(), Value::from(color_str(c)));
    };
    match &r.kind {
        RecordKind::Lift(sq) => {
            m.insert("lift".into(), Value::from(sq.to_string()));
        }
        RecordKind::Place {
            square,
            color,
            piece,
        } => {
            m.insert("place".into(), Value::from(square.to_string()));
            if let Some(p) = piece {
                m.insert("piece".into(), Value::from(p.char().to_string()));
            } else if let Some(c) = color {
                m.insert("color".into(), Value::from(color_str(*c)));
            }
        }
        RecordKind::Frame(bits) => {
            m.insert("frame".into(), Value::from(format!("{bits:016x}")));
        }
        RecordKind::Press(c) => {
            m.insert("press".into(), Value::from(color_str(*c)));
        }
        RecordKind::Promote(role) => {
            m.insert("promote".into(), Value::from(role.char().to_string()));
        }
        RecordKind::Claim {
            kind,
            by: c,
            intended,
        } => {
            m.insert("claim".into(), Value::from(kind.as_str()));
            by(&mut m, *c);
            if let Some(mv) = intended {
                m.insert("move".into(), Value::from(mv.as_str()));
            }
        }
        RecordKind::Offer(c) => {
            m.insert("offer".into(), Value::from("draw"));
            by(&mut m, *c);
        }
        RecordKind::Accept(c) => {
            m.insert("accept".into(), Value::from("draw"));
            by(&mut m, *c);
        }
        RecordKind::Decline(c) => {
            m.insert("decline".into(), Value::from("draw"));
            by(&mut m, *c);
        }
        RecordKind::Resign(c) => {
            m.insert("resign".into(), Value::from(color_str(*c)));
        }
        RecordKind::Adjust(c) => {
            m.insert("adjust".into(), Value::from(color_str(*c)));
        }
        RecordKind::Query {
            what,
            by: c,
            piece,
            author,
        } => {
            m.insert("query".into(), Value::from(what.as_str()));
            by(&mut m, *c);
            if let Some(p) = piece {
                m.insert("piece".into(), Value::from(p.char().to_string()));
            }
            if let Some(a) = author {
                m.insert("author".into(), Value::from(a.as_str()));
            }
        }
        RecordKind::Spoken { n, by: who } => {
            m.insert("spoken".into(), Value::from(*n));
            if let Some(c) = who {
                by(&mut m, *c);
            }
        }
        RecordKind::Unheard { n, by: who } => {
            m.insert("unheard".into(), Value::from(*n));
            by(&mut m, *who);
        }
        RecordKind::Arbiter {
            action,
            author,
            expect,
            reason,
        } => {
            m.insert("arbiter".into(), Value::from(action.as_str()));
            if let Some(r) = reason {
                m.insert("reason".into(), Value::from(r.as_str()));
            }
            match action {
                ArbiterAction::SetResult(r) => {
                    m.insert("result".into(), Value::from(r.as_str()));
                }
                ArbiterAction::DeclareResult { result, article } => {
                    m.insert("result".into(), Value::from(result.as_str()));
                    m.insert("article".into(), Value::from(article.as_str()));
                }
                ArbiterAction::Confirm(Some(r)) => {
                    m.insert("result".into(), Value::from(r.as_str()));
                }
                ArbiterAction::Forfeit(f) => {
                    m.insert("result".into(), Value::from(f.as_str()));
                }
                ArbiterAction::ForfeitBeforeDefaultTime(f) => {
                    m.insert("result".into(), Value::from(f.as_str()));
                    m.insert("before_default_time".into(), Value::from(true));
                }
                ArbiterAction::Undo(n) => {
                    m.insert("ruling".into(), Value::from(*n));
                }
                ArbiterAction::Rewind(p) => {
                    m.insert("ply".into(), Value::from(*p));
                }
                ArbiterAction::SetClock {
                    white_ms,
                    black_ms,
                    moves,
                } => {
                    m.insert("white_ms".into(), Value::from(*white_ms));
                    m.insert("black_ms".into(), Value::from(*black_ms));
                    if let Some(n) = moves {
                        m.insert("moves".into(), Value::from(*n));
                    }
                }
                ArbiterAction::SetPosition(fen) => {
                    m.insert("fen".into(), Value::from(fen.as_str()));
                }
                ArbiterAction::Choose(uci) => {
                    m.insert("uci".into(), Value::from(uci.as_str()));
                }
                ArbiterAction::Increment(r) => {
                    by(&mut m, r.by);
                    if r.delay {
                        m.insert("mode".into(), Value::from("delay"));
                    }
                    if r.accepted {
                        m.insert("offer".into(), Value::from("accepted"));
                    }
                }
                ArbiterAction::TimeControl {
                    control,
                    from_move,
                    times,
                } => {
                    m.insert("control".into(), Value::from(control.as_str()));
                    if let Some(n) = from_move {
                        m.insert("from_move".into(), Value::from(*n));
                    }
                    if let Some((w, b)) = times {
                        m.insert("white_ms".into(), Value::from(*w));
                        m.insert("black_ms".into(), Value::from(*b));
                    }
                }
                ArbiterAction::Downtime { charge, ms } => {
                    m.insert("charge".into(), Value::from(charge.as_str()));
                    if let Some(ms) = ms {
                        m.insert("ms".into(), Value::from(*ms));
                    }
                }
                ArbiterAction::Withdraw(p) => penalty_ref(&mut m, *p),
                ArbiterAction::Displaced { penalty, uci } => {
                    penalty_ref(&mut m, *penalty);
                    if let Some(u) = uci {
                        m.insert("uci".into(), Value::from(u.as_str()));
                    }
                }
                ArbiterAction::Uphold(Some(mv)) | ArbiterAction::Reject(Some(mv)) => {
                    m.insert("move".into(), Value::from(mv.as_str()));
                }
                _ => {}
            }
            if let Some(e) = expect {
                m.insert("expect".into(), e.to_json());
            }
            if let Some(a) = author {
                m.insert("author".into(), Value::from(a.as_str()));
            }
        }
    }
    if r.board != BoardId::Main {
        m.insert("board".into(), Value::from(r.board.as_str()));
    }
    Value::Object(m)
}

/// A `withdraw` / `displaced` ruling's penalty, as `parse` reads it.
fn penalty_ref(m: &mut Map<String, Value>, p: PenaltyRef) {
    match p {
        PenaltyRef::Answered => {}
        PenaltyRef::Event(t) => {
            m.insert(
                "event".into(),
                serde_json::json!({"type": "illegal_move", "t": t}),
            );
        }
        PenaltyRef::Ruling(n) => {
            m.insert("ruling".into(), Value::from(n));
        }
        PenaltyRef::End { t, times } => {
            if let Some(t) = t {
                m.insert(
                    "event".into(),
                    serde_json::json!({"type": "game_end", "t": t}),
                );
            }
            if let Some((w, b)) = times {
                m.insert("white_ms".into(), Value::from(w));
                m.insert("black_ms".into(), Value::from(b));
            }
        }
    }
}
