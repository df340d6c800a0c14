//! The physical model of players' hands: a PGN game becomes a sensor trace.
//!
//! Length: one physical model (hands, noise, timing from `[%clk]`, slow
//! scans) with its tests, which are half the file.
//!
//! Every ply occupies the span from the previous clock press (or `t = 0`) to
//! its own press. The player thinks first; the hand actions (lifts, places,
//! a promotion choice) come at the end of the span, and the press ends it.
//! When the game has `[%clk]` comments, the span is exactly the time the
//! clock charged (`previous own clk − this clk + increment`), so a replay's
//! clock reproduces the PGN clocks to the millisecond. Otherwise a plausible
//! random thinking time is used.
//!
//! The hands vary at random per move: sliding a piece over the squares in
//! between, setting it down on a neighbouring empty square before the
//! destination (hesitation), removing a captured piece before or after
//! lifting the mover, the orders of an en passant capture, the king first in
//! castling (sometimes via the square in between), a promotion with or
//! without setting the pawn down on the last rank, sensor bounces (a
//! 2–8 ms flicker) on squares the move involves, and the delay before the
//! press. Everything is drawn from one `ChaCha8Rng` seeded with
//! [`SimOptions::seed`] alone, so a seed reproduces the trace exactly.
//!
//! Times are in ms since the start of the trace; squares are numbered
//! a1 = 0, b1 = 1, ..., h8 = 63.

use crate::clock::{Clock, ClockStart, TimeControl};
use crate::pgn::PgnGame;
use crate::trace::{BoardId, Header, Record, RecordKind, Sensing, Trace};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::san::SanPlus;
use shakmaty::{attacks, Bitboard, Chess, Color, Move, Piece, Position, Role, Square};

/// How to simulate a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SimOptions {
    /// The seed of the random generator: the same seed gives the same trace.
    pub seed: u64,
    /// What the simulated board senses (written into the header; decides
    /// whether places carry `color` / `piece`).
    pub sensing: Sensing,
    /// Emit full occupancy `frame` records instead of `lift` / `place`
    /// (occupancy sensing only).
    pub frames: bool,
}

/// Why a game could not be simulated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// Frames carry occupancy only; colour or identity sensing cannot be expressed.
    #[error("frames carry occupancy only: --frames needs occupancy sensing, not {0}")]
    FramesNeedOccupancy(&'static str),
    /// The start position (FEN tag, Variant tag) is unusable.
    #[error("start position: {0}")]
    StartPosition(String),
    /// A move could not be played.
    #[error("ply {ply}: {message}")]
    Move {
        /// 1-based ply.
        ply: usize,
        /// What is wrong.
        message: String,
    },
}

/// Counts of the hand behaviours drawn (for tests and tuning).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SimStats {
    pub slides: u32,
    pub hesitations: u32,
    pub bounces: u32,
    pub captures_removed_first: u32,
    pub captures_mover_first: u32,
    pub ep_orders: [u32; 3],
    pub castle_king_slides: u32,
    pub promotions_pawn_set_down: u32,
    pub promotions_direct: u32,
    pub promote_records: u32,
    pub random_times: u32,
    pub clk_times: u32,
    pub compressed: u32,
}

/// Simulates a game: the header from the PGN tags, then the hand actions and
/// clock presses of every ply, then the end of the game (a final press or
/// not after mate / stalemate, a resignation for a decisive result, an
/// offer and acceptance for a draw, nothing for `*`).
pub fn simulate(game: &PgnGame, opts: &SimOptions) -> Result<Trace, SimError> {
    simulate_with_stats(game, opts).map(|(t, _)| t)
}

/// One hand action at an offset (ms) from the start of the hand's work.
#[derive(Debug, Clone, Copy)]
enum Act {
    Lift(Square),
    Place(Square, Piece),
    Promote(Role),
}

/// Builds the hand actions of one ply.
struct Hand<'a> {
    rng: &'a mut ChaCha8Rng,
    stats: &'a mut SimStats,
    acts: Vec<(u64, Act)>,
    cursor: u64,
}

/// Probability of a sensor bounce after one lift or place.
const BOUNCE_P: f64 = 0.06;

impl Hand<'_> {
    fn wait(&mut self, lo: u64, hi: u64) {
        self.cursor += self.rng.random_range(lo..=hi);
    }

    /// A 2–8 ms flicker of the square just lifted or placed.
    fn maybe_bounce(&mut self, first: Act, second: Act) {
        if self.rng.random_bool(BOUNCE_P) {
            self.stats.bounces += 1;
            let d1 = self.rng.random_range(1..=4);
            let d2 = self.rng.random_range(1..=4);
            self.acts.push((self.cursor + d1, first));
            self.acts.push((self.cursor + d1 + d2, second));
            self.cursor += d1 + d2;
        }
    }

    fn lift(&mut self, sq: Square, piece: Piece) {
        self.acts.push((self.cursor, Act::Lift(sq)));
        self.maybe_bounce(Act::Place(sq, piece), Act::Lift(sq));
    }

    fn place(&mut self, sq: Square, piece: Piece) {
        self.acts.push((self.cursor, Act::Place(sq, piece)));
        self.maybe_bounce(Act::Lift(sq), Act::Place(sq, piece));
    }

    /// Set down and pick up again on each square of `path` (in order).
    fn slide(&mut self, path: &[Square], piece: Piece) {
        for &sq in path {
            self.wait(20, 120);
            self.place(sq, piece);
            self.wait(30, 150);
            self.lift(sq, piece);
        }
        self.wait(20, 120);
    }

    /// Time the hand takes to travel with a piece.
    fn travel(&mut self) {
        self.wait(250, 800);
    }
}

