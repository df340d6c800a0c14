//! The round at a glance on a tablet and a phone (issue 24 §8), in headless
//! Chromium against an HTTP relay following 20 real boards:
//!
//! - at 1280×800 the overview of all 20 boards (players, both clocks
//!   running, state, last move) fits the viewport without scrolling;
//! - an illegal move on board 1.2: a sound, a vibration, the open count in
//!   the page's title, the words in the assertive live region;
//! - at 390×844 (a phone) the open alert is on the first screen and nothing
//!   scrolls sideways; acknowledged, it goes into the collapsed
//!   "Acknowledged" list and the title's count goes;
//! - the relay killed and started again: the alert still shows the time it
//!   happened on the board, not the restart's.
//!
//! Skipped (with the reason printed) when Chromium or python3 is missing,
//! unless `CI` is set.

use crate::common;
use crate::console_page_or_skip;

use common::console::*;
use common::round::*;
use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

const BOARDS: u32 = 20;

/// Table `t`'s trace: quiet pawn moves, one every `gap_ms` from `from_ms`
/// (a game that goes on).
fn quiet_trace(t: &Table, from_ms: u64, gap_ms: u64) -> std::path::PathBuf {
    t.trace(TIME_CONTROL, &quiet_steps(from_ms, gap_ms, 10))
}

/// Stubs installed before the page's script: the vibrations and sounds it makes.
const STUBS: &str = r#"
window.__vibrations = [];
Object.defineProperty(navigator, "vibrate", { value: (p) => { window.__vibrations.push(p); return true; }, configurable: true });
window.__beeps = 0;
window.AudioContext = class { constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() { return { frequency: {}, connect() {}, start() { window.__beeps++; }, stop() {} }; }
  createGain() { return { gain: {}, connect() {} }; } };
"#;

const CDP_STEPS: &str = r##"
stubs = sys.argv[6]
ALERT = "#alerts li[data-type='illegal_move'][data-game='1.2']"
with steps() as res:
    console_page(1280, 800, False, before=stubs)
    wait("document.querySelectorAll('#overview li').length === 20 && Array.from(document.querySelectorAll('#overview .clk')).every((c) => /^[WB] \\d/.test(c.textContent))", "20 boards with their clocks")
    wait("boards.get('1.1').moves && boards.get('1.1').moves.length > 0", "a move on board 1.1")
    js("window.scrollTo(0, 0)")
    res["tablet"] = js("""(() => { const r = Array.from(document.querySelectorAll('#overview li')).map((li) => li.getBoundingClientRect());
        return { bottom: Math.max(...r.map((x) => x.bottom)), top: Math.min(...r.map((x) => x.top)), right: Math.max(...r.map((x) => x.right)) }; })()""")
    res["tile"] = js("document.getElementById('ov-1.1').innerText")
    clock = js("document.querySelector('#ov-1\\\\.1 .clk.running').textContent")
    res["ticks"] = wait("document.querySelector('#ov-1\\\\.1 .clk.running').textContent !== %s" % json.dumps(clock), "board 1.1's running clock to tick", 10)
    # The illegal move on board 1.2 (after the login: a new alert).
    wait("!!document.querySelector(\"" + ALERT + "\")", "board 1.2's illegal move", 90)
    res["title"] = js("document.title")
    res["vibrations"] = js("window.__vibrations.length")
    res["beeps"] = js("window.__beeps")
    res["announce"] = js("document.getElementById('announce').textContent")
    res["heading"] = js("document.querySelector(\"" + ALERT + " h3\").textContent")
    res["unix_ms"] = js("alerts.find((a) => a.type === 'illegal_move' && a.game === '1.2').unix_ms")
    res["tile_alert"] = js("document.getElementById('ov-1.2').className")
    res["shot_tablet"] = shot("console-1280x800")
    # The phone.
    viewport(390, 844, True)
    wait("window.innerWidth === 390", "the phone's viewport")
    js("window.scrollTo(0, 0)")
    res["phone"] = js("""(() => { const a = document.querySelector("%s").getBoundingClientRect();
        return { top: a.top, bottom: a.bottom, width: document.documentElement.scrollWidth }; })()""" % ALERT.replace('"', '\\"'))
    res["shot_phone"] = shot("console-390x844")
    click(ALERT + " button.ack")
    wait("!document.querySelector(\"" + ALERT + "\") && !!document.querySelector(\"#acked-list li[data-game='1.2']\")", "the alert acknowledged")
    # Open alerts first: the open list above the acknowledged one (and both above the overview).
    res["order"] = js("""(() => { const y = (id) => document.getElementById(id).getBoundingClientRect().top;
        return { alerts: y('alerts'), acked: y('acked'), overview: y('overview') }; })()""")
    res["acked_open"] = js("document.getElementById('acked').open")
    res["acked_visible"] = js("document.querySelector(\"#acked-list li[data-game='1.2']\").checkVisibility()")
    res["acked_ack_buttons"] = js("document.querySelectorAll(\"#acked-list li[data-game='1.2'] button.ack\").length")
    res["title_after"] = js("document.title")
    # The relay is started again: the alert keeps its time.
    print("RESTART", flush=True)
    if sys.stdin.readline().strip() != "GO": raise SystemExit("no restart")
    call("Page.reload", {}, s)
    log_in(name, secret)
    ACKED = "#acked-list li[data-type='illegal_move'][data-game='1.2']"
    wait("!!document.querySelector(\"" + ACKED + "\")", "the alert after the relay's restart", 60)
    res["heading_after"] = js("document.querySelector(\"" + ACKED + " h3\").textContent")
    res["unix_ms_after"] = js("alerts.find((a) => a.type === 'illegal_move' && a.game === '1.2').unix_ms")
