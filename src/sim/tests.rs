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
    let again = Trace::parse(std::str::from_utf8(&text).unwrap()).expect("t non-decreasing, valid");
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