/// The squares strictly between two squares on a line, nearest `from` first.
fn path_between(from: Square, to: Square) -> Vec<Square> {
    let mut v: Vec<Square> = attacks::between(from, to).into_iter().collect();
    v.sort_by_key(|s| s.distance(from));
    v
}

/// Lognormal-ish thinking time in ms for a player's `k`-th move, 2–90 s.
fn random_think_ms(rng: &mut ChaCha8Rng, k: u32) -> u64 {
    let median: f64 = match k {
        0..=6 => 3_000.0,
        7..=14 => 9_000.0,
        _ => 14_000.0,
    };
    // Box–Muller normal from two uniforms.
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random();
    let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    let ms = median * (0.8 * z).exp();
    ms.clamp(2_000.0, 90_000.0) as u64
}

fn role_of(c: Color, r: Role) -> Piece {
    Piece { color: c, role: r }
}

/// Plays the hand actions of move `m` from `pos` (mover's colour `c`).
fn hand_actions(
    hand: &mut Hand<'_>,
    pos: &Chess,
    m: Move,
    c: Color,
    sensing: Sensing,
) -> Result<(), String> {
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let piece = role_of(c, role);
            let captured = capture.map(|r| role_of(!c, r));
            if let Some(new_role) = promotion {
                let new_piece = role_of(c, new_role);
                let removed_first = captured.is_some() && hand.rng.random_bool(0.5);
                if let (Some(cap), true) = (captured, removed_first) {
                    hand.lift(to, cap);
                    hand.wait(300, 1100);
                }
                hand.lift(from, piece);
                hand.travel();
                if let (Some(cap), false) = (captured, removed_first) {
                    hand.lift(to, cap);
                    hand.wait(200, 700);
                }
                if hand.rng.random_bool(0.5) {
                    hand.stats.promotions_pawn_set_down += 1;
                    hand.place(to, piece);
                    hand.wait(300, 1200);
                    hand.lift(to, piece);
                    hand.wait(400, 1500);
                } else {
                    hand.stats.promotions_direct += 1;
                    hand.wait(400, 1500);
                }
                hand.place(to, new_piece);
                if sensing != Sensing::Identity
                    && (new_role != Role::Queen || hand.rng.random_bool(0.35))
                {
                    hand.stats.promote_records += 1;
                    hand.wait(50, 600);
                    hand.acts.push((hand.cursor, Act::Promote(new_role)));
                }
            } else if let Some(cap) = captured {
                if hand.rng.random_bool(0.5) {
                    hand.stats.captures_removed_first += 1;
                    hand.lift(to, cap);
                    hand.wait(300, 1100);
                    hand.lift(from, piece);
                    hand.travel();
                } else {
                    hand.stats.captures_mover_first += 1;
                    hand.lift(from, piece);
                    hand.wait(200, 600);
                    hand.lift(to, cap);
                    hand.wait(200, 700);
                }
                hand.place(to, piece);
            } else {
                hand.lift(from, piece);
                hand.travel();
                let path = if matches!(role, Role::Bishop | Role::Rook | Role::Queen) {
                    path_between(from, to)
                } else {
                    Vec::new()
                };
                if !path.is_empty() && hand.rng.random_bool(0.3) {
                    hand.stats.slides += 1;
                    hand.slide(&path, piece);
                }
                if hand.rng.random_bool(0.12) {
                    let mut near = Bitboard::EMPTY;
                    for &sq in path.iter().chain(std::iter::once(&to)) {
                        near |= attacks::king_attacks(sq);
                    }
                    let candidates: Vec<Square> = (near & !pos.board().occupied())
                        .into_iter()
                        .filter(|&s| s != from && s != to)
                        .collect();
                    if !candidates.is_empty() {
                        hand.stats.hesitations += 1;
                        let h = candidates[hand.rng.random_range(0..candidates.len())];
                        hand.place(h, piece);
                        hand.wait(200, 800);
                        hand.lift(h, piece);
                        hand.wait(100, 400);
                    }
                }
                hand.place(to, piece);
            }
        }
        Move::EnPassant { from, to } => {
            let pawn = role_of(c, Role::Pawn);
            let cap_sq = Square::from_coords(to.file(), from.rank());
            let cap = role_of(!c, Role::Pawn);
            let order = hand.rng.random_range(0..3usize);
            hand.stats.ep_orders[order] += 1;
            match order {
                0 => {
                    hand.lift(cap_sq, cap);
                    hand.wait(300, 1100);
                    hand.lift(from, pawn);
                    hand.travel();
                    hand.place(to, pawn);
                }
                1 => {
                    hand.lift(from, pawn);
                    hand.travel();
                    hand.place(to, pawn);
                    hand.wait(200, 800);
                    hand.lift(cap_sq, cap);
                }
                _ => {
                    hand.lift(from, pawn);
                    hand.wait(200, 600);
                    hand.lift(cap_sq, cap);
                    hand.wait(200, 700);
                    hand.place(to, pawn);
                }
            }
        }
        Move::Castle { king, rook } => {
            let side = m
                .castling_side()
                .ok_or_else(|| format!("castling {king}{rook} has no side"))?;
            let king_to = side.king_to(c);
            let rook_to = side.rook_to(c);
            let k = role_of(c, Role::King);
            let r = role_of(c, Role::Rook);
            hand.lift(king, k);
            hand.wait(150, 500);
            let path = path_between(king, king_to);
            if !path.is_empty() && hand.rng.random_bool(0.35) {
                hand.stats.castle_king_slides += 1;
                hand.slide(&path, k);
            }
            hand.place(king_to, k);
            hand.wait(200, 700);
            hand.lift(rook, r);
            hand.wait(200, 600);
            hand.place(rook_to, r);
        }
        Move::Put { .. } => return Err("piece drops are not chess".to_owned()),
    }
    Ok(())
}

