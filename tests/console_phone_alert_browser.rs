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

mod common;

use common::console::*;
use common::*;
use std::path::{Path, PathBuf};

/// A trace `DIR/game.jsonl` (5400+30) of `steps`, then White's illegal
/// e2-e5... at `illegal_ms` when given (`from`-`to`, lifted, placed, the
/// clock pressed).
fn trace(dir: &Path, steps: &str, illegal: Option<(u64, &str, &str)>) -> PathBuf {
    let mut b = TraceBuilder::new()
        .header("time_control", "5400+30")
        .steps(steps);
    if let Some((t, from, to)) = illegal {
        b = b.lift(t, from).place(t + 200, to).press(t + 400, "w");
    }
    let p = dir.join("game.jsonl");
    std::fs::write(&p, b.text()).unwrap();
    p
}

const STEPS: &str = r##"
name, secret = sys.argv[4:6]
def yes_at(box_id):
    # Where the arbiter sees the question's "yes" (viewport px).
    return js("(() => { const y = document.getElementById(%s).querySelector('.confirm-yes'); y.scrollIntoView({block: 'center'}); const r = y.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()" % json.dumps(box_id))
def press_at(xy):
    # His finger lands where he saw it, whatever is there now.
    for t in ("mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", {"type": t, "x": xy[0], "y": xy[1], "button": "left", "clickCount": 1}, s)
def under(xy):
    return js("(() => { const e = document.elementFromPoint(%f, %f); return e ? (e.className || e.tagName) + ': ' + e.textContent.slice(0, 80) : ''; })()" % (xy[0], xy[1]))
ILLEGAL = lambda g: "!!Array.from(document.querySelectorAll('#alerts li')).find((li) => li.dataset.type === 'illegal_move' && li.dataset.game === '%s')" % g
with steps() as res:
    page(390, 844, True)
    log_in(name, secret)
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
    let Some(chrome) = chromium_and_python() else {
        return;
    };
    let dir = tempdir("console-phone-alert");
    let accounts = accounts(false);
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
    let mut boards = Vec::new();
    for (i, (steps, illegal)) in games.iter().enumerate() {
        let b = i as u32 + 1;
        let d = dir.join(format!("b{b}"));
        std::fs::create_dir_all(&d).unwrap();
        let cfg = config(&d, 1, b, &accounts);
        let t = trace(&d, steps, *illegal);
        boards.push(run_board(&d, &cfg, Some(&t), &["--speed", "1"]));
    }
    let relay = relay_over(&dir, &accounts, &boards.iter().collect::<Vec<_>>());
    let url = format!("http://{}/console", relay.addr);
    let r = run_console_steps(
        &chrome,
        &url,
        &dir,
        STEPS,
        &["IA Hansen", SECRET],
        &relay.stderr,
    );
    println!("{r:#}");
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
    drop(boards);
    std::fs::remove_dir_all(&dir).ok();
}
