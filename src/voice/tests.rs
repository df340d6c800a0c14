//! Golden phrases per language (issue 6 item 7). The words from the
//! source are E2.1 (seeds 002 and 003); the connecting words are ours.

use super::*;
use crate::model::{win_for, EndReason, KnownOutcome};
use shakmaty::fen::Fen;
use shakmaty::CastlingMode;

const CASTLING: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
const EN_PASSANT: &str = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
const PROMOTION: &str = "8/1P5k/8/8/8/8/8/4K3 w - - 0 1";
const PROMOTION_CAPTURE: &str = "2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
const TWO_KNIGHTS: &str = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
const TWO_ROOKS: &str = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1";
const KINGS: &str = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";

fn from_fen(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn after(moves: &str) -> Chess {
    let mut pos = Chess::default();
    for san in moves.split_whitespace() {
        let mv = san_to_move(&pos, san).unwrap();
        pos.play_unchecked(mv);
    }
    pos
}

/// The phrase for the last move of `moves` from the start position.
fn said(moves: &str, voc: &Vocabulary) -> String {
    let (before, last) = moves.rsplit_once(' ').unwrap_or(("", moves));
    let pos = after(before);
    move_phrase(&pos, &san_to_move(&pos, last).unwrap(), voc)
}

/// The phrase for `san` in the position `fen`.
fn said_in(fen: &str, san: &str, voc: &Vocabulary) -> String {
    let pos = from_fen(fen);
    move_phrase(&pos, &san_to_move(&pos, san).unwrap(), voc)
}

fn voc(lang: Lang, edition: Edition) -> Vocabulary {
    Vocabulary::new(lang, edition, VoiceOptions::default())
}

#[test]
fn danish_moves() {
    let v = voc(Lang::Da, Edition::Fide2009);
    assert_eq!(said("Nf3", &v), "Springer Frederik tre");
    assert_eq!(said("e4", &v), "Bonde Erik fire");
    assert_eq!(said("e4 d5 exd5", &v), "Bonde Erik slår Dora fem");
    assert_eq!(
        said("e4 e5 Bc4 Nc6 Bxf7+", &v),
        "Løber slår Frederik syv, skak"
    );
    assert_eq!(said("e4 f6 Qh5+", &v), "Dronning Henrik fem, skak");
    assert_eq!(said("f3 e5 g4 Qh4#", &v), "Dronning Henrik fire, mat");
    assert_eq!(said_in(CASTLING, "O-O", &v), "Kort rokade");
    assert_eq!(said_in(CASTLING, "O-O-O", &v), "Lang rokade");
    assert_eq!(
        said_in(EN_PASSANT, "exd6", &v),
        "Bonde Erik slår Dora seks en passant"
    );
    assert_eq!(said_in(PROMOTION, "b8=Q", &v), "Bonde Bodil otte dronning");
    assert_eq!(said_in(PROMOTION, "b8=R", &v), "Bonde Bodil otte tårn");
    assert_eq!(said_in(PROMOTION, "b8=B", &v), "Bonde Bodil otte løber");
    assert_eq!(said_in(PROMOTION, "b8=N", &v), "Bonde Bodil otte springer");
    assert_eq!(
        said_in(PROMOTION_CAPTURE, "bxc8=Q+", &v),
        "Bonde Bodil slår Cecilie otte dronning, skak"
    );
    // Appendix C10: the departure file, else the rank, only when needed.
    assert_eq!(said_in(TWO_KNIGHTS, "Nbd2", &v), "Springer Bodil Dora to");
    assert_eq!(said_in(TWO_ROOKS, "R1a3", &v), "Tårn et Anna tre");
    // The 2001 list is the same (D52–D54).
    assert_eq!(
        said("Nf3", &voc(Lang::Da, Edition::Fide2001)),
        "Springer Frederik tre"
    );
}

#[test]
fn danish_options() {
    let alt = Vocabulary::new(
        Lang::Da,
        Edition::Fide2009,
        VoiceOptions {
            alternative_files: true,
            ..Default::default()
        },
    );
    assert_eq!(said("Nf3", &alt), "Springer Felix tre");
    assert_eq!(said("e4 d5 exd5", &alt), "Bonde Eva slår David fem");
    let german = Vocabulary::new(
        Lang::Da,
        Edition::Fide2009,
        VoiceOptions {
            ranks: Some(Words::German),
            pieces: Some(Words::German),
            ..Default::default()
        },
    );
    assert_eq!(said("Nf3", &german), "Springer Frederik drei");
    assert_eq!(
        said("e4 e5 Bc4 Nc6 Bxf7+", &german),
        "Läufer slår Frederik sieben, skak"
    );
    assert_eq!(said_in(CASTLING, "O-O", &german), "Kurze Rochade");
    assert_eq!(said_in(PROMOTION, "b8=Q", &german), "Bauer Bodil acht Dame");
    let ranks_only = Vocabulary::new(
        Lang::Da,
        Edition::Fide2009,
        VoiceOptions {
            ranks: Some(Words::German),
            ..Default::default()
        },
    );
    assert_eq!(said("e4", &ranks_only), "Bonde Erik vier");
    let long = Vocabulary::new(
        Lang::Da,
        Edition::Fide2009,
        VoiceOptions {
            from_square: true,
            ..Default::default()
        },
    );
    assert_eq!(said("Nf3", &long), "Springer Gustav et Frederik tre");
    assert_eq!(said("e4 d5 exd5", &long), "Bonde Erik fire slår Dora fem");
    assert_eq!(said_in(CASTLING, "O-O-O", &long), "Lang rokade");
}

#[test]
fn norwegian_moves_german_words_by_default() {
    let v = voc(Lang::Nb, Edition::Fide2009No);
    assert!(v.names_mandatory());
    assert_eq!(said("Nf3", &v), "Springer Felix drei");
    assert_eq!(said("e4", &v), "Bauer Eva vier");
    assert_eq!(said("e4 d5 exd5", &v), "Bauer Eva slår David fünf");
    assert_eq!(
        said("e4 e5 Bc4 Nc6 Bxf7+", &v),
        "Läufer slår Felix sieben, sjakk"
    );
    assert_eq!(said("f3 e5 g4 Qh4#", &v), "Dame Hector vier, matt");
    assert_eq!(said_in(CASTLING, "O-O", &v), "Kurze Rochade");
    assert_eq!(said_in(CASTLING, "O-O-O", &v), "Lange Rochade");
    assert_eq!(
        said_in(EN_PASSANT, "exd6", &v),
        "Bauer Eva slår David sechs en passant"
    );
    assert_eq!(said_in(PROMOTION, "b8=Q", &v), "Bauer Bella acht Dame");
    assert_eq!(said_in(PROMOTION, "b8=R", &v), "Bauer Bella acht Turm");
    assert_eq!(said_in(PROMOTION, "b8=B", &v), "Bauer Bella acht Läufer");
    assert_eq!(said_in(PROMOTION, "b8=N", &v), "Bauer Bella acht Springer");
    assert_eq!(
        said_in(TWO_KNIGHTS, "Nbd2", &v),
        "Springer Bella David zwei"
    );
    assert_eq!(
        said_in(PROMOTION_CAPTURE, "bxc8=Q+", &v),
        "Bauer Bella slår Cæsar acht Dame, sjakk"
    );
}

#[test]
fn norwegian_between_scandinavian_players() {
    let v = Vocabulary::new(Lang::Nb, Edition::Fide2009No, VoiceOptions::scandinavian());
    assert_eq!(said("Nf3", &v), "Springer Felix tre");
    assert_eq!(said("e4", &v), "Bonde Eva fire");
    assert_eq!(
        said("e4 e5 Bc4 Nc6 Bxf7+", &v),
        "Løper slår Felix sju, sjakk"
    );
    assert_eq!(said_in(CASTLING, "O-O", &v), "Kort rokade");
    assert_eq!(said_in(CASTLING, "O-O-O", &v), "Lang rokade");
    assert_eq!(said_in(PROMOTION, "b8=Q", &v), "Bonde Bella åtte dronning");
    assert_eq!(said_in(PROMOTION, "b8=B", &v), "Bonde Bella åtte løper");
}

#[test]
fn german_moves() {
    let v = voc(Lang::De, Edition::Fide2023);
    assert_eq!(said("Nf3", &v), "Springer Felix drei");
    assert_eq!(said("e4 d5 exd5", &v), "Bauer Eva schlägt David fünf");
    assert_eq!(said("e4 f6 Qh5+", &v), "Dame Hector fünf, Schach");
    assert_eq!(said("f3 e5 g4 Qh4#", &v), "Dame Hector vier, Schachmatt");
    assert_eq!(said_in(CASTLING, "O-O", &v), "Kurze Rochade");
    assert_eq!(said_in(CASTLING, "O-O-O", &v), "Lange Rochade");
    assert_eq!(
        said_in(EN_PASSANT, "exd6", &v),
        "Bauer Eva schlägt David sechs en passant"
    );
    assert_eq!(said_in(PROMOTION, "b8=Q", &v), "Bauer Bella acht Dame");
    assert_eq!(said_in(PROMOTION, "b8=R", &v), "Bauer Bella acht Turm");
    assert_eq!(said_in(PROMOTION, "b8=B", &v), "Bauer Bella acht Läufer");
    assert_eq!(said_in(PROMOTION, "b8=N", &v), "Bauer Bella acht Springer");
}

#[test]
fn english_moves() {
    let fide = voc(Lang::En, Edition::Fide2023);
    assert_eq!(said("Nf3", &fide), "Springer Felix drei");
    assert_eq!(said("e4 d5 exd5", &fide), "Bauer Eva takes David fünf");
    assert_eq!(said("f3 e5 g4 Qh4#", &fide), "Dame Hector vier, checkmate");
    assert_eq!(said_in(CASTLING, "O-O", &fide), "Kurze Rochade");
    let v = Vocabulary::new(
        Lang::En,
        Edition::Fide2023,
        VoiceOptions {
            ranks: Some(Words::National),
            pieces: Some(Words::National),
            ..Default::default()
        },
    );
    assert_eq!(said("Nf3", &v), "Knight Felix three");
    assert_eq!(said("e4 d5 exd5", &v), "Pawn Eva takes David five");
    assert_eq!(said("e4 f6 Qh5+", &v), "Queen Hector five, check");
    assert_eq!(said("f3 e5 g4 Qh4#", &v), "Queen Hector four, checkmate");
    assert_eq!(said_in(CASTLING, "O-O", &v), "Short castling");
    assert_eq!(said_in(CASTLING, "O-O-O", &v), "Long castling");
    assert_eq!(
        said_in(EN_PASSANT, "exd6", &v),
        "Pawn Eva takes David six en passant"
    );
    assert_eq!(said_in(PROMOTION, "b8=Q", &v), "Pawn Bella eight queen");
    assert_eq!(said_in(PROMOTION, "b8=R", &v), "Pawn Bella eight rook");
    assert_eq!(said_in(PROMOTION, "b8=B", &v), "Pawn Bella eight bishop");
    assert_eq!(said_in(PROMOTION, "b8=N", &v), "Pawn Bella eight knight");
}

#[test]
fn draw_offers() {
    assert_eq!(
        draw_offer_phrase(Color::White, &voc(Lang::Da, Edition::Fide2009)),
        "Hvid tilbyder remis"
    );
    assert_eq!(
        draw_offer_phrase(Color::Black, &voc(Lang::Nb, Edition::Fide2009No)),
        "Svart tilbyr remis"
    );
    assert_eq!(
        draw_offer_phrase(Color::White, &voc(Lang::De, Edition::Fide2023)),
        "Weiß bietet Remis an"
    );
    assert_eq!(
        draw_offer_phrase(Color::Black, &voc(Lang::En, Edition::Fide2023)),
        "Black offers a draw"
    );
}

#[test]
fn game_ends() {
    let da = voc(Lang::Da, Edition::Fide2009);
    assert_eq!(
        game_end_phrase(Some(win_for(Color::White)), Some(EndReason::Checkmate), &da),
        "Hvid vinder, mat"
    );
    assert_eq!(
        game_end_phrase(Some(KnownOutcome::Draw), Some(EndReason::Stalemate), &da),
        "Remis, pat"
    );
    assert_eq!(
        game_end_phrase(Some(win_for(Color::Black)), Some(EndReason::Time), &da),
        "Sort vinder, på tid"
    );
    assert_eq!(
        game_end_phrase(
            Some(KnownOutcome::Draw),
            Some(EndReason::TimeVsInsufficientMaterial),
            &da
        ),
        "Remis, tiden er overskredet, men modstanderen kan ikke sætte mat"
    );
    assert_eq!(
        game_end_phrase(Some(win_for(Color::White)), None, &da),
        "Hvid vinder"
    );
    assert_eq!(game_end_phrase(None, None, &da), "Partiet er slut");
    // The reasons without words of their own are left out.
    assert_eq!(
        game_end_phrase(Some(KnownOutcome::Draw), Some(EndReason::BothFlags), &da),
        "Remis"
    );
    let nb = voc(Lang::Nb, Edition::Fide2009No);
    assert_eq!(
        game_end_phrase(Some(KnownOutcome::Draw), Some(EndReason::Agreement), &nb),
        "Remis, etter avtale"
    );
    assert_eq!(
        game_end_phrase(
            Some(win_for(Color::Black)),
            Some(EndReason::Resignation),
            &nb
        ),
        "Svart vinner, oppgitt"
    );
    let de = voc(Lang::De, Edition::Fide2023);
    assert_eq!(
        game_end_phrase(
            Some(win_for(Color::Black)),
            Some(EndReason::IllegalMoves),
            &de
        ),
        "Schwarz gewinnt, regelwidrige Züge"
    );
    assert_eq!(
        game_end_phrase(Some(KnownOutcome::Draw), Some(EndReason::FiftyMoves), &de),
        "Remis, 50-Züge-Regel"
    );
    let en = voc(Lang::En, Edition::Fide2023);
    assert_eq!(
        game_end_phrase(Some(KnownOutcome::Draw), Some(EndReason::Threefold), &en),
        "Draw, threefold repetition"
    );
    assert_eq!(
        game_end_phrase(Some(KnownOutcome::Draw), Some(EndReason::DeadPosition), &en),
        "Draw, dead position"
    );
    // Every reason of the trace contract has words in every language.
    for reason in [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::DeadPosition,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::Time,
        EndReason::TimeVsInsufficientMaterial,
        EndReason::IllegalMoves,
        EndReason::Threefold,
        EndReason::FiftyMoves,
        EndReason::Fivefold,
        EndReason::SeventyFiveMoves,
    ] {
        for &lang in Lang::ALL {
            let v = voc(lang, Edition::Fide2023);
            let p = game_end_phrase(Some(KnownOutcome::Draw), Some(reason), &v);
            assert!(p.contains(", "), "{lang} {reason}: {p}");
        }
    }
}

#[test]
fn boards_differ() {
    assert_eq!(
        boards_differ_phrase(&[Square::E4, Square::E3], &voc(Lang::Da, Edition::Fide2009)),
        "Brætterne er forskellige på Erik fire og Erik tre"
    );
    assert_eq!(
        boards_differ_phrase(&[Square::D7, Square::F6], &voc(Lang::De, Edition::Fide2023)),
        "Die Bretter unterscheiden sich auf David sieben und Felix sechs"
    );
    assert_eq!(
        boards_differ_phrase(&[Square::A1], &voc(Lang::Nb, Edition::Fide2009No)),
        "Brettene er forskjellige på Anna eins"
    );
    assert_eq!(
        boards_differ_phrase(&[], &voc(Lang::En, Edition::Fide2023)),
        "The boards agree"
    );
}

#[test]
fn san_input() {
    let start = Chess::default();
    assert!(matches!(
        san_to_move(&start, "Zz9"),
        Err(SanInputError::NotSan(_))
    ));
    let e = san_to_move(&start, "Nf6").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Nf6: illegal in the position (white to move)"
    );
    assert!(matches!(
        san_to_move(&from_fen(TWO_KNIGHTS), "Nd2"),
        Err(SanInputError::Ambiguous(_))
    ));
    // Zeros as the Danish texts write castling (Appendix C), and a suffix.
    let pos = from_fen(CASTLING);
    assert_eq!(
        san_to_move(&pos, "0-0-0").unwrap(),
        san_to_move(&pos, "O-O-O+").unwrap()
    );
}

