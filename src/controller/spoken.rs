//! Everything that happens is spoken (issue 14 item 1): the contract's
//! events a player who cannot see the board, the clock or the arbiter must
//! know of, put into words in the game's language, for the players they
//! concern.
//!
//! Which event is spoken is decided here once, in one exhaustive `match`:
//! a new event kind does not compile until it is given a phrase or a reason
//! why it is not spoken. The moves, the set-up guidance and the boards
//! differing (E2.7) are announced by the arbiter itself (typed
//! [`crate::arbiter::Announcement`]s, timed by E2.3), so their events are
//! not spoken a second time.

use crate::model::IrregularityKind;
use crate::trace::EventKind;
use crate::voice::{self, Vocabulary};
use shakmaty::{Color, Square};

/// Who hears a phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// Both players (every ruling concerns both; Appendix E: the moves
    /// are announced to both), and the arbiter's device.
    Both,
    /// One player (an answer to his question, E2.9d).
    Player(Color),
}

/// Why an event kind is not spoken from its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Silent {
    /// The arbiter announces it itself (moves, set-up guidance, E2.7).
    AnnouncedByTheArbiter,
    /// Told only on request (E2.9d: the clocks) or not news to the player
    /// (his own touch; an announcement is the speech itself).
    NotNews,
}

/// Whether the event `kind` is spoken from its event: `Ok(audience)`, or
/// `Err` with the reason it is not. Exhaustive on purpose.
pub fn spoken_kind(kind: &EventKind) -> Result<Audience, Silent> {
    match kind {
        EventKind::Move { .. } | EventKind::Setup { .. } => Err(Silent::AnnouncedByTheArbiter),
        // A claim held for the arbiter: nothing is said until he rules
        // (then its `claim` event is spoken).
        EventKind::ClaimHeld { .. } => Err(Silent::AnnouncedByTheArbiter),
        EventKind::Irregularity {
            kind: IrregularityKind::BoardsDiffer | IrregularityKind::PromotionPieceUnnamed,
            ..
        } => Err(Silent::AnnouncedByTheArbiter),
        // 2023 A.5.2: the illegal move not ruled is for the arbiter; the
        // board does not prompt the opponent's claim.
        EventKind::Irregularity {
            kind: IrregularityKind::IllegalMoveUnclaimed,
            ..
        } => Err(Silent::AnnouncedByTheArbiter),
        // E2.3: the player's own output failed; the arbiter announces.
        EventKind::Irregularity {
            kind: IrregularityKind::AnnouncementNotHeard,
            ..
        } => Err(Silent::AnnouncedByTheArbiter),
        EventKind::Touch { .. } | EventKind::Clock { .. } | EventKind::Announce { .. } => {
            Err(Silent::NotNews)
        }
        // A result the arbiter corrected is announced once, from its
        // confirmation (issue 24.5: no `game_end` of its own).
        EventKind::ResultConfirmed {
            corrected: true, ..
        } => Ok(Audience::Both),
        // Administrative: the result's confirmation, the ruling's author,
        // a refused ruling (the arbiter's console shows it).
        EventKind::ResultConfirmed { .. }
        | EventKind::Ruling { .. }
        | EventKind::RulingRefused { .. } => Err(Silent::NotNews),
        EventKind::PromotionAssumed { .. }
        | EventKind::IllegalMove { .. }
        | EventKind::TouchMove { .. }
        | EventKind::Irregularity { .. }
        | EventKind::Claim { .. }
        | EventKind::DrawOffer { .. }
        | EventKind::DrawClaimable { .. }
        | EventKind::Flag { .. }
        | EventKind::PositionRestored { .. }
        | EventKind::AmbiguousMove { .. }
        | EventKind::GameEnd { .. } => Ok(Audience::Both),
    }
}

fn squares(names: &[String]) -> Vec<Square> {
    names.iter().filter_map(|s| s.parse().ok()).collect()
}

