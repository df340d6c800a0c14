//! The whole loop in a real browser (issue 15 §5): three board daemons and an
//! HTTP relay on loopback; headless Chromium, driven over the DevTools
//! protocol (`--remote-debugging-pipe`, as `live_page_a11y.rs`), opens the
//! relay's console, logs in, sees an illegal move on board 2 arrive as an
//! alert (announced in the assertive live region, the squares to correct
//! marked, only the restore offered: the board gave the penalty), presses
//! it (asked first, then applied); board 2's journal and the public feed
//! then show the ruling with the arbiter's name. A deputy, logged in on the
//! same page, sees it read-only: no live button. And (ia14) on a board's
//! own console: a quickplay-finish claim referred to the arbiter, and a
//! side game left out of the results TRF. Skipped (with the reason
//! printed) when Chromium or python3 is missing, unless `CI` is set.

use crate::common;
use crate::console_page_or_skip;

use common::console::*;
use common::round::*;
use common::*;
use serde_json::Value;

/// Drives the console: log in as `argv[4]`/`argv[5]`, wait for the illegal
/// move alert of board 1.2 (open: the board gave the penalty and waits for
/// the position: only "restore" is offered), press it: the question,
/// confirmed, the reply; then log out, log
/// in as the deputy (`argv[6]`/`argv[7]`) and count the live buttons.
/// Prints `{"announce", "reply", "deputy_buttons", "who", …}` as JSON.
const CDP_PY: &str = r##"
dname, dsecret = sys.argv[6:8]
ALERT = "#alerts li[data-type='illegal_move'][data-game='1.2']"
with steps() as res:
    console_page(412, 915, True)
    who = js("document.getElementById('who').textContent")
    heading = wait("document.getElementById('board-title-1.2').textContent", "board 1.2's card")
    # The alert arrives after the login (board 2's illegal move is a few seconds into its game).
    wait("!!document.querySelector(\"" + ALERT + "[data-open='true']\")", "the illegal-move alert of board 1.2", 90)
    announce = wait("document.getElementById('announce').textContent", "the live region's words")
    marked = js("document.querySelectorAll(\"" + ALERT + " td.fix\").length")
    offered = js("Array.from(document.querySelectorAll(\"" + ALERT + " button.ruling\")).map((b) => b.dataset.action)")
    live_attr = js("document.getElementById('announce').getAttribute('aria-live')")
    box = "reply-" + js("document.querySelector(\"" + ALERT + "\").id")
    click(ALERT + " button.ruling[data-action='restore']")
    question = confirm_in(box)
    applied = outcome_in(box)
    click("#logout")
    log_in(dname, dsecret)
    dwho = js("document.getElementById('who').textContent")
    outcome = wait("(() => { const o = document.querySelector(\"" + ALERT + " .outcome\"); return o ? o.textContent : ''; })()", "the alert's outcome for the deputy")
    deputy_buttons = js("document.querySelectorAll('#desk button').length")
    res.update({"who": who, "heading": heading, "announce": announce, "reply": applied, "offered": offered,
        "marked_squares": marked, "live": live_attr, "deputy_who": dwho, "deputy_buttons": deputy_buttons, "question": question,
        "outcome": outcome})
"##;

#[test]
fn an_arbiter_rules_from_the_relays_console_in_chromium() {
    let page = console_page_or_skip!("console-browser", true);
    let (dir, accounts) = (page.dir.clone(), page.accounts.clone());
    let mut publics = Vec::new();
    let round = Round::start(&dir, &accounts, 3, |t| {
        let trace = if t.n == 2 {
            // The arbiter must restore it.
            illegal_trace(&t.dir, 12_000)
        } else {
            opera_trace(&t.dir, u64::from(t.n))
        };
        let run = t.run(Some(&trace), "1", true);
        publics.push(SseReader::open(&run.addr, "/events", &[]));
        run
    });
    let relay = relay_over(&dir, &accounts, &round.boards());
    let relay_public = SseReader::open(&relay.addr, "/events", &[]);

    let r = page.run(&relay, CDP_PY, &["Deputy Dam", DEPUTY_SECRET]);
    assert!(
        r["who"].as_str().unwrap().contains("IA Hansen (arbiter)"),
        "{r}"
    );
    // The players as the pairing list prints them: title, name.
    assert!(
        r["heading"]
            .as_str()
            .unwrap()
            .starts_with("Board 1.2: GM Morphy, Paul – Karl, Duke"),
        "{r}"
    );
    let announce = r["announce"].as_str().unwrap();
    assert!(announce.contains("Illegal move on board 1.2"), "{r}");
    assert_eq!(r["live"], "assertive");
    assert!(
        r["marked_squares"].as_u64().unwrap() >= 1,
        "the squares to correct: {r}"
    );
    assert_eq!(
        r["offered"],
        serde_json::json!(["restore", "withdraw"]),
        "the position, and the penalty's withdrawal (issue 40), never the penalty twice: {r}"
    );
    let reply = r["reply"].as_str().unwrap();
    assert!(
        reply.starts_with("applied: Applied on board 1.2 by IA Hansen"),
        "{r}"
    );
    assert!(
        r["deputy_who"].as_str().unwrap().contains("read-only"),
        "{r}"
    );
    // The decided alert says so, with no live button.
    assert!(
        r["outcome"]
            .as_str()
            .unwrap()
            .starts_with("Decided: restore by IA Hansen"),
        "{r}"
    );
    // The deputy sees the page read-only: no live button at all.
    assert_eq!(r["deputy_buttons"], 0, "{r}");
    let q = r["question"].as_str().unwrap();
    assert!(q.starts_with("Board 1.2: ") && q.ends_with('?'), "{r}");

    // Board 2's journal: the restore, authored by the arbiter, once.
    let rulings: Vec<Value> = round
        .records(2)
        .into_iter()
        .filter(|v| v["arbiter"] == "restore")
        .collect();
    assert_eq!(rulings.len(), 1, "{rulings:?}");
    assert_eq!(rulings[0]["author"], "IA Hansen");
    assert_eq!(
        rulings[0]["expect"]["ply"], 0,
        "bound to what he saw: {rulings:?}"
    );
    // Board 2's public feed and the relay's: the ruling with his name.
    for feed in [&publics[1], &relay_public] {
        let msgs = feed.until(30, |v| v["type"] == "ruling");
        let ruling = &msgs.last().unwrap().1;
        assert_eq!(ruling["game"], "1.2");
        assert_eq!(ruling["action"], "restore");
        assert_eq!(ruling["author"], "IA Hansen");
    }
    std::fs::remove_dir_all(&dir).ok();
}

