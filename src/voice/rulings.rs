//! The phrases of what happens beside the moves, so that a player who
//! cannot see the board, the clock or the arbiter hears it (issue 14):
//! illegal-move rulings and their penalty, touch-move breaches, claims and
//! rulings, flag falls, restored positions, irregularities, the draw offer's
//! end, the arbiter pausing and restarting the clock, an unsettled move and
//! the question for the promotion piece.
//!
//! The Laws give the events (§4, §6, §7, §9, Appendix E) but no words for
//! them: every word here is our design, to be approved by an arbiter (E2.9).
//! Squares, colours and durations come from the [`Vocabulary`], so they are
//! said as the moves are.

use super::{duration_phrase, sentence, Lang, Vocabulary};
use crate::model::{ClaimKind, IrregularityKind, Penalty};
use shakmaty::{Color, Square};

/// One of four words (da, nb, de, en), picked by the vocabulary's language.
fn word(voc: &Vocabulary, w: [&'static str; 4]) -> &'static str {
    match voc.lang {
        Lang::Da => w[0],
        Lang::Nb => w[1],
        Lang::De => w[2],
        Lang::En => w[3],
    }
}

/// The colour's possessive (`hvids`, `hvits`, `White's`); German gives the
/// bare name for the callers' `von …`.
fn colour_genitive(c: Color, voc: &Vocabulary) -> String {
    let name = voc.colour(c);
    match voc.lang {
        Lang::En => format!("{name}'s"),
        Lang::De => name.to_owned(),
        Lang::Da | Lang::Nb => format!("{name}s"),
    }
}

/// The squares said and joined: `Erik to og Erik fire`.
fn squares(sq: &[Square], voc: &Vocabulary) -> String {
    let named: Vec<String> = sq.iter().map(|s| voc.square(*s)).collect();
    voc.list(&named)
}

/// A penalty (§7.4b / 7.5.5, A4, §10.2) as said, not capitalised; `None`
/// for no penalty. E.g. `2 minutter lagt til hvids tid`, English `2 minutes
/// added to White's time`.
pub fn penalty_words(p: Penalty, offender: Color, voc: &Vocabulary) -> Option<String> {
    match p {
        Penalty::TimeAdded { to, ms } => {
            let d = duration_phrase(ms, voc);
            Some(match voc.lang {
                Lang::Da => format!("{d} lagt til {} tid", colour_genitive(to, voc)),
                Lang::Nb => format!("{d} lagt til {} tid", colour_genitive(to, voc)),
                Lang::De => format!("{d} Bedenkzeit für {}", voc.colour(to)),
                Lang::En => format!("{d} added to {} time", colour_genitive(to, voc)),
            })
        }
        Penalty::GameLost => {
            let c = voc.colour(offender);
            Some(match voc.lang {
                Lang::Da => format!("{c} taber partiet"),
                Lang::Nb => format!("{c} taper partiet"),
                Lang::De => format!("{c} verliert die Partie"),
                Lang::En => format!("{c} loses the game"),
            })
        }
        Penalty::Draw => {
            Some(word(voc, ["remis", "remis", "Remis", "the game is drawn"]).to_owned())
        }
        Penalty::None => None,
    }
}

/// An illegal move ruled (§7.4 / 7.5; A4, B3): who, the penalty, and the
/// squares to put right, e.g. `Ulovligt træk af hvid. 2 minutter lagt til
/// sorts tid. Ret stillingen på Erik to og Erik fire`.
pub fn illegal_move_phrase(
    by: Color,
    penalty: Penalty,
    to_restore: &[Square],
    voc: &Vocabulary,
) -> String {
    let c = voc.colour(by);
    let mut parts = vec![match voc.lang {
        Lang::Da => format!("ulovligt træk af {c}"),
        Lang::Nb => format!("ulovlig trekk av {c}"),
        Lang::De => format!("regelwidriger Zug von {c}"),
        Lang::En => format!("illegal move by {c}"),
    }];
    parts.extend(penalty_words(penalty, by, voc));
    if !to_restore.is_empty() {
        let head = word(
            voc,
            [
                "ret stillingen på",
                "rett opp stillingen på",
                "Stellung berichtigen auf",
                "put the position right on",
            ],
        );
        parts.push(format!("{head} {}", squares(to_restore, voc)));
    }
    join_sentences(parts)
}

/// A touch-move breach (§4.3, §4.4; E2.2 on the tactile board): the move
/// made broke the obligation of the piece touched on `touched`, e.g.
/// `Hvid har brudt reglen om rørt brik på Gustav et`.
pub fn touch_move_phrase(by: Color, touched: Square, voc: &Vocabulary) -> String {
    let c = voc.colour(by);
    let sq = voc.square(touched);
    sentence(match voc.lang {
        Lang::Da => format!("{c} har brudt reglen om rørt brik på {sq}"),
        Lang::Nb => format!("{c} har brutt regelen om berørt brikke på {sq}"),
        Lang::De => format!("{c} hat die Regel berührt-geführt verletzt, auf {sq}"),
        Lang::En => format!("{c} broke the touch-move rule on {sq}"),
    })
}

/// What a claim is about, not capitalised.
pub fn claim_kind_words(kind: ClaimKind, voc: &Vocabulary) -> &'static str {
    word(
        voc,
        match kind {
            ClaimKind::TouchMove => [
                "rørt brik",
                "berørt brikke",
                "berührt-geführt",
                "touch-move",
            ],
            ClaimKind::IllegalMove => [
                "ulovligt træk",
                "ulovlig trekk",
                "regelwidriger Zug",
                "illegal move",
            ],
            ClaimKind::Threefold => [
                "trefold gentagelse",
                "trekkgjentakelse",
                "dreifache Stellungswiederholung",
                "threefold repetition",
            ],
            ClaimKind::FiftyMoves => [
                "50-træksreglen",
                "50-trekksregelen",
                "50-Züge-Regel",
                "fifty-move rule",
            ],
            ClaimKind::Time => ["tid", "tid", "Zeitüberschreitung", "time"],
            ClaimKind::InsufficientLosingChances => [
                "ingen vinderchancer",
                "ingen vinnersjanser",
                "keine Gewinnversuche",
                "no winning chances",
            ],
        },
    )
}

/// A claim and the ruling on it, e.g. `Sort reklamerer rørt brik:
/// godkendt. Trækket tages tilbage` (an upheld touch-move claim takes the
/// move back, §4.7 / 4.8).
pub fn claim_phrase(by: Color, kind: ClaimKind, upheld: bool, voc: &Vocabulary) -> String {
    let c = voc.colour(by);
    let k = claim_kind_words(kind, voc);
    let ruling = if upheld {
        word(voc, ["godkendt", "godtatt", "stattgegeben", "upheld"])
    } else {
        word(voc, ["afvist", "avvist", "abgelehnt", "rejected"])
    };
    let mut parts = vec![match voc.lang {
        Lang::Da => format!("{c} reklamerer {k}: {ruling}"),
        Lang::Nb => format!("{c} reklamerer {k}: {ruling}"),
        Lang::De => format!("Reklamation von {c}, {k}: {ruling}"),
        Lang::En => format!("{c} claims {k}: {ruling}"),
    }];
    if upheld && kind == ClaimKind::TouchMove {
        parts.push(
            word(
                voc,
                [
                    "trækket tages tilbage",
                    "trekket tas tilbake",
                    "der Zug wird zurückgenommen",
                    "the move is taken back",
                ],
            )
            .to_owned(),
        );
    }
    join_sentences(parts)
}

/// The player on move may claim a draw (§9.2, §9.3), e.g. `Remis kan
/// kræves: trefold gentagelse`.
pub fn draw_claimable_phrase(kind: ClaimKind, voc: &Vocabulary) -> String {
    let k = claim_kind_words(kind, voc);
    sentence(match voc.lang {
        Lang::Da => format!("remis kan kræves: {k}"),
        Lang::Nb => format!("remis kan kreves: {k}"),
        Lang::De => format!("Remis kann beansprucht werden: {k}"),
        Lang::En => format!("a draw can be claimed: {k}"),
    })
}

/// A flag fell (§6.8), e.g. `Hvids tid er udløbet`.
pub fn flag_phrase(by: Color, voc: &Vocabulary) -> String {
    let g = colour_genitive(by, voc);
    sentence(match voc.lang {
        Lang::Da => format!("{g} tid er udløbet"),
        Lang::Nb => format!("{g} tid er ute"),
        Lang::De => format!("die Zeit von {g} ist abgelaufen"),
        Lang::En => format!("{g} flag has fallen"),
    })
}

/// The board shows the position to reinstate again (§7).
pub fn position_restored_phrase(voc: &Vocabulary) -> String {
    sentence(
        word(
            voc,
            [
                "stillingen er genoprettet",
                "stillingen er gjenopprettet",
                "die Stellung ist wiederhergestellt",
                "the position is restored",
            ],
        )
        .to_owned(),
    )
}

/// An irregularity the players must know of, with its squares, e.g.
/// `Uregelmæssighed: væltede eller flyttede brikker på Erik fire`.
pub fn irregularity_phrase(kind: IrregularityKind, on: &[Square], voc: &Vocabulary) -> String {
    let what = word(
        voc,
        match kind {
            IrregularityKind::WrongInitialPosition => [
                "forkert udgangsstilling",
                "feil utgangsstilling",
                "falsche Ausgangsstellung",
                "wrong initial position",
            ],
            IrregularityKind::BoardOrientation => [
                "brættet vender forkert",
                "brettet står feil vei",
                "das Brett steht falsch herum",
                "the board is turned the wrong way",
            ],
            IrregularityKind::Displaced => [
                "væltede eller flyttede brikker",
                "veltede eller flyttede brikker",
                "umgeworfene oder verschobene Figuren",
                "pieces knocked over or displaced",
            ],
            IrregularityKind::BoardsDiffer => [
                "brætterne er forskellige",
                "brettene er forskjellige",
                "die Bretter unterscheiden sich",
                "the boards differ",
            ],
            IrregularityKind::ClockPressedWithoutMove => [
                "uret trykket uden træk",
                "klokken trykket uten trekk",
                "Uhr ohne Zug gedrückt",
                "clock pressed without a move",
            ],
            IrregularityKind::ClockStartedBeforeAnnouncement => [
                "uret startet før trækket var meddelt",
                "klokken startet før trekket var lest opp",
                "Uhr gedrückt, bevor der Zug angesagt war",
                "clock started before the move was announced",
            ],
            IrregularityKind::AdjustByPlayerNotOnMove => [
                "rettet af spilleren der ikke er i trækket",
                "justert av spilleren som ikke er i trekket",
                "zurechtgerückt vom Spieler, der nicht am Zug ist",
                "adjusted by the player not on move",
            ],
            IrregularityKind::ArbiterPositionRejected => [
                "dommerens stilling kan ikke bruges",
                "dommerens stilling kan ikke brukes",
                "die Stellung des Schiedsrichters ist nicht möglich",
                "the arbiter's position cannot be used",
            ],
            IrregularityKind::PressDuringPause => [
                "uret trykket mens urene er standset",
                "klokken trykket mens klokkene er stoppet",
                "Uhr gedrückt, während die Uhren angehalten sind",
                "clock pressed while the clocks are paused",
            ],
            IrregularityKind::UnpressedMovesUnclear => [
                "trækkene på brættet kan ikke læses entydigt",
                "trekkene på brettet kan ikke leses entydig",
                "die Züge auf dem Brett sind nicht eindeutig",
                "the moves on the board cannot be read for certain",
            ],
            IrregularityKind::AgreementBeforeAMoveEach => [
                "remis kan først aftales når begge spillere har trukket",
                "remis kan først avtales når begge spillere har trukket",
                "Remis erst nach je einem Zug",
                "no draw agreement before both players have made a move",
            ],
            IrregularityKind::BoardTurned => [
                "brættet står vendt, felterne læses vendt",
                "brettet står snudd, rutene leses snudd",
                "das Brett steht umgedreht, die Felder werden umgedreht gelesen",
                "the board stands turned round; its squares are read turned",
            ],
            IrregularityKind::Downtime => {
                ["afbrydelse", "avbrudd", "Unterbrechung", "interruption"]
            }
            IrregularityKind::ColoursReversed => [
                "brættet vender omvendt, partiet er begyndt med omvendte farver",
                "brettet står snudd, partiet er begynt med omvendte farger",
                "das Brett ist umgedreht, die Partie begann mit vertauschten Farben",
                "the board is turned round, the game started with colours reversed",
            ],
            IrregularityKind::MovedAfterAnnouncement => [
                "brik flyttet efter at trækket var meddelt",
                "brikke flyttet etter at trekket var lest opp",
                "Figur nach der Ansage des Zuges bewegt",
                "piece moved after the move was announced",
            ],
            IrregularityKind::PromotionPieceUnnamed => [
                "forvandlingsbrikken er ikke nævnt",
                "forvandlingsbrikken er ikke nevnt",
                "die Umwandlungsfigur ist nicht genannt",
                "the promotion piece is not named",
            ],
            IrregularityKind::IllegalMoveUnclaimed => [
                "ulovligt træk, ikke påtalt",
                "ulovlig trekk, ikke påberopt",
                "regelwidriger Zug, nicht reklamiert",
                "illegal move, not claimed",
            ],
            IrregularityKind::AnnouncementNotHeard => [
                "trækket nåede ikke frem til spilleren, hans højttaler svigtede",
                "trekket nådde ikke fram til spilleren, høyttaleren hans sviktet",
                "die Ansage erreichte den Spieler nicht, seine Ausgabe fiel aus",
                "the announcement did not reach the player, his output failed",
            ],
            IrregularityKind::IllegalPosition => [
                "ulovlig stilling efter det næste træk",
                "ulovlig stilling etter neste trekk",
                "regelwidrige Stellung nach dem nächsten Zug",
                "illegal position after the next move",
            ],
        },
    );
    let head = word(
        voc,
        [
            "uregelmæssighed",
            "uregelmessighet",
            "Unregelmäßigkeit",
            "irregularity",
        ],
    );
    let on_word = word(voc, ["på", "på", "auf", "on"]);
    sentence(if on.is_empty() {
        format!("{head}: {what}")
    } else {
        format!("{head}: {what} {on_word} {}", squares(on, voc))
    })
}

/// A move the board shows that fits several legal moves: the arbiter
/// decides (`ambiguous_move`).
pub fn ambiguous_move_phrase(voc: &Vocabulary) -> String {
    sentence(
        word(
            voc,
            [
                "uklart træk, dommeren afgør det",
                "uklart trekk, dommeren avgjør det",
                "unklarer Zug, der Schiedsrichter entscheidet",
                "unclear move, the arbiter decides",
            ],
        )
        .to_owned(),
    )
}

/// E2.1: "when promoting a pawn, the player must announce which piece is
/// chosen": the question when no piece was sensed or chosen, e.g. `Hvid
/// forvandler på Erik otte: hvilken brik?`.
pub fn promotion_question_phrase(by: Color, on: Square, voc: &Vocabulary) -> String {
    let c = voc.colour(by);
    let sq = voc.square(on);
    sentence(match voc.lang {
        Lang::Da => format!("{c} forvandler på {sq}: hvilken brik?"),
        Lang::Nb => format!("{c} forvandler på {sq}: hvilken offiser?"),
        Lang::De => format!("{c} wandelt auf {sq} um: welche Figur?"),
        Lang::En => format!("{c} promotes on {sq}: which piece?"),
    })
}

/// A draw offer by `by` ended without agreement (§9.1): `lapsed` when the
/// opponent touched a piece (2009 §9.1b(1)), else declined (in words or by
/// playing on), e.g. `Hvids remistilbud er bortfaldet`.
pub fn draw_offer_end_phrase(by: Color, lapsed: bool, voc: &Vocabulary) -> String {
    let g = colour_genitive(by, voc);
    let c = voc.colour(by);
    sentence(match (voc.lang, lapsed) {
        (Lang::Da, true) => format!("{g} remistilbud er bortfaldet"),
        (Lang::Da, _) => format!("{g} remistilbud er afslået"),
        (Lang::Nb, true) => format!("{g} remistilbud har falt bort"),
        (Lang::Nb, _) => format!("{g} remistilbud er avslått"),
        (Lang::De, true) => format!("das Remisangebot von {c} ist erloschen"),
        (Lang::De, _) => format!("das Remisangebot von {c} ist abgelehnt"),
        (Lang::En, true) => format!("{g} draw offer has lapsed"),
        (Lang::En, _) => format!("{g} draw offer is declined"),
    })
}

/// The arbiter stopped (`true`) or restarted the clocks (§6.12).
pub fn clock_paused_phrase(paused: bool, voc: &Vocabulary) -> String {
    sentence(
        word(
            voc,
            if paused {
                [
                    "dommeren har stoppet uret",
                    "dommeren har stoppet klokken",
                    "der Schiedsrichter hat die Uhr angehalten",
                    "the arbiter has stopped the clock",
                ]
            } else {
                [
                    "dommeren har startet uret igen",
                    "dommeren har startet klokken igjen",
                    "der Schiedsrichter hat die Uhr wieder gestartet",
                    "the arbiter has restarted the clock",
                ]
            },
        )
        .to_owned(),
    )
}

/// The arbiter agreed to a III.4 request (2023 Guidelines III.4): `extra_ms`
/// per move for both players from now on (a delay when `delay`), and
/// `awarded_ms` to `awarded`, e.g. `Dommeren har indført 5 sekunder pr. træk
/// for begge spillere. 2 minutter lagt til sorts tid`.
pub fn increment_introduced_phrase(
    extra_ms: u64,
    delay: bool,
    awarded: Color,
    awarded_ms: u64,
    voc: &Vocabulary,
) -> String {
    let d = duration_phrase(extra_ms, voc);
    let head = match (voc.lang, delay) {
        (Lang::Da, false) => format!("dommeren har indført {d} pr. træk for begge spillere"),
        (Lang::Da, true) => {
            format!("dommeren har indført en forsinkelse på {d} pr. træk for begge spillere")
        }
        (Lang::Nb, false) => format!("dommeren har innført {d} per trekk for begge spillere"),
        (Lang::Nb, true) => {
            format!("dommeren har innført en forsinkelse på {d} per trekk for begge spillere")
        }
        (Lang::De, false) => {
            format!("der Schiedsrichter hat {d} pro Zug für beide Spieler eingeführt")
        }
        (Lang::De, true) => format!(
            "der Schiedsrichter hat eine Verzögerung von {d} pro Zug für beide Spieler eingeführt"
        ),
        (Lang::En, false) => {
            format!("the arbiter has introduced {d} per move for both players")
        }
        (Lang::En, true) => {
            format!("the arbiter has introduced a delay of {d} per move for both players")
        }
    };
    let mut parts = vec![head];
    parts.extend(penalty_words(
        Penalty::TimeAdded {
            to: awarded,
            ms: awarded_ms,
        },
        !awarded,
        voc,
    ));
    join_sentences(parts)
}

/// Nothing to repeat yet (a `repeat` request before any announcement).
pub fn nothing_to_repeat_phrase(voc: &Vocabulary) -> String {
    sentence(
        word(
            voc,
            [
                "intet at gentage",
                "ingenting å gjenta",
                "nichts zu wiederholen",
                "nothing to repeat",
            ],
        )
        .to_owned(),
    )
}

/// Sentences joined with `. `, each capitalised.
fn join_sentences(parts: Vec<String>) -> String {
    parts
        .into_iter()
        .map(sentence)
        .collect::<Vec<_>>()
        .join(". ")
}
