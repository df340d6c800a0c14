//! One way to write a trace by hand: [`TraceBuilder`], with a method a
//! record kind of `../shared/spec/trace-format.md` and a one-line-a-step text
//! form ([`TraceBuilder::steps`]) for scenarios. The builder writes JSON
//! text (it knows nothing of the crate's types); [`TraceBuilder::trace`] and
//! [`replay_events`] are the one place where the tests hand that text to
//! `eboard::trace` and `eboard::controller`.
//!
//! Times `t` are milliseconds since the start of the trace.

use eboard::controller::replay;
use eboard::trace::Trace;
use serde_json::{json, Value};

/// A trace under construction: the header object and the records in order,
/// each a JSON object as the trace contract writes it.
#[derive(Clone, Debug)]
pub struct TraceBuilder {
    header: Value,
    records: Vec<Value>,
}

impl Default for TraceBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl TraceBuilder {
    /// The header `{"trace": 1}` and no records.
    pub fn new() -> Self {
        Self::with_header(json!({"trace": 1}))
    }

    /// `header` as given: a JSON object with the key `trace` and any header
    /// keys (`start_fen`, `time_control`, `rules`, `mode`, `sensing`,
    /// `boards`, `vi_player`, `language`, `supervision`, names …).
    pub fn with_header(header: Value) -> Self {
        assert!(header.is_object(), "a trace header is an object: {header}");
        TraceBuilder {
            header,
            records: Vec::new(),
        }
    }

    /// Sets one header key.
    pub fn header(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.header[key] = value.into();
        self
    }

    /// Appends a record as given (for fields no method below writes).
    pub fn record(mut self, record: Value) -> Self {
        self.records.push(record);
        self
    }

    /// `{"t", "lift": square}`: a piece (or a peg) left `square`.
    pub fn lift(self, t: u64, square: &str) -> Self {
        self.record(json!({"t": t, "lift": square}))
    }

    /// `{"t", "place": square}`: a piece arrived on `square` (occupancy).
    pub fn place(self, t: u64, square: &str) -> Self {
        self.record(json!({"t": t, "place": square}))
    }

    /// `{"t", "place", "color"}` on a colour-sensing board (`w` or `b`).
    pub fn place_color(self, t: u64, square: &str, color: &str) -> Self {
        self.record(json!({"t": t, "place": square, "color": color}))
    }

    /// `{"t", "place", "piece"}` on an identity-sensing board (FEN letter).
    pub fn place_piece(self, t: u64, square: &str, piece: &str) -> Self {
        self.record(json!({"t": t, "place": square, "piece": piece}))
    }

    /// `{"t", "frame": hex}`: an occupancy snapshot, 16 hex digits.
    pub fn frame(self, t: u64, hex: &str) -> Self {
        self.record(json!({"t": t, "frame": hex}))
    }

    /// `{"t", "press": by}`: `by` (`w` or `b`) pressed the clock.
    pub fn press(self, t: u64, by: &str) -> Self {
        self.record(json!({"t": t, "press": by}))
    }

    /// `{"t", "promote": piece}`: a promotion choice off the board (`q r b n`).
    pub fn promote(self, t: u64, piece: &str) -> Self {
        self.record(json!({"t": t, "promote": piece}))
    }

    /// `{"t", "claim": kind, "by"}`.
    pub fn claim(self, t: u64, kind: &str, by: &str) -> Self {
        self.record(json!({"t": t, "claim": kind, "by": by}))
    }

    /// `{"t", "claim": kind, "by", "move"}`: a draw claim on the move
    /// written on the scoresheet and not made (§9.2a / 9.2.1; extension).
    pub fn claim_written(self, t: u64, kind: &str, by: &str, mv: &str) -> Self {
        self.record(json!({"t": t, "claim": kind, "by": by, "move": mv}))
    }

    /// `{"t", "offer": "draw", "by"}`.
    pub fn offer(self, t: u64, by: &str) -> Self {
        self.draw(t, "offer", by)
    }

    /// `{"t", "accept": "draw", "by"}`.
    pub fn accept(self, t: u64, by: &str) -> Self {
        self.draw(t, "accept", by)
    }

    /// `{"t", "decline": "draw", "by"}`.
    pub fn decline(self, t: u64, by: &str) -> Self {
        self.draw(t, "decline", by)
    }

    fn draw(self, t: u64, verb: &str, by: &str) -> Self {
        self.record(json!({"t": t, verb: "draw", "by": by}))
    }

    /// `{"t", "resign": by}`.
    pub fn resign(self, t: u64, by: &str) -> Self {
        self.record(json!({"t": t, "resign": by}))
    }

    /// `{"t", "adjust": by}`: j'adoube.
    pub fn adjust(self, t: u64, by: &str) -> Self {
        self.record(json!({"t": t, "adjust": by}))
    }

