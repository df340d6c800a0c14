//! Cost of a ply at the start and at the end of a long game, for the
//! instruction counts in docs/dev/performance.md (issue 28; run under callgrind
//! by `scripts/ply-cost`).
//!
//! ```text
//! ply_cost [PLIES] [rebuilt]
//! ```
//!
//! A legal game of PLIES plies (default 1,000) is made up (deterministic:
//! quiet piece moves that repeat no position, a pawn move before the
//! 75-move rule could end it), simulated with noisy hands and a 90 min +
//! 30 s clock, and its trace fed to the board's controller and publisher
//! as the daemon's board loop does (every decision published, its
//! messages and snapshot made). The records of plies 1–100 are processed
//! in [`first_plies`], those of the last 100 in [`last_plies`]: callgrind's
//! inclusive count of each, divided by 100, is the cost per ply there.
//! With `rebuilt`, every published update also builds the snapshot whole
//! ([`eboard::broadcast::rebuilt::rebuilt`], the build before issue 28):
//! its inclusive count is the old cost of the snapshot.
//!
//! It also prints the heap the game holds (controller, publisher and the
//! last update, counted by this program's allocator) after ply 100 and at
//! the end: the difference over the plies between is the memory per ply.

use eboard::arbiter::GameConfig;
use eboard::broadcast::public::{GameInfo, Publisher};
use eboard::broadcast::rebuilt::rebuilt;
use eboard::controller::Controller;
use eboard::model::{Mode, Player};
use eboard::sim::{simulate, SimOptions};
use eboard::trace::{Record, Sensing};
use shakmaty::san::SanPlus;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position};
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes held.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        HELD.fetch_add(l.size(), Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        HELD.fetch_sub(l.size(), Ordering::Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        HELD.fetch_add(size, Ordering::Relaxed);
        HELD.fetch_sub(l.size(), Ordering::Relaxed);
        System.realloc(p, l, size)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// A made-up legal game of `plies` plies that no rule ends early.
fn long_game(plies: usize) -> String {
    let mut pos = Chess::default();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut sans = Vec::new();
    for _ in 0..plies {
        let key = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let ok = |p: &Chess| !p.is_game_over() && seen.get(&key(p)).copied().unwrap_or(0) == 0;
        let moves = pos.legal_moves();
        let pawn_due = pos.halfmoves() >= 90;
        let mut pick = None;
        for pass in 0..3 {
            let cands: Vec<_> = moves
                .iter()
                .filter(|m| match pass {
                    0 if pawn_due => m.role() == shakmaty::Role::Pawn && !m.is_capture(),
                    0 => m.role() != shakmaty::Role::Pawn && !m.is_capture(),
                    1 => !m.is_capture(),
                    _ => true,
                })
                .filter(|m| {
                    let mut p = pos.clone();
                    p.play_unchecked(**m);
                    ok(&p)
                })
                .collect();
            if !cands.is_empty() {
                pick = Some(*cands[(next() % cands.len() as u64) as usize]);
                break;
            }
        }
        let Some(m) = pick else { break };
        sans.push(SanPlus::from_move(pos.clone(), m).to_string());
        pos.play_unchecked(m);
        *seen.entry(key(&pos)).or_insert(0) += 1;
    }
    let mut text = String::from(
        "[Event \"Long\"]\n[White \"A, B\"]\n[Black \"C, D\"]\n[Result \"*\"]\n[TimeControl \"5400+30\"]\n\n",
    );
    for (i, s) in sans.iter().enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(s);
        text.push(' ');
    }
    text.push_str("*\n");
    text
}

struct Run {
    c: Controller,
    p: Publisher,
    events: Vec<eboard::trace::Event>,
    rebuilt: bool,
    /// The last update (what the feed holds of the game).
    last: Option<eboard::broadcast::public::Update>,
}

impl Run {
    #[inline(never)]
    fn feed(&mut self, recs: &[Record]) {
        for r in recs {
            self.events.clear();
            self.c.feed(r, &mut self.events);
            if let Some(u) = self.p.update(self.c.arbiter(), &self.events, r.t, false) {
                if self.rebuilt && u.snapshot.is_some() {
                    black_box(rebuilt(&self.p, self.c.arbiter(), r.t));
                }
                // What the feed's channels hold: the messages, the snapshot.
                self.last = Some(black_box(u));
            }
        }
    }
}

#[inline(never)]
fn first_plies(run: &mut Run, recs: &[Record]) {
    // A distinct body: the linker folds identical functions into one
    // symbol, and callgrind would then name all three calls alike.
    black_box(1u8);
    run.feed(recs)
}

#[inline(never)]
fn middle_plies(run: &mut Run, recs: &[Record]) {
    // A distinct body: the linker folds identical functions into one
    // symbol, and callgrind would then name all three calls alike.
    black_box(2u8);
    run.feed(recs)
}

#[inline(never)]
fn last_plies(run: &mut Run, recs: &[Record]) {
    // A distinct body: the linker folds identical functions into one
    // symbol, and callgrind would then name all three calls alike.
    black_box(3u8);
    run.feed(recs)
}

/// The index of the first record after which `ply` plies are completed.
fn split_at(run_recs: &[Record], cfg: &GameConfig, ply: usize) -> usize {
    let mut c = Controller::new(cfg.clone());
    let mut ev = Vec::new();
    for (i, r) in run_recs.iter().enumerate() {
        c.feed(r, &mut ev);
        if c.arbiter().moves().len() >= ply {
            return i + 1;
        }
    }
    run_recs.len()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let plies: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let with_rebuilt = args.next().as_deref() == Some("rebuilt");
    let text = long_game(plies);
    let games = eboard::pgn::read_games(&text).expect("PGN");
    let game = &games[0];
    assert_eq!(game.moves.len(), plies, "the made-up game is too short");
    let opts = SimOptions {
        seed: 1,
        sensing: Sensing::Occupancy,
        frames: false,
    };
    let trace = simulate(game, &opts).expect("simulate");
    let cfg = GameConfig::from_header(&trace.header, None, None).expect("config");
    let recs = &trace.records;
    let a = split_at(recs, &cfg, 100);
    let b = split_at(recs, &cfg, plies - 100);
    let info = GameInfo {
        round: 1,
        board: 1,
        event: Some("Long".into()),
        site: None,
        country: None,
        website: None,
        date: None,
        mode: Mode::Standard,
        time_control: Some("5400+30".into()),
        white: Player::default(),
        black: Player::default(),
        started_at_unix_ms: 0,
        speed: 1.0,
        delay_ms: 0,
        trial: false,
    };
    let mut run = Run {
        c: Controller::new(cfg),
        p: Publisher::new(info),
        events: Vec::new(),
        rebuilt: with_rebuilt,
        last: None,
    };
    black_box(run.p.snapshot_now(run.c.arbiter(), 0));
    first_plies(&mut run, &recs[..a]);
    let held_100 = HELD.load(Ordering::Relaxed);
    middle_plies(&mut run, &recs[a..b]);
    last_plies(&mut run, &recs[b..]);
    let held_end = HELD.load(Ordering::Relaxed);
    println!(
        "heap held: {held_100} bytes after ply 100, {held_end} after ply {plies}: {} bytes per ply",
        (held_end as i64 - held_100 as i64) / (plies as i64 - 100)
    );
    let moves = run.c.arbiter().moves().len();
    println!(
        "{moves} plies; records: first 100 plies {a}, last 100 plies {}; outcome {:?}",
        recs.len() - b,
        run.c.arbiter().outcome().map(|o| o.reason)
    );
    assert_eq!(moves, plies, "the game ended early");
}