"##;

#[test]
fn the_round_at_a_glance_on_a_tablet_and_a_phone_in_chromium() {
    let page = console_page_or_skip!("console-overview-browser", false);
    let (dir, accounts) = (page.dir.clone(), page.accounts.clone());
    // Board 2 last: its illegal move comes 25 s after its start, after the login.
    let mut order: Vec<u32> = (1..=BOARDS).filter(|&b| b != 2).collect();
    order.push(2);
    let mut boards = Vec::new();
    for b in order {
        let t = Table::new(&dir, b, &accounts);
        let trace = if b == 2 {
            illegal_trace(&t.dir, 25_000)
        } else {
            quiet_trace(&t, 1000 + u64::from(b) * 100, 20_000)
        };
        boards.push((b, t.run(Some(&trace), "1", false)));
    }
    boards.sort_by_key(|(b, _)| *b);
    let running: Vec<&Running> = boards.iter().map(|(_, r)| r).collect();
    let relay_spec = HttpRelay::new(&dir, &accounts, &board_urls(&running));
    let addr = free_loopback_addr();
    let start_relay = || relay_spec.start_at(&addr);
    let mut relay = start_relay();

    let url = format!("http://{addr}/console");
    let mut py = steps_command(
        &page.chrome,
        &url,
        &dir,
        CDP_STEPS,
        &["IA Hansen", SECRET, STUBS],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(std::fs::File::create(dir.join("python-stderr.txt")).unwrap())
    .spawn()
    .expect("run python3");
    let mut lines = BufReader::new(py.stdout.take().unwrap()).lines();
    let mut last = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line == "RESTART" {
            // When the relay's restart comes is no alert's time.
            let killed_at = unix_ms();
            relay.kill();
            poll(10, "a second after the kill", || {
                (unix_ms() > killed_at + 1500).then_some(())
            });
            relay = start_relay();
            writeln!(py.stdin.as_mut().unwrap(), "GO").unwrap();
            continue;
        }
        last = line;
    }
    let status = py.wait().unwrap();
    assert!(
        status.success(),
        "the browser run failed: {}\nso far: {last}\nrelay: {}",
        std::fs::read_to_string(dir.join("python-stderr.txt")).unwrap_or_default(),
        std::fs::read_to_string(&relay.stderr).unwrap_or_default()
    );
    let r: Value = serde_json::from_str(&last).unwrap();
    println!("{r:#}");
    let text = |k: &str| r[k].as_str().unwrap_or_default().to_owned();

    // The tablet: 20 boards in the viewport, each with what matters.
    let t = &r["tablet"];
    assert!(t["top"].as_f64().unwrap() >= 0.0, "{r}");
    assert!(
        t["bottom"].as_f64().unwrap() <= 800.0,
        "20 boards on one screen: {r}"
    );
    assert!(t["right"].as_f64().unwrap() <= 1280.0, "{r}");
    // (innerText: as shown, the state in capitals.)
    let tile = text("tile").to_lowercase();
    for part in [
        "1.1",
        "gm morphy, paul",
        "karl, duke",
        "w 1:",
        "b 1:",
        "playing",
        "1. a3",
    ] {
        assert!(
            tile.contains(part),
            "{part:?} missing in the overview: {tile}"
        );
    }
    assert!(r["ticks"].as_bool().unwrap(), "the clock runs: {r}");
    // The new alert: title, sound, vibration, words.
    assert!(text("title").starts_with("(1) "), "{r}");
    assert!(r["vibrations"].as_u64().unwrap() >= 1, "{r}");
    assert!(r["beeps"].as_u64().unwrap() >= 1, "{r}");
    assert!(
        text("announce").contains("Illegal move on board 1.2"),
        "{r}"
    );
    assert!(text("tile_alert").contains("has-alert"), "{r}");
    // The phone: the open alert on the first screen, nothing sideways.
    let p = &r["phone"];
    assert!(p["top"].as_f64().unwrap() >= 0.0, "{r}");
    assert!(
        p["top"].as_f64().unwrap() < 844.0,
        "the open alert below the first screen: {r}"
    );
    assert!(
        p["width"].as_f64().unwrap() <= 391.0,
        "the page scrolls sideways: {r}"
    );
    let o = &r["order"];
    let y = |k: &str| o[k].as_f64().unwrap_or_else(|| panic!("{k}: {r}"));
    assert!(
        y("alerts") <= y("acked") && y("acked") < y("overview"),
        "open alerts first, then the acknowledged, then the overview: {r}"
    );
    assert_eq!(r["acked_open"], false, "acknowledged alerts collapsed: {r}");
    assert_eq!(r["acked_visible"], false, "{r}");
    // Acknowledged: no "Acknowledge" left on it (ia18's held-alert change
    // gave one back to every acknowledged alert).
    assert_eq!(r["acked_ack_buttons"], 0, "{r}");
    assert!(!text("title_after").starts_with('('), "{r}");
    // After the relay's restart: the time it happened.
    assert_eq!(r["unix_ms_after"], r["unix_ms"], "{r}");
    assert_eq!(r["heading_after"], r["heading"], "{r}");
    drop(relay);
    // The screenshots outlive the test's directory (docs/console.md shows
    // them): the temporary directory's eboard-console-*.png.
    for key in ["shot_tablet", "shot_phone"] {
        let made = std::path::PathBuf::from(text(key));
        let kept = std::env::temp_dir().join(format!(
            "eboard-{}",
            made.file_name().unwrap().to_string_lossy()
        ));
        std::fs::copy(&made, &kept).unwrap_or_else(|e| panic!("{}: {e}", made.display()));
    }
    std::fs::remove_dir_all(&dir).ok();
}

