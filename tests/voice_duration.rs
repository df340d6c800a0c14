//! Issue 29, point 6: the estimated length of an announcement
//! ([`eboard::voice::speech_ms_estimate`], which times E2.3c when no
//! speaker reports) against espeak-ng's real output, per language, over
//! many real announcements: the moves of real games (`../shared/data`),
//! the rulings, the answers on demand. Every phrase is synthesised as the
//! daemon synthesises it (SSML when it mixes languages) and its audio
//! length (samples / rate) compared with the estimate: within 15 %.
//!
//! `EBOARD_DURATION_CSV=FILE` writes the measurements (language, speed,
//! characters, measured ms, estimated ms, phrase) for refitting.

mod common;

use common::skip::{shared_pgn_dir_or_skip, skip_or_fail_under_ci};
use eboard::model::{ClaimKind, EndReason, IrregularityKind, Penalty};
use eboard::rules::Edition;
use eboard::voice::tts::Espeak;
use eboard::voice::{self, Lang, Vocabulary, VoiceOptions};
use shakmaty::{Bitboard, Chess, Color, KnownOutcome, Position, Role, Square};
use std::io::Write;

/// The largest error allowed, per cent of the real length.
const BOUND_PCT: f64 = 15.0;

fn vocabularies() -> Vec<(&'static str, Vocabulary)> {
    vec![
        (
            "da",
            Vocabulary::new(Lang::Da, Edition::Fide2009, VoiceOptions::default()),
        ),
        (
            "nb",
            Vocabulary::new(Lang::Nb, Edition::Fide2009No, VoiceOptions::default()),
        ),
        (
            "nb-national",
            Vocabulary::new(Lang::Nb, Edition::Fide2009No, VoiceOptions::scandinavian()),
        ),
        (
            "de",
            Vocabulary::new(Lang::De, Edition::Fide2023, VoiceOptions::default()),
        ),
        (
            "en",
            Vocabulary::new(Lang::En, Edition::Fide2023, VoiceOptions::default()),
        ),
    ]
}

/// Move phrases of real games: every `stride`-th ply of the first games of
/// the corpus, and every capture with a disambiguation, promotion or
/// castling among them.
fn move_phrases(voc: &Vocabulary, games: &[eboard::pgn::PgnGame], want: usize) -> Vec<String> {
    let mut plain = Vec::new();
    let mut special = Vec::new();
    for g in games {
        let mut pos = Chess::default();
        for m in &g.moves {
            let Ok(mv) = voice::san_to_move(&pos, &m.san) else {
                break;
            };
            let p = voice::move_phrase(&pos, &mv, voc);
            let san = m.san.as_str();
            let unusual = san.contains('=')
                || san.starts_with('O')
                || san.ends_with('#')
                || (san.len() >= 4
                    && san.starts_with(['N', 'R', 'B', 'Q'])
                    && san[1..]
                        .chars()
                        .filter(|c| c.is_ascii_alphanumeric())
                        .count()
                        >= 3);
            if unusual {
                if !special.contains(&p) {
                    special.push(p);
                }
            } else if !plain.contains(&p) {
                plain.push(p);
            }
            pos.play_unchecked(mv);
        }
    }
    let stride = (plain.len() / want.max(1)).max(1);
    let mut out: Vec<String> = plain.into_iter().step_by(stride).take(want).collect();
    out.extend(special.into_iter().take(want / 2));
    out
}

/// The position after `moves` (SAN) from the start.
fn voice_after(moves: &str) -> Chess {
    let mut pos = Chess::default();
    for san in moves.split_whitespace() {
        let mv = voice::san_to_move(&pos, san).unwrap();
        pos.play_unchecked(mv);
    }
    pos
}

