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
//!
//! Depends on `pgn`, `clock` and `trace`, the modules below it in
//! docs/dev/architecture.md's map. It must not depend on `arbiter` or
//! `controller` (a simulated trace is judged like any other), on `sensors`
//! (the virtual hardware plays a trace made here), on `config` or anything
//! above them.

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

mod frames;

pub use frames::sample_frames;
use frames::to_frames;

#[cfg(test)]
mod tests;