/// The phrase of an event in `voc`'s language and who hears it; `None` for
/// the kinds not spoken from their event ([`spoken_kind`]).
pub fn event_phrase(kind: &EventKind, voc: &Vocabulary) -> Option<(String, Audience)> {
    let audience = spoken_kind(kind).ok()?;
    let text = match kind {
        EventKind::PromotionAssumed { by, square, .. } => {
            voice::promotion_question_phrase(by.0, square.parse().ok()?, voc)
        }
        EventKind::IllegalMove {
            by,
            penalty,
            squares: sq,
            ..
        } => voice::illegal_move_phrase(by.0, *penalty, &squares(sq), voc),
        EventKind::TouchMove { by, touched, .. } => {
            voice::touch_move_phrase(by.0, touched.parse().ok()?, voc)
        }
        EventKind::Irregularity {
            kind, squares: sq, ..
        } => voice::irregularity_phrase(*kind, &squares(sq), voc),
        EventKind::Claim {
            by, kind, upheld, ..
        } => voice::claim_phrase(by.0, *kind, *upheld, voc),
        EventKind::DrawOffer { by } => voice::draw_offer_phrase(by.0, voc),
        EventKind::DrawClaimable { kind, .. } => voice::draw_claimable_phrase(*kind, voc),
        EventKind::Flag { by } => voice::flag_phrase(by.0, voc),
        EventKind::PositionRestored { .. } => voice::position_restored_phrase(voc),
        EventKind::AmbiguousMove { .. } => voice::ambiguous_move_phrase(voc),
        EventKind::GameEnd { result, reason, .. } => {
            voice::game_end_phrase(result.outcome(), Some(*reason), voc)
        }
        EventKind::ResultConfirmed {
            result,
            corrected: true,
            ..
        } => voice::game_end_phrase(
            result.outcome(),
            Some(crate::model::EndReason::ArbiterDecision),
            voc,
        ),
        EventKind::Move { .. }
        | EventKind::Setup { .. }
        | EventKind::Touch { .. }
        | EventKind::Clock { .. }
        | EventKind::Announce { .. }
        | EventKind::ResultConfirmed { .. }
        | EventKind::Ruling { .. }
        | EventKind::ClaimHeld { .. }
        | EventKind::RulingRefused { .. } => return None,
    };
    Some((text, audience))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ClaimKind, EndReason, KnownOutcome, Lang, Penalty};
    use crate::rules::Edition;
    use crate::trace::{By, MoveChoice};
    use crate::voice::VoiceOptions;

    /// One event of every kind (the `match` in [`index`] fails to compile
    /// when a kind is added; the test checks every index is sampled).
    fn samples() -> Vec<EventKind> {
        let w = By(Color::White);
        let b = By(Color::Black);
        let mut v = vec![
            EventKind::Touch {
                by: w,
                square: "e2".into(),
                piece: "P".into(),
                board: "main",
            },
            EventKind::Move {
                ply: 1,
                by: w,
                san: "e4".into(),
                uci: "e2e4".into(),
                fen: "8/8/8/8/8/8/8/8 w - - 0 1".into(),
            },
            EventKind::PromotionAssumed {
                by: w,
                square: "e8".into(),
                piece: "Q".into(),
            },
            EventKind::IllegalMove {
                by: w,
                article: "7.4a",
                count: 1,
                penalty: Penalty::TimeAdded {
                    to: Color::Black,
                    ms: 120_000,
                },
                penalty_article: "7.4b",
                squares: vec!["e2".into(), "e5".into()],
            },
            EventKind::TouchMove {
                by: b,
                article: "4.3a",
                touched: "g8".into(),
                played: "e7e5".into(),
                san: "e5".into(),
            },
            EventKind::Claim {
                by: w,
                kind: ClaimKind::TouchMove,
                upheld: true,
                consequence: "e7e5 taken back".into(),
                article: "4.7",
            },
            EventKind::DrawOffer { by: w },
            EventKind::ClaimHeld {
                by: w,
                kind: ClaimKind::Threefold,
                candidates: vec![],
                article: "9.2",
            },
            EventKind::DrawClaimable {
                kind: ClaimKind::Threefold,
                article: "9.2",
            },
            EventKind::Clock {
                white_ms: 1,
                black_ms: 2,
            },
            EventKind::Flag { by: b },
            EventKind::Announce {
                text: "x".into(),
                lang: Lang::En,
                n: 1,
                to: None,
                ssml: None,
                ms: 1,
            },
            EventKind::PositionRestored {
                fen: "8/8/8/8/8/8/8/8 w - - 0 1".into(),
            },
            EventKind::Setup {
                missing: vec![],
                extra: vec![],
                misplaced: vec![],
            },
            EventKind::AmbiguousMove {
                by: w,
                ply: 3,
                candidates: vec![MoveChoice {
                    uci: "f3e5".into(),
                    san: "Nxe5".into(),
                    displaced: Vec::new(),
                }],
                article: "13.4",
            },
            EventKind::GameEnd {
                result: KnownOutcome::Decisive {
                    winner: Color::White,
                }
                .into(),
                reason: EndReason::Checkmate,
                article: "5.1a",
                declared: false,
            },
            EventKind::ResultConfirmed {
                result: KnownOutcome::Draw.into(),
                corrected: false,
                forfeit: false,
                article: "12.9",
            },
            EventKind::Ruling {
                action: "restore",
                author: "IA Hansen".into(),
                article: "7.5.1",
                seq: 1,
                effect: "the position is reinstated".into(),
                answers: None,
                reason_at: None,
            },
            EventKind::RulingRefused {
                action: "clock",
                author: Some("IA Hansen".into()),
                reason: "the game is over and its result confirmed".into(),
                status: 409,
                article: Some("6.10.2"),
            },
        ];
        for k in IrregularityKind::ALL {
            v.push(EventKind::Irregularity {
                kind: *k,
                article: "7.3",
                squares: vec!["e4".into()],
            });
        }
        v
    }

    fn index(k: &EventKind) -> usize {
        match k {
            EventKind::Touch { .. } => 0,
            EventKind::Move { .. } => 1,
            EventKind::PromotionAssumed { .. } => 2,
            EventKind::IllegalMove { .. } => 3,
            EventKind::TouchMove { .. } => 4,
            EventKind::Irregularity { .. } => 5,
            EventKind::Claim { .. } => 6,
            EventKind::DrawOffer { .. } => 7,
            EventKind::DrawClaimable { .. } => 8,
            EventKind::Clock { .. } => 9,
            EventKind::Flag { .. } => 10,
            EventKind::Announce { .. } => 11,
            EventKind::PositionRestored { .. } => 12,
            EventKind::Setup { .. } => 13,
            EventKind::AmbiguousMove { .. } => 14,
            EventKind::GameEnd { .. } => 15,
            EventKind::ResultConfirmed { .. } => 16,
            EventKind::Ruling { .. } => 17,
            EventKind::RulingRefused { .. } => 18,
            EventKind::ClaimHeld { .. } => 19,
        }
    }
    const KINDS: usize = 20;

    /// Words that give English away in another language's phrase.
    const ENGLISH: [&str; 8] = [
        " the ", " by ", "White", "Black", " move", "claims", "added", "draw",
    ];

    #[test]
    fn every_kind_a_player_must_know_has_a_phrase_in_every_language() {
        let samples = samples();
        let mut seen = [false; KINDS];
        for s in &samples {
            seen[index(s)] = true;
        }
        assert!(seen.iter().all(|s| *s), "a kind has no sample: {seen:?}");
        let mut table = Vec::new();
        for s in &samples {
            let spoken = spoken_kind(s);
            for lang in Lang::ALL {
                let edition = match lang {
                    Lang::Nb => Edition::Fide2009No,
                    Lang::Da => Edition::Fide2009,
                    _ => Edition::Fide2023,
                };
                let voc = Vocabulary::new(*lang, edition, VoiceOptions::default());
                let said = event_phrase(s, &voc);
                match (&spoken, &said) {
                    (Ok(a), Some((text, b))) => {
                        assert_eq!(a, b);
                        assert!(!text.trim().is_empty(), "{lang}: empty phrase for {s:?}");
                        if *lang != Lang::En {
                            for e in ENGLISH {
                                assert!(!text.contains(e), "{lang}: English {e:?} in {text:?}");
                            }
                        }
                        table.push(format!("{lang} {}: {text}", index(s)));
                    }
                    (Err(_), None) => {}
                    _ => panic!("{lang}: {s:?} spoken {spoken:?} but phrase {said:?}"),
                }
            }
        }
        // Each spoken sample has a phrase in each of the four languages.
        let spoken = samples.iter().filter(|s| spoken_kind(s).is_ok()).count();
        assert_eq!(table.len(), spoken * Lang::ALL.len(), "{table:#?}");
    }

    #[test]
    fn the_penalty_is_said() {
        let s = &samples()[3];
        let say = |lang, edition| {
            event_phrase(s, &Vocabulary::new(lang, edition, VoiceOptions::default()))
                .unwrap()
                .0
        };
        assert_eq!(
            say(Lang::En, Edition::Fide2023),
            "Illegal move by White. 2 minutes added to Black's time. \
             Put the position right on Eva zwei and Eva fünf"
        );
        assert_eq!(
            say(Lang::Da, Edition::Fide2009),
            "Ulovligt træk af hvid. 2 minutter lagt til sorts tid. \
             Ret stillingen på Erik to og Erik fem"
        );
        assert_eq!(
            say(Lang::Nb, Edition::Fide2009No),
            "Ulovlig trekk av hvit. 2 minutter lagt til svarts tid. \
             Rett opp stillingen på Eva zwei og Eva fünf"
        );
        assert_eq!(
            say(Lang::De, Edition::Fide2023),
            "Regelwidriger Zug von Weiß. 2 Minuten Bedenkzeit für Schwarz. \
             Stellung berichtigen auf Eva zwei und Eva fünf"
        );
    }

    #[test]
    fn an_upheld_touch_move_claim_says_the_move_is_taken_back() {
        let s = &samples()[5];
        let v = Vocabulary::new(Lang::Da, Edition::Fide2009, VoiceOptions::default());
        assert_eq!(
            event_phrase(s, &v).unwrap().0,
            "Hvid reklamerer rørt brik: godkendt. Trækket tages tilbage"
        );
    }
}