/// The rulings and answers, each in a few forms.
fn other_phrases(voc: &Vocabulary) -> Vec<String> {
    let mut v = vec![
        voice::draw_offer_phrase(Color::White, voc),
        voice::game_end_phrase(
            Some(KnownOutcome::Decisive {
                winner: Color::Black,
            }),
            Some(EndReason::Checkmate),
            voc,
        ),
        voice::game_end_phrase(Some(KnownOutcome::Draw), Some(EndReason::Agreement), voc),
        voice::illegal_move_phrase(
            Color::White,
            Penalty::TimeAdded {
                to: Color::Black,
                ms: 120_000,
            },
            &[Square::E2, Square::E4],
            voc,
        ),
        voice::touch_move_phrase(Color::Black, Square::G8, voc),
        voice::claim_phrase(Color::Black, ClaimKind::TouchMove, true, voc),
        voice::claim_phrase(Color::White, ClaimKind::Threefold, false, voc),
        voice::draw_claimable_phrase(ClaimKind::FiftyMoves, voc),
        voice::flag_phrase(Color::White, voc),
        voice::position_restored_phrase(voc),
        voice::irregularity_phrase(IrregularityKind::WrongInitialPosition, &[Square::D1], voc),
        voice::ambiguous_move_phrase(voc),
        voice::promotion_question_phrase(Color::White, Square::E8, voc),
        voice::draw_offer_end_phrase(Color::Black, true, voc),
        voice::clock_paused_phrase(true, voc),
        voice::boards_differ_phrase(&[Square::E4, Square::D5], voc),
        voice::boards_differ_phrase(&[], voc),
        voice::clocks_phrase(5_400_000 - 61_000, 3_599_000, voc),
        voice::time_used_phrase(
            37,
            Some((1_234_000, 2_345_000)),
            Some((3_000_000, 1_900_000)),
            voc,
        ),
        voice::turn_phrase(37, voc),
        voice::setup_phrase(
            Bitboard::from(Square::E2),
            Bitboard::from(Square::E4),
            Bitboard::EMPTY,
            voc,
        ),
    ];
    let start = Chess::default();
    v.push(voice::position_phrase(start.board(), voc));
    v.push(voice::position_by_rank_phrase(start.board(), voc));
    v.push(voice::one_clock_phrase(
        Color::Black,
        true,
        Some(4_321_000),
        voc,
    ));
    v.push(voice::one_clock_phrase(
        Color::White,
        false,
        Some(59_000),
        voc,
    ));
    let before = voice_after("e4 e5 Nf3 Nc6 Bb5 a6");
    let mv = voice::san_to_move(&before, "Bxc6").unwrap();
    v.push(voice::last_move_phrase(Some((&before, &mv)), voc));
    let mv = voice::san_to_move(&before, "O-O").unwrap();
    v.push(voice::last_move_phrase(Some((&before, &mv)), voc));
    v.push(voice::piece_squares_phrase(
        &start,
        Color::White,
        Role::Knight,
        voc,
    ));
    v
}

#[test]
fn the_estimate_is_within_15_per_cent_of_espeak_ng_in_every_language() {
    let have = std::process::Command::new("espeak-ng")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        skip_or_fail_under_ci("espeak-ng is not installed");
        return;
    }
    let Some(dir) = shared_pgn_dir_or_skip() else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("twic1599_1110games.pgn")).unwrap();
    let (games, _) = eboard::pgn::read_games_lenient(&text);
    let games = &games[..games.len().min(40)];
    let mut csv =
        std::env::var_os("EBOARD_DURATION_CSV").map(|p| std::fs::File::create(p).unwrap());
    let mut failures = Vec::new();
    for (name, voc) in vocabularies() {
        let mut phrases = move_phrases(&voc, games, 40);
        phrases.extend(other_phrases(&voc));
        for wpm in [175u32, 120, 300] {
            // The other speeds on a sample: the scaling, not every phrase.
            let sample: Vec<&String> = if wpm == 175 {
                phrases.iter().collect()
            } else {
                phrases.iter().step_by(5).collect()
            };
            let mut tts = Espeak::new();
            tts.speed_wpm = Some(wpm);
            let mut errors = Vec::new();
            for p in sample {
                let syn = match voc.ssml(p) {
                    Some(m) => tts.synthesize_ssml(&m, voc.lang()),
                    None => tts.synthesize(p, voc.lang()),
                }
                .unwrap_or_else(|e| panic!("{name}: {p}: {e}"));
                let real = syn.audio_length().as_millis() as f64;
                let est = voice::speech_ms_estimate(p, &voc, wpm) as f64;
                let err = (est - real) / real * 100.0;
                if let Some(f) = csv.as_mut() {
                    writeln!(
                        f,
                        "{name}\t{wpm}\t{}\t{real}\t{est}\t{p}",
                        p.chars().count()
                    )
                    .unwrap();
                }
                if err.abs() > BOUND_PCT {
                    failures.push(format!(
                        "{name} {wpm} wpm: {err:+.0} % (real {real} ms, estimated {est} ms): {p}"
                    ));
                }
                errors.push(err);
            }
            let max = errors.iter().fold(0f64, |m, e| m.max(e.abs()));
            let mean = errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64;
            let (lo, hi) = errors
                .iter()
                .fold((f64::MAX, f64::MIN), |(l, h), e| (l.min(*e), h.max(*e)));
            println!(
                "{name} at {wpm} wpm: {} phrases, error {lo:+.1} % .. {hi:+.1} %, mean |error| \
                 {mean:.1} %, max {max:.1} %",
                errors.len()
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} phrases off by more than {BOUND_PCT} %:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
