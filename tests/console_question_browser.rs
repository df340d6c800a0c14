//! Questions on a phone (390×844) in headless Chromium, against an HTTP
//! relay and real boards playing in real time (ia17's "Not tried", issue 24
//! §1, §3):
//!
//! - **Pause and Resume ask first.** A mis-tap on a phone used to resume a
//!   paused clock at once (or pause a running one): both were sent without
//!   a question. Now each asks in words of its effect ("Pause board 1.1?
//!   Both clocks stop at White …, Black …" / "Resume the clocks of board
//!   1.1? Black's clock runs again from …") and sends nothing until
//!   confirmed; Cancel sends nothing.
//! - **A question left open on an alert that another arbiter acknowledges
//!   meanwhile.** The alert used to move into the collapsed "acknowledged"
//!   list with the question in it: the question left the screen and what
//!   was under the arbiter's finger was something else. Now the alert stays
//!   where it was while the question stands (`keepInPlace` keeps the
//!   question under the finger), the press applies what the question said
//!   (or the board refuses it with its reason), and the outcome stays in
//!   sight until the arbiter moves the alert himself.
//!
//! Skipped (with the reason printed) when Chromium or python3 is missing,
//! unless `CI` is set.

use crate::common;
use crate::console_page_or_skip;

use common::console::*;
use common::round::*;

const PAUSE_STEPS: &str = r##"
STAGE = "boards.get('1.1').stage + ' ' + (boards.get('1.1').clock.running || '-')"
with steps() as res:
    console_page(390, 844, True)
    wait("boards.get('1.1') && plyOf(boards.get('1.1')) === 1 && boards.get('1.1').clock && boards.get('1.1').clock.running === 'b'", "board 1.1 after 1. e4")
    # Issue 40.9b: Pause on the card itself ("Position, rulings and history" closed);
    # its question right under the row pressed, also after a redraw.
    res["details_closed"] = js("!document.getElementById('more-1.1').open")
    # A tap on Pause: a question, nothing sent.
    click_el(button_in("#board-1\\.1", "Pause"))
    time.sleep(1.5); js("refresh()"); time.sleep(0.5)
    res["question_under_row"] = js("(() => { const b = document.getElementById('reply-board-1.1'); const p = b && b.previousElementSibling; return p ? p.className : ''; })()")
    res["pause_question"] = js("(() => { const q = document.querySelector('#reply-board-1\\\\.1 .confirm .question'); return q ? q.textContent : ''; })()")
    res["after_pause_tap"] = js(STAGE)
    if res["pause_question"]:
        click("#reply-board-1\\.1 .confirm-no")
        res["cancelled"] = js("(() => { const p = document.querySelector('#reply-board-1\\\\.1 p'); return p ? p.className + ': ' + p.textContent : ''; })()")
        res["after_cancel"] = js(STAGE)
        click_el(button_in("#board-1\\.1", "Pause"))
        confirm_in("reply-board-1.1")
    res["paused"] = outcome_in("reply-board-1.1")
    res["stage_paused"] = wait("boards.get('1.1').stage === 'paused' && " + STAGE, "board 1.1 paused")
    # A tap on Resume: a question, the board stays paused.
    click_el(button_in("#board-1\\.1", "Resume"))
    time.sleep(1.5); js("refresh()"); time.sleep(0.5)
    res["resume_question"] = js("(() => { const q = document.querySelector('#reply-board-1\\\\.1 .confirm .question'); return q ? q.textContent : ''; })()")
    res["after_resume_tap"] = js(STAGE)
    if res["resume_question"]:
        confirm_in("reply-board-1.1")
    res["resumed"] = outcome_in("reply-board-1.1")
    res["stage_resumed"] = wait("boards.get('1.1').stage === 'playing' && " + STAGE, "board 1.1 playing")
    # Nothing to resume: said, nothing sent.
    click_el(button_in("#board-1\\.1", "Resume"))
    res["nothing"] = outcome_in("reply-board-1.1")
    # Issue 40.6: White's phone rings; 0-1 declared under 11.3.2.2 from the card's form.
    click("#more-1\\.1 summary")
    res["articles"] = js("Array.from(document.getElementById('article-1.1').options).map((o) => o.value)")
    js("document.getElementById('result-1.1').value = '0-1'")
    js("document.getElementById('article-1.1').value = '11.3.2.2'")
    type_into("#reason-1\\.1", "White's phone rang")
    res["page_width"] = js("document.documentElement.scrollWidth")
    click_el(button_in("#board-1\\.1", "Declare result"))
    res["declare_question"] = confirm_in("reply-board-1.1")
    res["declare_reply"] = outcome_in("reply-board-1.1")
    res["declared"] = wait("(() => { const s = boards.get('1.1'); return s.result === '0-1' ? s.result_status + ' ' + s.result_reason + ' ' + s.result_article : ''; })()", "the declared result")
    time.sleep(1.5); js("refresh()"); time.sleep(0.5)
    # Issue 40.9a: an ended board shows no clock controls; no result waits for confirmation.
    res["clock_controls_after_end"] = js("document.querySelectorAll('#board-1\\\\.1 .clock-row, #board-1\\\\.1 .clock-set').length")
    res["end_alerts"] = js("alerts.filter((a) => a.type === 'game_end').length")
    # Issue 40.9f: an alert sent again by a restarted relay (same content, a new number) is not new.
    res["fresh_again"] = js("(() => { const a = {id: 900, key: 'k-40-9f', type: 'flag'}; const n1 = freshAlerts([a]).length; const n2 = freshAlerts([Object.assign({}, a, {id: 1})]).length; const n3 = freshAlerts([{id: 900, key: 'k-other', type: 'flag'}]).length; return [n1, n2, n3]; })()")
    # Issue 40.9e: the offline alert names its reason, or that none came (an MQTT last
    # will without one); a ruling for a board the relay knows offline says so on the card,
    # not a bare "Sending…" (the request itself held back here: nothing reaches the board).
    res["offline_mqtt"] = js("describe({type: 'board_offline', game: '1.1', topic: 'eboard/dm/board/1/status', reason: null})")
    res["offline_http"] = js("describe({type: 'board_offline', game: '1.1', base: 'http://10.0.0.3:8080', reason: 'the board does not answer'})")
    res["offline_sending"] = js("(() => { const real = api; api = () => new Promise(() => {}); offline.add('1.1'); send('1.1', 'pause', null, null, 'reply-board-1.1'); const r = replies.get('reply-board-1.1'); offline.delete('1.1'); api = real; return r ? r[0] : ''; })()")