const REFERRED_STEPS: &str = r##"
with steps() as res:
    console_page(1280, 800, False)
    A = "#alerts li[data-type='claim'][data-game='1.1'][data-open='true']"
    wait("document.querySelectorAll(\"" + A + " button.ruling\").length === 2", "the referred claim", 90)
    aid = js("document.querySelector(\"" + A + "\").id")
    res["text"] = js("document.querySelector(\"" + A + "\").textContent")
    res["heading"] = js("document.querySelector(\"" + A + " h3\").textContent")
    res["alert_ms"] = js("alerts.find((a) => 'alert-' + a.id === '" + aid + "').unix_ms")
    res["status"] = wait("/Updated/.test(document.getElementById('status').textContent) && document.getElementById('status').textContent", "the status line")
    res["buttons"] = js("Array.from(document.querySelectorAll(\"" + A + " button.ruling\")).map((b) => b.textContent)")
    click(A + " button.ruling[data-action='reject']")
    res["question"] = confirm_in("reply-" + aid)
    res["reply"] = outcome_in("reply-" + aid)
    click("#results-trf")
    res["note"] = wait("/saved|refused/.test(document.getElementById('paperwork-note').textContent) && document.getElementById('paperwork-note').textContent", "the results TRF's note")
"##;

/// ia14, on the board's own console: a quickplay-finish claim (2009
/// §10.2, 15 min without increment), which the board refers to the
/// arbiter, is said so (not "the board rejected it") with what the Laws
/// give him, "Uphold: draw" and "Reject: +2 min to Black"; Reject is
/// applied. Then "Results TRF-16" on a game whose players are not in the
/// pairings (a side game): the page says it was left out, by whom (it was
/// a 422 for the whole file, which the download link never showed).
/// And (issue 40 §9) the page's times are the event's (`[event] time_zone
/// = "America/New_York"`, not the machine's UTC nor the browser's), 24-hour
/// `HH:MM:SS`, and the page says the zone once.
#[test]
fn a_referred_quickplay_claim_and_a_side_game_left_out_of_the_trf_in_chromium() {
    let page = console_page_or_skip!("console-referred-browser", false);
    let dir = page.dir.clone();
    let cfg = dir.join("board.toml");
    let trf = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/pairings-open-2026.trf"
    );
    std::fs::write(
        &cfg,
        format!(
            "[event]\nname = \"DM 2026\"\nrules = \"fide-2009\"\nmode = \"rapid\"\ntime_control = \"900\"\ntime_zone = \"America/New_York\"\n\n\
             [game]\nround = 1\nboard = 1\n\n[game.white]\nname = \"Lyn, Lars\"\n\n[game.black]\nname = \"Blitz, Bo\"\n\n\
             [arbiter]\ntoken = \"7f3c9a1e5b2d4c6e8a0b1c2d3e4f5a6b\"\npairings = \"{trf}\"\n{}",
            page.accounts
        ),
    )
    .unwrap();
    // White, on move with 1:51 left, claims (the clocks stop).
    let steps = "1000 mv e2e4 w\n2000 mv e7e5 b\n790000 claim insufficient_losing_chances w\n";
    let t = steps_trace(&dir, "game", "900", steps);
    let board = run_board(&dir, &cfg, Some(&t), &["--speed", "100"]);
    let r = page.run(&board, REFERRED_STEPS, &[]);
    let text = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
    assert!(
        text("text").contains("not decided by the board: referred to the arbiter")
            && !text("text").contains("rejected it"),
        "{r}"
    );
    assert_eq!(
        r["buttons"],
        serde_json::json!(["Uphold: draw (10.2)…", "Reject: +2 min to Black (10.2)…"]),
        "{r}"
    );
    // The alert's time in the event's zone, 24-hour, as the server writes it.
    let ms = r["alert_ms"].as_u64().expect("the alert's unix_ms");
    let zone = eboard::config::zone::EventZone::named("America/New_York").unwrap();
    assert!(
        text("heading").ends_with(&format!(" · {}", zone.time(ms))),
        "24-hour, in America/New_York: {r}"
    );
    assert!(
        text("status").contains("times in America/New_York, 24-hour"),
        "{r}"
    );
    let (q, reply) = (text("question"), text("reply"));
    assert!(
        q.contains("+2 min to Black") && reply.starts_with("applied: "),
        "{r}"
    );
    assert!(
        reply.contains("the claim is rejected: +2 min to Black (10.2)")
            && !reply.contains("(10.2) (10.2)"),
        "the article once: {r}"
    );
    assert!(
        text("note").contains(
            "Left out, not games of the pairings file: 1.1 (Lyn, Lars - Blitz, Bo: neither \
             player is in the file's player records (001))"
        ),
        "{r}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