#[test]
fn an_illegal_move_is_described_without_panicking() {
    let v = voc(Lang::Da, Edition::Fide2009);
    let mv = Move::Normal {
        role: Role::Queen,
        from: Square::D1,
        capture: None,
        to: Square::D5,
        promotion: None,
    };
    assert_eq!(move_phrase(&Chess::default(), &mv, &v), "Dronning Dora fem");
}

#[test]
fn languages_parse() {
    assert_eq!("da".parse::<Lang>(), Ok(Lang::Da));
    assert_eq!("no".parse::<Lang>(), Ok(Lang::Nb));
    assert!("xx".parse::<Lang>().is_err());
    for (&l, &code) in Lang::ALL.iter().zip(Lang::NAMES) {
        assert_eq!(code.parse::<Lang>(), Ok(l));
        assert_eq!(l.to_string(), code);
    }
}

/// Two rooks on the third rank, one on c3's file: `Rcc3`-like moves name a
/// departure file equal to the destination's.
const ROOKS_ON_A_RANK: &str = "4k3/8/8/8/8/2R4R/8/4K3 w - - 0 1";

#[test]
fn a_departure_file_never_stutters() {
    // C10 (seed 002: "det første bogstav i brikkens navn, (b) linien
    // hvorfra den blev flyttet og (c) det felt hvor brikken flyttes til")
    // with E2.1's names gives "Tårn Cecilie Cecilie tre" for Rcc2: a
    // stutter. Said with "from … to" instead; other C10 forms keep the
    // seeds' words.
    let pos = from_fen(ROOKS_ON_A_RANK);
    let rc = shakmaty::Move::Normal {
        role: Role::Rook,
        from: Square::C3,
        capture: None,
        to: Square::C2,
        promotion: None,
    };
    // Rc2 is not ambiguous (h3 cannot reach c2); Rhd3 / Rcd3 are.
    assert_eq!(
        move_phrase(&pos, &rc, &voc(Lang::Da, Edition::Fide2009)),
        "Tårn Cecilie to"
    );
    for (lang, edition, want) in [
        (Lang::Da, Edition::Fide2009, "Tårn Cecilie Dora tre"),
        (Lang::Nb, Edition::Fide2009No, "Turm Cæsar David drei"),
    ] {
        assert_eq!(said_in(ROOKS_ON_A_RANK, "Rcd3", &voc(lang, edition)), want);
    }
    // Rooks a3 and c3 both reaching b3: Rcb3, the seeds' form.
    let pos = from_fen("4k3/8/8/8/8/R1R5/8/4K3 w - - 0 1");
    let rcc = san_to_move(&pos, "Rcb3").unwrap();
    assert_eq!(
        move_phrase(&pos, &rcc, &voc(Lang::Da, Edition::Fide2009)),
        "Tårn Cecilie Bodil tre"
    );
    // Rooks c6 and g4, both reaching c4: Rcc4 against Rgc4.
    let pos = from_fen("4k3/8/2R5/8/6R1/8/8/4K3 w - - 0 1");
    for (lang, edition, want) in [
        (
            Lang::Da,
            Edition::Fide2009,
            "Tårn fra Cecilie til Cecilie fire",
        ),
        (
            Lang::Nb,
            Edition::Fide2009No,
            "Turm fra Cæsar til Cæsar vier",
        ),
        (
            Lang::De,
            Edition::Fide2023,
            "Turm von Cäsar nach Cäsar vier",
        ),
        (Lang::En, Edition::Fide2023, "Turm from Cesar to Cesar vier"),
    ] {
        let mv = san_to_move(&pos, "Rcc4").unwrap();
        assert_eq!(move_phrase(&pos, &mv, &voc(lang, edition)), want);
        // The other rook: the seeds' form, no repetition.
        let other = san_to_move(&pos, "Rgc4").unwrap();
        assert!(!move_phrase(&pos, &other, &voc(lang, edition)).contains(" til "));
    }
}

// The answers to the player's own device (E2.9d queries).
#[path = "queries_tests.rs"]
mod queries_tests;