"##;

/// Pause and Resume ask first, in words of their effect; a tap sends nothing.
#[test]
fn pause_and_resume_ask_first_in_words_of_their_effect_on_a_phone() {
    let page = console_page_or_skip!("console-pause-question", false);
    let (dir, accounts) = (page.dir.clone(), page.accounts.clone());
    let round = Round::of_steps(&dir, &accounts, &["1000 mv e2e4 w\n"], true);
    let relay = relay_over(&dir, &accounts, &round.boards());
    let r = page.run(&relay, PAUSE_STEPS, &[]);
    let text = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
    assert_eq!(
        r["after_pause_tap"], "playing b",
        "a tap on Pause stopped the clocks at once: {r}"
    );
    assert_eq!(r["details_closed"], true, "{r}");
    assert_eq!(
        r["question_under_row"], "rulings clock-row",
        "issue 40.9b: the question where the arbiter pressed: {r}"
    );
    let q = text("pause_question");
    assert!(
        q.starts_with("Pause board 1.1? Both clocks stop at White 1:")
            && q.contains(", Black 1:")
            && q.contains("Black's runs on until you confirm"),
        "{r}"
    );
    assert_eq!(r["cancelled"], "reply: Cancelled: nothing was sent.", "{r}");
    assert_eq!(r["after_cancel"], "playing b", "{r}");
    assert!(
        text("paused")
            .starts_with("applied: Applied on board 1.1 by IA Hansen: both clocks stopped"),
        "{r}"
    );
    assert_eq!(r["stage_paused"], "paused -", "{r}");
    assert_eq!(
        r["after_resume_tap"], "paused -",
        "a tap on Resume started the clocks at once: {r}"
    );
    let q = text("resume_question");
    assert!(
        q.starts_with("Resume the clocks of board 1.1? Black's clock runs again from 1:")
            && q.contains("(White 1:"),
        "{r}"
    );
    assert!(
        text("resumed")
            .starts_with("applied: Applied on board 1.1 by IA Hansen: Black's clock runs again"),
        "{r}"
    );
    assert_eq!(r["stage_resumed"], "playing b", "{r}");
    assert!(
        text("nothing").starts_with("error: Board 1.1: the clocks already run (Black's")
            && text("nothing").ends_with("nothing to resume; nothing sent"),
        "{r}"
    );
    // One pause, one resume: nothing sent by the taps, the cancel or the last press.
    let rulings: Vec<String> = round
        .records(1)
        .into_iter()
        .filter_map(|v| v["arbiter"].as_str().map(str::to_owned))
        .collect();
    // Issue 40.6: the article offered, asked first, confirmed by the act.
    let articles = r["articles"].as_array().unwrap();
    assert!(
        articles[0] == "" && articles.iter().any(|a| a == "11.3.2.2"),
        "{r}"
    );
    let q = text("declare_question");
    assert!(
        q.contains("→ 0-1 under 11.3.2.2 — an electronic device")
            && q.contains("confirmed at once (White's phone rang)?"),
        "{r}"
    );
    assert!(
        text("declare_reply").starts_with(
            "applied: Applied on board 1.1 by IA Hansen: the game ends 0-1 (rules_infraction), confirmed as declared"
        ),
        "{r}"
    );
    assert_eq!(r["declared"], "confirmed rules_infraction 11.3.2.2", "{r}");
    assert!(
        r["page_width"].as_u64().is_some_and(|w| w <= 390),
        "the article's list keeps the page within the phone's width: {r}"
    );
    assert_eq!(r["clock_controls_after_end"], 0, "issue 40.9a: {r}");
    assert_eq!(r["end_alerts"], 0, "no result to confirm: {r}");
    assert_eq!(
        r["fresh_again"],
        serde_json::json!([1, 0, 1]),
        "issue 40.9f: named by content, not by the relay's number: {r}"
    );
    assert_eq!(
        r["offline_mqtt"],
        "eboard/dm/board/1/status: no reason given (the board's link was lost without a word: power, network or a crash)",
        "issue 40.9e: {r}"
    );
    assert_eq!(
        r["offline_http"], "http://10.0.0.3:8080: the board does not answer",
        "{r}"
    );
    assert!(
        text("offline_sending").starts_with("Board 1.1 is offline (see its alert): pause is sent, but the board can apply it only once it is back"),
        "issue 40.9e: a ruling for an offline board says so: {r}"
    );
    assert_eq!(rulings, ["pause", "resume", "result"], "{r}");
    drop(relay);
    drop(round);
    std::fs::remove_dir_all(&dir).ok();
}