    /// `{"t", "arbiter": action}`.
    pub fn arbiter(self, t: u64, action: &str) -> Self {
        self.record(json!({"t": t, "arbiter": action}))
    }

    /// `{"t", "arbiter": action, "fen"}` (the arbiter sets up a position).
    pub fn arbiter_fen(self, t: u64, action: &str, fen: &str) -> Self {
        self.record(json!({"t": t, "arbiter": action, "fen": fen}))
    }

    /// `{"t", "query": kind, "by"}`: a player asks (Appendix E).
    pub fn query(self, t: u64, kind: &str, by: &str) -> Self {
        self.record(json!({"t": t, "query": kind, "by": by}))
    }

    /// `{"t", "query": kind, "by", "piece"}`.
    pub fn query_piece(self, t: u64, kind: &str, by: &str, piece: &str) -> Self {
        self.record(json!({"t": t, "query": kind, "by": by, "piece": piece}))
    }

    /// Marks the last record as made on `board` (`"tactile"`).
    pub fn on(mut self, board: &str) -> Self {
        let last = self.records.last_mut().expect("a record to put on a board");
        last["board"] = json!(board);
        self
    }

    /// A whole move by `by`: lift the piece at `t + 100`, place it at
    /// `t + 300`, press the clock at `t + 600` (`uci` gives the squares).
    pub fn mv(self, t: u64, uci: &str, by: &str) -> Self {
        let (from, to) = (&uci[..2], &uci[2..4]);
        self.lift(t + 100, from)
            .place(t + 300, to)
            .press(t + 600, by)
    }

    /// A capture: the captured piece lifted from the target square at `t`,
    /// then [`TraceBuilder::mv`].
    pub fn cap(self, t: u64, uci: &str, by: &str) -> Self {
        self.lift(t, &uci[2..4]).mv(t, uci, by)
    }

    /// Appends steps written one a line (blank lines skipped):
    ///
    /// - `T lift SQ`, `T place SQ [w|b|PIECE]`, `T frame HEX`, `T press C`
    /// - `T mv UCI C`, `T cap UCI C` ([`TraceBuilder::mv`], [`TraceBuilder::cap`])
    /// - `T claim KIND C`, `T offer|accept|decline C` (a draw), `T resign C`,
    ///   `T adjust C`, `T promote P`
    /// - `T arbiter ACTION [FEN…]`, `T arbiter ACTION [FEN…] KEY=VALUE…` (`rewind ply=2`)
    /// - `T query KIND C [PIECE]`
    ///
    /// `T` is the time in ms; a board name (`main`, `tactile`) after it puts
    /// the step's records on that board: `3000 tactile lift e2`.
    pub fn steps(mut self, text: &str) -> Self {
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            self = self.step(line);
        }
        self
    }

    fn step(self, line: &str) -> Self {
        let mut w: Vec<&str> = line.split_whitespace().collect();
        let t: u64 = w[0]
            .parse()
            .unwrap_or_else(|_| panic!("step {line:?}: the time in ms first"));
        let board = match w.get(1) {
            Some(&b) if b == "main" || b == "tactile" => Some(w.remove(1)),
            _ => None,
        };
        let arg = |i: usize| -> &str {
            w.get(i)
                .copied()
                .unwrap_or_else(|| panic!("step {line:?}: word {} missing", i + 1))
        };
        let before = self.records.len();
        let mut b = match arg(1) {
            "lift" => self.lift(t, arg(2)),
            "place" => match w.get(3) {
                Some(&c) if c == "w" || c == "b" => self.place_color(t, arg(2), c),
                Some(&p) => self.place_piece(t, arg(2), p),
                None => self.place(t, arg(2)),
            },
            "frame" => self.frame(t, arg(2)),
            "press" => self.press(t, arg(2)),
            "mv" => self.mv(t, arg(2), arg(3)),
            "cap" => self.cap(t, arg(2), arg(3)),
            // `claim threefold w Nf3`: on a written move.
            "claim" if w.len() > 4 => self.claim_written(t, arg(2), arg(3), arg(4)),
            "claim" => self.claim(t, arg(2), arg(3)),
            "offer" => self.offer(t, arg(2)),
            "accept" => self.accept(t, arg(2)),
            "decline" => self.decline(t, arg(2)),
            "resign" => self.resign(t, arg(2)),
            "adjust" => self.adjust(t, arg(2)),
            "promote" => self.promote(t, arg(2)),
            // `arbiter rewind ply=2`, `arbiter position FEN… author=IA`: words
            // with `=` are the ruling's fields (numbers as numbers), the
            // others its FEN.
            "arbiter" if w.len() > 3 => {
                let (kv, fen): (Vec<&str>, Vec<&str>) =
                    w[3..].iter().partition(|x| x.contains('='));
                let mut r = json!({"t": t, "arbiter": arg(2)});
                if !fen.is_empty() {
                    r["fen"] = json!(fen.join(" "));
                }
                for (k, v) in kv.iter().filter_map(|x| x.split_once('=')) {
                    r[k] = v.parse::<i64>().map_or_else(|_| json!(v), |n| json!(n));
                }
                self.record(r)
            }
            "arbiter" => self.arbiter(t, arg(2)),
            "spoken" => match w.get(3) {
                // `spoken N b`: heard on Black's own output.
                Some(by) => {
                    self.record(json!({"t": t, "spoken": arg(2).parse::<u64>().unwrap(), "by": by}))
                }
                None => self.record(json!({"t": t, "spoken": arg(2).parse::<u64>().unwrap()})),
            },
            // `unheard N b`: Black's own output failed to play it (E2.3).
            "unheard" => self
                .record(json!({"t": t, "unheard": arg(2).parse::<u64>().unwrap(), "by": arg(3)})),
            "query" => match w.get(4) {
                Some(p) => self.query_piece(t, arg(2), arg(3), p),
                None => self.query(t, arg(2), arg(3)),
            },
            other => panic!("step {line:?}: unknown step {other}"),
        };
        if let Some(board) = board {
            for r in &mut b.records[before..] {
                r["board"] = json!(board);
            }
        }
        b
    }

    /// The trace as JSONL: the header line, then one line a record, each
    /// line ending in `\n`.
    pub fn text(&self) -> String {
        let mut text = self.header.to_string();
        text.push('\n');
        for r in &self.records {
            text.push_str(&r.to_string());
            text.push('\n');
        }
        text
    }

    /// [`TraceBuilder::text`] parsed by `eboard::trace::Trace::parse`;
    /// panics with the parser's error and the text.
    pub fn trace(&self) -> Trace {
        let text = self.text();
        Trace::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }
}