const FIRE_ALARM_STEPS: &str = r##"
dep_name, dep_secret = sys.argv[6:8]
with steps() as res:
    console_page(390, 844, True)
    wait("document.querySelectorAll('#overview li').length === 3 && Array.from(boards.values()).every((s) => s.clock && s.clock.running)", "3 boards with a running clock")
    res["overflow"] = js("document.documentElement.scrollWidth - window.innerWidth")
    click_el(button_in("#round-controls", "Pause every board"))
    res["pause_question"] = confirm_in("reply-round")
    res["pause_reply"] = outcome_in("reply-round")
    wait("Array.from(boards.values()).every((s) => s.stage === 'paused')", "every board paused")
    res["stages"] = js("Array.from(document.querySelectorAll('#overview .stage')).map((e) => e.textContent)")
    # Nothing more to pause: said, nothing sent.
    click_el(button_in("#round-controls", "Pause every board"))
    res["nothing"] = outcome_in("reply-round")
    click_el(button_in("#round-controls", "Resume every board"))
    # An alert arriving above the question while the arbiter reads it (the
    # board's "press during pause" every 20 s, as seen in session 13): the
    # question stays where it is on the screen, not moved under his finger.
    wait("document.querySelector('#reply-round .confirm-yes') !== null", "the resume question")
    top = "document.querySelector('#reply-round .confirm').getBoundingClientRect().top"
    res["question_top"] = js(top)
    js("""(() => { const real = window.fetch; window.fetch = async (p, o) => {
        const r = await real(p, o);
        if (p !== '/console/alerts' || r.status !== 200) return r;
        const a = await r.json();
        a.unshift({ id: 'arriving', type: 'irregularity', game: '1.2', unix_ms: Date.now(), ack: null, resolved: null,
          event: { type: 'irregularity', t: 1, kind: 'displaced_pieces', article: '7.4', squares: [] } });
        return new Response(JSON.stringify(a), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }; schedule(); })()""")
    wait("document.getElementById('alert-arriving') !== null", "the arriving alert")
    res["arrived_above"] = js("document.getElementById('alert-arriving').getBoundingClientRect().height")
    res["question_moved"] = js(top + " - " + json.dumps(res["question_top"]))
    res["resume_question"] = confirm_in("reply-round")
    res["resume_reply"] = outcome_in("reply-round")
    wait("Array.from(boards.values()).every((s) => s.clock && s.clock.running && s.stage !== 'paused')", "every board running again")
    # The deputy: no round-wide control.
    js("fetch('/console/logout', {method: 'POST'})")
    page(390, 844, True)
    log_in(dep_name, dep_secret)
    wait("document.querySelectorAll('#overview li').length === 3", "the deputy's overview")
    res["deputy_controls"] = js("document.querySelectorAll('#round-controls button').length")