const ACK_STEPS: &str = r##"
import http.client
other, other_secret, relay = sys.argv[6:9]
def other_session(method, path, body, cookie=None):
    # The other arbiter, on his own phone: his own session at the relay.
    c = http.client.HTTPConnection(relay, timeout=10)
    h = {"Content-Type": "application/json"}
    if cookie: h["Cookie"] = cookie
    c.request(method, path, json.dumps(body), h)
    r = c.getresponse(); data = r.read().decode()
    return r.status, r.getheader("Set-Cookie"), data
ALERT = lambda g: "Array.from(document.querySelectorAll('#alerts li')).find((li) => li.dataset.type === 'illegal_move' && li.dataset.game === '%s' && li.dataset.open === 'true' && li.querySelector('button.ruling'))" % g
with steps() as res:
    console_page(390, 844, True)
    wait("!!" + ALERT("1.1") + " && !!" + ALERT("1.2"), "both illegal moves", 60)
    li = js(ALERT("1.2") + ".id")
    aid = int(li.split("-")[1]); box = "reply-" + li
    res["order"] = js("Array.from(document.querySelectorAll('#alerts li')).map((l) => l.dataset.game + ' ' + l.dataset.type)")
    button = js(ALERT("1.2") + ".querySelector('button.ruling').dataset.action")
    res["action"] = button
    click_el(ALERT("1.2") + ".querySelector('button.ruling')")
    res["question"] = wait("document.getElementById(%s).querySelector('.confirm .question').textContent" % json.dumps(box), "the question")
    xy = yes_at(box)
    # Meanwhile the other arbiter acknowledges the alert on his phone.
    st, cookie, body = other_session("POST", "/console/login", {"name": other, "secret": other_secret})
    res["other_login"] = st
    st, _, body = other_session("POST", "/console/ack", {"id": aid}, cookie.split(";")[0])
    res["other_ack"] = st
    js("refresh()")
    wait("(() => { const a = alerts.find((a) => a.id === %d); return a && a.ack; })()" % aid, "the acknowledgement on this page")
    time.sleep(0.5)
    res["question_in_open_list"] = js("!!document.querySelector('#alerts #' + CSS.escape(%s) + ' .confirm')" % json.dumps(box))
    res["under_finger"] = under(xy)
    res["held_note"] = js("(() => { const p = document.querySelector('#' + CSS.escape(%s) + ' p.held'); return p ? p.textContent : ''; })()" % json.dumps(li))
    press_at(xy)
    res["reply"] = js("(() => { const b = document.getElementById(%s); return b ? b.textContent : ''; })()" % json.dumps(box))
    if js("!!document.getElementById(%s) && !!document.getElementById(%s).querySelector('p.reply')" % (json.dumps(box), json.dumps(box))):
        res["reply"] = outcome_in(box)
    time.sleep(1); js("refresh()"); time.sleep(0.5)
    res["outcome_in_open_list"] = js("!!document.querySelector('#alerts #' + CSS.escape(%s) + ' p.reply')" % json.dumps(box))
    res["questions_open"] = js("Array.from(pending.keys())")
    res["rulings_11"] = js("boards.get('1.1').rulings.map((r) => r.action)")
    res["rulings_12"] = js("boards.get('1.2').rulings.map((r) => r.action + ': ' + (r.effect || ''))")
    # Moved by the arbiter himself: into the collapsed list.
    if js("!!document.querySelector('#' + CSS.escape(%s) + ' button.collapse')" % json.dumps(li)):
        click("#" + li + " button.collapse")
        time.sleep(0.3)
    res["finally_acked_list"] = js("!!document.querySelector('#acked-list #' + CSS.escape(%s))" % json.dumps(li))