/// Replays `trace` in-process under the rule profile `rules`
/// (`fide-2009`, …): the event stream, one JSON object an event, as
/// `eboard replay --json` writes it.
pub fn replay_events(trace: &TraceBuilder, rules: &str) -> Vec<Value> {
    let rules = rules
        .parse()
        .unwrap_or_else(|e| panic!("rule profile {rules}: {e}"));
    let (_, events) = replay(&trace.trace(), Some(rules), None).expect("config");
    events
        .iter()
        .map(|e| serde_json::from_str(&e.to_json()).unwrap())
        .collect()
}

/// [`replay_events`] of `header` (a JSON object) followed by `steps`
/// (the step language of [`TraceBuilder::steps`]).
pub fn replay_steps(header: Value, steps: &str, rules: &str) -> Vec<Value> {
    replay_events(&TraceBuilder::with_header(header).steps(steps), rules)
}

/// The events of type `ty`, in order.
pub fn of<'a>(events: &'a [Value], ty: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == ty).collect()
}

/// The first event that a correctly played game must never give: an
/// `illegal_move`, a `touch_move` or an `irregularity` (the whole-game
/// tests replay real and random games and expect none).
pub fn false_alarm(events: &[eboard::trace::Event]) -> Option<&eboard::trace::Event> {
    use eboard::trace::EventKind;
    events.iter().find(|e| {
        matches!(
            e.kind,
            EventKind::IllegalMove { .. }
                | EventKind::TouchMove { .. }
                | EventKind::Irregularity { .. }
        )
    })
}

/// The text of [`E4_E5_COPIED`], for `concat!` ([`DRIFT`] starts so).
macro_rules! e4_e5_copied {
    () => {
        "
    1000 lift e2
    1300 place e4
    1600 press w
    3000 tactile lift e2
    3200 tactile place e4
    3400 tactile lift e7
    3600 tactile place e5
    8000 press b
    9000 lift e7
    9200 place e5"
    };
}

/// The Appendix E copy drift both copy suites play (`tests/tactile.rs`,
/// `tests/copies.rs`): 1.e4 e5 copied right; White's 2.Nf3 copied to h3 on
/// the tactile board, Black plays Nc6 on it and presses; 3.Bb5. The boards
/// last agreed after 1…e5 (ply 2), at Black's press at 8 s. Step language
/// of [`TraceBuilder::steps`].
pub const DRIFT: &str = concat!(
    e4_e5_copied!(),
    "
    10000 lift g1
    10200 place f3
    10500 press w
    12000 tactile lift g1
    12200 tactile place h3
    12400 tactile lift b8
    12600 tactile place c6
    18000 press b
    19000 lift b8
    19200 place c6
    20000 lift f1
    20200 place b5
    20500 press w"
);

/// The visually impaired player's opening (Black, on his tactile board):
/// White's 1. e4 made and pressed on the main board, copied on Black's
/// tactile board. Step language of [`TraceBuilder::steps`].
pub const VI_E4: &str = "
    1000 lift e2
    1300 place e4
    1600 press w
    3000 tactile lift e2
    3200 tactile place e4";