"##;

/// A fire alarm (2009 §6.12a / 2023 6.11.1): on a phone (390×844) one
/// "Pause every board…" stops the clocks of every board after one question
/// naming them, the reply lists each board's outcome; pressed again it
/// says there is nothing to pause and sends nothing; "Resume every
/// board…" starts them again. The deputy has neither control.
#[test]
fn a_fire_alarm_pauses_and_resumes_every_board_from_a_phone_in_chromium() {
    let page = console_page_or_skip!("console-fire-alarm", true);
    let (dir, accounts) = (page.dir.clone(), page.accounts.clone());
    let round = Round::start(&dir, &accounts, 3, |t| {
        let trace = quiet_trace(t, 1000 + u64::from(t.n) * 100, 20_000);
        t.run(Some(&trace), "1", false)
    });
    let relay = relay_over(&dir, &accounts, &round.boards());
    let r = page.run(&relay, FIRE_ALARM_STEPS, &["Deputy Dam", DEPUTY_SECRET]);
    let text = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
    assert_eq!(r["overflow"], 0, "{r}");
    assert!(
        text("pause_question").contains("3 boards (1.1, 1.2, 1.3)"),
        "{r}"
    );
    let reply = text("pause_reply");
    assert!(
        reply.starts_with("applied: Pause every board — 3 applied")
            && reply.contains("1.2: both clocks stopped"),
        "{reply}"
    );
    assert_eq!(
        r["stages"],
        serde_json::json!(["paused", "paused", "paused"]),
        "{r}"
    );
    assert!(text("nothing").contains("no board's clock runs"), "{r}");
    assert!(text("resume_question").contains("3 boards"), "{r}");
    assert!(r["arrived_above"].as_f64().unwrap_or(0.0) > 20.0, "{r}");
    assert!(
        r["question_moved"].as_f64().is_some_and(|m| m.abs() < 1.0),
        "the question moved under the arbiter's finger: {r}"
    );
    assert!(
        text("resume_reply").starts_with("applied: Resume every board — 3 applied"),
        "{r}"
    );
    assert_eq!(r["deputy_controls"], 0, "{r}");
    drop(relay);
    std::fs::remove_dir_all(&dir).ok();
}
