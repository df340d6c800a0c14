//! Phrase latency: the text of an announcement must be ready in well under
//! a millisecond (issue 6 item 3) so that speech can start at once.
//!
//! `cargo bench --bench voice`. Measures [`move_phrase`] for moves of each
//! kind (the check and mate tests and the Appendix C disambiguation
//! included) and the on-demand queries, single-threaded; prints the load
//! average beside the figures.

use criterion::{criterion_group, criterion_main, Criterion};
use eboard::rules::Edition;
use eboard::voice::{
    clocks_phrase, move_phrase, piece_squares_phrase, san_to_move, Lang, Vocabulary, VoiceOptions,
};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Move, Role};
use std::hint::black_box;

fn case(fen: &str, san: &str) -> (Chess, Move) {
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let mv = san_to_move(&pos, san).unwrap();
    (pos, mv)
}

fn bench(c: &mut Criterion) {
    // What else the machine was doing (issue 28: a figure on a shared
    // machine says what it shared).
    eprintln!(
        "load average {} (1, 5, 15 min; running/all) while measuring",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    let da = Vocabulary::new(Lang::Da, Edition::Fide2009, VoiceOptions::default());
    let nb = Vocabulary::new(Lang::Nb, Edition::Fide2009No, VoiceOptions::default());
    let cases = [
        (
            "quiet",
            case(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "Nf3",
            ),
        ),
        (
            "capture_check",
            case(
                "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3",
                "Bxf7+",
            ),
        ),
        (
            "mate",
            case(
                "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
                "Qh4#",
            ),
        ),
        (
            "castle",
            case("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O-O"),
        ),
        (
            "promotion",
            case("2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "bxc8=Q+"),
        ),
        (
            "disambiguated",
            case("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nbd2"),
        ),
    ];
    let mut g = c.benchmark_group("move_phrase");
    for (name, (pos, mv)) in &cases {
        g.bench_function(format!("da/{name}"), |b| {
            b.iter(|| move_phrase(black_box(pos), black_box(mv), black_box(&da)))
        });
    }
    let (pos, mv) = &cases[1].1;
    g.bench_function("nb/capture_check", |b| {
        b.iter(|| move_phrase(black_box(pos), black_box(mv), black_box(&nb)))
    });
    g.finish();
    c.bench_function("vocabulary_new", |b| {
        b.iter(|| {
            Vocabulary::new(
                black_box(Lang::Da),
                Edition::Fide2009,
                VoiceOptions::default(),
            )
        })
    });
    c.bench_function("clocks_phrase", |b| {
        b.iter(|| clocks_phrase(black_box(5_345_999), black_box(1_800_000), &da))
    });
    let start = Chess::default();
    c.bench_function("piece_squares_phrase/pawns", |b| {
        b.iter(|| piece_squares_phrase(black_box(&start), Color::White, Role::Pawn, &da))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
