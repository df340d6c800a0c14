//! Appendix E copies as the seeds have them (issue 25.6, issue 29.3): a
//! two-board game where a player's copy of the opponent's move goes wrong,
//! in whatever order his own move and the copy come; what the arbiter is
//! told and what the players hear (real espeak-ng). The E2.8 rewind that
//! follows when the scoresheets differ too is `tests/copies_rewind.rs`.
//!
//! E2.7 (seed 002): "Hvis der under partiet opstår forskellige stillinger
//! på de to skakbrætter, skal dette rettes under medvirken af en dommer og
//! ved hjælp af begge spilleres noteringsliste." E2.8: "Hvis de to
//! noteringslister også er forskellige, skal spillet føres tilbage til det
//! træk hvor de er ens, og dommeren skal indstille urene tilsvarende."
//! E2.3c: the move is made when it "er blevet meddelt"; only then may the
//! opponent's clock be started.

use crate::common;

use common::copies::{hdr, texts};
use common::skip::skip_or_fail_under_ci;
use common::{of, replay_steps, E4_E5_COPIED};
use serde_json::{json, Value};

/// White plays e4 on the main board and presses at 1600.
const WHITE_E4: &str = "
    1000 lift e2
    1300 place e4
    1600 press w";

fn announce_t(ev: &[Value], text: &str) -> u64 {
    of(ev, "announce")
        .iter()
        .find(|a| a["text"] == text)
        .unwrap_or_else(|| panic!("{text:?} said: {:#?}", texts(ev)))["t"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_wrong_copy_names_only_its_squares_whatever_the_order_of_his_own_move() {
    // Black copies e4 to e3 (wrong) and plays e5, in three orders: copy
    // first; his move first and the copy after it; the copied pawn lifted,
    // his move made, the pawn put down. Each time his e5 stands at 3600.
    for (order, steps) in [
        (
            "copy, then his move",
            "3000 tactile lift e2\n3200 tactile place e3\n3400 tactile lift e7\n3600 tactile place e5",
        ),
        (
            "his move, then the copy",
            "3000 tactile lift e7\n3600 tactile place e5\n3700 tactile lift e2\n3800 tactile place e3",
        ),
        (
            "the copy around his move",
            "3000 tactile lift e2\n3400 tactile lift e7\n3600 tactile place e5\n3800 tactile place e3",
        ),
    ] {
        let steps = format!("{WHITE_E4}\n{steps}\n9000 press b\n10000 tactile lift e3\n10200 tactile place e4");
        let ev = replay_steps(hdr("da"), &steps, "fide-2009");
        // Only the squares where his copy differs; no irregularity of his
        // own move, nothing ruled (no §7 displaced piece, no illegal move).
        let irr = of(&ev, "irregularity");
        assert_eq!(irr.len(), 1, "{order}: {irr:#?}");
        assert_eq!(irr[0]["kind"], "boards_differ", "{order}");
        assert_eq!(irr[0]["article"], "E2.7", "{order}");
        assert_eq!(irr[0]["squares"], json!(["e3", "e4"]), "{order}");
        assert!(of(&ev, "illegal_move").is_empty(), "{order}: {ev:#?}");
        let moves: Vec<&Value> = of(&ev, "move");
        assert_eq!(moves.len(), 2, "{order}");
        assert_eq!(moves[1]["san"], "e5", "{order}");
        assert_eq!(moves[1]["t"], 9000, "{order}");
        // E2.3c: his move announced as soon as it stands (300 ms on the
        // board), long before his press; no "moved after announcement".
        assert_eq!(announce_t(&ev, "Bonde Erik fem"), 3900, "{order}");
        // Reported once the board is still (2 s after its last change),
        // whose board and where; the boards agree as soon as he put it right.
        assert_eq!(
            texts(&ev),
            [
                "Bonde Erik fire",
                "Bonde Erik fem",
                "Sorts bræt afviger på Erik tre og Erik fire",
                "Brætterne stemmer overens",
            ],
            "{order}"
        );
        let last_change = if order == "copy, then his move" { 3600 } else { 3800 };
        assert_eq!(irr[0]["t"], last_change + 2000, "{order}");
        assert_eq!(announce_t(&ev, "Brætterne stemmer overens"), 10200, "{order}");
    }
}

#[test]
fn a_correction_is_confirmed_at_once_and_nothing_is_repeated_while_he_corrects() {
    // Put right before his press: "the boards agree" at the peg's drop,
    // not at the next move.
    let steps = format!(
        "{WHITE_E4}
        3000 tactile lift e2
        3200 tactile place e3
        3400 tactile lift e7
        3600 tactile place e5
        6000 tactile lift e3
        6200 tactile place e4
        9000 press b"
    );
    let ev = replay_steps(hdr("da"), &steps, "fide-2009");
    assert_eq!(announce_t(&ev, "Brætterne stemmer overens"), 6200);
    assert_eq!(of(&ev, "irregularity").len(), 1, "{ev:#?}");
    // Corrected slowly: the peg held 3 s (longer than the settle time)
    // before it goes in on e4: no second "differs" while he corrects.
    let steps = format!(
        "{WHITE_E4}
        3000 tactile lift e2
        3200 tactile place e3
        3400 tactile lift e7
        3600 tactile place e5
        6000 tactile lift e3
        9000 tactile place e4
        12000 press b"
    );
    let ev = replay_steps(hdr("nb"), &steps, "fide-2009-no");
    assert_eq!(
        texts(&ev),
        [
            "Bauer Eva vier",
            "Bauer Eva fünf",
            "Svarts brett avviker på Eva drei og Eva vier",
            "Brettene stemmer overens",
        ]
    );
    assert_eq!(of(&ev, "irregularity").len(), 1, "{ev:#?}");
    assert_eq!(announce_t(&ev, "Brettene stemmer overens"), 9000);
}

#[test]
fn whose_board_differs_is_said_and_a_ruling_is_not_said_twice() {
    // White (sighted) forgets to copy Black's e5 and plays Nf3: his board
    // is named, after his move's announcement; he copies e5: they agree.
    let steps = format!(
        "{WHITE_E4}
        3000 tactile lift e2
        3200 tactile place e4
        3400 tactile lift e7
        3600 tactile place e5
        8000 press b
        10000 lift g1
        10200 place f3
        10500 press w
        13000 lift e7
        13200 place e5"
    );
    let ev = replay_steps(hdr("de"), &steps, "fide-2023");
    let t = texts(&ev);
    assert_eq!(
        &t[2..],
        [
            "Springer Felix drei",
            "Das Brett von Weiß weicht auf Eva fünf und Eva sieben ab",
            "Die Bretter stimmen überein",
        ],
        "{t:?}"
    );
    let irr = of(&ev, "irregularity");
    assert_eq!(irr.len(), 1, "{irr:#?}");
    assert_eq!(irr[0]["squares"], json!(["e5", "e7"]));
    assert_eq!(irr[0]["article"], "D.2.9");
    // White's illegal move: the ruling names the squares to put right;
    // nothing about White's board is said again, before or after.
    let steps = format!(
        "{E4_E5_COPIED}
        10000 lift g1
        10200 place g4
        10500 press w
        14000 lift g4
        14200 place g1
        20000 lift g1"
    );
    let ev = replay_steps(hdr("da"), &steps, "fide-2009");
    assert_eq!(of(&ev, "illegal_move").len(), 1);
    assert!(of(&ev, "irregularity").is_empty(), "{ev:#?}");
    assert!(
        texts(&ev)
            .iter()
            .all(|t| !t.contains("bræt") && !t.contains("Brætterne")),
        "{:?}",
        texts(&ev)
    );
}

#[test]
fn copy_errors_are_spoken_by_espeak_ng_in_each_language() {
    // The phrases a player hears in this scenario, through the real
    // espeak-ng path the speaker uses (SSML where the vocabulary gives it):
    // each is speech of a length its words take.
    if std::process::Command::new("espeak-ng")
        .arg("--version")
        .output()
        .is_err()
    {
        skip_or_fail_under_ci("espeak-ng is not installed");
        return;
    }
    let tts = eboard::voice::tts::Espeak::new();
    for (lang, rules, want) in [
        (
            "da",
            "fide-2009",
            "Sorts bræt afviger på Erik tre og Erik fire",
        ),
        (
            "nb",
            "fide-2009-no",
            "Svarts brett avviker på Eva drei og Eva vier",
        ),
        (
            "de",
            "fide-2023",
            "Das Brett von Schwarz weicht auf Eva drei und Eva vier ab",
        ),
        (
            "en",
            "fide-2023",
            "Black's board differs on Eva drei and Eva vier",
        ),
    ] {
        let steps = format!(
            "{WHITE_E4}\n3000 tactile lift e2\n3200 tactile place e3\n3400 tactile lift e7\n3600 tactile place e5\n9000 press b\n10000 tactile lift e3\n10200 tactile place e4"
        );
        let ev = replay_steps(hdr(lang), &steps, rules);
        let said = of(&ev, "announce");
        let texts: Vec<&str> = said.iter().map(|a| a["text"].as_str().unwrap()).collect();
        assert_eq!(texts[2], want, "{lang}: {texts:?}");
        for a in &said[2..] {
            let l: eboard::voice::Lang = a["lang"].as_str().unwrap().parse().unwrap();
            let s = match a["ssml"].as_str() {
                Some(ssml) => tts.synthesize_ssml(ssml, l),
                None => tts.synthesize(a["text"].as_str().unwrap(), l),
            }
            .unwrap_or_else(|e| panic!("{lang}: {}: {e}", a["text"]));
            let len = s.audio_length().as_millis() as u64;
            let words = a["text"].as_str().unwrap().split_whitespace().count() as u64;
            assert!(
                len >= 200 * words && s.first_sound.is_some(),
                "{lang}: {} is {len} ms of audio",
                a["text"]
            );
        }
    }
}
