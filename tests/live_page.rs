//! The live page in headless Chromium: `eboard demo --listen` plays the
//! Opera Game; the page's DOM squares must carry the pieces of the game's
//! position, and the screenshot must show pieces on exactly the occupied
//! squares. Skipped (with the reason printed) when Chromium is missing,
//! unless `CI` is set.

use crate::common;

use common::*;
use std::process::Command;

/// FEN placement → piece letter per square name.
fn placement(fen: &str) -> std::collections::HashMap<String, String> {
    let mut m = std::collections::HashMap::new();
    for (i, row) in fen.split(' ').next().unwrap().split('/').enumerate() {
        let mut f = 0u8;
        for ch in row.chars() {
            if let Some(n) = ch.to_digit(10) {
                f += n as u8;
            } else {
                m.insert(format!("{}{}", (b'a' + f) as char, 8 - i), ch.to_string());
                f += 1;
            }
        }
    }
    m
}

/// Decodes the PNG with Python's zlib, finds the board by its two square
/// colours and says per square (a8..h1) whether something is drawn on it.
const OCCUPANCY_PY: &str = r#"
import sys, zlib, struct
data = open(sys.argv[1], "rb").read()
pos, idat, w, h, ct = 8, b"", 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos+8])
    body = data[pos+8:pos+8+n]
    if kind == b"IHDR":
        w, h, depth, ct = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ct in (2, 6), (depth, ct)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = 3 if ct == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
