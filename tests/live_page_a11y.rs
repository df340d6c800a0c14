//! The live page as a blind spectator's screen reader meets it: headless
//! Chromium driven over the DevTools protocol (`--remote-debugging-pipe`),
//! its accessibility tree read with `Accessibility.getFullAXTree`. `eboard
//! run` replays the Opera Game in a Danish event: the move list, the result
//! and the illegal-move marking must be polite live regions with their
//! names, each move read in Danish words (the delayed public stream's
//! `spoken`), the page's `lang` the event's. Skipped (with the reason
//! printed) when Chromium is missing, unless `CI` is set.

use crate::common;

use common::*;
use serde_json::Value;

/// Drives Chromium over the DevTools pipe (fds 3 and 4, messages ended by
/// NUL): opens the page (with a MutationObserver counting the changes of
/// the live regions from the document's start), waits until the result
/// region shows a result, then prints `{"lang": …, "nodes": [the AX tree's
/// nodes], "mutations": {…}}` as JSON.
const CDP_PY: &str = r#"
# Counts, from the document's start, every change of the three live regions.
OBSERVE = '''
window.__mut = {moves_added: 0, moves_removed: 0, result: 0, marks: 0};
new MutationObserver((rs) => {
  for (const r of rs) {
    const t = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    const live = t && t.closest(".moves, .result-live, .marks");
    if (!live) continue;
    if (live.classList.contains("moves")) {
      if (r.target === live) { __mut.moves_added += r.addedNodes.length; __mut.moves_removed += r.removedNodes.length; }
    } else if (live.classList.contains("result-live")) __mut.result += 1;
    else __mut.marks += 1;
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
'''
with steps() as res:
    plain_page(OBSERVE)
    wait("(document.querySelector('.result-live') || {}).textContent || ''", "the result on the page")
    lang = js("document.documentElement.lang")
    # A second and a half of clock ticks and renders: the regions stay put.
    time.sleep(1.5)
    mut = js("JSON.stringify(window.__mut)")
    call("Accessibility.enable", session=s)
    nodes = call("Accessibility.getFullAXTree", {}, s)["nodes"]
    res.update({"lang": lang, "nodes": nodes, "mutations": json.loads(mut)})
"#;

/// A node's value of `key` (`role`, `name`) as the tree reports it.
fn value<'a>(node: &'a Value, key: &str) -> &'a str {
    node[key]["value"].as_str().unwrap_or("")
}

/// A node's property `name` (`live`, `atomic`, …).
fn property<'a>(node: &'a Value, name: &str) -> Option<&'a Value> {
    node["properties"]
        .as_array()?
        .iter()
        .find(|p| p["name"] == name)
        .map(|p| &p["value"]["value"])
}

/// All text under node `id` (its subtree's names and static texts).
fn text_under(nodes: &[Value], id: &str) -> String {
    let Some(n) = nodes.iter().find(|n| n["nodeId"] == id) else {
        return String::new();
    };
    let mut s = String::new();
    if value(n, "role") == "StaticText" || value(n, "role") == "InlineTextBox" {
        s.push_str(value(n, "name"));
        s.push(' ');
    }
    for c in n["childIds"].as_array().into_iter().flatten() {
        s.push_str(&text_under(nodes, c.as_str().unwrap_or("")));
    }
    s
}

#[test]
fn a_screen_reader_follows_the_live_page() {
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    let dir = tempdir("page-a11y");
    let cfg = config(&dir, 1, 1, "");
    // A Danish event.
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "time_control = \"5400+30\"",
        "time_control = \"5400+30\"\nlanguage = \"da\"\nrules = \"fide-2009\"",
    );
    std::fs::write(&cfg, text).unwrap();
    let trace = opera_trace(&dir, 7);
    // Slow enough that the page opens while the game is played: its moves
    // then arrive live over the delayed public stream.
    let run = run_board(&dir, &cfg, Some(&trace), &["--speed", "25"]);
    let url = format!("http://{}/", run.addr);
    let browser = steps_command(&chrome, &url, &dir, CDP_PY, &[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    let state = poll(90, "the end of the game", || {
        let boards: Value = serde_json::from_str(&get(&run.addr, "/boards.json")).ok()?;
        let state = boards[0]["state"].clone();
        (state["result"] != "*").then_some(state)
    });
    assert_eq!(state["lang"], "da");
    let last_spoken = state["moves"].as_array().unwrap().last().unwrap()["spoken"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(last_spoken.starts_with("Tårn Dora otte"), "{last_spoken}");
    let tree = steps_result(&browser.wait_with_output().unwrap(), &run.stderr);
    assert_eq!(tree["lang"], "da", "the page's lang is the event's");
    let nodes = tree["nodes"].as_array().unwrap();
    let named = |name: &str| {
        nodes
            .iter()
            .find(|n| value(n, "name") == name)
            .unwrap_or_else(|| panic!("no node named {name:?} in the accessibility tree"))
    };
    // The move list: a log, polite, read move by move in Danish.
    let moves = named("Moves of game 1.1");
    assert_eq!(value(moves, "role"), "log");
    assert_eq!(property(moves, "live"), Some(&Value::from("polite")));
    let said = text_under(nodes, moves["nodeId"].as_str().unwrap());
    assert!(said.contains(&last_spoken), "{said}");
    assert!(said.contains("Erik fire"), "1. e4 in Danish: {said}");
    assert!(
        !said.contains("Rd8#"),
        "the SAN is hidden from the reader: {said}"
    );
    // The result: a polite status.
    let result = named("Result of game 1.1");
    assert_eq!(value(result, "role"), "status");
    assert_eq!(property(result, "live"), Some(&Value::from("polite")));
    let said = text_under(nodes, result["nodeId"].as_str().unwrap());
    assert!(said.contains("1-0"), "{said}");
    // The illegal-move marking: a polite status too (empty in this game).
    let marks = named("Illegal moves in game 1.1");
    assert_eq!(value(marks, "role"), "status");
    assert_eq!(property(marks, "live"), Some(&Value::from("polite")));
    // Each region changed only when its words did: every move added once,
    // none taken away and added again, the result said once, the empty
    // illegal-move region never touched (the page renders on every event
    // and clock tick).
    let plies = state["moves"].as_array().unwrap().len();
    let m = &tree["mutations"];
    println!("live-region changes: {m}");
    assert_eq!(m["moves_added"], plies, "{m}");
    assert_eq!(m["moves_removed"], 0, "{m}");
    assert_eq!(m["result"], 1, "{m}");
    assert_eq!(m["marks"], 0, "{m}");
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}
