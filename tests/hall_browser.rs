//! The hall display `/hall` in headless Chromium at 1920×1080 (issue 42
//! §4): a relay over round 3 of `tests/data/standings-open-2026.trf` on
//! six real boards (`common::standings`), four results in (a draw and a
//! 0-1 by correction, a 1-0 confirmed, a forfeit), two games going on.
//! The page shows the event and its round, all six boards with players,
//! clocks (the running one marked and ticking), the last move and the
//! results, and the standings marked provisional, everything on the one
//! screen; a screenshot is saved. Then the relay is killed: the page says
//! "Reconnecting…" and keeps the boards; the relay started again on the
//! same port: the page reads the boards again by itself, without a reload.
//!
//! Skipped (with the reason printed) when Chromium or python3 is missing,
//! unless `CI` is set.

use crate::common;

use common::console::HttpRelay;
use common::standings::*;
use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

const STEPS: &str = r##"
import base64
shot = sys.argv[4]
def tiles():
    return js("Array.from(document.querySelectorAll('#grid .board')).map((b) => b.innerText)")
with steps() as res:
    page(1920, 1080, False)
    wait("document.querySelectorAll('#grid .board').length === 6", "six boards")
    wait("document.querySelectorAll('#rows tr').length === 13", "the standings' 13 rows")
    wait("/forfeit/.test(document.getElementById('board-3.5').innerText) && /0-1/.test(document.getElementById('board-3.4').innerText)", "the results")
    wait("document.getElementById('board-3.3').querySelector('.clock.running') !== null", "board 3's running clock")
    wait("/1\\. a3/.test(document.getElementById('board-3.3').innerText)", "board 3's first move")
    res["event"] = js("document.getElementById('event').textContent")
    res["round"] = js("document.getElementById('round').textContent")
    res["tiles"] = tiles()
    res["rows"] = js("Array.from(document.querySelectorAll('#rows tr')).map((r) => r.innerText)")
    res["head"] = js("document.getElementById('table-head').innerText")
    res["provisional"] = js("!document.getElementById('provisional').hidden")
    res["note"] = js("document.getElementById('standings-note').textContent")
    res["box"] = js("""(() => { const r = Array.from(document.querySelectorAll('#grid .board, #table')).map((e) => e.getBoundingClientRect());
        return { bottom: Math.max(...r.map((x) => x.bottom)), right: Math.max(...r.map((x) => x.right)), top: Math.min(...r.map((x) => x.top)) }; })()""")
    res["cut_names"] = js("Array.from(document.querySelectorAll('#grid .name, #rows td')).filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent)")
    res["clipped"] = js("Array.from(document.querySelectorAll('#grid .board')).filter((e) => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1).map((e) => e.id)")
    res["sizes"] = js("""(() => { const px = (q) => parseFloat(getComputedStyle(document.querySelector(q)).fontSize);
        return { clock: px('.board .clock'), name: px('.board .name'), row: px('#rows td'), event: px('#event') }; })()""")
    clock = js("document.getElementById('board-3.3').querySelector('.clock.running').textContent")
    res["ticks"] = wait("document.getElementById('board-3.3').querySelector('.clock.running').textContent !== %s" % json.dumps(clock), "the running clock to tick", 10)
    png = call("Page.captureScreenshot", {"format": "png"}, s)["data"]
    open(shot, "wb").write(base64.b64decode(png))
    js("window.__same_page = 1")
    loads = js("Number(document.body.dataset.loads)")
    res["loads_before"] = loads
    print("KILL", flush=True)
    if sys.stdin.readline().strip() != "KILLED": raise SystemExit("no kill")
    wait("!document.getElementById('away').hidden", "the reconnecting marker", 30)
    res["away_text"] = js("document.getElementById('away').textContent")
    res["away_tiles"] = len(tiles())
    print("START", flush=True)
    if sys.stdin.readline().strip() != "STARTED": raise SystemExit("no start")
    wait("document.getElementById('away').hidden && Number(document.body.dataset.loads) > %d && document.querySelectorAll('#grid .board').length === 6" % loads, "the boards read again after the restart", 90)
    res["same_page"] = js("window.__same_page === 1")
    res["tiles_after"] = tiles()
    res["rows_after"] = js("document.querySelectorAll('#rows tr').length")
"##;