rows, prev, i = [], bytearray(stride), 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i+1:i+1+stride]); i += 1 + stride
    for x in range(stride):
        a = line[x-bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x-bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p-a), abs(p-b), abs(p-c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
def px(x, y):
    r = rows[y]; return (r[x*bpp], r[x*bpp+1], r[x*bpp+2])
LIGHT, DARK = (0xee, 0xd9, 0xb6), (0xb5, 0x88, 0x63)
near = lambda p, q: all(abs(a-b) <= 3 for a, b in zip(p, q))
xs, ys = [], []
for y in range(0, h, 2):
    for x in range(0, w, 2):
        p = px(x, y)
        if near(p, LIGHT) or near(p, DARK):
            xs.append(x); ys.append(y)
x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
sw, sh = (x1 - x0) / 8.0, (y1 - y0) / 8.0
out = ""
for r in range(8):
    for f in range(8):
        cx0, cy0 = int(x0 + f*sw + sw*0.2), int(y0 + r*sh + sh*0.2)
        cx1, cy1 = int(x0 + f*sw + sw*0.8), int(y0 + r*sh + sh*0.8)
        other = total = 0
        for y in range(cy0, cy1):
            for x in range(cx0, cx1):
                p = px(x, y); total += 1
                if not (near(p, LIGHT) or near(p, DARK)): other += 1
        out += "x" if other > total * 0.03 else "."
print(out)
"#;

#[test]
fn the_live_page_shows_the_game() {
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    let dir = tempdir("page");
    let pgn = dir.join("demo.pgn");
    let run = spawn(
        &["demo", "--speed", "200", "--pgn", pgn.to_str().unwrap()],
        &[],
        &dir,
    );
    let url = format!("http://{}/", run.addr);
    // Some moves in: the game's end, so the position holds still.
    let fen = poll(60, "the end of the demo game", || {
        let boards: serde_json::Value =
            serde_json::from_str(&get(&run.addr, "/boards.json")).ok()?;
        let state = &boards[0]["state"];
        (state["result"] != "*").then(|| state["fen"].as_str().unwrap().to_owned())
    });
    let want = placement(&fen);
    assert!(want.len() > 10);

    let out = headless(&chrome, &dir, &["--dump-dom"], &url);
    let dom = shown_dom(&out);
    let mut squares = 0;
    for part in dom.split("data-square=\"").skip(1) {
        let sq = &part[..2];
        let piece = part
            .split_once("data-piece=\"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(p, _)| p)
            .unwrap_or("?");
        let expected = want.get(sq).map_or("", String::as_str);
        assert_eq!(piece, expected, "square {sq} in the page's DOM");
        squares += 1;
    }
    assert_eq!(squares, 64, "the page shows one board: {dom}");
    assert!(dom.contains("Rd8#"), "the move list");
    assert!(dom.contains("1-0"), "the result");
    // Each game links to its own page; that page shows it, another game's
    // page does not.
    let game = serde_json::from_str::<serde_json::Value>(&get(&run.addr, "/boards.json")).unwrap()
        [0]["state"]["game"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(dom.contains(&format!("href=\"/?game={game}\"")), "{dom}");
    let own = headless(
        &chrome,
        &dir,
        &["--dump-dom"],
        &format!("{url}?game={game}"),
    );
    let own = shown_dom(&own);
    assert_eq!(own.matches("data-square=\"").count(), 64, "{own}");
    assert!(own.contains("Rd8#") && !own.contains("follow this game"));
    let other = headless(&chrome, &dir, &["--dump-dom"], &format!("{url}?game=9.9"));
    let other = shown_dom(&other);
    assert_eq!(other.matches("data-square=\"").count(), 0, "{other}");

    let shot = dir.join("page.png");
    let out = headless(
        &chrome,
        &dir,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1000,800",
        ],
        &url,
    );
    assert!(
        shot.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let occ = output_ok(Command::new("python3").args(["-c", OCCUPANCY_PY, shot.to_str().unwrap()]));
    let seen = String::from_utf8(occ.stdout).unwrap();
    let expected: String = (1..=8)
        .rev()
        .flat_map(|r| {
            let want = &want;
            "abcdefgh".chars().map(move |f| {
                if want.contains_key(&format!("{f}{r}")) {
                    'x'
                } else {
                    '.'
                }
            })
        })
        .collect();
    assert_eq!(seen.trim(), expected, "pieces drawn per square, a8..h1");
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 40 §9: the console and the live page show a clock as a chess
/// clock does, the whole seconds left, truncated (1:17:18.9 shows 1:17:18,
/// 0.9 s shows 0:00 while the flag has not fallen), as the daemon's
/// `clock::fmt_hms` writes them. The scripts as the daemon serves them,
/// each run in a page of its own in Chromium.
#[test]
fn the_pages_show_clocks_truncated_as_clocks_do() {
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    let dir = tempdir("clock-text");
    let pgn = dir.join("demo.pgn");
    let run = spawn(
        &["demo", "--speed", "200", "--pgn", pgn.to_str().unwrap()],
        &[],
        &dir,
    );
    let cases = [4_638_900u64, 4_638_000, 900, 0, 59_999, 3_600_000];
    // What `clockFull` (h:mm:ss) must write: the daemon's own formatter.
    let full: Vec<String> = cases.iter().map(|&ms| eboard::clock::fmt_hms(ms)).collect();
    assert_eq!(full[0], "1:17:18");
    for script in ["console.js", "live.js"] {
        std::fs::write(dir.join(script), get(&run.addr, &format!("/{script}"))).unwrap();
        let page = dir.join(format!("{script}.html"));
        std::fs::write(
            &page,
            format!(
                "<!doctype html><html><body><p id=out></p><script src=\"{script}\"></script>\
                 <script>document.getElementById(\"out\").textContent = \
                 JSON.stringify({cases:?}.map((ms) => [clockFull(ms), clockText(ms)]));</script>\
                 </body></html>"
            ),
        )
        .unwrap();
        let out = headless(
            &chrome,
            &dir,
            &["--dump-dom", "--allow-file-access-from-files"],
            &format!("file://{}", page.display()),
        );
        let dom = String::from_utf8_lossy(&out.stdout);
        let got = dom
            .split_once("<p id=\"out\">")
            .and_then(|(_, rest)| rest.split_once("</p>"))
            .map(|(json, _)| json.replace("&quot;", "\""))
            .unwrap_or_default();
        let got: Vec<(String, String)> = serde_json::from_str(&got)
            .unwrap_or_else(|e| panic!("{script}: no clock texts ({e}) in {dom}"));
        let short = ["1:17:18", "1:17:18", "0:00", "0:00", "0:59", "1:00:00"];
        for (i, (f, t)) in got.iter().enumerate() {
            assert_eq!(f, &full[i], "{script}: clockFull({})", cases[i]);
            assert_eq!(t, short[i], "{script}: clockText({})", cases[i]);
        }
        assert_eq!(got.len(), cases.len(), "{script}");
    }
    drop(run);
    std::fs::remove_dir_all(&dir).ok();
}

/// Chromium's `EventSource` on `/events` with a lease of 1 s: collects
/// every message's type, ply and `lastEventId`, the `lease` events and the
/// `open`s, until the game's end; prints them as JSON.
const LEASE_PY: &str = r#"
COLLECT = """
window.__got = {messages: [], leases: [], opens: 0, errors: 0, done: false};
const es = new EventSource("/events");
es.onopen = () => { __got.opens += 1; };
es.onerror = () => { __got.errors += 1; };
es.onmessage = (e) => {
  const m = JSON.parse(e.data);
  __got.messages.push({type: m.type, ply: m.ply, id: e.lastEventId});
  if (m.type === "game_end") { __got.done = true; es.close(); }
};
es.addEventListener("lease", (e) => { __got.leases.push(e.lastEventId); });
"""
with steps() as res:
    plain_page()
    wait("document.readyState === 'complete'", "the page loaded", 20)
    js(COLLECT)
    res.update(json.loads(wait("window.__got.done && JSON.stringify(window.__got)", "the game_end", 90)))
"#;

/// Issue 26 §3: a real browser's `EventSource` follows the end of a
/// stream's lease by itself: it reconnects with the lease's proof as
/// `Last-Event-ID` (the board logs it accepted), resumes, and its page
/// sees every message once, in order, and no `lease` as a message.
#[test]
fn chromium_eventsource_follows_lease_ends_without_a_gap() {
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    let dir = tempdir("page-lease");
    let trace = opera_trace(&dir, 15);
    let cfg = config(
        &dir,
        1,
        1,
        "\n[server]\nstream_lease_s = 1\nmax_connections_per_address = 0\n",
    );
    let run = run_board_with_env(
        &dir,
        &cfg,
        Some(&trace),
        &["--speed", "20"],
        &[("RUST_LOG", "info,eboard::server::sse=debug")],
    );
    // A page of the board's origin (the live page: its own stream runs
    // beside the one the test opens).
    let url = format!("http://{}/", run.addr);
    let got = run_steps(&chrome, &url, &dir, LEASE_PY, &[], &run.stderr);
    let messages = got["messages"].as_array().unwrap();
    let leases = got["leases"].as_array().unwrap();
    assert!(leases.len() >= 2, "the game spans leases: {got}");
    assert!(
        leases.iter().all(|l| l.as_str().unwrap().contains('.')),
        "each lease's id is LAST.PROOF: {got}"
    );
    assert!(
        got["opens"].as_u64().unwrap() > leases.len() as u64,
        "reconnected after each lease: {got}"
    );
    let types: Vec<&str> = messages
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert!(!types.contains(&"lease"), "no lease as a message");
    assert_eq!(types.iter().filter(|t| **t == "state").count(), 1, "{got}");
    // The moves after the state's, each once, in order, to the last.
    let state_plies = messages
        .iter()
        .position(|m| m["type"] == "move")
        .map_or(0, |i| messages[i]["ply"].as_u64().unwrap() - 1);
    let plies: Vec<u64> = messages
        .iter()
        .filter(|m| m["type"] == "move")
        .map(|m| m["ply"].as_u64().unwrap())
        .collect();
    assert_eq!(
        plies,
        ((state_plies + 1)..=33).collect::<Vec<_>>(),
        "every move once, in order: {got}"
    );
    // More than half the game's 33 plies (the board starts at once at
    // speed 20; Chromium's start on a loaded machine costs the first ones).
    assert!(plies.len() > 16, "most of the game over the stream: {got}");
    let log = std::fs::read_to_string(&run.stderr).unwrap_or_default();
    let accepted = log.matches("proof accepted: a proven reader").count();
    assert!(
        accepted + 1 >= leases.len(),
        "Chromium sent each lease's proof back: {accepted} accepted for {} leases",
        leases.len()
    );
    std::fs::remove_dir_all(&dir).ok();
}