/// The game's time control from its `TimeControl` tag (the standard form or
/// a FIDE broadcast's prose, [`TimeControl::from_pgn_tag`]), with the clock
/// convention of its source: online style (`@base`) for a game played on
/// lichess or chess.com (`Site`), over the board otherwise (docs/clock.md).
fn time_control_of(game: &PgnGame) -> Option<TimeControl> {
    let tc = TimeControl::from_pgn_tag(&known_tag(game, "TimeControl")?).ok()?;
    let site = game.tag("Site").unwrap_or("").to_ascii_lowercase();
    Some(
        if site.contains("lichess.org") || site.contains("chess.com") {
            tc.with_start(ClockStart::Base)
        } else {
            tc
        },
    )
}

/// A tag's value unless it is empty or only `?`, `-`, `.` (unknown).
fn known_tag(game: &PgnGame, name: &str) -> Option<String> {
    let v = game.tag(name)?.trim();
    if v.chars().all(|ch| matches!(ch, '?' | '-' | '.')) {
        None
    } else {
        Some(v.to_owned())
    }
}

fn place_kind(sq: Square, piece: Piece, sensing: Sensing) -> RecordKind {
    RecordKind::Place {
        square: sq,
        color: match sensing {
            Sensing::Occupancy => None,
            Sensing::Colour | Sensing::Identity => Some(piece.color),
        },
        piece: match sensing {
            Sensing::Identity => Some(piece),
            _ => None,
        },
    }
}

fn record(t: u64, kind: RecordKind) -> Record {
    Record {
        t,
        board: BoardId::Main,
        kind,
    }
}