/// [`VI_E4`], then Black answers e5 on his tactile board (4.3 s) and
/// presses at `press_ms`.
pub fn vi_e4_e5(press_ms: u64) -> String {
    format!("{VI_E4}\n    4000 tactile lift e7\n    4300 tactile place e5\n    {press_ms} press b")
}

/// The header of a game on a main and a tactile board, Black the visually
/// impaired player, under the time control `tc`.
pub fn vi_header(tc: &str) -> Value {
    json!({"trace": 1, "boards": ["main", "tactile"], "vi_player": "b", "time_control": tc})
}

/// `game` simulated (`eboard::sim`) on an occupancy board without frames,
/// with the random seed `seed`.
pub fn simulate_occupancy(game: &eboard::pgn::PgnGame, seed: u64) -> Trace {
    eboard::sim::simulate(
        game,
        &eboard::sim::SimOptions {
            seed,
            sensing: eboard::trace::Sensing::Occupancy,
            frames: false,
        },
    )
    .unwrap()
}

/// Every rule profile, oldest first.
pub const ALL_RULES: [&str; 4] = ["fide-2001", "fide-2009", "fide-2009-no", "fide-2023"];

/// A trace header starting from `fen` (the initial position when empty).
pub fn fen_header(fen: &str) -> Value {
    if fen.is_empty() {
        json!({"trace": 1})
    } else {
        json!({"trace": 1, "start_fen": fen})
    }
}

/// 1.e4 e5 on the main board, copied right on Black's tactile board
/// (Black presses at 8 s, White copies e5 by 9.2 s): the start of
/// [`DRIFT`]. Step language of [`TraceBuilder::steps`].
pub const E4_E5_COPIED: &str = e4_e5_copied!();

/// White moves `from`-`to` (an illegal move) `n` times, every 10 s from
/// 1 s, presses, and puts the piece back each time (steps).
pub fn illegal_and_back(n: usize, from: &str, to: &str) -> String {
    (0..n)
        .map(|i| {
            let t = 1000 + i as u64 * 10_000;
            format!(
                "{t} lift {from}\n{} place {to}\n{} press w\n{} lift {to}\n{} place {from}\n",
                t + 200,
                t + 500,
                t + 3000,
                t + 3200
            )
        })
        .collect()
}

/// The moves' SAN in the event stream `ev`, in order.
pub fn sans(ev: &[Value]) -> Vec<String> {
    of(ev, "move")
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_owned())
        .collect()
}

/// The profiles (rules, mode, time control) where only the opponent's
/// claim counts, and the article a claim cites.
pub const CLAIM_ONLY: [(&str, &str, &str, &str); 5] = [
    ("fide-2009", "rapid", "1500+10", "A4c"),
    ("fide-2009-no", "rapid", "1500+10", "A4c"),
    ("fide-2009", "blitz", "180+2", "B3c"),
    ("fide-2009-no", "blitz", "180+2", "B3c"),
    ("fide-2001", "blitz", "180", "C3"),
];

/// Checks that Black's claim of White's illegal move, in the claim-only
/// profile (`rules`, `mode`, the `article` of [`CLAIM_ONLY`]), was upheld
/// and ruled as the article says: in blitz White loses (B3c / C3: Black
/// can still mate), else two minutes go to Black (A4c, §7.4).
pub fn assert_whites_illegal_move_ruled(ev: &[Value], rules: &str, mode: &str, article: &str) {
    assert_eq!(
        of(ev, "claim")[0]["upheld"],
        true,
        "{rules} {mode}: {ev:#?}"
    );
    let ill = of(ev, "illegal_move");
    assert_eq!(ill.len(), 1, "{rules} {mode}");
    assert_eq!(ill[0]["article"], article);
    if mode == "blitz" {
        assert_eq!(ill[0]["penalty"], "game lost", "{rules}");
        assert_eq!(of(ev, "game_end")[0]["result"], "0-1", "{rules}");
    } else {
        assert_eq!(ill[0]["penalty"], "+2 min to black", "{rules}");
    }
}

/// White's pawn on b7, ready to go to b8 unpromoted (2023 7.5.2 / A.5.4,
/// 2009 §7.4a / A4c); knights on a8 and c8, the kings on e8 and e1.
pub const PAWN7: &str = "n1n1k3/1P6/8/8/8/8/8/4K3 w - - 0 1";

/// From [`PAWN7`]: the pawn left on b8 (made, not pressed), Black's reply
/// Ke8-d7 made, White's late press, then Black's press.
pub const PAWN_LEFT_ON_B8: &str = "
    1000 lift b7
    1200 place b8 P
    3000 lift e8
    3200 place d7 k
    5000 press w
    7000 press b";