"##;

/// A question open on an alert that another arbiter acknowledges meanwhile.
#[test]
fn a_question_on_an_alert_acknowledged_elsewhere_stays_under_the_finger() {
    let page = console_page_or_skip!("console-ack-question", false);
    let dir = page.dir.clone();
    let other_secret = "second arbiter at the far tables";
    let accounts = format!(
        "{}\n{}",
        named_account("FA Jensen", other_secret),
        page.accounts
    );
    // Two boards, each with White's illegal Ng1-g4: 1.2's the newer, on top.
    let games = [12_000, 15_000].map(|at| {
        format!(
            "1000 mv e2e4 w\n3000 mv e7e5 b\n{}",
            illegal_steps(at, "g1", "g4")
        )
    });
    let round = Round::of_steps(
        &dir,
        &accounts,
        &games.each_ref().map(String::as_str),
        false,
    );
    let boards = round.boards();
    let relay = relay_over(&dir, &accounts, &boards);
    let r = page.run(&relay, ACK_STEPS, &["FA Jensen", other_secret, &relay.addr]);
    let text = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
    assert_eq!(r["other_login"], 200, "{r}");
    assert_eq!(r["other_ack"], 200, "{r}");
    assert_eq!(
        r["question_in_open_list"], true,
        "the question left the open list with the alert: {r}"
    );
    assert!(
        text("under_finger").starts_with("confirm-yes"),
        "the question moved from under the arbiter's finger: {r}"
    );
    assert!(text("held_note").starts_with("Kept here"), "{r}");
    // What the question said, or nothing with the board's reason.
    let reply = text("reply");
    let rulings = r["rulings_12"].as_array().cloned().unwrap_or_default();
    if reply.starts_with("applied: ") {
        assert_eq!(rulings.len(), 1, "{r}");
        assert!(
            rulings[0]
                .as_str()
                .unwrap()
                .starts_with(&format!("{}:", text("action"))),
            "{r}"
        );
    } else {
        assert!(
            reply.starts_with("error: Refused (409)") || reply.starts_with("error: Refused (422)"),
            "{r}"
        );
        assert!(rulings.is_empty(), "{r}");
    }
    assert_eq!(r["rulings_11"], serde_json::json!([]), "{r}");
    assert_eq!(r["questions_open"], serde_json::json!([]), "{r}");
    assert_eq!(
        r["outcome_in_open_list"], true,
        "the outcome left the screen: {r}"
    );
    assert_eq!(r["finally_acked_list"], true, "{r}");
    drop(relay);
    drop(round);
    std::fs::remove_dir_all(&dir).ok();
}