pub(crate) fn simulate_with_stats(
    game: &PgnGame,
    opts: &SimOptions,
) -> Result<(Trace, SimStats), SimError> {
    if opts.frames && opts.sensing != Sensing::Occupancy {
        return Err(SimError::FramesNeedOccupancy(opts.sensing.as_str()));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let mut stats = SimStats::default();
    let start = game
        .start_position()
        .map_err(|e| SimError::StartPosition(e.message))?;
    let tc = time_control_of(game);
    // The same clock engine as the replay's: presses are placed so that the
    // replayed clock shows the PGN's [%clk] values, and no flag falls.
    let mut clock = tc.clone().map(Clock::new);
    if let Some(c) = clock.as_mut() {
        c.start(start.turn(), 0);
    }
    let header = Header {
        version: 1,
        sensing: opts.sensing,
        boards: vec![BoardId::Main],
        time_control: tc.map(|tc| tc.to_string()),
        start_fen: game.tag("FEN").map(|f| f.trim().to_owned()),
        white: known_tag(game, "White"),
        black: known_tag(game, "Black"),
        event: known_tag(game, "Event"),
        round: known_tag(game, "Round"),
        site: known_tag(game, "Site"),
        date: known_tag(game, "Date"),
        ..Header::default()
    };

    let mut records: Vec<Record> = Vec::new();
    let mut pos = start.clone();
    let mut prev_press: u64 = 0;
    let n = game.moves.len();

    for (i, pm) in game.moves.iter().enumerate() {
        let ply = i + 1;
        let bad = |message: String| SimError::Move { ply, message };
        let san = SanPlus::from_ascii(pm.san.as_bytes())
            .map_err(|e| bad(format!("cannot parse SAN '{}': {e}", pm.san)))?;
        let m = san
            .san
            .to_move(&pos)
            .map_err(|e| bad(format!("illegal SAN '{}': {e}", pm.san)))?;
        let c = pos.turn();
        let k = (ply as u32).div_ceil(2);

        // Time spent on this ply: from [%clk] (time before the move plus
        // what the press adds, minus the clock after it), else plausible;
        // always less than the time left, so that no flag falls.
        let before_and_credit = clock.as_ref().map(|cl| {
            let mine = |cl: &Clock| {
                let (w, b) = cl.remaining_at(prev_press);
                if c.is_white() {
                    w
                } else {
                    b
                }
            };
            let before = mine(cl);
            let mut probe = cl.clone();
            probe.press(c, prev_press);
            (before, mine(&probe).saturating_sub(before))
        });
        let derived = match (before_and_credit, pm.clk_ms) {
            (Some((before, credit)), Some(now)) => (before + credit).checked_sub(now),
            _ => None,
        };
        let mut spent = match derived {
            Some(d) => {
                stats.clk_times += 1;
                d
            }
            None => {
                stats.random_times += 1;
                let s = random_think_ms(&mut rng, k);
                match before_and_credit {
                    Some((before, _)) => s.min((before / 12).max(2_000)),
                    None => s,
                }
            }
        };
        if let Some((before, _)) = before_and_credit {
            spent = spent.min(before.saturating_sub(1));
        }

        // The hand's work, then the delay to the press.
        let mut hand = Hand {
            rng: &mut rng,
            stats: &mut stats,
            acts: Vec::new(),
            cursor: 0,
        };
        hand_actions(&mut hand, &pos, m, c, opts.sensing).map_err(bad)?;
        let last_act = hand.cursor;
        let gap = hand.rng.random_range(150..=1500u64);
        let acts = std::mem::take(&mut hand.acts);
        let dur = last_act + gap;

        pos.play_unchecked(m);
        let ends_game = pos.is_checkmate() || pos.is_stalemate();
        let press = !(ends_game && ply == n && rng.random_bool(0.5));

        let press_t = prev_press + spent;
        let at = |off: u64| -> u64 {
            if spent >= dur {
                prev_press + (spent - dur) + off
            } else {
                prev_press + (off as u128 * spent as u128 / dur as u128) as u64
            }
        };
        if spent < dur {
            stats.compressed += 1;
        }
        for (off, act) in acts {
            let kind = match act {
                Act::Lift(sq) => RecordKind::Lift(sq),
                Act::Place(sq, piece) => place_kind(sq, piece, opts.sensing),
                Act::Promote(role) => RecordKind::Promote(role),
            };
            records.push(record(at(off), kind));
        }
        if press {
            records.push(record(press_t, RecordKind::Press(c)));
            if let Some(cl) = clock.as_mut() {
                cl.press(c, press_t);
            }
        }
        prev_press = press_t;
    }

    // The end of the game.
    let mated_or_stalemate = n > 0 && (pos.is_checkmate() || pos.is_stalemate());
    if !mated_or_stalemate {
        let last_t = prev_press.max(records.last().map_or(0, |r| r.t));
        match game.result.as_str() {
            "1-0" | "0-1" => {
                let loser = if game.result == "1-0" {
                    Color::Black
                } else {
                    Color::White
                };
                let t = last_t + rng.random_range(1_000..=20_000u64);
                records.push(record(t, RecordKind::Resign(loser)));
            }
            "1/2-1/2" => {
                let by = !pos.turn();
                let t = last_t + rng.random_range(200..=3_000u64);
                records.push(record(t, RecordKind::Offer(by)));
                let t2 = t + rng.random_range(1_000..=10_000u64);
                records.push(record(t2, RecordKind::Accept(!by)));
            }
            _ => {}
        }
    }

    if opts.frames {
        records = to_frames(records, start.board().occupied().into());
    }
    Ok((Trace { header, records }, stats))
}

/// Replaces lift/place records by full occupancy frames: one frame at t = 0
/// with `initial`, then one after every change (a scanner faster than any
/// hand sees each lift and placement on its own, even when the compressed
/// timing of a fast game puts several at the same millisecond). Other
/// records keep their place.
fn to_frames(records: Vec<Record>, initial: u64) -> Vec<Record> {
    let mut out = Vec::with_capacity(records.len() + 1);
    out.push(record(0, RecordKind::Frame(initial)));
    let mut occ = initial;
    for r in records {
        let bit = |sq: Square| 1u64 << u32::from(sq);
        match r.kind {
            RecordKind::Lift(sq) => occ &= !bit(sq),
            RecordKind::Place { square, .. } => occ |= bit(square),
            _ => {
                out.push(r);
                continue;
            }
        }
        out.push(record(r.t, RecordKind::Frame(occ)));
    }
    out
}

/// A slow scanner over a frames trace: the board is read every `scan_ms`
/// ms (instants `0, scan_ms, 2·scan_ms, …`) and when a non-sensor record
/// (a press, a claim, …) arrives, as the daemon reads the board before it
/// decides. Each read that differs from the previous one becomes one frame
/// at the read's time, so a lift and a placement inside one interval are
/// merged (a capture's target square may never read empty). Frames within
/// an interval are replaced by the state at its end; other records keep
/// their place. `scan_ms = 0` returns the records unchanged.
pub fn sample_frames(records: Vec<Record>, scan_ms: u64) -> Vec<Record> {
    if scan_ms == 0 {
        return records;
    }
    let mut out = Vec::with_capacity(records.len());
    // The state as the hardware has it, and as last read.
    let mut state: Option<u64> = None;
    let mut shown: Option<u64> = None;
    let mut next_read = 0u64;
    let read = |t: u64, state: Option<u64>, shown: &mut Option<u64>, out: &mut Vec<Record>| {
        if let Some(s) = state {
            if *shown != Some(s) {
                *shown = Some(s);
                out.push(record(t, RecordKind::Frame(s)));
            }
        }
    };
    for r in records {
        // The reads due before this record.
        while next_read < r.t && state.is_some() {
            read(next_read, state, &mut shown, &mut out);
            next_read += scan_ms;
        }
        if next_read < r.t {
            next_read = r.t.div_ceil(scan_ms) * scan_ms;
        }
        match r.kind {
            RecordKind::Frame(bits) => {
                state = Some(bits);
                // The scanner's first read is the board before any hand.
                if shown.is_none() {
                    read(r.t, state, &mut shown, &mut out);
                    next_read = r.t + scan_ms;
                }
            }
            _ => {
                read(r.t, state, &mut shown, &mut out);
                out.push(r);
            }
        }
    }
    // The read after the last change.
    let last_t = out.last().map_or(0, |r| r.t);
    while next_read < last_t {
        next_read += scan_ms;
    }
    read(next_read, state, &mut shown, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{read_games, PgnGame};
    use shakmaty::CastlingMode;

    const LICHESS: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/pgn/lichess_db_2025-05_438games.pgn"
    );

    fn load(path: &str) -> Option<Vec<PgnGame>> {
        match std::fs::read_to_string(path) {
            Ok(text) => Some(read_games(&text).expect("the file parses")),
            Err(e) => {
                eprintln!("skipping: {path} not readable ({e})");
                None
            }
        }
    }

    /// The positions before ply 1, after ply 1, ... (independent of the simulator).
    fn positions(game: &PgnGame) -> Vec<Chess> {
        let mut pos: Chess = match game.tag("FEN") {
            Some(f) => f
                .parse::<shakmaty::fen::Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap(),
            None => Chess::default(),
        };
        let mut v = vec![pos.clone()];
        for m in &game.moves {
            let mv = m.san.parse::<SanPlus>().unwrap().san.to_move(&pos).unwrap();
            pos.play_unchecked(mv);
            v.push(pos.clone());
        }
        v
    }

    /// What a square holds as far as the board senses it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct Sensed {
        color: Option<Color>,
        piece: Option<Piece>,
    }

    /// A tiny sensed board: applies lift / place / frame records.
    struct SensedBoard {
        squares: [Option<Sensed>; 64],
        sensing: Sensing,
    }

    impl SensedBoard {
        fn new(pos: &Chess, sensing: Sensing) -> SensedBoard {
            let mut squares = [None; 64];
            for (sq, p) in pos.board().clone() {
                squares[usize::from(sq)] = Some(Self::sense(p, sensing));
            }
            SensedBoard { squares, sensing }
        }

        fn sense(p: Piece, sensing: Sensing) -> Sensed {
            match sensing {
                Sensing::Occupancy => Sensed {
                    color: None,
                    piece: None,
                },
                Sensing::Colour => Sensed {
                    color: Some(p.color),
                    piece: None,
                },
                Sensing::Identity => Sensed {
                    color: Some(p.color),
                    piece: Some(p),
                },
            }
        }

        fn apply(&mut self, r: &Record) {
            match r.kind {
                RecordKind::Lift(sq) => {
                    assert!(
                        self.squares[usize::from(sq)].is_some(),
                        "t={} lift of empty {sq}",
                        r.t
                    );
                    self.squares[usize::from(sq)] = None;
                }
                RecordKind::Place {
                    square,
                    color,
                    piece,
                } => {
                    assert!(
                        self.squares[usize::from(square)].is_none(),
                        "t={} place on occupied {square}",
                        r.t
                    );
                    match self.sensing {
                        Sensing::Occupancy => assert!(color.is_none() && piece.is_none()),
                        Sensing::Colour => assert!(color.is_some() && piece.is_none()),
                        Sensing::Identity => assert!(color.is_some() && piece.is_some()),
                    }
                    self.squares[usize::from(square)] = Some(Sensed { color, piece });
                }
                RecordKind::Frame(bits) => {
                    for i in 0..64 {
                        let on = bits & (1u64 << i) != 0;
                        self.squares[i] = on.then_some(Sensed {
                            color: None,
                            piece: None,
                        });
                    }
                }
                _ => {}
            }
        }

        fn assert_shows(&self, pos: &Chess, what: &str) {
            for sq in Square::ALL {
                let want = pos
                    .board()
                    .piece_at(sq)
                    .map(|p| Self::sense(p, self.sensing));
                assert_eq!(self.squares[usize::from(sq)], want, "{what}: square {sq}");
            }
        }
    }

    /// Checks a trace against its game: the sensed board equals the position
    /// at every press, presses alternate, times never decrease, the text
    /// round-trips, and the game's end is as promised.
    fn check_trace(game: &PgnGame, trace: &Trace, opts: &SimOptions) {
        let mut text = Vec::new();
        trace.write(&mut text).unwrap();
        let again =
            Trace::parse(std::str::from_utf8(&text).unwrap()).expect("t non-decreasing, valid");
        assert_eq!(again.records, trace.records);
        assert_eq!(again.header, trace.header);

        let pos = positions(game);
        let n = game.moves.len();
        let mut board = SensedBoard::new(&pos[0], opts.sensing);
        let mut presses = 0usize;
        let mut last_press_idx = None;
        for (idx, r) in trace.records.iter().enumerate() {
            if opts.frames {
                assert!(!matches!(
                    r.kind,
                    RecordKind::Lift(_) | RecordKind::Place { .. }
                ));
            } else {
                assert!(!matches!(r.kind, RecordKind::Frame(_)));
            }
            board.apply(r);
            if let RecordKind::Press(c) = r.kind {
                assert!(presses < n, "more presses than plies");
                assert_eq!(
                    c,
                    pos[presses].turn(),
                    "press {} by the wrong side",
                    presses + 1
                );
                presses += 1;
                board.assert_shows(
                    &pos[presses],
                    &format!("seed {} press {presses}", opts.seed),
                );
                last_press_idx = Some(idx);
            }
        }
        let end = &pos[n];
        let game_over = end.is_checkmate() || end.is_stalemate();
        if presses + 1 == n {
            assert!(game_over, "only a mate or stalemate may go without a press");
        } else {
            assert_eq!(presses, n);
        }
        board.assert_shows(end, "end of trace");
        let tail = &trace.records[last_press_idx.map_or(0, |i| i + 1)..];
        let tail_kinds: Vec<&RecordKind> = tail
            .iter()
            .map(|r| &r.kind)
            .filter(|k| {
                !matches!(
                    k,
                    RecordKind::Lift(_)
                        | RecordKind::Place { .. }
                        | RecordKind::Frame(_)
                        | RecordKind::Promote(_)
                )
            })
            .collect();
        if game_over && n > 0 {
            assert!(tail_kinds.is_empty(), "{tail_kinds:?}");
        } else {
            match game.result.as_str() {
                "1-0" => assert_eq!(tail_kinds, [&RecordKind::Resign(Color::Black)]),
                "0-1" => assert_eq!(tail_kinds, [&RecordKind::Resign(Color::White)]),
                "1/2-1/2" => {
                    let by = !end.turn();
                    assert_eq!(
                        tail_kinds,
                        [&RecordKind::Offer(by), &RecordKind::Accept(!by)]
                    );
                }
                _ => assert!(tail_kinds.is_empty()),
            }
        }
        if opts.frames {
            assert_eq!(
                trace.records.first().map(|r| (r.t, &r.kind)),
                Some((0, &RecordKind::Frame(u64::from(pos[0].board().occupied()))))
            );
        }
    }

    /// For a `N+I` game with clocks: runs both clocks from the presses and
    /// checks them against every `[%clk]` that the clock could have produced.
    /// Returns (checked, skipped).
    fn check_clock(game: &PgnGame, trace: &Trace) -> (usize, usize) {
        let Some(tc) = trace.header.time_control.as_deref() else {
            return (0, 0);
        };
        let tc = TimeControl::parse(tc).unwrap();
        let crate::clock::Bonus::Increment(inc) = tc.periods[0].bonus else {
            return (0, 0);
        };
        if tc.periods.len() > 1 {
            return (0, 0);
        }
        // The clock before move 1: the base, + the increment over the board.
        let base = (tc.periods[0].time_ms + tc.start_credit_ms()) as i64;
        let inc = inc as i64;
        let mut clock = [base; 2];
        let mut pgn_prev = [base; 2];
        let mut last = 0u64;
        let (mut checked, mut skipped) = (0, 0);
        let presses = trace.records.iter().filter_map(|r| match r.kind {
            RecordKind::Press(c) => Some((r.t, c)),
            _ => None,
        });
        for (ply, (t, c)) in presses.enumerate() {
            let ci = if c.is_white() { 0 } else { 1 };
            clock[ci] = clock[ci] - (t - last) as i64 + inc;
            last = t;
            let Some(clk) = game.moves[ply].clk_ms else {
                continue;
            };
            let clk = clk as i64;
            // The simulator keeps every move inside the time left.
            if pgn_prev[ci] - clk + inc >= 0 && clk - inc >= 1 {
                assert_eq!(clock[ci], clk, "ply {}: replayed clock vs [%clk]", ply + 1);
                checked += 1;
            } else {
                clock[ci] = clk; // the simulator had to invent a time
                skipped += 1;
            }
            pgn_prev[ci] = clk;
        }
        (checked, skipped)
    }

    fn all_opts(seed: u64) -> [SimOptions; 4] {
        [
            SimOptions {
                seed,
                sensing: Sensing::Occupancy,
                frames: false,
            },
            SimOptions {
                seed,
                sensing: Sensing::Colour,
                frames: false,
            },
            SimOptions {
                seed,
                sensing: Sensing::Identity,
                frames: false,
            },
            SimOptions {
                seed,
                sensing: Sensing::Occupancy,
                frames: true,
            },
        ]
    }

    /// Ply indices of special moves in a game: (promotions, en passant, castlings).
    fn specials(game: &PgnGame) -> (usize, usize, usize) {
        let pos = positions(game);
        let mut s = (0, 0, 0);
        for (i, m) in game.moves.iter().enumerate() {
            match m
                .san
                .parse::<SanPlus>()
                .unwrap()
                .san
                .to_move(&pos[i])
                .unwrap()
            {
                Move::Normal {
                    promotion: Some(_), ..
                } => s.0 += 1,
                Move::EnPassant { .. } => s.1 += 1,
                Move::Castle { .. } => s.2 += 1,
                _ => {}
            }
        }
        s
    }

    #[test]
    fn lichess_games_replay_the_pgn_clocks() {
        let Some(games) = load(LICHESS) else { return };
        let (mut checked, mut skipped) = (0, 0);
        for (i, game) in games.iter().take(24).enumerate() {
            for opts in all_opts(i as u64) {
                let trace = simulate(game, &opts).unwrap();
                check_trace(game, &trace, &opts);
                let (c, s) = check_clock(game, &trace);
                checked += c;
                skipped += s;
            }
        }
        eprintln!("clock checked at {checked} presses, {skipped} invented");
        assert!(
            checked > 1000 && skipped * 20 < checked,
            "{checked} / {skipped}"
        );
    }

    #[test]
    fn header_from_tags() {
        let Some(games) = load(LICHESS) else { return };
        let g = &games[0];
        let t = simulate(g, &SimOptions::default()).unwrap();
        assert_eq!(t.header.version, 1);
        assert_eq!(t.header.boards, vec![BoardId::Main]);
        assert_eq!(t.header.white.as_deref(), g.tag("White"));
        assert_eq!(t.header.black.as_deref(), g.tag("Black"));
        assert_eq!(t.header.site.as_deref(), g.tag("Site"));
        assert_eq!(t.header.date.as_deref(), g.tag("Date"));
        // lichess: the online clock convention (starts at the base).
        assert_eq!(
            t.header.time_control,
            g.tag("TimeControl").map(|tc| format!("{tc}@base"))
        );
        assert_eq!(t.header.round, None, "lichess writes Round \"-\"");
        assert_eq!(t.header.rules, None);
        assert_eq!(t.header.mode, None);
    }

    #[test]
    fn special_game_all_seeds() {
        let Some(games) = load(LICHESS) else { return };
        let Some(game) = games.iter().find(|g| {
            let (p, e, c) = specials(g);
            p > 0 && e > 0 && c > 0
        }) else {
            panic!("no game with promotion, en passant and castling");
        };
        eprintln!(
            "special game: {} ({} plies, {:?})",
            game.tag("Site").unwrap_or("?"),
            game.moves.len(),
            specials(game)
        );
        let mut total = SimStats::default();
        for seed in 0..20 {
            for opts in all_opts(seed) {
                let (trace, s) = simulate_with_stats(game, &opts).unwrap();
                check_trace(game, &trace, &opts);
                if opts.sensing != Sensing::Identity && !opts.frames {
                    let promotes = trace
                        .records
                        .iter()
                        .filter(|r| matches!(r.kind, RecordKind::Promote(_)))
                        .count();
                    assert_eq!(promotes as u32, s.promote_records);
                }
                total.slides += s.slides;
                total.hesitations += s.hesitations;
                total.bounces += s.bounces;
                total.captures_removed_first += s.captures_removed_first;
                total.captures_mover_first += s.captures_mover_first;
                for k in 0..3 {
                    total.ep_orders[k] += s.ep_orders[k];
                }
                total.castle_king_slides += s.castle_king_slides;
                total.promotions_pawn_set_down += s.promotions_pawn_set_down;
                total.promotions_direct += s.promotions_direct;
                total.promote_records += s.promote_records;
            }
        }
        eprintln!("{total:?}");
        for (name, v) in [
            ("slides", total.slides),
            ("hesitations", total.hesitations),
            ("bounces", total.bounces),
            ("captures_removed_first", total.captures_removed_first),
            ("captures_mover_first", total.captures_mover_first),
            ("ep order 0", total.ep_orders[0]),
            ("ep order 1", total.ep_orders[1]),
            ("ep order 2", total.ep_orders[2]),
            ("castle_king_slides", total.castle_king_slides),
            ("promotions_pawn_set_down", total.promotions_pawn_set_down),
            ("promotions_direct", total.promotions_direct),
            ("promote_records", total.promote_records),
        ] {
            assert!(v > 0, "{name} never happened");
        }
    }

    #[test]
    fn a_typical_game_shows_the_common_behaviours() {
        let Some(games) = load(LICHESS) else { return };
        let Some(game) = games.iter().find(|g| g.moves.len() >= 70) else {
            return;
        };
        let (_, s) = simulate_with_stats(
            game,
            &SimOptions {
                seed: 7,
                ..SimOptions::default()
            },
        )
        .unwrap();
        eprintln!("{s:?}");
        assert!(s.slides > 0 && s.hesitations > 0 && s.bounces > 0);
        assert!(s.captures_removed_first > 0 && s.captures_mover_first > 0);
    }

    #[test]
    fn deterministic_per_seed() {
        let Some(games) = load(LICHESS) else { return };
        let text = |seed| {
            let mut out = Vec::new();
            simulate(
                &games[3],
                &SimOptions {
                    seed,
                    ..SimOptions::default()
                },
            )
            .unwrap()
            .write(&mut out)
            .unwrap();
            out
        };
        assert_eq!(text(42), text(42));
        assert_ne!(text(42), text(43));
    }

    fn game(pgn: &str) -> PgnGame {
        read_games(pgn).unwrap().remove(0)
    }

    #[test]
    fn frames_need_occupancy() {
        let g = game("1. e4 e5 *");
        for sensing in [Sensing::Colour, Sensing::Identity] {
            let e = simulate(
                &g,
                &SimOptions {
                    seed: 1,
                    sensing,
                    frames: true,
                },
            )
            .unwrap_err();
            assert!(e.to_string().contains("occupancy"), "{e}");
        }
    }

    #[test]
    fn endings() {
        // Resignation, draw by agreement, unfinished, mate with and without a press.
        for (pgn, opts_seed) in [
            ("[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0", 0),
            ("[Result \"0-1\"]\n\n1. e4 e5 0-1", 1),
            ("[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 1/2-1/2", 2),
            ("[Result \"*\"]\n\n1. d4 *", 3),
            ("[Result \"1/2-1/2\"]\n\n1/2-1/2", 4),
            ("[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1", 5),
            (
                "[FEN \"7k/5Q2/6K1/8/8/8/8/8 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n1. Qf6 Kg8 2. Qf7+ Kh8 3. Kh6 1/2-1/2",
                6,
            ),
        ] {
            let g = game(pgn);
            let mut pressed_last = [false; 2];
            for seed in opts_seed..opts_seed + 16 {
                for opts in all_opts(seed) {
                    let t = simulate(&g, &opts).unwrap();
                    check_trace(&g, &t, &opts);
                    let presses = t.records.iter().filter(|r| matches!(r.kind, RecordKind::Press(_))).count();
                    pressed_last[usize::from(presses == g.moves.len())] = true;
                }
            }
            let pos = positions(&g);
            let last = &pos[g.moves.len()];
            if !g.moves.is_empty() && (last.is_checkmate() || last.is_stalemate()) {
                assert_eq!(pressed_last, [true, true], "{pgn}: both with and without a final press");
            }
        }
    }

    #[test]
    fn promotions_and_promote_records() {
        // Under-promotion always gets a record unless the board knows the piece.
        let g = game("[FEN \"8/P6k/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. a8=N Kg6 *");
        for seed in 0..20 {
            for opts in all_opts(seed) {
                let t = simulate(&g, &opts).unwrap();
                check_trace(&g, &t, &opts);
                let promotes: Vec<&RecordKind> = t
                    .records
                    .iter()
                    .map(|r| &r.kind)
                    .filter(|k| matches!(k, RecordKind::Promote(_)))
                    .collect();
                if opts.sensing == Sensing::Identity {
                    assert!(promotes.is_empty());
                    assert!(t.records.iter().any(|r| matches!(r.kind, RecordKind::Place { square: Square::A8, piece: Some(p), .. } if p == Piece::from_char('N').unwrap())));
                } else {
                    assert_eq!(promotes, [&RecordKind::Promote(Role::Knight)]);
                }
            }
        }
    }

    #[test]
    fn bullet_spans_are_compressed() {
        let g = game(
            "[TimeControl \"60+0\"]\n\n1. e4 { [%clk 0:01:00] } 1... e5 { [%clk 0:01:00] } \
             2. Nf3 { [%clk 0:00:59.9] } 2... Nc6 { [%clk 0:00:59.5] } 3. Bb5 { [%clk 0:01:00] } *",
        );
        for seed in 0..20 {
            for opts in all_opts(seed) {
                let (t, s) = simulate_with_stats(&g, &opts).unwrap();
                check_trace(&g, &t, &opts);
                assert_eq!(s.random_times, 1, "only 3. Bb5 (negative time) is invented");
                let presses: Vec<u64> = t
                    .records
                    .iter()
                    .filter(|r| matches!(r.kind, RecordKind::Press(_)))
                    .map(|r| r.t)
                    .collect();
                assert_eq!(&presses[..4], [0, 0, 100, 600]);
            }
        }
    }

    #[test]
    fn random_times_are_plausible() {
        let Some(games) = load("/work/shared/data/pgn/twic1599_1110games.pgn") else {
            return;
        };
        for (i, g) in games.iter().take(10).enumerate() {
            let opts = SimOptions {
                seed: i as u64,
                ..SimOptions::default()
            };
            let t = simulate(g, &opts).unwrap();
            check_trace(g, &t, &opts);
            let mut last = 0;
            for r in &t.records {
                if let RecordKind::Press(_) = r.kind {
                    let d = r.t - last;
                    assert!((2_000..=90_000).contains(&d), "{d}");
                    last = r.t;
                }
            }
        }
    }
}