#[test]
fn the_hall_display_at_1920x1080_survives_a_relay_restart() {
    let Some(chrome) = chromium_and_python() else {
        return;
    };
    let dir = tempdir("hall-browser");
    // Boards 3 and 6 play on (quiet moves, real time); 1, 2 and 4 play the
    // Opera Game fast; board 5's Black does not come.
    let boards = start_boards(
        &dir,
        |n, d| match n {
            3 | 6 => Some(steps_trace(
                d,
                "game",
                TIME_CONTROL,
                &quiet_steps(1000, 20_000, 10),
            )),
            5 => None,
            _ => Some(opera_trace(d, u64::from(n))),
        },
        |n| {
            let speed = if n == 3 || n == 6 { "1" } else { "60" };
            vec!["--speed".into(), speed.into()]
        },
    );
    let rule = |n: usize, path: &str, body: &str| {
        let (s, b) = request(&boards[n - 1].addr, "POST", path, &[ARBITER_AUTH], body);
        assert_eq!(s, 200, "board {n} {path}: {b}");
    };
    for n in [1usize, 2, 4] {
        poll(60, &format!("board {n}'s game over"), || {
            (board_state(&boards[n - 1].addr)["result"] == "1-0").then_some(())
        });
    }
    rule(1, "/arbiter/confirm", r#"{"result": "1/2-1/2"}"#);
    rule(2, "/arbiter/confirm", "");
    rule(4, "/arbiter/confirm", r#"{"result": "0-1"}"#);
    rule(5, "/arbiter/forfeit", r#"{"result": "1-0"}"#);
    let spec: HttpRelay = relay(&dir, &boards);
    let addr = free_loopback_addr();
    let mut relay = spec.start_at(&addr);
    poll(60, "the four results in the standings", || {
        let (status, s) = standings(&addr);
        (status == 200 && s["unconfirmed"].as_array()?.len() == 2).then_some(())
    });

    // Kept after the test (its directory is removed): the page as the hall sees it.
    let shot = std::env::temp_dir().join("eboard-hall-1920x1080.png");
    let mut py = steps_command(
        &chrome,
        &format!("http://{addr}/hall"),
        &dir,
        STEPS,
        &[shot.to_str().unwrap()],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(std::fs::File::create(dir.join("python-stderr.txt")).unwrap())
    .spawn()
    .expect("run python3");
    let mut last = String::new();
    for line in BufReader::new(py.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let reply = match line.as_str() {
            "KILL" => {
                relay.kill();
                "KILLED"
            }
            "START" => {
                relay = spec.start_at(&addr);
                "STARTED"
            }
            _ => {
                last = line;
                continue;
            }
        };
        writeln!(py.stdin.as_mut().unwrap(), "{reply}").unwrap();
    }
    let status = py.wait().unwrap();
    assert!(
        status.success(),
        "the browser run failed: {}\nso far: {last}\nrelay: {}",
        std::fs::read_to_string(dir.join("python-stderr.txt")).unwrap_or_default(),
        relay.log()
    );
    let r: Value = serde_json::from_str(&last).unwrap();
    println!("{r:#}");
    println!("screenshot: {}", shot.display());
    assert!(
        std::fs::metadata(&shot).unwrap().len() > 10_000,
        "a screenshot"
    );
    let text = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
    assert_eq!(text("event"), "Eboard Standings Open 2026");
    assert_eq!(text("round"), "Round 3 of 5");
    let tiles: Vec<String> = r["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tiles.len(), 6, "{r}");
    // Board, players (title first), both clocks, result, as the pairing says.
    let expect = [
        ("IM Berg,Ola", "Frandsen,Lars", "½-½"),
        ("WGM Dahl,Ingrid", "Iversen,Emil", "1-0"),
        ("GM Andersen,Mads", "Holm,Anders", ""),
        ("FM Eriksen,Peter", "IM Christensen,Jonas", "0-1"),
        ("Madsen,Freja", "WFM Gundersen,Kari", "1-0 forfeit"),
        ("Jensen,Sofie", "Lund,Mikkel", ""),
    ];
    let clocks = regex_clocks();
    for (i, (tile, (w, b, result))) in tiles.iter().zip(expect).enumerate() {
        assert!(tile.starts_with(&(i + 1).to_string()), "{tile}");
        assert!(tile.contains(w) && tile.contains(b), "{tile}");
        assert!(tile.contains(result), "{result:?} in {tile}");
        if i != 4 {
            assert_eq!(clocks(tile), 2, "two clocks in {tile}");
        }
    }
    assert!(tiles[2].contains("1. a3"), "the last move: {}", tiles[2]);
    assert!(!tiles[2].contains("1-0"), "{}", tiles[2]);
    assert!(r["ticks"].as_bool().unwrap_or(true), "{r}");
    // The standings: 13 players, provisional while 3.3 and 3.6 go on.
    assert_eq!(r["rows"].as_array().unwrap().len(), 13);
    assert_eq!(r["provisional"], true);
    assert!(text("note").contains("3.3, 3.6"), "{r}");
    for h in ["Pts", "BH", "SB"] {
        assert!(text("head").contains(h), "{r}");
    }
    // Berg's draw puts him first: 2.5 points, BH 4.5 (Dahl 2.5, BH 3.5
    // while her round-1 opponent's game of round 3 goes on).
    assert!(
        r["rows"][0].as_str().unwrap().contains("IM Berg,Ola"),
        "{r}"
    );
    assert!(r["rows"][0].as_str().unwrap().contains("2.5"), "{r}");
    // One screen, big type.
    let b = &r["box"];
    assert!(b["top"].as_f64().unwrap() >= 0.0, "{r}");
    assert!(
        b["bottom"].as_f64().unwrap() <= 1080.0,
        "everything on one screen: {r}"
    );
    assert!(b["right"].as_f64().unwrap() <= 1920.0, "{r}");
    assert_eq!(
        r["cut_names"],
        serde_json::json!([]),
        "names cut short: {r}"
    );
    assert_eq!(r["clipped"], serde_json::json!([]), "boards cut short: {r}");
    let size = |k: &str| r["sizes"][k].as_f64().unwrap();
    assert!(
        size("clock") >= 40.0 && size("name") >= 28.0 && size("row") >= 28.0,
        "{r}"
    );
    // Away: said, the boards kept; back: read again, the same page.
    assert_eq!(text("away_text"), "Reconnecting…");
    assert_eq!(r["away_tiles"], 6, "never a blank screen: {r}");
    assert_eq!(r["same_page"], true, "no reload: {r}");
    assert_eq!(r["tiles_after"].as_array().unwrap().len(), 6);
    assert_eq!(r["rows_after"], 13);
    drop(relay);
    drop(boards);
    std::fs::remove_dir_all(&dir).ok();
}

/// Counts the clock readouts (`h:mm:ss`) in a tile's text.
fn regex_clocks() -> impl Fn(&str) -> usize {
    |t: &str| {
        t.split_whitespace()
            .filter(|w| {
                let p: Vec<&str> = w.split(':').collect();
                p.len() == 3
                    && p.iter()
                        .all(|x| !x.is_empty() && x.chars().all(|c| c.is_ascii_digit()))
            })
            .count()
    }
}
