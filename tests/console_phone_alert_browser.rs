//! An alert arriving while a confirmation is open on a phone (390×844) in
//! headless Chromium (ia16's "Not tried"; issue 24 §1, §3, §8), against an
//! HTTP relay and three real boards playing in real time:
//!
//! - **another board's alert**: the arbiter asked "Confirm result ½-½" on
//!   board 1.1's card and, while he reads the question, board 1.2 raises an
//!   illegal move above it. He presses where he saw "Confirm": the press
//!   lands on that button (the question has not moved under his finger),
//!   board 1.1's draw is confirmed as the question said, and nothing is
//!   ruled on board 1.2;
//! - **the same board's alert**: he asked to overrule board 1.3's rejected
//!   claim from its alert and, while he reads, board 1.3 raises an illegal
//!   move. His press applies what the question said (the claim upheld) or
//!   is refused with its reason, never another ruling.
//!
//! Skipped (with the reason printed) when Chromium or python3 is missing,
//! unless `CI` is set.

use crate::common;
use crate::console_page_or_skip;

use common::console::*;
use common::round::*;

const STEPS: &str = r##"
ILLEGAL = lambda g: "!!Array.from(document.querySelectorAll('#alerts li')).find((li) => li.dataset.type === 'illegal_move' && li.dataset.game === '%s')" % g
with steps() as res:
    console_page(390, 844, True)
    # 1. Another board's alert while "Confirm result" is asked on board 1.1.
    wait("boards.get('1.1') && boards.get('1.1').result === '1/2-1/2' && boards.get('1.1').result_status === 'provisional'", "board 1.1's draw")
    res["illegal_before"] = js(ILLEGAL("1.2"))
    click("#more-1\\.1 summary")
    click_el(button_in("#board-1\\.1", "Confirm result"))
    res["question"] = wait("document.querySelector('#reply-board-1\\\\.1 .confirm .question').textContent", "the question")
    xy = yes_at("reply-board-1.1")
    wait(ILLEGAL("1.2"), "board 1.2's illegal move", 90)
    res["under_finger"] = under(xy)
    press_at(xy)
    res["reply"] = outcome_in("reply-board-1.1")
    res["status_11"] = wait("boards.get('1.1').result_status === 'confirmed' && boards.get('1.1').result + ' ' + boards.get('1.1').result_status", "1.1 confirmed")
    js("refresh()")
    res["rulings_12"] = js("boards.get('1.2').rulings.map((r) => r.action)")
    # 2. The same board's alert while an overrule is asked on board 1.3's claim.
    CLAIM = "#alerts li[data-type='claim'][data-game='1.3'][data-open='true']"
    wait("!!document.querySelector(\"" + CLAIM + " button.ruling\")", "board 1.3's open claim", 90)
    alert_id = js("document.querySelector(\"" + CLAIM + "\").id")
    res["illegal13_before"] = js(ILLEGAL("1.3"))
    click(CLAIM + " button.ruling")
    res["question13"] = wait("document.getElementById('reply-' + %s).querySelector('.confirm .question').textContent" % json.dumps(alert_id), "the overrule question")
    xy = yes_at("reply-" + alert_id)
    wait(ILLEGAL("1.3"), "board 1.3's illegal move", 90)
    res["under_finger13"] = under(xy)
    press_at(xy)
    res["reply13"] = outcome_in("reply-" + alert_id)
    js("refresh()")
    wait("boards.get('1.3').rulings.length > 0 || /error/.test(document.getElementById('reply-' + %s).querySelector('p').className)" % json.dumps(alert_id), "1.3's outcome")
    res["rulings_13"] = js("boards.get('1.3').rulings.map((r) => r.action + ': ' + (r.effect || ''))")
    res["result_13"] = js("boards.get('1.3').result || '*'")
"##;

/// An illegal move injected after the trace: (ms on the trace clock, from, to).
type IllegalMove = (u64, &'static str, &'static str);

#[test]
fn an_alert_arriving_while_a_question_is_open_on_a_phone_changes_nothing_it_said() {
    let page = console_page_or_skip!("console-phone-alert", false);
    let (dir, accounts) = (page.dir.clone(), page.accounts.clone());
    let games: [(&str, Option<IllegalMove>); 3] = [
        // A draw by agreement, provisional until confirmed.
        (
            "1000 mv e2e4 w\n3000 mv e7e5 b\n5000 offer w\n5500 accept b\n",
            None,
        ),
        // Two moves, then White's illegal Ng1-g4 at 25 s.
        (
            "1000 mv e2e4 w\n3000 mv e7e5 b\n",
            Some((25_000, "g1", "g4")),
        ),
        // A threefold claim the board rejects, then White's illegal move at 45 s.
        (
            "1000 mv e2e4 w\n3000 mv e7e5 b\n4000 claim threefold w\n",
            Some((45_000, "g1", "g4")),
        ),
    ];
    let games = games.map(|(steps, illegal)| match illegal {
        Some((t, from, to)) => format!("{steps}{}", illegal_steps(t, from, to)),
        None => steps.to_owned(),
    });
    let games: Vec<&str> = games.iter().map(String::as_str).collect();
    let round = Round::of_steps(&dir, &accounts, &games, false);
    let boards = round.boards();
    let relay = relay_over(&dir, &accounts, &boards);
    let r = page.run(&relay, STEPS, &[]);
    let text = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
    assert_eq!(r["illegal_before"], false, "the alert came too early: {r}");
    assert!(text("question").contains("½-½"), "{r}");
    assert!(
        text("under_finger").starts_with("confirm-yes"),
        "the question moved under the arbiter's finger: {r}"
    );
    assert!(text("reply").starts_with("applied: "), "{r}");
    assert_eq!(r["status_11"], "1/2-1/2 confirmed", "{r}");
    assert_eq!(r["rulings_12"], serde_json::json!([]), "{r}");
    // The same board.
    assert_eq!(
        r["illegal13_before"], false,
        "the alert came too early: {r}"
    );
    assert!(
        text("under_finger13").starts_with("confirm-yes"),
        "the question moved under the arbiter's finger: {r}"
    );
    let reply = text("reply13");
    let rulings = r["rulings_13"].as_array().cloned().unwrap_or_default();
    if reply.starts_with("applied: ") {
        assert_eq!(rulings.len(), 1, "{r}");
        assert!(rulings[0].as_str().unwrap().starts_with("overrule"), "{r}");
        assert_eq!(r["result_13"], "1/2-1/2", "{r}");
    } else {
        assert!(
            reply.starts_with("error: Refused (409)") || reply.starts_with("error: Refused (422)"),
            "{r}"
        );
        assert!(rulings.is_empty(), "{r}");
    }
    drop(relay);
    drop(round);
    std::fs::remove_dir_all(&dir).ok();
}
